"""Laplacian smoothing in the overdamped integrator (LS-SGLD, seed ``004_8438bd4b543e0fc4.txt``, eqs. (2.3)–(2.5)).

Identities: the eq. (4.1) operator through :class:`MatrixSmoothing` matches the FFT operator at σ/2;
the exact LS-SGLD recursion matches a direct step; Proposition 2.1 by sympy and in the small-step
limit (the σ = 0 equalities with SGLD and pSGLD are tests of the integrator base,
``test_base.py``). Statistical assertions (with planted-bug negative controls) are described in
``support/ls_sgld.py``.
"""
import numpy as np
import pytest
import sympy as sp

from sgmcmc_verify.analytic.laplacian import paper_matrix_2d, smoothing_matrix
from sgmcmc_verify.analytic.ls_exact import fokker_planck_residual, ls_sgld_recursion, small_step_stationary_error
from support.ls_sgld import MU, TARGET, agrees_with_exact, exact, run, theorem33_structure
from sgmcmc_verify import samplers as L
from sgmcmc_verify.errors import DivergenceError
from sgmcmc_verify.integrators import LaplacianPreconditioner, MatrixSmoothing, OverdampedEM, PeriodicSmoothing
from sgmcmc_verify.integrators.smoothing import paper_2d_smoothing


def test_ls_sgld_zero_temperature_is_smoothed_gradient_step():
    x0 = np.random.default_rng(2).standard_normal((3, TARGET.dim))
    s = L.ls_gld(TARGET, 1e-3, 2.0, inverse_temperature=np.inf)
    st, _ = s.step(s.init(x0), np.random.default_rng(0))
    A = smoothing_matrix(TARGET.dim, 2.0)
    np.testing.assert_allclose(st.position, x0 - 1e-3 * np.linalg.solve(A, TARGET.full_gradient(x0).T).T,
                               rtol=1e-12, atol=1e-12)


def test_paper_2d_operator_equals_periodic_at_half_sigma():
    v = np.random.default_rng(3).standard_normal((4, 2))
    op, per = paper_2d_smoothing(0.3), PeriodicSmoothing(0.15)
    np.testing.assert_allclose(op.apply_inverse(v), per.apply_inverse(v), atol=1e-13)
    np.testing.assert_allclose(op.apply_inverse_sqrt(v), per.apply_inverse_sqrt(v), atol=1e-13)
    np.testing.assert_allclose(op.matrix(2), paper_matrix_2d(0.3))


def test_noise_of_one_step_has_covariance_two_h_over_beta_A_inverse():
    # zero gradient target: x' = x + sqrt(2h/β) A^{-1/2} ε, so Cov = (2h/β) A^{-1} exactly in law;
    # checked by the identity on the operator (no sampling): A^{-1/2} A^{-1/2} = A^{-1}.
    op = PeriodicSmoothing(1.5)
    R = op.inverse_sqrt_matrix(6)
    np.testing.assert_allclose(R @ R, op.inverse_matrix(6), atol=1e-13)
    np.testing.assert_allclose(op.inverse_matrix(6) @ smoothing_matrix(6, 1.5), np.eye(6), atol=1e-13)


def test_exact_recursion_matches_a_deterministic_step():
    # with full gradient and zero temperature the recursion's A, a reproduce one LS-GLD step
    h, sig = 2e-3, 1.0
    Ai = PeriodicSmoothing(sig).inverse_matrix(TARGET.dim)
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
])
def test_bad_input_raises_value_error(kwargs, word):
    args = {"step_size": 1e-3, "smoothing": 1.0, **kwargs}
    with pytest.raises(ValueError, match=word):
        OverdampedEM(TARGET, args["step_size"], preconditioner=LaplacianPreconditioner(args["smoothing"]),
                     inverse_temperature=args.get("inverse_temperature", 1.0))


def test_bad_input_psgld_and_matrix():
    with pytest.raises(ValueError, match="alpha"):
        L.ls_psgld(TARGET, 1e-3, 1.0, alpha=1.0)
    with pytest.raises(ValueError, match="lam"):
        L.ls_psgld(TARGET, 1e-3, 1.0, lam=0.0)
    with pytest.raises(ValueError, match="symmetric"):
        MatrixSmoothing(np.array([[1.0, 0.2], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="positive definite"):
        MatrixSmoothing(np.array([[1.0, 2.0], [2.0, 1.0]]))
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


class _InfiniteGradient:
    """A target whose gradient overflows at the second step (``∇V = 1e308·θ``)."""

    n, dim = 1, TARGET.dim

    def data_gradients(self, theta, idx):
        return (1e308 * theta)[:, None, :].repeat(idx.shape[1], axis=1)

    def prior_gradient(self, theta):
        return np.zeros_like(theta)

    def full_gradient(self, theta):
        with np.errstate(over="ignore"):
            return 1e308 * theta

    def potential(self, theta):
        return np.zeros(theta.shape[0])


@pytest.mark.parametrize("make", [lambda t: L.ls_sgld(t, 1.0, 1.0), lambda t: L.ls_psgld(t, 1.0, 1.0)])
def test_a_non_finite_gradient_is_a_divergence_not_a_value_error(make):
    """The FFT operators reject non-finite input; the integrator reports the chain's divergence instead."""
    s = make(_InfiniteGradient())
    st = s.init(np.full((2, TARGET.dim), 10.0))
    with pytest.raises(DivergenceError) as ei:
        for _ in range(3):
            st, _ = s.step(st, np.random.default_rng(0))
    assert ei.value.n_bad_chains == 2


def test_proposition_2_1_fokker_planck_residual_vanishes():
    assert fokker_planck_residual(3) == 0


def test_proposition_2_1_residual_nonzero_if_noise_smoothed_like_gradient():
    assert sp.simplify(fokker_planck_residual(3, 1)) != 0


def test_proposition_2_1_small_step_limit():
    Ai = PeriodicSmoothing(1.0).inverse_matrix(TARGET.dim)
    hs = np.array([1e-3, 1e-4, 1e-5])
    good = small_step_stationary_error(TARGET.hessian, MU, Ai, hs)
    bad = small_step_stationary_error(TARGET.hessian, MU, Ai, hs, noise_power=1.0)  # the A⁻¹ noise, exactly
    assert np.all(np.diff(np.log(good)) / np.diff(np.log(hs)) > 0.9)  # O(h) → 0
    assert bad[-1] > 0.1 and abs(bad[-1] - bad[-2]) < 0.01 * bad[-1]  # a non-vanishing bias


@pytest.mark.statistical(pair="ls_sgld.exact_propagation")
def test_exact_propagation_agrees_with_monte_carlo():
    steps = [10, 300]
    x = run(1.0, 5e-3, steps, seed=4040)
    means, covs = exact(1.0, 5e-3, steps)
    for j in range(len(steps)):
        ok, info = agrees_with_exact(x[:, j], means[j], covs[j])
        assert ok, info


@pytest.mark.negative_control(pair="ls_sgld.exact_propagation")
def test_exact_propagation_check_catches_noise_smoothed_with_A_inverse():
    steps = [10, 300]
    x = run(1.0, 5e-3, steps, seed=4040, planted=True)
    means, covs = exact(1.0, 5e-3, steps)
    ok, info = agrees_with_exact(x[:, -1], means[-1], covs[-1])
    assert not ok, info


@pytest.mark.statistical(pair="ls_sgld.theorem33_structure")
def test_theorem33_structure_smaller_discretization_slower_ergodicity():
    ok, info = theorem33_structure(seed=5050)
    assert ok, info


@pytest.mark.negative_control(pair="ls_sgld.theorem33_structure")
def test_theorem33_structure_catches_noise_smoothed_with_A_inverse():
    ok, info = theorem33_structure(seed=5050, planted=True)
    assert not ok, info
