"""Error measurements: Gaussian-fit KL of an ensemble, exact KL floor, MSE of time averages, bootstrap moments.

Functions return named results and never return NaN silently: degenerate input raises.

References
----------
EWSG §5.1 (seed ``000_8e0377c44e2ea3b8.txt``): KL(p‖q) with p the target, q the samples' law;
Theorem 4.3: the MSE ``E(φ̂_K − φ̄)²`` of the time average ``φ̂_K = (1/K) Σ_{k=1}^K φ(X_k)``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sgmcmc_verify.analytic.gaussian import kl_gaussian

from ..errors import check_finite_array

__all__ = ["gaussian_fit", "ensemble_kl", "KLResult", "MSEResult", "mse_time_average", "weighted_means",
           "weighted_second_moments"]


def gaussian_fit(samples):
    """Mean and covariance over the realization axis.

    Parameters
    ----------
    samples : (R, ..., d) array_like
        R >= d + 1 realizations (one per chain).

    Returns
    -------
    mean : (..., d) ndarray
    cov : (..., d, d) ndarray
        Unbiased sample covariance (divisor R − 1).

    Raises
    ------
    ValueError
        Non-finite samples, or R <= d (the covariance would be singular).
    """
    x = check_finite_array("samples", samples)
    R, d = x.shape[0], x.shape[-1]
    if R <= d:
        raise ValueError(f"need more realizations than dimensions for a covariance: R = {R}, d = {d}")
    mean = x.mean(axis=0)
    xc = x - mean
    cov = np.einsum("r...i,r...j->...ij", xc, xc) / (R - 1)
    return mean, cov


class KLResult(NamedTuple):
    """target_to_samples : KL(π ‖ N(m̂, Ŝ)) in nats (the direction EWSG Fig. 1a plots);
    samples_to_target : KL(N(m̂, Ŝ) ‖ π); mean, cov : the Gaussian fit."""

    target_to_samples: np.ndarray
    samples_to_target: np.ndarray
    mean: np.ndarray
    cov: np.ndarray


def ensemble_kl(samples, target_mean, target_cov) -> KLResult:
    """Gaussian-moment KL between the target and the law of an ensemble of realizations.

    Parameters
    ----------
    samples : (R, ..., d) array_like
        One state per realization (e.g. every chain at a checkpoint: ``(R, n_ckpt, d)``).
    target_mean : (d,) ; target_cov : (d, d)

    Returns
    -------
    KLResult
        Each KL has shape ``(...)``, in nats.

    Notes
    -----
    The law of the samples enters through its mean and covariance only. This is the exact KL for
    Gaussian laws (the linear samplers' laws have exact Gaussian moments, and are Gaussian when
    the gradient noise is), and the KL of the moment-matched Gaussian otherwise (pSGLD, EWSG).
    With R samples the estimate carries a positive bias of order ``(d + d(d+1)/2) / (2R)``
    nats; experiments report it by fitting R exact draws from π (the "estimation floor").
    """
    mean, cov = gaussian_fit(samples)
    tm = np.broadcast_to(target_mean, mean.shape)
    tc = np.broadcast_to(target_cov, cov.shape)
    return KLResult(kl_gaussian(tm, tc, mean, cov), kl_gaussian(mean, cov, tm, tc), mean, cov)


class MSEResult(NamedTuple):
    """mse : mean squared error over realizations; bias_sq : (mean − truth)²; variance : across
    realizations (divisor R); sq_err : the per-realization squared errors (R, ...)."""

    mse: np.ndarray
    bias_sq: np.ndarray
    variance: np.ndarray
    sq_err: np.ndarray


def mse_time_average(time_averages, truth) -> MSEResult:
    """MSE ``E(φ̂_K − φ̄)²`` of time averages over realizations, with its bias–variance split.

    Parameters
    ----------
    time_averages : (R, ...) array_like
        ``φ̂_K`` for each realization (and e.g. each checkpoint).
    truth : float or array broadcastable to ``(...)``
        ``φ̄``, the exact posterior average.

    Returns
    -------
    MSEResult
        ``mse = bias_sq + variance`` exactly (both with divisor R).
    """
    x = check_finite_array("time_averages", time_averages)
    err = x - truth
    sq = err**2
    mean_err = err.mean(axis=0)
    return MSEResult(sq.mean(axis=0), mean_err**2, err.var(axis=0), sq)


#: the numba kernels of :func:`weighted_means` and :func:`weighted_second_moments` once imported in this process;
#: ``False`` when numba is absent
_MOMENTS_KERNEL = None
#: B·R·K·d² (B·R·K·d for the means) below which the two call einsum (about 0.06 s there, from the bootstrap table in
#: docs/benchmarks.md): importing numba and loading the cached kernels (0.3 s measured; 0.75 s when they compile) would
#: cost more than a few such calls save
_KERNEL_MIN_WORK = 10_000_000


def _moments_kernel():
    """The compiled kernels ``(means, second_moments)``, or ``None`` without numba (the ``compiled`` extra)."""
    global _MOMENTS_KERNEL
    if _MOMENTS_KERNEL is None:
        try:
            from ._moments_kernel import weighted_means_kernel, weighted_second_moments_kernel
        except (ImportError, RuntimeError, OSError):   # no numba, or no writable cache location for cache=True
            _MOMENTS_KERNEL = False
            return None
        _MOMENTS_KERNEL = (weighted_means_kernel, weighted_second_moments_kernel)
    return _MOMENTS_KERNEL or None


def _weights_and_states(w, x):
    w = np.asarray(w, dtype=float)
    x = np.asarray(x, dtype=float)
    if w.ndim != 2:
        raise ValueError(f"w must be (B, R), got shape {w.shape}")
    if x.ndim != 3:
        raise ValueError(f"x must be (R, K, d), got shape {x.shape}")
    if w.shape[1] != x.shape[0]:
        raise ValueError(f"w has R = {w.shape[1]} columns but x has {x.shape[0]} realizations")
    return w, x


def _compiled(w, x, work, which):
    """The kernel ``which`` (0: means, 1: second moments) where it reproduces einsum, else ``None``: numba present,
    ``work`` at least :data:`_KERNEL_MIN_WORK`, ``x`` laid out r-major (each axis's stride at least the span of the
    axes after it, the last contiguous: C order, or a slice of it) with ``K·d ≥ 2``, and every input finite."""
    R, K, d = x.shape
    s0, s1, s2 = x.strides
    if work < _KERNEL_MIN_WORK or K * d < 2 or not (s2 == x.itemsize and s1 >= d * s2 and s0 >= K * s1):
        return None
    kernels = _moments_kernel()
    if kernels is None or not (np.isfinite(x).all() and np.isfinite(w).all()):
        return None
    return kernels[which]


def weighted_means(w, x) -> np.ndarray:
    """``m[b, k, i] = Σ_r w[b, r] x[r, k, i]``: weighted means for a batch of weight vectors (the bootstrap's resampling
    weights), bit for bit ``np.einsum("br,rkd->bkd", w, x)``.

    Parameters
    ----------
    w : (B, R) array_like
    x : (R, K, d) array_like

    Returns
    -------
    ndarray, shape (B, K, d)

    Raises
    ------
    ValueError
        ``w`` not 2-D, ``x`` not 3-D, or their R differ.

    Notes
    -----
    As :func:`weighted_second_moments` (einsum adds ``w·x_i`` in increasing r where ``x`` is r-major with
    ``K·d ≥ 2``; a numba kernel does the same, einsum itself everywhere else). Used by the bootstrap of EWSG's
    Theorem H.1 sup-norms (seed ``000_8e0377c44e2ea3b8.txt``, Appendix H) and of the §5.1 KL panels.
    """
    w, x = _weights_and_states(w, x)
    kernel = _compiled(w, x, w.shape[0] * x.size, 0)
    if kernel is None:
        return np.einsum("br,rkd->bkd", w, x)
    return kernel(np.ascontiguousarray(w.T), x)


def weighted_second_moments(w, x) -> np.ndarray:
    """``S[b, k, i, j] = Σ_r w[b, r] x[r, k, i] x[r, k, j]``: weighted second moments for a batch of weight vectors
    (the bootstrap's resampling weights), bit for bit ``np.einsum("br,rki,rkj->bkij", w, x, x)``.

    Parameters
    ----------
    w : (B, R) array_like
        One weight vector over the R realizations per bootstrap replicate (e.g. multinomial counts / R).
    x : (R, K, d) array_like
        One state per realization and checkpoint.

    Returns
    -------
    ndarray, shape (B, K, d, d)

    Raises
    ------
    ValueError
        ``w`` not 2-D, ``x`` not 3-D, or their R differ.

    Notes
    -----
    NumPy's ``einsum`` (2.x, no ``optimize``) forms each term as ``(w·x_i)·x_j`` and, when ``x`` is r-major (C order,
    or a slice of it) with ``K·d ≥ 2``, adds the terms to each output element in increasing r, starting from 0. The
    numba kernel here does the same operations in the same order (on the EWSG Figure 1 panels' shape, B = 100,
    R = 10⁴, K = 31, d = 2: about 20× faster than einsum, and the whole KL bootstrap 0.18× its time;
    ``docs/benchmarks.md``), skipping zero weights (exact: a zero weight's term is ±0.0 and a
    running sum that starts at +0.0 is never −0.0). Everywhere else it calls ``einsum`` itself: for small inputs
    (``_KERNEL_MIN_WORK``), without numba, for any other layout of ``x`` (e.g. Fortran order: einsum then sums chunks
    of r along the contiguous axis, another order), ``K·d = 1``, or non-finite input (whose NaN the skip would hide).
    ``tests/verify/measure/test_metrics.py`` checks the bits against ``einsum`` over shapes and layouts, with a control
    (the same kernel summing r in reverse differs).
    Used by the KL bootstrap of the EWSG journal and conference §5.1 panels (seed ``000_8e0377c44e2ea3b8.txt``,
    Figure 1; seed ``003_19372d6d86d2623b.txt``, Figure 1).
    """
    w, x = _weights_and_states(w, x)
    kernel = _compiled(w, x, w.shape[0] * x.size * x.shape[2], 1)
    if kernel is None:
        return np.einsum("br,rki,rkj->bkij", w, x, x)
    return kernel(np.ascontiguousarray(w.T), x)
