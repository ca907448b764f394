"""A verdict: the status of one claim, what it rests on, and (when undecided) what would decide it.

Statuses (:data:`STATUSES`)
---------------------------
``held``             the measurement supports the claim by the rule it declared;
``failed``           the measurement contradicts it by that rule (a finding, not a bug);
``depends``          the verdict differs across the declared readings of the statement or across a robustness
                     axis (data draws, splits, step sizes, seeds); ``map`` says which hold and which fail;
``inconclusive``     the measurement cannot decide; ``decide_by`` says what would (more realizations or steps,
                     estimated from this run's own standard errors; the paper's data set; a wider grid; or that
                     the statement is a bound or an asymptotic claim no finite run refutes);
``not run (scale)``  this scale does not run the cell (``decide_by`` names the scale that does);
``not run``          the claim's experiment is out of this toolkit's reach, with the reason.

The *basis* qualifies a decided status without changing it: ``paper`` (the paper's own setting),
``substitute data`` (a stand-in data set: "held on substitute data") or ``our design`` (the toolkit's design of a
part the paper leaves unspecified: "failed on our design"). The report counts the bases apart.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["STATUSES", "DECIDED", "BASES", "REPORT_ORDER", "DecideBy", "Verdict", "label"]

STATUSES = ("held", "failed", "depends", "inconclusive", "not run (scale)", "not run")
#: statuses that are a verdict on the claim (the others say why there is none)
DECIDED = ("held", "failed", "depends")
#: what a verdict rests on: the paper's setting, a stand-in data set, or the toolkit's design of an unspecified part
BASES = ("paper", "substitute data", "our design")
#: the order in which the report lists claims: failures first, then what differs, what is undecided, what held
REPORT_ORDER = ("failed", "depends", "inconclusive", "held", "not run (scale)", "not run")
#: kinds of :class:`DecideBy`
DECIDE_KINDS = ("replicates", "steps", "grid", "data", "scale", "resolution", "tuning", "separating test",
                "unrefutable", "unstated")


def label(status: str, basis: str = "paper") -> str:
    """The status as the report words it: ``held``, ``held on substitute data``, ``failed on our design``.

    Examples
    --------
    >>> label("held", "substitute data"), label("failed", "our design"), label("inconclusive", "substitute data")
    ('held on substitute data', 'failed on our design', 'inconclusive on substitute data')
    """
    if basis not in BASES:
        raise ValueError(f"basis must be one of {BASES}, got {basis!r}")
    if basis == "paper" or status in ("not run", "not run (scale)"):
        return status
    return f"{status} on {basis}"


@dataclass(frozen=True)
class DecideBy:
    """What would decide an undecided claim.

    Parameters
    ----------
    kind : str
        One of ``replicates``, ``steps``, ``grid`` (more points, a wider span), ``data`` (the paper's data set),
        ``scale`` (a larger scale runs the cell), ``resolution`` (a larger sample for the estimator), ``tuning``
        (a tuning grid past its edge), ``separating test`` (readings the run cannot tell apart), ``unrefutable``
        (a bound or asymptotic statement no finite run refutes), ``unstated`` (an old-style evaluator that does
        not say).
    text : str
        One sentence.
    factor : float or None
        For ``replicates`` / ``steps``: how many times this run's count, estimated from its own standard errors.
    """

    kind: str
    text: str
    factor: float | None = None

    def __post_init__(self):
        if self.kind not in DECIDE_KINDS:
            raise ValueError(f"kind must be one of {DECIDE_KINDS}, got {self.kind!r}")

    def record(self) -> dict:
        return {"kind": self.kind, "text": self.text, "factor": self.factor}


@dataclass(frozen=True)
class Verdict:
    """The status of a claim and its evidence.

    Parameters
    ----------
    status : str
        One of :data:`STATUSES`.
    measured : mapping
        The numbers the verdict rests on (JSON-able).
    detail : str
        One sentence: "measured … against expected …" for a declared claim.
    map : mapping of str to Verdict, optional
        The verdict of each reading, axis value or part (nested for nested rules).
    axis : str, optional
        What the keys of ``map`` are (``"reading"``, ``"data set"``, ``"part"`` ...).
    decide_by : DecideBy, optional
        What would decide it (every ``inconclusive`` verdict of a declared claim has one).
    basis : str
        One of :data:`BASES`.
    capped : mapping, optional
        ``{"by": rule, "status": the status before the cap, "why": ...}`` when a ledger-wide cap changed it.
    measured_text, expected_text : str
        The two halves of the report's line, in words and numbers.

    Raises
    ------
    ValueError
        An unknown status or basis.
    """

    status: str
    measured: Mapping[str, Any] = field(default_factory=dict)
    detail: str = ""
    map: Mapping[str, "Verdict"] | None = None
    axis: str | None = None
    decide_by: DecideBy | None = None
    basis: str = "paper"
    capped: Mapping[str, Any] | None = None
    measured_text: str = ""
    expected_text: str = ""

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        if self.basis not in BASES:
            raise ValueError(f"basis must be one of {BASES}, got {self.basis!r}")

    @property
    def label(self) -> str:
        return label(self.status, self.basis)

    @property
    def line(self) -> str:
        """``measured … against expected …`` (or the old-style detail sentence)."""
        if self.measured_text or self.expected_text:
            return f"measured {self.measured_text} against expected {self.expected_text}"
        return self.detail

    def map_record(self) -> dict | None:
        """``map`` as JSON: ``{key: {"status", "label", "line", "axis", "map"}}`` (nested)."""
        if not self.map:
            return None
        return {str(k): {"status": v.status, "label": v.label, "measured": v.measured_text or v.detail,
                         "axis": v.axis, "map": v.map_record(),
                         "decide_by": v.decide_by.record() if v.decide_by else None}
                for k, v in self.map.items()}
