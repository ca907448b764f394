"""The LS-SGLD experiments, registered for the CLI, the cache and the claims ledger.

Each experiment reads only the settings fields listed here, so that changing, say, the Fig. 4
settings does not invalidate the stored Theorem 3.3 results.
"""
from __future__ import annotations

import functools

from verify.datasets import data_identity
from verify.experiments import Experiment, register_experiment

from . import experiments as X
from .settings import get_settings

_FIELDS = {
    "table1": (),
    "thm33": ("seed", "thm_n", "thm_dim", "thm_sigmas", "thm_steps", "thm_grid_points", "thm_small_steps",
              "thm_dims_gamma"),
    "prop21": ("seed", "thm_n", "thm_dim", "thm_sigmas", "prop_sympy_dim", "prop_steps"),
    "table3": ("seed", "t3_dataset", "t3_path_steps", "t3_every", "t3_step", "t3_batches", "t3_sigmas", "t3_reps",
               "f4_lam", "f4_theta", "f4_test_fraction"),
    "fig1": ("seed", "f1_samples", "f1_base_step", "f1_factors", "f1_sigma", "f1_rho", "f1_runs", "f1_first"),
    "table2": ("seed", "t2_iters", "t2_window", "t2_step", "t2_sigma", "t2_batch", "t2_chains", "t2_w2_points",
               "t2_mh_step", "t2_mh_steps", "t2_floor_reps", "f3_grid_half_width", "f3_grid_spacing"),
    "fig3": ("seed", "f3_samples", "f3_step", "f3_sigma", "f3_runs", "f3_grid_half_width", "f3_grid_spacing"),
    "fig4": ("seed", "f4_dataset", "f4_iters", "f4_burn_in", "f4_every", "f4_batch", "f4_sigma", "f4_steps",
             "f4_chains", "f4_lam", "f4_theta", "f4_test_fraction"),
}


def _settings(name, scale):
    d = get_settings(scale).as_dict()
    out = {k: d[k] for k in _FIELDS[name]}
    ds = {"table3": d["t3_dataset"], "fig4": d["f4_dataset"]}.get(name)
    if ds is not None:
        ds = X.blr_dataset(ds)
    if ds is not None:  # the data file enters the cache key (path, size, SHA-256 for user-given LIBSVM files)
        out["data"] = [data_identity(x) for x in ((ds, ds + ".t") if ds == "a3a" else (ds,))]
    return out


_SPEC = {
    "table1": ("Table 1: printed cells vs gamma2 (Theorem 3.3) and d^-1 sum lambda^-2", ("table1.csv", "table1.json"),
               X.run_table1),
    "thm33": ("Theorem 3.3 structure: exact W2 of SGLD vs LS-SGLD, discretization and ergodicity parts, crossover",
              ("thm33.csv", "thm33_gamma.csv", "thm33.json"), X.run_theorem33),
    "prop21": ("Proposition 2.1: Fokker-Planck residual (sympy) and small-step invariant law of LS-GLD",
               ("prop21.json",), X.run_prop21),
    "table3": ("Table 3: max variance of the Laplacian-smoothed stochastic gradient along a full-batch path (BLR)",
               ("table3.csv",), X.run_table3),
    "fig1": ("Fig. 1: 2-D Gaussian, covariance error vs autocorrelation time, SGLD/pSGLD/LS-SGLD/LS-pSGLD",
             ("fig1.csv", "fig1_samples.csv"), X.run_fig1),
    "table2": ("Table 2 / Fig. 2: W2 of the last 1e4 samples to exact-grid and MH references, Gaussian mixture",
               ("table2.csv", "table2_floors.csv", "fig2_samples.csv"), X.run_table2),
    "fig3": ("Fig. 3: MSE of the mean from N samples, LD vs LS-LD (Gaussian (4.3) and the 4.1.2 mixture)",
             ("fig3.csv", "fig3.json"), X.run_fig3),
    "fig4": ("Fig. 4: BLR NLL / accuracy vs iterations, SGLD/pSGLD/LS-SGLD/LS-pSGLD", ("fig4.csv",), X.run_fig4),
}

EXPERIMENTS = [
    Experiment(f"ls_sgld.{k}", "ls_sgld", desc, "paper_repro.ls_sgld.experiments", outs,
               functools.partial(_settings, k), fn)
    for k, (desc, outs, fn) in _SPEC.items()
]

register_experiment(*EXPERIMENTS)
