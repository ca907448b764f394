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


def _toolkit_rate(method, target, b, chains, steps, seed):
    """Chain-steps/s of the toolkit's SGLD / SGHMC (uniform minibatch of size ``b``) over ``steps`` steps."""
    from verify.estimators import UniformMinibatch
    from verify.integrators import OverdampedEM, UnderdampedEM
    rng = np.random.default_rng(seed)
    est = UniformMinibatch(b)
    if method == "SGLD":
        s = OverdampedEM(target, 5e-3, est)
    else:
        s = UnderdampedEM(target, 5e-2, 10.0, est)
    st = s.init(target.posterior_mean + rng.standard_normal((chains, target.dim)) * 0.1,
                rng.standard_normal((chains, target.dim)))
    t0 = time.perf_counter()
    for _ in range(steps):
        st, _ = s.step(st, rng)
    return chains * steps / (time.perf_counter() - t0)


def _minimal_rate(method, target, b, chains, steps, seed):
    """Chain-steps/s of a minimal hand-vectorized NumPy loop doing the same arithmetic (no validation, no state)."""
    rng = np.random.default_rng(seed)
    c, n = target.centers, target.n
    x = target.posterior_mean + rng.standard_normal((chains, target.dim)) * 0.1
    v = rng.standard_normal((chains, target.dim))
    h = 5e-3 if method == "SGLD" else 5e-2
    t0 = time.perf_counter()
    for _ in range(steps):
        idx = rng.integers(0, n, size=(chains, b))
        g = (n / b) * (x[:, None, :] - c[idx]).sum(axis=1)  # this target's prior gradient is 0
        if method == "SGLD":
            x = x - h * g + np.sqrt(2 * h) * rng.standard_normal(x.shape)
        else:
            x, v = x + h * v, v - h * (g + 10.0 * v) + np.sqrt(2 * 10.0 * h) * rng.standard_normal(v.shape)
    return chains * steps / (time.perf_counter() - t0)


RATIO_WORKLOADS = (("SGLD", 1, 10_000), ("SGHMC", 1, 10_000), ("SGLD", 10, 10_000), ("SGHMC", 10, 10_000),
                   ("SGLD", 1, 1))


def ratio_table(steps=1500, repeats=5, workloads=RATIO_WORKLOADS):
    """Toolkit vs the minimal NumPy loop, measured interleaved in the same run: median chain-steps/s of each and
    the median of the per-repeat ratios (the number that means the same on any machine).

    Parameters
    ----------
    steps : int
        Steps per timed run (> 0).
    repeats : int
        Interleaved toolkit / minimal pairs per workload (> 0).
    workloads : sequence of (method, batch size, chains)

    Returns
    -------
    list of tuple
        ``(method, b, chains, toolkit rate, minimal rate, median ratio)``.
    """
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps!r}")
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats!r}")
    t = gaussian_means_target()
    rows = []
    for method, b, chains in workloads:
        k = max(1, steps if chains > 1 else 10 * steps)
        tk, mn = [], []
        for r in range(repeats):
            tk.append(_toolkit_rate(method, t, b, chains, k, r))
            mn.append(_minimal_rate(method, t, b, chains, k, r))
        ratio = float(np.median(np.array(tk) / np.array(mn)))
        rows.append((method, b, chains, float(np.median(tk)), float(np.median(mn)), ratio))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--skip-figure", action="store_true", help="skip the paper-scale Figure 1 wall time")
    a = p.parse_args(argv)
    print(f"# machine: {platform.machine()} {platform.processor() or ''}, python {platform.python_version()}, numpy {np.__version__}")
    print("\n## toolkit / minimal NumPy loop, same run (interleaved; medians of 5 x 1,500 steps, one chain 15,000)")
    print(f"{'method':8s} {'b':>3s} {'chains':>7s} {'toolkit':>11s} {'minimal':>11s} {'ratio':>6s}")
    for m, b, ch, rt, rm, q in ratio_table():
        print(f"{m:8s} {b:3d} {ch:7d} {rt:11.3e} {rm:11.3e} {q:6.2f}")
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
