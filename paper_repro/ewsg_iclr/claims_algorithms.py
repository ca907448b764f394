"""The conference text's index chain (§4.3, eq. (5)) and Algorithm 1 as entries (issue #25), decided on the journal
study's exact checks (``ewsg.algorithms``, :mod:`sgmcmc_verify.paper_repro.ewsg.algorithms`) at the conference §5.1
size n = 20; the declarations are the journal's (:mod:`sgmcmc_verify.paper_repro.ewsg.claims_algorithms`).
"""
from __future__ import annotations

from sgmcmc_verify.paper_repro.ewsg.claims_algorithms import algorithm1_claim, index_chain_claim

from .claims_common import P, SEED

__all__ = ["CLAIMS"]

#: The conference text's §5.1 model size.
N = 20

CLAIMS = [
    index_chain_claim(f"{P}.eq5.index_chain_stationary_law", P, f"{SEED}, §4.3, eq. (5) (and the weights (4))", N,
                      eq="(5)", x_figure="Fig. 1c"),
    algorithm1_claim(f"{P}.alg1.ewsg_step", P, f"{SEED}, Algorithm 1 (EWSG), §4.3", N),
]
