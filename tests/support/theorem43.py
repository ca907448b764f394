"""Shared machinery for the Theorem 4.3 rate tests: per-realization squared errors of time averages.

Also used by the calibration script to rerun every assertion over many seeds.
"""
from __future__ import annotations

import numpy as np

from sgmcmc_verify.analytic.time_average import uld_time_average_mse
from sgmcmc_verify import samplers
from sgmcmc_verify.estimators import GradientEstimate, UniformMinibatch
from sgmcmc_verify.integrators import UnderdampedEM
from sgmcmc_verify.measure.rates import fit_slope, slope_status
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.targets import gaussian_means_target

TARGET = gaussian_means_target()
MU = TARGET.posterior_mean
PHIBAR = TARGET.dim / TARGET.n
GAMMA = 10.0
TOL = 0.15  # RATE_TOLERANCE of sgmcmc_verify.paper_repro.ewsg.experiments (checked equal in the tests)


def phi(state):
    return np.sum((state.position - MU) ** 2, axis=1)


def time_average(sampler, h, T, R, rng):
    """φ̂ at time T for R chains started at π (θ) and N(0, I) (r); returns (R,) array."""
    th0 = MU + rng.standard_normal((R, 2)) / np.sqrt(TARGET.n)
    st = sampler.init(th0, rng.standard_normal((R, 2)))
    out = run_chains(sampler, st, rng, checkpoints=np.round(np.atleast_1d(T) / h), unit="steps",
                     time_average={"phi": phi})
    return out["phi"]


# ---- planted bugs ---------------------------------------------------------------------------

class BiasedGradient:
    """Planted bug: a constant gradient offset ``n·δ``, shifting the stationary mean by −δ."""

    def __init__(self, delta=0.15):
        self.inner, self.delta = UniformMinibatch(), delta

    def init(self, target, position, rng=None):
        return None

    def __call__(self, state, rng, target, position, context=None):
        e = self.inner(state, rng, target, position)
        return GradientEstimate(e.gradient + target.n * self.delta, e.evaluations, None, {})

    def settings(self):
        return {"estimator": "planted-biased", "delta": self.delta}


class BrownianScaledGradientNoise:
    """Planted bug: the stochastic-gradient noise rescaled by ``√(h0/h)`` (as if it were Brownian),
    so that its contribution per unit time no longer shrinks with h."""

    def __init__(self, h, h0=1e-3):
        self.inner, self.factor = UniformMinibatch(), np.sqrt(h0 / h)

    def init(self, target, position, rng=None):
        return None

    def __call__(self, state, rng, target, position, context=None):
        e = self.inner(state, rng, target, position)
        full = target.full_gradient(position)
        return GradientEstimate(full + self.factor * (e.gradient - full), e.evaluations, None, {})

    def settings(self):
        return {"estimator": "planted-brownian-noise"}


# ---- the three checks -----------------------------------------------------------------------

def term1_check(seed, planted=False, R=1000, h=1e-3, times=(1.0, 2.0, 4.0, 8.0)):
    """Term 1: MSE of the time average vs T at small h, EWSG (M = 1); expected slope −1."""
    rng = np.random.default_rng(seed)
    if planted:
        s = UnderdampedEM(TARGET, h, GAMMA, BiasedGradient(), name="EWSG-planted")
    else:
        s = samplers.ewsg(TARGET, h, GAMMA, index_chain_length=1)
    tav = time_average(s, h, np.array(times), R, rng)
    fit = fit_slope(np.array(times), (tav - PHIBAR) ** 2, n_boot=400, rng=seed)
    return fit, slope_status(fit, -1.0, TOL)


E_STEPS = (5e-4, 1e-3, 2e-3, 4e-3)


def term2_check(seed, planted=False, R=10_000, T=2.0, steps=E_STEPS):
    """Term 2: variance of the time average above the exact continuous limit C1/T, vs h at fixed T,
    SGHMC; expected slope +1 while a h = h tr Q/(2γ d) is small (a ≈ 125; the (a h)² correction
    bends the local slope to about 1.2 at h = 4e-3)."""
    rng = np.random.default_rng(seed)
    cont = float(uld_time_average_mse(TARGET.hessian, GAMMA, T))
    cols = []
    for h in steps:
        est = BrownianScaledGradientNoise(h) if planted else UniformMinibatch()
        s = UnderdampedEM(TARGET, h, GAMMA, est, name="SGHMC")
        tav = time_average(s, h, T, R, rng)[:, 0]
        cols.append((tav - tav.mean()) ** 2 - cont)
    if min(np.mean(c) for c in cols) <= 0:
        return None, "failed"
    fit = fit_slope(np.array(steps), cols, n_boot=400, rng=seed)
    return fit, slope_status(fit, 1.0, TOL)


F_STEPS = (2e-3, 4e-3, 8e-3)


def term3_check(seed, planted=False, R=1000, T=64.0, steps=F_STEPS):
    """Term 3: long-run MSE vs h, SGHMC; expected slope +2 (the exact slope on this window is ~2.1)."""
    rng = np.random.default_rng(seed)
    cols = []
    for h in steps:
        s = UnderdampedEM(TARGET, h, GAMMA, UniformMinibatch(), noise_scale=np.sqrt(GAMMA) if planted else None,
                          name="SGHMC")
        tav = time_average(s, h, T, R, rng)[:, 0]
        cols.append((tav - PHIBAR) ** 2)
    fit = fit_slope(np.array(steps), cols, n_boot=400, rng=seed)
    return fit, slope_status(fit, 2.0, TOL)
