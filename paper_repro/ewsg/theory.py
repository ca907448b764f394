"""EWSG §4: Theorem 4.1 (the optimal unbiased law is sparse) and Theorem 4.2 (EWSG reduces the local variance).

Both are statements about one outer step at a fixed state: no chain is run. Everything is exact
given the data (a linear program, enumeration over the n indices); the randomness is over fresh
data sets and states, and the tables report means with standard errors over them.

Outputs (``results/ewsg/``): ``thm41.csv`` (one row per LP instance), ``thm41.json`` (summary per
instance family); ``thm42.csv`` (one row per law × reading × n × h × y cell), ``thm42_states.csv``
(the §5.1 data set: the factor of Theorem 4.3's second term under every index law), ``thm42.json``.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: Theorem 4.1, eq. (2), Appendix A; weights (4), Theorem 4.2,
Appendix B; Theorem 4.3, eq. (5).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from sgmcmc_verify.analytic.ewsg_weights import (ewsg_log_weights, normalized_weights, subsampling_moments, trace_cov_first_order,
                                   variance_change)
from sgmcmc_verify.analytic.optimal_subsampling import optimal_unbiased_law
from sgmcmc_verify.estimators import EWSGIndexChain
from sgmcmc_verify.runner import run_tasks
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets import LogisticRegressionTarget, gaussian_means_target
from sgmcmc_verify.targets.datasets import load_builtin, standardize

from .settings import Theorem41Settings, Theorem42Settings

__all__ = ["lp_instance_row", "structured_instances", "theorem41", "run_theorem41", "theorem42_cell",
           "section51_factor", "theorem42", "run_theorem42", "tail_constant"]


# ---------------------------------------------------------------------------------------------
# Theorem 4.1
# ---------------------------------------------------------------------------------------------

def _ewsg_ratios(g, grad, ys, steps, sigma):
    """Mean over y of Tr cov and MSE (about ∇V) of ``g_I``, ``I ~`` weights (4), relative to uniform."""
    _, tr_u = subsampling_moments(np.full(g.shape[0], 1.0 / g.shape[0]), g)
    out = {}
    for h in steps:
        p = normalized_weights(ewsg_log_weights(np.sqrt(h) * ys / sigma, np.broadcast_to(g, (len(ys),) + g.shape),
                                                h, sigma))
        mean, tr = subsampling_moments(p, np.broadcast_to(g, (len(ys),) + g.shape))
        mse = tr + np.sum((mean - grad) ** 2, axis=1)
        out[f"ewsg_trace_ratio_h{h:g}"] = float(tr.mean() / tr_u)
        out[f"ewsg_mse_ratio_h{h:g}"] = float(mse.mean() / tr_u)
    return out


def lp_instance_row(kind, g, grad, ys=None, steps=(), sigma=1.0, **extra) -> dict:
    """Solve (2) for the per-datum estimates ``g_i`` (``n∇V_i`` plus any prior) at one θ; one tidy row.

    ``b_i = g_i − ∇V``; the row has the support size, the size of the tight set (every optimum lives
    on it), the certificate's margin, the optimal and uniform variances, and, if ``ys`` is given,
    the weights (4) at those ``y = σx/√h`` for every h in ``steps``.
    """
    b = g - grad
    n, d = b.shape
    sol = optimal_unbiased_law(b)
    row = {"kind": kind, "d": d, "n": n, **extra, "support": int(sol.support.size), "tight": int(sol.tight.size),
           "sparse": int(sol.support.size <= d + 1), "all_optima_sparse": int(sol.tight.size <= d + 1),
           "margin": sol.margin if np.isfinite(sol.margin) else "", "variance_optimal": sol.variance, "variance_uniform": sol.uniform_variance,
           "ratio_optimal": sol.variance / sol.uniform_variance}
    if ys is not None:
        row.update(_ewsg_ratios(g, grad, ys, steps, sigma))
    return row


def _pima_target():
    tr, = standardize(load_builtin("pima"), add_bias=True)
    return LogisticRegressionTarget(tr.X, tr.y, prior=1.0)


def _pima_g(t, theta):
    return t.prior_gradient(theta[None])[0] + t.n * t.data_gradients_all(theta[None])[0], t.full_gradient(theta[None])[0]


def structured_instances(cfg: Theorem41Settings, rng) -> list[tuple]:
    """``(kind, g, ∇V, note)`` for the structured instances (see :class:`Theorem41Settings`)."""
    t51 = gaussian_means_target()
    theta51 = t51.posterior_mean
    idx = np.arange(t51.n)[None]
    out = [("section51", t51.n * t51.data_gradients(theta51[None], idx)[0], t51.full_gradient(theta51[None])[0],
            "EWSG §5.1 data set (b does not depend on θ)")]
    pima = _pima_target()
    fun = lambda th: (float(pima.potential(th[None])[0]), pima.full_gradient(th[None])[0])  # noqa: E731
    theta_map = minimize(fun, np.zeros(pima.dim), jac=True, method="L-BFGS-B", options={"gtol": 1e-10}).x
    for name, th in (("pima_map", theta_map), ("pima_zero", np.zeros(pima.dim))):
        g, grad = _pima_g(pima, th)
        out.append((name, g, grad, f"Pima logistic regression (n = {pima.n}, d = {pima.dim}, N(0, I) prior)"))
    half = rng.uniform(0, np.pi, 25)
    circ = np.concatenate([np.c_[np.cos(half), np.sin(half)], -np.c_[np.cos(half), np.sin(half)]])
    out.append(("equal_norms", circ, np.zeros(2), "50 points on a circle, antipodal: absolute continuity fails"))
    c = rng.standard_normal((25, 2))
    dup = np.concatenate([c, c])
    out.append(("duplicated_rows", -50 * (dup - dup.mean(0)), np.zeros(2), "25 data points, each twice"))
    v = rng.standard_normal((25, 2))
    out.append(("antipodal_pairs", np.concatenate([v, -v]) * 50, np.zeros(2), "pairs ±v_i: every pair is unbiased"))
    return out


def theorem41(cfg: Theorem41Settings) -> tuple[list[dict], dict]:
    """Rows for every random and structured instance, and the summary per family."""
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 41]))
    sigma = np.sqrt(2 * cfg.friction)
    ys = cfg.friction * rng.standard_normal((cfg.ewsg_states, 1))
    rows = []
    for d in cfg.dims:
        yd = cfg.friction * rng.standard_normal((cfg.ewsg_states, d))
        for n in cfg.sizes:
            for j in range(cfg.instances):
                c = rng.standard_normal((n, d))
                g = -n * (c - c.mean(axis=0))
                rows.append(lp_instance_row("random_gaussian", g, np.zeros(d), yd if j < 20 else None,
                                            cfg.ewsg_steps, sigma, instance=j))
    for kind, g, grad, note in structured_instances(cfg, rng):
        ys = cfg.friction * rng.standard_normal((cfg.ewsg_states, g.shape[1]))
        rows.append(lp_instance_row(kind, g, grad, ys, cfg.ewsg_steps, sigma, instance=0, note=note))
    return rows, _summary41(rows, cfg)


def _summary41(rows, cfg):
    fams = {}
    for r in rows:
        fams.setdefault((r["kind"], r["d"], r["n"]), []).append(r)
    out = []
    for (kind, d, n), rr in fams.items():
        e = {"kind": kind, "d": d, "n": n, "instances": len(rr), "max_support": max(r["support"] for r in rr),
             "fraction_sparse": float(np.mean([r["sparse"] for r in rr])),
             "max_tight": max(r["tight"] for r in rr),
             "fraction_all_optima_sparse": float(np.mean([r["all_optima_sparse"] for r in rr])),
             "min_margin": min((float(r["margin"]) for r in rr if r["margin"] != ""), default=None),
             "median_ratio_optimal": float(np.median([r["ratio_optimal"] for r in rr]))}
        for h in cfg.ewsg_steps:
            for key in (f"ewsg_trace_ratio_h{h:g}", f"ewsg_mse_ratio_h{h:g}"):
                vals = [r[key] for r in rr if key in r]
                if vals:
                    e["median_" + key] = float(np.median(vals))
        out.append(e)
    return {"families": out, "ewsg_steps": list(cfg.ewsg_steps)}


def run_theorem41(cfg: Theorem41Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``thm41.csv`` and ``thm41.json``."""
    rows, summary = theorem41(cfg)
    keys = list(dict.fromkeys(k for r in rows for k in r))
    write_csv(Path(out_dir) / "thm41.csv", [{k: r.get(k, "") for k in keys} for r in rows], header_comment=(
        f"EWSG Theorem 4.1, scale={cfg.scale}: the LP (2) per instance; tight = indices with zero reduced cost "
        "(every optimum is supported there); ratios relative to the uniform law's Tr cov"))
    write_json(Path(out_dir) / "thm41.json", {**summary, "scale": cfg.scale, "settings": cfg.as_dict()})


# ---------------------------------------------------------------------------------------------
# Theorem 4.2
# ---------------------------------------------------------------------------------------------

def _draw_gradients(law, sets, n, R, rng):
    """Per-datum gradients ``∇V_i(θ)`` of ``sets`` fresh data sets: ``(sets, n, 2)``, norm <= R (but section51)."""
    if law == "ball":
        u = rng.standard_normal((sets, n, 2))
        u /= np.linalg.norm(u, axis=-1, keepdims=True)
        return R * np.sqrt(rng.random((sets, n, 1))) * u
    if law == "skewed":
        return (R / np.sqrt(2)) * np.stack([2 * rng.beta(0.5, 3.0, (sets, n)) - 1, rng.uniform(-1, 1, (sets, n))], -1)
    if law == "section51":
        return -rng.standard_normal((sets, n, 2))
    raise ValueError(f"law must be one of ball, skewed, section51; got {law!r}")


def tail_constant(delta, n, h, min_count=10) -> float:
    """Smallest C with ``P̂(|Δ − EΔ| >= t) <= 2 exp(−t²/(n C h²))`` at every t where the tail has >= ``min_count`` points."""
    dev = np.sort(np.abs(delta - delta.mean()))[::-1]
    k = np.arange(1, dev.size + 1)
    ok = (k >= min_count) & (dev > 0)
    p = k[ok] / dev.size
    return float(np.max(dev[ok] ** 2 / (n * h * h * np.log(2.0 / p)))) if ok.any() else float("nan")


def _mean_se(x):
    x = np.asarray(x, dtype=np.float64)
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size))


def theorem42_cell(b, y, h, sigma, n_metropolis) -> dict:
    """Δ of Theorem 4.2 on every data set ``b`` ((sets, n, d)) at one (h, y): exact weights (4), the M = 1
    law (first ``n_metropolis`` sets) and the first-order prediction; means with standard errors."""
    n = b.shape[1]
    delta, tr_u = variance_change(b, y, h, sigma)
    fo = (h / sigma**2) * trace_cov_first_order(b, np.broadcast_to(y, (b.shape[0], b.shape[2])))
    d_m1, _ = variance_change(b[:n_metropolis], y, h, sigma, index_chain_length=1)
    (md, sd), (mf, sf), (mm, sm) = _mean_se(delta), _mean_se(fo), _mean_se(d_m1)
    spread = float(np.mean(np.ptp(0.5 * np.sum((np.asarray(y) + b) ** 2, axis=-1), axis=-1))) * h / sigma**2
    return {"mean_delta": md, "se_delta": sd, "mean_first_order": mf, "se_first_order": sf,
            "mean_delta_m1": mm, "se_delta_m1": sm, "mean_trace_uniform": float(tr_u.mean()),
            "relative_delta": md / float(tr_u.mean()), "fraction_negative": float(np.mean(delta < 0)),
            "sd_delta": float(delta.std(ddof=1)), "tail_constant": tail_constant(delta, n, h),
            "exponent_spread": spread, "data_sets": int(b.shape[0]), "metropolis_sets": int(min(n_metropolis, b.shape[0]))}


def _theorem42_rows(cfg: Theorem42Settings, li: int, ri: int, n: int, h: float) -> list[dict]:
    """The rows of one (law, reading, n, h): one per y. The data sets are drawn from ``SeedSequence([seed, li, ri, n])``
    (every h of one (law, reading, n) draws the same sets)."""
    law, reading = cfg.laws[li], cfg.readings[ri]
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, li, ri, n]))
    R = cfg.radius if reading == "theorem" else cfg.radius_appendix_b
    g = _draw_gradients(law, cfg.data_sets, n, R, rng)
    b = n * g if reading == "theorem" else g
    sigma = np.sqrt(2 * cfg.friction)
    return [{"law": law, "reading": reading, "n": n, "step_size": h, "y_1": y[0], "y_2": y[1],
             **theorem42_cell(b, np.asarray(y, dtype=np.float64), h, sigma, cfg.metropolis_sets)}
            for y in cfg.y_values]


def theorem42(cfg: Theorem42Settings, n_jobs: int = 1, backend=None) -> list[dict]:
    """One row per law × reading × n × h × y (see :class:`Theorem42Settings`).

    One joblib task per (law, reading, n, h) (:func:`~sgmcmc_verify.runner.run_tasks`, largest n first); the rows come
    back in the loops' order and do not depend on ``n_jobs``.
    """
    tasks = [(cfg, li, ri, n, h) for li, law in enumerate(cfg.laws) for ri, reading in enumerate(cfg.readings)
             if law != "section51" or reading == "theorem"   # unbounded: only the raw b_i = n(θ − c_i)
             for n in cfg.sizes for h in cfg.steps]
    cost = [cfg.data_sets * t[3] + cfg.metropolis_sets * t[3] ** 2 for t in tasks]   # the M = 1 law is O(n²) a set
    return [r for rows in run_tasks(_theorem42_rows, tasks, n_jobs=n_jobs, backend=backend, cost=cost) for r in rows]


def section51_factor(cfg: Theorem42Settings) -> list[dict]:
    """The factor of Theorem 4.3's second term on the §5.1 data set, under every index law.

    At ``cfg.section51_states`` states ``θ ~ π``, ``r ~ N(0, I)`` (the stationary law of (1)), with the
    recommended ``x = √h γ r/σ``: ``Tr cov(n∇V_I | θ, r)`` and the squared bias ``‖E[n∇V_I | θ, r] − ∇V‖²``
    (Appendix C's Q1) for the uniform law, the exact weights (4), the M = 1 law of Algorithm 1, and the
    first-order prediction ``Tr cov_U + ε (1/n) Σ (u_i − ū)‖b_i − b̄‖²``.
    """
    t = gaussian_means_target()
    cfg_n = t.n
    sigma, gam = np.sqrt(2 * cfg.friction), cfg.friction
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 51]))
    S = cfg.section51_states
    th = t.posterior_mean + rng.standard_normal((S, 2)) / np.sqrt(cfg_n)
    r = rng.standard_normal((S, 2))
    g = cfg_n * t.data_gradients(th, np.broadcast_to(np.arange(cfg_n), (S, cfg_n)))
    full = t.full_gradient(th)
    rows = []
    for h in cfg.section51_steps:
        laws = {"uniform": np.full((S, cfg_n), 1.0 / cfg_n),
                "exact_weights": EWSGIndexChain(1).index_weights(t, th, r, h, gam, sigma),
                "metropolis_m1": EWSGIndexChain(1).index_law(t, th, r, h, gam, sigma)}
        row = {"step_size": h, "states": S}
        for name, p in laws.items():
            mean, tr = subsampling_moments(p, g)
            row[f"trace_{name}"], row[f"trace_{name}_se"] = _mean_se(tr)
            row[f"bias_sq_{name}"], _ = _mean_se(np.sum((mean - full) ** 2, axis=1))
        _, tr_u = subsampling_moments(laws["uniform"], g)
        fo = tr_u + (h / sigma**2) * trace_cov_first_order(g, gam * r)
        row["trace_first_order"], row["trace_first_order_se"] = _mean_se(fo)
        rows.append(row)
    return rows


def _tail_trends(rows, cfg):
    """Per (law, reading, h, y): log–log slope of the tail constant C_min against n (n-independence of C)."""
    out = []
    keys = {(r["law"], r["reading"], r["step_size"], r["y_1"], r["y_2"]) for r in rows}
    for key in sorted(keys):
        rr = sorted((r for r in rows if (r["law"], r["reading"], r["step_size"], r["y_1"], r["y_2"]) == key),
                    key=lambda r: r["n"])
        ns = np.array([r["n"] for r in rr], dtype=float)
        cs = np.array([r["tail_constant"] for r in rr])
        if ns.size >= 2 and np.all(np.isfinite(cs)) and np.all(cs > 0):
            out.append({"law": key[0], "reading": key[1], "step_size": key[2], "y": [key[3], key[4]],
                        "n": ns.tolist(), "tail_constant": cs.tolist(),
                        "slope_in_n": float(np.polyfit(np.log(ns), np.log(cs), 1)[0])})
    return out


def run_theorem42(cfg: Theorem42Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``thm42.csv``, ``thm42_states.csv`` and ``thm42.json``."""
    rows = theorem42(cfg, n_jobs, backend)
    states = section51_factor(cfg)
    out = Path(out_dir)
    write_csv(out / "thm42.csv", rows, header_comment=(
        f"EWSG Theorem 4.2, scale={cfg.scale}: Delta = Tr cov(p^E) - Tr cov(p^U) over fresh data sets, exact weights (4) "
        "at fixed y = sigma x / sqrt(h); first_order = eps (1/n) sum (u_i - u_bar)|b_i - b_bar|^2, eps = h/sigma^2"))
    write_csv(out / "thm42_states.csv", states, header_comment=(
        f"EWSG Theorem 4.2 -> 4.3, scale={cfg.scale}: E Tr cov(n grad V_I | theta, r) on the Sec. 5.1 data at states "
        "theta ~ pi, r ~ N(0, I), recommended x, for each index law"))
    write_json(out / "thm42.json", {"tail_trends": _tail_trends(rows, cfg), "scale": cfg.scale,
                                    "settings": cfg.as_dict()})
