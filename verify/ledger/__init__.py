"""The claims ledger: every paper claim an entry with a status and its evidence.

============  ==========================================================================================
module        contents
============  ==========================================================================================
``claims``    :class:`Claim`, :class:`Verdict` (held / failed / inconclusive), the registry of claims,
              generic verdict rules (slope in a band, interval, ordering at z standard errors)
``report``    evaluate claims from stored results; ``results/claims.json``, ``REPORT.md`` / ``.html``
``baseline``  the CI regression: smoke-scale numbers against ``paper_repro/baselines/``
============  ==========================================================================================
"""
from .claims import (STATUSES, Claim, Verdict, all_claims, format_ci, get, interval_verdict, load_all, ordering_verdict,
                     register, slope_verdict)

__all__ = ["Claim", "Verdict", "STATUSES", "register", "load_all", "get", "all_claims", "slope_verdict",
           "interval_verdict", "ordering_verdict", "format_ci"]
