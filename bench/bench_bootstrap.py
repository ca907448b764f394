"""The KL bootstrap of the EWSG §5.1 panels: einsum against the compiled weighted second moments (#26).

Times ``paper_repro.ewsg.experiments._kl_bootstrap_se`` (100 multinomial resamples of the realizations, the
Gaussian-fit KL at every checkpoint) with ``measure.metrics.weighted_second_moments`` compiled and with it sent to
``np.einsum`` (the code before #26), interleaved in one process, and checks that both give the same bits.

Shapes: R realizations × K checkpoints × d = 2, as the panels run them (``ewsg_iclr.fig1ghi``: R = 10⁴, K = 31, 432
bootstraps at the default scale; the journal's Fig. 1a–c: K = 61).

    python bench/bench_bootstrap.py [--repeats 5]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import sgmcmc_verify.measure.metrics as M
from sgmcmc_verify.paper_repro.ewsg.experiments import _kl_bootstrap_se


def _time(positions, kernel):
    M._MOMENTS_KERNEL = kernel   # the compiled kernel, or False: einsum (the code before #26)
    t = time.perf_counter()
    v = _kl_bootstrap_se(positions, np.zeros(2), np.eye(2), np.random.default_rng(1))
    return time.perf_counter() - t, v


def bootstrap_table(shapes=((10_000, 31), (10_000, 61), (1_000, 31)), repeats=5):
    """Rows (R, K, einsum s, compiled s, ratio, same bits): medians over ``repeats`` interleaved pairs."""
    rows = []
    for R, K in shapes:
        pos = np.random.default_rng([R, K]).standard_normal((R, K, 2))
        kernel = M._moments_kernel()
        _time(pos[:100], kernel)   # compile outside the timing
        a, b, same = [], [], True
        for _ in range(repeats):
            ta, va = _time(pos, False)
            tb, vb = _time(pos, kernel)
            a.append(ta)
            b.append(tb)
            same &= va.tobytes() == vb.tobytes()
        rows.append((R, K, float(np.median(a)), float(np.median(b)), float(np.median(b) / np.median(a)), same))
    M._MOMENTS_KERNEL = kernel
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args(argv)
    if M._moments_kernel() is None:
        print("numba not installed: the bootstrap uses einsum; nothing to compare")
        return
    print("## KL bootstrap (100 resamples, d = 2): einsum vs compiled second moments, median of "
          f"{a.repeats} interleaved pairs\n")
    print("| R | K | einsum (s) | compiled (s) | compiled / einsum | same bits |")
    print("|---|---|---|---|---|---|")
    for R, K, ta, tb, ratio, same in bootstrap_table(repeats=a.repeats):
        print(f"| {R:,} | {K} | {ta:.3f} | {tb:.3f} | {ratio:.2f} | {same} |")


if __name__ == "__main__":
    main()
