"""The finite-sum potential protocol that every gradient estimator and integrator relies on.

``V(θ) = V_0(θ) + Σ_{i=1}^n V_i(θ)`` with ``π ∝ exp(−V)``. Budgets are counted as the papers count
them: one per-datum gradient ``∇V_i(θ)`` for one chain is one gradient evaluation, and ``n``
evaluations are one data pass.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from ..errors import check_finite_array

__all__ = ["FiniteSumPotential", "CentersTarget", "ExactAnswers", "GaussianExactAnswers"]


@runtime_checkable
class FiniteSumPotential(Protocol):
    """What a gradient estimator or an integrator may ask of a target.

    Attributes
    ----------
    n : int
        Number of data terms ``V_i``.
    dim : int
        Dimension ``d`` of θ.

    Notes
    -----
    A target whose per-datum gradients are large (a neural network) may also offer
    ``data_gradient_sum(theta, idx) -> (chains, d)``, the sum over the minibatch without the
    ``(chains, b, d)`` array; the estimators of :mod:`sgmcmc_verify.estimators` use it where present
    (:func:`sgmcmc_verify.estimators.base.sum_data_gradients`) and do not require it.
    """

    n: int
    dim: int

    def data_gradients(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """``∇V_{idx[c, j]}(θ_c)``: theta ``(chains, d)``, idx ``(chains, b)`` int → ``(chains, b, d)``."""

    def prior_gradient(self, theta: np.ndarray) -> np.ndarray:
        """``∇V_0(θ)`` for the data-free part of the potential: ``(chains, d)`` → ``(chains, d)``."""

    def full_gradient(self, theta: np.ndarray) -> np.ndarray:
        """``∇V(θ) = ∇V_0(θ) + Σ_i ∇V_i(θ)``: ``(chains, d)`` → ``(chains, d)``; costs ``n`` evaluations a chain."""

    def potential(self, theta: np.ndarray) -> np.ndarray:
        """``V(θ)``: ``(chains, d)`` → ``(chains,)``."""

    def data_potentials(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """``V_{idx[c, j]}(θ_c)``: theta ``(chains, d)``, idx ``(chains, b)`` → ``(chains, b)``; the terms whose
        gradients :meth:`data_gradients` returns (``V = V_0 + Σ_i V_i`` with ``V_0`` the prior's part)."""

    def exact_answers(self) -> "ExactAnswers":
        """What is known exactly about ``π ∝ exp(−V)`` (:class:`ExactAnswers`; empty fields where nothing is)."""


@dataclass(frozen=True)
class ExactAnswers:
    """The exact answers a target offers, part of the target protocol (:meth:`FiniteSumPotential.exact_answers`).

    Every field is optional; ``None`` means "not known exactly for this target" and ``missing`` says why.
    The conformance suite (``tests/verify/targets/test_conformance.py``) checks every field a registered target
    fills: the Hessian against finite differences of the gradient, the mean as the zero of the gradient (where
    the Hessian is constant), the mean and covariance against quadrature (``d ≤ 2``), the exact draws against
    the mean and covariance.

    Attributes
    ----------
    mean : (d,) ndarray or None
        ``E_π θ``.
    cov : (d, d) ndarray or None
        ``Cov_π θ``.
    hessian : (d, d) ndarray or None
        ``∇²V`` where it is constant (the Gaussian targets).
    grid : GridDensity or None
        The normalized density on a 2-D grid (:func:`sgmcmc_verify.targets.grid_density`), midpoint quadrature.
    sample : callable ``(rng, size) -> (size, d)`` or None
        Exact draws from π (or from the grid density where that is the reference).
    source : str
        Where the answers come from ("closed form", "quadrature on a 600² grid", ...).
    missing : str
        Why the empty fields are empty.
    """

    mean: np.ndarray | None = None
    cov: np.ndarray | None = None
    hessian: np.ndarray | None = None
    grid: Any = None
    sample: Callable | None = None
    source: str = ""
    missing: str = ""


class GaussianExactAnswers:
    """Mixin: the exact answers of a Gaussian target from its ``posterior_mean``, ``posterior_cov``, ``hessian``."""

    def exact_answers(self) -> ExactAnswers:
        """Mean, covariance and Hessian in closed form; exact draws ``mean + L z`` with ``L Lᵀ = cov``."""
        mean, cov = np.asarray(self.posterior_mean, dtype=np.float64), np.asarray(self.posterior_cov, dtype=np.float64)
        L = np.linalg.cholesky(cov)

        def sample(rng, size):
            return mean + rng.standard_normal((int(size), mean.size)) @ L.T

        return ExactAnswers(mean=mean, cov=cov, hessian=np.asarray(self.hessian, dtype=np.float64), sample=sample,
                            source="closed form (Gaussian)", missing="no grid: the closed form is the reference")


@dataclass(frozen=True, eq=False)
class CentersTarget:
    """Base of the finite sums whose data are points ``c_i`` (the rows of ``centers``) and that have no prior.

    Parameters
    ----------
    centers : (n, d) array_like of float64
        The data; ``n = centers.shape[0]`` terms in dimension ``d = centers.shape[1]``.

    Raises
    ------
    ValueError
        ``centers`` not finite or not of shape ``(n, d)`` with ``n, d >= 1``.
    """

    centers: np.ndarray

    def __post_init__(self):
        c = check_finite_array("centers", self.centers, ndim=2)
        if c.shape[0] < 1 or c.shape[1] < 1:
            raise ValueError(f"centers must have shape (n, d) with n, d >= 1, got {c.shape}")
        object.__setattr__(self, "centers", c)

    @property
    def n(self) -> int:
        return self.centers.shape[0]

    @property
    def dim(self) -> int:
        return self.centers.shape[1]

    def prior_gradient(self, theta):
        """No prior: ``∇V_0 = 0``."""
        return np.zeros_like(theta)

    #: marks this method as the zero prior (an estimator may skip adding it; an override has no such mark)
    prior_gradient.zero_prior = True
