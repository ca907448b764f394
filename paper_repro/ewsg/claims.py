"""The EWSG journal text's claims (seed ``000_8e0377c44e2ea3b8.txt``): declarations decided by the ledger's rules.

Split along the experiments' seams:

=====================  ===========================================================================================
module                 claims
=====================  ===========================================================================================
``claims_fig1``        §5.1 Figs 1a-c, Theorem 4.3's three terms (Figs 1d-f) and their exact SGHMC split, Theorem
                       4.2's covariance trace, Fig. 1c repeated over data draws and step sizes
``claims_theory``      Theorems 4.1, 4.2, H.1; Remark 1 (with the paper's own h = 5e-2 in its grids)
``claims_appendix``    Appendix E, Appendix F (EWSG-VR, Figs 4 at both texts' n, Fig. 5), Appendix D / G.3
``claims_appendix_theory`` Appendix F eq. (13) (the friction Γ_k, exact Lyapunov laws), Appendix C Lemma C.1
``claims_bnn``         §5.3 Bayesian MLP (Fig. 3a, Table 2), Appendix G.3 Table 3; the Bayesian CNN (Fig. 3b)
``claims_flymc``       §5.2 Table 1 (with FlyMC), Appendix G.1 (FlyMC on the misspecified Gaussian)
``claims_algorithms``  the index chain (eq. (6)), Algorithm 1, Algorithm 2 (exact checks; shared with ``ewsg_iclr``)
=====================  ===========================================================================================

Every extractor reads ``results/ewsg/`` only (written by :mod:`sgmcmc_verify.paper_repro.ewsg.registry`). The
reading helpers shared with the conference text (``ewsg_iclr``) are public in
:mod:`sgmcmc_verify.paper_repro.ewsg.extract`.
"""
from __future__ import annotations

from sgmcmc_verify.ledger.claims import register

from .claims_algorithms import CLAIMS as _ALGORITHMS
from .claims_appendix import CLAIMS as _APPENDIX
from .claims_appendix_theory import CLAIMS as _APPENDIX_THEORY
from .claims_bnn import CLAIMS as _BNN
from .claims_fig1 import CLAIMS as _FIG1
from .claims_fig1 import P, SEED, term2_upper_bound_why
from .claims_flymc import CLAIMS as _FLYMC
from .claims_theory import CLAIMS as _THEORY

__all__ = ["CLAIMS", "SEED", "P", "term2_upper_bound_why"]

CLAIMS = _FIG1 + _THEORY + _APPENDIX + _APPENDIX_THEORY + _BNN + _FLYMC + _ALGORITHMS
register(*CLAIMS)
