"""LS-SGLD claims decided exactly: statements against proofs (Theorems 3.3 / 3.7, Lemma C.4), §4.1.2's constants,
the FFT solve of §2.1, one step of Algorithm 2.1, the step-size enlargement (1 + 4σ)^{1/4}, and the single-mode
yardstick of Table 2 (seed ``004_8438bd4b543e0fc4.txt``).

Extractors read ``results/ls_sgld/`` (written by :mod:`sgmcmc_verify.paper_repro.ls_sgld.proofs`,
:mod:`~sgmcmc_verify.paper_repro.ls_sgld.stability` and :mod:`~sgmcmc_verify.paper_repro.ls_sgld.diagnostics`);
the rules of :mod:`sgmcmc_verify.ledger.rules` decide.
"""
from __future__ import annotations

from collections import defaultdict

from sgmcmc_verify.ledger.claims import declare
from sgmcmc_verify.ledger.extract import csv_rows, json_result
from sgmcmc_verify.ledger.measures import Compared, Estimate, Symbolic, fmt_num
from sgmcmc_verify.ledger.rules import all_of, bound, identity, readings, robust_to

from .claims_exact import P, SEED
from .mixture import PAPER_TABLE2

__all__ = ["CLAIMS", "FLOAT64_SOLVE_TOL", "ENLARGEMENT_ALLOWANCE"]

#: Relative max-norm deviation allowed between an FFT solve and a dense solve in float64: the condition number of
#: A_σ is at most 1 + 4σ = 21 on the grid, so a backward-stable solve is within ~κ·ε·log₂d ≈ 21 · 2.2e-16 · 9 ≈ 4e-14
#: of the other; 1e-12 leaves a factor 25 for the eigendecomposition of the dense square root.
FLOAT64_SOLVE_TOL = 1e-12
#: Relative round-off allowance of the exact stable-step ratios (generalized symmetric eigenproblem, ~1e-15).
ENLARGEMENT_ALLOWANCE = 1e-12


def _claim(cid, source, statement, exps, **kw):
    return declare(f"{P}.{cid}", P, f"{SEED}, {source}", statement, experiments=tuple(f"{P}.{e}" for e in exps), **kw)


def _proofs(root):
    return json_result(root, P, "proofs.json")


# ---- Theorem 3.3 / 3.7 statements vs proofs --------------------------------------------------------------

def _thm33(root) -> dict:
    j = _proofs(root)["thm33"]
    return {"(3.1) vs its proof (Lemmas B.1 + B.2)": Symbolic(j["statement_vs_proof"]["residual"]),
            "(3.2) vs the proof at γ₁ = γ₂ = c₀ = 1": Symbolic(j["corollary_vs_proof_at_one"]["residual"]),
            "(3.1) at γ₁ = γ₂ = c₀ = 1 vs (3.2)": Symbolic(j["statement_at_one_vs_corollary"]["residual"])}


def _thm33_note(root) -> str:
    j = _proofs(root)["thm33"]
    r = j["statement_vs_proof"]["ratios"]
    return (f"term by term, (3.1) / (Lemma B.2's terms) = {r[0]}, {r[1]}, {r[2]} (stochastic gradient, integrator, "
            f"ergodicity): the statement has beta where Lemma B.2 and Corollary 3.5 have 1 and 1/beta; (3.2) / (the "
            f"proof at gamma = c0 = 1) = {', '.join(j['corollary_vs_proof_at_one']['ratios'])}, so Corollary 3.5 "
            "follows the proof, not the statement; at beta = 1 (every experiment of the paper) the three agree")


def _thm37(root) -> dict:
    j = _proofs(root)["thm37"]
    return {"(3.3) vs Lemma B.3 + Lemma B.1": Symbolic(j["statement_vs_lemma"]["residual"]),
            "(3.3) vs its proof as printed": Symbolic(j["statement_vs_proof_text"]["residual"]),
            "its proof as printed vs Lemma B.3": Symbolic(j["proof_text_vs_lemma"]["residual"])}


def _thm37_note(root) -> str:
    j = _proofs(root)["thm37"]
    b = j["brackets"]
    return ("the bracket X of Gammabar (K eta)^(1/2) [X^(1/2) + X^(1/4)]: " + "; ".join(f"{k}: {v}" for k, v in b.items())
            + " — (3.3) has B where the proof and Lemma B.3 have 2B, and Lemma B.3 has a factor beta on the integrator "
              "term that (3.3) and the proof drop; the versions agree only at beta = 1 and B -> infinity")


# ---- Lemma C.4 -------------------------------------------------------------------------------------------

def _c4(root) -> dict:
    j = _proofs(root)["lemma_c4"]
    return {"one-step expansion of E||x_k+1||_A^2 (Appendix D.3)": Symbolic(j["one_step_residual"]),
            "fixed point of (D.2) within the bound, at the lemma's largest step, on the §4.1.2 constants": {
                f"σ = {fmt_num(m['sigma'])}, step condition {reading}": Estimate(m[reading]["ratio_to_bound"])
                for m in j["mixture"] for reading in ("as printed (b/G)", "as the last step needs (b/G^2)")}}


def _c4_note(root) -> str:
    j = _proofs(root)["lemma_c4"]
    m = j["mixture"][0]
    return (f"(D.2) has the fixed point {j['fixed_point']}; its excess over the bound is {j['excess']}, so the bound "
            f"needs eta <= {j['step_condition_needed']} — the proof prints eta <= {j['step_condition_printed']} "
            f"(dimensionally different; not sufficient when G > 1). On the §4.1.2 constants (m = {fmt_num(m['m'])}, "
            f"b = {fmt_num(m['b'])}, M = {fmt_num(m['M'])}, G = {fmt_num(m['G'])}) the condition eta <= m/(2M^2) = "
            f"{fmt_num(m['as printed (b/G)']['eta_max'])} binds first, so both readings give the same step")


# ---- §4.1.2 constants ------------------------------------------------------------------------------------

def _nonconvex(root) -> dict:
    s = _proofs(root)["sec4_1_2"]
    return {"sufficient (f_i nonconvex whenever ||a_i|| > 3/2)": Estimate(s["min_eigenvalue_at_printed"]),
            "threshold (f_i nonconvex exactly when ||a_i|| > 3/2)": Compared(Estimate(s["threshold_value"]),
                                                                              Estimate(s["threshold_printed"]))}


def _nonconvex_note(root) -> str:
    s = _proofs(root)["sec4_1_2"]
    return (f"grad^2 f_i = I - kappa(t) a a^T, kappa = {s['kappa']}, max kappa = {s['kappa_max']}: the smallest "
            f"eigenvalue over x is {s['min_eigenvalue']} (r = ||a_i||), so f_i is nonconvex exactly when ||a_i|| > "
            f"{s['threshold_exact']}; {100 * s['fraction_centers_nonconvex']:.1f} % of the drawn a_i (and "
            f"{100 * s['fraction_centers_above_printed']:.1f} % above 3/2)")


def _dissipative(root) -> dict:
    d = _proofs(root)["sec4_1_2"]["dissipativity"]
    return {f"{k} gradient": Estimate(v["min_margin"]) for k, v in d.items()}


def _dissipative_note(root) -> str:
    s = _proofs(root)["sec4_1_2"]
    g = s["grid"]
    return (f"smallest margin over ||a|| in [{fmt_num(g['norm_a'][0])}, {fmt_num(g['norm_a'][1])}], x = s a/||a|| + u "
            f"a_perp, |s|, |u| <= {fmt_num(g['coord_max'])} ({g['points']} points per axis); margin = "
            "(|s| - ||a||)^2/2 + u^2/2 + (|t| - t(1 - w)) >= 0 term by term, tight (-> 0) as s = -||a|| -> -infinity, "
            "so m = 1/2 cannot be kept with a smaller b")


# ---- §2.1 FFT solve, Algorithm 2.1 ------------------------------------------------------------------------

def _ops(root, cols) -> dict:
    rows = csv_rows(root, P, "operators.csv")
    return {name: {f"d = {int(r['d'])}, σ = {fmt_num(r['sigma'])}": Estimate(r[col]) for r in rows}
            for name, col in cols.items()}


def _fft(root):
    return _ops(root, {"A_σ⁻¹v (eq. (2.2))": "inverse_rel_err", "A_σ^(-1/2)v (Lemma 2.5)": "inverse_sqrt_rel_err"})


def _step(root):
    return _ops(root, {"one step of samplers.ls_sgld vs eq. (2.5), same draws": "step_rel_err",
                       "the step's noise covariance vs (2η/β) A_σ⁻¹": "noise_cov_rel_err"})


def _ops_regression(cols):
    def f(root):
        rows = csv_rows(root, P, "operators.csv")
        n = len(rows) * len(cols)
        ok = sum(float(r[c]) <= FLOAT64_SOLVE_TOL for r in rows for c in cols)
        return {"cases": (float(n), 0.0), "cases within FLOAT64_SOLVE_TOL": (float(ok), 0.0)}
    return f


# ---- the step-size enlargement ----------------------------------------------------------------------------

def _enlargement(root) -> dict:
    """``{family: {σ: smallest over the family's draws of (η*_A/η*_I) / (1 + 4σ)^{1/4}}}`` (exact numbers)."""
    out = defaultdict(dict)
    for r in csv_rows(root, P, "stability.csv"):
        k = f"σ = {fmt_num(r['sigma'])}"
        v = float(r["enlargement_over_paper"])
        cur = out[r["family"]].get(k)
        out[r["family"]][k] = Estimate(v if cur is None else min(v, cur.value))
    return dict(out)


def _enlargement_note(root) -> str:
    rows = csv_rows(root, P, "stability.csv")
    worst = max(max(r["rho_below"] for r in rows), 0.0)
    parts = []
    for fam in dict.fromkeys(r["family"] for r in rows):
        rr = [r for r in rows if r["family"] == fam]
        parts.append(f"{fam} ({'shares' if str(rr[0]['shares_eigenvectors']) in ('True', '1', '1.0') else 'does not share'}"
                     f" A's eigenvectors): enlargement {fmt_num(min(r['enlargement'] for r in rr))}-"
                     f"{fmt_num(max(r['enlargement'] for r in rr))}")
    return ("; ".join(parts) + f"; cross-check: spectral radius of I - eta A^-1 H just below the limit <= {worst:.7f}, "
            f"just above >= {min(r['rho_above'] for r in rows):.7f}")


def _enlargement_regression(root):
    return {f"{fam} {k}": (e.value, 0.0) for fam, d in _enlargement(root).items() for k, e in d.items()}


# ---- Table 2's printed cells against the single-mode yardstick --------------------------------------------

def _single_mode(root) -> dict:
    j = json_result(root, P, "single_mode_w2.json")
    reach = max(j["w2_major_only"], j["w2_minor_only"]) + j["floor"]
    return {f"{name}, {N:,} iterations": Compared(Estimate(v), Estimate(reach)) for (name, N), v in PAPER_TABLE2.items()}


def _single_mode_note(root) -> str:
    j = json_result(root, P, "single_mode_w2.json")
    return (f"W2 from exact draws of the mixture to exact draws of its major mode alone {fmt_num(j['w2_major_only'])}, "
            f"of its minor mode alone {fmt_num(j['w2_minor_only'])} (major weight {fmt_num(j['major_weight'])}), "
            f"exact-vs-exact floor {fmt_num(j['floor'])}, {int(j['points']):,} points each")


def _single_mode_regression(root):
    j = json_result(root, P, "single_mode_w2.json")
    return {k: (float(j[k]), 0.0) for k in ("w2_major_only", "w2_minor_only", "floor")}


CLAIMS = [
    _claim("thm3.3.statement_matches_proof", "Theorem 3.3 (3.1), Lemma B.2, proof of Theorem 3.3 (Appendix B.1), "
           "Corollary 3.5 (3.2)",
           "The bound (3.1) is what the proof assembles from Lemmas B.1 and B.2, and Corollary 3.5 is (3.1) with "
           "gamma1 = gamma2 = c0 = 1.", ("proofs",), measure=_thm33,
           rule=all_of({k: identity(0.0, quantity="symbolic residual") for k in (
               "(3.1) vs its proof (Lemmas B.1 + B.2)", "(3.2) vs the proof at γ₁ = γ₂ = c₀ = 1",
               "(3.1) at γ₁ = γ₂ = c₀ = 1 vs (3.2)")}),
           expected="each pair of bounds (sympy, every symbol positive) has a symbolic residual 0",
           why="exact (sympy simplify)", note=_thm33_note),
    _claim("thm3.7.statement_matches_proof", "Theorem 3.7 (3.3), Lemma B.3, proof of Theorem 3.7 (Appendix B.2)",
           "The bound (3.3) is what the proof assembles from Lemmas B.1 and B.3.", ("proofs",), measure=_thm37,
           rule=all_of({k: identity(0.0, quantity="symbolic residual") for k in (
               "(3.3) vs Lemma B.3 + Lemma B.1", "(3.3) vs its proof as printed", "its proof as printed vs Lemma B.3")}),
           expected="each pair of bounds (sympy, every symbol positive) has a symbolic residual 0",
           why="exact (sympy simplify)", note=_thm37_note),
    _claim("lemmaC.4.second_moment_bound", "Lemma C.4, its proof (Appendix D.3, (D.2))",
           "E||x_k||^2 <= E||x_k||_A^2 <= 2(2b + d/beta)/(c1 m) for every k, from x_0 = 0, under the proof's step "
           "condition eta <= m/(2M^2) and eta <= 1/(c1 m) and b/G.", ("proofs",), measure=_c4,
           rule=all_of({"one-step expansion of E||x_k+1||_A^2 (Appendix D.3)": identity(0.0, quantity="symbolic residual"),
                        "fixed point of (D.2) within the bound, at the lemma's largest step, on the §4.1.2 constants":
                            all_of(each=bound(le=1.0, quantity="fixed point of (D.2) / the lemma's bound"),
                                   axis="σ and step condition")}),
           expected="the one-step expansion has residual 0 (sympy, d = {sympy_dim}); the fixed point of (D.2) at the "
                    "largest admissible step is at most the bound for sigma in {sigmas} (the §4.1.2 mixture, n = {n})",
           why="exact (sympy; float64 ratios of closed forms)", note=_c4_note),
    _claim("sec4.1.2.nonconvexity", "Section 4.1.2",
           "If ||a_i|| > 3/2 the function f_i is nonconvex.", ("proofs",), measure=_nonconvex,
           rule=readings({"sufficient (f_i nonconvex whenever ||a_i|| > 3/2)":
                          bound(le=0.0, strict=True, quantity="smallest Hessian eigenvalue of f_i over x at ||a_i|| = 3/2"),
                          "threshold (f_i nonconvex exactly when ||a_i|| > 3/2)":
                          identity(quantity="the ||a_i|| above which f_i is nonconvex")}),
           expected="read as a sufficient condition: the smallest eigenvalue of the Hessian of f_i over x is < 0 at "
                    "||a_i|| = 3/2; read as the threshold: the exact threshold (sympy) equals 3/2",
           why="exact (sympy)", note=_nonconvex_note),
    _claim("sec4.1.2.dissipativity", "Section 4.1.2, Assumption 1",
           "<grad f_i(x), x> >= ||x||^2/2 - ||a_i||^2/2: f_i (and f) is dissipative with m = 1/2, b = ||a_i||^2/2.",
           ("proofs",), measure=_dissipative,
           rule=all_of(each=bound(ge=0.0, quantity="smallest margin <grad f_i(x), x> - (||x||^2 - ||a_i||^2)/2"),
                       axis="gradient"),
           expected="the margin is >= 0 at every point of a grid over ||a_i|| in [{norm_min}, {norm_max}] and x "
                    "(|coordinates| <= {coord_max}, {grid_points} points per axis), for the gradient of the printed f_i "
                    "and for the printed gradient",
           why="float64 evaluation of a sum of non-negative terms (no cancellation)", note=_dissipative_note),
    _claim("sec2.1.fft_solve", "Section 2.1, eqs. (2.1)-(2.2), Lemma 2.5",
           "A_sigma^-1 v (and A_sigma^-1/2 v) is computed by FFT: ifft(fft(v) / (1 - sigma fft(d))).", ("operators",),
           measure=_fft, rule=all_of(each=identity(0.0, tol=FLOAT64_SOLVE_TOL, relative=False,
                                                    quantity="relative max-norm deviation from the dense solve"),
                                      axis="operator"),
           expected="FFT solves within {FLOAT64_SOLVE_TOL} (relative, max norm) of dense solves (np.linalg.solve; the "
                    "eigendecomposition's square root) for d in {dims}, sigma in {sigmas}, {chains} random vectors"
                    .replace("{FLOAT64_SOLVE_TOL}", f"{FLOAT64_SOLVE_TOL:g}"),
           why="float64: cond(A_sigma) <= 1 + 4 sigma; see FLOAT64_SOLVE_TOL", about="toolkit",
           regression=_ops_regression(("inverse_rel_err", "inverse_sqrt_rel_err"))),
    _claim("alg2.1.one_step", "Algorithm 2.1, eq. (2.5)",
           "One LS-SGLD step is x' = x - eta A_sigma^-1 g + sqrt(2 eta/beta) A_sigma^-1/2 eps with a uniform minibatch "
           "gradient g.", ("operators",), measure=_step,
           rule=all_of(each=identity(0.0, tol=FLOAT64_SOLVE_TOL, relative=False,
                                     quantity="relative max-norm deviation from eq. (2.5) in dense linear algebra"),
                       axis="part"),
           expected="samplers.ls_sgld's step equals eq. (2.5) evaluated densely with the same minibatch and the same "
                    "N(0, I) draws, and its noise covariance equals (2 eta/beta) A_sigma^-1, within "
                    f"{FLOAT64_SOLVE_TOL:g} (relative, max norm), for d in {{dims}}, sigma in {{sigmas}}, b = "
                    "{batch_size}, beta = {inverse_temperature}",
           why="float64; see FLOAT64_SOLVE_TOL", about="toolkit", regression=_ops_regression(("step_rel_err", "noise_cov_rel_err"))),
    _claim("sec4.1.1.step_enlargement", "Section 2 ([33]'s LS-SGD step), Section 4.1.1 (Fig. 1(c)-(d)), Sections 4.2-4.3",
           "The smoothed recursion is stable at step sizes enlarged by (1 + 4 sigma)^(1/4) (used for Figs 1(d), 4, 5).",
           ("stability",), measure=_enlargement,
           rule=robust_to("Hessian family", all_of(each=bound(ge=1.0, allowance=ENLARGEMENT_ALLOWANCE,
                                                              quantity="(stable step of LS / stable step of plain) / "
                                                                       "(1 + 4 sigma)^(1/4), smallest over draws"),
                                                   axis="σ")),
           expected="for each Hessian family (quadratic targets, d = {dim}, stiffness {stiffness}, {draws} draws of the "
                    "random families) and sigma in {sigmas}: the exact stable-step limit 2/lambda_max(A^-1 H) of the "
                    "smoothed recursion is at least (1 + 4 sigma)^(1/4) times that of the plain one, 2/lambda_max(H)",
           why="exact (generalized symmetric eigenproblem; cross-checked by the spectral radius of I - eta A^-1 H)",
           design="the Hessian families (the text states the enlargement for an L-smooth f in general)",
           note=_enlargement_note, regression=_enlargement_regression),
    _claim("table2.printed_within_single_mode_range", "Table 2",
           "Table 2's printed W2 values are distances a window of samples of the §4.1.2 mixture can have from the MH "
           "samples.", ("single_mode",), measure=_single_mode,
           rule=all_of(each=bound(le="reference", quantity="printed W2"), axis="cell"),
           expected="every printed cell at most the W2 from the mixture to its farther mode alone plus the "
                    "exact-vs-exact floor ({points} points each): the largest W2 a window lying wholly in one mode "
                    "reaches",
           why="the yardstick is one exact-draw computation with a fixed seed; the floor is added to it so that the "
               "estimator's own bias cannot make a printed cell fail",
           design="the yardstick (a window wholly in one mode; the paper gives no such bound)",
           note=_single_mode_note, regression=_single_mode_regression),
]
