"""Shared test machinery: fixtures' data, planted bugs used by more than one test module, statistical helpers."""
from pathlib import Path

#: The committed test data (``tests/data``).
DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def zmax_moments(x, mean, cov) -> float:
    """Largest |z| over the sample means and the (0,0), (1,1), (0,1) second central moments of 2-D draws.

    ``x`` is ``(n, 2)`` independent draws; ``mean`` ``(2,)`` and ``cov`` ``(2, 2)`` the law they should follow.
    Each statistic is standardized by its own sample standard error (means by the exact variance), so under
    the null every z is asymptotically N(0, 1).
    """
    import numpy as np

    n = x.shape[0]
    zm = (x.mean(0) - mean) / np.sqrt(np.diag(cov) / n)
    xc = x - mean
    zs = []
    for i, j in ((0, 0), (1, 1), (0, 1)):
        p = xc[:, i] * xc[:, j]
        zs.append((p.mean() - cov[i, j]) / (p.std(ddof=1) / np.sqrt(n)))
    return float(np.max(np.abs(np.concatenate([zm, zs]))))
