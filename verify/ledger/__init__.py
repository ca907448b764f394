"""The claims ledger: every paper claim a declared entry with a status and its evidence.

==================  ==========================================================================================
module              contents
==================  ==========================================================================================
``verdict``         :class:`Verdict` and its statuses (held / failed / depends / inconclusive / not run (scale) /
                    not run), bases (paper / substitute data / our design), :class:`DecideBy`
``measures``        what an extractor returns: :class:`Estimate`, :class:`Fit`, :class:`Compared`,
                    :class:`Symbolic`; the facts the caps read (:class:`OnData`, :class:`Tuned`, :class:`NotAtScale`)
``rules``           the vocabulary of decision rules (ordering, slope_in, bound, identity, equivalent, all_of,
                    any_of, exactly_one, readings, robust_to), the one combiner over settings (``over_axis``), the
                    ledger-wide caps (substitute data, tuning edge), every threshold with its reason
``claims``          :class:`Claim`, :func:`declare`, the registry of claims; old-style helpers for papers not yet
                    converted
``prereg``          pre-registration: when each claim's rule last changed against its stored results (git)
``report``          evaluate claims from stored results; ``results/claims.json``, ``REPORT.md``, then the site
``site``            the report as a static site: ``REPORT.html`` (a card per paper), ``report/<paper>.html``
``report_check``    ``make report-check``: links and images resolve; headless Chromium renders without errors
``baseline``        the CI regression: smoke-scale numbers (declared on the claims) against ``paper_repro/baselines/``
==================  ==========================================================================================

``docs/ledger_rules.md`` is the guide: the vocabulary, how to declare a claim, how to convert an old evaluator.
"""
from .claims import (ABOUT, OLD_STYLE_PAPERS, STATUSES, Claim, Verdict, all_claims, declare, format_ci, get, load_all,
                     not_run_claim, register)
from .measures import Compared, DataUsed, Estimate, Fit, NotAtScale, OnData, Symbolic, Tuned, TunedChoice, estimate_of
from .rules import (FAMILY_LEVEL, MIN_FIT_POINTS, POINT_VALUE_MARGIN, THRESHOLDS, all_of, any_of, bound, equivalent,
                    exactly_one, identity, judge, ordering, over_axis, readings, robust_to, slope_in)
from .verdict import BASES, DECIDED, REPORT_ORDER, DecideBy, label

__all__ = ["Claim", "Verdict", "DecideBy", "STATUSES", "DECIDED", "BASES", "ABOUT", "REPORT_ORDER", "OLD_STYLE_PAPERS",
           "label", "register", "load_all", "get", "all_claims", "declare", "not_run_claim",
           "Estimate", "Fit", "Compared", "Symbolic", "DataUsed", "OnData", "Tuned", "TunedChoice", "NotAtScale",
           "estimate_of", "ordering", "slope_in", "bound", "identity", "equivalent", "all_of", "any_of", "exactly_one",
           "readings", "robust_to", "over_axis", "judge", "FAMILY_LEVEL", "MIN_FIT_POINTS", "POINT_VALUE_MARGIN",
           "THRESHOLDS", "format_ci"]
