"""Closed forms for Gaussians: the posterior of a quadratic finite sum, KL divergence, Bures W2.

All functions broadcast over leading axes: means ``(..., d)``, covariances ``(..., d, d)``.

References
----------
EWSG §5.1 (seed ``000_8e0377c44e2ea3b8.txt``): the target ``V(θ) = Σ_i ½‖θ − c_i‖²`` and the KL
``KL(p‖q) = ∫ p log(p/q)`` it plots, with p the target and q the law of the samples.
Gelbrich (1990) / Dowson & Landau (1982): W2 between Gaussians (the Bures–Wasserstein distance).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .validation import check_finite_array

__all__ = ["GaussianLaw", "quadratic_posterior", "kl_gaussian", "bures_w2"]


class GaussianLaw(NamedTuple):
    """mean : (d,) ndarray; cov : (d, d) ndarray."""

    mean: np.ndarray
    cov: np.ndarray


def quadratic_posterior(centers) -> GaussianLaw:
    """Exact law ``∝ exp(−V)`` for ``V(θ) = Σ_i ½‖θ − c_i‖²``: ``N(c̄, I/n)``.

    Parameters
    ----------
    centers : (n, d) array_like of float

    Returns
    -------
    GaussianLaw
        mean ``c̄`` (d,), covariance ``I/n`` (d, d).

    Raises
    ------
    ValueError
        If ``centers`` is not a finite 2-D array.

    Examples
    --------
    >>> quadratic_posterior([[0.0, 1.0], [2.0, 3.0]]).mean
    array([1., 2.])
    """
    c = check_finite_array("centers", centers, ndim=2)
    n, d = c.shape
    return GaussianLaw(c.mean(axis=0), np.eye(d) / n)


def _sym_sqrt(S):
    w, V = np.linalg.eigh(S)
    w = np.clip(w, 0.0, None)
    return (V * np.sqrt(w)[..., None, :]) @ np.swapaxes(V, -1, -2)


def _check_pd(name, S):
    w = np.linalg.eigvalsh(S)
    if np.any(w <= 0):
        raise ValueError(f"{name} must be symmetric positive definite; smallest eigenvalue {w.min():.3g}")


def kl_gaussian(mean0, cov0, mean1, cov1) -> np.ndarray:
    """``KL(N(m0, S0) ‖ N(m1, S1))`` in nats.

    Parameters
    ----------
    mean0, mean1 : (..., d) array_like
    cov0, cov1 : (..., d, d) array_like, symmetric positive definite

    Returns
    -------
    ndarray of shape ``(...)``
        ``½ [tr(S1⁻¹S0) + (m1−m0)ᵀS1⁻¹(m1−m0) − d + log det S1 − log det S0]`` (nats, ≥ 0).

    Raises
    ------
    ValueError
        Non-finite input, or a covariance that is not positive definite (KL is then infinite;
        we refuse rather than return inf or NaN).

    Notes
    -----
    EWSG Fig. 1a plots ``KL(p‖q)`` with p the target and q the samples' law: call
    ``kl_gaussian(target_mean, target_cov, sample_mean, sample_cov)``.

    Examples
    --------
    >>> float(kl_gaussian([0.0], [[1.0]], [1.0], [[1.0]]))
    0.5
    """
    m0 = check_finite_array("mean0", mean0)
    m1 = check_finite_array("mean1", mean1)
    S0 = check_finite_array("cov0", cov0)
    S1 = check_finite_array("cov1", cov1)
    _check_pd("cov0", S0)
    _check_pd("cov1", S1)
    d = m0.shape[-1]
    L1 = np.linalg.cholesky(S1)
    diff = (m1 - m0)[..., None]
    A = np.linalg.solve(L1, S0)  # L1^{-1} S0
    tr = np.trace(np.linalg.solve(np.swapaxes(L1, -1, -2), A), axis1=-2, axis2=-1)
    z = np.linalg.solve(L1, diff)[..., 0]
    quad = np.sum(z * z, axis=-1)
    _, ld0 = np.linalg.slogdet(S0)
    ld1 = 2.0 * np.sum(np.log(np.diagonal(L1, axis1=-2, axis2=-1)), axis=-1)
    return 0.5 * (tr + quad - d + ld1 - ld0)


def bures_w2(mean0, cov0, mean1, cov1) -> np.ndarray:
    """Wasserstein-2 distance between Gaussians (not squared).

    ``W2² = ‖m0 − m1‖² + tr(S0 + S1 − 2 (S1^{½} S0 S1^{½})^{½})``.

    Parameters
    ----------
    mean0, mean1 : (..., d) array_like
    cov0, cov1 : (..., d, d) array_like, symmetric positive semi-definite

    Returns
    -------
    ndarray of shape ``(...)``
        W2 in the units of θ. Round-off that makes ``W2²`` slightly negative is clipped to 0.

    Raises
    ------
    ValueError
        On non-finite input.

    Examples
    --------
    >>> float(bures_w2([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], [3.0, 4.0], [[1.0, 0.0], [0.0, 1.0]]))
    5.0
    """
    m0 = check_finite_array("mean0", mean0)
    m1 = check_finite_array("mean1", mean1)
    S0 = check_finite_array("cov0", cov0)
    S1 = check_finite_array("cov1", cov1)
    r1 = _sym_sqrt(S1)
    cross = _sym_sqrt(r1 @ S0 @ r1)
    tr = np.trace(S0 + S1 - 2.0 * cross, axis1=-2, axis2=-1)
    w2sq = np.sum((m0 - m1) ** 2, axis=-1) + tr
    return np.sqrt(np.clip(w2sq, 0.0, None))
