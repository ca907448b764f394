"""vrSG-MCMC claims that had no entry before issue #25: Remark 7's λ_l, the introduction's "the same bias bound as
standard SG-MCMC", the appendix's comparison with Dubey et al.'s bounds (13)-(15), and Algorithm 1 as implemented
(seed ``002_245183f35db8d795.txt``).

Extractors read ``results/vrsg/{remark7,bias,dubey,algorithm1}.*`` (written by
:mod:`sgmcmc_verify.paper_repro.vrsg.bounds`): exact numbers (closed forms, float64 sums, sympy) and counts; the
ledger decides.
"""
from __future__ import annotations

from sgmcmc_verify.ledger.claims import declare
from sgmcmc_verify.ledger.extract import csv_rows, json_result
from sgmcmc_verify.ledger.measures import Compared, Estimate, Fit, Symbolic
from sgmcmc_verify.ledger.extract import settings as run_settings
from sgmcmc_verify.ledger.rules import all_of, bound, identity, ordering, readings, robust_to, slope_in

from .claims_identities import P, SEED

__all__ = ["CLAIMS", "REMARK7_REL_TOL", "BIAS_SLOPE_TOL", "SVRG_ROUNDOFF", "REMARK8_SLOPE_TOL"]

#: Relative agreement of two float64 evaluations of the same exact λ (sums of <= 1000 terms of O(1-10) with one
#: cancellation between ‖Σβ‖² and Σ_{i<j}: a few ulps times N); a real difference (the sign slip) is O(1) relative.
REMARK7_REL_TOL = 1e-9
#: Slope band of |stationary bias| vs h, read as an O(h) bound: the fit window hκ <= 0.01, where the second-order
#: terms are O(m h κ) = 0.1 relative at m = 10 and bend the local slopes by at most that (fixed before the run).
BIAS_SLOPE_TOL = 0.1
#: Largest position difference between vrSG-LD (n1 = N) and SVRG-LD from one random stream that is round-off: the two
#: sum the same N per-datum gradients in different orders (relative 1e-15 per step on positions of O(1-10), over a
#: few thousand contracting steps, 1e-12 leaves a factor 100 of room; a different gradient is O(h) = 1e-4 per step).
SVRG_ROUNDOFF = 1e-12
#: Remark 8's budget form carries all of the m-dependence of the noise term in (n1/m + n2), up to the O(mh) term, which
#: is at most m h κ = 0.05 relative on the grid: the normalized noise part may grow with m at most like m^0.2 over the
#: decade and a half of m before the form is contradicted (fixed before the run).
REMARK8_SLOPE_TOL = 0.2


def _claim(cid, source, statement, exps, **kw):
    return declare(f"{P}.{cid}", P, f"{SEED}, {source}", statement, experiments=exps, **kw)


# ---- Remark 7 ------------------------------------------------------------------------------------------------

def _key(r):
    return f"N={int(r['N'])} d={int(r['d'])} {r['kind']} #{int(r['population'])} n2={int(r['n2'])}"


def _remark7_vs(root):
    rows, sym = csv_rows(root, P, "remark7.csv"), json_result(root, P, "remark7.json")["symbolic"]
    return {"Theorem 6's lambda as printed, at n1 = N": {
                "symbolic residual": Symbolic(sym["remark7_minus_printed_at_N"]),
                "populations": {_key(r): Compared(Estimate(r["lambda_remark7"]), Estimate(r["lambda_printed_at_N"]))
                                for r in rows}},
            "the proof's last line N^3 (n1 - n2) Gamma / (n1 n2), at n1 = N": {
                "symbolic residual": Symbolic(sym["remark7_minus_derived_at_N"]),
                "populations": {_key(r): Compared(Estimate(r["lambda_remark7"]), Estimate(r["lambda_derived_at_N"]))
                                for r in rows}}}


_R7_SAME = all_of({"symbolic residual": identity(0.0),
                   "populations": identity(tol=REMARK7_REL_TOL, quantity="Remark 7's lambda against Theorem 6's")})


def _remark7_positive(root):
    return {_key(r): Estimate(r["lambda_remark7"]) for r in csv_rows(root, P, "remark7.csv")}


def _remark7_regression(root):
    rows = csv_rows(root, P, "remark7.csv")
    r = rows[0]
    return {"lambda_remark7 first": (r["lambda_remark7"], 0.0), "lambda_printed_at_N first": (r["lambda_printed_at_N"], 0.0),
            "min lambda_remark7": (min(x["lambda_remark7"] for x in rows), 0.0)}


# ---- the introduction's bias claim ---------------------------------------------------------------------------

def _bias_fits(root):
    """The fits of exact numbers: the "interval" is the full range of the local slopes (level 1: no sampling error)."""
    d = json_result(root, P, "bias.json")
    return {name: Fit(f["slope"], f["ci"][0], f["ci"][1], points=int(f["points"]), span=f["span"], level=1.0)
            for name, f in (("vrSG-LD", d["fits"]["vrsg"]), ("SGLD", d["fits"]["sgld"]))}


def _bias_note(root):
    d = json_result(root, P, "bias.json")
    r, c = d["paper_step_size_row"], d["check"]
    s = (f"closed form {c['closed_form']:.6g} vs the 22-monomial recursion extrapolated from L = {c['L'][0]:,} and "
         f"{c['L'][1]:,}: {c['recursion_extrapolated']:.6g}")
    if r:
        s = (f"at h = 1e-4 (hκ ≈ 0.1, the toolkit's §5 step size; the paper prints none) the stationary bias of vrSG-LD "
             f"is {r['bias_vrsg']:.4g}, SGLD's {r['bias_sgld']:.4g} (ratio {r['ratio']:.3g}); both depend on the "
             "minibatch noise at first order in h (vrSG-LD through m E ζ²(n1), SGLD through E ζ²(n2)), which Chen et "
             "al.'s bias bound leaves out; " + s)
    return s


def _bias_regression(root):
    f = json_result(root, P, "bias.json")["fits"]
    return {"slope vrsg": (f["vrsg"]["slope"], 0.0), "slope sgld": (f["sgld"]["slope"], 0.0)}


_BIAS_RULE = all_of({k: slope_in(1.0, BIAS_SLOPE_TOL, bound=True, variable="h", quantity=f"|stationary bias| of {k}")
                     for k in ("vrSG-LD", "SGLD")})


# ---- Dubey et al.'s bounds -------------------------------------------------------------------------------------

_DUBEY_DESIGN = ("the constants of (13)-(15) on the §5 model: d = 1, D = 1 + λ/N, σ² read two ways (the variance of the "
                 "per-datum gradients over the data; the bounded-gradient max_i (θ* − x_i)²); the O(·) constants of (13) "
                 "and (14) equal; the step sizes and SVRG-LD's epoch are the toolkit's")
_SIGMA_READINGS = ("σ² = variance of the per-datum gradients", "σ² = max_i ‖∇V_i(θ*)‖² (bounded gradients)")
_SIGMA_COL = {"data variance": _SIGMA_READINGS[0], "bounded gradient": _SIGMA_READINGS[1]}


def _dubey(root):
    out: dict = {}
    for r in csv_rows(root, P, "dubey.csv"):
        out.setdefault(_SIGMA_COL[r["sigma2_reading"]], {})[f"m = {int(r['m'])}, h = {r['step_size']:g}"] = Estimate(
            r["ratio_13_14"])
    return out


def _dubey_note(root):
    return ("(15)/(14) equals (13)/(14) wherever the min of (13) takes its second branch; where it takes 2σ² (large m "
            "and h), (13) is twice (14), as the appendix says")


def _dubey_regression(root):
    return {f"{rd[:12]} {k}": (v.value, 0.0) for rd, cell in _dubey(root).items() for k, v in cell.items()}


def _thm6_model(root):
    rows = csv_rows(root, P, "dubey_lambda.csv")
    return {lab: {f"anchor θ* + {r['anchor_quantile']:g}/√κ, n1 = {int(r['n1'])}": Estimate(r[col]) for r in rows
                  if r["n1"] > r["n2"]}
            for lab, col in (("Theorem 6's lambda as printed", "lambda_printed"),
                             ("the proof's last line", "lambda_derived"))}


# ---- Remark 8 ----------------------------------------------------------------------------------------------

def _remark8(root):
    d = json_result(root, P, "remark8.json")
    return {f"h = {h}": Fit(f["slope"], f["ci"][0], f["ci"][1], points=int(f["points"]), span=f["span"], level=1.0)
            for h, f in d["fits"].items()}


def _remark8_note(root):
    rows = csv_rows(root, P, "remark8.csv")
    ms = sorted({int(r["m"]) for r in rows})
    h0 = min(r["step_size"] for r in rows)
    sel = {int(r["m"]): r for r in rows if r["step_size"] == h0}
    return (f"at h = {h0:g}: the noise part over Remark 8's factor is {sel[ms[0]]['normalized']:.3g} at m = {ms[0]} and "
            f"{sel[ms[-1]]['normalized']:.3g} at m = {ms[-1]}: the anchor's error is shared by the m steps of an "
            "epoch, so the time average sees m times the per-step variance that Lemma 1 applied step by step counts")


def _remark8_regression(root):
    return {f"slope h={h}": (f["slope"], 0.0) for h, f in json_result(root, P, "remark8.json")["fits"].items()}


# ---- the appendix's "with larger n1, smaller MSEs" ------------------------------------------------------------

def _larger_n1(root):
    """``{"n1 = k": {"n1 < N": λ_exact(k), "n1 = N": λ_exact(N)}}`` from the real-chain Theorem 6 study (means over
    chains with their standard errors; the two estimates share chains, so Welch's test is conservative)."""
    rows = csv_rows(root, P, "thm6_lambda.csv")
    chains = int(run_settings(root, "vrsg.thm6")["chains"])
    N = max(int(r["n1"]) for r in rows)
    full = next(r for r in rows if int(r["n1"]) == N)
    top = Estimate(full["lambda_exact"], full["lambda_exact_se"], n=chains)
    return {f"n1 = {int(r['n1'])}": {"n1 < N": Estimate(r["lambda_exact"], r["lambda_exact_se"], n=chains),
                                     "n1 = N": top}
            for r in rows if int(r["n1"]) < N}


def _larger_n1_regression(root):
    rows = csv_rows(root, P, "thm6_lambda.csv")
    top = max(rows, key=lambda r: r["n1"])
    return {"exact n1=N": (top["lambda_exact"], top["lambda_exact_se"])}


# ---- Algorithm 1 ----------------------------------------------------------------------------------------------

def _alg1(root):
    d = json_result(root, P, "algorithm1.json")
    m = int(d["settings"]["update_interval"])
    a = d["anchor"]
    gap = max(abs(a["gap_min"] - m), abs(a["gap_max"] - m)) if a["gap_min"] is not None else m
    return {"per-step evaluations minus (2 n2 + n1 at a refresh), largest": Estimate(d["evaluations"]["max_abs_excess"]),
            "anchor changes minus refreshes at l mod m = 0": Estimate(a["changes"] - a["expected_changes"]),
            "steps between anchor changes minus m, largest": Estimate(gap),
            "first anchor change (step index)": Estimate(a["first_change"]),
            "anchor changes not at the current position": Estimate(0 if a["all_at_current_position"] else 1)}


def _alg1_svrg(root):
    s = json_result(root, P, "algorithm1.json")["svrg_equivalence"]
    return {"largest |position difference|": Estimate(s["max_abs_position_difference"]),
            "largest |evaluation difference|": Estimate(s["max_abs_evaluation_difference"])}


def _thm6_model_regression(root):
    rows = csv_rows(root, P, "dubey_lambda.csv")
    return {f"min {c}": (min(r[c] for r in rows), 0.0) for c in ("lambda_printed", "lambda_derived")}


def _remark7_min(root):
    return {"min lambda_remark7": (min(r["lambda_remark7"] for r in csv_rows(root, P, "remark7.csv")), 0.0)}


def _alg1_svrg_regression(root):
    s = json_result(root, P, "algorithm1.json")["svrg_equivalence"]
    return {"evaluation difference": (s["max_abs_evaluation_difference"], 0.0), "final position scale": (
        s["position_scale"], 0.0)}


def _alg1_regression(root):
    d = json_result(root, P, "algorithm1.json")
    return {"total evaluations": (d["evaluations"]["total"], 0.0), "anchor changes": (d["anchor"]["changes"], 0.0)}


CLAIMS = [
    _claim("remark7.lambda_is_theorem6_at_N", "Remark 7 against Theorem 6",
           "In the special case n1 = N (Dubey et al.), Theorem 6 gives lambda_l = (N/n2 - 1) sum_ij E beta_i beta_j - "
           "2N(N - n2)/(n2(N - 1)) sum_{i<j} E beta_i beta_j: Remark 7's lambda is Theorem 6's lambda at n1 = N.",
           ("vrsg.remark7",), measure=_remark7_vs,
           rule=readings({"Theorem 6's lambda as printed, at n1 = N": _R7_SAME,
                          "the proof's last line N^3 (n1 - n2) Gamma / (n1 n2), at n1 = N": _R7_SAME}),
           expected="Remark 7's lambda equal to Theorem 6's at n1 = N, in sympy (N, n2, S, D symbolic) and on every "
                    "population (N in {sizes}, d in {dims}, {populations} populations each, n2 = fractions "
                    "{n2_fractions} of N), under each reading of 'Theorem 6's lambda' (as printed; the proof's last line)",
           why=f"exact numbers: relative {REMARK7_REL_TOL:g} is float64 round-off of the sums; the sign slip is O(1)",
           regression=_remark7_regression, figure="vrsg/bounds.png"),
    _claim("remark7.lambda_positive", "Remark 7 ('According to Lemma 2, lambda_l is also positive')",
           "With n1 = N, Remark 7's lambda_l is positive (Lemma 2).", ("vrsg.remark7",), measure=_remark7_positive,
           rule=bound(ge=0.0, strict=True, quantity="Remark 7's lambda_l as printed"),
           expected="Remark 7's lambda_l (as printed) > 0 on every population and n2 < N of the Remark 7 grid",
           why="exact numbers, decided by value", regression=_remark7_min, figure="vrsg/bounds.png"),
    _claim("intro.same_bias_bound", "Introduction ('the same bias bound as standard SG-MCMC'); §5 model",
           "Unbiased gradient estimates give vrSG-MCMC the same bias bound as standard SG-MCMC (Chen, Ding and Carin "
           "2015): O(1/(Lh) + h) for a first-order integrator, i.e. a stationary bias of order h.", ("vrsg.bias",),
           measure=_bias_fits, rule=_BIAS_RULE,
           expected="the exact stationary bias of the time average of θ² on the §5 model, of vrSG-LD (n1 = {n1}, "
                    "n2 = {n2}, m = {update_interval}) and of SGLD (n = {n2}), O(h): log-log slope in h >= "
                    f"1 - {BIAS_SLOPE_TOL:g} on h <= {{fit_max_step}} (hκ <= 0.01)",
           why=f"slope band ± {BIAS_SLOPE_TOL:g} for the O(mhκ) second-order terms in the window; the interval is the "
               "range of the local slopes (exact numbers)", note=_bias_note, regression=_bias_regression, figure="vrsg/bounds.png"),
    _claim("dubey.bound13_no_improvement", "Appendix 'Discussion of the Theoretical Results of Dubey et al. 2016', "
           "eq. (13)-(15); Related work (footnote §)",
           "Dubey et al.'s MSE bound (13) for SVRG-LD does not show an improvement over SGLD's (14): with the 2σ² "
           "branch it is larger, and without it, (15), the comparison depends on the step size.", ("vrsg.dubey",),
           measure=_dubey, rule=readings(each=robust_to("setting", bound(ge=1.0, quantity="first term of (13) / first "
                                                                                "term of (14)")), names=_SIGMA_READINGS),
           expected="(13)'s first term not below (14)'s with the §5 model's constants (N = {n_data}, n = {batch_size}), "
                    "at every step size {step_sizes} and SVRG-LD epoch m in {epochs}, under each reading of σ²",
           why="exact numbers; 'does not show an improvement' read at every setting (where it holds and where it fails "
               "is the finding: the text itself says the comparison depends on the step size)",
           design=_DUBEY_DESIGN, note=_dubey_note, regression=_dubey_regression, figure="vrsg/bounds.png"),
    _claim("dubey.theorem6_improvement_on_model", "Appendix 'Discussion of ... Dubey et al. 2016' (last sentence); "
           "Theorem 6",
           "In contrast to Dubey et al.'s bound, Theorem 6 guarantees an improvement of vrSG-MCMC over the "
           "corresponding SG-MCMC: lambda_l > 0 for n1 > n2.", ("vrsg.dubey",), measure=_thm6_model,
           rule=readings(each=bound(ge=0.0, strict=True, quantity="lambda_l"),
                         names=("Theorem 6's lambda as printed", "the proof's last line")),
           expected="lambda_l > 0 on the §5 model's old gradients β_i = x_i − θ̃(1 + λ/N) at every anchor θ* + q/√κ "
                    "(q in {anchor_quantiles}) and every n1 in {n1_values} above n2 = {batch_size}, for Theorem 6's "
                    "printed lambda and for the proof's last line",
           why="exact numbers, decided by value", regression=_thm6_model_regression),
    _claim("remark8.budget_form", "Remark 8 (the budget form of Theorem 6)",
           "At a computational budget T proportional to n1/m + n2 per step, the MSE of vrSG-MCMC is "
           "O((A_M + mh - lambda_M)(n1/m + n2)/T + 1/(Lh) + h^2).", ("vrsg.remark8",), measure=_remark8,
           rule=robust_to("step size", bound(le=REMARK8_SLOPE_TOL, quantity="slope in m of the noise part over "
                                                                           "(A_M - lambda_M)(n1/m + n2)/T")),
           expected="on the §5 model at budget T = {budget} (n1 = {n1}, n2 = {n2}), the exact minibatch-noise part of "
                    "the MSE divided by Remark 8's (A_M - lambda_M)(n1/m + n2)/T does not grow with m in {update_intervals} "
                    f"(log-log slope <= {REMARK8_SLOPE_TOL:g}) at every step size {{step_sizes}} (m h κ <= 0.05)",
           why=f"{REMARK8_SLOPE_TOL:g}: room for the O(mh) term (<= 0.05 relative); the interval is the range of the "
               "local slopes (exact numbers)", note=_remark8_note, regression=_remark8_regression, figure="vrsg/bounds.png"),
    _claim("appendix.larger_n1_smaller_mse", "Appendix, proof of Theorem 6 ('with larger minibatch size n1, we can get "
           "smaller MSEs'; B_l + C_l at n1 = N)",
           "With a larger old-gradient minibatch n1 the MSE is smaller: the per-step noise term B_l + C_l is smallest at "
           "n1 = N (Dubey et al.'s full old gradient), i.e. the exact reduction lambda_l is largest there.",
           ("vrsg.thm6",), measure=_larger_n1,
           rule=all_of(each=ordering("n1 < N", "n1 = N", quantity="exact per-step reduction lambda_l"), axis="n1"),
           expected="the exact reduction lambda_l = E||dV||^2(SGLD, n2) - E||dV||^2(vrSG, n1, n2), averaged along real "
                    "vrSG-LD chains on Pima ({chains} chains, n2 = {n2}), below its value at n1 = N for every n1 < N of "
                    "{n1_grid}",
           why="Welch's t over chains at the family level (the two means share chains: conservative)",
           regression=_larger_n1_regression, figure="vrsg/thm6.png"),
    _claim("alg1.costs_and_refresh", "Algorithm 1",
           "Algorithm 1 spends 2·n2 per-datum gradients per step (the fresh minibatch at θ_l and at θ̃) plus n1 at "
           "every refresh of the old gradient, which happens at l mod m = 0 with θ̃ = θ_l.", ("vrsg.algorithm1",),
           measure=_alg1, rule=identity(0.0, tol=0.0, relative=False),
           expected="the toolkit's vrSG-LD (n1 = {n1}, n2 = {n2}, m = {update_interval}, {chains} chains, {steps} steps) "
                    "spends exactly 2 n2 + n1 [l mod m = 0] evaluations at step l and moves its anchor to the current "
                    "position exactly at l = 0, m, 2m, ...",
           why="counts: exact", regression=_alg1_regression, about="toolkit"),
    _claim("alg1.full_anchor_is_svrg_ld", "Algorithm 1 with n1 = N; Remark 7; Related work",
           "With n1 = N the old gradient is the full gradient and vrSG-MCMC is SVRG-LD (Dubey et al. 2016) with epoch m.",
           ("vrsg.algorithm1",), measure=_alg1_svrg,
           rule=identity(0.0, tol=SVRG_ROUNDOFF, relative=False),
           expected="vrSG-LD with n1 = N (without replacement) and SVRG-LD with epoch m = {update_interval} from one "
                    "random stream: the same positions (to round-off) and the same evaluations at each of {steps} steps",
           why=f"{SVRG_ROUNDOFF:g}: summation-order round-off; a different gradient would differ by O(h) per step",
           about="toolkit", regression=_alg1_svrg_regression),
]
