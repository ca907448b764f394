"""Exact small-step LS-GLD/GLD stationary-bias ratio (seed 004, Theorem 3.3, Table 1)."""

import numpy as np
import pytest

from sgmcmc_verify.analytic.laplacian import eigenvalues, smoothing_matrix
from sgmcmc_verify.analytic.ls_exact import small_step_bias_ratio_limit, small_step_stationary_error


def _ratio_at(H, Ai, h):
    d = H.shape[0]
    th = np.zeros(d)
    a = small_step_stationary_error(H, th, Ai, [h])[0]
    b = small_step_stationary_error(H, th, np.eye(d), [h])[0]
    return a / b


def test_identity_hessian_gives_table1_quantity():
    d, sigma = 8, 1.5
    Ai = np.linalg.inv(smoothing_matrix(d, sigma))
    lam = eigenvalues(d, sigma)
    expect = np.sqrt(np.mean(lam ** -2.0))
    assert small_step_bias_ratio_limit(3.0 * np.eye(d), Ai) == pytest.approx(expect, rel=1e-12)


def test_non_identity_hessian_matches_exact_lyapunov_at_small_step():
    rng = np.random.default_rng(0)
    d, sigma = 6, 2.0
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    H = Q @ np.diag(np.linspace(0.5, 4.0, d)) @ Q.T
    Ai = np.linalg.inv(smoothing_matrix(d, sigma))
    lim = small_step_bias_ratio_limit(H, Ai)
    r1, r2 = _ratio_at(H, Ai, 1e-4), _ratio_at(H, Ai, 5e-5)
    # O(h) convergence: Richardson extrapolation hits the limit much closer than either step
    assert abs(2 * r2 - r1 - lim) < 1e-5
    assert abs(r2 - lim) < 1e-3
    # and differs from the identity-Hessian value sqrt(d^-1 sum lambda^-2)
    assert abs(lim - np.sqrt(np.mean(eigenvalues(d, sigma) ** -2.0))) > 1e-2


def test_bad_input_names_parameter():
    with pytest.raises(ValueError, match="hessian"):
        small_step_bias_ratio_limit(-np.eye(3), np.eye(3))
    with pytest.raises(ValueError, match="smoothing_inverse"):
        small_step_bias_ratio_limit(np.eye(3), np.eye(2))
