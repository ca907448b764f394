"""The audit battery: any sampler factory of the protocol :class:`AuditedSampler`, run through seven checks (1, 1b, 2–6) on
targets whose answer is known (issues #15, #27, #28).

=====================  ===============================================================================
module                 contents
=====================  ===============================================================================
``protocol``           :class:`AuditedSampler` (what ``init``/``step``/state provide, the optional keywords
                       that enable checks), the checked wrapper, the probe, :class:`ProtocolError`
``settings``           :class:`AuditSettings` (smoke / default scales)
``common``             the summary row, building the sampler, exact draws, exact linear laws, slope fits
``consistency``        1. stationary mean / covariance error vs h, fitted order, MC floor, exact law, and
                       the displaced-start twin (the law must be reached, not only kept)
``mixing``             1b. movement: mean squared jump, emcee's integrated autocorrelation time, a displaced
                       start against an exact one
``sg_noise``           2. the covariance error vs the batch size b (needs ``batch_size``)
``time_average``       3. time-average MSE on an (h, T) grid, fitted ``C1/T + C2 h/T + C3 h²``; converges in T
``multimodal``         4. exact W2 to a 2-D mixture vs the exact-vs-exact floor, occupancy, switches, from a
                       start displaced within the modes
``stability``          5. largest non-diverging step on a stiff Gaussian, × 1/L
``cost``               6. gradient evaluations and time per step vs n
``battery``            :func:`audit` (runs them under a time limit each, writes ``results/audit/<name>/``),
                       :func:`load_factory` (names, ``module:factory``, ``file.py:factory``)
``toolkit``            :func:`toolkit_audit`: every registered sampler with the parameters ``make audit`` uses
``pytest_helpers``     :func:`~sgmcmc_verify.audit.pytest_helpers.assert_sampler`: the audit in a user's pytest
=====================  ===============================================================================

Example (smoke scale, a few seconds per check)::

    from sgmcmc_verify import audit, samplers
    rep = audit.audit(samplers.sgld, scale="smoke", name="SGLD", results="results")
    rep["rows"][0]["detail"]    # 'mean: ...; covariance: order p = 0.99 [0.94, 1.05] ...: order 1.0 ✓; from a point mass ...'
"""
from .battery import CHECKS, AuditReport, CheckTimeout, audit, load_factory
from .common import STATUSES, CheckResult, exact_recursion
from .protocol import OPTIONAL_KEYWORDS, AuditedSampler, ProtocolError, SamplerState, StepInfoLike
from .settings import AUDIT_SCALES, AuditSettings
from .toolkit import TOOLKIT_AUDIT, toolkit_audit

__all__ = ["audit", "load_factory", "CHECKS", "AuditReport", "AuditSettings", "AUDIT_SCALES", "CheckResult",
           "STATUSES", "exact_recursion", "TOOLKIT_AUDIT", "toolkit_audit", "CheckTimeout", "AuditedSampler",
           "SamplerState", "StepInfoLike", "ProtocolError", "OPTIONAL_KEYWORDS"]
