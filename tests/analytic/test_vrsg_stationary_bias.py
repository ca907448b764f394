"""The periodic-stationary bias of vrSG-LD on the §5 Gaussian model (analytic/vrsg_gaussian.vrsg_ld_stationary_bias).

Seed ``002_245183f35db8d795.txt``: Introduction ("the same bias bound as standard SG-MCMC"), Algorithm 1, §5.
"""
import numpy as np
import pytest

from sgmcmc_verify.analytic import vrsg_gaussian as G

X = np.random.default_rng(3).standard_normal(40) + 0.7


@pytest.mark.parametrize("n", [1, 5, 39])
def test_one_step_period_is_sgld(n):
    for h in (1e-4, 1e-2):
        assert G.vrsg_ld_stationary_bias(X, h, n, 1) == pytest.approx(G.sgld_stationary_bias(X, h, n), rel=1e-12)


@pytest.mark.parametrize("test_function", ["square", "identity"])
def test_closed_form_is_the_long_run_limit_of_the_exact_recursion(test_function):
    """E φ̂_L − φ̄ = b + c/L from a posterior start: 2 e(2L) − e(L) removes c/L, leaving b."""
    h, n1, m, L = 5e-3, 10, 7, 700_000
    me = G.vrsg_ld_time_average_mse(X, h, [L, 2 * L], n1, m, test_function=test_function).mean_error
    b = G.vrsg_ld_stationary_bias(X, h, n1, m, test_function=test_function)
    assert 2 * me[1] - me[0] == pytest.approx(b, rel=1e-6, abs=1e-14)


def test_a_biased_anchor_moves_the_mean():
    """A planted anchor error with mean μ shifts E u by −μ/κ: the bias of φ = θ gets that term, O(1) in h."""
    k = X.size + 1.0
    z = G.noise_moments(X, 10)
    z[1] = 0.3
    for h in (1e-4, 1e-3):
        assert G.vrsg_ld_stationary_bias(X, h, 10, 5, test_function="identity", zeta_moments=z) == pytest.approx(-0.3 / k)


def test_unstable_step_and_bad_interval_are_refused():
    with pytest.raises(ValueError, match="unstable"):
        G.vrsg_ld_stationary_bias(X, 0.1, 10, 5)
    with pytest.raises(ValueError, match="update_interval"):
        G.vrsg_ld_stationary_bias(X, 1e-3, 10, 0)
