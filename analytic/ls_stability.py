"""The exact stability limit of the plain and the Laplacian-smoothed Langevin recursion on a quadratic target.

On ``f(x) = ½ xᵀHx`` (H symmetric positive definite) the mean of SGLD / LS-SGLD (2.5) follows the linear
recursion ``m' = T m`` with the iteration matrix ``T = I − ηA⁻¹H`` (``A = I`` for SGLD), and the covariance
``S' = T S Tᵀ + W``: both are bounded for every start exactly when the spectral radius ``ρ(T) < 1``. The
eigenvalues of ``A⁻¹H`` are those of the symmetric ``A^{−1/2}HA^{−1/2}``, real and positive, so

    ρ(I − ηA⁻¹H) < 1   ⇔   η < η* = 2 / μ_max,   μ_max = λ_max(A⁻¹H) (the generalized eigenproblem Hv = μAv).

The enlargement of the stable step by smoothing is ``η*_A / η*_I = λ_max(H) / λ_max(A⁻¹H)``. §4.1.1 scales the
step by ``(1 + 4σ)^{1/4}`` (citing an optimization result for LS-SGD); whether the smoothed recursion is stable at
the enlarged step depends on where H's stiff directions sit in A's eigenbasis: a Hessian whose stiffest mode is
A's highest-frequency mode gains up to ``1 + 4σ``; one whose stiffest mode is constant (or ``H = cI``) gains
nothing.

References
----------
Seed ``004_8438bd4b543e0fc4.txt``: eq. (2.1), eq. (2.5), §2 (the LS-SGD step-size result of [33]), §4.1.1
(steps × (1 + 4σ)^{1/4}), §4.2, §4.3.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg

from .validation import check_finite_array, check_positive

__all__ = ["stable_step_limit", "iteration_spectral_radius", "step_enlargement"]


def _spd(name, M):
    M = check_finite_array(name, M, ndim=2)
    if M.shape[0] != M.shape[1]:
        raise ValueError(f"{name} must be square, got shape {M.shape}")
    if not np.allclose(M, M.T, rtol=0, atol=1e-12 * max(1.0, np.abs(M).max())):
        raise ValueError(f"{name} must be symmetric")
    if np.linalg.eigvalsh(M).min() <= 0:
        raise ValueError(f"{name} must be positive definite")
    return M


def stable_step_limit(hessian, smoothing=None) -> float:
    """The largest step η* with ``ρ(I − ηA⁻¹H) < 1`` for every ``η < η*``: ``2 / λ_max(A⁻¹H)``.

    Parameters
    ----------
    hessian : (d, d) array_like
        H, symmetric positive definite.
    smoothing : (d, d) array_like or None
        A (symmetric positive definite; None: the identity, plain SGLD).

    Returns
    -------
    float
        η* (units of the step size).

    Raises
    ------
    ValueError
        Non-square, non-symmetric, non-positive-definite or non-finite input; mismatched shapes.

    Examples
    --------
    >>> stable_step_limit(np.diag([1.0, 4.0]))
    0.5
    """
    H = _spd("hessian", hessian)
    if smoothing is None:
        return float(2.0 / np.linalg.eigvalsh(H).max())
    A = _spd("smoothing", smoothing)
    if A.shape != H.shape:
        raise ValueError(f"smoothing must have shape {H.shape}, got {A.shape}")
    return float(2.0 / scipy.linalg.eigh(H, A, eigvals_only=True).max())


def iteration_spectral_radius(hessian, step_size: float, smoothing=None) -> float:
    """``ρ(I − ηA⁻¹H)`` computed from the eigenvalues of the (non-symmetric) iteration matrix itself.

    A cross-check of :func:`stable_step_limit` that does not use the generalized eigenproblem.

    Raises
    ------
    ValueError
        As :func:`stable_step_limit`; a non-positive ``step_size``.
    """
    H = _spd("hessian", hessian)
    eta = check_positive("step_size", step_size)
    Ai_H = H if smoothing is None else np.linalg.solve(_spd("smoothing", smoothing), H)
    T = np.eye(H.shape[0]) - eta * Ai_H
    return float(np.abs(np.linalg.eigvals(T)).max())


def step_enlargement(hessian, smoothing) -> float:
    """``η*_A / η*_I = λ_max(H) / λ_max(A⁻¹H)``: how much larger a stable smoothed step may be.

    Examples
    --------
    >>> from sgmcmc_verify.analytic.laplacian import paper_matrix_2d
    >>> Sigma = np.array([[1.0, 0.9], [0.9, 1.0]])
    >>> round(step_enlargement(np.linalg.inv(Sigma), paper_matrix_2d(0.1)), 12)   # 1 + 2σ: stiff mode (1, −1)
    1.2
    """
    return stable_step_limit(hessian, smoothing) / stable_step_limit(hessian)
