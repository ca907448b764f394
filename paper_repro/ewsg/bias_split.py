"""Theorem 4.3's second and third terms where the recursion is exact, EWSG's signed bias, and Remark 1's map.

SGHMC on the §5.1 target is a linear recursion, so everything about its time average that needs
second moments only is exact, and the variance is exact for the Gaussian-noise surrogate (the
index noise replaced by a Gaussian of the same covariance; the fourth-cumulant correction is
checked against the Monte Carlo of Figs 1e–1f in the claims):

* the stationary bias of ``φ̄ = E‖θ − μ‖²`` split by the linearity of the Lyapunov equation into the
  full-gradient integrator's part and the stochastic gradient's part
  (:func:`sgmcmc_verify.analytic.linear_samplers.stationary_bias_split`), on a fine h grid and on the Fig. 1f grid;
* the exact mean and surrogate variance of the time average at the (h, T) points of Figs 1e and 1f,
  for SGHMC and for the full-gradient integrator (:func:`sgmcmc_verify.analytic.time_average.em_time_average_moments`);
* Remark 1's (h, T) map from the exact large-T constants: ``C1 = V(0)`` (continuous dynamics),
  the h/T term ``(V_SG(h) − V_FG(h))/T`` and the h² term ``b(h)²``
  (:func:`sgmcmc_verify.analytic.time_average.em_asymptotic_time_average_variance`).

EWSG (M = 1) is not linear: its signed long-run bias is measured by Monte Carlo (after a burn-in,
time-averaged), next to the first-order linear-response prediction
(:func:`sgmcmc_verify.analytic.ewsg_weights.linear_response_recursion`).

Outputs: ``split_sghmc.csv``, ``split_grid.csv``, ``ewsg_bias.csv``, ``remark1.csv``, ``split.json``.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: Theorem 4.3 eq. (5), Remark 1, §5.1 (Figs 1e, 1f).
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from sgmcmc_verify.analytic.ewsg_weights import gaussian_means_linear_response, linear_response_recursion
from sgmcmc_verify.analytic.linear_samplers import (LinearRecursion, minibatch_noise_covariance, stationary_bias_split,
                                      stationary_moments, underdamped_em_recursion)
from sgmcmc_verify.analytic.time_average import (em_asymptotic_time_average_variance, em_time_average_moments,
                                   uld_asymptotic_time_average_variance, uld_time_average_mse_closed_form)
from sgmcmc_verify import samplers
from sgmcmc_verify.runner import run_chains, run_realizations
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets import gaussian_means_target

from .settings import BiasSplitSettings

__all__ = ["Exact", "sghmc_split_rows", "exact_grid_rows", "ewsg_signed_bias", "remark1_rows", "bias_split",
           "run_bias_split", "ols_slope"]


def ols_slope(x, y) -> float:
    """The log–log least-squares slope the Theorem 4.3 panels use (:func:`sgmcmc_verify.measure.rates.fit_slope` on means)."""
    return float(np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)[0])


class Exact:
    """The §5.1 target's exact objects: recursions of SGHMC and of the full-gradient integrator, φ̄, Π."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.target = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
        self.mu = self.target.posterior_mean
        self.H = self.target.hessian
        self.Q = minibatch_noise_covariance(self.target.centers)
        self.d = cfg.dim
        self.phibar = float(np.trace(np.linalg.inv(self.H)))
        self.P = np.zeros((2 * self.d, 2 * self.d))
        self.P[:self.d, :self.d] = np.eye(self.d)
        self.center = np.concatenate([self.mu, np.zeros(self.d)])

    def rec(self, h, stochastic=True):
        return underdamped_em_recursion(self.H, self.mu, self.Q if stochastic else 0 * self.Q, h, self.cfg.friction)

    def time_average(self, h, T, stochastic=True):
        """Exact ``E φ̂ − φ̄`` and surrogate ``Var φ̂`` at T (start θ ~ π, r ~ N(0, I), as Figs 1d–1f)."""
        r = self.rec(h, stochastic)
        cov0 = np.diag(np.concatenate([np.full(self.d, 1.0 / self.target.n), np.ones(self.d)]))
        m, v = em_time_average_moments(r.A, r.a, r.W, self.center, cov0, [int(round(T / h))], self.P, self.center)
        return float(m[0]) - self.phibar, float(v[0])

    def asymptotic_variance(self, h, stochastic=True):
        r = self.rec(h, stochastic)
        return h * em_asymptotic_time_average_variance(r.A, r.W, self.P)


def sghmc_split_rows(ex: Exact, steps) -> list[dict]:
    """The Lyapunov split of SGHMC's stationary bias at every h in ``steps``."""
    rows = []
    a = float(np.trace(ex.Q)) / (ex.d * 2 * ex.cfg.friction)  # h tr Q / (d σ²) per unit h
    for h in steps:
        s = stationary_bias_split(ex.H, ex.mu, ex.Q, h, ex.cfg.friction)
        rows.append({"step_size": h, "bias_total": s.total, "bias_full_gradient": s.full_gradient,
                     "bias_stochastic_gradient": s.stochastic_gradient,
                     "sg_over_factor_times_fg_variance": s.stochastic_gradient / (a * h * (ex.phibar + s.full_gradient)),
                     "bias_sq_total": s.total**2})
    return rows


def exact_grid_rows(ex: Exact) -> list[dict]:
    """Exact time-average bias, surrogate variance and MSE of SGHMC and FG at the Fig. 1e and 1f points."""
    cfg, rows = ex.cfg, []
    for panel, T, steps in (("fig1e", cfg.e_time, cfg.e_steps), ("fig1f", cfg.f_time, cfg.f_steps)):
        c1 = float(uld_time_average_mse_closed_form(ex.H, cfg.friction, T))
        for h in steps:
            b, v = ex.time_average(h, T)
            bf, vf = ex.time_average(h, T, stochastic=False)
            rows.append({"panel": panel, "step_size": h, "T": T, "bias": b, "variance": v, "mse": b * b + v,
                         "fg_bias": bf, "fg_variance": vf, "fg_mse": bf * bf + vf, "continuous_limit_mse": c1,
                         "sg_excess_variance": v - vf, "mse_without_sg_variance": b * b + vf})
    return rows


def _ewsg_block(n_chains, rng, *, cfg, h):
    target = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
    mu = target.posterior_mean
    s = samplers.build("EWSG", target, h, friction=cfg.friction, index_chain_length=1)
    st = s.init(mu + rng.standard_normal((n_chains, cfg.dim)) / np.sqrt(target.n), rng.standard_normal((n_chains, cfg.dim)))
    burn = run_chains(s, st, rng, steps=int(round(cfg.ewsg_burn_time / h)))
    out = run_chains(s, burn["state"], rng, checkpoints=[int(round(cfg.ewsg_time / h))], unit="steps",
                     time_average={"phi": lambda x: np.sum((x.position - mu) ** 2, axis=1)})
    return {"phi": out["phi"][:, 0]}


def ewsg_signed_bias(ex: Exact, n_jobs=1, backend=None, progress=None) -> list[dict]:
    """EWSG's (M = 1) long-run ``E φ̂ − φ̄`` with its standard error, and the linear-response prediction."""
    cfg, rows = ex.cfg, []
    resp = gaussian_means_linear_response(ex.target.centers, cfg.friction)
    for h in cfg.ewsg_steps:
        seed = np.random.SeedSequence([cfg.seed, 91, int(round(h * 1e7))]).entropy
        res = run_realizations(functools.partial(_ewsg_block, cfg=cfg, h=h), cfg.ewsg_realizations, seed=seed,
                               block_size=cfg.block_size, n_jobs=n_jobs, backend=backend, progress=progress)
        dev = res["phi"] - ex.phibar
        lr = linear_response_recursion(ex.rec(h), resp, ex.mu, h, np.sqrt(2 * cfg.friction))
        try:
            pred = _stationary_phi(lr, ex) - ex.phibar
        except ValueError:  # the linearized recursion is unstable at this h (ε n² Ĉ stiffens it): no prediction
            pred = ""
        rows.append({"step_size": h, "bias": float(dev.mean()), "se": float(dev.std(ddof=1) / np.sqrt(dev.size)),
                     "linear_response_bias": pred, "sghmc_exact_bias": stationary_bias_split(
                         ex.H, ex.mu, ex.Q, h, cfg.friction).total, "realizations": int(dev.size),
                     "burn_time": cfg.ewsg_burn_time, "averaging_time": cfg.ewsg_time})
    return rows


def _stationary_phi(rec: LinearRecursion, ex: Exact) -> float:
    m, S = stationary_moments(rec)
    return float(np.trace(S[:ex.d, :ex.d]) + np.sum((m[:ex.d] - ex.mu) ** 2))


def remark1_rows(ex: Exact) -> list[dict]:
    """Remark 1 for SGHMC from exact large-T constants: the three terms of (5) on the (h, T) plane."""
    cfg, rows = ex.cfg, []
    V0 = uld_asymptotic_time_average_variance(ex.H, cfg.friction)
    for h in cfg.remark_steps:
        V, Vf = ex.asymptotic_variance(h), ex.asymptotic_variance(h, stochastic=False)
        b2 = stationary_bias_split(ex.H, ex.mu, ex.Q, h, cfg.friction).total ** 2
        for T in cfg.remark_times:
            t1, t2, t2all, t3 = V0 / T, (V - Vf) / T, (V - V0) / T, b2
            rows.append({"step_size": h, "T": T, "term1_continuous": t1, "term2_sg_variance": t2,
                         "term2_all_discrete_variance": t2all, "term3_bias_sq": t3,
                         "term2_dominates_term3": int(t2 > t3), "boundary_T": (V - Vf) / b2, "C1": V0,
                         "V_sghmc": V, "V_full_gradient": Vf})
    return rows


def _sign_change(rows):
    """Brackets where the resolved (3 s.e.) sign of EWSG's bias flips, with a linear interpolation of h*."""
    out = []
    for a, b in zip(rows[:-1], rows[1:]):
        sa = np.sign(a["bias"]) if abs(a["bias"]) > 3 * a["se"] else 0
        sb = np.sign(b["bias"]) if abs(b["bias"]) > 3 * b["se"] else 0
        if np.sign(a["bias"]) != np.sign(b["bias"]):
            hs = a["step_size"] + (b["step_size"] - a["step_size"]) * a["bias"] / (a["bias"] - b["bias"])
            out.append({"h_low": a["step_size"], "h_high": b["step_size"], "h_star": float(hs),
                        "resolved": bool(sa != 0 and sb != 0 and sa != sb)})
    return out


def bias_split(cfg: BiasSplitSettings, n_jobs=1, backend=None, progress=None) -> dict:
    """Every table of this module and the slopes, all by the same least-squares fit on the same grids."""
    ex = Exact(cfg)
    fine = sorted(set(np.round(np.geomspace(1e-5, max(cfg.f_steps), 25), 12).tolist()) | set(cfg.f_steps))
    split = sghmc_split_rows(ex, fine)
    grid = exact_grid_rows(ex)
    ewsg = ewsg_signed_bias(ex, n_jobs, backend, progress)
    f_rows = [r for r in split if r["step_size"] in cfg.f_steps]
    fg = [r for r in grid if r["panel"] == "fig1f"]
    eg = [r for r in grid if r["panel"] == "fig1e"]
    hs_f, hs_e = [r["step_size"] for r in f_rows], [r["step_size"] for r in eg]
    slopes = {"fig1f_grid": hs_f, "fig1e_grid": hs_e,
              "stationary_bias_sq_total": ols_slope(hs_f, [r["bias_total"] ** 2 for r in f_rows]),
              "stationary_bias_sq_full_gradient": ols_slope(hs_f, [r["bias_full_gradient"] ** 2 for r in f_rows]),
              "stationary_bias_sq_stochastic_gradient": ols_slope(hs_f, [r["bias_stochastic_gradient"] ** 2 for r in f_rows]),
              "stationary_bias_sq_sg_without_integrator_factor": 2.0,
              "fig1f_exact_mse": ols_slope(hs_f, [r["mse"] for r in fg]),
              "fig1f_exact_fg_mse": ols_slope(hs_f, [r["fg_mse"] for r in fg]),
              "fig1e_exact_mse": ols_slope(hs_e, [r["mse"] for r in eg]),
              "fig1e_exact_sg_excess_variance": ols_slope(hs_e, [r["sg_excess_variance"] for r in eg]),
              "fig1e_exact_mse_without_sg_variance": ols_slope(hs_e, [r["mse_without_sg_variance"] for r in eg])}
    small = [r for r in split if r["step_size"] <= 1e-4]
    slopes["stationary_bias_sq_total_small_h"] = ols_slope([r["step_size"] for r in small],
                                                           [r["bias_total"] ** 2 for r in small])
    pos = [r for r in ewsg if r["bias"] > 0 and r["step_size"] in cfg.f_steps]
    ewsg_summary = {"sign_changes": _sign_change(ewsg),
                    "fig1f_grid_signs": {str(r["step_size"]): float(np.sign(r["bias"])) for r in ewsg
                                         if r["step_size"] in cfg.f_steps}}
    if len(pos) >= 2:
        ewsg_summary["bias_sq_slope_on_fig1f_grid"] = ols_slope([r["step_size"] for r in pos], [r["bias"] ** 2 for r in pos])
    rem = remark1_rows(ex)
    boundary = {str(h): next(r["boundary_T"] for r in rem if r["step_size"] == h) for h in cfg.remark_steps}
    return {"split": split, "grid": grid, "ewsg": ewsg, "remark1": rem,
            "summary": {"slopes": slopes, "ewsg": ewsg_summary, "remark1_boundary_T": boundary,
                        "C1_continuous": rem[0]["C1"], "phi_bar": ex.phibar,
                        "sg_factor_per_unit_h": float(np.trace(ex.Q)) / (ex.d * 2 * cfg.friction)}}


def run_bias_split(cfg: BiasSplitSettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``split_sghmc.csv``, ``split_grid.csv``, ``ewsg_bias.csv``, ``remark1.csv`` and ``split.json``."""
    out, res = Path(out_dir), bias_split(cfg, n_jobs, backend, progress)
    tag = f"scale={cfg.scale}"
    write_csv(out / "split_sghmc.csv", res["split"], header_comment=(
        f"EWSG Thm 4.3 term 3, {tag}: SGHMC's exact stationary bias of E|theta-mu|^2 (Lyapunov), split into the "
        "full-gradient integrator's and the stochastic gradient's part (they add up exactly)"))
    write_csv(out / "split_grid.csv", res["grid"], header_comment=(
        f"EWSG Figs 1e/1f points, {tag}: SGHMC and full-gradient EM, exact time-average bias and Gaussian-noise "
        "surrogate variance (start theta ~ pi, r ~ N(0, I))"))
    write_csv(out / "ewsg_bias.csv", res["ewsg"], header_comment=(
        f"EWSG (M=1) long-run signed bias of the time average, {tag}: Monte Carlo mean and s.e.; first-order "
        "linear-response prediction (empty where the linearized recursion is unstable); SGHMC exact for reference"))
    write_csv(out / "remark1.csv", res["remark1"], header_comment=(
        f"EWSG Remark 1, {tag}: SGHMC's exact large-T terms of (5): C1/T, the stochastic-gradient h/T term, h^2 term"))
    write_json(out / "split.json", {**res["summary"], "scale": cfg.scale, "settings": cfg.as_dict()})
