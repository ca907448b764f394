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
from scipy.optimize import minimize_scalar, nnls
from scipy.stats import norm

from ..errors import check_finite_array, check_positive_int

__all__ = ["SlopeFit", "fit_slope", "BoundFit", "fit_bound", "fit_bound_finite_time", "finite_time_factor",
           "slope_status", "se_from_interval"]


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
    #: :func:`fit_bound_finite_time` only: the fitted correlation time τ (units of T), its interval and upper bound
    tau: float | None = None
    tau_ci: tuple | None = None
    tau_max: float | None = None

    def as_dict(self) -> dict:
        names = ("C1", "C2", "C3")
        out = {"coef": dict(zip(names, map(float, self.coef))),
               "ci": {k: [float(self.ci[i, 0]), float(self.ci[i, 1])] for i, k in enumerate(names)},
               "level": float(self.level), "rel_rmse": float(self.rel_rmse), "n_boot": int(self.boot.shape[0]),
               "nonnegative": bool(self.nonnegative)}
        if self.tau is not None:
            out.update(tau=float(self.tau), tau_ci=[float(v) for v in self.tau_ci], tau_max=float(self.tau_max))
        return out


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


def finite_time_factor(x):
    """``g(x) = 1 − (1 − e^{−x})/x``: the time average over ``T = xτ`` of a stationary process with
    autocorrelation ``e^{−t/τ}`` has variance ``2σ²τ·g(T/τ)/T`` (``→ 2σ²τ/T`` as ``T/τ → ∞``, ``→ σ²`` as
    ``T → 0``). Vectorized; ``x > 0``.

    Examples
    --------
    >>> [round(float(v), 4) for v in finite_time_factor(np.array([1e-6, 1.0, 100.0]))]
    [0.0, 0.3679, 0.99]
    """
    x = np.asarray(x, dtype=float)
    return 1.0 - (-np.expm1(-x)) / x


def fit_bound_finite_time(h, T, samples: Sequence[np.ndarray], *, tau_max: float, n_boot: int = 500,
                          level: float = 0.95, rng: np.random.Generator | int | None = 0) -> BoundFit:
    """Fit ``MSE(h, T) ≈ (C1 + C2·h)·g(T/τ)/T + C3·h²``, ``C_i >= 0``, ``τ ∈ (0, tau_max]``: the bound's form
    (:func:`fit_bound`) with the finite-``T`` factor :func:`finite_time_factor` of a correlation time ``τ``.

    Why: ``C1/T`` is the variance of a time average only once ``T`` is many correlation times; at ``T ≈ τ`` the
    variance is below it (at ``T → 0`` it is one draw's variance ``σ² = C1/(2τ)``, not ``∞``). A sampler that mixes
    slowly in units of ``T`` (an underdamped one at large friction) then misses the three-term form by tens of
    per cent on a grid that starts near ``τ`` without being biased. As ``τ → 0`` the model is :func:`fit_bound`'s
    (its misfit is never larger). ``tau_max`` keeps the factor from absorbing a non-vanishing bias: with
    ``τ ≫ T`` the term ``C1·g/T ≈ C1/(2τ)`` is constant in ``T`` and would fit a bias floor; with ``τ ≤ T_max/4`` it
    falls by at least ``g(4) = 0.81`` of its asymptote at the longest ``T`` (the audit's choice). ``τ`` is found by a
    bounded scalar search over ``log τ`` (the coefficients are a non-negative least-squares solve for each
    ``τ``); the bootstrap repeats both.

    Parameters
    ----------
    h, T, samples, n_boot, level, rng : as :func:`fit_bound`
    tau_max : float > 0
        Upper bound on ``τ`` (units of ``T``).

    Returns
    -------
    BoundFit
        With ``tau``, ``tau_ci`` (bootstrap interval) and ``tau_max`` set; ``rel_rmse`` is this model's misfit.

    Raises
    ------
    ValueError
        As :func:`fit_bound`; ``tau_max`` not a positive finite number.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> h = np.repeat([1e-3, 2e-3, 4e-3], 3); T = np.tile([0.05, 0.2, 0.8], 3); tau = 0.1
    >>> mse = 8.0 * tau * finite_time_factor(T / tau) / T + 1e4 * h**2      # no C1/T regime at T <= tau
    >>> cols = [m * rng.exponential(1.0, 4000) for m in mse]
    >>> round(fit_bound(h, T, cols, n_boot=20).rel_rmse, 2) > 0.3          # the plain form misses ...
    True
    >>> f = fit_bound_finite_time(h, T, cols, tau_max=0.2, n_boot=20)
    >>> bool(f.rel_rmse < 0.05 and 0.07 < f.tau < 0.13)                     # ... this one does, and finds tau
    True
    """
    hs = check_finite_array("h", h, ndim=1)
    Ts = check_finite_array("T", T, ndim=1)
    cols = [check_finite_array("samples[j]", s, ndim=1) for s in samples]
    if not (hs.size == Ts.size == len(cols)) or hs.size < 4:
        raise ValueError("h, T and samples must have the same length >= 4")
    if np.any(hs <= 0) or np.any(Ts <= 0):
        raise ValueError("h and T must be > 0")
    if not (np.isfinite(tau_max) and tau_max > 0):
        raise ValueError(f"tau_max must be a positive finite number, got {tau_max!r}")
    y = np.array([c.mean() for c in cols])
    if np.any(y <= 0):
        raise ValueError("every MSE must be > 0")
    lo = float(np.log(Ts.min() * 1e-4))   # g(T/τ) = 1 − 1e-4 there: the plain form
    hi = float(np.log(tau_max))

    def design(tau):
        gT = finite_time_factor(Ts / tau) / Ts
        return np.stack([gT, hs * gT, hs**2], axis=1)

    def misfit(log_tau, yy):
        Xd = design(np.exp(log_tau))
        c = _nnls_rel(Xd, yy)
        return float(np.sqrt(np.mean(((Xd @ c - yy) / yy) ** 2)))

    def solve(yy):
        if hi <= lo:
            return float(np.exp(hi))
        grid = np.linspace(lo, hi, 25)   # a coarse scan first: the misfit need not be unimodal in log τ
        j = int(np.argmin([misfit(v, yy) for v in grid]))
        a, b = grid[max(j - 1, 0)], grid[min(j + 1, grid.size - 1)]
        r = minimize_scalar(misfit, bounds=(a, b), args=(yy,), method="bounded", options={"xatol": 1e-3})
        best = min((r.x, grid[j]), key=lambda v: misfit(v, yy))
        return float(np.exp(best))

    tau = solve(y)
    Xd = design(tau)
    coef = _nnls_rel(Xd, y)
    rel = (Xd @ coef - y) / y
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    bm = _boot_means(cols, False, check_positive_int("n_boot", n_boot), rng)
    boot, btau = [], []
    for b in bm:
        b = np.clip(b, np.finfo(float).tiny, None)
        t = solve(b)
        btau.append(t)
        boot.append(_nnls_rel(design(t), b))
    boot, btau = np.array(boot), np.array(btau)
    a = (1 - level) / 2
    ci = np.stack([np.quantile(boot, a, axis=0), np.quantile(boot, 1 - a, axis=0)], axis=1)
    tau_ci = (float(np.quantile(btau, a)), float(np.quantile(btau, 1 - a)))
    return BoundFit(coef, ci, float(np.sqrt(np.mean(rel**2))), boot, float(level), True, float(tau), tau_ci,
                    float(tau_max))


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
