"""Tests for sgmcmc_verify.analytic.laplacian: FFT smoothing operators vs dense linear algebra.

Seed ``004_8438bd4b543e0fc4.txt``: eq. (2.1), Lemma 2.2, Lemma 2.5 / eq. (2.7), eq. (2.8), eq. (4.1).
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from sgmcmc_verify.analytic import laplacian as lap

DIMS = [1, 2, 3, 10, 1000]
SIGMAS = [0.0, 0.1, 1.0, 3.0, 10.0]


def _rel(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


@pytest.fixture(scope="module")
def dense_reference():
    """Dense inverse and inverse square root for every (d, σ), computed once."""
    out = {}
    for d in DIMS:
        for s in SIGMAS:
            A = lap.smoothing_matrix(d, s)
            inv = scipy.linalg.inv(A)
            if d <= 10:
                inv_sqrt = np.real_if_close(scipy.linalg.sqrtm(inv))
            else:
                w, V = scipy.linalg.eigh(A)
                inv_sqrt = (V * w**-0.5) @ V.T
            out[d, s] = (A, inv, inv_sqrt)
    return out


# --------------------------------------------------------------------------- matrix definition

def test_matrix_matches_eq_2_1_for_d_at_least_3():
    s = 0.7
    for d in (3, 4, 7):
        A = lap.smoothing_matrix(d, s)
        expected = (1 + 2 * s) * np.eye(d)
        for i in range(d):
            expected[i, (i + 1) % d] = -s
            expected[i, (i - 1) % d] = -s
        np.testing.assert_array_equal(A, expected)


def test_small_d_conventions():
    np.testing.assert_array_equal(lap.smoothing_matrix(1, 5.0), [[1.0]])
    np.testing.assert_array_equal(lap.smoothing_matrix(2, 1.5), [[4.0, -3.0], [-3.0, 4.0]])
    np.testing.assert_allclose(lap.eigenvalues(2, 1.5), [1.0, 7.0])


def test_matrix_symmetric_circulant_rows_sum_to_one():
    for d in (1, 2, 3, 10):
        A = lap.smoothing_matrix(d, 2.0)
        np.testing.assert_array_equal(A, A.T)
        np.testing.assert_allclose(A.sum(axis=1), 1.0)  # L annihilates constants
        for k in range(d):
            np.testing.assert_array_equal(A[k], np.roll(A[0], k))


@pytest.mark.parametrize("d", DIMS)
def test_eigenvalues_match_dense_eigvalsh(d):
    for s in SIGMAS:
        dense = np.sort(scipy.linalg.eigvalsh(lap.smoothing_matrix(d, s)))
        np.testing.assert_allclose(np.sort(lap.eigenvalues(d, s)), dense, rtol=1e-12, atol=1e-12)


def test_eigenvalues_equal_lemma_2_2_cos_form():
    d, s = 12, 0.9
    j = np.arange(d)
    np.testing.assert_allclose(lap.eigenvalues(d, s), 1 + 2 * s - 2 * s * np.cos(2 * np.pi * j / d), rtol=1e-14)
    # eigenvalue λ_j belongs to the Fourier mode exp(2πi jk/d)
    A = lap.smoothing_matrix(d, s)
    mode = np.exp(2j * np.pi * 5 * np.arange(d) / d)
    np.testing.assert_allclose(A @ mode, lap.eigenvalues(d, s)[5] * mode, atol=1e-12)


# --------------------------------------------------------------------------- FFT vs dense

@pytest.mark.parametrize("d", DIMS)
def test_apply_inverse_fft_equals_dense_inv(d, dense_reference):
    rng = np.random.default_rng(20240 + d)
    v = rng.standard_normal(d)
    for s in SIGMAS:
        _, inv, _ = dense_reference[d, s]
        assert _rel(lap.apply_inverse(v, s), inv @ v) < 1e-12


@pytest.mark.parametrize("d", DIMS)
def test_apply_inverse_sqrt_fft_equals_dense_sqrtm(d, dense_reference):
    rng = np.random.default_rng(40480 + d)
    v = rng.standard_normal(d)
    for s in SIGMAS:
        _, _, inv_sqrt = dense_reference[d, s]
        assert _rel(lap.apply_inverse_sqrt(v, s), inv_sqrt @ v) < 1e-12


def test_inverse_sqrt_squares_to_inverse_and_inverse_undoes_A():
    rng = np.random.default_rng(7)
    for d in (2, 3, 10, 1000):
        v = rng.standard_normal(d)
        s = 2.5
        twice = lap.apply_inverse_sqrt(lap.apply_inverse_sqrt(v, s), s)
        assert _rel(twice, lap.apply_inverse(v, s)) < 1e-12
        assert _rel(lap.smoothing_matrix(d, s) @ lap.apply_inverse(v, s), v) < 1e-12


def test_batched_shapes_equal_row_by_row():
    rng = np.random.default_rng(11)
    d, s = 10, 1.0
    v = rng.standard_normal((7, d))
    for fn in (lap.apply_inverse, lap.apply_inverse_sqrt):
        out = fn(v, s)
        assert out.shape == (7, d) and out.dtype == np.float64 and np.isrealobj(out)
        np.testing.assert_allclose(out, np.stack([fn(row, s) for row in v]), rtol=1e-14, atol=1e-15)
    v3 = rng.standard_normal((2, 3, d))
    out3 = lap.apply_inverse(v3, s)
    assert out3.shape == (2, 3, d)
    np.testing.assert_allclose(out3.reshape(6, d), lap.apply_inverse(v3.reshape(6, d), s), rtol=1e-14)


def test_batched_equals_dense_matrix_product(dense_reference):
    rng = np.random.default_rng(3)
    d, s = 1000, 3.0
    _, inv, inv_sqrt = dense_reference[d, s]
    v = rng.standard_normal((5, d))
    assert _rel(lap.apply_inverse(v, s), v @ inv.T) < 1e-12
    assert _rel(lap.apply_inverse_sqrt(v, s), v @ inv_sqrt.T) < 1e-12


def test_sigma_zero_is_identity():
    rng = np.random.default_rng(5)
    for d in DIMS:
        v = rng.standard_normal((3, d))
        np.testing.assert_allclose(lap.apply_inverse(v, 0.0), v, rtol=0, atol=1e-14)
        np.testing.assert_allclose(lap.apply_inverse_sqrt(v, 0), v, rtol=0, atol=1e-14)
        np.testing.assert_array_equal(lap.smoothing_matrix(d, 0.0), np.eye(d))


def test_integer_input_is_promoted_to_float64():
    out = lap.apply_inverse(np.array([1, 0, 0, 0]), 1.0)
    assert out.dtype == np.float64


# --------------------------------------------------------------------------- norms

@pytest.mark.parametrize("d", [1, 2, 3, 10, 11, 1000])
def test_operator_norm_matches_dense(d):
    for s in (0.0, 0.5, 4.0):
        A = lap.smoothing_matrix(d, s)
        norms = lap.operator_norm(d, s)
        if d <= 11:
            dense_norm = scipy.linalg.norm(A, 2)
            dense_inv_norm = scipy.linalg.norm(scipy.linalg.inv(A), 2)
        else:  # symmetric positive definite: 2-norms are extreme eigenvalues (cheaper than SVD)
            w = scipy.linalg.eigvalsh(A)
            dense_norm, dense_inv_norm = w.max(), 1.0 / w.min()
        assert norms.norm == pytest.approx(dense_norm, rel=1e-12)
        assert norms.inverse_norm == pytest.approx(dense_inv_norm, rel=1e-12)


def test_operator_norm_even_d_is_one_plus_four_sigma():
    assert lap.operator_norm(1000, 2.0).norm == pytest.approx(9.0, rel=1e-15)
    assert lap.operator_norm(1, 2.0).norm == 1.0


# --------------------------------------------------------------------------- the paper's 2-D matrix

def test_paper_matrix_2d_is_eq_4_1():
    np.testing.assert_array_equal(lap.paper_matrix_2d(0.1), [[1.1, -0.1], [-0.1, 1.1]])
    np.testing.assert_allclose(scipy.linalg.eigvalsh(lap.paper_matrix_2d(0.1)), [1.0, 1.2])


def test_paper_matrix_2d_differs_from_circulant_but_equals_half_sigma():
    s = 0.1
    assert not np.allclose(lap.paper_matrix_2d(s), lap.smoothing_matrix(2, s))
    np.testing.assert_allclose(lap.paper_matrix_2d(s), lap.smoothing_matrix(2, s / 2), rtol=1e-15)


def test_paper_matrix_2d_inverse_and_inverse_sqrt():
    for s in (0.0, 0.1, 2.0):
        A = lap.paper_matrix_2d(s)
        inv = lap.paper_matrix_2d_inverse(s)
        r = lap.paper_matrix_2d_inverse_sqrt(s)
        np.testing.assert_allclose(inv @ A, np.eye(2), atol=1e-14)
        np.testing.assert_allclose(inv, np.array([[1 + s, s], [s, 1 + s]]) / (1 + 2 * s), rtol=1e-14)
        np.testing.assert_allclose(r @ r, inv, rtol=1e-13)
        np.testing.assert_allclose(r, r.T, rtol=0, atol=0)
        np.testing.assert_allclose(r, np.real(scipy.linalg.sqrtm(inv)), rtol=1e-12)
        # same operator as the periodic FFT with half the smoothing
        v = np.array([[0.3, -1.2], [2.0, 0.5]])
        np.testing.assert_allclose(v @ inv, lap.apply_inverse(v, s / 2), rtol=1e-13)
        np.testing.assert_allclose(v @ r, lap.apply_inverse_sqrt(v, s / 2), rtol=1e-13)


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("bad", [-0.1, -1, float("nan"), float("inf"), "1", None, True])
def test_bad_sigma_raises_naming_sigma(bad):
    for call in (
        lambda: lap.apply_inverse(np.ones(4), bad),
        lambda: lap.apply_inverse_sqrt(np.ones(4), bad),
        lambda: lap.smoothing_matrix(4, bad),
        lambda: lap.eigenvalues(4, bad),
        lambda: lap.operator_norm(4, bad),
        lambda: lap.paper_matrix_2d(bad),
        lambda: lap.paper_matrix_2d_inverse(bad),
        lambda: lap.paper_matrix_2d_inverse_sqrt(bad),
    ):
        with pytest.raises(ValueError, match="sigma"):
            call()


@pytest.mark.parametrize("bad", [0, -3, 2.5, "4", True])
def test_bad_d_raises_naming_d(bad):
    for fn in (lap.smoothing_matrix, lap.eigenvalues, lap.operator_norm):
        with pytest.raises(ValueError, match="^d "):
            fn(bad, 1.0)


@pytest.mark.parametrize("bad_value", [np.nan, np.inf, -np.inf])
def test_nonfinite_v_raises_naming_v(bad_value):
    v = np.ones((3, 5))
    v[1, 2] = bad_value
    for fn in (lap.apply_inverse, lap.apply_inverse_sqrt):
        with pytest.raises(ValueError, match="^v "):
            fn(v, 1.0)


def test_scalar_or_empty_v_raises_naming_v():
    for v in (1.0, np.ones((3, 0))):
        with pytest.raises(ValueError, match="^v "):
            lap.apply_inverse(v, 1.0)
