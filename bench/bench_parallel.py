"""Benchmark (``make bench``): parallel efficiency of the paper-scale task lists at n_jobs = 1, 2, 4.

The paper-scale LS-SGLD and HSG-HMC studies are lists of independent tasks (one long chain of one
sampler / configuration / block of runs, seeded in a fixed order; :func:`sgmcmc_verify.runner.run_tasks`,
:func:`sgmcmc_verify.runner.run_realizations_many`). This bench runs each list on a reduced paper-like
workload (the paper settings with fewer steps) with n_jobs = 1, 2, 4 and prints, per workload, the
wall time, the speed-up ``T₁/T_n`` and the efficiency ``T₁/(n T_n)``, with the task count and the
longest task (the bound on the speed-up is ``Σ tasks / longest task``). Every task's duration is
measured inside its worker. n_jobs above the machine's free cores only shows oversubscription.

It then extrapolates the paper-scale wall time: each task's work is proportional to its step count
(and the lemma study's to its block count), so paper CPU = bench CPU × (paper work / bench work), and
the wall time on n workers is at least ``max(CPU / n, longest task)`` (divided by the efficiency
measured at n = 2 when n > 2 is extrapolated). Exact W2 of Table 2: one ``ot.emd2`` problem at the
paper's 10⁴ points is timed (``--emd-paper-points``) and multiplied by the problem count.
Prints tables; numbers go to docs/benchmarks.md by hand. Nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import time

import numpy as np

from sgmcmc_verify.paper_repro.hsg_hmc.lemmas import lemma_studies
from sgmcmc_verify.paper_repro.hsg_hmc.settings import LemmaSettings
from sgmcmc_verify.paper_repro.ls_sgld.gaussian2d import _fig1_config, fig1_tasks
from sgmcmc_verify.paper_repro.ls_sgld.mixture import _fig3_block, _table2_sampler_run, fig3_tasks, grid_sample, table2_tasks
from sgmcmc_verify.paper_repro.ls_sgld.settings import Fig1Settings, Fig3Settings, Table2Settings
from sgmcmc_verify.measure.transport import w2_exact
from sgmcmc_verify.runner import block_sizes, run_tasks
from sgmcmc_verify.targets import LSMixtureTarget, mixture_centers


def _timed(fn, args):
    """Run one task; return its duration in seconds (the result is dropped: the bench measures time)."""
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def _block(block_fn, size, seed_seq):
    return block_fn(size, np.random.default_rng(seed_seq))


def _emd(x, y):
    return w2_exact(x, y)


def workloads(emd_points):
    """``{name: (tasks, paper_cpu_factor, paper_longest_factor, note)}`` on reduced paper-like settings."""
    out = {}
    f1p = Fig1Settings.at("paper")
    f1 = dataclasses.replace(f1p, samples=20_000)
    out["ls_sgld.fig1"] = ([(_fig1_config, t) for t in fig1_tasks(f1)], f1p.samples / f1.samples,
                           f1p.samples / f1.samples, f"{len(fig1_tasks(f1))} configurations x {f1.samples} samples")
    f3p = Fig3Settings.at("paper")
    f3 = dataclasses.replace(f3p, samples=4_000)
    out["ls_sgld.fig3"] = ([(_fig3_block, t) for t in fig3_tasks(f3)], f3p.samples / f3.samples,
                           f3p.samples / f3.samples, f"4 x {f3.runs // f3.block_size} blocks of {f3.block_size} runs "
                           f"x {f3.samples} steps")
    t2p = Table2Settings.at("paper")
    t2 = dataclasses.replace(t2p, iters=(10_000, 20_000, 40_000), w2_points=1000)
    out["ls_sgld.table2 chains"] = ([(_table2_sampler_run, t) for t in table2_tasks(t2)],
                                    max(t2p.iters) / max(t2.iters), max(t2p.iters) / max(t2.iters),
                                    f"4 samplers x {t2.chains} chains x {max(t2.iters)} iterations")
    mix = LSMixtureTarget(mixture_centers(500, t2.seed))
    rng = np.random.default_rng(0)
    probs = [(grid_sample(mix, 10.0, 0.04, emd_points, rng), grid_sample(mix, 10.0, 0.04, emd_points, rng))
             for _ in range(16)]
    out["ls_sgld.table2 transport"] = ([(_emd, p) for p in probs], None, None,
                                       f"16 exact W2 problems at {emd_points} points")
    lp = LemmaSettings.at("paper")
    lm = dataclasses.replace(lp, chains=2 * lp.block_size, steps=150)
    tasks = []
    for st in lemma_studies(lm):
        sizes = block_sizes(st.n_realizations, st.block_size)
        tasks += [(_block, (st.block_fn, sz, ch)) for sz, ch in zip(sizes, np.random.SeedSequence(st.seed).spawn(len(sizes)))]
    blocks_paper = len(block_sizes(lp.chains, lp.block_size)) / len(block_sizes(lm.chains, lm.block_size))
    out["hsg_hmc.lemmas"] = (tasks, lp.steps / lm.steps * blocks_paper, lp.steps / lm.steps,
                             f"{len(tasks)} blocks of {lm.block_size} chains x {lm.steps} steps")
    return out


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n-jobs", type=int, nargs="+", default=[1, 2, 4])
    p.add_argument("--emd-points", type=int, default=1000)
    p.add_argument("--emd-paper-points", type=int, default=10_000,
                   help="time one exact W2 problem at this size for the paper-scale estimate (0: skip)")
    a = p.parse_args(argv)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"# machine: {platform.machine()}, {os.cpu_count()} cores, load average {load[0]:.1f} at start, "
          f"python {platform.python_version()}, numpy {np.__version__}")
    wl = workloads(a.emd_points)
    print(f"\n{'workload':<28}{'tasks':>6}{'n_jobs':>7}{'wall s':>9}{'speed-up':>9}{'effic.':>7}"
          f"{'sum tasks s':>12}{'longest s':>10}  ({'bound Σ/longest'})")
    res = {}
    for name, (tasks, *_rest) in wl.items():
        for n in a.n_jobs:
            t0 = time.perf_counter()
            durs = run_tasks(_timed, tasks, n_jobs=n)
            wall = time.perf_counter() - t0
            res[name, n] = (wall, float(np.sum(durs)), float(np.max(durs)))
            w1 = res.get((name, 1), (wall,))[0]
            print(f"{name:<28}{len(tasks):>6}{n:>7}{wall:>9.2f}{w1 / wall:>9.2f}{w1 / (n * wall):>7.2f}"
                  f"{np.sum(durs):>12.2f}{np.max(durs):>10.2f}  ({np.sum(durs) / np.max(durs):.1f})")
    print("\n# workloads: " + "; ".join(f"{k}: {v[3]}" for k, v in wl.items()))
    if a.emd_paper_points <= 0 or 1 not in a.n_jobs:
        return
    # paper-scale estimate
    mix = LSMixtureTarget(mixture_centers(500, Table2Settings().seed))
    rng = np.random.default_rng(1)
    x, y = (grid_sample(mix, 10.0, 0.04, a.emd_paper_points, rng) for _ in range(2))
    t0 = time.perf_counter()
    w2_exact(x, y)
    t_emd = time.perf_counter() - t0
    t2p = Table2Settings.at("paper")
    n_problems = 4 * t2p.chains * len(t2p.iters) * 2 + 2 + 2 * t2p.floor_reps
    # efficiency measured at n = 2 (capped at 1), applied to every n > 1 of the estimate
    eff2 = {k: min(1.0, res[k, 1][0] / (2 * res[k, 2][0])) for k in wl if (k, 2) in res}
    print(f"\n## paper-scale estimate (one exact W2 at {a.emd_paper_points} points: {t_emd:.1f} s; "
          f"Table 2 has {n_problems} such problems)")
    print(f"{'workload':<28}{'CPU s':>10}{'longest s':>10}" + "".join(f"{f'wall n={n}':>12}" for n in (1, 2, 4, 16)))
    total = dict.fromkeys((1, 2, 4, 16), 0.0)
    for name, (_tasks, cpu_f, long_f, _) in wl.items():
        if cpu_f is None:
            cpu, longest = n_problems * t_emd, t_emd
        else:
            cpu, longest = res[name, 1][1] * cpu_f, res[name, 1][2] * long_f
        cells = []
        for n in (1, 2, 4, 16):
            e = 1.0 if n == 1 else eff2.get(name, 1.0)
            wall = max(cpu / (n * e), longest)
            total[n] += wall
            cells.append(f"{wall:>12.0f}")
        print(f"{name:<28}{cpu:>10.0f}{longest:>10.0f}" + "".join(cells))
    print(f"{'total (these workloads)':<48}" + "".join(f"{total[n]:>12.0f}" for n in (1, 2, 4, 16)))


if __name__ == "__main__":
    main()
