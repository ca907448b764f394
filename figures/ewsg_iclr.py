"""EWSG conference text, Figure 1 (panels a–l) and Theorem 2, drawn from ``results/ewsg_iclr/`` only.

``sgmcmc-verify figures ewsg_iclr [--results results] [--out figures/out]`` writes ``fig1a.png`` …
``fig1l.png`` and ``thm2.png`` (and PDF).
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import seaborn as sns  # noqa: E402

from sgmcmc_verify.figures._common import draw_available, draws_results  # noqa: E402
from sgmcmc_verify.figures.ewsg import _KL_COLUMNS, _fmt_fit, _kl_panel, _save  # noqa: E402
from sgmcmc_verify.store.io import read_csv, read_json  # noqa: E402

__all__ = ["draw_all"]


def _kl_axes(ax, rows, title):
    labels = list(dict.fromkeys(r["label"] for r in rows))
    colors = dict(zip(labels, sns.color_palette("colorblind", len(labels))))
    for lab in labels:
        rr = [r for r in rows if r["label"] == lab]
        ax.plot([r["passes"] for r in rr], [r["kl"] for r in rr], color=colors[lab], label=lab.split(",")[0])
        ex = [r["kl_exact"] for r in rr]
        if all(isinstance(v, float) for v in ex):
            ax.plot([r["passes"] for r in rr], ex, color=colors[lab], ls=":", lw=1.2)
    ax.axhline(rows[0]["kl_floor"], color="0.5", lw=0.8, ls="--", label="estimation floor")
    ax.set_yscale("log")
    ax.set_xlabel("data passes")
    ax.set_ylabel("KL(target ‖ samples) [nats]")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6.5, frameon=False)


def _fig1b(res, out):
    rows = read_csv(res / "fig1b.csv")
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for ax, key, unit in ((axes[0], "tau", "steps"), (axes[1], "tau_evaluations", "gradient evaluations")):
        for meth, c in (("SGHMC", "C1"), ("EWSG", "C0")):
            rr = sorted((r for r in rows if r["method"] == meth), key=lambda r: r["step_size"])
            ax.errorbar([r[key] for r in rr], [r["kl"] for r in rr], yerr=[2 * r["kl_se"] for r in rr],
                        xerr=[2 * r[key + "_se"] for r in rr],
                        fmt="o-", color=c, ms=4, capsize=2, label=meth)
            for r in rr:
                ax.annotate(f"{r['step_size']:g}", (r[key], r["kl"]), fontsize=5.5, color=c,
                            xytext=(3, 3), textcoords="offset points")
        ex = sorted((r for r in rows if r["method"] == "SGHMC"), key=lambda r: r["step_size"])
        ax.plot([r["tau_exact"] for r in ex], [r["kl_stationary_exact"] for r in ex], "k:", lw=1,
                label="SGHMC exact (Lyapunov)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(f"integrated autocorrelation time of θ [{unit}]")
        ax.legend(fontsize=7, frameon=False)
    axes[0].set_ylabel("stationary KL(target ‖ samples) [nats]")
    fig.suptitle("1b: stationary error vs autocorrelation time (n=20, M=1; labels: h; bars ±2 s.e.)", fontsize=10)
    return _save(fig, out, "fig1b")


def _fig1c(res, out):
    rows = read_csv(res / "fig1c.csv")
    hs = sorted({r["step_size"] for r in rows})
    fig, axes = plt.subplots(1, len(hs), figsize=(5 * len(hs), 3.8), sharey=True)
    for ax, h in zip(np.atleast_1d(axes), hs):
        _kl_axes(ax, [r for r in rows if r["step_size"] == h], f"1c: EWSG (M=1), choices of x, h={h:g}, n=20")
    return _save(fig, out, "fig1c")


def _m_label(m):
    return "∞ (4)" if not np.isfinite(m) else f"{m:g}"


def _fig1d(res, out):
    rows = read_csv(res / "fig1d_local.csv")
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(5.4, 3.8))
    for col, c, lab in (("bias_sq", "C3", "squared bias ‖E[ĝ|F] − ∇V‖²"), ("trace_cov", "C0", "variance Tr Cov(ĝ|F)"),
                        ("local_mse", "k", "local MSE (sum)")):
        ax.errorbar(x, [max(r[col], 1e-3) for r in rows], yerr=[2 * r[col + "_se"] for r in rows], fmt="o-",
                    color=c, ms=4, capsize=2, label=lab)
    ax.axhline(rows[0]["trace_cov"], color="C0", ls=":", lw=1, label="uniform subsampling variance (M = 0)")
    ax.set_yscale("log")
    ax.set_xticks(x, [_m_label(r["index_chain_length"]) for r in rows])
    ax.set_xlabel("index chain length M")
    ax.set_ylabel("local stochastic-gradient error (units of gradient²)")
    ax.set_title(f"1d: exact local bias and variance vs M (h={rows[0]['step_size']:g}, n=20)", fontsize=9.5)
    ax.legend(fontsize=7, frameon=False)
    return _save(fig, out, "fig1d")


def _fig1e(res, out):
    rows = read_csv(res / "fig1e_time_average.csv")
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(5.4, 3.8))
    ax.errorbar(x, [r["bias_sq"] for r in rows], yerr=[4 * abs(r["bias"]) * r["bias_se"] for r in rows], fmt="o-",
                color="C3", ms=4, capsize=2, label="bias² of the time average")
    ax.errorbar(x, [r["variance"] for r in rows], yerr=[2 * r["variance_se"] for r in rows], fmt="s-", color="C0",
                ms=4, capsize=2, label="variance of the time average")
    ax.plot(x, [r["mse"] for r in rows], "k--", lw=1, label="MSE")
    ax.set_yscale("log")
    ax.set_xticks(x, [_m_label(r["index_chain_length"]) for r in rows])
    ax.set_xlabel("index chain length M")
    ax.set_ylabel("of the time average of ‖θ − μ‖² (units of θ⁴)")
    ax.set_title(f"1e: time-average bias² and variance vs M (h={rows[0]['step_size']:g}, T={rows[0]['T']:g})",
                 fontsize=9.5)
    ax.legend(fontsize=7, frameon=False)
    return _save(fig, out, "fig1e")


def _fig1gh(res, out):
    rows = read_csv(res / "fig1gh.csv")
    hs = sorted({r["step_size"] for r in rows})
    h = 5e-2 if 5e-2 in hs else hs[len(hs) // 2]
    paths = []
    for n, name in ((50, "fig1g"), (100, "fig1h"), (20, "fig1g_n20")):
        rr = [r for r in rows if r["n_data"] == n and r["step_size"] == h]
        if not rr:
            continue
        fig, ax = plt.subplots(figsize=(5.2, 3.8))
        _kl_axes(ax, rr, f"{name[:5]}: EWSG, M at equal data passes, n={n}, b=1, h={h:g} (first data draw)")
        paths += _save(fig, out, name)
    return paths


def _fig1i(res, out):
    rows = read_csv(res / "best_m.csv")
    keys = sorted({(r["step_size"], r["data_seed"]) for r in rows})
    ns = sorted({r["n_data"] for r in rows})
    best = np.zeros((len(keys), len(ns)))
    text = np.empty(best.shape, dtype=object)
    for i, (h, seed) in enumerate(keys):
        for j, n in enumerate(ns):
            rr = [r for r in rows if r["data_seed"] == seed and r["step_size"] == h and r["n_data"] == n]
            b = min(rr, key=lambda r: r["kl"])
            tied = sorted(int(r["index_chain_length"]) for r in rr
                          if r["kl"] - b["kl"] <= 3 * np.hypot(r["kl_se"], b["kl_se"]))
            best[i, j] = np.log10(b["index_chain_length"] + 1)
            text[i, j] = ",".join(str(m) for m in tied)
    fig, ax = plt.subplots(figsize=(4.8, 0.32 * len(keys) + 1.4))
    sns.heatmap(best, annot=text, fmt="", cmap="crest", cbar_kws={"label": "log10(best M + 1)"}, ax=ax,
                xticklabels=[f"{n:g}" for n in ns], yticklabels=[f"h={h:g}, draw {int(s) % 100}" for h, s in keys],
                annot_kws={"fontsize": 7})
    ax.set_xlabel("n / b (b = 1; ratio)")
    ax.set_ylabel("step size h, data draw")
    ax.set_title("1i: KL-best M after 30 passes (cell: M tied within 3 s.e.)", fontsize=9)
    return _save(fig, out, "fig1i")


def _theorem4(res, out):
    rates = read_json(res / "thm4_rates.json")
    paths = []
    rj, fj = read_csv(res / "fig1j.csv"), rates["fig1j"]
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    T = np.array([r["T"] for r in rj])
    ax.loglog(T, [r["mse"] for r in rj], "o-", label="EWSG (M=1), measured")
    ax.loglog(T, [r["continuous_limit_mse"] for r in rj], "k:", label="continuous dynamics, exact")
    xf = np.array(fj["x"])
    ax.loglog(xf, np.exp(fj["intercept"]) * xf ** fj["slope"], "r--", lw=1, label=_fmt_fit(fj))
    ax.set_xlabel("T = Kh (dimensionless time)")
    ax.set_ylabel("MSE of time average of ‖θ−μ‖² (units of θ⁴)")
    ax.set_title(f"1j: MSE vs T (n=20, h={fj['step_size']:g}); expected slope −1", fontsize=10)
    ax.legend(fontsize=7, frameon=False)
    paths += _save(fig, out, "fig1j")
    rk, fk = read_csv(res / "fig1k.csv"), rates["fig1k"]
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    for meth, c in (("EWSG", "C0"), ("SGHMC", "C1")):
        rr = [r for r in rk if r["method"] == meth]
        h = np.array([r["step_size"] for r in rr])
        ax.loglog(h, [r["mse"] for r in rr], "o-", color=c, label=f"{meth} MSE, " + _fmt_fit(fk[meth]["naive"]))
        ev = np.array([r["excess_variance"] for r in rr])
        ax.loglog(h[ev > 0], ev[ev > 0], "s--", color=c, ms=4, label=f"{meth} variance − C1/T")
    ax.axhline(fk["continuous_limit_mse"], color="k", ls=":", lw=1, label="continuous limit C1/T (exact)")
    ax.set_xlabel("step size h (dimensionless)")
    ax.set_ylabel("MSE (units of θ⁴)")
    ax.set_title(f"1k: MSE vs h at T={fk['T']:g} (n=20); expected slope +1", fontsize=10)
    ax.legend(fontsize=6, frameon=False)
    paths += _save(fig, out, "fig1k")
    rl, fl = read_csv(res / "fig1l.csv"), rates["fig1l"]
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    for meth, mk in (("EWSG", "o-"), ("SGHMC", "^-")):
        rr = [r for r in rl if r["method"] == meth]
        ax.loglog([r["step_size"] for r in rr], [r["mse"] for r in rr], mk, label=f"{meth}, " + _fmt_fit(fl[meth]))
    rr = [r for r in rl if r["method"] == "SGHMC"]
    ax.loglog([r["step_size"] for r in rr], [r["exact_stationary_bias_sq"] for r in rr], "k:", lw=1,
              label=f"SGHMC exact bias², slope {fl['SGHMC']['exact_stationary_slope']:.2f}")
    ax.set_xlabel("step size h (dimensionless)")
    ax.set_ylabel("long-run MSE (units of θ⁴)")
    ax.set_title(f"1l: long-run MSE vs h (T={fl['T']:g}, n=20); expected slope +2", fontsize=10)
    ax.legend(fontsize=6.5, frameon=False)
    paths += _save(fig, out, "fig1l")
    return paths


def _theorem2(res, out):
    rows = read_csv(res / "thm2_density.csv")
    d = read_json(res / "thm2.json")
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 3.8))
    ax = axes[0]
    x = [r["x"] for r in rows]
    od = d["one_dimensional"]
    for col, st, lab in (("full_gradient", "k-", "full-gradient EM kernel P^EM"),
                         ("theorem2_printed", "C3-", f"Theorem 2 as printed (mass {od['mass']:.3f})"),
                         ("theorem2_renormalized", "C3--", f"same, renormalized (TV {od['tv_literal_normalized']:.2f})"),
                         ("fixed_x_mixture", "C0-", f"weights (4) at x = √hγr/σ (TV {od['tv_fixed_x']:.2f})")):
        ax.plot(x, [r[col] for r in rows], st, lw=1.2, label=lab)
    ax.set_xlabel("x = (r_{k+1} − r_k + hγ r_k)/(σ√h) (dimensionless)")
    ax.set_ylabel("density (per unit of x)")
    ax.set_title(f"Theorem 2, 1-D instance (n={d['instance']['n']}, h={d['instance']['step_size']:g})", fontsize=10)
    ax.legend(fontsize=7, frameon=False)
    ax = axes[1]
    sw = d["step_size_sweep"]
    h = [s["step_size"] for s in sw]
    ax.loglog(h, [1 - s["literal_mass"] for s in sw], "o-", color="C3", label="1 − mass of the printed kernel")
    ax.loglog(h, [1 - s["literal_mass_bound"] for s in sw], "k:", label="1 − exp(−h tr Cov_U/(2σ²)) (lower bound)")
    ax.loglog(h, [s["fixed_x_mean_shift"] for s in sw], "s-", color="C0", label="fixed-x mean shift [noise s.d.]")
    ax.set_xlabel("step size h (dimensionless)")
    ax.set_ylabel("defect (probability mass; mean shift in noise s.d.)", fontsize=8)
    ax.set_title("defect vs h (§5.1 instance, n=20, d=2, one state)", fontsize=10)
    ax.legend(fontsize=7, frameon=False)
    return _save(fig, out, "thm2")


#: Every panel with the files it reads (drawn when those exist).
PANELS = ((("fig1a.csv",), lambda res, out: _kl_panel(read_csv(res / "fig1a.csv", columns=_KL_COLUMNS),
                                                      "1a: SG-MCMC methods, Gaussian target (n=20)", out, "fig1a")),
          (("fig1b.csv",), _fig1b), (("fig1c.csv",), _fig1c), (("fig1d_local.csv",), _fig1d),
          (("fig1e_time_average.csv",), _fig1e), (("fig1gh.csv",), _fig1gh), (("best_m.csv",), _fig1i),
          (("thm4_rates.json", "fig1j.csv", "fig1k.csv", "fig1l.csv"), _theorem4),
          (("thm2_density.csv", "thm2.json"), _theorem2))


@draws_results
def draw_all(results="results/ewsg_iclr", out="figures/out/ewsg_iclr") -> list[Path]:
    """Draw the conference text's Figure 1 panels and the Theorem 2 figure from stored results.

    A panel whose result files are absent is skipped (``sgmcmc-verify figures`` says which results
    are missing).

    Raises
    ------
    sgmcmc_verify.errors.ResultFileError
        Naming a file that is truncated, garbled or lacks the columns a panel reads.
    """
    res, out = Path(results), Path(out)
    sns.set_theme(style="whitegrid", context="paper")
    return draw_available(PANELS, res, out)
