"""Exact asymptotic MSE of the mean of LD / LS-LD (seed 004, Figure 3, eq. (4.1), eq. (4.3)).

Properties of :mod:`sgmcmc_verify.analytic.ls_mixing`, and a seeded simulation of the toolkit's LS-LD against it
with a planted bug (noise ``A⁻¹ε`` instead of ``A^{−1/2}ε``) it must catch.
"""
import numpy as np
import pytest
from scipy.linalg import solve_discrete_lyapunov

from sgmcmc_verify.analytic.laplacian import paper_matrix_2d
from sgmcmc_verify.analytic.ls_mixing import (eq41_mse_ratio, eq41_similar_sigma_limit, ls_ld_mse_ratio,
                                mean_estimate_asymptotic_covariance, mse_ratio_precision, running_mean_mse)
from sgmcmc_verify import samplers
from sgmcmc_verify.integrators.smoothing import MatrixSmoothing, paper_2d_smoothing
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.targets import GaussianTarget

SIG_43 = 4.5 * np.eye(2)                      # (4.3): exp(-((x-1)^2 + (y-2)^2)/9) -> covariance 4.5 I
SIG_411 = np.array([[1.0, 0.9], [0.9, 1.0]])  # section 4.1.1


def test_continuous_ratio_is_trace_of_A_sigma_squared():
    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    S = Q @ np.diag([0.3, 1.0, 2.0, 5.0]) @ Q.T
    G = rng.standard_normal((4, 4))
    A = G @ G.T + np.eye(4)
    assert ls_ld_mse_ratio(S, A) == pytest.approx(np.trace(A @ S @ S) / np.trace(S @ S), rel=1e-13)


@pytest.mark.parametrize("cov", [SIG_43, SIG_411])
@pytest.mark.parametrize("h", [1e-3, 1e-2, 0.1])
def test_em_long_run_variance_equals_continuous_at_every_step(cov, h):
    """The Stein-equation route equals the VAR(1) long-run variance (I−M)⁻¹W(I−M)⁻ᵀ·h = 2ΣAΣ."""
    A = paper_matrix_2d(1.0)
    np.testing.assert_allclose(mean_estimate_asymptotic_covariance(cov, A, h), 2 * cov @ A @ cov, rtol=1e-9)


def test_em_asymptotic_covariance_matches_brute_force_finite_K():
    h, A, S = 0.05, paper_matrix_2d(1.0), SIG_411
    M = np.eye(2) - h * np.linalg.solve(A, np.linalg.inv(S))
    St = solve_discrete_lyapunov(M, 2 * h * np.linalg.inv(A))
    K, acc, Mp = 40_000, np.zeros((2, 2)), np.eye(2)
    for s in range(K):   # K Var(x̄_K) from stationarity, summed lag by lag
        C = St @ Mp.T
        acc += (K - s) * (C if s == 0 else C + C.T)
        Mp = M @ Mp
    # finite-K correction is O(relaxation time / T) = O(40 / 2000)
    np.testing.assert_allclose(h * acc / K, mean_estimate_asymptotic_covariance(S, A, h), rtol=0.03)


def _running_mean_mse_by_sums(cov, A, h, N, off):
    """E‖x̄_N − μ‖² term by term: bias Σ_k M^k off / N, noise coefficient of ε_j = Σ_{k>j} M^{k−1−j}."""
    M = np.eye(2) - h * np.linalg.solve(A, np.linalg.inv(cov))
    W = 2 * h * np.linalg.inv(A)
    b = sum(np.linalg.matrix_power(M, k) @ off for k in range(1, N + 1)) / N
    C = np.zeros((2, 2))
    for j in range(N):
        g = sum(np.linalg.matrix_power(M, k - 1 - j) for k in range(j + 1, N + 1))
        C += g @ W @ g.T
    return b @ b + np.trace(C) / N**2


@pytest.mark.parametrize("cov", [SIG_43, SIG_411])
def test_running_mean_mse_closed_form_equals_term_by_term_sums(cov):
    A, h, off = paper_matrix_2d(1.0), 0.05, np.array([-1.0, -2.0])
    Ns = np.array([1, 2, 7, 40])
    got = running_mean_mse(cov, A, h, Ns, off)
    np.testing.assert_allclose(got, [_running_mean_mse_by_sums(cov, A, h, int(n), off) for n in Ns], rtol=1e-10)


def test_running_mean_mse_tends_to_the_asymptotic_variance():
    A, h = paper_matrix_2d(1.0), 1e-2
    N = np.array([10**7])
    # N h MSE -> tr V; the start's bias and the finite-N correction are O(relaxation time / T) = O(13.5 / 1e5)
    got = running_mean_mse(SIG_43, A, h, N, np.array([-1.0, -2.0]))[0] * N[0] * h
    assert got == pytest.approx(np.trace(mean_estimate_asymptotic_covariance(SIG_43, A)), rel=1e-3)
    with pytest.raises(ValueError, match="steps"):
        running_mean_mse(SIG_43, A, h, [0], np.zeros(2))
    with pytest.raises(ValueError, match="start_offset"):
        running_mean_mse(SIG_43, A, h, [1], np.zeros(3))


def test_eq41_ratio_closed_form_and_similar_limit():
    for sig in (0.01, 0.3, 1.0, 7.0):
        assert eq41_mse_ratio(SIG_43, sig) == pytest.approx(1 + sig, rel=1e-13)
        assert eq41_mse_ratio(SIG_411, sig) == pytest.approx(1 + sig * (1 - 3.6 / 3.62), rel=1e-13)
    assert eq41_similar_sigma_limit(SIG_43, 1.25) == pytest.approx(0.25, rel=1e-13)
    assert eq41_similar_sigma_limit(SIG_411, 1.25) == pytest.approx(0.25 * 3.62 / 0.02, rel=1e-12)
    s_star = eq41_similar_sigma_limit(SIG_411, 1.25)
    assert eq41_mse_ratio(SIG_411, s_star) == pytest.approx(1.25, rel=1e-12)


def test_precision_of_ratio_of_two_isotropic_mses():
    p = mse_ratio_precision(np.eye(2), np.eye(2), runs=10, draws=100_000, seed=1)
    assert p.relative_se_delta == pytest.approx(np.sqrt(0.2), rel=1e-12)
    # isotropic 2-D: each MSE is chi2_{2R}/(2R), the ratio is F(20, 20): quantiles known exactly
    from scipy.stats import f
    np.testing.assert_allclose(p.quantiles, f.ppf([0.025, 0.5, 0.975], 20, 20), rtol=0.03)
    assert p.detectable_ratio == pytest.approx(f.ppf(0.975, 20, 20) / f.ppf(0.5, 20, 20), rel=0.03)


def test_bad_input_names_parameter():
    with pytest.raises(ValueError, match="covariance"):
        mean_estimate_asymptotic_covariance(-np.eye(2))
    with pytest.raises(ValueError, match="smoothing_matrix"):
        mean_estimate_asymptotic_covariance(np.eye(2), np.eye(3))
    with pytest.raises(ValueError, match="step_size"):
        mean_estimate_asymptotic_covariance(np.eye(2), None, 5.0)
    with pytest.raises(ValueError, match="band"):
        eq41_similar_sigma_limit(SIG_43, 0.9)
    with pytest.raises(ValueError, match="runs"):
        mse_ratio_precision(np.eye(2), np.eye(2), runs=1)


# ---- the toolkit's LS-LD against the exact law ------------------------------------------------------

class _NoiseSmoothedLikeGradient(MatrixSmoothing):
    """Planted bug (test only): injected noise ``A⁻¹ε`` instead of ``A^{−1/2}ε`` (Proposition 2.1's excluded variant)."""

    def apply_inverse_sqrt(self, v):
        return self.apply_inverse(v)


def _exact_mean_cov_finite_K(A, cov, h, K):
    """Cov(x̄_K) of the EM chain started from its stationary law (lag sums), (2, 2)."""
    M = np.eye(2) - h * np.linalg.solve(A, np.linalg.inv(cov))
    St = solve_discrete_lyapunov(M, 2 * h * np.linalg.inv(A))
    acc, Mp = np.zeros((2, 2)), np.eye(2)
    for s in range(K):
        C = St @ Mp.T
        acc += (K - s) * (C if s == 0 else C + C.T)
        Mp = M @ Mp
    return acc / K**2, St


def _ratio_check(planted: bool) -> bool:
    """MSE of the running mean of LD and LS-LD (σ = 1, target (4.3)) within 4 exact s.e. of the formula.

    4,000 chains per method from the *correct* EM stationary law, K = 2,000 steps of h = 0.2 (T = 400,
    ~30 relaxation times of LS-LD); the prediction uses the exact finite-K covariance (lag sums), so the only
    slack is Monte Carlo: the MSE estimate's s.d. is exact (weighted chi-square, 2 tr(C²)/R).
    """
    mu, h, K, R, sig = np.array([1.0, 2.0]), 0.2, 2000, 4000, 1.0
    tgt = GaussianTarget(SIG_43, mean=mu)
    rng = np.random.default_rng(20240)
    ok = True
    for s in (0.0, sig):
        A = paper_matrix_2d(s)
        op = _NoiseSmoothedLikeGradient(A, s, "planted") if (planted and s > 0) else paper_2d_smoothing(s)
        C, St = _exact_mean_cov_finite_K(A, SIG_43, h, K)
        smp = samplers.ls_ld(tgt, h, op)
        x0 = mu + rng.standard_normal((R, 2)) @ np.linalg.cholesky(St).T
        run = run_chains(smp, smp.init(x0), rng, steps=K, time_average={"mean": lambda st: st.position})
        err = np.sum((run["mean"][:, -1] - mu) ** 2, axis=1)
        sd = np.sqrt(2 * np.trace(C @ C) / R)
        ok &= bool(abs(err.mean() - np.trace(C)) <= 4 * sd)
    return ok


@pytest.mark.statistical(pair="analytic.ls_mixing_mse")
def test_ls_ld_mean_mse_matches_exact_law():
    assert _ratio_check(planted=False)


@pytest.mark.negative_control(pair="analytic.ls_mixing_mse")
def test_ls_ld_mean_mse_check_catches_gradient_smoothed_noise():
    assert not _ratio_check(planted=True)
