"""LS-SGLD Fig. 1: the 2-D Gaussian, covariance reconstruction error vs autocorrelation time.

References
----------
Seed ``004_8438bd4b543e0fc4.txt``: §4.1.1, eq. (4.1), eq. (4.2), Figure 1; Chen, Fox & Guestrin
(2014) §5.1 (the noisy-gradient construction, the paper's ref. [10]).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sgmcmc_verify import samplers
from sgmcmc_verify.errors import DivergenceError
from sgmcmc_verify.estimators import NoisyExactGradient
from sgmcmc_verify.integrators.smoothing import paper_2d_smoothing
from sgmcmc_verify.runner import run_chains, run_tasks
from sgmcmc_verify.store.io import write_csv
from sgmcmc_verify.targets import GaussianTarget

from .settings import Fig1Settings

__all__ = ["integrated_autocorrelation_time", "run_fig1", "fig1_tasks"]


def integrated_autocorrelation_time(x, c: float = 5.0) -> np.ndarray:
    """Integrated autocorrelation time in the paper's convention (4.2), ``τ = ½ + Σ_{t≥1} ρ(t)``.

    A thin wrapper of ``emcee.autocorr.integrated_time`` (Sokal's automatic window), which returns
    ``τ_S = 1 + 2Σ_{t≥1} ρ(t)``; the paper's (4.2) is ``τ_S / 2``.

    Parameters
    ----------
    x : (T,) or (T, m) array_like
        One chain (per column).
    c : float, default 5
        Sokal's window constant (the sum is truncated at the smallest M with ``M ≥ c·τ_S(M)``).

    Returns
    -------
    (m,) ndarray
        ``τ = τ_S / 2`` (steps). ``τ = ½`` for white noise.

    Raises
    ------
    ValueError
        If fewer than 4 samples or a constant column.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, eq. (4.2); Sokal (1997); Foreman-Mackey et al., emcee.
    """
    from emcee.autocorr import integrated_time

    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 1:
        a = a[:, None]
    if a.shape[0] < 4:
        raise ValueError(f"x must have at least 4 samples, got {a.shape[0]}")
    if np.any(np.ptp(a, axis=0) == 0):
        raise ValueError("x has a constant column")
    # tol=0, quiet=True: report the windowed estimate even for short chains (the caller checks length)
    return 0.5 * np.asarray(integrated_time(a, c=c, tol=0, quiet=True, has_walkers=False), dtype=np.float64)


def _fig1_sampler(name, tgt, h, sigma):
    """The four samplers of Fig. 1 with the noisy exact gradient; pSGLD in the paper's convention."""
    est = NoisyExactGradient(1.0)
    op = paper_2d_smoothing(sigma) if name.startswith("LS") else None
    params = {"SGLD": {}, "pSGLD": {"preconditioner_input": "full", "smoothing": 0.0},
              "LS-SGLD": {"smoothing": op}, "LS-pSGLD": {"smoothing": op, "preconditioner_input": "full"}}
    return samplers.build(name, tgt, h, estimator=est, **params[name])


def _fig1_row(name, sset, j, h, r, xs, Sig, sigma):
    """One run's covariance error and autocorrelation time (NaN when the run diverged)."""
    row = {"sampler": name, "step_set": sset, "step_index": j, "step_size": h, "run": r}
    if xs is None:
        row.update({"cov_mse": float("nan"), "tau": float("nan"), "diverged": True})
    else:
        x = xs[r]
        C = np.cov(x.T)
        tau = integrated_autocorrelation_time(x)
        row.update({"cov_mse": float(np.mean((C - Sig) ** 2)), "tau": float(tau.mean()), "diverged": False})
    row.update({"smoothing": "eq_4.1" if name.startswith("LS") else "none", "sigma": sigma})
    return row


def fig1_tasks(cfg: Fig1Settings) -> list[tuple]:
    """The arguments of the Fig. 1 tasks (:func:`_fig1_config`), one per (sampler, step set, step), with their seeds.

    Seeds: ``SeedSequence([seed, 1]).spawn(#configurations)`` in configuration order (sampler, step, set).
    """
    scale_ls = (1.0 + 4.0 * cfg.sigma) ** 0.25
    configs = []
    for name in ("SGLD", "pSGLD", "LS-SGLD", "LS-pSGLD"):
        for j, fac in enumerate(cfg.factors):
            h0 = cfg.base_step * fac
            sets = ("same", "scaled") if name.startswith("LS") else ("both",)
            for sset in sets:
                configs.append((name, sset, j, h0 * (scale_ls if sset == "scaled" else 1.0)))
    seeds = np.random.SeedSequence([cfg.seed, 1]).spawn(len(configs))
    return [(cfg, name, sset, j, h, sd) for (name, sset, j, h), sd in zip(configs, seeds)]


def _fig1_config(cfg: Fig1Settings, name, sset, j, h, seed_seq):
    """One Fig. 1 configuration (a task): ``runs`` chains of ``samples`` steps; its rows and first samples."""
    rho = cfg.rho
    Sig = np.array([[1.0, rho], [rho, 1.0]])
    tgt = GaussianTarget(Sig)
    rng = np.random.default_rng(seed_seq)
    smp = _fig1_sampler(name, tgt, h, cfg.sigma)
    try:  # a DivergenceError is recorded as a diverged run, not hidden
        xs = run_chains(smp, smp.init(np.zeros((cfg.runs, 2))), rng, steps=cfg.samples, keep_last=cfg.samples)["kept"]
    except DivergenceError:
        xs = None
    rows = [_fig1_row(name, sset, j, h, r, xs, Sig, cfg.sigma) for r in range(cfg.runs)]
    sample_rows = []
    if j == 0 and xs is not None:
        for k in range(min(cfg.first, cfg.samples)):
            sample_rows.append({"sampler": name, "step_set": sset, "step_size": h, "k": k,
                                "x1": float(xs[0, k, 0]), "x2": float(xs[0, k, 1])})
    return rows, sample_rows


def run_fig1(cfg: Fig1Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Fig. 1: covariance reconstruction error vs autocorrelation time; first samples; ``fig1.csv``, ``fig1_samples.csv``.

    Each (sampler, step-size set, step) runs ``runs`` independent chains (vectorized) for
    ``samples`` steps from x₀ = 0; every step is a sample (no burn-in, as the paper draws "2×10⁵
    samples"). Step-size sets: ``same`` (0.19·0.8^j for all samplers, Fig. 1b) and ``scaled``
    (×(1 + 4σ)^{1/4} for LS samplers, Fig. 1d; SGLD / pSGLD are the same as in ``same``).
    """
    rho = cfg.rho
    rows, sample_rows = [], []
    # one joblib task per (sampler, step set, step): independent long chains seeded in configuration order,
    # so the numbers do not depend on n_jobs
    results = run_tasks(_fig1_config, fig1_tasks(cfg), n_jobs=n_jobs, backend=backend)
    for r, s_rows in results:
        rows += r
        sample_rows += s_rows
    out = Path(out_dir)
    write_csv(out / "fig1.csv", rows, header_comment=(
        f"LS-SGLD Fig 1 (2-D Gaussian, Sigma=[[1,{rho}],[{rho},1]]), scale={cfg.scale}: gradient = exact + N(0,I) "
        f"(SGHMC paper's construction); LS uses the eq. (4.1) matrix, sigma={cfg.sigma}; {cfg.samples} samples "
        "per run; cov_mse = mean squared entry error; tau = eq. (4.2), mean over the two coordinates"))
    write_csv(out / "fig1_samples.csv", sample_rows, header_comment="first samples of run 0 at the base step (Fig. 1a/1c)")
