"""HSG-HMC figures, drawn from ``results/hsg_hmc/*.csv|json`` only.

``lemma2.png``  Lemma 2 gap (measured LHS − RHS) vs k, every schedule and step size (must be <= 0);
``lemma3.png``  E‖g^(k) − ∇f(x^(k))‖² vs k for ρ_k = 1/k, the periodic reset, ρ ≡ 0, ρ ≡ 1, with
                the first term 2G²/k of (10) and the full bound (10) with the target's constants;
``lemma3_growth.png`` Lemma 3's growth coefficient B (e_k ≈ A/k + c + B k) against η for exact-draw
                starts (Remark 2's γ and a fixed γ) and Lemma 3's start (0, 0), bootstrap intervals, with
                the bound's own coefficient C M² Ē η²; where the chains are (local mean-squared
                smoothness over the first quarter of the window relative to the target's, mode fractions);
``condition9.png`` the set of (γ, η) where condition (9) holds, Remark 2's line e^{−γη} = 0.9, the
                tested pairs;
``table2.png``  measured exact W2 per method ± s.e., the exact-vs-exact noise floor, the printed
                Table 2 values and the max-normalized Sinkhorn cost;
``figure1.png`` 2-D sample densities of every method (Figure 1) against the exact density contours;
``complexity.png`` gradients to reach W2 ≤ ε vs 1/ε (Table 1), each method tuned at each ε, exact moments
                on a quadratic sum with differing per-datum Hessians, fitted slopes with intervals;
``table2_readings.png`` the printed Table 2 cells against the noise floor of every reading (raw or cost/max,
                W2 or W2², exact or entropic) at the paper's 10⁵ samples, and the floor's n-extrapolation;
``blr.png``     test NLL vs data passes, Bayesian logistic regression (Figure 2) on built-in data sets;
``bnn.png``     test NLL and accuracy vs data passes, Bayesian neural network (Figure 3), LeNet and feedforward.

``sgmcmc-verify figures hsg_hmc``.
Data set: the synthetic mixture of the seed (N = 500, d = 2, a_i from a stated seed).
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import seaborn as sns  # noqa: E402

from sgmcmc_verify.figures._common import draw_available, save_figure, draws_results  # noqa: E402
from sgmcmc_verify.store.io import read_csv, read_json  # noqa: E402

__all__ = ["draw_all"]

METHODS = ("SGLD", "SGHMC", "SG-UL-MCMC", "SVRG-LD", "SRVR-HMC", "HSG-HMC")


def _save(fig, out: Path, name: str) -> list[Path]:
    if fig.get_layout_engine() is None:
        fig.tight_layout()   # titles, labels and tick labels of neighbouring panels kept apart
    return save_figure(fig, out, name)


def _lemma_figures(res: Path, out: Path) -> list[Path]:
    rows = read_csv(res / "lemma.csv")
    meta = read_json(res / "lemma.json")
    steps = sorted({r["step_size"] for r in rows})
    scheds = list(dict.fromkeys(r["schedule"] for r in rows))
    colors = dict(zip(scheds, sns.color_palette("colorblind", len(scheds))))
    paths = []
    fig, axes = plt.subplots(1, len(steps), figsize=(4.2 * len(steps), 3.4), squeeze=False)
    for ax, h in zip(axes[0], steps):
        for sc in scheds:
            rr = [r for r in rows if r["step_size"] == h and r["schedule"] == sc and r["k"] > 0]
            k = np.array([r["k"] for r in rr])
            g = np.array([r["lemma2_gap"] for r in rr])
            se = np.array([r["lemma2_gap_se"] for r in rr])
            ax.plot(k, g, color=colors[sc], lw=1, label=sc)
            ax.fill_between(k, g - 3 * se, g + 3 * se, color=colors[sc], alpha=0.2, lw=0)
        ax.axhline(0, color="k", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("iteration k")
        ax.set_ylabel("gap, must be ≤ 0 (units of V), ±3 s.e.")
        ax.set_title(f"Lemma 2 gap (LHS − RHS), η = {h:g}", fontsize=9)
    axes[0][0].legend(fontsize=7, frameon=False)
    paths += _save(fig, out, "lemma2")
    fig, axes = plt.subplots(1, len(steps), figsize=(4.2 * len(steps), 3.6), squeeze=False)
    for ax, h in zip(axes[0], steps):
        c = meta["constants"][f"{h:g}"]
        for sc in scheds:
            rr = [r for r in rows if r["step_size"] == h and r["schedule"] == sc and r["k"] > 0]
            k = np.array([r["k"] for r in rr])
            ax.loglog(k, [r["mse"] for r in rr], color=colors[sc], lw=1.2, label=sc)
        rr = [r for r in rows if r["step_size"] == h and r["schedule"] == "harmonic" and r["k"] > 0]
        k = np.array([r["k"] for r in rr])
        ax.loglog(k, [r["sigma2"] for r in rr], "k:", lw=1, label="one-sample variance σ²(x_k)")
        ax.loglog(k, 2 * c["G2"] / k, "k--", lw=0.8, label="2G²/k (first term of (10))")
        ax.loglog(k, [r["bound10"] for r in rr], color="grey", lw=0.8, label="bound (10), own constants")
        ax.set_xlabel("iteration k")
        ax.set_ylabel("E‖g^(k) − ∇f(x^(k))‖² (units of gradient²)")
        ok = "holds" if c["satisfies_condition9"] else "fails"
        ax.set_title(f"η = {h:g} (γ = {c['friction']:.3g}): condition (9) {ok} (see condition9.png)", fontsize=8)
    axes[0][0].legend(fontsize=6.5, frameon=False)
    paths += _save(fig, out, "lemma3")
    return paths


def _growth_figure(res: Path, out: Path) -> list[Path]:
    rows = read_csv(res / "growth.csv")
    meta = read_json(res / "growth.json")
    fig, ax = plt.subplots(1, 3, figsize=(14, 3.9))
    pal = sns.color_palette("colorblind", len(meta["fits"]))
    drawn = set()
    for col, (key, fit) in zip(pal, meta["fits"].items()):
        start, rule = key.split("|")
        rr = [r for r in rows if r["start"] == start and r["friction_rule"] == rule]
        h = np.array([r["step_size"] for r in rr])
        B = np.array([r["B"] for r in rr])
        lo, hi = np.array([r["B_ci_low"] for r in rr]), np.array([r["B_ci_high"] for r in rr])
        m = fit["measured"]
        lab = (f"{start} start, γ {rule}: η^{m['slope']:.2f} [{m['ci_low']:.2f}, {m['ci_high']:.2f}]"
               if m.get("slope") is not None else f"{start} start, γ {rule}: not resolved")
        ok = B > 0  # a coefficient fitted as 0 (no growth resolved) has no place on a log axis
        ax[0].errorbar(h[ok], B[ok], yerr=[(B - np.maximum(lo, B / 100))[ok], (hi - B)[ok]], fmt="o-", color=col,
                       capsize=2, label=lab)
        if rule not in drawn:
            drawn.add(rule)
            ax[1].plot(h, [r["bound_coefficient"] for r in rr], "o-", color=col, ms=3,
                       label=f"γ {rule}: η^{fit['bound_slope']:.2f} on this grid")
        ax[2].plot(h, [r["hess2_early"] / meta["exact_hess2"] for r in rr], "o-", color=col,
                   label=f"{start} start, γ {rule} (heavier-mode fraction "
                         f"{min(r['major_fraction'] for r in rr):.2f}-{max(r['major_fraction'] for r in rr):.2f})")
    h0 = np.array(sorted({r["step_size"] for r in rows}))
    ref = [r["B"] for r in rows if r["step_size"] == h0[-1] and r["start"] == "stationary"]
    if ref and max(ref) > 0:
        ax[0].plot(h0, max(ref) * (h0 / h0[-1]) ** 2, "k:", lw=1, label="∝ η²")
    ax[0].set(xscale="log", yscale="log", xlabel="step size η (dimensionless)", ylabel="growth coefficient B (units of gradient² per iteration;\n95 % bootstrap CI, lower end cut at B/100)")
    ax[0].set_title(f"measured, ρ_k = 1/k, T = Kη = {meta['horizon']:g}", fontsize=9)
    ax[0].legend(fontsize=6.5, frameon=False)
    cur = meta["bound_remark2_curve"]
    ax[1].plot(cur["step_size"], cur["coefficient"], color="grey", lw=1,
               label=f"γ Remark 2, all η: min at η = {meta['bound_remark2_argmin_step']:.1e}")
    ax[1].set(xscale="log", yscale="log", xlabel="step size η (dimensionless)", ylabel="C M² Ē η², slope in k of bound (10)\n(units of gradient² per iteration)")
    ax[1].set_title("the bound's own growth coefficient", fontsize=9)
    ax[1].legend(fontsize=6.5, frameon=False)
    ax[2].axhline(1.0, color="k", lw=0.8, ls="--", label=f"target (exact mode weight {meta['exact_major_fraction']:.3f})")
    ax[2].set(xscale="log", xlabel="step size η (dimensionless)", ylabel="mean (1/N)Σ‖∇²f_i(x_k)‖²_F / target value\n(ratio; first quarter of the window)")
    ax[2].set_title("where the chains are", fontsize=9)
    ax[2].legend(fontsize=6.5, frameon=False)
    return _save(fig, out, "lemma3_growth")


def _condition9_figure(res: Path, out: Path) -> list[Path]:
    rows = read_csv(res / "condition9.csv")
    meta = read_json(res / "condition9.json")
    g = np.array([r["friction"] for r in rows])
    e = np.array([r["eta_max"] for r in rows])
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    ax.fill_between(g, 1e-14, e, color="C2", alpha=0.35, lw=0, label="(9) holds: η ≤ η_max(γ)")
    ax.plot(g, e, color="C2", lw=1)
    for j, name in enumerate(meta["terms"]):
        ax.plot(g, [r[f"T{j + 1}"] for r in rows], lw=0.6, ls=":", label=f"T{j + 1} = {name}")
    ax.plot(g, -np.log(meta["remark2_decay"]) / g, "r-", lw=1.2, label="Remark 2: exp(−γη) = 0.9")
    ax.plot(g, (1 / 88) / g, "k--", lw=0.8, label="γη = 1/88 (T3 needs γη < 1/88)")
    ts = meta["tested"]
    ax.plot([t["friction"] for t in ts], [t["step_size"] for t in ts], "rx", label="step sizes run (Remark 2's γ)")
    b = meta["best"]
    ax.plot([b["friction"]], [b["eta_max"]], "k*", ms=9, label=f"largest η: {b['eta_max']:.2e} at γ = {b['friction']:.3g}")
    ax.set(xscale="log", yscale="log", xlabel="friction γ (dimensionless)", ylabel="step size η (dimensionless)", ylim=(1e-12, 10))
    ax.set_title("Lemma 3 condition (9) as a set (mixture target's M, m, b; u = 1)", fontsize=9)
    ax.legend(fontsize=5.8, frameon=False, loc="lower right")
    return _save(fig, out, "condition9")


def _table2_figures(res: Path, out: Path) -> list[Path]:
    rows = {r["method"]: r for r in read_csv(res / "table2.csv")}
    meta = read_json(res / "table2.json")
    floor = next(r for k, r in rows.items() if k.startswith("noise floor"))
    paths = []
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
    labels = list(METHODS) + ["HMC (MH reference)"]
    y = [rows[m]["w2_exact"] for m in labels]
    e = [3 * rows[m]["w2_exact_se"] for m in labels]
    ax[0].bar(range(len(labels)), y, yerr=e, color=sns.color_palette("colorblind", len(labels)), capsize=3)
    ax[0].axhspan(floor["w2_exact"] - 3 * floor["w2_exact_se"], floor["w2_exact"] + 3 * floor["w2_exact_se"],
                  color="grey", alpha=0.3, label="exact-vs-exact noise floor ±3 s.e.")
    ax[0].set_xticks(range(len(labels)), labels, rotation=35, ha="right", fontsize=7)
    ax[0].set_xlabel("method")
    ax[0].set_ylabel(f"exact W2 (units of θ; emd, {int(floor['emd_subsample'])} pts), ±3 s.e.")
    ax[0].legend(fontsize=7, frameon=False)
    pr = [meta["printed"][m] for m in METHODS]
    sk = [rows[m]["sinkhorn_cost_normalized"] for m in METHODS]
    xs = np.arange(len(METHODS))
    ax[1].semilogy(xs, pr, "ko", label="Table 2 as printed")
    conv = sum(str(rows[m].get("sinkhorn_normalized_converged")) in ("True", "1", "1.0") for m in METHODS)
    ax[1].semilogy(xs, sk, "s", color="C1",
                   label=f"Sinkhorn cost, cost/max, reg {meta['sinkhorn_reg']:g} (converged {conv}/{len(METHODS)})")
    ax[1].semilogy(xs, [rows[m]["w2_exact"] for m in METHODS], "^", color="C0", label="exact W2 (ours)")
    ax[1].axhline(floor["sinkhorn_cost_normalized"], color="C1", ls=":", lw=1, label="Sinkhorn (cost/max) floor")
    ax[1].set_xticks(xs, METHODS, rotation=35, ha="right", fontsize=7)
    ax[1].set_xlabel("method")
    ax[1].set_ylabel("W2 (units of θ), or Sinkhorn cost / max cost (ratio)")
    ax[1].legend(fontsize=6.5, frameon=False)
    ax[1].set_title("printed vs measured", fontsize=9)
    paths += _save(fig, out, "table2")
    # Figure 1
    samples = read_csv(res / "figure1_samples.csv")
    grid = read_csv(res / "figure1_grid.csv")
    gx = np.array(sorted({r["x"] for r in grid}))
    gy = np.array(sorted({r["y"] for r in grid}))
    Z = np.zeros((gx.size, gy.size))
    ix = {v: i for i, v in enumerate(gx)}
    iy = {v: i for i, v in enumerate(gy)}
    for r in grid:
        Z[ix[r["x"]], iy[r["y"]]] = r["prob"]
    panels = list(METHODS) + ["HMC (MH reference)"]
    # every panel as a density per unit area on one colour scale (one colour bar): the samples' 2-D histograms and
    # the exact grid's probabilities divided by the cell area
    lim = (-6, 7)
    edges = np.linspace(lim[0], lim[1], 61)
    dens = {}
    for m in panels:
        pts = np.array([[r["x"], r["y"]] for r in samples if r["method"] == m])
        dens[m] = np.histogram2d(pts[:, 0], pts[:, 1], bins=[edges, edges], density=True)[0]
    cell = float(np.mean(np.diff(gx)) * np.mean(np.diff(gy)))
    dens["exact"] = Z / cell
    norm = matplotlib.colors.Normalize(0.0, max(float(np.max(v)) for v in dens.values()))
    fig, axes = plt.subplots(2, 4, figsize=(13.5, 6.6), sharex=True, sharey=True, layout="constrained")
    for ax_, m in zip(axes.ravel(), panels + ["exact"]):
        if m == "exact":
            mesh = ax_.pcolormesh(gx, gy, dens[m].T, cmap="viridis", norm=norm, shading="auto")
            ax_.set_title(f"exact density\nmode weight {meta['grid']['exact_mode_weight']:.3f}", fontsize=8)
        else:
            ax_.pcolormesh(edges, edges, dens[m].T, cmap="viridis", norm=norm)
            ax_.set_title(f"{m}\nW2 {rows[m]['w2_exact']:.3f}, mode wt {rows[m]['mode_weight']:.2f}, "
                          f"switches/1k it {rows[m]['crossings_per_1000']:.2f}", fontsize=7)
        ax_.contour(gx, gy, Z.T, levels=np.quantile(Z[Z > 0], [0.9, 0.99, 0.999]), colors="r", linewidths=0.6)
        ax_.set_xlim(lim)
        ax_.set_ylim(lim)
    for ax_ in axes[1]:
        ax_.set_xlabel("x₁, first coordinate (units of θ)")
    for ax_ in axes[:, 0]:
        ax_.set_ylabel("x₂, second coordinate (units of θ)")
    fig.colorbar(mesh, ax=axes.ravel().tolist(), shrink=0.8, label="density (per unit area)")
    fig.suptitle("Figure 1: 2-D sample densities on one colour scale; red lines: exact density contours "
                 "(its 90 %, 99 %, 99.9 % quantiles)", fontsize=9)
    paths += _save(fig, out, "figure1")
    return paths


def _fit_label(f):
    if "exponent" not in f:
        return f"no fit ({f.get('points', 0)} eps reached)"
    return f"slope {f['exponent']:.2f} [{f['ci_low']:.2f}, {f['ci_high']:.2f}]"


def _complexity_figure(res: Path, out: Path) -> list[Path]:
    rows = read_csv(res / "complexity.csv")
    meta = read_json(res / "complexity.json")
    fits = meta["fits"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.0))
    labels = list(dict.fromkeys(r["method"] for r in rows))
    colors = dict(zip(labels, sns.color_palette("colorblind", len(labels))))
    for ax, key, fkey, title in ((axes[0], "evaluations", "first_hit", "first iterate with W2 ≤ ε"),
                                 (axes[1], "evaluations_stay", "stay_below", "W2 ≤ ε from there to the horizon")):
        for lab in labels:
            rr = [r for r in rows if r["method"] == lab]
            ok = [r for r in rr if np.isfinite(r[key])]
            f = fits[lab][fkey]
            ax.loglog([1 / r["epsilon"] for r in ok], [r[key] for r in ok], "o-", color=colors[lab], ms=3.5,
                      label=f"{lab}: {_fit_label(f)} (Table 1: {fits[lab]['table_exponent']:g})")
            miss = [r for r in rr if not np.isfinite(r[key])]
            if miss and ok:
                ax.plot([1 / r["epsilon"] for r in miss], [max(r[key] for r in ok)] * len(miss), "x", color=colors[lab])
        ax.set_xlabel("1/ε, ε = Bures W2 lower bound on exact moments (1/units of θ)")
        ax.set_ylabel("number of stochastic gradients\n(each method tuned at each ε)", fontsize=8)
        ax.set_title(title + " (x: not reached)", fontsize=9)
        ax.legend(fontsize=6, frameon=False)
    t = meta.get("target", {})
    fig.suptitle(f"Table 1 on a quadratic sum with differing per-datum Hessians (n = {t.get('n')}, d = {t.get('dim')}, "
                 f"Hessian spread {t.get('hessian_spread', float('nan')):.2f}), {meta.get('decades', float('nan')):.2f} "
                 "decades of ε; slopes with 95 % t-intervals", fontsize=9)
    return _save(fig, out, "complexity")


def _readings_figure(res: Path, out: Path) -> list[Path]:
    """Printed Table 2 cells against every reading's noise floor at the paper's 10⁵ samples."""
    d = read_json(res / "table2_readings.json")
    fl = d["floors_at_paper_n"]
    readings = [k for k in d["readings"] if k in fl]
    fig, axes = plt.subplots(1, 2, figsize=(11.5, 4.0))
    ax = axes[0]
    xs = np.arange(len(readings))
    for i, rd in enumerate(readings):
        ax.fill_between([i - 0.35, i + 0.35], fl[rd]["low"], max(fl[rd]["high"], fl[rd]["low"] * 1.05), color="grey",
                        alpha=0.5, lw=0)
    pal = sns.color_palette("colorblind", len(METHODS))
    for j, m in enumerate(METHODS):
        ax.plot(xs + (j - 2.5) * 0.05, [d["printed"][m]] * len(readings), "o", ms=3.5, color=pal[j],
                label=f"{m} printed {d['printed'][m]:.3g}")
    ax.set_yscale("log")
    ax.set_xticks(xs, readings, rotation=35, ha="right", fontsize=7)
    ax.set_xlabel("reading of the printed cells (scaling, distance, solver)")
    ax.set_ylabel("value (W2: units of θ; W2²: units of θ²; cost / max cost: ratio)")
    ax.set_title(f"printed cells vs each reading's i.i.d. noise floor at n = {d['paper_n']:,} (grey)", fontsize=9)
    ax.legend(fontsize=6, frameon=False)
    ax = axes[1]
    n = np.array(d["sizes"], float)
    ax.loglog(n, d["mean"]["w2sq_exact"], "ko", label="exact W2² floor (mean of pairs)")
    nn = np.geomspace(n.min(), d["paper_n"], 50)
    w = d["fits"]["w2sq"]
    ax.loglog(nn, w["log_n_over_n"]["c"] * np.log(nn) / nn, "C0-", lw=1, label="c log n / n")
    ax.loglog(nn, w["log2_n_over_n"]["c"] * np.log(nn) ** 2 / nn, "C1--", lw=1, label="c (log n)² / n")
    for m in METHODS:
        ax.axhline(d["printed"][m], color="grey", lw=0.4)
    ax.axvline(d["paper_n"], color="k", lw=0.6, ls=":")
    ax.set_xlabel("number of points per sample n")
    ax.set_ylabel("exact W2² between two i.i.d. samples (units of θ²)")
    ax.set_title("exact W2² floor vs n and its extrapolation (printed cells: grey lines)", fontsize=9)
    ax.legend(fontsize=6.5, frameon=False)
    return _save(fig, out, "table2_readings")


def _blr_figure(res: Path, out: Path) -> list[Path]:
    rows = read_csv(res / "blr.csv")
    dss = list(dict.fromkeys(r["dataset"] for r in rows))
    fig, axes = plt.subplots(1, len(dss), figsize=(4.8 * len(dss), 3.6), squeeze=False)
    for ax, ds in zip(axes[0], dss):
        for m in METHODS:
            rr = [r for r in rows if r["dataset"] == ds and r["method"] == m]
            if not rr:
                continue
            x = np.array([r["passes"] for r in rr])
            y = np.array([r["test_nll"] for r in rr])
            e = np.array([r["test_nll_se"] for r in rr])
            ax.plot(x, y, label=f"{m} ({rr[0]['hyperparameters']})")
            ax.fill_between(x, y - 2 * e, y + 2 * e, alpha=0.2, lw=0)
        ax.set_xlabel("data passes")
        ax.set_title(f"{ds} (built-in; the paper used LIBSVM sets)", fontsize=9)
    axes[0][0].set_ylabel("test NLL of the running predictive mean (nats/datum)")
    axes[0][0].legend(fontsize=5.5, frameon=True, framealpha=0.85, loc="best")
    return _save(fig, out, "blr")


def _bnn_figure(res: Path, out: Path) -> list[Path]:
    rows = read_csv(res / "bnn.csv")
    archs = list(dict.fromkeys(r["architecture"] for r in rows))
    names = {"lenet": "LeNet (the text)", "mlp": "feedforward 784-100-10 (the caption)"}
    fig, axes = plt.subplots(len(archs), 2, figsize=(10, 3.4 * len(archs)), squeeze=False)
    for row, arch in zip(axes, archs):
        for ax, q, lab in zip(row, ("nll", "acc"), ("test NLL (nats per image)", "test accuracy")):
            for m in METHODS:
                rr = [r for r in rows if r["architecture"] == arch and r["method"] == m]
                if not rr:
                    continue
                x = np.array([r["passes"] for r in rr])
                y = np.array([r[f"test_{q}"] for r in rr])
                e = np.array([r[f"test_{q}_se"] for r in rr])
                ax.plot(x, y, label=f"{m} ({rr[0]['hyperparameters']})")
                ax.fill_between(x, y - 2 * e, y + 2 * e, alpha=0.2, lw=0)
            ax.set_xlabel("data passes")
            ax.set_ylabel(lab)
            ax.set_title(f"{names.get(arch, arch)}; MNIST subset (paper: full MNIST)", fontsize=9)
        row[0].legend(fontsize=5.5, frameon=True, framealpha=0.85, loc="best")
    fig.tight_layout()
    return _save(fig, out, "bnn")


#: Every figure with the files it reads (drawn when those exist).
PANELS = ((("lemma.csv", "lemma.json"), _lemma_figures), (("growth.csv", "growth.json"), _growth_figure),
          (("condition9.csv", "condition9.json"), _condition9_figure),
          (("table2.csv", "table2.json", "figure1_samples.csv", "figure1_grid.csv"), _table2_figures),
          (("complexity.csv", "complexity.json"), _complexity_figure), (("blr.csv",), _blr_figure),
          (("table2_readings.json",), _readings_figure), (("bnn.csv",), _bnn_figure))


@draws_results
def draw_all(results_dir, out_dir) -> list[Path]:
    """Draw every HSG-HMC figure whose results exist; returns the written paths."""
    return draw_available(PANELS, Path(results_dir), Path(out_dir))
