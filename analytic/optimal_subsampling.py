"""The optimal unbiased subsampling law of EWSG Theorem 4.1: a linear program.

Given the errors ``b_i = n∇V_i(θ) − ∇V(θ)`` (they sum to zero), find the index law p minimizing
the trace of the covariance of the unbiased estimate ``n∇V_I``:

    min_p  Σ_i p_i ‖b_i‖²    s.t.   Σ_i p_i b_i = 0,   Σ_i p_i = 1,   p >= 0.          (2)

There are ``d + 1`` equality constraints, so every vertex of the feasible polytope has at most
``d + 1`` nonzero entries and a simplex solver always returns such a vertex: "a sparse optimum
exists" is true for every data set. What Theorem 4.1 adds, "with probability 1", is that *every*
optimum is sparse. The certificate used here is complementary slackness: for a dual optimum
``(λ, μ)``, every primal optimum is supported on the tight set
``{i : ‖b_i‖² − λᵀb_i − μ = 0}``, i.e. on the data lying on one sphere (centre λ/2). With
absolutely continuous data, at most d + 1 points lie on a common sphere with probability 1
(Appendix A); on structured data (all ‖b_i‖ equal, say) the tight set can be everything.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: Theorem 4.1, eq. (2), Appendix A.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.optimize import linprog

from .validation import check_finite_array

__all__ = ["OptimalSubsampling", "optimal_unbiased_law", "lp_constraints"]


class OptimalSubsampling(NamedTuple):
    """The solution of (2) and its certificate.

    p : (n,) ndarray — an optimal (vertex) law; support : (k,) int ndarray — indices with p_i > tol;
    variance : float — ``Σ p_i ‖b_i‖²`` (= Tr cov of the unbiased estimate), in the units of ‖b‖²;
    uniform_variance : float — ``(1/n) Σ ‖b_i‖²``; multipliers : (d,) ndarray — λ;
    offset : float — μ; reduced_costs : (n,) ndarray — ``‖b_i‖² − λᵀb_i − μ`` (>= 0);
    tight : (m,) int ndarray — indices with a zero reduced cost (every optimum lives there);
    margin : float — the smallest reduced cost outside the tight set, relative to max ‖b_i‖²
    (``inf`` if the tight set is everything): how far the certificate is from a tie.
    """

    p: np.ndarray
    support: np.ndarray
    variance: float
    uniform_variance: float
    multipliers: np.ndarray
    offset: float
    reduced_costs: np.ndarray
    tight: np.ndarray
    margin: float


def lp_constraints(b):
    """The equality constraints of (2): ``A_eq p = b_eq`` with ``A_eq = [Bᵀ; 1ᵀ]`` ((d+1, n)), ``b_eq = (0, …, 0, 1)``.

    Parameters
    ----------
    b : (n, d) array_like of float64
    """
    b = np.asarray(b, dtype=np.float64)
    n, d = b.shape
    return np.vstack([b.T, np.ones((1, n))]), np.concatenate([np.zeros(d), [1.0]])


def optimal_unbiased_law(b, *, support_tol: float = 1e-9, tight_tol: float = 1e-11) -> OptimalSubsampling:
    """Solve Theorem 4.1's linear program (2) with ``scipy.optimize.linprog`` (HiGHS dual simplex).

    Parameters
    ----------
    b : (n, d) array_like of float64
        The errors ``b_i = n∇V_i(θ) − ∇V(θ)``; they must sum to zero (so that the uniform law is
        feasible), up to round-off.
    support_tol : float, default 1e-9
        ``p_i`` counts as nonzero above this (the solver's feasibility tolerances are set to 1e-10 on
        a problem scaled to O(1); vertex solutions have exact zeros off their basis).
    tight_tol : float, default 1e-11
        A reduced cost counts as zero below ``tight_tol · max ‖b_i‖²`` (the duals of a non-degenerate
        vertex are recomputed from the support in float64, so round-off is ~1e-15 of that scale).

    Returns
    -------
    OptimalSubsampling

    Raises
    ------
    ValueError
        Non-finite or mis-shaped ``b``, ``Σ b_i`` not zero (relative 1e-8), or a solver failure
        (the message of the solver is included).

    Notes
    -----
    The problem is solved on ``b / s`` with ``s`` the root-mean-square norm (p is scale invariant);
    variances are returned in the units of ``‖b‖²``. At a vertex with d + 1 nonzero entries the
    duals (λ, μ) are unique and are recomputed by solving ``‖b_j‖² = λᵀb_j + μ`` on the support; at a
    degenerate vertex (fewer entries) HiGHS's equality marginals are used. ``reduced_costs =
    ‖b_i‖² − λᵀb_i − μ`` (>= 0 at an optimum; a negative value beyond round-off is reported through
    ``margin`` < 0).

    Examples
    --------
    >>> b = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> sol = optimal_unbiased_law(b)
    >>> sol.support.tolist(), round(sol.variance, 12), round(sol.uniform_variance, 12)
    ([1, 2], 1.0, 2.5)
    """
    b = check_finite_array("b", b, ndim=2)
    n, d = b.shape
    if n < 2:
        raise ValueError(f"b must have at least 2 rows, got {n}")
    s = float(np.sqrt(np.mean(np.sum(b * b, axis=1))))
    if s == 0:
        raise ValueError("b is identically zero: every law is optimal")
    bs = b / s
    if np.linalg.norm(bs.sum(axis=0)) > 1e-8 * n:
        raise ValueError(f"the rows of b must sum to zero (b_i = n∇V_i − ∇V); their sum is {b.sum(axis=0)!r}")
    cost = np.sum(bs * bs, axis=1)
    A_eq, b_eq = lp_constraints(bs)
    # feasibility tolerances 1e-10 (HiGHS default 1e-7): near-ties between vertices are common when n >> d
    # (e.g. d = 1, n = 1000: optimal variances ~1e-8 of the mean ‖b‖²), and the default stops at a vertex
    # whose certificate fails by ~1e-9
    res = linprog(cost, A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs-ds",
                  options={"dual_feasibility_tolerance": 1e-10, "primal_feasibility_tolerance": 1e-10})
    if res.status != 0:
        raise ValueError(f"linprog failed on Theorem 4.1's program: {res.message}")
    p = np.clip(res.x, 0.0, None)
    p = p / p.sum()
    support = np.flatnonzero(p > support_tol)
    if support.size == d + 1:
        # a non-degenerate vertex: the duals are unique and solve ‖b_j‖² − λᵀb_j − μ = 0 on the support exactly
        # (recomputed in float64 rather than taken from the solver, whose dual tolerance is 1e-7)
        A_s = np.hstack([bs[support], np.ones((d + 1, 1))])
        y = np.linalg.solve(A_s, cost[support])
    else:
        y = np.asarray(res.eqlin.marginals)
    lam, mu = y[:d], float(y[d])
    red = cost - bs @ lam - mu
    scale = float(cost.max())
    tight = np.flatnonzero(np.abs(red) <= tight_tol * scale)
    rest = np.setdiff1d(np.arange(n), tight)
    margin = float(red[rest].min() / scale) if rest.size else float("inf")
    return OptimalSubsampling(p, support, float(p @ cost) * s * s, float(cost.mean()) * s * s,
                              lam * s, mu * s * s, red * s * s, tight, margin)
