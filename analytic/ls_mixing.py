"""Exact asymptotic MSE of the mean estimated by LD and LS-LD on a Gaussian target (LS-SGLD Fig. 3).

Fig. 3 compares the MSE ``E‖x̄_N − μ‖²`` of the running mean of N samples of LD and of LS-LD
(Euler–Maruyama with a "very small" step). On a Gaussian target ``π = N(μ, Σ)`` (``f(x) =
½(x − μ)ᵀH(x − μ)``, ``H = Σ⁻¹``, β = 1) both are linear (Ornstein–Uhlenbeck) dynamics,

    LS-LD (2.3):  dX = −A⁻¹H(X − μ) dt + √2 A^{−1/2} dW     (LD: A = I),

and the MSE of the time average is, for long runs, ``tr V / T`` with the asymptotic covariance
``V = ∫_ℝ Cov(X_0, X_s) ds``. With ``B = A⁻¹H`` and the stationary covariance ``Σ`` (Proposition
2.1: the same for every A), ``Cov(X_0, X_s) = Σ e^{−sBᵀ}`` for ``s ≥ 0``, so

    V = Σ B^{−ᵀ} + B⁻¹ Σ = 2 Σ A Σ,          ratio LS-LD / LD = tr(A Σ²) / tr(Σ²).

For the Euler–Maruyama chain ``x' = M x + c + ε`` (``M = I − hB``, ``Cov ε = W = 2hA⁻¹``) the
same holds with sums: ``S = M S Mᵀ + W`` (Stein/discrete Lyapunov equation) and ``K·Cov(x̄_K) →
(I − M)⁻¹S + S(I − M)⁻ᵀ − S``; in time units (T = Kh) ``V_h = S A Σ + Σ A S − h S`` with S the
EM stationary covariance. This equals ``2ΣAΣ`` at *every* stable h (it is the VAR(1) long-run variance
``h (I − M)⁻¹ W (I − M)⁻ᵀ = 2ΣAΣ``): the EM step changes the stationary law but not the asymptotic
variance of the mean, so the ratio below holds for Fig. 3's EM chains exactly (the Stein-equation route
is kept as the independent computation that the tests compare).

For the eq. (4.1) matrix ``A_σ = [[1+σ, −σ], [−σ, 1+σ]]`` the continuous ratio is linear in σ:
``1 + σ κ``, ``κ = 1 − 2(Σ²)₁₂ / tr(Σ²) ∈ [0, 2]`` — ``κ = 1`` for the isotropic (4.3)
(``Σ = 4.5 I``) and ``κ = 1 − 2·1.8/3.62 = 0.0055`` for §4.1.1's ``Σ = [[1, .9], [.9, 1]]``,
whose long axis is A_σ's unsmoothed eigenvector (1, 1).

Precision of a ratio of two MSEs from R runs: each run's ``x̄`` is (asymptotically) ``N(μ, V/T)``,
so ``‖x̄ − μ‖² = Σ_i (λ_i/T) χ²₁`` over the eigenvalues λ_i of V, and the R-run mean is
``(1/(RT)) Σ_i λ_i χ²_R`` — a weighted chi-square law, exact for Gaussian chains once the start is
forgotten. Its relative variance is ``2 tr(V²) / (R tr(V)²)`` (``1/R`` for an isotropic V in 2-D);
:func:`mse_ratio_precision` gives the delta-method standard error of the ratio and a Monte Carlo of
the exact law (quantiles of measured / true).

References
----------
Seed ``004_8438bd4b543e0fc4.txt``: eq. (2.3), eq. (4.1), Proposition 2.1, §4.1.1 (Σ), §4.1.3, eq.
(4.3), Figure 3 ("10 independent runs"), Remark 3.6.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.linalg import solve_discrete_lyapunov

from .laplacian import paper_matrix_2d
from .validation import check_finite_array, check_positive, check_positive_int

__all__ = ["mean_estimate_asymptotic_covariance", "running_mean_mse", "ls_ld_mse_ratio", "eq41_mse_ratio", "eq41_similar_sigma_limit",
           "MSERatioPrecision", "mse_ratio_precision"]


def _check_spd(name, M, d=None):
    M = check_finite_array(name, M, ndim=2)
    if M.shape[0] != M.shape[1] or (d is not None and M.shape[0] != d):
        raise ValueError(f"{name} must be square{'' if d is None else f' ({d}, {d})'}, got shape {M.shape}")
    if not np.allclose(M, M.T, rtol=1e-10, atol=1e-12):
        raise ValueError(f"{name} must be symmetric")
    if np.linalg.eigvalsh(0.5 * (M + M.T))[0] <= 0:
        raise ValueError(f"{name} must be positive definite")
    return 0.5 * (M + M.T)


def mean_estimate_asymptotic_covariance(covariance, smoothing_matrix=None, step_size=None) -> np.ndarray:
    """``lim_{T→∞} T · Cov(x̄_T)`` for the time average of LS-LD (2.3) on ``N(μ, Σ)``, continuous or EM.

    Parameters
    ----------
    covariance : (d, d) array_like, symmetric positive definite
        The target's covariance Σ (``H = Σ⁻¹``, β = 1).
    smoothing_matrix : (d, d) array_like, symmetric positive definite, or None
        ``A`` (``None``: the identity, i.e. LD).
    step_size : float > 0 or None
        ``None``: the continuous dynamics; otherwise Euler–Maruyama (2.4) with this step h, time
        ``T = K h`` for K steps.

    Returns
    -------
    (d, d) ndarray
        ``V`` (units of x² × time): ``2ΣAΣ`` for the continuous dynamics; for EM
        ``SAΣ + ΣAS − hS`` with S the EM stationary covariance (``S = MSMᵀ + 2hA⁻¹``, ``M = I − hA⁻¹Σ⁻¹``),
        which equals ``2ΣAΣ`` at every stable h (computed through the Stein equation all the same).

    Raises
    ------
    ValueError
        Non-SPD or mis-shaped matrices; non-positive ``step_size``; an unstable EM step
        (spectral radius of M ≥ 1).

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, eqs. (2.3)–(2.4), Proposition 2.1, Figure 3.

    Examples
    --------
    >>> V = mean_estimate_asymptotic_covariance(4.5 * np.eye(2))
    >>> bool(np.allclose(V, 2 * 4.5**2 * np.eye(2)))
    True
    """
    S_pi = _check_spd("covariance", covariance)
    d = S_pi.shape[0]
    A = np.eye(d) if smoothing_matrix is None else _check_spd("smoothing_matrix", smoothing_matrix, d)
    if step_size is None:
        V = 2.0 * S_pi @ A @ S_pi
        return 0.5 * (V + V.T)
    h = check_positive("step_size", step_size)
    Ai = np.linalg.inv(A)
    M = np.eye(d) - h * Ai @ np.linalg.inv(S_pi)
    if np.max(np.abs(np.linalg.eigvals(M))) >= 1.0:
        raise ValueError(f"step_size={h} makes the Euler-Maruyama recursion unstable (spectral radius >= 1)")
    S = solve_discrete_lyapunov(M, 2.0 * h * Ai)
    S = 0.5 * (S + S.T)
    # (I − M)⁻¹ = (h A⁻¹H)⁻¹ = Σ A / h: K Cov(x̄_K) → (ΣA/h) S + S (AΣ/h) − S; times h for T = K h
    V = S_pi @ A @ S + S @ A @ S_pi - h * S
    return 0.5 * (V + V.T)


def running_mean_mse(covariance, smoothing_matrix, step_size, steps, start_offset) -> np.ndarray:
    """Exact ``E‖x̄_N − μ‖²`` of the running mean of N Euler–Maruyama LS-LD steps from a fixed start.

    Parameters
    ----------
    covariance : (d, d) array_like, SPD
        Σ of the Gaussian target (β = 1).
    smoothing_matrix : (d, d) array_like, SPD, or None
        ``A`` (``None``: LD).
    step_size : float > 0
        EM step h (stable: spectral radius of ``M = I − hA⁻¹Σ⁻¹`` below 1).
    steps : 1-D array_like of int >= 1
        The N at which to evaluate; the running mean is over the states after steps 1..N (as
        :func:`sgmcmc_verify.runner.run_chains` time averages).
    start_offset : (d,) array_like
        ``x₀ − μ`` (Fig. 3: x₀ = 0, so ``−μ``).

    Returns
    -------
    (len(steps),) ndarray
        ``‖b_N‖² + tr C_N`` with the bias ``b_N = N⁻¹ M(I − M)⁻¹(I − M^N)(x₀ − μ)`` and
        ``C_N = N⁻² Σ_{m=1}^{N} (I − M^m) Q (I − M^m)ᵀ``, ``Q = (I − M)⁻¹W(I − M)⁻ᵀ``, ``W = 2hA⁻¹``;
        the sum in closed form: ``N Q − S_N Q − Q S_Nᵀ + P − M^N P M^{Nᵀ}`` with
        ``S_N = M(I − M)⁻¹(I − M^N)`` and ``P = MQMᵀ + MPMᵀ`` (Stein equation).

    Raises
    ------
    ValueError
        Bad matrices, step or steps; an unstable step.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, eqs. (2.3)–(2.4), §4.1.3, Figure 3 (x₀ not printed; 0 here).
    """
    S_pi = _check_spd("covariance", covariance)
    d = S_pi.shape[0]
    A = np.eye(d) if smoothing_matrix is None else _check_spd("smoothing_matrix", smoothing_matrix, d)
    h = check_positive("step_size", step_size)
    off = check_finite_array("start_offset", start_offset, ndim=1)
    if off.shape != (d,):
        raise ValueError(f"start_offset must have shape ({d},), got {off.shape}")
    Ns = np.asarray(steps)
    if Ns.ndim != 1 or Ns.size == 0 or not np.issubdtype(Ns.dtype, np.integer) or np.any(Ns < 1):
        raise ValueError(f"steps must be a 1-D array of integers >= 1, got {steps!r}")
    Ai = np.linalg.inv(A)
    M = np.eye(d) - h * Ai @ np.linalg.inv(S_pi)
    if np.max(np.abs(np.linalg.eigvals(M))) >= 1.0:
        raise ValueError(f"step_size={h} makes the Euler-Maruyama recursion unstable (spectral radius >= 1)")
    R = np.linalg.inv(np.eye(d) - M)
    Q = R @ (2.0 * h * Ai) @ R.T
    P = solve_discrete_lyapunov(M, M @ Q @ M.T)
    out = np.empty(Ns.size)
    for j, N in enumerate(Ns.astype(np.int64)):
        MN = np.linalg.matrix_power(M, int(N))
        SN = M @ R @ (np.eye(d) - MN)
        b = SN @ off / N
        C = (N * Q - SN @ Q - Q @ SN.T + P - MN @ P @ MN.T) / N**2
        out[j] = float(b @ b + np.trace(C))
    return out


def ls_ld_mse_ratio(covariance, smoothing_matrix, step_size=None) -> float:
    """Asymptotic MSE ratio of the estimated mean, LS-LD / LD, at equal time (equal N at equal step).

    Parameters
    ----------
    covariance : (d, d) array_like, SPD          Σ of the Gaussian target
    smoothing_matrix : (d, d) array_like, SPD    A (A_σ)
    step_size : float or None                    EM step h (both chains), ``None`` = continuous

    Returns
    -------
    float
        ``tr V_LS / tr V_LD`` (:func:`mean_estimate_asymptotic_covariance`); continuous:
        ``tr(AΣ²) / tr(Σ²)``. Above 1 means LS-LD's mean estimate is worse.

    Raises
    ------
    ValueError
        As :func:`mean_estimate_asymptotic_covariance`.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, Figure 3, §4.1.3.

    Examples
    --------
    >>> round(ls_ld_mse_ratio(4.5 * np.eye(2), [[2.0, -1.0], [-1.0, 2.0]]), 12)   # (4.3), sigma = 1
    2.0
    """
    v_ls = mean_estimate_asymptotic_covariance(covariance, smoothing_matrix, step_size)
    v_ld = mean_estimate_asymptotic_covariance(covariance, None, step_size)
    return float(np.trace(v_ls) / np.trace(v_ld))


def eq41_mse_ratio(covariance, sigma, step_size=None) -> float:
    """:func:`ls_ld_mse_ratio` with the eq. (4.1) matrix ``A_σ`` (2-D targets).

    Parameters
    ----------
    covariance : (2, 2) array_like, SPD
    sigma : float >= 0
    step_size : float or None

    Returns
    -------
    float
        Continuous: ``1 + σ(1 − 2(Σ²)₁₂/tr(Σ²))``.

    Raises
    ------
    ValueError
        Bad covariance, σ < 0, bad step.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, eq. (4.1), Figure 3.

    Examples
    --------
    >>> round(eq41_mse_ratio([[1.0, 0.9], [0.9, 1.0]], 1.0), 6)   # section 4.1.1's covariance
    1.005525
    """
    S = _check_spd("covariance", covariance)
    if S.shape != (2, 2):
        raise ValueError(f"covariance must be 2 x 2 for the eq. (4.1) matrix, got {S.shape}")
    return ls_ld_mse_ratio(S, paper_matrix_2d(sigma), step_size)


def eq41_similar_sigma_limit(covariance, band: float) -> float:
    """Largest σ with continuous ratio ``tr(A_σΣ²)/tr(Σ²) ≤ band`` (the ratio is ``1 + σκ``, never below 1).

    Parameters
    ----------
    covariance : (2, 2) array_like, SPD
    band : float > 1
        The "similar" factor (the ledger's 1.25).

    Returns
    -------
    float
        ``(band − 1)/κ`` with ``κ = 1 − 2(Σ²)₁₂/tr(Σ²)``; ``inf`` when κ = 0 (Σ² ∝ the (1,1)
        projector cannot occur for SPD Σ, so κ > 0 always; ``inf`` is kept for round-off).

    Raises
    ------
    ValueError
        Bad covariance or ``band <= 1``.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, eq. (4.1), Figure 3.

    Examples
    --------
    >>> round(eq41_similar_sigma_limit(4.5 * np.eye(2), 1.25), 12)   # (4.3): ratio 1 + sigma
    0.25
    """
    S = _check_spd("covariance", covariance)
    if S.shape != (2, 2):
        raise ValueError(f"covariance must be 2 x 2, got {S.shape}")
    b = check_positive("band", band)
    if b <= 1.0:
        raise ValueError(f"band must be > 1, got {band!r}")
    S2 = S @ S
    kappa = 1.0 - 2.0 * S2[0, 1] / np.trace(S2)
    return float((b - 1.0) / kappa) if kappa > 0 else float("inf")


class MSERatioPrecision(NamedTuple):
    """Precision of ``MSE_LS / MSE_LD`` estimated from ``runs`` runs each (exact weighted chi-square law).

    relative_se_delta : float      delta-method relative s.e. of the ratio
    relative_sd_mc : float         s.d. / mean of measured/true over the Monte Carlo draws
    quantiles : (3,) ndarray       2.5 %, 50 %, 97.5 % quantiles of measured/true ratio
    detectable_ratio : float       the true ratio at which the measured ratio exceeds, with probability
                                   1/2, the 97.5 % quantile it has when LS-LD and LD have the same law
                                   (a 50 %-power one-sided 2.5 % test of "ratio > 1")
    prob_within_band : float       P(measured ratio in [1/band, band]) at the true ratio ``tr V_LS / tr V_LD``
                                   (NaN when no band is given)
    runs : int
    draws : int
    """

    relative_se_delta: float
    relative_sd_mc: float
    quantiles: np.ndarray
    detectable_ratio: float
    prob_within_band: float
    runs: int
    draws: int


def mse_ratio_precision(cov_ls, cov_ld, runs: int, draws: int = 200_000, seed: int = 0,
                        band: float | None = None) -> MSERatioPrecision:
    """How precisely R independent runs per method determine the ratio of two mean-estimate MSEs.

    Parameters
    ----------
    cov_ls, cov_ld : (d, d) array_like, SPD
        Asymptotic covariances V of the two mean estimates (:func:`mean_estimate_asymptotic_covariance`;
        only their eigenvalues' proportions matter).
    runs : int >= 2
        R (the paper's Fig. 3: 10).
    draws : int >= 1000
        Monte Carlo draws of the exact law.
    seed : int
        Seed of the Monte Carlo (``numpy.random.default_rng``).
    band : float > 1 or None
        If given, also the probability that the measured ratio falls in ``[1/band, band]``.

    Returns
    -------
    MSERatioPrecision

    Raises
    ------
    ValueError
        Non-SPD covariances, ``runs < 2``, ``draws < 1000``, ``band <= 1``.

    Notes
    -----
    ``MSE_hat / MSE = Σ_i λ_i χ²_{R,i} / (R Σ_i λ_i)`` with independent chi-squares (eigen-directions of V,
    runs pooled): relative variance ``2 Σλ_i² / (R (Σλ_i)²)``; the ratio's delta-method relative
    variance is the sum of the two. The Monte Carlo draws the chi-squares exactly (gamma variates).

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, Figure 3 caption ("10 independent runs").

    Examples
    --------
    >>> p = mse_ratio_precision(np.eye(2), np.eye(2), runs=10, draws=20_000)
    >>> round(p.relative_se_delta, 4)   # sqrt(2/10): isotropic 2-D, each MSE has relative s.d. 1/sqrt(10)
    0.4472
    """
    lam_ls = np.linalg.eigvalsh(_check_spd("cov_ls", cov_ls))
    lam_ld = np.linalg.eigvalsh(_check_spd("cov_ld", cov_ld))
    R = check_positive_int("runs", runs)
    if R < 2:
        raise ValueError(f"runs must be >= 2, got {runs!r}")
    n = check_positive_int("draws", draws)
    if n < 1000:
        raise ValueError(f"draws must be >= 1000, got {draws!r}")
    if band is not None and not (np.isfinite(band) and band > 1.0):
        raise ValueError(f"band must be a finite number > 1, got {band!r}")

    def relvar(lam):
        return 2.0 * np.sum(lam**2) / (R * np.sum(lam) ** 2)

    rng = np.random.default_rng(seed)

    def draw(lam):
        chi = rng.chisquare(R, size=(n, lam.size))
        return chi @ lam / (R * lam.sum())

    z = draw(lam_ls) / draw(lam_ld)
    null = draw(lam_ld) / draw(lam_ld)
    q = np.quantile(z, [0.025, 0.5, 0.975])
    detect = float(np.quantile(null, 0.975) / q[1])
    p_in = float("nan")
    if band is not None:
        measured = z * lam_ls.sum() / lam_ld.sum()
        p_in = float(np.mean((measured >= 1.0 / band) & (measured <= band)))
    return MSERatioPrecision(float(np.sqrt(relvar(lam_ls) + relvar(lam_ld))), float(z.std() / z.mean()), q, detect,
                             p_in, R, n)
