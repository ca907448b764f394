"""Planted bugs for the audit battery's tests (test-only samplers; ``support.audit:<factory>`` from the CLI)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sgmcmc_verify.estimators.ewsg import EWSGIndexChain
from sgmcmc_verify.estimators.minibatch import FullGradient, UniformMinibatch
from sgmcmc_verify.integrators.base import OverdampedState, StepInfo
from sgmcmc_verify.integrators.overdamped import OverdampedEM

__all__ = ["ula", "sgld_missing_sqrt2", "sgld_biased_gradient", "sghmc_scaled_gradient", "frozen", "tiny_noise", "nan_sampler", "divergent",
           "wrong_shape", "no_info", "no_position", "sleeping_factory", "sleeping_step"]


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


class _ScaledMinibatch(UniformMinibatch):
    """A biased stochastic gradient: the uniform minibatch times 3 (the chain samples N(μ, Σ/3): a bias of the
    second moment that does not vanish with h)."""

    def __call__(self, *args, **kwargs):
        e = super().__call__(*args, **kwargs)
        return e._replace(gradient=3.0 * e.gradient)


def sghmc_scaled_gradient(target, step_size, friction, batch_size=1):
    """Planted bug: SGHMC whose stochastic gradient is three times too large."""
    from sgmcmc_verify import samplers
    return samplers.sghmc(target, step_size, friction, estimator=_ScaledMinibatch(batch_size))


def sgld_missing_sqrt2(target, step_size, batch_size=1):
    """Planted bug: SGLD without the √2 of its noise."""
    return _NoSqrt2SGLD(target, step_size, UniformMinibatch(batch_size), name="SGLD-missing-sqrt2")


def sgld_biased_gradient(target, step_size, batch_size=1):
    """Planted bug: SGLD whose stochastic gradient carries a constant offset."""
    return OverdampedEM(target, step_size, _OffsetMinibatch(batch_size), name="SGLD-biased-gradient")


# ---- the catalogue of broken samplers (issue #28 item 1): each must be flagged by name, none may pass ----------

class _Frozen:
    """``step`` returns its input: chains that never move (an ensemble of exact draws keeps the exact law)."""

    label = "frozen"

    def __init__(self, target, step_size):
        self.target, self.step_size, self.name = target, step_size, self.label
        self._inner = OverdampedEM(target, step_size, UniformMinibatch(1))

    def init(self, position, momentum=None):
        return self._inner.init(position)

    def step(self, state, rng):
        return state, StepInfo(1, {})


def frozen(target, step_size):
    """Broken: the step returns its input."""
    return _Frozen(target, step_size)


class _TinyNoise(_Frozen):
    label = "tiny-noise"

    """A random walk of s.d. 1e-6: moves, by far too little to reach anything."""

    def step(self, state, rng):
        pos = state.position + 1e-6 * rng.standard_normal(state.position.shape)
        return state._replace(position=pos, step=state.step + 1), StepInfo(1, {})


def tiny_noise(target, step_size):
    """Broken: a random walk with s.d. 1e-6 and no drift."""
    return _TinyNoise(target, step_size)


class _NaN(_Frozen):
    label = "nan"

    """Returns NaN positions (without raising, as a user's sampler might)."""

    def step(self, state, rng):
        return state._replace(position=np.full_like(state.position, np.nan), step=state.step + 1), StepInfo(1, {})


def nan_sampler(target, step_size):
    """Broken: the step returns NaN."""
    return _NaN(target, step_size)


@dataclass(frozen=True, eq=False)
class _Divergent(OverdampedEM):
    """SGLD whose update doubles the position every step: it overflows within ~1,100 steps."""

    def _update(self, state, rng):
        st, info, arrays = super()._update(state, rng)
        pos = 2.0 * st.position
        return st._replace(position=pos), info, (pos,)


def divergent(target, step_size, batch_size=1):
    """Broken: the position doubles every step."""
    return _Divergent(target, step_size, UniformMinibatch(batch_size), name="SGLD-divergent")


class _WrongShape(_Frozen):
    label = "wrong-shape"

    def step(self, state, rng):
        return state._replace(position=state.position[:, :1]), StepInfo(1, {})


def wrong_shape(target, step_size):
    """Broken: the step returns a position of shape (chains, 1)."""
    return _WrongShape(target, step_size)


class _NoInfo(_Frozen):
    label = "no-info"

    def step(self, state, rng):
        return state


def no_info(target, step_size):
    """Broken: the step returns the state only, no info."""
    return _NoInfo(target, step_size)


class _NoPosition(_Frozen):
    label = "no-position"

    def init(self, position, momentum=None):
        return (position, 0)


def no_position(target, step_size):
    """Broken: the state is a tuple without ``.position``."""
    return _NoPosition(target, step_size)


def sleeping_factory(target, step_size):
    """Broken: the factory does not return (for a minute)."""
    import time

    time.sleep(60)
    return _Frozen(target, step_size)


class _SleepingStep(_Frozen):
    label = "sleeping-step"

    def step(self, state, rng):
        import time

        time.sleep(60)
        return state, StepInfo(1, {})


def sleeping_step(target, step_size):
    """Broken: the step does not return (for a minute)."""
    return _SleepingStep(target, step_size)


class _OffsetEWSGIndexChain(EWSGIndexChain):
    """A biased EWSG gradient: the index-chain estimate plus a constant offset 1 in every coordinate."""

    def __call__(self, *args, **kwargs):
        e = super().__call__(*args, **kwargs)
        return e._replace(gradient=e.gradient + 1.0)


def ewsg_ld_offset_gradient(target, step_size, index_chain_length=1, batch_size=1):
    """Planted bug: EWSG-LD (x = 0) whose gradient carries a constant offset 1. At smoke scale check 1's first grid
    cannot tell it from EWSG-LD's slowly vanishing error (both "still decrease at the small end"); the lower grid
    must flag it."""
    return OverdampedEM(target, step_size, _OffsetEWSGIndexChain(index_chain_length, batch_size, "zero"),
                        name="EWSG-LD-offset-gradient")
