"""The bootstraps of EWSG's §5.1 panels and Theorem H.1: einsum against the compiled weighted moments (#26).

Times ``paper_repro.ewsg.experiments._kl_bootstrap_se`` (100 multinomial resamples of the realizations, the
Gaussian-fit KL at every checkpoint) and ``paper_repro.ewsg.theorem_h1.sup_norm_bootstrap`` (1,000 resamples, the
debiased sup-norm of the mean deviation) with ``measure.metrics.weighted_means`` / ``weighted_second_moments``
compiled and with them sent to ``np.einsum`` (the code before #26), interleaved in one process, and checks that both
give the same bits.

Shapes as the experiments run them at the default scale: the KL panels R = 10⁴ realizations × K checkpoints × d = 2
(``ewsg_iclr.fig1ghi``: K = 31, 432 bootstraps; the journal's Fig. 1a–c: K = 61); Theorem H.1 R = 10⁴ × 41
checkpoints × 2d = 4 (two bootstraps per step size, full state and position, 11 step sizes).

    python bench/bench_bootstrap.py [--repeats 5]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import sgmcmc_verify.measure.metrics as M
from sgmcmc_verify.paper_repro.ewsg.experiments import _kl_bootstrap_se
from sgmcmc_verify.paper_repro.ewsg.theorem_h1 import sup_norm_bootstrap


def _kl(x):
    return _kl_bootstrap_se(x, np.zeros(2), np.eye(2), np.random.default_rng(1))


def _h1(x):
    full = sup_norm_bootstrap(x, 1000, np.random.default_rng(1))[1]
    return np.concatenate([full, sup_norm_bootstrap(x, 1000, np.random.default_rng(1), slice(0, 2))[1]])


def _time(fn, x, kernel):
    M._MOMENTS_KERNEL = kernel   # the compiled kernels, or False: einsum (the code before #26)
    t = time.perf_counter()
    v = fn(x)
    return time.perf_counter() - t, v


CASES = (("KL panels", _kl, 10_000, 31, 2), ("KL panels", _kl, 10_000, 61, 2), ("KL panels", _kl, 1_000, 31, 2),
         ("Theorem H.1", _h1, 10_000, 41, 4))


def bootstrap_table(cases=CASES, repeats=5):
    """Rows (bootstrap, R, K, d, einsum s, compiled s, ratio, same bits): medians over ``repeats`` interleaved pairs."""
    rows = []
    for name, fn, R, K, d in cases:
        pos = np.random.default_rng([R, K]).standard_normal((R, K, d)) * 0.1 + 0.05
        kernel = M._moments_kernel()
        _time(fn, pos[:100], kernel)   # compile outside the timing
        a, b, same = [], [], True
        for _ in range(repeats):
            ta, va = _time(fn, pos, False)
            tb, vb = _time(fn, pos, kernel)
            a.append(ta)
            b.append(tb)
            same &= va.tobytes() == vb.tobytes()
        rows.append((name, R, K, d, float(np.median(a)), float(np.median(b)), float(np.median(b) / np.median(a)), same))
    M._MOMENTS_KERNEL = kernel
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args(argv)
    if M._moments_kernel() is None:
        print("numba not installed: the bootstrap uses einsum; nothing to compare")
        return
    print("## Bootstraps (KL panels: 100 resamples; Theorem H.1: 2 x 1,000): einsum vs compiled weighted moments, "
          f"median of {a.repeats} interleaved pairs\n")
    print("| bootstrap | R | K | d | einsum (s) | compiled (s) | compiled / einsum | same bits |")
    print("|---|---|---|---|---|---|---|---|")
    for name, R, K, d, ta, tb, ratio, same in bootstrap_table(repeats=a.repeats):
        print(f"| {name} | {R:,} | {K} | {d} | {ta:.3f} | {tb:.3f} | {ratio:.2f} | {same} |")


if __name__ == "__main__":
    main()
