"""EWSG, the algorithms of the appendices on the §5.1 Gaussian target: KL vs data passes.

* ``appE.csv`` — Appendix E: overdamped EWSG against SGLD, pSGLD and SVRG-LD (§5.1's study).
* ``fig4.csv``, ``fig4.json`` — Appendix F, Figure 4: FG, SGHMC, EWSG and EWSG-VR (Algorithm 2) at the
  paper's h = 0.05 and at smaller step sizes; the JSON holds the divergences and the exact spectral
  radius of EWSG-VR's linear recursion at every h.
* ``appD.csv`` — Appendix D (minibatch EWSG, b > 1) with Appendix G.3's comparison at equal data per
  update.

Every chain is stepped by :func:`sgmcmc_verify.runner.run_chains` inside seeded blocks of
:func:`sgmcmc_verify.runner.run_realizations`; the KL estimate, its bootstrap standard error and its
estimation floor are those of Figure 1 (:mod:`sgmcmc_verify.paper_repro.ewsg.experiments`). Figure 5 (Bayesian
logistic regression) is in :mod:`sgmcmc_verify.paper_repro.ewsg.appendix_blr`.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: §5.1, Appendices D, E, F (Algorithm 2, Figure 4), G.3.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from sgmcmc_verify.analytic.gaussian import kl_gaussian, quadratic_posterior
from sgmcmc_verify.analytic.linear_samplers import (minibatch_noise_covariance, propagate_moments, sgld_recursion,
                                      underdamped_em_recursion, variance_corrected_em_recursion)
from sgmcmc_verify import samplers
from sgmcmc_verify.errors import DivergenceError
from sgmcmc_verify.estimators import EWSGIndexChain
from sgmcmc_verify.measure.metrics import ensemble_kl
from sgmcmc_verify.runner import run_chains, run_realizations
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets import gaussian_means_target

from .experiments import _kl_bootstrap_se, kl_estimation_floor
from .settings import AppendixESettings, Fig4Settings, KLPanelSettings, MinibatchSettings

__all__ = ["kl_curves", "appendix_e_runs", "fig4_runs", "minibatch_runs", "exact_kl", "ewsg_vr_stability",
           "ewsg_selection_friction",
           "run_appendix_e", "run_fig4", "run_fig4_conference_n", "run_minibatch"]

#: Seed-sequence tags of the three studies (distinct from Figure 1's panels and Theorem 4.3's runs).
_TAGS = {"appE": 1001, "fig4": 1002, "appD": 1003}
_OVERDAMPED = ("SGLD", "pSGLD", "SVRG-LD", "EWSG-LD")


def _run(label, sampler, h, method=None, group="", **params):
    """One curve: a label, a registered sampler name, its step size and its other parameters.

    ``method`` (default: the label) and ``group`` (a step size, a batch size) are recorded in the rows.
    """
    return {"label": label, "sampler": sampler, "h": h, "method": method or label, "group": group, "params": params}


def _block(n_chains, rng, *, cfg, sampler, h, params):
    target = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
    s = samplers.build(sampler, target, h, **params)
    theta0 = rng.standard_normal((n_chains, cfg.dim))
    r0 = rng.standard_normal((n_chains, cfg.dim))  # drawn for every method, so all see the same θ₀
    ck = np.arange(0.0, cfg.passes + 1e-9, cfg.checkpoint_every)
    out = run_chains(s, s.init(theta0, None if sampler in _OVERDAMPED else r0), rng, checkpoints=ck, unit="passes",
                     observe={"position": lambda st: st.position})
    return {"position": out["position"], "passes": out["passes"], "steps": out["steps"], "info": out["info"]}


def exact_kl(run, target, friction, steps):
    """Exact KL(π ‖ law of θ_k) at ``steps`` for the samplers whose law follows a linear recursion, else None.

    SGLD, SVRG-LD (its control variate is exact on this target), SGHMC, FG and EWSG / EWSG-LD with
    M = 0 (uniform subsampling), from θ₀ ~ N(0, I), r₀ ~ N(0, I); minibatch b from ``params``.
    """
    post, d = quadratic_posterior(target.centers), target.dim
    p, name, h = run["params"], run["sampler"], run["h"]
    b = p.get("batch_size", 1)
    Q = minibatch_noise_covariance(target.centers, b)
    M = p.get("index_chain_length", 1)
    if name in ("SGLD", "SVRG-LD") or (name == "EWSG-LD" and M == 0):
        rec = sgld_recursion(target.hessian, post.mean, np.zeros((d, d)) if name == "SVRG-LD" else Q, h)
        m0, S0 = np.zeros(d), np.eye(d)
    elif name in ("SGHMC", "FG") or (name == "EWSG" and M == 0):
        rec = underdamped_em_recursion(target.hessian, post.mean, np.zeros((d, d)) if name == "FG" else Q, h, friction)
        m0, S0 = np.zeros(2 * d), np.eye(2 * d)
    else:
        return None
    means, covs = propagate_moments(rec, m0, S0, steps)
    return kl_gaussian(post.mean, post.cov, means[:, :d], covs[:, :d, :d])


def kl_curves(cfg: KLPanelSettings, runs, tag: str, n_jobs=1, backend=None, progress=None):
    """KL vs data passes for every run; ``(rows, divergences)``.

    Parameters
    ----------
    cfg : KLPanelSettings
        The §5.1 target, realizations, passes and checkpoints.
    runs : list of dict(label, sampler, h, params)
        ``sampler`` is a name registered in :mod:`sgmcmc_verify.samplers`.
    tag : str
        Key of :data:`_TAGS`: run ``j`` draws from ``SeedSequence([cfg.seed, _TAGS[tag], j])``.

    Returns
    -------
    rows : list of dict
        One per run and checkpoint: passes, steps, KL(π ‖ Gaussian fit) in nats with its bootstrap
        s.e., the exact KL where a closed form exists, the fitted moments, the estimation floor.
    divergences : list of dict
        One per run: ``diverged`` and, if so, the step and the number of non-finite chains of the
        first block that diverged (:class:`~sgmcmc_verify.errors.DivergenceError`).
    """
    target = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
    post = quadratic_posterior(target.centers)
    floor, floor_sd = kl_estimation_floor(cfg)
    rows, divergences = [], []
    for j, run in enumerate(runs):
        fn = functools.partial(_block, cfg=cfg, sampler=run["sampler"], h=run["h"], params=run["params"])
        seed = np.random.SeedSequence([cfg.seed, _TAGS[tag], j]).entropy
        try:
            res = run_realizations(fn, cfg.realizations, seed=seed, block_size=cfg.block_size, n_jobs=n_jobs,
                                   backend=backend, progress=progress)
        except DivergenceError as e:
            divergences.append({"label": run["label"], "method": run["method"], "step_size": run["h"], "diverged": True,
                                "diverged_at_step": e.step, "n_bad_chains": e.n_bad_chains})
            continue
        divergences.append({"label": run["label"], "method": run["method"], "step_size": run["h"], "diverged": False})
        rows += _curve_rows(cfg, run, res, target, post, floor, floor_sd, j)
    return rows, divergences


def _curve_rows(cfg, run, res, target, post, floor, floor_sd, j):
    kl = ensemble_kl(res["position"], post.mean, post.cov)
    kl_se = _kl_bootstrap_se(res["position"], post.mean, post.cov, np.random.default_rng([cfg.seed, j, 17]))
    exact = exact_kl(run, target, cfg.friction, res["steps"])
    info = res.get("info", {})
    p = run["params"]
    return [{"label": run["label"], "method": run["method"], "group": run["group"], "sampler": run["sampler"],
             "step_size": run["h"],
             "index_chain_length": p.get("index_chain_length", ""), "batch_size": p.get("batch_size", 1),
             "x_choice": p.get("x_choice", ""), "x_friction": p.get("x_friction", ""),
             "passes": res["passes"][k], "steps": int(res["steps"][k]),
             "kl": kl.target_to_samples[k], "kl_reverse": kl.samples_to_target[k], "kl_se": kl_se[k],
             "kl_exact": "" if exact is None else exact[k],
             "mean_1": kl.mean[k, 0], "mean_2": kl.mean[k, 1],
             "var_1": kl.cov[k, 0, 0], "var_2": kl.cov[k, 1, 1], "cov_12": kl.cov[k, 0, 1],
             "kl_floor": floor, "kl_floor_sd": floor_sd, "realizations": cfg.realizations,
             "acceptance_rate": info.get("acceptance_rate", ""), "calibration_fraction": info.get("calibration", "")}
            for k in range(res["passes"].size)]


# ---------------------------------------------------------------------------------------------
# Appendix E: overdamped EWSG
# ---------------------------------------------------------------------------------------------

def appendix_e_runs(cfg: AppendixESettings):
    """SGLD, pSGLD, SVRG-LD at §5.1's step sizes, then overdamped EWSG for every choice of x."""
    hs = cfg.step_sizes
    runs = [_run(m, m, hs[m]) for m in ("SGLD", "pSGLD", "SVRG-LD")]
    return runs + [_run(f"EWSG-LD (x = {x})", "EWSG-LD", hs["EWSG-LD"], index_chain_length=cfg.index_chain_length,
                        x_choice=x) for x in cfg.x_choices]


def run_appendix_e(cfg: AppendixESettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``appE.csv``: KL vs passes for overdamped EWSG and its §5.1 competitors."""
    rows, _ = kl_curves(cfg, appendix_e_runs(cfg), "appE", n_jobs, backend, progress)
    write_csv(Path(out_dir) / "appE.csv", rows, header_comment=(
        f"EWSG Appendix E (overdamped EWSG) on the section 5.1 target, scale={cfg.scale}; kl = KL(target || Gaussian "
        "fit of the realizations) in nats, kl_se its bootstrap s.e.; kl_exact where a closed form exists"))


# ---------------------------------------------------------------------------------------------
# Appendix F, Figure 4: EWSG-VR
# ---------------------------------------------------------------------------------------------

def fig4_runs(cfg: Fig4Settings):
    """For every h: FG, SGHMC, EWSG, EWSG-VR in each reading of x, and EWSG-VR with M = 0 (the ablation)."""
    runs, M, L = [], cfg.index_chain_length, cfg.calibration_period
    for h in cfg.step_sizes:
        g = f"h={h:g}"
        runs += [_run(f"FG {g}", "FG", h, "FG", g, friction=cfg.friction),
                 _run(f"SGHMC {g}", "SGHMC", h, "SGHMC", g, friction=cfg.friction),
                 _run(f"EWSG {g}", "EWSG", h, "EWSG", g, friction=cfg.friction, index_chain_length=M)]
        runs += [_run(f"EWSG-VR ({xf}) {g}", "EWSG-VR", h, f"EWSG-VR ({xf})", g, friction=cfg.friction,
                      index_chain_length=M, calibration_period=L, x_friction=xf) for xf in cfg.x_frictions]
        runs.append(_run(f"EWSG-VR M=0 {g}", "EWSG-VR", h, "EWSG-VR M=0", g, friction=cfg.friction,
                         index_chain_length=0, calibration_period=L))
    return runs


def ewsg_vr_stability(cfg: KLPanelSettings, step_size: float) -> dict:
    """Exact linear stability of EWSG-VR's friction ``Γ = γ + (h/2T) cov[n∇V_I]`` on the §5.1 target.

    Returns the spectral radius of the EM recursion with that friction and the exact gradient noise
    (:func:`~sgmcmc_verify.analytic.linear_samplers.variance_corrected_em_recursion`), ``h λ_max(Γ)``, and, for
    comparison, the spectral radius of plain SGHMC (friction γ) at the same h.
    """
    target = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
    post = quadratic_posterior(target.centers)
    Q = minibatch_noise_covariance(target.centers)
    vr = variance_corrected_em_recursion(target.hessian, post.mean, Q, step_size, cfg.friction)
    plain = underdamped_em_recursion(target.hessian, post.mean, Q, step_size, cfg.friction)
    d = target.dim
    gam = (np.eye(d) - vr.A[d:, d:]) / step_size
    return {"step_size": step_size, "spectral_radius_ewsg_vr": float(np.max(np.abs(np.linalg.eigvals(vr.A)))),
            "spectral_radius_sghmc": float(np.max(np.abs(np.linalg.eigvals(plain.A)))),
            "h_times_max_friction": float(step_size * np.max(np.linalg.eigvalsh(gam))),
            "trace_cov_n_grad": float(np.trace(Q))}


def ewsg_selection_friction(cfg: KLPanelSettings, step_size: float, index_chain_length: int = 1) -> dict:
    """How much of EWSG-VR's friction correction EWSG's own index chain already applies (exact, by enumeration).

    At θ = the posterior mean and r = ±e_j, the exact law of the index after the M-step chain
    (:meth:`~sgmcmc_verify.estimators.EWSGIndexChain.index_law`) gives the mean selected gradient; its part odd in r,
    ``δg(r) = (E[ĝ | r] − E[ĝ | −r])/2``, acts as a friction. To first order in h the weights (4) with the
    recommended x give ``δg = (h/2T) cov[n∇V_I] r``, which is EWSG-VR's correction ``(Γ − γ) r``. Returns, per
    coordinate j, ``δg_j / ((h/2T) cov r)_j`` (1: EWSG already applies the whole correction; 0: none).
    """
    target = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
    d, n, gam = target.dim, target.n, cfg.friction
    sig = float(np.sqrt(2.0 * gam))
    r = np.concatenate([np.eye(d), -np.eye(d)])
    th = np.broadcast_to(target.posterior_mean, r.shape)
    p = EWSGIndexChain(index_chain_length).index_law(target, th, r, step_size, gam, sig)
    G = n * target.data_gradients(th, np.broadcast_to(np.arange(n), (2 * d, n)))
    mean_g = np.einsum("cn,cnd->cd", p, G)
    odd = (mean_g[:d] - mean_g[d:]) / 2.0                                   # (d, d): row j is δg for r = e_j
    corr = (step_size * gam / sig**2) * minibatch_noise_covariance(target.centers)  # (h/2T) cov, rows (Γ − γ) e_j
    return {"step_size": step_size, "index_chain_length": index_chain_length,
            "ratio_per_coordinate": [float(odd[j, j] / corr[j, j]) for j in range(d)]}


def run_fig4(cfg: Fig4Settings, out_dir, n_jobs=1, backend=None, progress=None, name: str = "fig4") -> None:
    """Write ``<name>.csv`` (KL vs passes) and ``<name>.json`` (divergences, exact stability, settings)."""
    rows, div = kl_curves(cfg, fig4_runs(cfg), "fig4", n_jobs, backend, progress)
    write_csv(Path(out_dir) / f"{name}.csv", rows, header_comment=(
        f"EWSG Appendix F Figure 4 on the section 5.1 target (n = {cfg.n_data}), scale={cfg.scale}; kl = KL(target || "
        f"Gaussian fit) in nats; runs that diverged are listed in {name}.json"))
    write_json(Path(out_dir) / f"{name}.json", {
        "paper_step_size": cfg.paper_step_size, "runs": div,
        "stability": [ewsg_vr_stability(cfg, h) for h in cfg.step_sizes],
        "ewsg_selection_friction": [ewsg_selection_friction(cfg, h, cfg.index_chain_length) for h in cfg.step_sizes],
        "scale": cfg.scale, "settings": cfg.as_dict()})


def run_fig4_conference_n(cfg: Fig4Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Figure 4 at the conference text's n = 20: ``fig4_n20.csv`` and ``fig4_n20.json`` (as :func:`run_fig4`)."""
    run_fig4(cfg, out_dir, n_jobs, backend, progress, name="fig4_n20")


# ---------------------------------------------------------------------------------------------
# Appendix D: minibatch EWSG (b > 1), with Appendix G.3's comparison
# ---------------------------------------------------------------------------------------------

def minibatch_runs(cfg: MinibatchSettings):
    """For every b: SGHMC(b), EWSG(b, M), SGHMC(b(M + 1))."""
    h, M, runs = cfg.step_size, cfg.index_chain_length, []
    for b in cfg.batch_sizes:
        g = f"b={b}"
        runs += [_run(f"SGHMC b={b}", "SGHMC", h, "SGHMC(b)", g, friction=cfg.friction, batch_size=b),
                 _run(f"EWSG b={b}", "EWSG", h, "EWSG(b)", g, friction=cfg.friction, batch_size=b,
                      index_chain_length=M),
                 _run(f"SGHMC b={b * (M + 1)} (G.3, vs EWSG b={b})", "SGHMC", h, "SGHMC(b(M+1))", g,
                      friction=cfg.friction, batch_size=b * (M + 1))]
    return runs


def run_minibatch(cfg: MinibatchSettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``appD.csv``: KL vs passes of minibatch EWSG and SGHMC (b and b(M + 1))."""
    rows, _ = kl_curves(cfg, minibatch_runs(cfg), "appD", n_jobs, backend, progress)
    write_csv(Path(out_dir) / "appD.csv", rows, header_comment=(
        f"EWSG Appendix D (minibatch EWSG) and G.3 (SGHMC with b(M+1)) on the section 5.1 target, h={cfg.step_size:g}, "
        f"scale={cfg.scale}; kl = KL(target || Gaussian fit) in nats"))
