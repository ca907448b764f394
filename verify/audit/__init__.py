"""The audit battery: any sampler factory of the toolkit's protocol, run through six checks on targets
whose answer is known (issue #15).

=====================  ===============================================================================
module                 contents
=====================  ===============================================================================
``settings``           :class:`AuditSettings` (smoke / default scales)
``common``             the summary row, building the sampler, exact draws, exact linear laws, slope fits
``consistency``        1. stationary mean / covariance error vs h, fitted order, MC floor, exact law
``sg_noise``           2. the same vs the batch size b at fixed h
``time_average``       3. time-average MSE on an (h, T) grid, fitted ``C1/T + C2 h/T + C3 h²``
``multimodal``         4. exact W2 to a 2-D mixture vs the exact-vs-exact floor, occupancy, switches
``stability``          5. largest non-diverging step on a stiff Gaussian, × 1/L
``cost``               6. gradient evaluations and time per step vs n
``battery``            :func:`audit` (runs them, writes ``results/audit/<name>/``), :func:`load_factory`
``toolkit``            :data:`TOOLKIT_AUDIT`: the toolkit's samplers with the parameters ``make audit`` uses
=====================  ===============================================================================

Example (smoke scale, a few seconds per check)::

    from sgmcmc_verify import audit, samplers
    rep = audit.audit(samplers.sgld, scale="smoke", name="SGLD", results="results")
    rep["rows"][0]["detail"]    # 'mean: ...; covariance: order p = 0.99 [0.94, 1.05] ...: order 1.0 ✓'
"""
from .battery import CHECKS, AuditReport, CheckTimeout, audit, load_factory, read_summaries
from .common import STATUSES, CheckResult, exact_recursion
from .protocol import OPTIONAL_KEYWORDS, AuditedSampler, ProtocolError, SamplerState, StepInfoLike
from .settings import AUDIT_SCALES, AuditSettings
from .toolkit import TOOLKIT_AUDIT, toolkit_audit

__all__ = ["audit", "load_factory", "CHECKS", "AuditReport", "AuditSettings", "AUDIT_SCALES", "CheckResult",
           "STATUSES", "exact_recursion", "TOOLKIT_AUDIT", "toolkit_audit", "CheckTimeout", "read_summaries", "AuditedSampler",
           "SamplerState", "StepInfoLike", "ProtocolError", "OPTIONAL_KEYWORDS"]
