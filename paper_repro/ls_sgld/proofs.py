"""LS-SGLD exact checks: statements against proofs (sympy), the §4.1.2 constants, the FFT solve and one step of
Algorithm 2.1.

Experiments never plot and never decide: ``run_proofs`` writes ``proofs.json``, ``run_operators`` writes
``operators.csv``; ``paper_repro/ls_sgld/claims_proofs.py`` declares what the ledger reads from them.

References
----------
Seed ``004_8438bd4b543e0fc4.txt``: §2.1 eqs. (2.1)-(2.2), Algorithm 2.1 / eq. (2.5), Theorem 3.3 (3.1),
Corollary 3.5 (3.2), Theorem 3.7 (3.3), Lemmas B.2, B.3, C.4 (Appendix D.3, (D.2)), §4.1.2.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import sympy as sp

from sgmcmc_verify import samplers
from sgmcmc_verify.analytic import ls_proofs as LP
from sgmcmc_verify.analytic.laplacian import paper_matrix_2d, smoothing_matrix
from sgmcmc_verify.estimators import UniformMinibatch
from sgmcmc_verify.integrators.smoothing import PeriodicSmoothing
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.store.cache import package_versions
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets import mixture_centers

from .settings import OperatorsSettings, ProofsSettings

__all__ = ["run_proofs", "run_operators", "mixture_constants", "eq25_step", "dense_inverse_sqrt"]


def _ratios(a, b):
    return [str(r) for r in LP.term_ratios(a, b)]


def _residual(a, b):
    return str(sp.simplify(sum(a) - sum(b)))


def mixture_constants(centers: np.ndarray, sigma: float, inverse_temperature: float = 1.0) -> dict:
    """The constants of Assumptions 1-2 and Lemma D.1 for §4.1.2's ``f = n⁻¹Σf_i`` with these ``a_i``.

    ``m = 1/2``, ``b = n⁻¹Σ‖a_i‖²/2`` (§4.1.2's dissipativity, averaged), ``M = max_i max(1, ‖a_i‖² − 1)`` (the
    Hessian ``I − κ a_i a_iᵀ`` of f_i has eigenvalues in ``[1 − ‖a_i‖², 1]``, κ ∈ (0, 1]), ``G = max_i ‖∇f_i(0)‖ =
    max_i ‖a_i‖/3``, ``c₁ = ‖A_σ‖₂⁻¹`` for the 2-D matrix of eq. (4.1) (``1/(1 + 2σ)``), ``d = 2``.

    Returns
    -------
    dict
        The constants; the largest step of Lemma C.4's hypotheses as printed (``η ≤ m/(2M²) ∧ 1/(c₁m) ∧ b/G``) and
        as its last step needs (``b/G²`` in place of ``b/G``); the fixed point ``u*`` of (D.2) and the bound ``U``
        at each.
    """
    r = np.linalg.norm(centers, axis=1)
    m, b, M, G = 0.5, float(np.mean(r**2) / 2), float(np.max(np.maximum(1.0, r**2 - 1.0))), float(np.max(r) / 3)
    c1 = 1.0 / float(np.linalg.eigvalsh(paper_matrix_2d(sigma)).max())
    d, beta = 2, inverse_temperature
    U = 2 * (2 * b + d / beta) / (c1 * m)
    out = {"m": m, "b": b, "M": M, "G": G, "c1": c1, "d": d, "beta": beta, "bound_U": U, "sigma": sigma}
    for name, last in (("as printed (b/G)", b / G), ("as the last step needs (b/G^2)", b / G**2)):
        eta = min(m / (2 * M**2), 1 / (c1 * m), last)
        u = 2 * (b + d / beta + eta * G**2) / (c1 * m)
        out[name] = {"eta_max": eta, "fixed_point": u, "ratio_to_bound": u / U}
    return out


def run_proofs(cfg: ProofsSettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Statements vs proofs of Theorems 3.3 / 3.7, Lemma C.4, §4.1.2's constants; ``proofs.json``.

    Stores, for Theorem 3.3: the term-by-term ratios (3.1) / (proof from Lemmas B.1 + B.2), (3.2) / (proof at
    γ₁ = γ₂ = c₀ = 1), (3.1 at γ = c₀ = 1) / (3.2), and the simplified residuals; for Theorem 3.7 the same for the
    brackets of (3.3), of its proof as printed and of Lemma B.3; for Lemma C.4 the one-step residual, the fixed
    point of (D.2) and the step condition it needs, and the same evaluated on §4.1.2's constants; for §4.1.2 the
    exact nonconvexity threshold on ``‖a_i‖``, the smallest Hessian eigenvalue at ``‖a_i‖ = 3/2``, and the smallest
    dissipativity margin over a grid (true and printed gradient).
    """
    t33 = LP.theorem33_bounds()
    s = LP.SYMBOLS
    proof_at_one = [x.subs({s["g1"]: 1, s["g2"]: 1, s["c0"]: 1}) for x in t33["proof (Lemmas B.1 + B.2)"]]
    thm33 = {
        "statement_vs_proof": {"ratios": _ratios(t33["statement (3.1)"], t33["proof (Lemmas B.1 + B.2)"]),
                               "residual": _residual(t33["statement (3.1)"], t33["proof (Lemmas B.1 + B.2)"])},
        "corollary_vs_proof_at_one": {"ratios": _ratios(t33["Corollary 3.5 (3.2)"], proof_at_one),
                                      "residual": _residual(t33["Corollary 3.5 (3.2)"], proof_at_one)},
        "statement_at_one_vs_corollary": {"ratios": _ratios(t33["(3.1) at γ₁ = γ₂ = c₀ = 1"], t33["Corollary 3.5 (3.2)"]),
                                          "residual": _residual(t33["(3.1) at γ₁ = γ₂ = c₀ = 1"],
                                                                t33["Corollary 3.5 (3.2)"])},
        "terms": {k: [str(x) for x in v] for k, v in t33.items()}}
    t37 = LP.theorem37_bounds()
    br = t37["brackets"]
    lem = "Lemma B.3 + Lemma B.1"
    thm37 = {
        "statement_vs_lemma": {"residual": _residual(t37["statement (3.3)"], t37[lem]),
                               "bracket_ratio": str(sp.simplify(br["statement (3.3)"] / br[lem]))},
        "statement_vs_proof_text": {"residual": _residual(t37["statement (3.3)"], t37["proof of Theorem 3.7 (as printed)"]),
                                    "bracket_ratio": str(sp.simplify(br["statement (3.3)"]
                                                                     / br["proof of Theorem 3.7 (as printed)"]))},
        "proof_text_vs_lemma": {"residual": _residual(t37["proof of Theorem 3.7 (as printed)"], t37[lem]),
                                "bracket_ratio": str(sp.simplify(br["proof of Theorem 3.7 (as printed)"] / br[lem]))},
        "brackets": {k: str(v) for k, v in br.items()}}
    fp = LP.lemma_c4_fixed_point()
    centers = mixture_centers(cfg.n, cfg.seed)
    c4 = {"one_step_residual": str(LP.lemma_c4_one_step_residual(cfg.sympy_dim)), "sympy_dim": cfg.sympy_dim,
          "fixed_point": str(fp["fixed_point"]), "bound": str(fp["bound"]), "excess": str(fp["excess"]),
          "step_condition_needed": str(fp["step_condition"]), "step_condition_printed": "b/G",
          "mixture": [mixture_constants(centers, sg) for sg in cfg.sigmas]}
    h = LP.mixture_hessian_min_eigenvalue()
    thr = LP.mixture_nonconvexity_threshold()
    r = np.linspace(cfg.norm_min, cfg.norm_max, cfg.grid_points)
    sg = np.linspace(-cfg.coord_max, cfg.coord_max, cfg.grid_points)
    R, S, V = np.meshgrid(r, sg, sg, indexing="ij", sparse=True)
    diss = {}
    for grad in ("true", "printed"):
        marg = LP.mixture_dissipativity_margin(R, S, V, grad)
        k = np.unravel_index(np.argmin(marg), marg.shape)
        diss[grad] = {"min_margin": float(marg.min()), "at_norm_a": float(r[k[0]]), "at_s": float(sg[k[1]]),
                      "at_u": float(sg[k[2]])}
    sec = {"kappa": str(h["kappa"]), "kappa_max": str(h["kappa_max"]), "min_eigenvalue": str(h["min_eigenvalue"]),
           "threshold_exact": str(thr), "threshold_value": float(thr), "threshold_printed": 1.5,
           "min_eigenvalue_at_printed": float(h["min_eigenvalue"].subs(h["r"], sp.Rational(3, 2))),
           "dissipativity": diss, "grid": {"norm_a": [cfg.norm_min, cfg.norm_max], "coord_max": cfg.coord_max,
                                           "points": cfg.grid_points},
           "fraction_centers_nonconvex": float(np.mean(np.linalg.norm(centers, axis=1) > float(thr))),
           "fraction_centers_above_printed": float(np.mean(np.linalg.norm(centers, axis=1) > 1.5))}
    write_json(Path(out_dir) / "proofs.json", {"thm33": thm33, "thm37": thm37, "lemma_c4": c4, "sec4_1_2": sec,
                                               "settings": cfg.as_dict(), "versions": package_versions()})


# ---------------------------------------------------------------------------------------------
# §2.1 FFT solve and Algorithm 2.1 (eq. (2.5)) against dense linear algebra
# ---------------------------------------------------------------------------------------------

def dense_inverse_sqrt(A: np.ndarray) -> np.ndarray:
    """``A^{−1/2}`` of a symmetric positive definite matrix by its eigendecomposition (the dense reference)."""
    w, Q = np.linalg.eigh(A)
    return (Q / np.sqrt(w)) @ Q.T


def eq25_step(x, g, xi, A, step_size, inverse_temperature):
    """Eq. (2.5) in dense linear algebra: ``x − ηA⁻¹g + √(2η/β)A^{−1/2}ξ`` (rows of x, g, xi: chains)."""
    drift = np.linalg.solve(A, g.T).T
    return x - step_size * drift + np.sqrt(2 * step_size / inverse_temperature) * xi @ dense_inverse_sqrt(A).T


def _rel(a, b):
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


def run_operators(cfg: OperatorsSettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """FFT solves of eq. (2.1)-(2.2) and one LS-SGLD step against dense linear algebra; ``operators.csv``.

    For every (d, σ): the largest relative deviation (max-norm, over ``chains`` random vectors) of
    ``PeriodicSmoothing.apply_inverse`` from ``np.linalg.solve(A_σ, v)``, of ``apply_inverse_sqrt`` from the
    eigendecomposition's ``A_σ^{−1/2}v``, of the noise covariance the implementation applies (``S Sᵀ`` with S its
    square-root solve applied to the identity) from ``A_σ⁻¹``, and of one ``samplers.ls_sgld`` step (on a
    Gaussian-means finite sum in d dimensions, b = ``batch_size``, β = ``inverse_temperature``) from eq. (2.5)
    evaluated densely with the same minibatch indices and the same N(0, I) draws.
    """
    from sgmcmc_verify.targets import gaussian_means_target

    rng = np.random.default_rng(cfg.seed)
    rows = []
    for d in cfg.dims:
        t = gaussian_means_target(cfg.n, d, cfg.seed + d)
        for sig in cfg.sigmas:
            op = PeriodicSmoothing(sig)
            A = smoothing_matrix(d, sig)
            v = rng.standard_normal((cfg.chains, d))
            inv = _rel(op.apply_inverse(v), np.linalg.solve(A, v.T).T)
            sq = _rel(op.apply_inverse_sqrt(v), v @ dense_inverse_sqrt(A).T)
            S = op.apply_inverse_sqrt(np.eye(d))     # rows: A^{-1/2} e_j (symmetric)
            cov = _rel(S.T @ S, np.linalg.inv(A))
            smp = samplers.ls_sgld(t, cfg.step_size, sig, batch_size=cfg.batch_size,
                                   inverse_temperature=cfg.inverse_temperature)
            x0 = rng.standard_normal((cfg.chains, d))
            seed = int(rng.integers(2**31))
            st = run_chains(smp, smp.init(x0), np.random.default_rng(seed), steps=1)["state"]
            twin = np.random.default_rng(seed)
            idx = UniformMinibatch(cfg.batch_size).draw(twin, t, cfg.chains)
            g = (t.n / cfg.batch_size) * t.data_gradients(x0, idx).sum(axis=1)
            xi = twin.standard_normal((cfg.chains, d))
            step = _rel(st.position, eq25_step(x0, g, xi, A, cfg.step_size, cfg.inverse_temperature))
            rows.append({"d": d, "sigma": sig, "cond_A": float(1 + 4 * sig), "inverse_rel_err": inv,
                         "inverse_sqrt_rel_err": sq, "noise_cov_rel_err": cov, "step_rel_err": step,
                         "chains": cfg.chains, "step_size": cfg.step_size, "batch_size": cfg.batch_size})
    write_csv(Path(out_dir) / "operators.csv", rows, header_comment=(
        f"LS-SGLD eq. (2.1)-(2.2) FFT solves and one Algorithm 2.1 step vs dense linear algebra, scale={cfg.scale}: "
        "largest relative deviation in the max norm (float64)"))
