"""Bayesian logistic regression as a finite-sum potential: likelihood × prior.

``V(θ) = V_0(θ) + Σ_i V_i(θ)``, ``V_i(θ) = log(1 + e^{x_iᵀθ}) − y_i x_iᵀθ`` (the negative
log-likelihood of datum i, y_i ∈ {0, 1}), and a prior ``V_0`` given as an object:

* :class:`GaussianPrior` — ``V_0(θ) = λ‖θ‖²/2`` (HSG-HMC's BLR, EWSG's BLR);
* :class:`GammaNormPrior` — LS-SGLD §4.2's "Gamma prior" ``p(θ) ∝ ‖θ‖^{−λ} exp(−ϑ‖θ‖)``,
  ``V_0(θ) = λ log‖θ‖ + ϑ‖θ‖``.

Per-datum gradients cost O(b d) per chain for b indices, whatever n is.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: § "Bayesian Logistic Regression".
LS-SGLD, seed ``004_8438bd4b543e0fc4.txt``: §4.2 (the Gamma prior, λ = 1, θ = 10⁻²).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import expit

from ..errors import check_finite_array, check_positive
from .base import ExactAnswers

__all__ = ["LogisticRegressionTarget", "GaussianPrior", "GammaNormPrior"]


@dataclass(frozen=True)
class GaussianPrior:
    """``V_0(θ) = λ‖θ‖²/2``: an isotropic Gaussian prior with precision λ (variance 1/λ).

    Parameters
    ----------
    precision : float, default 1
        λ > 0.

    Raises
    ------
    ValueError
        ``precision`` not a finite number > 0.
    """

    precision: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "precision", check_positive("prior_precision", self.precision))

    def gradient(self, theta):
        """``λθ``: ``(chains, d)`` → ``(chains, d)``."""
        return self.precision * theta

    def potential(self, theta):
        """``λ‖θ‖²/2``: ``(chains, d)`` → ``(chains,)``."""
        return 0.5 * self.precision * np.sum(theta * theta, axis=1)


@dataclass(frozen=True)
class GammaNormPrior:
    """LS-SGLD's prior ``p(θ) ∝ ‖θ‖^{−λ} exp(−ϑ‖θ‖)``: ``V_0(θ) = λ log‖θ‖ + ϑ‖θ‖``.

    Parameters
    ----------
    lam : float, default 1
        λ ≥ 0 (the paper: 1).
    theta : float, default 1e-2
        ϑ ≥ 0, the rate (the paper calls it θ, as the parameter; 10⁻²).

    Raises
    ------
    ValueError
        ``lam`` or ``theta`` not a finite number ≥ 0.

    Notes
    -----
    ``∇V_0(θ) = (λ/‖θ‖² + ϑ/‖θ‖) θ``; the prior is singular at ``θ = 0`` (the gradient norm
    ``λ/‖θ‖`` blows up), so chains must not start at 0.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, §4.2.
    """

    lam: float = 1.0
    theta: float = 1e-2

    def __post_init__(self):
        for nm in ("lam", "theta"):
            v = getattr(self, nm)
            if isinstance(v, bool) or not (isinstance(v, numbers.Real) and np.isfinite(v) and v >= 0):
                raise ValueError(f"{nm} must be a finite number >= 0, got {v!r}")

    def gradient(self, theta):
        """``(λ/‖θ‖² + ϑ/‖θ‖) θ``: ``(chains, d)`` → ``(chains, d)``."""
        r2 = np.sum(theta * theta, axis=-1, keepdims=True)
        return (self.lam / r2 + self.theta / np.sqrt(r2)) * theta

    def potential(self, theta):
        """``λ log‖θ‖ + ϑ‖θ‖``: ``(chains, d)`` → ``(chains,)``."""
        r = np.sqrt(np.sum(theta * theta, axis=-1))
        return self.lam * np.log(r) + self.theta * r


@dataclass(frozen=True, eq=False)
class LogisticRegressionTarget:
    """Finite-sum potential of Bayesian logistic regression: the likelihood of ``(X, y)`` times a prior.

    Parameters
    ----------
    X : (n, d) ndarray of float64
        Features (standardize first; include a bias column if wanted).
    y : (n,) ndarray
        Labels in {0, 1} (±1 labels are ``2y − 1``).
    prior : GaussianPrior, GammaNormPrior, any object with ``gradient`` and ``potential``, or float
        A number λ means ``GaussianPrior(λ)``. Default ``GaussianPrior(1.0)``.

    Raises
    ------
    ValueError
        Bad shapes, non-binary labels, a non-positive Gaussian precision, or a prior without
        ``gradient`` and ``potential``.

    Notes
    -----
    ``∇V_i(θ) = (σ(x_iᵀθ) − y_i) x_i`` with σ the logistic function (``scipy.special.expit``,
    stable for large arguments).

    Examples
    --------
    >>> t = LogisticRegressionTarget(np.eye(2), np.array([0.0, 1.0]), prior=2.0)
    >>> t.full_gradient(np.zeros((1, 2)))
    array([[ 0.5, -0.5]])
    """

    X: np.ndarray
    y: np.ndarray
    prior: Any = 1.0

    def __post_init__(self):
        X = check_finite_array("X", self.X, ndim=2)
        y = check_finite_array("y", self.y, ndim=1)
        if y.size != X.shape[0]:
            raise ValueError(f"y must have one label per row of X ({X.shape[0]}), got {y.size}")
        if not np.all((y == 0) | (y == 1)):
            raise ValueError("y must contain labels in {0, 1}")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        prior = self.prior
        if isinstance(prior, numbers.Real) and not isinstance(prior, bool):
            prior = GaussianPrior(prior)
        if not (hasattr(prior, "gradient") and hasattr(prior, "potential")):
            raise ValueError(f"prior must be a number (Gaussian precision) or an object with gradient and "
                             f"potential, got {prior!r}")
        object.__setattr__(self, "prior", prior)

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

    def data_potentials(self, theta, idx):
        """``log(1 + e^{x_iᵀθ}) − y_i x_iᵀθ``: theta ``(chains, d)``, idx ``(chains, b)`` → ``(chains, b)``."""
        z = np.einsum("cbd,cd->cb", self.X[idx], theta)
        return np.logaddexp(0.0, z) - self.y[idx] * z

    def exact_answers(self):
        """No closed form: :class:`~sgmcmc_verify.targets.base.ExactAnswers` with every field empty."""
        return ExactAnswers(missing="no closed form for the logistic posterior (a long exact sampler is the "
                                    "reference of the experiments that need one)")

    def data_gradients_all(self, theta):
        """Per-datum gradients of every datum: ``(chains, n, d)`` (O(n d): for exact variances only)."""
        z = theta @ self.X.T
        return (expit(z) - self.y[None, :])[..., None] * self.X[None, :, :]

    def prior_gradient(self, theta):
        return self.prior.gradient(theta)

    def full_gradient(self, theta):
        z = theta @ self.X.T  # (chains, n)
        return (expit(z) - self.y[None, :]) @ self.X + self.prior_gradient(theta)

    def potential(self, theta):
        z = theta @ self.X.T
        nll = np.sum(np.logaddexp(0.0, z) - self.y[None, :] * z, axis=1)
        return nll + self.prior.potential(theta)

    def predictive(self, theta, X):
        """``p(y = 1 | x, θ)`` for each chain and row: ``(chains, m)``."""
        return expit(theta @ np.asarray(X, dtype=np.float64).T)

    def mean_nll(self, theta, X, y):
        """Per-chain mean negative log-likelihood on ``(X, y)``: ``(chains,)`` (nats per datum)."""
        z = theta @ np.asarray(X, dtype=np.float64).T
        return np.mean(np.logaddexp(0.0, z) - np.asarray(y)[None, :] * z, axis=1)

    def accuracy(self, theta, X, y):
        """Per-chain classification accuracy with threshold 1/2: ``(chains,)``."""
        z = theta @ np.asarray(X, dtype=np.float64).T
        return np.mean((z > 0) == (np.asarray(y)[None, :] > 0.5), axis=1)
