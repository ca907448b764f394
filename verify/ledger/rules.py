"""The ledger's vocabulary of decision rules: every claim is decided by one of these, or a combination.

A claim declares *what* it compares (an extractor returning the measurements of
:mod:`sgmcmc_verify.ledger.measures`) and *how it is decided* (a rule from this module); the ledger decides. Each
threshold lives here, once, with the reason for its value. See ``docs/ledger_rules.md`` for how to declare a
claim and how to convert an old evaluator.

Atomic rules
------------
=====================  ================================================================================
:func:`ordering`       "A < B < C" (or ``descending``) between estimates: Welch t (normal from 30 replicates),
                       Holm over the pairs at the family-wise :data:`FAMILY_LEVEL`; no decision from one run
:func:`slope_in`       a fitted exponent within ``expected ± tolerance`` (its stored interval inside the band,
                       >= :data:`MIN_FIT_POINTS` points); ``bound=True`` reads an ``O(x^e)`` upper bound
:func:`bound`          a bound respected or violated (the ONE rule grading bounds): ``le`` / ``ge`` a number, or
                       the reference of each :class:`~sgmcmc_verify.ledger.measures.Compared` point; every point
                       resolved below it holds, one resolved above it fails (multiplicity over the points)
:func:`identity`       an exact number (closed form, enumeration, sympy) equal to its reference within ``tol``
:func:`equivalent`     a point value (a printed number) reproduced within an equivalence margin fixed in advance
                       (:data:`POINT_VALUE_MARGIN`): a wide interval cannot make it hold
=====================  ================================================================================

Combinations
------------
=====================  ================================================================================
:func:`all_of`         a conjunction of different assertions (or of every cell of a printed table): one failed
                       part fails it
:func:`any_of`         an existential ("there is a setting where ..."): one held part holds it
:func:`exactly_one`    exactly one candidate holds (which reading produced a printed number)
:func:`readings`       each reading of an ambiguous statement, combined by :func:`over_axis`
:func:`robust_to`      one assertion over an axis (data draws, splits, step sizes, seeds, data sets), combined by
                       :func:`over_axis`
=====================  ================================================================================

:func:`over_axis` is the ONE ledger-wide rule that combines a claim over several settings: every value held →
held; every value failed → failed; held somewhere and failed elsewhere → ``depends`` (with the map); otherwise
``inconclusive``. It treats holds and failures alike.

Ledger-wide caps (applied by :func:`judge` to every claim of every paper, to holds and failures alike)
-------------------------------------------------------------------------------------------------------
:func:`data_basis`     a measurement on a stand-in data set keeps its status and is reported as "held / failed
                       on substitute data", counted apart from verdicts on the paper's data;
:func:`tuning_edge`    a comparison in which a tuned method's chosen setting is an end of its grid is capped at
                       ``inconclusive`` (the optimum may lie outside the grid), whatever the status was.

Every rule can show that it reaches each status it claims (:meth:`Rule.outcomes`, :meth:`Rule.example`);
``tests/verify/ledger/test_rules.py`` feeds every registered claim's rule those constructed measurements.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from scipy import stats

from .measures import Compared, Estimate, Fit, NotAtScale, OnData, Symbolic, Tuned, Unmeasured, fmt_num
from .verdict import DecideBy, Verdict

__all__ = ["FAMILY_LEVEL", "LARGE_SAMPLE", "MIN_FIT_POINTS", "POINT_VALUE_MARGIN", "REFERENCE_EXCESS", "MAX_FACTOR",
           "THRESHOLDS",
           "Rule", "Ordering", "SlopeIn", "Bound", "Identity", "Equivalent", "AllOf", "AnyOf", "ExactlyOne",
           "OverAxis", "Given", "given", "ordering", "slope_in", "bound", "identity", "equivalent", "all_of", "any_of", "exactly_one",
           "readings", "robust_to", "over_axis", "judge", "data_basis", "tuning_edge", "quantile", "walk"]

# ---- thresholds: each in one place, with its reason ------------------------------------------------

#: False-call rate of a claim's ordering, bound or equivalence test, in each direction. 0.0027 is the two-sided tail of
#: the ledger's historical "3 combined standard errors" rule for one pair of normal estimates; it now holds for the
#: whole family of pairs or points of a claim and with t quantiles below :data:`LARGE_SAMPLE` replicates, so that a
#: claim is called wrongly about 0.3 % of the time whatever the number of pairs and replicates (a normal 3-s.e. rule on
#: 2-4 replicates calls 6-20 % of identical pairs). "Held" needs *every* pair or point resolved, an intersection-union
#: test: each at the level, no correction needed (Berger 1982, Technometrics 24:295); "failed" needs *some* pair or
#: point resolved the other way, a union-intersection test: Holm (orderings) or Bonferroni (points) over the family.
FAMILY_LEVEL = 0.0027
#: From this many degrees of freedom on, the normal quantile replaces Student's t (the t quantile at the family level
#: is then within 10 % of the normal one); below it, t with the estimate's (Welch) degrees of freedom.
LARGE_SAMPLE = 30
#: A log-log slope read as a rate needs at least this many points: with 3-4 points a curvature of the error (a
#: second term of the bound) cannot be told from a different exponent, and a t-interval on 1-2 residual degrees of
#: freedom is uninformative. Holds and failures alike need it.
MIN_FIT_POINTS = 5
#: Equivalence margin of a point-value claim (a printed number), relative to that number: reproduced within 10 %.
#: Printed values carry 2-3 significant digits and the papers report no run-to-run spread; 10 % is the smallest
#: margin that the printed digits and a different random stream can both meet, and a factor 1.2 is not "the
#: printed value". Fixed before any run; a claim may state another margin with its reason.
POINT_VALUE_MARGIN = 0.10
#: A reference sampler (an MH or MALA chain standing in for the target) agrees with exact draws of the target when the
#: W2 between it and an exact sample exceeds the W2 between two exact samples of the same size (the sampling floor) by
#: less than this fraction of that floor: a smaller excess changes no comparison that the floor lets one resolve.
#: Fixed before measuring (LS-SGLD §4.1.2, HSG-HMC Table 2 use it).
REFERENCE_EXCESS = 0.25
#: Beyond this many times the replicates of the run, "more replicates" is not a practical way to decide: the report
#: says the difference is too small to resolve (and gives the factor).
MAX_FACTOR = 100.0

#: name -> (value, reason) of every threshold above (the report's rule page and the docs list them)
THRESHOLDS = {
    "FAMILY_LEVEL": (FAMILY_LEVEL, "two-sided tail of 3 s.e.; per claim: every pair at the level to hold, Holm / "
                                   "Bonferroni over the pairs to fail; t below 30 replicates"),
    "LARGE_SAMPLE": (LARGE_SAMPLE, "degrees of freedom from which the normal quantile replaces Student's t"),
    "MIN_FIT_POINTS": (MIN_FIT_POINTS, "fewest points on which a fitted exponent is read as a rate"),
    "POINT_VALUE_MARGIN": (POINT_VALUE_MARGIN, "relative equivalence margin of a printed point value"),
    "REFERENCE_EXCESS": (REFERENCE_EXCESS, "fraction of the two-sample W2 floor a reference sampler may add"),
    "MAX_FACTOR": (MAX_FACTOR, "more replicates than this factor is reported as out of practical reach"),
}


def quantile(tail: float, df: float) -> float:
    """Upper ``tail`` quantile of Student's t with ``df`` degrees of freedom, normal from :data:`LARGE_SAMPLE` on.

    Examples
    --------
    >>> round(quantile(0.00135, math.inf), 2), round(quantile(0.00135, 3), 1)
    (3.0, 9.2)
    """
    if not 0 < tail < 0.5:
        raise ValueError(f"tail must be in (0, 0.5), got {tail}")
    if df >= LARGE_SAMPLE or math.isinf(df):
        return float(stats.norm.isf(tail))
    if df <= 0:
        return math.inf
    return float(stats.t.isf(tail, df))


def _welch_df(a: Estimate, b: Estimate) -> float:
    va, vb = a.se ** 2, b.se ** 2
    num = (va + vb) ** 2
    den = (va ** 2 / a.dof if va > 0 and a.dof > 0 else 0.0) + (vb ** 2 / b.dof if vb > 0 and b.dof > 0 else 0.0)
    return math.inf if den == 0 else num / den


def _factor(ratio: float, tail: float, df: float) -> float:
    """How many times the replicates make an observed ``|difference| / se = ratio`` reach the ``tail`` quantile.

    The standard error shrinks as 1/sqrt(k) and the degrees of freedom grow as ``(df + 1) k - 1`` (one sample of
    ``df + 1`` replicates made k times larger), so below :data:`LARGE_SAMPLE` the t quantile falls too; ``inf`` when
    even :data:`MAX_FACTOR` times the replicates would not, or when the observed difference is 0.
    """
    if not ratio > 0:
        return math.inf

    def enough(k):
        dfk = math.inf if math.isinf(df) else (df + 1) * k - 1
        return ratio * math.sqrt(k) >= quantile(tail, dfk)
    if enough(1.0):
        return 1.0
    if not enough(MAX_FACTOR):
        return math.inf
    lo, hi = 1.0, MAX_FACTOR
    for _ in range(16):   # to 0.01 % of the factor: more digits than the estimate has
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi


def _times(factor: float, n: int | None, what: str) -> str:
    if n:
        return f"about {fmt_num(factor, 2)}x the {what} ({n} -> {math.ceil(n * factor)})"
    return f"about {fmt_num(factor, 2)}x the {what}"


def _two_way(hold: float, fail: float, n: int | None, worst: str = "", what: str = "replicates") -> DecideBy:
    """What would decide: ``hold`` x the replicates resolves every open pair or point as claimed, ``fail`` x resolves the
    most contrary one against the claim (if the measured difference is real); both estimated from this run's standard
    errors, ``inf`` when out of reach (beyond :data:`MAX_FACTOR`)."""
    ok_h, ok_f = math.isfinite(hold) and hold <= MAX_FACTOR, math.isfinite(fail) and fail <= MAX_FACTOR
    parts = []
    if ok_h:
        parts.append(f"{_times(max(hold, 1.0), n, what)} would resolve it as claimed")
    if ok_f:
        parts.append(f"{_times(max(fail, 1.0), n, what)} would resolve {worst or 'it'} against the claim")
    if not parts:
        return DecideBy("replicates", f"more than {MAX_FACTOR:g}x the {what} of this run: the measured differences are "
                                      "too small to resolve at this precision", math.inf)
    if not ok_h:
        parts.append(f"resolving it as claimed needs more than {MAX_FACTOR:g}x")
    return DecideBy("replicates", "; ".join(parts) + " (estimated from this run's standard errors, if the measured "
                                  "differences are real)", min(x for x in (hold, fail) if math.isfinite(x)))


def _as_estimate(x) -> Estimate:
    if isinstance(x, Estimate):
        return x
    if isinstance(x, Fit):   # a fitted exponent as an estimate: s.e. from its interval, d.f. points - 2
        df = max(x.points - 2, 1)
        half = (x.ci_high - x.ci_low) / 2
        return Estimate(x.slope, half / quantile((1 - x.level) / 2, df), df=df)
    if isinstance(x, (int, float)):
        return Estimate(float(x))
    raise TypeError(f"expected an Estimate, a Fit or a number, got {type(x).__name__}")


def _record(m) -> Any:
    """A measurement as JSON (for the verdict's evidence)."""
    if hasattr(m, "record"):
        return m.record()
    if isinstance(m, Mapping):
        return {str(k): _record(v) for k, v in m.items()}
    return m


# ---- the rule protocol --------------------------------------------------------------------------------

class Rule:
    """A decision rule: ``decide(measurement) -> Verdict``.

    Subclasses are frozen dataclasses; their fields are the rule's parameters (so that a change of a parameter
    changes :meth:`describe`, which the pre-registration record fingerprints).
    """

    kind: ClassVar[str] = "rule"
    #: the module-level thresholds the rule reads (their definition lines count as part of the rule)
    uses: ClassVar[tuple] = ()

    def decide(self, m) -> Verdict:   # pragma: no cover - abstract
        raise TypeError(f"{type(self).__name__} does not decide")

    def expected(self) -> str:
        """The expected relation in words, with the rule's thresholds."""
        raise TypeError(f"{type(self).__name__} has no expected text")

    def why(self) -> str:
        """The thresholds and the reason for each (the claim's tolerance text)."""
        return ""

    def outcomes(self) -> tuple:
        """The statuses this rule can return (shown by :meth:`example`)."""
        return ("held", "failed", "inconclusive")

    def example(self, status: str):
        """A constructed measurement that this rule decides as ``status``."""
        raise ValueError(f"{type(self).__name__} cannot be shown to reach {status!r}")

    def children(self) -> tuple:
        return ()

    def describe(self) -> dict:
        """The rule's kind and parameters, nested (JSON-able)."""
        out = {"kind": self.kind}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, Rule):
                v = v.describe()
            elif isinstance(v, Mapping):
                v = {str(k): (x.describe() if isinstance(x, Rule) else x) for k, x in v.items()}
            out[f.name] = v
        return out


def walk(rule: Rule):
    """Every rule node of ``rule`` (itself first)."""
    yield rule
    for c in rule.children():
        yield from walk(c)


def judge(rule: Rule, m) -> Verdict:
    """Decide ``m`` by ``rule``, applying the ledger-wide rules that the measurement's wrappers call for.

    :class:`~sgmcmc_verify.ledger.measures.NotAtScale` → ``not run (scale)``; :class:`OnData` → the substitute-data
    basis (:func:`data_basis`); :class:`Tuned` → the tuning-edge cap (:func:`tuning_edge`). Composite rules call this
    on every part, so a wrapper applies where it sits (one data set of several, one method's tuning).
    """
    if isinstance(m, NotAtScale):
        return Verdict("not run (scale)", {"reason": m.reason, "needs": m.needs}, decide_by=DecideBy("scale", m.needs),
                       measured_text=f"nothing at this scale ({m.reason})", expected_text=rule.expected())
    if isinstance(m, Unmeasured):
        return Verdict("inconclusive", {"unmeasured": m.reason}, decide_by=DecideBy(m.kind, m.needs, m.factor),
                       measured_text=f"no estimate ({m.reason})", expected_text=rule.expected())
    if isinstance(m, OnData):
        return data_basis(judge(rule, m.inner), m)
    if isinstance(m, Tuned):
        return tuning_edge(judge(rule, m.inner), m.choices)
    return rule.decide(m)


# ---- ordering -----------------------------------------------------------------------------------------

def _group_text(g) -> str:
    return g[0] if len(g) == 1 else "{" + ", ".join(g) + "}"


@dataclass(frozen=True)
class Ordering(Rule):
    """``groups[0] < groups[1] < ...`` (every member of a group against every member of the next); ``descending``
    reads ``>``. Build with :func:`ordering`.

    Each pair is tested with Welch's t (normal from :data:`LARGE_SAMPLE` degrees of freedom) on the difference
    of the two estimates. ``held``: every pair resolved as claimed, each at ``level`` (an intersection-union test);
    ``failed``: some pair resolved the other way by Holm's step-down procedure over all pairs at ``level``;
    ``inconclusive`` otherwise (with the replicates that would resolve the open pairs at the observed differences).
    A pair of exact numbers is decided by its sign; a pair involving a single run (``n = 1``) is never resolved, nor
    is a pair of replicated estimates whose replicates did not vary at all (both standard errors 0: no spread to test).
    """

    groups: tuple
    descending: bool = False
    level: float = FAMILY_LEVEL
    quantity: str = ""
    min_span: float | None = None
    kind: ClassVar[str] = "ordering"
    uses: ClassVar[tuple] = ("FAMILY_LEVEL", "LARGE_SAMPLE", "MIN_FIT_POINTS", "MAX_FACTOR")

    def __post_init__(self):
        if len(self.groups) < 2 or any(not g for g in self.groups):
            raise ValueError(f"groups: need at least two non-empty groups, got {self.groups!r}")
        if not 0 < self.level < 1:
            raise ValueError(f"level must be in (0, 1), got {self.level}")

    @property
    def names(self) -> tuple:
        return tuple(n for g in self.groups for n in g)

    def pairs(self) -> list:
        return [(a, b) for lo, hi in zip(self.groups[:-1], self.groups[1:]) for a in lo for b in hi]

    def expected(self) -> str:
        op = " > " if self.descending else " < "
        rel = op.join(_group_text(g) for g in self.groups)
        q = f"{self.quantity}: " if self.quantity else ""
        n = len(self.pairs())
        fam = f"; Holm over {n} pairs to fail" if n > 1 else ""
        return f"{q}{rel} (Welch t at level {self.level:.2%}{fam})"

    def why(self) -> str:
        return (f"each difference resolved by Welch's t at level {self.level:g} (every pair to hold; Holm over the pairs "
                f"to fail; normal quantile from {LARGE_SAMPLE} degrees of freedom on); a single run decides nothing")

    def decide(self, m) -> Verdict:
        missing = [n for n in self.names if n not in m]
        if missing:
            raise ValueError(f"ordering: no measurement for {missing} (have {sorted(m)})")
        est = {n: _as_estimate(m[n]) for n in self.names}
        fits = {n: m[n] for n in self.names if isinstance(m[n], Fit)}
        short = {n: f.points for n, f in fits.items() if f.points < MIN_FIT_POINTS}
        narrow = {n: f.span for n, f in fits.items() if self.min_span and (f.span or 0) < self.min_span}
        values = "; ".join(f"{n} {m[n].text() if isinstance(m[n], Fit) else est[n].text()}" for n in self.names)
        evidence = {"values": {n: _record(m[n]) for n in self.names}, "level": self.level}
        if short:
            return Verdict("inconclusive", evidence, decide_by=DecideBy(
                "grid", f"fits on >= {MIN_FIT_POINTS} points ({', '.join(f'{n}: {k}' for n, k in short.items())})"),
                measured_text=values, expected_text=self.expected())
        if narrow:
            return Verdict("inconclusive", evidence, decide_by=DecideBy(
                "grid", f"fits spanning >= {fmt_num(self.min_span)} decades ("
                        f"{', '.join(f'{n}: {fmt_num(s or 0, 2)}' for n, s in narrow.items())})"),
                measured_text=values, expected_text=self.expected())
        right, wrong, open_, single, tests = [], [], [], [], []
        for a, b in self.pairs():
            ea, eb = est[a], est[b]
            d = (ea.value - eb.value) if self.descending else (eb.value - ea.value)
            pair = f"{a}{' > ' if self.descending else ' < '}{b}"
            if ea.single or eb.single:
                single.append(pair)
                open_.append(pair)
                continue
            se = math.hypot(ea.se, eb.se)
            if se == 0:
                if ea.exact and eb.exact:
                    (right if d > 0 else wrong).append(pair)
                else:   # replicates that did not vary at all: no spread to test against, neither order is resolved
                    open_.append(pair)
                continue
            df = _welch_df(ea, eb)
            t = d / se
            p = 2 * (stats.norm.sf(abs(t)) if df >= LARGE_SAMPLE else stats.t.sf(abs(t), df))
            tests.append((p, pair, t, df, max(ea.n or 0, eb.n or 0) or None))
        tests.sort()
        k = len(tests)
        holm_wrong, stop = set(), False   # union-intersection: Holm over every pair for a contradiction
        for i, (p, pair, t, _df, _n) in enumerate(tests):
            if stop or p > self.level / (k - i):
                stop = True
            elif t < 0:
                holm_wrong.add(pair)
        for p, pair, t, _df, _n in tests:   # intersection-union: each pair at the level for the claimed direction
            if pair in holm_wrong:
                wrong.append(pair)
            elif t > 0 and p <= self.level:
                right.append(pair)
            else:
                open_.append(pair)
        evidence.update(resolved=right, contradicted=wrong, unresolved=open_,
                        tests={pair: {"t": t, "df": df, "p": p} for p, pair, t, df, _ in tests})
        parts = [values]
        if wrong:
            parts.append("contradicted: " + ", ".join(wrong))
        if right:
            parts.append("resolved as claimed: " + ", ".join(right))
        if open_:
            parts.append("not resolved: " + ", ".join(open_))
        text = "; ".join(parts)
        if wrong:
            return Verdict("failed", evidence, measured_text=text, expected_text=self.expected())
        if not open_:
            return Verdict("held", evidence, measured_text=text, expected_text=self.expected())
        if single:
            by = DecideBy("replicates", "at least 2 independent runs of each compared method (one run has no "
                                        f"standard error): {', '.join(single)}")
        else:   # to hold: every open pair at the level; to fail: the most contrary one at Holm's first threshold
            hold, fail, worst, n_max = 1.0, math.inf, "", None
            for _p, pair, t, df, n in tests:
                if pair not in open_:
                    continue
                n_max = max(n_max or 0, n or 0) or None
                hold = max(hold, _factor(t, self.level / 2, df) if t > 0 else math.inf)
                if t < 0:
                    f = _factor(-t, self.level / (2 * max(k, 1)), df)
                    if f < fail:
                        fail, worst = f, pair
            by = _two_way(hold, fail, n_max, worst)
        return Verdict("inconclusive", evidence, decide_by=by, measured_text=text, expected_text=self.expected())

    def example(self, status):
        big = 1000
        if status == "held":
            vals = {n: (i if not self.descending else -i) for i, g in enumerate(self.groups) for n in g}
        elif status == "failed":
            vals = {n: (-i if not self.descending else i) for i, g in enumerate(self.groups) for n in g}
        elif status == "inconclusive":
            vals = {n: 0.0 for n in self.names}
        else:
            return super().example(status)
        return {n: Estimate(float(v), 0.01 if status != "inconclusive" else 1.0, n=big) for n, v in vals.items()}


def ordering(*groups, descending: bool = False, level: float = FAMILY_LEVEL, quantity: str = "",
             min_span: float | None = None) -> Ordering:
    """``ordering("LS-SGLD", "SGLD")``: LS-SGLD < SGLD; ``ordering(("HSG-HMC", "SRVR-HMC"), ("SGLD", "SGHMC"))``:
    each of the first group below each of the second; ``descending=True`` reads ``>``.

    Parameters
    ----------
    *groups : str or sequence of str
        From smallest to largest (largest to smallest with ``descending``).
    level : float
        Family-wise false-call rate (default :data:`FAMILY_LEVEL`).
    quantity : str
        What is compared, in words (shown in the expected text).
    min_span : float, optional
        When the values are fitted exponents (:class:`Fit`): the decades of x each fit must span (besides the
        ledger's :data:`MIN_FIT_POINTS` points).

    Examples
    --------
    >>> r = ordering("A", "B")
    >>> judge(r, {"A": Estimate(1.0, 0.1, n=40), "B": Estimate(2.0, 0.1, n=40)}).status
    'held'
    >>> judge(r, {"A": Estimate(1.0, 0.1, n=3), "B": Estimate(1.5, 0.1, n=3)}).status   # t on 4 d.f.: not resolved
    'inconclusive'
    >>> judge(r, {"A": Estimate(3.0, 0.1, n=40), "B": Estimate(2.0, 0.1, n=40)}).status
    'failed'
    """
    gs = tuple((g,) if isinstance(g, str) else tuple(g) for g in groups)
    return Ordering(gs, descending, level, quantity, min_span)


# ---- slope in a band ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SlopeIn(Rule):
    """A fitted exponent against ``expected ± tolerance``; build with :func:`slope_in`."""

    slope: float
    tolerance: float
    bound: bool = False
    masked: str | None = None
    min_points: int = MIN_FIT_POINTS
    min_span: float | None = None
    variable: str = "x"
    quantity: str = ""
    kind: ClassVar[str] = "slope in a band"
    uses: ClassVar[tuple] = ("MIN_FIT_POINTS", "MAX_FACTOR")

    def __post_init__(self):
        if not self.tolerance > 0:
            raise ValueError(f"tolerance must be > 0, got {self.tolerance}")
        if self.min_points < MIN_FIT_POINTS:
            raise ValueError(f"min_points must be >= {MIN_FIT_POINTS} (the ledger's floor), got {self.min_points}")

    def expected(self) -> str:
        q = f"{self.quantity} " if self.quantity else ""
        band = f"{fmt_num(self.slope)} ± {fmt_num(self.tolerance)}"
        if self.bound:
            return (f"{q}exponent in {self.variable} not below {band} (an O({self.variable}^{fmt_num(self.slope)}) "
                    f"bound), fitted on >= {self.min_points} points")
        return f"{q}exponent in {self.variable} within {band}, fitted on >= {self.min_points} points"

    def why(self) -> str:
        s = (f"the stored interval must lie inside the band to hold and outside it to fail; fewer than "
             f"{self.min_points} points decide neither")
        if self.min_span:
            s += f"; the fit must span >= {fmt_num(self.min_span)} decades"
        if self.masked:
            s += f"; a slope outside the band cannot fail the claim: {self.masked}"
        return s

    def outcomes(self):
        return ("held", "inconclusive") if self.masked else ("held", "failed", "inconclusive")

    def decide(self, m: Fit) -> Verdict:
        if not isinstance(m, Fit):
            raise TypeError(f"slope_in decides a Fit, got {type(m).__name__}")
        exp = self.expected()
        ev = {"fit": m.record(), "band": [self.slope - self.tolerance, self.slope + self.tolerance]}
        if m.points < self.min_points:
            return Verdict("inconclusive", ev, decide_by=DecideBy("grid", f"a fit on >= {self.min_points} points (this "
                           f"one has {m.points})"), measured_text=m.text(), expected_text=exp)
        if self.min_span and (m.span is None or m.span < self.min_span):
            return Verdict("inconclusive", ev, decide_by=DecideBy("grid", f"a grid spanning >= {fmt_num(self.min_span)} "
                           f"decades (this one spans {fmt_num(m.span or 0, 2)})"), measured_text=m.text(),
                           expected_text=exp)
        lo, hi = self.slope - self.tolerance, self.slope + self.tolerance
        if m.unbounded:   # the bounded side's half-width stands in for the other's (a symmetric interval)
            half = (m.slope - m.ci_low) if m.unbounded == "high" else (m.ci_high - m.slope)
            d = min(abs(m.slope - lo), abs(m.slope - hi))
            f = (half / d) ** 2 if d > 0 and half > 0 else math.inf
            by = _two_way(f if lo <= m.slope <= hi else math.inf,
                          math.inf if (lo <= m.slope <= hi or self.masked) else f, m.replicates, "the slope",
                          "realizations")
            by = DecideBy(by.kind, f"the bootstrap could not bound the {m.unbounded} end of the interval (too many "
                                   f"replicates with a non-positive mean); from the bounded side: {by.text}", by.factor)
            return Verdict("inconclusive", ev, decide_by=by, measured_text=m.text(), expected_text=exp)
        if lo <= m.ci_low and m.ci_high <= hi:
            return Verdict("held", ev, measured_text=m.text(), expected_text=exp)
        below, above = m.ci_high < lo, m.ci_low > hi
        if self.bound and (above or (m.ci_low >= lo and m.ci_high > hi)):
            return Verdict("inconclusive", ev, decide_by=DecideBy(
                "grid", f"steeper than {self.variable}^{fmt_num(self.slope)} on this grid, which an "
                        f"O({self.variable}^{fmt_num(self.slope)}) bound allows; the rate itself shows only on a grid "
                        f"where the leading term dominates (smaller {self.variable})"),
                measured_text=m.text(), expected_text=exp)
        if below or above:
            if self.masked:
                return Verdict("inconclusive", {**ev, "outside_band": True}, decide_by=DecideBy(
                    "unrefutable", f"outside the band, but {self.masked}"), measured_text=m.text(), expected_text=exp)
            return Verdict("failed", ev, measured_text=m.text(), expected_text=exp)
        half = (m.ci_high - m.ci_low) / 2
        d = min(abs(m.slope - lo), abs(m.slope - hi))
        f = (half / d) ** 2 if d > 0 else math.inf
        inside = lo <= m.slope <= hi
        by = _two_way(f if inside else math.inf, math.inf if inside or self.masked else f, m.replicates,
                      "the slope", "realizations")
        return Verdict("inconclusive", ev, decide_by=by, measured_text=m.text(), expected_text=exp)

    def example(self, status):
        s, t = self.slope, self.tolerance
        if status == "held":
            return Fit(s, s - t / 2, s + t / 2, self.min_points, span=(self.min_span or 1) * 2)
        if status == "failed" and not self.masked:
            return Fit(s - 5 * t, s - 6 * t, s - 4 * t, self.min_points, span=(self.min_span or 1) * 2)
        if status == "inconclusive":
            return Fit(s, s - 3 * t, s + 3 * t, self.min_points, span=(self.min_span or 1) * 2)
        return super().example(status)


def slope_in(slope: float, tolerance: float, *, bound: bool = False, masked: str | None = None,
             min_points: int = MIN_FIT_POINTS, min_span: float | None = None, variable: str = "x",
             quantity: str = "") -> SlopeIn:
    """A fitted exponent within ``slope ± tolerance``: its stored interval inside the band holds, outside it fails,
    straddling it is inconclusive (with the realizations that would narrow it enough).

    Parameters
    ----------
    bound : bool
        The statement is an ``O(x^slope)`` upper bound: only an interval *below* the band contradicts it; a
        steeper slope is consistent with the bound without confirming the rate (``inconclusive``).
    masked : str, optional
        Why a slope outside the band cannot refute the claim (another term of the measured quantity can hide the
        one whose rate is claimed). The rule then cannot fail: the claim must be declared ``one_sided``.
    min_points : int
        At least :data:`MIN_FIT_POINTS`.
    min_span : float, optional
        Decades of x the fit must span.

    Examples
    --------
    >>> r = slope_in(-1.0, 0.15)
    >>> judge(r, Fit(-1.0, -1.05, -0.95, points=5)).status, judge(r, Fit(-0.5, -0.6, -0.4, points=5)).status
    ('held', 'failed')
    >>> judge(r, Fit(-0.5, -0.6, -0.4, points=3)).decide_by.kind
    'grid'
    """
    return SlopeIn(float(slope), float(tolerance), bound, masked, min_points, min_span, variable, quantity)


# ---- bounds --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Bound(Rule):
    """A bound respected or violated; build with :func:`bound`. ``le`` / ``ge``: a number, ``"reference"`` (each
    point's :class:`Compared` reference), or None."""

    le: Any = None
    ge: Any = None
    allowance: float = 0.0
    level: float = FAMILY_LEVEL
    quantity: str = ""
    strict: bool = False
    min_span: float | None = None
    kind: ClassVar[str] = "bound"
    uses: ClassVar[tuple] = ("FAMILY_LEVEL", "LARGE_SAMPLE", "MIN_FIT_POINTS", "MAX_FACTOR")

    def __post_init__(self):
        if self.le is None and self.ge is None:
            raise ValueError("bound: give le, ge or both")
        for k in ("le", "ge"):
            v = getattr(self, k)
            if v is not None and v != "reference" and not isinstance(v, (int, float)):
                raise ValueError(f"{k} must be a number, 'reference' or None, got {v!r}")
        if self.allowance < 0:
            raise ValueError(f"allowance must be >= 0, got {self.allowance}")

    def _side_text(self, v) -> str:
        return "the reference" if v == "reference" else fmt_num(v)

    def expected(self) -> str:
        q = f"{self.quantity} " if self.quantity else "value "
        lt, gt = ("<", ">") if self.strict else ("<=", ">=")
        if self.le is not None and self.ge is not None:
            rel = f"{q}within [{self._side_text(self.ge)}, {self._side_text(self.le)}]"
        elif self.le is not None:
            rel = f"{q}{lt} {self._side_text(self.le)}"
        else:
            rel = f"{q}{gt} {self._side_text(self.ge)}"
        return rel

    def why(self) -> str:
        s = (f"a point counts as below (above) the bound when its one-sided limit at family-wise level {self.level:g} "
             "(Bonferroni over the points; t below 30 replicates) is; exact numbers by their value")
        if self.allowance:
            s += f" within a relative round-off allowance {self.allowance:g}"
        return s + "; every point respected holds, one violated fails"

    def _points(self, m) -> dict:
        if isinstance(m, Mapping):
            return dict(m)
        return {"": m}

    def decide(self, m) -> Verdict:
        pts = self._points(m)
        if not pts:
            raise ValueError("bound: no points")
        exp = self.expected()
        statistical = [k for k, x in pts.items() if not isinstance(x, Fit) and not _exact_pair(x)]
        k_tests = max(len(statistical), 1) * (2 if self.le is not None and self.ge is not None else 1)   # Bonferroni
        res, texts, ev = {}, [], {}
        hold, fail, worst_key, n_max = 1.0, math.inf, "", None
        rank = {"violated": 4, "single": 3, "short": 3, "open": 2, "respected": 0}
        for key, x in pts.items():
            st, txt, (fh, ff), n, score = self._one(x, k_tests)
            res[key] = st
            ev[str(key)] = {"measurement": _record(x), "status": st}
            texts.append(((rank[st], score), (f"{key}: " if key != "" else "") + txt))
            if st == "open":
                n_max = max(n_max or 0, n or 0) or None
                hold = max(hold, fh)
                if ff < fail:
                    fail, worst_key = ff, str(key) or "the point"
        viol = [k for k, s in res.items() if s == "violated"]
        single = [k for k, s in res.items() if s == "single"]
        texts = [t for _, t in sorted(texts, key=lambda x: x[0], reverse=True)]   # the points nearest a violation first
        worst = "; ".join(texts[:4]) + (f"; … {len(texts) - 4} more points" if len(texts) > 4 else "")
        if viol:
            head = f"{len(viol)} of {len(pts)} points beyond the bound: " if len(pts) > 1 else ""
            return Verdict("failed", {"points": ev}, measured_text=head + worst, expected_text=exp)
        if all(s == "respected" for s in res.values()):
            return Verdict("held", {"points": ev}, measured_text=worst, expected_text=exp)
        if single:
            by = DecideBy("replicates", f"at least 2 independent runs at {', '.join(map(str, single[:8]))} (one run has "
                                        "no standard error)")
        elif any(s == "short" for s in res.values()):
            span = f" spanning >= {fmt_num(self.min_span)} decades" if self.min_span else ""
            by = DecideBy("grid", f"fits on >= {MIN_FIT_POINTS} points{span}")
        else:
            by = _two_way(hold, fail, n_max, worst_key)
        return Verdict("inconclusive", {"points": ev}, decide_by=by, measured_text=worst, expected_text=exp)

    def _refs(self, x):
        if isinstance(x, Compared):
            v = x.value
            le = x.reference if self.le == "reference" else (None if self.le is None else Estimate(self.le))
            ge = x.reference if self.ge == "reference" else (None if self.ge is None else Estimate(self.ge))
            return v, le, ge
        if "reference" in (self.le, self.ge):
            raise ValueError("bound(le/ge='reference') needs Compared measurements")
        v = _as_estimate(x)
        return v, (None if self.le is None else Estimate(self.le)), (None if self.ge is None else Estimate(self.ge))

    def _one(self, x, k_tests):
        if isinstance(x, Fit):
            score = max(([x.ci_high - self.le] if self.le is not None else [])
                        + ([self.ge - x.ci_low] if self.ge is not None else []))
            none = (math.inf, math.inf)
            if x.points < MIN_FIT_POINTS or (self.min_span and (x.span or 0) < self.min_span):
                return "short", x.text(), none, None, score
            lo_ok = self.ge is None or x.ci_low >= self.ge
            hi_ok = self.le is None or x.ci_high <= self.le
            if lo_ok and hi_ok:
                return "respected", x.text(), none, None, score
            if (self.le is not None and x.ci_low > self.le) or (self.ge is not None and x.ci_high < self.ge):
                return "violated", x.text(), none, None, score
            half = (x.ci_high - x.ci_low) / 2
            inside = (self.le is None or x.slope <= self.le) and (self.ge is None or x.slope >= self.ge)
            d = min([abs(x.slope - b) for b in (self.le, self.ge) if b is not None])
            f = (half / d) ** 2 if d > 0 else math.inf
            return "open", x.text(), ((f, math.inf) if inside else (math.inf, f)), x.replicates, score
        v, le, ge = self._refs(x)
        parts, worst = [], "respected"
        f_hold, f_fail, n_need, score = 1.0, math.inf, None, -math.inf
        lt, gt = ("<", ">") if self.strict else ("<=", ">=")
        if le is not None and ge is not None:
            parts.append(f"{v.text()} vs [{ge.text() if not ge.exact else fmt_num(ge.value)}, "
                         f"{le.text() if not le.exact else fmt_num(le.value)}]")
        for ref, sign, name in ((le, 1.0, lt), (ge, -1.0, gt)):
            if ref is None:
                continue
            d = sign * (v.value - ref.value)    # <= 0: respected
            se = math.hypot(v.se, ref.se)
            score = max(score, d / se if se > 0 else (math.inf if d > 0 else d))
            if le is None or ge is None:
                parts.append(f"{v.text()} vs {name} {ref.text() if not ref.exact else fmt_num(ref.value)}")
            if v.single or ref.single:
                worst = "single" if worst != "violated" else worst
                continue
            if se == 0:
                ok = d < 0 if self.strict else d <= self.allowance * abs(ref.value)
                st = "respected" if ok else "violated"
            else:   # respected: each point at the level (intersection-union); violated: Bonferroni over the points
                df = _welch_df(v, ref)
                q1, qm = quantile(self.level / 2, df), quantile(self.level / (2 * k_tests), df)
                st = "respected" if d + q1 * se <= 0 else ("violated" if d - qm * se > 0 else "open")
                if st == "open":
                    n_need = max(v.n or 0, ref.n or 0) or None
                    if d < 0:
                        f_hold = max(f_hold, _factor(-d / se, self.level / 2, df))
                    else:
                        f_hold = math.inf
                        f_fail = min(f_fail, _factor(d / se, self.level / (2 * k_tests), df))
            order = {"violated": 3, "single": 2, "open": 1, "respected": 0}
            if order[st] > order[worst]:
                worst = st
        return worst, "; ".join(parts), (f_hold, f_fail), n_need, score

    def example(self, status):
        def ref(side):
            return 1.0 if side == "reference" else float(side)
        if self.le is not None and self.ge is not None:
            lo, hi = ref(self.ge), ref(self.le)
            if self.le == "reference" and self.ge == "reference":
                lo, hi = 1.0, 1.0
            mid = (lo + hi) / 2
            span = max(hi - lo, 1.0)
            vals = {"held": mid, "failed": hi + 10 * span, "inconclusive": hi}
            ses = {"held": 0.0 if lo == hi else span * 1e-3, "failed": span * 1e-3, "inconclusive": span}
        elif self.le is not None:
            b = ref(self.le)
            s = max(abs(b), 1.0)
            vals = {"held": b - s, "failed": b + s, "inconclusive": b}
            ses = {"held": s * 1e-3, "failed": s * 1e-3, "inconclusive": s}
        else:
            b = ref(self.ge)
            s = max(abs(b), 1.0)
            vals = {"held": b + s, "failed": b - s, "inconclusive": b}
            ses = {"held": s * 1e-3, "failed": s * 1e-3, "inconclusive": s}
        if status not in vals:
            return super().example(status)
        e = Estimate(vals[status], ses[status], n=1000) if ses[status] > 0 else Estimate(vals[status])
        if "reference" in (self.le, self.ge):
            return {"p": Compared(e, Estimate(1.0))}
        return {"p": e}


def _exact_pair(x) -> bool:
    if isinstance(x, Compared):
        return x.value.exact and x.reference.exact
    return isinstance(x, Estimate) and x.exact or isinstance(x, (int, float))


def bound(*, le=None, ge=None, allowance: float = 0.0, level: float = FAMILY_LEVEL, quantity: str = "",
          strict: bool = False, min_span: float | None = None) -> Bound:
    """The one rule that grades bounds: every point below ``le`` (and above ``ge``) holds, one point beyond fails.

    Parameters
    ----------
    le, ge : float or ``"reference"`` or None
        The bound(s); ``"reference"`` takes each point's :class:`Compared` reference (a floor, a printed value).
    allowance : float
        Relative round-off allowance for exact numbers (say why where it is not 0).
    level : float
        Level of each point's test (Bonferroni over the points for a violation).
    strict : bool
        ``<`` / ``>`` for exact numbers (a value on the bound violates it).
    min_span : float, optional
        For fitted exponents: the decades of x the fit must span.

    Notes
    -----
    A point is *respected* when its upper limit ``value + q₁·se`` is below the bound (``q₁`` the t or normal quantile
    at ``level / 2``: every point must be, an intersection-union test), *violated* when its lower limit
    ``value − qₘ·se`` is above it (``qₘ`` at ``level / (2 · points)``, Bonferroni: one point suffices), open
    otherwise. A fitted exponent (:class:`Fit`) is read by its stored interval, on >= :data:`MIN_FIT_POINTS` points.

    Examples
    --------
    >>> judge(bound(le=1.0), {"k=1": Estimate(0.2), "k=2": Estimate(0.9)}).status
    'held'
    >>> judge(bound(le=0.0), {"k=1": Estimate(0.5, 0.1, n=100)}).status
    'failed'
    >>> judge(bound(le=0.0), Estimate(0.05, 0.1, n=100)).status
    'inconclusive'
    """
    return Bound(le, ge, allowance, level, quantity, strict, min_span)


# ---- exact identity --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Identity(Rule):
    """An exact number equal to its reference within ``tol``; build with :func:`identity`."""

    value: float | None = None
    tol: float = 0.0
    relative: bool = True
    quantity: str = ""
    kind: ClassVar[str] = "exact identity"

    def expected(self) -> str:
        q = f"{self.quantity} " if self.quantity else ""
        ref = "its reference" if self.value is None else fmt_num(self.value)
        t = "exactly" if self.tol == 0 else (f"within {self.tol:g} relative" if self.relative else f"within {self.tol:g}")
        return f"{q}equal to {ref} {t}"

    def why(self) -> str:
        return (f"exact computation; tolerance {self.tol:g}{' relative' if self.relative else ''} (round-off of the "
                "computation, or the printed digits)")

    def _err(self, x):
        if isinstance(x, Symbolic):
            if self.value not in (None, 0, 0.0):
                raise ValueError("identity: a symbolic residual is compared with 0")
            return (0.0 if x.is_zero else math.inf), x.text()
        if isinstance(x, Compared):
            v, r = x.value, x.reference
        else:
            v = x if isinstance(x, Estimate) else Estimate(float(x))
            if self.value is None:
                raise ValueError("identity(value=None) needs Compared measurements")
            r = Estimate(self.value)
        if not (v.exact and r.exact):
            raise ValueError("identity decides exact numbers; a Monte Carlo estimate is graded by equivalent()")
        e = abs(v.value - r.value)
        if self.relative:
            e = e / abs(r.value) if r.value != 0 else (0.0 if e == 0 else math.inf)
        return e, f"{fmt_num(v.value, 6)} vs {fmt_num(r.value, 6)}"

    def decide(self, m) -> Verdict:
        pts = dict(m) if isinstance(m, Mapping) else {"": m}
        errs = {k: self._err(x) for k, x in pts.items()}
        bad = [k for k, (e, _) in errs.items() if not e <= self.tol]
        worst = max(errs, key=lambda k: errs[k][0])
        ev = {"errors": {str(k): e for k, (e, _) in errs.items()}, "tol": self.tol, "relative": self.relative}
        kind = "relative error" if self.relative else "error"

        def show(k):
            e, t = errs[k]
            return (f"{k}: " if k != "" else "") + t + ("" if isinstance(pts[k], Symbolic) else f" ({kind} {fmt_num(e, 2)})")
        if bad:
            txt = (f"{len(bad)} of {len(pts)} differ beyond {self.tol:g}: " if len(pts) > 1 else "") + \
                "; ".join(show(k) for k in bad[:6]) + (f"; … {len(bad) - 6} more" if len(bad) > 6 else "")
            return Verdict("failed", ev, measured_text=txt, expected_text=self.expected())
        txt = (f"all {len(pts)} within {self.tol:g}, largest at " if len(pts) > 1 else "") + show(worst)
        return Verdict("held", ev, measured_text=txt, expected_text=self.expected())

    def outcomes(self):
        return ("held", "failed")

    def example(self, status):
        ref = 1.0 if self.value is None else float(self.value)
        scale = abs(ref) if (self.relative and ref != 0) else 1.0
        off = {"held": 0.0, "failed": (self.tol + 1e-3) * scale * 10 + 1e-9}.get(status)
        if off is None:
            return super().example(status)
        v = Estimate(ref + off)
        return {"cell": Compared(v, Estimate(ref))} if self.value is None else {"cell": v}


def identity(value: float | None = None, *, tol: float = 0.0, relative: bool = True, quantity: str = "") -> Identity:
    """An exact identity: every exact number (or :class:`Symbolic` residual) within ``tol`` of ``value`` (or of each
    :class:`Compared` reference) holds; one beyond it fails. Never given a Monte Carlo estimate
    (:func:`equivalent` grades those).

    Examples
    --------
    >>> judge(identity(0.0, tol=1e-12, relative=False), {"n=3": Estimate(1e-16), "n=4": Estimate(0.0)}).status
    'held'
    >>> judge(identity(tol=5e-4, relative=False), {"s=1": Compared(Estimate(0.4472), Estimate(0.377))}).status
    'failed'
    >>> judge(identity(0.0), Symbolic("0")).status
    'held'
    """
    return Identity(value, float(tol), relative, quantity)


# ---- equivalence (point values) --------------------------------------------------------------------------

@dataclass(frozen=True)
class Equivalent(Rule):
    """A point value reproduced within a margin fixed in advance; build with :func:`equivalent`."""

    margin: float = POINT_VALUE_MARGIN
    relative: bool = True
    printed: float | None = None
    level: float = FAMILY_LEVEL
    quantity: str = ""
    kind: ClassVar[str] = "equivalence margin"
    uses: ClassVar[tuple] = ("POINT_VALUE_MARGIN", "FAMILY_LEVEL", "LARGE_SAMPLE", "MAX_FACTOR")

    def __post_init__(self):
        if not self.margin > 0:
            raise ValueError(f"margin must be > 0, got {self.margin}")

    def expected(self) -> str:
        q = f"{self.quantity} " if self.quantity else ""
        ref = "the printed value" if self.printed is None else f"the printed {fmt_num(self.printed)}"
        m = f"{self.margin:.0%}" if self.relative else fmt_num(self.margin)
        return f"{q}within {m} of {ref} (interval at level {self.level:.2%} inside the margin)"

    def why(self) -> str:
        return (f"equivalence margin {self.margin:g}{' relative' if self.relative else ''}, fixed before measuring: "
                "the measured interval must lie inside printed ± margin to hold and outside it to fail; a printed "
                "value below the estimator's floor at this sample size decides nothing")

    def decide(self, m) -> Verdict:
        pts = dict(m) if isinstance(m, Mapping) else {"": m}
        k = max(len(pts), 1)
        res, texts, ev = {}, [], {}
        hold, fail, worst_key, n_max = 1.0, math.inf, "", None
        for key, x in pts.items():
            if not isinstance(x, Compared):
                if self.printed is None:
                    raise ValueError("equivalent(printed=None) needs Compared measurements")
                x = Compared(_as_estimate(x), Estimate(self.printed))
            v, ref = x.value, x.reference.value
            half = self.margin * (abs(ref) if self.relative else 1.0)
            lo, hi = ref - half, ref + half
            txt = f"{v.text()} vs printed {fmt_num(ref)} (margin [{fmt_num(lo)}, {fmt_num(hi)}])"
            if x.floor is not None and ref < x.floor.value - (quantile(self.level / 2, x.floor.dof) * x.floor.se
                                                               if x.floor.se > 0 else 0.0):
                st = "floor"
                txt += f"; printed below the estimator's floor {x.floor.text()}"
            elif v.single:
                st = "single"
            elif v.se == 0:
                st = "in" if lo <= v.value <= hi else "out"
            else:   # inside: each cell at the level (TOST, intersection-union); outside: Bonferroni over the cells
                q1, qm = quantile(self.level / 2, v.dof), quantile(self.level / (2 * k), v.dof)
                inside = lo <= v.value - q1 * v.se and v.value + q1 * v.se <= hi
                outside = v.value + qm * v.se < lo or v.value - qm * v.se > hi
                st = "in" if inside else ("out" if outside else "open")
                if st == "open":
                    d = min(abs(v.value - lo), abs(v.value - hi))
                    n_max = max(n_max or 0, v.n or 0) or None
                    if lo <= v.value <= hi:
                        hold = max(hold, _factor(d / v.se, self.level / 2, v.dof))
                    else:
                        hold = math.inf
                        f = _factor(d / v.se, self.level / (2 * k), v.dof)
                        if f < fail:
                            fail, worst_key = f, str(key) or "the value"
            res[key] = st
            ev[str(key)] = {"measurement": _record(x), "status": st, "margin": [lo, hi]}
            texts.append((f"{key}: " if key != "" else "") + txt)
        text = "; ".join(texts)
        exp = self.expected()
        if any(s == "out" for s in res.values()):
            return Verdict("failed", ev, measured_text=text, expected_text=exp)
        if all(s == "in" for s in res.values()):
            return Verdict("held", ev, measured_text=text, expected_text=exp)
        if any(s == "floor" for s in res.values()):
            by = DecideBy("resolution", "a larger sample for the estimator: the printed value lies below what it "
                                        "resolves at this sample size")
        elif any(s == "single" for s in res.values()):
            by = DecideBy("replicates", "at least 2 independent runs (one run has no standard error)")
        else:
            by = _two_way(hold, fail, n_max, worst_key)
        return Verdict("inconclusive", ev, decide_by=by, measured_text=text, expected_text=exp)

    def example(self, status):
        ref = 10.0 if self.printed is None else float(self.printed)
        half = self.margin * (abs(ref) if self.relative else 1.0) or self.margin
        vals = {"held": Estimate(ref, half * 1e-3, n=1000), "failed": Estimate(ref + 10 * half, half * 1e-3, n=1000),
                "inconclusive": Estimate(ref, 10 * half, n=1000)}
        if status not in vals:
            return super().example(status)
        return {"cell": Compared(vals[status], Estimate(ref))}


def equivalent(printed: float | None = None, *, margin: float = POINT_VALUE_MARGIN, relative: bool = True,
               level: float = FAMILY_LEVEL, quantity: str = "") -> Equivalent:
    """A point-value claim ("the error is 0.0146"): held when the measured interval lies inside ``printed ± margin``,
    failed when it lies outside, inconclusive otherwise; the margin is fixed in advance, so a wide interval cannot make
    the claim hold.

    Parameters
    ----------
    printed : float, optional
        The printed value; None takes each :class:`Compared` reference (a printed table).
    margin : float
        Relative (default :data:`POINT_VALUE_MARGIN`) or absolute (``relative=False``).

    Examples
    --------
    >>> judge(equivalent(2.0), Estimate(2.05, 0.01, n=50)).status
    'held'
    >>> judge(equivalent(2.0), Estimate(2.05, 1.0, n=50)).status      # a wide interval does not hold
    'inconclusive'
    >>> judge(equivalent(2.0), Estimate(3.0, 0.01, n=50)).status
    'failed'
    """
    return Equivalent(float(margin), relative, printed, level, quantity)


# ---- combinations ----------------------------------------------------------------------------------------

def _basis(entries: Mapping[str, Verdict]) -> str:
    b = {v.basis for v in entries.values()}
    return "substitute data" if "substitute data" in b else ("our design" if "our design" in b else "paper")


def _entries_text(entries: Mapping[str, Verdict]) -> str:
    return "; ".join(f"{k}: {v.label} ({v.measured_text or v.detail})" for k, v in entries.items())


def _undecided_by(entries: Mapping[str, Verdict]) -> DecideBy | None:
    bys = [(k, v.decide_by) for k, v in entries.items() if v.status not in ("held", "failed", "depends") and v.decide_by]
    if not bys:
        return None
    f = [b.factor for _, b in bys if b.factor is not None]
    kinds = {b.kind for _, b in bys}
    kind = next(iter(kinds)) if len(kinds) == 1 else bys[0][1].kind
    text = "; ".join(f"{k}: {b.text}" for k, b in bys[:4]) + (f"; … {len(bys) - 4} more" if len(bys) > 4 else "")
    return DecideBy(kind, text, max(f) if f else None)


def over_axis(entries: Mapping[str, Verdict], axis: str, min_values: int | None = None) -> Verdict:
    """The ONE ledger-wide rule that combines a claim over several settings (readings, data draws, splits, step sizes,
    seeds, data sets).

    every value held → ``held``; every value failed → ``failed``; held at some value and failed at another (or a value
    that itself ``depends``) → ``depends``, with the map; otherwise ``inconclusive`` (what would decide the undecided
    values). With ``min_values``, a claim about the axis in general needs that many values: fewer caps a ``held`` or
    ``failed`` at ``inconclusive`` (both alike).

    Examples
    --------
    >>> h, f, i = Verdict("held"), Verdict("failed"), Verdict("inconclusive")
    >>> over_axis({"a": h, "b": h}, "data set").status, over_axis({"a": h, "b": f}, "data set").status
    ('held', 'depends')
    >>> over_axis({"a": f, "b": i}, "data set").status
    'inconclusive'
    """
    if not entries:
        raise ValueError(f"over_axis: no {axis} values")
    st = [v.status for v in entries.values()]
    ev = {"axis": axis, "values": {str(k): v.status for k, v in entries.items()}}
    txt = f"by {axis} — " + _entries_text(entries)
    base = dict(measured=ev, map=dict(entries), axis=axis, basis=_basis(entries), measured_text=txt)
    if "depends" in st or ("held" in st and "failed" in st):
        return Verdict("depends", **base)
    if all(s == "not run (scale)" for s in st):
        return Verdict("not run (scale)", decide_by=_undecided_by(entries), **base)
    for s in ("held", "failed"):
        if all(x == s for x in st):
            if min_values and len(entries) < min_values:
                return Verdict("inconclusive", decide_by=DecideBy("grid", f"at least {min_values} values of the {axis} "
                               f"(this run has {len(entries)}; {s} at every one)"), **base)
            return Verdict(s, **base)
    return Verdict("inconclusive", decide_by=_undecided_by(entries), **base)


def _conjunction(entries, axis):
    st = [v.status for v in entries.values()]
    base = dict(measured={"axis": axis, "values": {str(k): v.status for k, v in entries.items()}}, map=dict(entries),
                axis=axis, basis=_basis(entries), measured_text=_entries_text(entries))
    if "failed" in st:
        return Verdict("failed", **base)
    if all(s == "held" for s in st):
        return Verdict("held", **base)
    if "depends" in st and all(s in ("held", "depends") for s in st):
        return Verdict("depends", **base)
    return Verdict("inconclusive", decide_by=_undecided_by(entries), **base)


def _existential(entries, axis):
    st = [v.status for v in entries.values()]
    base = dict(measured={"axis": axis, "values": {str(k): v.status for k, v in entries.items()}}, map=dict(entries),
                axis=axis, basis=_basis(entries), measured_text=_entries_text(entries))
    if "held" in st:
        return Verdict("held", **base)
    if all(s == "failed" for s in st):
        return Verdict("failed", **base)
    return Verdict("inconclusive", decide_by=_undecided_by(entries), **base)


def _unique(entries, axis):
    st = {k: v.status for k, v in entries.items()}
    base = dict(measured={"axis": axis, "values": {str(k): s for k, s in st.items()}}, map=dict(entries), axis=axis,
                basis=_basis(entries), measured_text=_entries_text(entries))
    held = [k for k, s in st.items() if s == "held"]
    if all(s == "failed" for s in st.values()):
        return Verdict("failed", **base)
    if len(held) == 1 and all(s == "failed" for k, s in st.items() if k != held[0]):
        return Verdict("held", **base)
    if len(held) > 1:
        return Verdict("inconclusive", decide_by=DecideBy("separating test", f"a measurement that separates "
                       f"{', '.join(held)} (each passes this run's tests)"), **base)
    return Verdict("inconclusive", decide_by=_undecided_by(entries), **base)


_COMBINERS = {"all of": _conjunction, "any of": _existential, "exactly one": _unique}


@dataclass(frozen=True)
class _Combination(Rule):
    parts: Mapping[str, Rule] | None = None
    each: Rule | None = None
    axis: str = "part"
    how: ClassVar[str] = "all of"

    def __post_init__(self):
        if (self.parts is None) == (self.each is None):
            raise ValueError(f"{self.kind}: give parts (named rules) or each (one rule for every entry), not both")
        if self.parts is not None and len(self.parts) < 1:
            raise ValueError(f"{self.kind}: parts is empty")

    def children(self):
        return tuple(self.parts.values()) if self.parts is not None else (self.each,)

    def _entries(self, m) -> dict:
        if not isinstance(m, Mapping):
            raise TypeError(f"{self.kind} decides a mapping of {self.axis} -> measurement, got {type(m).__name__}")
        if self.parts is not None:
            if set(m) != set(self.parts):
                raise ValueError(f"{self.kind}: measurement keys {sorted(m)} differ from the declared {self.axis}s "
                                 f"{sorted(self.parts)}")
            return {k: judge(self.parts[k], m[k]) for k in self.parts}
        if not m:
            raise ValueError(f"{self.kind}: no {self.axis} values measured")
        return {k: judge(self.each, x) for k, x in m.items()}

    def decide(self, m) -> Verdict:
        v = self._combine(self._entries(m))
        return dataclasses.replace(v, expected_text=self.expected())

    def _combine(self, entries):
        return _COMBINERS[self.how](entries, self.axis)

    def expected(self) -> str:
        if self.parts is not None:
            return f"{self.how} — " + "; ".join(f"{k}: {r.expected()}" for k, r in self.parts.items())
        of = " of" if self.how == "exactly one" else ""
        return f"{self.how}{of} the {self.axis}s: {self.each.expected()}"

    def why(self) -> str:
        return "; ".join(dict.fromkeys(r.why() for r in self.children() if r.why()))

    def _keys(self, n=2):
        return list(self.parts) if self.parts is not None else [f"{self.axis} {i + 1}" for i in range(n)]

    def _rule(self, k):
        return self.parts[k] if self.parts is not None else self.each

    def _n_examples(self) -> int:
        return 2

    def _reach(self) -> dict:
        """``{status: child statuses}``: the combined status of constructed child verdicts, for every assignment of
        the children's own reachable statuses (first entry against the rest when there are many)."""
        keys = self._keys(self._n_examples())
        outs = [self._rule(k).outcomes() for k in keys]
        if math.prod(len(o) for o in outs) <= 4096:
            assignments = itertools.product(*outs)
        else:
            assignments = ((a,) + (b,) * (len(keys) - 1) for a in outs[0] for b in outs[1])
        found = {}
        for a in assignments:
            st = self._combine({k: Verdict(s) for k, s in zip(keys, a)}).status
            found.setdefault(st, a)
        return found

    def outcomes(self):
        r = self._reach()
        return tuple(s for s in ("held", "failed", "depends", "inconclusive", "not run (scale)") if s in r)

    def example(self, status):
        r = self._reach()
        if status not in r:
            return super().example(status)
        keys = self._keys(self._n_examples())
        return {k: self._rule(k).example(s) for k, s in zip(keys, r[status])}


@dataclass(frozen=True)
class AllOf(_Combination):
    """A conjunction; see :func:`all_of`."""

    kind: ClassVar[str] = "all of"
    how: ClassVar[str] = "all of"


@dataclass(frozen=True)
class AnyOf(_Combination):
    """An existential; see :func:`any_of`."""

    kind: ClassVar[str] = "any of"
    how: ClassVar[str] = "any of"


@dataclass(frozen=True)
class ExactlyOne(_Combination):
    """Exactly one candidate holds; see :func:`exactly_one`."""

    kind: ClassVar[str] = "exactly one"
    how: ClassVar[str] = "exactly one"


@dataclass(frozen=True)
class OverAxis(_Combination):
    """One assertion over an axis or over the readings of a statement, combined by :func:`over_axis`; build with
    :func:`robust_to` or :func:`readings`."""

    min_values: int | None = None
    kind: ClassVar[str] = "over an axis"

    def _combine(self, entries):
        return over_axis(entries, self.axis, self.min_values)

    def expected(self) -> str:
        if self.parts is not None:
            return f"under every {self.axis} — " + "; ".join(f"{k}: {r.expected()}" for k, r in self.parts.items())
        n = f" (at least {self.min_values})" if self.min_values else ""
        return f"at every {self.axis}{n}: {self.each.expected()}"

    def why(self) -> str:
        s = super().why()
        return (s + "; " if s else "") + (f"combined over the {self.axis}s by the ledger's one rule: held (failed) where "
                                          "every value holds (fails), depends where they differ")

    def _n_examples(self) -> int:
        return max(2, self.min_values or 2)


def all_of(parts: Mapping[str, Rule] | None = None, *, each: Rule | None = None, axis: str = "part") -> AllOf:
    """A conjunction of different assertions (``parts``: name → rule, the measurement a mapping with the same keys),
    or of every entry of a measured mapping (``each``: e.g. every cell of a printed table). One failed part fails
    it; every part held holds it; otherwise inconclusive.

    Use :func:`robust_to` instead when the entries are settings of one assertion (there a mix is ``depends``).

    Examples
    --------
    >>> r = all_of({"residual": identity(0.0), "rate": slope_in(1.0, 0.1)})
    >>> judge(r, {"residual": Symbolic("0"), "rate": Fit(1.0, 0.95, 1.05, points=5)}).status
    'held'
    """
    return AllOf(dict(parts) if parts is not None else None, each, axis)


def any_of(parts: Mapping[str, Rule] | None = None, *, each: Rule | None = None, axis: str = "setting") -> AnyOf:
    """An existential ("in some setting ..."): one entry held holds it; every entry failed fails it.

    Examples
    --------
    >>> r = any_of(each=bound(le=0.0), axis="setting")
    >>> judge(r, {"a": Estimate(1.0), "b": Estimate(-1.0)}).status
    'held'
    """
    return AnyOf(dict(parts) if parts is not None else None, each, axis)


def exactly_one(parts: Mapping[str, Rule] | None = None, *, each: Rule | None = None,
                axis: str = "reading") -> ExactlyOne:
    """Exactly one candidate holds and every other fails → held; every candidate fails → failed; several hold →
    inconclusive (a test that separates them would decide).

    Examples
    --------
    >>> r = exactly_one(each=bound(le=1.0))
    >>> judge(r, {"raw": Estimate(0.5), "normalized": Estimate(2.0)}).status
    'held'
    """
    return ExactlyOne(dict(parts) if parts is not None else None, each, axis)


def readings(parts: Mapping[str, Rule] | None = None, *, each: Rule | None = None, names: tuple | None = None) -> OverAxis:
    """Each reading of an ambiguous statement, decided by its own rule and combined by :func:`over_axis`: the readings
    agree → that status; they disagree → ``depends`` (the map says which reading holds).

    ``parts``: reading → rule; or ``each`` with ``names``: the same rule under every named reading (the measurement
    has one entry per reading). The readings are declared, never discovered in the data.

    Examples
    --------
    >>> r = readings({"with replacement": identity(1.0), "without replacement": identity(1.0)})
    >>> judge(r, {"with replacement": Estimate(1.0), "without replacement": Estimate(2.0)}).status
    'depends'
    """
    if parts is None:
        if each is None or not names:
            raise ValueError("readings: give parts, or each with names")
        parts = {n: each for n in names}
    return OverAxis(dict(parts), None, "reading")


def robust_to(axis: str, each: Rule, *, min_values: int | None = None) -> OverAxis:
    """One assertion over an axis (``"data set"``, ``"data draw"``, ``"split"``, ``"step size"``, ``"seed"`` ...): the
    measurement maps each value of the axis to a measurement for ``each``; combined by :func:`over_axis`.

    Parameters
    ----------
    min_values : int, optional
        A claim about the axis in general (a data set in general, "in all cases") needs this many values (8 data
        draws, or every available split) before it holds or fails.

    Examples
    --------
    >>> r = robust_to("data set", ordering("HSG-HMC", "SGLD"))
    >>> m = {"a9a": {"HSG-HMC": Estimate(1.0), "SGLD": Estimate(2.0)}, "pima": {"HSG-HMC": Estimate(3.0), "SGLD": Estimate(2.0)}}
    >>> judge(r, m).status
    'depends'
    """
    return OverAxis(None, each, axis, min_values)


@dataclass(frozen=True)
class Given(Rule):
    """A rule that decides only where its measurement is valid; build with :func:`given`."""

    condition: Rule
    rule: Rule
    needs: str
    kind: ClassVar[str] = "given"

    def children(self):
        return (self.condition, self.rule)

    def expected(self) -> str:
        return f"{self.rule.expected()}, read only where {self.condition.expected()}"

    def why(self) -> str:
        return "; ".join(x for x in (self.rule.why(), f"the precondition ({self.condition.expected()}) decides whether "
                                     "the measurement isolates the claimed quantity; unmet, neither a hold nor a "
                                     "failure is read") if x)

    def decide(self, m) -> Verdict:
        if not isinstance(m, Mapping) or set(m) != {"condition", "claim"}:
            raise ValueError("given: the measurement is {'condition': ..., 'claim': ...}")
        c, v = judge(self.condition, m["condition"]), judge(self.rule, m["claim"])
        ev = {**v.measured, "precondition": {"status": c.status, "measured": c.measured_text}}
        if c.status == "held":
            return dataclasses.replace(v, measured=ev, expected_text=self.expected(),
                                       measured_text=f"{v.measured_text}; precondition met ({c.measured_text})")
        capped = {"by": "precondition", "status": v.status, "why": c.measured_text} if v.status in (
            "held", "failed", "depends") else None
        return Verdict("inconclusive", ev, decide_by=DecideBy("grid", f"{self.needs} (precondition {c.label}: "
                                                                       f"{c.measured_text})"),
                       basis=v.basis, capped=capped, expected_text=self.expected(),
                       measured_text=f"{v.measured_text}; precondition not met ({c.measured_text}): with it "
                                     f"{v.status}")

    def outcomes(self):
        return tuple(s for s in ("held", "failed", "depends", "inconclusive")
                     if s in self.rule.outcomes() or s == "inconclusive")

    def example(self, status):
        if status == "inconclusive" and "failed" in self.condition.outcomes():
            return {"condition": self.condition.example("failed"), "claim": self.rule.example(
                "held" if "held" in self.rule.outcomes() else self.rule.outcomes()[0])}
        if status in self.rule.outcomes():
            return {"condition": self.condition.example("held"), "claim": self.rule.example(status)}
        return super().example(status)


def given(condition: Rule, rule: Rule, *, needs: str) -> Given:
    """``rule``, read only where ``condition`` holds: the condition says the measurement isolates what the claim is
    about (e.g. "the error is still dominated by the first term of the bound"). Unmet or undecided, the verdict is
    ``inconclusive`` whatever ``rule`` says, holds and failures alike (the status it would have had is kept in
    ``capped``); ``needs`` says what would meet it. The measurement is ``{"condition": ..., "claim": ...}``.

    Examples
    --------
    >>> r = given(bound(le=1.5), slope_in(-1.0, 0.2), needs="an earlier window")
    >>> judge(r, {"condition": Estimate(2.6), "claim": Fit(-1.0, -1.1, -0.9, points=5)}).status
    'inconclusive'
    >>> judge(r, {"condition": Estimate(1.2), "claim": Fit(-0.5, -0.6, -0.4, points=5)}).status
    'failed'
    """
    return Given(condition, rule, needs)


# ---- ledger-wide caps ----------------------------------------------------------------------------------

def data_basis(v: Verdict, on: OnData) -> Verdict:
    """The substitute-data rule: a verdict measured on data the paper did not use keeps its status and is reported
    "on substitute data" (counted apart); the paper's data are its named sets read from a file the user gave.

    Applies to ``held`` and ``failed`` alike (and to ``depends`` / ``inconclusive``, which then also say that the
    paper's data would decide it on the paper's own setting).
    """
    subs = [u for u in on.used if u.builtin or u.name not in on.paper]
    data_txt = ", ".join(f"{u.name} ({u.source})" if u.source else u.name for u in on.used)
    ev = {**v.measured, "data": [dataclasses.asdict(u) for u in on.used], "paper_data": list(on.paper)}
    if not subs:
        return dataclasses.replace(v, measured=ev)
    note = f" — on {data_txt}; the paper's: {', '.join(on.paper) or 'not named'}"
    by = v.decide_by
    if v.status == "inconclusive" and by is not None:
        by = DecideBy(by.kind, by.text + f"; on the paper's own setting, its data ({', '.join(on.paper)})", by.factor)
    return dataclasses.replace(v, measured=ev, basis="substitute data", decide_by=by,
                               measured_text=(v.measured_text or v.detail) + note)


def tuning_edge(v: Verdict, choices: Mapping[str, Any]) -> Verdict:
    """The tuning-edge rule: when a compared method's tuned setting is an end of its grid (of at least two values),
    the optimum may lie outside the grid and the comparison rests on the grid, not the methods: a ``held``,
    ``failed`` or ``depends`` is capped at ``inconclusive`` (the status it had is kept in ``capped``).
    """
    edge = {k: c for k, c in choices.items() if c.at_edge}
    ev = {**v.measured, "tuning": {k: {"value": c.value, "grid": list(c.grid), "parameter": c.parameter,
                                       "at_edge": c.at_edge} for k, c in choices.items()}}
    if not edge:
        return dataclasses.replace(v, measured=ev)
    where = "; ".join(f"{k}: {c.parameter} {fmt_num(c.value)} at the {c.at_edge} end of "
                      f"[{', '.join(fmt_num(g) for g in c.grid)}]" for k, c in edge.items())
    by = DecideBy("tuning", f"tuning grids that extend past their chosen ends ({where})")
    if v.status not in ("held", "failed", "depends"):
        return dataclasses.replace(v, measured=ev, decide_by=v.decide_by or by)
    return dataclasses.replace(v, status="inconclusive", measured=ev, decide_by=by,
                               capped={"by": "tuning edge", "status": v.status, "why": where},
                               measured_text=(v.measured_text or v.detail) + f"; tuned at a grid edge ({where}): "
                               f"with this tuning {v.status}")
