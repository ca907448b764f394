"""Benchmarks (``make bench``): chain-steps per second, n-independence of the per-step cost, Fig. 1 wall time.

Prints a table; numbers are recorded in docs/benchmarks.md by hand with the machine they came from.
Not a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from paper_repro.ewsg.experiments import make_sampler, run_all
from verify.targets import GaussianMeansTarget, gaussian_means_target

STEP = {"SGLD": 5e-3, "pSGLD": 5e-3, "SGHMC": 5e-2, "EWSG": 5e-2, "SVRG-LD": 5e-4, "FG": 5e-2}


def chain_steps_per_second(method, target, chains=10_000, steps=200, repeats=3):
    """Best-of-``repeats`` chain-steps/s; the step size is the Fig. 1 one scaled by 50/n (stability needs h n = O(1))."""
    best = np.inf
    h = STEP[method] * 50 / target.n
    for r in range(repeats):
        rng = np.random.default_rng(r)
        s = make_sampler(method, target, h, 10.0)
        st = s.init(target.posterior_mean + rng.standard_normal((chains, target.dim)) * 0.1,
                    rng.standard_normal((chains, target.dim)))
        st, _ = s.step(st, rng)
        t0 = time.perf_counter()
        for _ in range(steps):
            st, _ = s.step(st, rng)
        best = min(best, time.perf_counter() - t0)
    return chains * steps / best


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--skip-figure", action="store_true", help="skip the paper-scale Figure 1 wall time")
    a = p.parse_args(argv)
    print(f"# machine: {platform.machine()} {platform.processor() or ''}, python {platform.python_version()}, numpy {np.__version__}")
    t = gaussian_means_target()
    print("\n## chain-steps per second, Gaussian target n = 50, d = 2, 10,000 chains (best of 3 x 200 steps)")
    for m in ("SGLD", "pSGLD", "SGHMC", "EWSG", "SVRG-LD", "FG"):
        print(f"{m:8s} {chain_steps_per_second(m, t):12.3e}")
    print("\n## per-step cost vs n, 10,000 chains, chain-steps/s (step size scaled by 50/n)")
    print("# SG samplers spend b (EWSG: (M+1)b) evaluations per step whatever n is; the wall-time drop at large n")
    print("# is cache misses of the random gather c[idx] from an n x 2 array (16 MB at n = 1e6), not O(n) work.")
    print("# FG's budget is n evaluations per step, but this target's full gradient has a closed form,")
    print("# so its wall time does not show that cost.")
    ns = (10**3, 10**4, 10**5, 10**6)
    print("method   " + " ".join(f"{'n=' + str(n):>11s}" for n in ns))
    targets = {n: GaussianMeansTarget(np.random.default_rng(n).standard_normal((n, 2))) for n in ns}
    for m in ("SGLD", "pSGLD", "SGHMC", "EWSG", "SVRG-LD", "FG"):
        row = []
        for n in ns:
            if m == "FG" and n > 10**4:
                row.append(f"{'(skipped)':>11s}")
                continue
            # SVRG-LD pays a full pass every n steps; over 200 steps at n >= 1e3 it is mostly the 2b-evaluation steps
            row.append(f"{chain_steps_per_second(m, targets[n], steps=100, repeats=2):11.3e}")
        print(f"{m:8s} " + " ".join(row))
    print("\n## Laplacian smoothing A_sigma^-1 v and A_sigma^-1/2 v by FFT (LS-SGLD eq. (2.8)), 10 chains, sigma = 1")
    print("# time per application; O(d log d) means time / (d log2 d) stays roughly flat")
    from analytic.laplacian import apply_inverse, apply_inverse_sqrt
    print(f"{'d':>9s} {'inverse (s)':>12s} {'inv-sqrt (s)':>13s} {'ns / (d log2 d)':>16s}")
    for d in (10**3, 10**4, 10**5, 10**6):
        v = np.random.default_rng(0).standard_normal((10, d))
        reps = max(3, int(2e6 // d))
        t0 = time.perf_counter()
        for _ in range(reps):
            apply_inverse(v, 1.0)
        ti = (time.perf_counter() - t0) / reps
        t0 = time.perf_counter()
        for _ in range(reps):
            apply_inverse_sqrt(v, 1.0)
        ts = (time.perf_counter() - t0) / reps
        print(f"{d:9d} {ti:12.3e} {ts:13.3e} {1e9 * ti / (10 * d * np.log2(d)):16.2f}")
    if not a.skip_figure:
        print("\n## EWSG Figure 1 at paper scale (10,000 realizations, all six panels), n_jobs = 2")
        t0 = time.perf_counter()
        times = run_all("paper", "results/bench_ewsg", n_jobs=2, log=lambda *_: None)
        total = time.perf_counter() - t0
        for k, v in times.items():
            print(f"{k:8s} {v:8.1f} s")
        print(f"total    {total:8.1f} s")


if __name__ == "__main__":
    main()
