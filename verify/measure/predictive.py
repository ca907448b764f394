"""Posterior-predictive averages of a sampler's recorded predictions, and their classification scores.

The deep-learning experiments of SG-MCMC papers plot "sample averages in terms of accuracy/loss"
(vrSG-MCMC, seed ``002_245183f35db8d795.txt``, §5, footnote ∥): the predictive distribution is the
average over samples ``θ_k`` of ``p(y | x, θ_k)``, and the error and loss are those of the averaged
distribution. :func:`window_average` forms that average at every checkpoint from the records of a
run, over the samples in a burn-in window; :func:`classification_scores` scores it.
"""
from __future__ import annotations

import numpy as np

__all__ = ["window_average", "classification_scores"]


def window_average(values, budget, burn_in_fraction: float = 0.5):
    """Running average over a moving burn-in window: at record ``j`` the mean of the records ``k <= j`` with
    ``budget_k >= burn_in_fraction · budget_j``.

    With ``burn_in_fraction = 1/2`` the first half of the run so far is discarded as burn-in at every
    checkpoint (the usual "discard the first half" rule); ``0`` averages every record so far.

    Parameters
    ----------
    values : (chains, n_rec, ...) array_like of float64
        What was recorded at each checkpoint (e.g. predictive probabilities ``(chains, n_rec, m, K)``).
    budget : (n_rec,) array_like
        Non-decreasing budget at each record (data passes or steps).
    burn_in_fraction : float in [0, 1), default 0.5

    Returns
    -------
    (chains, n_rec, ...) ndarray of float64

    Raises
    ------
    ValueError
        ``budget`` not 1-D, not non-decreasing or not of length ``n_rec``; ``burn_in_fraction`` outside [0, 1).

    Examples
    --------
    >>> v = np.arange(1.0, 5.0)[None, :]           # records 1, 2, 3, 4 at budgets 1, 2, 3, 4
    >>> window_average(v, [1, 2, 3, 4])            # windows [1], [1, 2], [2, 3], [2, 3, 4]
    array([[1. , 1.5, 2.5, 3. ]])
    """
    v = np.asarray(values, dtype=np.float64)
    b = np.asarray(budget, dtype=np.float64)
    if b.ndim != 1 or v.ndim < 2 or b.size != v.shape[1] or np.any(np.diff(b) < 0):
        raise ValueError(f"budget must be non-decreasing with one entry per record ({v.shape[1:2]}), got shape {b.shape}")
    if not (0.0 <= burn_in_fraction < 1.0):
        raise ValueError(f"burn_in_fraction must be in [0, 1), got {burn_in_fraction!r}")
    cs = np.cumsum(v, axis=1)
    start = np.searchsorted(b, burn_in_fraction * b - 1e-12, side="left")  # first record inside each window
    j = np.arange(b.size)
    before = np.where(start > 0, start - 1, 0)
    head = np.where((start > 0).reshape((1, -1) + (1,) * (v.ndim - 2)), np.take(cs, before, axis=1), 0.0)
    count = (j - start + 1).astype(np.float64).reshape((1, -1) + (1,) * (v.ndim - 2))
    return (cs - head) / count


def classification_scores(proba, y, floor: float = 1e-300):
    """Error rate and mean negative log-likelihood (nats per datum) of predictive probabilities.

    Parameters
    ----------
    proba : (..., m, K) array_like of float64
        Predictive class probabilities of ``m`` inputs (rows summing to 1).
    y : (m,) array_like of int
        True labels in ``0..K−1``.
    floor : float, default 1e-300
        Probabilities are floored here before the log (a probability that underflowed to 0 gives a
        large finite loss instead of ``inf``).

    Returns
    -------
    error : (...) ndarray     fraction of inputs whose most probable class is not ``y`` (ties to the lowest class)
    nll : (...) ndarray       ``−mean_i log p(y_i | x_i)``

    Raises
    ------
    ValueError
        Shapes that do not match, or labels outside ``0..K−1``.

    Examples
    --------
    >>> p = np.array([[0.9, 0.1], [0.4, 0.6]])
    >>> e, nll = classification_scores(p, [0, 0])
    >>> float(e), round(float(nll), 4)                  # second input misclassified; (−log .9 − log .4)/2
    (0.5, 0.5108)
    """
    p = np.asarray(proba, dtype=np.float64)
    y = np.asarray(y)
    if p.ndim < 2 or y.ndim != 1 or p.shape[-2] != y.size:
        raise ValueError(f"proba must be (..., m, K) with m = len(y) = {y.size}, got {p.shape}")
    K = p.shape[-1]
    if y.size and (y.min() < 0 or y.max() >= K):
        raise ValueError(f"labels must be in [0, {K}), got range [{y.min()}, {y.max()}]")
    err = np.mean(np.argmax(p, axis=-1) != y, axis=-1)
    py = np.take_along_axis(p, np.broadcast_to(y[:, None], p.shape[:-1] + (1,)), axis=-1)[..., 0]
    return err, -np.mean(np.log(np.maximum(py, floor)), axis=-1)
