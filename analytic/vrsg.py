"""Exact identities of vrSG-MCMC's analysis: Lemma 2, the variance identity (7) of Theorem 3, Proposition 10, Theorem 6's λ_l.

Everything here is exact mathematics about a finite population of vectors ``a_1, …, a_N`` (per-datum
log-likelihood gradients at one parameter) and the random minibatches drawn from it: closed forms,
their sympy derivations, and exhaustive enumeration of every minibatch for small N (no randomness).

Notation (seed ``002_245183f35db8d795.txt``)
---------------------------------------------
``S = Σ_{i,j} a_iᵀa_j = ‖Σ_i a_i‖²``, ``D = Σ_i ‖a_i‖²``, ``P = Σ_{i<j} a_iᵀa_j = (S − D)/2``.

* Lemma 2 prints ``Γ = S/N² − Σ_{i≠j} a_iᵀa_j / (N(N−1))``; the proof of Theorem 3 ends (7) with
  ``Γ = S/N² − 2P/(N(N−1))`` (extracted as ``Σ_{i≤j}`` in the last line, a garble: with ``i ≤ j`` the
  identity fails). Both equal ``(N D − S)/(N²(N−1)) = Σ_i ‖a_i − ā‖² / (N(N−1)) = s²/N`` with ``s²``
  the unbiased sample variance (trace): :func:`gamma` evaluates this centred form, which is also the
  numerically stable one (the printed forms subtract two numbers of size ``‖ā‖²``).
* The minibatch error ``ΔV = Σ_i a_i − (N/n) Σ_i K_i a_i`` with ``K_i`` the number of times datum i is
  drawn. Without replacement (the proofs' inclusion indicators ``z_i``: ``E z_i = n/N``,
  ``E z_i z_j = n(n−1)/(N(N−1))``) ``E‖ΔV‖² = (N−n) N² Γ / n`` — eq. (7). With replacement (the
  printed Algorithm 1: ``K ~ Multinomial(n, 1/N)``, ``E K_i² = n/N + n(n−1)/N²``,
  ``E K_i K_j = n(n−1)/N²``) ``E‖ΔV‖² = (N−1) N² Γ / n``: the factor ``N − n`` becomes ``N − 1`` (no
  finite-population correction), so (7) matches only sampling without replacement.
* Theorem 3's statement writes the first term as ``2(N−n)N²Γ_M/(nL)``; the proof's (7) gives
  ``(N−n)N²Γ_l/n`` exactly (:func:`theorem3_noise_term`).
* Proposition 10 (vrSG-MCMC, eq. (12)): ``ΔV = Σ α_i(1 − N z_i/n2) + Σ β_i(N z_i/n2 − N b_i/n1)`` with
  independent subsets z (size n2) and b (size n1); exactly, ``E‖ΔV‖² = A_{α−β}(n2) + A_β(n1)`` with
  ``A_x(n) = (N−n)N²Γ_x/n`` (:func:`vr_noise_second_moment`).
* Theorem 6's λ_l as printed has the wrong sign in its ``Σ_{i<j}`` term; the proof's last line and
  Remark 7 give ``λ_l = A_β(n2) − A_β(n1) = N³(n1 − n2)Γ_β/(n1 n2)`` (:func:`lambda_derived`).

References
----------
Seed ``002_245183f35db8d795.txt``: Lemma 2; Theorem 3 and its proof, eq. (7); Corollary 4 and its
proof, eqs. (8)–(9); eqs. (10)–(12); Proposition 10 and its proof; Theorem 6 and its proof; Remark 7.
"""
from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import sympy as sp

from .validation import check_finite_array, check_positive, check_positive_int

__all__ = [
    "as_population", "pair_sums", "gamma", "gamma_cross", "gamma_printed", "gamma_eq7", "gamma_symbolic",
    "scheme_factor", "noise_second_moment", "theorem3_noise_term", "inclusion_moments",
    "enumerate_minibatches", "enumerate_noise_second_moment",
    "Prop10Terms", "prop10_printed", "vr_noise_second_moment", "enumerate_prop10",
    "lambda_printed", "lambda_derived", "lambda_remark7", "lambda_exact", "lambda_remainder", "lambda_symbolic",
    "sample_sum_moment_symbolic", "minibatch_mean_central_moments", "enumerate_minibatch_mean_moments",
    "corollary4_symbolic", "corollary4_thresholds", "h_coefficient", "bound_optimal_mse", "bound_crossover",
]


# ---- the population --------------------------------------------------------------------------

def as_population(a, name: str = "a") -> np.ndarray:
    """``a`` as a float64 array of shape ``(..., N, d)``: a 1-D input ``(N,)`` is ``N`` scalars (d = 1).

    Raises
    ------
    ValueError
        Non-finite entries, fewer than 2 data (``N >= 2``: Γ divides by ``N − 1``).
    """
    x = check_finite_array(name, a)
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim < 2 or x.shape[-2] < 2:
        raise ValueError(f"{name} must have shape (..., N, d) with N >= 2, got {np.shape(a)}")
    return x


def pair_sums(a, literal: bool = True):
    """``(S, D, P)``: ``S = ‖Σ_i a_i‖²``, ``D = Σ_i ‖a_i‖²``, ``P = Σ_{i<j} a_iᵀa_j``.

    Parameters
    ----------
    a : (..., N, d) or (N,) array_like
    literal : bool, default True
        ``True``: ``P`` summed over the upper triangle of the Gram matrix (O(N²) memory per
        population: small N only); ``False``: ``P = (S − D)/2`` (exact in exact arithmetic).

    Returns
    -------
    S, D, P : ndarrays of shape ``(...)``
    """
    x = as_population(a)
    tot = x.sum(axis=-2)
    S = np.sum(tot * tot, axis=-1)
    D = np.sum(x * x, axis=(-2, -1))
    if not literal:
        return S, D, 0.5 * (S - D)
    G = np.einsum("...id,...jd->...ij", x, x)
    P = np.triu(G, 1).sum(axis=(-2, -1))
    return S, D, P


def gamma(a):
    """Γ of Lemma 2 in its centred form ``Σ_i ‖a_i − ā‖² / (N(N−1))`` (≥ 0 by construction).

    Parameters
    ----------
    a : (..., N, d) or (N,) array_like
        Per-datum vectors ``α_{li}`` (one population per leading index).

    Returns
    -------
    ndarray of shape ``(...)`` (a float for one population)

    Raises
    ------
    ValueError
        See :func:`as_population`.

    Notes
    -----
    ``Γ = s²/N`` with ``s² = Σ‖a_i − ā‖²/(N − 1)`` the unbiased sample variance (trace). Equal in exact
    arithmetic to the printed forms :func:`gamma_printed` and :func:`gamma_eq7` (see
    :func:`gamma_symbolic`), which in floating point lose ``log10(‖ā‖²/s²)`` digits to cancellation.

    Examples
    --------
    >>> float(gamma([1.0, 2.0, 3.0]))          # s² = 1, N = 3
    0.3333333333333333
    """
    x = as_population(a)
    N = x.shape[-2]
    c = x - x.mean(axis=-2, keepdims=True)
    return np.sum(c * c, axis=(-2, -1)) / (N * (N - 1))


def gamma_cross(a, b):
    """The bilinear Γ: ``Σ_i (a_i − ā)ᵀ(b_i − b̄) / (N(N−1))`` (``gamma_cross(a, a) = gamma(a)``).

    Raises
    ------
    ValueError
        ``a`` and ``b`` of different shapes, or see :func:`as_population`.
    """
    x, y = as_population(a, "a"), as_population(b, "b")
    if x.shape != y.shape:
        raise ValueError(f"a and b must have the same shape, got {x.shape} and {y.shape}")
    N = x.shape[-2]
    return np.sum((x - x.mean(axis=-2, keepdims=True)) * (y - y.mean(axis=-2, keepdims=True)), axis=(-2, -1)) / (N * (N - 1))


def gamma_printed(a):
    """Lemma 2 as printed: ``S/N² − Σ_{i≠j} a_iᵀa_j / (N(N−1))``, evaluated literally (``Σ_{i≠j} = 2P``)."""
    S, _, P = pair_sums(a)
    N = as_population(a).shape[-2]
    return S / N**2 - 2.0 * P / (N * (N - 1))


def gamma_eq7(a, pairs: str = "<"):
    """The bracket of (7): ``S/N² − (2/(N(N−1))) Σ_{pairs} a_iᵀa_j``.

    Parameters
    ----------
    a : (..., N, d) or (N,) array_like
    pairs : {"<", "<="}
        ``"<"``: ``Σ_{i<j}`` (the sum the derivation produces); ``"<="``: ``Σ_{i≤j}``, the last line of
        (7) as the text prints it — a garble (it adds ``2D/(N(N−1))`` and can be negative).

    Raises
    ------
    ValueError
        Unknown ``pairs``.
    """
    if pairs not in ("<", "<="):
        raise ValueError(f"pairs must be '<' or '<=', got {pairs!r}")
    S, D, P = pair_sums(a)
    N = as_population(a).shape[-2]
    return S / N**2 - 2.0 * (P + (D if pairs == "<=" else 0.0)) / (N * (N - 1))


@lru_cache(maxsize=None)
def gamma_symbolic() -> dict:
    """Sympy proof that Lemma 2's Γ, (7)'s Γ and the centred form agree, and what ``Σ_{i≤j}`` gives.

    Returns
    -------
    dict of sympy expressions in ``N, S, D``
        ``printed``, ``eq7``, ``eq7_leq`` (the garbled ``i ≤ j``), ``closed`` = ``(N D − S)/(N²(N−1))``,
        and the simplified differences ``printed_minus_closed``, ``eq7_minus_closed`` (both 0) and
        ``eq7_leq_minus_closed`` (``−2D/(N(N−1))``); ``theorem3_residual``: the derivation of (7)
        from the inclusion-indicator moments, ``E‖ΔV‖² − (N−n)N²Γ/n`` simplified (0), with ``n`` free.

    Examples
    --------
    >>> g = gamma_symbolic()
    >>> g["printed_minus_closed"], g["eq7_minus_closed"], g["theorem3_residual"]
    (0, 0, 0)
    """
    N, n, S, D = sp.symbols("N n S D", positive=True)
    P = (S - D) / 2
    closed = (N * D - S) / (N**2 * (N - 1))
    printed = S / N**2 - 2 * P / (N * (N - 1))
    eq7 = S / N**2 - 2 * P / (N * (N - 1))
    eq7_leq = S / N**2 - 2 * (P + D) / (N * (N - 1))
    # proof of Theorem 3: E(1 − N z_i/n)(1 − N z_j/n) = N/n − 1 (i = j), N(n−1)/(n(N−1)) − 1 (i ≠ j)
    ev = (N / n - 1) * D + 2 * P * (N * (n - 1) / (n * (N - 1)) - 1)
    return {"printed": printed, "eq7": eq7, "eq7_leq": eq7_leq, "closed": closed,
            "printed_minus_closed": sp.simplify(printed - closed), "eq7_minus_closed": sp.simplify(eq7 - closed),
            "eq7_leq_minus_closed": sp.simplify(eq7_leq - closed),
            "theorem3_residual": sp.simplify(ev - (N - n) * N**2 * closed / n)}


# ---- the two sampling schemes ------------------------------------------------------------------

def _check_batch(N: int, n, name: str = "n") -> int:
    n = check_positive_int(name, n)
    if n > N:
        raise ValueError(f"{name} must be <= N = {N}, got {n}")
    return n


def scheme_factor(N: int, n: int, replace: bool):
    """``E‖ΔV‖² / Γ``: ``(N − n)N²/n`` without replacement (eq. (7)), ``(N − 1)N²/n`` with replacement.

    Raises
    ------
    ValueError
        ``n`` not an integer in ``[1, N]`` (without replacement) or ``>= 1`` (with replacement).
    """
    N = check_positive_int("N", N)
    if replace:
        n = check_positive_int("n", n)
        return (N - 1) * N**2 / n
    n = _check_batch(N, n)
    return (N - n) * N**2 / n


def noise_second_moment(a, n: int, replace: bool = False):
    """``E‖ΔV‖²`` of the ``n``-minibatch estimate of ``Σ_i a_i`` (closed form).

    Parameters
    ----------
    a : (..., N, d) or (N,) array_like
    n : int
        Minibatch size.
    replace : bool, default False
        ``False``: a uniform ``n``-subset (the proofs' inclusion indicators), ``(N−n)N²Γ/n`` (eq. (7));
        ``True``: ``n`` i.i.d. uniform indices (the printed Algorithm 1), ``(N−1)N²Γ/n``.

    Returns
    -------
    ndarray of shape ``(...)``
    """
    x = as_population(a)
    return scheme_factor(x.shape[-2], n, replace) * gamma(x)


def theorem3_noise_term(N: int, n: int, gamma_value, reading: str = "proof"):
    """The first term of Theorem 3's bound, times ``L``: ``(N−n)N²Γ/n`` (the proof's (7)) or ``2(N−n)N²Γ/n`` (the statement).

    Raises
    ------
    ValueError
        Unknown ``reading``, or a bad ``n``.
    """
    if reading not in ("proof", "statement"):
        raise ValueError(f"reading must be 'proof' or 'statement', got {reading!r}")
    return (2.0 if reading == "statement" else 1.0) * scheme_factor(N, n, False) * gamma_value


def inclusion_moments(N=None, n=None, replace: bool = False) -> dict:
    """``E K_i``, ``E K_i²`` and ``E K_i K_j`` (i ≠ j) of the inclusion counts, as sympy expressions.

    ``N`` and ``n`` may be numbers or left ``None`` (symbols). Without replacement ``K_i = z_i ∈ {0, 1}``
    (the proofs' indicators); with replacement ``K ~ Multinomial(n, (1/N, …, 1/N))``.

    Examples
    --------
    >>> inclusion_moments(10, 3)["E_zizj"]
    1/15
    >>> inclusion_moments(10, 3, replace=True)["E_zizj"]
    3/50
    """
    Ns = sp.Symbol("N", positive=True) if N is None else sp.Integer(N)
    ns = sp.Symbol("n", positive=True) if n is None else sp.Integer(n)
    if replace:
        return {"E_zi": ns / Ns, "E_zi2": ns / Ns + ns * (ns - 1) / Ns**2, "E_zizj": ns * (ns - 1) / Ns**2}
    return {"E_zi": ns / Ns, "E_zi2": ns / Ns, "E_zizj": ns * (ns - 1) / (Ns * (Ns - 1))}


def enumerate_minibatches(N: int, n: int, replace: bool = False):
    """Every minibatch as a count vector with its probability (exhaustive; for small N).

    Returns
    -------
    counts : (C, N) ndarray of float64
        ``K_i`` for each minibatch: the ``C(N, n)`` subsets (``replace=False``) or the ``C(N+n−1, n)``
        multisets (``replace=True``).
    prob : (C,) ndarray of float64
        ``1/C(N, n)``, or the multinomial probability ``n!/(∏K_i!)/Nⁿ``; sums to 1.

    Raises
    ------
    ValueError
        A bad ``n``, or more than 2·10⁶ minibatches.
    """
    N = check_positive_int("N", N)
    n = check_positive_int("n", n) if replace else _check_batch(N, n)
    C = math.comb(N + n - 1, n) if replace else math.comb(N, n)
    if C > 2_000_000:
        raise ValueError(f"enumeration of {C} minibatches (N = {N}, n = {n}) is too large; use Monte Carlo")
    gen = itertools.combinations_with_replacement(range(N), n) if replace else itertools.combinations(range(N), n)
    counts = np.zeros((C, N))
    for r, idx in enumerate(gen):
        np.add.at(counts[r], list(idx), 1.0)
    if not replace:
        return counts, np.full(C, 1.0 / C)
    logp = (math.lgamma(n + 1) - np.sum([[math.lgamma(k + 1) for k in row] for row in counts], axis=1)
            - n * math.log(N))
    return counts, np.exp(logp)


def enumerate_noise_second_moment(a, n: int, replace: bool = False) -> float:
    """``E‖ΔV‖²`` by summing over every minibatch (:func:`enumerate_minibatches`), for one population ``a``."""
    x = as_population(a)
    if x.ndim != 2:
        raise ValueError(f"a must be one population (N, d), got shape {x.shape}")
    N = x.shape[0]
    K, p = enumerate_minibatches(N, n, replace)
    dv = x.sum(axis=0)[None, :] - (N / n) * (K @ x)
    return float(p @ np.sum(dv * dv, axis=1))


# ---- Proposition 10, eq. (12) -----------------------------------------------------------------

class Prop10Terms(NamedTuple):
    """The decomposition (12) ``E‖ΔV‖² = A + B + C`` (``C`` *includes* the factor 2 of (12)).

    A, B, C : float or ndarray;  total : float or ndarray (``E‖ΔV‖²``)."""

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    total: np.ndarray


def _pops(alpha, beta):
    a, b = as_population(alpha, "alpha"), as_population(beta, "beta")
    if a.shape != b.shape:
        raise ValueError(f"alpha and beta must have the same shape, got {a.shape} and {b.shape}")
    return a, b


def _c(N, n):
    return N * (N - n) / (n * (N - 1))


def prop10_printed(alpha, beta, n1: int, n2: int, cross: str = "symmetric") -> Prop10Terms:
    """Proposition 10's ``A_l, B_l, C_l`` as printed, and their sum.

    Parameters
    ----------
    alpha, beta : (..., N, d) array_like
        ``α_{li}`` (at θ_l) and ``β_{li}`` (at the stale θ̃_l).
    n1, n2 : int
        Anchor and current minibatch sizes.
    cross : {"symmetric", "literal"}
        How to read ``Σ_{i<j} α_iᵀβ_j`` in ``C_l``: ``"literal"`` sums the upper triangle of the
        (non-symmetric) matrix ``α_iᵀβ_j``; ``"symmetric"`` takes ``½ Σ_{i≠j} α_iᵀβ_j`` — the sum the
        proof actually derives before rewriting ``Σ_{i≠j}`` as ``2Σ_{i<j}``, a step that is exact only
        when ``α_iᵀβ_j`` is symmetric in (i, j).

    Returns
    -------
    Prop10Terms
        ``total = A + B + C``: Proposition 10's ``C_l`` already carries the factor 2 that (12) writes
        in front of its third term, so (12) read literally (``A + B + 2C_l``) counts it twice.

    Raises
    ------
    ValueError
        Unknown ``cross``, shapes that differ, bad batch sizes.
    """
    if cross not in ("symmetric", "literal"):
        raise ValueError(f"cross must be 'symmetric' or 'literal', got {cross!r}")
    a, b = _pops(alpha, beta)
    N = a.shape[-2]
    n1, n2 = _check_batch(N, n1, "n1"), _check_batch(N, n2, "n2")
    Saa, _, Paa = pair_sums(a)
    Sbb, _, Pbb = pair_sums(b)
    Sab = np.sum(a.sum(axis=-2) * b.sum(axis=-2), axis=-1)
    G = np.einsum("...id,...jd->...ij", a, b)
    if cross == "literal":
        Pab = np.triu(G, 1).sum(axis=(-2, -1))
    else:
        Pab = 0.5 * (G.sum(axis=(-2, -1)) - np.trace(G, axis1=-2, axis2=-1))
    c1, c2 = _c(N, n1), _c(N, n2)
    A = (N / n2 - 1) * Saa - 2 * c2 * Paa
    B = (N / n2 + N / n1 - 2) * Sbb - 2 * (c2 + c1) * Pbb
    C = 2 * (1 - N / n2) * Sab + 4 * c2 * Pab
    return Prop10Terms(A, B, C, A + B + C)


def vr_noise_second_moment(alpha, beta, n1: int, n2: int, replace: bool = False):
    """Exact ``E‖ΔV_l‖²`` of vrSG-MCMC's estimator (11) given ``θ_l`` and ``θ̃_l``.

    ``ΔV = Σ_i (α_i − β_i)(1 − N z_i/n2) + Σ_i β_i(1 − N b_i/n1)``: the two sums are independent with
    mean 0, so ``E‖ΔV‖² = f(n2)Γ_{α−β} + f(n1)Γ_β`` with ``f`` = :func:`scheme_factor`.

    Parameters
    ----------
    alpha, beta : (..., N, d) array_like
    n1, n2 : int
    replace : bool, default False

    Returns
    -------
    ndarray of shape ``(...)``
    """
    a, b = _pops(alpha, beta)
    N = a.shape[-2]
    return scheme_factor(N, n2, replace) * gamma(a - b) + scheme_factor(N, n1, replace) * gamma(b)


def enumerate_prop10(alpha, beta, n1: int, n2: int, replace: bool = False) -> Prop10Terms:
    """The three terms of (12) by summing over every pair of minibatches (z of size n2, b of size n1, independent).

    ``A = E‖Σα_i(1 − N z_i/n2)‖²``, ``B = E‖Σβ_i(N z_i/n2 − N b_i/n1)‖²``,
    ``C = 2 E[(Σα_i(1 − N z_i/n2))ᵀ(Σβ_j(N z_j/n2 − N b_j/n1))]`` (the factor 2 of (12) included).
    """
    a, b = _pops(alpha, beta)
    if a.ndim != 2:
        raise ValueError(f"alpha must be one population (N, d), got shape {a.shape}")
    N = a.shape[0]
    Kz, pz = enumerate_minibatches(N, n2, replace)
    Kb, pb = enumerate_minibatches(N, n1, replace)
    u = a.sum(0)[None, :] - (N / n2) * (Kz @ a)                       # (Cz, d)
    wz = (N / n2) * (Kz @ b)                                           # (Cz, d)
    wb = (N / n1) * (Kb @ b)                                           # (Cb, d)
    w = wz[:, None, :] - wb[None, :, :]                                # (Cz, Cb, d)
    P = pz[:, None] * pb[None, :]
    A = float(pz @ np.sum(u * u, axis=1))
    B = float(np.sum(P * np.sum(w * w, axis=2)))
    C = float(2.0 * np.sum(P * np.einsum("zd,zbd->zb", u, w)))
    dv = u[:, None, :] + w
    return Prop10Terms(A, B, C, float(np.sum(P * np.sum(dv * dv, axis=2))))


# ---- Theorem 6 and Remark 7 -------------------------------------------------------------------

def lambda_printed(beta, n1: int, n2: int):
    """Theorem 6's ``λ_l`` as printed: ``(N/n1 − N/n2) Σ_{ij} β_iᵀβ_j − 2(c(n2) − c(n1)) Σ_{i<j} β_iᵀβ_j``, ``c(n) = N(N−n)/(n(N−1))``.

    (The text's ``Σ_{ij} β_{li}ᵀβ_{li}`` is read as ``β_{li}ᵀβ_{lj}``.) It is the appendix's ``B_l + C_l``
    with α = β, whose ``Σ_{i<j}`` term has the wrong sign: Proposition 10 gives ``B + C =
    (N/n1 − N/n2)S + 2(c(n2) − c(n1))P``. In closed form
    ``λ_printed = N(n1 − n2)(N D − (2N − 1) S)/(n1 n2 (N − 1))``, which is not sign-definite.
    """
    b = as_population(beta, "beta")
    N = b.shape[-2]
    n1, n2 = _check_batch(N, n1, "n1"), _check_batch(N, n2, "n2")
    S, _, P = pair_sums(b, literal=False)
    return (N / n1 - N / n2) * S - 2 * (_c(N, n2) - _c(N, n1)) * P


def lambda_derived(beta, n1: int, n2: int, replace: bool = False):
    """``λ_l = −(B_l + C_l)|_{α=β} = A_β(n2) − A_β(n1)``: the proof's last line, ``N³(n1 − n2)Γ_β/(n1 n2)`` (without replacement).

    Positive iff ``n1 > n2`` (Lemma 2: Γ_β ≥ 0); at ``n1 = N`` it is Remark 7's λ_l. With
    ``replace=True`` the with-replacement analogue ``(N−1)N²(1/n2 − 1/n1)Γ_β``.
    """
    b = as_population(beta, "beta")
    N = b.shape[-2]
    return (scheme_factor(N, n2, replace) - scheme_factor(N, n1, replace)) * gamma(b)


def lambda_remark7(beta, n2: int):
    """Remark 7 (``n1 = N``): ``(N/n2 − 1) Σ_{ij} β_iᵀβ_j − 2N(N−n2)/(n2(N−1)) Σ_{i<j} β_iᵀβ_j``, as printed."""
    b = as_population(beta, "beta")
    N = b.shape[-2]
    n2 = _check_batch(N, n2, "n2")
    S, _, P = pair_sums(b, literal=False)
    return (N / n2 - 1) * S - 2 * _c(N, n2) * P


def lambda_exact(alpha, beta, n1: int, n2: int, replace: bool = False):
    """The exact reduction of the per-step noise: ``E‖ΔV‖²(SG-MCMC, n2) − E‖ΔV‖²(vrSG-MCMC, n1, n2)``.

    ``= f(n2)Γ_α − f(n2)Γ_{α−β} − f(n1)Γ_β`` (``f`` = :func:`scheme_factor`); equals
    :func:`lambda_derived` when α = β, and differs from it by :func:`lambda_remainder`.
    """
    a, b = _pops(alpha, beta)
    N = a.shape[-2]
    return scheme_factor(N, n2, replace) * gamma(a) - vr_noise_second_moment(a, b, n1, n2, replace)


def lambda_remainder(alpha, beta, n2: int, replace: bool = False):
    """``lambda_exact − lambda_derived = 2 f(n2) Γ(β, α − β)``: the term the proof of Theorem 6 calls O(mh)."""
    a, b = _pops(alpha, beta)
    N = a.shape[-2]
    return 2.0 * scheme_factor(N, n2, replace) * gamma_cross(b, a - b)


@lru_cache(maxsize=None)
def lambda_symbolic() -> dict:
    """Sympy comparison of Theorem 6's printed λ_l, the proof's last line and Remark 7 (in ``N, n1, n2, S, D``).

    Returns
    -------
    dict of sympy expressions
        ``printed``; ``derived`` (``−(B + C)`` of Proposition 10 with α = β, from its printed A, B, C);
        ``derived_minus_closed`` (0: ``derived = N(n1 − n2)(N D − S)/(n1 n2 (N − 1)) = N³(n1−n2)Γ/(n1 n2)``);
        ``printed_minus_derived`` (``−2N(n1 − n2)S/(n1 n2)``: the sign slip); ``appendix_B_plus_C``, the
        appendix's ``B_l + C_l`` (equal to ``printed``); ``remark7_minus_derived_at_N`` (0) and
        ``remark7_minus_printed_at_N`` (not 0).

    Examples
    --------
    >>> d = lambda_symbolic()
    >>> d["derived_minus_closed"], d["remark7_minus_derived_at_N"]
    (0, 0)
    """
    N, n1, n2, S, D = sp.symbols("N n1 n2 S D", positive=True)
    P = (S - D) / 2

    def c(n):
        return N * (N - n) / (n * (N - 1))

    printed = (N / n1 - N / n2) * S - 2 * (c(n2) - c(n1)) * P
    B = (N / n2 + N / n1 - 2) * S - 2 * (c(n2) + c(n1)) * P
    C = 2 * (1 - N / n2) * S + 4 * c(n2) * P          # Proposition 10's C_l with α = β
    derived = -(B + C)
    closed = N * (n1 - n2) * (N * D - S) / (n1 * n2 * (N - 1))
    appendix = (N / n1 - N / n2) * S - 2 * (c(n2) - c(n1)) * P
    remark7 = (N / n2 - 1) * S - 2 * c(n2) * P
    return {"printed": printed, "derived": sp.simplify(derived), "closed": closed,
            "derived_minus_closed": sp.simplify(derived - closed),
            "printed_minus_derived": sp.factor(sp.simplify(printed - derived)),
            "appendix_B_plus_C": appendix, "appendix_minus_printed": sp.simplify(appendix - printed),
            "remark7_minus_derived_at_N": sp.simplify(remark7 - derived.subs(n1, N)),
            "remark7_minus_printed_at_N": sp.factor(sp.simplify(remark7 - printed.subs(n1, N)))}


# ---- central moments of a minibatch mean (both schemes) -----------------------------------------

def _set_partitions(k):
    from sympy.utilities.iterables import multiset_partitions

    return list(multiset_partitions(list(range(k))))


@lru_cache(maxsize=None)
def sample_sum_moment_symbolic(k: int, replace: bool = False):
    """``E[(Σ_i K_i c_i)^k]`` for a centred population (``Σ c_i = 0``) as a sympy expression.

    In the symbols ``N``, ``n`` and the power sums ``p2 … pk`` (``p_j = Σ_i c_i^j``). The k-fold sum is
    split by the set partition of positions that equal indices induce; inclusion moments of distinct
    indices are ``(n)_r/(N)_r`` without replacement and, with replacement, the multinomial factorial
    moments ``(n)_Q/N^Q`` combined through Stirling numbers of the second kind; sums over distinct
    indices are turned into power sums by Möbius inversion on the partition lattice.

    Parameters
    ----------
    k : int, 1 <= k <= 6
    replace : bool

    Examples
    --------
    >>> N, n, p2 = sp.symbols("N n p2", positive=True)
    >>> sp.simplify(sample_sum_moment_symbolic(2) - n * (N - n) * sp.Symbol("p2") / (N * (N - 1)))
    0
    """
    k = check_positive_int("k", k)
    if k > 6:
        raise ValueError(f"k must be <= 6, got {k}")
    N, n = sp.symbols("N n", positive=True)
    p = {j: sp.Symbol(f"p{j}") for j in range(2, k + 1)}
    p[1] = sp.Integer(0)

    def falling(x, r):
        return sp.prod([x - j for j in range(r)]) if r else sp.Integer(1)

    def distinct_sum(sizes):  # Σ over distinct j_1..j_r of Π c_{j_t}^{s_t}, via Möbius inversion
        tot = sp.Integer(0)
        for sigma in _set_partitions(len(sizes)):
            mu = sp.prod([(-1) ** (len(C) - 1) * sp.factorial(len(C) - 1) for C in sigma])
            tot += mu * sp.prod([p[sum(sizes[t] for t in C)] for C in sigma])
        return tot

    def inclusion(sizes):
        r = len(sizes)
        if not replace:
            return falling(n, r) / falling(N, r)
        tot = sp.Integer(0)
        for qs in itertools.product(*[range(1, s + 1) for s in sizes]):
            Q = sum(qs)
            tot += sp.prod([sp.functions.combinatorial.numbers.stirling(s, q) for s, q in zip(sizes, qs)]) \
                * falling(n, Q) / N**Q
        return tot

    expr = sp.Integer(0)
    for pi in _set_partitions(k):
        sizes = [len(B) for B in pi]
        expr += inclusion(sizes) * distinct_sum(sizes)
    return sp.simplify(expr)


@lru_cache(maxsize=None)
def _moment_poly(k: int, replace: bool, N: int, n: int) -> tuple:
    """The polynomial ``E[(Σ K_i c_i)^k]`` in the power sums at given ``N, n``: ``((exponents of p2..p6), Fraction)``."""
    from fractions import Fraction

    ps = [sp.Symbol(f"p{j}") for j in range(2, 7)]
    Ns, ns = sp.symbols("N n", positive=True)
    poly = sp.Poly(sp.expand(sample_sum_moment_symbolic(k, replace).subs({Ns: N, ns: n})), *ps)
    return tuple((e, Fraction(int(c.p), int(c.q))) for e, c in poly.terms())


@lru_cache(maxsize=64)
def _power_sums(xbytes: bytes) -> tuple:
    """Exact power sums ``p_2..p_6`` of the population centred at its exact mean (Fractions; ``p_1 = 0`` exactly)."""
    from fractions import Fraction

    xs = np.frombuffer(xbytes, dtype=np.float64)
    fr = [Fraction(float(v)) for v in xs]
    mean = sum(fr) / len(fr)
    c = [v - mean for v in fr]
    out, powers = [], list(c)
    for _ in range(2, 7):
        powers = [a * b for a, b in zip(powers, c)]
        out.append(sum(powers))
    return tuple(out)


def minibatch_mean_central_moments(x, n: int, replace: bool = False, order: int = 4) -> np.ndarray:
    """``E[(x̄_b − x̄)^k]`` for ``k = 0 … order`` of the mean of an ``n``-minibatch of the scalars ``x``.

    Parameters
    ----------
    x : (N,) array_like of float64
    n : int
    replace : bool, default False
    order : int, default 4 (at most 6)

    Returns
    -------
    (order + 1,) ndarray
        ``[1, 0, Var, E(·)³, E(·)⁴, …]``: the closed forms of :func:`sample_sum_moment_symbolic`
        evaluated in exact rational arithmetic on the float inputs, rounded once (the
        without-replacement forms cancel heavily when n is close to N; in float64 they lose up to
        ~1e-10 relative at N = 1000). Cached per data set and n.

    Raises
    ------
    ValueError
        ``x`` not a finite 1-D array of length >= 2; bad ``n`` or ``order``.
    """
    xs = np.ascontiguousarray(check_finite_array("x", x, ndim=1))
    N = xs.size
    if N < 2:
        raise ValueError(f"x must have at least 2 entries, got {N}")
    n = check_positive_int("n", n) if replace else _check_batch(N, n)
    order = check_positive_int("order", order)
    if order > 6:
        raise ValueError(f"order must be <= 6, got {order}")
    p = _power_sums(xs.tobytes())
    out = np.zeros(order + 1)
    out[0] = 1.0
    for k in range(2, order + 1):
        tot = sum(c * np.prod([p[j] ** e for j, e in enumerate(ex) if e]) if any(ex) else c
                  for ex, c in _moment_poly(k, bool(replace), N, n))
        out[k] = float(tot / n**k)
    return out


def enumerate_minibatch_mean_moments(x, n: int, replace: bool = False, order: int = 4) -> np.ndarray:
    """The same moments as :func:`minibatch_mean_central_moments`, by summing over every minibatch."""
    xs = check_finite_array("x", x, ndim=1)
    K, p = enumerate_minibatches(xs.size, n, replace)
    dev = (K @ xs) / n - xs.mean()
    return np.array([float(p @ dev**k) for k in range(order + 1)])


# ---- Corollary 4 ---------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def corollary4_symbolic() -> dict:
    """Sympy check of Corollary 4's proof from the optimized bound (9) with unit constants.

    Returns
    -------
    dict
        ``bound``: ``(N−n)N²Γ/T + n^{2/3}/T^{2/3}``; ``derivative`` in n; ``printed_derivative``
        ``2/(3T^{2/3}n^{1/3}) − ΓN²/T`` and their difference (0); ``threshold``: the T at which the
        derivative vanishes, ``27Γ³N⁶n/8`` (case 1 takes n = 1, case 2 n = N); ``optimal_n``: the
        stationary point ``8T/(27N⁶Γ³)`` (a *maximum*: the bound is concave in n, so its minimum over
        [1, N] is at an end); ``second_derivative`` (negative).

    Examples
    --------
    >>> d = corollary4_symbolic()
    >>> d["derivative_minus_printed"], d["threshold"]
    (0, 27*G**3*N**6*n/8)
    """
    N, n, T, G = sp.symbols("N n T G", positive=True)
    bound = (N - n) * N**2 * G / T + n ** sp.Rational(2, 3) / T ** sp.Rational(2, 3)
    der = sp.diff(bound, n)
    printed = 2 / (3 * T ** sp.Rational(2, 3) * n ** sp.Rational(1, 3)) - G * N**2 / T
    thr = sp.solve(sp.Eq(printed, 0), T)
    nopt = sp.solve(sp.Eq(printed, 0), n)
    return {"bound": bound, "derivative": der, "printed_derivative": printed,
            "derivative_minus_printed": sp.simplify(der - printed), "threshold": sp.simplify(thr[0]),
            "optimal_n": sp.simplify(nopt[0]), "second_derivative": sp.simplify(sp.diff(bound, n, 2))}


def corollary4_thresholds(N: int, gamma_value: float) -> dict:
    """The printed budgets of Corollary 4 (unit constants): ``27Γ³N⁶/8`` (below: n = N best) and ``27Γ³N⁷/8`` (above: n = 1 best).

    Also ``endpoint_crossover``: the budget at which the optimized bound (9) with unit constants is
    the same at ``n = 1`` and ``n = N`` (:func:`bound_crossover` with ``c_noise = K = 1``).

    Raises
    ------
    ValueError
        ``N`` not a positive integer, ``gamma_value`` not a finite number > 0.
    """
    N = check_positive_int("N", N)
    g = check_positive("gamma_value", gamma_value)
    return {"small_budget_below": 27.0 * g**3 * N**6 / 8.0, "large_budget_above": 27.0 * g**3 * N**7 / 8.0,
            "endpoint_crossover": bound_crossover(N, g, 1.0, 1.0)}


def h_coefficient(c1: float, c3: float) -> float:
    """``K = 3(c1²c3/4)^{1/3}``: ``min_h [c1 n/(hT) + c3 h²] = K (n/T)^{2/3}``, at ``h* = (c1 n/(2 c3 T))^{1/3}``."""
    return 3.0 * (check_positive("c1", c1) ** 2 * check_positive("c3", c3) / 4.0) ** (1.0 / 3.0)


def bound_optimal_mse(n, T, N: int, gamma_value: float, c_noise: float, c1: float, c3: float):
    """Theorem 3's bound at budget ``T = nL`` minimized over h: ``c_noise(N−n)N²Γ/T + min_h [c1 n/(hT) + c3 h²]``.

    Returns
    -------
    bound, h_star : ndarrays broadcast over ``n`` and ``T``
        ``h* = (c1 n/(2 c3 T))^{1/3}``, the step size the bound prescribes.
    """
    n, T = np.asarray(n, dtype=float), np.asarray(T, dtype=float)
    h = (c1 * n / (2.0 * c3 * T)) ** (1.0 / 3.0)
    return c_noise * (N - n) * N**2 * gamma_value / T + h_coefficient(c1, c3) * (n / T) ** (2.0 / 3.0), h


def bound_crossover(N: int, gamma_value: float, c_noise: float, K: float) -> float:
    """The budget ``T*`` at which ``c_noise(N−n)N²Γ/T + K(n/T)^{2/3}`` is equal at ``n = 1`` and ``n = N``.

    ``c_noise(N−1)N²Γ/T = K T^{−2/3}(N^{2/3} − 1)``, so ``T* = [c_noise(N−1)N²Γ / (K(N^{2/3} − 1))]³``;
    below it n = N has the smaller bound, above it n = 1. With the constants of Theorem 3 use
    ``K =`` :func:`h_coefficient` ``(c1, c3)``.
    """
    N = check_positive_int("N", N)
    return float((c_noise * (N - 1) * N**2 * gamma_value / (K * (N ** (2.0 / 3.0) - 1.0))) ** 3)
