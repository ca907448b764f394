"""Benchmarks of the transport layer (``make bench``): exact W2 (``ot.emd2``) and ε-scaled log-domain Sinkhorn.

Point clouds are exact draws from the HSG-HMC Table 2 mixture (``sgmcmc_verify.targets.mixtures``), the
problem the paper-scale Table 2 runs solve. Prints a table; numbers go to docs/benchmarks.md by hand.
Not a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from sgmcmc_verify.paper_repro.hsg_hmc.settings import Table2Settings
from sgmcmc_verify.targets.mixtures import grid_density, hsg_mixture_target, sample_from_grid
from sgmcmc_verify.measure.transport import w2_exact, w2_sinkhorn


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 5000, 10000])
    p.add_argument("--sinkhorn-sizes", type=int, nargs="+", default=[250, 1000])
    a = p.parse_args(argv)
    s = Table2Settings.at("default")
    tgt = hsg_mixture_target(s.n_data, s.dim, s.mixture_seed)
    grid = grid_density(tgt, s.grid_lower, s.grid_upper, s.grid_cells)
    rng = np.random.default_rng(0)
    print(f"{'problem':<44}{'n':>7}{'seconds':>10}  result")
    for n in a.sizes:
        x, y = sample_from_grid(grid, n, rng), sample_from_grid(grid, n, rng)
        t0 = time.perf_counter()
        w = w2_exact(x, y)
        print(f"{'w2_exact (ot.emd2), exact vs exact':<44}{n:>7}{time.perf_counter() - t0:>10.2f}  W2 {w:.4f}")
    for n in a.sinkhorn_sizes:
        x, y = sample_from_grid(grid, n, rng), sample_from_grid(grid, n, rng)
        for normalize in (True, False):
            t0 = time.perf_counter()
            r = w2_sinkhorn(x, y, 1e-3, normalize=normalize, max_iter=3000)
            dt = time.perf_counter() - t0
            lab = f"w2_sinkhorn reg 1e-3, {'cost/max' if normalize else 'raw cost'}"
            print(f"{lab:<44}{n:>7}{dt:>10.2f}  W2 {r['w2']:.4f}, {r['iterations']} it "
                  f"({1e3 * dt / r['iterations']:.1f} ms/it), converged {r['converged']}, err {r['final_err']:.1e}")


if __name__ == "__main__":
    main()
