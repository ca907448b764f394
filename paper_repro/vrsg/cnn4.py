"""vrSG-MCMC §5 "Convolutional neural networks", Figure 3 (top) and Figure 7 (top): CNN-4, reduced.

SGLD and vrSG-MCMC on a Bayesian CNN-4 (:class:`sgmcmc_verify.targets.cnn.CNNClassifierTarget`, C32-C32-C64-C32,
max pooling after the first three convolutions), each tuned on the same η grid by the same criterion as the MLP
(:func:`sgmcmc_verify.paper_repro.vrsg.mlp.tune_and_run`), then run as independent chains; test and training error
and NLL of the posterior-predictive average vs data passes, written in the MLP's format (``cnn4.csv`` / ``cnn4.json``)
so that the same curve readers and rules decide it. What differs from the paper is listed in
:class:`~sgmcmc_verify.paper_repro.vrsg.settings.CNN4Settings`.

References
----------
Seed ``002_245183f35db8d795.txt``: §5 "Convolutional neural networks", Figures 3 and 7 (top); Algorithm 1.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets.cnn import CNNClassifierTarget
from sgmcmc_verify.targets.datasets import load_images

from .mlp import _methods, curve_rows
from .settings import CNN4Settings

__all__ = ["load_cnn4_problem", "run_cnn4", "architecture"]


def architecture(s: CNN4Settings) -> str:
    """The network in words, e.g. ``conv 32@2x2 → pool 2 → ... → softmax``."""
    return " → ".join(f"conv {c}@{s.kernel}x{s.kernel}" + (f" → pool {p}" if p > 1 else "")
                      for c, p in zip(s.conv_channels, s.pool)) + " → softmax"


def load_cnn4_problem(name: str, s: CNN4Settings):
    """``(target, evals, meta)``: the CNN-4 on the training images (the first ``max_train`` of a fixed permutation
    when set), ``evals = {"test": ..., "train": ...}`` (``test_eval_size`` / ``train_eval_size`` images drawn without
    replacement with ``default_rng(split_seed)``).

    Raises
    ------
    ValueError
        From the data loader (an unknown name, CIFAR-10 without its directory) or the target (bad widths).
    """
    data = load_images(name, s.test_size, s.split_seed)
    X, y = data.X_train, data.y_train
    rng = np.random.default_rng(s.split_seed)
    if s.max_train is not None and s.max_train < y.size:
        keep = np.sort(rng.permutation(y.size)[:s.max_train])
        X, y = X[keep], y[keep]
    shape = (28, 28) if name == "mnist" else (32, 32, 3)
    if name == "cifar10":   # the python batches store each image channel-major (3 × 32 × 32)
        X = X.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1).reshape(X.shape[0], -1)
        Xt = data.X_test.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1).reshape(data.X_test.shape[0], -1)
    else:
        Xt = data.X_test
    target = CNNClassifierTarget(X, y, image_shape=shape, conv_channels=s.conv_channels, kernel=s.kernel, pool=s.pool,
                                 dense=(), n_classes=10, prior_precision=s.prior_precision)
    tr = np.sort(rng.choice(y.size, min(s.train_eval_size, y.size), replace=False))
    te = np.sort(rng.choice(data.y_test.size, min(s.test_eval_size, data.y_test.size), replace=False))
    evals = {"test": (Xt[te].reshape((te.size,) + target.image_shape), data.y_test[te]),
             "train": (target.X[tr], y[tr])}
    meta = {"source": data.source, "n_train": int(target.n), "n_test": int(te.size), "n_train_eval": int(tr.size),
            "dim": int(target.dim), "architecture": architecture(s)}
    return target, evals, meta


def run_cnn4(s: CNN4Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``cnn4.csv`` (per-chain curves, the MLP's columns) and ``cnn4.json`` (data, tuning, chosen η)."""
    rows, meta = [], {"data": {}, "tuning": [], "chosen_eta": {}, "step_size": {}, "diverged_final": {},
                      "gradient_noise": {}, "wall_s": {}, "settings": s.as_dict()}
    for di, name in enumerate(s.data_names()):
        target, evals, dmeta = load_cnn4_problem(name, s)
        meta["data"][name] = dmeta
        finals, _, _ = _methods(s, name, target, evals, di, meta, n_jobs, backend)
        for method, (final, eta) in finals.items():
            rows += curve_rows(final, {"dataset": name, "method": method, "eta": eta, "step_size": eta / target.n})
    write_csv(Path(out_dir) / "cnn4.csv", rows, header_comment=(
        f"vrSG-MCMC Fig 3/7 (top), Bayesian CNN-4 ({architecture(s)}), scale={s.scale}: per-chain test/train error and "
        "NLL (nats/datum) of the posterior-predictive average over the second half of the run (and of the current "
        "sample, *_last) vs data passes (all per-datum gradients / N) and steps"))
    write_json(Path(out_dir) / "cnn4.json", meta)
