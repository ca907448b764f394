"""Bayesian logistic regression as a finite-sum potential.

``V(θ) = V_0(θ) + Σ_i V_i(θ)``, ``V_i(θ) = log(1 + e^{x_iᵀθ}) − y_i x_iᵀθ`` (the negative
log-likelihood of datum i, y_i ∈ {0, 1}), and a Gaussian prior ``V_0(θ) = λ‖θ‖²/2``; each
paper module states the prior it uses. Per-datum gradients cost O(b d) per chain for b indices, whatever n is.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from .errors import check_finite_array, check_positive

__all__ = ["LogisticRegressionTarget"]


@dataclass(frozen=True, eq=False)
class LogisticRegressionTarget:
    """Finite-sum potential of Bayesian logistic regression with an isotropic Gaussian prior.

    Parameters
    ----------
    X : (n, d) ndarray of float64
        Features (standardize first; include a bias column if wanted).
    y : (n,) ndarray
        Labels in {0, 1}.
    prior_precision : float
        ``λ`` > 0 in ``V_0(θ) = λ‖θ‖²/2`` (prior variance 1/λ).

    Notes
    -----
    ``∇V_i(θ) = (σ(x_iᵀθ) − y_i) x_i`` with σ the logistic function (``scipy.special.expit``,
    stable for large arguments).
    """

    X: np.ndarray
    y: np.ndarray
    prior_precision: float = 1.0

    def __post_init__(self):
        X = check_finite_array("X", self.X, ndim=2)
        y = check_finite_array("y", self.y, ndim=1)
        if y.size != X.shape[0]:
            raise ValueError(f"y must have one label per row of X ({X.shape[0]}), got {y.size}")
        if not np.all((y == 0) | (y == 1)):
            raise ValueError("y must contain labels in {0, 1}")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "prior_precision", check_positive("prior_precision", self.prior_precision))

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def dim(self) -> int:
        return self.X.shape[1]

    def data_gradients(self, theta, idx):
        Xb = self.X[idx]  # (chains, b, d)
        z = np.einsum("cbd,cd->cb", Xb, theta)
        return (expit(z) - self.y[idx])[..., None] * Xb

    def prior_gradient(self, theta):
        return self.prior_precision * theta

    def full_gradient(self, theta):
        z = theta @ self.X.T  # (chains, n)
        return (expit(z) - self.y[None, :]) @ self.X + self.prior_gradient(theta)

    def potential(self, theta):
        z = theta @ self.X.T
        nll = np.sum(np.logaddexp(0.0, z) - self.y[None, :] * z, axis=1)
        return nll + 0.5 * self.prior_precision * np.sum(theta * theta, axis=1)

    def predictive(self, theta, X):
        """``p(y = 1 | x, θ)`` for each chain and row: ``(chains, m)``."""
        return expit(theta @ np.asarray(X, dtype=np.float64).T)

    def mean_nll(self, theta, X, y):
        """Per-chain mean negative log-likelihood on ``(X, y)``: ``(chains,)``."""
        z = theta @ np.asarray(X, dtype=np.float64).T
        return np.mean(np.logaddexp(0.0, z) - np.asarray(y)[None, :] * z, axis=1)
