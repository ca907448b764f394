"""The LS-SGLD paper's claims (seed ``004_8438bd4b543e0fc4.txt``), checked from stored results.

Every evaluator reads ``results/ls_sgld/`` only (written by the experiments in
:mod:`sgmcmc_verify.paper_repro.ls_sgld.registry`).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sgmcmc_verify.analytic.laplacian import paper_matrix_2d
from sgmcmc_verify.analytic.ls_mixing import running_mean_mse

from sgmcmc_verify.ledger.claims import Claim, Verdict, ordering_verdict, register
from sgmcmc_verify.store.io import read_csv, read_json

from .mixture import PAPER_TABLE2

SEED = "004_8438bd4b543e0fc4.txt"
P = "ls_sgld"
_ORDER_WHY = "a pairwise difference counts when it exceeds 3 combined standard errors (over independent chains/runs)"


def _dir(root):
    return Path(root) / P


def _csv(root, name):
    return read_csv(_dir(root) / name)


def _json(root, name):
    return read_json(_dir(root) / name)


# ---- Table 1 --------------------------------------------------------------------------------

def _table1_gamma2(root):
    rows = _csv(root, "table1.csv")
    n_match = sum(1 for r in rows if r["gamma2_matches"] in (True, "True", 1))
    matches = sorted({r["table_matches"] for r in rows})
    status = "held" if n_match == len(rows) else ("failed" if n_match == 0 else "inconclusive")
    by_sigma = {int(r["sigma"]): (r["paper_value"], round(r["gamma2"], 4), round(r["mean_inv_lambda_sq"], 4))
                for r in rows if int(r["d"]) == 1000}
    return Verdict(status, {"cells": len(rows), "cells_equal_to_gamma2": n_match, "table_matches": matches,
                            "sigma: (printed, gamma2, d^-1 sum lambda^-2) at d=1000": by_sigma},
                   f"{n_match}/{len(rows)} printed cells equal gamma2 to 3 decimals; every cell equals {matches} "
                   "= d^-1 sum lambda_j^-2 -> (1+2 sigma)/(1+4 sigma)^(3/2), not gamma2 -> 1/sqrt(1+4 sigma)")


def _gamma2_below_one(root):
    rows = _csv(root, "table1.csv")
    g = [r["gamma2"] for r in rows]
    status = "held" if all(x < 1 for x in g) else "failed"
    return Verdict(status, {"max_gamma2": max(g), "min_gamma2": min(g)},
                   f"gamma2 in [{min(g):.4f}, {max(g):.4f}] for sigma in 1..5, d in 1e3..1e5")


# ---- Proposition 2.1 ------------------------------------------------------------------------

def _prop21(root):
    j = _json(root, "prop21.json")
    slopes = [s["loglog_slope_paper_noise"] for s in j["small_step"]]
    bug_floor = [min(s["w2_noise_A_inverse"]) for s in j["small_step"]]
    ok = j["residual_paper_is_zero"] and all(abs(s - 1.0) <= 0.1 for s in slopes)
    status = "held" if ok else "failed"
    return Verdict(status, {"sympy_residual": j["residual_paper"], "sympy_dim": j["sympy_dim"],
                            "loglog_slopes_w2_vs_step": slopes, "control_noise_A_inverse_w2_floor": bug_floor,
                            "control_residual_is_zero": j["residual_noise_A_inverse_is_zero"]},
                   f"Fokker-Planck residual at exp(-beta f) = {j['residual_paper']} (symbolic sigma, H, b, d={j['sympy_dim']}); "
                   f"W2(invariant law of LS-GLD, pi) ~ step^{slopes} -> 0; with A^-1 noise the residual is nonzero "
                   f"and W2 stays at {bug_floor}")


def _mixture_gradient(root):
    m = _json(root, "prop21.json")["mixture_gradient"]
    return Verdict("held" if m["is_zero"] else "failed", m,
                   "printed grad f_i minus the gradient of the printed f_i = " + m["printed_minus_true"][:120])


# ---- Theorem 3.3 ----------------------------------------------------------------------------

def _pairs(root):
    return _json(root, "thm33.json")["pairs"]


def _disc(root):
    ps = _pairs(root)
    ok = all(p["discretization_ls_le_sgld_all_K"] for p in ps)
    ratios = {f"sigma={p['sigma']},h={p['step_size']}": round(p["max_discretization_ratio"], 4) for p in ps}
    return Verdict("held" if ok else "failed", {"max_ratio_ls_over_sgld": ratios},
                   "discretization part W2(P(x_K), P(X_Kh)) of LS-SGLD <= SGLD's at every K > 0 in every (sigma, h): "
                   f"{ok}; largest ratio {max(ratios.values()):.3f}")


def _erg(root):
    ps = _pairs(root)
    ok = all(p["ergodicity_ls_ge_sgld_all_K"] for p in ps)
    return Verdict("held" if ok else "failed", {"pairs": len(ps), "all_slower": ok},
                   f"ergodicity part W2(P(X_Kh), pi) of LS-LD >= LD's at every K in all {len(ps)} (sigma, h) pairs: {ok}")


def _tradeoff(root):
    ps = _pairs(root)
    cross = {f"sigma={p['sigma']},h={p['step_size']}": p["crossover_K"] for p in ps}
    both = [k for k, p in zip(cross, ps) if p["total_ls_worse_early"] and p["total_ls_better_late"]]
    never_worse = [k for k, p in zip(cross, ps) if not p["total_ls_worse_early"]]
    status = "held" if both else "failed"
    return Verdict(status, {"crossover_K": cross, "tradeoff_present": both, "ls_never_worse": never_worse},
                   f"LS-SGLD worse early and better late (a crossover) in {len(both)}/{len(ps)} settings; "
                   f"LS-SGLD better at every K in {never_worse}")


def _gamma_factor(root):
    rows = _csv(root, "thm33_gamma.csv")
    small = min(r["step_size"] for r in rows)
    rr = [r for r in rows if r["step_size"] == small]
    ok = all(r["ratio"] <= r["sqrt_gamma2"] * (1 + 1e-9) for r in rr)
    dev = max(abs(r["ratio"] / r["sqrt_mean_inv_lambda_sq"] - 1) for r in rr)
    ev = {"step_size": small, "rows": [{k: r[k] for k in ("d", "sigma", "ratio", "sqrt_gamma2",
                                                          "sqrt_mean_inv_lambda_sq")} for r in rr],
          "max_rel_dev_ratio_vs_sqrt_m2": dev}
    why = (f"exact stationary-bias ratio LS-GLD/GLD at h={small:g} is <= sqrt(gamma2) in all cases; it equals "
           f"sqrt(d^-1 sum lambda^-2) within {dev:.1e} (the Table 1 quantity), not sqrt(gamma2)")
    if rr and "limit_ratio_exact" in rr[0]:
        ev["max_rel_dev_ratio_vs_exact_limit"] = max(abs(r["ratio"] / r["limit_ratio_exact"] - 1) for r in rr)
        ev["hessian_is_scalar"] = all(float(r["hessian_is_scalar"]) == 1.0 for r in rr)
        why += (f"; that identity needs H = cI (true here: {ev['hessian_is_scalar']}); for general H = U diag(mu) U^T "
                "the h->0 ratio^2 is 2 sum_ij (U^T A^-1 U)_ij^2 mu_i mu_j/(mu_i+mu_j) / sum_i mu_i "
                f"(sgmcmc_verify.analytic.ls_exact.small_step_bias_ratio_limit), matched within "
                f"{ev['max_rel_dev_ratio_vs_exact_limit']:.1e}")
    return Verdict("held" if ok else "failed", ev, why)


# ---- Table 3 --------------------------------------------------------------------------------

def _monotone_breaks(cells):
    """Cells (σ, b) -> value; pairs that break 'decreasing in σ (fixed b)' and 'decreasing in b (fixed σ)'."""
    sig = sorted({s for s, _ in cells})
    bs = sorted({b for _, b in cells})
    br = []
    for b in bs:
        for s0, s1 in zip(sig[:-1], sig[1:]):
            if not cells[(s1, b)] < cells[(s0, b)]:
                br.append(f"b={b}: sigma {s1} ({cells[(s1, b)]:.3g}) !< sigma {s0} ({cells[(s0, b)]:.3g})")
    for s in sig:
        for b0, b1 in zip(bs[:-1], bs[1:]):
            if not cells[(s, b1)] < cells[(s, b0)]:
                br.append(f"sigma={s}: b {b1} ({cells[(s, b1)]:.3g}) !< b {b0} ({cells[(s, b0)]:.3g})")
    return br


def _table3_printed(root):
    rows = _csv(root, "table3.csv")
    cells = {(r["sigma"], int(r["batch_size"])): r["paper_value"] for r in rows}
    br = _monotone_breaks(cells)
    return Verdict("failed" if br else "held", {"breaks": br},
                   "printed Table 3 " + ("breaks monotonicity: " + "; ".join(br) if br else "is monotone"))


def _table3_measured(root):
    rows = _csv(root, "table3.csv")
    ex = {(r["sigma"], int(r["batch_size"])): r["max_variance_exact"] for r in rows}
    mc = {(r["sigma"], int(r["batch_size"])): r["max_variance_mc"] for r in rows}
    br_ex, br_mc = _monotone_breaks(ex), _monotone_breaks(mc)
    red = {f"sigma={s}": round(ex[(s, 10)] / ex[(0.0, 10)], 3) for s, b in ex if b == 10}
    return Verdict("failed" if br_ex else "held",
                   {"exact_breaks": br_ex, "mc_breaks": br_mc, "reduction_vs_sigma0_at_b10": red,
                    "dataset": rows[0]["dataset"]},
                   f"exact max variance decreasing in sigma and b on {rows[0]['dataset']}: {not br_ex}; "
                   f"reduction factors at b=10 {red}; MC (paper's 100-repetition procedure) breaks: {br_mc or 'none'}")


# ---- Figure 1 -------------------------------------------------------------------------------

def _fig1_stat(root, col, step_set):
    rows = [r for r in _csv(root, "fig1.csv") if r["step_set"] in (step_set, "both")]
    out = {}
    for name in ("SGLD", "pSGLD", "LS-SGLD", "LS-pSGLD"):
        rr = [r for r in rows if r["sampler"] == name]
        runs = sorted({int(r["run"]) for r in rr})
        per_run = []
        for k in runs:
            v = [r[col] for r in rr if int(r["run"]) == k]
            per_run.append(np.mean(np.log(v)) if all(np.isfinite(v)) else np.inf)
        per_run = np.asarray(per_run)
        se = float(per_run.std(ddof=1) / np.sqrt(len(per_run))) if len(per_run) > 1 and np.all(np.isfinite(per_run)) else 0.0
        out[name] = (float(per_run.mean()), se)
    return out


def _fig1_cov(step_set):
    def f(root):
        st = _fig1_stat(root, "cov_mse", step_set)
        v = ordering_verdict({k: x[0] for k, x in st.items()}, {k: x[1] for k, x in st.items()},
                             [["LS-SGLD"], ["SGLD"]])
        v2 = ordering_verdict({k: x[0] for k, x in st.items()}, {k: x[1] for k, x in st.items()},
                              [["LS-pSGLD"], ["pSGLD"]])
        status = "failed" if "failed" in (v.status, v2.status) else (
            "held" if v.status == v2.status == "held" else "inconclusive")
        return Verdict(status, {"mean_log_cov_mse": st}, f"LS-SGLD vs SGLD: {v.detail}; LS-pSGLD vs pSGLD: {v2.detail}")
    return f


def _fig1_tau(root):
    st = _fig1_stat(root, "tau", "same")
    v = ordering_verdict({k: x[0] for k, x in st.items()}, {k: x[1] for k, x in st.items()}, [["LS-pSGLD"], ["pSGLD"]])
    return Verdict(v.status, {"mean_log_tau": st}, v.detail)


# ---- Figure 4 -------------------------------------------------------------------------------

def _fig4_final(root):
    rows = _csv(root, "fig4.csv")
    last = max(r["iteration"] for r in rows)
    return {r["sampler"]: r for r in rows if r["iteration"] == last}


def _fig4_metric(col, better_low=True):
    def f(root):
        fin = _fig4_final(root)
        sgn = 1.0 if better_low else -1.0
        vals = {k: sgn * r[col] for k, r in fin.items()}
        ses = {k: r[col + "_se"] for k, r in fin.items()}
        a = ordering_verdict(vals, ses, [["LS-SGLD"], ["SGLD"]])
        b = ordering_verdict(vals, ses, [["LS-pSGLD"], ["pSGLD"]])
        status = "failed" if "failed" in (a.status, b.status) else ("held" if a.status == b.status == "held" else "inconclusive")
        ds = next(iter(fin.values()))["dataset"]
        return Verdict(status, {col: {k: r[col] for k, r in fin.items()}, "se": ses, "dataset": ds},
                       f"{ds}: LS-SGLD vs SGLD: {a.detail}; LS-pSGLD vs pSGLD: {b.detail}")
    return f


def _fig4_precond_gap(root):
    fin = _fig4_final(root)
    vals = {k: r["train_nll"] for k, r in fin.items()}
    ses = {k: r["train_nll_se"] for k, r in fin.items()}
    v = ordering_verdict(vals, ses, [["SGLD"], ["pSGLD"]])
    return Verdict(v.status, v.measured, v.detail)


# ---- Table 2 --------------------------------------------------------------------------------

def _table2_stats(root, col="w2_mh"):
    rows = _csv(root, "table2.csv")
    out = {}
    for N in sorted({r["iterations"] for r in rows}):
        for name in sorted({r["sampler"] for r in rows}):
            v = np.array([r[col] for r in rows if r["iterations"] == N and r["sampler"] == name])
            out[(N, name)] = (float(v.mean()), float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else 0.0)
    return out, rows[0]


def _table2(root):
    st, r0 = _table2_stats(root)
    verdicts, meas = [], {}
    for N in sorted({k[0] for k in st}):
        vals = {name: st[(N, name)][0] for (n, name) in st if n == N}
        ses = {name: st[(N, name)][1] for (n, name) in st if n == N}
        v = ordering_verdict(vals, ses, [["LS-SGLD"], ["SGLD", "pSGLD"]])
        verdicts.append(v.status)
        meas[f"N={int(N)}"] = {"w2_mh": vals, "se": ses, "verdict": v.status, "detail": v.detail}
    status = "failed" if "failed" in verdicts else ("held" if all(x == "held" for x in verdicts) else "inconclusive")
    meas["floors"] = {"grid_vs_grid": r0["floor_grid_vs_grid"], "grid_vs_mh": r0["floor_grid_vs_mh"]}
    return Verdict(status, meas, "; ".join(f"{k}: {v['detail']}" for k, v in meas.items() if k != "floors")
                   + f"; W2 floor between two reference samples {r0['floor_grid_vs_grid']:.3f}")


#: The MH reference agrees with the exact grid reference when it adds less than this fraction of the
#: sampling floor to W2: a smaller excess changes no Table 2 comparison that the floor lets one resolve
#: (fixed before measuring).
REFERENCE_AGREEMENT_FRACTION = 0.25


def _references_agree(root):
    rows = _csv(root, "table2_floors.csv")
    fl = np.array([r["w2_grid_vs_grid"] for r in rows], dtype=float)
    mh = np.array([r["w2_grid_vs_mh"] for r in rows], dtype=float)
    d = mh - fl  # paired: both distances from the same exact set a_k
    mean, se = float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))
    tol = REFERENCE_AGREEMENT_FRACTION * float(fl.mean())
    status = "held" if mean + 3 * se <= tol else ("failed" if mean - 3 * se > tol else "inconclusive")
    return Verdict(status, {"floor_mean": float(fl.mean()), "mh_mean": float(mh.mean()), "excess": mean, "excess_se": se,
                            "tolerance": tol, "replicates": len(d), "points": rows[0]["points"]},
                   f"W2(exact, MH) - W2(exact, exact) = {mean:.4f} ± {se:.4f} (paired, {len(d)} replicates of "
                   f"{int(rows[0]['points'])} points) vs tolerance {tol:.4f} = {REFERENCE_AGREEMENT_FRACTION} x floor "
                   f"{fl.mean():.4f}")


def _table2_cell(name, N):
    def f(root):
        st, r0 = _table2_stats(root)
        printed = PAPER_TABLE2[(name, N)]
        if (N, name) not in st:
            ran = sorted({int(k[0]) for k in st})
            return Verdict("inconclusive", {"printed": printed, "iterations_run": ran},
                           f"{N} iterations not run at this scale (windows end at {ran}); run --scale paper")
        mean, se = st[(N, name)]
        floor = float(r0["floor_grid_vs_mh"])
        m = {"printed": printed, "w2_mh": mean, "se": se, "floor_grid_vs_mh": floor, "points": r0["points"]}
        lo, hi = mean - 3 * se, mean + 3 * se
        if printed < floor:
            return Verdict("inconclusive", m, f"printed {printed:.3g} is below the reference floor {floor:.3g} at "
                           f"{int(r0['points'])} points; measured {mean:.3g} ± {se:.2g}")
        st_ = "held" if lo <= printed <= hi else "failed"
        return Verdict(st_, m, f"printed {printed:.3g} vs measured {mean:.3g} ± {se:.2g} (mean ± s.e. over chains), "
                       f"3-s.e. interval [{lo:.3g}, {hi:.3g}]")
    return f


# ---- Figure 3 -------------------------------------------------------------------------------

#: "similar" mixing in Fig. 3: the MSE ratio LS-LD / LD within a factor 1.25 (fixed before measuring).
SIMILAR_BAND = 1.25


def _fig3_simulated(rows):
    """Measured MSE ratio LS-LD / LD at the largest N per target, with its delta-method s.e."""
    out = {}
    for tname in sorted({r["target"] for r in rows}):
        nmax = max(r["samples"] for r in rows if r["target"] == tname)
        ld = next(r for r in rows if r["target"] == tname and r["method"] == "LD" and r["samples"] == nmax)
        ls = next(r for r in rows if r["target"] == tname and r["method"] == "LS-LD" and r["samples"] == nmax)
        ratio = ls["mse"] / ld["mse"]
        se = ratio * float(np.hypot(ls["mse_se"] / ls["mse"], ld["mse_se"] / ld["mse"]))
        out[tname] = {"samples": nmax, "mse_ld": ld["mse"], "mse_ls_ld": ls["mse"], "ratio": ratio, "ratio_se": se,
                      "sigma": ls["sigma"], "runs": ls["runs"], "step_size": ls["step_size"]}
    return out


def _fig3_exact_at(g):
    """Exact MSE ratio LS-LD / LD of the simulated Fig. 3 run on (4.3): its N, σ and step, from x₀ = 0."""
    A = paper_matrix_2d(float(g["sigma"]))
    cov, off, n = 4.5 * np.eye(2), -np.array([1.0, 2.0]), np.array([int(g["samples"])])
    return float(running_mean_mse(cov, A, g["step_size"], n, off)[0] / running_mean_mse(cov, None, g["step_size"], n, off)[0])


def _fig3_finite(root, sig):
    """Exact finite-N ratio on (4.3) at σ (fig3_exact_finite.csv): the first N, the last N of the initial run of N
    within the band, the last N. Empty when that σ was not computed."""
    path = _dir(root) / "fig3_exact_finite.csv"
    if not path.exists():
        return {}
    rr = sorted((r for r in read_csv(path) if r["target"] == "gaussian_4.3" and np.isclose(r["sigma"], sig)),
                key=lambda r: r["samples"])
    if not rr:
        return {}
    inside = [1 / SIMILAR_BAND <= r["ratio"] <= SIMILAR_BAND for r in rr]
    k = next((i for i, ok in enumerate(inside) if not ok), len(rr))
    last_in = rr[k - 1] if k > 0 else None
    return {"step_size": rr[0]["step_size"], "n_first": int(rr[0]["samples"]), "ratio_first": rr[0]["ratio"],
            "n_within_max": int(last_in["samples"]) if last_in else 0,
            "time_within_max": float(last_in["time"]) if last_in else 0.0,
            "n_last": int(rr[-1]["samples"]), "ratio_last": rr[-1]["ratio"]}


def _fig3(root):
    """Depends on σ (Fig. 3 prints none): the exact σ set where the ratio is within the band, and the precision.

    The exact asymptotic MSE ratio on a Gaussian is ``1 + σκ`` (``sgmcmc_verify.analytic.ls_mixing``); "similar" holds
    for ``σ ≤ (band − 1)/κ``. The simulation at our σ is checked against the exact ratio; the paper's
    10 runs are judged by the exact law of a ratio of two 10-run MSEs.
    """
    sim = _fig3_simulated(_csv(root, "fig3.csv"))
    ex = _json(root, "fig3_exact.json")
    limits = {t: ((SIMILAR_BAND - 1.0) / v["kappa"] if v["kappa"] > 0 else float("inf")) for t, v in ex["targets"].items()}
    g = sim.get("gaussian_4.3")
    sig = float(g["sigma"]) if g else float("nan")
    exact_run = 1.0 + sig * ex["targets"]["gaussian_4.3"]["kappa"] if g else float("nan")
    exact_n = _fig3_exact_at(g) if g else float("nan")
    z = (g["ratio"] - exact_n) / g["ratio_se"] if g else float("nan")
    prec = ex["at_paper_sigmas"].get("gaussian_4.3|sigma=1|runs=10", {})
    measured = {"similar_sigma_limit": limits, "kappa": {t: v["kappa"] for t, v in ex["targets"].items()},
                "band": SIMILAR_BAND, "simulated": sim, "sigma_run": sig, "exact_ratio_at_run_sigma": exact_run,
                "exact_ratio_at_run_n": exact_n, "simulation_vs_exact_z": z, "paper_10_runs_precision_4.3_sigma1": prec}
    parts = ["depends on sigma (not printed for Fig. 3): exact asymptotic MSE ratio LS-LD/LD = 1 + sigma*kappa >= 1, "
             f"within {SIMILAR_BAND} for " + ", ".join(f"sigma <= {lim:.3g} on {t} (kappa {measured['kappa'][t]:.3g})"
                                                       for t, lim in limits.items())]
    if g:
        parts.append(f"at our sigma = {sig:g}: exact {exact_run:.2f} (asymptotic), {exact_n:.2f} at N={int(g['samples'])} "
                     f"from x0 = 0; simulated {g['ratio']:.2f} ± {g['ratio_se']:.2f} ({int(g['runs'])} runs, z = {z:+.1f} "
                     "against the exact finite-N ratio)")
    for t, v in sim.items():
        if t != "gaussian_4.3":
            parts.append(f"{t} (no exact law): simulated {v['ratio']:.2f} ± {v['ratio_se']:.2f}")
    fin = _fig3_finite(root, sig)
    if fin:
        measured["finite_n_4.3_at_run_sigma"] = fin
        parts.append(f"from x0 = 0 at step {fin['step_size']:g} the exact finite-N ratio on (4.3) at sigma = {sig:g} is "
                     f"{fin['ratio_first']:.2f} at N = {fin['n_first']}, within the band up to N = {fin['n_within_max']} "
                     f"(time {fin['time_within_max']:g}), and {fin['ratio_last']:.2f} at N = {fin['n_last']}: similar only "
                     "in the transient")
    if prec:
        q = prec["measured_over_true_95"]
        parts.append(f"with the paper's 10 runs a measured ratio has relative s.e. {prec['relative_sd_mc']:.2f} and lies in "
                     f"[{q[0]:.2f}, {q[1]:.2f}] x the truth (95 %): ratios below {prec['detectable_ratio']:.1f} cannot be "
                     "told from 1, so Fig. 3 cannot distinguish 'similar' from a factor 2")
    return Verdict("inconclusive", measured, "; ".join(parts))


def _claim(cid, source, statement, exps, expected, tol, fn, fig=None):
    return Claim(f"{P}.{cid}", P, f"{SEED}, {source}", statement, tuple(f"{P}.{e}" for e in exps), expected, tol, fn, fig)


CLAIMS = [
    _claim("table1.gamma2_values", "Table 1 (caption 'The values of gamma_2'), Theorem 3.3",
           "Table 1 tabulates gamma2 = d^-1 sum_i (1 + 2 sigma - 2 sigma cos(2 pi i/d))^-1 for sigma = 1..5, d = 1e3..1e5.",
           ("table1",), "every printed cell equals gamma2 rounded to 3 decimals",
           "exact: gamma2 evaluated in float64 (and sympy in tests); a cell matches if |gamma2 - printed| <= 5e-4",
           _table1_gamma2, "ls_sgld/table1.png"),
    _claim("remark3.6.gamma2_below_one", "Remark 3.6", "gamma2 is strictly less than 1 (for sigma > 0).", ("table1",),
           "gamma2 < 1 at every tabulated (sigma, d)", "exact (float64 sum)", _gamma2_below_one, "ls_sgld/table1.png"),
    _claim("prop2.1.invariant_law", "Proposition 2.1, Appendix A",
           "The stationary distribution of LS-LD (2.3) is proportional to exp(-beta f).", ("prop21",),
           "symbolic Fokker-Planck residual = 0; exact W2(invariant law of EM(2.4), pi) -> 0 like step^1",
           "residual exactly 0 (sympy); log-log slope of W2 vs step within 1 +- 0.1 (first-order EM)",
           _prop21, "ls_sgld/prop21.png"),
    _claim("sec4.1.2.mixture_gradient", "Section 4.1.2",
           "grad f_i(x) = x - a_i + 2 a_i/(2 + exp(2<x, a_i>)) for the printed f_i.", ("prop21",),
           "the printed gradient equals the gradient of the printed f_i", "exact (sympy simplify)", _mixture_gradient),
    _claim("thm3.3.discretization_smaller", "Theorem 3.3, Remark 3.6",
           "LS-SGLD has a smaller discretization error than SGLD (gamma1, gamma2 < 1).", ("thm33",),
           "W2(P(x_K), P(X_Kh)) of LS-SGLD <= that of SGLD at every K, every (sigma, h) of the grid",
           "exact laws (Lyapunov + Bures W2); round-off allowance 1e-12", _disc, "ls_sgld/thm33.png"),
    _claim("thm3.3.ergodicity_slower", "Theorem 3.3, Remark 3.6",
           "The ergodicity of LS-LD is slower than that of LD (c0 <= 1).", ("thm33",),
           "W2(P(X_Kh), pi) of LS-LD >= that of LD at every K", "exact laws; round-off allowance 1e-12",
           _erg, "ls_sgld/thm33.png"),
    _claim("remark3.6.tradeoff", "Remark 3.6",
           "There is a trade-off between the discretization error and the ergodicity rate of LS-SGLD.", ("thm33",),
           "in some (sigma, h) the exact total W2 of LS-SGLD exceeds SGLD's at small K and is below it at large K",
           "exact laws; crossover located by log-interpolation on the K grid", _tradeoff, "ls_sgld/thm33.png"),
    _claim("thm3.3.gamma2_factor", "Theorem 3.3 (second term), Lemma C.3",
           "Laplacian smoothing reduces the integrator part of the discretization error by the factor sqrt(gamma2).",
           ("thm33",), "exact stationary W2 bias ratio LS-GLD/GLD at the smallest step <= sqrt(gamma2); reported against "
           "its exact h->0 limit for the target's Hessian (= sqrt(d^-1 sum lambda^-2) only when H = cI)",
           "exact laws; the bound is one-sided (relative allowance 1e-9)", _gamma_factor, "ls_sgld/thm33.png"),
    _claim("table3.printed_monotone", "Table 3, Section 4.2.1",
           "The maximum variance of the smoothed stochastic gradient decreases as sigma and the batch size grow (as printed).",
           ("table3",), "printed cells decrease down each column and along each row", "exact comparison of printed numbers",
           _table3_printed, "ls_sgld/table3.png"),
    _claim("table3.variance_reduction", "Table 3, Section 4.2.1",
           "Laplacian smoothing reduces the variance of the stochastic gradient, more for larger sigma and batch size.",
           ("table3",), "measured exact max variance strictly decreasing in sigma (fixed b) and in b (fixed sigma)",
           "exact variance (finite-population formula); the 100-repetition Monte Carlo is reported alongside",
           _table3_measured, "ls_sgld/table3.png"),
    _claim("fig1.ls_reduces_cov_error", "Figure 1(b), Section 4.1.1",
           "Reconstruction errors of the covariance are reduced significantly when Laplacian smoothing is used (same step sizes).",
           ("fig1",), "mean log covariance MSE over the step grid: LS-SGLD < SGLD and LS-pSGLD < pSGLD", _ORDER_WHY,
           _fig1_cov("same"), "ls_sgld/fig1.png"),
    _claim("fig1.ls_reduces_cov_error_scaled", "Figure 1(d), Section 4.1.1",
           "With step sizes scaled by (1+4 sigma)^(1/4), Laplacian smoothing still reduces the covariance error.",
           ("fig1",), "as fig1.ls_reduces_cov_error with the scaled LS step sizes", _ORDER_WHY,
           _fig1_cov("scaled"), "ls_sgld/fig1.png"),
    _claim("fig1.ls_reduces_tau_psgld", "Figure 1(b), Section 4.1.1",
           "Laplacian smoothing can also reduce the autocorrelation time in pSGLD.", ("fig1",),
           "mean log autocorrelation time (4.2) over the step grid: LS-pSGLD < pSGLD", _ORDER_WHY, _fig1_tau,
           "ls_sgld/fig1.png"),
    _claim("table2.ls_sgld_closest", "Table 2, Figure 2, Section 4.1.2",
           "The samples generated by LS-SGLD are consistently closer (W2) to the MH samples than SGLD's and pSGLD's.",
           ("table2",), "at every iteration count, mean W2(last 1e4 samples, MH reference): LS-SGLD < SGLD and < pSGLD",
           _ORDER_WHY + "; W2 exact (ot.emd2) on thinned point sets, reported not squared", _table2, "ls_sgld/table2.png"),
    _claim("table2.references_agree", "Section 4.1.2 (MH samples as the reference)",
           "MH samples represent the mixture: the MH reference and exact draws of the density are interchangeable.",
           ("table2",), "W2(exact set, MH set) exceeds W2(exact set, exact set) by less than "
           f"{REFERENCE_AGREEMENT_FRACTION} x that floor (3 s.e. upper bound of the paired excess)",
           "3 s.e. over paired replicates (fresh exact sets); the fraction is fixed before measuring",
           _references_agree, "ls_sgld/table2.png"),
    _claim("fig3.similar_mixing", "Figure 3, Section 4.1.3, Remark 3.6",
           "LD and LS-LD perform similarly in reconstructing the mean: Laplacian smoothing does not slow down mixing in practice.",
           ("fig3", "fig3_exact"), "exact asymptotic MSE ratio LS-LD / LD within [1/1.25, 1.25] at the sigma of Fig. 3; "
           "sigma is not printed, so the verdict reports the sigma set where it holds (Gaussian (4.3), 4.1.1 covariance), "
           "the simulated ratio at our sigma against the exact one, and the precision of the paper's 10 runs",
           f"'similar' = within a factor {SIMILAR_BAND} (fixed before measuring); exact ratio (Lyapunov/Stein), so the sigma "
           "set is exact; simulation checked against it at 3 s.e. (delta method); precision from the exact weighted "
           "chi-square law of two 10-run MSEs", _fig3, "ls_sgld/fig3.png"),
    _claim("fig4.ls_reduces_nll", "Figure 4, Section 4.2",
           "Laplacian smoothing reduces the negative log-likelihood (test).", ("fig4",),
           "final test NLL of the averaged sample: LS-SGLD < SGLD and LS-pSGLD < pSGLD", _ORDER_WHY,
           _fig4_metric("test_nll"), "ls_sgld/fig4.png"),
    _claim("fig4.ls_increases_accuracy", "Figure 4, Section 4.2",
           "Laplacian smoothing increases the accuracy (test).", ("fig4",),
           "final test accuracy: LS-SGLD > SGLD and LS-pSGLD > pSGLD", _ORDER_WHY,
           _fig4_metric("test_acc", better_low=False), "ls_sgld/fig4.png"),
    _claim("fig4.preconditioning_gap", "Figure 4, Section 4.2",
           "With preconditioning the gap to the target is remarkably larger (pSGLD worse than SGLD at the end).",
           ("fig4",), "final train NLL: SGLD < pSGLD", _ORDER_WHY, _fig4_precond_gap, "ls_sgld/fig4.png"),
]

CLAIMS += [
    _claim(f"table2.cell.{name}.{N}", "Table 2",
           f"W2 between the last 1e4 {name} samples after {N} iterations and the MH samples is {PAPER_TABLE2[(name, N)]:g}.",
           ("table2",), "the printed value inside the measured mean ± 3 s.e. over chains; 'inconclusive' when it is "
           "below the W2 between the two references or the iteration count was not run",
           "3 s.e. over independent chains (each one paper-size run)", _table2_cell(name, N), "ls_sgld/table2.png")
    for (name, N) in PAPER_TABLE2
]

register(*CLAIMS)


# ---- smoke-scale regression metrics ---------------------------------------------------------

def _m_table1(root):
    return {f"gamma2 sigma={r['sigma']} d={r['d']}": (r["gamma2"], 0.0) for r in _csv(root, "table1.csv")
            if int(r["d"]) == 1000}


def _m_prop21(root):
    return {f"slope sigma={s['sigma']}": (s["loglog_slope_paper_noise"], 0.0) for s in _json(root, "prop21.json")["small_step"]}


def _m_thm(root):
    return {f"bias {k} sigma={p['sigma']} h={p['step_size']}": (p[f"stationary_bias_{k}"], 0.0)
            for p in _pairs(root) for k in ("sgld", "ls")}


def _m_gamma(root):
    return {f"ratio d={r['d']} sigma={r['sigma']} h={r['step_size']}": (r["ratio"], 0.0)
            for r in _csv(root, "thm33_gamma.csv")}


def _m_table3(root):
    return {f"exact sigma={r['sigma']} b={r['batch_size']}": (r["max_variance_exact"], 0.0) for r in _csv(root, "table3.csv")}


def _m_fig1(col, step_set):
    def f(root):
        return {k: v for k, v in _fig1_stat(root, col, step_set).items() if np.isfinite(v[0])}
    return f


def _m_fig4(col):
    def f(root):
        return {k: (r[col], r[col + "_se"]) for k, r in _fig4_final(root).items()}
    return f


def _m_fig3(root):
    return {f"{r['target']} {r['method']}": (r["mse"], r["mse_se"]) for r in _csv(root, "fig3.csv")
            if r["samples"] == max(x["samples"] for x in _csv(root, "fig3.csv"))}


def _m_table2(root):
    st, _ = _table2_stats(root)
    return {f"N={int(N)} {name}": v for (N, name), v in st.items()}


BASELINE_METRICS = {
    f"{P}.table2.ls_sgld_closest": _m_table2,
    f"{P}.fig3.similar_mixing": _m_fig3,
    f"{P}.table1.gamma2_values": _m_table1,
    f"{P}.prop2.1.invariant_law": _m_prop21,
    f"{P}.thm3.3.discretization_smaller": _m_thm,
    f"{P}.thm3.3.gamma2_factor": _m_gamma,
    f"{P}.table3.variance_reduction": _m_table3,
    f"{P}.fig1.ls_reduces_cov_error": _m_fig1("cov_mse", "same"),
    f"{P}.fig1.ls_reduces_tau_psgld": _m_fig1("tau", "same"),
    f"{P}.fig4.ls_reduces_nll": _m_fig4("test_nll"),
    f"{P}.fig4.ls_increases_accuracy": _m_fig4("test_acc"),
}
