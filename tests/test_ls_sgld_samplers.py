"""LS-SGLD samplers (seed ``004_8438bd4b543e0fc4.txt``, eqs. (2.3)–(2.5)), exact laws, Proposition 2.1.

Identities: LS-SGLD at σ = 0 is SGLD step for step (same generator), LS-pSGLD at σ = 0 is pSGLD;
the eq. (4.1) operator through :class:`MatrixSmoothing` matches the FFT operator at σ/2; the exact
LS-SGLD recursion matches a direct step; Proposition 2.1 by sympy and in the small-step limit.
Statistical assertions (with planted-bug negative controls) are described in ``ls_sgld_support``.
"""
import numpy as np
import pytest
import sympy as sp

from analytic.laplacian import paper_matrix_2d, smoothing_matrix
from analytic.ls_exact import fokker_planck_residual, ls_sgld_recursion, small_step_stationary_error
from ls_sgld_support import MU, TARGET, agrees_with_exact, exact, run, theorem33_structure
from verify import samplers as S
from verify import ls_samplers as L
from verify.errors import DivergenceError


def _run_pair(a, b, x0, steps, seed):
    ra, rb = np.random.default_rng(seed), np.random.default_rng(seed)
    sa, sb = a.init(x0), b.init(x0)
    for _ in range(steps):
        sa, ia = a.step(sa, ra)
        sb, ib = b.step(sb, rb)
        np.testing.assert_allclose(sa.position, sb.position, rtol=1e-12, atol=1e-12)
        assert ia.evaluations == ib.evaluations


def test_ls_sgld_with_zero_smoothing_is_sgld_step_for_step():
    x0 = np.random.default_rng(0).standard_normal((7, TARGET.dim))
    _run_pair(S.sgld(TARGET, 3e-3, batch_size=4), L.ls_sgld(TARGET, 3e-3, 0.0, batch_size=4), x0, 50, 11)


def test_ls_psgld_with_zero_smoothing_is_psgld_step_for_step():
    x0 = np.random.default_rng(1).standard_normal((5, TARGET.dim))
    _run_pair(S.psgld(TARGET, 1e-3, batch_size=3), L.ls_psgld(TARGET, 1e-3, 0.0, batch_size=3), x0, 50, 12)


def test_ls_sgld_zero_temperature_is_smoothed_gradient_step():
    x0 = np.random.default_rng(2).standard_normal((3, TARGET.dim))
    s = L.ls_gld(TARGET, 1e-3, 2.0, inverse_temperature=np.inf)
    st, _ = s.step(s.init(x0), np.random.default_rng(0))
    A = smoothing_matrix(TARGET.dim, 2.0)
    np.testing.assert_allclose(st.position, x0 - 1e-3 * np.linalg.solve(A, TARGET.full_gradient(x0).T).T,
                               rtol=1e-12, atol=1e-12)


def test_paper_2d_operator_equals_periodic_at_half_sigma():
    v = np.random.default_rng(3).standard_normal((4, 2))
    op, per = L.paper_2d_smoothing(0.3), L.PeriodicSmoothing(0.15)
    np.testing.assert_allclose(op.apply_inverse(v), per.apply_inverse(v), atol=1e-13)
    np.testing.assert_allclose(op.apply_inverse_sqrt(v), per.apply_inverse_sqrt(v), atol=1e-13)
    np.testing.assert_allclose(op.matrix(2), paper_matrix_2d(0.3))


def test_noise_of_one_step_has_covariance_two_h_over_beta_A_inverse():
    # zero gradient target: x' = x + sqrt(2h/β) A^{-1/2} ε, so Cov = (2h/β) A^{-1} exactly in law;
    # checked by the identity on the operator (no sampling): A^{-1/2} A^{-1/2} = A^{-1}.
    op = L.PeriodicSmoothing(1.5)
    R = op.inverse_sqrt_matrix(6)
    np.testing.assert_allclose(R @ R, op.inverse_matrix(6), atol=1e-13)
    np.testing.assert_allclose(op.inverse_matrix(6) @ smoothing_matrix(6, 1.5), np.eye(6), atol=1e-13)


def test_exact_recursion_matches_a_deterministic_step():
    # with full gradient and zero temperature the recursion's A, a reproduce one LS-GLD step
    h, sig = 2e-3, 1.0
    Ai = L.PeriodicSmoothing(sig).inverse_matrix(TARGET.dim)
    rec = ls_sgld_recursion(TARGET.hessian, MU, np.zeros((TARGET.dim,) * 2), h, Ai)
    x0 = np.random.default_rng(4).standard_normal((2, TARGET.dim))
    s = L.ls_gld(TARGET, h, sig, inverse_temperature=np.inf)
    st, _ = s.step(s.init(x0), np.random.default_rng(0))
    np.testing.assert_allclose(st.position, x0 @ rec.A.T + rec.a, atol=1e-12)
    np.testing.assert_allclose(rec.W, 2 * h * Ai, atol=1e-15)


@pytest.mark.parametrize("kwargs, word", [
    ({"step_size": 0.0}, "step_size"),
    ({"step_size": -1.0}, "step_size"),
    ({"smoothing": -0.5}, "sigma"),
    ({"smoothing": float("nan")}, "sigma"),
    ({"smoothing": "wide"}, "sigma"),
    ({"inverse_temperature": 0.0}, "inverse_temperature"),
    ({"noise_power": 0.7}, "noise_power"),
])
def test_bad_input_raises_value_error(kwargs, word):
    args = {"target": TARGET, "step_size": 1e-3, "smoothing": 1.0, **kwargs}
    with pytest.raises(ValueError, match=word):
        L.LaplacianSmoothingEM(**args)


def test_bad_input_psgld_and_matrix():
    with pytest.raises(ValueError, match="alpha"):
        L.ls_psgld(TARGET, 1e-3, 1.0, alpha=1.0)
    with pytest.raises(ValueError, match="lam"):
        L.ls_psgld(TARGET, 1e-3, 1.0, lam=0.0)
    with pytest.raises(ValueError, match="symmetric"):
        L.MatrixSmoothing(np.array([[1.0, 0.2], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="positive definite"):
        L.MatrixSmoothing(np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="position"):
        L.ls_sgld(TARGET, 1e-3, 1.0).init(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="batch_size"):
        L.ls_sgld(TARGET, 1e-3, 1.0, batch_size=TARGET.n + 1).init(np.zeros((3, TARGET.dim)))
    with pytest.raises(ValueError, match="noise_power"):
        ls_sgld_recursion(np.eye(2), np.zeros(2), np.zeros((2, 2)), 1e-3, np.eye(2), noise_power=2.0)


def test_divergence_is_reported():
    s = L.ls_gld(TARGET, 1.0, 0.5)  # η n = 50: unstable
    st = s.init(np.ones((2, TARGET.dim)))
    with pytest.raises(DivergenceError, match="LS-GLD"):
        for _ in range(400):
            st, _ = s.step(st, np.random.default_rng(0))


def test_proposition_2_1_fokker_planck_residual_vanishes():
    assert fokker_planck_residual(3) == 0


def test_proposition_2_1_residual_nonzero_if_noise_smoothed_like_gradient():
    assert sp.simplify(fokker_planck_residual(3, 1)) != 0


def test_proposition_2_1_small_step_limit():
    Ai = L.PeriodicSmoothing(1.0).inverse_matrix(TARGET.dim)
    hs = np.array([1e-3, 1e-4, 1e-5])
    good = small_step_stationary_error(TARGET.hessian, MU, Ai, hs)
    bad = small_step_stationary_error(TARGET.hessian, MU, Ai, hs, noise_power=1.0)
    assert np.all(np.diff(np.log(good)) / np.diff(np.log(hs)) > 0.9)  # O(h) → 0
    assert bad[-1] > 0.1 and abs(bad[-1] - bad[-2]) < 0.01 * bad[-1]  # a non-vanishing bias


@pytest.mark.statistical
def test_exact_propagation_agrees_with_monte_carlo():
    steps = [10, 300]
    x = run(1.0, 5e-3, steps, seed=4040)
    means, covs = exact(1.0, 5e-3, steps)
    for j in range(len(steps)):
        ok, info = agrees_with_exact(x[:, j], means[j], covs[j])
        assert ok, info


@pytest.mark.negative_control
def test_exact_propagation_check_catches_noise_smoothed_with_A_inverse():
    steps = [10, 300]
    x = run(1.0, 5e-3, steps, seed=4040, noise_power=1.0)
    means, covs = exact(1.0, 5e-3, steps)
    ok, info = agrees_with_exact(x[:, -1], means[-1], covs[-1])
    assert not ok, info


@pytest.mark.statistical
def test_theorem33_structure_smaller_discretization_slower_ergodicity():
    ok, info = theorem33_structure(seed=5050)
    assert ok, info


@pytest.mark.negative_control
def test_theorem33_structure_catches_noise_smoothed_with_A_inverse():
    ok, info = theorem33_structure(seed=5050, planted=True)
    assert not ok, info
