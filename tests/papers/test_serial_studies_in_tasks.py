"""Two studies that ran serially in the parent now run one joblib task per cell (#26): EWSG Theorem 4.2's
(law, reading, n, h) cells and HSG-HMC Table 1's exact trajectories. Their rows do not depend on ``n_jobs`` and come
back in the serial loops' order."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np

from sgmcmc_verify.analytic.hsg_quadratic import random_quadratic_sum
from sgmcmc_verify.paper_repro.ewsg.settings import Theorem42Settings
from sgmcmc_verify.paper_repro.ewsg.theory import theorem42
from sgmcmc_verify.paper_repro.hsg_hmc import complexity as C
from sgmcmc_verify.paper_repro.hsg_hmc.settings import ComplexitySettings


def _same(a, b):
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)   # NaN and inf compare as text


def test_theorem42_cells_in_tasks_give_the_serial_rows_in_order():
    cfg = replace(Theorem42Settings.at("smoke"), sizes=(10, 20), steps=(1e-4, 1e-3), data_sets=300, metropolis_sets=30)
    one, two = theorem42(cfg, n_jobs=1), theorem42(cfg, n_jobs=2)
    assert _same(one, two)
    keys = [(r["law"], r["reading"], r["n"], r["step_size"], r["y_1"]) for r in one]
    loops = [(law, rd, n, h, y[0]) for law in cfg.laws for rd in cfg.readings if law != "section51" or rd == "theorem"
             for n in cfg.sizes for h in cfg.steps for y in cfg.y_values]
    assert keys == loops
    # control: the comparison sees a cell computed on another draw of the data sets
    other = theorem42(replace(cfg, seed=cfg.seed + 1), n_jobs=1)
    assert not _same(one, other)


def test_complexity_trajectories_in_tasks_do_not_depend_on_n_jobs():
    s = ComplexitySettings.at("smoke")
    q = random_quadratic_sum(n=s.n_data, dim=s.dim, seed=s.hessian_seed, wishart_dof=s.wishart_dof)
    eps = np.asarray(s.epsilons, float)
    one, two = C._best_rows(s, q, eps, n_jobs=1), C._best_rows(s, q, eps, n_jobs=2)
    assert _same(one, two)
    rows, labels, grid = one
    assert [(g["method"], g["step_size"]) for g in grid[::len(eps)]] == [
        (label, float(h)) for label, method, _ in C._configs(s) for h in C._steps(s, method)]
    # control: the comparison sees trajectories of another target (another draw of the Hessians)
    q2 = random_quadratic_sum(n=s.n_data, dim=s.dim, seed=s.hessian_seed + 1, wishart_dof=s.wishart_dof)
    assert not _same(one, C._best_rows(s, q2, eps, n_jobs=1))


def test_vrsg_noise_monte_carlo_cells_in_tasks_do_not_depend_on_n_jobs():
    from sgmcmc_verify.paper_repro.vrsg import theory as T
    from sgmcmc_verify.paper_repro.vrsg.settings import IdentitiesSettings

    cfg = replace(IdentitiesSettings.at("smoke"), mc_batch_sizes=(1, 10, 500), mc_draws=3_000, mc_block=1_000)
    one, two = T._mc_noise(cfg, n_jobs=1), T._mc_noise(cfg, n_jobs=2)
    assert _same(one, two)
    assert [(r["n"], r["scheme"]) for r in one] == [(n, s) for n in (1, 10, 500) for s in ("without", "with")]
    assert not _same(one, T._mc_noise(replace(cfg, seed=cfg.seed + 1)))   # control: another draw is seen
