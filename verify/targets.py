"""Finite-sum potentials ``V(θ) = V_0(θ) + Σ_{i=1}^n V_i(θ)`` with known answers.

The protocol is what every gradient estimator needs: ``n``, ``dim``, per-datum gradients for an
index array of shape ``(chains, b)``, the full gradient, and the potential. Budgets are counted as
the papers count them: one per-datum gradient ``∇V_i(θ)`` for one chain is one gradient
evaluation, and ``n`` evaluations are one data pass.

References
----------
EWSG §5.1 (seed ``000_8e0377c44e2ea3b8.txt``): ``V(θ) = Σ_i ½‖θ − c_i‖²``, n = 50, c_i ~ N(0, I₂).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from .errors import check_finite_array, check_positive_int

__all__ = ["FiniteSumPotential", "GaussianMeansTarget", "gaussian_means_target", "EWSG_GAUSSIAN_SEED"]

#: Seed of the c_i draw for the EWSG §5.1 target (``numpy.random.default_rng(EWSG_GAUSSIAN_SEED)``).
EWSG_GAUSSIAN_SEED = 20210501


@runtime_checkable
class FiniteSumPotential(Protocol):
    """What a gradient estimator may ask of a target.

    Attributes
    ----------
    n : int
        Number of data terms ``V_i``.
    dim : int
        Dimension ``d`` of θ.
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
class GaussianMeansTarget:
    """``V(θ) = Σ_i ½‖θ − c_i‖²``: a Gaussian posterior with mean ``c̄`` and covariance ``I/n``.

    Parameters
    ----------
    centers : (n, d) ndarray of float64
        The data ``c_i``.

    Notes
    -----
    Per-datum gradient ``∇V_i(θ) = θ − c_i``; it costs O(b d) per chain for ``b`` indices whatever
    ``n`` is. Every ``V_i`` has Hessian ``I``, so the minibatch gradient noise
    ``(n/b) Σ_j ∇V_{I_j}(θ) − ∇V(θ) = −(n/b) Σ_j (c_{I_j} − c̄)`` does not depend on θ: the
    stochastic-gradient samplers of this toolkit are then linear Gaussian recursions and their laws
    are known exactly (see :mod:`analytic.linear_samplers`).

    The exact posterior is in :func:`analytic.gaussian.quadratic_posterior`.
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

    @property
    def hessian(self) -> np.ndarray:
        """``∇²V = n I``, shape ``(d, d)``."""
        return self.n * np.eye(self.dim)

    @property
    def posterior_mean(self) -> np.ndarray:
        """``c̄``, shape ``(d,)``."""
        return self.centers.mean(axis=0)

    @property
    def posterior_cov(self) -> np.ndarray:
        """``I/n``, shape ``(d, d)``."""
        return np.eye(self.dim) / self.n

    def data_gradients(self, theta, idx):
        return theta[:, None, :] - self.centers[idx]

    def prior_gradient(self, theta):
        return np.zeros_like(theta)

    def full_gradient(self, theta):
        return self.n * (theta - self.posterior_mean)

    def potential(self, theta):
        # Σ_i ½‖θ − c_i‖² = n/2 ‖θ − c̄‖² + ½ Σ_i ‖c_i − c̄‖²
        c0 = self.centers - self.posterior_mean
        return 0.5 * self.n * np.sum((theta - self.posterior_mean) ** 2, axis=-1) + 0.5 * np.sum(c0**2)


def gaussian_means_target(n: int = 50, dim: int = 2, seed: int = EWSG_GAUSSIAN_SEED) -> GaussianMeansTarget:
    """The Gaussian target of EWSG §5.1 with ``c_i ~ N(0, I_d)`` drawn from ``default_rng(seed)``.

    Parameters
    ----------
    n : int, default 50
        Number of data terms (the journal text uses 50; the conference text 20).
    dim : int, default 2
    seed : int, default :data:`EWSG_GAUSSIAN_SEED`

    Returns
    -------
    GaussianMeansTarget

    Raises
    ------
    ValueError
        If ``n`` or ``dim`` is not a positive integer.

    Examples
    --------
    >>> t = gaussian_means_target()
    >>> (t.n, t.dim)
    (50, 2)
    """
    n = check_positive_int("n", n)
    dim = check_positive_int("dim", dim)
    rng = np.random.default_rng(seed)
    return GaussianMeansTarget(rng.standard_normal((n, dim)))
