"""Reduced default-scale workloads of the experiments changed for #26's load balance, for before / after timing.

Each runs the experiment's own ``run_*`` function with its default settings, reduced as below, into ``OUT``; run it
with two checkouts' interpreters, interleaved, and compare the wall times and (``bench/compare_results.py``) the
outputs. ``--idle`` also prints the :class:`sgmcmc_verify.runner.record_tasks` summary (workers idle inside the
parallel sections, and over the whole run counting the parent's work outside them as one busy worker).

* ``bnn``: ``hsg_hmc.bnn`` with 300 training / 200 test images, 0.05 passes, two step sizes per grid (24 tuning
  runs, 12 final runs);
* ``mlp``: ``vrsg.mlp`` at its smoke settings with the default 2 tuning chains, 4 final chains, 1 pass,
  n1 in {100, 200, 500, 1000};
* ``table2``: ``ls_sgld.table2`` with the default references (grid spacing 0.04, 300 MALA steps, 1,500 points),
  300 transport points, iterations (5,000, 10,000), window 2,000.

Usage::

    python bench/reduced_workloads.py bnn|mlp|table2 OUT N_JOBS [--idle]
"""
from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path


def workload(name):
    """``(run function, settings)`` of the reduced workload ``name``."""
    if name == "bnn":
        from sgmcmc_verify.paper_repro.hsg_hmc.bnn import run_bnn as run
        from sgmcmc_verify.paper_repro.hsg_hmc.settings import BNNSettings
        s = BNNSettings().at("default")
        grids = {k: {kk: (vv[:2] if kk == "step_size" else vv[:1]) for kk, vv in v.items()} for k, v in s.grids.items()}
        return run, dataclasses.replace(s, max_train=300, test_size=200, passes=0.05, checkpoint_every=0.025,
                                        thin=0.0125, grids=grids)
    if name == "table2":
        from sgmcmc_verify.paper_repro.ls_sgld.mixture import run_table2 as run
        from sgmcmc_verify.paper_repro.ls_sgld.settings import Table2Settings
        return run, dataclasses.replace(Table2Settings().at("default"), iters=(5000, 10000), window=2000, w2_points=300)
    if name == "mlp":
        from sgmcmc_verify.paper_repro.vrsg.mlp import run_mlp as run
        from sgmcmc_verify.paper_repro.vrsg.settings import MLPSettings
        return run, dataclasses.replace(MLPSettings().at("smoke"), tune_chains=2, chains=4, passes=1.0,
                                        n1_values=(100, 200, 500, 1000))
    raise ValueError(f"workload must be 'bnn', 'mlp' or 'table2', got {name!r}")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    name, out, n_jobs, idle = argv[0], Path(argv[1]), int(argv[2]), "--idle" in argv
    run, s = workload(name)
    out.mkdir(parents=True, exist_ok=True)
    from sgmcmc_verify.runner import record_tasks
    with record_tasks() as log:
        t0 = time.perf_counter()
        run(s, out, n_jobs=n_jobs)
        wall = time.perf_counter() - t0
    res = {"workload": name, "n_jobs": n_jobs, "wall_s": wall}
    if idle:
        sm = log.summary()
        res.update(sm, whole_run_idle=1 - (sm["busy_s"] + (wall - sm["span_s"])) / (2 * wall))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
