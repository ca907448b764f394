"""The HSG-HMC experiments, registered for the CLI, the cache and the claims ledger.

Each experiment reads only the settings fields listed here.
"""
from __future__ import annotations

import functools

from verify.experiments import Experiment, register_experiment

from verify.datasets import data_identity, user_data_names

from . import blr as BLR
from . import complexity as CX
from . import experiments as X
from .settings import get_blr_settings, get_complexity_settings, get_settings

_TARGET = ("n_data", "dim", "mixture_seed", "seed")
_FIELDS = {
    "lemmas": _TARGET + ("lemma_chains", "lemma_block_size", "lemma_steps", "lemma_step_sizes", "lemma_schedules",
                         "lemma_slope_window"),
    "table2": _TARGET + ("grid_cells", "grid_lower", "grid_upper", "t2_chains", "t2_groups", "t2_iterations",
                         "t2_tune_iterations", "t2_grids", "t2_emd_subsample", "t2_sinkhorn_subsample",
                         "t2_sinkhorn_reg", "t2_sinkhorn_max_iter", "t2_sinkhorn_raw_max_iter", "t2_hmc_chains", "t2_hmc_iterations",
                         "t2_hmc_step_size", "t2_hmc_leapfrog"),
}


def _settings(name, scale):
    d = get_settings(scale).as_dict()
    return {k: d[k] for k in _FIELDS[name]}


def _blr_settings(scale):
    """The BLR settings plus the identity of every data set it will read (user LIBSVM files by hash)."""
    s = get_blr_settings(scale)
    names = BLR.data_names(s)
    test_files = [n + ".t" for n in names if n + ".t" in user_data_names()]
    return {**s.as_dict(), "data": [data_identity(n) for n in names + test_files]}


EXPERIMENTS = [
    Experiment("hsg_hmc.lemmas", "hsg_hmc",
               "Lemmas 2-3: E||g^(k) - grad f(x^(k))||^2 along HSG-HMC runs for rho_k = 1/k, periodic reset, 0, 1",
               "paper_repro.hsg_hmc.experiments", ("lemma.csv", "lemma.json"),
               functools.partial(_settings, "lemmas"), X.run_lemmas),
    Experiment("hsg_hmc.table2", "hsg_hmc",
               "Gaussian mixture (Table 2, Fig. 1): six methods, grid search, exact/Sinkhorn W2, noise floor",
               "paper_repro.hsg_hmc.experiments",
               ("table2.csv", "table2_tuning.csv", "table2.json", "figure1_samples.csv", "figure1_grid.csv"),
               functools.partial(_settings, "table2"), X.run_table2),
    Experiment("hsg_hmc.blr", "hsg_hmc",
               "Bayesian logistic regression (Fig. 2): test NLL vs data passes, six methods, built-in data sets",
               "paper_repro.hsg_hmc.blr", ("blr.csv", "blr.json"),
               _blr_settings, BLR.run_blr),
    Experiment("hsg_hmc.complexity", "hsg_hmc",
               "Table 1 / Corollaries 1-2: gradients to reach W2 <= eps on a quadratic target, exact moments",
               "paper_repro.hsg_hmc.complexity", ("complexity.csv", "complexity.json"),
               lambda scale: get_complexity_settings(scale).as_dict(), CX.run_complexity),
]

register_experiment(*EXPERIMENTS)
