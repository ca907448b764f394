"""Tests of verify/integrators/flymc.py (Firefly Monte Carlo) and verify/integrators/random_walk.py (exact MH).

The stationary law is checked on a 2-parameter Bayesian logistic regression (20 data) whose posterior mean
and covariance come from grid quadrature (no Monte Carlo in the reference): 4000 independent chains start
at one point 1.5 posterior s.d. off the mean, run 400 steps, and their final states' mean and variance
must match within Z_BOUND standard errors. Planted bugs (test-only subclasses): a "bound" that exceeds the
likelihood, a bright-datum weight log(L/B) instead of log(L/B − 1), an MH ratio with the wrong sign.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from sgmcmc_verify.integrators.flymc import FireflyMC
from sgmcmc_verify.integrators.random_walk import RandomWalkMetropolis
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.targets.bounds import GaussianFitTarget, GaussianFitTaylorBound, LogisticJJBound, lognormal_data

Z_BOUND = 4.5  # two-sided normal tail 7e-6 per statistic (4 statistics per run); every test is seeded
CHAINS, STEPS = 4000, 400
PRIOR = 0.1


class NotALowerBound(LogisticJJBound):
    """Planted bug: the JJ bound raised by 0.3 nats per datum, so that B_n > L_n near the tuning point."""

    def log_bound_pairs(self, theta, idx):
        return super().log_bound_pairs(theta, idx) + 0.3

    def log_bound_total(self, theta):
        return super().log_bound_total(theta) + 0.3 * self.n


class LogRatioWeight(FireflyMC):
    """Planted bug: a bright datum weighted by log(L_n/B_n) instead of log(L_n/B_n − 1)."""

    def bright_log_weight(self, a):
        return np.where(a > 0, a, -np.inf)


class WrongSignMH(RandomWalkMetropolis):
    """Planted bug: the MH log-ratio with its sign flipped."""

    def log_acceptance_ratio(self, potential_current, potential_proposed):
        return potential_proposed - potential_current


@pytest.fixture(scope="module")
def problem():
    """``(bound at the MAP, exact mean, exact covariance, a potential for MH)``."""
    rng = np.random.default_rng(1)
    n = 20
    X = np.column_stack([np.ones(n), rng.standard_normal(n)])
    y = (rng.random(n) < 1 / (1 + np.exp(-(0.5 + 1.5 * X[:, 1])))).astype(float)

    def nlp(t):
        return np.sum(np.logaddexp(0, -(2 * y - 1) * (X @ t))) + 0.5 * PRIOR * t @ t

    tmap = minimize(nlp, np.zeros(2)).x
    b = LogisticJJBound.at(X, y, tmap, PRIOR)
    g1, g2 = np.linspace(tmap[0] - 5, tmap[0] + 5, 501), np.linspace(tmap[1] - 7, tmap[1] + 7, 501)
    T = np.stack(np.meshgrid(g1, g2, indexing="ij"), -1).reshape(-1, 2)
    lp = b.log_prior(T) + b.log_likelihood_total(T)
    w = np.exp(lp - lp.max())
    w /= w.sum()
    mean = w @ T
    cov = (T - mean).T @ ((T - mean) * w[:, None])

    class Potential:
        def __init__(self):
            self.n, self.dim = n, 2

        def potential(self, theta):
            return -(b.log_prior(theta) + b.log_likelihood_total(theta))

    return b, mean, cov, Potential()


def _law_matches(sampler, mean, cov, seed=0):
    """Final states of CHAINS chains after STEPS steps from one point 1.5 s.d. off the mean (a chain that does not
    move fails): mean and variance within Z_BOUND s.e. of the exact ones."""
    rng = np.random.default_rng(seed)
    x0 = np.repeat((mean + 1.5 * np.sqrt(np.diag(cov)))[None], CHAINS, 0)
    out = run_chains(sampler, sampler.init(x0), rng, steps=STEPS)
    P = out["state"].position
    var = np.diag(cov)
    z_mean = (P.mean(0) - mean) / np.sqrt(var / CHAINS)
    z_var = (P.var(0, ddof=1) - var) / (var * np.sqrt(2.0 / (CHAINS - 1)))  # Gaussian-shape s.e. of a variance
    return bool(np.all(np.abs(z_mean) < Z_BOUND) and np.all(np.abs(z_var) < Z_BOUND)), out


@pytest.mark.statistical(pair="flymc.stationary_law")
@pytest.mark.parametrize("proposal,eps", [("mala", 0.05), ("random_walk", 0.5)])
def test_flymc_leaves_the_exact_posterior_invariant(problem, proposal, eps):
    b, mean, cov, _ = problem
    ok, out = _law_matches(FireflyMC(b, eps, 5, proposal), mean, cov)
    assert ok
    assert out["info"]["bound_violations"] == 0


@pytest.mark.negative_control(pair="flymc.stationary_law")
def test_flymc_law_check_catches_a_bound_above_the_likelihood(problem):
    b, mean, cov, _ = problem
    ok, out = _law_matches(FireflyMC(NotALowerBound(b.X, b.y, b.xi, PRIOR), 0.05, 5), mean, cov)
    assert not ok
    assert out["info"]["bound_violations"] > 0  # and the sampler reports it


@pytest.mark.negative_control(pair="flymc.stationary_law")
def test_flymc_law_check_catches_a_wrong_bright_weight(problem):
    b, mean, cov, _ = problem
    assert not _law_matches(LogRatioWeight(b, 0.05, 5), mean, cov)[0]


@pytest.mark.statistical(pair="flymc.random_walk_mh")
def test_random_walk_mh_leaves_the_exact_posterior_invariant(problem):
    _, mean, cov, pot = problem
    assert _law_matches(RandomWalkMetropolis(pot, 0.5), mean, cov)[0]


@pytest.mark.negative_control(pair="flymc.random_walk_mh")
def test_random_walk_mh_check_catches_a_flipped_ratio(problem):
    _, mean, cov, pot = problem
    assert not _law_matches(WrongSignMH(pot, 0.5), mean, cov)[0]


def test_flymc_counts_resampled_plus_bright_evaluations(problem):
    b = problem[0]
    f = FireflyMC(b, 0.05, 5)
    st, info = f.step(f.init(np.zeros((7, 2))), np.random.default_rng(3))
    k = st.bright.sum(axis=1)
    np.testing.assert_array_equal(st.data_used, 5 + k)
    assert info.evaluations == pytest.approx(5 + k.mean())
    assert info.info["data_used_fraction"] == pytest.approx((5 + k.mean()) / b.n)
    out = run_chains(f, f.init(np.zeros((7, 2))), np.random.default_rng(3), checkpoints=[1.0], unit="passes")
    assert out["passes"][-1] >= 1.0 and out["steps"][-1] <= b.n // 5 + 1


def test_flymc_carried_bright_terms_equal_a_fresh_computation(problem):
    b = problem[0]
    f = FireflyMC(b, 0.05, 5)
    out = run_chains(f, f.init(np.zeros((6, 2))), np.random.default_rng(4), steps=50)
    st = out["state"]
    np.testing.assert_array_equal(np.sort(st.bright_keys), np.flatnonzero(st.bright))  # keys mirror the array
    ci, di = np.nonzero(st.bright)
    a, w, g = f._pairs(st.position, ci, di, True)
    np.testing.assert_allclose(st.bright_term, np.bincount(ci, w, minlength=6), rtol=1e-9, atol=1e-9)
    fresh = np.zeros((6, 2))
    np.add.at(fresh, ci, g)
    np.testing.assert_allclose(st.bright_grad, fresh, rtol=1e-8, atol=1e-8)


def test_flymc_is_reproducible_and_validates(problem):
    b = problem[0]
    f = FireflyMC(b, 0.05, 5)
    a = run_chains(f, f.init(np.zeros((3, 2))), np.random.default_rng(9), steps=20)["state"].position
    c = run_chains(f, f.init(np.zeros((3, 2))), np.random.default_rng(9), steps=20)["state"].position
    np.testing.assert_array_equal(a, c)
    with pytest.raises(ValueError, match="resample_size"):
        FireflyMC(b, 0.05, b.n + 1)
    with pytest.raises(ValueError, match="proposal"):
        FireflyMC(b, 0.05, 5, proposal="slice")
    with pytest.raises(ValueError, match="step_size"):
        FireflyMC(b, -1.0, 5)
    with pytest.raises(ValueError, match="momentum"):
        f.init(np.zeros((1, 2)), np.zeros((1, 2)))


def test_flymc_on_the_misspecified_gaussian_reports_no_violation_inside_the_box():
    t = GaussianFitTarget(lognormal_data(2000, 5))
    f = FireflyMC(GaussianFitTaylorBound(t), 1.5 * t.laplace_sd().min(), 200, "random_walk")
    out = run_chains(f, f.init(np.repeat(t.mle()[None], 4, 0)), np.random.default_rng(0), steps=200)
    assert out["info"]["bound_violations"] == 0
    assert np.all(t.in_box(out["state"].position))
