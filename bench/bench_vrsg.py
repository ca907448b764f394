"""Benchmark (``make bench``): chain-steps per second of vrSG-LD vs SGLD at equal current minibatch, and vs N.

vrSG-MCMC (seed ``002_245183f35db8d795.txt``, Algorithm 1) on SGLD with ``n1 = 100, m = 10`` (§5's values) and
current minibatch ``n2 = n``, against SGLD with minibatch n; both sampling schemes; the §5 Gaussian-mean model
(d = 1) and Pima logistic regression (d = 8). Then the per-step cost of vrSG-LD vs N (it must not grow like N:
2 n2 evaluations per step plus n1 per refresh). Prints a table; nothing here asserts a time.
"""
from __future__ import annotations

import platform
import time
import warnings

import numpy as np

from sgmcmc_verify.paper_repro.vrsg.theory import pima_target
from sgmcmc_verify import samplers
from sgmcmc_verify.estimators import UniformMinibatch
from sgmcmc_verify.targets import vrsg_gaussian_target


def chain_steps_per_second(sampler, dim, chains, steps=200, repeats=3):
    """Best-of-``repeats`` chain-steps/s (one warm-up step first)."""
    best = np.inf
    for r in range(repeats):
        rng = np.random.default_rng(r)
        st = sampler.init(0.01 * rng.standard_normal((chains, dim)))
        st, _ = sampler.step(st, rng)
        t0 = time.perf_counter()
        for _ in range(steps):
            st, _ = sampler.step(st, rng)
        best = min(best, time.perf_counter() - t0)
    return chains * steps / best


def _pair(target, h, n, replace):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # n1 = 100 <= n2 = 100: the bench measures speed only
        vr = samplers.vrsg_ld(target, h, 100, n, 10, replace=replace)
    return samplers.sgld(target, h, estimator=UniformMinibatch(n, replace)), vr


def main():
    print(f"# machine: {platform.machine()} {platform.processor() or ''}, python {platform.python_version()}, "
          f"numpy {np.__version__}")
    for label, target, h, chains in (("Gaussian-mean model (section 5), N = 1000, d = 1", vrsg_gaussian_target(), 1e-4, 10_000),
                                     ("Pima logistic regression, N = 532, d = 8", pima_target(), 1e-4, 1_000)):
        print(f"\n## {label}, {chains} chains: chain-steps per second (best of 3 x 200 steps)")
        print(f"{'n':>5s} {'scheme':>8s} {'SGLD':>11s} {'vrSG-LD':>11s} {'ratio':>6s}  evaluations/step SGLD vs vrSG-LD")
        for n in (1, 10, 100):
            for replace in (False, True):
                sg, vr = _pair(target, h, n, replace)
                a, b = (chain_steps_per_second(s, target.dim, chains) for s in (sg, vr))
                print(f"{n:5d} {'with' if replace else 'without':>8s} {a:11.3e} {b:11.3e} {a / b:6.2f}  {n} vs {2 * n + 10}")
    print("\n## vrSG-LD (n1 = 100, n2 = 10, m = 10, without replacement) vs N, 10,000 chains: chain-steps per second")
    for N in (10**3, 10**4, 10**5, 10**6):
        t = vrsg_gaussian_target(N)
        s = samplers.vrsg_ld(t, 1e-4 * 1000 / N, 100, 10, 10)
        print(f"N = {N:>8d}  {chain_steps_per_second(s, 1, 10_000, steps=100, repeats=2):11.3e}")


if __name__ == "__main__":
    main()
