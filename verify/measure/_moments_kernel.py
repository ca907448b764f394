"""The numba kernel of :func:`sgmcmc_verify.measure.metrics.weighted_second_moments` (imported only where numba is
installed: the ``compiled`` extra). Compiled once per machine (``cache=True``: next to this file, else numba's
user-wide cache)."""
from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def weighted_second_moments_kernel(wT, x):   # pragma: no cover (compiled; tested through weighted_second_moments)
    """``out[b, k, i, j] = Σ_r wT[r, b] x[r, k, i] x[r, k, j]``, each term ``(w·x_i)·x_j`` added in increasing r,
    zero weights skipped (exact for finite input: see ``weighted_second_moments``). wT : (R, B); x : (R, K, d)."""
    R, B = wT.shape
    K, D = x.shape[1], x.shape[2]
    out = np.zeros((B, K, D, D))
    for r in range(R):          # increasing r for every output element: einsum's order
        xr = x[r]
        for b in range(B):
            wb = wT[r, b]
            if wb == 0.0:       # exact: the term is ±0.0 (inputs finite) and out[b] is never −0.0
                continue
            o = out[b]
            if D == 2:          # unrolled (3–4× faster, measured); each entry's operations and order as below
                for k in range(K):
                    a0 = xr[k, 0]
                    a1 = xr[k, 1]
                    t0 = wb * a0
                    t1 = wb * a1
                    o[k, 0, 0] += t0 * a0
                    o[k, 0, 1] += t0 * a1
                    o[k, 1, 0] += t1 * a0
                    o[k, 1, 1] += t1 * a1
                continue
            for k in range(K):
                for i in range(D):
                    t = wb * xr[k, i]       # (w·x_i)·x_j, einsum's association
                    for j in range(D):
                        o[k, i, j] += t * xr[k, j]
    return out


@numba.njit(cache=True, nogil=True)
def weighted_means_kernel(wT, x):   # pragma: no cover (compiled; tested through weighted_means)
    """``out[b, k, i] = Σ_r wT[r, b] x[r, k, i]``, each term ``w·x_i`` added in increasing r, zero weights skipped
    (exact for finite input: see ``weighted_second_moments``). wT : (R, B); x : (R, K, d)."""
    R, B = wT.shape
    K, D = x.shape[1], x.shape[2]
    out = np.zeros((B, K, D))
    for r in range(R):          # increasing r for every output element: einsum's order
        xr = x[r]
        for b in range(B):
            wb = wT[r, b]
            if wb == 0.0:
                continue
            o = out[b]
            for k in range(K):
                for i in range(D):
                    o[k, i] += wb * xr[k, i]
    return out
