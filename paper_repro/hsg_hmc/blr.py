"""HSG-HMC Figure 2: Bayesian logistic regression, test NLL vs data passes for the six methods.

Built-in data sets by default (pima, breast_cancer; :mod:`sgmcmc_verify.targets.datasets`), LIBSVM files by path
(``sgmcmc-verify --data a9a=PATH [--data a9a.t=PATH] ...``: every data set given that way is added,
with ``NAME.t`` as its test split when given, a random split otherwise; the paper's files are not shipped). Experiments never plot; ``figures/hsg_hmc.py`` reads ``blr.csv`` and ``blr.json``.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: § "Bayesian Logistic Regression", Figure 2, Table 3.
"""
from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np

from sgmcmc_verify.errors import DivergenceError
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets.datasets import load as load_data
from sgmcmc_verify.targets.datasets import load_pair, standardize, train_test_split, user_data_names
from sgmcmc_verify.targets.logistic import GaussianPrior, LogisticRegressionTarget

from .methods import METHODS, make_method
from .settings import BLRSettings

__all__ = ["blr_run", "run_blr", "grid_configs"]


def _data(name, s):
    if name + ".t" in user_data_names():  # the LIBSVM page's own train / test files, read as one pair
        tr, te = load_pair(name)
    else:
        tr, te = train_test_split(load_data(name), s.test_fraction, s.seed)
    return standardize(tr, te)


def blr_run(sampler, target, Xte, yte, chains, passes, every, rng):
    """Run ``chains`` chains from 0; test NLL of the running predictive average at every ``every`` passes.

    Returns
    -------
    passes_at : (m,) ndarray; nll : (chains, m) ndarray
    """
    marks = np.arange(every, passes + 1e-9, every)
    run = run_chains(sampler, sampler.init(np.zeros((chains, target.dim))), rng, checkpoints=marks, unit="passes",
                     time_average={"p": lambda s: target.predictive(s.position, Xte)})
    p = np.clip(run["p"], 1e-12, 1 - 1e-12)  # (chains, m, n_test): the running predictive averages
    nll = -np.mean(yte[None, None] * np.log(p) + (1 - yte[None, None]) * np.log1p(-p), axis=2)
    return run["passes"], nll


def grid_configs(g, n):
    """Every combination of a method's hyperparameter grid ``{name: values}``, in sorted-name order;
    ``outer_batch_size = 0`` means ``B_0 = n``."""
    keys = sorted(g)
    for vals in itertools.product(*(g[k] for k in keys)):
        cfg = dict(zip(keys, vals))
        if cfg.get("outer_batch_size") == 0:
            cfg["outer_batch_size"] = n
        yield cfg


def run_blr(s: BLRSettings, out_dir, n_jobs=1, backend=None, progress=None):
    """Figure 2 on the configured data sets; writes ``blr.csv`` and ``blr.json``."""
    rows, meta = [], {"chosen": {}, "data": {}, "prior_precision": s.prior_precision}
    root = np.random.SeedSequence(s.seed)
    names = s.data_names()
    for name, ss in zip(names, root.spawn(len(names))):
        tr, te = _data(name, s)
        target = LogisticRegressionTarget(tr.X, tr.y, GaussianPrior(s.prior_precision))
        label = name.split("=", 1)[0]
        meta["data"][label] = {"n_train": int(tr.y.size), "n_test": int(te.y.size), "dim": int(target.dim),
                               "source": tr.source}
        ms = ss.spawn(len(METHODS))
        for mi, method in enumerate(METHODS):
            tune_ss, final_ss = ms[mi].spawn(2)
            best, tried = None, []
            for cfg, cs in zip(grid_configs(s.grids[method], target.n), tune_ss.spawn(64)):
                try:
                    _, nll = blr_run(make_method(method, target, cfg), target, te.X, te.y, s.chains, s.passes,
                                     s.checkpoint_every, np.random.default_rng(cs))
                    val = float(nll[:, -1].mean())
                except DivergenceError:
                    val = float("inf")
                # a diverged grid point is stored as null (JSON has no inf)
                tried.append({**cfg, "final_test_nll": val if math.isfinite(val) else None})
                if math.isfinite(val) and (best is None or val < best[0]):
                    best = (val, cfg)
            meta["chosen"][f"{label}|{method}"] = {"chosen": best[1] if best else None, "grid": tried}
            if best is None:
                continue
            at, nll = blr_run(make_method(method, target, best[1]), target, te.X, te.y, s.chains, s.passes,
                              s.checkpoint_every, np.random.default_rng(final_ss))
            for j in range(at.size):
                rows.append({"dataset": label, "method": method, "passes": float(at[j]),
                             "test_nll": float(nll[:, j].mean()),
                             "test_nll_se": float(nll[:, j].std(ddof=1) / math.sqrt(nll.shape[0])),
                             "hyperparameters": ";".join(f"{k}={v:g}" for k, v in sorted(best[1].items()))})
    out = Path(out_dir)
    write_csv(out / "blr.csv", rows)
    write_json(out / "blr.json", meta)
