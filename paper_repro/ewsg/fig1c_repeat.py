"""EWSG Fig. 1c repeated: accuracy vs the index-chain length M over independent data draws and step sizes.

The published panel is one data draw at one (unstated) step size. Here every draw of the
``c_i ~ N(0, I₂)`` in ``data_seeds`` and every h in ``step_sizes`` is run at the paper's budget
(30 data passes, 10,000 realizations, b = 1, γ = 10, the initial law of Figs 1a–1c), and
KL(target ‖ Gaussian fit of the realizations) is split exactly into

    KL = ½ (m − μ)ᵀ S⁻¹ (m − μ)  +  ½ [tr(S⁻¹Σ) − d + log det S − log det Σ]
         (mean part)                 (covariance part)

(μ, Σ the target's moments, m, S the samples'). M = 0 is SGHMC, whose KL is also exact (moment
propagation). Each configuration's ordering in M is classified at 3 bootstrap standard errors.

Outputs: ``fig1c_repeat.csv`` (one row per draw × h × M), ``fig1c_repeat.json`` (per draw × h: the
ordering, which part grows where it is not monotone, the time T = Kh each M reaches, the draw's
empirical third moment).

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: §5.1, Fig. 1c ("as M increases, sampling accuracy gets
improved"), footnote 5 (equal data passes).
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from sgmcmc_verify.analytic.ewsg_weights import gaussian_means_linear_response
from sgmcmc_verify.analytic.gaussian import kl_gaussian, quadratic_posterior
from sgmcmc_verify.analytic.linear_samplers import minibatch_noise_covariance, propagate_moments, underdamped_em_recursion
from sgmcmc_verify import samplers
from sgmcmc_verify.runner import run_chains, run_realizations
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets import gaussian_means_target

from .settings import Fig1cRepeatSettings

__all__ = ["kl_parts", "kl_parts_bootstrap", "repeat_run", "classify_ordering", "fig1c_repeat", "run_fig1c_repeat"]


def kl_parts(mu, Sigma, m, S):
    """``(total, mean part, covariance part)`` of ``KL(N(μ, Σ) ‖ N(m, S))`` in nats; broadcasts over leading axes."""
    total = kl_gaussian(mu, Sigma, m, S)
    cov = kl_gaussian(mu, Sigma, np.broadcast_to(mu, np.shape(m)), S)
    return total, total - cov, cov


def kl_parts_bootstrap(x, mu, Sigma, rng, n_boot=100):
    """Point values and bootstrap (over realizations, multinomial weights) standard errors of :func:`kl_parts`.

    x : (R, d) positions at the end of the budget.
    """
    R = x.shape[0]
    m, S = x.mean(axis=0), np.cov(x.T)
    w = rng.multinomial(R, np.full(R, 1.0 / R), size=n_boot) / R
    bm = w @ x
    bS = (np.einsum("br,ri,rj->bij", w, x, x) - bm[:, :, None] * bm[:, None, :]) * (R / (R - 1))
    point = kl_parts(mu, Sigma, m, S)
    boot = kl_parts(np.broadcast_to(mu, bm.shape), np.broadcast_to(Sigma, bS.shape), bm, bS)
    return [float(p) for p in point], [float(np.std(b, ddof=1)) for b in boot]


def _block(n_chains, rng, *, cfg, data_seed, h, M):
    target = gaussian_means_target(cfg.n_data, cfg.dim, data_seed)
    s = samplers.build("EWSG", target, h, friction=cfg.friction, index_chain_length=M)
    st = s.init(rng.standard_normal((n_chains, cfg.dim)), rng.standard_normal((n_chains, cfg.dim)))
    out = run_chains(s, st, rng, checkpoints=[cfg.passes], unit="passes", observe={"x": lambda z: z.position})
    return {"x": out["x"][:, -1], "steps": out["steps"], "passes": out["passes"], "info": out["info"]}


def repeat_run(cfg: Fig1cRepeatSettings, data_seed: int, h: float, M: int, n_jobs=1, backend=None,
               progress=None) -> dict:
    """One configuration: KL parts at the end of the budget, with bootstrap s.e., and SGHMC's exact KL parts after
    the same number of outer steps (for M = 0 that is this run's exact value)."""
    target = gaussian_means_target(cfg.n_data, cfg.dim, data_seed)
    post = quadratic_posterior(target.centers)
    seed = np.random.SeedSequence([cfg.seed, 13, data_seed, int(round(h * 1e6)), M]).entropy
    res = run_realizations(functools.partial(_block, cfg=cfg, data_seed=data_seed, h=h, M=M), cfg.realizations,
                           seed=seed, block_size=cfg.block_size, n_jobs=n_jobs, backend=backend, progress=progress)
    (kl, klm, klc), (se, sem, sec) = kl_parts_bootstrap(res["x"], post.mean, post.cov,
                                                        np.random.default_rng([cfg.seed, data_seed, M, 17]))
    steps = int(res["steps"][-1])
    row = {"data_seed": data_seed, "step_size": h, "index_chain_length": M, "passes": float(res["passes"][-1]),
           "steps": steps, "T": steps * h, "kl": kl, "kl_se": se, "kl_mean": klm, "kl_mean_se": sem,
           "kl_cov": klc, "kl_cov_se": sec, "acceptance_rate": res["info"].get("acceptance_rate", ""),
           "realizations": int(res["x"].shape[0])}
    rec = underdamped_em_recursion(target.hessian, post.mean, minibatch_noise_covariance(target.centers), h,
                                   cfg.friction)
    d = cfg.dim
    means, covs = propagate_moments(rec, np.zeros(2 * d), np.eye(2 * d), [steps])
    ex = kl_parts(post.mean, post.cov, means[0, :d], covs[0, :d, :d])
    # SGHMC (exact) after the same number of outer steps: how far the budget of this M lets a chain relax
    row.update({"kl_sghmc_same_steps": float(ex[0]), "kl_sghmc_same_steps_mean": float(ex[1]),
                "kl_sghmc_same_steps_cov": float(ex[2])})
    return row


def classify_ordering(rows, z=3.0) -> dict:
    """Is KL decreasing in M (the claim)? ``monotone`` if every consecutive pair decreases by > z s.e.,
    ``not monotone`` if some consecutive pair increases by > z s.e., ``unresolved`` otherwise; and for every
    resolved increase, whether the mean or the covariance part grew more."""
    rr = sorted(rows, key=lambda r: r["index_chain_length"])
    status, increases = "monotone", []
    for a, b in zip(rr[:-1], rr[1:]):
        diff, se = b["kl"] - a["kl"], float(np.hypot(a["kl_se"], b["kl_se"]))
        if diff > z * se:
            status = "not monotone"
            dm, dc = b["kl_mean"] - a["kl_mean"], b["kl_cov"] - a["kl_cov"]
            increases.append({"from_M": a["index_chain_length"], "to_M": b["index_chain_length"], "increase": diff,
                              "mean_part_change": dm, "cov_part_change": dc, "driver": "mean" if dm > dc else "covariance"})
        elif diff > -z * se and status == "monotone":
            status = "unresolved"
    best = min(rr, key=lambda r: r["kl"])["index_chain_length"]
    return {"status": status, "increases": increases, "best_M": best,
            "T_by_M": {str(r["index_chain_length"]): r["T"] for r in rr}}


def fig1c_repeat(cfg: Fig1cRepeatSettings, n_jobs=1, backend=None, progress=None) -> tuple[list[dict], dict]:
    """Rows for every draw × h × M, and the per-configuration classification."""
    rows, configs = [], []
    for data_seed in cfg.data_seeds:
        target = gaussian_means_target(cfg.n_data, cfg.dim, data_seed)
        m3 = gaussian_means_linear_response(target.centers, cfg.friction).third_moment
        for h in cfg.step_sizes:
            rr = [repeat_run(cfg, data_seed, h, M, n_jobs, backend, progress) for M in cfg.index_chain_lengths]
            for r in rr:
                r["third_moment_norm"] = float(np.linalg.norm(m3))
            rows += rr
            configs.append({"data_seed": data_seed, "step_size": h, "third_moment_norm": float(np.linalg.norm(m3)),
                            **classify_ordering(rr)})
    counts = {s: sum(c["status"] == s for c in configs) for s in ("monotone", "not monotone", "unresolved")}
    return rows, {"configurations": configs, "counts": counts}


def run_fig1c_repeat(cfg: Fig1cRepeatSettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``fig1c_repeat.csv`` and ``fig1c_repeat.json``."""
    rows, summary = fig1c_repeat(cfg, n_jobs, backend, progress)
    keys = list(dict.fromkeys(k for r in rows for k in r))
    write_csv(Path(out_dir) / "fig1c_repeat.csv", [{k: r.get(k, "") for k in keys} for r in rows], header_comment=(
        f"EWSG Fig 1c repeated, scale={cfg.scale}: KL(target || samples) at {cfg.passes:g} data passes, split into "
        "mean and covariance parts (nats), bootstrap s.e.; kl_sghmc_same_steps*: SGHMC's exact KL after the same "
        "number of outer steps (moment propagation)"))
    write_json(Path(out_dir) / "fig1c_repeat.json", {**summary, "scale": cfg.scale, "settings": cfg.as_dict()})
