"""What the checks of the audit share: the summary row, building the audited sampler, exact draws, the
exact linear law where the sampler exposes one, and the bootstrap slope of an error curve.

The sampler protocol of the audit (:class:`sgmcmc_verify.audit.protocol.AuditedSampler`): a factory
``factory(target, step_size, **params)`` returns an object with ``target``,
``init(position, momentum=None)`` and ``step(state, rng) -> (state, StepInfo)``; every check steps it
through :func:`sgmcmc_verify.runner.run_chains` (and :func:`sgmcmc_verify.runner.run_realizations` for independent
realizations), never by its own loop.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from sgmcmc_verify.analytic.linear_samplers import (LinearRecursion, minibatch_noise_covariance, sgld_recursion,
                                      underdamped_em_recursion)

from ..estimators.minibatch import FullGradient, UniformMinibatch
from ..integrators.overdamped import OverdampedEM
from ..integrators.preconditioners import IdentityPreconditioner
from ..integrators.underdamped import UnderdampedEM
from ..targets.gaussian import AnisotropicGaussianMeansTarget, GaussianMeansTarget
from .protocol import build, unwrap

__all__ = ["CheckResult", "STATUSES", "make_sampler", "init_state", "accepts", "exact_draws", "exact_recursion",
           "whitened_errors", "bootstrap_error_slope", "SlopeWithFloor"]

#: Verdicts of a summary row: ``pass`` (✓), ``flagged`` (a planted or real bug: the theory is violated),
#: ``warn`` (outside the expected band, not a proof of a bug), ``info`` (reported, nothing expected),
#: ``n/a`` (the check does not apply to this sampler), ``inconclusive`` (the design cannot decide).
STATUSES = ("pass", "flagged", "warn", "info", "n/a", "inconclusive")


@dataclass
class CheckResult:
    """One row of the summary table and the data behind it.

    check : str; measured : str; expected : str; status : one of :data:`STATUSES`; detail : str (the
    explicit verdict sentence); data : dict (numbers written to ``results/audit/<name>/<check>.json``).
    """

    check: str
    measured: str
    expected: str
    status: str
    detail: str
    data: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")

    def row(self) -> dict:
        return {"check": self.check, "measured": self.measured, "expected": self.expected, "status": self.status,
                "detail": self.detail}


def accepts(factory: Callable, name: str) -> bool:
    """Whether ``factory`` takes a keyword argument ``name`` (or ``**kwargs``)."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return True
    return any(p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values())


def make_sampler(factory: Callable, target, step_size: float, params: dict):
    """``factory(target, step_size, **params)`` wrapped in :class:`~sgmcmc_verify.audit.protocol.CheckedSampler`
    (every ``init``/``step`` result checked against the protocol).

    Raises
    ------
    sgmcmc_verify.audit.protocol.ProtocolError
        The factory cannot be called so, or the object built lacks ``init``, ``step`` or ``target``
        (one line naming the factory).
    """
    return build(factory, target, step_size, params)


def init_state(sampler, position, rng: np.random.Generator):
    """``sampler.init(position)``; a state with a momentum is re-initialized with ``momentum ~ N(0, I)``.

    The stationary momentum law of the underdamped samplers of the toolkit (unit mass, β = 1) is
    ``N(0, I)``; starting it there (with the position drawn from the target) leaves only the O(h) bias to
    relax during the burn-in.
    """
    state = sampler.init(position)
    if hasattr(state, "momentum"):
        state = sampler.init(position, rng.standard_normal(position.shape))
    return state


def exact_draws(target, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` exact draws ``(size, d)`` of a Gaussian target's posterior ``N(mean, cov)``."""
    L = np.linalg.cholesky(target.posterior_cov)
    return target.posterior_mean + rng.standard_normal((size, target.dim)) @ L.T


def _noise_cov(target, estimator) -> np.ndarray | None:
    d = target.dim
    if type(estimator) is FullGradient:
        return np.zeros((d, d))
    if type(estimator) is UniformMinibatch and (estimator.replace or estimator.batch_size == 1):
        Q0 = minibatch_noise_covariance(target.centers, estimator.batch_size)
        if type(target) is AnisotropicGaussianMeansTarget:
            P = np.diag(target.precision)
            return P @ Q0 @ P
        return Q0
    return None


def exact_recursion(sampler) -> LinearRecursion | None:
    """The exact linear law of ``sampler`` on its target, where the sampler exposes one; else ``None``.

    A sampler exposes a linear recursion when it is *exactly* (not a subclass of) the toolkit's
    :class:`~sgmcmc_verify.integrators.OverdampedEM` with the identity preconditioner or
    :class:`~sgmcmc_verify.integrators.UnderdampedEM`, with a uniform minibatch drawn with replacement (or
    ``b = 1``) or the full gradient, on a Gaussian-means target (isotropic or anisotropic). Subclasses
    (e.g. a test's planted bug) are audited by Monte Carlo only: their code is what is audited.

    Returns
    -------
    sgmcmc_verify.analytic.linear_samplers.LinearRecursion or None

    References
    ----------
    :mod:`sgmcmc_verify.analytic.linear_samplers` (EWSG seed ``000_8e0377c44e2ea3b8.txt``, eq. (3), Appendices E, H).
    """
    sampler = unwrap(sampler)
    target = getattr(sampler, "target", None)
    if type(target) not in (GaussianMeansTarget, AnisotropicGaussianMeansTarget):
        return None
    Q = _noise_cov(target, getattr(sampler, "estimator", None))
    if Q is None:
        return None
    if type(sampler) is OverdampedEM and type(sampler.preconditioner) is IdentityPreconditioner:
        return sgld_recursion(target.hessian, target.posterior_mean, Q, sampler.step_size, sampler.inverse_temperature)
    if type(sampler) is UnderdampedEM and sampler.inverse_temperature == 1.0:
        return underdamped_em_recursion(target.hessian, target.posterior_mean, Q, sampler.step_size,
                                        sampler.friction, sampler.noise_scale)
    return None


def whitened_errors(mean, cov, target_mean, target_cov) -> tuple[float, float]:
    """Mean and covariance errors in the target's own units.

    ``e_mean = ‖Σ^{-1/2}(m − μ)‖`` (posterior standard deviations) and
    ``e_cov = ‖Σ^{-1/2} C Σ^{-1/2} − I‖_F`` (relative), with ``Σ = target_cov`` and ``μ = target_mean``.
    """
    w, V = np.linalg.eigh(target_cov)
    Wi = V @ np.diag(w**-0.5) @ V.T
    return float(np.linalg.norm(Wi @ (mean - target_mean))), float(np.linalg.norm(Wi @ cov @ Wi - np.eye(len(w))))


@dataclass
class SlopeWithFloor:
    """An error curve ``e(h)`` with its Monte Carlo floor and its log–log slope over the points above it.

    x : (m,) grid; err : (m,) measured errors; floor : (m,) the estimation floor (the error an exact
    sampler would show: bootstrap mean of ``‖v* − v‖`` for the signed error vector v); above : (m,) bool, ``err > 2·floor``;
    slope, ci : fitted order over the points above the floor (NaN when fewer than 2); boot : bootstrap
    slopes.
    """

    x: np.ndarray
    err: np.ndarray
    floor: np.ndarray
    above: np.ndarray
    slope: float
    ci: tuple
    n_fit: int
    boot: np.ndarray = field(repr=False, default=None)

    def as_dict(self) -> dict:
        return {"x": self.x.tolist(), "err": self.err.tolist(), "floor": self.floor.tolist(),
                "above_floor": self.above.tolist(), "slope": _num(self.slope), "ci_low": _num(self.ci[0]),
                "ci_high": _num(self.ci[1]),
                "n_fit": self.n_fit}


def _num(x):
    """A float for JSON, ``None`` where it is not finite (an undefined slope)."""
    return float(x) if np.isfinite(x) else None


def _ols(lx, ly):
    lxc = lx - lx.mean(axis=-1, keepdims=True)
    return np.sum(lxc * (ly - ly.mean(axis=-1, keepdims=True)), axis=-1) / np.sum(lxc**2, axis=-1)


def bootstrap_error_slope(x, per_chain: list, vec_fn: Callable[[Any, Any], np.ndarray], *, n_boot: int = 400,
                          level: float = 0.95, rng: np.random.Generator | int = 0,
                          floor_factor: float = 2.0) -> SlopeWithFloor:
    """Log–log slope of an error curve ``e_j = ‖v_j‖`` whose signed error vectors are functions of averages
    over realizations, with the Monte Carlo floor of every point.

    Parameters
    ----------
    x : (m,) array_like of float > 0
        The grid (h, or b).
    per_chain : list of m tuples of arrays
        Point j's per-realization statistics; each array has the realizations on axis 0.
    vec_fn : callable ``(tuple of arrays, idx or None) -> (k,) ndarray``
        The signed error vector (estimate − truth, in the units whose Euclidean norm is the error) built
        from the rows ``idx`` of the point's arrays (``None``: all rows).
    n_boot, level, rng :
        Bootstrap over realizations, independently at every grid point.
    floor_factor : float, default 2
        A point is above the floor when its error exceeds ``floor_factor`` × its floor.

    Returns
    -------
    SlopeWithFloor
        ``floor_j`` is the bootstrap mean of ``‖v*_j − v_j‖``: the size of the estimate's own sampling
        noise, i.e. the error an exact sampler would show with the same number of realizations. The
        slope and its percentile interval are fitted on the points above the floor (log–log OLS on the
        errors; in every bootstrap replicate on the replicate's errors ``‖v*_j‖``).

    Raises
    ------
    ValueError
        Non-positive ``x`` or mismatched lengths.
    """
    xs = np.asarray(x, dtype=float)
    if xs.ndim != 1 or xs.size != len(per_chain) or np.any(xs <= 0):
        raise ValueError(f"x must be {len(per_chain)} numbers > 0, got {x!r}")
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    vec = [np.asarray(vec_fn(pc, None), dtype=float) for pc in per_chain]
    err = np.array([np.linalg.norm(v) for v in vec])
    boot = np.empty((n_boot, xs.size))
    floor = np.empty(xs.size)
    for j, pc in enumerate(per_chain):
        R = pc[0].shape[0]
        vb = np.array([vec_fn(pc, rng.integers(0, R, R)) for _ in range(n_boot)])
        boot[:, j] = np.linalg.norm(vb, axis=1)
        floor[j] = np.mean(np.linalg.norm(vb - vec[j], axis=1))
    above = err > floor_factor * floor
    if above.sum() >= 2:
        lx = np.log(xs[above])
        slope = float(_ols(lx, np.log(err[above])))
        bs = _ols(lx[None, :], np.log(np.clip(boot[:, above], np.finfo(float).tiny, None)))
        a = (1 - level) / 2
        ci = (float(np.quantile(bs, a)), float(np.quantile(bs, 1 - a)))
    else:
        slope, ci, bs = float("nan"), (float("nan"), float("nan")), np.empty(0)
    return SlopeWithFloor(xs, err, floor, above, slope, ci, int(above.sum()), bs)
