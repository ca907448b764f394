"""Gradient estimators: each returns the estimate of ``∇V(θ)`` for every chain and what it cost.

=====================  ==============================================================================
module                 contents
=====================  ==============================================================================
``base``               :class:`GradientEstimate`, :class:`StepContext`, the :class:`GradientEstimator`
                       protocol, :func:`minibatch_gradient` (the one minibatch formula), :func:`sum_data_gradients`
``minibatch``          :class:`UniformMinibatch` (SGLD, SGHMC, LS-SGLD ...), :class:`FullGradient`
``noisy``              :class:`NoisyExactGradient` (exact gradient + N(0, s²I), LS-SGLD §4.1.1)
``ewsg``               :class:`EWSGIndexChain` (EWSG Algorithm 1, weights (4), acceptance (6); with the
                       overdamped integrator, Appendix E)
``ewsg_vr``            :class:`EWSGVarianceReduced` (EWSG-VR, Appendix F, Algorithm 2)
``cp_sghmc``           :class:`ClusteredMinibatch`, :func:`kmeans_clusters` (CP-SGHMC [20] of EWSG §5.3:
                       k-means clusters, a fixed number of draws per cluster, weights n_k / b_k)
``variance_reduced``   :class:`SVRGControlVariate`, :class:`TwoMinibatchControlVariate` (vrSG-MCMC
                       Algorithm 1), :class:`HybridGradient` (HSG-HMC (7)), :class:`RecursiveGradient`
                       (SRVR-HMC)
=====================  ==============================================================================
"""
from .base import (GradientEstimate, GradientEstimator, StepContext, check_batch, correction_sum, minibatch_gradient,
                   subset_indices, sum_data_gradients, uniform_indices)
from .cp_sghmc import ALLOCATIONS, ClusteredMinibatch, cluster_allocation, kmeans_clusters
from .ewsg import X_CHOICES, EWSGIndexChain, ewsg_x
from .ewsg_vr import EWSGVarianceReduced, EWSGVRState, calibration_moments
from .minibatch import FullGradient, UniformMinibatch
from .noisy import NoisyExactGradient
from .variance_reduced import (RHO_SCHEDULES, HybridGradient, HybridState, RecursiveGradient, RecursiveState,
                               SVRGControlVariate, TwoMinibatchControlVariate, VRSGState, periodic_reset_period,
                               rho_value)

__all__ = ["GradientEstimate", "GradientEstimator", "StepContext", "minibatch_gradient", "sum_data_gradients",
           "correction_sum", "uniform_indices", "subset_indices",
           "check_batch", "UniformMinibatch", "FullGradient", "NoisyExactGradient", "EWSGIndexChain", "ewsg_x",
           "X_CHOICES", "EWSGVarianceReduced", "EWSGVRState", "calibration_moments", "SVRGControlVariate",
           "TwoMinibatchControlVariate", "VRSGState", "HybridGradient", "HybridState", "RecursiveGradient",
           "RecursiveState",
           "RHO_SCHEDULES", "rho_value", "periodic_reset_period",
           "ClusteredMinibatch", "kmeans_clusters", "cluster_allocation", "ALLOCATIONS"]
