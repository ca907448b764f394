"""EWSG Appendix G.1 and Fig. 6a-d: FlyMC vs EWSG vs random-walk MH on the misspecified Gaussian.

A normal ``N(μ, σ²)`` is fitted to ``n`` draws of ``log N(0, 1)`` with the flat prior on ``θ = (μ, log σ)``
(restricted to a box, see :class:`~sgmcmc_verify.paper_repro.ewsg.settings.G1Settings`). FlyMC (Taylor lower bound at
the MLE, 10 % of the brightness variables resampled per iteration, random-walk θ-step) runs
``flymc_iterations``; its mean data fraction per iteration sets EWSG's minibatch and its total data
its budget, as the paper does; MH on the full likelihood is the ground truth, and the exact posterior
moments come from grid quadrature on the box. Written: ``g1_used.csv`` (FlyMC's data per iteration,
Fig. 6a), ``g1_acf.csv`` (autocorrelation of each coordinate by lag, Fig. 6b), ``g1_traces.csv``
(samples, Fig. 6c-d), ``g1.json`` (integrated autocorrelation times, means and s.d. against the exact
ones, budgets, acceptance rates, bound violations).

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``, Appendix G.1, Figure 6; Bardenet, Doucet & Holmes (2017), JMLR 18,
the log-normal example; Maclaurin & Adams (2014).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sgmcmc_verify import samplers
from sgmcmc_verify.integrators.flymc import FireflyMC
from sgmcmc_verify.integrators.random_walk import RandomWalkMetropolis
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets.bounds import GaussianFitTarget, GaussianFitTaylorBound, lognormal_data

from .settings import G1Settings

__all__ = ["g1_problem", "exact_moments", "autocorrelation", "run_g1"]

_TRACE_MAX = 10_000  # samples per chain kept in g1_traces.csv (MH is thinned to this)


def g1_problem(cfg: G1Settings):
    """``(target, Taylor bound, start (d,), random-walk s.d.)`` of the G.1 study."""
    t0 = GaussianFitTarget(lognormal_data(cfg.n_data, cfg.data_seed))
    target = GaussianFitTarget(t0.x, box=t0.default_box(cfg.box_width))
    sd = target.laplace_sd()
    return target, GaussianFitTaylorBound(target), target.mle() + cfg.start_offset * sd, cfg.rw_scale * float(sd.min())


def exact_moments(target, points: int = 801) -> dict:
    """Posterior mean and s.d. of (μ, η) by quadrature on a ``points``² grid over the box (flat prior)."""
    g = [np.linspace(lo, hi, points) for lo, hi in target.box]
    T = np.stack(np.meshgrid(*g, indexing="ij"), -1).reshape(-1, 2)
    lp = -target.potential(T)
    w = np.exp(lp - lp.max())
    w /= w.sum()
    m = w @ T
    return {"mean": m.tolist(), "sd": np.sqrt(w @ (T - m) ** 2).tolist()}


def autocorrelation(samples, max_lag: int):
    """Normalized autocorrelation (emcee's FFT estimator) and integrated time of a 1-D series: ``(acf (L+1,), τ)``."""
    import logging

    from emcee.autocorr import function_1d, integrated_time

    acf = function_1d(np.asarray(samples, dtype=np.float64))[: max_lag + 1]
    log = logging.getLogger("emcee.autocorr")
    level, log.level = log.level, logging.ERROR  # a short chain is flagged in g1.json ("iat_reliable"), not logged
    try:
        tau = float(integrated_time(samples, quiet=True)[0])
    finally:
        log.level = level
    return acf, tau


def _flymc(cfg, bound, start, rw, rng):
    m = max(1, int(round(cfg.resample_fraction * bound.n)))
    f = FireflyMC(bound, rw, m, "random_walk")
    out = run_chains(f, f.init(np.repeat(start[None], cfg.chains, 0)), rng, unit="steps",
                     checkpoints=np.arange(cfg.flymc_iterations + 1), keep_last=cfg.flymc_iterations,
                     observe={"used": lambda st: st.data_used.copy()})
    return out["kept"], out["used"][:, 1:], out["info"], m


def _ewsg(cfg, target, start, fraction, data_passes, rng):
    b = max(1, int(round(fraction * target.n)))
    steps = max(1, int(round(data_passes * target.n / (b * (cfg.index_chain_length + 1)))))
    s = samplers.ewsg(target, cfg.step_size, cfg.friction, index_chain_length=cfg.index_chain_length, batch_size=b)
    out = run_chains(s, s.init(np.repeat(start[None], cfg.chains, 0)), rng, steps=steps, keep_last=steps)
    return out["kept"], out["info"], b, steps, out["evaluations"] / target.n


def _mh(cfg, target, start, rw, rng):
    s = RandomWalkMetropolis(target, rw)
    out = run_chains(s, s.init(np.repeat(start[None], cfg.chains, 0)), rng, steps=cfg.mh_steps, keep_last=cfg.mh_steps)
    return out["kept"], out["info"]


def _stats(kept, cfg, name):
    """ACF rows, integrated times and post-burn-in moments of ``kept`` ``(chains, K, 2)``."""
    rows, taus, burn = [], {}, min(cfg.burn_in, kept.shape[1] // 2)
    for c in range(kept.shape[0]):
        for j, coord in enumerate(("mu", "log_sigma")):
            acf, tau = autocorrelation(kept[c, burn:, j], min(cfg.max_lag, kept.shape[1] - burn - 1))
            taus[f"{coord}/chain{c}"] = tau
            rows += [{"method": name, "chain": c, "coordinate": coord, "lag": k, "acf": float(v)}
                     for k, v in enumerate(acf)]
    post = kept[:, burn:].reshape(-1, 2)
    reliable = all(50 * t < kept.shape[1] - burn for t in taus.values())  # emcee's rule of thumb
    return rows, {"iat": taus, "iat_reliable": reliable, "mean": post.mean(0).tolist(), "sd": post.std(0).tolist(), "samples": int(post.shape[0]),
                  "burn_in": burn}


def _trace_rows(kept, name):
    every = max(1, kept.shape[1] // _TRACE_MAX)
    return [{"method": name, "chain": c, "iteration": int(k), "mu": float(kept[c, k, 0]),
             "log_sigma": float(kept[c, k, 1])} for c in range(kept.shape[0]) for k in range(0, kept.shape[1], every)]


def run_g1(cfg: G1Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``g1_used.csv``, ``g1_acf.csv``, ``g1_traces.csv`` and ``g1.json`` (see the module docstring)."""
    target, bound, start, rw = g1_problem(cfg)
    r_fly, r_ewsg, r_mh = (np.random.default_rng(s) for s in np.random.SeedSequence(cfg.seed).spawn(3))
    fly, used, fly_info, m = _flymc(cfg, bound, start, rw, r_fly)
    fraction = float(used.mean() / target.n)
    fly_passes = float(used.sum(axis=1).mean() / target.n)
    ew, ew_info, b, ew_steps, ew_passes = _ewsg(cfg, target, start, fraction, fly_passes, r_ewsg)
    mh, mh_info = _mh(cfg, target, start, rw, r_mh)
    acf, summary = [], {}
    for name, kept in (("FlyMC", fly), ("EWSG", ew), ("MH", mh)):
        rows, summary[name] = _stats(kept, cfg, name)
        acf += rows
    summary["FlyMC"].update({"info": fly_info, "resample_size": m, "mean_data_fraction": fraction,
                             "data_passes": fly_passes, "iterations": cfg.flymc_iterations, "rw_sd": rw})
    summary["EWSG"].update({"info": ew_info, "batch_size": b, "steps": ew_steps, "data_passes": ew_passes})
    summary["MH"].update({"info": mh_info, "steps": cfg.mh_steps, "rw_sd": rw})
    note = f"EWSG Appendix G.1 / Fig. 6, scale={cfg.scale}, n={target.n} log-normal data, {cfg.chains} chains per method"
    write_csv(Path(out_dir) / "g1_used.csv", [{"chain": c, "iteration": k + 1, "data_used": int(used[c, k])}
                                              for c in range(used.shape[0]) for k in range(used.shape[1])],
              header_comment=note)
    write_csv(Path(out_dir) / "g1_acf.csv", acf, header_comment=note)
    write_csv(Path(out_dir) / "g1_traces.csv", sum((_trace_rows(k, nm) for nm, k in (("FlyMC", fly), ("EWSG", ew),
                                                                                     ("MH", mh))), []),
              header_comment=note)
    write_json(Path(out_dir) / "g1.json", {
        "methods": summary, "exact": exact_moments(target), "mle": target.mle().tolist(),
        "laplace_sd": target.laplace_sd().tolist(), "box": target.box.tolist(), "start": start.tolist(),
        "n_data": target.n, "max_curvature_allowance": float(bound.curvature_allowance.max()),
        "scale": cfg.scale, "settings": cfg.as_dict()})
