"""Exact autocorrelation and integrated autocorrelation time of a stationary linear recursion.

For ``z' = A z + a + ε`` (ε independent of z, covariance W) at stationarity, ``z_{k+s}`` is
``A^s z_k`` plus noise independent of ``z_k``, so ``Cov(z_{k+s}, z_k) = A^s S`` with S the stationary
covariance (``S = A S Aᵀ + W``). The autocorrelation of coordinate i at lag s is
``ρ_i(s) = (A^s S)_{ii} / S_{ii}`` and the integrated autocorrelation time (Sokal's convention,
the one ``emcee.autocorr.integrated_time`` estimates) is

    τ_i = 1 + 2 Σ_{s≥1} ρ_i(s) = 1 + 2 [A (I − A)⁻¹ S]_{ii} / S_{ii}     (spectral radius of A < 1).

Only second moments enter, so the formulas are exact for SGLD / SGHMC on a quadratic target even
though their minibatch noise is not Gaussian (:mod:`sgmcmc_verify.analytic.linear_samplers` builds A and S).

References
----------
Sokal, *Monte Carlo methods in statistical mechanics* (1997), eq. (2.20); EWSG conference text
(seed ``003_19372d6d86d2623b.txt``), footnote 5 and Fig. 1b (autocorrelation time).
"""
from __future__ import annotations

import numpy as np

from .validation import check_finite_array, check_nonnegative_int

__all__ = ["linear_autocorrelation", "linear_integrated_time"]


def _check(A, cov, index):
    A = check_finite_array("A", A, ndim=2)
    S = check_finite_array("cov", cov, ndim=2)
    D = A.shape[0]
    if A.shape != (D, D) or S.shape != (D, D):
        raise ValueError(f"A and cov must be square of the same size, got {A.shape} and {S.shape}")
    rho = float(np.max(np.abs(np.linalg.eigvals(A))))
    if not rho < 1.0:
        raise ValueError(f"A must have spectral radius < 1 (a stationary recursion), got {rho:.6g}")
    i = check_nonnegative_int("index", index)
    if i >= D:
        raise ValueError(f"index must be < {D}, got {i}")
    if not S[i, i] > 0:
        raise ValueError(f"cov[{i}, {i}] must be > 0, got {S[i, i]!r}")
    return A, S, i


def linear_autocorrelation(A, cov, index: int, lags) -> np.ndarray:
    """``ρ_i(s) = (A^s S)_{ii} / S_{ii}`` at the given lags.

    Parameters
    ----------
    A : (D, D) array_like
        Transition matrix, spectral radius < 1.
    cov : (D, D) array_like
        Stationary covariance S.
    index : int
        Coordinate i.
    lags : (m,) array_like of int >= 0

    Returns
    -------
    (m,) ndarray

    Raises
    ------
    ValueError
        Mis-shaped or non-finite input, spectral radius >= 1, negative lags, ``S_ii <= 0``.

    Examples
    --------
    >>> linear_autocorrelation([[0.5]], [[4.0 / 3.0]], 0, [0, 1, 2])    # AR(1): ρ(s) = 0.5^s
    array([1.  , 0.5 , 0.25])
    """
    A, S, i = _check(A, cov, index)
    lags = np.asarray(lags)
    if lags.ndim != 1 or np.any(lags < 0) or not np.all(lags == np.round(lags)):
        raise ValueError(f"lags must be a 1-D sequence of integers >= 0, got {lags!r}")
    out = np.empty(lags.size)
    for k, s in enumerate(lags.astype(int)):
        out[k] = (np.linalg.matrix_power(A, s) @ S)[i, i] / S[i, i]
    return out


def linear_integrated_time(A, cov, index: int) -> float:
    """``τ_i = 1 + 2 Σ_{s≥1} ρ_i(s) = 1 + 2 [A (I − A)⁻¹ S]_{ii} / S_{ii}`` (steps).

    Parameters
    ----------
    A : (D, D) array_like
        Transition matrix, spectral radius < 1.
    cov : (D, D) array_like
        Stationary covariance S.
    index : int

    Returns
    -------
    float
        1 for white noise; ``(1 + φ)/(1 − φ)`` for an AR(1) with coefficient φ.

    Raises
    ------
    ValueError
        As :func:`linear_autocorrelation`.

    Examples
    --------
    >>> round(linear_integrated_time([[0.5]], [[4.0 / 3.0]], 0), 12)
    3.0
    """
    A, S, i = _check(A, cov, index)
    D = A.shape[0]
    G = A @ np.linalg.solve(np.eye(D) - A, S)
    return float(1.0 + 2.0 * G[i, i] / S[i, i])
