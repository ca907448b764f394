"""Turning chains into numbers: error measurements, transport distances, rate fits.

==============  =========================================================================================
module          contents
==============  =========================================================================================
``metrics``     Gaussian-fit KL of an ensemble (closed form, nats), MSE of time averages with its
                bias–variance split
``transport``   W2 between point clouds by POT: exact (network simplex, status checked), log-domain
                Sinkhorn with ε-scaling and its entropic bracket, problems solved in parallel
``predictive``  posterior-predictive averages over a burn-in window, classification error and log loss
``rates``       log–log slopes with bootstrap intervals over realizations; the joint fit of
                ``C1/T + C2 h/T + C3 h²`` (EWSG Theorem 4.3)
==============  =========================================================================================
"""
from .metrics import KLResult, MSEResult, ensemble_kl, gaussian_fit, mse_time_average
from .predictive import classification_scores, window_average
from .rates import BoundFit, SlopeFit, fit_bound, fit_slope, slope_status
from .transport import w2_exact, w2_many, w2_sinkhorn

__all__ = ["gaussian_fit", "ensemble_kl", "KLResult", "MSEResult", "mse_time_average", "SlopeFit", "fit_slope",
           "BoundFit", "fit_bound", "slope_status", "w2_exact", "w2_sinkhorn", "w2_many",
           "window_average", "classification_scores"]
