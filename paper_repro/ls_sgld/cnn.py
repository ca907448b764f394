"""LS-SGLD Fig. 5: a Bayesian convolutional network on MNIST by SGLD, pSGLD, LS-SGLD and LS-pSGLD.

Laplacian smoothing acts on the flattened parameter vector by FFT (the periodic ``A_σ`` of eq. (2.1), as the
text's algorithm does for any d). The settings, what the text prints and what it leaves open are in
:class:`sgmcmc_verify.paper_repro.ls_sgld.settings.Fig5Settings`.

References
----------
Seed ``004_8438bd4b543e0fc4.txt``: §4.3, Figure 5.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sgmcmc_verify import samplers
from sgmcmc_verify.runner import run_chains, run_tasks
from sgmcmc_verify.store.io import write_csv
from sgmcmc_verify.targets.cnn import CNNClassifierTarget
from sgmcmc_verify.targets.datasets import load_images
from sgmcmc_verify.targets.logistic import GammaNormPrior

from .blr import smoothing_sigma
from .settings import Fig5Settings

__all__ = ["run_fig5", "load_fig5_problem", "SAMPLERS"]

#: the four samplers of Fig. 5, in the order of the tasks (and of the seeds)
SAMPLERS = ("SGLD", "pSGLD", "LS-SGLD", "LS-pSGLD")


def load_fig5_problem(cfg: Fig5Settings):
    """``(target, evals, meta)``: the CNN on the training images (the first ``max_train`` of a fixed permutation
    when set), ``evals = {"train": (X, y), "test": (X, y)}`` (a training subset of ``eval_train`` images)."""
    data = load_images("mnist", cfg.test_size, cfg.split_seed)
    X, y = data.X_train, data.y_train
    if cfg.max_train is not None and cfg.max_train < y.size:
        keep = np.sort(np.random.default_rng(cfg.split_seed).permutation(y.size)[:cfg.max_train])
        X, y = X[keep], y[keep]
    side = int(round(np.sqrt(X.shape[1])))
    target = CNNClassifierTarget(X, y, image_shape=(side, side), conv_channels=cfg.conv_channels, kernel=cfg.kernel,
                                 pool=cfg.pool, dense=cfg.dense, n_classes=10, dense_activation="identity",
                                 data_scale=1.0 / y.size, prior=GammaNormPrior(cfg.prior_lam, cfg.prior_theta))
    n_eval = min(cfg.eval_train, y.size)
    sub = np.sort(np.random.default_rng(cfg.split_seed + 1).choice(y.size, n_eval, replace=False))
    evals = {"train": (X[sub], y[sub]), "test": (data.X_test, data.y_test)}
    arch = (" → ".join(f"conv {c}@{cfg.kernel}x{cfg.kernel} → pool {cfg.pool}" for c in cfg.conv_channels)
            + " → " + " → ".join(f"affine {w}" for w in cfg.dense) + " → softmax")
    meta = {"source": data.source, "n_train": int(y.size), "n_test": int(data.y_test.size), "dim": int(target.dim),
            "architecture": arch}
    return target, evals, meta


def _samplers(tgt, cfg):
    """The four samplers with the authors' code's dynamics: step ``lr`` on the mean loss at inverse temperature
    ``1/lr²`` (their optimizers add ``lr·√(2·lr)·ξ``; see :class:`Fig5Settings`), LS steps × (1+4σ)^{1/4}."""
    steps = dict(cfg.step_sizes)
    fac = (1.0 + 4.0 * cfg.sigma) ** 0.25
    b = cfg.batch_size
    lr = {"SGLD": steps["SGLD"], "pSGLD": steps["pSGLD"], "LS-SGLD": steps["SGLD"] * fac,
          "LS-pSGLD": steps["pSGLD"] * fac}
    beta = {k: 1.0 / v ** 2 for k, v in lr.items()}
    return {
        "SGLD": lambda: samplers.sgld(tgt, lr["SGLD"], batch_size=b, inverse_temperature=beta["SGLD"]),
        "pSGLD": lambda: samplers.psgld(tgt, lr["pSGLD"], batch_size=b, preconditioner_input="full", smoothing=0.0,
                                        inverse_temperature=beta["pSGLD"]),
        "LS-SGLD": lambda: samplers.ls_sgld(tgt, lr["LS-SGLD"], cfg.sigma, batch_size=b,
                                            inverse_temperature=beta["LS-SGLD"]),
        "LS-pSGLD": lambda: samplers.ls_psgld(tgt, lr["LS-pSGLD"], cfg.sigma, batch_size=b,
                                              preconditioner_input="full", inverse_temperature=beta["LS-pSGLD"]),
    }


def _scores(tgt, theta, X, y):
    """Per-chain mean NLL (nats per datum) and accuracy of the parameters ``theta`` (c, d) on (X, y)."""
    lp = tgt.log_proba(theta, X)
    nll = -np.take_along_axis(lp, np.broadcast_to(y[None, :, None], lp.shape[:2] + (1,)), axis=2)[..., 0].mean(axis=1)
    acc = (lp.argmax(axis=2) == y[None, :]).mean(axis=1)
    return nll, acc


def _position(state):
    return state.position


def _fig5_task(cfg: Fig5Settings, name: str, seed_seq, problem) -> list:
    """One sampler's chains: burn-in, then the running mean of the samples scored at every ``every`` iterations."""
    tgt, evals, meta = problem
    smp = _samplers(tgt, cfg)[name]()
    rng = np.random.default_rng(seed_seq)
    burnt = run_chains(smp, smp.init(tgt.initial_position(rng, cfg.chains)), rng, steps=cfg.burn_in)
    marks = np.arange(cfg.every, cfg.iters - cfg.burn_in + 1, cfg.every)
    run = run_chains(smp, burnt["state"], rng, checkpoints=marks, time_average={"xbar": _position})
    rows = []
    for j, k in enumerate(run["steps"]):
        xbar = np.ascontiguousarray(run["xbar"][:, j])
        rec = {"sampler": name, "iteration": int(k) + cfg.burn_in, "step_size": smp.step_size,
               "sigma": smoothing_sigma(smp), "inverse_temperature": smp.inverse_temperature, "dataset": meta["source"],
               "dim": meta["dim"]}
        for split, (X, y) in evals.items():
            nll, acc = _scores(tgt, xbar, X, y)
            rec[f"{split}_nll"], rec[f"{split}_nll_se"] = float(nll.mean()), float(nll.std(ddof=1) / np.sqrt(nll.size))
            rec[f"{split}_acc"], rec[f"{split}_acc_se"] = float(acc.mean()), float(acc.std(ddof=1) / np.sqrt(acc.size))
        rows.append(rec)
    return rows


def run_fig5(cfg: Fig5Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Fig. 5: NLL and accuracy (train subset / test) of the post-burn-in running mean of the samples; ``fig5.csv``.

    ``chains`` independent chains per sampler (vectorized); the CSV holds the mean and standard error over chains.
    One joblib task per sampler, seeds fixed per sampler (the numbers do not depend on ``n_jobs``).

    Raises
    ------
    sgmcmc_verify.errors.DivergenceError
        A chain left the finite numbers (the error names the sampler, the step and the setting).
    """
    problem = load_fig5_problem(cfg)
    seeds = np.random.SeedSequence([cfg.seed, 5]).spawn(len(SAMPLERS))
    rows = [r for rr in run_tasks(_fig5_task, [(cfg, name, sd, problem) for name, sd in zip(SAMPLERS, seeds)],
                                  n_jobs=n_jobs, backend=backend) for r in rr]
    meta = problem[2]
    write_csv(Path(out_dir) / "fig5.csv", rows, header_comment=(
        f"LS-SGLD Fig 5 (Bayesian CNN, {meta['architecture']}, d = {meta['dim']}) on {meta['source']} (paper: full "
        f"MNIST), scale={cfg.scale}, batch {cfg.batch_size}, sigma={cfg.sigma}, burn-in {cfg.burn_in}, the authors' code's "
        f"dynamics: step lr on n^-1 sum_i loss_i + Gamma-norm prior (lambda={cfg.prior_lam}, theta={cfg.prior_theta}) at "
        "inverse temperature 1/lr^2; NLL in nats per datum "
        "of the running mean of the samples after burn-in; mean and s.e. over chains; smoothing: periodic A_sigma of "
        "eq. (2.1) (FFT over the flattened parameters)"))
