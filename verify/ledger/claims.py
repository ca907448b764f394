"""The claims ledger: every paper claim a checked entry with a status and the evidence.

A :class:`Claim` names its source (seed file, theorem/equation/figure/table), states the claim in
one sentence, says which experiment measures it and what relation is expected, gives the
tolerance and *why*, and evaluates stored results into a :class:`Verdict`:

``held``          the measurement supports the claim within the stated tolerance;
``failed``        the measurement contradicts it beyond the tolerance (a finding, not a bug);
``inconclusive``  the measurement cannot decide (e.g. an interval straddling a boundary);
``not run``       the claim's experiment is out of this toolkit's reach (e.g. a deep network on two
                  cores); the entry says why (:func:`not_run_claim`), so the report still lists every
                  claim of the paper.

Papers register their claims in ``paper_repro/<paper>/claims.py`` with :func:`register`;
:func:`load_all` imports every such module.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

__all__ = ["Claim", "Verdict", "STATUSES", "register", "load_all", "get", "all_claims", "not_run_claim",
           "slope_verdict", "upper_bound_slope_verdict", "masked_slope_verdict", "interval_verdict", "ordering_verdict",
           "format_ci"]

STATUSES = ("held", "failed", "inconclusive", "not run")


@dataclass(frozen=True)
class Verdict:
    """status : one of :data:`STATUSES`; measured : the numbers (JSON-able); detail : one sentence."""

    status: str
    measured: Mapping[str, Any]
    detail: str = ""

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")


@dataclass(frozen=True)
class Claim:
    """One paper claim.

    Parameters
    ----------
    id : str
        Dotted id, ``<paper>.<where>.<what>``, e.g. ``"ewsg.thm4.3.term1"``.
    paper : str
        Short paper id (``ewsg``, ``hsg_hmc``, ``vrsg``, ``ls_sgld``, ``ewsg_iclr``).
    source : str
        Seed file and the theorem / equation / figure / table.
    statement : str
        The claim in one sentence, as the paper makes it.
    experiments : tuple of str
        Ids of the experiments whose stored results the claim reads (empty only for a claim that is
        not run).
    expected : str
        The expected relation (slope in an interval, an inequality, an ordering, a printed number).
    tolerance : str
        The tolerance and the reason for it.
    evaluate : callable ``(results_dir: pathlib.Path) -> Verdict``
        Reads stored results only.
    figure : str or None
        Path (under ``figures/out/``) of the figure that shows the evidence.
    not_run : str or None
        Why the claim is not measured (then its status is always ``not run``).

    Raises
    ------
    ValueError
        A claim that is measured but names no experiment.
    """

    id: str
    paper: str
    source: str
    statement: str
    experiments: tuple
    expected: str
    tolerance: str
    evaluate: Callable[[Any], Verdict] = field(repr=False, compare=False)
    figure: str | None = None
    not_run: str | None = None

    def __post_init__(self):
        if self.not_run is None and not self.experiments:
            raise ValueError(f"claim {self.id!r} names no experiment; give one, or say why it is not run")


def not_run_claim(id: str, paper: str, source: str, statement: str, expected: str, reason: str,
                  figure: str | None = None) -> Claim:
    """A ledger entry for a claim this toolkit does not measure, with the reason.

    Examples
    --------
    >>> c = not_run_claim("vrsg.fig3.resnet", "vrsg", "Fig. 3", "vrSG-MCMC trains ResNet-20 faster.",
    ...                   "test error vs passes", "a ResNet-20 in float64 NumPy on 2 cores is out of reach")
    >>> c.evaluate(None).status
    'not run'
    """
    return Claim(id, paper, source, statement, (), expected, "none: not measured",
                 lambda root: Verdict("not run", {"reason": reason}, reason), figure, reason)


_REGISTRY: dict[str, Claim] = {}


def register(*claims: Claim) -> None:
    """Add claims to the ledger; re-registering an id replaces it (module reloads)."""
    for c in claims:
        if not c.id.startswith(c.paper + "."):
            raise ValueError(f"claim id {c.id!r} must start with its paper id {c.paper!r}")
        _REGISTRY[c.id] = c


def load_all() -> dict[str, Claim]:
    """Import ``paper_repro.<paper>.claims`` for every paper package and return the ledger."""
    from ..store.registry import import_paper_modules

    import_paper_modules("claims")
    return dict(_REGISTRY)


def all_claims() -> list[Claim]:
    return [load_all()[k] for k in sorted(load_all())]


def get(claim_id: str) -> Claim:
    """The claim with this id; ``KeyError`` with the known ids otherwise."""
    reg = load_all()
    if claim_id not in reg:
        raise KeyError(f"unknown claim id {claim_id!r}; known: {', '.join(sorted(reg))}")
    return reg[claim_id]


# ---- generic verdicts -------------------------------------------------------------------------

def interval_verdict(low: float, high: float, band_low: float, band_high: float) -> str:
    """``held`` if [low, high] ⊂ band, ``failed`` if disjoint from it, ``inconclusive`` otherwise."""
    if band_low <= low and high <= band_high:
        return "held"
    if high < band_low or low > band_high:
        return "failed"
    return "inconclusive"


#: An exponent fitted on fewer points than this is reported, never read as a refutation.
MIN_FIT_POINTS = 5


def fit_points(fit: Mapping[str, Any]) -> int | None:
    """How many points a stored slope fit used (``points``, or the length of ``x`` / ``step_sizes_used``); None if unknown."""
    if isinstance(fit.get("points"), int):
        return fit["points"]
    for k in ("x", "step_sizes_used"):
        if isinstance(fit.get(k), (list, tuple)):
            return len(fit[k])
    return None


def slope_verdict(fit: Mapping[str, Any], expected: float, tolerance: float) -> Verdict:
    """Verdict for a stored slope fit (``slope``, ``ci_low``, ``ci_high``) against ``expected ± tolerance``.

    A fit that records fewer than :data:`MIN_FIT_POINTS` points cannot fail a rate: its 'failed' is
    reported as 'inconclusive' (the measured status is kept under ``status_on_few_points``).

    Examples
    --------
    >>> slope_verdict({"slope": 3.7, "ci_low": 2.4, "ci_high": 9.0, "x": [1, 2, 4]}, 1.0, 0.15).status
    'inconclusive'
    >>> slope_verdict({"slope": 3.7, "ci_low": 2.4, "ci_high": 9.0, "x": [1, 2, 4, 8, 16]}, 1.0, 0.15).status
    'failed'
    """
    status = interval_verdict(fit["ci_low"], fit["ci_high"], expected - tolerance, expected + tolerance)
    m = {"slope": fit["slope"], "ci_low": fit["ci_low"], "ci_high": fit["ci_high"], "level": fit.get("level"),
         "expected": expected, "tolerance": tolerance}
    detail = f"slope {fit['slope']:.3f} {format_ci(fit)} vs {expected:g} ± {tolerance:g}"
    k = fit_points(fit)
    if k is not None:
        m["points"] = k
    if status == "failed" and k is not None and k < MIN_FIT_POINTS:
        return Verdict("inconclusive", {**m, "status_on_few_points": "failed"},
                       detail + f"; fitted on {k} points (fewer than {MIN_FIT_POINTS}): reported, not a refutation")
    return Verdict(status, m, detail)


def upper_bound_slope_verdict(fit: Mapping[str, Any], order: float, tolerance: float) -> Verdict:
    """A log-log slope in h read against an ``O(h^order)`` upper bound: ``failed`` only *below* the band.

    A bound ``C h^order`` is contradicted by an error that falls off more slowly than ``h^order``
    (an interval below ``order − tolerance``). A steeper slope on a finite grid is consistent with
    the bound (the constant covers the grid) but does not confirm the rate either: ``inconclusive``.
    Inside the band: ``held``.

    Examples
    --------
    >>> upper_bound_slope_verdict({"slope": 2.9, "ci_low": 2.8, "ci_high": 3.0}, 2.0, 0.15).status
    'inconclusive'
    >>> upper_bound_slope_verdict({"slope": 1.2, "ci_low": 1.1, "ci_high": 1.3}, 2.0, 0.15).status
    'failed'
    """
    v = slope_verdict(fit, order, tolerance)
    if v.status == "failed" and fit["ci_low"] > order + tolerance:
        return Verdict("inconclusive", v.measured, v.detail + f"; steeper than h^{order:g} on this grid: consistent "
                       f"with the O(h^{order:g}) bound, not a confirmation of the rate")
    return v


def masked_slope_verdict(fit: Mapping[str, Any], expected: float, tolerance: float, why: str) -> Verdict:
    """A slope that can confirm a rate but not refute it: ``held`` inside the band, else ``inconclusive`` with ``why``.

    For a measured quantity in which other terms can hide the one whose rate is claimed (e.g. the
    h-independent ``C1/T`` in a fixed-T slope of a total MSE ``C1/T + C2 h/T + C3 h²``).

    Examples
    --------
    >>> masked_slope_verdict({"slope": 0.4, "ci_low": 0.3, "ci_high": 0.5}, 1.0, 0.15, "C1/T flattens it").detail
    'slope 0.400 [0.300, 0.500] vs 1 ± 0.15; C1/T flattens it'
    """
    v = slope_verdict(fit, expected, tolerance)
    if v.status != "failed":
        return v
    return Verdict("inconclusive", v.measured, f"{v.detail}; {why}")


def format_ci(fit: Mapping[str, Any]) -> str:
    """``[low, high]``, with an end shown as unbounded when the bootstrap could not bound it
    (``ci_unbounded``: too many replicates with a non-positive mean; see :class:`sgmcmc_verify.measure.rates.SlopeFit`)."""
    lo, hi = f"{fit['ci_low']:.3f}", f"{fit['ci_high']:.3f}"
    if fit.get("ci_unbounded"):
        if fit["ci_high"] - fit["slope"] > fit["slope"] - fit["ci_low"]:
            hi = "unbounded"
        else:
            lo = "unbounded"
    return f"[{lo}, {hi}]"


def ordering_verdict(values: Mapping[str, float], ses: Mapping[str, float], claimed: list[list[str]], z: float = 3.0) -> Verdict:
    """Verdict for "every name in ``claimed[i]`` is smaller than every name in ``claimed[i+1]``".

    A pairwise difference counts as resolved when it exceeds ``z`` combined standard errors
    (``z = 3``: a two-sided false call rate of 0.3 % per pair). ``held`` if every claimed pair is
    resolved in the claimed direction; ``failed`` if some pair is resolved in the opposite
    direction; ``inconclusive`` otherwise.
    """
    resolved_right, resolved_wrong, unresolved = [], [], []
    for lo_group, hi_group in zip(claimed[:-1], claimed[1:]):
        for a in lo_group:
            for b in hi_group:
                diff = values[b] - values[a]
                se = float(np.hypot(ses.get(a, 0.0), ses.get(b, 0.0)))
                pair = f"{a} < {b}"
                if diff > z * se:
                    resolved_right.append(pair)
                elif diff < -z * se:
                    resolved_wrong.append(pair)
                else:
                    unresolved.append(pair)
    status = "failed" if resolved_wrong else ("held" if not unresolved else "inconclusive")
    detail = "; ".join(filter(None, [
        f"contradicted: {', '.join(resolved_wrong)}" if resolved_wrong else "",
        f"not resolved at {z:g} s.e.: {', '.join(unresolved)}" if unresolved else "",
        "all pairs resolved as claimed" if status == "held" else ""]))
    return Verdict(status, {"values": dict(values), "se": dict(ses), "z": z, "contradicted": resolved_wrong,
                            "unresolved": unresolved}, detail)
