"""Error measurements: Gaussian-fit KL of an ensemble, exact KL floor, MSE of time averages.

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

__all__ = ["gaussian_fit", "ensemble_kl", "KLResult", "MSEResult", "mse_time_average"]


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
