"""The one-step transition kernels of EWSG's Theorem 2 (conference text), computed exactly.

From a state ``(θ_k, r_k)`` the Euler–Maruyama step (3) moves ``θ_{k+1} = θ_k + h r_k``
deterministically in both kernels, so the full-gradient kernel ``P^EM`` and the stochastic-gradient
kernel ``P̃^EM`` differ only in the law of ``r_{k+1}``. In the coordinates of Theorem 2,

    x = (r_{k+1} − r_k + hγ r_k) / (σ√h),    a_i = √h ∇V_i(θ_k) / σ,    S = Σ_i a_i,

(an affine map of ``r_{k+1}`` with the same Jacobian ``(σ√h)^d`` for both kernels, so densities may
be compared in ``x``):

* full gradient:           ``x ~ N(−S, I_d)``;
* index ``I ~ p`` (a law that does not depend on ``r_{k+1}``): ``x ~ Σ_i p_i N(−n a_i, I_d)``, a
  Gaussian mixture over the index (:func:`fixed_law_moments`, :func:`mixture_logpdf`);
* Theorem 2 as printed: ``p_i = p_i(x)`` from eq. (4), with ``x`` the value of the *future* state;
  the "kernel" ``Σ_i p_i(x) N(x; −n a_i, I)`` (:func:`theorem2_logpdf`).

What the module shows (each function's Notes give the algebra):

1. ``Σ_i p_i(x) N(x; −n a_i, I) = (n / Ẑ(x)) · N(x; −S, I)`` exactly, where
   ``Ẑ(x) = Σ_j exp(−½‖x + S‖² + ½‖x + n a_j‖²)`` is the normalization constant of (4)
   (:func:`log_normalizer`). The proof of Theorem 2 treats Ẑ as a constant; it depends on ``x``,
   i.e. on ``r_{k+1}``.
2. ``∇_x log Ẑ(x) = Σ_j p_j(x)(n a_j − S) = (√h/σ)(E_{p(x)}[n∇V_I] − ∇V)``: the gradient of the
   log-normalizer is the local bias of the exactly weighted stochastic gradient
   (:func:`log_normalizer_gradient`). ``log Ẑ`` is a log-sum-exp of affine functions of ``x`` with
   slopes ``n a_j − S`` summing to zero: it is constant iff every slope vanishes, i.e. iff
   ``n∇V_j(θ_k) = ∇V(θ_k)`` for every j (no gradient noise at θ_k). Otherwise the two kernels differ.
3. By Jensen, ``Ẑ(x) ≥ n exp(½ mean_j ‖n a_j − S‖²) = n exp(h tr Cov_U(n∇V_I) / (2σ²))`` for every
   x, with ``Cov_U`` the covariance of uniform subsampling. So the printed kernel has total mass
   ``E_{P^EM}[n/Ẑ] ≤ exp(−h tr Cov_U / (2σ²)) < 1`` (:func:`mass_upper_bound`, :func:`theorem2_mass`):
   it is not a transition kernel, and no renormalization makes it ``P^EM`` (its ratio to ``P^EM``
   is not constant). To first order in h the defect is twice the bound's:
   ``1 − mass = h tr Cov_U(n∇V_I) / σ² + O(h²)`` (expand ``log Ẑ`` to second order in the slopes).
4. With ``x`` fixed before the step (the practical choice ``x = √h γ r_k/σ``, or any other), the
   weights (4) are a genuine index law and the kernel is the mixture above, with mean
   ``−E_p[n a_I]`` and covariance ``I + Cov_p(n a_I)``: it equals ``N(−S, I)`` iff ``p`` sits on
   indices with ``n a_i = S`` (a mixture of unit-covariance Gaussians is Gaussian with unit
   covariance only if all its components coincide).

References
----------
EWSG conference text, seed ``003_19372d6d86d2623b.txt``: eq. (3), Theorem 2, eq. (4), §4.3 (the
choice of x); the journal text (seed ``000_8e0377c44e2ea3b8.txt``, §4.2) calls (4) "only formal".
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp, roots_hermitenorm

from .validation import check_finite_array, check_positive, check_positive_int

__all__ = ["scaled_gradients", "log_weights", "log_normalizer", "log_normalizer_gradient", "full_gradient_logpdf",
           "theorem2_logpdf", "mixture_logpdf", "mass_upper_bound", "KernelIntegrals", "theorem2_integrals",
           "fixed_law_moments", "momentum_from_x"]


def _check_a(a) -> np.ndarray:
    a = check_finite_array("a", a, ndim=2)
    if a.shape[0] < 1 or a.shape[1] < 1:
        raise ValueError(f"a must have shape (n, d) with n, d >= 1, got {a.shape}")
    return a


def _check_x(x, d) -> np.ndarray:
    x = check_finite_array("x", x)
    if x.ndim == 0 or x.shape[-1] != d:
        raise ValueError(f"x must have shape (..., {d}), got {x.shape}")
    return x


def scaled_gradients(gradients, step_size: float, noise_scale: float) -> np.ndarray:
    """``a_i = √h ∇V_i(θ_k) / σ`` of Theorem 2.

    Parameters
    ----------
    gradients : (n, d) array_like
        Per-datum gradients ``∇V_i(θ_k)``.
    step_size, noise_scale : float
        h > 0, σ > 0.

    Returns
    -------
    (n, d) ndarray

    Raises
    ------
    ValueError
        Non-finite or mis-shaped gradients; ``step_size`` or ``noise_scale`` not positive.
    """
    g = _check_a(gradients)
    h = check_positive("step_size", step_size)
    s = check_positive("noise_scale", noise_scale)
    return np.sqrt(h) * g / s


def _exponents(x, a):
    """``B_j − A = ½‖x + n a_j‖² − ½‖x + S‖²`` for every j, shape ``(..., n)``."""
    n = a.shape[0]
    S = a.sum(axis=0)
    xa = x[..., None, :] + n * a
    xs = x + S
    return 0.5 * np.sum(xa * xa, axis=-1) - 0.5 * np.sum(xs * xs, axis=-1)[..., None]


def log_weights(x, a) -> np.ndarray:
    """``log p_i(x)`` of eq. (4), normalized over i.

    Parameters
    ----------
    x : (..., d) array_like
    a : (n, d) array_like
        :func:`scaled_gradients`.

    Returns
    -------
    (..., n) ndarray
        ``log p_i = (B_i − A) − log Ẑ(x)``, with ``A = ½‖x + S‖²``, ``B_i = ½‖x + n a_i‖²``.

    Raises
    ------
    ValueError
        Non-finite input or mismatched shapes.
    """
    a = _check_a(a)
    x = _check_x(x, a.shape[1])
    e = _exponents(x, a)
    return e - logsumexp(e, axis=-1, keepdims=True)


def log_normalizer(x, a) -> np.ndarray:
    """``log Ẑ(x)``, the log of the normalization constant of eq. (4).

    ``Ẑ(x) = Σ_j exp(−½‖x + S‖² + ½‖x + n a_j‖²) = Σ_j exp(x·(n a_j − S) + ½(n²‖a_j‖² − ‖S‖²))``.

    Parameters
    ----------
    x : (..., d) array_like
    a : (n, d) array_like

    Returns
    -------
    (...) ndarray

    Raises
    ------
    ValueError
        Non-finite input or mismatched shapes.

    Examples
    --------
    >>> a = np.array([[0.1], [0.1], [0.1]])            # identical gradients: Ẑ = n for every x
    >>> np.allclose(np.exp(log_normalizer(np.array([[-2.0], [0.0], [3.0]]), a)), 3.0)
    True
    """
    a = _check_a(a)
    x = _check_x(x, a.shape[1])
    return logsumexp(_exponents(x, a), axis=-1)


def log_normalizer_gradient(x, a) -> np.ndarray:
    """``∇_x log Ẑ(x) = Σ_j p_j(x)(n a_j − S)``: the local bias of the exactly weighted gradient.

    Times ``σ/√h`` this is ``E_{p(x)}[n∇V_I(θ_k)] − ∇V(θ_k)``, the bias of the stochastic gradient
    whose index follows the weights (4) at this x.

    Parameters
    ----------
    x : (..., d) array_like
    a : (n, d) array_like

    Returns
    -------
    (..., d) ndarray

    Raises
    ------
    ValueError
        Non-finite input or mismatched shapes.
    """
    a = _check_a(a)
    x = _check_x(x, a.shape[1])
    p = np.exp(log_weights(x, a))
    v = a.shape[0] * a - a.sum(axis=0)
    return p @ v


def _gauss_logpdf(x, mean):
    z = x - mean
    d = x.shape[-1]
    return -0.5 * np.sum(z * z, axis=-1) - 0.5 * d * np.log(2.0 * np.pi)


def full_gradient_logpdf(x, a) -> np.ndarray:
    """``log P^EM`` in x coordinates: ``log N(x; −S, I_d)``, shape ``(...)``.

    Raises
    ------
    ValueError
        Non-finite input or mismatched shapes.
    """
    a = _check_a(a)
    x = _check_x(x, a.shape[1])
    return _gauss_logpdf(x, -a.sum(axis=0))


def mixture_logpdf(x, p, a) -> np.ndarray:
    """``log Σ_i p_i N(x; −n a_i, I_d)``: the kernel of an index law ``p`` that does not depend on x.

    Parameters
    ----------
    x : (..., d) array_like
    p : (n,) array_like
        Index law (non-negative, sums to 1).
    a : (n, d) array_like

    Returns
    -------
    (...) ndarray

    Raises
    ------
    ValueError
        ``p`` not a probability vector of length n; non-finite input.
    """
    a = _check_a(a)
    x = _check_x(x, a.shape[1])
    p = _check_law(p, a.shape[0])
    n = a.shape[0]
    comp = _gauss_logpdf(x[..., None, :], -n * a)  # (..., n)
    with np.errstate(divide="ignore"):
        return logsumexp(comp + np.log(p), axis=-1)


def theorem2_logpdf(x, a) -> np.ndarray:
    """``log Σ_i p_i(x) N(x; −n a_i, I_d)``: Theorem 2's kernel with x the future value, as printed.

    Computed term by term from the weights (4) and the Gaussian components, *not* through the
    identity of Notes, so that the identity can be checked against it.

    Parameters
    ----------
    x : (..., d) array_like
    a : (n, d) array_like

    Returns
    -------
    (...) ndarray

    Raises
    ------
    ValueError
        Non-finite input or mismatched shapes.

    Notes
    -----
    ``p_i(x) N(x; −n a_i, I) = Ẑ(x)⁻¹ e^{−A + B_i} (2π)^{−d/2} e^{−B_i} = Ẑ(x)⁻¹ N(x; −S, I)`` for every
    i, so the sum is ``(n/Ẑ(x)) N(x; −S, I)``: the full-gradient density times ``n/Ẑ(x)``, which is
    not constant unless every ``n a_i = S`` (see the module docstring).
    """
    a = _check_a(a)
    x = _check_x(x, a.shape[1])
    n = a.shape[0]
    comp = _gauss_logpdf(x[..., None, :], -n * a)
    return logsumexp(comp + log_weights(x, a), axis=-1)


def mass_upper_bound(a) -> float:
    """``exp(−½ mean_j ‖n a_j − S‖²)``: an upper bound on the total mass of Theorem 2's kernel.

    Equals ``exp(−h tr Cov_U(n∇V_I(θ_k)) / (2σ²))`` with ``Cov_U`` the covariance of uniform
    subsampling (divisor n). It is 1 iff every ``n a_j = S``.

    Parameters
    ----------
    a : (n, d) array_like

    Returns
    -------
    float in (0, 1]

    Raises
    ------
    ValueError
        Non-finite or mis-shaped ``a``.

    Notes
    -----
    ``log Ẑ(x) = log Σ_j e^{e_j(x)} ≥ log n + mean_j e_j(x)`` (Jensen), and
    ``mean_j e_j(x) = mean_j [x·(n a_j − S)] + ½ mean_j (n²‖a_j‖² − ‖S‖²) = ½ mean_j ‖n a_j − S‖²``
    for every x (the slopes average to zero). Hence ``n/Ẑ(x) ≤ exp(−½ mean_j ‖n a_j − S‖²)``
    pointwise, and the mass ``∫ (n/Ẑ) dP^EM`` obeys the same bound.
    """
    a = _check_a(a)
    v = a.shape[0] * a - a.sum(axis=0)
    return float(np.exp(-0.5 * np.mean(np.sum(v * v, axis=1))))


class KernelIntegrals(NamedTuple):
    """Integrals of Theorem 2's kernel, in x coordinates.

    mass : float           ``∫ Σ_i p_i(x) N(x; −n a_i, I) dx`` (1 for a transition kernel)
    mean : (d,) ndarray    mean of the kernel normalized by its mass
    cov : (d, d) ndarray   covariance of the normalized kernel
    ratio_min, ratio_max : float   range of ``n/Ẑ(x)`` over the quadrature nodes (1 everywhere iff identical)
    quadrature_error : float       largest change of mass, mean, cov between ``nodes`` and ``2·nodes`` nodes
    nodes : int                    Gauss–Hermite nodes per dimension
    """

    mass: float
    mean: np.ndarray
    cov: np.ndarray
    ratio_min: float
    ratio_max: float
    quadrature_error: float
    nodes: int


def _gh_integrals(a, nodes):
    d = a.shape[1]
    z, w = roots_hermitenorm(nodes)
    w = w / np.sqrt(2.0 * np.pi)
    grids = np.meshgrid(*([z] * d), indexing="ij")
    pts = np.stack([g.ravel() for g in grids], axis=-1)  # standard normal nodes, (nodes^d, d)
    wts = np.prod(np.stack(np.meshgrid(*([w] * d), indexing="ij"), axis=-1).reshape(-1, d), axis=1)
    x = pts - a.sum(axis=0)  # nodes of N(−S, I)
    ratio = np.exp(np.log(a.shape[0]) - log_normalizer(x, a))
    mass = float(wts @ ratio)
    mean = (wts * ratio) @ x / mass
    xc = x - mean
    cov = (xc * (wts * ratio)[:, None]).T @ xc / mass
    return mass, mean, cov, float(ratio.min()), float(ratio.max())


def theorem2_integrals(a, nodes: int = 60) -> KernelIntegrals:
    """Mass, mean and covariance of Theorem 2's kernel by tensor Gauss–Hermite quadrature under ``P^EM``.

    Uses ``∫ f(x) Σ_i p_i(x) N(x; −n a_i, I) dx = E_{x ~ N(−S, I)}[f(x) n/Ẑ(x)]``; the integrand
    ``n/Ẑ(x) = n exp(−log-sum-exp of affine functions)`` is smooth and bounded, so the rule
    converges fast; the error is estimated by rerunning with twice the nodes.

    Parameters
    ----------
    a : (n, d) array_like, d <= 3
    nodes : int, default 60
        Nodes per dimension.

    Returns
    -------
    KernelIntegrals
        Compare with ``P^EM``: mass 1, mean ``−S``, covariance ``I``.

    Raises
    ------
    ValueError
        ``d > 3`` (tensor rule too large), ``nodes < 2``, non-finite ``a``.
    """
    a = _check_a(a)
    if a.shape[1] > 3:
        raise ValueError(f"a must have d <= 3 columns for the tensor quadrature, got {a.shape[1]}")
    nodes = check_positive_int("nodes", nodes)
    if nodes < 2:
        raise ValueError(f"nodes must be >= 2, got {nodes}")
    m1, mu1, c1, rmin, rmax = _gh_integrals(a, nodes)
    m2, mu2, c2, _, _ = _gh_integrals(a, 2 * nodes)
    err = max(abs(m1 - m2), float(np.max(np.abs(mu1 - mu2))), float(np.max(np.abs(c1 - c2))))
    return KernelIntegrals(m2, mu2, c2, rmin, rmax, err, 2 * nodes)


def _check_law(p, n):
    p = check_finite_array("p", p, ndim=1)
    if p.size != n or np.any(p < 0) or not np.isclose(p.sum(), 1.0, rtol=0, atol=1e-12):
        raise ValueError(f"p must be a probability vector of length {n}; got length {p.size}, sum {p.sum()!r}")
    return p


def fixed_law_moments(p, a):
    """Exact mean and covariance of ``Σ_i p_i N(−n a_i, I_d)``, the kernel of a fixed index law.

    Parameters
    ----------
    p : (n,) array_like
        Index law, e.g. ``exp(log_weights(x0, a))`` at a fixed ``x0``.
    a : (n, d) array_like

    Returns
    -------
    mean : (d,) ndarray
        ``−E_p[n a_I]`` (``P^EM``: ``−S``; the difference is ``−(√h/σ)`` times the gradient bias).
    cov : (d, d) ndarray
        ``I + Cov_p(n a_I)`` (``P^EM``: ``I``; the excess is ``(h/σ²) Cov_p(n∇V_I)``).

    Raises
    ------
    ValueError
        ``p`` not a probability vector of length n; non-finite ``a``.
    """
    a = _check_a(a)
    p = _check_law(p, a.shape[0])
    na = a.shape[0] * a
    m = p @ na
    c = (na - m).T @ ((na - m) * p[:, None])
    return -m, np.eye(a.shape[1]) + c


def momentum_from_x(x, momentum, step_size: float, friction: float, noise_scale: float) -> np.ndarray:
    """``r_{k+1} = (1 − hγ) r_k + σ√h x``: the inverse of Theorem 2's change of variables.

    Parameters
    ----------
    x : (..., d) array_like
    momentum : (d,) array_like
        ``r_k``.
    step_size, friction, noise_scale : float
        h > 0, γ > 0, σ > 0.

    Returns
    -------
    (..., d) ndarray

    Raises
    ------
    ValueError
        Non-positive h, γ or σ; non-finite input.
    """
    r = check_finite_array("momentum", momentum, ndim=1)
    x = _check_x(x, r.shape[0])
    h = check_positive("step_size", step_size)
    g = check_positive("friction", friction)
    s = check_positive("noise_scale", noise_scale)
    return (1.0 - h * g) * r + s * np.sqrt(h) * x
