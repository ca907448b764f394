"""EWSG conference text Fig. 1b: stationary error against autocorrelation time, EWSG vs SGHMC.

"Large step size generally reduces autocorrelation time, yet leads to large discretization error.
Figure 1b shows at the same autocorrelation time, EWSG achieves smaller error than SGHMC." For each
method and each h of a grid we measure

* the error: KL(target ‖ Gaussian fit) of 10,000 realizations after a run long enough to be
  stationary (the journal study's :func:`~sgmcmc_verify.paper_repro.ewsg.experiments.kl_vs_passes`; for SGHMC
  also exactly, from the Lyapunov moments);
* the integrated autocorrelation time of each coordinate of θ on stationary chains, with
  ``emcee.autocorr.integrated_time`` (Sokal's window), its standard error from disjoint groups of
  chains; for SGHMC also exactly (:func:`sgmcmc_verify.analytic.autocorrelation.linear_integrated_time`), which
  checks the estimator. Units: steps, and gradient evaluations (× (M + 1) for EWSG).

Footnote 5 prints ``τ = 1 + Σ_{s=0}^∞ ρ_s``, garbled; we use Sokal's ``τ = 1 + 2 Σ_{s≥1} ρ_s``. The
verdict compares the two methods at equal τ, which is unchanged under any common increasing map
of τ (the printed formula read literally is ``(τ_Sokal + 3)/2``), so it does not depend on the reading.

References
----------
Seed ``003_19372d6d86d2623b.txt``: §5.1, Figure 1b, footnote 5; Sokal (1997); Foreman-Mackey et al., emcee.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sgmcmc_verify.analytic.autocorrelation import linear_integrated_time
from sgmcmc_verify.analytic.gaussian import kl_gaussian, quadratic_posterior
from sgmcmc_verify.analytic.linear_samplers import minibatch_noise_covariance, stationary_moments, underdamped_em_recursion
from sgmcmc_verify.paper_repro.ewsg import experiments as X
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.store.io import write_csv
from sgmcmc_verify.targets import gaussian_means_target

from .settings import Fig1bSettings

__all__ = ["integrated_time", "autocorrelation_time", "sghmc_exact", "error_vs_autocorrelation", "run_fig1b"]


def integrated_time(chains, window: float = 5.0) -> np.ndarray:
    """Sokal's integrated autocorrelation time ``1 + 2 Σ_{s≥1} ρ(s)`` of each coordinate, in steps.

    A thin wrapper of ``emcee.autocorr.integrated_time`` (the autocorrelation function averaged
    over chains, summed up to the smallest lag ``M ≥ c τ(M)``).

    Parameters
    ----------
    chains : (steps, chains, d) array_like
    window : float, default 5
        Sokal's c.

    Returns
    -------
    (d,) ndarray

    Raises
    ------
    ValueError
        Fewer than 4 steps, or a constant coordinate.
    """
    from emcee.autocorr import integrated_time as _emcee_time

    x = np.asarray(chains, dtype=np.float64)
    if x.ndim != 3 or x.shape[0] < 4:
        raise ValueError(f"chains must have shape (steps >= 4, chains, d), got {x.shape}")
    if np.any(np.ptp(x, axis=0) == 0):
        raise ValueError("chains has a constant coordinate")
    # tol=0, quiet=True: the caller chooses the length (>= 50 τ by the settings) and reports it
    return np.asarray(_emcee_time(x, c=window, tol=0, quiet=True, has_walkers=True), dtype=np.float64)


def autocorrelation_time(cfg: Fig1bSettings, method: str, h: float) -> dict:
    """τ of θ (mean over coordinates) on ``cfg.tau_chains`` stationary chains, with a group s.e."""
    target = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
    sampler = X.make_sampler(method, target, h, cfg.friction, cfg.index_chain_length)
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 2, cfg.methods.index(method), round(h * 1e7)]))
    st = sampler.init(rng.standard_normal((cfg.tau_chains, cfg.dim)), rng.standard_normal((cfg.tau_chains, cfg.dim)))
    burn, keep = int(round(cfg.tau_burn_in / h)), int(round(cfg.tau_time / h))
    kept = run_chains(sampler, st, rng, steps=burn + keep, keep_last=keep)["kept"]  # (chains, keep, d)
    x = np.swapaxes(kept, 0, 1)
    tau_all = integrated_time(x, cfg.tau_window)
    groups = np.array_split(np.arange(cfg.tau_chains), cfg.tau_groups)
    tau_g = np.array([integrated_time(x[:, g], cfg.tau_window).mean() for g in groups])
    return {"tau": float(tau_all.mean()), "tau_1": float(tau_all[0]), "tau_2": float(tau_all[-1]),
            "tau_se": float(tau_g.std(ddof=1) / np.sqrt(len(groups))), "tau_steps_kept": keep,
            "tau_kept_over_tau": keep / float(tau_all.max())}


def sghmc_exact(cfg: Fig1bSettings, h: float) -> dict:
    """SGHMC's exact stationary KL and τ of θ (Lyapunov moments; minibatch noise enters by its covariance)."""
    target = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
    post = quadratic_posterior(target.centers)
    rec = underdamped_em_recursion(target.hessian, post.mean, minibatch_noise_covariance(target.centers), h, cfg.friction)
    mean, cov = stationary_moments(rec)
    d = cfg.dim
    taus = [linear_integrated_time(rec.A, cov, i) for i in range(d)]
    return {"kl_stationary_exact": float(kl_gaussian(post.mean, post.cov, mean[:d], cov[:d, :d])),
            "tau_exact": float(np.mean(taus))}


def error_vs_autocorrelation(cfg: Fig1bSettings, n_jobs=1, backend=None, progress=None) -> tuple[list, list]:
    """Rows of (method, h): stationary KL with its s.e., τ in steps and in gradient evaluations.

    Returns
    -------
    rows : list of dict
        One per (method, h).
    kl_rows : list of dict
        The KL records of every run (at half and at the full run: the stationarity check).
    """
    runs = [{"label": f"{m}, h = {h:g}", "method": m, "h": h, "M": cfg.index_chain_length if m == "EWSG" else 0,
             "x_choice": "recommended"} for m in cfg.methods for h in cfg.step_sizes]
    kl_rows = X.kl_vs_passes(cfg, runs, "fig1b", n_jobs, backend, progress)
    rows = []
    for run in runs:
        rr = [r for r in kl_rows if r["label"] == run["label"]]
        half, last = rr[-2], rr[-1]
        tau = autocorrelation_time(cfg, run["method"], run["h"])
        row = {"method": run["method"], "step_size": run["h"], "index_chain_length": run["M"],
               "evaluations_per_step": run["M"] + 1, "kl": last["kl"], "kl_se": last["kl_se"],
               "kl_half_run": half["kl"], "kl_half_run_se": half["kl_se"], "passes": last["passes"],
               "time": last["steps"] * run["h"], **tau,
               "tau_evaluations": tau["tau"] * (run["M"] + 1), "tau_evaluations_se": tau["tau_se"] * (run["M"] + 1),
               "kl_floor": last["kl_floor"], "realizations": last["realizations"],
               "acceptance_rate": last["acceptance_rate"]}
        row.update(sghmc_exact(cfg, run["h"]) if run["method"] == "SGHMC" else
                   {"kl_stationary_exact": "", "tau_exact": ""})
        rows.append(row)
    return rows, kl_rows


def run_fig1b(cfg: Fig1bSettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Fig. 1b: ``fig1b.csv`` (one row per method and h) and ``fig1b_kl.csv`` (the KL records)."""
    rows, kl_rows = error_vs_autocorrelation(cfg, n_jobs, backend, progress)
    out = Path(out_dir)
    write_csv(out / "fig1b.csv", rows, header_comment=(
        f"EWSG conference Figure 1b, n={cfg.n_data}, scale={cfg.scale}: stationary KL(target || Gaussian fit) "
        "(nats) after the run vs integrated autocorrelation time of theta (Sokal, emcee, c="
        f"{cfg.tau_window:g}; steps and gradient evaluations); SGHMC exact values from the Lyapunov moments"))
    write_csv(out / "fig1b_kl.csv", kl_rows, header_comment=(
        f"EWSG conference Figure 1b, scale={cfg.scale}: KL at half and at the end of each run"))
