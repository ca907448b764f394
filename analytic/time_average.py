"""Exact MSE of the time average of ``φ(θ) = ‖θ − μ‖²`` for continuous underdamped Langevin on a quadratic V.

The h → 0 limit of EWSG Theorem 4.3's bound keeps only the ``C1/T`` term: for the continuous
dynamics (1) started from its invariant law, the time average ``φ̂_T = (1/T)∫_0^T φ(θ_t) dt`` is
unbiased and its MSE is its variance. On ``V(θ) = ½(θ − μ)ᵀ H (θ − μ)`` the process
``z = (θ − μ, r)`` is Ornstein–Uhlenbeck, ``dz = B z dt + Σ dW`` with
``B = [[0, I], [−H, −γI]]``, ``ΣΣᵀ = diag(0, σ² I)``; its stationary covariance ``Π`` solves
``BΠ + ΠBᵀ + ΣΣᵀ = 0`` and ``Cov(z_s, z_0) = e^{sB} Π``. For Gaussian θ, Isserlis' theorem gives
``Cov(φ(θ_0), φ(θ_s)) = 2 ‖C_θθ(s)‖_F²``, and

    MSE_0(T) = (2/T²) ∫_0^T (T − s) · 2 ‖[e^{sB} Π]_θθ‖_F² ds.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: eq. (1) (the dynamics), Theorem 4.3 eq. (5) (the C1/T term).
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import quad
from scipy.linalg import expm, solve_continuous_lyapunov, solve_discrete_lyapunov

from .validation import check_finite_array, check_positive

__all__ = ["uld_stationary_cov", "uld_time_average_mse", "em_time_average_moments",
           "em_asymptotic_time_average_variance", "uld_asymptotic_time_average_variance",
           "uld_time_average_mse_closed_form"]


def uld_stationary_cov(hessian, friction, noise_scale=None) -> np.ndarray:
    """Stationary covariance ``Π`` of ``z = (θ − μ, r)`` for continuous underdamped Langevin, shape ``(2d, 2d)``.

    Parameters
    ----------
    hessian : (d, d) array_like, symmetric positive definite      H
    friction : float                                              γ > 0
    noise_scale : float or None                                   σ; ``None`` means √(2γ)

    Returns
    -------
    (2d, 2d) ndarray; with σ = √(2γ) it is ``diag(H⁻¹, I)``.
    """
    H = check_finite_array("hessian", hessian, ndim=2)
    g = check_positive("friction", friction)
    s = np.sqrt(2 * g) if noise_scale is None else check_positive("noise_scale", noise_scale)
    d = H.shape[0]
    B = np.block([[np.zeros((d, d)), np.eye(d)], [-H, -g * np.eye(d)]])
    D = np.zeros((2 * d, 2 * d))
    D[d:, d:] = s * s * np.eye(d)
    P = solve_continuous_lyapunov(B, -D)
    return 0.5 * (P + P.T)


def uld_time_average_mse(hessian, friction, T, noise_scale=None) -> np.ndarray:
    """``E(φ̂_T − φ̄)²`` for ``φ(θ) = ‖θ − μ‖²`` under continuous underdamped Langevin from stationarity.

    Parameters
    ----------
    hessian : (d, d) array_like       H (the posterior precision)
    friction : float                  γ > 0
    T : float or 1-D array_like       time horizons > 0
    noise_scale : float or None       σ; ``None`` means √(2γ)

    Returns
    -------
    ndarray of the shape of ``T``
        The exact MSE (the ``C1/T`` part of Theorem 4.3 without discretization or gradient noise).

    Examples
    --------
    >>> m = uld_time_average_mse(50 * np.eye(2), 10.0, [10.0, 20.0])
    >>> bool(abs(m[0] / m[1] - 2.0) < 0.05)   # ~ C1/T for T much larger than the relaxation time
    True
    """
    H = check_finite_array("hessian", hessian, ndim=2)
    g = check_positive("friction", friction)
    Ts = np.atleast_1d(np.asarray(T, dtype=np.float64))
    if np.any(~np.isfinite(Ts)) or np.any(Ts <= 0):
        raise ValueError("T must be finite and > 0")
    d = H.shape[0]
    P = uld_stationary_cov(H, g, noise_scale)
    B = np.block([[np.zeros((d, d)), np.eye(d)], [-H, -g * np.eye(d)]])

    def c(s):
        C = (expm(s * B) @ P)[:d, :d]
        return 2.0 * np.sum(C * C)

    out = np.empty_like(Ts)
    for j, t in enumerate(Ts):
        i0, _ = quad(lambda s: c(s), 0.0, t, limit=200)
        i1, _ = quad(lambda s: s * c(s), 0.0, t, limit=200)
        out[j] = 2.0 * (t * i0 - i1) / t**2
    return out.reshape(np.shape(T)) if np.ndim(T) else out[0]


def em_time_average_moments(A, a, W, mean0, cov0, steps, weight, center):
    """Exact mean and Gaussian-noise variance of the time average of a quadratic along a linear recursion.

    The chain is ``z_{k+1} = A z_k + a + ε_k`` (``Cov ε_k = W``, independent of the past) started
    from a law with mean ``mean0`` and covariance ``cov0``; the time average is that of
    :func:`sgmcmc_verify.runner.run_chains`, over the states after each step,
    ``φ̂_K = (1/K) Σ_{k=1}^{K} φ(z_k)`` with ``φ(z) = (z − c)ᵀ Π (z − c)``.

    Parameters
    ----------
    A : (D, D) array_like; a : (D,) array_like; W : (D, D) array_like
        The recursion (:class:`sgmcmc_verify.analytic.linear_samplers.LinearRecursion` fields).
    mean0 : (D,) array_like; cov0 : (D, D) array_like
        First two moments of ``z_0``.
    steps : 1-D array_like of int
        The K at which to evaluate, increasing, >= 1.
    weight : (D, D) array_like, symmetric positive semi-definite
        Π (``diag(I_d, 0)`` for ``φ(θ) = ‖θ − μ‖²``).
    center : (D,) array_like
        c.

    Returns
    -------
    mean : (len(steps),) ndarray
        ``E φ̂_K`` — exact for any noise law (it needs second moments only).
    variance : (len(steps),) ndarray
        ``Var φ̂_K`` — exact when ``z_0`` and the ``ε_k`` are Gaussian (Isserlis); for non-Gaussian
        noise with the same covariance (SGHMC's b = 1 index noise) the fourth cumulant adds a term
        this function omits ("Gaussian-noise surrogate").

    Raises
    ------
    ValueError
        Non-finite or mis-shaped input, or ``steps`` not increasing integers >= 1.

    Notes
    -----
    With ``m_k, S_k`` the moments of ``z_k``, ``δ_k = m_k − c`` and ``C_jk = Cov(z_j, z_k) = S_j (A^{k−j})ᵀ``
    (j <= k): ``E φ_k = tr(Π S_k) + δ_kᵀΠδ_k`` and
    ``Cov(φ_j, φ_k) = 2 tr(Π C_jk Π C_jkᵀ) + 4 δ_jᵀ Π C_jk Π δ_k``. Summing over ``k >= j`` in O(K)
    uses ``N_m = Σ_{s<=m} (A^s)ᵀ Π A^s = Π + Aᵀ N_{m−1} A`` and
    ``v_j = Σ_{k>=j} (A^{k−j})ᵀ Π δ_k = Πδ_j + Aᵀ v_{j+1}``:
    ``Σ_{k>=j} Cov(φ_j, φ_k) = 2 tr(S_j Π S_j N_{K−j}) + 4 δ_jᵀ Π S_j v_j``, and
    ``Var(Σ_k φ_k) = Σ_j [2 Σ_{k>=j} Cov(φ_j, φ_k) − Var φ_j]``. Costs O(K) small matrix products
    per evaluated K.

    References
    ----------
    EWSG, seed ``000_8e0377c44e2ea3b8.txt``: Theorem 4.3, eq. (5) (the MSE of ``φ̂_K``), §5.1.
    """
    A = check_finite_array("A", A, ndim=2)
    a = check_finite_array("a", a, ndim=1)
    W = check_finite_array("W", W, ndim=2)
    m = check_finite_array("mean0", mean0, ndim=1).copy()
    S = check_finite_array("cov0", cov0, ndim=2).copy()
    P = check_finite_array("weight", weight, ndim=2)
    c = check_finite_array("center", center, ndim=1)
    ks = np.asarray(steps)
    if ks.ndim != 1 or ks.size == 0 or not np.issubdtype(ks.dtype, np.integer) or ks[0] < 1 or np.any(np.diff(ks) <= 0):
        raise ValueError(f"steps must be increasing integers >= 1, got {steps!r}")
    K = int(ks[-1])
    D = m.size
    Ss, ds = np.empty((K, D, D)), np.empty((K, D))
    for k in range(K):
        m = A @ m + a
        S = A @ S @ A.T + W
        Ss[k], ds[k] = 0.5 * (S + S.T), m - c
    Ephi = np.einsum("ij,kji->k", P, Ss) + np.einsum("ki,ij,kj->k", ds, P, ds)
    var_phi = 2 * np.einsum("ij,kjl,lm,kmi->k", P, Ss, P, Ss) + 4 * np.einsum("ki,ij,kjl,lm,km->k", ds, P, Ss, P, ds)
    means, variances = np.empty(ks.size), np.empty(ks.size)
    for out_j, Kj in enumerate(ks):
        Kj = int(Kj)
        N = np.zeros((D, D))
        v = np.zeros(D)
        total = 0.0
        for j in range(Kj - 1, -1, -1):  # state index j+1 (after step j+1); N covers lags 0..Kj-1-j
            N = P + A.T @ N @ A
            v = P @ ds[j] + A.T @ v
            SPS = Ss[j] @ P @ Ss[j]
            row = 2 * np.sum(SPS * N) + 4 * ds[j] @ P @ Ss[j] @ v
            total += 2 * row - var_phi[j]
        means[out_j] = Ephi[:Kj].mean()
        variances[out_j] = total / Kj**2
    return means, variances


def em_asymptotic_time_average_variance(A, W, weight) -> float:
    """``lim_{K→∞} K · Var φ̂_K`` for a stationary linear recursion with Gaussian noise (per step).

    Parameters
    ----------
    A : (D, D) array_like, spectral radius < 1
    W : (D, D) array_like
        Noise covariance per step.
    weight : (D, D) array_like
        Π of ``φ(z) = (z − m*)ᵀ Π (z − m*)`` (m* the stationary mean).

    Returns
    -------
    float
        ``Σ_{s ∈ ℤ} Cov(φ_0, φ_s) = 4 tr(S Π S N) − 2 tr(Π S Π S)`` with ``S = A S Aᵀ + W`` and
        ``N = Π + Aᵀ N A``. Multiply by h to get the constant ``V`` of ``Var φ̂ ≈ V/T`` (T = Kh).

    Raises
    ------
    ValueError
        Non-finite input or an unstable A (no stationary law).
    """
    A = check_finite_array("A", A, ndim=2)
    W = check_finite_array("W", W, ndim=2)
    P = check_finite_array("weight", weight, ndim=2)
    if np.max(np.abs(np.linalg.eigvals(A))) >= 1.0:
        raise ValueError("A is unstable (spectral radius >= 1): no stationary law")
    S = solve_discrete_lyapunov(A, W)
    N = solve_discrete_lyapunov(A.T, P)
    S, N = 0.5 * (S + S.T), 0.5 * (N + N.T)
    return float(4 * np.trace(S @ P @ S @ N) - 2 * np.trace(P @ S @ P @ S))


def uld_asymptotic_time_average_variance(hessian, friction, noise_scale=None) -> float:
    """``lim_{T→∞} T · MSE_0(T)`` for ``φ(θ) = ‖θ − μ‖²`` under continuous underdamped Langevin: Theorem 4.3's C1.

    Parameters
    ----------
    hessian : (d, d) array_like; friction : float; noise_scale : float or None
        As :func:`uld_time_average_mse`.

    Returns
    -------
    float
        ``∫_{−∞}^{∞} 2‖[e^{|s|B} P]_θθ‖_F² ds = 4 tr(P Π_z P N)`` with ``P`` the stationary covariance,
        ``Π_z = diag(I, 0)`` and ``Bᵀ N + N B + Π_z = 0``.
    """
    H = check_finite_array("hessian", hessian, ndim=2)
    g = check_positive("friction", friction)
    d = H.shape[0]
    P = uld_stationary_cov(H, g, noise_scale)
    B = np.block([[np.zeros((d, d)), np.eye(d)], [-H, -g * np.eye(d)]])
    Pz = np.zeros((2 * d, 2 * d))
    Pz[:d, :d] = np.eye(d)
    N = solve_continuous_lyapunov(B.T, -Pz)
    return float(2 * np.trace(P @ Pz @ P @ (N + N.T)))


def uld_time_average_mse_closed_form(hessian, friction, T, noise_scale=None) -> np.ndarray:
    """:func:`uld_time_average_mse` in closed form (two Lyapunov solves and one matrix exponential per T).

    Parameters and returns as :func:`uld_time_average_mse` (same quantity; no quadrature, so it is
    accurate and fast for long horizons, T in the hundreds).

    Notes
    -----
    With ``c(s) = 2 tr(P Π P G(s))``, ``G(s) = e^{sBᵀ} Π e^{sB}`` and ``N``, ``N₂`` solving
    ``BᵀN + NB + Π = 0`` and ``BᵀN₂ + N₂B + N = 0``: ``∫_0^T G = N − F(T)`` with
    ``F(s) = e^{sBᵀ} N e^{sB}``, and ``∫_0^T s G = −T F(T) + N₂ − e^{TBᵀ} N₂ e^{TB}``, so
    ``MSE_0(T) = (2/T) ∫_0^T c − (2/T²) ∫_0^T s c``.
    """
    H = check_finite_array("hessian", hessian, ndim=2)
    g = check_positive("friction", friction)
    Ts = np.atleast_1d(np.asarray(T, dtype=np.float64))
    if np.any(~np.isfinite(Ts)) or np.any(Ts <= 0):
        raise ValueError("T must be finite and > 0")
    d = H.shape[0]
    P = uld_stationary_cov(H, g, noise_scale)
    B = np.block([[np.zeros((d, d)), np.eye(d)], [-H, -g * np.eye(d)]])
    Pz = np.zeros((2 * d, 2 * d))
    Pz[:d, :d] = np.eye(d)
    N = solve_continuous_lyapunov(B.T, -Pz)
    N2 = solve_continuous_lyapunov(B.T, -N)
    W = P @ Pz @ P
    out = np.empty_like(Ts)
    for j, t in enumerate(Ts):
        E = expm(t * B)
        FT = E.T @ N @ E
        i0 = 2 * np.trace(W @ (N - FT))
        i1 = 2 * np.trace(W @ (-t * FT + N2 - E.T @ N2 @ E))
        out[j] = 2.0 * (t * i0 - i1) / t**2
    return out.reshape(np.shape(T)) if np.ndim(T) else out[0]
