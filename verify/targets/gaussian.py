"""Gaussian targets with known answers.

* :class:`GaussianMeansTarget`: the finite sum ``V(θ) = Σ_i ½‖θ − c_i‖²`` of EWSG §5.1 (and of the
  quadratic studies of HSG-HMC and LS-SGLD); its posterior is ``N(c̄, I/n)`` and every
  stochastic-gradient sampler on it is a linear Gaussian recursion (:mod:`sgmcmc_verify.analytic.linear_samplers`).
* :class:`GaussianTarget`: one "datum", ``V(θ) = ½(θ − μ)ᵀΣ⁻¹(θ − μ)``: LS-SGLD's §4.1.1 Gaussian
  (Σ = [[1, .9], [.9, 1]]) and its (4.3) Gaussian (μ = (1, 2), Σ = 4.5 I).
* :class:`GaussianMeanModel`: the Gaussian-mean model with a Gaussian prior, ``x_i ~ N(θ, I)``,
  ``θ ~ N(0, I/λ)``: ``V(θ) = λ‖θ‖²/2 + Σ_i ½‖θ − x_i‖²`` (vrSG-MCMC §5 "A synthetic experiment",
  :func:`vrsg_gaussian_target`: d = 1, N = 1000, λ = 1).

References
----------
EWSG §5.1 (seed ``000_8e0377c44e2ea3b8.txt``): ``V(θ) = Σ_i ½‖θ − c_i‖²``, n = 50, c_i ~ N(0, I₂).
LS-SGLD §4.1.1 and §4.1.3, eq. (4.3) (seed ``004_8438bd4b543e0fc4.txt``).
vrSG-MCMC §5, "A synthetic experiment" (seed ``002_245183f35db8d795.txt``): ``x_i ~ N(θ, 1)``,
``θ ~ N(0, 1)``, N = 1000, test function ``φ(θ) = θ²``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_finite_array, check_positive, check_positive_int
from .base import CentersTarget, GaussianExactAnswers

__all__ = ["GaussianMeansTarget", "gaussian_means_target", "EWSG_GAUSSIAN_SEED", "GaussianTarget",
           "GaussianMeanModel", "vrsg_gaussian_target", "VRSG_GAUSSIAN_SEED", "AnisotropicGaussianMeansTarget",
           "anisotropic_gaussian_means_target"]

#: Seed of the c_i draw for the EWSG §5.1 target (``numpy.random.default_rng(EWSG_GAUSSIAN_SEED)``).
EWSG_GAUSSIAN_SEED = 20210501

#: Seed of the vrSG-MCMC §5 data (``numpy.random.default_rng(VRSG_GAUSSIAN_SEED)``: first the generating
#: θ from the prior, then the N data). Fixed before any result was looked at (the paper's AAAI year and
#: month); the draw it gives (θ = 3.384) is a 3.4-s.d. prior draw, so the experiments also report a
#: sensitivity to the generating θ (see :mod:`sgmcmc_verify.paper_repro.vrsg.theory`).
VRSG_GAUSSIAN_SEED = 20180202


class _UnitQuadraticCenters(GaussianExactAnswers, CentersTarget):
    """Per-datum potential ``½‖θ − c_i‖²``: the per-datum gradients and their minibatch sum, shared by the
    Gaussian-mean targets below."""

    def data_gradients(self, theta, idx):
        return theta[:, None, :] - np.take(self.centers, idx, axis=0)  # take: the rows of c[idx], without fancy indexing's per-row copy

    def data_potentials(self, theta, idx):
        """``½‖θ_c − c_{idx[c, j]}‖²``: ``(chains, b)``."""
        return 0.5 * np.sum((theta[:, None, :] - self.centers[idx]) ** 2, axis=-1)

    def data_gradient_sum_exact(self, theta, idx):
        """``Σ_j (θ_c − c_{idx[c, j]})`` in ``j`` order, without the per-datum reference's reduction.

        Bit-identical to ``data_gradients(θ, idx).sum(axis=1)``: for ``d ≥ 2`` NumPy reduces the middle
        axis term by term in ``j`` order, which the accumulation below repeats; for ``d = 1`` the
        reduction axis is the contiguous one (pairwise summation), so the reference sum is kept.
        Each gather is an allocating ``np.take`` of rows (fancy indexing ``c[i]`` copies row by row, about
        20× slower for 16-byte rows; ``take(..., out=)`` buffers its output in the default ``mode="raise"``).

        Parameters
        ----------
        theta : (chains, d) ndarray of float64
        idx : (chains, b) ndarray of int

        Returns
        -------
        (chains, d) ndarray of float64
        """
        if self.dim < 2 or idx.shape[1] < 1:
            return self.data_gradients(theta, idx).sum(axis=1)
        c = self.centers
        if idx.shape[1] == 1:
            return theta - np.take(c, idx[:, 0], axis=0)
        cols = np.ascontiguousarray(idx.T)  # one contiguous row of indices per j
        acc = np.take(c, cols[0], axis=0)
        np.subtract(theta, acc, out=acc)
        for j in range(1, cols.shape[0]):
            term = np.take(c, cols[j], axis=0)
            np.subtract(theta, term, out=term)
            acc += term
        return acc

    def compiled_form(self):
        """``("unit_quadratic", centers, λ)``: ``V(θ) = λ‖θ‖²/2 + Σ_i ½‖θ − c_i‖²``, ``λ`` ``None`` without a prior.

        What the compiled kernels of :mod:`sgmcmc_verify.integrators.compiled` need to repeat this target's
        arithmetic (``∇V_0 = λθ`` or zeros, ``∇V_i = θ − c_i``, the minibatch sum of
        :meth:`data_gradient_sum_exact`).
        """
        lam = getattr(self, "prior_precision", None)
        return "unit_quadratic", self.centers, (None if lam is None else float(lam))


@dataclass(frozen=True, eq=False)
class GaussianMeansTarget(_UnitQuadraticCenters):
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
    are known exactly (see :mod:`sgmcmc_verify.analytic.linear_samplers`).

    The exact posterior is in :func:`sgmcmc_verify.analytic.gaussian.quadratic_posterior`.
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
class GaussianTarget(GaussianExactAnswers):
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

    def data_potentials(self, theta, idx):
        """The one datum's ``V`` for every index: ``(chains, b)``."""
        return np.repeat(self.potential(theta)[:, None], idx.shape[1], axis=1)

    @property
    def hessian(self) -> np.ndarray:
        """``Σ⁻¹``, shape ``(d, d)``."""
        return self._prec

    @property
    def posterior_mean(self) -> np.ndarray:
        """``μ`` (the origin when ``mean`` is None), shape ``(d,)``."""
        return np.zeros(self.dim) if self.mean is None else self.mean

    @property
    def posterior_cov(self) -> np.ndarray:
        """``Σ``, shape ``(d, d)``."""
        return self.cov

    def prior_gradient(self, theta):
        return np.zeros_like(theta)

    def full_gradient(self, theta):
        return self._centred(theta) @ self._prec

    def potential(self, theta):
        x = self._centred(theta)
        return 0.5 * np.einsum("ci,ij,cj->c", x, self._prec, x)


@dataclass(frozen=True, eq=False)
class GaussianMeanModel(_UnitQuadraticCenters):
    """The Gaussian-mean model with a Gaussian prior: ``V(θ) = λ‖θ‖²/2 + Σ_i ½‖θ − x_i‖²``.

    Data ``x_i ~ N(θ, I_d)``, prior ``θ ~ N(0, I_d/λ)``; the posterior is ``N(N x̄/(N + λ), I/(N + λ))``.

    Parameters
    ----------
    centers : (N, d) array_like of float64
        The data ``x_i`` (the name is the one of :class:`~sgmcmc_verify.targets.base.CentersTarget`).
    prior_precision : float, default 1
        ``λ > 0`` (vrSG-MCMC §5: the prior ``N(0, 1)``, λ = 1).

    Raises
    ------
    ValueError
        ``centers`` not finite or not ``(N, d)``; ``prior_precision`` not a finite number > 0.

    Notes
    -----
    Per-datum gradient ``∇V_i(θ) = θ − x_i`` (O(b d) per chain for b indices, whatever N is), prior
    gradient ``λθ``. Every ``V_i`` has Hessian ``I``: the minibatch noise
    ``(N/b) Σ_j ∇V_{I_j}(θ) − Σ_i ∇V_i(θ) = N(x̄ − x̄_I)`` does not depend on θ, so SGLD and vrSG-LD on
    this target are linear recursions with additive noise whose exact moments are in
    :mod:`sgmcmc_verify.analytic.vrsg_gaussian`; the control variate of vrSG-MCMC is exact here
    (``∇V_i(θ) − ∇V_i(θ̃) = θ − θ̃`` for every i), so vrSG-LD's gradient is ``(N + λ)θ − N x̄_b`` with
    ``x̄_b`` the mean of the anchor minibatch, whatever ``n2`` is.

    Examples
    --------
    >>> t = GaussianMeanModel(np.array([[1.0], [3.0]]))
    >>> t.posterior_mean, t.posterior_cov
    (array([1.33333333]), array([[0.33333333]]))
    >>> t.full_gradient(t.posterior_mean[None])
    array([[0.]])
    """

    prior_precision: float = 1.0

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "prior_precision", check_positive("prior_precision", self.prior_precision))

    @property
    def hessian(self) -> np.ndarray:
        """``∇²V = (N + λ) I``, shape ``(d, d)``."""
        return (self.n + self.prior_precision) * np.eye(self.dim)

    @property
    def posterior_mean(self) -> np.ndarray:
        """``N x̄ / (N + λ)``, shape ``(d,)``."""
        return self.centers.sum(axis=0) / (self.n + self.prior_precision)

    @property
    def posterior_cov(self) -> np.ndarray:
        """``I / (N + λ)``, shape ``(d, d)``."""
        return np.eye(self.dim) / (self.n + self.prior_precision)

    def prior_gradient(self, theta):
        return self.prior_precision * theta

    def full_gradient(self, theta):
        return (self.n + self.prior_precision) * theta - self.centers.sum(axis=0)

    def potential(self, theta):
        m, k = self.posterior_mean, self.n + self.prior_precision
        const = 0.5 * np.sum(self.centers**2) - 0.5 * k * np.sum(m**2)
        return 0.5 * k * np.sum((theta - m) ** 2, axis=-1) + const


def vrsg_gaussian_target(n: int = 1000, dim: int = 1, seed: int = VRSG_GAUSSIAN_SEED,
                         generating_theta: float | None = None) -> GaussianMeanModel:
    """The synthetic model of vrSG-MCMC §5: ``θ ~ N(0, 1)``, then ``x_i ~ N(θ, 1)``, ``i = 1..n``.

    Parameters
    ----------
    n : int, default 1000
        N, the number of data (the paper: 1000).
    dim : int, default 1
        The paper's model is one-dimensional.
    seed : int, default :data:`VRSG_GAUSSIAN_SEED`
        ``default_rng(seed)`` draws the generating θ (``dim`` standard normals) first, then the
        ``(n, dim)`` noise of the data.
    generating_theta : float or None
        Use this generating θ instead of the prior draw (the noise of the data is the same draw), for
        the sensitivity to θ of the experiments. ``None``: the prior draw.

    Returns
    -------
    GaussianMeanModel
        With prior precision 1.

    Raises
    ------
    ValueError
        ``n`` or ``dim`` not a positive integer, ``generating_theta`` not finite.

    Examples
    --------
    >>> t = vrsg_gaussian_target()
    >>> t.n, t.dim, round(float(t.posterior_mean[0]), 3)
    (1000, 1, 3.382)
    """
    n = check_positive_int("n", n)
    dim = check_positive_int("dim", dim)
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(dim)
    noise = rng.standard_normal((n, dim))
    if generating_theta is not None:
        g = float(generating_theta)
        if not np.isfinite(g):
            raise ValueError(f"generating_theta must be finite, got {generating_theta!r}")
        theta = np.full(dim, g)
    return GaussianMeanModel(theta + noise)


@dataclass(frozen=True, eq=False)
class AnisotropicGaussianMeansTarget(_UnitQuadraticCenters):
    """``V(θ) = Σ_i ½(θ − c_i)ᵀ P (θ − c_i)`` with ``P = diag(precision)``: an anisotropic Gaussian finite sum.

    Parameters
    ----------
    centers : (n, d) array_like of float64
        The data ``c_i``.
    precision : (d,) array_like of float64
        The diagonal of ``P``, every entry > 0. ``P = I`` is :class:`GaussianMeansTarget`.

    Raises
    ------
    ValueError
        ``centers`` not finite or not ``(n, d)``; ``precision`` not ``d`` finite numbers > 0.

    Notes
    -----
    The posterior is ``N(c̄, (nP)⁻¹)``; the Hessian is ``nP`` (``L = n max P``, ``λ_min = n min P``, condition
    number ``max P / min P``). Per-datum gradient ``∇V_i(θ) = P(θ − c_i)``, O(b d) per chain. Every ``V_i``
    has Hessian ``P``: the minibatch noise ``−(n/b) Σ_j P(c_{I_j} − c̄)`` does not depend on θ and has
    covariance ``P Q₀ P`` with ``Q₀`` the one of :func:`sgmcmc_verify.analytic.linear_samplers.minibatch_noise_covariance`,
    so SGLD and underdamped EM on this target are linear recursions with known laws. The audit battery
    (:mod:`sgmcmc_verify.audit`) uses it for its anisotropic consistency check and its stiff stability check.

    Examples
    --------
    >>> t = AnisotropicGaussianMeansTarget(np.array([[0.0, 0.0], [2.0, 2.0]]), precision=[1.0, 4.0])
    >>> t.hessian
    array([[2., 0.],
           [0., 8.]])
    >>> t.full_gradient(t.posterior_mean[None])
    array([[0., 0.]])
    """

    precision: np.ndarray = None

    def __post_init__(self):
        super().__post_init__()
        p = check_finite_array("precision", self.precision, ndim=1)
        if p.size != self.dim or np.any(p <= 0):
            raise ValueError(f"precision must hold {self.dim} numbers > 0, got {self.precision!r}")
        object.__setattr__(self, "precision", p)

    def data_gradients(self, theta, idx):
        return (theta[:, None, :] - np.take(self.centers, idx, axis=0)) * self.precision

    def data_potentials(self, theta, idx):
        """``½(θ_c − c_i)ᵀP(θ_c − c_i)``: ``(chains, b)``."""
        return 0.5 * np.sum(self.precision * (theta[:, None, :] - self.centers[idx]) ** 2, axis=-1)

    def data_gradient_sum_exact(self, theta, idx):
        """``Σ_j P(θ_c − c_{idx[c, j]})``: (chains, d), idx (chains, b) → (chains, d); the per-datum reference
        sum itself (bit-identical to ``data_gradients(θ, idx).sum(axis=1)`` by construction)."""
        return self.data_gradients(theta, idx).sum(axis=1)

    @property
    def hessian(self) -> np.ndarray:
        """``∇²V = n P``, shape ``(d, d)``."""
        return self.n * np.diag(self.precision)

    @property
    def posterior_mean(self) -> np.ndarray:
        """``c̄``, shape ``(d,)``."""
        return self.centers.mean(axis=0)

    @property
    def posterior_cov(self) -> np.ndarray:
        """``(nP)⁻¹``, shape ``(d, d)``."""
        return np.diag(1.0 / (self.n * self.precision))

    def full_gradient(self, theta):
        return self.n * (theta - self.posterior_mean) * self.precision

    def potential(self, theta):
        c0 = self.centers - self.posterior_mean
        return (0.5 * self.n * np.sum(self.precision * (theta - self.posterior_mean) ** 2, axis=-1)
                + 0.5 * np.sum(self.precision * c0**2))


def anisotropic_gaussian_means_target(precision, n: int = 50, seed: int = EWSG_GAUSSIAN_SEED
                                      ) -> AnisotropicGaussianMeansTarget:
    """:class:`AnisotropicGaussianMeansTarget` with ``c_i ~ N(0, I_d)`` from ``default_rng(seed)``, ``d = len(precision)``.

    The centres are the draw of :func:`gaussian_means_target` (same ``n``, ``d``, ``seed``), so
    ``precision = (1, …, 1)`` gives back the EWSG §5.1 target.

    Raises
    ------
    ValueError
        ``n`` not a positive integer; ``precision`` not finite numbers > 0.

    Examples
    --------
    >>> t = anisotropic_gaussian_means_target([1.0, 0.25])
    >>> t.n, t.dim, float(t.hessian[1, 1])
    (50, 2, 12.5)
    """
    p = check_finite_array("precision", precision, ndim=1)
    base = gaussian_means_target(n, p.size, seed)
    return AnisotropicGaussianMeansTarget(base.centers, p)
