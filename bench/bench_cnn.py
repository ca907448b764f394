"""Benchmark (``make bench``): the Bayesian CNN's per-pass gradient cost and its achieved GEMM rate.

The CNN of EWSG §5.3 (:data:`sgmcmc_verify.targets.cnn.EWSG_CNN`: 5×5 convolutions of 32 and 64 channels,
2×2 max pooling, dense 200-200, 10 classes; d = 299,306) and the reduced widths the experiments run on two
cores, on MNIST-shaped data (28 × 28 random pixels). Printed per architecture:

* seconds per data pass of minibatch gradient sums (``data_gradient_sum``, b = 100): ``N / b`` calls, each one
  forward and one backward pass of ``b`` images — what a pass costs every SG-MCMC method of §5.3, extrapolated
  to N = 60,000 (MNIST) from ``calls`` calls;
* the multiply-adds of those passes counted layer by layer (forward: ``2·Ho·Wo·k²·C_in·C_out`` per
  convolution, ``2·D_in·D_out`` per dense layer; backward: the kernel and the input products, twice the forward
  except the first layer's input product) and the achieved GFLOP/s, against the machine's float64 GEMM rate
  measured in the same run (``numpy.matmul`` of two 1024 × 1024 matrices, one thread);
* for b = 10 the per-datum path (``data_gradients``), which the exact-variance studies use;
* a test-set evaluation as the experiments' observers make it (``log_proba`` of 500 fixed images for 3 chains: a
  forward pass without a tape, the first convolution's patches built once for the chains), in seconds per
  evaluation and GFLOP/s of its forward multiply-adds.

One chain, one BLAS thread (as the experiments run); best of ``repeats``. Not a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import platform
import time

import numpy as np
from threadpoolctl import threadpool_limits

from sgmcmc_verify.targets.cnn import EWSG_CNN, CNNClassifierTarget

REDUCED = dict(conv_channels=(8, 16), kernel=5, pool=2, dense=(64,), prior_precision=1.0)


def _best(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def flops_per_datum(t: CNNClassifierTarget, backward: bool = True) -> float:
    """Floating-point operations of one forward + backward pass (``backward=False``: forward only) for one image
    (multiply-add = 2)."""
    H, W, cin = t.image_shape
    k, fwd, bwd, first = t.kernel, 0.0, 0.0, True
    for cout in t.conv_channels:
        Ho, Wo = H - k + 1, W - k + 1
        f = 2.0 * Ho * Wo * k * k * cin * cout
        fwd, bwd = fwd + f, bwd + (f if first else 2 * f)
        H, W, cin, first = Ho // t.pool, Wo // t.pool, cout, False
    din = H * W * cin
    for dout in t.dense + (t.n_classes,):
        f = 2.0 * din * dout
        fwd, bwd = fwd + f, bwd + 2 * f
        din = dout
    return fwd + bwd if backward else fwd


def dgemm_gflops(size=1024, repeats=3):
    a = np.random.default_rng(0).random((size, size))
    b = np.random.default_rng(1).random((size, size))
    return 2.0 * size ** 3 / _best(lambda: a @ b, repeats) / 1e9


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    N = 60_000
    with threadpool_limits(1):
        peak = dgemm_gflops(repeats=args.repeats)
        print(f"# Bayesian CNN, one chain, one BLAS thread; {platform.processor() or platform.machine()}; "
              f"float64 GEMM (1024^3, numpy.matmul): {peak:.1f} GFLOP/s")
        print(f"{'architecture':<34} {'d':>8} {'b':>4} {'path':<10} {'s / pass (N=60k)':>17} {'GFLOP/s':>8} {'of GEMM':>8}")
        for name, arch in (("EWSG §5.3 (32-64, 200-200)", EWSG_CNN), ("reduced (8-16, 64)", REDUCED)):
            X = rng.random((1000, 28, 28))
            t = CNNClassifierTarget(X, rng.integers(0, 10, 1000), n_classes=10, **arch)
            theta = t.initial_position(rng, 1)
            for b, per_datum in ((100, False), (10, True)):
                idx = rng.integers(0, t.n, size=(args.calls, 1, b))
                fn = t.data_gradients if per_datum else t.data_gradient_sum
                sec = _best(lambda fn=fn, theta=theta, idx=idx: [fn(theta, i) for i in idx], args.repeats) / (args.calls * b)
                rate = flops_per_datum(t) / sec / 1e9
                print(f"{name:<34} {t.dim:>8} {b:>4} {'per-datum' if per_datum else 'sum':<10} {sec * N:>17.1f} "
                      f"{rate:>8.2f} {rate / peak:>8.0%}")
            chains, m = 3, 500
            theta3 = t.initial_position(rng, chains)
            sec = _best(lambda t=t, theta3=theta3, X=X[:m]: t.log_proba(theta3, X), args.repeats)
            rate = chains * m * flops_per_datum(t, backward=False) / sec / 1e9
            print(f"{name:<34} {t.dim:>8} {m:>4} {'eval c=3':<10} {f'{sec:.3f} s / eval':>17} {rate:>8.2f} "
                  f"{rate / peak:>8.0%}")


if __name__ == "__main__":
    main()
