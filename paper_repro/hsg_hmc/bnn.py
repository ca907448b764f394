"""HSG-HMC Figure 3: a Bayesian neural network on MNIST, test NLL and accuracy vs data passes for the six methods.

Both readings of the text's network run (LeNet, as the text says; a feedforward network, as the caption says);
the settings and what the text leaves open are in :class:`~sgmcmc_verify.paper_repro.hsg_hmc.settings.BNNSettings`.
Experiments never plot; ``figures/hsg_hmc.py`` reads ``bnn.csv`` and ``bnn.json``.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: § "Bayesian Neural Network", Figure 3.
"""
from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from sgmcmc_verify.errors import DivergenceError
from sgmcmc_verify.runner import run_chains, run_tasks
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets.cnn import CNNClassifierTarget
from sgmcmc_verify.targets.datasets import load_images
from sgmcmc_verify.targets.mlp import MLPClassifierTarget

from .blr import grid_configs
from .methods import METHODS, make_method
from .settings import BNNSettings

__all__ = ["run_bnn", "bnn_problem", "bnn_run", "bnn_tasks"]

#: per process: ``architecture -> bnn_problem(settings, architecture)`` for the settings ``_PROBLEMS["key"]``, so that
#: a joblib worker builds each network and loads the data once for all the tasks it runs (deterministic: the same
#: target in every process)
_PROBLEMS: dict = {}


def bnn_problem(s: BNNSettings, architecture: str):
    """``(target, (X_test, y_test), meta)`` for ``architecture`` in {"lenet", "mlp"}.

    Raises
    ------
    ValueError
        An unknown architecture.
    """
    data = load_images("mnist", s.test_size, s.split_seed)
    X, y = data.X_train, data.y_train
    if s.max_train is not None and s.max_train < y.size:
        keep = np.sort(np.random.default_rng(s.split_seed).permutation(y.size)[:s.max_train])
        X, y = X[keep], y[keep]
    side = int(round(math.sqrt(X.shape[1])))
    if architecture == "lenet":
        t = CNNClassifierTarget(X, y, image_shape=(side, side), conv_channels=s.conv_channels, kernel=5, pool=2,
                                dense=s.dense, n_classes=10, prior_precision=s.prior_precision)
        arch = (f"conv {s.conv_channels[0]}@5x5 → pool 2 → conv {s.conv_channels[1]}@5x5 → pool 2 → dense "
                f"{'-'.join(map(str, s.dense))} (ReLU) → softmax")
    elif architecture == "mlp":
        t = MLPClassifierTarget(X, y, hidden=s.hidden, n_classes=10, prior_precision=s.prior_precision)
        arch = f"784-{s.hidden}-10, sigmoid hidden units, softmax output"
    else:
        raise ValueError(f"architecture must be 'lenet' or 'mlp', got {architecture!r}")
    meta = {"architecture": arch, "dim": int(t.dim), "n_train": int(y.size), "n_test": int(data.y_test.size),
            "source": data.source, "prior": f"N(0, 1/{s.prior_precision:g}) on every weight and bias"}
    return t, (data.X_test, data.y_test), meta


def bnn_run(sampler, target, Xte, yte, chains, passes, every, thin, rng):
    """Run ``chains`` chains; at every ``every`` passes the test NLL and accuracy of the running predictive average
    over the iterates recorded every ``thin`` passes.

    Returns
    -------
    passes_at : (m,) ndarray; nll, acc : (chains, m) ndarrays
    """
    marks = np.arange(thin, passes + 1e-9, thin)
    run = run_chains(sampler, sampler.init(target.initial_position(rng, chains)), rng, checkpoints=marks,
                     unit="passes", observe={"p": lambda s: target.predict_proba(s.position, Xte)})
    p = np.cumsum(run["p"], axis=1) / np.arange(1, run["p"].shape[1] + 1)[None, :, None, None]
    at = run["passes"]
    report = [int(np.argmin(np.abs(at - e))) for e in np.arange(every, passes + 1e-9, every)]
    pr = np.clip(p[:, report], 1e-12, 1.0)                         # (chains, m, n_test, K)
    nll = -np.mean(np.log(np.take_along_axis(pr, yte[None, None, :, None], axis=3)[..., 0]), axis=2)
    acc = np.mean(pr.argmax(axis=3) == yte[None, None, :], axis=2)
    return at[report], nll, acc


def _problem(s: BNNSettings, architecture: str):
    if _PROBLEMS.get("key") != repr(s):   # the networks of one run at a time per process
        _PROBLEMS.clear()
        _PROBLEMS["key"] = repr(s)
    if architecture not in _PROBLEMS:
        _PROBLEMS[architecture] = bnn_problem(s, architecture)
    return _PROBLEMS[architecture]


def _bnn_task(s: BNNSettings, architecture: str, method: str, cfg: dict, chains: int, every: float, seed_seq,
              tuning: bool):
    """One run of :func:`bnn_run` (a task of :func:`run_bnn`'s joblib lists): ``(at, nll, acc)``.

    ``tuning``: a diverged run returns ``None`` (its grid point scores ``inf`` when choosing, and is stored as
    ``final_test_nll: null, diverged: true``); a final run raises.
    """
    target, (Xte, yte), _ = _problem(s, architecture)
    try:
        return bnn_run(make_method(method, target, cfg), target, Xte, yte, chains, s.passes, every, s.thin,
                       np.random.default_rng(seed_seq))
    except DivergenceError:
        if tuning:
            return None
        raise


def _seconds_per_datum(target) -> float:
    """Measured seconds of one per-datum gradient of ``target`` (a minibatch of 32 at its start): the relative
    cost of the two networks' tasks, used only to dispatch the costliest first (it changes no number)."""
    rng = np.random.default_rng(0)
    theta = target.initial_position(rng, 1)
    idx = rng.integers(0, target.n, size=(1, min(32, target.n)))
    target.data_gradient_sum(theta, idx)   # warm-up
    t0 = time.perf_counter()
    target.data_gradient_sum(theta, idx)
    return (time.perf_counter() - t0) / idx.size


def bnn_tasks(s: BNNSettings, n: int):
    """The tuning tasks of :func:`run_bnn` in task order, with their seeds (``n``: the training set's size, the
    grids' ``outer_batch_size = 0``).

    Seeds: ``SeedSequence(seed).spawn(#architectures)[a].spawn(#methods)[m].spawn(2)``; tuning run ``g`` of the
    grid uses ``[0].spawn(64)[g]``, the final run ``[1]`` (the order of the serial loops this list replaced).

    Returns
    -------
    tuning : list of ``(architecture, method, cfg, seed)``
    finals : dict ``(architecture, method) -> seed`` of the final run
    """
    tuning, finals = [], {}
    root = np.random.SeedSequence(s.seed)
    for arch, ss in zip(s.architectures, root.spawn(len(s.architectures))):
        for method, ms in zip(METHODS, ss.spawn(len(METHODS))):
            tune_ss, final_ss = ms.spawn(2)
            for cfg, cs in zip(grid_configs(s.grids[method], n), tune_ss.spawn(64)):
                tuning.append((arch, method, cfg, cs))
            finals[(arch, method)] = final_ss
    return tuning, finals


def run_bnn(s: BNNSettings, out_dir, n_jobs=1, backend=None, progress=None):
    """Figure 3 under both readings of the network; writes ``bnn.csv`` and ``bnn.json``.

    Two joblib task lists (:func:`~sgmcmc_verify.runner.run_tasks`): every tuning run of every (architecture,
    method, grid point), then the final run of each (architecture, method) at its chosen grid point. Each run has
    the seed the serial loops gave it (:func:`bnn_tasks`), so the numbers do not depend on ``n_jobs``, the backend
    or the dispatch order (the costlier network's runs first: :func:`_seconds_per_datum`).
    """
    rows, meta = [], {"chosen": {}, "architectures": {}}
    per_datum = {}
    for arch in s.architectures:
        target, _, m = _problem(s, arch)
        meta["architectures"][arch] = m
        per_datum[arch] = _seconds_per_datum(target)
    tuning, finals = bnn_tasks(s, target.n)
    vals = run_tasks(_bnn_task, [(s, arch, method, cfg, s.tune_chains, s.passes, cs, True)
                                 for arch, method, cfg, cs in tuning],
                     n_jobs=n_jobs, backend=backend, cost=[per_datum[t[0]] * s.tune_chains for t in tuning])
    best, tried = {}, {}
    for (arch, method, cfg, _), res in zip(tuning, vals):
        val = float("inf") if res is None else float(res[1][:, -1].mean())
        # a diverged (or non-finite) tuning run is stored as None with its flag: JSON has no inf
        tried.setdefault((arch, method), []).append({**cfg, "final_test_nll": val if math.isfinite(val) else None,
                                                     "diverged": res is None})
        b = best.get((arch, method))
        if math.isfinite(val) and (b is None or val < b[0]):
            best[(arch, method)] = (val, cfg)
    chosen = [(arch, method) for arch in s.architectures for method in METHODS if (arch, method) in best]
    for arch in s.architectures:
        for method in METHODS:
            b = best.get((arch, method))
            meta["chosen"][f"{arch}|{method}"] = {"chosen": b[1] if b else None, "grid": tried.get((arch, method), [])}
    runs = run_tasks(_bnn_task, [(s, arch, method, best[(arch, method)][1], s.chains, s.checkpoint_every,
                                  finals[(arch, method)], False) for arch, method in chosen],
                     n_jobs=n_jobs, backend=backend, cost=[per_datum[a] for a, _ in chosen])
    for (arch, method), (at, nll, acc) in zip(chosen, runs):
        cfg = best[(arch, method)][1]
        for j in range(at.size):
            rows.append({"architecture": arch, "method": method, "passes": float(at[j]),
                         "test_nll": float(nll[:, j].mean()),
                         "test_nll_se": float(nll[:, j].std(ddof=1) / math.sqrt(nll.shape[0])),
                         "test_acc": float(acc[:, j].mean()),
                         "test_acc_se": float(acc[:, j].std(ddof=1) / math.sqrt(acc.shape[0])),
                         "hyperparameters": ";".join(f"{k}={v:g}" for k, v in sorted(cfg.items()))})
    out = Path(out_dir)
    write_csv(out / "bnn.csv", rows, header_comment=(
        f"HSG-HMC Fig 3 (Bayesian neural network) on {next(iter(meta['architectures'].values()))['source']} "
        f"(paper: full MNIST), scale={s.scale}: test NLL (nats per image) and accuracy of the running predictive "
        f"average over iterates every {s.thin:g} passes; mean and s.e. over {s.chains} chains; each method tuned on "
        "its grid by the final test NLL of a tuning run"))
    write_json(out / "bnn.json", meta)
