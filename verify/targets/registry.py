"""Every target of the toolkit, registered by name with a small instance: what the conformance suite runs over.

A new target is tested by being registered here: ``tests/verify/targets/test_conformance.py`` runs the same
checks over every entry (the protocol and its shapes, per-datum gradients against central differences of
:meth:`~sgmcmc_verify.targets.base.FiniteSumPotential.data_potentials`, the full gradient as the prior's plus the sum
of the per-datum ones, the minibatch sums, every exact answer against finite differences, quadrature or the
exact draws), and a test fails when a target class exported by :mod:`sgmcmc_verify.targets` has no entry.

The instances are small (n ≤ 30, d ≤ 130) so that the suite runs in seconds; the experiments build the papers'
sizes with the same classes.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from sgmcmc_verify.analytic.hsg_quadratic import random_quadratic_sum
from .bounds import GaussianFitTarget, lognormal_data
from .cnn import CNNClassifierTarget
from .gaussian import (AnisotropicGaussianMeansTarget, GaussianMeanModel, GaussianMeansTarget, GaussianTarget,
                       anisotropic_gaussian_means_target, gaussian_means_target, vrsg_gaussian_target)
from .logistic import GammaNormPrior, LogisticRegressionTarget
from .mixtures import HSGMixtureTarget, LSMixtureTarget, hsg_mixture_target, mixture_centers
from .mlp import MLPClassifierTarget
from .quadratic import QuadraticSumTarget

__all__ = ["TARGETS", "TARGET_CLASSES", "build_target"]


def _logistic(prior):
    def build():
        rng = np.random.default_rng(3)
        X = rng.standard_normal((25, 3))
        return LogisticRegressionTarget(X, (rng.random(25) < 0.5).astype(float), prior=prior)
    return build


def _mlp():
    rng = np.random.default_rng(4)
    return MLPClassifierTarget(rng.random((20, 5)), np.arange(20) % 3, hidden=4, n_classes=3)


def _cnn():
    rng = np.random.default_rng(5)
    return CNNClassifierTarget(rng.random((12, 8, 8)), np.arange(12) % 3, conv_channels=(2,), kernel=3, pool=2,
                               dense=(4,), n_classes=3)


def _cnn_lenet():
    """The LS-SGLD authors' form: affine dense layer, mean loss (data_scale 1/n), LS-SGLD's Gamma-norm prior."""
    rng = np.random.default_rng(6)
    return CNNClassifierTarget(rng.random((10, 9, 9)), np.arange(10) % 3, conv_channels=(2, 2), kernel=2, pool=2,
                               dense=(3,), n_classes=3, dense_activation="identity", data_scale=0.1,
                               prior=GammaNormPrior(1.0, 5e-4))


#: name → a factory of a small instance (no arguments; deterministic).
TARGETS: dict[str, Callable] = {
    "gaussian_means": lambda: gaussian_means_target(n=20, dim=2),
    "gaussian": lambda: GaussianTarget(np.array([[1.0, 0.9], [0.9, 1.0]]), mean=[1.0, 2.0]),
    "gaussian_mean_model": lambda: vrsg_gaussian_target(n=30, dim=1),
    "anisotropic_gaussian_means": lambda: anisotropic_gaussian_means_target([1.0, 8.0], n=20),
    "quadratic_sum": lambda: QuadraticSumTarget(random_quadratic_sum(n=15, dim=2)),
    "hsg_mixture": lambda: hsg_mixture_target(n=20, dim=2),
    "ls_mixture": lambda: LSMixtureTarget(mixture_centers(20, seed=6)),
    "logistic_gaussian_prior": _logistic(1.0),
    "logistic_gamma_norm_prior": _logistic(GammaNormPrior()),
    "mlp": _mlp,
    "cnn": _cnn,
    "cnn_lenet_mean_loss": lambda: _cnn_lenet(),
    "gaussian_fit": lambda: GaussianFitTarget(lognormal_data(30, 1)),
}

#: The target classes the registry covers (a test checks every class :mod:`sgmcmc_verify.targets` exports).
TARGET_CLASSES = (GaussianMeansTarget, GaussianTarget, GaussianMeanModel, AnisotropicGaussianMeansTarget,
                  QuadraticSumTarget, HSGMixtureTarget, LSMixtureTarget, LogisticRegressionTarget,
                  MLPClassifierTarget, CNNClassifierTarget, GaussianFitTarget)


def build_target(name: str):
    """A small instance of the target registered as ``name``.

    Raises
    ------
    ValueError
        Unknown name (the message lists the registered ones).
    """
    try:
        return TARGETS[name]()
    except KeyError:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}; got {name!r}") from None
