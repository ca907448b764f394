"""Rate checks: log–log slopes with bootstrap intervals, and the joint fit of a multi-term bound.

Every fit resamples *realizations* (the independent unit), never grid points.

References
----------
EWSG Theorem 4.3 (seed ``000_8e0377c44e2ea3b8.txt``, eq. (5)):
``E(φ̂_K − φ̄)² ≤ C1/T + C2 (h/T) · mean_k E Tr cov(n∇V_{I_k} | F_k) + C3 h²``, T = Kh.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
from scipy.optimize import nnls
from scipy.stats import norm

from ..errors import check_finite_array, check_positive_int

__all__ = ["SlopeFit", "fit_slope", "BoundFit", "fit_bound", "slope_status", "se_from_interval"]


class SlopeFit(NamedTuple):
    """slope, intercept of ``log y = intercept + slope · log x`` (natural logs) on the means;
    ci : (low, high) percentile bootstrap interval at ``level`` over realizations;
    boot : the bootstrap slopes; x, y : the points fitted;
    n_nonpositive : bootstrap replicates in which some mean was <= 0 (their log-slope is undefined;
    they are kept with the mean clipped to the smallest float, so they sit in the tails — when more
    than ``(1 − level)/2`` of them occur, the corresponding end of the interval is unbounded)."""

    slope: float
    intercept: float
    ci: tuple
    level: float
    boot: np.ndarray
    x: np.ndarray
    y: np.ndarray
    n_nonpositive: int = 0

    @property
    def ci_unbounded(self) -> bool:
        return self.n_nonpositive > (1 - self.level) / 2 * self.boot.size

    def as_dict(self) -> dict:
        return {"slope": self.slope, "intercept": self.intercept, "ci_low": self.ci[0], "ci_high": self.ci[1],
                "level": self.level, "n_boot": int(self.boot.size), "n_boot_nonpositive": int(self.n_nonpositive),
                "ci_unbounded": bool(self.ci_unbounded), "x": self.x.tolist(), "y": self.y.tolist()}


def _ols_slope(lx, ly):
    lxc = lx - lx.mean(axis=-1, keepdims=True)
    slope = np.sum(lxc * (ly - ly.mean(axis=-1, keepdims=True)), axis=-1) / np.sum(lxc**2, axis=-1)
    return slope, ly.mean(axis=-1) - slope * lx.mean(axis=-1)


def _columns(samples):
    """Normalize to a list of 1-D per-realization arrays, one per grid point."""
    if isinstance(samples, np.ndarray) and samples.ndim == 2:
        return [samples[:, j] for j in range(samples.shape[1])], True
    return [check_finite_array("samples[j]", s, ndim=1) for s in samples], False


def _boot_means(cols, paired, n_boot, rng):
    """(n_boot, m) bootstrap means; rows resampled jointly when the columns share realizations."""
    m = len(cols)
    out = np.empty((n_boot, m))
    if paired:
        X = np.stack(cols, axis=1)
        R = X.shape[0]
        for b in range(n_boot):
            out[b] = X[rng.integers(0, R, R)].mean(axis=0)
    else:
        for j, c in enumerate(cols):
            R = c.size
            out[:, j] = np.array([c[rng.integers(0, R, R)].mean() for _ in range(n_boot)])
    return out


def fit_slope(x, samples, *, paired: bool | None = None, n_boot: int = 1000, level: float = 0.95,
              rng: np.random.Generator | int | None = 0) -> SlopeFit:
    """Log–log slope of a mean over realizations against ``x``, with a bootstrap interval.

    Parameters
    ----------
    x : (m,) array_like of positive float
        Grid (T, h, data passes ...), m >= 2.
    samples : (R, m) ndarray, or a sequence of m 1-D arrays
        Per-realization values whose mean is plotted (e.g. squared errors ``(φ̂ − φ̄)²``).
        A 2-D array means the m columns share realizations (one run observed at m checkpoints);
        a sequence means m independent runs (possibly of different sizes).
    paired : bool or None
        Override the inference above.
    n_boot : int, default 1000
    level : float, default 0.95
    rng : Generator, int or None
        Bootstrap randomness (seeded by default so that reports are reproducible).

    Returns
    -------
    SlopeFit

    Raises
    ------
    ValueError
        Non-positive ``x`` or non-positive means (no logarithm), fewer than 2 points, or
        mismatched lengths.
    """
    xs = check_finite_array("x", x, ndim=1)
    cols, is_paired = _columns(samples)
    paired = is_paired if paired is None else paired
    if xs.size < 2 or len(cols) != xs.size:
        raise ValueError(f"need >= 2 grid points and one sample column per point; got {xs.size} and {len(cols)}")
    if np.any(xs <= 0):
        raise ValueError("x must be > 0 for a log-log fit")
    y = np.array([c.mean() for c in cols])
    if np.any(y <= 0):
        raise ValueError("the means must be > 0 for a log-log fit")
    n_boot = check_positive_int("n_boot", n_boot)
    if not (0 < level < 1):
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    lx = np.log(xs)
    slope, icpt = _ols_slope(lx, np.log(y))
    bm = _boot_means(cols, paired, n_boot, rng)
    nonpos = int(np.sum(np.any(bm <= 0, axis=1)))
    bslopes, _ = _ols_slope(lx[None, :], np.log(np.clip(bm, np.finfo(float).tiny, None)))
    a = (1 - level) / 2
    ci = (float(np.quantile(bslopes, a)), float(np.quantile(bslopes, 1 - a)))
    return SlopeFit(float(slope), float(icpt), ci, level, bslopes, xs, y, nonpos)


def slope_status(fit: SlopeFit, expected: float, tolerance: float) -> str:
    """Verdict of a slope check against ``expected ± tolerance``.

    Returns
    -------
    {"held", "failed", "inconclusive"}
        ``held``: the whole interval lies inside the band; ``failed``: the whole interval lies
        outside it; ``inconclusive``: the interval straddles a boundary of the band.
    """
    lo, hi = fit.ci
    blo, bhi = expected - tolerance, expected + tolerance
    if blo <= lo and hi <= bhi:
        return "held"
    if hi < blo or lo > bhi:
        return "failed"
    return "inconclusive"


class BoundFit(NamedTuple):
    """coef : (C1, C2, C3) of ``C1/T + C2·h/T + C3·h²`` (C2 already multiplies the trace factor if
    the caller scaled h by it); ci : (3, 2) bootstrap intervals at ``level``; rel_rmse :
    root-mean-square relative residual of the fit; boot : (n_boot, 3); nonnegative : whether the
    coefficients were constrained to be >= 0 (then a coefficient at 0 in every replicate is the
    constraint, not an estimate)."""

    coef: np.ndarray
    ci: np.ndarray
    rel_rmse: float
    boot: np.ndarray
    level: float = 0.95
    nonnegative: bool = True

    def as_dict(self) -> dict:
        names = ("C1", "C2", "C3")
        return {"coef": dict(zip(names, map(float, self.coef))),
                "ci": {k: [float(self.ci[i, 0]), float(self.ci[i, 1])] for i, k in enumerate(names)},
                "level": float(self.level), "rel_rmse": float(self.rel_rmse), "n_boot": int(self.boot.shape[0]),
                "nonnegative": bool(self.nonnegative)}


def _nnls_rel(Xd, y):
    w = 1.0 / y
    coef, _ = nnls(Xd * w[:, None], np.ones_like(y))
    return coef


def _lsq_rel(Xd, y):
    """Unconstrained least squares on relative residuals ``(X c − y)/y`` (a coefficient may come out negative)."""
    w = 1.0 / y
    coef, *_ = np.linalg.lstsq(Xd * w[:, None], np.ones_like(y), rcond=None)
    return coef


def fit_bound(h, T, samples: Sequence[np.ndarray], *, n_boot: int = 500, level: float = 0.95,
              rng: np.random.Generator | int | None = 0, nonnegative: bool = True) -> BoundFit:
    """Fit ``MSE(h, T) ≈ C1/T + C2·h/T + C3·h²`` on an (h, T) grid, with ``C_i >= 0`` or unconstrained.

    The fit is least squares on relative residuals ``(model − MSE)/MSE`` (the grid spans decades),
    non-negative (``nonnegative=True``, the default) or unconstrained, and the intervals come from
    resampling the realizations of every grid point independently.

    A non-negative fit cannot put a coefficient below 0: a term the data do not support sits at
    the constraint with a zero-width interval, which is no estimate of it. The unconstrained fit
    gives every coefficient a two-sided interval, so that a term of the wrong sign (an MSE that
    *falls* with h at fixed T beyond what C1/T explains, say) is resolved as such; it is what a
    claim that the three terms are present and positive is graded on.

    Parameters
    ----------
    h, T : (m,) array_like of positive float
        Step size and time ``T = Kh`` of each grid point.
    samples : sequence of m 1-D arrays
        Per-realization squared errors at each grid point (their mean is the MSE). Points that
        share realizations (several T of one run) are resampled independently; this widens
        nothing and only ignores the correlation between them.
    n_boot, level, rng : as :func:`fit_slope`
    nonnegative : bool
        Constrain the coefficients to be >= 0 (``scipy.optimize.nnls``); False: ordinary least
        squares (``numpy.linalg.lstsq``).

    Returns
    -------
    BoundFit

    Raises
    ------
    ValueError
        ``h``, ``T`` and ``samples`` of different lengths or fewer than 3 points; a non-positive
        ``h``, ``T`` or MSE.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> h = np.array([1e-3, 2e-3, 4e-3, 1e-3, 2e-3, 4e-3]); T = np.array([1., 1., 1., 4., 4., 4.])
    >>> mse = 1.0 / T - 50.0 * h / T + 10.0 * h**2           # a negative h/T term
    >>> cols = [m * rng.exponential(1.0, 4000) for m in mse]
    >>> bool(fit_bound(h, T, cols, n_boot=50, nonnegative=False).ci[1, 1] < 0)     # resolved below 0
    True
    >>> float(fit_bound(h, T, cols, n_boot=50).ci[1, 1])                      # the constraint
    0.0
    """
    hs = check_finite_array("h", h, ndim=1)
    Ts = check_finite_array("T", T, ndim=1)
    cols = [check_finite_array("samples[j]", s, ndim=1) for s in samples]
    if not (hs.size == Ts.size == len(cols)) or hs.size < 3:
        raise ValueError("h, T and samples must have the same length >= 3")
    if np.any(hs <= 0) or np.any(Ts <= 0):
        raise ValueError("h and T must be > 0")
    Xd = np.stack([1.0 / Ts, hs / Ts, hs**2], axis=1)
    y = np.array([c.mean() for c in cols])
    if np.any(y <= 0):
        raise ValueError("every MSE must be > 0")
    solve = _nnls_rel if nonnegative else _lsq_rel
    coef = solve(Xd, y)
    rel = (Xd @ coef - y) / y
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    bm = _boot_means(cols, False, check_positive_int("n_boot", n_boot), rng)
    boot = np.array([solve(Xd, np.clip(b, np.finfo(float).tiny, None)) for b in bm])
    a = (1 - level) / 2
    ci = np.stack([np.quantile(boot, a, axis=0), np.quantile(boot, 1 - a, axis=0)], axis=1)
    return BoundFit(coef, ci, float(np.sqrt(np.mean(rel**2))), boot, float(level), bool(nonnegative))


def se_from_interval(low: float, high: float, level: float) -> float:
    """The standard error a normal interval ``[low, high]`` at confidence ``level`` implies.

    ``(high − low) / (2 z)`` with ``z`` the two-sided normal quantile of ``level`` (1.96 at 0.95).

    Raises
    ------
    ValueError
        ``level`` outside (0, 1).

    Examples
    --------
    >>> round(se_from_interval(-1.96, 1.96, 0.95), 3)
    1.0
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return float((high - low) / (2.0 * norm.ppf(0.5 + level / 2.0)))
