"""Exact identities of the EWSG theory modules: weights (4), index laws, the LP of Theorem 4.1, the Lyapunov
split, the exact time-average moments, EWSG's linear response (seed 000, §4, Appendices A, B, H).

Tolerances: identities between two exact computations are checked to 1e-12 relative (a few hundred ulps:
sums over n <= 50 terms and small linear solves); finite differences and first-order expansions to the
size of their neglected term, stated at each test.
"""
import itertools

import numpy as np
import pytest

from sgmcmc_verify.analytic.ewsg_weights import (ewsg_log_weights, gaussian_means_linear_response, linear_response_recursion,
                                   metropolis_index_law, normalized_weights, subsampling_moments,
                                   trace_cov_first_order, variance_change)
from sgmcmc_verify.analytic.linear_samplers import (minibatch_noise_covariance, stationary_bias_split, stationary_moments,
                                      underdamped_em_recursion)
from sgmcmc_verify.analytic.optimal_subsampling import lp_constraints, optimal_unbiased_law
from sgmcmc_verify.analytic.time_average import (em_asymptotic_time_average_variance, em_time_average_moments,
                                   uld_asymptotic_time_average_variance, uld_time_average_mse,
                                   uld_time_average_mse_closed_form)
from sgmcmc_verify.estimators import EWSGIndexChain
from sgmcmc_verify.targets import gaussian_means_target

T51 = gaussian_means_target()
SIG = np.sqrt(20.0)


def _states(rng, S=4):
    return T51.posterior_mean + rng.standard_normal((S, 2)) / np.sqrt(50), rng.standard_normal((S, 2))


def test_estimator_weights_are_equation_4_with_its_common_term():
    """p_i ∝ exp(−½‖x + Σ_j a_j‖² + ½‖x + n a_i‖²): the common term cancels in the normalization."""
    rng = np.random.default_rng(0)
    th, r = _states(rng)
    h = 3e-4
    p = EWSGIndexChain(1).index_weights(T51, th, r, h, 10.0, SIG)
    x = np.sqrt(h) * 10.0 * r / SIG
    a = np.sqrt(h) / SIG * T51.data_gradients(th, np.broadcast_to(np.arange(50), (4, 50)))  # a_i = √h ∇V_i / σ
    full = np.sum((x + a.sum(axis=1)) ** 2, axis=1)[:, None]
    logp = -0.5 * full + 0.5 * np.sum((x[:, None, :] + 50 * a) ** 2, axis=-1)
    ref = np.exp(logp - logp.max(axis=1, keepdims=True))
    np.testing.assert_allclose(p, ref / ref.sum(axis=1, keepdims=True), rtol=1e-12)


def _transition(lw):
    n = lw.size
    P = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                P[i, j] = min(1.0, np.exp(lw[j] - lw[i])) / n
        P[i, i] = 1.0 - P[i].sum()
    return P


def test_metropolis_law_matches_an_explicit_transition_matrix_and_leaves_weights_4_invariant():
    rng = np.random.default_rng(1)
    lw = rng.normal(size=(3, 7)) * 2.0
    for M in (0, 1, 4):
        ref = np.stack([np.full(7, 1 / 7) @ np.linalg.matrix_power(_transition(l_), M) for l_ in lw])
        np.testing.assert_allclose(metropolis_index_law(lw, M), ref, rtol=1e-12, atol=1e-15)
    pE = normalized_weights(lw)
    for c in range(3):
        np.testing.assert_allclose(pE[c] @ _transition(lw[c]), pE[c], rtol=1e-12)  # detailed balance
    with pytest.raises(ValueError, match="index_chain_length"):
        metropolis_index_law(lw, -1)


@pytest.mark.parametrize("M", [None, 1, 5])
def test_trace_first_order_is_the_derivative_for_every_index_law(M):
    """Central difference at ε = ±δ: error O(δ²) ~ 1e-10 relative; the exact weights and every M >= 1 share it."""
    rng = np.random.default_rng(2)
    b = 3.0 * rng.standard_normal((2, 9, 2)) + 1.0
    y = rng.standard_normal(2)
    d1 = trace_cov_first_order(b, np.broadcast_to(y, (2, 2)))
    sig, dh = 1.0, 1e-5  # ε = h/σ²
    plus, _ = variance_change(b, y, dh, sig, M)
    minus, _ = variance_change(b, y, dh / 2, sig, M)  # one-sided pair: (Δ(δ) − Δ(δ/2)) / (δ/2) = D1 + O(δ)
    np.testing.assert_allclose((plus - minus) / (dh / 2), d1, rtol=1e-3)
    np.testing.assert_allclose(plus / dh, d1, rtol=1e-3)


def test_variance_change_two_points_closed_form():
    """n = 2: Tr cov_p = p1 p2 ‖b1 − b2‖², p1/p2 = exp(ε(u1 − u2))."""
    b = np.array([[[1.0, 2.0], [-0.5, 0.3]]])
    y, h, s = np.array([0.2, -0.1]), 0.3, 0.7
    u = 0.5 * np.sum((y + b[0]) ** 2, axis=1)
    p1 = 1.0 / (1.0 + np.exp(h / s**2 * (u[1] - u[0])))
    dist = np.sum((b[0, 0] - b[0, 1]) ** 2)
    delta, tr_u = variance_change(b, y, h, s)
    np.testing.assert_allclose(delta, p1 * (1 - p1) * dist - 0.25 * dist, rtol=1e-12)
    np.testing.assert_allclose(tr_u, 0.25 * dist, rtol=1e-12)


def test_linear_response_is_the_first_order_conditional_bias():
    """At h = 1e-5 the second-order part is ~0.2 % (it is ~2 % at 1e-4); both laws are checked to 1 %."""
    rng = np.random.default_rng(3)
    th, r = _states(rng)
    h = 1e-5
    resp = gaussian_means_linear_response(T51.centers, 10.0)
    pred = (h / 20.0) * ((th - T51.posterior_mean) @ resp.G_theta.T + r @ resp.G_r.T + resp.g0)
    g = 50 * T51.data_gradients(th, np.broadcast_to(np.arange(50), (4, 50)))
    for p in (EWSGIndexChain(1).index_weights(T51, th, r, h, 10.0, SIG), EWSGIndexChain(1).index_law(T51, th, r, h, 10.0, SIG)):
        mean, _ = subsampling_moments(p, g)
        np.testing.assert_allclose(mean - T51.full_gradient(th), pred, rtol=1e-2)


def test_linear_response_recursion_reduces_to_sghmc_without_weights():
    rec = underdamped_em_recursion(T51.hessian, T51.posterior_mean, minibatch_noise_covariance(T51.centers), 1e-2, 10.0)
    zero = gaussian_means_linear_response(T51.centers, 10.0)._replace(
        G_theta=np.zeros((2, 2)), G_r=np.zeros((2, 2)), g0=np.zeros(2))
    lr = linear_response_recursion(rec, zero, T51.posterior_mean, 1e-2, SIG)
    np.testing.assert_array_equal(lr.A, rec.A)
    np.testing.assert_array_equal(lr.a, rec.a)


def _brute_force_lp(b):
    """Every vertex of {p >= 0, A_eq p = b_eq}: basic solutions on (d+1)-subsets of columns."""
    A, beq = lp_constraints(b)
    cost = np.sum(b * b, axis=1)
    best, best_S = np.inf, None
    for S in itertools.combinations(range(b.shape[0]), A.shape[0]):
        M = A[:, S]
        if abs(np.linalg.det(M)) < 1e-12:
            continue
        p = np.linalg.solve(M, beq)
        if np.all(p >= -1e-12) and cost[list(S)] @ p < best - 1e-12:
            best, best_S = cost[list(S)] @ p, tuple(i for i, q in zip(S, p) if q > 1e-12)
    return best, best_S


@pytest.mark.parametrize("n,d,seed", [(5, 1, 0), (6, 2, 1), (7, 2, 2), (7, 3, 3)])
def test_lp_optimum_and_support_match_brute_force_vertex_enumeration(n, d, seed):
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((n, d))
    b = -n * (c - c.mean(axis=0))
    best, S = _brute_force_lp(b)
    sol = optimal_unbiased_law(b)
    np.testing.assert_allclose(sol.variance, best, rtol=1e-9)
    assert tuple(sol.support) == S and sol.support.size <= d + 1
    assert set(sol.support) <= set(sol.tight) and sol.tight.size <= d + 1


def test_lp_certificate_is_a_dual_optimum():
    rng = np.random.default_rng(4)
    c = rng.standard_normal((40, 3))
    b = -40 * (c - c.mean(axis=0))
    sol = optimal_unbiased_law(b)
    scale = np.max(np.sum(b * b, axis=1))
    assert sol.reduced_costs.min() >= -1e-11 * scale                    # dual feasibility
    np.testing.assert_allclose(sol.p @ sol.reduced_costs, 0.0, atol=1e-9 * scale)  # complementary slackness
    np.testing.assert_allclose(sol.p @ b, 0.0, atol=1e-9 * np.sqrt(scale))  # unbiased
    np.testing.assert_allclose(sol.variance, sol.offset, rtol=1e-9)     # strong duality: min = μ (λᵀΣp_i b_i = 0)


def test_lp_on_equal_norms_has_dense_optima_and_rejects_biased_input():
    ang = np.linspace(0, np.pi, 8, endpoint=False)
    b = np.concatenate([np.c_[np.cos(ang), np.sin(ang)], -np.c_[np.cos(ang), np.sin(ang)]])
    sol = optimal_unbiased_law(b)
    assert sol.tight.size == 16 and np.isinf(sol.margin)
    np.testing.assert_allclose(sol.variance, sol.uniform_variance, rtol=1e-12)
    with pytest.raises(ValueError, match="sum to zero"):
        optimal_unbiased_law(b + 1.0)


def test_stationary_bias_split_adds_up_and_sg_part_is_a_rescaled_integrator_variance():
    Q = minibatch_noise_covariance(T51.centers)
    for h in (1e-4, 5e-3, 8e-2):
        s = stationary_bias_split(T51.hessian, T51.posterior_mean, Q, h, 10.0)
        np.testing.assert_allclose(s.full_gradient + s.stochastic_gradient, s.total, rtol=1e-12)
        a = h * np.trace(Q) / (2 * 20.0)  # h tr Q / (d σ²): exact because H ∝ I
        np.testing.assert_allclose(s.stochastic_gradient, a * (0.04 + s.full_gradient), rtol=1e-10)


def test_time_average_moments_match_a_double_sum():
    rng = np.random.default_rng(5)
    rec = underdamped_em_recursion(np.array([[3.0, 0.5], [0.5, 2.0]]), [0.3, -0.2], np.eye(2), 0.1, 1.5)
    m0, S0, K = rng.standard_normal(4), np.eye(4) * 0.3, 6
    P, c = np.diag([1.0, 1.0, 0.0, 0.0]), np.array([0.3, -0.2, 0.0, 0.0])
    ms, Ss, m, S = [], [], m0, S0
    for _ in range(K):
        m, S = rec.A @ m + rec.a, rec.A @ S @ rec.A.T + rec.W
        ms.append(m - c)
        Ss.append(S)
    mean = np.mean([np.trace(P @ Sk) + dk @ P @ dk for Sk, dk in zip(Ss, ms)])
    var = 0.0
    for j in range(K):
        for k in range(K):
            lo, hi = min(j, k), max(j, k)
            C = Ss[lo] @ np.linalg.matrix_power(rec.A, hi - lo).T
            var += 2 * np.trace(P @ C @ P @ C.T) + 4 * ms[lo] @ P @ C @ P @ ms[hi]
    got_m, got_v = em_time_average_moments(rec.A, rec.a, rec.W, m0, S0, [2, K], P, c)
    np.testing.assert_allclose([got_m[-1], got_v[-1]], [mean, var / K**2], rtol=1e-12)
    with pytest.raises(ValueError, match="steps"):
        em_time_average_moments(rec.A, rec.a, rec.W, m0, S0, [0], P, c)


def test_asymptotic_time_average_variance_limits():
    """K·Var φ̂_K → the asymptotic value (O(1/K) relative: 1 % at K h = 40 for a relaxation time 0.1);
    h → 0 gives the continuous C1 (O(h) relative), which T·MSE_0(T) approaches like 1/T (1.3 % at T = 8);
    the closed form of MSE_0(T) equals the quadrature (tolerance of ``quad``, 1e-8 relative)."""
    H, g = T51.hessian, 10.0
    P = np.diag([1.0, 1.0, 0.0, 0.0])
    rec = underdamped_em_recursion(H, T51.posterior_mean, np.zeros((2, 2)), 1e-2, g)
    m, S = stationary_moments(rec)
    _, v = em_time_average_moments(rec.A, rec.a, rec.W, m, S, [4000], P, np.concatenate([T51.posterior_mean, [0, 0]]))
    V = em_asymptotic_time_average_variance(rec.A, rec.W, P)
    np.testing.assert_allclose(4000 * v[0], V, rtol=1e-2)
    C1 = uld_asymptotic_time_average_variance(H, g)
    rec0 = underdamped_em_recursion(H, T51.posterior_mean, np.zeros((2, 2)), 1e-5, g)
    np.testing.assert_allclose(1e-5 * em_asymptotic_time_average_variance(rec0.A, rec0.W, P), C1, rtol=1e-3)
    np.testing.assert_allclose(uld_time_average_mse_closed_form(H, g, 0.5), uld_time_average_mse(H, g, 0.5),
                               rtol=1e-8)
    np.testing.assert_allclose(8.0 * uld_time_average_mse_closed_form(H, g, 8.0), C1, rtol=0.02)


def test_log_weights_shape_and_doc_example():
    lw = ewsg_log_weights(np.zeros((1, 1)), np.array([[[1.0], [2.0]]]), 4.0, 2.0)
    np.testing.assert_allclose(lw, [[0.5, 2.0]])
