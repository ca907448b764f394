"""The numba kernel of ``estimators.base._distinct_rows``'s redraw rounds (imported only where numba is installed: the
``compiled`` extra). Compiled once per machine (``cache=True``)."""
from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def redrawn_clashes(idx, rows, cols, n):   # pragma: no cover (compiled; tested through subset_indices)
    """For every redrawn entry ``(rows[t], cols[t])`` (rows ascending, columns ascending within a row): whether its
    new value equals a kept entry of its row or a redrawn entry of its row at an earlier column. O(b + redrawn) per
    row with value counts, against the NumPy rule's (redrawn × b) comparison matrix; the same booleans."""
    m = rows.size
    b = idx.shape[1]
    out = np.zeros(m, dtype=np.bool_)
    kept = np.zeros(n, dtype=np.int64)     # kept entries of the current row, by value
    seen = np.zeros(n, dtype=np.bool_)     # redrawn entries of the current row at earlier columns, by value
    pend = np.zeros(b, dtype=np.bool_)
    s = 0
    while s < m:
        r = rows[s]
        e = s
        while e < m and rows[e] == r:
            pend[cols[e]] = True
            e += 1
        for j in range(b):
            if not pend[j]:
                kept[idx[r, j]] += 1
        for t in range(s, e):
            v = idx[r, cols[t]]
            out[t] = kept[v] > 0 or seen[v]
            seen[v] = True
        for j in range(b):
            if not pend[j]:
                kept[idx[r, j]] = 0
        for t in range(s, e):
            seen[idx[r, cols[t]]] = False
            pend[cols[t]] = False
        s = e
    return out
