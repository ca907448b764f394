"""LS-SGLD (seed ``004_8438bd4b543e0fc4.txt``) figures, drawn from ``results/ls_sgld/`` only.

``sgmcmc-verify figures ls_sgld`` writes
``table1``, ``thm33``, ``prop21``, ``table3``, ``fig1``, ``fig3``, ``fig3_exact``, ``fig4``, ``fig5`` (PNG + PDF) for whichever result
files exist.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402
import seaborn as sns  # noqa: E402

from sgmcmc_verify.figures._common import draw_available, save_figure, draws_results  # noqa: E402
from sgmcmc_verify.store.io import read_csv, read_json  # noqa: E402

__all__ = ["draw_all"]

_COL = dict(zip(("SGLD", "pSGLD", "LS-SGLD", "LS-pSGLD"), sns.color_palette("colorblind", 4)))


def _save(fig, out: Path, name: str) -> list[Path]:
    return save_figure(fig, out, name, dpi=150)


def _pos(y):
    """Values for a log axis: non-positive entries (exact zeros) become NaN (not drawn)."""
    y = np.asarray(y, dtype=float)
    return np.where(y > 0, y, np.nan)


_SHORT = {"mean_inv_lambda_sq": "d⁻¹Σλ⁻²", "gamma2": "γ₂", "none": "none"}


def _table1(res, out):
    rows = read_csv(res / "table1.csv")
    sig = sorted({r["sigma"] for r in rows})
    fig, (ax, axt) = plt.subplots(1, 2, figsize=(10, 3.6), gridspec_kw={"width_ratios": [1, 1.3]})
    r1 = {r["sigma"]: r for r in rows if int(r["d"]) == 1000}
    ax.plot(sig, [r1[s]["paper_value"] for s in sig], "ks", label="Table 1 (printed, all d)")
    ax.plot(sig, [r1[s]["gamma2"] for s in sig], "o-", label=r"$\gamma_2=d^{-1}\sum\lambda_j^{-1}$ (Thm 3.3)")
    ax.plot(sig, [r1[s]["mean_inv_lambda_sq"] for s in sig], "x--", label=r"$d^{-1}\sum\lambda_j^{-2}$")
    ax.set_xlabel(r"smoothing $\sigma$ (dimensionless)")
    ax.set_ylabel("value (dimensionless; d = 1000, identical for 1e4, 1e5)")
    ax.legend(fontsize=7, frameon=False)
    ax.set_title("Table 1 is not $\\gamma_2$", fontsize=10)
    axt.axis("off")
    cells = [[f"{int(r['d'])}", f"{int(r['sigma'])}", f"{r['paper_value']:.3f}", f"{r['gamma2']:.3f}",
              f"{r['mean_inv_lambda_sq']:.3f}", _SHORT.get(r["table_matches"], r["table_matches"])] for r in rows]
    tab = axt.table(cellText=cells, colLabels=["d", "σ", "printed", "γ₂", "d⁻¹Σλ⁻²", "matches"], loc="center",
                    cellLoc="center")
    tab.auto_set_font_size(False)
    tab.set_fontsize(6)
    tab.scale(1, 0.9)
    return _save(fig, out, "table1")


def _thm33(res, out):
    rows = read_csv(res / "thm33.csv")
    summ = read_json(res / "thm33.json")["pairs"]
    # the pair with a crossover and the smallest step, else the first
    pick = next((p for p in summ if p["crossover_K"]), summ[0])
    other = next((p for p in summ if not p["total_ls_worse_early"]), None)
    panels = [pick] + ([other] if other else [])
    fig, axes = plt.subplots(1, len(panels) + 1, figsize=(4.6 * (len(panels) + 1), 3.6))
    for ax, p in zip(axes, panels):
        for name, col in (("SGLD", _COL["SGLD"]), ("LS-SGLD", _COL["LS-SGLD"])):
            rr = [r for r in rows if r["method"] == name and r["pair_sigma"] == p["sigma"]
                  and r["step_size"] == p["step_size"] and r["K"] > 0]
            k = np.array([r["K"] for r in rr])
            ax.plot(k, _pos([r["total"] for r in rr]), color=col, lw=2, label=f"{name}: total")
            ax.plot(k, _pos([r["discretization"] for r in rr]), color=col, ls="--", label=f"{name}: discretization")
            ax.plot(k, _pos([r["ergodicity"] for r in rr]), color=col, ls=":", label=f"{name}: ergodicity")
        for kc in p["crossover_K"]:
            ax.axvline(kc, color="0.5", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(bottom=1e-3)
        ax.set_xlabel("K (steps)")
        ax.set_ylabel("W2, exact (units of θ)")
        ax.set_title(f"σ={p['sigma']}, η={p['step_size']:g}", fontsize=10)
        ax.legend(fontsize=6, frameon=False)
    g = read_csv(res / "thm33_gamma.csv")
    ax = axes[-1]
    hmin = min(r["step_size"] for r in g)
    gg = [r for r in g if r["step_size"] == hmin]
    for d in sorted({r["d"] for r in gg}):
        rr = sorted((r for r in gg if r["d"] == d), key=lambda r: r["sigma"])
        s = [r["sigma"] for r in rr]
        ax.plot(s, [r["ratio"] for r in rr], "o", label=f"exact ratio, d={int(d)}")
        ax.plot(s, [r["sqrt_gamma2"] for r in rr], "^-", lw=0.8, label=f"√γ₂, d={int(d)}")
        ax.plot(s, [r["sqrt_mean_inv_lambda_sq"] for r in rr], "+--", ms=9, lw=0.8, label=f"√(d⁻¹Σλ⁻²), d={int(d)}")
    ax.set_xlabel("smoothing σ (dimensionless)")
    ax.set_ylabel("stationary W2 bias, LS-GLD / GLD (ratio)")
    ax.set_title(f"integrator bias ratio at η={hmin:g}", fontsize=10)
    ax.legend(fontsize=6, frameon=False)
    return _save(fig, out, "thm33")


def _prop21(res, out):
    j = read_json(res / "prop21.json")
    fig, ax = plt.subplots(figsize=(4.8, 3.6))
    for s in j["small_step"]:
        ax.plot(s["step_sizes"], s["w2_paper_noise"], "o-", label=f"noise A^(-1/2) (paper), σ={s['sigma']}")
        ax.plot(s["step_sizes"], s["w2_noise_A_inverse"], "x--", label=f"noise A^(-1) (control), σ={s['sigma']}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("step size η (dimensionless)")
    ax.set_ylabel("W2(invariant law of EM, π), exact (units of θ)")
    ax.set_title(f"Prop. 2.1: FP residual = {j['residual_paper']} (sympy)", fontsize=9)
    ax.legend(fontsize=6, frameon=False)
    return _save(fig, out, "prop21")


def _table3(res, out):
    rows = read_csv(res / "table3.csv")
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.6))
    for b in sorted({int(r["batch_size"]) for r in rows}):
        rr = sorted((r for r in rows if int(r["batch_size"]) == b), key=lambda r: r["sigma"])
        s = [r["sigma"] for r in rr]
        l, = axes[0].plot(s, [r["max_variance_exact_mean_scale"] for r in rr], "o-", label=f"b={b} exact")
        axes[0].plot(s, [r["max_variance_mc_mean_scale"] for r in rr], "x:", color=l.get_color(), label=f"b={b} MC")
        axes[1].plot(s, [r["paper_value"] for r in rr], "s-", label=f"b={b} printed (a3a)")
    for ax, t in zip(axes, (f"measured on {rows[0]['dataset']} (minibatch-mean scale)", "Table 3 as printed (a3a)")):
        ax.set_yscale("log")
        ax.set_xlabel("smoothing σ (dimensionless)")
        ax.set_ylabel("max variance (units of θ²)")
        ax.set_title(t, fontsize=9)
        ax.legend(fontsize=6, frameon=False)
    return _save(fig, out, "table3")


def _fig1(res, out):
    rows = read_csv(res / "fig1.csv")
    samp = read_csv(res / "fig1_samples.csv")
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5))
    for ax, sset in zip(axes[:, 0], ("same", "scaled")):
        for name in _COL:
            ss = [r for r in samp if r["sampler"] == name and r["step_set"] in (sset, "both")]
            ax.plot([r["x1"] for r in ss], [r["x2"] for r in ss], ".", ms=2, color=_COL[name],
                    label=f"{name} (η={ss[0]['step_size']:.3g})" if ss else name)
        ax.set_title(f"first samples, {'same' if sset == 'same' else 'LS ×(1+4σ)^1/4'} step", fontsize=9)
        ax.set_xlabel("x₁ (units of θ)")
        ax.set_ylabel("x₂ (units of θ)")
        ax.set_aspect("equal", "datalim")
        ax.legend(fontsize=6, frameon=False, markerscale=4)
    for ax, sset in zip(axes[:, 1], ("same", "scaled")):
        for name in _COL:
            rr = [r for r in rows if r["sampler"] == name and r["step_set"] in (sset, "both") and str(r["diverged"]) != "True"]
            ax.plot([r["tau"] for r in rr], [r["cov_mse"] for r in rr], "o", ms=3, color=_COL[name], label=name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("autocorrelation time (4.2) (steps)")
        ax.set_ylabel("covariance MSE (units of θ⁴)")
        ax.set_title(f"Fig. 1{'b' if sset == 'same' else 'd'} (all runs, all steps)", fontsize=9)
        ax.legend(fontsize=6, frameon=False)
    for ax, sset in zip(axes[:, 2], ("same", "scaled")):
        for name in _COL:
            rr = [r for r in rows if r["sampler"] == name and r["step_set"] in (sset, "both") and str(r["diverged"]) != "True"]
            hs = sorted({r["step_size"] for r in rr})
            ax.plot(hs, [np.mean([r["cov_mse"] for r in rr if r["step_size"] == h]) for h in hs], "o-",
                    color=_COL[name], label=name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("step size (dimensionless)")
        ax.set_ylabel("covariance MSE, mean over runs (units of θ⁴)")
        ax.legend(fontsize=6, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.suptitle("2-D Gaussian, ρ = 0.9, gradient + N(0, I) noise; LS with the eq. (4.1) matrix", fontsize=10)
    return _save(fig, out, "fig1")


def _fig4(res, out):
    rows = read_csv(res / "fig4.csv")
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.6))
    for ax, col, lab in zip(axes, ("train_nll", "train_acc", "test_nll", "test_acc"),
                            ("train NLL (nats/datum)", "train accuracy", "test NLL (nats/datum)", "test accuracy")):
        for name in _COL:
            rr = [r for r in rows if r["sampler"] == name]
            if not rr:
                continue
            it = np.array([r["iteration"] for r in rr])
            y = np.array([r[col] for r in rr])
            se = np.array([r[col + "_se"] for r in rr])
            ax.plot(it, y, color=_COL[name], label=f"{name} (η={rr[0]['step_size']:.3g})")
            ax.fill_between(it, y - se, y + se, color=_COL[name], alpha=0.2)
        ax.set_xlabel("iteration")
        ax.set_ylabel(lab)
        ax.legend(fontsize=6, frameon=False)
    fig.suptitle(f"BLR on {rows[0]['dataset']} (paper: a3a), running mean of samples after burn-in", fontsize=10)
    return _save(fig, out, "fig4")


def _fig5(res, out):
    rows = read_csv(res / "fig5.csv")
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.6))
    for ax, col, lab in zip(axes, ("train_nll", "train_acc", "test_nll", "test_acc"),
                            ("train NLL (nats per datum)", "train accuracy", "test NLL (nats per datum)",
                             "test accuracy")):
        for name in _COL:
            rr = [r for r in rows if r["sampler"] == name]
            if not rr:
                continue
            it = np.array([r["iteration"] for r in rr])
            y = np.array([r[col] for r in rr])
            se = np.array([r[col + "_se"] for r in rr])
            ax.plot(it, y, color=_COL[name], label=f"{name} (η={rr[0]['step_size']:.3g})")
            ax.fill_between(it, y - se, y + se, color=_COL[name], alpha=0.2)
        ax.set_xlabel("iteration")
        ax.set_ylabel(lab)
        ax.legend(fontsize=6, frameon=False)
    fig.suptitle(f"Bayesian CNN (d = {rows[0]['dim']}) on the MNIST subset (paper: full MNIST), running mean of "
                 "samples after burn-in", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    return _save(fig, out, "fig5")


def _fig3(res, out):
    rows = read_csv(res / "fig3.csv")
    ex = read_json(res / "fig3.json")
    targets = sorted({r["target"] for r in rows})
    fig, axes = plt.subplots(1, len(targets), figsize=(4.8 * len(targets), 3.6))
    for ax, t in zip(np.atleast_1d(axes), targets):
        for name, col in (("LD", _COL["SGLD"]), ("LS-LD", _COL["LS-SGLD"])):
            rr = [r for r in rows if r["target"] == t and r["method"] == name]
            n = np.array([r["samples"] for r in rr])
            y = np.array([r["mse"] for r in rr])
            se = np.array([r["mse_se"] for r in rr])
            ax.plot(n, y, "o-", color=col, ms=3, label=f"{name} (σ={rr[0]['sigma']:g})")
            ax.fill_between(n, np.maximum(y - se, 1e-12), y + se, color=col, alpha=0.2)
            tv = ex.get("gaussian_asymptotic_trace_V", {}).get(name)
            if tv is not None and t.startswith("gauss"):   # exact asymptotic tr V / (N h) (sgmcmc_verify.analytic.ls_mixing)
                ax.plot(n, tv / (n * rr[0]["step_size"]), "--", color=col, lw=0.8, label=f"{name} exact tr V/(Nh)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("number of samples N (EM steps)")
        ax.set_ylabel("MSE of the mean (units of θ²)")
        ax.set_title(t + (f" (exact asymptotic ratio {ex['gaussian_asymptotic_mse_ratio_exact']:.2f})"
                          if t.startswith("gauss") else ""), fontsize=9)
        ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()   # the longer y labels (units) otherwise meet the left panel's legend
    return _save(fig, out, "fig3")


def _fig3_exact(res, out):
    """Exact asymptotic MSE ratio LS-LD / LD vs σ (both covariances) and the 95 % range a 10-run estimate has."""
    rows = read_csv(res / "fig3_exact.csv")
    ex = read_json(res / "fig3_exact.json")
    band = ex["band"]
    fin_path = res / "fig3_exact_finite.csv"
    fig, axes = plt.subplots(1, 3 if fin_path.exists() else 2, figsize=(15 if fin_path.exists() else 10, 3.8))
    cols = dict(zip(ex["targets"], sns.color_palette("colorblind", len(ex["targets"]))))
    for ax, runs in zip(axes, sorted({r["runs"] for r in rows})):
        for t, col in cols.items():
            rr = [r for r in rows if r["target"] == t and r["runs"] == runs]
            s = np.array([r["sigma"] for r in rr])
            y = np.array([r["ratio_continuous"] for r in rr])
            lo = y * np.array([r["measured_over_true_q025"] for r in rr])
            hi = y * np.array([r["measured_over_true_q975"] for r in rr])
            lim = ex["targets"][t]["similar_sigma_limit"]
            ax.plot(s, y, "-", color=col, label=f"{t}: exact, ≤ {band} for σ ≤ {lim:.3g}")
            ax.plot(s, [r["ratio_em"] for r in rr], ".", color=col, ms=3)
            ax.fill_between(s, lo, hi, color=col, alpha=0.15, label=f"95 % of a {int(runs)}-run estimate")
        ax.axhspan(1 / band, band, color="0.85", zorder=0, label=f"'similar' band [1/{band}, {band}]")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("smoothing σ of the eq. (4.1) matrix (dimensionless)")
        ax.set_ylabel("asymptotic MSE ratio LS-LD / LD")
        ax.set_title(f"Fig. 3 exactly (dots: EM at step {rr[0]['step_size']:g}); {int(runs)} runs per method", fontsize=9)
        ax.legend(fontsize=6, frameon=False)
    if fin_path.exists():
        fin = read_csv(fin_path)
        ax = axes[2]
        sigs = sorted({r["sigma"] for r in fin})
        shades = dict(zip(sigs, np.linspace(0.35, 1.0, len(sigs))))
        for t, col in cols.items():
            for sg in sigs:
                rr = [r for r in fin if r["target"] == t and r["sigma"] == sg]
                ax.plot([r["samples"] for r in rr], [r["ratio"] for r in rr], "-", color=col, alpha=shades[sg],
                        label=f"{t}, σ = {sg:g}")
        ax.axhspan(1 / band, band, color="0.85", zorder=0)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(f"N (EM steps of {fin[0]['step_size']:g}, from x₀ = μ − (1, 2))")
        ax.set_ylabel("exact ratio at N")
        ax.set_title("finite N: the transient is 'similar', the limit is 1 + σκ", fontsize=9)
        ax.legend(fontsize=5, frameon=False, ncol=2)
    return _save(fig, out, "fig3_exact")


def _table2(res, out):
    rows = read_csv(res / "table2.csv")
    samp = read_csv(res / "fig2_samples.csv") if (res / "fig2_samples.csv").exists() else []
    names = [n for n in _COL if any(r["sampler"] == n for r in rows)]
    fig, axes = plt.subplots(1, 1 + len(names), figsize=(4.2 * (1 + len(names)), 3.6))
    ax = axes[0]
    Ns = sorted({r["iterations"] for r in rows})
    for name in names:
        m = [np.mean([r["w2_mh"] for r in rows if r["sampler"] == name and r["iterations"] == N]) for N in Ns]
        s = [np.std([r["w2_mh"] for r in rows if r["sampler"] == name and r["iterations"] == N], ddof=1) for N in Ns]
        ax.errorbar(Ns, m, yerr=s, fmt="o-", color=_COL[name], ms=3, capsize=2, label=name)
    ax.axhline(rows[0]["floor_grid_vs_grid"], color="0.5", ls="--", lw=0.8, label="reference vs reference")
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("iterations N (window = last samples before N)")
    ax.set_ylabel("W2 to MH reference, not squared (units of θ)")
    ax.set_title(f"Table 2 (step {rows[0]['step_size']:g}, σ = 1, eq. (4.1))", fontsize=9)
    ax.legend(fontsize=6, frameon=False)
    ref = [r for r in samp if r["sampler"].startswith("reference")]
    Nmax = max(Ns)
    for ax, name in zip(axes[1:], names):
        ss = [r for r in samp if r["sampler"] == name and r["iterations"] == Nmax]
        ax.plot([r["x1"] for r in ref], [r["x2"] for r in ref], ".", ms=1.5, color="0.6", label="exact (grid)")
        ax.plot([r["x1"] for r in ss], [r["x2"] for r in ss], ".", ms=1.5, color=_COL[name], label=name)
        ax.set_title(f"Fig. 2: {name}, window ending at N={int(Nmax)}", fontsize=9)
        ax.set_xlabel("x₁ (units of θ)")
        ax.set_ylabel("x₂ (units of θ)")
        ax.legend(fontsize=6, frameon=False, markerscale=4)
    return _save(fig, out, "table2")


#: Every figure with the files it reads (drawn when those exist; Table 2's samples are optional).
PANELS = ((("table2.csv",), _table2), (("fig3.csv", "fig3.json"), _fig3),
          (("fig3_exact.csv", "fig3_exact.json"), _fig3_exact), (("table1.csv",), _table1),
          (("thm33.json", "thm33.csv", "thm33_gamma.csv"), _thm33), (("prop21.json",), _prop21),
          (("table3.csv",), _table3), (("fig1.csv", "fig1_samples.csv"), _fig1), (("fig4.csv",), _fig4),
          (("fig5.csv",), _fig5))


@draws_results
def draw_all(results_dir, out_dir) -> list[Path]:
    """Draw every LS-SGLD figure whose result files exist in ``results_dir``; return the written paths."""
    return draw_available(PANELS, Path(results_dir), Path(out_dir))
