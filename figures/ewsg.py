"""EWSG Figure 1 (panels a–f), drawn from ``results/ewsg/*.csv`` and ``rates.json`` only.

``sgmcmc-verify figures ewsg [--results results] [--out figures/out]`` writes
``fig1a.png`` … ``fig1f.png`` and the same as PDF.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402

from verify.ledger.claims import format_ci  # noqa: E402
from verify.store.io import read_csv, read_json  # noqa: E402

__all__ = ["draw_all", "draw_appendix"]


def _save(fig, out: Path, name: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    for ax in fig.axes:
        if ax.get_xscale() == "log":
            ax.xaxis.set_minor_formatter(NullFormatter())
    paths = []
    for ext in ("png", "pdf"):
        p = out / f"{name}.{ext}"
        fig.savefig(p, dpi=150, bbox_inches="tight")
        paths.append(p)
    plt.close(fig)
    return paths


def _fmt_fit(fit: dict) -> str:
    return f"slope {fit['slope']:.2f} {format_ci(fit)} ({fit['status']})"


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


def draw_all(results="results/ewsg", out="figures/out/ewsg") -> list[Path]:
    """Draw the six panels of EWSG Figure 1 from stored results; returns the written paths.

    Raises
    ------
    FileNotFoundError
        If a results file is missing (run ``sgmcmc-verify run ewsg`` first).
    """
    res, out = Path(results), Path(out)
    sns.set_theme(style="whitegrid", context="paper")
    rates = read_json(res / "rates.json")
    paths = []
    paths += _kl_panel(read_csv(res / "fig1a.csv"), "1a: SG-MCMC methods, Gaussian target (n=50)", out, "fig1a")
    paths += _kl_panel(read_csv(res / "fig1b.csv"), "1b: EWSG, choices of x (h=0.07, M=1)", out, "fig1b")
    paths += _kl_panel(read_csv(res / "fig1c.csv"), "1c: EWSG, index-chain length M (fair data passes)", out, "fig1c")

    # 1d
    rd = read_csv(res / "fig1d.csv")
    fd = rates["fig1d"]
    T = np.array([r["T"] for r in rd])
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    ax.loglog(T, [r["mse"] for r in rd], "o-", label="EWSG (M=1), measured")
    ax.loglog(T, [r["continuous_limit_mse"] for r in rd], "k:", label="continuous dynamics, exact")
    xf = np.array(fd["x"])
    ax.loglog(xf, np.exp(fd["intercept"]) * xf ** fd["slope"], "r--", lw=1, label=_fmt_fit(fd))
    ax.set_xlabel("T = Kh")
    ax.set_ylabel("MSE of time average of ‖θ−μ‖²")
    ax.set_title(f"1d: MSE vs T (h={fd['step_size']:g}); expected slope −1", fontsize=10)
    ax.legend(fontsize=7, frameon=False)
    paths += _save(fig, out, "fig1d")

    # 1e
    re_ = read_csv(res / "fig1e.csv")
    fe = rates["fig1e"]
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    for meth, c in (("EWSG", "C0"), ("SGHMC", "C1")):
        rr = [r for r in re_ if r["method"] == meth]
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
    ax.set_xlabel("step size h")
    ax.set_ylabel("MSE")
    ax.set_title(f"1e: MSE vs h at T={fe['T']:g}; expected slope +1", fontsize=10)
    ax.legend(fontsize=6, frameon=False)
    paths += _save(fig, out, "fig1e")

    # 1f
    rf = read_csv(res / "fig1f.csv")
    ff = rates["fig1f"]
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    for meth, mk in (("EWSG", "o-"), ("SGHMC", "^-")):
        rr = [r for r in rf if r["method"] == meth]
        ax.loglog([r["step_size"] for r in rr], [r["mse"] for r in rr], mk, label=f"{meth}, " + _fmt_fit(ff[meth]))
    rr = [r for r in rf if r["method"] == "SGHMC"]
    ax.loglog([r["step_size"] for r in rr], [r["exact_stationary_bias_sq"] for r in rr], "k:", lw=1,
              label=f"SGHMC exact bias² (Lyapunov), slope {ff['SGHMC']['exact_stationary_slope']:.2f}")
    ax.set_xlabel("step size h")
    ax.set_ylabel("long-run MSE")
    ax.set_title(f"1f: long-run MSE vs h (T={ff['T']:g}); expected slope +2", fontsize=10)
    ax.legend(fontsize=6.5, frameon=False)
    paths += _save(fig, out, "fig1f")
    return paths + draw_appendix(res, out)


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

