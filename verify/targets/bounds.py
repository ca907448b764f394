"""Collapsible per-datum likelihood lower bounds for Firefly Monte Carlo, and the misspecified Gaussian target.

FlyMC (Maclaurin & Adams 2014) needs, for every datum, a lower bound ``0 < B_n(θ) <= L_n(θ)`` of its
likelihood whose product over all data is cheap: here ``log B_n`` is a quadratic in θ, so
``Σ_n log B_n(θ) = c + aᵀθ − θᵀAθ`` collapses to sufficient statistics computed once (O(d²) per
evaluation, whatever n is). Two bounds, both exposing the same methods (the *bound interface* read by
:class:`sgmcmc_verify.integrators.flymc.FireflyMC`):

* :class:`LogisticJJBound` — the Jaakkola–Jordan bound of the logistic likelihood, tuned at a point
  (the MAP, as in EWSG §5.2 and Maclaurin & Adams §4): tight where ``|x_nᵀθ| = ξ_n``.
* :class:`GaussianFitTaylorBound` — for :class:`GaussianFitTarget` (EWSG Appendix G.1, the setup of
  Bardenet, Doucet & Holmes 2017: a normal ``N(μ, σ²)`` fitted to log-normal data, flat prior on
  ``(μ, log σ)``), the second-order Taylor expansion at a point minus a curvature allowance ``c_n``
  that makes it a lower bound on a box ``D`` of parameters (no quadratic lower bound holds globally,
  as ``−(x − μ)² e^{−2η}/2`` falls faster than any quadratic as ``η → −∞``; the prior is the flat one
  restricted to ``D``, which holds the posterior mass but for a negligible part).

The bound interface (``theta`` of shape ``(K, d)`` paired row by row with data indices ``idx`` ``(K,)``)::

    n, dim
    log_likelihood_pairs(theta, idx) -> (K,)     grad_log_likelihood_pairs(theta, idx) -> (K, d)
    log_bound_pairs(theta, idx) -> (K,)          grad_log_bound_pairs(theta, idx) -> (K, d)
    log_bound_total(theta) -> (chains,)          grad_log_bound_total(theta) -> (chains, d)
    log_prior(theta) -> (chains,)                grad_log_prior(theta) -> (chains, d)
    log_likelihood_total(theta) -> (chains,)     (O(n): exact references and tests only)

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: §5.2 ("FlyMC uses a lower bound derived in [30]"), Appendix G.1
("a tight lower bound based on Taylor's expansion"). Maclaurin & Adams (2014), "Firefly Monte Carlo:
exact MCMC with subsets of data", §3–4 (the JJ bound, tuned at the MAP). Jaakkola & Jordan (2000),
"Bayesian parameter estimation via variational methods", eq. (3). Bardenet, Doucet & Holmes (2017),
"On Markov chain Monte Carlo methods for tall data", JMLR 18 (the log-normal example).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import expit

from ..errors import check_finite_array, check_positive

__all__ = ["LogisticJJBound", "jj_lambda", "GaussianFitTarget", "GaussianFitTaylorBound", "lognormal_data"]


def jj_lambda(xi):
    """``λ(ξ) = tanh(ξ/2) / (4ξ)`` (``1/8`` at ξ = 0), elementwise; the curvature of the JJ bound."""
    xi = np.abs(np.asarray(xi, dtype=np.float64))
    small = xi < 1e-6
    safe = np.where(small, 1.0, xi)
    return np.where(small, 0.125 - xi * xi / 96.0, np.tanh(0.5 * safe) / (4.0 * safe))


def _log_sigmoid(s):
    return -np.logaddexp(0.0, -s)


@dataclass(frozen=True, eq=False)
class LogisticJJBound:
    """Jaakkola–Jordan lower bound of the logistic likelihood, collapsed to sufficient statistics.

    With ``t_n = 2y_n − 1`` and ``s_n = t_n x_nᵀθ`` the likelihood of datum n is ``L_n = σ(s_n)`` and

    ``log B_n(θ) = log σ(ξ_n) + (s_n − ξ_n)/2 − λ(ξ_n)(s_n² − ξ_n²) <= log σ(s_n)``,

    equality at ``s_n = ±ξ_n``; summed over the data, ``Σ log B_n = c + aᵀθ − θᵀAθ`` with
    ``a = ½ Σ t_n x_n``, ``A = Σ λ(ξ_n) x_n x_nᵀ``.

    Parameters
    ----------
    X : (n, d) ndarray
        Features (as the BLR target has them, bias column included).
    y : (n,) ndarray
        Labels in {0, 1}.
    xi : (n,) ndarray
        ``ξ_n >= 0``, where the bound touches; :meth:`at` takes ``ξ_n = |x_nᵀθ̂|`` for a point θ̂ (the MAP).
    prior_precision : float, default 0.1
        λ of the Gaussian prior ``N(0, I/λ)`` (EWSG §5.2: covariance 10 I, λ = 0.1).

    Raises
    ------
    ValueError
        Mis-shaped or non-finite arrays, labels outside {0, 1}, a negative ξ, a non-positive precision.

    Examples
    --------
    >>> X = np.array([[1.0, 0.5], [1.0, -1.0], [1.0, 2.0]]); y = np.array([1.0, 0.0, 1.0])
    >>> b = LogisticJJBound.at(X, y, np.array([0.2, 0.7]))
    >>> th = np.array([[0.3, -0.4]]); idx = np.arange(3)
    >>> bool(np.all(b.log_bound_pairs(np.repeat(th, 3, 0), idx) <= b.log_likelihood_pairs(np.repeat(th, 3, 0), idx)))
    True
    """

    X: np.ndarray
    y: np.ndarray
    xi: np.ndarray
    prior_precision: float = 0.1

    def __post_init__(self):
        X = check_finite_array("X", self.X, ndim=2)
        y = check_finite_array("y", self.y, ndim=1)
        xi = check_finite_array("xi", self.xi, ndim=1)
        if y.size != X.shape[0] or xi.size != X.shape[0]:
            raise ValueError(f"y and xi must have one entry per row of X ({X.shape[0]}), got {y.size} and {xi.size}")
        if not np.all((y == 0) | (y == 1)):
            raise ValueError("y must contain labels in {0, 1}")
        if np.any(xi < 0):
            raise ValueError("xi must be >= 0")
        lam = jj_lambda(xi)
        t = 2.0 * y - 1.0
        object.__setattr__(self, "prior_precision", check_positive("prior_precision", self.prior_precision))
        for k, v in (("X", X), ("y", y), ("xi", xi), ("_t", t), ("_lam", lam),
                     ("_c", float(np.sum(_log_sigmoid(xi) - 0.5 * xi + lam * xi * xi))),
                     ("_a", 0.5 * (t @ X)), ("_A", (X * lam[:, None]).T @ X)):
            object.__setattr__(self, k, v)

    @classmethod
    def at(cls, X, y, theta_hat, prior_precision: float = 0.1) -> "LogisticJJBound":
        """The bound tuned at ``theta_hat`` ``(d,)``: ``ξ_n = |x_nᵀθ̂|`` (tight at θ̂ for every datum)."""
        th = check_finite_array("theta_hat", theta_hat, ndim=1)
        return cls(X, y, np.abs(np.asarray(X, dtype=np.float64) @ th), prior_precision)

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def dim(self) -> int:
        return self.X.shape[1]

    def _s(self, theta, idx):
        return self._t[idx] * np.einsum("kd,kd->k", self.X[idx], theta)

    def log_likelihood_pairs(self, theta, idx):
        """``log σ(s_n)`` for each row of ``theta`` ``(K, d)`` with datum ``idx`` ``(K,)``: ``(K,)``."""
        return _log_sigmoid(self._s(theta, idx))

    def grad_log_likelihood_pairs(self, theta, idx):
        """``σ(−s_n) t_n x_n``: ``(K, d)``."""
        return (expit(-self._s(theta, idx)) * self._t[idx])[:, None] * self.X[idx]

    def log_bound_pairs(self, theta, idx):
        """``log B_n`` for each pair: ``(K,)``."""
        s, xi, lam = self._s(theta, idx), self.xi[idx], self._lam[idx]
        return _log_sigmoid(xi) + 0.5 * (s - xi) - lam * (s * s - xi * xi)

    def grad_log_bound_pairs(self, theta, idx):
        """``(½ − 2λ_n s_n) t_n x_n``: ``(K, d)``."""
        s = self._s(theta, idx)
        return ((0.5 - 2.0 * self._lam[idx] * s) * self._t[idx])[:, None] * self.X[idx]

    def log_bound_total(self, theta):
        """``Σ_n log B_n(θ) = c + aᵀθ − θᵀAθ`` per chain, O(d²): ``(chains,)``."""
        return self._c + theta @ self._a - np.einsum("cd,de,ce->c", theta, self._A, theta)

    def grad_log_bound_total(self, theta):
        """``a − 2Aθ``: ``(chains, d)``."""
        return self._a[None, :] - 2.0 * theta @ self._A

    def log_prior(self, theta):
        """``−λ‖θ‖²/2`` (up to a constant): ``(chains,)``."""
        return -0.5 * self.prior_precision * np.sum(theta * theta, axis=1)

    def grad_log_prior(self, theta):
        return -self.prior_precision * theta

    def log_likelihood_total(self, theta):
        """``Σ_n log σ(s_n)`` per chain, O(n d): ``(chains,)`` (exact references and tests)."""
        return np.sum(_log_sigmoid((theta @ self.X.T) * self._t[None, :]), axis=1)


# ---- the misspecified Gaussian of Appendix G.1 ----------------------------------------------------

def lognormal_data(n: int, seed: int) -> np.ndarray:
    """``n`` i.i.d. draws of ``log N(0, 1)`` from ``numpy.random.default_rng(seed)`` (Appendix G.1: n = 10⁵)."""
    return np.exp(np.random.default_rng(seed).standard_normal(int(n)))


@dataclass(frozen=True, eq=False)
class GaussianFitTarget:
    """A normal ``N(μ, σ²)`` fitted to data ``x`` (misspecified when ``x`` is log-normal), θ = (μ, η = log σ).

    ``V(θ) = Σ_n V_n(θ)``, ``V_n = η + (x_n − μ)² e^{−2η}/2`` (the negative log-likelihood without
    ``log √(2π)``), and the flat prior ``p(μ, log σ) ∝ 1`` restricted to a box ``D`` (``V = +∞``
    outside; gradients ignore the box, so stochastic-gradient chains never see it).

    Parameters
    ----------
    x : (n,) ndarray
        The data.
    box : (2, 2) array_like or None
        ``[[μ_lo, μ_hi], [η_lo, η_hi]]``; ``None``: :meth:`default_box` (MLE ± 30 Laplace s.d.).

    Raises
    ------
    ValueError
        Non-finite or empty data, a box with ``lo >= hi``.

    Notes
    -----
    ``∇V_n = (−(x_n − μ)s, 1 − (x_n − μ)²s)`` with ``s = e^{−2η}``; the sum ``Σ V_n`` needs only
    ``Σx, Σx²`` (O(1) per evaluation: the exact MH reference of G.1 is cheap). The MLE, which is the
    MAP on ``D``, is ``μ̂ = mean x``, ``η̂ = log sd x`` (ddof = 0); the Laplace covariance at the MLE
    is ``diag(σ̂²/n, 1/(2n))``.
    """

    x: np.ndarray
    box: Any = None

    def __post_init__(self):
        x = check_finite_array("x", self.x, ndim=1)
        if x.size < 2:
            raise ValueError(f"x must hold at least 2 data, got {x.size}")
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "_s1", float(x.sum()))
        object.__setattr__(self, "_s2", float((x * x).sum()))
        box = self.default_box() if self.box is None else check_finite_array("box", self.box, ndim=2)
        if box.shape != (2, 2) or np.any(box[:, 0] >= box[:, 1]):
            raise ValueError(f"box must be [[mu_lo, mu_hi], [eta_lo, eta_hi]] with lo < hi, got {box.tolist()}")
        object.__setattr__(self, "box", np.asarray(box, dtype=np.float64))

    @property
    def n(self) -> int:
        return self.x.size

    @property
    def dim(self) -> int:
        return 2

    def mle(self) -> np.ndarray:
        """``(μ̂, η̂)``: the maximum-likelihood point (the MAP on the box)."""
        return np.array([self.x.mean(), np.log(self.x.std())])

    def laplace_sd(self) -> np.ndarray:
        """Posterior s.d. of μ and η under the Laplace approximation at the MLE: ``(σ̂/√n, 1/√(2n))``."""
        return np.array([self.x.std() / np.sqrt(self.n), 1.0 / np.sqrt(2.0 * self.n)])

    def default_box(self, width: float = 30.0) -> np.ndarray:
        """MLE ± ``width`` Laplace s.d. per coordinate: ``(2, 2)``."""
        m, s = self.mle(), self.laplace_sd()
        return np.stack([m - width * s, m + width * s], axis=1)

    def in_box(self, theta):
        """``(chains,)`` bool: inside ``D``."""
        return np.all((theta >= self.box[:, 0]) & (theta <= self.box[:, 1]), axis=-1)

    def data_gradients(self, theta, idx):
        """``∇V_i(θ)`` for ``idx`` ``(chains, b)``: ``(chains, b, 2)``."""
        u = self.x[idx] - theta[:, 0:1]
        s = np.exp(-2.0 * theta[:, 1:2])
        return np.stack([-u * s, 1.0 - u * u * s], axis=-1)

    def data_potentials(self, theta, idx):
        """``V_i(θ) = η + (x_i − μ)² e^{−2η}/2`` for ``idx`` ``(chains, b)``: ``(chains, b)`` (the box is the prior's)."""
        u = self.x[idx] - theta[:, 0:1]
        return theta[:, 1:2] + 0.5 * u * u * np.exp(-2.0 * theta[:, 1:2])

    def exact_answers(self):
        """The midpoint quadrature of ``exp(−V)`` on a 600² grid over the box ``D``, its mean and covariance,
        and exact draws from the grid density (:func:`sgmcmc_verify.targets.grid_density`)."""
        from .mixtures import _grid_answers
        return _grid_answers(self, self.box[:, 0], self.box[:, 1])

    def prior_gradient(self, theta):
        return np.zeros_like(theta)

    def full_gradient(self, theta):
        mu, s = theta[:, 0], np.exp(-2.0 * theta[:, 1])
        su = self._s1 - self.n * mu
        suu = self._s2 - 2.0 * mu * self._s1 + self.n * mu * mu
        return np.stack([-su * s, self.n - suu * s], axis=1)

    def potential(self, theta):
        """``Σ V_n`` by sufficient statistics, ``+∞`` outside the box: ``(chains,)``."""
        mu, eta = theta[:, 0], theta[:, 1]
        suu = self._s2 - 2.0 * mu * self._s1 + self.n * mu * mu
        v = self.n * eta + 0.5 * suu * np.exp(-2.0 * eta)
        return np.where(self.in_box(theta), v, np.inf)

    def log_likelihood_pairs(self, theta, idx):
        """``log N(x_n | μ, e^{2η})`` per pair (with ``−log √(2π)``): ``(K,)``."""
        u = self.x[idx] - theta[:, 0]
        return -0.5 * np.log(2.0 * np.pi) - theta[:, 1] - 0.5 * u * u * np.exp(-2.0 * theta[:, 1])

    def grad_log_likelihood_pairs(self, theta, idx):
        u, s = self.x[idx] - theta[:, 0], np.exp(-2.0 * theta[:, 1])
        return np.stack([u * s, -1.0 + u * u * s], axis=1)


@dataclass(frozen=True, eq=False)
class GaussianFitTaylorBound:
    """Second-order Taylor lower bound of the per-datum log-likelihood of :class:`GaussianFitTarget` on its box.

    ``log B_n(θ) = ℓ_n(θ̂) + g_nᵀδ + ½ δᵀ(H_n − c_n I)δ``, ``δ = θ − θ̂``, with ``g_n, H_n`` the gradient
    and Hessian of ``ℓ_n`` at θ̂ and ``c_n = max(0, λ_max(H_n) + G_n)``,
    ``G_n = e^{−2η_lo}(max(1, 2U_n²) + 2U_n)``, ``U_n = max(|x_n − μ_lo|, |x_n − μ_hi|)``.

    Why it is a lower bound on the (convex) box: Taylor's formula with integral remainder gives
    ``ℓ_n(θ) = ℓ_n(θ̂) + g_nᵀδ + ∫₀¹(1 − t) δᵀ∇²ℓ_n(θ̂ + tδ)δ dt``, so ``ℓ_n >= log B_n`` as soon as
    ``∇²ℓ_n(ξ) ⪰ H_n − c_n I`` on the box, i.e. ``c_n >= λ_max(H_n − ∇²ℓ_n(ξ))``; that is at most
    ``λ_max(H_n) + λ_max(−∇²ℓ_n(ξ))``, and ``−∇²ℓ_n = s [[1, 2u], [2u, 2u²]]`` (``s = e^{−2η}``,
    ``u = x_n − μ``) has ``λ_max <= s(max(1, 2u²) + 2|u|)`` (Gershgorin), largest on the box at
    ``η = η_lo``, ``|u| = U_n``. Far-out data (large ``x_n``) get a large ``c_n``: a loose bound, often
    bright — the mechanism Bardenet et al. describe.

    Parameters
    ----------
    target : GaussianFitTarget
    center : (2,) array_like or None
        θ̂; ``None``: the MLE.

    Raises
    ------
    ValueError
        A center outside the target's box.
    """

    target: GaussianFitTarget
    center: Any = None

    def __post_init__(self):
        tg = self.target
        c = tg.mle() if self.center is None else check_finite_array("center", self.center, ndim=1)
        if c.shape != (2,) or not tg.in_box(c[None, :])[0]:
            raise ValueError(f"center must be a point (mu, eta) inside the target's box, got {c!r}")
        x, (mu_lo, mu_hi), eta_lo = tg.x, tg.box[0], tg.box[1, 0]
        u, s = x - c[0], np.exp(-2.0 * c[1])
        l0 = -0.5 * np.log(2.0 * np.pi) - c[1] - 0.5 * u * u * s
        g = np.stack([u * s, -1.0 + u * u * s], axis=1)
        h11, h12, h22 = -s * np.ones_like(u), -2.0 * u * s, -2.0 * u * u * s
        lam_max = 0.5 * (h11 + h22) + np.sqrt(0.25 * (h11 - h22) ** 2 + h12 * h12)
        U = np.maximum(np.abs(x - mu_lo), np.abs(x - mu_hi))
        cn = np.maximum(0.0, lam_max + np.exp(-2.0 * eta_lo) * (np.maximum(1.0, 2.0 * U * U) + 2.0 * U))
        hs = np.stack([h11, h12, h22], axis=1)  # (n, 3): the entries of H_n
        Hsum = np.array([[h11.sum(), h12.sum()], [h12.sum(), h22.sum()]])
        for k, v in (("center", c), ("_l0", l0), ("_g", g), ("_h", hs), ("_cn", cn), ("_L0", float(l0.sum())),
                     ("_G", g.sum(axis=0)), ("_Q", Hsum - cn.sum() * np.eye(2))):
            object.__setattr__(self, k, v)

    @property
    def n(self) -> int:
        return self.target.n

    @property
    def dim(self) -> int:
        return 2

    @property
    def curvature_allowance(self) -> np.ndarray:
        """``c_n`` ``(n,)``."""
        return self._cn

    def log_likelihood_pairs(self, theta, idx):
        return self.target.log_likelihood_pairs(theta, idx)

    def grad_log_likelihood_pairs(self, theta, idx):
        return self.target.grad_log_likelihood_pairs(theta, idx)

    def log_bound_pairs(self, theta, idx):
        d0, d1 = theta[:, 0] - self.center[0], theta[:, 1] - self.center[1]
        h = self._h[idx]
        quad = (h[:, 0] - self._cn[idx]) * d0 * d0 + 2.0 * h[:, 1] * d0 * d1 + (h[:, 2] - self._cn[idx]) * d1 * d1
        g = self._g[idx]
        return self._l0[idx] + g[:, 0] * d0 + g[:, 1] * d1 + 0.5 * quad

    def grad_log_bound_pairs(self, theta, idx):
        d0, d1 = theta[:, 0] - self.center[0], theta[:, 1] - self.center[1]
        h, cn = self._h[idx], self._cn[idx]
        return self._g[idx] + np.stack([(h[:, 0] - cn) * d0 + h[:, 1] * d1, h[:, 1] * d0 + (h[:, 2] - cn) * d1], axis=1)

    def log_bound_total(self, theta):
        d = theta - self.center
        return self._L0 + d @ self._G + 0.5 * np.einsum("ci,ij,cj->c", d, self._Q, d)

    def grad_log_bound_total(self, theta):
        return self._G[None, :] + (theta - self.center) @ self._Q

    def log_prior(self, theta):
        """Flat on the box: ``0`` inside, ``−∞`` outside: ``(chains,)``."""
        return np.where(self.target.in_box(theta), 0.0, -np.inf)

    def grad_log_prior(self, theta):
        return np.zeros_like(theta)

    def log_likelihood_total(self, theta):
        """``Σ_n ℓ_n`` per chain by sufficient statistics (O(1)), ignoring the box: ``(chains,)``."""
        mu, eta, tg = theta[:, 0], theta[:, 1], self.target
        suu = tg._s2 - 2.0 * mu * tg._s1 + self.n * mu * mu
        return -self.n * (0.5 * np.log(2.0 * np.pi) + eta) - 0.5 * suu * np.exp(-2.0 * eta)
