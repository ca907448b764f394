"""EWSG §5.2, Table 1 and Fig. 2a-b: Bayesian logistic regression after one data pass, five methods.

For each method (SGLD, pSGLD, SGHMC, EWSG, FlyMC) and each of ``runs`` independent runs, ``chains``
chains are run to one data pass (timed: the wall time of Table 1), then on to ``passes`` (the curves of
Fig. 2). At every checkpoint the chains' positions give the posterior-predictive mean on the test split,
hence the test accuracy and mean test log-likelihood (nats per datum) of that run. Data passes count
per-datum gradient evaluations (SG methods; EWSG's index chain included) and per-datum likelihood
evaluations (FlyMC: resampled brightnesses plus bright data) over n. Written: ``table1_curves.csv`` (one
row per method, run and checkpoint, with the wall time reached), ``table1_runs.csv`` (one row per method
and run at one pass), ``table1.json`` (mean ± s.d. over runs, an exact MALA reference of the same
statistics, the data set, the MAP and its cost).

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: §5.2, Table 1, Fig. 2a-b; Maclaurin & Adams (2014) for FlyMC.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from sgmcmc_verify import samplers
from sgmcmc_verify.integrators.flymc import FireflyMC
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets.bounds import LogisticJJBound
from sgmcmc_verify.targets.covtype import load_caravan, load_covtype
from sgmcmc_verify.targets.datasets import standardize, train_test_split, user_data_path
from sgmcmc_verify.targets.logistic import GaussianPrior, LogisticRegressionTarget

from .settings import Table1Settings

__all__ = ["TABLE1_METHODS", "table1_data", "map_point", "table1_sampler", "predictive_stats", "run_table1"]

TABLE1_METHODS = ("SGLD", "pSGLD", "SGHMC", "EWSG", "FlyMC")
#: Per-step diagnostics kept per run (means over the first pass; empty where a method has none).
_INFO_KEYS = ("acceptance_rate", "bright_fraction", "data_used_fraction", "bound_violations")


def table1_data(cfg: Table1Settings):
    """``(target, test split, source)``: Covertype from ``--data covtype=FILE`` if given, else Caravan; standardized
    on the training split, with a bias column.

    Raises
    ------
    ValueError
        An unreadable Covertype file (from :func:`sgmcmc_verify.targets.covtype.load_covtype`).
    """
    path = user_data_path("covtype")
    ds = load_covtype(path) if path else load_caravan()
    tr, te = standardize(*train_test_split(ds, cfg.test_fraction, cfg.seed))
    return LogisticRegressionTarget(tr.X, tr.y, GaussianPrior(cfg.prior_precision)), te, ds.source


def map_point(target) -> tuple[np.ndarray, int]:
    """The MAP of the BLR posterior by L-BFGS on the full data, and its cost in per-datum evaluations (n per call)."""
    def f(t):
        return float(target.potential(t[None])[0]), target.full_gradient(t[None])[0]

    res = minimize(f, np.zeros(target.dim), jac=True, method="L-BFGS-B", options={"maxiter": 1000, "gtol": 1e-9})
    return res.x, int(res.nfev) * target.n


def table1_sampler(method: str, target, cfg: Table1Settings, theta_map):
    """The sampler of ``method`` at the paper's settings; FlyMC gets the JJ bound tuned at ``theta_map``."""
    h, b = cfg.step_sizes[method], cfg.batch_size
    if method == "FlyMC":
        bound = LogisticJJBound.at(target.X, target.y, theta_map, cfg.prior_precision)
        return FireflyMC(bound, h, b, cfg.flymc_proposal)
    params = {"SGLD": {}, "pSGLD": {}, "SGHMC": {"friction": cfg.friction},
              "EWSG": {"friction": cfg.friction, "index_chain_length": cfg.index_chain_length}}[method]
    return samplers.build(method, target, h, batch_size=b, **params)


def predictive_stats(thetas, X, y):
    """Posterior-predictive test accuracy and mean log-likelihood of the chains' samples at each checkpoint.

    Parameters
    ----------
    thetas : (chains, K, d) ndarray
    X : (m, d) ndarray; y : (m,) ndarray in {0, 1}

    Returns
    -------
    (accuracy (K,), log-likelihood (K,) in nats per test datum)
    """
    acc, ll = [], []
    for k in range(thetas.shape[1]):
        p = np.mean(expit(thetas[:, k] @ X.T), axis=0)
        p = np.clip(p, 1e-300, 1.0 - 1e-16)
        acc.append(float(np.mean((p > 0.5) == (y > 0.5))))
        ll.append(float(np.mean(np.where(y > 0.5, np.log(p), np.log1p(-p)))))
    return np.array(acc), np.array(ll)


def _observe(start):
    return {"theta": lambda st: st.position.copy(),
            "clock": lambda st: np.full(st.position.shape[0], time.perf_counter() - start)}


def _one_run(method, cfg, target, theta_map, rng):
    """Run to one pass (timed), then on to ``cfg.passes``; ``(thetas, passes, steps, clock, wall_1pass, info)``."""
    s = table1_sampler(method, target, cfg, theta_map)
    x0 = np.repeat(theta_map[None], cfg.chains, 0) if method == "FlyMC" else np.zeros((cfg.chains, target.dim))
    ck1 = np.arange(0.0, 1.0 + 1e-9, cfg.first_pass_every)
    t0 = time.perf_counter()
    a = run_chains(s, s.init(x0), rng, checkpoints=ck1, unit="passes", observe=_observe(t0))
    wall = time.perf_counter() - t0
    done = float(a["passes"][-1])
    ck2 = np.arange(1.0 + cfg.later_every, cfg.passes + 1e-9, cfg.later_every) - done
    parts, info = [a], dict(a["info"])
    if ck2.size and ck2[-1] > 0:
        t1 = time.perf_counter() - wall
        b = run_chains(s, a["state"], rng, checkpoints=np.maximum(ck2, 0.0), unit="passes", observe=_observe(t1))
        b["passes"], b["steps"] = b["passes"] + done, b["steps"] + a["steps"][-1]
        parts.append(b)  # its checkpoints start after pass 1: no record at 0
    cat = {k: np.concatenate([p[k] for p in parts], axis=1 if k in ("theta", "clock") else 0)
           for k in ("theta", "clock", "passes", "steps")}
    return cat, len(ck1), wall, info


def _run_rows(method, r, cfg, target, test, theta_map, seed):
    """The curve rows and the one-pass row of run ``r`` of ``method``."""
    cat, n1, wall, info = _one_run(method, cfg, target, theta_map, np.random.default_rng(seed))
    acc, ll = predictive_stats(cat["theta"], test.X, test.y)
    curves = [{"method": method, "run": r, "passes": float(cat["passes"][k]), "steps": int(cat["steps"][k]),
               "wall_time": float(cat["clock"][0, k]), "accuracy": acc[k], "loglik": ll[k]} for k in range(acc.size)]
    row = {"method": method, "run": r, "wall_time_1pass": wall, "passes_1pass": float(cat["passes"][n1 - 1]),
           "steps_1pass": int(cat["steps"][n1 - 1]), "accuracy_1pass": acc[n1 - 1], "loglik_1pass": ll[n1 - 1],
           "accuracy_final": acc[-1], "loglik_final": ll[-1],
           **{k: float(info[k]) if k in info else "" for k in _INFO_KEYS}}
    return curves, row


def _reference(cfg, target, test, theta_map):
    """Exact posterior-predictive statistics: MALA (step 1/L) from the MAP, ``cfg.chains`` chains."""
    h = 1.0 / (0.25 * float(np.linalg.eigvalsh(target.X.T @ target.X)[-1]) + cfg.prior_precision)
    s = samplers.mala(target, h)
    out = run_chains(s, s.init(np.repeat(theta_map[None], cfg.chains, 0)), np.random.default_rng(cfg.seed),
                     steps=cfg.reference_steps, observe={"theta": lambda st: st.position.copy()})
    acc, ll = predictive_stats(out["theta"][:, -1:], test.X, test.y)
    return {"method": "MALA from the MAP", "step_size": h, "steps": cfg.reference_steps, "chains": cfg.chains,
            "acceptance_rate": out["info"]["acceptance_rate"], "accuracy": float(acc[0]), "loglik": float(ll[0])}


def _summary(runs):
    out = {}
    for m in TABLE1_METHODS:
        rr = [r for r in runs if r["method"] == m]
        out[m] = {}
        for key in ("accuracy_1pass", "loglik_1pass", "wall_time_1pass", "accuracy_final", "loglik_final",
                    "steps_1pass"):
            v = np.array([r[key] for r in rr], dtype=np.float64)
            out[m][key] = {"mean": float(v.mean()), "sd": float(v.std(ddof=1)) if v.size > 1 else 0.0,
                           "se": float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else 0.0}
        for key in _INFO_KEYS:
            if rr[0][key] != "":
                out[m][key] = float(np.mean([r[key] for r in rr]))
    return out


def run_table1(cfg: Table1Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``table1_curves.csv``, ``table1_runs.csv`` and ``table1.json`` (see the module docstring)."""
    target, test, source = table1_data(cfg)
    theta_map, map_cost = map_point(target)
    seeds = {m: ss.spawn(cfg.runs) for m, ss in zip(TABLE1_METHODS, np.random.SeedSequence(cfg.seed).spawn(len(TABLE1_METHODS)))}
    curves, runs = [], []
    for r in range(cfg.runs):  # methods interleaved within a run: a drift of the machine's load hits them alike
        for m in TABLE1_METHODS:
            c, row = _run_rows(m, r, cfg, target, test, theta_map, seeds[m][r])
            curves += c
            runs.append(row)
    note = (f"EWSG §5.2 Table 1 / Fig. 2 (BLR), scale={cfg.scale}, data: {source}; {cfg.runs} runs of {cfg.chains} "
            f"chains; b={cfg.batch_size}, gamma={cfg.friction:g}, M={cfg.index_chain_length}")
    write_csv(Path(out_dir) / "table1_curves.csv", curves, header_comment=note)
    write_csv(Path(out_dir) / "table1_runs.csv", runs, header_comment=note)
    write_json(Path(out_dir) / "table1.json", {
        "summary": _summary(runs), "reference": _reference(cfg, target, test, theta_map), "dataset": "covtype" if user_data_path("covtype") else "caravan",
        "source": source, "n_train": target.n, "n_test": int(test.y.size), "dim": target.dim,
        "test_positive_rate": float(test.y.mean()), "map": theta_map.tolist(), "map_evaluations": map_cost,
        "map_passes": map_cost / target.n, "iterations_per_pass_sg": target.n / cfg.batch_size,
        "scale": cfg.scale, "settings": cfg.as_dict()})
