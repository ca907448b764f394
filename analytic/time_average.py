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
from scipy.linalg import expm, solve_continuous_lyapunov

from .validation import check_finite_array, check_positive

__all__ = ["uld_stationary_cov", "uld_time_average_mse"]


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
