"""Tests for sgmcmc_verify.analytic.ls_constants: γ₂ of Theorem 3.3, its limit, the γ₁/c₀ ranges, Table 1.

Seed ``004_8438bd4b543e0fc4.txt``: Theorem 3.3, Theorem 3.7, Table 1, Lemma C.6, eq. (C.4).
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.integrate
import sympy as sp

from sgmcmc_verify.analytic import laplacian as lap
from sgmcmc_verify.analytic import ls_constants as lc

SIGMAS = (1, 2, 3, 4, 5)
DIMS = (1000, 10000, 100000)
SIG = sp.Symbol("sigma", positive=True)
DSYM = sp.Symbol("d", positive=True)


# --------------------------------------------------------------------------- definition

def test_gamma2_is_mean_of_reciprocal_eigenvalues_as_theorem_3_3_writes_it():
    # literal transcription: d^{-1} Σ_{i=1}^d (1 + 2σ − 2σ cos(2πi/d))^{-1}
    for d in (1, 2, 5, 64, 1000):
        for s in (0.0, 0.5, 3.0):
            i = np.arange(1, d + 1)
            literal = np.mean(1.0 / (1 + 2 * s - 2 * s * np.cos(2 * np.pi * i / d)))
            assert lc.gamma2(d, s) == pytest.approx(literal, rel=1e-13)
            assert lc.gamma2(d, s) == pytest.approx(np.mean(1.0 / lap.eigenvalues(d, s)), rel=1e-13)


def test_gamma2_equals_normalized_trace_of_dense_inverse():
    for d in (2, 3, 10):
        A = lap.smoothing_matrix(d, 1.7)
        assert lc.gamma2(d, 1.7) == pytest.approx(np.trace(np.linalg.inv(A)) / d, rel=1e-13)
        # Lemma C.6: E‖A⁻¹ε‖² = tr A⁻² = Σ λ⁻²
        assert lc.spectral_mean(d, 1.7, 2) == pytest.approx(np.trace(np.linalg.matrix_power(np.linalg.inv(A), 2)) / d, rel=1e-13)


def test_gamma2_small_cases_and_sigma_zero():
    assert lc.gamma2(1, 4.0) == 1.0
    assert lc.gamma2(2, 1.0) == pytest.approx(0.6, rel=1e-15)  # (1 + 1/5)/2
    for d in (1, 7, 1000):
        assert lc.gamma2(d, 0.0) == 1.0
        assert float(lc.gamma2_sympy(d, 0)) == 1.0


# --------------------------------------------------------------------------- sympy vs float64

@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("power", [1, 2])
def test_sympy_closed_form_agrees_with_float64_sum(d, power):
    for s in SIGMAS:
        exact = lc.spectral_mean_sympy(d, s, power)
        assert abs(float(exact) - lc.spectral_mean(d, s, power)) / float(exact) < 1e-10


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5, 7, 12])
def test_closed_form_equals_exact_sympy_sum_small_d(d):
    for s in (1, 2, 0.1):  # 0.1 is read as the exact 1/10
        for power in (1, 2):
            cf = lc.spectral_mean_sympy(d, s, power, digits=40)
            direct = lc.spectral_mean_sympy(d, s, power, digits=40, method="sum")
            assert abs(cf - direct) < sp.Float("1e-35")


def test_closed_form_simplifies_exactly_for_d_4():
    expr = lc.spectral_mean_closed_form_expr(1).subs({DSYM: 4, SIG: 1})
    exact = sp.Rational(1, 4) * (1 + sp.Rational(1, 3) + sp.Rational(1, 5) + sp.Rational(1, 3))
    assert sp.simplify(expr - exact) == 0


def test_closed_form_equals_exact_sympy_sum_d_1000():
    a = lc.gamma2_sympy(1000, 3, digits=30)
    b = lc.gamma2_sympy(1000, 3, digits=30, method="sum")
    assert abs(a - b) < sp.Float("1e-25")
    assert abs(float(a) - lc.gamma2(1000, 3)) < 1e-15


# --------------------------------------------------------------------------- d → ∞

def test_limit_closed_forms_are_the_expected_ones():
    assert sp.simplify(lc.limit_expr(1) - 1 / sp.sqrt(1 + 4 * SIG)) == 0
    assert sp.simplify(lc.limit_expr(2) - (1 + 2 * SIG) / (1 + 4 * SIG) ** sp.Rational(3, 2)) == 0


def test_limit_is_the_integral_over_0_1_in_x():
    for s in (0.5, 1.0, 5.0):
        for p in (1, 2):
            quad, _ = scipy.integrate.quad(lambda x, s=s, p=p: (1 + 4 * s * np.sin(np.pi * x) ** 2) ** -p, 0, 1,
                                           epsabs=1e-13)
            assert lc.spectral_mean_limit(s, p) == pytest.approx(quad, rel=1e-11)


def test_limit_agrees_with_d_1e5_sum_within_discretization():
    d = 100000
    for s in SIGMAS:
        for p in (1, 2):
            # generic Riemann-sum bound O(1/d); the periodic trapezoidal rule is in fact
            # geometrically accurate (error 2 r^d/(1−r^d)/√(1+4σ) for p = 1, < 1e-300 here)
            diff = abs(lc.spectral_mean_limit(s, p) - lc.spectral_mean(d, s, p))
            assert diff <= 1.0 / d
            assert diff < 1e-14


def test_finite_d_error_is_geometric_as_the_closed_form_says():
    s = 0.01  # r close to 1, so the d-dependence is visible in float64
    root = np.sqrt(1 + 4 * s)
    r = (1 + 2 * s - root) / (2 * s)
    for d in (5, 20, 80):
        predicted = 2 * r**d / (1 - r**d) / root
        observed = lc.gamma2(d, s) - lc.gamma2_limit(s)
        assert observed == pytest.approx(predicted, rel=1e-9)


# --------------------------------------------------------------------------- monotonicity

def test_gamma2_strictly_decreasing_in_sigma_and_below_one():
    sigmas = np.linspace(0.0, 6.0, 25)
    for d in (2, 3, 10, 1000, 100000):
        vals = np.array([lc.gamma2(d, s) for s in sigmas])
        assert vals[0] == 1.0
        assert np.all(np.diff(vals) < 0)
        assert np.all(vals[1:] < 1.0)
    assert np.all(np.diff([lc.gamma2_limit(s) for s in sigmas]) < 0)


def test_gamma2_decreasing_in_d_towards_the_limit():
    # closed form (1 + r^d)/((1 − r^d)√(1 + 4σ)) decreases in d; r = 0.64 at σ = 5
    vals = [lc.gamma2(d, 5.0) for d in (1, 2, 3, 4, 8, 16, 32)]
    assert np.all(np.diff(vals) < 0)
    assert vals[-1] > lc.gamma2_limit(5.0)


# --------------------------------------------------------------------------- γ₁, c₀ ranges

def test_theorem_constants_ranges():
    tc = lc.theorem_constants(1000, 2.0)
    assert tc.norm == pytest.approx(9.0)
    assert tc.gamma1_min == pytest.approx(1 / 81)
    assert tc.c0_min == pytest.approx(1 / 9)
    assert tc.gamma1_min_c4 == pytest.approx(1 / 9)
    assert tc.gamma1_max == 1.0 and tc.c0_max == 1.0 and tc.inverse_norm == 1.0
    assert tc.gamma1_min <= tc.gamma1_max and tc.c0_min <= tc.c0_max
    # odd d: ‖A‖ = 1 + 4σ cos²(π/(2d))
    tc_odd = lc.theorem_constants(11, 2.0)
    assert tc_odd.norm == pytest.approx(1 + 8 * np.cos(np.pi / 22) ** 2)
    # σ = 0 recovers SGLD: all constants 1 (Corollary 3.5)
    t0 = lc.theorem_constants(100, 0.0)
    assert (t0.gamma1_min, t0.c0_min, t0.gamma2) == (1.0, 1.0, 1.0)


# --------------------------------------------------------------------------- Table 1

def test_paper_table1_transcription():
    assert len(lc.PAPER_TABLE1) == 15
    for d in DIMS:
        assert [lc.PAPER_TABLE1[s, d] for s in SIGMAS] == [0.268, 0.185, 0.149, 0.128, 0.114]


def test_table1_is_not_gamma2_but_the_mean_of_inverse_squared_eigenvalues():
    rows = lc.table1_comparison()
    assert len(rows) == 15
    for row in rows:
        assert not row.gamma2_matches
        assert row.relative_difference > 0.5
        assert row.computed_gamma2 == pytest.approx(1 / np.sqrt(1 + 4 * row.sigma), rel=1e-13)
        assert row.best_candidate == "mean_inv_lambda_sq"
        assert set(row.matching_candidates) == {"mean_inv_lambda_sq", "mean_inv_lambda_sq_limit"}
        assert round(row.best_candidate_value, 3) == row.paper_value


def test_table1_negative_control_a_wrong_cell_matches_nothing():
    # planted transcription error: the γ₂ limit at σ = 1 printed to 3 decimals would read 0.447
    cands = lc.table1_candidates(1000, 1)
    assert lc._rounds_to(cands["gamma2"], 0.447)
    assert not any(lc._rounds_to(v, 0.269) for v in cands.values())


# --------------------------------------------------------------------------- bad input

def test_bad_input_raises_naming_the_parameter():
    with pytest.raises(ValueError, match="sigma"):
        lc.gamma2(10, -1.0)
    with pytest.raises(ValueError, match="sigma"):
        lc.gamma2_sympy(10, float("nan"))
    with pytest.raises(ValueError, match="sigma"):
        lc.gamma2_limit(-0.5)
    with pytest.raises(ValueError, match="sigma"):
        lc.theorem_constants(10, float("inf"))
    with pytest.raises(ValueError, match="^d "):
        lc.gamma2(0, 1.0)
    with pytest.raises(ValueError, match="^d "):
        lc.spectral_mean_sympy(2.5, 1.0)
    with pytest.raises(ValueError, match="power"):
        lc.spectral_mean(10, 1.0, power=0)
    with pytest.raises(ValueError, match="power"):
        lc.spectral_mean_sympy(10, 1.0, power=1.5)
    with pytest.raises(ValueError, match="power"):
        lc.limit_expr(0)
    with pytest.raises(ValueError, match="digits"):
        lc.gamma2_sympy(10, 1.0, digits=5)
    with pytest.raises(ValueError, match="method"):
        lc.gamma2_sympy(10, 1.0, method="quad")
