"""Underdamped Langevin by Euler–Maruyama, EWSG eq. (3): SGHMC / SGULD, EWSG, FG.

``θ' = θ + h r``,  ``r' = r − h(ĝ(θ) + γ r) + σ √h ξ``,  ``σ = √(2γ/β)``.

With a uniform estimator this is SGHMC (the papers' "SGHMC"/SGULD); with the EWSG index chain it is
EWSG Algorithm 1; with the full gradient it is FG.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: eq. (3), Algorithm 1, Appendix E, §5.1.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import check_positive
from ..estimators.base import StepContext
from ..estimators.minibatch import UniformMinibatch
from .base import StepInfo, UnderdampedIntegrator, UnderdampedState

__all__ = ["UnderdampedEM"]


@dataclass(frozen=True, eq=False)
class UnderdampedEM(UnderdampedIntegrator):
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
        :class:`~sgmcmc_verify.estimators.EWSGIndexChain` gives EWSG (Algorithm 1),
        :class:`~sgmcmc_verify.estimators.FullGradient` gives FG.
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

    Examples
    --------
    >>> from sgmcmc_verify.targets import gaussian_means_target
    >>> s = UnderdampedEM(gaussian_means_target(), step_size=0.05, friction=10.0)
    >>> state, info = s.step(s.init(np.zeros((4, 2))), np.random.default_rng(0))
    >>> state.momentum.shape, bool(s.noise_scale == np.sqrt(20.0))
    ((4, 2), True)
    """

    target: Any
    step_size: float
    friction: float
    estimator: Any = field(default_factory=UniformMinibatch)
    noise_scale: float | None = None
    inverse_temperature: float = 1.0
    name: str = "SGHMC"

    def _validate(self):
        object.__setattr__(self, "friction", check_positive("friction", self.friction))
        if self.noise_scale is None:
            object.__setattr__(self, "noise_scale", float(np.sqrt(2.0 * self.friction / self.inverse_temperature)))
        elif (isinstance(self.noise_scale, bool) or not isinstance(self.noise_scale, numbers.Real)
              or not (np.isfinite(self.noise_scale) and self.noise_scale >= 0)):
            raise ValueError(f"noise_scale must be a finite number >= 0, got {self.noise_scale!r}")
        # σ√h, the factor of ξ in every step, computed once (the same float as sig * np.sqrt(h) in the step)
        object.__setattr__(self, "_noise_amplitude", self.noise_scale * np.sqrt(self.step_size))

    def _update(self, state, rng):
        h, gam, sig = self.step_size, self.friction, self.noise_scale
        ctx = StepContext(state.momentum, h, gam, sig)
        est = self.estimator(state.estimator_state, rng, self.target, state.position, ctx)
        v = state.momentum
        # x + h v and v − h(ĝ + γ v) + σ√h ξ, each operation as written, in arrays this step owns (no temporaries)
        pos = np.multiply(v, h)
        pos += state.position
        mom = np.multiply(v, gam)
        mom += est.gradient
        mom *= h
        np.subtract(v, mom, out=mom)
        if sig > 0:
            xi = rng.standard_normal(mom.shape)
            xi *= self._noise_amplitude
            mom += xi
        return (UnderdampedState(pos, mom, est.state, state.step + 1), StepInfo(est.evaluations, est.info),
                (pos, mom))
