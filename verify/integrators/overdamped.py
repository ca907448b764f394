"""Overdamped Langevin by (preconditioned) Euler–Maruyama: SGLD, pSGLD, SVRG-LD, LS-SGLD, LS-GLD, LS-pSGLD.

``x' = x − h D ĝ(x) + √(2h/β) R ξ``,  ``ξ ~ N(0, I_d)``,  ``R Rᵀ = D``,

with ``ĝ`` from any estimator of :mod:`sgmcmc_verify.estimators` and ``(D, R)`` from a preconditioner of
:mod:`sgmcmc_verify.integrators.preconditioners` (identity: SGLD; Laplacian ``A_σ⁻¹``: LS-SGLD (2.5);
RMSprop: pSGLD; RMSprop ∘ Laplacian: LS-pSGLD). The random stream is consumed in one order for all
of them: the estimator's draws first, then one ``rng.standard_normal((chains, d))``; hence
LS-SGLD at σ = 0 reproduces SGLD step for step under the same generator (up to FFT round-off).

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``, Appendix E (the ``h`` convention); LS-SGLD, seed
``004_8438bd4b543e0fc4.txt``, eqs. (2.3)–(2.5), Algorithm 1; Welling & Teh (2011).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..estimators.base import StepContext
from ..estimators.minibatch import UniformMinibatch
from .base import Integrator, OverdampedState, StepInfo
from .preconditioners import IdentityPreconditioner

__all__ = ["OverdampedEM"]


@dataclass(frozen=True, eq=False)
class OverdampedEM(Integrator):
    """Overdamped Langevin, (preconditioned) Euler–Maruyama: ``x' = x − h D ĝ(x) + √(2h/β) R ξ``.

    Parameters
    ----------
    target : FiniteSumPotential
    step_size : float
        ``h`` (the LS-SGLD paper's η) > 0.
    estimator : gradient estimator, default ``UniformMinibatch(1)`` (SGLD)
        :class:`~sgmcmc_verify.estimators.EWSGIndexChain` (x = 0) gives the overdamped EWSG of Appendix E;
        it receives ``StepContext(step_size=h, noise_scale=√(2/β))`` with the identity preconditioner.
    preconditioner : default :class:`~sgmcmc_verify.integrators.preconditioners.IdentityPreconditioner`
        ``LaplacianPreconditioner(σ)`` gives LS-SGLD, ``RMSpropPreconditioner(...)`` pSGLD.
    inverse_temperature : float, default 1
        ``β`` > 0; ``np.inf`` gives the zero-temperature (preconditioned gradient-descent) limit.
    name : str
        Reported in errors and results ("SGLD", "SVRG-LD", "LS-SGLD", ...).

    Raises
    ------
    ValueError
        Non-positive ``step_size`` or ``inverse_temperature``; at ``init``, a non-finite or
        mis-shaped position, or ``batch_size > n``.
    sgmcmc_verify.errors.DivergenceError
        From :meth:`step`, when a chain (or, for the smoothing preconditioners, its gradient) is
        non-finite.

    Examples
    --------
    >>> from sgmcmc_verify.targets import gaussian_means_target
    >>> s = OverdampedEM(gaussian_means_target(), step_size=1e-3)
    >>> state, info = s.step(s.init(np.zeros((4, 2))), np.random.default_rng(0))
    >>> state.position.shape, info.evaluations
    ((4, 2), 1)
    """

    target: Any
    step_size: float
    estimator: Any = field(default_factory=UniformMinibatch)
    preconditioner: Any = field(default_factory=IdentityPreconditioner)
    inverse_temperature: float = 1.0
    name: str = "SGLD"

    def _init_state(self, position, momentum):
        return OverdampedState(position, self.preconditioner.init(position),
                               self.estimator.init(self.target, position), 0)

    def _validate(self):
        # the estimator's context depends on the settings only: built once here, not in every step
        if isinstance(self.preconditioner, IdentityPreconditioner):
            ctx = StepContext(step_size=self.step_size, noise_scale=float(np.sqrt(2.0 / self.inverse_temperature)))
        else:
            ctx = StepContext()
        object.__setattr__(self, "_step_context", ctx)
        object.__setattr__(self, "_noisy", bool(np.isfinite(self.inverse_temperature)))
        # exactly the identity (a subclass may change drift / noise): its arithmetic inlined in _update, the
        # factor of ξ computed once as IdentityPreconditioner.noise computes it
        object.__setattr__(self, "_identity", type(self.preconditioner) is IdentityPreconditioner)
        object.__setattr__(self, "_noise_amplitude", np.sqrt(2.0 * self.step_size / self.inverse_temperature))

    def _context(self) -> StepContext:
        """What the estimator is told: ``h`` and the noise amplitude ``σ = √(2/β)`` per ``√h`` with the identity
        preconditioner (the overdamped EWSG weights of Appendix E need them), nothing otherwise (a
        preconditioned kernel is not the one Appendix E's weights match)."""
        return self._step_context

    def _update(self, state, rng):
        est = self.estimator(state.estimator_state, rng, self.target, state.position, self._context())
        pre, g, h = self.preconditioner, est.gradient, self.step_size
        if pre.requires_finite_gradient and not np.isfinite(g).all():
            self._diverged(state, g)
        pstate = pre.update(state.preconditioner_state, g, self.target.n)
        if self._identity:  # x − h ĝ + √(2h/β) ξ: IdentityPreconditioner's drift and noise, in arrays this step owns
            pos = np.multiply(g, h)
            np.subtract(state.position, pos, out=pos)
            if self._noisy:
                xi = rng.standard_normal(pos.shape)
                xi *= self._noise_amplitude
                pos += xi
        else:
            pos = state.position - pre.drift(pstate, g, h)
            if self._noisy:  # β < ∞, decided once in _validate
                pos += pre.noise(pstate, rng.standard_normal(pos.shape), h, self.inverse_temperature)  # pos is this step's
        return OverdampedState(pos, pstate, est.state, state.step + 1), StepInfo(est.evaluations, est.info), (pos,)
