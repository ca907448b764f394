"""Planted bugs for the audit battery's tests (test-only samplers; ``support.audit:<factory>`` from the CLI)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sgmcmc_verify.estimators.minibatch import FullGradient, UniformMinibatch
from sgmcmc_verify.integrators.base import OverdampedState, StepInfo
from sgmcmc_verify.integrators.overdamped import OverdampedEM

__all__ = ["ula", "sgld_missing_sqrt2", "sgld_biased_gradient"]


def ula(target, step_size):
    """Full-gradient overdamped EM (ULA): weakly first order for the stationary covariance (not a bug)."""
    return OverdampedEM(target, step_size, FullGradient(), name="ULA")


@dataclass(frozen=True, eq=False)
class _NoSqrt2SGLD(OverdampedEM):
    """SGLD with the noise √h ξ instead of √(2h) ξ: the stationary covariance is halved at every h."""

    def _update(self, state, rng):
        est = self.estimator(state.estimator_state, rng, self.target, state.position, self._context())
        pos = state.position - self.step_size * est.gradient + np.sqrt(self.step_size) * rng.standard_normal(
            state.position.shape)
        return OverdampedState(pos, None, est.state, state.step + 1), StepInfo(est.evaluations, est.info), (pos,)


class _OffsetMinibatch(UniformMinibatch):
    """A biased stochastic gradient: the uniform minibatch plus a constant offset 5 in every coordinate."""

    def __call__(self, *args, **kwargs):
        e = super().__call__(*args, **kwargs)
        return e._replace(gradient=e.gradient + 5.0)


def sgld_missing_sqrt2(target, step_size, batch_size=1):
    """Planted bug: SGLD without the √2 of its noise."""
    return _NoSqrt2SGLD(target, step_size, UniformMinibatch(batch_size), name="SGLD-missing-sqrt2")


def sgld_biased_gradient(target, step_size, batch_size=1):
    """Planted bug: SGLD whose stochastic gradient carries a constant offset."""
    return OverdampedEM(target, step_size, _OffsetMinibatch(batch_size), name="SGLD-biased-gradient")
