"""What a claim's extractor hands to the ledger: measured numbers with their uncertainty, and the facts the
ledger-wide caps need (which data, which tuning grid, whether this scale ran the cell).

An extractor (the ``measure=`` of :func:`sgmcmc_verify.ledger.claims.declare`) reads stored results and returns
one of these, or a mapping of them (one per compared method, per setting, per reading, per part). It never
decides: the rules of :mod:`sgmcmc_verify.ledger.rules` do.

=====================  =======================================================================================
type                   what it carries
=====================  =======================================================================================
:class:`Estimate`      a number; exact (``n=None``, ``se=0``) or a mean over ``n`` independent replicates with its
                       standard error (``df`` when the s.e. has other degrees of freedom, e.g. an OLS slope)
:class:`Fit`           a fitted exponent with its stored interval (bootstrap over realizations, or a t-interval),
                       the number of points it was fitted on and the span of x in decades
:class:`Compared`      a value and the reference it is compared with (a printed number, a bound, a floor)
:class:`Symbolic`      an exact symbolic residual (sympy's text); zero or not
:class:`OnData`        a measurement and the data sets it was made on (the substitute-data rule reads it)
:class:`Tuned`         a measurement and the tuned settings of the compared methods (the tuning-edge rule reads it)
:class:`NotAtScale`    the cell this scale does not run (the verdict is ``not run (scale)``)
:class:`Unmeasured`    the stored result has no estimate of the quantity, and why (the verdict is ``inconclusive``
                       with what would measure it)
=====================  =======================================================================================
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

__all__ = ["Estimate", "Fit", "Compared", "Symbolic", "DataUsed", "OnData", "TunedChoice", "Tuned", "NotAtScale",
           "Unmeasured", "fmt_num", "estimate_of"]


def fmt_num(x: float, digits: int = 3) -> str:
    """A number for a sentence: ``digits`` significant digits, no exponent between 1e-3 and 1e5.

    Examples
    --------
    >>> fmt_num(0.000123456), fmt_num(12.5), fmt_num(2.0), fmt_num(float("inf")), fmt_num(123456.0)
    ('0.000123', '12.5', '2', 'inf', '1.23e+05')
    """
    x = float(x)
    if not math.isfinite(x):
        return "inf" if x > 0 else ("-inf" if x < 0 else "nan")
    if x == 0:
        return "0"
    if 1e-4 <= abs(x) < 1e5:
        s = f"{x:.{digits}g}"
        return s if "e" not in s else f"{x:.{max(0, digits - 1 - int(math.floor(math.log10(abs(x)))))}f}"
    return f"{x:.{digits}g}"


@dataclass(frozen=True)
class Estimate:
    """A measured number.

    Parameters
    ----------
    value : float
        The estimate (a mean over replicates, or an exact number).
    se : float
        Its standard error (0 for an exact number).
    n : int or None
        Independent replicates behind ``value`` (realizations, runs, chains, data draws); ``None`` for an exact
        number (closed form, exact enumeration, a printed value). ``n = 1`` is one run: its ``se`` is unknown,
        and no rule decides from it.
    df : float or None
        Degrees of freedom of ``se`` when they are not ``n - 1`` (an OLS slope on k points: ``k - 2``).
    unit : str
        Shown after the number (``"nats"``, ``"%"``).

    Raises
    ------
    ValueError
        ``value`` or ``se`` not finite, ``se < 0``, ``n < 1``, or ``se > 0`` with ``n = None`` (a Monte Carlo
        number must say how many replicates it comes from).

    Examples
    --------
    >>> Estimate(1.5, 0.2, n=10).text()
    '1.5 ± 0.2 (n = 10)'
    >>> Estimate(0.25).text()
    '0.25 (exact)'
    """

    value: float
    se: float = 0.0
    n: int | None = None
    df: float | None = None
    unit: str = ""

    def __post_init__(self):
        object.__setattr__(self, "value", float(self.value))
        object.__setattr__(self, "se", float(self.se))
        if not math.isfinite(self.value):
            raise ValueError(f"value must be finite, got {self.value}")
        if not math.isfinite(self.se) or self.se < 0:
            raise ValueError(f"se must be finite and >= 0, got {self.se}")
        if self.n is not None:
            object.__setattr__(self, "n", int(self.n))
            if self.n < 1:
                raise ValueError(f"n must be >= 1 replicates, got {self.n}")
        elif self.se > 0 and self.df is None:
            raise ValueError(f"an estimate with se = {self.se} needs its replicate count n (or df)")

    @property
    def exact(self) -> bool:
        """An exact number (no replicates, no standard error)."""
        return self.n is None and self.df is None and self.se == 0.0

    @property
    def single(self) -> bool:
        """One replicate: the standard error is unknown."""
        return self.n == 1

    @property
    def dof(self) -> float:
        """Degrees of freedom of ``se`` (``inf`` for an exact number)."""
        if self.df is not None:
            return float(self.df)
        if self.n is None:
            return math.inf
        return float(max(self.n - 1, 0))

    def text(self) -> str:
        u = f" {self.unit}" if self.unit else ""
        if self.exact:
            return f"{fmt_num(self.value)}{u} (exact)"
        if self.single:
            return f"{fmt_num(self.value)}{u} (one run, no s.e.)"
        reps = f"n = {self.n}" if self.n is not None else f"{fmt_num(self.dof)} d.f."
        return f"{fmt_num(self.value)} ± {fmt_num(self.se, 2)}{u} ({reps})"

    def record(self) -> dict:
        return {"value": self.value, "se": self.se, "n": self.n, "df": self.df, "unit": self.unit}


def estimate_of(samples, unit: str = "") -> Estimate:
    """The mean of independent replicates with its standard error (``ddof = 1``); one sample gives ``n = 1``.

    Raises
    ------
    ValueError
        No samples, or a sample that is not finite.

    Examples
    --------
    >>> estimate_of([1.0, 2.0, 3.0]).text()
    '2 ± 0.58 (n = 3)'
    """
    x = np.asarray(samples, dtype=float).ravel()
    if x.size == 0:
        raise ValueError("samples: no replicates")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"samples: {int(np.sum(~np.isfinite(x)))} of {x.size} replicates are not finite")
    se = float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else 0.0
    return Estimate(float(x.mean()), se, n=int(x.size), unit=unit)


@dataclass(frozen=True)
class Fit:
    """A fitted exponent (log-log slope) with the interval stored beside it.

    Parameters
    ----------
    slope : float
    ci_low, ci_high : float
        The stored interval at ``level`` (a bootstrap over realizations, or an OLS t-interval).
    points : int
        How many x values the fit used.
    level : float
        Coverage of the interval.
    replicates : int or None
        Realizations behind each point (the bootstrap resamples them); used to say how many more would decide.
    span : float or None
        Decades of x the fit covers (``log10(x_max / x_min)``).
    unbounded : str or None
        ``"low"`` or ``"high"`` when the bootstrap could not bound that end (too many replicates with a
        non-positive mean; :class:`sgmcmc_verify.measure.rates.SlopeFit`).
    """

    slope: float
    ci_low: float
    ci_high: float
    points: int
    level: float = 0.95
    replicates: int | None = None
    span: float | None = None
    unbounded: str | None = None

    def __post_init__(self):
        for k in ("slope", "ci_low", "ci_high"):
            object.__setattr__(self, k, float(getattr(self, k)))
            if not math.isfinite(getattr(self, k)):
                raise ValueError(f"{k} must be finite, got {getattr(self, k)}")
        if self.ci_low > self.ci_high:
            raise ValueError(f"ci_low {self.ci_low} > ci_high {self.ci_high}")
        if self.unbounded not in (None, "low", "high"):
            raise ValueError(f"unbounded must be None, 'low' or 'high', got {self.unbounded!r}")

    @classmethod
    def from_stored(cls, fit: Mapping[str, Any], *, points: int | None = None, replicates: int | None = None,
                    span: float | None = None, key: str = "slope") -> "Fit":
        """From a stored fit dict (``slope`` or ``exponent``, ``ci_low``, ``ci_high``, ``level``, ``points`` or the
        length of ``x`` / ``step_sizes_used``, ``ci_unbounded``)."""
        k = points
        if k is None:
            k = fit.get("points")
            if not isinstance(k, int):
                k = next((len(fit[x]) for x in ("x", "step_sizes_used") if isinstance(fit.get(x), (list, tuple))), 0)
        slope = fit[key] if key in fit else fit["exponent"]
        unb = None
        if fit.get("ci_unbounded"):
            unb = "high" if fit["ci_high"] - slope > slope - fit["ci_low"] else "low"
        return cls(slope, fit["ci_low"], fit["ci_high"], int(k), float(fit.get("level") or 0.95), replicates, span,
                   unb)

    def text(self) -> str:
        lo = "unbounded" if self.unbounded == "low" else fmt_num(self.ci_low)
        hi = "unbounded" if self.unbounded == "high" else fmt_num(self.ci_high)
        span = f" over {fmt_num(self.span, 2)} decades" if self.span is not None else ""
        return f"{fmt_num(self.slope)} [{lo}, {hi}] ({self.level:.0%} interval, {self.points} points{span})"

    def record(self) -> dict:
        return {"slope": self.slope, "ci_low": self.ci_low, "ci_high": self.ci_high, "points": self.points,
                "level": self.level, "replicates": self.replicates, "span": self.span, "unbounded": self.unbounded}


@dataclass(frozen=True)
class Compared:
    """A value and the reference it is compared with (``reference`` a printed number, a bound, a floor).

    ``floor`` (optional): the smallest value the estimator resolves at this sample size (e.g. the W2 between two
    exact samples); a printed value below it cannot be reached by this measurement.
    """

    value: Estimate
    reference: Estimate
    floor: Estimate | None = None

    def __post_init__(self):
        for k in ("value", "reference", "floor"):
            v = getattr(self, k)
            if v is not None and not isinstance(v, Estimate):
                object.__setattr__(self, k, Estimate(float(v)))

    def record(self) -> dict:
        out = {"value": self.value.record(), "reference": self.reference.record()}
        if self.floor is not None:
            out["floor"] = self.floor.record()
        return out


@dataclass(frozen=True)
class Symbolic:
    """An exact symbolic residual as sympy prints it (``"0"`` when it simplified to zero)."""

    residual: str

    @property
    def is_zero(self) -> bool:
        return str(self.residual).strip() == "0"

    def text(self) -> str:
        if self.is_zero:
            return "symbolic residual 0"
        r = " ".join(str(self.residual).split())
        r = re.sub(r"\]\]\)$", "]", re.sub(r"^Matrix\(\[\[", "[", r)).replace("], [", "; ")   # sympy's matrix repr
        return f"nonzero symbolic residual {r[:80]}{'…' if len(r) > 80 else ''}"

    def record(self) -> dict:
        return {"residual": str(self.residual)}


@dataclass(frozen=True)
class DataUsed:
    """One data set a measurement was made on: its name, where it came from, and whether it is a built-in stand-in."""

    name: str
    source: str = ""
    builtin: bool = True


@dataclass(frozen=True)
class OnData:
    """``inner`` measured on ``used``; ``paper`` names the data sets the paper used (as user-given files).

    The ledger's substitute-data rule (:func:`sgmcmc_verify.ledger.rules.data_basis`) reads it: the verdict is on
    the paper's data only when every set used is one of ``paper`` read from a file the user gave.
    """

    inner: Any
    used: tuple
    paper: tuple

    def __post_init__(self):
        object.__setattr__(self, "used", tuple(self.used))
        object.__setattr__(self, "paper", tuple(self.paper))
        if not self.used:
            raise ValueError("used: name at least one data set")


@dataclass(frozen=True)
class TunedChoice:
    """The value a tuning run chose for ``parameter`` and the grid it chose from (sorted).

    ``least``: the smallest value the parameter can take at all (a batch size of 1), when the grid starts there: a
    choice at that end is not a grid edge (no optimum lies below it).

    Examples
    --------
    >>> TunedChoice(1, (1, 10), "batch size").at_edge, TunedChoice(1, (1, 10), "batch size", least=1).at_edge
    ('low', None)
    """

    value: float
    grid: tuple
    parameter: str = "step size"
    least: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "grid", tuple(sorted(float(g) for g in self.grid)))
        object.__setattr__(self, "value", float(self.value))

    @property
    def at_edge(self) -> str | None:
        """``"low"`` / ``"high"`` when the choice is an end of a grid of at least 2 values (the low end not when it is
        the parameter's ``least`` value), else None."""
        if len(self.grid) < 2:
            return None
        if math.isclose(self.value, self.grid[0], rel_tol=1e-12):
            if self.least is not None and math.isclose(self.value, self.least, rel_tol=1e-12):
                return None
            return "low"
        if math.isclose(self.value, self.grid[-1], rel_tol=1e-12):
            return "high"
        return None


@dataclass(frozen=True)
class Tuned:
    """``inner`` compares methods whose settings were tuned: ``choices`` maps a method label to its
    :class:`TunedChoice` (the tuning-edge rule, :func:`sgmcmc_verify.ledger.rules.tuning_edge`, reads it)."""

    inner: Any
    choices: Mapping[str, TunedChoice] = field(default_factory=dict)


@dataclass(frozen=True)
class NotAtScale:
    """This scale does not run the cell: ``reason`` (what was run) and ``needs`` (what runs it)."""

    reason: str
    needs: str = "run --scale paper"


@dataclass(frozen=True)
class Unmeasured:
    """The stored result holds no estimate of the quantity: ``reason`` (what the run found) and ``needs`` (what would
    measure it), ``kind`` one of :data:`sgmcmc_verify.ledger.verdict.DECIDE_KINDS` (``"steps"``, ``"replicates"`` ...),
    ``factor`` how many times this run's replicates or steps would measure it, estimated from the run (None where
    the run gives no basis for an estimate; ``needs`` then says why). Extractors pass ``kind`` explicitly, and
    ``factor=`` with ``"replicates"`` / ``"steps"`` (``tests/verify/ledger/test_decide_by.py`` checks it).
    """

    reason: str
    needs: str
    kind: str = "steps"
    factor: float | None = None
