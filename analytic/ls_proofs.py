"""LS-SGLD: the theorems' statements against their proofs, Lemma C.4's recursion, the §4.1.2 constants (sympy).

Exact mathematics, no randomness. Every function returns sympy expressions or exact numbers; the experiment
``ls_sgld.proofs`` (:mod:`sgmcmc_verify.paper_repro.ls_sgld.proofs`) stores them and the ledger decides.

* Theorem 3.3: the bound (3.1) as printed, the bound its proof assembles from Lemma B.1 (ergodicity) and Lemma B.2
  (discretization), and Corollary 3.5 (the SGLD bound (3.2), "(3.1) with γ₁ = γ₂ = c₀ = 1").
* Theorem 3.7: the bound (3.3) as printed, the bound printed in its proof, and the bound that Lemma B.3 gives.
* Lemma C.4: the one-step expansion of ``E‖x_{k+1}‖²_A`` (Appendix D.3) and the fixed point of the recursion (D.2).
* §4.1.2: the smallest Hessian eigenvalue of ``f_i`` over ``x`` (the nonconvexity threshold on ``‖a_i‖``) and the
  dissipativity margin ``⟨∇f_i(x), x⟩ − (½‖x‖² − ½‖a_i‖²)``.

References
----------
Seed ``004_8438bd4b543e0fc4.txt``: Theorem 3.3 (3.1), Corollary 3.5 (3.2), Theorem 3.7 (3.3), Lemmas B.2, B.3
and the proofs of Theorems 3.3 / 3.7 (Appendix B), Lemma C.4 and its proof (Appendix D.3, (D.2)), §4.1.2.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from .validation import check_positive_int

__all__ = ["SYMBOLS", "theorem33_bounds", "theorem37_bounds", "term_ratios", "lemma_c4_one_step_residual",
           "lemma_c4_fixed_point", "mixture_hessian_min_eigenvalue", "mixture_nonconvexity_threshold",
           "mixture_dissipativity_margin"]

_pos = dict(positive=True)
#: The symbols of Theorems 3.3 / 3.7 (all positive): γ₁, γ₂, c₀, K, η, β, d, ω, B, M, λ, Λ, f(0), Γ̄.
SYMBOLS = {k: sp.Symbol(s, **_pos) for k, s in (
    ("g1", "gamma1"), ("g2", "gamma2"), ("c0", "c0"), ("K", "K"), ("eta", "eta"), ("beta", "beta"), ("d", "d"),
    ("omega", "omega"), ("B", "B"), ("M", "M"), ("lam", "lambda"), ("Lam", "Lambda"), ("f0", "f0"),
    ("Gbar", "Gammabar"))}


def _ergodicity(c0):
    s = SYMBOLS
    return sp.sqrt(2 * s["lam"] * (s["beta"] * s["f0"] + sp.log(s["Lam"]))) * sp.exp(
        -c0 * s["K"] * s["eta"] / (2 * s["beta"] * s["lam"]))


def theorem33_bounds() -> dict:
    """The right-hand sides of Theorem 3.3 as printed and as its proof assembles them, term by term.

    Returns
    -------
    dict
        ``{"statement (3.1)": [t1, t2, t3], "proof (Lemmas B.1 + B.2)": [...], "Corollary 3.5 (3.2)": [...],
        "(3.1) at γ₁ = γ₂ = c₀ = 1": [...]}``: the stochastic-gradient term, the integrator term and the ergodicity
        term (sympy expressions in :data:`SYMBOLS`).

    Notes
    -----
    (3.1): ``(2γ₁Kη²βdω²/B)^{1/2} + [8γ₂Kη²(K+1)βdη]^{1/2} + [2λ(βf(0)+log Λ)]^{1/2} e^{−c₀Kη/(2βλ)}``;
    Lemma B.2: ``(2γ₁dω²Kη²/B)^{1/2} + [8γ₂K(K+1)β⁻¹dη³]^{1/2}``; (3.2): ``(2Kη²dω²/B)^{1/2} +
    [8Kη²(K+1)β⁻¹dη]^{1/2} + [2λ(βf(0)+log Λ)]^{1/2} e^{−Kη/(2βλ)}``.
    """
    s = SYMBOLS
    g1, g2, c0, K, eta, beta, d, om, B = (s[k] for k in ("g1", "g2", "c0", "K", "eta", "beta", "d", "omega", "B"))
    stmt = [sp.sqrt(2 * g1 * K * eta**2 * beta * d * om**2 / B), sp.sqrt(8 * g2 * K * eta**2 * (K + 1) * beta * d * eta),
            _ergodicity(c0)]
    proof = [sp.sqrt(2 * g1 * d * om**2 * K * eta**2 / B), sp.sqrt(8 * g2 * K * (K + 1) * d * eta**3 / beta),
             _ergodicity(c0)]
    cor = [sp.sqrt(2 * K * eta**2 * d * om**2 / B), sp.sqrt(8 * K * eta**2 * (K + 1) * d * eta / beta),
           _ergodicity(sp.Integer(1))]
    at_one = [t.subs({g1: 1, g2: 1, c0: 1}) for t in stmt]
    return {"statement (3.1)": stmt, "proof (Lemmas B.1 + B.2)": proof, "Corollary 3.5 (3.2)": cor,
            "(3.1) at γ₁ = γ₂ = c₀ = 1": at_one}


def theorem37_bounds() -> dict:
    """The right-hand sides of Theorem 3.7: as printed (3.3), as printed in its proof, and from Lemma B.3.

    Returns
    -------
    dict
        ``{"statement (3.3)": [disc, erg], "proof of Theorem 3.7 (as printed)": [...], "Lemma B.3 + Lemma B.1":
        [...]}``: the discretization term ``Γ̄(Kη)^{1/2}[X^{1/2} + X^{1/4}]`` and the ergodicity term.

    Notes
    -----
    The bracket ``X``: (3.3) ``γ₁βdω²Kη/B + 2γ₂M²dKη²``; the proof of Theorem 3.7 ``γ₁βdω²Kη/(2B) + 2γ₂M²dKη²``;
    Lemma B.3 ``γ₁βdω²Kη/(2B) + 2γ₂βM²dKη²``.
    """
    s = SYMBOLS
    g1, g2, c0, K, eta, beta, d, om, B, M, Gb = (s[k] for k in ("g1", "g2", "c0", "K", "eta", "beta", "d", "omega",
                                                               "B", "M", "Gbar"))

    def disc(X):
        return Gb * sp.sqrt(K * eta) * (sp.sqrt(X) + X ** sp.Rational(1, 4))
    x_stmt = g1 * beta * d * om**2 * K * eta / B + 2 * g2 * M**2 * d * K * eta**2
    x_proof = g1 * beta * d * om**2 * K * eta / (2 * B) + 2 * g2 * M**2 * d * K * eta**2
    x_lemma = g1 * beta * d * om**2 * K * eta / (2 * B) + 2 * g2 * beta * M**2 * d * K * eta**2
    return {"statement (3.3)": [disc(x_stmt), _ergodicity(c0)],
            "proof of Theorem 3.7 (as printed)": [disc(x_proof), _ergodicity(c0)],
            "Lemma B.3 + Lemma B.1": [disc(x_lemma), _ergodicity(c0)],
            "brackets": {"statement (3.3)": x_stmt, "proof of Theorem 3.7 (as printed)": x_proof,
                         "Lemma B.3 + Lemma B.1": x_lemma}}


def term_ratios(a: list, b: list) -> list:
    """``simplify(a_j / b_j)`` for each term: 1 where the two bounds agree term by term."""
    if len(a) != len(b):
        raise ValueError(f"a and b must have the same number of terms, got {len(a)} and {len(b)}")
    return [sp.simplify(x / y) for x, y in zip(a, b)]


def lemma_c4_one_step_residual(d: int = 3) -> sp.Expr:
    """Residual of Appendix D.3's one-step expansion, in the eigenbasis of ``A_σ`` (``λ_j`` symbolic, ``d`` fixed).

    ``E‖x − ηA⁻¹g + √(2η/β)A^{−1/2}ε‖²_A = ‖x‖²_A − 2η⟨x, g⟩ + η²‖g‖²_{A⁻¹} + 2ηβ⁻¹d`` for ``ε ~ N(0, I)``
    independent of ``g`` (the norms are rotation invariant, so the eigenbasis is general).

    Parameters
    ----------
    d : int
        Dimension of the symbolic check (>= 1).

    Returns
    -------
    sympy.Expr
        Left side minus right side, simplified (``0`` when the expansion is right).

    Raises
    ------
    ValueError
        ``d`` not a positive integer.
    """
    d = check_positive_int("d", d)
    eta, beta = SYMBOLS["eta"], SYMBOLS["beta"]
    lam = sp.symbols(f"l0:{d}", positive=True)
    x = sp.symbols(f"x0:{d}", real=True)
    g = sp.symbols(f"g0:{d}", real=True)
    c = sp.sqrt(2 * eta / beta)
    # E over ε of Σ_j λ_j (x_j − η g_j/λ_j + c λ_j^{−1/2} ε_j)²: cross terms vanish, E ε_j² = 1
    lhs = sum(lam[j] * ((x[j] - eta * g[j] / lam[j]) ** 2 + c**2 / lam[j]) for j in range(d))
    rhs = (sum(lam[j] * x[j] ** 2 for j in range(d)) - 2 * eta * sum(x[j] * g[j] for j in range(d))
           + eta**2 * sum(g[j] ** 2 / lam[j] for j in range(d)) + 2 * eta * d / beta)
    return sp.simplify(sp.expand(lhs - rhs))


def lemma_c4_fixed_point() -> dict:
    """The fixed point of (D.2) and its excess over Lemma C.4's bound (symbolic).

    (D.2): ``u_{k+1} ≤ (1 − c₁ηm)u_k + 2η(b + β⁻¹d + ηG²)``; from ``u_0 = 0``, ``u_k ≤ u* = 2(b + β⁻¹d + ηG²)/(c₁m)``.
    Lemma C.4 states ``u_k ≤ U = 2(2b + β⁻¹d)/(c₁m)``.

    Returns
    -------
    dict
        ``fixed_point`` u*, ``bound`` U, ``excess`` ``u* − U`` (simplified: ``2(ηG² − b)/(c₁m)``), and
        ``step_condition``: the largest η with ``u* ≤ U`` (``b/G²``).
    """
    eta, beta, d = SYMBOLS["eta"], SYMBOLS["beta"], SYMBOLS["d"]
    c1, m, b, G, u = sp.symbols("c1 m b G u", positive=True)
    fp = sp.solve(sp.Eq(u, (1 - c1 * eta * m) * u + 2 * eta * (b + d / beta + eta * G**2)), u)[0]
    U = 2 * (2 * b + d / beta) / (c1 * m)
    ex = sp.simplify(fp - U)
    cond = sp.solve(sp.Eq(ex, 0), eta)[0]
    return {"fixed_point": sp.simplify(fp), "bound": U, "excess": sp.factor(ex), "step_condition": cond,
            "symbols": {"c1": c1, "m": m, "b": b, "G": G}}


def mixture_hessian_min_eigenvalue() -> dict:
    """The smallest eigenvalue of ``∇²f_i`` over ``x``, for §4.1.2's ``f_i`` (sympy).

    ``∇²f_i(x) = I − κ(t) a aᵀ`` with ``t = ⟨a, x⟩`` and ``κ(t) = 8e^{2t}/(1 + 2e^{2t})²`` (the printed f_i); its
    smallest eigenvalue is ``1 − κ(t)‖a‖²``, smallest at the maximum of κ.

    Returns
    -------
    dict
        ``kappa`` κ(t), ``kappa_max`` (its maximum over t, exact), ``argmax_t``, ``min_eigenvalue`` as a function of
        ``r = ‖a‖`` (a sympy expression in ``r``).
    """
    t = sp.Symbol("t", real=True)
    r = sp.Symbol("r", positive=True)
    f1 = -sp.log(sp.Rational(2, 3) + sp.exp(-2 * t) / 3)   # the t-dependent part of f_i, t = <a, x>
    kappa = sp.simplify(-sp.diff(f1, t, 2))
    crit = sp.solve(sp.Eq(sp.diff(kappa, t), 0), t)
    kmax = sp.nsimplify(sp.simplify(max((kappa.subs(t, c) for c in crit), key=lambda e: float(e))))
    return {"kappa": kappa, "kappa_max": kmax, "argmax_t": crit, "min_eigenvalue": 1 - kmax * r**2, "r": r}


def mixture_nonconvexity_threshold() -> sp.Expr:
    """The exact ``‖a_i‖`` above which §4.1.2's ``f_i`` is nonconvex (``1 − κ_max r² = 0``)."""
    h = mixture_hessian_min_eigenvalue()
    return sp.solve(sp.Eq(h["min_eigenvalue"], 0), h["r"])[0]


def mixture_dissipativity_margin(norm_a, s, u, gradient: str = "true"):
    """``⟨∇f_i(x), x⟩ − (½‖x‖² − ½‖a‖²)`` for ``x = s·â + u·â⊥`` (float64, vectorized).

    Parameters
    ----------
    norm_a, s, u : array_like
        ``‖a‖`` (> 0), the coordinate of x along a and across it (broadcast together).
    gradient : {"true", "printed"}
        ``∇f_i = x − a + 2a/(1 + 2e^{2t})`` (the gradient of the printed f_i) or the printed
        ``x − a + 2a/(2 + e^{2t})``.

    Returns
    -------
    ndarray
        The margin (>= 0 where §4.1.2's dissipativity inequality holds), computed as
        ``½(|s| − ‖a‖)² + ½u² + (|t| − t(1 − w))`` with ``t = ‖a‖s`` and ``w`` the weight of ``a`` in the gradient
        (no cancellation: each term is >= 0 when ``0 <= w <= 2``).

    Raises
    ------
    ValueError
        Unknown ``gradient``; a non-positive ``norm_a``.
    """
    if gradient not in ("true", "printed"):
        raise ValueError(f"gradient must be 'true' or 'printed', got {gradient!r}")
    r, s, u = np.broadcast_arrays(np.asarray(norm_a, float), np.asarray(s, float), np.asarray(u, float))
    if np.any(r <= 0):
        raise ValueError("norm_a must be > 0")
    t = r * s
    with np.errstate(over="ignore"):
        w = 2.0 / (1.0 + 2.0 * np.exp(2 * t)) if gradient == "true" else 2.0 / (2.0 + np.exp(2 * t))
    # margin = ½(|s| − r)² + ½u² + (|t| − t(1 − w)), each term >= 0 when 0 <= w <= 2: summed without cancellation
    return 0.5 * (np.abs(s) - r) ** 2 + 0.5 * u * u + np.abs(t) * np.where(t >= 0, w, 2.0 - w)

