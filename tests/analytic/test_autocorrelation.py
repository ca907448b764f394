"""Exact autocorrelation of a stationary linear recursion (``sgmcmc_verify.analytic.autocorrelation``)."""
import numpy as np
import pytest

from sgmcmc_verify.analytic.autocorrelation import linear_autocorrelation, linear_integrated_time
from sgmcmc_verify.analytic.linear_samplers import minibatch_noise_covariance, stationary_moments, underdamped_em_recursion
from sgmcmc_verify.targets import gaussian_means_target


@pytest.mark.parametrize("phi", [-0.5, 0.0, 0.3, 0.9])
def test_ar1_closed_form(phi):
    """AR(1) with coefficient φ: ρ(s) = φ^s, τ = (1 + φ)/(1 − φ), to round-off."""
    S = [[1.0 / (1.0 - phi**2)]]
    np.testing.assert_allclose(linear_autocorrelation([[phi]], S, 0, [0, 1, 5]), [1.0, phi, phi**5], atol=1e-15)
    assert linear_integrated_time([[phi]], S, 0) == pytest.approx((1 + phi) / (1 - phi), rel=1e-13)


def test_integrated_time_is_the_sum_of_the_autocorrelations_for_sghmc():
    """τ = 1 + 2 Σ_{s=1}^{L} ρ(s) with L = 4000 steps (the tail beyond is < 1e-30 at spectral radius 0.985)."""
    t = gaussian_means_target(20)
    rec = underdamped_em_recursion(t.hessian, t.posterior_mean, minibatch_noise_covariance(t.centers), 0.005, 10.0)
    _, S = stationary_moments(rec)
    rho = linear_autocorrelation(rec.A, S, 0, np.arange(1, 4001))
    assert linear_integrated_time(rec.A, S, 0) == pytest.approx(1 + 2 * rho.sum(), rel=1e-10)


def test_sghmc_integrated_time_does_not_depend_on_the_gradient_noise():
    """On V = Σ ½‖θ − c_i‖² the minibatch noise enters only the momentum, as the thermal noise does: the
    autocorrelation of θ is that of full-gradient EM (a property the Fig. 1b study relies on)."""
    t = gaussian_means_target(20)
    taus = []
    for Q in (np.zeros((2, 2)), minibatch_noise_covariance(t.centers)):
        rec = underdamped_em_recursion(t.hessian, t.posterior_mean, Q, 0.05, 10.0)
        taus.append(linear_integrated_time(rec.A, stationary_moments(rec)[1], 0))
    assert taus[0] == pytest.approx(taus[1], rel=1e-12)


@pytest.mark.parametrize("A,S,index", [([[1.0]], [[1.0]], 0), ([[0.5]], [[1.0]], 1), ([[0.5]], [[0.0]], 0),
                                       ([[0.5, 0.0]], [[1.0]], 0)])
def test_bad_input_raises_value_error(A, S, index):
    with pytest.raises(ValueError):
        linear_integrated_time(A, S, index)
