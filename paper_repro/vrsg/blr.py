"""vrSG-MCMC Figure 9 (top): Bayesian logistic regression on Pima, test NLL vs data passes for varying n1.

The data and the target are the toolkit's (Pima from R's MASS, standardized with a bias column, by
:func:`sgmcmc_verify.paper_repro.ls_sgld.blr.load_blr_data`; :class:`sgmcmc_verify.targets.LogisticRegressionTarget` with
a Gaussian prior); the run protocol is the MLP's (:func:`sgmcmc_verify.paper_repro.vrsg.mlp.classifier_chains`:
tuned η on a grid, posterior-predictive average over the second half of the run, per-chain curves).
:class:`~sgmcmc_verify.paper_repro.vrsg.settings.BLRSensitivitySettings` states the choices.

References
----------
Seed ``002_245183f35db8d795.txt``: Appendix "Supplemental results on logistic regression", Figure 9
(top); §5 "Parameter sensitivity".
"""
from __future__ import annotations

import time
from functools import partial
from pathlib import Path

import numpy as np

from sgmcmc_verify.paper_repro.ls_sgld.blr import load_blr_data
from sgmcmc_verify.runner import run_realizations
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets.logistic import GaussianPrior, LogisticRegressionTarget

from .mlp import _noise_at_end, _noise_summary, _seed, classifier_chains, curve_rows, tune_and_run
from .settings import BLRSensitivitySettings

__all__ = ["run_blr_n1", "blr_proba"]


def blr_proba(target, theta, X):
    """``(p(y=0|x), p(y=1|x))`` for every chain and row: ``(chains, m, 2)``."""
    p1 = target.predictive(theta, X)
    return np.stack([1.0 - p1, p1], axis=-1)


def _zeros(dim, rng, chains):
    return np.zeros((chains, dim))


def _run_split(s: BLRSensitivitySettings, split: int, seed: int):
    """SGLD and vrSG-MCMC on one train/test split: ``(rows, meta)``."""
    train, test = load_blr_data(s.dataset, s.test_fraction, split)
    target = LogisticRegressionTarget(train.X, train.y, GaussianPrior(s.prior_precision))
    ck = np.round(np.arange(1, int(round(s.passes / s.checkpoint_every)) + 1) * s.checkpoint_every, 12)
    evals = {"test": (test.X, test.y.astype(np.int64)), "train": (train.X, train.y.astype(np.int64))}
    kw = {"target": target, "start": partial(_zeros, target.dim), "proba": blr_proba, "evals": evals,
          "checkpoints": ck, "burn_in_fraction": s.burn_in_fraction}
    base = {"n2": s.n2, "update_interval": s.update_interval, "batch_size": s.batch_size, "replace": s.replace}
    meta = {"data": {"name": train.name, "source": train.source, "n_train": int(target.n), "n_test": int(test.y.size),
                     "dim": int(target.dim)}, "tuning": [], "chosen_eta": {}, "diverged_final": {}, "gradient_noise": {}, "wall_s": {},
            "settings": s.as_dict()}
    rows = []
    for mi, method in enumerate(("SGLD", "vrSG-MCMC")):
        t0 = time.time()
        final, eta, table = tune_and_run({**base, "method": method, "n1": s.n1_tuned}, s.eta_grid, kw,
                                         tune_chains=s.tune_chains, chains=s.chains, seed=_seed(seed, mi),
                                         n_jobs=1, backend=None, block_size=max(s.chains, s.tune_chains),
                                         final_extra={"diagnose": _noise_at_end})
        meta["tuning"] += table
        meta["chosen_eta"][method], meta["wall_s"][method] = eta, time.time() - t0
        if final is not None:
            meta["gradient_noise"][method] = _noise_summary(final)
        if final is not None and method == "SGLD":
            meta["diverged_final"]["SGLD"] = int(final["diverged"].sum())
            rows += curve_rows(final, {"dataset": s.dataset, "method": "SGLD", "n1": 0, "eta": eta})
    eta = meta["chosen_eta"]["vrSG-MCMC"]
    for j, n1 in enumerate(s.n1_values if eta is not None else ()):
        spec = {**base, "method": f"vrSG-MCMC-G{n1}", "n1": n1, "eta": eta}
        res = run_realizations(partial(classifier_chains, spec=spec, **kw), s.chains, seed=_seed(seed, 5, j),
                               block_size=s.chains)
        meta["diverged_final"][f"G{n1}"] = int(res["diverged"].sum())
        rows += curve_rows(res, {"dataset": s.dataset, "method": f"vrSG-MCMC-G{n1}", "n1": n1, "eta": eta})
    return rows, meta, train.name


def run_blr_n1(s: BLRSensitivitySettings, out_dir, n_jobs=1, backend=None, progress=None):
    """SGLD and vrSG-MCMC (n1 = ``n1_tuned``) tuned on the η grid, then every n1 at vrSG's η; ``blr_n1.csv`` / ``.json``
    on the registered split (``split_seed``), and the same on ``extra_splits`` more random splits (seeds
    ``split_seed + 1, ...``, each with its own random streams) in ``blr_n1_splits.csv`` / ``.json`` (column ``split``),
    so that Figure 9's claim is decided over splits (issue #24 item 5)."""
    rows, meta, name = _run_split(s, s.split_seed, s.seed)
    write_csv(Path(out_dir) / "blr_n1.csv", rows, header_comment=(
        f"vrSG-MCMC Fig 9 top, Bayesian logistic regression on {name} (prior N(0, {1 / s.prior_precision:g} I)), "
        f"scale={s.scale}: per-chain test/train error and NLL of the posterior-predictive average over the second half "
        f"of the run vs data passes; n2 = {s.n2}, m = {s.update_interval}; SGLD batch {s.batch_size} (n1 = 0 rows)"))
    write_json(Path(out_dir) / "blr_n1.json", meta)
    if s.extra_splits < 1:
        return
    all_rows, by_split = [], {}
    for k in range(1, s.extra_splits + 1):
        split = s.split_seed + k
        r, m, _ = _run_split(s, split, _seed(s.seed, 1000 + k))
        all_rows += [{"split": split, **row} for row in r]
        by_split[str(split)] = m
    write_csv(Path(out_dir) / "blr_n1_splits.csv", all_rows, header_comment=(
        f"vrSG-MCMC Fig 9 top on {s.extra_splits} more random train/test splits of {name} (split seeds "
        f"{s.split_seed + 1}..{s.split_seed + s.extra_splits}; the registered split {s.split_seed} is blr_n1.csv), "
        f"scale={s.scale}: the same columns as blr_n1.csv"))
    write_json(Path(out_dir) / "blr_n1_splits.json", {"splits": by_split})
