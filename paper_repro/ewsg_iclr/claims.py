"""The EWSG conference text's claims (seed ``003_19372d6d86d2623b.txt``): declarations decided by the ledger's rules.

Split along the experiments' seams:

======================  =====================================================================================
module                  claims
======================  =====================================================================================
``claims_kl``           Figs. 1a, 1b, 1c (KL panels at n = 20), the best-M study of Figs. 1g–i, minibatch b/(M+1)
``claims_theory``       Figs. 1d–e (bias and variance in M), Theorem 2, Theorem 3, Theorem 4 (Figs. 1j–l)
``claims_algorithms``   the index chain (eq. (5)) and Algorithm 1, on the journal study ``ewsg.algorithms`` at n = 20
======================  =====================================================================================

Every extractor reads ``results/ewsg_iclr/`` (written by the experiments in
:mod:`sgmcmc_verify.paper_repro.ewsg_iclr.registry`), except ``claims_algorithms``, which reads the journal study
``results/ewsg/algorithms.json`` (it runs both texts' n); ``claims_common`` holds what the modules share.
"""
from __future__ import annotations

from sgmcmc_verify.ledger.claims import register

from .claims_algorithms import CLAIMS as _ALGORITHMS
from .claims_common import P, SEED
from .claims_kl import CLAIMS as _KL
from .claims_theory import CLAIMS as _THEORY

__all__ = ["CLAIMS", "SEED", "P"]

CLAIMS = _KL + _THEORY + _ALGORITHMS
register(*CLAIMS)
