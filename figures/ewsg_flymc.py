"""EWSG §5.2 Table 1 / Fig. 2a-b (BLR, five methods) and Appendix G.1 / Fig. 6a-d (FlyMC on the misspecified
Gaussian), drawn from ``results/ewsg/`` only; called by :func:`sgmcmc_verify.figures.ewsg.draw_all`.

Writes ``table1_fig2.png`` (test accuracy and log-likelihood against data passes, Fig. 2a, and against wall
time, Fig. 2b; mean over runs ± 1 s.d.) and ``fig6.png`` (FlyMC's data per iteration, the autocorrelations,
the samples of EWSG and of FlyMC over MH's), with the same as PDF.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from sgmcmc_verify.figures._common import draw_available, save_figure, draws_results  # noqa: E402
from sgmcmc_verify.store.io import read_csv, read_json  # noqa: E402

__all__ = ["draw_table1", "draw_fig6", "FLYMC_PANELS", "draw_flymc"]

_METHODS = ("SGLD", "pSGLD", "SGHMC", "EWSG", "FlyMC")


def _curve(rows, method, x, y):
    """Mean and s.d. over runs of ``y`` at each checkpoint index, with the mean of ``x``."""
    runs = sorted({r["run"] for r in rows if r["method"] == method})
    per = [sorted((r for r in rows if r["method"] == method and r["run"] == k), key=lambda r: r["passes"]) for k in runs]
    n = min(len(p) for p in per)
    X = np.array([[p[i][x] for i in range(n)] for p in per])
    Y = np.array([[p[i][y] for i in range(n)] for p in per])
    return X.mean(0), Y.mean(0), Y.std(0)


def draw_table1(res: Path, out: Path) -> list[Path]:
    """Fig. 2a-b: accuracy and log-likelihood vs data passes and vs wall time (mean ± s.d. over runs)."""
    rows = read_csv(res / "table1_curves.csv", ("method", "run", "passes", "wall_time", "accuracy", "loglik"))
    js = read_json(res / "table1.json")
    fig, axes = plt.subplots(2, 2, figsize=(9, 6.4), sharex="col", sharey="row")
    for j, m in enumerate(_METHODS):
        for col, x in enumerate(("passes", "wall_time")):
            for row, y in enumerate(("accuracy", "loglik")):
                mx, my, sy = _curve(rows, m, x, y)
                ax = axes[row, col]
                ax.plot(mx, my, "-o", ms=2, lw=1, color=f"C{j}", label=m)
                ax.fill_between(mx, my - sy, my + sy, color=f"C{j}", alpha=0.15, lw=0)
    for col, lab in enumerate(("data passes", "wall time (s)")):
        axes[1, col].set_xlabel(lab)
        axes[0, col].axvline(1.0, color="grey", lw=0.6, ls=":") if col == 0 else None
        axes[1, col].axvline(1.0, color="grey", lw=0.6, ls=":") if col == 0 else None
    axes[0, 0].set_ylabel("test accuracy")
    axes[1, 0].set_ylabel("test log-likelihood (nats/datum)")
    for ax in axes[1]:
        lo = min(np.percentile([r["loglik"] for r in rows if r["passes"] >= 0.5], 5), -0.01)
        ax.set_ylim(lo, None)
    axes[0, 1].set_xscale("log")
    axes[1, 1].set_xscale("log")
    axes[0, 0].legend(fontsize=7, frameon=False)
    fig.suptitle(f"§5.2 BLR ({js['dataset']}: n_train = {js['n_train']}, d = {js['dim']}; paper: Covertype), "
                 f"{js['settings']['runs']} runs × {js['settings']['chains']} chains; mean ± 1 s.d.", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, out, "table1_fig2", dpi=150)


def draw_fig6(res: Path, out: Path) -> list[Path]:
    """Fig. 6a-d: FlyMC's data per iteration, autocorrelations of FlyMC / EWSG / MH, EWSG's and FlyMC's samples."""
    js = read_json(res / "g1.json")
    used = read_csv(res / "g1_used.csv", ("chain", "iteration", "data_used"))
    acf = read_csv(res / "g1_acf.csv", ("method", "chain", "coordinate", "lag", "acf"))
    tr = read_csv(res / "g1_traces.csv", ("method", "chain", "iteration", "mu", "log_sigma"))
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.4))
    n = js["n_data"]
    axes[0].hist([r["data_used"] / n for r in used], bins=40, color="C4")
    axes[0].set_xlabel("fraction of data used per iteration")
    axes[0].set_ylabel("iterations")
    axes[0].set_title(f"(a) FlyMC, mean {js['methods']['FlyMC']['mean_data_fraction']:.3f}", fontsize=9)
    for j, m in enumerate(("FlyMC", "EWSG", "MH")):
        for coord, ls in (("mu", "-"), ("log_sigma", "--")):
            rr = sorted((r for r in acf if r["method"] == m and r["coordinate"] == coord and r["chain"] == 0),
                        key=lambda r: r["lag"])
            axes[1].plot([r["lag"] for r in rr], [r["acf"] for r in rr], ls, color=f"C{j}", lw=1,
                         label=f"{m} {coord}")
    axes[1].set_xlabel("lag (iterations)")
    axes[1].set_ylabel("autocorrelation (dimensionless)")
    axes[1].set_title("(b) autocorrelation, chain 0", fontsize=9)
    axes[1].legend(fontsize=6, frameon=False)
    burn = {m: js["methods"][m]["burn_in"] for m in ("FlyMC", "EWSG", "MH")}
    mh = [r for r in tr if r["method"] == "MH" and r["iteration"] >= burn["MH"]]
    ex = js["exact"]["mean"]
    for ax, m, tag in ((axes[2], "EWSG", "(c)"), (axes[3], "FlyMC", "(d)")):
        ax.plot([r["mu"] for r in mh], [r["log_sigma"] for r in mh], ".", ms=1, color="0.75", label="MH")
        rr = [r for r in tr if r["method"] == m and r["iteration"] >= burn[m]]
        ax.plot([r["mu"] for r in rr], [r["log_sigma"] for r in rr], ".", ms=1, color="C1" if m == "EWSG" else "C0",
                label=m)
        ax.plot(ex[0], ex[1], "k+", ms=10, label="exact mean")
        ax.set_xlabel("μ (units of the data)")
        ax.set_title(f"{tag} {m} samples after {burn[m]} burn-in", fontsize=9)
        ax.legend(fontsize=6, frameon=False, markerscale=5)
    axes[2].set_ylabel("log σ (σ in units of the data)")
    axes[3].set_ylabel("log σ (σ in units of the data)")
    fig.suptitle(f"App. G.1: N(μ, σ²) fitted to {n} log-normal data; start {np.round(js['start'], 3).tolist()}",
                 fontsize=9)
    fig.tight_layout()
    return save_figure(fig, out, "fig6", dpi=150)


#: The panels and the files each reads (drawn when those exist).
FLYMC_PANELS = ((("table1_curves.csv", "table1.json"), draw_table1),
                (("g1.json", "g1_used.csv", "g1_acf.csv", "g1_traces.csv"), draw_fig6))


@draws_results
def draw_flymc(results="results/ewsg", out="figures/out/ewsg") -> list[Path]:
    """Draw Fig. 2a-b and Fig. 6a-d from stored results; panels without results are skipped."""
    return draw_available(FLYMC_PANELS, Path(results), Path(out))
