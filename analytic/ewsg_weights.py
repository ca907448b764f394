"""EWSG's exponential weights (4), the exact index laws they induce, and their moments.

For one outer step at state ``(θ, r)`` the EWSG index law is built from the per-datum scaled
gradients ``g_i = ∇V_0(θ) + n∇V_i(θ)`` (``∇V_0`` a prior term, zero for a pure finite sum) and the
hyperparameter ``x``:

    log w_i = ½ ‖x + (√h/σ) g_i‖²,        p_i = w_i / Σ_j w_j                        (4)

(the term ``−½‖x + Σ_j a_j‖²`` of (4) is common to all i and cancels in the normalization). The
Metropolis index chain of Algorithm 1 (uniform start, ``M`` steps with uniform proposals accepted
with probability (6), ``min{1, w_j / w_i}``) has the exact law :func:`metropolis_index_law`; as
``M → ∞`` it tends to (4).

With ``x = √h y / σ`` (the paper's ``x = O(√h)``; the recommended ``x = √h γ r_k / σ`` is
``y = γ r_k``) and ``b_i = g_i``, ``log w_i = ε · ½‖y + b_i‖²`` with ``ε = h/σ²`` (EWSG Appendix B).
Every quantity below is exact given the data (enumeration over the n indices); the first-order
coefficients in ε are closed forms:

* trace of the covariance, for exact weights *and* for every ``M >= 1`` (one Metropolis step from
  the uniform law already mixes completely at ε = 0, so all of them share the first order)::

      Tr cov_p(b) = Tr cov_U(b) + ε · (1/n) Σ_i (u_i − ū) ‖b_i − b̄‖² + O(ε²),   u_i = ½‖y + b_i‖²;

* the conditional mean of the EWSG gradient on ``V(θ) = Σ_i ½‖θ − c_i‖²`` (EWSG §5.1) with the
  recommended x, :func:`gaussian_means_linear_response`.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: eq. (4), eq. (6), Algorithm 1, Theorem 4.2 and its proof
(Appendix B), Appendix H.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .linear_samplers import LinearRecursion
from .validation import check_finite_array, check_nonnegative_int, check_positive

__all__ = ["ewsg_log_weights", "normalized_weights", "metropolis_index_law", "subsampling_moments",
           "trace_cov_first_order", "variance_change", "LinearResponse", "gaussian_means_linear_response",
           "linear_response_recursion"]


def ewsg_log_weights(x, gradients, step_size, noise_scale) -> np.ndarray:
    """Log of the unnormalized EWSG weights (4): ``½‖x + (√h/σ) g_i‖²``.

    Parameters
    ----------
    x : (chains, d) ndarray of float64
        The hyperparameter x of (4), one per chain.
    gradients : (chains, n, d) ndarray of float64
        ``g_i = ∇V_0(θ) + n∇V_i(θ)`` for every datum i (the ``n a_i`` of (4) is ``(√h/σ) g_i``).
    step_size, noise_scale : float
        h > 0 and σ > 0.

    Returns
    -------
    (chains, n) ndarray of float64

    Notes
    -----
    No validation: this is the inner formula of :class:`sgmcmc_verify.estimators.EWSGIndexChain` (its exact
    index law is computed with it), and its arithmetic is kept as the estimator had it.

    Examples
    --------
    >>> ewsg_log_weights(np.zeros((1, 1)), np.array([[[1.0], [2.0]]]), 4.0, 2.0)
    array([[0.5, 2. ]])
    """
    y = x[..., None, :] + (np.sqrt(step_size) / noise_scale) * gradients
    return 0.5 * np.sum(y * y, axis=-1)


def normalized_weights(log_weights) -> np.ndarray:
    """``exp(log w) / Σ exp(log w)`` along the last axis, computed with a max shift (no overflow).

    Parameters
    ----------
    log_weights : (..., n) ndarray of float64

    Returns
    -------
    (..., n) ndarray of float64, each row summing to 1.
    """
    w = np.exp(log_weights - log_weights.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True)


def metropolis_index_law(log_weights, index_chain_length: int) -> np.ndarray:
    """Exact law of the index after ``M`` Metropolis steps of Algorithm 1 from a uniform start.

    Parameters
    ----------
    log_weights : (chains, n) ndarray of float64
        ``log w_i`` of (4) for each chain (any common shift per chain is irrelevant).
    index_chain_length : int
        ``M`` >= 0; ``M = 0`` returns the uniform law.

    Returns
    -------
    (chains, n) ndarray of float64

    Raises
    ------
    ValueError
        ``index_chain_length`` negative or not an integer.

    Notes
    -----
    The transition matrix of one step is ``P[i, j] = (1/n) min{1, w_j/w_i}`` for ``j ≠ i`` (uniform
    proposal, acceptance (6)) and ``P[i, i] = 1 − Σ_{j≠i} P[i, j]``; the law after M steps is
    ``(1/n) 1ᵀ P^M``. Costs O(M n²) per chain: for diagnostics and tests.
    """
    M = check_nonnegative_int("index_chain_length", index_chain_length)
    n = log_weights.shape[-1]
    out = np.empty_like(log_weights)
    for c in range(log_weights.shape[0]):
        lw = log_weights[c]
        P = np.minimum(1.0, np.exp(np.minimum(lw[None, :] - lw[:, None], 0.0))) / n  # P[i, j], j != i
        np.fill_diagonal(P, 0.0)
        P[np.arange(n), np.arange(n)] = 1.0 - P.sum(axis=1)
        p = np.full(n, 1.0 / n)
        for _ in range(M):
            p = p @ P
        out[c] = p
    return out


def subsampling_moments(p, gradients):
    """Mean and trace of the covariance of ``g_I`` for ``I ~ p``.

    Parameters
    ----------
    p : (..., n) array_like of float64
        Index law(s).
    gradients : (..., n, d) array_like of float64
        ``g_i`` for every index.

    Returns
    -------
    mean : (..., d) ndarray
        ``Σ_i p_i g_i``.
    trace_cov : (...) ndarray
        ``Σ_i p_i ‖g_i‖² − ‖Σ_i p_i g_i‖²``, computed as ``Σ_i p_i ‖g_i − mean‖²`` (no cancellation).
    """
    p = np.asarray(p, dtype=np.float64)
    g = np.asarray(gradients, dtype=np.float64)
    mean = np.einsum("...n,...nd->...d", p, g)
    dev = g - mean[..., None, :]
    return mean, np.einsum("...n,...n->...", p, np.sum(dev * dev, axis=-1))


def trace_cov_first_order(b, y) -> np.ndarray:
    """``d/dε Tr cov_{p(ε)}(b_I)`` at ε = 0 for ``p_i(ε) ∝ exp(ε ½‖y + b_i‖²)``.

    Parameters
    ----------
    b : (..., n, d) array_like of float64
        ``b_i = n∇V_i(θ)`` (Appendix B's notation; a prior term may be included).
    y : (..., d) array_like of float64
        ``y = σ x / √h`` (``y = γ r_k`` for the recommended x).

    Returns
    -------
    (...) ndarray
        ``(1/n) Σ_i (u_i − ū) ‖b_i − b̄‖²``, ``u_i = ½‖y + b_i‖²``: the first-order change of the
        trace for exact weights (4) and for the index law after any ``M >= 1`` Metropolis steps.
        Multiply by ``ε = h/σ²``.

    Notes
    -----
    With ``dp_i/dε = (u_i − ū)/n`` at ε = 0, ``d/dε [Σ p_i ‖b_i‖² − ‖Σ p_i b_i‖²] =
    (1/n) Σ (u_i − ū)(‖b_i‖² − 2 b̄ᵀ b_i) = (1/n) Σ (u_i − ū) ‖b_i − b̄‖²``. For i.i.d. ``b_i`` with a
    symmetric law about its mean μ it is ``≈ ½ Var‖b − μ‖² > 0`` (unless ‖b − μ‖ is a.s. constant).
    """
    b = np.asarray(b, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    u = 0.5 * np.sum((y[..., None, :] + b) ** 2, axis=-1)
    dev = b - b.mean(axis=-2, keepdims=True)
    s = np.sum(dev * dev, axis=-1)
    return np.mean((u - u.mean(axis=-1, keepdims=True)) * s, axis=-1)


def variance_change(b, y, step_size, noise_scale, index_chain_length: int | None = None):
    """Theorem 4.2's ``Δ = Tr cov_{p^E}(b_I) − Tr cov_{p^U}(b_I)``, exactly, for each data set.

    Parameters
    ----------
    b : (sets, n, d) array_like of float64
        ``b_i = n∇V_i(θ)`` of each data set.
    y : (d,) or (sets, d) array_like of float64
        ``y = σ x / √h``: the paper's ``x = O(√h)`` at fixed y.
    step_size, noise_scale : float
        h > 0, σ > 0 (``ε = h/σ²``).
    index_chain_length : int or None
        ``None``: the exact weights (4) (Theorem 4.2's ``p^E``); an integer M: the law of the index
        after M Metropolis steps of Algorithm 1 (what the implementation samples).

    Returns
    -------
    delta : (sets,) ndarray
    trace_uniform : (sets,) ndarray
        ``Tr cov_{p^U}``, for scale.

    Raises
    ------
    ValueError
        Non-finite or mis-shaped input, non-positive h or σ.
    """
    b = check_finite_array("b", b, ndim=3)
    y = np.broadcast_to(check_finite_array("y", y), (b.shape[0], b.shape[2]))
    h = check_positive("step_size", step_size)
    s = check_positive("noise_scale", noise_scale)
    logw = ewsg_log_weights(np.sqrt(h) * y / s, b, h, s)
    p = normalized_weights(logw) if index_chain_length is None else metropolis_index_law(logw, index_chain_length)
    _, tr = subsampling_moments(p, b)
    _, tr_u = subsampling_moments(np.full(b.shape[:2], 1.0 / b.shape[1]), b)
    return tr - tr_u, tr_u


class LinearResponse(NamedTuple):
    """``E[ĝ | θ, r] − ∇V(θ) = ε (G_θ (θ − c̄) + G_r r + g0) + O(ε²)``, ``ε = h/σ²``.

    G_theta, G_r : (d, d) ndarray; g0 : (d,) ndarray; empirical_cov : (d, d) ndarray (``Ĉ``);
    third_moment : (d,) ndarray (``m3 = (1/n) Σ ‖c̃_i‖² c̃_i``).
    """

    G_theta: np.ndarray
    G_r: np.ndarray
    g0: np.ndarray
    empirical_cov: np.ndarray
    third_moment: np.ndarray


def gaussian_means_linear_response(centers, friction) -> LinearResponse:
    """First-order (in ε = h/σ²) bias of the EWSG gradient on ``V(θ) = Σ_i ½‖θ − c_i‖²``, recommended x.

    Parameters
    ----------
    centers : (n, d) array_like of float64
        The data ``c_i`` of EWSG §5.1.
    friction : float
        γ > 0 (the recommended ``x = √h γ r / σ``, i.e. ``y = γ r``).

    Returns
    -------
    LinearResponse
        ``G_θ = n³ Ĉ``, ``G_r = γ n² Ĉ``, ``g0 = −½ n³ m3`` with ``c̃_i = c_i − c̄``,
        ``Ĉ = (1/n) Σ c̃_i c̃_iᵀ``, ``m3 = (1/n) Σ ‖c̃_i‖² c̃_i``.

    Raises
    ------
    ValueError
        Non-finite centers or non-positive friction.

    Notes
    -----
    With ``b_i = n(θ − c_i)``, ``v = γ r + n(θ − c̄)``: ``u_i − ū = −n vᵀc̃_i + ½ n² (‖c̃_i‖² − mean)``
    and, to first order, ``Σ_i p_i b_i − b̄ = (ε/n) Σ_i (u_i − ū)(b_i − b̄) = ε (n² Ĉ v − ½ n³ m3)``.
    This holds for exact weights and for any ``M >= 1`` (see the module notes). The bias is linear
    in the state, so the mean of the EWSG chain follows a closed linear recursion to first order:
    the Hessian becomes ``n(I + ε n² Ĉ)`` and the friction ``γ(I + ε n² Ĉ)``, plus a constant force
    from the empirical third moment (EWSG Appendix H, Theorem H.1's ``e_k``).
    """
    c = check_finite_array("centers", centers, ndim=2)
    g = check_positive("friction", friction)
    n = c.shape[0]
    ct = c - c.mean(axis=0)
    C = ct.T @ ct / n
    m3 = np.mean(np.sum(ct * ct, axis=1)[:, None] * ct, axis=0)
    return LinearResponse(n**3 * C, g * n**2 * C, -0.5 * n**3 * m3, C, m3)


def linear_response_recursion(rec, response: LinearResponse, center, step_size, noise_scale):
    """SGHMC's linear recursion with EWSG's first-order gradient bias added (the linear-response model).

    Parameters
    ----------
    rec : sgmcmc_verify.analytic.linear_samplers.LinearRecursion
        Underdamped EM on ``V(θ) = Σ_i ½‖θ − c_i‖²`` (:func:`sgmcmc_verify.analytic.linear_samplers.underdamped_em_recursion`).
    response : LinearResponse
        From :func:`gaussian_means_linear_response`.
    center : (d,) array_like
        ``c̄`` (the point about which ``G_θ`` acts).
    step_size, noise_scale : float
        h and σ (ε = h/σ²).

    Returns
    -------
    sgmcmc_verify.analytic.linear_samplers.LinearRecursion
        ``r' = r − h(∇V(θ) + γ r) − h ε (G_θ(θ − c̄) + G_r r + g0) + noise``: the exact mean recursion
        of EWSG to first order in ε (the bias is linear in the state, so means close), with the
        noise covariance of SGHMC (EWSG's differs at second order, ``h² · ε n⁴``).

    Notes
    -----
    EWSG Appendix H writes the mean of a non-uniform scheme as ``x_{k+1} = (I + Ah) x_k + h e_k``;
    here ``e_k = −ε (0, G_θ(θ̄_k − c̄) + G_r r̄_k + g0)`` to first order, so
    ``x_k − x'_k = O(ε) = O(h)`` (Theorem H.1 with p = 1), with a coefficient that grows like n³.
    """
    h = check_positive("step_size", step_size)
    eps = h / check_positive("noise_scale", noise_scale) ** 2
    c = check_finite_array("center", center, ndim=1)
    d = rec.position_dim
    A = rec.A.copy()
    A[d:, :d] -= h * eps * response.G_theta
    A[d:, d:] -= h * eps * response.G_r
    a = rec.a.copy()
    a[d:] -= h * eps * (response.g0 - response.G_theta @ c)
    return LinearRecursion(A, a, rec.W.copy(), d)
