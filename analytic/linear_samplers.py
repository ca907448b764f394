"""Exact laws of the linear stochastic-gradient samplers on a quadratic target.

On ``V(θ) = Σ_i ½‖θ − c_i‖²`` (more generally, any quadratic V whose per-datum Hessians are all
equal) the minibatch gradient is ``ĝ(θ) = H(θ − θ*) + ζ`` with noise ``ζ`` independent of θ, mean
0 and covariance ``Q``. SGLD and underdamped Euler–Maruyama (SGHMC) are then linear recursions
``z' = A z + a + ε`` with Gaussian-plus-``ζ`` noise of covariance ``W``; their mean and covariance
follow exactly, at every step, from ``m' = A m + a`` and ``S' = A S Aᵀ + W``, and their stationary
covariance solves the discrete Lyapunov equation ``S = A S Aᵀ + W``
(``scipy.linalg.solve_discrete_lyapunov``). For b = 1 the noise ``ζ = −n(c_I − c̄)`` is not
Gaussian, so the *law* of the chain is not exactly Gaussian; its first two moments are exact
nevertheless, and so is every Gaussian-moment quantity (Gaussian-fit KL, Bures W2) built on them.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: eq. (3) (underdamped EM), Appendix E (overdamped EM),
Appendix H (the quadratic example).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.linalg import solve_discrete_lyapunov

from .validation import check_finite_array, check_positive, check_positive_int

__all__ = [
    "LinearRecursion",
    "minibatch_noise_covariance",
    "sgld_recursion",
    "underdamped_em_recursion",
    "variance_corrected_em_recursion",
    "stationary_moments",
    "propagate_moments",
    "StationaryBiasSplit",
    "stationary_bias_split",
]


class LinearRecursion(NamedTuple):
    """``z' = A z + a + ε``, ``Cov ε = W``; ``z`` is θ (overdamped) or (θ, r) (underdamped).

    A : (D, D); a : (D,); W : (D, D); position_dim : int (θ is ``z[:position_dim]``).
    """

    A: np.ndarray
    a: np.ndarray
    W: np.ndarray
    position_dim: int


def minibatch_noise_covariance(centers, batch_size: int = 1) -> np.ndarray:
    """Covariance ``Q`` of the uniform-minibatch gradient noise on the Gaussian-means target.

    ``ζ = −(n/b) Σ_j (c_{I_j} − c̄)`` with ``I_j`` i.i.d. uniform, so
    ``Q = (n²/b) · (1/n) Σ_i (c_i − c̄)(c_i − c̄)ᵀ``; ``tr Q`` is the factor
    ``Tr cov(n∇V_I | F_k)`` of EWSG Theorem 4.3 for SGHMC (b = 1).

    Parameters
    ----------
    centers : (n, d) array_like
    batch_size : int, default 1

    Returns
    -------
    (d, d) ndarray
    """
    c = check_finite_array("centers", centers, ndim=2)
    b = check_positive_int("batch_size", batch_size)
    n = c.shape[0]
    c0 = c - c.mean(axis=0)
    return (n**2 / b) * (c0.T @ c0) / n


def sgld_recursion(hessian, minimizer, noise_cov, step_size, inverse_temperature=1.0) -> LinearRecursion:
    """SGLD / overdamped EM ``θ' = θ − h(H(θ − θ*) + ζ) + √(2h/β) ξ`` as a :class:`LinearRecursion`.

    Parameters
    ----------
    hessian : (d, d) array_like           H
    minimizer : (d,) array_like           θ*
    noise_cov : (d, d) array_like         Q (zeros for the full gradient)
    step_size : float                     h > 0
    inverse_temperature : float           β > 0

    Returns
    -------
    LinearRecursion with ``A = I − hH``, ``a = hHθ*``, ``W = h²Q + (2h/β) I``.
    """
    H = check_finite_array("hessian", hessian, ndim=2)
    th = check_finite_array("minimizer", minimizer, ndim=1)
    Q = check_finite_array("noise_cov", noise_cov, ndim=2)
    h = check_positive("step_size", step_size)
    beta = check_positive("inverse_temperature", inverse_temperature)
    d = th.shape[0]
    A = np.eye(d) - h * H
    return LinearRecursion(A, h * H @ th, h * h * Q + (2.0 * h / beta) * np.eye(d), d)


def underdamped_em_recursion(hessian, minimizer, noise_cov, step_size, friction, noise_scale=None) -> LinearRecursion:
    """Underdamped EM, EWSG eq. (3), with gradient ``H(θ − θ*) + ζ``, as a :class:`LinearRecursion` in z = (θ, r).

    ``θ' = θ + h r``, ``r' = r − h(H(θ − θ*) + ζ + γ r) + σ√h ξ``.

    Parameters
    ----------
    hessian, minimizer, noise_cov : as :func:`sgld_recursion`
    step_size : float       h > 0
    friction : float        γ > 0
    noise_scale : float     σ >= 0; ``None`` means √(2γ)

    Returns
    -------
    LinearRecursion with ``A = [[I, hI], [−hH, (1 − hγ)I]]``, ``a = (0, hHθ*)``,
    ``W = [[0, 0], [0, h²Q + σ²h I]]``.
    """
    H = check_finite_array("hessian", hessian, ndim=2)
    th = check_finite_array("minimizer", minimizer, ndim=1)
    Q = check_finite_array("noise_cov", noise_cov, ndim=2)
    h = check_positive("step_size", step_size)
    g = check_positive("friction", friction)
    s = np.sqrt(2.0 * g) if noise_scale is None else float(noise_scale)
    if not (np.isfinite(s) and s >= 0):
        raise ValueError(f"noise_scale must be a finite number >= 0, got {noise_scale!r}")
    d = th.shape[0]
    I, Z = np.eye(d), np.zeros((d, d))
    A = np.block([[I, h * I], [-h * H, (1.0 - h * g) * I]])
    a = np.concatenate([np.zeros(d), h * H @ th])
    W = np.block([[Z, Z], [Z, h * h * Q + s * s * h * I]])
    return LinearRecursion(A, a, W, d)


def variance_corrected_em_recursion(hessian, minimizer, noise_cov, step_size, friction,
                                    noise_scale=None) -> LinearRecursion:
    """Underdamped EM (3) with EWSG-VR's corrected friction ``Γ = (σ²I + hQ)/(2T)``, ``T = σ²/(2γ)``.

    ``θ' = θ + h r``, ``r' = r − h(H(θ − θ*) + ζ + Γ r) + σ√h ξ``, ``Cov ζ = Q``: EWSG-VR (Appendix F,
    Algorithm 2) with uniform subsampling (M = 0) and the exact covariance at every step, after its
    first step (``Γ_0 = γ``). On the Gaussian-means target the covariance of ``n∇V_I`` does not
    depend on θ, so Γ is constant.

    Parameters
    ----------
    hessian, minimizer, noise_cov : as :func:`sgld_recursion`
        ``noise_cov`` is ``Q``, the covariance of the minibatch gradient (``cov[n∇V_I]/b``).
    step_size : float       h > 0
    friction : float        γ > 0
    noise_scale : float     σ > 0; ``None`` means √(2γ)

    Returns
    -------
    LinearRecursion with ``A = [[I, hI], [−hH, I − hΓ]]``, ``a = (0, hHθ*)``,
    ``W = [[0, 0], [0, h²Q + σ²h I]]``.

    Raises
    ------
    ValueError
        Non-positive ``step_size``, ``friction`` or ``noise_scale``; bad shapes.

    References
    ----------
    EWSG, seed ``000_8e0377c44e2ea3b8.txt``: eq. (13) and the friction ``Γ_k`` of Appendix F.
    """
    g = check_positive("friction", friction)
    s = np.sqrt(2.0 * g) if noise_scale is None else check_positive("noise_scale", noise_scale)
    rec = underdamped_em_recursion(hessian, minimizer, noise_cov, step_size, g, s)
    d, h = rec.position_dim, float(step_size)
    Q = np.asarray(noise_cov, dtype=np.float64)
    Gam = g * np.eye(d) + (h * g / (s * s)) * Q  # (σ² I + hQ)/(2T), 2T = σ²/γ
    A = rec.A.copy()
    A[d:, d:] = np.eye(d) - h * Gam
    return LinearRecursion(A, rec.a, rec.W, d)


def stationary_moments(rec: LinearRecursion):
    """Stationary mean and covariance of ``z' = A z + a + ε``.

    Returns
    -------
    mean : (D,) ndarray
        Solves ``(I − A) m = a``.
    cov : (D, D) ndarray
        Solves the discrete Lyapunov equation ``S = A S Aᵀ + W``.

    Raises
    ------
    ValueError
        If the spectral radius of ``A`` is >= 1: the recursion is unstable (the step size is too
        large) and has no stationary law.
    """
    rho = float(np.max(np.abs(np.linalg.eigvals(rec.A))))
    if rho >= 1.0:
        raise ValueError(f"recursion is unstable (spectral radius of A = {rho:.6g} >= 1): no stationary law; reduce step_size")
    D = rec.A.shape[0]
    mean = np.linalg.solve(np.eye(D) - rec.A, rec.a)
    cov = solve_discrete_lyapunov(rec.A, rec.W)
    return mean, 0.5 * (cov + cov.T)


def propagate_moments(rec: LinearRecursion, mean0, cov0, steps):
    """Exact mean and covariance of ``z_k`` for every ``k`` in ``steps``.

    Parameters
    ----------
    rec : LinearRecursion
    mean0 : (D,) array_like; cov0 : (D, D) array_like
        Law of ``z_0`` (only its first two moments matter).
    steps : 1-D array_like of int, non-decreasing, >= 0

    Returns
    -------
    means : (len(steps), D) ndarray
    covs : (len(steps), D, D) ndarray
    """
    m = check_finite_array("mean0", mean0, ndim=1).copy()
    S = check_finite_array("cov0", cov0, ndim=2).copy()
    ks = np.asarray(steps, dtype=np.int64)
    if ks.ndim != 1 or np.any(ks < 0) or np.any(np.diff(ks) < 0):
        raise ValueError("steps must be a non-decreasing 1-D sequence of integers >= 0")
    means, covs = np.empty((len(ks), m.size)), np.empty((len(ks), m.size, m.size))
    k = 0
    for j, target_k in enumerate(ks):
        while k < target_k:
            m = rec.A @ m + rec.a
            S = rec.A @ S @ rec.A.T + rec.W
            k += 1
        means[j], covs[j] = m, 0.5 * (S + S.T)
    return means, covs


class StationaryBiasSplit(NamedTuple):
    """Stationary bias of ``φ(θ) = ‖θ − θ*‖²`` split by the linearity of the Lyapunov equation in ``W``.

    total : float — ``tr S_θθ − tr H⁻¹`` (``tr H⁻¹`` is φ̄ under the target at β = 1);
    full_gradient : float — the same for the full-gradient integrator (``Q = 0``);
    stochastic_gradient : float — ``tr S^SG_θθ``, the part driven by ``h²Q`` alone;
    ``total = full_gradient + stochastic_gradient`` exactly.
    """

    total: float
    full_gradient: float
    stochastic_gradient: float


def stationary_bias_split(hessian, minimizer, noise_cov, step_size, friction, noise_scale=None) -> StationaryBiasSplit:
    """Split SGHMC's exact stationary bias of ``E‖θ − θ*‖²`` into the integrator's and the stochastic gradient's part.

    Parameters
    ----------
    hessian, minimizer, noise_cov, step_size, friction, noise_scale
        As :func:`underdamped_em_recursion` (σ = √(2γ) by default, i.e. β = 1).

    Returns
    -------
    StationaryBiasSplit

    Raises
    ------
    ValueError
        As :func:`underdamped_em_recursion` and :func:`stationary_moments` (unstable step size).

    Notes
    -----
    The stationary mean of the linear recursion is θ* for both parts, so the bias of φ̄ is the
    trace of the stationary θθ covariance minus ``tr H⁻¹``. The stationary covariance solves
    ``S = A S Aᵀ + W`` and is linear in ``W = W_FG + W_SG`` (``W_FG = σ²h`` on the momentum block,
    ``W_SG = h²Q``), so ``S = S_FG + S_SG`` exactly. When ``H ∝ I`` (EWSG §5.1) ``S_SG`` is
    ``S_FG`` rescaled direction by direction: ``tr S_SG,θθ = (h/σ²) Σ_j q_j s_FG(h)`` with
    ``q_j`` the eigenvalues of Q, i.e. the stochastic-gradient part is ``(h tr Q/(d σ²))`` times the
    full-gradient integrator's whole stationary variance, not just its target part.
    """
    H = check_finite_array("hessian", hessian, ndim=2)
    rec = underdamped_em_recursion(hessian, minimizer, noise_cov, step_size, friction, noise_scale)
    d = rec.position_dim
    W_fg = rec.W.copy()
    W_fg[d:, d:] = W_fg[d:, d:] - step_size**2 * check_finite_array("noise_cov", noise_cov, ndim=2)
    _, S_fg = stationary_moments(LinearRecursion(rec.A, rec.a, W_fg, d))
    _, S = stationary_moments(rec)
    S_sg = solve_discrete_lyapunov(rec.A, rec.W - W_fg)
    target = float(np.trace(np.linalg.inv(H)))
    return StationaryBiasSplit(float(np.trace(S[:d, :d])) - target, float(np.trace(S_fg[:d, :d])) - target,
                               float(np.trace(S_sg[:d, :d])))
