"""Gaussian targets with known answers.

* :class:`GaussianMeansTarget`: the finite sum ``V(θ) = Σ_i ½‖θ − c_i‖²`` of EWSG §5.1 (and of the
  quadratic studies of HSG-HMC and LS-SGLD); its posterior is ``N(c̄, I/n)`` and every
  stochastic-gradient sampler on it is a linear Gaussian recursion (:mod:`analytic.linear_samplers`).
* :class:`GaussianTarget`: one "datum", ``V(θ) = ½(θ − μ)ᵀΣ⁻¹(θ − μ)``: LS-SGLD's §4.1.1 Gaussian
  (Σ = [[1, .9], [.9, 1]]) and its (4.3) Gaussian (μ = (1, 2), Σ = 4.5 I).

References
----------
EWSG §5.1 (seed ``000_8e0377c44e2ea3b8.txt``): ``V(θ) = Σ_i ½‖θ − c_i‖²``, n = 50, c_i ~ N(0, I₂).
LS-SGLD §4.1.1 and §4.1.3, eq. (4.3) (seed ``004_8438bd4b543e0fc4.txt``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_finite_array, check_positive_int
from .base import CentersTarget

__all__ = ["GaussianMeansTarget", "gaussian_means_target", "EWSG_GAUSSIAN_SEED", "GaussianTarget"]

#: Seed of the c_i draw for the EWSG §5.1 target (``numpy.random.default_rng(EWSG_GAUSSIAN_SEED)``).
EWSG_GAUSSIAN_SEED = 20210501


@dataclass(frozen=True, eq=False)
class GaussianMeansTarget(CentersTarget):
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


@dataclass(frozen=True, eq=False)
class GaussianTarget:
    """``V(θ) = ½(θ − μ)ᵀΣ⁻¹(θ − μ)`` as a finite sum of one datum (``n = 1``).

    Parameters
    ----------
    cov : (d, d) array_like of float64
        Σ, symmetric positive definite.
    mean : (d,) array_like of float64 or None, default None
        μ; ``None`` is the origin (the gradient is then ``θΣ⁻¹`` with no subtraction).

    Raises
    ------
    ValueError
        ``cov`` not a finite symmetric positive-definite matrix; ``mean`` not finite or of the
        wrong length.

    Notes
    -----
    LS-SGLD §4.1.1 uses Σ = [[1, ρ], [ρ, 1]], ρ = 0.9 (the extracted text prints the lower-left
    entry as 1, a typo since the caption says Σ₁₂ = Σ₂₁ = 0.9), and states a prior N(0, I); a prior
    would change the law to N(0, (Σ⁻¹ + I)⁻¹), while the paper reconstructs Σ itself, so we sample
    N(0, Σ) as the SGHMC example it cites does. §4.1.3's Gaussian (4.3) is μ = (1, 2), Σ = 4.5 I.
    Every "minibatch" repeats the one datum: ``data_gradients`` returns ``∇V`` ``b`` times.

    Examples
    --------
    >>> t = GaussianTarget(np.eye(2) * 4.5, mean=[1.0, 2.0])
    >>> t.full_gradient(np.array([[1.0, 2.0]]))
    array([[0., 0.]])
    """

    cov: np.ndarray
    mean: np.ndarray | None = None

    def __post_init__(self):
        c = check_finite_array("cov", self.cov, ndim=2)
        if c.shape[0] != c.shape[1] or c.shape[0] < 1 or not np.allclose(c, c.T) \
                or np.any(np.linalg.eigvalsh(c) <= 0):
            raise ValueError(f"cov must be a symmetric positive-definite (d, d) matrix, got {c!r}")
        object.__setattr__(self, "cov", c)
        object.__setattr__(self, "_prec", np.linalg.inv(c))
        if self.mean is not None:
            m = check_finite_array("mean", self.mean, ndim=1)
            if m.size != c.shape[0]:
                raise ValueError(f"mean must have length {c.shape[0]}, got {m.size}")
            object.__setattr__(self, "mean", m)

    n = 1

    @property
    def dim(self) -> int:
        return self.cov.shape[0]

    def _centred(self, theta):
        return theta if self.mean is None else theta - self.mean

    def data_gradients(self, theta, idx):
        return (self._centred(theta) @ self._prec)[:, None, :].repeat(idx.shape[1], axis=1)

    def prior_gradient(self, theta):
        return np.zeros_like(theta)

    def full_gradient(self, theta):
        return self._centred(theta) @ self._prec

    def potential(self, theta):
        x = self._centred(theta)
        return 0.5 * np.einsum("ci,ij,cj->c", x, self._prec, x)
