"""Cross-implementation check: exact moments on a quadratic sum with differing per-datum Hessians
(analytic/hsg_quadratic.py) vs the toolkit's samplers, and vs analytic/hsg_moments.py when all A_i = I.

Seed ``001_d56659fdb8996bf2.txt`` (HSG-HMC): eqs. (4)–(7), Corollary 2, Table 1 study.
"""
from __future__ import annotations

import numpy as np
import pytest

from sgmcmc_verify.analytic.hsg_moments import moment_trajectory
from sgmcmc_verify.analytic.hsg_quadratic import QuadraticSum, bures_w2_2d, exact_trajectory, random_quadratic_sum
from sgmcmc_verify.analytic.gaussian import bures_w2
from sgmcmc_verify.estimators import HybridGradient
from sgmcmc_verify.integrators.exponential import ExponentialIntegrator
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.samplers import hsg_hmc, sg_ul_mcmc, srvr_hmc
from sgmcmc_verify.targets import gaussian_means_target
from sgmcmc_verify.targets.quadratic import QuadraticSumTarget

from support import zmax_moments

Z = 4.5  # per statistic, two-sided normal tail 7e-6; 2 means + 3 covariance entries per case


@pytest.fixture(scope="module")
def quad():
    return random_quadratic_sum(n=20, dim=2, seed=3)


class CommonHessianHybrid(HybridGradient):
    """Planted bug: the difference term of (7) uses the average Hessian instead of the sample's,
    ∇F(x^(k), ξ) − ∇F(x^(k−1), ξ) replaced by ∇f(x^(k)) − ∇f(x^(k−1)) (exact, as on the identity target)."""

    def __call__(self, state, rng, target, position, context=None):
        k = state.iteration
        idx = self.base.draw(rng, target, position.shape[0])
        g_u = self.base.gradient_at(target, position, idx)
        from sgmcmc_verify.estimators.base import GradientEstimate
        from sgmcmc_verify.estimators.variance_reduced import HybridState
        if k == 0 or self.rho_at(k) == 1.0:
            return GradientEstimate(g_u, 1, HybridState(k + 1, position.copy(), g_u), {})
        rho = self.rho_at(k)
        g_b = state.previous_gradient + target.full_gradient(position) - target.full_gradient(state.previous_position)
        g = rho * g_u + (1 - rho) * g_b
        return GradientEstimate(g, 2, HybridState(k + 1, position.copy(), g), {})


CASES = [
    ("SG-UL-MCMC", {"batch_size": 3}, lambda t, h: sg_ul_mcmc(t, h, batch_size=3)),
    ("HSG-HMC", {"schedule": "periodic"}, lambda t, h: hsg_hmc(t, h, schedule="periodic")),
    ("HSG-HMC", {"schedule": "harmonic"}, lambda t, h: hsg_hmc(t, h, schedule="harmonic")),
    ("SRVR-HMC", {"outer_batch_size": 5, "inner_loop_length": 7}, lambda t, h: srvr_hmc(t, h, 5, 1, 7)),
    ("SRVR-HMC", {"inner_loop_length": 7}, lambda t, h: srvr_hmc(t, h, 20, 1, 7)),
]


def _mc(q, make, steps, h, seed, chains=4000):
    t = QuadraticSumTarget(q)
    s = make(t, h)
    out = run_chains(s, s.init(np.zeros((chains, 2))), np.random.default_rng(seed), steps=steps)
    return out["state"].position, out["evaluations"]


@pytest.mark.statistical(pair="analytic.hsg_quadratic")
@pytest.mark.parametrize("i", range(len(CASES)))
def test_exact_moments_match_sampler_with_differing_hessians(quad, i):
    method, kw, make = CASES[i]
    h, steps = 0.05, 40
    r = exact_trajectory(quad, method, h, steps, **kw)
    x, ev = _mc(quad, make, steps, h, 200 + i)
    assert zmax_moments(x, r["mean"][-1], r["cov"][-1]) < Z
    assert r["evaluations"][-1] == ev


@pytest.mark.negative_control(pair="analytic.hsg_quadratic")
def test_moment_check_catches_common_hessian_difference(quad):
    """Planted bug: HSG-HMC's difference term computed with the average Hessian (exact) instead of the sample's."""
    h, steps = 0.05, 40
    r = exact_trajectory(quad, "HSG-HMC", h, steps, schedule="harmonic")
    bad = lambda t, hh: ExponentialIntegrator(t, hh, None, CommonHessianHybrid(schedule="harmonic"))  # noqa: E731
    x, _ = _mc(quad, bad, steps, h, 202)
    assert zmax_moments(x, r["mean"][-1], r["cov"][-1]) > Z


@pytest.mark.parametrize("method,kw", [("SG-UL-MCMC", {"batch_size": 3}), ("HSG-HMC", {"schedule": "periodic"}),
                                       ("HSG-HMC", {"schedule": "harmonic"}),
                                       ("SRVR-HMC", {"outer_batch_size": 10, "inner_loop_length": 7})])
def test_identity_hessians_reduce_to_hsg_moments(method, kw):
    t = gaussian_means_target(n=50)
    q = QuadraticSum(np.repeat(np.eye(2)[None], 50, 0), t.centers)
    r = exact_trajectory(q, method, 0.02, 200, **kw)
    w2, ev, m, S = moment_trajectory(t.centers, method, 0.02, [50, 200], return_moments=True, **kw)
    np.testing.assert_allclose(r["mean"][[50, 200]], m, atol=1e-13)
    np.testing.assert_allclose(r["cov"][[50, 200]], S, atol=1e-13)
    np.testing.assert_array_equal(r["evaluations"][[50, 200]], ev)


def test_bures_closed_form_matches_general(quad):
    rng = np.random.default_rng(0)
    G = rng.standard_normal((5, 2, 2))
    S = G @ np.swapaxes(G, 1, 2) + 0.1 * np.eye(2)
    m = rng.standard_normal((5, 2))
    ref = [float(bures_w2(m[i], S[i], quad.mean, quad.cov)) for i in range(5)]
    np.testing.assert_allclose(bures_w2_2d(m, S, quad.mean, quad.cov), ref, rtol=1e-10)


def test_quadratic_sum_rejects_bad_input():
    with pytest.raises(ValueError, match="A must be"):
        QuadraticSum(np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="positive definite"):
        QuadraticSum(np.zeros((3, 2, 2)), np.zeros((3, 2)))
    q = random_quadratic_sum(n=5)
    with pytest.raises(ValueError, match="method"):
        exact_trajectory(q, "SVRG-LD", 0.1, 10)
    with pytest.raises(ValueError, match="iterations"):
        exact_trajectory(q, "HSG-HMC", 0.1, 0)


# ---- Table 1's SGLD and SGHMC rows: the Euler–Maruyama baselines --------------------------------------------------

def _euler_cases():
    from sgmcmc_verify.integrators.exponential import friction_for_decay
    from sgmcmc_verify.samplers import sghmc, sgld
    return [("SGLD", 0.004, lambda t, h: sgld(t, h, batch_size=3)),
            ("SGHMC", 0.05, lambda t, h: sghmc(t, h, friction_for_decay(h), batch_size=3))]


@pytest.mark.statistical(pair="analytic.hsg_quadratic.euler")
@pytest.mark.parametrize("i", range(2))
def test_exact_moments_match_euler_samplers(quad, i):
    method, h, make = _euler_cases()[i]
    steps = 40
    r = exact_trajectory(quad, method, h, steps, batch_size=3)
    x, ev = _mc(quad, make, steps, h, 300 + i)
    assert zmax_moments(x, r["mean"][-1], r["cov"][-1]) < Z
    assert r["evaluations"][-1] == ev


@pytest.mark.negative_control(pair="analytic.hsg_quadratic.euler")
def test_euler_moment_check_catches_half_noise(quad):
    """Planted bug: SGLD with noise √h instead of √(2h) (the sampler at inverse temperature 2)."""
    from sgmcmc_verify.samplers import sgld
    h, steps = 0.004, 40
    r = exact_trajectory(quad, "SGLD", h, steps, batch_size=3)
    x, _ = _mc(quad, lambda t, hh: sgld(t, hh, batch_size=3, inverse_temperature=2.0), steps, h, 302)
    assert zmax_moments(x, r["mean"][-1], r["cov"][-1]) > Z


def test_unstable_step_is_not_a_hit(quad):
    """A diverging run reports NaN, never the 0 that the Bures formula returns once the moments overflow."""
    r = exact_trajectory(quad, "SGLD", 0.5, 2000)
    assert not np.any(r["w2"][1:] <= 1e-3)
