"""Integrators composed with a gradient estimator: SGLD, pSGLD, SGHMC, EWSG, FG, SVRG-LD.

A sampler is ``integrator ∘ estimator``; the estimators are in :mod:`verify.estimators`. Every
sampler is vectorized over chains (arrays ``(chains, d)`` float64), takes its randomness only from
the ``rng`` argument, and follows the init/step split::

    state = sampler.init(position, momentum=None)
    state, info = sampler.step(state, rng)

``info`` is a :class:`StepInfo` with the per-chain gradient evaluations spent and the estimator's
diagnostics. A step that leaves some chain non-finite raises
:class:`~verify.errors.DivergenceError` naming the sampler, the step and its settings.

Conventions (the step size ``h`` as in EWSG eq. (3) and Appendix E)
--------------------------------------------------------------------
overdamped Euler–Maruyama   ``θ' = θ − h ĝ(θ) + √(2h/β) ξ``
pSGLD (RMSprop-preconditioned EM, Li et al. 2016)
                            ``v' = α v + (1−α) ḡ⊙ḡ,  G = 1/(λ + √v'),  θ' = θ − h G⊙ĝ + √(2h G/β) ⊙ ξ``
                            with ``ḡ = ĝ/n`` the per-datum mean gradient that Li et al. feed the
                            preconditioner, ``v_0 = 0`` as in their Algorithm 1, and the Γ(θ)
                            correction dropped as Li et al. do in practice.
underdamped EM, eq. (3)     ``θ' = θ + h r,  r' = r − h(ĝ(θ) + γ r) + σ √h ξ``,  ``σ = √(2γ/β)``.

With a uniform estimator the underdamped scheme is SGHMC (the papers' "SGHMC"/SGULD); with the
EWSG index chain it is EWSG Algorithm 1; with the full gradient it is FG.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: eq. (3), Algorithm 1, Appendix E, §5.1.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from .errors import check_finite_array, check_positive, check_state_finite
from .estimators import (EWSGIndexChain, FullGradient, StepContext, SVRGControlVariate,
                         UniformMinibatch)

__all__ = [
    "StepInfo", "OverdampedState", "PSGLDState", "UnderdampedState",
    "OverdampedEM", "PSGLD", "UnderdampedEM",
    "sgld", "psgld", "sghmc", "ewsg", "fg", "svrg_ld", "init_underdamped",
]


class StepInfo(NamedTuple):
    """evaluations : int, per-datum gradient evaluations per chain in this step; info : dict of diagnostics."""

    evaluations: int
    info: dict


class OverdampedState(NamedTuple):
    position: np.ndarray  # (chains, d)
    estimator_state: Any
    step: int


class PSGLDState(NamedTuple):
    position: np.ndarray  # (chains, d)
    square_avg: np.ndarray  # (chains, d) RMSprop accumulator v
    estimator_state: Any
    step: int


class UnderdampedState(NamedTuple):
    position: np.ndarray  # (chains, d)
    momentum: np.ndarray  # (chains, d)
    estimator_state: Any
    step: int


def _check_beta(beta):
    if isinstance(beta, bool) or not isinstance(beta, (int, float, np.floating)) or not (beta > 0):
        raise ValueError(f"inverse_temperature must be > 0 (np.inf for zero temperature), got {beta!r}")
    return float(beta)


def init_underdamped(target, estimator, position, momentum=None) -> UnderdampedState:
    """Validated initial :class:`UnderdampedState` (momentum 0 when ``None``) for any underdamped integrator."""
    pos = _init_position(target, position)
    if momentum is None:
        mom = np.zeros_like(pos)
    else:
        mom = check_finite_array("momentum", momentum)
        if mom.shape != pos.shape:
            raise ValueError(f"momentum must have the shape of position {pos.shape}, got {mom.shape}")
        mom = mom.copy()
    return UnderdampedState(pos, mom, estimator.init(target, pos), 0)


def _init_position(target, position):
    pos = check_finite_array("position", position)
    if pos.ndim != 2 or pos.shape[1] != target.dim:
        raise ValueError(f"position must have shape (chains, {target.dim}), got {pos.shape}")
    return pos.copy()


@dataclass(frozen=True, eq=False)
class OverdampedEM:
    """Overdamped Langevin, Euler–Maruyama: ``θ' = θ − h ĝ(θ) + √(2h/β) ξ``.

    Parameters
    ----------
    target : FiniteSumPotential
    step_size : float
        ``h`` > 0.
    estimator : gradient estimator, default ``UniformMinibatch(1)`` (SGLD)
    inverse_temperature : float, default 1
        ``β`` > 0; ``np.inf`` gives the zero-temperature (gradient-descent) limit.
    name : str
        Reported in errors and results ("SGLD", "SVRG-LD", ...).

    Raises
    ------
    ValueError
        Non-positive ``step_size`` or ``inverse_temperature``; at ``init``, a non-finite or
        mis-shaped position, or ``batch_size > n``.
    """

    target: Any
    step_size: float
    estimator: Any = field(default_factory=UniformMinibatch)
    inverse_temperature: float = 1.0
    name: str = "SGLD"

    def __post_init__(self):
        object.__setattr__(self, "step_size", check_positive("step_size", self.step_size))
        object.__setattr__(self, "inverse_temperature", _check_beta(self.inverse_temperature))

    def settings(self) -> dict:
        return {"sampler": self.name, "step_size": self.step_size,
                "inverse_temperature": self.inverse_temperature, **self.estimator.settings()}

    def init(self, position, momentum=None) -> OverdampedState:
        pos = _init_position(self.target, position)
        return OverdampedState(pos, self.estimator.init(self.target, pos), 0)

    def step(self, state: OverdampedState, rng: np.random.Generator):
        with np.errstate(over="ignore", invalid="ignore"):
            return self._step(state, rng)

    def _step(self, state, rng):
        est = self.estimator(state.estimator_state, rng, self.target, state.position, StepContext())
        h = self.step_size
        noise = np.sqrt(2.0 * h / self.inverse_temperature)
        pos = state.position - h * est.gradient
        if noise > 0:
            pos = pos + noise * rng.standard_normal(pos.shape)
        check_state_finite(self.name, state.step, self.settings(), pos)
        return OverdampedState(pos, est.state, state.step + 1), StepInfo(est.evaluations, est.info)


@dataclass(frozen=True, eq=False)
class PSGLD:
    """Preconditioned SGLD (Li et al., AAAI 2016) with the RMSprop preconditioner.

    ``v' = α v + (1−α) ḡ⊙ḡ``, ``G = 1/(λ + √v')``, ``θ' = θ − h G⊙ĝ + √(2h/β) √G ⊙ ξ`` where
    ``ĝ`` is the full-scale gradient estimate and ``ḡ = ĝ/n`` the per-datum mean gradient.

    Parameters
    ----------
    target, step_size, estimator, inverse_temperature : as :class:`OverdampedEM`
    alpha : float, default 0.99
        RMSprop decay ``α`` in (0, 1) (EWSG §5: "λ = 1e-5 and α = 0.99, as suggested in [25]").
    lam : float, default 1e-5
        Damping ``λ`` > 0.

    Notes
    -----
    ``v_0 = 0`` (Li et al. Algorithm 1); the Γ(θ) drift correction is omitted, as in Li et al.'s
    experiments. pSGLD is not a linear recursion, so its laws are measured by Monte Carlo only.
    """

    target: Any
    step_size: float
    estimator: Any = field(default_factory=UniformMinibatch)
    alpha: float = 0.99
    lam: float = 1e-5
    inverse_temperature: float = 1.0
    name: str = "pSGLD"

    def __post_init__(self):
        object.__setattr__(self, "step_size", check_positive("step_size", self.step_size))
        object.__setattr__(self, "lam", check_positive("lam", self.lam))
        object.__setattr__(self, "inverse_temperature", _check_beta(self.inverse_temperature))
        if not (0.0 < self.alpha < 1.0):
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha!r}")

    def settings(self) -> dict:
        return {"sampler": self.name, "step_size": self.step_size, "alpha": self.alpha, "lam": self.lam,
                "inverse_temperature": self.inverse_temperature, **self.estimator.settings()}

    def init(self, position, momentum=None) -> PSGLDState:
        pos = _init_position(self.target, position)
        return PSGLDState(pos, np.zeros_like(pos), self.estimator.init(self.target, pos), 0)

    def step(self, state: PSGLDState, rng: np.random.Generator):
        with np.errstate(over="ignore", invalid="ignore"):
            return self._step(state, rng)

    def _step(self, state, rng):
        est = self.estimator(state.estimator_state, rng, self.target, state.position, StepContext())
        gbar = est.gradient / self.target.n
        v = self.alpha * state.square_avg + (1.0 - self.alpha) * gbar * gbar
        G = 1.0 / (self.lam + np.sqrt(v))
        h = self.step_size
        pos = state.position - h * G * est.gradient
        if np.isfinite(self.inverse_temperature):
            pos = pos + np.sqrt(2.0 * h * G / self.inverse_temperature) * rng.standard_normal(pos.shape)
        check_state_finite(self.name, state.step, self.settings(), pos)
        return PSGLDState(pos, v, est.state, state.step + 1), StepInfo(est.evaluations, est.info)


@dataclass(frozen=True, eq=False)
class UnderdampedEM:
    """Underdamped Langevin, Euler–Maruyama (EWSG eq. (3)).

    ``θ_{k+1} = θ_k + h r_k``, ``r_{k+1} = r_k − (ĝ(θ_k) + γ r_k) h + σ √h ξ_{k+1}``.

    Parameters
    ----------
    target : FiniteSumPotential
    step_size : float
        ``h`` > 0.
    friction : float
        ``γ`` > 0.
    estimator : default ``UniformMinibatch(1)`` (SGHMC)
        :class:`~verify.estimators.EWSGIndexChain` gives EWSG (Algorithm 1),
        :class:`~verify.estimators.FullGradient` gives FG.
    noise_scale : float or None
        ``σ`` >= 0; ``None`` means the fluctuation–dissipation value ``√(2γ/β)`` (the papers' σ = √(2γ)
        at β = 1). ``0`` is zero temperature.
    inverse_temperature : float, default 1
    name : str

    Raises
    ------
    ValueError
        Non-positive ``step_size`` or ``friction``, negative ``noise_scale``; at ``init``,
        non-finite or mis-shaped position or momentum, ``batch_size > n``.
    """

    target: Any
    step_size: float
    friction: float
    estimator: Any = field(default_factory=UniformMinibatch)
    noise_scale: float | None = None
    inverse_temperature: float = 1.0
    name: str = "SGHMC"

    def __post_init__(self):
        object.__setattr__(self, "step_size", check_positive("step_size", self.step_size))
        object.__setattr__(self, "friction", check_positive("friction", self.friction))
        beta = _check_beta(self.inverse_temperature)
        object.__setattr__(self, "inverse_temperature", beta)
        if self.noise_scale is None:
            object.__setattr__(self, "noise_scale", float(np.sqrt(2.0 * self.friction / beta)))
        elif not (np.isfinite(self.noise_scale) and self.noise_scale >= 0):
            raise ValueError(f"noise_scale must be a finite number >= 0, got {self.noise_scale!r}")

    def settings(self) -> dict:
        return {"sampler": self.name, "step_size": self.step_size, "friction": self.friction,
                "noise_scale": self.noise_scale, **self.estimator.settings()}

    def init(self, position, momentum=None) -> UnderdampedState:
        return init_underdamped(self.target, self.estimator, position, momentum)

    def step(self, state: UnderdampedState, rng: np.random.Generator):
        with np.errstate(over="ignore", invalid="ignore"):
            return self._step(state, rng)

    def _step(self, state, rng):
        h, gam, sig = self.step_size, self.friction, self.noise_scale
        ctx = StepContext(state.momentum, h, gam, sig)
        est = self.estimator(state.estimator_state, rng, self.target, state.position, ctx)
        pos = state.position + h * state.momentum
        mom = state.momentum - h * (est.gradient + gam * state.momentum)
        if sig > 0:
            mom = mom + sig * np.sqrt(h) * rng.standard_normal(mom.shape)
        check_state_finite(self.name, state.step, self.settings(), pos, mom)
        return UnderdampedState(pos, mom, est.state, state.step + 1), StepInfo(est.evaluations, est.info)


# ---- the named samplers of the papers --------------------------------------------------------

def sgld(target, step_size, batch_size=1, inverse_temperature=1.0) -> OverdampedEM:
    """SGLD (Welling & Teh 2011) in the ``h`` convention: ``θ' = θ − h ĝ + √(2h/β) ξ``, uniform minibatch."""
    return OverdampedEM(target, step_size, UniformMinibatch(batch_size), inverse_temperature, name="SGLD")


def psgld(target, step_size, batch_size=1, alpha=0.99, lam=1e-5, inverse_temperature=1.0) -> PSGLD:
    """pSGLD (Li et al. 2016) with EWSG §5's defaults ``λ = 1e-5, α = 0.99``; see :class:`PSGLD`."""
    return PSGLD(target, step_size, UniformMinibatch(batch_size), alpha, lam, inverse_temperature, name="pSGLD")


def sghmc(target, step_size, friction, batch_size=1, noise_scale=None) -> UnderdampedEM:
    """SGHMC / SGULD as the EWSG paper runs it: underdamped EM (3) with a uniform minibatch gradient."""
    return UnderdampedEM(target, step_size, friction, UniformMinibatch(batch_size), noise_scale, name="SGHMC")


def ewsg(target, step_size, friction, index_chain_length=1, batch_size=1, x_choice="recommended",
         noise_scale=None) -> UnderdampedEM:
    """EWSG, Algorithm 1: underdamped EM (3) with the exponentially weighted index chain (6)."""
    est = EWSGIndexChain(index_chain_length, batch_size, x_choice)
    return UnderdampedEM(target, step_size, friction, est, noise_scale, name="EWSG")


def fg(target, step_size, friction, noise_scale=None) -> UnderdampedEM:
    """Full-gradient underdamped Langevin, EM (3): ``n`` evaluations per step."""
    return UnderdampedEM(target, step_size, friction, FullGradient(), noise_scale, name="FG")


def svrg_ld(target, step_size, batch_size=1, epoch_length=None, inverse_temperature=1.0) -> OverdampedEM:
    """SVRG-LD (Dubey et al. 2016): overdamped EM with the SVRG control variate; full passes counted."""
    return OverdampedEM(target, step_size, SVRGControlVariate(batch_size, epoch_length), inverse_temperature,
                        name="SVRG-LD")
