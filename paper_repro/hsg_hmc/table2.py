"""HSG-HMC Table 2 / Figure 1: six methods on the Gaussian mixture, W2 to exact references.

Grid search on tuning runs, final runs with fresh seeds, exact W2 (``ot.emd2``) on subsamples per
group of chains against independent exact reference draws, Sinkhorn W2 on the raw and on the
cost/max scale, the exact-vs-exact noise floor, an MH-corrected HMC reference. The chains run
through :func:`sgmcmc_verify.runner.run_chains` in joblib tasks (:func:`sgmcmc_verify.runner.run_tasks`); every transport problem is drawn first into a
:class:`sgmcmc_verify.measure.transport.TransportBatch` and solved over ``n_jobs`` joblib workers, so the
numbers do not depend on ``n_jobs``. The tuning runs, the final runs and the HMC reference are independent
long chains, one joblib task each, with seeds spawned in a fixed order.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: § "Sampling from a Gaussian Mixture Density", Table 2,
Figure 1, Remark 2.
"""
from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np

from sgmcmc_verify.errors import DivergenceError
from sgmcmc_verify.integrators.metropolis import HMC
from sgmcmc_verify.measure.transport import TransportBatch
from sgmcmc_verify.runner import run_chains, run_tasks
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets.mixtures import grid_density, hsg_mixture_target, sample_from_grid

from .methods import METHODS, make_method
from .settings import Table2Settings

__all__ = ["run_table2", "mode_crossings", "PRINTED_TABLE2"]

#: Table 2 as printed (W2).
PRINTED_TABLE2 = {"SGLD": 1.46e-2, "SGHMC": 1.23e-2, "SG-UL-MCMC": 9.58e-2, "SVRG-LD": 7.82e-3,
                  "SRVR-HMC": 5.33e-3, "HSG-HMC": 5.13e-3}
_HMC_LABEL = "HMC (MH reference)"


def mode_crossings(samples, direction, threshold=1.0):
    """Mode switches per chain, with hysteresis: (chains, T, d) → (chains,) counts.

    The projection ``s = ⟨x, â⟩`` on the unit vector ``â`` of ``direction`` labels a sample +1 when
    ``s > threshold`` and −1 when ``s < −threshold``; in between it keeps the previous label. A
    crossing is a change of label (the two modes sit near ``s ≈ ±2.8``).
    """
    a = np.asarray(direction, float)
    proj = samples @ (a / np.linalg.norm(a))
    lab = np.where(proj > threshold, 1, np.where(proj < -threshold, -1, 0))
    out = np.zeros(samples.shape[0], dtype=np.int64)
    for c in range(samples.shape[0]):
        l = lab[c][lab[c] != 0]  # noqa: E741
        out[c] = int(np.count_nonzero(np.diff(l))) if l.size else 0
    return out


def _pad(rows):
    """Give every row the union of the keys (missing entries NaN), in first-seen order."""
    keys = list(dict.fromkeys(k for r in rows for k in r))
    return [{k: r.get(k, float("nan")) for k in keys} for r in rows]


def _grid_list(grid: dict):
    keys = sorted(grid)
    return [dict(zip(keys, vals)) for vals in itertools.product(*(grid[k] for k in keys))]


def _mode_weight(samples, direction):
    return float(np.mean(samples @ direction > 0))


def _se(a):
    return float(a.std(ddof=1) / math.sqrt(len(a))) if len(a) > 1 else float("nan")


def _from_zero(sampler, chains, iterations, rng, keep_last):
    """Run ``chains`` chains from 0 (the start of Lemma 3; the text gives none for Table 2).

    Returns the last ``keep_last`` positions ``(chains, keep_last, d)`` and the evaluations per chain.
    """
    out = run_chains(sampler, sampler.init(np.zeros((chains, sampler.target.dim))), rng, steps=iterations,
                     keep_last=keep_last)
    return out["kept"], out["evaluations"]


def _tune_task(s, name, cfg, seed_seq):
    """One tuning run (a joblib task): the row and the exact-W2 subsample of its kept samples (None if it diverged)."""
    target = hsg_mixture_target(s.n_data, s.dim, s.mixture_seed)
    rng = np.random.default_rng(seed_seq)
    row = {"method": name, **{k: cfg[k] for k in sorted(cfg)}}
    try:
        samp, ev = _from_zero(make_method(name, target, cfg), s.chains, s.tune_iterations, rng, s.tune_iterations // 2)
    except DivergenceError as e:
        row.update({"w2_exact_tuning": float("inf"), "evaluations_per_chain": 0, "status": f"diverged: {e}"})
        return row, None
    pool = samp.reshape(-1, s.dim)
    sub = pool[rng.choice(len(pool), size=min(s.emd_subsample, len(pool)), replace=False)]
    row["evaluations_per_chain"] = ev
    return row, sub


def _tune(s, tune_ref, ss_tune, batch, n_jobs=1, backend=None):
    """Tuning runs on every grid point (one joblib task each, seeds spawned per method and grid point in a fixed
    order, so the numbers do not depend on n_jobs); one exact-W2 problem each. Returns (cfg, row, problem or None)."""
    tasks = []
    for name, seeds in zip(METHODS, ss_tune.spawn(len(METHODS))):
        cfgs = _grid_list(s.grids[name])
        tasks += [(s, name, cfg, cs) for cfg, cs in zip(cfgs, seeds.spawn(len(cfgs)))]
    results = run_tasks(_tune_task, tasks, n_jobs=n_jobs, backend=backend)
    return [(t[2], row, None if sub is None else batch.exact(sub, tune_ref)) for t, (row, sub) in zip(tasks, results)]


def _rank(tuning):
    """Tuning rows with their W2, and each method's configurations ranked by tuning W2 (best first)."""
    ranked = {name: [] for name in METHODS}
    for cfg, row, problem in tuning:
        if problem is None:
            continue
        w2 = problem.value
        row["w2_exact_tuning"] = w2
        row["status"] = "ok" if math.isfinite(w2) else "left the floating-point range (W2 = inf)"
        if math.isfinite(w2):
            ranked[row["method"]].append((w2, len(ranked[row["method"]]), cfg))
    chosen = {name: [c for _, _, c in sorted(ranked[name], key=lambda t: t[:2])] for name in METHODS}
    return [row for _, row, _ in tuning], chosen


def _final_run(name, target, s, configs, rng):
    """The final run of one method: its best configuration, falling back to the next if it diverges."""
    fallbacks = []
    for cfg in configs:
        try:
            samp, ev = _from_zero(make_method(name, target, cfg), s.chains, s.iterations, rng, s.iterations // 2)
        except DivergenceError as e:
            fallbacks.append({"config": cfg, "error": str(e)})
            continue
        if np.all(np.isfinite(samp)):
            break
        fallbacks.append({"config": cfg, "error": "non-finite samples"})
    else:
        raise DivergenceError(name, s.iterations, {"grid": s.grids[name]}, s.chains)
    extra = {"hyperparameters": ";".join(f"{k}={cfg[k]:g}" for k in sorted(cfg)), "iterations": s.iterations,
             "kept_per_chain": s.iterations // 2, "chains": s.chains, "gradient_evaluations_per_chain": ev,
             "data_passes_per_chain": ev / s.n_data}
    return samp, extra, fallbacks


def _final_task(s, name, configs, seed_seq):
    """The final run of one method, or the HMC reference chains (``name == _HMC_LABEL``): one joblib task.

    Returns ``(samples, extra, fallbacks)`` (no fallbacks for the reference).
    """
    target = hsg_mixture_target(s.n_data, s.dim, s.mixture_seed)
    rng = np.random.default_rng(seed_seq)
    if name == _HMC_LABEL:
        return (*_hmc_reference(target, s, rng), [])
    return _final_run(name, target, s, configs, rng)


def _hmc_reference(target, s, rng):
    """The MH-corrected HMC reference chains (last half kept) and their description."""
    hmc = HMC(target, s.hmc_step_size, s.hmc_leapfrog)
    keep = s.hmc_iterations // 2
    out = run_chains(hmc, hmc.init(np.zeros((s.hmc_chains, s.dim))), rng, steps=s.hmc_iterations, keep_last=keep,
                     trace_info=True)
    extra = {"hyperparameters": f"step_size={s.hmc_step_size:g};leapfrog={s.hmc_leapfrog}",
             "iterations": s.hmc_iterations, "kept_per_chain": keep, "chains": s.hmc_chains,
             "acceptance_rate": float(np.mean(out["info_trace"]["acceptance_rate"]))}
    return out["kept"], extra


class _Problems:
    """Draws the transport problems of the final runs from one stream, in a fixed order."""

    def __init__(self, s, grid, rng, batch, direction):
        self.s, self.grid, self.rng, self.batch, self.direction = s, grid, rng, batch, direction
        self.samples_rows = []

    def _sinkhorn(self, xs, ys):
        s, b = self.s, self.batch
        return {"raw": b.sinkhorn(xs, ys, s.sinkhorn_reg, max_iter=s.sinkhorn_raw_max_iter),
                "normalized": b.sinkhorn(xs, ys, s.sinkhorn_reg, max_iter=s.sinkhorn_max_iter, normalize=True),
                "exact_same_subsample": b.exact(xs, ys)}

    def method(self, label, samp, extra):
        """Groups of chains vs fresh exact references (exact W2), one Sinkhorn subsample, Fig. 1 samples."""
        s, rng, grid, m = self.s, self.rng, self.grid, self.s.emd_subsample
        per = samp.shape[0] // s.groups
        groups, weights = [], []
        for g in range(s.groups):
            pool = samp[g * per:(g + 1) * per].reshape(-1, s.dim)
            sub = pool[rng.choice(len(pool), size=min(m, len(pool)), replace=False)]
            groups.append(self.batch.exact(sub, sample_from_grid(grid, m, rng)))
            weights.append(_mode_weight(pool, self.direction))
        pool = samp.reshape(-1, s.dim)
        xs = pool[rng.choice(len(pool), size=s.sinkhorn_subsample, replace=False)]
        sink = self._sinkhorn(xs, sample_from_grid(grid, s.sinkhorn_subsample, rng))
        idx = rng.choice(len(pool), size=min(3000, len(pool)), replace=False)
        self.samples_rows.extend({"method": label, "x": float(p[0]), "y": float(p[1])} for p in pool[idx])
        return {"label": label, "samples": samp, "extra": extra, "groups": groups, "weights": np.array(weights),
                "sinkhorn": sink}

    def floor(self):
        """Independent exact reference sets of the same sizes: the noise floor."""
        s, rng, grid = self.s, self.rng, self.grid
        groups = [self.batch.exact(sample_from_grid(grid, s.emd_subsample, rng),
                                   sample_from_grid(grid, s.emd_subsample, rng)) for _ in range(s.groups)]
        sink = self._sinkhorn(sample_from_grid(grid, s.sinkhorn_subsample, rng),
                              sample_from_grid(grid, s.sinkhorn_subsample, rng))
        return {"groups": groups, "sinkhorn": sink}


def _sinkhorn_values(sink):
    return {k: p.value for k, p in sink.items()}


def _sinkhorn_columns(sink):
    return {"sinkhorn_cost_normalized": sink["normalized"]["cost"],
            "sinkhorn_normalized_converged": sink["normalized"]["converged"],
            "sinkhorn_w2_raw": sink["raw"]["w2"], "sinkhorn_raw_converged": sink["raw"]["converged"]}


def _method_row(rec, s, exact_weight, direction):
    """One ``table2.csv`` row: W2 over groups, mode weight and switches, moments, Sinkhorn, printed value."""
    samp, weights, label = rec["samples"], rec["weights"], rec["label"]
    w2s = np.array([p.value for p in rec["groups"]])
    pool = samp.reshape(-1, s.dim)
    cross = mode_crossings(samp, direction) * (1000.0 / samp.shape[1])  # per 1,000 kept iterations
    mean_pool = pool.mean(axis=0)
    cov_pool = np.cov(pool.T)
    return {"method": label, **rec["extra"], "w2_exact": float(w2s.mean()), "w2_exact_se": _se(w2s),
            "w2_groups": s.groups, "emd_subsample": s.emd_subsample, "mode_weight": float(weights.mean()),
            "mode_weight_se": _se(weights), "mode_weight_error": float(abs(weights.mean() - exact_weight)),
            "crossings_per_1000": float(cross.mean()), "crossings_per_1000_se": _se(cross),
            "chains_visiting_both_modes": float(np.mean(mode_crossings(samp, direction) > 0)),
            "mean_x": float(mean_pool[0]), "mean_y": float(mean_pool[1]), "cov_xx": float(cov_pool[0, 0]),
            "cov_xy": float(cov_pool[0, 1]), "cov_yy": float(cov_pool[1, 1]),
            **_sinkhorn_columns(_sinkhorn_values(rec["sinkhorn"])), "printed_w2": PRINTED_TABLE2.get(label, float("nan"))}


def _grid_rows(grid, cells):
    """The exact density on a coarse grid (4 × 4 cells merged) for Figure 1."""
    f = 4 if cells % 4 == 0 else 1
    P = grid.prob.reshape(cells // f, f, cells // f, f).sum(axis=(1, 3))
    xc = grid.x.reshape(-1, f).mean(1)
    yc = grid.y.reshape(-1, f).mean(1)
    return [{"x": float(xc[i]), "y": float(yc[j]), "prob": float(P[i, j])}
            for i in range(len(xc)) for j in range(len(yc)) if P[i, j] > 1e-9]


def run_table2(s: Table2Settings, out_dir, n_jobs=1, backend=None, progress=None):
    """Table 2 and Figure 1: grid search, final runs, exact and Sinkhorn W2, noise floor, references.

    Writes ``table2.csv`` (one row per method, plus the HMC reference and the noise floor),
    ``table2_tuning.csv`` (every grid point), ``table2.json`` (grid density summary, choices,
    Sinkhorn diagnostics), ``figure1_samples.csv`` (a subsample of each method's kept samples) and
    ``figure1_grid.csv`` (the exact density on a coarse grid).
    """
    target = hsg_mixture_target(s.n_data, s.dim, s.mixture_seed)
    grid = grid_density(target, s.grid_lower, s.grid_upper, s.grid_cells)
    direction = target.centers.mean(axis=0)
    exact_weight = float(grid.prob[(grid.x[:, None] * direction[0] + grid.y[None, :] * direction[1]) > 0].sum())
    ss_ref, ss_tune, ss_final, ss_w2 = np.random.SeedSequence(s.seed).spawn(4)
    batch = TransportBatch()
    tuning = _tune(s, sample_from_grid(grid, s.emd_subsample, np.random.default_rng(ss_ref)), ss_tune, batch,
                   n_jobs, backend)
    batch.solve(n_jobs, backend)
    tuning_rows, chosen = _rank(tuning)
    problems = _Problems(s, grid, np.random.default_rng(ss_w2), batch, direction)
    final_seeds = ss_final.spawn(len(METHODS) + 1)
    # the final runs of the six methods and the HMC reference: independent long chains, one joblib task each
    # (the seeds above, in method order); their transport problems are then drawn here in that order
    finals = run_tasks(_final_task, [(s, name, chosen[name], ss) for name, ss in zip(METHODS, final_seeds)]
                       + [(s, _HMC_LABEL, None, final_seeds[-1])], n_jobs=n_jobs, backend=backend)
    records, fallbacks = [], {}
    for name, (samp, extra, fallbacks[name]) in zip(METHODS, finals):
        records.append(problems.method(name, samp, extra))
    records.append(problems.method(_HMC_LABEL, *finals[-1][:2]))
    floor = problems.floor()
    batch.solve(n_jobs, backend)
    rows = [_method_row(r, s, exact_weight, direction) for r in records]
    floor_w2 = np.array([p.value for p in floor["groups"]])
    sink = {r["label"]: _sinkhorn_values(r["sinkhorn"]) for r in records}
    sink["noise floor"] = _sinkhorn_values(floor["sinkhorn"])
    rows.append({"method": "noise floor (exact vs exact)", "w2_exact": float(floor_w2.mean()), "w2_exact_se": _se(floor_w2),
                 "w2_groups": s.groups, "emd_subsample": s.emd_subsample, "mode_weight": exact_weight,
                 **_sinkhorn_columns(sink["noise floor"])})
    out = Path(out_dir)
    write_csv(out / "table2.csv", _pad(rows))
    write_csv(out / "table2_tuning.csv", _pad(tuning_rows))
    write_csv(out / "figure1_samples.csv", problems.samples_rows)
    write_csv(out / "figure1_grid.csv", _grid_rows(grid, s.grid_cells))
    write_json(out / "table2.json", {
        "grid": {"cells": s.grid_cells, "lower": list(s.grid_lower), "upper": list(s.grid_upper),
                 "mean": grid.mean.tolist(), "cov": grid.cov.tolist(), "mass_at_boundary": grid.mass_at_boundary,
                 "exact_mode_weight": exact_weight, "mode_direction": direction.tolist()},
        "chosen": {k: (v[0] if v else None) for k, v in chosen.items()}, "ranked_by_tuning_w2": chosen,
        "final_fallbacks": fallbacks, "grids": {k: {kk: list(vv) for kk, vv in v.items()} for k, v in s.grids.items()},
        "selection": "min exact W2 (ot.emd2, subsample) of a tuning run vs an exact reference set",
        "sinkhorn": sink, "sinkhorn_reg": s.sinkhorn_reg, "sinkhorn_subsample": s.sinkhorn_subsample,
        "sinkhorn_method": ("POT sinkhorn_log, warm-started along penalties max(cost)*0.5^k down to reg "
                            f"(eps-scaling), at most {s.sinkhorn_max_iter} iterations in total on cost/max and "
                            f"{s.sinkhorn_raw_max_iter} on the raw cost, stopThr 1e-7"),
        "noise_floor": {"mean": float(floor_w2.mean()), "values": floor_w2.tolist()},
        "printed": PRINTED_TABLE2,
    })
