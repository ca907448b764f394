"""Exact identities of vrSG-MCMC's analysis (analytic/vrsg.py), to machine precision, by enumeration and sympy.

Seed ``002_245183f35db8d795.txt``: Lemma 2, eq. (7), Proposition 10, eqs. (10)–(12), Theorem 6, Remark 7,
Corollary 4. Tolerance for an identity: 1e-12 relative to the size of the summed terms (float64 sums of at
most a few thousand O(1) terms carry ~1e-15 of round-off; 1e-12 leaves three digits of margin).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from sgmcmc_verify.analytic import vrsg as V

TOL = 1e-12


def _pop(rng, N, d, offset=0.0):
    return rng.standard_normal((N, d)) * rng.uniform(0.2, 5) + offset + rng.standard_normal(d)


def _exact_gamma(a):
    x = np.asarray(a, dtype=float).reshape(len(a), -1)
    N = x.shape[0]
    fr = [[Fraction(float(v)) for v in row] for row in x]
    tot = [sum(c) for c in zip(*fr)]
    return float((N * sum(v * v for r in fr for v in r) - sum(t * t for t in tot)) / (N * N * (N - 1)))


@pytest.mark.parametrize("N, d", [(2, 1), (3, 2), (7, 3), (50, 2), (200, 5)])
def test_lemma2_printed_eq7_and_centred_forms_agree_and_are_nonnegative(N, d):
    rng = np.random.default_rng(N * 10 + d)
    for _ in range(5):
        a = _pop(rng, N, d)
        g = V.gamma(a)
        assert g >= 0
        np.testing.assert_allclose([V.gamma_printed(a), V.gamma_eq7(a)], g, rtol=TOL)
        np.testing.assert_allclose(g, _exact_gamma(a), rtol=TOL)


def test_gamma_is_the_unbiased_sample_variance_over_N():
    a = np.random.default_rng(1).standard_normal((30, 3))
    np.testing.assert_allclose(V.gamma(a), np.var(a, axis=0, ddof=1).sum() / 30, rtol=TOL)


def test_gamma_of_equal_vectors_is_exactly_zero_and_the_printed_form_is_not():
    a = np.full((5, 2), 3.7)
    assert V.gamma(a) == 0.0
    assert V.gamma_printed(a) != 0.0  # cancellation: S/N² − (S − D)/(N(N−1)) leaves round-off of size ‖ā‖²·eps


def test_the_centred_form_survives_a_large_offset_where_the_printed_form_fails():
    z = np.random.default_rng(2).standard_normal((50, 1))
    a = 1e8 + z
    exact = _exact_gamma(a)
    assert abs(V.gamma(a) - exact) <= 1e-14 * exact
    assert abs(V.gamma_printed(a) - exact) > 1e-2 * exact   # the printed form has lost every digit (1e16 ≈ 1/eps)


def test_gamma_batched_over_leading_axes():
    a = np.random.default_rng(3).standard_normal((4, 6, 20, 2))
    g = V.gamma(a)
    assert g.shape == (4, 6)
    np.testing.assert_allclose(g[2, 3], V.gamma(a[2, 3]), rtol=TOL)
    np.testing.assert_allclose(V.gamma_cross(a, a), g, rtol=TOL)


def test_lemma2_sympy_and_the_garbled_i_le_j():
    g = V.gamma_symbolic()
    N, D = sp.symbols("N D", positive=True)
    assert g["printed_minus_closed"] == 0 and g["eq7_minus_closed"] == 0 and g["theorem3_residual"] == 0
    assert sp.simplify(g["eq7_leq_minus_closed"] + 2 * D / (N * (N - 1))) == 0
    a = np.random.default_rng(4).standard_normal((9, 2))
    S, Dn, _ = V.pair_sums(a)
    np.testing.assert_allclose(V.gamma_eq7(a, "<=") - V.gamma(a), -2 * Dn / (9 * 8), rtol=1e-10)


@pytest.mark.parametrize("N", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("d", [1, 3])
def test_eq7_without_replacement_by_enumeration_of_every_minibatch(N, d):
    a = _pop(np.random.default_rng(N + 100 * d), N, d, offset=1.5)
    for n in range(1, N + 1):
        scale = N * N * np.sum(a * a) / n
        assert abs(V.enumerate_noise_second_moment(a, n) - (N - n) * N**2 * V.gamma(a) / n) <= TOL * scale


@pytest.mark.parametrize("N", [3, 5, 6])
def test_with_replacement_is_N_minus_1_and_differs_from_eq7(N):
    a = _pop(np.random.default_rng(N), N, 2)
    for n in range(1, 7):
        e = V.enumerate_noise_second_moment(a, n, replace=True)
        assert abs(e - (N - 1) * N**2 * V.gamma(a) / n) <= TOL * N * N * np.sum(a * a) / n
        if 1 < n <= N:
            assert abs(e - V.scheme_factor(N, n, False) * V.gamma(a)) > 1e-3 * e   # (7) does not describe it


def test_theorem3_statement_is_twice_the_proof():
    assert V.theorem3_noise_term(100, 10, 0.5, "statement") == 2 * V.theorem3_noise_term(100, 10, 0.5, "proof")


@pytest.mark.parametrize("replace", [False, True])
def test_inclusion_moments_match_enumeration(replace):
    K, p = V.enumerate_minibatches(7, 3, replace)
    np.testing.assert_allclose(p.sum(), 1.0, rtol=TOL)
    m = V.inclusion_moments(7, 3, replace)
    np.testing.assert_allclose([p @ K[:, 2], p @ K[:, 2] ** 2, p @ (K[:, 2] * K[:, 5])],
                               [float(m["E_zi"]), float(m["E_zi2"]), float(m["E_zizj"])], rtol=TOL)


def test_prop10_A_B_and_symmetric_C_exact_literal_C_and_eq12_factor_two_not():
    rng = np.random.default_rng(10)
    al, be = rng.standard_normal((5, 2)), rng.standard_normal((5, 2)) + 0.4
    worst_lit, worst_12 = 0.0, 0.0
    for n2 in (1, 2, 3):
        for n1 in range(1, 6):
            en = V.enumerate_prop10(al, be, n1, n2)
            ps, pl = V.prop10_printed(al, be, n1, n2, "symmetric"), V.prop10_printed(al, be, n1, n2, "literal")
            sc = max(abs(en.A), abs(en.B), abs(en.C), en.total)
            assert max(abs(ps.A - en.A), abs(ps.B - en.B), abs(ps.C - en.C), abs(ps.total - en.total)) <= TOL * sc
            np.testing.assert_allclose(V.vr_noise_second_moment(al, be, n1, n2), en.total, rtol=TOL)
            worst_lit = max(worst_lit, abs(pl.C - en.C) / sc)
            worst_12 = max(worst_12, abs(ps.A + ps.B + 2 * ps.C - en.total) / sc)
    assert worst_lit > 1e-3 and worst_12 > 1e-3


def test_vr_noise_with_replacement_by_enumeration():
    rng = np.random.default_rng(11)
    al, be = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    for n1, n2 in ((3, 1), (5, 2), (2, 4)):
        en = V.enumerate_prop10(al, be, n1, n2, replace=True)
        np.testing.assert_allclose(V.vr_noise_second_moment(al, be, n1, n2, replace=True), en.total, rtol=TOL)


def test_lambda_forms_printed_derived_remark7_exact():
    rng = np.random.default_rng(12)
    N = 40
    be = rng.standard_normal((N, 3)) + 0.7
    al = be + 0.05 * rng.standard_normal((N, 3))
    for n1, n2 in ((20, 5), (5, 20), (N, 8)):
        S = np.sum(be.sum(0) ** 2)
        der = V.lambda_derived(be, n1, n2)
        np.testing.assert_allclose(der, N**3 * (n1 - n2) * V.gamma(be) / (n1 * n2), rtol=TOL)
        np.testing.assert_allclose(V.lambda_printed(be, n1, n2) - der, -2 * N * (n1 - n2) * S / (n1 * n2), rtol=1e-9)
        np.testing.assert_allclose(V.lambda_exact(be, be, n1, n2), der, rtol=1e-10)
        np.testing.assert_allclose(V.lambda_exact(al, be, n1, n2) - der, V.lambda_remainder(al, be, n2), rtol=1e-8)
    np.testing.assert_allclose(V.lambda_remark7(be, 8), V.lambda_derived(be, N, 8), rtol=1e-10)
    sym = V.lambda_symbolic()
    assert sym["derived_minus_closed"] == 0 and sym["remark7_minus_derived_at_N"] == 0 and sym["appendix_minus_printed"] == 0
    assert sym["remark7_minus_printed_at_N"] != 0


@pytest.mark.parametrize("replace", [False, True])
def test_minibatch_mean_moments_up_to_order_four_match_enumeration(replace):
    x = np.random.default_rng(13).standard_normal(7) ** 3 + 0.5
    scale = np.mean((x - x.mean()) ** 2) ** (np.arange(5) / 2)
    for n in range(1, 8):
        e = V.enumerate_minibatch_mean_moments(x, n, replace, 4)
        np.testing.assert_array_less(np.abs(e - V.minibatch_mean_central_moments(x, n, replace, 4)) / scale, 1e-13)


def test_corollary4_algebra():
    d = V.corollary4_symbolic()
    N, n, T, G = sp.symbols("N n T G", positive=True)
    assert d["derivative_minus_printed"] == 0
    assert sp.simplify(d["threshold"] - sp.Rational(27, 8) * G**3 * N**6 * n) == 0
    assert sp.simplify(d["optimal_n"] - 8 * T / (27 * N**6 * G**3)) == 0
    assert d["second_derivative"].is_negative        # the printed "optimal" n maximizes the bound


def test_bound_crossover_equalizes_the_two_ends():
    N, g, c, c1, c3 = 200, 1e-3, 2e-4, 5e-4, 0.25
    T = V.bound_crossover(N, g, c, V.h_coefficient(c1, c3))
    b1, _ = V.bound_optimal_mse(1, T, N, g, c, c1, c3)
    bN, _ = V.bound_optimal_mse(N, T, N, g, c, c1, c3)
    np.testing.assert_allclose(b1, bN, rtol=1e-10)
    assert V.bound_optimal_mse(1, 10 * T, N, g, c, c1, c3)[0] < V.bound_optimal_mse(N, 10 * T, N, g, c, c1, c3)[0]


@pytest.mark.parametrize("call, name", [
    (lambda: V.gamma([1.0]), "a"), (lambda: V.noise_second_moment([1.0, 2.0], 3), "n"),
    (lambda: V.gamma_eq7([1.0, 2.0], "<>"), "pairs"), (lambda: V.prop10_printed([1.0, 2], [1.0, 2], 1, 1, "x"), "cross"),
    (lambda: V.enumerate_minibatches(60, 30), "too large"), (lambda: V.gamma([1.0, np.nan]), "a"),
    (lambda: V.theorem3_noise_term(10, 2, 1.0, "abstract"), "reading"),
])
def test_bad_input_raises_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
