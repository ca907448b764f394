"""The EWSG conference text's KL-panel claims (seed ``003_19372d6d86d2623b.txt``, §5.1): Figs. 1a, 1b, 1c, the
best-M study of Figs. 1g–i, and the paragraph on M's "comparable speed with minibatch b/(M + 1)".

Extractors read ``results/ewsg_iclr/`` (written by :mod:`sgmcmc_verify.paper_repro.ewsg_iclr.kl_panels` and
:mod:`~sgmcmc_verify.paper_repro.ewsg_iclr.autocorrelation`) and return measurements; the rules of
:mod:`sgmcmc_verify.ledger.rules` decide. Every KL is the bootstrap mean over the run's independent realizations
(``n`` = realizations).
"""
from __future__ import annotations

import math

from sgmcmc_verify.ledger.measures import Estimate, NotAtScale, Unmeasured, fmt_num
from sgmcmc_verify.ledger.rules import all_of, any_of, bound, equivalent, ordering, readings, robust_to
from sgmcmc_verify.paper_repro.ewsg.extract import last_checkpoints

from .claims_common import claim, rows, setting

__all__ = ["CLAIMS", "equal_tau_comparison", "first_pass_progress", "SPEED_MARGIN", "matched_minibatch_progress",
           "PAPER_M_GRID", "PAPER_EWSG_STEP", "MIN_DRAWS", "best_m_configs", "BEST_M_READINGS"]

#: The M values the verdicts compare (the journal's Fig. 1c grid; "increases to 19" names 19, "M = 1" is the default).
PAPER_M_GRID = (0, 1, 9, 19)
#: The step size the text tunes for EWSG in §5.1 (5e-2): every claim about step sizes includes it (#24 item 5).
PAPER_EWSG_STEP = 5e-2
#: A claim about data sets in general is decided over at least this many independent data draws (#24 item 5).
MIN_DRAWS = 8
#: "Convergence speed" is read at the first checkpoint at or after this many data passes (one pass: every method has
#: had n gradient evaluations).
SPEED_PASSES = 1.0


def _kl(r, realizations) -> Estimate:
    return Estimate(r["kl"], r["kl_se"], n=realizations)


# ---- Fig. 1a ----------------------------------------------------------------------------------

def _fig1a_final(root) -> dict:
    reps = setting(root, "fig1a")["realizations"]
    return {k: _kl(r, reps) for k, r in last_checkpoints(rows(root, "fig1a.csv")).items()}


def first_pass_progress(curve, realizations, passes=SPEED_PASSES) -> Estimate:
    """The fraction of a run's KL decrease done by the first checkpoint at or after ``passes`` data passes.

    ``p = (KL_0 − KL_1) / (KL_0 − KL_T)`` with ``KL_0`` the first checkpoint, ``KL_1`` the first at or after
    ``passes``, ``KL_T`` the last: 1 for a run that has settled after one pass, small for one that descends slowly
    (and ~ passes/T for one still descending linearly). Its standard error is the delta method on the three stored
    bootstrap standard errors, taken as independent (checkpoints one relaxation time apart or more; the initial
    law is the same for every method).

    Parameters
    ----------
    curve : list of dict
        The rows of one run (``passes``, ``kl``, ``kl_se``).
    realizations : int
        Independent realizations behind each KL.

    passes : float
        Where the progress is read (default :data:`SPEED_PASSES`).

    Raises
    ------
    ValueError
        Fewer than three checkpoints, or no decrease over the run (``KL_T >= KL_0``: no convergence to measure).
    """
    rr = sorted(curve, key=lambda r: r["passes"])
    later = [r for r in rr if r["passes"] >= passes]
    if len(rr) < 3 or not later or later[0] is rr[-1]:
        raise ValueError(f"curve: need checkpoints at 0, at >= {passes:g} passes and after (got {len(rr)})")
    a, b, c = rr[0], later[0], rr[-1]
    d = a["kl"] - c["kl"]
    if not d > 0:
        raise ValueError(f"curve: KL does not decrease over the run ({fmt_num(a['kl'])} -> {fmt_num(c['kl'])})")
    p = (a["kl"] - b["kl"]) / d
    grad = ((b["kl"] - c["kl"]) / d ** 2, -1.0 / d, (a["kl"] - b["kl"]) / d ** 2)
    se = math.sqrt(sum((g * r["kl_se"]) ** 2 for g, r in zip(grad, (a, b, c))))
    return Estimate(p, se, n=realizations)


def _fig1a_progress(root) -> dict:
    rr, reps = rows(root, "fig1a.csv"), setting(root, "fig1a")["realizations"]
    return {k: first_pass_progress([r for r in rr if r["label"] == k], reps) for k in last_checkpoints(rr)}


def _ewsg_vs_sghmc_progress(root) -> dict:
    m = _fig1a_progress(root)
    return {"EWSG": m["EWSG"], "SGHMC": m["SGHMC"]}


def _final_kls(name):
    def f(root):
        return {k: (r["kl"], r["kl_se"]) for k, r in last_checkpoints(rows(root, name)).items()}
    return f


_SPEED_DESIGN = ("the text gives no measure of convergence speed; read as the fraction of each run's KL decrease over "
                 "the budget that is done after the first data pass (every method starts from the same law)")


# ---- Fig. 1b ----------------------------------------------------------------------------------

def _interp_loglog(x, xs, ys, ses):
    """log-log linear interpolation of (xs, ys) at x (xs increasing): log value, its relative s.e. and the local
    slope; None outside [xs[0], xs[-1]]."""
    for i in range(len(xs) - 1):
        if xs[i] <= x <= xs[i + 1]:
            w = math.log(x / xs[i]) / math.log(xs[i + 1] / xs[i])
            ly = (1 - w) * math.log(ys[i]) + w * math.log(ys[i + 1])
            se = math.hypot((1 - w) * ses[i] / ys[i], w * ses[i + 1] / ys[i + 1])
            slope = math.log(ys[i + 1] / ys[i]) / math.log(xs[i + 1] / xs[i])
            return ly, se, slope
    return None


def equal_tau_comparison(rows_, unit="steps") -> list[dict]:
    """EWSG's KL against SGHMC's interpolated at EWSG's τ (log-log), in ``unit`` "steps" or "evaluations".

    Returns one dict per EWSG step size inside SGHMC's τ range: ``log_ratio = log KL_SGHMC(τ) − log KL_EWSG``
    (> 0: EWSG more accurate) with an s.e. combining both KL s.e. and EWSG's τ s.e. (through the local slope of
    SGHMC's curve); its parts are ``se_kl`` (both KLs, bootstrap over realizations) and ``se_tau`` (EWSG's τ, over
    groups of chains). Both τ are emcee estimates (the same estimator for both).
    """
    key, kse = ("tau", "tau_se") if unit == "steps" else ("tau_evaluations", "tau_evaluations_se")
    sg = sorted((r for r in rows_ if r["method"] == "SGHMC"), key=lambda r: r[key])
    xs, ys, ses = [r[key] for r in sg], [r["kl"] for r in sg], [r["kl_se"] for r in sg]
    out = []
    for r in sorted((r for r in rows_ if r["method"] == "EWSG"), key=lambda r: r["step_size"]):
        hit = _interp_loglog(r[key], xs, ys, ses)
        if hit is None:
            continue
        ly, se_s, slope = hit
        se_kl = math.hypot(se_s, r["kl_se"] / r["kl"])
        se_tau = abs(slope) * r[kse] / r[key]
        out.append({"ewsg_step_size": r["step_size"], "tau": r[key], "kl_ewsg": r["kl"],
                    "kl_sghmc_at_tau": math.exp(ly), "log_ratio": ly - math.log(r["kl"]),
                    "se": math.hypot(se_kl, se_tau), "se_kl": se_kl, "se_tau": se_tau})
    return out


def _fig1b(root) -> dict:
    """``{"h = …": Estimate(log KL_SGHMC(τ) − log KL_EWSG)}`` at each EWSG step inside SGHMC's τ range (τ in steps,
    footnote 5); the degrees of freedom by Satterthwaite (the τ part has ``tau_groups − 1``); the paper's own EWSG step
    is always an entry (:class:`Unmeasured` when its τ falls outside SGHMC's range)."""
    s = setting(root, "fig1b")
    df_kl, df_tau = s["realizations"] - 1, s["tau_groups"] - 1
    out = {}
    for c in equal_tau_comparison(rows(root, "fig1b.csv"), "steps"):
        v = c["se"] ** 2
        parts = c["se_kl"] ** 4 / df_kl + (c["se_tau"] ** 4 / df_tau if df_tau > 0 else math.inf)
        df = v ** 2 / parts if parts > 0 else math.inf
        out[f"h = {fmt_num(c['ewsg_step_size'])}"] = Estimate(c["log_ratio"], c["se"], df=df) if v > 0 else \
            Estimate(c["log_ratio"])
    key = f"h = {fmt_num(PAPER_EWSG_STEP)}"
    if key not in out:
        out[key] = Unmeasured(f"EWSG's τ at the paper's h = {fmt_num(PAPER_EWSG_STEP)} lies outside SGHMC's τ range "
                              "on this grid", "an SGHMC step-size grid whose τ range covers EWSG's τ at h = 0.05",
                              "grid")
    return out


def _fig1b_note(root) -> str:
    ev = equal_tau_comparison(rows(root, "fig1b.csv"), "evaluations")
    txt = ", ".join(f"h = {fmt_num(c['ewsg_step_size'])}: {math.exp(c['log_ratio']):.2f}" for c in ev) or "no overlap"
    return ("footnote 5 counts τ in iterations (decided above); counted in gradient evaluations (EWSG spends M + 1 "
            f"per step), KL(SGHMC)/KL(EWSG) at equal τ is {txt}")


def _fig1b_metric(root):
    out = {}
    for r in rows(root, "fig1b.csv"):
        out[f"{r['method']} h={r['step_size']:g} kl"] = (r["kl"], r["kl_se"])
        out[f"{r['method']} h={r['step_size']:g} tau"] = (r["tau"], r["tau_se"])
    return out


# ---- Fig. 1c ----------------------------------------------------------------------------------

def _fig1c(root) -> dict:
    """``{"h = …": {"x = recommended": KL, "x = zero": KL, ...}}`` after the budget."""
    reps = setting(root, "fig1c")["realizations"]
    out: dict = {}
    for k, r in last_checkpoints(rows(root, "fig1c.csv")).items():
        out.setdefault(f"h = {fmt_num(r['step_size'])}", {})[k.split(",")[0]] = _kl(r, reps)
    return out


#: the alternatives of Fig. 1c: x = 0, x = 1, and (−1 + hγ) r_k/(σ√h) (r_(k+1) = 0), as the runs label them
_X_OTHERS = ("x = zero", "x = one", "x = momentum_reset")


# ---- Figs. 1g–i -------------------------------------------------------------------------------

def best_m_configs(root) -> dict:
    """``{(n, data seed, h): {M: row}}`` of the best-M study (``best_m.csv``)."""
    out: dict = {}
    for r in rows(root, "best_m.csv"):
        out.setdefault((int(r["n_data"]), int(r["data_seed"]), float(r["step_size"])), {})[
            int(r["index_chain_length"])] = r
    return out


def _draw_key(seed, draws) -> str:
    return f"draw {draws.index(seed) + 1}"


#: the two readings of "the M that gives the best final accuracy": the text does not print the M grid of Figs. 1g–h
BEST_M_READINGS = ("on the journal's grid {0, 1, 9, 19}", "on the study's whole M grid")


def _best_m_19(n):
    """Per data draw and step size, under each reading of "best": at ``n``, M = 19 against every other M of the
    reading's grid; at n = 20 (the text's §5.1 size, from which the best M "increases"), every smaller M of
    :data:`PAPER_M_GRID` against M = 19."""
    def measure(root):
        s = setting(root, "fig1ghi")
        if n not in s["n_values"]:
            return NotAtScale(f"the best-M study runs n = {', '.join(str(x) for x in s['n_values'])} at this scale",
                              f"run --scale default (n = {n})")
        cfg, reps, draws = best_m_configs(root), s["realizations"], list(s["data_seeds"])
        grids = dict(zip(BEST_M_READINGS, (PAPER_M_GRID, tuple(s["index_chain_lengths"]))))
        out: dict = {}
        for (nn, seed, h), by_m in sorted(cfg.items()):
            if nn != n:
                continue
            small = cfg[(20, seed, h)]
            at_20 = {f"M = {m}": {"smaller M": _kl(small[m], reps), "M = 19": _kl(small[19], reps)}
                     for m in PAPER_M_GRID if m < 19}
            for reading, grid in grids.items():
                at_n = {f"M = {m}": {"M = 19": _kl(by_m[19], reps), "other M": _kl(by_m[m], reps)}
                        for m in grid if m != 19}
                out.setdefault(reading, {}).setdefault(_draw_key(seed, draws), {})[f"h = {fmt_num(h)}"] = {
                    f"n = {n}: M = 19 best": at_n, "n = 20: a smaller M better than M = 19": at_20}
        return out
    return measure


def _best_m_rule(n):
    one = robust_to("data draw", robust_to("step size", all_of({
        f"n = {n}: M = 19 best": all_of(each=ordering("M = 19", "other M", quantity=f"KL after the budget at n = {n}"),
                                        axis="other M"),
        "n = 20: a smaller M better than M = 19": any_of(each=ordering("smaller M", "M = 19", quantity="KL at n = 20"),
                                                         axis="smaller M")})), min_values=MIN_DRAWS)
    return readings(each=one, names=BEST_M_READINGS)


def _m_advantage(by_m, reps) -> Estimate:
    """log KL(M = 19) − log KL(M = 1): < 0 where the longer index chain is the more accurate (delta-method s.e.)."""
    a, b = by_m[19], by_m[1]
    return Estimate(math.log(a["kl"]) - math.log(b["kl"]), math.hypot(a["kl_se"] / a["kl"], b["kl_se"] / b["kl"]),
                    n=reps)


def _best_m_grows(root) -> dict:
    s = setting(root, "fig1ghi")
    cfg, reps, draws = best_m_configs(root), s["realizations"], list(s["data_seeds"])
    ns = sorted({k[0] for k in cfg})
    out: dict = {}
    for (n, seed, h), _ in sorted(cfg.items()):
        if n != ns[0]:
            continue
        pairs = {f"n = {a} -> {b}": {"smaller n": _m_advantage(cfg[(a, seed, h)], reps),
                                     "larger n": _m_advantage(cfg[(b, seed, h)], reps)}
                 for a, b in ((ns[0], b) for b in ns[1:])}
        out.setdefault(_draw_key(seed, draws), {})[f"h = {fmt_num(h)}"] = pairs
    return out


def _best_m_note(root) -> str:
    s = setting(root, "fig1ghi")
    return (f"{len(s['data_seeds'])} data draws (seeds {s['data_seeds'][0]}…{s['data_seeds'][-1]}), step sizes "
            f"{', '.join(fmt_num(h) for h in s['step_sizes'])} (the text gives none for Figs. 1g–i; "
            f"{fmt_num(PAPER_EWSG_STEP)} is its EWSG step), M grid {', '.join(str(m) for m in s['index_chain_lengths'])}")


def _best_m_metric(root):
    return {f"n={r['n_data']:g} draw={r['data_seed']:g} h={r['step_size']:g} M={r['index_chain_length']:g}":
            (r["kl"], r["kl_se"]) for r in rows(root, "best_m.csv")}


_BEST_M_DESIGN = ("the text gives no step size and no number of data draws for Figs. 1g–i: step sizes around its "
                  "EWSG step (5e-2 included), independent draws of the centers c_i")

# ---- §5.1, the paragraph on M: comparable speed with minibatch b/(M + 1) (issue #25) ---------------------

#: "Comparable speed": the fractions of the KL decrease done after one data pass differ by at most 0.10 (a tenth of
#: the run's decrease), fixed before measuring; the ledger's point-value margin (POINT_VALUE_MARGIN) read as an
#: absolute margin on a fraction in [0, 1].
SPEED_MARGIN = 0.10


def matched_minibatch_progress(root) -> dict:
    """Per EWSG minibatch b (``minibatch_speed.csv``, n = 20): the difference of the first-pass progress
    (:func:`first_pass_progress`) of EWSG with b and M = 1 and of SGHMC with b(M + 1) — the same gradient calls per
    iteration, hence the same iterations per data pass."""
    rr, s = rows(root, "minibatch_speed.csv"), setting(root, "minibatch_speed")
    reps, m = s["realizations"], s["index_chain_length"]
    out = {}
    for b in s["batch_sizes"]:
        e = first_pass_progress([r for r in rr if r["label"] == f"EWSG b={b}"], reps)
        g = first_pass_progress([r for r in rr if r["label"].startswith(f"SGHMC b={b * (m + 1)} (G.3")], reps)
        out[f"EWSG b = {b} vs SGHMC b = {b * (m + 1)}"] = Estimate(e.value - g.value, math.hypot(e.se, g.se), n=reps)
    return out


CLAIMS = [
    claim("fig1a.ewsg_most_accurate", "§5.1, Fig. 1a (n = 20)",
          "EWSG outperforms SGHMC, SGLD and pSGLD in terms of accuracy.", ("fig1a",), measure=_fig1a_final,
          rule=ordering("EWSG", ("SGHMC", "SGLD", "pSGLD"), quantity="KL after the budget"),
          expected="KL(EWSG) < KL(SGHMC), KL(SGLD), KL(pSGLD) after {passes} data passes ({realizations} realizations, "
                   "the published step sizes)",
          figure="ewsg_iclr/fig1a.png", regression=_final_kls("fig1a.csv")),
    claim("fig1a.svrg_best_accuracy", "§5.1, Fig. 1a (n = 20)", "SVRG-LD has the best accuracy.", ("fig1a",),
          measure=_fig1a_final,
          rule=ordering("SVRG-LD", ("SGLD", "pSGLD", "SGHMC", "EWSG"), quantity="KL after the budget"),
          expected="KL(SVRG-LD) below every other method after {passes} data passes ({realizations} realizations)",
          figure="ewsg_iclr/fig1a.png"),
    claim("fig1a.svrg_slowest", "§5.1, Fig. 1a (n = 20)", "SVRG-LD has the slowest convergence.", ("fig1a",),
          measure=_fig1a_progress,
          rule=ordering("SVRG-LD", ("SGLD", "pSGLD", "SGHMC", "EWSG"),
                        quantity="fraction of the run's KL decrease done after one data pass"),
          expected="SVRG-LD has done the smallest fraction of its KL decrease over {passes} passes after the first data "
                   "pass",
          design=_SPEED_DESIGN, figure="ewsg_iclr/fig1a.png"),
    claim("fig1a.ewsg_slightly_slower", "§5.1, Fig. 1a (n = 20), the paragraph on M",
          "EWSG converges slightly slower than uniform SG (it spends M + 1 gradients per step).", ("fig1a",),
          measure=_ewsg_vs_sghmc_progress,
          rule=ordering("EWSG", "SGHMC", quantity="fraction of the run's KL decrease done after one data pass"),
          expected="EWSG has done a smaller fraction of its KL decrease over {passes} passes than SGHMC after the first "
                   "data pass ('slightly' is not graded)",
          design=_SPEED_DESIGN, figure="ewsg_iclr/fig1a.png"),
    claim("fig1b.smaller_error_at_equal_autocorrelation_time", "§5.1, Fig. 1b, footnote 5",
          "At the same autocorrelation time, EWSG achieves smaller error than SGHMC.", ("fig1b",), measure=_fig1b,
          rule=robust_to("step size", bound(ge=0.0, quantity="log KL(SGHMC at EWSG's τ) − log KL(EWSG)")),
          expected="stationary KL of EWSG below SGHMC's (log-log interpolated) at EWSG's τ, at every EWSG step size of "
                   "{step_sizes} inside SGHMC's τ range and at the paper's 0.05; τ of θ in steps (emcee, Sokal window "
                   "{tau_window}, {tau_chains} chains in {tau_groups} groups)",
          why="s.e. of the log ratio: both KL bootstrap s.e. and EWSG's τ s.e. through the local slope of SGHMC's curve; "
              "Satterthwaite degrees of freedom (τ's s.e. comes from tau_groups groups of chains)",
          design="the text gives no step-size grid for Fig. 1b", note=_fig1b_note, figure="ewsg_iclr/fig1b.png",
          regression=_fig1b_metric),
    claim("fig1c.recommended_x_best", "§5.1, Fig. 1c (n = 20)",
          "The proposed x = √h γ r_k/σ performs significantly better than the other choices.", ("fig1c",),
          measure=_fig1c,
          rule=robust_to("step size", ordering("x = recommended", _X_OTHERS, quantity="KL after the budget")),
          expected="KL(recommended x) below x = 0, x = 1 and x = (−1 + hγ) r_k/(σ√h) after {passes} passes at each h of "
                   "{step_sizes}",
          design="the text gives no step size for Fig. 1c: 0.05 (its EWSG step) and 0.07 (the journal text's)",
          figure="ewsg_iclr/fig1c.png", regression=_final_kls("fig1c.csv")),
    claim("fig1g.best_M_19_at_n50", "§5.1, Fig. 1g",
          "With n = 50 and b = 1, the M that gives the best final accuracy increases to 19.", ("fig1ghi",),
          measure=_best_m_19(50), rule=_best_m_rule(50),
          expected="at n = 50, KL(M = 19) below every other M after {passes} passes, and at n = 20 some M < 19 below "
                   "M = 19 (the increase), for every data draw and step size; 'best' read on the journal's M grid and "
                   "on the study's whole grid ({index_chain_lengths})",
          design=_BEST_M_DESIGN, note=_best_m_note, figure="ewsg_iclr/fig1g.png", regression=_best_m_metric),
    claim("fig1h.best_M_19_at_n100", "§5.1, Fig. 1h",
          "With n = 100 and b = 1, the M that gives the best final accuracy increases to 19.", ("fig1ghi",),
          measure=_best_m_19(100), rule=_best_m_rule(100),
          expected="at n = 100, KL(M = 19) below every other M after {passes} passes, and at n = 20 some M < 19 below "
                   "M = 19, for every data draw and step size; 'best' read on the journal's M grid and on the study's "
                   "whole grid ({index_chain_lengths})",
          design=_BEST_M_DESIGN, note=_best_m_note, figure="ewsg_iclr/fig1h.png"),
    claim("fig1i.best_M_grows_with_n", "§5.1, Fig. 1i",
          "The optimal M grows with the number of minibatches n/b (larger n/b: stronger need to reduce variance).",
          ("fig1ghi",), measure=_best_m_grows,
          rule=robust_to("data draw", robust_to("step size", all_of(
              each=ordering("smaller n", "larger n", descending=True,
                            quantity="log KL(M = 19) − log KL(M = 1)"), axis="larger n")), min_values=MIN_DRAWS),
          expected="the advantage of the long index chain, log KL(M = 19) − log KL(M = 1), is smaller at every larger n "
                   "of {n_values} than at n = 20 (the optimum moves towards larger M), for every data draw and step size",
          design=_BEST_M_DESIGN + "; 'the optimal M grows' read through the relative accuracy of M = 19 and M = 1 (the "
                                  "argmin of a noisy curve has no standard error)",
          note=_best_m_note, figure="ewsg_iclr/fig1i.png"),
    claim("sec5.1.comparable_speed_minibatch_b_over_M_plus_1", "§5.1, the paragraph on M (and Sec. H.3)",
          "EWSG can still achieve comparable speed of convergence: if uniform SG uses minibatch b, EWSG with minibatch "
          "b/(M + 1) consumes the same gradient calls per iteration and runs the same number of iterations.",
          ("minibatch_speed",), measure=matched_minibatch_progress,
          rule=robust_to("minibatch size", equivalent(0.0, margin=SPEED_MARGIN, relative=False,
                                                      quantity="EWSG's minus SGHMC's first-pass progress")),
          expected="for every b of {batch_sizes}: the fraction of its KL decrease over {passes} passes that EWSG "
                   "(minibatch b, M = {index_chain_length}) has done after one data pass within ±0.10 of SGHMC's with "
                   "minibatch b(M + 1), h = {step_size}, {realizations} realizations",
          why="'comparable' graded by an equivalence margin fixed in advance (a wide interval cannot make it hold)",
          design="the b grid and h are the journal's Appendix D study (the conference text's Sec. H.3 runs are not in "
                 "the seed); convergence speed read as the fraction of the KL decrease done after one data pass"),
]
