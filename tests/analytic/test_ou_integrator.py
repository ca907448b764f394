"""The closed forms of the exponential (OU) integrator, HSG-HMC eqs. (4)–(6) (analytic/ou_integrator.py).

Seed ``001_d56659fdb8996bf2.txt`` (HSG-HMC), eqs. (3)–(6), Lemma 1: a sympy check of the printed formulas
against the variation-of-constants solution, high-precision (mpmath) comparisons of the cancellation-free
float64 forms, and their behaviour for tiny and huge γη.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from sgmcmc_verify.analytic.ou_integrator import ou_noise_cholesky, ou_noise_covariance, ou_step_coefficients, symbolic_check


def paper_eq6_mp(gamma, eta, u, dps=60):
    """Eq. (6) as printed, in mpmath at ``dps`` digits: (Var ε_x, Cov, Var ε_v)."""
    with mpmath.workdps(dps):
        g, h, uu = mpmath.mpf(gamma), mpmath.mpf(eta), mpmath.mpf(u)
        e1, e2 = mpmath.exp(-g * h), mpmath.exp(-2 * g * h)
        vxx = uu / g**2 * (2 * h * g + 4 * e1 - e2 - 3)
        cxv = uu / g * (1 - 2 * e1 + e2)
        vvv = uu * (1 - e2)
        return float(vxx), float(cxv), float(vvv)


def paper_eq45_mp(gamma, eta, u, dps=60):
    """Coefficients of (4)–(5) as printed, in mpmath: (v_decay, x_from_v, x_from_g, v_from_g)."""
    with mpmath.workdps(dps):
        g, h, uu = mpmath.mpf(gamma), mpmath.mpf(eta), mpmath.mpf(u)
        e1 = mpmath.exp(-g * h)
        return (float(e1), float((1 - e1) / g), float(-uu / g**2 * (h * g + e1 - 1)), float(-uu / g * (1 - e1)))


@pytest.fixture(scope="module")
def sympy_differences():
    return symbolic_check()


def test_symbolic_check_paper_eq4_to_6_equal_variation_of_constants(sympy_differences):
    expected = {"x_from_x", "v_from_x", "x_from_v", "x_from_g", "v_decay", "v_from_g", "cov_vv", "cov_xx", "cov_xv", "mean_ode_x",
                "mean_ode_v", "mean_initial", "cov_ode_xx", "cov_ode_xv", "cov_ode_vv", "cov_initial",
                "stationary_velocity", "phi2_series", "psi_series"}
    assert set(sympy_differences) == expected
    nonzero = {k: v for k, v in sympy_differences.items() if v != 0}
    assert nonzero == {}


def test_symbolic_check_negative_control_detects_a_misprint():
    # a planted misprint in (6) (the factor 4 → 3 in E[ε_x ε_x]) must not simplify to zero
    import sympy as sp
    g, h, u = sp.symbols("gamma eta u", positive=True)
    right = u / g**2 * (2 * h * g + 4 * sp.exp(-h * g) - sp.exp(-2 * g * h) - 3)
    wrong = u / g**2 * (2 * h * g + 3 * sp.exp(-h * g) - sp.exp(-2 * g * h) - 3)
    assert sp.simplify(right - wrong) != 0


@pytest.mark.parametrize("a", np.concatenate([np.logspace(-12, 2.5, 43), [0.4999999, 0.5, 0.5000001]]))
@pytest.mark.parametrize("eta,u", [(1.0, 1.0), (0.01, 2.5)])
def test_stable_formulas_match_printed_eq6_in_high_precision(a, eta, u):
    gamma = a / eta
    S = ou_noise_covariance(gamma, eta, u)
    vxx, cxv, vvv = paper_eq6_mp(gamma, eta, u)
    np.testing.assert_allclose([S[0, 0], S[0, 1], S[1, 1]], [vxx, cxv, vvv], rtol=2e-14, atol=0)
    c = ou_step_coefficients(gamma, eta, u)
    np.testing.assert_allclose(c, paper_eq45_mp(gamma, eta, u), rtol=2e-14, atol=0)
    L = ou_noise_cholesky(gamma, eta, u)
    np.testing.assert_allclose(L @ L.T, S, rtol=1e-14, atol=0)


def test_naive_printed_eq6_loses_all_digits_for_tiny_gamma_eta():
    # negative control for the series: the printed form evaluated in float64 is useless at γη = 1e-12
    g, h = 1e-12, 1.0
    naive = 1.0 / g**2 * (2 * h * g + 4 * math.exp(-h * g) - math.exp(-2 * g * h) - 3)
    exact = paper_eq6_mp(g, h, 1.0)[0]
    assert abs(naive - exact) > 0.5 * exact
    assert ou_noise_covariance(g, h)[0, 0] == pytest.approx(exact, rel=1e-14)


@pytest.mark.parametrize("gamma,eta", [(1e-12, 1.0), (1.0, 1e-12), (1e-150, 1e-100), (1e-300, 1.0), (1e6, 1e3)])
def test_noise_covariance_tiny_and_huge_gamma_eta_finite_psd(gamma, eta):
    S = ou_noise_covariance(gamma, eta)
    L = ou_noise_cholesky(gamma, eta)
    assert np.all(np.isfinite(S)) and np.all(np.isfinite(L))
    assert S[0, 1] == S[1, 0]
    assert np.all(np.linalg.eigvalsh(S) >= 0)
    assert S[0, 1] ** 2 <= S[0, 0] * S[1, 1] * (1 + 1e-15) or S[0, 0] * S[1, 1] == 0.0
    assert L[0, 1] == 0.0 and L[0, 0] >= 0 and L[1, 1] >= 0


def test_noise_covariance_small_gamma_eta_leading_terms():
    # a → 0: Var ε_x ≈ (2/3)uγη³, Cov ≈ uγη², Var ε_v ≈ 2uγη, squared correlation → 3/4
    g, h, u = 1e-12, 1.0, 3.0
    S = ou_noise_covariance(g, h, u)
    np.testing.assert_allclose([S[0, 0], S[0, 1], S[1, 1]], [2 / 3 * u * g * h**3, u * g * h**2, 2 * u * g * h],
                               rtol=1e-11)
    assert S[0, 1] ** 2 / (S[0, 0] * S[1, 1]) == pytest.approx(0.75, rel=1e-10)


def test_squared_correlation_never_exceeds_three_quarters():
    for a in np.logspace(-10, 3, 200):
        S = ou_noise_covariance(a, 1.0)
        assert S[0, 1] ** 2 / (S[0, 0] * S[1, 1]) <= 0.75 + 1e-12


def test_step_coefficients_free_flight_limit():
    c = ou_step_coefficients(1e-14, 0.3, 2.0)
    np.testing.assert_allclose(c, [1.0, 0.3, -2.0 * 0.3**2 / 2, -2.0 * 0.3], rtol=1e-12)
    assert all(isinstance(v, np.float64) for v in c)


@pytest.mark.parametrize("fn", [ou_step_coefficients, ou_noise_covariance, ou_noise_cholesky])
@pytest.mark.parametrize("args,name", [((0.0, 0.1, 1.0), "gamma"), ((1.0, -0.1, 1.0), "eta"),
                                       ((1.0, 0.1, 0.0), "u"), ((1.0, np.inf, 1.0), "eta")])
def test_bad_analytic_input_raises_value_error_naming_parameter(fn, args, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        fn(*args)


