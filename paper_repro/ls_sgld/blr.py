"""LS-SGLD on Bayesian logistic regression: Table 3 (variance of the smoothed stochastic gradient) and Fig. 4.

The paper's data set is a3a (LIBSVM; read from a user path with ``--data a3a=… --data a3a.t=…``); by
default the built-in Pima set is used. The prior is the paper's ``‖x‖^{−λ}e^{−θ‖x‖}``
(:class:`sgmcmc_verify.targets.GammaNormPrior`).

References
----------
Seed ``004_8438bd4b543e0fc4.txt``: §4.2, Table 3, Figure 4.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sgmcmc_verify import samplers
from sgmcmc_verify.integrators.smoothing import PeriodicSmoothing
from sgmcmc_verify.runner import run_chains, run_tasks
from sgmcmc_verify.store.io import write_csv
from sgmcmc_verify.targets.datasets import load_builtin, load_pair, standardize, train_test_split
from sgmcmc_verify.targets.logistic import GammaNormPrior, LogisticRegressionTarget

from .settings import Fig4Settings, Table3Settings

__all__ = ["PAPER_TABLE3", "load_blr_data", "run_table3", "run_fig4", "smoothing_sigma"]

#: Table 3 as printed (rows σ = 0, 0.5, 1, 2; columns batch 10, 15, 50), seed file lines 355–360.
PAPER_TABLE3 = {
    (0.0, 10): 7.69e-1, (0.0, 15): 3.17e-1, (0.0, 50): 5.69e-2,
    (0.5, 10): 2.56e-1, (0.5, 15): 1.06e-2, (0.5, 50): 1.96e-2,
    (1.0, 10): 1.54e-1, (1.0, 15): 6.37e-2, (1.0, 50): 1.21e-2,
    (2.0, 10): 8.52e-2, (2.0, 15): 3.54e-2, (2.0, 50): 7.04e-3,
}



def load_blr_data(name: str, test_fraction: float, seed: int):
    """Standardized (train, test) with a bias column: ``"pima"``/``"breast_cancer"`` built in, or
    ``"a3a"`` from the LIBSVM files given as ``sgmcmc-verify --data a3a=TRAIN --data a3a.t=TEST``
    (the LIBSVM page's a3a / a3a.t split, 123 features; standardized like the built-in sets).

    Raises
    ------
    ValueError
        Unknown name, or a3a requested without its files (the message says how to pass them).
    """
    if name == "a3a":
        tr, te = load_pair("a3a", n_features=123)
    else:
        tr, te = train_test_split(load_builtin(name), test_fraction, seed)
    return standardize(tr, te)


def run_table3(cfg: Table3Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Maximum variance of the Laplacian-smoothed stochastic gradient along a full-batch SGLD path.

    Writes ``table3.csv``: for each (σ, b) the maximum over coordinates and path points of (i) the
    Monte Carlo variance from ``reps`` repetitions about the full-batch smoothed gradient (the
    paper's procedure) and (ii) the exact variance of the smoothed minibatch gradient (sampling
    without replacement: ``(n²/b)(n − b)/(n − 1)`` times the per-datum population variance of
    ``A_σ⁻¹∇V_i``), with the printed cell. ``*_mean_scale`` divides by ``n²``: the variance of the
    smoothed minibatch *mean* of per-datum log-likelihood gradients, ``A_σ⁻¹ b⁻¹Σ_{i∈I}∇ℓ_i``
    (the printed magnitudes, 10⁻²–10⁰, are only compatible with this scale; the text does not say).
    """
    train, _ = load_blr_data(cfg.data_name(), cfg.test_fraction, 0)
    tgt = LogisticRegressionTarget(train.X, train.y, GammaNormPrior(cfg.prior_lam, cfg.prior_theta))
    n, d = tgt.n, tgt.dim
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 3]))
    x = 0.1 * rng.standard_normal((1, d))
    gld = samplers.ls_gld(tgt, cfg.step_size, 0.0)
    marks = np.arange(cfg.every, cfg.path_steps + 1, cfg.every)
    run = run_chains(gld, gld.init(x), rng, checkpoints=np.union1d(marks, [cfg.path_steps]),
                     observe={"x": lambda s: s.position})
    path = run["x"][0, np.isin(run["steps"], marks)]  # (P, d): every ``every``-th point of the path
    rows = []
    for sig in cfg.sigmas:
        op = PeriodicSmoothing(sig)
        for b in cfg.batches:
            mc_max, ex_max = 0.0, 0.0
            for p in path:
                th = p[None, :]
                per = tgt.data_gradients_all(th)[0]  # (n, d)
                full = op.apply_inverse(tgt.full_gradient(th))[0]
                sm = op.apply_inverse(per)  # (n, d) smoothed per-datum gradients
                pop_var = sm.var(axis=0)
                ex_max = max(ex_max, float(np.max((n * n / b) * (n - b) / (n - 1) * pop_var)))
                idx = np.argsort(rng.random((cfg.reps, n)), axis=1)[:, :b]
                prior = op.apply_inverse(tgt.prior_gradient(th))[0]
                est = prior[None, :] + (n / b) * sm[idx].sum(axis=1)  # (reps, d)
                mc_max = max(mc_max, float(np.max(np.mean((est - full) ** 2, axis=0))))
            rows.append({"sigma": sig, "batch_size": b, "max_variance_mc": mc_max, "max_variance_exact": ex_max,
                         "max_variance_mc_mean_scale": mc_max / n**2, "max_variance_exact_mean_scale": ex_max / n**2,
                         "paper_value": PAPER_TABLE3.get((sig, b), float("nan")), "dataset": train.name,
                         "n": n, "dim": d, "path_points": len(path), "reps": cfg.reps})
    write_csv(Path(out_dir) / "table3.csv", rows, header_comment=(
        f"LS-SGLD Table 3 on {train.name} (paper: a3a), scale={cfg.scale}: max over coordinates and path points of "
        "Var(A^-1 g_minibatch) about A^-1 grad f; MC from reps repetitions and exact (without replacement); "
        "smoothing: periodic A_sigma of eq. (2.1) (FFT)"))


def _fig4_samplers(tgt, cfg):
    """SGLD, pSGLD (the paper's convention, LS-pSGLD's arithmetic at σ = 0), LS-SGLD, LS-pSGLD; LS steps × (1+4σ)^{1/4}."""
    steps = dict(cfg.step_sizes)
    fac = (1.0 + 4.0 * cfg.sigma) ** 0.25
    b = cfg.batch_size
    return [
        samplers.sgld(tgt, steps["SGLD"], batch_size=b),
        samplers.psgld(tgt, steps["pSGLD"], batch_size=b, preconditioner_input="full", smoothing=0.0),
        samplers.ls_sgld(tgt, steps["SGLD"] * fac, cfg.sigma, batch_size=b),
        samplers.ls_psgld(tgt, steps["pSGLD"] * fac, cfg.sigma, batch_size=b, preconditioner_input="full"),
    ]


def smoothing_sigma(sampler) -> float:
    """σ of an overdamped sampler's smoothing operator (0 without smoothing)."""
    op = getattr(sampler.preconditioner, "smoothing", None)
    return 0.0 if op is None else op.sigma


def _fig4_rows(smp, run, cfg, train, test, tgt):
    rows = []
    for j, k in enumerate(run["steps"]):
        xbar = np.ascontiguousarray(run["xbar"][:, j])
        rec = {"sampler": smp.name, "iteration": int(k) + cfg.burn_in, "step_size": smp.step_size,
               "sigma": smoothing_sigma(smp), "dataset": train.name}
        for split, ds in (("train", train), ("test", test)):
            nll = tgt.mean_nll(xbar, ds.X, ds.y)
            acc = tgt.accuracy(xbar, ds.X, ds.y)
            rec[f"{split}_nll"] = float(nll.mean())
            rec[f"{split}_nll_se"] = float(nll.std(ddof=1) / np.sqrt(len(nll)))
            rec[f"{split}_acc"] = float(acc.mean())
            rec[f"{split}_acc_se"] = float(acc.std(ddof=1) / np.sqrt(len(acc)))
        rows.append(rec)
    return rows


def _position(state):
    return state.position


def _fig4_sampler_run(cfg: Fig4Settings, k: int, seed_seq, train, test) -> list:
    """One task of Fig. 4: sampler ``k``'s chains (burn-in, then running means at the checkpoints); its rows.

    The data are loaded by the caller and passed in (a user-given a3a path need not be visible to a worker).
    """
    tgt = LogisticRegressionTarget(train.X, train.y, GammaNormPrior(cfg.prior_lam, cfg.prior_theta))
    smp = _fig4_samplers(tgt, cfg)[k]
    marks = np.arange(cfg.every, cfg.iters - cfg.burn_in + 1, cfg.every)
    rng = np.random.default_rng(seed_seq)
    burnt = run_chains(smp, smp.init(0.1 * rng.standard_normal((cfg.chains, tgt.dim))), rng, steps=cfg.burn_in)
    run = run_chains(smp, burnt["state"], rng, checkpoints=marks, time_average={"xbar": _position})
    return _fig4_rows(smp, run, cfg, train, test, tgt)


def run_fig4(cfg: Fig4Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Fig. 4: NLL and accuracy (train/test) of the post-burn-in running mean of the samples; ``fig4.csv``.

    ``chains`` independent chains per sampler (vectorized); at every ``every`` iterations after
    burn-in the running average of the parameters since burn-in is evaluated; the CSV holds the mean
    and standard error over chains.
    """
    train, test = load_blr_data(cfg.data_name(), cfg.test_fraction, 0)
    seeds = np.random.SeedSequence([cfg.seed, 4]).spawn(4)
    # one joblib task per sampler (seeds fixed per sampler: the numbers do not depend on n_jobs)
    rows = [r for rr in run_tasks(_fig4_sampler_run, [(cfg, k, sd, train, test) for k, sd in enumerate(seeds)],
                                  n_jobs=n_jobs,
                                  backend=backend) for r in rr]
    write_csv(Path(out_dir) / "fig4.csv", rows, header_comment=(
        f"LS-SGLD Fig 4 (BLR, Gamma prior lambda={cfg.prior_lam}, theta={cfg.prior_theta}) on {train.name} "
        f"(paper: a3a), scale={cfg.scale}, batch {cfg.batch_size}, sigma={cfg.sigma}, burn-in {cfg.burn_in}; "
        "NLL in nats per datum of the running mean of the samples after burn-in; mean and s.e. over chains; "
        "smoothing: periodic A_sigma of eq. (2.1) (FFT)"))
