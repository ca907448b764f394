"""The vrSG-MCMC paper's claims (seed ``002_245183f35db8d795.txt``), checked from stored results.

Every evaluator reads ``results/vrsg/`` only. Claims about the convolutional and recurrent networks
of §5 are ledger entries with the status ``not run`` and the reason, so the report lists every claim
of the paper.
"""
from __future__ import annotations

from verify.ledger.claims import not_run_claim, register

SEED = "002_245183f35db8d795.txt"
P = "vrsg"

_DEEP = ("out of scope for this toolkit: float64 NumPy reference samplers on 2 CPU cores; a {what} needs "
         "automatic differentiation and an accelerator to run at the paper's scale, and its posterior has no "
         "known answer to verify against")

register(
    not_run_claim(
        "vrsg.fig3.cnn4", P, f"{SEED}, §5 'Convolutional neural networks', Figure 3 (top), Figure 7 (top)",
        "On CIFAR-10 with the 4-layer CNN (C32-C32-C64-C32, max-pooling, dropout), vrSG-MCMC (n1 = 100, n2 = 10, "
        "m = 10) converges much faster than SGLD in test error and loss vs data passes.",
        "vrSG-MCMC's test error / loss curve below SGLD's at equal data passes",
        _DEEP.format(what="4-layer CNN on CIFAR-10")),
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
)
