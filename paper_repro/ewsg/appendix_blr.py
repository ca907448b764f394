"""EWSG Appendix F, Figure 5: posterior-predictive mean and s.d. of the test log-likelihood, Bayesian logistic regression.

For each data set (Pima by default; parkinsons from ``--data parkinsons=PATH``) and each method (FG,
SGHMC, EWSG, EWSG-VR in both readings of its index chain's x), ``chains`` independent chains start at
θ₀ = 0, r₀ = 0; at every checkpoint (in data passes) the statistic ``ℓ(θ) = (1/m) Σ_j log p(y_j | x_j,
θ)`` of each chain's current sample on the test split is recorded, and its mean and standard
deviation over the chains (with bootstrap standard errors over chains) are written to ``fig5.csv``.
An exact reference — MALA, Metropolis-corrected, many independent chains — goes to ``fig5.json``
with the data sets' sizes. Bayesian logistic regression is :class:`sgmcmc_verify.targets.LogisticRegressionTarget`
with a Gaussian prior, the same target the HSG-HMC and LS-SGLD studies use.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: Appendix F, Figure 5; §5.2 (prior, split, γ, h).
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from sgmcmc_verify import samplers
from sgmcmc_verify.runner import run_chains, run_realizations
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets.datasets import load as load_data
from sgmcmc_verify.targets.datasets import standardize, train_test_split
from sgmcmc_verify.targets.logistic import GaussianPrior, LogisticRegressionTarget

from .settings import Fig5Settings

__all__ = ["fig5_methods", "fig5_data", "test_loglik", "chain_statistics", "run_fig5"]

_BLOCK = 250  # chains per block of run_realizations (part of the random streams' definition)


def fig5_data(name: str, cfg: Fig5Settings):
    """``(target, test split)``: the standardized train / test split (with a bias column) and the BLR target.

    Raises
    ------
    ValueError
        An unknown data set or an unreadable user file (from :func:`sgmcmc_verify.targets.datasets.load`).
    """
    tr, te = standardize(*train_test_split(load_data(name), cfg.test_fraction, cfg.seed))
    return LogisticRegressionTarget(tr.X, tr.y, GaussianPrior(cfg.prior_precision)), te


def fig5_methods(cfg: Fig5Settings):
    """``[(label, sampler name, params, passes, checkpoint spacing)]``: FG, SGHMC, EWSG, EWSG-VR (each x reading)."""
    M, gam, L = cfg.index_chain_length, cfg.friction, cfg.calibration_period
    sg = (cfg.sg_passes, cfg.sg_checkpoint_every)
    out = [("FG", "FG", {"friction": gam}, cfg.fg_passes, cfg.fg_checkpoint_every),
           ("SGHMC", "SGHMC", {"friction": gam}, *sg),
           ("EWSG", "EWSG", {"friction": gam, "index_chain_length": M}, *sg)]
    return out + [(f"EWSG-VR ({xf})", "EWSG-VR", {"friction": gam, "index_chain_length": M,
                                                   "calibration_period": L, "x_friction": xf}, *sg)
                  for xf in cfg.x_frictions]


def test_loglik(target, test):
    """``state -> (chains,)``: the mean test log-likelihood ``ℓ(θ)`` of each chain's sample (nats per datum)."""
    return lambda state: -target.mean_nll(state.position, test.X, test.y)


def _block(n_chains, rng, *, cfg, name, sampler, params, passes, every):
    target, test = fig5_data(name, cfg)
    s = samplers.build(sampler, target, cfg.step_size, **params)
    zeros = np.zeros((n_chains, target.dim))
    out = run_chains(s, s.init(zeros, zeros), rng, checkpoints=np.arange(0.0, passes + 1e-9, every), unit="passes",
                     observe={"ll": test_loglik(target, test)})
    return {"ll": out["ll"], "passes": out["passes"], "steps": out["steps"], "info": out["info"]}


def _reference_block(n_chains, rng, *, cfg, name, step_size):
    target, test = fig5_data(name, cfg)
    s = samplers.mala(target, step_size)
    out = run_chains(s, s.init(np.zeros((n_chains, target.dim))), rng, steps=cfg.reference_steps,
                     observe={"ll": test_loglik(target, test)})
    return {"ll": out["ll"][:, -1:], "info": out["info"]}


def chain_statistics(ll, rng, n_boot):
    """Mean and s.d. over chains of ``ll`` ``(chains, K)``, with bootstrap (over chains) standard errors.

    Returns
    -------
    dict of (K,) arrays: ``mean``, ``mean_se``, ``sd`` (ddof = 1), ``sd_se``.
    """
    R = ll.shape[0]
    w = rng.multinomial(R, np.full(R, 1.0 / R), size=n_boot) / R  # (B, R) resampling weights
    m = w @ ll
    v = (w @ (ll * ll) - m * m) * (R / (R - 1))
    return {"mean": ll.mean(axis=0), "mean_se": m.std(axis=0, ddof=1), "sd": ll.std(axis=0, ddof=1),
            "sd_se": np.sqrt(np.maximum(v, 0.0)).std(axis=0, ddof=1)}


def _mala_step(target) -> float:
    """MALA step ``1/L``, ``L = λ_max(XᵀX)/4 + λ_prior`` the Lipschitz constant of ∇V (a bound on the Hessian)."""
    return 1.0 / (0.25 * float(np.linalg.eigvalsh(target.X.T @ target.X)[-1]) + target.prior.precision)


def _method_rows(cfg, name, seeds, n_jobs, backend, progress):
    rows = []
    for (label, sampler, params, passes, every), ss in zip(fig5_methods(cfg), seeds):
        fn = functools.partial(_block, cfg=cfg, name=name, sampler=sampler, params=params, passes=passes, every=every)
        res = run_realizations(fn, cfg.chains, seed=ss.entropy, block_size=_BLOCK, n_jobs=n_jobs, backend=backend,
                               progress=progress)
        st = chain_statistics(res["ll"], np.random.default_rng(ss.spawn(1)[0]), cfg.n_boot)
        rows += [{"dataset": name, "method": label, "passes": float(res["passes"][k]), "steps": int(res["steps"][k]),
                  **{key: float(v[k]) for key, v in st.items()}, "chains": cfg.chains,
                  "acceptance_rate": res["info"].get("acceptance_rate", ""),
                  "calibration_fraction": res["info"].get("calibration", "")} for k in range(res["passes"].size)]
    return rows


def _reference(cfg, name, ss, n_jobs, backend):
    target, test = fig5_data(name, cfg)
    h = _mala_step(target)
    fn = functools.partial(_reference_block, cfg=cfg, name=name, step_size=h)
    res = run_realizations(fn, cfg.reference_chains, seed=ss.entropy, block_size=_BLOCK, n_jobs=n_jobs, backend=backend)
    st = chain_statistics(res["ll"], np.random.default_rng(ss.spawn(1)[0]), cfg.n_boot)
    return {"method": "MALA (exact reference)", "step_size": h, "steps": cfg.reference_steps,
            "chains": cfg.reference_chains, "acceptance_rate": res["info"].get("acceptance_rate"),
            **{k: float(v[0]) for k, v in st.items()},
            "n_train": target.n, "n_test": int(test.y.size), "dim": target.dim, "source": test.source}


def run_fig5(cfg: Fig5Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``fig5.csv`` (mean and s.d. of ℓ vs data passes per data set and method) and ``fig5.json``."""
    rows, ref = [], {}
    names = cfg.data_names()
    for name, ss in zip(names, np.random.SeedSequence(cfg.seed).spawn(len(names))):
        seeds = ss.spawn(len(fig5_methods(cfg)) + 1)
        rows += _method_rows(cfg, name, seeds[:-1], n_jobs, backend, progress)
        ref[name] = _reference(cfg, name, seeds[-1], n_jobs, backend)
    write_csv(Path(out_dir) / "fig5.csv", rows, header_comment=(
        f"EWSG Appendix F Figure 5 (BLR), scale={cfg.scale}: mean and s.d. over {cfg.chains} chains of the mean test "
        "log-likelihood (nats per datum) of each chain's sample, with bootstrap s.e. over chains; "
        f"h={cfg.step_size:g}, gamma={cfg.friction:g}, b=1, M={cfg.index_chain_length}"))
    write_json(Path(out_dir) / "fig5.json", {"reference": ref, "scale": cfg.scale, "settings": cfg.as_dict(),
                                              "datasets": names})
