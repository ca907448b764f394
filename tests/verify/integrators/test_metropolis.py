"""Tests of the exact reference samplers (verify/integrators/metropolis.py: HMC, MALA) on the Gaussian posterior N(c̄, I/n)."""
from __future__ import annotations

import numpy as np
import pytest

from sgmcmc_verify.analytic.gaussian import quadratic_posterior
from sgmcmc_verify.integrators.metropolis import HMC, MALA, MCMCState
from sgmcmc_verify.runner import run_chains as run
from sgmcmc_verify.targets import gaussian_means_target

Z_BOUND = 4.5  # two-sided normal tail 7e-6 per statistic; every test is seeded
CHAINS, STEPS = 4000, 300


class WrongSignHMC(HMC):
    """Planted bug: the Metropolis log-ratio with the sign flipped (H₁ − H₀)."""

    def log_acceptance_ratio(self, energy_current, energy_proposed):
        return energy_proposed - energy_current


class NoCorrectionMALA(MALA):
    """Planted bug: the MH ratio omits the proposal-density correction log q(θ|θ') − log q(θ'|θ)."""

    def log_acceptance_ratio(self, state, proposal, potential, gradient):
        return state.potential - potential


@pytest.fixture(scope="module")
def target():
    return gaussian_means_target(n=50)


def run_chains(sampler, chains=CHAINS, steps=STEPS, seed=0):
    """Start every chain at (1, 1) — about 7 posterior sd from c̄ — and run ``steps`` steps."""
    out = run(sampler, sampler.init(np.ones((chains, sampler.target.dim))), np.random.default_rng(seed), steps=steps,
              trace_info=True)
    return out["state"], out["info_trace"]["acceptance_rate"], out["evaluations"]


def posterior_z_scores(x, target):
    """z-scores of the per-coordinate sample mean and variance of independent chains against N(c̄, I/n)."""
    law = quadratic_posterior(target.centers)
    N = x.shape[0]
    var = np.diag(law.cov)
    zm = (x.mean(0) - law.mean) / np.sqrt(var / N)
    zv = (x.var(0, ddof=1) - var) / (var * np.sqrt(2.0 / (N - 1)))
    return zm, zv


SAMPLERS = {
    "HMC": lambda t: HMC(t, step_size=0.1, num_steps=10),
    "MALA": lambda t: MALA(t, step_size=0.01),
}
BUGGY = {
    "HMC_wrong_sign": lambda t: WrongSignHMC(t, step_size=0.1, num_steps=10),
    "MALA_no_proposal_correction": lambda t: NoCorrectionMALA(t, step_size=0.01),
}


@pytest.mark.statistical(pair="metropolis.posterior_from_far_start")
@pytest.mark.parametrize("name", list(SAMPLERS))
def test_exact_sampler_matches_gaussian_posterior(name, target):
    sampler = SAMPLERS[name](target)
    state, rates, evals = run_chains(sampler)
    zm, zv = posterior_z_scores(state.position, target)
    assert np.all(np.abs(zm) < Z_BOUND), zm
    assert np.all(np.abs(zv) < Z_BOUND), zv
    assert np.all((rates > 0) & (rates <= 1)), rates
    assert 0.3 < rates[STEPS // 2:].mean() <= 1.0
    L = sampler.num_steps if name == "HMC" else 1
    assert evals == STEPS * L * target.n


@pytest.mark.negative_control(pair="metropolis.posterior_from_far_start")
@pytest.mark.parametrize("name", list(BUGGY))
def test_planted_mh_bug_fails_the_posterior_check(name, target):
    state, _, _ = run_chains(BUGGY[name](target))
    zm, zv = posterior_z_scores(state.position, target)
    assert np.max(np.abs(np.concatenate([zm, zv]))) > 2 * Z_BOUND, (zm, zv)


def _from_exact_start(sampler, target, steps=20):
    """z-scores of the posterior check after ``steps`` steps from exact posterior draws."""
    rng = np.random.default_rng(11)
    x0 = target.posterior_mean + rng.standard_normal((CHAINS, 2)) / np.sqrt(target.n)
    state = run(sampler, sampler.init(x0), rng, steps=steps)["state"]
    return posterior_z_scores(state.position, target)


@pytest.mark.statistical(pair="metropolis.invariance_from_exact_start")
@pytest.mark.parametrize("name", list(SAMPLERS))
def test_posterior_is_invariant_from_exact_start(name, target):
    # started at exact posterior draws, a few steps keep the law (no burn-in confound)
    zm, zv = _from_exact_start(SAMPLERS[name](target), target)
    assert np.all(np.abs(zm) < Z_BOUND) and np.all(np.abs(zv) < Z_BOUND), (zm, zv)


@pytest.mark.negative_control(pair="metropolis.invariance_from_exact_start")
@pytest.mark.parametrize("name", list(BUGGY))
def test_planted_mh_bug_breaks_invariance_from_exact_start(name, target):
    zm, zv = _from_exact_start(BUGGY[name](target), target)
    assert np.max(np.abs(np.concatenate([zm, zv]))) > Z_BOUND, (zm, zv)


def test_state_caches_potential_and_gradient(target):
    s = MALA(target, 0.01)
    state, _ = s.step(s.init(np.zeros((6, 2))), np.random.default_rng(3))
    assert isinstance(state, MCMCState) and state.step == 1
    np.testing.assert_allclose(state.potential, target.potential(state.position))
    np.testing.assert_allclose(state.gradient, target.full_gradient(state.position))


def test_hmc_tiny_step_accepts_everything(target):
    # energy error → 0 as ε → 0: acceptance probability → 1
    s = HMC(target, step_size=1e-4, num_steps=3)
    _, info = s.step(s.init(np.zeros((500, 2))), np.random.default_rng(0))
    assert info.info["mean_acceptance_probability"] > 0.999


def test_overflowing_proposals_are_rejected_not_propagated(target):
    # a huge step makes every proposal overflow; chains must stay put, finite, and count divergences
    s = HMC(target, step_size=1e12, num_steps=30)
    x0 = np.zeros((50, 2))
    state, info = s.step(s.init(x0), np.random.default_rng(0))
    np.testing.assert_array_equal(state.position, x0)
    assert info.info["acceptance_rate"] == 0.0 and info.info["divergences"] == 50


def test_same_seed_same_numbers(target):
    out = []
    for _ in range(2):
        state, _, _ = run_chains(HMC(target, 0.1, 5), chains=8, steps=5, seed=9)
        out.append(state.position)
    np.testing.assert_array_equal(out[0], out[1])


@pytest.mark.parametrize("make,name", [
    (lambda t: HMC(t, 0.0, 5), "step_size"), (lambda t: HMC(t, -0.1, 5), "step_size"),
    (lambda t: HMC(t, 0.1, 0), "num_steps"), (lambda t: HMC(t, 0.1, -3), "num_steps"),
    (lambda t: HMC(t, 0.1, 2.5), "num_steps"),
    (lambda t: MALA(t, 0.0), "step_size"), (lambda t: MALA(t, np.inf), "step_size"),
])
def test_bad_input_raises_value_error_naming_parameter(make, name, target):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        make(target)


def test_bad_init_input(target):
    s = HMC(target, 0.1, 5)
    with pytest.raises(ValueError, match="^position"):
        s.init(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="^position must be finite"):
        s.init(np.full((3, 2), np.nan))
    with pytest.raises(ValueError, match="^momentum"):
        s.init(np.zeros((3, 2)), np.zeros((3, 2)))
