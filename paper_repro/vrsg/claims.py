"""The vrSG-MCMC paper's claims (seed ``002_245183f35db8d795.txt``): declarations decided by the ledger's rules.

Split along the experiments' seams:

======================  =====================================================================================
module                  claims
======================  =====================================================================================
``claims_identities``   Lemma 2, eq. (7) and Algorithm 1's sampling line (both readings), Theorem 3's statement
                        constant, eq. (10), Proposition 10, eq. (12), Corollary 4's stationary point
``claims_mse``          Theorem 3's terms and constant, Corollary 4's regimes over data draws, Figure 1, Theorem 6's
                        MSE consequence (exact MSEs of the §5 model)
``claims_lambda``       Theorem 6's lambda, its O(mh) remainder, Lemma 5 (real vrSG-LD chains on Pima)
``claims_data``         the MLP (Figures 2, 5, 6, 8), Figure 9 over Pima splits, Remark 8 graded once
``claims_bounds``       Remark 7, the introduction's bias claim, Dubey et al.'s bounds (13)-(15), Algorithm 1
======================  =====================================================================================

Every extractor reads ``results/vrsg/`` only. Claims about the convolutional and recurrent networks of §5 are
ledger entries with the status ``not run`` and the reason, so the report lists every claim of the paper.
"""
from __future__ import annotations

from sgmcmc_verify.ledger.claims import not_run_claim, register

from .claims_bounds import CLAIMS as _BOUNDS
from .claims_data import CLAIMS as _DATA
from .claims_identities import CLAIMS as _IDENTITIES
from .claims_identities import P, SEED
from .claims_lambda import CLAIMS as _LAMBDA
from .claims_mse import CLAIMS as _MSE

__all__ = ["CLAIMS", "NOT_RUN", "SEED", "P"]

_DEEP = ("out of scope for this toolkit: float64 NumPy reference samplers on 2 CPU cores; a {what} needs "
         "automatic differentiation and an accelerator to run at the paper's scale, and its posterior has no "
         "known answer to verify against")

NOT_RUN = [
    not_run_claim(
        "vrsg.fig3.cnn4", P, f"{SEED}, §5 'Convolutional neural networks', Figure 3 (top), Figure 7 (top)",
        "On CIFAR-10 with the 4-layer CNN (C32-C32-C64-C32, max-pooling, dropout), vrSG-MCMC (n1 = 100, n2 = 10, "
        "m = 10) converges much faster than SGLD in test error and loss vs data passes.",
        "vrSG-MCMC's test error / loss curve below SGLD's at equal data passes",
        "at the paper's scale (CIFAR-10, 100 data passes, dropout, the text's unstated kernel and padding) out of reach "
        "of float64 NumPy on 2 cores; the reduced entries vrsg.fig3.cnn4_mnist.faster_than_sgld (MNIST subset) and "
        "vrsg.fig3.cnn4_cifar10.faster_than_sgld (CIFAR-10 by --data) run the same comparison a few passes long"),
    not_run_claim(
        "vrsg.fig3.resnet20", P, f"{SEED}, §5 'Convolutional neural networks', Figure 3 (bottom), Figure 7 (bottom)",
        "On CIFAR-10 with ResNet-20 and step sizes h_l = 1/(10 + 1.8e-3 l), vrSG-MCMC converges faster than SGLD, "
        "with a larger gap than on the CNN-4 and smoother learning curves.",
        "vrSG-MCMC's test error / loss below SGLD's at equal data passes; the gap larger than for CNN-4",
        _DEEP.format(what="20-layer residual network on CIFAR-10")),
    not_run_claim(
        "vrsg.fig4.ptb", P, f"{SEED}, §5 'Recurrent neural networks', Figure 4 (top)",
        "On Penn Treebank with a 2-layer LSTM (200 hidden units, step size 0.5, gradient clipping at 5), vrSG-MCMC "
        "reaches lower test perplexity than SGLD at equal data passes, with smoother curves.",
        "vrSG-MCMC's test perplexity below SGLD's at equal data passes",
        _DEEP.format(what="2-layer LSTM language model on PTB (887,521 training tokens)")),
    not_run_claim(
        "vrsg.fig4.wikitext2", P, f"{SEED}, §5 'Recurrent neural networks', Figure 4 (bottom)",
        "On WikiText-2 with the same 2-layer LSTM, vrSG-MCMC reaches lower test perplexity than SGLD at equal "
        "data passes.",
        "vrSG-MCMC's test perplexity below SGLD's at equal data passes",
        _DEEP.format(what="2-layer LSTM language model on WikiText-2 (2,088,628 training tokens)")),
]

CLAIMS = _IDENTITIES + _MSE + _LAMBDA + _DATA + _BOUNDS
register(*NOT_RUN, *CLAIMS)
