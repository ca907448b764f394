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
from pathlib import Path

import numpy as np

from sgmcmc_verify.errors import DivergenceError
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets.cnn import CNNClassifierTarget
from sgmcmc_verify.targets.datasets import load_images
from sgmcmc_verify.targets.mlp import MLPClassifierTarget

from .blr import grid_configs
from .methods import METHODS, make_method
from .settings import BNNSettings

__all__ = ["run_bnn", "bnn_problem", "bnn_run"]


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


def run_bnn(s: BNNSettings, out_dir, n_jobs=1, backend=None, progress=None):
    """Figure 3 under both readings of the network; writes ``bnn.csv`` and ``bnn.json``."""
    rows, meta = [], {"chosen": {}, "architectures": {}}
    root = np.random.SeedSequence(s.seed)
    for arch, ss in zip(s.architectures, root.spawn(len(s.architectures))):
        target, (Xte, yte), m = bnn_problem(s, arch)
        meta["architectures"][arch] = m
        for method, ms in zip(METHODS, ss.spawn(len(METHODS))):
            tune_ss, final_ss = ms.spawn(2)
            best, tried = None, []
            for cfg, cs in zip(grid_configs(s.grids[method], target.n), tune_ss.spawn(64)):
                try:
                    _, nll, _ = bnn_run(make_method(method, target, cfg), target, Xte, yte, s.tune_chains, s.passes,
                                        s.passes, s.thin, np.random.default_rng(cs))
                    val = float(nll[:, -1].mean())
                except DivergenceError:
                    val = float("inf")
                tried.append({**cfg, "final_test_nll": val})
                if math.isfinite(val) and (best is None or val < best[0]):
                    best = (val, cfg)
            meta["chosen"][f"{arch}|{method}"] = {"chosen": best[1] if best else None, "grid": tried}
            if best is None:
                continue
            at, nll, acc = bnn_run(make_method(method, target, best[1]), target, Xte, yte, s.chains, s.passes,
                                   s.checkpoint_every, s.thin, np.random.default_rng(final_ss))
            for j in range(at.size):
                rows.append({"architecture": arch, "method": method, "passes": float(at[j]),
                             "test_nll": float(nll[:, j].mean()),
                             "test_nll_se": float(nll[:, j].std(ddof=1) / math.sqrt(nll.shape[0])),
                             "test_acc": float(acc[:, j].mean()),
                             "test_acc_se": float(acc[:, j].std(ddof=1) / math.sqrt(acc.shape[0])),
                             "hyperparameters": ";".join(f"{k}={v:g}" for k, v in sorted(best[1].items()))})
    out = Path(out_dir)
    write_csv(out / "bnn.csv", rows, header_comment=(
        f"HSG-HMC Fig 3 (Bayesian neural network) on {next(iter(meta['architectures'].values()))['source']} "
        f"(paper: full MNIST), scale={s.scale}: test NLL (nats per image) and accuracy of the running predictive "
        f"average over iterates every {s.thin:g} passes; mean and s.e. over {s.chains} chains; each method tuned on "
        "its grid by the final test NLL of a tuning run"))
    write_json(out / "bnn.json", meta)
