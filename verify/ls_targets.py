"""Targets and estimators of the LS-SGLD paper's experiments (seed ``004_8438bd4b543e0fc4.txt``, §4).

* :class:`GammaPriorLogistic`: Bayesian logistic regression with the paper's "Gamma prior"
  ``p(x) ∝ ‖x‖^{−λ} exp(−θ‖x‖)`` (§4.2; λ = 1, θ = 1e-2).
* :class:`GaussianTarget2D` + :class:`NoisyExactGradient`: the 2-D Gaussian of §4.1.1 with the
  stochastic gradient "exact gradient + N(0, I) noise" of the SGHMC paper it cites ([10], Chen,
  Fox, Guestrin 2014, §5.1).
* :class:`GaussianMixtureTarget`: the finite-sum Gaussian mixture of §4.1.2.

All follow the finite-sum protocol of :mod:`verify.targets` (``n``, ``dim``, ``data_gradients``,
``prior_gradient``, ``full_gradient``, ``potential``); gradients are of the full potential
``V = V_0 + Σ_i V_i`` with ``π ∝ exp(−V)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from .errors import check_finite_array, check_positive
from .estimators import GradientEstimate, StepContext

__all__ = ["GammaPriorLogistic", "GaussianTarget2D", "NoisyExactGradient", "GaussianMixtureTarget",
           "mixture_centers"]


@dataclass(frozen=True, eq=False)
class GammaPriorLogistic:
    """BLR with the paper's prior: ``V(x) = Σ_i log(1 + e^{−y_i d_iᵀx}) + λ log‖x‖ + θ‖x‖``.

    Parameters
    ----------
    X : (n, d) ndarray
        Features ``d_i`` (standardized, with a bias column, by the caller).
    y : (n,) ndarray
        Labels in {0, 1} (the paper's ±1 labels are ``2y − 1``).
    lam : float, default 1
        λ ≥ 0 of the prior (the paper: 1).
    theta : float, default 1e-2
        θ ≥ 0 of the prior (the paper: 10⁻²).

    Raises
    ------
    ValueError
        Bad shapes, non-binary labels, negative or non-finite ``lam`` / ``theta``.

    Notes
    -----
    The paper writes ``f_i(x) = n log(1 + e^{−y_i⟨d_i, x⟩}) + λ log‖x‖ + θ‖x‖`` and the posterior
    ``∝ exp(−n⁻¹Σ f_i)``, which is ``exp(−V)`` above. ``∇V_0(x) = (λ/‖x‖² + θ/‖x‖) x``; the prior
    is singular at ``x = 0`` (the gradient norm ``λ/‖x‖`` blows up), so chains must not start at 0.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, §4.2.
    """

    X: np.ndarray
    y: np.ndarray
    lam: float = 1.0
    theta: float = 1e-2

    def __post_init__(self):
        X = check_finite_array("X", self.X, ndim=2)
        y = check_finite_array("y", self.y, ndim=1)
        if y.size != X.shape[0]:
            raise ValueError(f"y must have one label per row of X ({X.shape[0]}), got {y.size}")
        if not np.all((y == 0) | (y == 1)):
            raise ValueError("y must contain labels in {0, 1}")
        for nm in ("lam", "theta"):
            v = getattr(self, nm)
            if not (isinstance(v, (int, float, np.floating)) and np.isfinite(v) and v >= 0):
                raise ValueError(f"{nm} must be a finite number >= 0, got {v!r}")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def dim(self) -> int:
        return self.X.shape[1]

    def data_gradients(self, theta, idx):
        Xb = self.X[idx]
        z = np.einsum("cbd,cd->cb", Xb, theta)
        return (expit(z) - self.y[idx])[..., None] * Xb

    def data_gradients_all(self, theta):
        """Per-datum gradients of every datum: ``(chains, n, d)`` (O(n d) — for Table 3 only)."""
        z = theta @ self.X.T
        return (expit(z) - self.y[None, :])[..., None] * self.X[None, :, :]

    def prior_gradient(self, theta):
        r2 = np.sum(theta * theta, axis=-1, keepdims=True)
        return (self.lam / r2 + self.theta / np.sqrt(r2)) * theta

    def full_gradient(self, theta):
        z = theta @ self.X.T
        return (expit(z) - self.y[None, :]) @ self.X + self.prior_gradient(theta)

    def potential(self, theta):
        z = theta @ self.X.T
        r = np.sqrt(np.sum(theta * theta, axis=-1))
        return np.sum(np.logaddexp(0.0, z) - self.y[None, :] * z, axis=1) + self.lam * np.log(r) + self.theta * r

    def mean_nll(self, theta, X, y):
        """Per-chain mean negative log-likelihood on ``(X, y)``: ``(chains,)`` (nats per datum)."""
        z = theta @ np.asarray(X, dtype=np.float64).T
        return np.mean(np.logaddexp(0.0, z) - np.asarray(y)[None, :] * z, axis=1)

    def accuracy(self, theta, X, y):
        """Per-chain classification accuracy with threshold 1/2: ``(chains,)``."""
        z = theta @ np.asarray(X, dtype=np.float64).T
        return np.mean((z > 0) == (np.asarray(y)[None, :] > 0.5), axis=1)


@dataclass(frozen=True, eq=False)
class GaussianTarget2D:
    """``V(x) = ½ xᵀΣ⁻¹x`` in d = 2 (one "datum", ``n = 1``), §4.1.1 with ``Σ = [[1, ρ], [ρ, 1]]``.

    Parameters
    ----------
    cov : (2, 2) array_like
        Σ, symmetric positive definite (the paper: ρ = 0.9; the extracted text prints the lower-left
        entry as 1, a typo since the caption says Σ₁₂ = Σ₂₁ = 0.9).

    Notes
    -----
    The paper also states a prior N(0, I); a prior would change the law to N(0, (Σ⁻¹ + I)⁻¹),
    while the paper reconstructs Σ itself, so we sample N(0, Σ) as the SGHMC example it cites does.
    """

    cov: np.ndarray

    def __post_init__(self):
        c = check_finite_array("cov", self.cov, ndim=2)
        if c.shape != (2, 2) or not np.allclose(c, c.T) or np.any(np.linalg.eigvalsh(c) <= 0):
            raise ValueError(f"cov must be a symmetric positive-definite 2x2 matrix, got {c!r}")
        object.__setattr__(self, "cov", c)
        object.__setattr__(self, "_prec", np.linalg.inv(c))

    n = 1
    dim = 2

    def data_gradients(self, theta, idx):
        return (theta @ self._prec)[:, None, :].repeat(idx.shape[1], axis=1)

    def prior_gradient(self, theta):
        return np.zeros_like(theta)

    def full_gradient(self, theta):
        return theta @ self._prec

    def potential(self, theta):
        return 0.5 * np.einsum("ci,ij,cj->c", theta, self._prec, theta)


@dataclass(frozen=True)
class NoisyExactGradient:
    """Stochastic gradient ``∇V(x) + s·ξ``, ``ξ ~ N(0, I)`` (the SGHMC paper's §5.1 construction).

    Parameters
    ----------
    noise_scale : float, default 1
        ``s`` > 0 (the cited example uses N(0, 1) noise).

    Notes
    -----
    Costs 1 evaluation per step (the target has ``n = 1``).
    """

    noise_scale: float = 1.0

    def __post_init__(self):
        check_positive("noise_scale", self.noise_scale)

    def init(self, target, position, rng=None):
        return None

    def __call__(self, state, rng, target, position, context=StepContext()):
        g = target.full_gradient(position) + self.noise_scale * rng.standard_normal(position.shape)
        return GradientEstimate(g, 1, None, {})

    def settings(self) -> dict:
        return {"estimator": "exact+gaussian_noise", "noise_scale": self.noise_scale}


def mixture_centers(n: int, seed: int) -> np.ndarray:
    """``a_i ~ N([2, 2], 2I)``, ``(n, 2)``, drawn exactly from ``default_rng(seed)``.

    The paper draws them "by the MCMC sampler with MH correction"; an exact draw has the same law.
    """
    rng = np.random.default_rng(seed)
    return np.array([2.0, 2.0]) + np.sqrt(2.0) * rng.standard_normal((n, 2))


@dataclass(frozen=True, eq=False)
class GaussianMixtureTarget:
    """§4.1.2: ``π ∝ exp(−n⁻¹Σ_i f_i)``, ``e^{−f_i(x)} = ⅔e^{−‖x−a_i‖²/2} + ⅓e^{−‖x+a_i‖²/2}``.

    ``V(x) = n⁻¹ Σ_i f_i(x)``, i.e. per-datum terms ``V_i = f_i/n`` with
    ``f_i(x) = ‖x − a_i‖²/2 − log(2/3 + exp(−2⟨a_i, x⟩)/3)`` (as printed) and its gradient
    ``∇f_i(x) = x − a_i + 2a_i/(1 + 2 exp(2⟨x, a_i⟩))``.

    The paper prints ``∇f_i(x) = x − a_i + 2a_i/(2 + exp(2⟨x, a_i⟩))``, which is *not* the gradient
    of its own ``f_i`` (it agrees at ``⟨x, a_i⟩ = 0`` only; as ``⟨x, a_i⟩ → −∞`` it tends to ``x``
    instead of ``x + a_i``). We use the gradient of the printed density (checked against finite
    differences of :meth:`potential` and symbolically in :mod:`paper_repro.ls_sgld.experiments`).

    Parameters
    ----------
    centers : (n, 2) ndarray
        ``a_i``.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, §4.1.2.
    """

    centers: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "centers", check_finite_array("centers", self.centers, ndim=2))

    @property
    def n(self) -> int:
        return self.centers.shape[0]

    @property
    def dim(self) -> int:
        return self.centers.shape[1]

    def _grad_f(self, x, a):
        s = np.einsum("...d,...d->...", x, a)
        return x - a + 2.0 * a * expit(-(2.0 * s + np.log(2.0)))[..., None]  # 2a/(1 + 2e^{2s})

    def data_gradients(self, theta, idx):
        a = self.centers[idx]  # (chains, b, d)
        return self._grad_f(theta[:, None, :], a) / self.n

    def prior_gradient(self, theta):
        return np.zeros_like(theta)

    def full_gradient(self, theta):
        # n⁻¹Σ_i ∇f_i = θ − ā + n⁻¹ Σ_i a_i · 2/(1 + 2e^{2⟨θ, a_i⟩}), as two matrix products
        s = theta @ self.centers.T  # (chains, n)
        c = 2.0 * expit(-(2.0 * s + np.log(2.0)))
        return theta - self.centers.mean(axis=0) + (c @ self.centers) / self.n

    def potential(self, theta):
        x = theta[:, None, :]
        a = self.centers[None, :, :]
        lp = np.logaddexp(np.log(2 / 3) - 0.5 * np.sum((x - a) ** 2, -1), np.log(1 / 3) - 0.5 * np.sum((x + a) ** 2, -1))
        return -lp.mean(axis=1)
