"""The exact MSE of SGLD / vrSG-LD time averages on the vrSG §5 model (analytic/vrsg_gaussian.py).

Cross-checks of the matrix-power moment recursion: step-by-step propagation, exact rational arithmetic,
40-digit mpmath at L = 10⁹, and SGLD's closed-form stationary law (bias and long-run variance). The Monte
Carlo checks against the real samplers are in ``tests/papers/vrsg/test_vrsg_theory_studies.py``.
"""
from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

from sgmcmc_verify.analytic import vrsg_gaussian as G
from sgmcmc_verify.analytic.vrsg import sample_sum_moment_symbolic
from sgmcmc_verify.targets import GaussianMeanModel, vrsg_gaussian_target

X = np.linspace(-2.0, 2.0, 40) ** 3 / 3 + 0.5     # a skewed population: third and fourth moments matter


def _moments_vector(mod, start="prior"):
    return G.start_moments(mod, start)


def test_model_matches_the_target_class():
    t = vrsg_gaussian_target()
    m = G.gaussian_model(t.centers[:, 0])
    np.testing.assert_allclose([m.posterior_mean, m.posterior_var], [t.posterior_mean[0], t.posterior_cov[0, 0]], rtol=1e-14)
    assert m.kappa == 1001.0


def test_full_batch_without_replacement_has_no_noise():
    np.testing.assert_array_equal(G.noise_moments(X, X.size), [1.0, 0.0, 0.0, 0.0, 0.0])
    z = G.noise_moments(X, 5)
    assert z[2] > 0 and z[3] != 0


def test_matrix_power_equals_stepwise_propagation():
    mod = G.gaussian_model(X)
    h, m = 2e-3, 3
    g = (-mod.posterior_var, 2 * mod.posterior_mean, 1.0)
    zm = G.noise_moments(X, 4)
    fast = G.linear_time_average_mse(1 - h * mod.kappa, h, zm, [7, 50], g=g, u0_moments=_moments_vector(mod), refresh_every=m)
    M, R = G.step_matrix(1 - h * mod.kappa, h, g), G.refresh_matrix(zm)
    v = np.zeros(len(G.MONOMIALS))
    for p in range(5):
        v[G.MONOMIALS.index((p, 0, 0))] = _moments_vector(mod)[p]
    for l in range(50):
        v = M @ (R @ v if l % m == 0 else v)
        if l + 1 in (7, 50):
            k = 0 if l + 1 == 7 else 1
            np.testing.assert_allclose(v[G.MONOMIALS.index((0, 0, 2))] / (l + 1) ** 2, fast.mse[k], rtol=1e-12)


def test_exact_rational_arithmetic_for_a_short_chain():
    x = [sp.Rational(k, 3) for k in (-4, -1, 0, 2, 5, 7)]
    xs = np.array([float(v) for v in x])
    N, n, L = len(x), 2, 6
    h, lam = sp.Rational(1, 50), sp.Integer(1)
    kap = N + lam
    mean = sum(x) / kap
    g = (-1 / kap, 2 * mean, sp.Integer(1))
    c = [v - sum(x) / N for v in x]
    subs = {sp.Symbol("N", positive=True): N, sp.Symbol("n", positive=True): n}
    subs |= {sp.Symbol(f"p{j}"): sum(v**j for v in c) for j in range(2, 7)}
    ez = [sp.Integer(1), sp.Integer(0)] + [(-sp.Integer(N) / n) ** k * sample_sum_moment_symbolic(k).subs(subs) for k in (2, 3, 4)]
    Msym = G._step_fn()[1]
    a_, h_, s2_, g0_, g1_, g2_ = sp.symbols("a h s2 g0 g1 g2")
    M = Msym.subs({a_: 1 - h * kap, h_: h, s2_: 2 * h, g0_: g[0], g1_: g[1], g2_: g[2]})
    R = sp.Matrix(G.refresh_matrix([float(v) for v in ez]).shape[0], G.refresh_matrix([1, 0, 0, 0, 0]).shape[1],
                  lambda i, j: ez[G.MONOMIALS[i][1]] if G.MONOMIALS[j] == (G.MONOMIALS[i][0], 0, G.MONOMIALS[i][2]) else 0)
    v = sp.zeros(len(G.MONOMIALS), 1)
    v[G.MONOMIALS.index((0, 0, 0))] = 1
    v[G.MONOMIALS.index((2, 0, 0))] = 1 / kap          # θ_0 ~ posterior
    v[G.MONOMIALS.index((4, 0, 0))] = 3 / kap**2
    for _ in range(L):
        v = M * (R * v)
    exact = v[G.MONOMIALS.index((0, 0, 2))] / L**2
    fl = G.sgld_time_average_mse(xs, float(h), [L], n).mse[0]
    assert abs(fl - float(exact)) <= 1e-13 * float(exact)


def test_float64_matrix_power_agrees_with_40_digit_mpmath_at_a_billion_steps():
    mod = G.gaussian_model(X)
    h, n, L = 3e-3, 4, 10**9
    g = (-mod.posterior_var, 2 * mod.posterior_mean, 1.0)
    zm, u0 = G.noise_moments(X, n), _moments_vector(mod)
    fl = G.linear_time_average_mse(1 - h * mod.kappa, h, zm, [L], g=g, u0_moments=u0).mse[0]
    with mp.workdps(40):
        a_, h_, s2_, g0_, g1_, g2_ = sp.symbols("a h s2 g0 g1 g2")
        f = sp.lambdify((a_, h_, s2_, g0_, g1_, g2_), G._step_fn()[1], "mpmath")
        M = mp.matrix(f(1 - mp.mpf(h) * mp.mpf(mod.kappa), mp.mpf(h), 2 * mp.mpf(h), *(mp.mpf(v) for v in g)))
        P = (M * mp.matrix(G.refresh_matrix(zm).tolist())) ** L
        v = mp.matrix([0] * len(G.MONOMIALS))
        for p in range(5):
            v[G.MONOMIALS.index((p, 0, 0))] = mp.mpf(u0[p])
        ref = float((P * v)[G.MONOMIALS.index((0, 0, 2))] / mp.mpf(L) ** 2)
    assert abs(fl - ref) <= 1e-11 * ref


@pytest.mark.parametrize("n, h", [(1, 1e-4), (10, 5e-4), (1000, 1e-4)])
def test_long_chains_reach_the_closed_form_bias_and_long_run_variance(n, h):
    x = vrsg_gaussian_target().centers[:, 0]
    L = 10**10
    r = G.sgld_time_average_mse(x, h, [L], n)
    b, lrv = G.sgld_stationary_bias(x, h, n), G.sgld_long_run_variance(x, h, n)
    # the start at the posterior leaves an O(1/(L h κ)) transient: ~1e-8 relative here
    np.testing.assert_allclose(r.mean_error[0], b, rtol=1e-6)
    np.testing.assert_allclose(r.mse[0], b * b + lrv / L, rtol=1e-6)


def test_identity_test_function_has_no_bias_and_a_linear_long_run_variance():
    x = vrsg_gaussian_target(200).centers[:, 0]
    r = G.sgld_time_average_mse(x, 1e-3, [10**9], 3, test_function="identity")
    assert abs(r.mean_error[0]) < 1e-9
    np.testing.assert_allclose(r.mse[0] * 1e9, G.sgld_long_run_variance(x, 1e-3, 3, test_function="identity"), rtol=1e-5)


def test_vrsg_with_a_fresh_anchor_every_step_is_sgld_with_the_anchor_batch():
    x = vrsg_gaussian_target(300).centers[:, 0]
    a = G.vrsg_ld_time_average_mse(x, 2e-4, [10, 1000, 12345], 20, 1).mse
    b = G.sgld_time_average_mse(x, 2e-4, [10, 1000, 12345], 20).mse
    np.testing.assert_allclose(a, b, rtol=1e-13)


def test_anchor_noise_held_for_m_steps_inflates_the_mse():
    x = vrsg_gaussian_target().centers[:, 0]
    one, ten = (G.vrsg_ld_time_average_mse(x, 1e-4, [10**6], 100, m).mse[0] for m in (1, 10))
    assert ten > 5 * one


def test_target_gradients_and_posterior():
    t = GaussianMeanModel(np.array([[1.0], [3.0], [-2.0]]), prior_precision=2.0)
    th = np.array([[0.3], [-1.2]])
    e = 1e-6
    fd = (t.potential(th + e) - t.potential(th - e)) / (2 * e)
    np.testing.assert_allclose(t.full_gradient(th)[:, 0], fd, rtol=1e-8)
    idx = np.broadcast_to(np.arange(3), (2, 3))
    np.testing.assert_allclose(t.prior_gradient(th) + t.data_gradients(th, idx).sum(1), t.full_gradient(th), rtol=1e-14)
    np.testing.assert_allclose(t.full_gradient(t.posterior_mean[None]), 0.0, atol=1e-14)
    np.testing.assert_allclose(t.posterior_cov, [[1 / 5]])


def test_vrsg_gaussian_target_draws_and_sensitivity():
    a, b = vrsg_gaussian_target(), vrsg_gaussian_target(generating_theta=0.0)
    assert a.n == 1000 and a.dim == 1
    np.testing.assert_allclose(a.centers - a.centers.mean(), b.centers - b.centers.mean(), rtol=1e-12, atol=1e-12)
    assert abs(b.centers.mean()) < 0.1 < abs(a.centers.mean())


@pytest.mark.parametrize("call, name", [
    (lambda: G.gaussian_model([1.0]), "x"), (lambda: G.start_moments(G.gaussian_model(X), "middle"), "start"),
    (lambda: G.sgld_time_average_mse(X, 1e-3, [0], 2), "steps"), (lambda: G.sgld_time_average_mse(X, -1.0, [5], 2), "step_size"),
    (lambda: G.sgld_time_average_mse(X, 1e-3, [5], 2, test_function="cube"), "test_function"),
    (lambda: G.sgld_stationary_moments(X, 1.0, 2), "unstable"), (lambda: G.refresh_matrix([1, 0, 1]), "zeta_moments"),
    (lambda: GaussianMeanModel(np.ones((3, 1)), prior_precision=0.0), "prior_precision"),
    (lambda: vrsg_gaussian_target(generating_theta=float("inf")), "generating_theta"),
])
def test_bad_input_raises_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
