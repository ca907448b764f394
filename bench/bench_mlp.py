"""Benchmark (``make bench``): the Bayesian MLP's per-datum gradient cost per data pass, and the step cost vs N.

The MLP of vrSG-MCMC §5 (784 inputs, 100 sigmoid units, 10 classes: d = 79,510) on MNIST-shaped
data. Printed:

* seconds per data pass of per-datum gradients, i.e. ``N / b`` minibatch sums of ``b`` per-datum
  gradients (``data_gradient_sum``, matrix products) for b = 1, 10, 100, 1000, and for b = 10 the
  per-datum array path (``data_gradients``, outer products) — what a pass costs each estimator;
* one full gradient (``full_gradient``, chunked) per data pass;
* seconds per step of SGLD (b = 10), vrSG-MCMC (n1 = 100, n2 = 10, m = 10) and SVRG-LD (b = 10, one
  snapshot per N/b steps, the snapshot included) for N = 4,000 and 60,000 (random pixels): a
  stochastic step's cost does not grow with N;
* the achieved GFLOP/s of those gradient passes (the matrix products' flops, :func:`mlp_flops_per_datum`) against
  the machine's measured NumPy dgemm rate on one thread (:func:`dgemm_rate`: square products and the MLP's own
  shapes), the fraction of the BLAS peak the target reaches (#26 item 4);
* seconds per data pass of each method of EWSG §5.3 (SGLD, pSGLD, SGHMC, CP-SGHMC, EWSG with M = 1; b = 100)
  on N = 4,000, and CP-SGHMC's one-off k-means preprocessing (10 clusters).

One chain, one BLAS thread (as the experiments run); best of ``repeats``. Not a test: nothing here
asserts a time.
"""
from __future__ import annotations

import argparse
import platform
import time

import numpy as np
from threadpoolctl import threadpool_limits

from sgmcmc_verify import samplers
from sgmcmc_verify.estimators import SVRGControlVariate, UniformMinibatch
from sgmcmc_verify.integrators import OverdampedEM
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.targets import MLPClassifierTarget


def _target(n, seed=0):
    rng = np.random.default_rng(seed)
    return MLPClassifierTarget(rng.random((n, 784)), rng.integers(0, 10, n), hidden=100, n_classes=10)


def _best(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def seconds_per_pass(t, b, per_datum=False, calls=50, repeats=3):
    """Wall seconds for N per-datum gradients as N/b minibatch sums (extrapolated from ``calls`` calls)."""
    rng = np.random.default_rng(1)
    theta = t.initial_position(rng, 1)
    idx = [rng.integers(0, t.n, (1, b)) for _ in range(calls)]
    f = (lambda i: t.data_gradients(theta, i).sum(axis=1)) if per_datum else (lambda i: t.data_gradient_sum(theta, i))
    sec = _best(lambda: [f(i) for i in idx], repeats)
    return sec / calls * (t.n / b)


def mlp_flops_per_datum(t) -> int:
    """Float64 flops of the matrix products of one per-datum gradient of the MLP (forward and backward).

    Forward ``X W1`` (2·n_in·H), ``h W2`` (2·H·K); backward ``dz W2ᵀ`` (2·K·H), ``Xᵀ da`` (2·n_in·H),
    ``hᵀ dz`` (2·H·K): ``4·n_in·H + 6·H·K`` per datum (the elementwise sigmoid / softmax work is not counted).
    """
    H, K = t.shapes["W2"]
    return 4 * t.n_inputs * H + 6 * H * K


def dgemm_rate(shapes=((1000, 1000, 1000), (100, 784, 100), (1000, 784, 100), (784, 1000, 100)), repeats=5):
    """GFLOP/s of ``np.matmul`` on float64 ``(m × k) @ (k × n)`` for each shape, best of ``repeats``; the BLAS yardstick."""
    rng = np.random.default_rng(0)
    out = {}
    for m, k, n in shapes:
        a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
        reps = max(1, int(2e8 // (2 * m * k * n)))
        sec = _best(lambda a=a, b=b, reps=reps: [np.matmul(a, b) for _ in range(reps)], repeats) / reps
        out[(m, k, n)] = 2 * m * k * n / sec / 1e9
    return out


def seconds_per_step(t, method, steps=400, repeats=3):
    h = 0.25 / t.n
    smp = {"SGLD": lambda: samplers.sgld(t, h, estimator=UniformMinibatch(10, replace=False)),
           "vrSG-MCMC": lambda: samplers.vrsg_ld(t, h, 100, 10, 10),
           "SVRG-LD": lambda: OverdampedEM(t, h, SVRGControlVariate(UniformMinibatch(10, replace=False)),
                                           name="SVRG-LD")}[method]()
    rng = np.random.default_rng(2)
    st = smp.init(t.initial_position(rng, 1))
    n_steps = max(steps, t.n // 10) if method == "SVRG-LD" else steps  # one whole SVRG epoch, snapshot included
    return _best(lambda: run_chains(smp, st, rng, steps=n_steps), repeats) / n_steps


BNN_METHODS = ("SGLD", "pSGLD", "SGHMC", "CP-SGHMC", "EWSG")


def seconds_per_pass_method(t, method, labels, passes=2.0, repeats=3):
    """Wall seconds per data pass of one EWSG §5.3 method (b = 100), one chain, no recording."""
    from sgmcmc_verify.estimators import ClusteredMinibatch, EWSGIndexChain
    from sgmcmc_verify.integrators import UnderdampedEM

    smp = {"SGLD": lambda: samplers.sgld(t, 1e-7, 100), "pSGLD": lambda: samplers.psgld(t, 1e-4, 100),
           "SGHMC": lambda: samplers.sghmc(t, 2e-3, 0.1, 100),
           "CP-SGHMC": lambda: UnderdampedEM(t, 2e-3, 0.1, ClusteredMinibatch(labels, 100), name="CP-SGHMC"),
           "EWSG": lambda: UnderdampedEM(t, 4e-3, 0.1, EWSGIndexChain(1, 100), name="EWSG")}[method]()
    rng = np.random.default_rng(3)
    st = smp.init(t.initial_position(rng, 1))
    return _best(lambda: run_chains(smp, st, rng, checkpoints=[passes], unit="passes"), repeats) / passes


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args(argv)
    print(f"# machine: {platform.machine()} {platform.processor() or ''}, python {platform.python_version()}, "
          f"numpy {np.__version__}; one chain, one BLAS thread")
    with threadpool_limits(1):
        t = _target(4_000)
        print(f"\n## Bayesian MLP (d = {t.dim}), N = {t.n}: seconds per data pass of per-datum gradients")
        for b in (1, 10, 100, 1000):
            print(f"data_gradient_sum  b = {b:5d}   {seconds_per_pass(t, b, repeats=a.repeats):8.3f} s / pass")
        print(f"data_gradients     b =    10   {seconds_per_pass(t, 10, True, repeats=a.repeats):8.3f} s / pass "
              "(per-datum (b, d) array, then summed)")
        full = _best(lambda: t.full_gradient(t.initial_position(np.random.default_rng(0), 1)), a.repeats)
        print(f"full_gradient               {full:8.3f} s / pass")
        fl = mlp_flops_per_datum(t) * t.n
        rates = dgemm_rate(repeats=a.repeats)
        peak = max(rates.values())
        print(f"\n## achieved GFLOP/s of the MLP's gradient passes ({mlp_flops_per_datum(t):,} flops per datum) vs NumPy dgemm,")
        print("## one BLAS thread: " + ", ".join(f"{m}x{k}x{n} {r:.2f}" for (m, k, n), r in rates.items())
              + f" GFLOP/s (best {peak:.2f})")
        for b in (1, 10, 100, 1000):
            sec = seconds_per_pass(t, b, repeats=a.repeats)
            print(f"data_gradient_sum  b = {b:5d}   {fl / sec / 1e9:7.2f} GFLOP/s   {fl / sec / 1e9 / peak:5.2f} of dgemm")
        print(f"full_gradient               {fl / full / 1e9:7.2f} GFLOP/s   {fl / full / 1e9 / peak:5.2f} of dgemm")
        print("\n## seconds per step vs N (SVRG-LD averaged over one epoch of N/10 steps, its snapshot included)")
        print("method       " + " ".join(f"{'N=' + str(n):>12s}" for n in (4_000, 60_000)))
        targets = {n: _target(n) for n in (4_000, 60_000)}
        for m in ("SGLD", "vrSG-MCMC", "SVRG-LD"):
            print(f"{m:12s} " + " ".join(f"{seconds_per_step(targets[n], m, repeats=a.repeats):12.2e}"
                                         for n in (4_000, 60_000)))
        from sgmcmc_verify.estimators import kmeans_clusters
        t0 = time.perf_counter()
        labels = kmeans_clusters(t.X, 10, seed=0)
        print(f"\n## EWSG §5.3 methods on the MLP, N = {t.n}, b = 100: seconds per data pass "
              f"(CP-SGHMC's k-means, 10 clusters, once: {time.perf_counter() - t0:.2f} s)")
        for m in BNN_METHODS:
            print(f"{m:12s} {seconds_per_pass_method(t, m, labels, repeats=a.repeats):8.3f} s / pass")


if __name__ == "__main__":
    main()
