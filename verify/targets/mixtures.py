"""The Gaussian-mixture potentials of HSG-HMC (Table 2, Figure 1) and LS-SGLD (§4.1.2, Table 2, Fig. 3).

Both papers use the same family: ``π(x) ∝ exp(−f(x))``, ``f = (1/N) Σ_i f_i`` with
``exp(−f_i(x)) ∝ 2e^{−‖x−a_i‖²/2} + e^{−‖x+a_i‖²/2}`` (two modes at ``±ā``, weights 2 : 1). They
differ in the law of the centres and in how the papers write the gradient:

* :class:`HSGMixtureTarget` — HSG-HMC: ``a_i ~ N((2, …, 2), I_d)``, N = 500, d = 2
  (:func:`hsg_mixture_target`); gradient ``∇f_i(x) = x − (2p_i − 1) a_i``, ``p_i = σ(2⟨x, a_i⟩ + log 2)``.
* :class:`LSMixtureTarget` — LS-SGLD: ``a_i ~ N((2, 2), 2I)`` (:func:`mixture_centers`);
  gradient written ``x − a_i + 2a_i/(1 + 2e^{2⟨x, a_i⟩})`` (the printed formula is wrong; see
  the class).

The two gradient expressions are equal in exact arithmetic; each class keeps its paper's
floating-point arrangement so that every stored number of both papers reproduces bit for bit.
As finite sums ``V = Σ_i V_i`` with ``V_i = f_i / N``, so that ``∇F(x, ξ) = N ∇V_ξ(x) = ∇f_ξ(x)``
is the simple stochastic gradient of the HSG-HMC seed's (2).

Exact answers for HSG-HMC: the normalized density on a grid by quadrature (:func:`grid_density`),
exact draws from it (:func:`sample_from_grid`), and the constants of Assumptions 1–3 with which
Lemma 3's bound (10) is drawn (:func:`assumption_constants`).

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: § "Sampling from a Gaussian Mixture Density",
Table 2, Figure 1; Assumptions 1–3; Lemma 3 eqs. (9)–(12).
LS-SGLD, seed ``004_8438bd4b543e0fc4.txt``: §4.1.2.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, logsumexp

from ..errors import check_positive_int
from .base import CentersTarget, ExactAnswers

__all__ = ["HSGMixtureTarget", "hsg_mixture_target", "MIXTURE_SEED", "GridDensity", "grid_density",
           "sample_from_grid", "AssumptionConstants", "assumption_constants", "LSMixtureTarget", "mixture_centers"]

#: Seed of the ``a_i`` draw: ``numpy.random.default_rng(MIXTURE_SEED)`` (the paper gives none).
MIXTURE_SEED = 20210202

_LOG2 = float(np.log(2.0))


@dataclass(frozen=True, eq=False)
class HSGMixtureTarget(CentersTarget):
    """HSG-HMC's mixture: ``V(x) = (1/N) Σ_i f_i(x)``, ``exp(−f_i) = 2e^{−‖x−a_i‖²/2} + e^{−‖x+a_i‖²/2}``.

    Parameters
    ----------
    centers : (N, d) ndarray of float64
        The data ``a_i``.

    Notes
    -----
    ``f_i(x) = ‖x‖²/2 + ‖a_i‖²/2 − log(2e^{⟨x,a_i⟩} + e^{−⟨x,a_i⟩})`` and
    ``∇f_i(x) = x − (2p_i − 1) a_i`` with ``p_i = σ(2⟨x, a_i⟩ + log 2)`` (σ the logistic function).
    Per-datum cost O(b d) per chain.
    """

    def component_gradients(self, theta, idx):
        """``∇f_{idx}(θ)``: theta (chains, d), idx (chains, b) → (chains, b, d)."""
        a = np.take(self.centers, idx, axis=0)  # the rows c[idx] (take: no fancy indexing's per-row copy)
        s = np.einsum("cbd,cd->cb", a, theta)
        p = expit(2.0 * s + _LOG2)
        return theta[:, None, :] - (2.0 * p - 1.0)[..., None] * a

    def data_gradients(self, theta, idx):
        return self.component_gradients(theta, idx) / self.n

    def data_potentials(self, theta, idx):
        """``f_i(θ)/N``: theta ``(chains, d)``, idx ``(chains, b)`` → ``(chains, b)``."""
        a = self.centers[idx]
        s = np.einsum("cbd,cd->cb", a, theta)
        f = 0.5 * np.sum(theta**2, axis=-1)[:, None] + 0.5 * np.sum(a**2, axis=-1) - np.logaddexp(s + _LOG2, -s)
        return f / self.n

    def exact_answers(self):
        """In ``d = 2``: the midpoint quadrature of ``exp(−V)`` on a 600² grid over [−8, 10]², its mean and
        covariance, and exact draws from the grid density (:func:`grid_density`, :func:`sample_from_grid`)."""
        return _grid_answers(self, (-8.0, -8.0), (10.0, 10.0))

    def compiled_form(self):
        """``("hsg_mixture", centers, None)``: what :mod:`sgmcmc_verify.integrators.compiled` needs to repeat
        :meth:`data_gradients` (``∇V_i = (θ − (2p_i − 1)a_i)/N``, no prior)."""
        return "hsg_mixture", self.centers, None

    def full_gradient(self, theta):
        s = theta @ self.centers.T  # (chains, N)
        w = 2.0 * expit(2.0 * s + _LOG2) - 1.0
        return theta - (w @ self.centers) / self.n

    def potential(self, theta):
        s = theta @ self.centers.T
        lse = np.logaddexp(s + _LOG2, -s)
        return 0.5 * np.sum(theta**2, axis=-1) + 0.5 * np.mean(np.sum(self.centers**2, axis=1)) - lse.mean(axis=1)

    def gradient_variance(self, theta):
        """``E_ξ‖∇F(θ, ξ) − ∇f(θ)‖²`` exactly (a full pass): (chains, d) → (chains,)."""
        s = theta @ self.centers.T
        w = 2.0 * expit(2.0 * s + _LOG2) - 1.0  # (chains, N)
        terms = w[:, :, None] * self.centers[None]  # (chains, N, d): ∇f_i = θ − terms
        dev = terms - terms.mean(axis=1, keepdims=True)
        return np.mean(np.sum(dev**2, axis=-1), axis=1)


def hsg_mixture_target(n: int = 500, dim: int = 2, seed: int = MIXTURE_SEED) -> HSGMixtureTarget:
    """The seed's mixture target with ``a_i ~ N((2, …, 2), I_d)`` drawn from ``default_rng(seed)``.

    Parameters
    ----------
    n : int, default 500
        ``N``.
    dim : int, default 2
    seed : int, default :data:`MIXTURE_SEED`

    Raises
    ------
    ValueError
        ``n`` or ``dim`` not an integer >= 1.
    """
    n = check_positive_int("n", n)
    dim = check_positive_int("dim", dim)
    rng = np.random.default_rng(seed)
    return HSGMixtureTarget(2.0 + rng.standard_normal((n, dim)))


class GridDensity(NamedTuple):
    """The normalized density on a regular 2-D grid (cell centres).

    x, y : (nx,), (ny,) cell centres; prob : (nx, ny) cell probabilities (sum 1);
    cell : (dx, dy); mean : (2,); cov : (2, 2); mass_at_boundary : float (probability of the outer
    ring of cells, to show the box holds the mass).
    """

    x: np.ndarray
    y: np.ndarray
    prob: np.ndarray
    cell: tuple
    mean: np.ndarray
    cov: np.ndarray
    mass_at_boundary: float


def grid_density(target: HSGMixtureTarget, lower=(-8.0, -8.0), upper=(10.0, 10.0), cells: int = 600) -> GridDensity:
    """Quadrature (midpoint rule) of ``exp(−f)`` on a 2-D box.

    Parameters
    ----------
    target : any target with ``dim == 2`` and a ``potential``
    lower, upper : 2-tuples of float
    cells : int, default 600
        Cells per axis.

    Returns
    -------
    GridDensity

    Raises
    ------
    ValueError
        ``target.dim != 2``, ``cells < 2``, or an empty box.
    """
    if target.dim != 2:
        raise ValueError(f"grid_density needs a 2-D target, got dim = {target.dim}")
    cells = check_positive_int("cells", cells)
    if cells < 2:
        raise ValueError(f"cells must be >= 2, got {cells}")
    lo, hi = np.asarray(lower, float), np.asarray(upper, float)
    if not np.all(hi > lo):
        raise ValueError(f"upper must exceed lower, got lower={lower}, upper={upper}")
    dx, dy = (hi - lo) / cells
    x = lo[0] + dx * (np.arange(cells) + 0.5)
    y = lo[1] + dy * (np.arange(cells) + 0.5)
    X, Y = np.meshgrid(x, y, indexing="ij")
    pts = np.stack([X.ravel(), Y.ravel()], axis=1)
    logp = np.concatenate([-target.potential(pts[i:i + 20000]) for i in range(0, len(pts), 20000)])
    logp = logp.reshape(cells, cells)
    prob = np.exp(logp - logsumexp(logp))
    mean = np.array([np.sum(prob * X), np.sum(prob * Y)])
    cxx = np.sum(prob * (X - mean[0]) ** 2) + dx**2 / 12
    cyy = np.sum(prob * (Y - mean[1]) ** 2) + dy**2 / 12
    cxy = np.sum(prob * (X - mean[0]) * (Y - mean[1]))
    ring = prob[0].sum() + prob[-1].sum() + prob[1:-1, 0].sum() + prob[1:-1, -1].sum()
    return GridDensity(x, y, prob, (float(dx), float(dy)), mean, np.array([[cxx, cxy], [cxy, cyy]]), float(ring))


def sample_from_grid(grid: GridDensity, size: int, rng: np.random.Generator) -> np.ndarray:
    """Exact draws from the piecewise-constant grid density: a cell by its probability, then uniform in it.

    Returns
    -------
    (size, 2) ndarray of float64
    """
    size = check_positive_int("size", size)
    flat = rng.choice(grid.prob.size, size=size, p=grid.prob.ravel())
    i, j = np.unravel_index(flat, grid.prob.shape)
    dx, dy = grid.cell
    u = rng.random((size, 2)) - 0.5
    return np.stack([grid.x[i] + dx * u[:, 0], grid.y[j] + dy * u[:, 1]], axis=1)


class AssumptionConstants(NamedTuple):
    """Constants of Assumptions 1–3 and Lemma 3 for the mixture target (closed-form bounds).

    G2 : float     ``G² = (1/N) Σ‖a_i‖²`` ≥ sup_x E‖∇F(x,ξ) − ∇f(x)‖² (Assumption 1)
    M : float      ``M = ((1/N) Σ max(1, ‖a_i‖² − 1)²)^{1/2}`` (Assumption 2)
    m, b : float   ``m = 1/2``, ``b = ((1/N) Σ‖a_i‖)²/2`` (Assumption 3)
    x_star : (d,)  minimizer of ``f``; f0_minus_fstar : float ``f(0) − f(x*)``
    """

    G2: float
    M: float
    m: float
    b: float
    x_star: np.ndarray
    f0_minus_fstar: float


def assumption_constants(target: HSGMixtureTarget) -> AssumptionConstants:
    """Closed-form constants of Assumptions 1–3 for :class:`HSGMixtureTarget`.

    Notes
    -----
    * ``∇F(x, ξ) − ∇f(x) = −(w_ξ a_ξ − mean_i w_i a_i)`` with ``|w_i| = |2p_i − 1| ≤ 1``, so the
      variance is at most ``(1/N) Σ‖a_i‖²``.
    * ``∇²f_i = I − 4p_i(1 − p_i) a_i a_iᵀ`` has eigenvalues in ``[1 − ‖a_i‖², 1]``, so ``∇f_i`` is
      ``L_i = max(1, ‖a_i‖² − 1)``-Lipschitz and ``E_ξ‖∇F(x,ξ) − ∇F(y,ξ)‖² ≤ mean(L_i²)‖x − y‖²``.
    * ``⟨∇f(x), x⟩ = ‖x‖² − ⟨mean_i w_i a_i, x⟩ ≥ ‖x‖² − ā‖x‖ ≥ ‖x‖²/2 − ā²/2``, ``ā = mean‖a_i‖``.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: Assumptions 1–3; (12) needs ``x*``, ``f(0) − f(x*)``.
    """
    a2 = np.sum(target.centers**2, axis=1)
    G2 = float(a2.mean())
    M = float(np.sqrt(np.mean(np.maximum(1.0, a2 - 1.0) ** 2)))
    abar = float(np.sqrt(a2).mean())
    mean_a = target.centers.mean(axis=0)
    best = None
    for x0 in (mean_a, -mean_a):
        r = minimize(lambda z: float(target.potential(z[None])[0]), x0,
                     jac=lambda z: target.full_gradient(z[None])[0], method="BFGS", options={"gtol": 1e-10})
        if best is None or r.fun < best.fun:
            best = r
    f0 = float(target.potential(np.zeros((1, target.dim)))[0])
    return AssumptionConstants(G2, M, 0.5, 0.5 * abar**2, np.asarray(best.x), f0 - float(best.fun))


# ---- LS-SGLD §4.1.2 ---------------------------------------------------------------------------

def _grid_answers(target, lower, upper, cells=600):
    if target.dim != 2:
        return ExactAnswers(missing=f"quadrature reference in d = 2 only (d = {target.dim})")
    grid = grid_density(target, lower, upper, cells)

    def sample(rng, size):
        return sample_from_grid(grid, size, rng)

    return ExactAnswers(mean=grid.mean, cov=grid.cov, grid=grid, sample=sample,
                        source=f"midpoint quadrature on a {cells}² grid over [{lower[0]:g}, {upper[0]:g}] × "
                               f"[{lower[1]:g}, {upper[1]:g}], mass in the outer ring {grid.mass_at_boundary:.1e}",
                        missing="the Hessian is not constant")


def mixture_centers(n: int, seed: int) -> np.ndarray:
    """``a_i ~ N([2, 2], 2I)``, ``(n, 2)``, drawn exactly from ``default_rng(seed)``.

    The paper draws them "by the MCMC sampler with MH correction"; an exact draw has the same law.
    """
    rng = np.random.default_rng(seed)
    return np.array([2.0, 2.0]) + np.sqrt(2.0) * rng.standard_normal((n, 2))


@dataclass(frozen=True, eq=False)
class LSMixtureTarget(CentersTarget):
    """LS-SGLD §4.1.2: ``π ∝ exp(−n⁻¹Σ_i f_i)``, ``e^{−f_i(x)} = ⅔e^{−‖x−a_i‖²/2} + ⅓e^{−‖x+a_i‖²/2}``.

    ``V(x) = n⁻¹ Σ_i f_i(x)``, i.e. per-datum terms ``V_i = f_i/n`` with
    ``f_i(x) = ‖x − a_i‖²/2 − log(2/3 + exp(−2⟨a_i, x⟩)/3)`` (as printed) and its gradient
    ``∇f_i(x) = x − a_i + 2a_i/(1 + 2 exp(2⟨x, a_i⟩))``.

    The paper prints ``∇f_i(x) = x − a_i + 2a_i/(2 + exp(2⟨x, a_i⟩))``, which is *not* the gradient
    of its own ``f_i`` (it agrees at ``⟨x, a_i⟩ = 0`` only; as ``⟨x, a_i⟩ → −∞`` it tends to ``x``
    instead of ``x + a_i``). We use the gradient of the printed density (checked against finite
    differences of :meth:`potential` and symbolically by :func:`sgmcmc_verify.paper_repro.ls_sgld.experiments.mixture_gradient_check`).

    Parameters
    ----------
    centers : (n, 2) ndarray
        ``a_i``.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, §4.1.2.
    """

    def _grad_f(self, x, a):
        s = np.einsum("...d,...d->...", x, a)
        return x - a + 2.0 * a * expit(-(2.0 * s + np.log(2.0)))[..., None]  # 2a/(1 + 2e^{2s})

    def data_gradients(self, theta, idx):
        a = np.take(self.centers, idx, axis=0)  # (chains, b, d), the rows c[idx]
        return self._grad_f(theta[:, None, :], a) / self.n

    def data_potentials(self, theta, idx):
        """``f_i(θ)/n``: theta ``(chains, d)``, idx ``(chains, b)`` → ``(chains, b)``."""
        x, a = theta[:, None, :], self.centers[idx]
        lp = np.logaddexp(np.log(2 / 3) - 0.5 * np.sum((x - a) ** 2, -1), np.log(1 / 3) - 0.5 * np.sum((x + a) ** 2, -1))
        return -lp / self.n

    def exact_answers(self):
        """In ``d = 2``: the midpoint quadrature of ``exp(−V)`` on a 600² grid over [−10, 12]² (the modes sit
        near ``±ā``), its mean and covariance, and exact draws from the grid density."""
        return _grid_answers(self, (-10.0, -10.0), (12.0, 12.0))

    def compiled_form(self):
        """``("ls_mixture", centers, None)``: what :mod:`sgmcmc_verify.integrators.compiled` needs to repeat
        :meth:`data_gradients` (``∇V_i = (x − a_i + 2a_i/(1 + 2e^{2⟨x, a_i⟩}))/n``, no prior)."""
        return "ls_mixture", self.centers, None

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
