"""Exact laws of SGLD / LS-SGLD / LS-LD on Gaussian targets, the Theorem 3.3 split, Proposition 2.1.

On a quadratic finite sum whose per-datum Hessians are all equal (here ``V(θ) = Σ_i ½‖θ − c_i‖²``,
:class:`sgmcmc_verify.targets.GaussianMeansTarget`, ``∇²V = H``) the minibatch gradient is
``ĝ(θ) = H(θ − θ*) + ζ`` with ``ζ`` independent of θ (mean 0, covariance ``Q``), and LS-SGLD (2.5)

    x' = x − η A⁻¹ĝ + √(2η/β) A^{−p} ε

is the linear recursion ``x' = (I − ηA⁻¹H) x + ηA⁻¹Hθ* + noise`` with noise covariance
``W = η² A⁻¹QA⁻¹ + (2η/β) A^{−2p}`` (``p = 1/2`` in the paper; ``p = 1``, noise smoothed like the
gradient, is the variant that Proposition 2.1's argument excludes — the Proposition 2.1 study computes it
as the contrast that shows why the square root is needed). Its mean and covariance at every step follow exactly from
:func:`sgmcmc_verify.analytic.linear_samplers.propagate_moments`.

The continuous LS-LD (2.3) from the same initial law is Gaussian too, with ``B = A⁻¹H``:
``m(t) = θ* + e^{−tB}(m_0 − θ*)`` and ``S(t) = S_∞ + e^{−tB}(S_0 − S_∞)e^{−tBᵀ}``,
``S_∞ = H⁻¹/β`` (``B S_∞ + S_∞ Bᵀ = 2A⁻¹/β`` because A and H are symmetric: Proposition 2.1).

Theorem 3.3 bounds ``W2(P(x_K), π) ≤ W2(P(x_K), P(X_{Kη})) + W2(P(X_{Kη}), π)`` (Appendix B): a
discretization part (the γ₁, γ₂ terms) and an ergodicity part (the ``c₀`` term). On the Gaussian
target all three distances are exact Bures–Wasserstein distances (:func:`theorem33_split`); the
discretization part is the W2 between the marginals, which is at most the synchronous-coupling
distance that the proof bounds.

References
----------
Seed ``004_8438bd4b543e0fc4.txt``: eqs. (2.3)–(2.5), Proposition 2.1 and its proof (Appendix A),
Theorem 3.3, Remark 3.4, Appendix B (the triangle inequality), Lemma B.1.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.linalg
import sympy as sp

from .gaussian import bures_w2
from .linear_samplers import LinearRecursion, propagate_moments, stationary_moments
from .validation import check_finite_array, check_positive, check_positive_int

__all__ = [
    "ls_sgld_recursion",
    "ls_ld_moments",
    "Theorem33Split",
    "theorem33_split",
    "fokker_planck_residual",
    "small_step_stationary_error",
]


def _check_square(name, M, d):
    M = check_finite_array(name, M, ndim=2)
    if M.shape != (d, d):
        raise ValueError(f"{name} must have shape ({d}, {d}), got {M.shape}")
    return M


def ls_sgld_recursion(hessian, minimizer, noise_cov, step_size, smoothing_inverse, inverse_temperature=1.0,
                      noise_power=0.5) -> LinearRecursion:
    """LS-SGLD (2.5) on a quadratic target as a :class:`~sgmcmc_verify.analytic.linear_samplers.LinearRecursion`.

    Parameters
    ----------
    hessian : (d, d) array_like
        ``H = ∇²f`` (symmetric positive definite).
    minimizer : (d,) array_like
        ``θ*``.
    noise_cov : (d, d) array_like
        Covariance ``Q`` of the gradient noise ``ζ`` (zeros for LS-GLD).
    step_size : float
        ``η`` > 0.
    smoothing_inverse : (d, d) array_like
        ``A⁻¹`` (dense; ``PeriodicSmoothing(σ).inverse_matrix(d)``; the identity gives SGLD).
    inverse_temperature : float, default 1
        ``β`` > 0.
    noise_power : {0.5, 1.0}
        The noise is ``A^{−noise_power} ε``; 0.5 is eq. (2.5); 1.0 is the variant ``A⁻¹ε`` whose invariant
        law is not ``e^{−βf}`` (the contrast of the Proposition 2.1 study).

    Returns
    -------
    LinearRecursion
        ``A = I − ηA⁻¹H``, ``a = ηA⁻¹Hθ*``, ``W = η²A⁻¹QA⁻¹ + (2η/β)A^{−2p}``.

    Raises
    ------
    ValueError
        Mis-shaped or non-finite arrays, non-positive ``step_size`` / ``inverse_temperature``,
        ``noise_power`` not in {0.5, 1.0}.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, eq. (2.5).
    """
    th = check_finite_array("minimizer", minimizer, ndim=1)
    d = th.shape[0]
    H = _check_square("hessian", hessian, d)
    Q = _check_square("noise_cov", noise_cov, d)
    Ai = _check_square("smoothing_inverse", smoothing_inverse, d)
    h = check_positive("step_size", step_size)
    beta = check_positive("inverse_temperature", inverse_temperature)
    if noise_power not in (0.5, 1.0):
        raise ValueError(f"noise_power must be 0.5 or 1.0, got {noise_power!r}")
    noise = Ai if noise_power == 0.5 else Ai @ Ai
    B = Ai @ H
    W = h * h * Ai @ Q @ Ai + (2.0 * h / beta) * noise
    return LinearRecursion(np.eye(d) - h * B, h * B @ th, 0.5 * (W + W.T), d)


def ls_ld_moments(hessian, minimizer, smoothing_inverse, mean0, cov0, times, inverse_temperature=1.0):
    """Exact mean and covariance of LS-LD (2.3) at the given times (Gaussian initial law).

    Parameters
    ----------
    hessian : (d, d) array_like               ``H``
    minimizer : (d,) array_like               ``θ*``
    smoothing_inverse : (d, d) array_like     ``A⁻¹``
    mean0 : (d,) array_like; cov0 : (d, d) array_like
    times : 1-D array_like of float >= 0
    inverse_temperature : float

    Returns
    -------
    means : (len(times), d) ndarray
    covs : (len(times), d, d) ndarray
        ``m(t) = θ* + e^{−tB}(m_0 − θ*)``, ``S(t) = S_∞ + e^{−tB}(S_0 − S_∞)e^{−tBᵀ}`` with
        ``B = A⁻¹H``, ``S_∞ = H⁻¹/β``.

    Raises
    ------
    ValueError
        Bad shapes, negative times, non-positive ``inverse_temperature``.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, eq. (2.3), Proposition 2.1.
    """
    th = check_finite_array("minimizer", minimizer, ndim=1)
    d = th.shape[0]
    H = _check_square("hessian", hessian, d)
    Ai = _check_square("smoothing_inverse", smoothing_inverse, d)
    m0 = check_finite_array("mean0", mean0, ndim=1)
    S0 = _check_square("cov0", cov0, d)
    beta = check_positive("inverse_temperature", inverse_temperature)
    ts = check_finite_array("times", times, ndim=1)
    if np.any(ts < 0):
        raise ValueError("times must be >= 0")
    B = Ai @ H
    Sinf = np.linalg.inv(H) / beta
    means, covs = np.empty((ts.size, d)), np.empty((ts.size, d, d))
    for j, t in enumerate(ts):
        E = scipy.linalg.expm(-t * B)
        means[j] = th + E @ (m0 - th)
        S = Sinf + E @ (S0 - Sinf) @ E.T
        covs[j] = 0.5 * (S + S.T)
    return means, covs


class Theorem33Split(NamedTuple):
    """Exact W2 terms of Theorem 3.3's decomposition at each step count.

    steps : (m,) int ndarray                 K
    total : (m,) ndarray                     W2(P(x_K), π)
    discretization : (m,) ndarray            W2(P(x_K), P(X_{Kη}))
    ergodicity : (m,) ndarray                W2(P(X_{Kη}), π)
    stationary_bias : float                  W2(law of x_∞, π) (Lyapunov)
    """

    steps: np.ndarray
    total: np.ndarray
    discretization: np.ndarray
    ergodicity: np.ndarray
    stationary_bias: float


def theorem33_split(hessian, minimizer, noise_cov, step_size, smoothing_inverse, mean0, cov0, steps,
                    inverse_temperature=1.0, noise_power=0.5) -> Theorem33Split:
    """Exact ``W2(P(x_K), π)``, its discretization part and its ergodicity part (Theorem 3.3).

    Parameters
    ----------
    hessian, minimizer, noise_cov, step_size, smoothing_inverse, inverse_temperature, noise_power :
        as :func:`ls_sgld_recursion` (identity ``smoothing_inverse`` = SGLD).
    mean0 : (d,) array_like; cov0 : (d, d) array_like
        Law of ``x_0`` (the paper's proof starts at a point, ``cov0 = 0``; any Gaussian works).
    steps : 1-D array_like of int, non-decreasing, >= 0

    Returns
    -------
    Theorem33Split
        All distances in the units of θ (W2, not squared), π = N(θ*, H⁻¹/β).

    Raises
    ------
    ValueError
        As the helpers; or if the recursion is unstable.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, Theorem 3.3, Remark 3.4, Appendix B.
    """
    rec = ls_sgld_recursion(hessian, minimizer, noise_cov, step_size, smoothing_inverse, inverse_temperature,
                            noise_power)
    ks = np.asarray(steps, dtype=np.int64)
    means, covs = propagate_moments(rec, mean0, cov0, ks)
    h = float(step_size)
    cm, cc = ls_ld_moments(hessian, minimizer, smoothing_inverse, mean0, cov0, ks * h, inverse_temperature)
    H = np.asarray(hessian, dtype=np.float64)
    pm = np.asarray(minimizer, dtype=np.float64)
    pc = np.linalg.inv(H) / float(inverse_temperature)
    total = bures_w2(means, covs, pm, pc)
    disc = bures_w2(means, covs, cm, cc)
    erg = bures_w2(cm, cc, pm, pc)
    sm, sc = stationary_moments(rec)
    bias = float(bures_w2(sm, sc, pm, pc))
    return Theorem33Split(ks, np.asarray(total), np.asarray(disc), np.asarray(erg), bias)


def fokker_planck_residual(d: int = 3, noise_power: sp.Expr = sp.Rational(1, 2)) -> sp.Expr:
    """Symbolic stationary Fokker–Planck residual of LS-LD at ``p ∝ exp(−βf)``, quadratic ``f``.

    For ``dX = −A⁻¹∇f dt + √(2/β) A^{−q} dB`` the Fokker–Planck operator is
    ``L*p = ∇·(p A⁻¹∇f) + β⁻¹ ∇·(A^{−2q} ∇p)`` (A symmetric, constant). We build ``A_σ`` of eq.
    (2.1) with a symbolic σ (``d ≥ 3``), a symbolic symmetric Hessian ``H`` and linear term ``b``
    (``f = ½xᵀHx − bᵀx``), and return ``L*p / p`` simplified. The paper's ``q = 1/2`` gives 0
    identically (Proposition 2.1); ``q = 1`` (noise smoothed like the gradient) does not.

    Parameters
    ----------
    d : int, default 3
        Dimension ``≥ 3`` (the periodic matrix of eq. (2.1) with distinct neighbours).
    noise_power : sympy number, default 1/2
        ``q``; must be 1/2 or 1 (the integer power ``A^{−2q}`` is then exact).

    Returns
    -------
    sympy.Expr
        The residual ``(L*p)/p``, a polynomial in ``x``, σ, β, the entries of H and b.

    Raises
    ------
    ValueError
        If ``d < 3`` or ``noise_power`` not in {1/2, 1}.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, Proposition 2.1 and its proof in Appendix A.

    Examples
    --------
    >>> fokker_planck_residual(3)
    0
    """
    d = check_positive_int("d", d)
    if d < 3:
        raise ValueError(f"d must be >= 3 for the symbolic eq. (2.1) matrix, got {d}")
    q = sp.nsimplify(noise_power)
    if q not in (sp.Rational(1, 2), sp.Integer(1)):
        raise ValueError(f"noise_power must be 1/2 or 1, got {noise_power!r}")
    sig, beta = sp.symbols("sigma beta", positive=True)
    x = sp.Matrix(sp.symbols(f"x0:{d}", real=True))
    Hs = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"h{min(i, j)}{max(i, j)}", real=True))
    b = sp.Matrix(sp.symbols(f"b0:{d}", real=True))
    A = sp.Matrix(d, d, lambda i, j: 1 + 2 * sig if i == j else (-sig if (i - j) % d in (1, d - 1) else 0))
    Ai = A.inv()
    D = Ai if q == sp.Rational(1, 2) else Ai * Ai
    f = (x.T * Hs * x)[0] / 2 - (b.T * x)[0]
    p = sp.exp(-beta * f)
    gradf = sp.Matrix([sp.diff(f, xi) for xi in x])
    gradp = sp.Matrix([sp.diff(p, xi) for xi in x])
    flux = p * (Ai * gradf) + (D * gradp) / beta
    div = sum(sp.diff(flux[i], x[i]) for i in range(d))
    return sp.simplify(sp.expand(div / p))


def small_step_stationary_error(hessian, minimizer, smoothing_inverse, step_sizes, inverse_temperature=1.0,
                                noise_power=0.5):
    """Exact W2 between the invariant law of LS-GLD (EM of LS-LD) and π, for each step size.

    Parameters
    ----------
    hessian, minimizer, smoothing_inverse, inverse_temperature, noise_power : as :func:`ls_sgld_recursion`
    step_sizes : 1-D array_like of float > 0

    Returns
    -------
    (len(step_sizes),) ndarray
        ``W2(N(m_∞, S_∞(η)), π)``; → 0 as ``η → 0`` (linearly) iff LS-LD leaves π invariant.

    Raises
    ------
    ValueError
        Bad input; an unstable step size.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, Proposition 2.1 ("numerically in the small-step limit").
    """
    th = check_finite_array("minimizer", minimizer, ndim=1)
    H = np.asarray(hessian, dtype=np.float64)
    pc = np.linalg.inv(H) / float(inverse_temperature)
    out = []
    for h in np.asarray(step_sizes, dtype=np.float64):
        rec = ls_sgld_recursion(H, th, np.zeros_like(H), float(h), smoothing_inverse, inverse_temperature,
                                noise_power)
        sm, sc = stationary_moments(rec)
        out.append(float(bures_w2(sm, sc, th, pc)))
    return np.asarray(out)


def small_step_bias_ratio_limit(hessian, smoothing_inverse) -> float:
    """Exact ``η → 0`` limit of the stationary-bias ratio W2(LS-GLD)/W2(GLD) for a Gaussian target.

    For ``x_{k+1} = x_k − η A⁻¹H(x_k − θ) + √(2η) A^{-1/2} ξ_k`` the stationary covariance is
    ``H⁻¹ + (η/2) A⁻¹ + O(η²)`` for *every* SPD ``H`` (``S₁ = A⁻¹/2`` solves ``A⁻¹H S₁ + S₁ H A⁻¹ = A⁻¹HA⁻¹``),
    and GLD is the case ``A = I``. The first-order Bures distance gives, with ``H = U diag(μ) Uᵀ`` and
    ``D = Uᵀ A⁻¹ U``,

    ``ratio² = 2 Σ_ij D_ij² μ_i μ_j / (μ_i + μ_j) / Σ_i μ_i``.

    If ``H = cI`` this is ``d⁻¹ ‖A⁻¹‖_F² = d⁻¹ Σ_j λ_j⁻²`` (the Table 1 quantity); if ``H`` shares ``A``'s
    eigenvectors it is the μ-weighted mean ``Σ_j μ_j λ_j⁻² / Σ_j μ_j``; otherwise the general form above.

    Parameters
    ----------
    hessian : (d, d) array_like, symmetric positive definite
    smoothing_inverse : (d, d) array_like, symmetric positive definite (``A_σ⁻¹``)

    Returns
    -------
    float
        The limit ratio (≥ 0).

    Raises
    ------
    ValueError
        ``hessian`` or ``smoothing_inverse`` not square, finite, symmetric, or (for ``hessian``) not positive definite.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, Theorem 3.3 (second term), Lemma C.3, Table 1.
    """
    H = check_finite_array("hessian", hessian, ndim=2)
    Ai = check_finite_array("smoothing_inverse", smoothing_inverse, ndim=2)
    d = H.shape[0]
    _check_square("hessian", H, d)
    _check_square("smoothing_inverse", Ai, d)
    if not np.allclose(H, H.T, rtol=1e-10, atol=1e-12):
        raise ValueError("hessian must be symmetric")
    if not np.allclose(Ai, Ai.T, rtol=1e-10, atol=1e-12):
        raise ValueError("smoothing_inverse must be symmetric")
    mu, U = np.linalg.eigh(0.5 * (H + H.T))
    if mu[0] <= 0:
        raise ValueError("hessian must be positive definite")
    D = U.T @ Ai @ U
    W = mu[:, None] * mu[None, :] / (mu[:, None] + mu[None, :])
    return float(np.sqrt(2.0 * np.sum(D * D * W) / np.sum(mu)))
