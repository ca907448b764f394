"""Variance-reduced gradient estimators: SVRG's control variate, vrSG-MCMC's two-minibatch control variate, HSG-HMC's hybrid estimator (7), SRVR's recursion.

Each keeps an anchor (a snapshot, or the previous iterate and estimate) and corrects a fresh
minibatch by the difference of per-datum gradients at the current point and at the anchor, with
the *same* indices in both terms. SVRG and the hybrid estimator wrap a
:class:`~sgmcmc_verify.estimators.minibatch.UniformMinibatch` for their fresh samples; SRVR's reset batch
``B_0`` and inner batch ``B`` are its own hyperparameters. The correction terms keep the
arithmetic of each method's reference implementation: SVRG sums the per-datum differences, SRVR
differences the sums.

References
----------
vrSG-MCMC, seed ``002_245183f35db8d795.txt``: Algorithm 1, the estimator written with inclusion
indicators before Lemma 5 and in (10)–(11) of the appendix, Theorem 6, Remarks 7–8.
Dubey et al. (2016), "Variance reduction in stochastic gradient Langevin dynamics" (SVRG-LD), as
cited in EWSG §5 (seed ``000_8e0377c44e2ea3b8.txt``).
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: eq. (7) (hybrid estimator), Algorithm 1, Lemma 2,
Lemma 3 / Theorem 1 (``ρ_{k+1} = 1/(k+1)``), Corollary 2 (``ρ_{k+1} = 1/(mod(k, ⌈η⁻¹⌉) + 1)``), the
SRVR-HMC estimator ``g_b^(k)`` with its reset every ``L`` iterations from a batch of size ``B_0``,
Remark 2. Zou, Xu & Gu (2019), "Stochastic gradient Hamiltonian Monte Carlo methods with recursive
variance reduction", NeurIPS (SRVR-HMC), as cited in the seed.
The simple stochastic gradient of the HSG-HMC seed's notation (2) is, for a finite sum
``f = V_0 + Σ_{i=1}^n V_i``, ``∇F(x, ξ) = ∇V_0(x) + n ∇V_ξ(x)`` with ``ξ`` uniform on ``{0..n-1}``.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..errors import check_positive, check_positive_int
from .base import (GradientEstimate, StepContext, check_batch, correction_sum, minibatch_gradient, sum_data_gradients,
                   uniform_indices)
from .minibatch import UniformMinibatch

__all__ = ["SVRGControlVariate", "TwoMinibatchControlVariate", "VRSGState", "RHO_SCHEDULES", "HybridState", "RecursiveState", "HybridGradient",
           "RecursiveGradient", "rho_value", "periodic_reset_period"]


def _check_base(base):
    if not isinstance(base, UniformMinibatch):
        raise ValueError(f"base must be a UniformMinibatch (the fresh samples of each step), got {base!r}")


@dataclass(frozen=True)
class SVRGControlVariate:
    """SVRG control variate (Dubey et al. 2016): ``ĝ = ∇V(θ̃) + (n/b) Σ_j (∇V_{I_j}(θ) − ∇V_{I_j}(θ̃))``.

    Every ``epoch_length`` steps the snapshot ``θ̃ ← θ`` and its full gradient are refreshed
    (``n`` evaluations, counted in the step that does it); each step spends ``2b`` more.

    Parameters
    ----------
    base : UniformMinibatch, default ``UniformMinibatch(1)``
        The fresh minibatch ``I`` of every step (its size is ``b``).
    epoch_length : int or None, default None
        Steps between snapshots; ``None`` means ``⌈n / b⌉`` (one data pass of minibatches), the
        choice we make because EWSG §5.1 does not state it.

    Notes
    -----
    On :class:`~sgmcmc_verify.targets.GaussianMeansTarget` every ``V_i`` has the same Hessian, so the
    control variate is *exact* (``ĝ = ∇V(θ)``): SVRG-LD is full-gradient Langevin there, paying
    ``n + 2b·epoch_length`` evaluations per epoch.
    """

    base: UniformMinibatch = field(default_factory=UniformMinibatch)
    epoch_length: int | None = None

    def __post_init__(self):
        _check_base(self.base)
        if self.epoch_length is not None:
            check_positive_int("epoch_length", self.epoch_length)

    @property
    def batch_size(self) -> int:
        return self.base.batch_size

    def _m(self, target) -> int:
        return self.epoch_length if self.epoch_length is not None else -(-target.n // self.batch_size)

    def init(self, target, position, rng=None):
        self.base.init(target, position)
        # (snapshot, full gradient at snapshot, steps since snapshot); snapshot taken at first call
        return (None, None, self._m(target))

    def __call__(self, state, rng, target, position, context=StepContext()):
        snap, snap_grad, since = state
        evals = 2 * self.batch_size
        if since >= self._m(target):
            snap = position.copy()
            snap_grad = target.full_gradient(snap)
            since = 0
            evals += target.n
        idx = self.base.draw(rng, target, position.shape[0])
        diff = correction_sum(target, position, snap, idx)
        g = snap_grad + target.prior_gradient(position) - target.prior_gradient(snap) + (target.n / self.batch_size) * diff
        return GradientEstimate(g, evals, (snap, snap_grad, since + 1), {})

    def settings(self) -> dict:
        return {"estimator": "svrg", "batch_size": self.batch_size, "epoch_length": self.epoch_length}


class VRSGState(NamedTuple):
    """State of :class:`TwoMinibatchControlVariate`.

    anchor : (chains, d) ndarray or None       ``θ̃``, the position at the last refresh
    anchor_gradient : (chains, d) ndarray or None   ``g̃ = (N/n1) Σ_{i∈π} ∇V_i(θ̃)`` (data part only)
    since : int                                  steps since the last refresh
    """

    anchor: np.ndarray | None
    anchor_gradient: np.ndarray | None
    since: int


@dataclass(frozen=True)
class TwoMinibatchControlVariate:
    """vrSG-MCMC's estimator (Algorithm 1): a stale minibatch gradient corrected by a fresh smaller one.

    Every ``update_interval`` steps (at ``l mod m = 0``) the anchor ``θ̃ ← θ_l`` and
    ``g̃ = (N/n1) Σ_{i∈π} ∇V_i(θ̃)`` from a minibatch ``π`` of size ``n1`` are refreshed; every step
    draws a minibatch ``π̃`` of size ``n2`` and returns (in the potential convention ``V = V_0 + Σ V_i``)

    ``g_{l+1} = ∇V_0(θ_l) + g̃ + (N/n2) Σ_{i∈π̃} (∇V_i(θ_l) − ∇V_i(θ̃))``,

    the same indices entering both terms of the correction. It is unbiased given ``θ_l`` and ``θ̃``
    for either sampling scheme (eq. (10): ``E z_i = n2/N``, ``E b_i = n1/N``). It wraps any
    integrator: :func:`~sgmcmc_verify.samplers.vrsg_ld` (SGLD) and :func:`~sgmcmc_verify.samplers.vrsg_hmc` (SGHMC).

    Parameters
    ----------
    current : UniformMinibatch
        The fresh minibatch ``π̃`` of every step; its ``batch_size`` is ``n2`` and its ``replace``
        the sampling scheme.
    anchor : UniformMinibatch
        The minibatch ``π`` of the old gradient; its ``batch_size`` is ``n1``. With ``n1 = N`` and
        ``replace=False`` the old gradient is the full data gradient and the estimator is SVRG's
        (Dubey et al. 2016; Remark 7), i.e. :class:`SVRGControlVariate` with ``epoch_length = m``.
    update_interval : int
        ``m >= 1``.

    Raises
    ------
    ValueError
        ``current`` or ``anchor`` not a :class:`UniformMinibatch`, ``update_interval`` not an integer
        >= 1; at ``init``, a batch larger than ``n``.

    Warns
    -----
    UserWarning
        When ``n1 <= n2``: Theorem 6's ``λ_l`` is then not positive and the bound is no better than
        plain SG-MCMC (the paper requires ``n1 > n2``); the estimator still runs.

    Notes
    -----
    Cost in per-datum gradient evaluations per chain: ``2·n2`` every step (``∇V_i`` at ``θ_l`` and at
    ``θ̃``) plus ``n1`` at each refresh, i.e. ``2·n2 + n1/m`` on average. Remark 8 of the paper counts
    ``n1/m + n2`` (the gradient at the anchor of a fresh index is not free unless stored); data
    passes here count every evaluation.

    Examples
    --------
    >>> from sgmcmc_verify.targets import gaussian_means_target
    >>> t = gaussian_means_target()
    >>> est = TwoMinibatchControlVariate(UniformMinibatch(2, replace=False), UniformMinibatch(10, replace=False), 5)
    >>> x = np.zeros((3, 2))
    >>> e = est(est.init(t, x), np.random.default_rng(0), t, x)
    >>> e.gradient.shape, e.evaluations        # first step refreshes the anchor: 2·2 + 10
    ((3, 2), 14)
    """

    current: UniformMinibatch
    anchor: UniformMinibatch
    update_interval: int

    def __post_init__(self):
        for name in ("current", "anchor"):
            if not isinstance(getattr(self, name), UniformMinibatch):
                raise ValueError(f"{name} must be a UniformMinibatch, got {getattr(self, name)!r}")
        check_positive_int("update_interval", self.update_interval)
        if self.anchor.batch_size <= self.current.batch_size:
            warnings.warn(f"vrSG-MCMC with n1 = {self.anchor.batch_size} <= n2 = {self.current.batch_size}: "
                          "Theorem 6 needs n1 > n2 for a variance reduction (lambda_l > 0)", stacklevel=2)

    def init(self, target, position, rng=None):
        self.current.init(target, position)
        self.anchor.init(target, position)
        return VRSGState(None, None, self.update_interval)  # the first call refreshes (l = 0)

    def __call__(self, state, rng, target, position, context=StepContext()):
        anchor, anchor_grad, since = state
        evals = 2 * self.current.batch_size
        if since >= self.update_interval:
            anchor = position.copy()
            big = self.anchor.draw(rng, target, position.shape[0])
            anchor_grad = (target.n / self.anchor.batch_size) * sum_data_gradients(target, anchor, big)
            since = 0
            evals += self.anchor.batch_size
        idx = self.current.draw(rng, target, position.shape[0])
        diff = correction_sum(target, position, anchor, idx)
        g = target.prior_gradient(position) + anchor_grad + (target.n / self.current.batch_size) * diff
        return GradientEstimate(g, evals, VRSGState(anchor, anchor_grad, since + 1), {})

    def settings(self) -> dict:
        return {"estimator": "vrsg", "n1": self.anchor.batch_size, "n2": self.current.batch_size,
                "update_interval": self.update_interval, "replace_n1": bool(self.anchor.replace),
                "replace_n2": bool(self.current.replace)}


#: The weight schedules of the hybrid estimator: Theorem 1, Corollary 2, and a constant (lemma study).
RHO_SCHEDULES = ("harmonic", "periodic", "constant")


def periodic_reset_period(step_size) -> int:
    """``⌈1/η⌉``, the reset period of Corollary 2.

    Raises
    ------
    ValueError
        If ``step_size`` is not a finite number > 0.
    """
    return int(math.ceil(1.0 / check_positive("step_size", step_size) - 1e-12))


def rho_value(schedule: str, k: int, period: int | None = None, constant: float | None = None) -> float:
    """The weight ``ρ_k`` used for the estimate ``g^(k)`` at iteration ``k >= 1``.

    Parameters
    ----------
    schedule : {"harmonic", "periodic", "constant"}
        ``"harmonic"``: ``ρ_k = 1/k`` (Lemma 3, Theorem 1, ``ρ_{k+1} = 1/(k+1)``);
        ``"periodic"``: ``ρ_{k+1} = 1/(mod(k, P) + 1)``, ``P = ⌈1/η⌉`` (Corollary 2), i.e. ``ρ_k = 1``
        at ``k = 1, P+1, 2P+1, ...``;
        ``"constant"``: ``ρ_k = constant`` (``0`` is SRVR's recursion with ``B = 1`` and no reset,
        ``1`` is plain one-sample SG-UL-MCMC).
    k : int
        Iteration index ``k >= 1``.
    period : int, only for ``"periodic"``
    constant : float in [0, 1], only for ``"constant"``

    Returns
    -------
    float

    Raises
    ------
    ValueError
        An unknown ``schedule``, ``k < 1``, a missing ``period`` for ``"periodic"`` or a missing
        ``constant`` for ``"constant"``.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    if schedule == "harmonic":
        return 1.0 / k
    if schedule == "periodic":
        if period is None:
            raise ValueError("period is required for the periodic schedule")
        return 1.0 / (((k - 1) % period) + 1)
    if schedule == "constant":
        if constant is None:
            raise ValueError("constant is required for the constant schedule")
        return float(constant)
    raise ValueError(f"schedule must be one of {RHO_SCHEDULES}, got {schedule!r}")


class HybridState(NamedTuple):
    """State of :class:`HybridGradient` per call.

    iteration : int              ``k`` of the estimate the next call returns
    previous_position : (chains, d) ndarray or None    ``x^(k-1)``
    previous_gradient : (chains, d) ndarray or None    ``g^(k-1)``
    """

    iteration: int
    previous_position: np.ndarray | None
    previous_gradient: np.ndarray | None


class RecursiveState(NamedTuple):
    """State of :class:`RecursiveGradient`: iteration ``k``, ``x^(k-1)``, ``g^(k-1)``."""

    iteration: int
    previous_position: np.ndarray | None
    previous_gradient: np.ndarray | None


@dataclass(frozen=True)
class HybridGradient:
    """HSG-HMC's hybrid estimator (7), one fresh sample per iteration.

    ``g^(k) = ρ_k ∇F(x^(k), ξ_k) + (1 − ρ_k)(g^(k−1) + ∇F(x^(k), ξ_k) − ∇F(x^(k−1), ξ_k))``

    Parameters
    ----------
    base : UniformMinibatch, default ``UniformMinibatch(1)``
        The fresh samples ``ξ`` of every iteration (1 in the paper); the same indices enter both
        terms of (7).
    schedule : {"harmonic", "periodic", "constant"}, default "periodic"
        See :func:`rho_value`. The paper's experiments use ``"periodic"``.
    step_size : float or None
        ``η``; required for ``"periodic"`` (the period is ``⌈1/η⌉``); :func:`~sgmcmc_verify.samplers.hsg_hmc`
        fills it in.
    rho : float or None
        The constant weight in [0, 1] for ``"constant"``.

    Raises
    ------
    ValueError
        Unknown ``schedule``; ``step_size`` missing or ``<= 0`` for ``"periodic"``; ``rho`` missing or
        outside [0, 1] for ``"constant"``; a ``base`` that is not a uniform minibatch; at ``init``,
        ``batch_size > n``.

    Notes
    -----
    The initial estimate ``g^(0)`` is an unbiased ``batch_size``-sample estimate (Algorithm 1,
    "Require"). Cost per chain: ``b`` at ``k = 0`` and whenever ``ρ_k = 1`` (the biased part has
    weight 0 and is not computed), ``2b`` otherwise. With ``ρ ≡ 1`` the random draws are exactly
    those of :class:`~sgmcmc_verify.estimators.UniformMinibatch`, so HSG-HMC with ``ρ ≡ 1`` is SG-UL-MCMC
    step for step. ``info["rho"]`` reports the weight used.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: eq. (7), Algorithm 1, Lemmas 2–3, Theorem 1,
    Corollary 2.
    """

    base: UniformMinibatch = field(default_factory=UniformMinibatch)
    schedule: str = "periodic"
    step_size: float | None = None
    rho: float | None = None

    def __post_init__(self):
        _check_base(self.base)
        if self.schedule not in RHO_SCHEDULES:
            raise ValueError(f"schedule must be one of {RHO_SCHEDULES}, got {self.schedule!r}")
        if self.schedule == "periodic":
            if self.step_size is None:
                raise ValueError("step_size (η) is required for the periodic schedule (period ⌈1/η⌉)")
            check_positive("step_size", self.step_size)
        if self.schedule == "constant":
            r = self.rho
            if r is None or isinstance(r, bool) or not isinstance(r, (int, float, np.floating)) or not (0.0 <= r <= 1.0):
                raise ValueError(f"rho must be a number in [0, 1] for the constant schedule, got {r!r}")

    @property
    def batch_size(self) -> int:
        return self.base.batch_size

    @property
    def period(self) -> int | None:
        """``⌈1/η⌉`` for the periodic schedule, else ``None``."""
        return periodic_reset_period(self.step_size) if self.schedule == "periodic" else None

    def rho_at(self, k: int) -> float:
        """``ρ_k`` for ``k >= 1``."""
        return rho_value(self.schedule, k, self.period, self.rho)

    def init(self, target, position, rng=None) -> HybridState:
        self.base.init(target, position)
        return HybridState(0, None, None)

    def _previous_indices(self, rng, target, idx):
        """The samples at which ``∇F(x^(k−1), ·)`` is evaluated: the same ``ξ_k`` as at ``x^(k)`` (7)."""
        return idx

    def __call__(self, state: HybridState, rng, target, position, context=StepContext()):
        k = state.iteration
        b = self.batch_size
        idx = self.base.draw(rng, target, position.shape[0])
        g_u = self.base.gradient_at(target, position, idx)
        if k == 0:
            return GradientEstimate(g_u, b, HybridState(1, position.copy(), g_u), {"rho": 1.0})
        rho = self.rho_at(k)
        if rho == 1.0:
            return GradientEstimate(g_u, b, HybridState(k + 1, position.copy(), g_u), {"rho": rho})
        x_prev = state.previous_position
        g_prev_at_xi = self.base.gradient_at(target, x_prev, self._previous_indices(rng, target, idx))
        g_b = state.previous_gradient + g_u - g_prev_at_xi
        g = rho * g_u + (1.0 - rho) * g_b
        return GradientEstimate(g, 2 * b, HybridState(k + 1, position.copy(), g), {"rho": rho})

    def settings(self) -> dict:
        return {"estimator": "hybrid", "schedule": self.schedule, "rho": self.rho, "period": self.period,
                "batch_size": self.batch_size}


@dataclass(frozen=True)
class RecursiveGradient:
    """SRVR-HMC's recursive estimator with a periodic large-batch reset.

    At ``k ≡ 0 (mod L)``: ``g^(k) = ∇V_0(x^(k)) + (n/B_0) Σ_{i∈B_0} ∇V_i(x^(k))``; otherwise
    ``g^(k) = g^(k−1) + (1/B) Σ_{i∈B} (∇F(x^(k), ξ_i) − ∇F(x^(k−1), ξ_i))``.

    Parameters
    ----------
    outer_batch_size : int
        ``B_0`` >= ``B``. Indices are drawn i.i.d. uniform (with replacement) when ``B_0 < n``;
        ``B_0 = n`` is the exact full gradient (``n`` evaluations) — our choice, as the seed does not
        say how the reset batch is drawn.
    inner_batch_size : int
        ``B`` >= 1; the same indices enter both gradients of the difference.
    inner_loop_length : int
        ``L`` >= 1 (``L = 1`` resets every iteration: a ``B_0``-minibatch SG-UL-MCMC).

    Raises
    ------
    ValueError
        ``inner_batch_size < 1`` (names ``B``), ``inner_loop_length < 1`` (names ``L``),
        ``outer_batch_size < inner_batch_size`` (names ``B0``); at ``init``, ``B_0 > n``.

    Notes
    -----
    Cost per chain: ``B_0`` (or ``n``) at a reset, ``2B`` otherwise; the four hyperparameters of
    SRVR-HMC are ``(η, L, B, B_0)`` (the step size lives in the integrator).

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``, the estimator ``g_b^(k)`` and its reset; Zou, Xu & Gu
    (2019), SRVR-HMC.
    """

    outer_batch_size: int
    inner_batch_size: int = 1
    inner_loop_length: int = 10

    def __post_init__(self):
        for name, sym, v in (("inner_batch_size", "B", self.inner_batch_size),
                             ("inner_loop_length", "L", self.inner_loop_length),
                             ("outer_batch_size", "B0", self.outer_batch_size)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} ({sym}) must be an integer >= 1, got {v!r}")
        if self.outer_batch_size < self.inner_batch_size:
            raise ValueError(f"outer_batch_size (B0) must be >= inner_batch_size (B) = {self.inner_batch_size}, "
                             f"got {self.outer_batch_size}")

    def init(self, target, position, rng=None) -> RecursiveState:
        check_batch(target, "outer_batch_size (B0)", self.outer_batch_size)
        return RecursiveState(0, None, None)

    def __call__(self, state: RecursiveState, rng, target, position, context=StepContext()):
        k = state.iteration
        if k % self.inner_loop_length == 0:
            if self.outer_batch_size == target.n:
                g, ev = target.full_gradient(position), target.n
            else:
                idx = uniform_indices(rng, target.n, position.shape[0], self.outer_batch_size)
                g, ev = minibatch_gradient(target, position, idx), self.outer_batch_size
            return GradientEstimate(g, ev, RecursiveState(k + 1, position.copy(), g), {"reset": 1.0})
        B = self.inner_batch_size
        idx = uniform_indices(rng, target.n, position.shape[0], B)
        x_prev = state.previous_position
        diff = sum_data_gradients(target, position, idx) - sum_data_gradients(target, x_prev, idx)
        g = state.previous_gradient + target.prior_gradient(position) - target.prior_gradient(x_prev) + (target.n / B) * diff
        return GradientEstimate(g, 2 * B, RecursiveState(k + 1, position.copy(), g), {"reset": 0.0})

    def settings(self) -> dict:
        return {"estimator": "srvr", "outer_batch_size": self.outer_batch_size,
                "inner_batch_size": self.inner_batch_size, "inner_loop_length": self.inner_loop_length}
