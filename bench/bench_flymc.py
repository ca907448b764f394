"""Benchmark (``make bench``): per-data-pass cost of SGLD, pSGLD, SGHMC, EWSG and FlyMC on the logistic target.

EWSG §5.2's Table 1 setting (b = 50, γ = 50, the paper's step sizes, M = 1; FlyMC: JJ bound at the MAP, 50
brightness variables resampled per iteration, random-walk θ-step, started at the MAP) on the Caravan
stand-in (n_train = 4658, d = 86) with 100 chains: wall seconds per data pass (best of 3), iterations per
pass and per-datum evaluations per iteration. Then FlyMC's seconds per pass against n on synthetic logistic
data (d = 10), where its per-iteration bookkeeping over the (chains, n) brightness array shows up. Prints a
table; nothing here asserts a time.
"""
from __future__ import annotations

import platform
import time

import numpy as np

from sgmcmc_verify.paper_repro.ewsg.real_blr import TABLE1_METHODS, map_point, table1_data, table1_sampler
from sgmcmc_verify.paper_repro.ewsg.settings import Table1Settings
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.targets.logistic import GaussianPrior, LogisticRegressionTarget


def per_pass(method, target, cfg, theta_map, chains=100, repeats=3):
    """``(best seconds for one pass, iterations, evaluations per iteration)``."""
    best, steps = np.inf, 0
    for r in range(repeats):
        s = table1_sampler(method, target, cfg, theta_map)
        x0 = np.repeat(theta_map[None], chains, 0) if method == "FlyMC" else np.zeros((chains, target.dim))
        t0 = time.perf_counter()
        out = run_chains(s, s.init(x0), np.random.default_rng(r), checkpoints=[1.0], unit="passes")
        best = min(best, time.perf_counter() - t0)
        steps = int(out["steps"][-1])
    return best, steps, out["evaluations"] / max(steps, 1)


def main():
    print(f"# machine: {platform.machine()} {platform.processor() or ''}, python {platform.python_version()}, "
          f"numpy {np.__version__}")
    cfg = Table1Settings.at("default")
    target, _, source = table1_data(cfg)
    theta_map, _ = map_point(target)
    print(f"\n## one data pass, 100 chains, {source} (n_train = {target.n}, d = {target.dim})")
    print(f"{'method':>7s} {'s/pass':>9s} {'iterations':>10s} {'evals/iter':>10s}")
    for m in TABLE1_METHODS:
        t, k, e = per_pass(m, target, cfg, theta_map)
        print(f"{m:>7s} {t:9.4f} {k:10d} {e:10.1f}")
    print("\n## FlyMC seconds per pass vs n (synthetic logistic data, d = 10, 100 chains, best of 2)")
    rng = np.random.default_rng(0)
    for n in (1_000, 10_000, 100_000):
        X = np.column_stack([np.ones(n), rng.standard_normal((n, 9))])
        y = (rng.random(n) < 1 / (1 + np.exp(-X @ np.linspace(-1, 1, 10)))).astype(float)
        tg = LogisticRegressionTarget(X, y, GaussianPrior(cfg.prior_precision))
        th, _ = map_point(tg)
        t, k, e = per_pass("FlyMC", tg, cfg, th, repeats=2)
        print(f"n = {n:>7d}  {t:9.4f} s/pass  {k:6d} iterations  {t / k * 1e3:7.3f} ms/iteration")


if __name__ == "__main__":
    main()
