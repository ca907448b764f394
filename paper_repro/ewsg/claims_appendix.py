"""EWSG's appendix algorithms (seed ``000_8e0377c44e2ea3b8.txt``): Appendix E (overdamped EWSG), Appendix F (EWSG-VR,
Figs 4 and 5), Appendix D / G.3 (minibatch EWSG).

Extractors read ``results/ewsg/`` (``ewsg.appE``, ``ewsg.fig4``, ``ewsg.fig4_n20``, ``ewsg.fig5``, ``ewsg.appD``) and
return measurements; the rules of :mod:`sgmcmc_verify.ledger.rules` decide.

EWSG-VR's Fig. 4 claims are decided at both texts' §5.1 size (n = 50 in the journal, n = 20 in the conference
text; ``robust_to("n", ...)``), and under both readings of the x of its index chain (``readings``): a run that
diverges is a measured count of diverged runs, which fails the claim's "no divergence" part.
"""
from __future__ import annotations

import math

from sgmcmc_verify.ledger.extract import csv_rows, data_used, json_result, settings
from sgmcmc_verify.ledger.measures import Compared, Estimate, NotAtScale, OnData, Unmeasured, fmt_num
from sgmcmc_verify.ledger.rules import all_of, bound, ordering, readings, robust_to

from .claims_fig1 import P, claim
from .extract import last_checkpoints

__all__ = ["CLAIMS", "FIG4_FILES", "settle_passes_fig5", "FIG5_PAPER_DATA", "HUNDREDS"]

#: Fig. 4's results per §5.1 size: the journal's n = 50 (``ewsg.fig4``) and the conference text's n = 20.
FIG4_FILES = {"n = 50 (journal)": ("fig4", "ewsg.fig4"), "n = 20 (conference text)": ("fig4_n20", "ewsg.fig4_n20")}
#: The readings of EWSG-VR's x (``x_friction`` of Fig4Settings): x from γ as eq. (6) prints it, or from Γ_k.
X_READINGS = ("base", "step")
#: Fig. 5's data sets in the paper (parkinsons, pima from UCI).
FIG5_PAPER_DATA = ("parkinsons", "pima")
#: "tens of data passes" vs "hundreds": the boundary between the two.
HUNDREDS = 100.0
_SETTLE_WHY = ("a statistic has settled at the first checkpoint after which it stays within max(4 w, 5% of its total "
               "change) of its plateau (its mean over the second half of the run; w its s.d. there)")


def _csv(root, name):
    return csv_rows(root, P, name)


def _json(root, name):
    return json_result(root, P, name)


def _kl(rows, reals):
    return {k: Estimate(r["kl"], r["kl_se"], n=reals) for k, r in last_checkpoints(rows).items()}


def _appE(root):
    est = _kl(_csv(root, "appE.csv"), settings(root, f"{P}.appE")["realizations"])
    return {lab: {"EWSG-LD": est[lab], "SGLD": est["SGLD"]} for lab in sorted(est) if lab.startswith("EWSG-LD")}


def _appendix_regression(name):
    def f(root):
        return {k: (r["kl"], r["kl_se"]) for k, r in last_checkpoints(_csv(root, name)).items()}
    return f


def _fig4_per_h(root, file, exp, h):
    """Per reading of x at step size ``h``: the diverged runs of EWSG-VR (a count) and the KL of EWSG-VR vs EWSG."""
    js = _json(root, f"{file}.json")
    est = _kl(_csv(root, f"{file}.csv"), settings(root, exp)["realizations"])
    g = f"h={h:g}"
    out = {}
    for xf in X_READINGS:
        m = f"EWSG-VR ({xf})"
        div = [r for r in js["runs"] if r["step_size"] == h and r["method"] == m and r["diverged"]]
        a, b = f"{m} {g}", f"EWSG {g}"
        kl = {"EWSG-VR": est[a], "EWSG": est[b]} if a in est and b in est else Unmeasured(
            f"{m} diverged at h = {fmt_num(h)}", "a step size at which EWSG-VR is stable", "grid")
        out[xf] = {"no divergence": Estimate(len(div)), "KL": kl}
    return out


_VR_RULE = readings(each=all_of({"no divergence": bound(le=0.0, quantity="EWSG-VR runs that diverged"),
                                 "KL": ordering("EWSG-VR", "EWSG", quantity="KL")}), names=X_READINGS)


def _present(root):
    from sgmcmc_verify.ledger.extract import result
    return {k: v for k, v in FIG4_FILES.items() if result(root, P, f"{v[0]}.json").exists()}


def _fig4_paper_h(root):
    return {n: _fig4_per_h(root, f, e, _json(root, f"{f}.json")["paper_step_size"]) for n, (f, e) in _present(root).items()}


def _fig4_note(root):
    parts = []
    for n, (f, _) in _present(root).items():
        js = _json(root, f"{f}.json")
        st = next(s for s in js["stability"] if s["step_size"] == js["paper_step_size"])
        parts.append(f"{n}: at h = {fmt_num(js['paper_step_size'])} h·λmax(Γ) = {fmt_num(st['h_times_max_friction'])}, "
                     f"spectral radius of EWSG-VR's linear recursion {fmt_num(st['spectral_radius_ewsg_vr'])} (SGHMC "
                     f"{fmt_num(st['spectral_radius_sghmc'])}; > 1 diverges)")
    return "; ".join(parts)


def _fig4_smaller_h(root):
    out = {}
    for n, (f, e) in _present(root).items():
        js = _json(root, f"{f}.json")
        out[n] = {f"h = {fmt_num(h)}": _fig4_per_h(root, f, e, h)
                  for h in js["settings"]["step_sizes"] if h != js["paper_step_size"]}
    return out


def _reach(rows, label, level):
    """First pass after which KL stays <= level, or None."""
    rr = sorted((r for r in rows if r["label"] == label), key=lambda r: r["passes"])
    for i, r in enumerate(rr):
        if all(x["kl"] <= level for x in rr[i:]):
            return r["passes"]
    return None


def _fig4_faster(root):
    out = {}
    for n, (f, _e) in _present(root).items():
        js, rows = _json(root, f"{f}.json"), _csv(root, f"{f}.csv")
        fin = last_checkpoints(rows)
        budget = js["settings"]["passes"] + js["settings"]["checkpoint_every"]
        per_h = {}
        for h in js["settings"]["step_sizes"]:
            g = f"h={h:g}"
            per_x = {}
            for xf in X_READINGS:
                a = f"EWSG-VR ({xf}) {g}"
                if a not in fin:   # diverged: it never reaches any level; FG's time is read at EWSG's final KL
                    level = 2.0 * fin[f"EWSG {g}"]["kl"]
                    tf = _reach(rows, f"FG {g}", level)
                    per_x[xf] = Compared(Estimate(budget), Estimate(tf if tf is not None else budget))
                    continue
                level = 2.0 * fin[a]["kl"]
                ta, tf = _reach(rows, a, level), _reach(rows, f"FG {g}", level)
                # FG never reaching the level within the budget: its time is at least the budget plus one checkpoint
                per_x[xf] = Compared(Estimate(ta if ta is not None else budget), Estimate(tf if tf is not None else budget))
            per_h[f"h = {fmt_num(h)}"] = per_x
        out[n] = per_h
    return out


def _fig4_regression(root):
    return {f"h={s['step_size']:g}": (s["spectral_radius_ewsg_vr"], 0.0) for s in _json(root, "fig4.json")["stability"]}


def _fig5_final(rows, ds, method):
    return max((r for r in rows if r["dataset"] == ds and r["method"] == method), key=lambda r: r["passes"])


def _fig5_datasets(root):
    used = {u.name: u for u in data_used(root, f"{P}.fig5")}
    return used


def _fig5_closer(near, far):
    def measure(root):
        rows, js = _csv(root, "fig5.csv"), _json(root, "fig5.json")
        used = _fig5_datasets(root)
        n = settings(root, f"{P}.fig5")["chains"]
        out = {}
        for ds in js["datasets"]:
            fg = _fig5_final(rows, ds, "FG")
            variants = sorted({r["method"] for r in rows if r["dataset"] == ds
                               and (r["method"] == near or r["method"].startswith(near + " "))})
            per = {}
            for m in variants:
                a, b = _fig5_final(rows, ds, m), _fig5_final(rows, ds, far)
                per[m] = {stat: {near: Estimate(abs(a[stat] - fg[stat]), math.hypot(a[stat + "_se"], fg[stat + "_se"]), n=n),
                                 far: Estimate(abs(b[stat] - fg[stat]), math.hypot(b[stat + "_se"], fg[stat + "_se"]), n=n)}
                          for stat in ("mean", "sd")}
            out[ds] = OnData(per, (used[ds],) if ds in used else tuple(used.values()), FIG5_PAPER_DATA)
        return out
    return measure


def _fig5_regression(root):
    rows, js = _csv(root, "fig5.csv"), _json(root, "fig5.json")
    out = {}
    for ds in js["datasets"]:
        for m in sorted({r["method"] for r in rows if r["dataset"] == ds}):
            f = _fig5_final(rows, ds, m)
            out[f"{ds}|{m}|mean"] = (f["mean"], f["mean_se"])
            out[f"{ds}|{m}|sd"] = (f["sd"], f["sd_se"])
    return out


def settle_passes_fig5(rows, ds, method) -> float:
    """Passes after which both statistics of ``method`` on ``ds`` stay in their plateau band (see ``_SETTLE_WHY``)."""
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


def _fig5_tens(root):
    rows, js = _csv(root, "fig5.csv"), _json(root, "fig5.json")
    s = settings(root, f"{P}.fig5")
    used = _fig5_datasets(root)
    out = {}
    for ds in js["datasets"]:
        methods = sorted({r["method"] for r in rows if r["dataset"] == ds})
        sg = {m: Estimate(settle_passes_fig5(rows, ds, m)) for m in methods if m != "FG"}
        fg = (Estimate(settle_passes_fig5(rows, ds, "FG")) if s["fg_passes"] >= HUNDREDS else NotAtScale(
            f"FG runs {fmt_num(s['fg_passes'])} passes at this scale, fewer than the {HUNDREDS:g} it would need to show "
            "'hundreds'"))
        out[ds] = OnData({"SG methods: tens": sg, "FG: hundreds": fg}, (used[ds],) if ds in used else tuple(used.values()),
                         FIG5_PAPER_DATA)
    return out


def _fig5_vr_slower(root):
    rows, js = _csv(root, "fig5.csv"), _json(root, "fig5.json")
    used = _fig5_datasets(root)
    out = {}
    for ds in js["datasets"]:
        te = settle_passes_fig5(rows, ds, "EWSG")
        out[ds] = OnData({m: Compared(Estimate(settle_passes_fig5(rows, ds, m)), Estimate(te))
                          for m in sorted({r["method"] for r in rows if r["dataset"] == ds and r["method"].startswith("EWSG-VR")})},
                         (used[ds],) if ds in used else tuple(used.values()), FIG5_PAPER_DATA)
    return out


def _appD(far, skip_b1):
    def measure(root):
        rows = _csv(root, "appD.csv")
        fin, reals = last_checkpoints(rows), settings(root, f"{P}.appD")["realizations"]
        out = {}
        for g in sorted({r["group"] for r in fin.values()}, key=lambda s: int(s.split("=")[1])):
            if skip_b1 and g == "b=1":
                continue   # b = 1 is Fig. 1a's claim; Appendix D is about b > 1
            e = next(r for r in fin.values() if r["group"] == g and r["method"] == "EWSG(b)")
            s = next(r for r in fin.values() if r["group"] == g and r["method"] == far)
            out[g.replace("=", " = ")] = {"EWSG(b)": Estimate(e["kl"], e["kl_se"], n=reals),
                                          far: Estimate(s["kl"], s["kl_se"], n=reals)}
        return out
    return measure


_SETTLED = ("fig5",)

CLAIMS = [
    claim("appE.more_accurate_than_sgld", "Appendix E; §4.2 ('Sec. E shows how EWSG can be applied to Langevin Monte "
          "Carlo'; its weights approximate the full-gradient kernel)",
          "EWSG applied to overdamped Langevin is more accurate than its uniform counterpart SGLD.", ("appE",),
          measure=_appE, rule=robust_to("choice of x", ordering("EWSG-LD", "SGLD", quantity="KL")),
          expected="KL(overdamped EWSG) < KL(SGLD) after {passes} passes ({realizations} realizations), h = 5e-3, "
                   "M = {index_chain_length}, for x = 0 and x = 1", design="x of overdamped EWSG (the text gives none)",
          figure="ewsg/appE.png", regression=_appendix_regression("appE.csv")),
    claim("fig4.ewsg_vr_most_accurate", "Appendix F, Fig. 4 (L = 1, h and γ as EWSG: h = 0.05, γ = 10); §5.1 at both "
          "texts' n", "EWSG-VR further reduces variance and achieves better statistical accuracy (KL) than EWSG.",
          ("fig4", "fig4_n20"), measure=_fig4_paper_h, rule=robust_to("n", _VR_RULE),
          expected="at h = {paper_step_size}: no EWSG-VR run diverges and KL(EWSG-VR) < KL(EWSG) after {passes} passes, "
                   "under both readings of x, at n = 50 and at n = 20",
          why="divergence is also exact (spectral radius of the linear recursion, in the note)", figure="ewsg/fig4.png",
          note=_fig4_note, regression=_fig4_regression),
    claim("fig4.ewsg_vr_most_accurate.smaller_h", "Appendix F, Fig. 4, at step sizes where EWSG-VR is stable",
          "EWSG-VR achieves better statistical accuracy (KL) than EWSG.", ("fig4", "fig4_n20"), measure=_fig4_smaller_h,
          rule=robust_to("n", robust_to("step size", _VR_RULE)),
          expected="KL(EWSG-VR) < KL(EWSG) after {passes} passes at each h of {step_sizes} below the paper's, both "
                   "readings of x, at n = 50 and n = 20", figure="ewsg/fig4.png",
          regression=_appendix_regression("fig4.csv")),
    claim("fig4.ewsg_vr_faster_than_fg", "Appendix F, Fig. 4",
          "Although EWSG-VR periodically uses the full data set, it is still significantly faster than the full-gradient "
          "version (FG).", ("fig4", "fig4_n20"), measure=_fig4_faster,
          rule=robust_to("n", robust_to("step size", readings(each=bound(le="reference", strict=True,
                                                                          quantity="passes to reach 2 x EWSG-VR's final KL"),
                                                              names=X_READINGS))),
          expected="EWSG-VR reaches twice its final KL in fewer data passes than FG (calibration passes counted; a run "
                   "not reaching it within the budget, or diverging, counts as the budget plus one checkpoint), at each h of "
                   "{step_sizes}, both readings of x, n = 50 and n = 20",
          why="checkpoint resolution (one checkpoint of the stored curves)", figure="ewsg/fig4.png"),
    claim("fig5.ewsg_closer_to_fg_than_sghmc", "Appendix F, Fig. 5 (BLR)",
          "Compared with SGHMC, EWSG produces results closer to FG (ground truth) for the posterior-predictive mean and "
          "s.d. of the test log-likelihood.", _SETTLED, measure=_fig5_closer("EWSG", "SGHMC"),
          rule=robust_to("data set", robust_to("variant", all_of(each=ordering("EWSG", "SGHMC", quantity="|x − FG|"),
                                                                 axis="statistic"))),
          expected="|EWSG − FG| < |SGHMC − FG| for the mean and the s.d. at the last checkpoint ({chains} chains), every "
                   "data set", design="the prior, split, friction and step size (Appendix F gives none)",
          figure="ewsg/fig5.png", regression=_fig5_regression),
    claim("fig5.ewsg_vr_closest", "Appendix F, Fig. 5 (BLR)",
          "With variance reduction, EWSG-VR achieves even better accuracy than EWSG for the mean and s.d. of the test "
          "log-likelihood.", _SETTLED, measure=_fig5_closer("EWSG-VR", "EWSG"),
          rule=robust_to("data set", robust_to("variant", all_of(each=ordering("EWSG-VR", "EWSG", quantity="|x − FG|"),
                                                                 axis="statistic"))),
          expected="|EWSG-VR − FG| < |EWSG − FG| for the mean and the s.d. ({chains} chains), every data set, both "
                   "readings of x", design="the prior, split, friction and step size (Appendix F gives none)",
          figure="ewsg/fig5.png"),
    claim("fig5.sg_tens_fg_hundreds", "Appendix F, Fig. 5 (BLR)",
          "Stochastic-gradient methods take tens of data passes to converge, FG hundreds.", _SETTLED, measure=_fig5_tens,
          rule=robust_to("data set", all_of({"SG methods: tens": bound(le=HUNDREDS, strict=True, quantity="passes to settle"),
                                             "FG: hundreds": bound(ge=HUNDREDS, quantity="passes to settle")})),
          expected=f"passes to settle < {HUNDREDS:g} for SGHMC, EWSG, EWSG-VR and >= {HUNDREDS:g} for FG (FG run for "
                   "{fg_passes} passes)", why=_SETTLE_WHY, design="the prior, split, friction and step size",
          figure="ewsg/fig5.png"),
    claim("fig5.ewsg_vr_slower_than_ewsg", "Appendix F, Fig. 5 (BLR)", "EWSG-VR converges slower than EWSG.", _SETTLED,
          measure=_fig5_vr_slower,
          rule=robust_to("data set", robust_to("variant", bound(ge="reference", strict=True,
                                                                quantity="passes to settle, EWSG-VR vs EWSG"))),
          expected="passes to settle of EWSG-VR > EWSG's, every data set, both readings of x", why=_SETTLE_WHY,
          design="the prior, split, friction and step size", figure="ewsg/fig5.png"),
    claim("appD.minibatch_ewsg_beats_sghmc", "Appendix D (b > 1); §5.1 setting",
          "The extension of EWSG to minibatches b > 1 keeps its advantage over uniform subsampling (SGHMC) at equal data "
          "passes.", ("appD",), measure=_appD("SGHMC(b)", True),
          rule=robust_to("minibatch size b", ordering("EWSG(b)", "SGHMC(b)", quantity="KL")),
          expected="KL(EWSG, b, M = 1) < KL(SGHMC, b) after {passes} passes for every b > 1 of {batch_sizes}",
          figure="ewsg/appD.png", regression=_appendix_regression("appD.csv")),
    claim("appG3.ewsg_beats_larger_minibatch", "Appendix G.3 / Table 3 (BNN there; the §5.1 Gaussian here)",
          "EWSG with minibatch b beats SGHMC with the larger minibatch b(M + 1), the same data per parameter update.",
          ("appD",), measure=_appD("SGHMC(b(M+1))", False),
          rule=robust_to("minibatch size b", ordering("EWSG(b)", "SGHMC(b(M+1))", quantity="KL")),
          expected="KL(EWSG, b, M = 1) < KL(SGHMC, 2b) after {passes} passes for every b of {batch_sizes}",
          figure="ewsg/appD.png"),
]
