"""The claims ledger: every paper claim an entry with a status and its evidence.

==================  ==========================================================================================
module              contents
==================  ==========================================================================================
``claims``          :class:`Claim`, :class:`Verdict` (held / failed / inconclusive), the registry of claims,
                    generic verdict rules (slope in a band, interval, ordering at z standard errors)
``report``          evaluate claims from stored results; ``results/claims.json``, ``REPORT.md``, then the site
``site``            the report as a static site: ``REPORT.html`` (a card per paper), ``report/<paper>.html``
``report_check``    ``make report-check``: links and images resolve; headless Chromium renders without errors
``baseline``        the CI regression: smoke-scale numbers against ``paper_repro/baselines/``
==================  ==========================================================================================
"""
from .claims import (STATUSES, Claim, Verdict, all_claims, format_ci, get, interval_verdict, load_all, ordering_verdict,
                     register, slope_verdict)

__all__ = ["Claim", "Verdict", "STATUSES", "register", "load_all", "get", "all_claims", "slope_verdict",
           "interval_verdict", "ordering_verdict", "format_ci"]
