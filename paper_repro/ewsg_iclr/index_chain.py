"""EWSG conference text Figs. 1d–e: bias and variance as the index chain grows.

"As the length of index chain M increases, the distribution approaches the distribution given by
Equation (4), which by Theorem 4 introduces some bias but also reduces variance. The tradeoff is
clearly manifested in Figure 1d and 1e." The figures are lost in the extracted text; we measure
both readings of "bias" and "variance":

* **local** (the quantities in Theorem 4's bound): for the stochastic gradient ``ĝ = n∇V_I`` with
  the index after M Metropolis steps (6), the squared bias ``‖E[ĝ | F] − ∇V‖²`` and the variance
  ``Tr Cov(ĝ | F)``, exactly, from the index law by enumeration
  (:meth:`sgmcmc_verify.estimators.EWSGIndexChain.index_law`; M = ∞ is the weights (4) themselves), at
  the same states for every M, so that only M changes;
* **global** (Theorem 4's left side): the MSE of the time average of ``φ(θ) = ‖θ − μ‖²`` at fixed
  (h, T), split into bias² and variance over 10,000 realizations (the journal study's
  time-average runner with the index chain length as a parameter).

References
----------
Seed ``003_19372d6d86d2623b.txt``: §4.3 (eq. (5), the index chain), Theorem 4 eq. (6), §5.1 and
Figs. 1d–e.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sgmcmc_verify.analytic.gaussian import quadratic_posterior
from sgmcmc_verify.paper_repro.ewsg import experiments as X
from sgmcmc_verify.estimators import EWSGIndexChain
from sgmcmc_verify.measure.metrics import mse_time_average
from sgmcmc_verify.store.io import write_csv
from sgmcmc_verify.targets import gaussian_means_target

from .settings import Fig1deSettings

__all__ = ["INFINITE_M", "local_split", "time_average_split", "run_fig1de"]

#: Label of the exact weights (4), the M → ∞ limit of the index chain.
INFINITE_M = "inf"


def _mean_se(v):
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(v.size))


def local_split(cfg: Fig1deSettings) -> list[dict]:
    """Exact local squared bias and variance trace of EWSG's gradient for each M, averaged over states.

    The states ``(θ, r)`` are ``cfg.local_states`` draws from ``π ⊗ N(0, I)`` (seeded), the same for
    every M. Each row also carries the paired difference to the previous M (mean and s.e. over
    states), which the claims use.
    """
    target = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
    post = quadratic_posterior(target.centers)
    n, h, gam = target.n, cfg.step_size, cfg.friction
    sig = float(np.sqrt(2.0 * gam))
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 5, 1]))
    pos = post.mean + rng.standard_normal((cfg.local_states, cfg.dim)) / np.sqrt(n)
    mom = rng.standard_normal((cfg.local_states, cfg.dim))
    g = n * target.data_gradients(pos, np.broadcast_to(np.arange(n), (cfg.local_states, n)))  # (R, n, d)
    full = target.full_gradient(pos)
    rows, prev = [], None
    for M in (*cfg.index_chain_lengths, INFINITE_M):
        est = EWSGIndexChain(1 if M == INFINITE_M else M)
        p = (est.index_weights(target, pos, mom, h, gam, sig) if M == INFINITE_M
             else est.index_law(target, pos, mom, h, gam, sig))
        m = np.einsum("rn,rnd->rd", p, g)
        bias_sq = np.sum((m - full) ** 2, axis=1)
        trace = np.einsum("rn,rnd->r", p, g * g) - np.sum(m * m, axis=1)
        row = {"index_chain_length": M, "step_size": h, "states": cfg.local_states}
        for name, v in (("bias_sq", bias_sq), ("trace_cov", trace), ("local_mse", bias_sq + trace)):
            row[name], row[f"{name}_se"] = _mean_se(v)
            if prev is not None:
                row[f"{name}_diff"], row[f"{name}_diff_se"] = _mean_se(v - prev[name])
            else:
                row[f"{name}_diff"], row[f"{name}_diff_se"] = "", ""
        rows.append(row)
        prev = {"bias_sq": bias_sq, "trace_cov": trace, "local_mse": bias_sq + trace}
    return rows


def time_average_split(cfg: Fig1deSettings, n_jobs=1, backend=None, progress=None) -> list[dict]:
    """Bias² and variance of the time average of ``‖θ − μ‖²`` at (h, T) for each finite M (chains start at π).

    Each row: ``bias`` (signed, with s.e. over realizations), ``bias_sq``, ``variance`` with its
    s.e. (from the fourth central moment), ``mse``; ``phi_bar = d/n``.
    """
    target = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
    phibar = cfg.dim / target.n
    rows = []
    for M in cfg.index_chain_lengths:
        res = X._time_average_run(cfg, "EWSG", cfg.step_size, [cfg.time], 100 + M, n_jobs, backend, progress, M=M)
        phi = res["phi"][:, 0]
        m = mse_time_average(phi, phibar)
        R = phi.size
        dev = phi - phi.mean()
        var_se = float(np.sqrt(max(np.mean(dev**4) - np.mean(dev**2) ** 2, 0.0) / R))
        rows.append({"index_chain_length": M, "step_size": cfg.step_size, "T": float(res["steps"][0] * cfg.step_size),
                     "phi_bar": phibar, "bias": float(phi.mean() - phibar), "bias_se": float(phi.std(ddof=1) / np.sqrt(R)),
                     "bias_sq": float(m.bias_sq), "variance": float(m.variance), "variance_se": var_se,
                     "mse": float(m.mse), "realizations": R,
                     "acceptance_rate": res["info"].get("acceptance_rate", "")})
    return rows


def run_fig1de(cfg: Fig1deSettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Figs. 1d–e: ``fig1d_local.csv`` (exact local split) and ``fig1e_time_average.csv`` (global split)."""
    out = Path(out_dir)
    write_csv(out / "fig1d_local.csv", local_split(cfg), header_comment=(
        f"EWSG conference Fig 1d, n={cfg.n_data}, h={cfg.step_size:g}, scale={cfg.scale}: exact local squared bias "
        "||E[g|F] - grad V||^2 and Tr Cov(g|F) of EWSG's gradient vs the index chain length M (inf = weights (4)), "
        "mean over states from pi x N(0, I); *_diff: paired difference to the previous M"))
    write_csv(out / "fig1e_time_average.csv", time_average_split(cfg, n_jobs, backend, progress), header_comment=(
        f"EWSG conference Fig 1e, n={cfg.n_data}, h={cfg.step_size:g}, T={cfg.time:g}, scale={cfg.scale}: "
        "bias and variance of the time average of ||theta - mu||^2 vs M (chains start at pi)"))
