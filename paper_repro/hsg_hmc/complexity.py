"""HSG-HMC Table 1 / Corollaries 1–2: stochastic gradients needed for W2 ≤ ε, exact moments, differing Hessians.

Table 1 orders worst-case upper bounds (HSG-HMC ε⁻⁴ vs SG-UL-MCMC ε⁻⁶, SGLD and SGHMC ε⁻⁸). A fair empirical test of
that ordering needs (i) many ε (here ≥ 1.5 decades), (ii) every method tuned *at each ε* (step
size, the minibatch methods' batch size (SGLD, SGHMC, SG-UL-MCMC), SRVR-HMC's (L, B0, B)), (iii) both ρ schedules of HSG-HMC
(Corollary 2's periodic reset, which Table 1 lists and the experiments use, and Theorem 1 /
Corollary 1's ρ_k = 1/k), and (iv) a target whose per-datum Hessians *differ*, because with equal
Hessians the recursive estimators of HSG-HMC and SRVR-HMC are exact and the comparison says
nothing about their variance reduction.

Target: ``f(x) = Σ_i ½ xᵀA_i x − b_iᵀx`` with Wishart-spread ``A_i``
(:func:`sgmcmc_verify.analytic.hsg_quadratic.random_quadratic_sum`). We chose it over the §5.1 mixture and a
logistic posterior because the sampler laws' first two moments are then *exact* (a linear
recursion with random coefficient matrices, :func:`sgmcmc_verify.analytic.hsg_quadratic.exact_trajectory`), so
every count is free of Monte Carlo error, while the difference term ``n A_ξ (x' − x)`` of the
recursive estimators is as noisy as the Hessian spread makes it. W2 is the Bures distance of the
exact moments to the Gaussian target, a lower bound on the true W2 (the laws are not Gaussian).

Count: the per-datum gradient evaluations spent before the first iterate ``x_K`` with
``W2(law(x_K), π) ≤ ε`` (the corollaries' reading: a chosen K with W2 of the K-th iterate ≤ ε),
minimized over the hyperparameter grid; ``evaluations_stay`` (W2 ≤ ε from K to the end of the
horizon) is reported beside it. Exponents are OLS slopes of log count vs log(1/ε) with a 95 %
t-interval (the residuals come from the discrete tuning grid and from curvature, not from noise).

SRVR-HMC's sensitivity to its four hyperparameters (the text after Corollary 2: "all the four hyperparameters
L, B0, B and stepsize η affect the performance of SRVR-HMC greatly") is read from the same exact counts: at each ε,
for L, B0 and B the ratio max/min of the count (η tuned for each configuration) over the configurations that move that
parameter alone away from the base ``srvr_configs[0]``; for η, the ratio of the worst count at a step size within a
factor :data:`ETA_WINDOW` of the best one to the best count (base configuration). A configuration that never reaches ε
enters with the evaluations it spent over its whole horizon (a lower bound on its count).

Writes ``complexity.csv`` (method, ε, count, the setting that achieved it), ``complexity_grid.csv`` (the count of
every configuration and step size at every ε) and ``complexity.json`` (fits, pairwise exponent differences, the
SRVR-HMC sensitivities, target, settings).

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: Table 1, Theorem 1, Corollaries 1–2, Remark 2.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from sgmcmc_verify.analytic.hsg_quadratic import exact_trajectory, random_quadratic_sum
from sgmcmc_verify.runner import run_tasks
from sgmcmc_verify.store.io import write_csv, write_json

from .settings import ComplexitySettings

__all__ = ["run_complexity", "TABLE1_EXPONENTS", "loglog_fit", "first_hit", "stay_below", "srvr_sensitivity",
           "ETA_WINDOW", "SRVR_PARAMETERS"]

#: Overall sample complexity exponents of 1/ε in Table 1 (Corollary 1 for the harmonic schedule).
TABLE1_EXPONENTS = {"SGLD": 8.0, "SGHMC": 8.0, "SG-UL-MCMC": 6.0, "SRVR-HMC": 4.0, "HSG-HMC (periodic)": 4.0,
                    "HSG-HMC (harmonic)": 4.0}
#: The pairs Table 1 orders: HSG-HMC (each schedule) against SG-UL-MCMC, and HSG-HMC (periodic) against SGLD, SGHMC.
ORDERED_PAIRS = (("HSG-HMC (periodic)", "SG-UL-MCMC"), ("HSG-HMC (harmonic)", "SG-UL-MCMC"),
                 ("HSG-HMC (periodic)", "SGLD"), ("HSG-HMC (periodic)", "SGHMC"))
#: The η sensitivity reads step sizes within this factor of the best one: Remark 2 ties γ to η, so a factor 2 in η
#: is the smallest change that is more than one step of the 1.45x tuning grid on each side.
ETA_WINDOW = 2.0
#: SRVR-HMC's hyperparameters as the sensitivity names them, and their position in an ``srvr_configs`` tuple.
SRVR_PARAMETERS = {"L": 0, "B0": 1, "B": 2}


def first_hit(w2, evaluations, eps):
    """Evaluations spent before the first iterate with W2 ≤ ε (inf if none): (len(eps),) ndarray.

    Parameters
    ----------
    w2, evaluations : (K+1,) arrays, per iteration.
    eps : (m,) array of positive accuracies.
    """
    w2 = np.asarray(w2)
    out = np.full(len(eps), np.inf)
    for i, e in enumerate(eps):
        ok = np.flatnonzero(w2 <= e)
        if ok.size:
            out[i] = evaluations[ok[0]]
    return out


def stay_below(w2, evaluations, eps):
    """Evaluations from which W2 ≤ ε at every later iterate of the horizon (inf if never): (len(eps),)."""
    w2 = np.asarray(w2)
    run_max = np.maximum.accumulate(w2[::-1])[::-1]
    out = np.full(len(eps), np.inf)
    for i, e in enumerate(eps):
        ok = np.flatnonzero(run_max <= e)
        if ok.size:
            out[i] = evaluations[ok[0]]
    return out


def loglog_fit(inv_eps, counts, level: float = 0.95) -> dict:
    """OLS slope of log(count) on log(1/ε) with a t-interval; needs >= 3 finite points.

    Parameters
    ----------
    inv_eps, counts : (m,) arrays (non-finite counts are dropped).
    level : float, confidence level of the two-sided t-interval (m − 2 degrees of freedom).

    Returns
    -------
    dict
        ``exponent``, ``ci_low``, ``ci_high``, ``points``, ``intercept``, ``local_exponents``
        (slopes between consecutive ε); only ``points`` when fewer than 3.
    """
    from scipy import stats

    x = np.log(np.asarray(inv_eps, float))
    y = np.asarray(counts, float)
    keep = np.isfinite(y) & (y > 0)
    x, y = x[keep], np.log(y[keep])
    out = {"points": int(x.size)}
    if x.size < 3:
        return out
    res = stats.linregress(x, y)
    t = stats.t.ppf(0.5 + level / 2, x.size - 2)
    out.update({"exponent": float(res.slope), "ci_low": float(res.slope - t * res.stderr),
                "ci_high": float(res.slope + t * res.stderr), "intercept": float(res.intercept), "level": level,
                "local_exponents": [float(v) for v in np.diff(y) / np.diff(x)]})
    return out


def _configs(s):
    for m in ("SGLD", "SGHMC", "SG-UL-MCMC"):
        for b in s.sg_ul_batch_sizes:
            yield m, m, {"batch_size": b}
    for L, B0, B in s.srvr_configs:
        yield "SRVR-HMC", "SRVR-HMC", {"inner_loop_length": L, "outer_batch_size": B0 if B0 else None,
                                       "inner_batch_size": B}
    for sc in s.hsg_schedules:
        yield f"HSG-HMC ({sc})", "HSG-HMC", {"schedule": sc}


def _iterations(s, h, method=""):
    if method == "SGLD":
        return int(min(s.max_iterations, math.ceil(s.overdamped_horizon / h)))
    return int(min(s.max_iterations, math.ceil(s.horizon / (h * h))))


def _steps(s, method):
    return s.sgld_step_sizes if method == "SGLD" else s.step_sizes


def _trajectory_counts(q, method, h, iterations, kw, eps):
    """One exact trajectory's first-hit and stay-below counts at every ε, and its count at the horizon."""
    r = exact_trajectory(q, method, h, iterations, **kw)
    return first_hit(r["w2"], r["evaluations"], eps), stay_below(r["w2"], r["evaluations"], eps), r["evaluations"][-1]


def _best_rows(s, q, eps, n_jobs=1, backend=None):
    best, grid = {}, []
    runs = [(label, method, kw, h) for label, method, kw in _configs(s) for h in _steps(s, method)]
    # one joblib task per (configuration, η), the longest trajectories first; results in the loops' order
    tasks = [(q, method, float(h), _iterations(s, h, method), kw, eps) for _, method, kw, h in runs]
    counts = run_tasks(_trajectory_counts, tasks, n_jobs=n_jobs, backend=backend, cost=[t[3] for t in tasks])
    for (label, _, kw, h), (hit, stay, horizon) in zip(runs, counts):
        hp = ";".join(f"{k}={'n' if v is None else v}" for k, v in kw.items())
        grid += [{"method": label, "hyperparameters": hp, "step_size": float(h), "epsilon": float(e),
                  "evaluations": float(hit[i]), "horizon_evaluations": float(horizon)}
                 for i, e in enumerate(eps)]
        for i, e in enumerate(eps):
            for key, val in (("evaluations", hit[i]), ("evaluations_stay", stay[i])):
                cur = best.get((label, e, key))
                if cur is None or val < cur[0]:
                    best[(label, e, key)] = (float(val), float(h), hp)
    rows = []
    labels = list(dict.fromkeys(lab for lab, _, _ in _configs(s)))
    for label in labels:
        for e in eps:
            v, h, hp = best[(label, e, "evaluations")]
            vs, hs, hps = best[(label, e, "evaluations_stay")]
            if not np.isfinite(v):          # not reached at any setting: no setting to report
                h, hp = float("nan"), ""
            if not np.isfinite(vs):
                hs, hps = float("nan"), ""
            rows.append({"method": label, "epsilon": float(e), "evaluations": v, "step_size": h, "hyperparameters": hp,
                         "evaluations_stay": vs, "step_size_stay": hs, "hyperparameters_stay": hps})
    return rows, labels, grid


def srvr_sensitivity(grid, configs, eps) -> dict:
    """SRVR-HMC's sensitivity to L, B0, B and η at every ε, from the counts of every configuration and step size.

    Parameters
    ----------
    grid : list of dict
        ``complexity_grid.csv`` rows (``method``, ``hyperparameters``, ``step_size``, ``epsilon``, ``evaluations``,
        ``horizon_evaluations``).
    configs : sequence of (L, B0, B)
        ``srvr_configs``; the first is the base of the one-at-a-time design (``B0 = 0`` means n).
    eps : sequence of float

    Returns
    -------
    dict
        ``{f"{ε:g}": {parameter: {"ratio": max/min count, "counts": {setting: count}, "lower_bound": bool}}}`` for the
        ε the base configuration reaches; a parameter the design does not move is absent. ``lower_bound``: some
        setting never reached ε and entered with its horizon's evaluations (the ratio is then a lower bound).
    """
    def key(c):
        L, B0, B = c
        return f"inner_loop_length={L};outer_batch_size={'n' if not B0 else B0};inner_batch_size={B}"
    rows = [r for r in grid if r["method"] == "SRVR-HMC"]
    base = tuple(configs[0])
    out = {}
    for e in eps:
        at = [r for r in rows if r["epsilon"] == float(e)]

        def count(r):
            return (r["evaluations"], False) if math.isfinite(r["evaluations"]) else (r["horizon_evaluations"], True)

        def tuned(c, at=at):
            cand = [count(r) for r in at if r["hyperparameters"] == key(c)]
            reached = [v for v, low in cand if not low]
            return (min(reached), False) if reached else (max(v for v, _ in cand), True)
        b_val, b_low = tuned(base)
        if b_low:
            continue
        res = {}
        for p, j in SRVR_PARAMETERS.items():
            moved = [tuple(c) for c in configs if tuple(c) != base and all((c[i] == base[i]) == (i != j) for i in range(3))]
            if not moved:
                continue
            vals = {key(base): (b_val, False), **{key(c): tuned(c) for c in moved}}
            v = [x for x, _ in vals.values()]
            res[p] = {"ratio": max(v) / min(v), "counts": {k: x for k, (x, _) in vals.items()},
                      "lower_bound": any(low for _, low in vals.values())}
        base_rows = sorted((r for r in at if r["hyperparameters"] == key(base)), key=lambda r: r["step_size"])
        best = min((r for r in base_rows if math.isfinite(r["evaluations"])), key=lambda r: r["evaluations"])
        near = [r for r in base_rows if best["step_size"] / ETA_WINDOW <= r["step_size"] <= best["step_size"] * ETA_WINDOW]
        cnt = {f"eta={r['step_size']:g}": count(r) for r in near}
        if len(cnt) < 2:   # no other step size of the grid within the window: nothing to read
            out[f"{e:g}"] = res
            continue
        res["eta"] = {"ratio": max(x for x, _ in cnt.values()) / best["evaluations"],
                      "counts": {k: x for k, (x, _) in cnt.items()}, "best_step_size": best["step_size"],
                      "lower_bound": any(low for _, low in cnt.values())}
        out[f"{e:g}"] = res
    return out


def _pair(rows, a, b, key):
    ea = {r["epsilon"]: r[key] for r in rows if r["method"] == a}
    eb = {r["epsilon"]: r[key] for r in rows if r["method"] == b}
    common = sorted(e for e in ea if e in eb and np.isfinite(ea[e]) and np.isfinite(eb[e]))
    ratio = [ea[e] / eb[e] for e in common]
    fit = loglog_fit([1 / e for e in common], ratio)   # slope of the ratio = exponent difference
    return {"epsilons": common, "ratio": ratio, "difference": fit}


def run_complexity(s: ComplexitySettings, out_dir, n_jobs=1, backend=None, progress=None):
    """Tune every method at every ε on exact moments; fit ε-exponents with intervals; compare HSG-HMC with SG-UL-MCMC.

    Parameters
    ----------
    s : ComplexitySettings
    out_dir : path
        Receives ``complexity.csv`` and ``complexity.json``.
    n_jobs, backend
        joblib workers for the exact trajectories, one task per (configuration, η); the numbers do not depend on them.
    progress
        Unused.
    """
    q = random_quadratic_sum(n=s.n_data, dim=s.dim, seed=s.hessian_seed, wishart_dof=s.wishart_dof)
    eps = np.asarray(s.epsilons, float)
    rows, labels, grid = _best_rows(s, q, eps, n_jobs, backend)
    fits = {}
    for label in labels:
        rr = [r for r in rows if r["method"] == label]
        fits[label] = {"table_exponent": TABLE1_EXPONENTS[label], "epsilons": len(eps),
                       "first_hit": loglog_fit([1 / r["epsilon"] for r in rr], [r["evaluations"] for r in rr]),
                       "stay_below": loglog_fit([1 / r["epsilon"] for r in rr], [r["evaluations_stay"] for r in rr])}
    pairs = {f"{a} vs {b}": {"first_hit": _pair(rows, a, b, "evaluations"),
                             "stay_below": _pair(rows, a, b, "evaluations_stay")} for a, b in ORDERED_PAIRS}
    ev, _ = np.linalg.eigh(q.hessian)
    write_csv(Path(out_dir) / "complexity.csv", rows)
    write_csv(Path(out_dir) / "complexity_grid.csv", grid)
    write_json(Path(out_dir) / "complexity.json", {
        "fits": fits, "pairs": pairs, "settings": s.as_dict(),
        "srvr_sensitivity": srvr_sensitivity(grid, s.srvr_configs, eps), "eta_window": ETA_WINDOW,
        "decades": float(np.log10(eps.max() / eps.min())),
        "target": {"kind": "quadratic sum, f_i(x) = x'A_i x/2 - b_i'x, A_i = G_i G_i'/m (Wishart), b_i = A_i c_i",
                   "n": q.n, "dim": q.dim, "hessian_eigenvalues": ev.tolist(),
                   "hessian_spread": q.hessian_spread(), "mean": q.mean.tolist()},
        "w2": "Bures distance of the exact moments (a lower bound on W2; the laws are not Gaussian)",
        "count": "first_hit: evaluations before the first iterate with W2 <= eps (the corollaries' reading); "
                 "stay_below: from there on to the end of the horizon min(max_iterations, horizon/eta^2)"})
