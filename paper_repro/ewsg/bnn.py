"""EWSG §5.3 (Fig. 3a, Table 2 MLP column) and Appendix G.3 (Table 3): the Bayesian MLP on MNIST.

§5.3 / Fig. 3a / Table 2: SGLD, pSGLD, SGHMC, CP-SGHMC and EWSG on a one-hidden-layer Bayesian MLP
(:class:`sgmcmc_verify.targets.MLPClassifierTarget`), minibatch 100, each run as ``chains`` independent chains;
at every ``checkpoint_every`` epochs the predictive probabilities on the test images and on a fixed
subset of training images are recorded, averaged over the second half of the run so far
(:func:`sgmcmc_verify.measure.window_average`) and scored (:func:`sgmcmc_verify.measure.classification_scores`).
Table 3: EWSG with minibatch b and index chain M against SGHMC with minibatch b(M + 1) at
``h = √(10/(b(M+1) n))``. The settings' block in :mod:`sgmcmc_verify.paper_repro.ewsg.settings` lists every choice
the text leaves open. Experiments never plot; ``figures/ewsg.py`` reads the CSV / JSON.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: §5.3, Fig. 3a, Appendix G.2 (Table 2), Appendix G.3 (Table 3).
"""
from __future__ import annotations

import time
from functools import partial
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from sgmcmc_verify import samplers
from sgmcmc_verify.errors import DivergenceError
from sgmcmc_verify.estimators import ClusteredMinibatch, EWSGIndexChain, kmeans_clusters
from sgmcmc_verify.integrators import UnderdampedEM
from sgmcmc_verify.measure.predictive import classification_scores, window_average
from sgmcmc_verify.runner import run_chains, run_realizations
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets.datasets import load_images
from sgmcmc_verify.targets.mlp import MLPClassifierTarget

from ..vrsg.mlp import CURVES, curve_rows  # the long-format curve rows of both MLP studies, written once
from .settings import BNNSettings, Table3Settings

__all__ = ["BNN_METHODS", "make_bnn_sampler", "bnn_chains", "load_bnn_problem", "table3_step_size", "run_bnn",
           "run_table3", "CURVES"]

#: The methods of Fig. 3a / Table 2.
BNN_METHODS = ("SGLD", "pSGLD", "SGHMC", "CP-SGHMC", "EWSG")


def make_bnn_sampler(spec: dict, target, labels=None):
    """The sampler of a method spec ``{"method", "h", "friction", "batch_size", "M", "allocation"}``.

    Parameters
    ----------
    spec : dict
        ``method`` one of :data:`BNN_METHODS`; ``h`` the step size; ``friction`` γ (underdamped methods);
        ``batch_size`` b; ``M`` the EWSG index-chain length; ``allocation`` CP-SGHMC's draws per cluster.
    target : MLPClassifierTarget
    labels : (n,) ndarray of int or None
        The k-means cluster of every training datum (CP-SGHMC only).

    Raises
    ------
    ValueError
        An unknown method; CP-SGHMC without ``labels``.
    """
    m, h, b = spec["method"], spec["h"], spec["batch_size"]
    if m == "SGLD":
        return samplers.sgld(target, h, b)
    if m == "pSGLD":
        return samplers.psgld(target, h, b)
    if m == "SGHMC":
        return samplers.sghmc(target, h, spec["friction"], b)
    if m == "EWSG":
        return UnderdampedEM(target, h, spec["friction"], EWSGIndexChain(spec["M"], b), name="EWSG")
    if m == "CP-SGHMC":
        if labels is None:
            raise ValueError("CP-SGHMC needs the cluster labels of the training data")
        return UnderdampedEM(target, h, spec["friction"], ClusteredMinibatch(labels, b, spec.get("allocation", "equal")),
                             name="CP-SGHMC")
    raise ValueError(f"unknown method {m!r}; choose one of {BNN_METHODS}")


def bnn_chains(n_chains, rng, *, spec, target, evals, checkpoints, burn_in_fraction, labels=None):
    """One block of independent chains of one method; per-chain error / NLL curves at the checkpoints.

    Parameters
    ----------
    n_chains : int
    rng : numpy.random.Generator
    spec : dict          the method (:func:`make_bnn_sampler`)
    target : MLPClassifierTarget
    evals : dict ``split -> (X, y)``   the sets scored at each checkpoint
    checkpoints : (n_ck,) data passes (epochs)
    burn_in_fraction : float   of :func:`~sgmcmc_verify.measure.window_average`
    labels : (n,) ndarray of int or None   CP-SGHMC's clusters

    Returns
    -------
    dict
        ``"record_passes"``, ``"record_steps"`` ``(chains, n_ck)``; for each split the curves
        ``<split>_error``, ``<split>_nll`` (posterior-predictive average, NLL in nats per datum) and
        ``..._last`` (the current sample) ``(chains, n_ck)``, NaN where not recorded; ``"diverged"``
        ``(chains,)`` 0/1; ``"acceptance"`` ``(chains,)`` the EWSG index chain's mean acceptance rate (NaN
        for the others).
    """
    n_ck = len(checkpoints)
    out = {"record_passes": np.full((n_chains, n_ck), np.nan), "record_steps": np.full((n_chains, n_ck), np.nan),
           "diverged": np.zeros(n_chains), "acceptance": np.full(n_chains, np.nan)}
    for split in evals:
        for k in ("error", "nll", "error_last", "nll_last"):
            out[f"{split}_{k}"] = np.full((n_chains, n_ck), np.nan)
    sampler = make_bnn_sampler(spec, target, labels)
    obs = {split: partial(lambda s, X: target.predict_proba(s.position, X), X=X) for split, (X, _) in evals.items()}
    try:
        with threadpool_limits(1):
            run = run_chains(sampler, sampler.init(target.initial_position(rng, n_chains)), rng,
                             checkpoints=checkpoints, unit="passes", observe=obs)
    except DivergenceError:
        out["diverged"][:] = 1.0
        return out
    r = run["passes"].size
    out["record_passes"][:, :r] = run["passes"]
    out["record_steps"][:, :r] = run["steps"]
    if "acceptance_rate" in run["info"]:
        out["acceptance"][:] = run["info"]["acceptance_rate"]
    for split, (_, y) in evals.items():
        p = run[split]
        out[f"{split}_error_last"][:, :r], out[f"{split}_nll_last"][:, :r] = classification_scores(p, y)
        out[f"{split}_error"][:, :r], out[f"{split}_nll"][:, :r] = classification_scores(
            window_average(p, run["passes"], burn_in_fraction), y)
    return out


def load_bnn_problem(s):
    """``(target, evals, data_meta)``: the MLP on the training images (the first ``max_train`` of a fixed
    permutation when set), the test set and a training-evaluation subset of ``train_eval_size`` images."""
    data = load_images("mnist", s.test_size, s.split_seed)
    X, y = data.X_train, data.y_train
    if s.max_train is not None and s.max_train < y.size:
        keep = np.sort(np.random.default_rng(s.split_seed).permutation(y.size)[:s.max_train])
        X, y = X[keep], y[keep]
    target = MLPClassifierTarget(X, y, s.hidden, 10, s.prior_precision, s.activation)
    n_eval = min(s.train_eval_size, target.n)
    sub = np.sort(np.random.default_rng(s.split_seed + 1).choice(target.n, n_eval, replace=False))
    evals = {"test": (data.X_test, data.y_test), "train": (X[sub], y[sub])}
    meta = {"source": data.source, "n_train": int(target.n), "n_test": int(data.y_test.size), "n_train_eval": n_eval,
            "dim": int(target.dim), "architecture": f"784-{s.hidden}-10, {s.activation} hidden units, softmax output, "
            f"N(0, 1/{s.prior_precision:g}) prior on every weight and bias"}
    return target, evals, meta


def _checkpoints(s):
    k = int(round(s.epochs / s.checkpoint_every))
    return np.round(np.arange(1, k + 1) * s.checkpoint_every, 12)


def _seed(*parts) -> int:
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


def _final(res, key="test_error"):
    """Per-chain value at each chain's last record (NaN for a diverged chain)."""
    v = res[key]
    last = np.sum(np.isfinite(v), axis=1) - 1
    return np.where(last >= 0, v[np.arange(v.shape[0]), np.maximum(last, 0)], np.nan)


def _summary(res) -> dict:
    out = {}
    for k in ("test_error", "test_nll", "train_error", "test_error_last"):
        f = _final(res, k)
        ok = f[np.isfinite(f)]
        out[k] = {"mean": float(ok.mean()) if ok.size else None,
                  "sd": float(ok.std(ddof=1)) if ok.size > 1 else None,
                  "se": float(ok.std(ddof=1) / np.sqrt(ok.size)) if ok.size > 1 else None,
                  "per_chain": [None if not np.isfinite(x) else float(x) for x in f]}
    out["diverged_chains"] = int(res["diverged"].sum())
    acc = res["acceptance"][np.isfinite(res["acceptance"])]
    out["acceptance_rate"] = float(acc.mean()) if acc.size else None
    return out


def run_methods(s, target, evals, labels, meta, n_jobs=1, backend=None) -> list[dict]:
    """Every run of ``s.methods`` (at ``s.step_sizes``) and ``s.extra_runs`` (label, method, h): ``s.chains``
    chains each, one joblib list per run; fills ``meta["wall_s"]``, ``meta["step_size"]``, ``meta["final"]`` and
    returns the curve rows. Shared by the MLP column (:func:`run_bnn`) and the CNN column
    (:func:`sgmcmc_verify.paper_repro.ewsg.cnn.run_cnn`); ``labels`` are CP-SGHMC's clusters (None without it)."""
    ck, rows = _checkpoints(s), []
    runs = [(m, m, s.step_sizes[m]) for m in s.methods] + [tuple(r) for r in s.extra_runs]
    for mi, (label, method, h) in enumerate(runs):
        spec = {"method": method, "h": h, "friction": s.friction, "batch_size": s.batch_size,
                "M": s.index_chain_length, "allocation": s.allocation}
        t0 = time.time()
        res = run_realizations(partial(bnn_chains, spec=spec, target=target, evals=evals, checkpoints=ck,
                                       burn_in_fraction=s.burn_in_fraction, labels=labels),
                               s.chains, seed=_seed(s.seed, mi), block_size=1, n_jobs=n_jobs, backend=backend)
        meta["wall_s"][label], meta["step_size"][label] = time.time() - t0, h
        meta["final"][label] = _summary(res)
        rows += curve_rows(res, {"method": label, "step_size": h})
    return rows


def run_bnn(s: BNNSettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Fig. 3a and Table 2 (MLP): write ``bnn.csv`` (per-chain curves vs epochs) and ``bnn.json`` (finals, settings)."""
    target, evals, data_meta = load_bnn_problem(s)
    labels = None
    meta = {"settings": s.as_dict(), "data": data_meta, "final": {}, "wall_s": {}, "step_size": {}}
    if "CP-SGHMC" in s.methods:
        t0 = time.time()
        labels = kmeans_clusters(target.X, s.n_clusters, seed=s.seed)
        meta["clusters"] = {"sizes": np.bincount(labels).tolist(), "wall_s": time.time() - t0,
                            "per_cluster_draws": ClusteredMinibatch(labels, s.batch_size, s.allocation).per_cluster.tolist()}
    rows = run_methods(s, target, evals, labels, meta, n_jobs, backend)
    out = Path(out_dir)
    write_csv(out / "bnn.csv", rows, header_comment=(
        f"EWSG §5.3 Fig. 3a / Table 2 (MLP), {data_meta['architecture']}, {data_meta['source']}, scale={s.scale}: "
        f"per-chain test/train error and NLL (nats/datum) of the posterior-predictive average over the second half "
        f"of the run so far (and of the current sample, *_last) vs epochs (per-datum gradients / n) and steps"))
    write_json(out / "bnn.json", meta)


def table3_step_size(b: int, m_plus_one: int, n: int, numerator: float = 10.0) -> float:
    """Table 3's step size ``h = √(numerator / (b(M+1) n))`` on the summed potential.

    The paper's ``h = 10/(b(M+1))`` "as suggested in [12]" read as a learning rate η of the per-datum-mean
    potential in [12]'s momentum-SGD parametrization (η = h² for the summed potential, whose gradient is
    n times larger): ``h² n = 10/(b(M+1))``.

    Raises
    ------
    ValueError
        A non-positive argument.
    """
    for name, v in (("b", b), ("m_plus_one", m_plus_one), ("n", n), ("numerator", numerator)):
        if not v > 0:
            raise ValueError(f"{name} must be > 0, got {v!r}")
    return float(np.sqrt(numerator / (b * m_plus_one * n)))


def run_table3(s: Table3Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Table 3: write ``table3.csv`` (per-chain curves per cell and method) and ``table3.json`` (finals per cell).

    A cell whose SGHMC minibatch ``b(M + 1)`` exceeds the training set (b = 500, M + 1 = 10 on the
    4,000-image subset) is skipped and listed, with the reason, under ``"skipped"``.
    """
    target, evals, data_meta = load_bnn_problem(s)
    ck, rows = _checkpoints(s), []
    meta = {"settings": s.as_dict(), "data": data_meta, "cells": []}
    for bi, b in enumerate(s.batch_sizes):
        for mi, m1 in enumerate(s.chain_lengths_plus_one):
            h = table3_step_size(b, m1, target.n, s.step_numerator)
            if b * m1 > target.n:  # SGHMC's minibatch would exceed the data (the subset at --scale paper)
                meta.setdefault("skipped", []).append(
                    {"b": b, "m_plus_one": m1, "reason": f"SGHMC's minibatch b(M+1) = {b * m1} exceeds n = {target.n}"})
                continue
            cell = {"b": b, "m_plus_one": m1, "step_size": h, "final": {}, "wall_s": {}}
            for k, (method, bs, M) in enumerate((("EWSG", b, m1 - 1), ("SGHMC", b * m1, 0))):
                spec = {"method": method, "h": h, "friction": s.friction, "batch_size": bs, "M": M}
                t0 = time.time()
                res = run_realizations(partial(bnn_chains, spec=spec, target=target, evals=evals, checkpoints=ck,
                                               burn_in_fraction=s.burn_in_fraction),
                                       s.chains, seed=_seed(s.seed, bi, mi, k), block_size=1, n_jobs=n_jobs,
                                       backend=backend)
                cell["wall_s"][method] = time.time() - t0
                cell["final"][method] = _summary(res)
                rows += curve_rows(res, {"b": b, "m_plus_one": m1, "method": method, "batch_size": bs,
                                    "index_chain_length": M, "step_size": h})
            meta["cells"].append(cell)
    out = Path(out_dir)
    write_csv(out / "table3.csv", rows, header_comment=(
        f"EWSG Appendix G.3 Table 3, {data_meta['architecture']}, {data_meta['source']}, scale={s.scale}: EWSG "
        f"(minibatch b, index chain M) and SGHMC (minibatch b(M+1)) at h = sqrt({s.step_numerator:g}/(b(M+1) n)), "
        f"per-chain test/train error and NLL of the posterior-predictive average vs epochs"))
    write_json(out / "table3.json", meta)
