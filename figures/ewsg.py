"""EWSG Figure 1 (panels a–f) and the §4 theory panels, drawn from ``results/ewsg/`` only.

``sgmcmc-verify figures ewsg [--results results] [--out figures/out]`` writes
``fig1a.png`` … ``fig1f.png``, ``thm41.png``, ``thm42.png``, ``thmH1.png``, ``split.png``,
``remark1.png``, ``fig1c_repeat.png`` and the same as PDF.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import seaborn as sns  # noqa: E402

from sgmcmc_verify.figures._common import draw_available, save_figure, draws_results  # noqa: E402
from sgmcmc_verify.ledger.claims import format_ci  # noqa: E402
from sgmcmc_verify.store.io import ResultFileError, read_csv, read_json  # noqa: E402

__all__ = ["draw_all", "draw_appendix", "draw_thm41", "draw_thm42", "draw_thmH1", "draw_split", "draw_remark1",
           "draw_fig1c_repeat"]


def _save(fig, out: Path, name: str) -> list[Path]:
    return save_figure(fig, out, name, dpi=150, plain_log_minor_ticks=True)


def _fmt_fit(fit: dict) -> str:
    return f"slope {fit['slope']:.2f} {format_ci(fit)} ({fit['status']})"


#: The columns a KL-vs-passes panel reads.
_KL_COLUMNS = ("label", "passes", "kl", "kl_exact", "kl_floor", "realizations", "step_size")


def _kl_panel(rows, title, out, name):
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    labels = list(dict.fromkeys(r["label"] for r in rows))
    colors = dict(zip(labels, sns.color_palette("colorblind", len(labels))))
    for lab in labels:
        rr = [r for r in rows if r["label"] == lab]
        x = np.array([r["passes"] for r in rr])
        y = np.array([r["kl"] for r in rr])
        ax.plot(x, y, color=colors[lab], label=f"{lab} (h={rr[0]['step_size']:g})")
        ex = [r["kl_exact"] for r in rr]
        if all(isinstance(v, float) for v in ex):
            ax.plot(x, ex, color=colors[lab], ls=":", lw=1.2)
    floor = rows[0]["kl_floor"]
    ax.axhline(floor, color="0.5", lw=0.8, ls="--", label=f"estimation floor ({int(rows[0]['realizations'])} draws)")
    ax.set_yscale("log")
    ax.set_xlabel("data passes")
    ax.set_ylabel("KL(target ‖ samples) [nats]")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, frameon=False)
    ax.text(0.01, 0.01, "dotted: exact (Lyapunov moment propagation)", transform=ax.transAxes, fontsize=6, color="0.4")
    return _save(fig, out, name)


def _fig1d(res: Path, out: Path) -> list[Path]:
    rd = read_csv(res / "fig1d.csv", columns=("T", "mse", "continuous_limit_mse"))
    fd = read_json(res / "rates.json")["fig1d"]
    T = np.array([r["T"] for r in rd])
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    ax.loglog(T, [r["mse"] for r in rd], "o-", label="EWSG (M=1), measured")
    ax.loglog(T, [r["continuous_limit_mse"] for r in rd], "k:", label="continuous dynamics, exact")
    xf = np.array(fd["x"])
    ax.loglog(xf, np.exp(fd["intercept"]) * xf ** fd["slope"], "r--", lw=1, label=_fmt_fit(fd))
    ax.set_xlabel("T = Kh (dimensionless time)")
    ax.set_ylabel("MSE of time average of ‖θ−μ‖² (units of θ⁴)")
    ax.set_title(f"1d: MSE vs T (h={fd['step_size']:g}); expected slope −1", fontsize=10)
    ax.legend(fontsize=7, frameon=False)
    return _save(fig, out, "fig1d")


def _fig1e(res: Path, out: Path) -> list[Path]:
    re_ = read_csv(res / "fig1e.csv", columns=("method", "step_size", "mse", "excess_variance"))
    fe = read_json(res / "rates.json")["fig1e"]
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    for meth, c in (("EWSG", "C0"), ("SGHMC", "C1")):
        rr = _method_rows(re_, meth, res / "fig1e.csv")
        h = np.array([r["step_size"] for r in rr])
        ax.loglog(h, [r["mse"] for r in rr], "o-", color=c, label=f"{meth} MSE, " + _fmt_fit(fe[meth]["naive"]))
        ev = np.array([r["excess_variance"] for r in rr])
        ok = ev > 0
        lab = f"{meth} variance − C1/T"
        fv = fe[meth]["excess_variance_over_continuous_limit"]
        if "slope" in fv:
            lab += ", " + _fmt_fit(fv)
        ax.loglog(h[ok], ev[ok], "s--", color=c, ms=4, label=lab)
    ax.axhline(fe["continuous_limit_mse"], color="k", ls=":", lw=1, label="continuous limit C1/T (exact)")
    ax.set_xlabel("step size h (dimensionless)")
    ax.set_ylabel("MSE (units of θ⁴)")
    ax.set_title(f"1e: MSE vs h at T={fe['T']:g}; expected slope +1", fontsize=10)
    ax.legend(fontsize=6, frameon=False)
    return _save(fig, out, "fig1e")


def _fig1f(res: Path, out: Path) -> list[Path]:
    rf = read_csv(res / "fig1f.csv", columns=("method", "step_size", "mse", "exact_stationary_bias_sq"))
    ff = read_json(res / "rates.json")["fig1f"]
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    for meth, mk in (("EWSG", "o-"), ("SGHMC", "^-")):
        rr = _method_rows(rf, meth, res / "fig1f.csv")
        ax.loglog([r["step_size"] for r in rr], [r["mse"] for r in rr], mk, label=f"{meth}, " + _fmt_fit(ff[meth]))
    rr = [r for r in rf if r["method"] == "SGHMC"]
    ax.loglog([r["step_size"] for r in rr], [r["exact_stationary_bias_sq"] for r in rr], "k:", lw=1,
              label=f"SGHMC exact bias² (Lyapunov), slope {ff['SGHMC']['exact_stationary_slope']:.2f}")
    ax.set_xlabel("step size h (dimensionless)")
    ax.set_ylabel("long-run MSE (units of θ⁴)")
    ax.set_title(f"1f: long-run MSE vs h (T={ff['T']:g}); expected slope +2", fontsize=10)
    ax.legend(fontsize=6.5, frameon=False)
    return _save(fig, out, "fig1f")


def _method_rows(rows, method, path):
    """The rows of ``method``; a file without them is refused (naming it), not drawn as an empty curve."""
    rr = [r for r in rows if r["method"] == method]
    if not rr:
        raise ResultFileError(path, f"no rows for method {method}")
    return rr


_KL_TITLES = {"fig1a": "1a: SG-MCMC methods, Gaussian target (n=50)", "fig1b": "1b: EWSG, choices of x (h=0.07, M=1)",
              "fig1c": "1c: EWSG, index-chain length M (fair data passes)"}


def _kl_file_panel(name):
    def draw(res, out):
        return _kl_panel(read_csv(res / f"{name}.csv", columns=_KL_COLUMNS), _KL_TITLES[name], out, name)
    return draw


@draws_results
def draw_all(results="results/ewsg", out="figures/out/ewsg") -> list[Path]:
    """Draw EWSG Figure 1, the appendices and the §4 theory panels from stored results; returns the written paths.

    A panel whose result files are absent is skipped (``sgmcmc-verify figures`` says which results
    are missing); one whose file is unreadable or lacks the rows and columns it needs raises.

    Raises
    ------
    sgmcmc_verify.errors.ResultFileError
        Naming the file that is truncated, garbled or lacks what the panel needs.
    """
    res, out = Path(results), Path(out)
    sns.set_theme(style="whitegrid", context="paper")
    panels = [((f"{p}.csv",), _kl_file_panel(p)) for p in ("fig1a", "fig1b", "fig1c")]
    panels += [(("fig1d.csv", "rates.json"), _fig1d), (("fig1e.csv", "rates.json"), _fig1e),
               (("fig1f.csv", "rates.json"), _fig1f)]
    paths = draw_available(panels, res, out)
    paths += draw_appendix(res, out)
    paths += draw_available(THEORY_PANELS, res, out)
    from sgmcmc_verify.figures.ewsg_flymc import draw_flymc  # §5.2 Table 1 / Fig. 2 and App. G.1 / Fig. 6 (issue #12 part A)

    paths += draw_flymc(res, out)
    paths += draw_bnn(res, out)  # §5.3 Fig. 3a / Table 2 MLP and App. G.3 Table 3 (issue #12 part B)
    return paths


# ---- The algorithms of the appendices: Appendix E, Figure 4, Figure 5, Appendix D / G.3 ----------------

def _fig4_panel(rows, js, out):
    hs = js["settings"]["step_sizes"]
    fig, axes = plt.subplots(1, len(hs), figsize=(4.2 * len(hs), 3.8), sharey=True, squeeze=False)
    methods = list(dict.fromkeys(r["method"] for r in rows)) + [d["method"] for d in js["runs"]]
    colors = dict(zip(dict.fromkeys(methods), sns.color_palette("colorblind", len(set(methods)))))
    for ax, h in zip(axes[0], hs):
        g = f"h={h:g}"
        for m in dict.fromkeys(r["method"] for r in rows if r["group"] == g):
            rr = [r for r in rows if r["group"] == g and r["method"] == m]
            ax.plot([r["passes"] for r in rr], [r["kl"] for r in rr], color=colors[m], label=m)
            if all(isinstance(r["kl_exact"], float) for r in rr):
                ax.plot([r["passes"] for r in rr], [r["kl_exact"] for r in rr], color=colors[m], ls=":", lw=1.2)
        div = [d for d in js["runs"] if d["step_size"] == h and d["diverged"]]
        stab = next(s_ for s_ in js["stability"] if s_["step_size"] == h)
        note = f"EWSG-VR: h·λmax(Γ) = {stab['h_times_max_friction']:.2f}, ρ = {stab['spectral_radius_ewsg_vr']:.2f}"
        if div:
            note += "".join(f"\ndiverged: {d['method']} at step {d['diverged_at_step']}" for d in div)
        ax.text(0.02, 0.02, note, transform=ax.transAxes, fontsize=6, color="0.3")
        ax.axhline(rows[0]["kl_floor"], color="0.5", lw=0.8, ls="--")
        ax.set_yscale("log")
        ax.set_xlabel("data passes (calibration passes counted)")
        ax.set_title(f"h = {h:g}" + (" (paper)" if h == js["paper_step_size"] else ""), fontsize=9)
        ax.legend(fontsize=6, frameon=False, loc="upper right")
    axes[0][0].set_ylabel("KL(target ‖ samples) [nats]")
    fig.suptitle("Fig. 4 (App. F): EWSG-VR on the §5.1 Gaussian (γ = 10, M = 1, L = 1); dotted: exact; dashed: floor",
                 fontsize=9)
    return _save(fig, out, "fig4")


def _fig5_panel(rows, js, out):
    sets = js["datasets"]
    fig, axes = plt.subplots(len(sets), 2, figsize=(10, 3.6 * len(sets)), squeeze=False)
    for i, ds in enumerate(sets):
        ref = js["reference"][ds]
        methods = list(dict.fromkeys(r["method"] for r in rows if r["dataset"] == ds))
        colors = dict(zip(methods, sns.color_palette("colorblind", len(methods))))
        for j, (stat, name) in enumerate((("mean", "mean"), ("sd", "standard deviation"))):
            ax = axes[i][j]
            for m in methods:
                rr = [r for r in rows if r["dataset"] == ds and r["method"] == m and r["passes"] > 0]
                x, y = np.array([r["passes"] for r in rr]), np.array([r[stat] for r in rr])
                se = np.array([r[stat + "_se"] for r in rr])
                ax.plot(x, y, color=colors[m], label=m)
                ax.fill_between(x, y - se, y + se, color=colors[m], alpha=0.25, lw=0)
            ax.axhspan(ref[stat] - 2 * ref[stat + "_se"], ref[stat] + 2 * ref[stat + "_se"], color="0.6", alpha=0.4,
                       label="MALA (exact) ± 2 s.e.")
            ax.set_xscale("log")
            ax.set_xlabel("data passes")
            ax.set_ylabel(f"{name} of test log-lik. [nats/datum]")
            ax.set_title(f"{ds} (n_train = {ref['n_train']}, d = {ref['dim']}): {name} over chains", fontsize=9)
            ax.legend(fontsize=6.5, frameon=False)
    s_ = js["settings"]
    fig.suptitle(f"Fig. 5 (App. F): BLR, {s_['chains']} chains, h = {s_['step_size']:g}, γ = {s_['friction']:g}, b = 1, "
                 f"M = {s_['index_chain_length']}; shade: ±1 bootstrap s.e.", fontsize=9)
    return _save(fig, out, "fig5")


def _appd_panel(rows, out):
    fin = {}
    for r in rows:
        if r["label"] not in fin or r["passes"] >= fin[r["label"]]["passes"]:
            fin[r["label"]] = r
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    for k, m in enumerate(dict.fromkeys(r["method"] for r in fin.values())):
        rr = sorted((r for r in fin.values() if r["method"] == m), key=lambda r: int(r["group"].split("=")[1]))
        b = np.array([int(r["group"].split("=")[1]) for r in rr]) * (1.0 + 0.06 * (k - 1))
        ax.errorbar(b, [r["kl"] for r in rr], yerr=[2 * r["kl_se"] for r in rr], fmt="o-", capsize=2, label=m)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("minibatch size b of EWSG (SGHMC(b(M+1)) uses 2b)")
    ax.set_ylabel(f"KL after {max(r['passes'] for r in rows):g} passes [nats]")
    ax.set_title(f"App. D / G.3: minibatch EWSG, §5.1 Gaussian, h = {rows[0]['step_size']:g} (±2 s.e.)", fontsize=9)
    ax.legend(fontsize=7, frameon=False)
    return _save(fig, out, "appD")


def draw_appendix(results="results/ewsg", out="figures/out/ewsg") -> list[Path]:
    """Draw Appendix E, Figure 4, Figure 5 and Appendix D from stored results; panels without results are skipped."""
    res, out = Path(results), Path(out)
    sns.set_theme(style="whitegrid", context="paper")
    paths = []
    if (res / "appE.csv").exists():
        paths += _kl_panel(read_csv(res / "appE.csv"), "App. E: overdamped EWSG (M=1) vs SGLD, pSGLD, SVRG-LD", out,
                           "appE")
    if (res / "fig4.csv").exists() and (res / "fig4.json").exists():
        paths += _fig4_panel(read_csv(res / "fig4.csv"), read_json(res / "fig4.json"), out)
    if (res / "fig5.csv").exists() and (res / "fig5.json").exists():
        paths += _fig5_panel(read_csv(res / "fig5.csv"), read_json(res / "fig5.json"), out)
    if (res / "appD.csv").exists():
        paths += _appd_panel(read_csv(res / "appD.csv"), out)
    return paths



# ---------------------------------------------------------------------------------------------
# The theory of §4 (issue #11): Theorems 4.1, 4.2, H.1, Remark 1, the bias split, Fig. 1c repeated
# ---------------------------------------------------------------------------------------------

def draw_thm41(res: Path, out: Path) -> list[Path]:
    """Theorem 4.1: support of the LP optimum against d + 1, and the variance of p*, uniform and the weights (4)."""
    rows = read_csv(res / "thm41.csv")
    summ = read_json(res / "thm41.json")
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 3.8))
    rnd = [r for r in rows if r["kind"] == "random_gaussian"]
    ds = sorted({r["d"] for r in rnd})
    for j, (key, lab) in enumerate((("support", "support of p* (vertex)"),
                                    ("tight", "tight set (holds every optimum)"))):
        x = np.array([r["d"] for r in rnd]) + (j - 0.5) * 0.18
        ax0.scatter(x, [r[key] for r in rnd], s=8, alpha=0.3, label=f"random instances: {lab}")
    ax0.plot(ds, np.array(ds) + 1, "k--", lw=1, label="d + 1")
    named = [r for r in rows if r["kind"] != "random_gaussian"]
    for k, r in enumerate(named):   # instances at one point get their names stacked, not printed on each other
        ax0.annotate(r["kind"], (r["d"], r["tight"]), xytext=(4, 2 + 8 * k), textcoords="offset points",
                     fontsize=6, color="C3")
        ax0.plot(r["d"], r["tight"], "x", color="C3")
    ax0.set_xlabel("dimension d")
    ax0.set_ylabel("datum index i")
    ax0.set_yscale("log")
    ax0.set_title("Thm 4.1: support of p* and the certificate's tight set", fontsize=9)
    ax0.legend(fontsize=6, frameon=False)
    fams = [f for f in summ["families"] if f["kind"] == "random_gaussian"]
    lab = [f"d={f['d']},n={f['n']}" for f in fams]
    ax1.plot(lab, [f["median_ratio_optimal"] for f in fams], "o-", label="p* (LP optimum)")
    for h in summ["ewsg_steps"]:
        key = f"median_ewsg_trace_ratio_h{h:g}"
        ax1.plot(lab, [f.get(key, np.nan) for f in fams], "s:", ms=3, label=f"weights (4), Tr cov, h={h:g}")
    ax1.axhline(1.0, color="k", lw=0.8, label="uniform")
    ax1.set_yscale("log")
    ax1.tick_params(axis="x", rotation=90, labelsize=6)
    ax1.set_ylabel("Tr cov / Tr cov(uniform), median (ratio)")
    ax1.set_xlabel("instance family (dimension d, data n)")
    ax1.set_title("variance of the unbiased optimum and of the weights (4)", fontsize=9)
    ax1.legend(fontsize=6, frameon=False)
    fig.tight_layout()
    return _save(fig, out, "thm41")


def draw_thm42(res: Path, out: Path) -> list[Path]:
    """Theorem 4.2: E[Δ] over fresh data sets (exact weights) against its first order; the tail constant vs n."""
    rows = read_csv(res / "thm42.csv")
    tails = read_json(res / "thm42.json")["tail_trends"]
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 3.8))
    for (law, reading), c in zip([("ball", "theorem"), ("ball", "appendix_b"), ("skewed", "appendix_b"),
                                  ("section51", "theorem")], ("C0", "C1", "C2", "C3")):
        rr = sorted((r for r in rows if r["law"] == law and r["reading"] == reading and r["y_1"] == 0.0
                     and r["n"] == 50), key=lambda r: r["step_size"])
        if not rr:
            continue
        h = np.array([r["step_size"] for r in rr])
        ax0.errorbar(h, [r["mean_delta"] for r in rr], yerr=[3 * r["se_delta"] for r in rr], fmt="o", color=c, ms=4,
                     label=f"{law}, {reading}: E[Δ] (exact weights)")
        ax0.plot(h, [r["mean_first_order"] for r in rr], "--", color=c, lw=1)
    ax0.set_xscale("log")
    ax0.set_yscale("log")
    ax0.set_xlabel("step size h (dimensionless)")
    ax0.set_ylabel("E[Δ] = E Tr cov(p^E) − E Tr cov(uniform) > 0\n(units of gradient²)")
    ax0.set_title("Thm 4.2 claims E[Δ] < 0; measured (n = 50, y = 0; the two readings coincide at n = 50); "
                  "dashed: first order", fontsize=7)
    ax0.legend(fontsize=6, frameon=False)
    for t in tails:
        if t["y"] == [0.0, 0.0] and t["step_size"] == min(r["step_size"] for r in rows):
            ax1.loglog(t["n"], t["tail_constant"], "o-", label=f"{t['law']}, {t['reading']} (slope {t['slope_in_n']:.1f})")
    ax1.set_xlabel("number of data n")
    ax1.set_ylabel("smallest C in 2exp(−ε²/(nCh²)) (dimensionless)")
    ax1.set_title("tail bound: C must not grow with n", fontsize=9)
    ax1.legend(fontsize=6, frameon=False)
    return _save(fig, out, "thm42")


def draw_thmH1(res: Path, out: Path) -> list[Path]:
    """Theorem H.1: sup_k ‖E z_k − E z'_k‖ vs h (measured, first-order prediction) and the deviation over time."""
    s = read_json(res / "thmH1.json")
    rows = read_csv(res / "thmH1.csv")
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 3.8))
    ps = s["per_step"]
    h = np.array([e["step_size"] for e in ps])
    y = np.array([e["sup_norm"] for e in ps])
    ci = np.array([e["sup_norm_ci"] for e in ps])
    # the debiased point estimate can sit outside its percentile interval: clip the bar lengths at 0
    ax0.errorbar(h, y, yerr=[np.clip(y - ci[:, 0], 0, None), np.clip(ci[:, 1] - y, 0, None)], fmt="o", ms=4,
                 label="EWSG (M=1) − SGHMC: sup-norm (debiased; 95% bootstrap interval)")
    amp = np.array([e["amplitude"] for e in ps])
    ax0.errorbar(h * 1.04, amp, yerr=[3 * e["amplitude_se"] for e in ps], fmt="s", ms=3,
                 label="amplitude along the first-order profile (±3 s.e.)")
    ax0.loglog(h, [e["predicted_sup_norm"] for e in ps], "k--", lw=1, label="first order (linear response)")
    if "order_fit_amplitude" in s:
        f = s["order_fit_amplitude"]
        xf = np.array(f["x"])
        ax0.loglog(xf, np.exp(np.polyfit(np.log(xf), np.log(f["y"]), 1)[1]) * xf ** f["slope"], "r-", lw=1,
                   label=f"fit on h <= {max(xf):g}: slope {f['slope']:.2f} [{f['ci_low']:.2f}, {f['ci_high']:.2f}]")
    ax0.set_xlabel("step size h (dimensionless)")
    ax0.set_ylabel("sup_k ‖E z_k − E z'_k‖ (units of θ)")
    ax0.set_title("Thm H.1: O(h^p), p = 1 expected", fontsize=9)
    ax0.legend(fontsize=6, frameon=False)
    for j, hh in enumerate(sorted({r["step_size"] for r in rows})[::2]):
        rr = sorted((r for r in rows if r["step_size"] == hh), key=lambda r: r["t"])
        t = [r["t"] for r in rr]
        ax1.plot(t, np.array([r["dev_theta_1"] for r in rr]) / hh, color=f"C{j}", label=f"h={hh:g}")
        ax1.plot(t, np.array([r["pred_theta_1"] for r in rr]) / hh, ":", color=f"C{j}")
    ax1.set_xlabel("t = kh (dimensionless time)")
    ax1.set_ylabel("(E θ_k − E θ'_k)_1 / h (units of θ per unit h)")
    ax1.set_title("deviation / h over time (dotted: first order)", fontsize=9)
    ax1.legend(fontsize=6, frameon=False)
    return _save(fig, out, "thmH1")


def draw_split(res: Path, out: Path) -> list[Path]:
    """SGHMC's exact stationary bias split, and EWSG's signed long-run bias against the grids of Figs 1e and 1f."""
    sp = read_csv(res / "split_sghmc.csv")
    eb = read_csv(res / "ewsg_bias.csv")
    summ = read_json(res / "split.json")
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 3.8))
    h = np.array([r["step_size"] for r in sp])
    for key, lab in (("bias_total", "total"), ("bias_full_gradient", "full-gradient integrator"),
                     ("bias_stochastic_gradient", "stochastic gradient")):
        ax0.loglog(h, [r[key] for r in sp], label=lab)
    ax0.loglog(h, summ["sg_factor_per_unit_h"] * h * summ["phi_bar"], "k:", lw=1, label="(h tr Q/(dσ²))·φ̄ (slope 1)")
    sl = summ["slopes"]
    ax0.axvspan(min(sl["fig1f_grid"]), max(sl["fig1f_grid"]), color="0.9", label="Fig. 1f grid")
    ax0.set_xlabel("step size h (dimensionless)")
    ax0.set_ylabel("stationary bias of E‖θ−μ‖² (units of θ²)")
    ax0.set_title(f"SGHMC, exact: bias² slope on 1f grid {sl['stationary_bias_sq_total']:.2f} "
                  f"(FG {sl['stationary_bias_sq_full_gradient']:.2f}, SG {sl['stationary_bias_sq_stochastic_gradient']:.2f})",
                  fontsize=8)
    ax0.legend(fontsize=6, frameon=False)
    he = np.array([r["step_size"] for r in eb])
    ax1.errorbar(he, [r["bias"] for r in eb], yerr=[3 * r["se"] for r in eb], fmt="o", ms=4, label="EWSG (M=1), ±3 s.e.")
    lr = [(r["step_size"], r["linear_response_bias"]) for r in eb if r["linear_response_bias"] != ""]
    ax1.plot([a for a, _ in lr], [b for _, b in lr], "k--", lw=1, label="EWSG first order (where stable)")
    ax1.plot(he, [r["sghmc_exact_bias"] for r in eb], "C1:", label="SGHMC exact")
    ax1.axhline(0, color="k", lw=0.8)
    ax1.set_xscale("log")
    ax1.set_yscale("symlog", linthresh=1e-3)
    ax1.axvspan(min(sl["fig1e_grid"]), max(sl["fig1e_grid"]), color="C2", alpha=0.1, label="Fig. 1e grid")
    ax1.axvspan(min(sl["fig1f_grid"]), max(sl["fig1f_grid"]), color="0.85", alpha=0.5, label="Fig. 1f grid")
    ax1.set_xlabel("step size h (dimensionless)")
    ax1.set_ylabel("long-run E φ̂ − φ̄ (units of φ)")
    ax1.set_title("EWSG's long-run bias changes sign", fontsize=9)
    ax1.legend(fontsize=6, frameon=False)
    return _save(fig, out, "split")


def draw_remark1(res: Path, out: Path) -> list[Path]:
    """Remark 1 on the (h, T) plane: where the stochastic-gradient h/T term beats the h² term (SGHMC, exact)."""
    rows = read_csv(res / "remark1.csv")
    rates = read_json(res / "rates.json")
    fig, ax = plt.subplots(figsize=(5.6, 4.2))
    hs = sorted({r["step_size"] for r in rows})
    bnd = [next(r["boundary_T"] for r in rows if r["step_size"] == h) for h in hs]
    ax.loglog(hs, bnd, "k-", label="SGHMC exact: term 2 = term 3")
    dom = [r for r in rows if r["term2_dominates_term3"]]
    ax.scatter([r["step_size"] for r in dom], [r["T"] for r in dom], s=10, c="C0", label="term 2 > term 3")
    nd = [r for r in rows if not r["term2_dominates_term3"]]
    ax.scatter([r["step_size"] for r in nd], [r["T"] for r in nd], s=10, c="C3", marker="x", label="term 3 >= term 2")
    j = rates["joint_fit"]
    if j["coef"]["C2"] > 0 and j["coef"]["C3"] > 0:
        ax.loglog(hs, j["coef"]["C2"] / (j["coef"]["C3"] * np.array(hs)), "C2--", label="EWSG fitted C2/(C3 h)")
    st = rates["settings"]
    ax.scatter(st["e_steps"], [st["e_time"]] * len(st["e_steps"]), marker="s", facecolors="none", edgecolors="C4",
               label="Fig. 1e points")
    ax.scatter(st["f_steps"], [st["f_time"]] * len(st["f_steps"]), marker="D", facecolors="none", edgecolors="C5",
               label="Fig. 1f points")
    ax.set_xlabel("step size h (dimensionless)")
    ax.set_ylabel("T = Kh (dimensionless time)")
    ax.set_title("Remark 1: the 2nd term dominates the 3rd only below the line", fontsize=9)
    ax.legend(fontsize=6, frameon=False)
    return _save(fig, out, "remark1")


def draw_fig1c_repeat(res: Path, out: Path) -> list[Path]:
    """Fig. 1c repeated: KL at 30 passes vs M for every data draw, one panel per h; its mean part dashed."""
    rows = read_csv(res / "fig1c_repeat.csv")
    summ = read_json(res / "fig1c_repeat.json")
    hs = sorted({r["step_size"] for r in rows})
    seeds = list(dict.fromkeys(r["data_seed"] for r in rows))
    fig, axes = plt.subplots(1, len(hs), figsize=(2.6 * len(hs), 3.4), sharey=True, squeeze=False)
    status = {(c["data_seed"], c["step_size"]): c["status"] for c in summ["configurations"]}
    for ax, h in zip(axes[0], hs):
        for j, sd in enumerate(seeds):
            rr = sorted((r for r in rows if r["step_size"] == h and r["data_seed"] == sd),
                        key=lambda r: r["index_chain_length"])
            M = [r["index_chain_length"] for r in rr]
            mono = status.get((sd, h)) == "monotone"
            ax.plot(M, [r["kl"] for r in rr], "o-" if mono else "x-", color=f"C{j % 10}", ms=3, lw=1,
                    label=f"seed {int(sd)}")
            ax.plot(M, [max(r["kl_mean"], 1e-4) for r in rr], ":", color=f"C{j % 10}", lw=0.8)
        ax.set_yscale("log")
        ax.set_xscale("symlog", linthresh=1)
        ax.set_xlabel("index-chain length M (steps)")
        ax.set_title(f"h = {h:g}", fontsize=9)
    axes[0, 0].set_ylabel("KL(target ‖ samples) at 30 passes\n(dotted: mean part)")
    axes[0, 0].legend(fontsize=5, frameon=False)   # the seeds are the same series in every panel
    fig.suptitle(f"Fig. 1c repeated: o = monotone in M, x = not ({summ['counts']})", fontsize=9)
    fig.tight_layout()
    return _save(fig, out, "fig1c_repeat")


#: The §4 theory panels and the files each reads (drawn when those exist).
THEORY_PANELS = ((("thm41.csv", "thm41.json"), draw_thm41), (("thm42.csv", "thm42.json"), draw_thm42),
                 (("thmH1.csv", "thmH1.json"), draw_thmH1),
                 (("split_sghmc.csv", "ewsg_bias.csv", "split.json"), draw_split),
                 (("remark1.csv", "rates.json"), draw_remark1),
                 (("fig1c_repeat.csv", "fig1c_repeat.json"), draw_fig1c_repeat))


# ==== §5.3 Bayesian MLP (Fig. 3a, Table 2 MLP column) and Appendix G.3 (Table 3) — issue #12 part B ====
# Appended block: draw_bnn and a draw_all that adds it to the panels above (reads bnn.* and table3.* only).

def _bnn_curves(ax, rows, key, methods, colors):
    for m in methods:
        rr = [r for r in rows if r["method"] == m]
        xs = np.array(sorted({r["passes"] for r in rr}))
        chains = sorted({int(r["chain"]) for r in rr})
        Y = np.full((len(chains), xs.size), np.nan)
        for r in rr:
            Y[chains.index(int(r["chain"])), np.searchsorted(xs, r["passes"])] = 100 * r[key]
        mu = np.nanmean(Y, axis=0)
        ax.plot(xs, mu, color=colors[m], label=f"{m} (h={rr[0]['step_size']:g})")
        if len(chains) > 1:
            sd = np.nanstd(Y, axis=0, ddof=1)
            ax.fill_between(xs, mu - sd, mu + sd, color=colors[m], alpha=0.2, lw=0)


def _bnn_panel(rows, js, out, name="bnn_fig3a", label="Fig. 3a: Bayesian MLP"):
    methods = list(dict.fromkeys(r["method"] for r in rows))
    colors = dict(zip(methods, sns.color_palette("colorblind", len(methods))))
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.8))
    for ax, key, lab in zip(axes, ("train_error", "test_error"), ("training error [%]", "test error [%]")):
        _bnn_curves(ax, rows, key, methods, colors)
        ax.set_xlabel("epochs (data passes)")
        ax.set_ylabel(lab)
        ax.set_yscale("log")
    d, s = js["data"], js["settings"]
    arch = f"d = {d['dim']:,}" if "paper_architecture" in d else d["architecture"].split(",")[0]
    axes[0].set_title(f"{label} {arch}, {d['n_train']} training images", fontsize=9)
    axes[1].set_title(f"posterior-predictive average, {s['chains']} chains (shade: ±1 s.d.)", fontsize=9)
    axes[1].legend(fontsize=7, frameon=False)
    fig.subplots_adjust(bottom=0.22, wspace=0.25)
    paper = f"; {d['paper_architecture']}" if "paper_architecture" in d else ""
    fig.text(0.01, 0.01, f"data: {d['source']}, {s['epochs']:g} epochs\n(paper: full MNIST, 60,000 / 10,000, 200 epochs"
             f"{paper})", fontsize=6, color="0.4")
    return _save(fig, out, name)


def _table3_panel(js, out):
    cells = js["cells"]
    fig, ax = plt.subplots(figsize=(6.0, 3.8))
    x = np.arange(len(cells))
    for m, off, col in (("EWSG", -0.17, "C0"), ("SGHMC", 0.17, "C1")):
        mu = [100 * (c["final"][m]["test_error"]["mean"] or np.nan) for c in cells]
        se = [100 * (c["final"][m]["test_error"]["se"] or 0.0) for c in cells]
        ax.errorbar(x + off, mu, yerr=2 * np.array(se), fmt="o", color=col,
                    label=f"{m} ({'b, M' if m == 'EWSG' else 'b(M+1)'})")
    ax.set_xticks(x, [f"b={c['b']}\nM+1={c['m_plus_one']}" for c in cells], fontsize=7)
    ax.set_xlabel("cell: minibatch b and index-chain length M + 1 (SGHMC: batch b(M+1))", fontsize=8)
    ax.set_ylabel("test error [%] (±2 s.e. over chains)")
    s = js["settings"]
    ax.set_title(f"Table 3: EWSG vs SGHMC at equal data per update, {s['epochs']:g} epochs, h = sqrt(10/(b(M+1)n))",
                 fontsize=8)
    ax.legend(fontsize=7, frameon=False)
    return _save(fig, out, "table3")


def draw_bnn(results="results/ewsg", out="figures/out/ewsg") -> list[Path]:
    """Draw Fig. 3a (MLP) and Fig. 3b (CNN, reduced width; training and test error vs epochs) and Table 3 (EWSG vs
    SGHMC per cell) from stored results.

    Panels whose result files are absent are skipped.

    Raises
    ------
    sgmcmc_verify.errors.ResultFileError
        A result file that is unreadable or lacks the columns a panel needs.
    """
    res, out = Path(results), Path(out)
    sns.set_theme(style="whitegrid", context="paper")
    paths = []
    if (res / "bnn.csv").exists() and (res / "bnn.json").exists():
        paths += _bnn_panel(read_csv(res / "bnn.csv"), read_json(res / "bnn.json"), out)
    if (res / "cnn.csv").exists() and (res / "cnn.json").exists():
        paths += _bnn_panel(read_csv(res / "cnn.csv"), read_json(res / "cnn.json"), out, "bnn_fig3b",
                            "Fig. 3b: Bayesian CNN")
    if (res / "table3.json").exists():
        paths += _table3_panel(read_json(res / "table3.json"), out)
    return paths


__all__ += ["draw_bnn"]
