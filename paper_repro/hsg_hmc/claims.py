"""The HSG-HMC paper's claims (seed ``001_d56659fdb8996bf2.txt``): declarations decided by the ledger's rules.

Split along the experiments' seams:

======================  =====================================================================================
module                  claims
======================  =====================================================================================
``claims_lemmas``       Lemma 2's recursion, Lemma 3's two terms and its bound (10), condition (9)
``claims_table2``       Table 2 and Figure 1 on the Gaussian mixture; which reading the printed numbers are
``claims_complexity``   Table 1's exponents of 1/ε (Corollaries 1-2); Figure 2 (Bayesian logistic regression)
``claims_bnn``          Figure 3 (Bayesian neural network: LeNet and feedforward readings, MNIST)
``claims_items``        Theorem 1's bound (13), Lemma 1 / (4)-(6), eq. (7), the mixture, Fig. 1's count, Table 3
======================  =====================================================================================

Every extractor reads ``results/hsg_hmc/`` only (written by :mod:`sgmcmc_verify.paper_repro.hsg_hmc.registry`).
"""
from __future__ import annotations

from sgmcmc_verify.ledger.claims import register

from .claims_bnn import CLAIMS as _BNN
from .claims_complexity import CLAIMS as _COMPLEXITY
from .claims_items import CLAIMS as _ITEMS
from .claims_lemmas import CLAIMS as _LEMMAS
from .claims_lemmas import P, SEED
from .claims_table2 import CLAIMS as _TABLE2

__all__ = ["CLAIMS", "SEED", "P"]

CLAIMS = _LEMMAS + _TABLE2 + _COMPLEXITY + _BNN + _ITEMS
register(*CLAIMS)
