"""The finite-sum potential protocol that every gradient estimator and integrator relies on.

``V(θ) = V_0(θ) + Σ_{i=1}^n V_i(θ)`` with ``π ∝ exp(−V)``. Budgets are counted as the papers count
them: one per-datum gradient ``∇V_i(θ)`` for one chain is one gradient evaluation, and ``n``
evaluations are one data pass.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import check_finite_array

__all__ = ["FiniteSumPotential", "CentersTarget"]


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
