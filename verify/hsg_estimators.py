"""Gradient estimators of HSG-HMC and SRVR-HMC: the hybrid estimator (7) and the recursive estimator.

Both reuse the history of the chain, so their state carries the previous position ``x^(k-1)`` and
the previous estimate ``g^(k-1)``. They follow the shape of :mod:`verify.estimators`::

    est_state = estimator.init(target, position, rng)
    estimate  = estimator(est_state, rng, target, position, context)

and count per-datum gradient evaluations per chain (a data pass is ``n`` of them). With the
exponential integrator of :mod:`verify.exponential` they give the samplers of the paper:
:func:`hsg_hmc` (Algorithm 1) and :func:`srvr_hmc`.

The simple stochastic gradient of the seed's notation (2) is, for a finite sum
``f = V_0 + Σ_{i=1}^n V_i``, ``∇F(x, ξ) = ∇V_0(x) + n ∇V_ξ(x)`` with ``ξ`` uniform on ``{0..n-1}``.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: eq. (7) (hybrid estimator), Algorithm 1, Lemma 2,
Lemma 3 / Theorem 1 (``ρ_{k+1} = 1/(k+1)``), Corollary 2 (``ρ_{k+1} = 1/(mod(k, ⌈η⁻¹⌉) + 1)``), the
SRVR-HMC estimator ``g_b^(k)`` with its reset every ``L`` iterations from a batch of size ``B_0``
(§ "Stochastic Gradient Hamiltonian Monte Carlo Methods"), Remark 2.
Zou, Xu & Gu (2019), "Stochastic gradient Hamiltonian Monte Carlo methods with recursive variance
reduction", NeurIPS (SRVR-HMC), as cited in the seed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .errors import check_positive, check_positive_int
from .estimators import GradientEstimate, StepContext

__all__ = ["RHO_SCHEDULES", "HybridState", "RecursiveState", "HybridGradient", "RecursiveGradient",
           "hsg_hmc", "srvr_hmc", "rho_value", "periodic_reset_period"]

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
    """
    if schedule == "harmonic":
        return 1.0 / k
    if schedule == "periodic":
        return 1.0 / (((k - 1) % period) + 1)
    return float(constant)


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


def _check_batch_vs_n(target, name, value):
    if value > target.n:
        raise ValueError(f"{name} must be <= n = {target.n}, got {value}")


def _unbiased(rng, target, position, batch_size):
    """``(1/b) Σ_j ∇F(x, ξ_j)``, ``ξ_j`` i.i.d. uniform; the same random draws as ``UniformMinibatch``."""
    idx = rng.integers(0, target.n, size=(position.shape[0], batch_size))
    g = target.prior_gradient(position) + (target.n / batch_size) * target.data_gradients(position, idx).sum(axis=1)
    return idx, g


@dataclass(frozen=True)
class HybridGradient:
    """HSG-HMC's hybrid estimator (7), one fresh sample per iteration.

    ``g^(k) = ρ_k ∇F(x^(k), ξ_k) + (1 − ρ_k)(g^(k−1) + ∇F(x^(k), ξ_k) − ∇F(x^(k−1), ξ_k))``

    Parameters
    ----------
    schedule : {"harmonic", "periodic", "constant"}, default "periodic"
        See :func:`rho_value`. The paper's experiments use ``"periodic"``.
    step_size : float or None
        ``η``; required for ``"periodic"`` (the period is ``⌈1/η⌉``); :func:`hsg_hmc` fills it in.
    rho : float or None
        The constant weight in [0, 1] for ``"constant"``.
    batch_size : int, default 1
        Samples ``ξ`` per iteration (1 in the paper; the same indices enter both terms of (7)).
    decouple_samples : bool, default False
        A *planted bug* for negative controls only: the two gradients at ``x^(k)`` and ``x^(k−1)``
        use independent samples, which destroys the variance reduction of the difference term.

    Raises
    ------
    ValueError
        Unknown ``schedule``; ``step_size`` missing or ``<= 0`` for ``"periodic"``; ``rho`` missing or
        outside [0, 1] for ``"constant"``; ``batch_size < 1``; at ``init``, ``batch_size > n``.

    Notes
    -----
    The initial estimate ``g^(0)`` is an unbiased ``batch_size``-sample estimate (Algorithm 1,
    "Require"). Cost per chain: ``b`` at ``k = 0`` and whenever ``ρ_k = 1`` (the biased part has
    weight 0 and is not computed), ``2b`` otherwise. With ``ρ ≡ 1`` the random draws are exactly
    those of :class:`~verify.estimators.UniformMinibatch`, so HSG-HMC with ``ρ ≡ 1`` is SG-UL-MCMC
    step for step. ``info["rho"]`` reports the weight used.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: eq. (7), Algorithm 1, Lemmas 2–3, Theorem 1,
    Corollary 2.
    """

    schedule: str = "periodic"
    step_size: float | None = None
    rho: float | None = None
    batch_size: int = 1
    decouple_samples: bool = False

    def __post_init__(self):
        if self.schedule not in RHO_SCHEDULES:
            raise ValueError(f"schedule must be one of {RHO_SCHEDULES}, got {self.schedule!r}")
        check_positive_int("batch_size", self.batch_size)
        if self.schedule == "periodic":
            if self.step_size is None:
                raise ValueError("step_size (η) is required for the periodic schedule (period ⌈1/η⌉)")
            check_positive("step_size", self.step_size)
        if self.schedule == "constant":
            r = self.rho
            if r is None or isinstance(r, bool) or not isinstance(r, (int, float, np.floating)) or not (0.0 <= r <= 1.0):
                raise ValueError(f"rho must be a number in [0, 1] for the constant schedule, got {r!r}")

    @property
    def period(self) -> int | None:
        """``⌈1/η⌉`` for the periodic schedule, else ``None``."""
        return periodic_reset_period(self.step_size) if self.schedule == "periodic" else None

    def rho_at(self, k: int) -> float:
        """``ρ_k`` for ``k >= 1``."""
        return rho_value(self.schedule, k, self.period, self.rho)

    def init(self, target, position, rng=None) -> HybridState:
        _check_batch_vs_n(target, "batch_size", self.batch_size)
        return HybridState(0, None, None)

    def __call__(self, state: HybridState, rng, target, position, context=StepContext()):
        k = state.iteration
        b = self.batch_size
        if k == 0:
            _, g = _unbiased(rng, target, position, b)
            return GradientEstimate(g, b, HybridState(1, position.copy(), g), {"rho": 1.0})
        rho = self.rho_at(k)
        idx, g_u = _unbiased(rng, target, position, b)
        if rho == 1.0:
            return GradientEstimate(g_u, b, HybridState(k + 1, position.copy(), g_u), {"rho": rho})
        idx_prev = rng.integers(0, target.n, size=idx.shape) if self.decouple_samples else idx
        x_prev = state.previous_position
        g_prev_at_xi = target.prior_gradient(x_prev) + (target.n / b) * target.data_gradients(x_prev, idx_prev).sum(axis=1)
        g_b = state.previous_gradient + g_u - g_prev_at_xi
        g = rho * g_u + (1.0 - rho) * g_b
        return GradientEstimate(g, 2 * b, HybridState(k + 1, position.copy(), g), {"rho": rho})

    def settings(self) -> dict:
        return {"estimator": "hybrid", "schedule": self.schedule, "rho": self.rho, "period": self.period,
                "batch_size": self.batch_size, "decouple_samples": self.decouple_samples}


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
        _check_batch_vs_n(target, "outer_batch_size (B0)", self.outer_batch_size)
        return RecursiveState(0, None, None)

    def __call__(self, state: RecursiveState, rng, target, position, context=StepContext()):
        k = state.iteration
        if k % self.inner_loop_length == 0:
            if self.outer_batch_size == target.n:
                g, ev = target.full_gradient(position), target.n
            else:
                _, g = _unbiased(rng, target, position, self.outer_batch_size)
                ev = self.outer_batch_size
            return GradientEstimate(g, ev, RecursiveState(k + 1, position.copy(), g), {"reset": 1.0})
        B = self.inner_batch_size
        idx = rng.integers(0, target.n, size=(position.shape[0], B))
        x_prev = state.previous_position
        diff = target.data_gradients(position, idx).sum(axis=1) - target.data_gradients(x_prev, idx).sum(axis=1)
        g = state.previous_gradient + target.prior_gradient(position) - target.prior_gradient(x_prev) + (target.n / B) * diff
        return GradientEstimate(g, 2 * B, RecursiveState(k + 1, position.copy(), g), {"reset": 0.0})

    def settings(self) -> dict:
        return {"estimator": "srvr", "outer_batch_size": self.outer_batch_size,
                "inner_batch_size": self.inner_batch_size, "inner_loop_length": self.inner_loop_length}


def hsg_hmc(target, step_size, friction=None, schedule="periodic", rho=None, batch_size=1, u=1.0,
            decouple_samples=False):
    """HSG-HMC (Algorithm 1): the exponential integrator (4)–(6) with the hybrid estimator (7).

    Parameters
    ----------
    target : FiniteSumPotential
    step_size : float
        ``η`` > 0 (the method's one hyperparameter).
    friction : float or None
        ``γ`` > 0; ``None`` takes Remark 2's ``e^{−γη} = 0.9``.
    schedule, rho, batch_size, decouple_samples
        See :class:`HybridGradient`.
    u : float, default 1
        Inverse mass (Remark 2).

    Returns
    -------
    verify.exponential.ExponentialIntegrator

    Raises
    ------
    ValueError
        ``step_size <= 0`` (names ``step_size``), ``friction <= 0`` (names ``friction``), and the
        estimator's errors.
    """
    from .exponential import ExponentialIntegrator

    h = check_positive("step_size", step_size)
    if friction is not None:
        check_positive("friction", friction)
    est = HybridGradient(schedule, h, rho, batch_size, decouple_samples)
    return ExponentialIntegrator(target, h, friction, est, u, name="HSG-HMC")


def srvr_hmc(target, step_size, outer_batch_size, inner_batch_size=1, inner_loop_length=10, friction=None, u=1.0):
    """SRVR-HMC: the exponential integrator (4)–(6) with :class:`RecursiveGradient` (η, L, B, B0).

    Raises
    ------
    ValueError
        ``step_size <= 0``, ``friction <= 0``, ``B0 < B``, ``L < 1``, ``B < 1`` (each named).
    """
    from .exponential import ExponentialIntegrator

    h = check_positive("step_size", step_size)
    if friction is not None:
        check_positive("friction", friction)
    est = RecursiveGradient(outer_batch_size, inner_batch_size, inner_loop_length)
    return ExponentialIntegrator(target, h, friction, est, u, name="SRVR-HMC")
