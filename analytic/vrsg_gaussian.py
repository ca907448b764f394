"""The Gaussian-mean model of vrSG-MCMC §5 in closed form, and the exact MSE of SGLD / vrSG-LD time averages on it.

Model (seed ``002_245183f35db8d795.txt``, §5 "A synthetic experiment"): ``x_i ~ N(θ, 1)``,
``θ ~ N(0, 1/λ)`` (the paper: λ = 1, N = 1000), test function ``φ(θ) = θ²``. With ``κ = N + λ`` the
posterior is ``N(θ*, 1/κ)``, ``θ* = N x̄/κ``, and ``φ̄ = θ*² + 1/κ``.

SGLD with an n-minibatch, ``θ' = θ − h(κθ − N x̄_b) + √(2h) ξ``, is in ``u = θ − θ*``

    u' = a u − h ζ + √(2h) ξ,     a = 1 − hκ,     ζ = N(x̄ − x̄_b),

a linear recursion whose only random coefficient is the minibatch mean: ``ζ`` is drawn afresh every
step, independent of the past, with the exact central moments of a sample mean from a finite
population (:func:`sgmcmc_verify.analytic.vrsg.minibatch_mean_central_moments`, either sampling scheme). vrSG-LD
(Algorithm 1) on this model has the gradient ``κθ − N x̄_b`` with ``x̄_b`` the mean of the *anchor*
minibatch (size n1): every ``V_i`` has Hessian 1, so the control variate cancels ``θ̃`` and the
current minibatch exactly, and vrSG-LD is the same recursion with ``ζ`` redrawn only every ``m``
steps — the anchor error is shared by the ``m`` steps of an epoch.

Exact MSE of the time average
-----------------------------
``φ̂_L = (1/L) Σ_{l=1}^L φ(θ_l)`` and ``D_L = Σ_{l=1}^L (φ(θ_l) − φ̄) = Σ_l g(u_l)``,
``g(u) = g0 + g1 u + g2 u²`` (``φ = θ²``: ``g0 = −1/κ``, ``g1 = 2θ*``, ``g2 = 1``; ``φ = θ``:
``g = u``). The expectations of the 22 monomials ``u^p ζ^q D^r`` with ``p + q + 2r ≤ 4`` are closed
under one step (``u' = au − hζ + √(2h)ξ``, ``ζ' = ζ``, ``D' = D + g(u')``, Gaussian ξ) and under a
refresh of ζ (``E[u^p ζ^q D^r] → E[ζ^q] E[u^p D^r]``), so they evolve by 22 × 22 matrices built once
with sympy; ``E[D_L]`` and ``E[D_L²]`` after L steps follow from matrix powers (repeated squaring:
O(log L) products, any budget). ``MSE = E[D_L²]/L²`` exactly, with all cumulants of the minibatch noise
up to order 4 (its third and fourth moments enter through ``u²``). Checked against exact rational
arithmetic, 40-digit mpmath, the closed-form stationary laws below and Monte Carlo of the samplers
(``tests/analytic/test_vrsg_gaussian.py``, ``tests/papers/vrsg``).

References
----------
Seed ``002_245183f35db8d795.txt``: §5 "A synthetic experiment", Figure 1; Theorem 3; Corollary 4;
Algorithm 1; Theorem 6.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
import sympy as sp

from .validation import check_finite_array, check_positive, check_positive_int
from .vrsg import minibatch_mean_central_moments

__all__ = ["MONOMIALS", "GaussianModel", "gaussian_model", "noise_moments", "start_moments",
           "step_matrix", "refresh_matrix", "TimeAverageMSE", "linear_time_average_mse",
           "sgld_time_average_mse", "vrsg_ld_time_average_mse", "sgld_stationary_moments",
           "sgld_stationary_bias", "sgld_long_run_variance", "asymptotic_constants", "TEST_FUNCTIONS",
           "vrsg_ld_stationary_bias"]

#: Exponents ``(p, q, r)`` of the monomials ``u^p ζ^q D^r`` whose expectations the recursion carries.
MONOMIALS = tuple((p, q, r) for r in range(3) for q in range(5) for p in range(5) if p + q + 2 * r <= 4)
_IDX = {m: i for i, m in enumerate(MONOMIALS)}

#: The test functions with exact answers: ``φ(θ) = θ²`` (the paper's) and ``φ(θ) = θ``.
TEST_FUNCTIONS = ("square", "identity")


class GaussianModel(NamedTuple):
    """The model's exact answers: ``N``, ``λ``, ``κ = N + λ``, posterior mean ``θ*`` and variance ``1/κ``, the data ``x``."""

    N: int
    prior_precision: float
    kappa: float
    posterior_mean: float
    posterior_var: float
    x: np.ndarray


def gaussian_model(x, prior_precision: float = 1.0) -> GaussianModel:
    """The posterior of ``x_i ~ N(θ, 1)``, ``θ ~ N(0, 1/λ)``: ``N(Σx_i/(N + λ), 1/(N + λ))``.

    Parameters
    ----------
    x : (N,) array_like of float64, N >= 2
    prior_precision : float, default 1

    Raises
    ------
    ValueError
        ``x`` not a finite 1-D array with >= 2 entries, ``prior_precision`` not > 0.

    Examples
    --------
    >>> m = gaussian_model([1.0, 3.0])
    >>> m.kappa, round(m.posterior_mean, 6), round(m.posterior_var, 6)
    (3.0, 1.333333, 0.333333)
    """
    xs = check_finite_array("x", x, ndim=1)
    if xs.size < 2:
        raise ValueError(f"x must have at least 2 entries, got {xs.size}")
    lam = check_positive("prior_precision", prior_precision)
    kappa = xs.size + lam
    return GaussianModel(int(xs.size), lam, kappa, float(xs.sum() / kappa), 1.0 / kappa, xs)


def noise_moments(x, batch_size: int, replace: bool = False) -> np.ndarray:
    """``E ζ^q``, ``q = 0..4``, of the minibatch gradient error ``ζ = N(x̄ − x̄_b)`` (exact).

    ``batch_size = N`` without replacement gives ``ζ ≡ 0`` (the full gradient).
    """
    xs = check_finite_array("x", x, ndim=1)
    N = xs.size
    m = minibatch_mean_central_moments(xs, batch_size, replace, order=4)
    return np.array([(-float(N)) ** q * m[q] for q in range(5)])


def _gaussian_raw_moments(mean, var):
    m, s = float(mean), float(var)
    return np.array([1.0, m, m * m + s, m**3 + 3 * m * s, m**4 + 6 * m * m * s + 3 * s * s])


def start_moments(model: GaussianModel, start="posterior") -> np.ndarray:
    """``E u_0^p``, ``p = 0..4``, of the initial law (``u = θ − θ*``).

    Parameters
    ----------
    start : {"posterior", "prior"} or float
        ``"posterior"``: ``θ_0 ~ N(θ*, 1/κ)`` (the chain starts at its target, so the MSE has no
        initial transient); ``"prior"``: ``θ_0 ~ N(0, 1/λ)``; a number: ``θ_0`` equal to it.

    Raises
    ------
    ValueError
        Any other value.
    """
    if isinstance(start, str):
        if start == "posterior":
            return _gaussian_raw_moments(0.0, model.posterior_var)
        if start == "prior":
            return _gaussian_raw_moments(-model.posterior_mean, 1.0 / model.prior_precision)
        raise ValueError(f"start must be 'posterior', 'prior' or a number, got {start!r}")
    th = float(start)
    if not np.isfinite(th):
        raise ValueError(f"start must be finite, got {start!r}")
    return _gaussian_raw_moments(th - model.posterior_mean, 0.0)


def _coefficients(model: GaussianModel, test_function: str):
    if test_function == "square":
        return (-model.posterior_var, 2.0 * model.posterior_mean, 1.0)
    if test_function == "identity":
        return (0.0, 1.0, 0.0)
    raise ValueError(f"test_function must be one of {TEST_FUNCTIONS}, got {test_function!r}")


@lru_cache(maxsize=None)
def _step_fn():
    u, z, D, xi = sp.symbols("u zeta D xi")
    a, h, s2, g0, g1, g2 = sp.symbols("a h s2 g0 g1 g2")
    s = sp.sqrt(s2)
    up = a * u - h * z + s * xi
    Dp = D + g0 + g1 * up + g2 * up**2
    M = sp.zeros(len(MONOMIALS))
    for i, (p, q, r) in enumerate(MONOMIALS):
        poly = sp.Poly(sp.expand(up**p * z**q * Dp**r), u, z, D, xi)
        for (pu, pz, pD, px), c in poly.terms():
            if px % 2 == 0:  # E ξ^k = (k − 1)!! for even k, 0 for odd k
                M[i, _IDX[(pu, pz, pD)]] += sp.expand(c * sp.factorial2(px - 1))
    return sp.lambdify((a, h, s2, g0, g1, g2), M, "numpy"), M


def step_matrix(contraction: float, step_size: float, g, noise_variance: float | None = None) -> np.ndarray:
    """The 22 × 22 matrix of one step ``u' = a u − hζ + √(s²) ξ``, ``D' = D + g(u')`` on the monomial moments.

    Parameters
    ----------
    contraction : float
        ``a`` (``1 − hκ`` for SGLD on the Gaussian model).
    step_size : float
        ``h``, the factor of ζ.
    g : (g0, g1, g2)
        ``g(u) = g0 + g1 u + g2 u²``.
    noise_variance : float or None
        ``s²`` of the Gaussian increment; ``None``: ``2h`` (Langevin at temperature 1).

    Returns
    -------
    (22, 22) ndarray
        Row ``i`` gives ``E[monomial_i(next) | state]`` as a combination of the current monomials
        (ordered as :data:`MONOMIALS`).
    """
    h = check_positive("step_size", step_size)
    s2 = 2.0 * h if noise_variance is None else float(noise_variance)
    g0, g1, g2 = (float(v) for v in g)
    return np.array(_step_fn()[0](float(contraction), h, s2, g0, g1, g2), dtype=np.float64)


def refresh_matrix(zeta_moments) -> np.ndarray:
    """The matrix of a fresh, independent draw of ζ: ``E[u^p ζ^q D^r] → E[ζ^q] E[u^p D^r]``.

    Parameters
    ----------
    zeta_moments : (5,) array_like
        ``E ζ^q`` for ``q = 0..4`` (:func:`noise_moments`).
    """
    mz = check_finite_array("zeta_moments", zeta_moments, ndim=1)
    if mz.size != 5:
        raise ValueError(f"zeta_moments must have 5 entries (q = 0..4), got {mz.size}")
    R = np.zeros((len(MONOMIALS), len(MONOMIALS)))
    for i, (p, q, r) in enumerate(MONOMIALS):
        R[i, _IDX[(p, 0, r)]] = mz[q]
    return R


class TimeAverageMSE(NamedTuple):
    """steps : (k,) int; mse : (k,) ``E(φ̂_L − φ̄)²``; mean_error : (k,) ``E φ̂_L − φ̄``; variance : (k,) ``Var φ̂_L``."""

    steps: np.ndarray
    mse: np.ndarray
    mean_error: np.ndarray
    variance: np.ndarray


def _check_steps(steps):
    ks = np.atleast_1d(np.asarray(steps))
    if ks.ndim != 1 or ks.size == 0 or not np.issubdtype(ks.dtype, np.integer) and not np.all(ks == np.round(ks)):
        raise ValueError("steps must be a non-empty 1-D sequence of integers >= 1")
    ks = ks.astype(np.int64)
    if np.any(ks < 1) or np.any(np.diff(ks) < 0):
        raise ValueError("steps must be non-decreasing integers >= 1")
    return ks


def linear_time_average_mse(contraction: float, step_size: float, zeta_moments, steps, *, g, u0_moments,
                            refresh_every: int = 1, noise_variance: float | None = None) -> TimeAverageMSE:
    """Exact MSE of ``(1/L) Σ_{l=1}^L g(u_l)`` (against 0) for ``u' = a u − hζ + √(s²) ξ`` at every ``L`` in ``steps``.

    Parameters
    ----------
    contraction, step_size, noise_variance : see :func:`step_matrix`
    zeta_moments : (5,) array_like
        ``E ζ^q``, q = 0..4, of each fresh draw of ζ.
    steps : 1-D array_like of int >= 1, non-decreasing
        The chain lengths L.
    g : (g0, g1, g2)
    u0_moments : (5,) array_like
        ``E u_0^p``, p = 0..4 (:func:`start_moments`).
    refresh_every : int, default 1
        ζ is redrawn before the steps ``l = 0, m, 2m, …`` (Algorithm 1's ``l mod m = 0``) and held in
        between; 1 is SGLD (a fresh minibatch every step).

    Returns
    -------
    TimeAverageMSE

    Raises
    ------
    ValueError
        Bad ``steps``, ``refresh_every``, moments or step size.
    """
    ks = _check_steps(steps)
    m = check_positive_int("refresh_every", refresh_every)
    M = step_matrix(contraction, step_size, g, noise_variance)
    R = refresh_matrix(zeta_moments)
    mu0 = check_finite_array("u0_moments", u0_moments, ndim=1)
    v = np.zeros(len(MONOMIALS))
    for p in range(5):
        v[_IDX[(p, 0, 0)]] = mu0[p]
    epoch = np.linalg.matrix_power(M, m) @ R
    done = 0  # steps taken, always a multiple of m
    out = np.empty((ks.size, 2))
    for j, L in enumerate(ks):
        full = int(L // m) - done // m
        if full:
            v = np.linalg.matrix_power(epoch, full) @ v
            done += full * m
        r = int(L - done)
        w = v if r == 0 else np.linalg.matrix_power(M, r) @ (R @ v)
        out[j] = (w[_IDX[(0, 0, 1)]], w[_IDX[(0, 0, 2)]])
    L = ks.astype(np.float64)
    mean_err, mse = out[:, 0] / L, out[:, 1] / L**2
    return TimeAverageMSE(ks, mse, mean_err, mse - mean_err**2)


def _model_mse(model, step_size, steps, zmom, m, test_function, start):
    h = check_positive("step_size", step_size)
    return linear_time_average_mse(1.0 - h * model.kappa, h, zmom, steps, g=_coefficients(model, test_function),
                                   u0_moments=start_moments(model, start), refresh_every=m)


def sgld_time_average_mse(x, step_size: float, steps, batch_size: int, *, replace: bool = False,
                          prior_precision: float = 1.0, test_function: str = "square",
                          start="posterior") -> TimeAverageMSE:
    """Exact MSE of SGLD's time average of φ on the Gaussian-mean model, at every chain length in ``steps``.

    Parameters
    ----------
    x : (N,) array_like
        The data.
    step_size : float
        h > 0. SGLD is stable iff ``hκ < 2``; beyond it the MSE grows without bound.
    steps : 1-D array_like of int
        Chain lengths L (``φ̂_L`` averages ``θ_1 … θ_L``).
    batch_size : int
        n (``n = N`` without replacement is the full gradient).
    replace : bool, default False
        The minibatch scheme (the proofs': without).
    prior_precision : float, default 1
    test_function : {"square", "identity"}, default "square"
    start : see :func:`start_moments`, default "posterior"

    Returns
    -------
    TimeAverageMSE

    Examples
    --------
    >>> x = np.linspace(-1.0, 1.0, 50)
    >>> r = sgld_time_average_mse(x, 1e-3, [10, 100], 5)
    >>> bool(r.mse[1] < r.mse[0])
    True
    """
    model = gaussian_model(x, prior_precision)
    return _model_mse(model, step_size, steps, noise_moments(model.x, batch_size, replace), 1, test_function, start)


def vrsg_ld_time_average_mse(x, step_size: float, steps, n1: int, update_interval: int, *, replace: bool = False,
                             prior_precision: float = 1.0, test_function: str = "square",
                             start="posterior") -> TimeAverageMSE:
    """Exact MSE of vrSG-LD's time average (Algorithm 1 on SGLD) on the Gaussian-mean model.

    On this model the gradient vrSG-LD uses is ``κθ − N x̄_b`` with ``x̄_b`` the mean of the anchor
    minibatch (size ``n1``), whatever the current minibatch ``n2`` is (the control variate is exact:
    every ``V_i`` has Hessian 1); the anchor is redrawn every ``m = update_interval`` steps. ``n2``
    enters only the cost (``2 n2 + n1/m`` evaluations per step).

    Parameters
    ----------
    n1 : int
        Anchor minibatch size.
    update_interval : int
        m.
    other parameters : as :func:`sgld_time_average_mse`
    """
    model = gaussian_model(x, prior_precision)
    return _model_mse(model, step_size, steps, noise_moments(model.x, n1, replace), update_interval,
                      test_function, start)


# ---- closed forms of SGLD's stationary law (m = 1), for the asymptotic terms and as checks ------

def sgld_stationary_moments(x, step_size: float, batch_size: int, replace: bool = False,
                            prior_precision: float = 1.0) -> dict:
    """Stationary ``a``, ``Var u`` (``v_h``), ``E u³``, ``E u⁴`` of SGLD on the Gaussian-mean model.

    ``v_h = W/(1 − a²)``, ``W = h²E ζ² + 2h``; ``E u³ = −h³E ζ³/(1 − a³)``;
    ``E u⁴ = (6a²v_h W + E η⁴)/(1 − a⁴)``, ``E η⁴ = h⁴E ζ⁴ + 12h³E ζ² + 12h²``.

    Raises
    ------
    ValueError
        ``hκ >= 2`` (no stationary law).
    """
    model = gaussian_model(x, prior_precision)
    h = check_positive("step_size", step_size)
    a = 1.0 - h * model.kappa
    if abs(a) >= 1.0:
        raise ValueError(f"SGLD is unstable at step_size {h} (h*kappa = {h * model.kappa:.4g} >= 2): no stationary law")
    z = noise_moments(model.x, batch_size, replace)
    W = h * h * z[2] + 2.0 * h
    v = W / (1.0 - a * a)
    m3 = -(h**3) * z[3] / (1.0 - a**3)
    m4 = (6.0 * a * a * v * W + h**4 * z[4] + 12.0 * h**3 * z[2] + 12.0 * h * h) / (1.0 - a**4)
    return {"a": a, "var": v, "m3": m3, "m4": m4, "model": model}


def sgld_stationary_bias(x, step_size: float, batch_size: int, replace: bool = False, prior_precision: float = 1.0,
                         test_function: str = "square") -> float:
    """``E_h φ − φ̄`` under SGLD's stationary law: ``v_h − 1/κ = h(Eζ² + κ)/(κ(2 − hκ))`` for φ = θ², 0 for φ = θ."""
    s = sgld_stationary_moments(x, step_size, batch_size, replace, prior_precision)
    _coefficients(s["model"], test_function)
    return float(s["var"] - s["model"].posterior_var) if test_function == "square" else 0.0


def vrsg_ld_stationary_bias(x, step_size: float, n1: int, update_interval: int, *, replace: bool = False,
                            prior_precision: float = 1.0, test_function: str = "square", zeta_moments=None) -> float:
    """``lim_L (E φ̂_L − φ̄)`` of vrSG-LD (anchor minibatch ``n1`` redrawn every ``m`` steps) on the Gaussian-mean model.

    The chain is periodic-stationary with period ``m``: with ``u_0`` the state at a refresh, ``ζ`` fresh (mean
    ``μ``, second moment ``E ζ²``), ``c_k = (1 − a^k)/(1 − a)`` and ``a = 1 − hκ``,

    ``E u_k = a^k E u_0 − hμ c_k``, ``E u_k² = a^{2k} V_0 − 2a^k c_k hμ E u_0 + h² E ζ² c_k² + 2h(1 − a^{2k})/(1 − a²)``,

    and stationarity (``E u_m = E u_0``, ``E u_m² = V_0``) gives ``E u_0 = −hμ/(1 − a)`` and ``V_0``. The bias of
    the time average is the mean over the period ``k = 1..m`` of ``E g(u_k)`` (``g`` as in the module docstring:
    ``2θ* E u + E u² − 1/κ`` for ``φ = θ²``). ``m = 1`` is SGLD with minibatch ``n1``
    (:func:`sgld_stationary_bias`). Unbiased gradients (``μ = 0``, Algorithm 1) leave ``E u = 0``.

    Parameters
    ----------
    x : (N,) array_like
    step_size : float
        ``h`` with ``hκ < 2``.
    n1 : int
        The anchor minibatch size (SGLD: the minibatch size, with ``update_interval = 1``).
    update_interval : int
        ``m >= 1``.
    replace, prior_precision, test_function : as :func:`sgld_time_average_mse`
    zeta_moments : (5,) array_like, optional
        ``E ζ^q`` (q = 0..4) replacing the exact minibatch moments (a planted biased estimator in the tests).

    Returns
    -------
    float
        The stationary bias of ``φ̂`` (units of φ).

    Raises
    ------
    ValueError
        ``hκ >= 2`` (no stationary law), bad ``n1``, ``update_interval``, ``test_function``.

    References
    ----------
    Seed ``002_245183f35db8d795.txt``: Introduction ("the same bias bound as standard SG-MCMC"), Algorithm 1, §5.
    """
    model = gaussian_model(x, prior_precision)
    h = check_positive("step_size", step_size)
    m = check_positive_int("update_interval", update_interval)
    a = 1.0 - h * model.kappa
    if abs(a) >= 1.0:
        raise ValueError(f"vrSG-LD is unstable at step_size {h} (h*kappa = {h * model.kappa:.4g} >= 2): no stationary law")
    z = noise_moments(model.x, n1, replace) if zeta_moments is None else check_finite_array(
        "zeta_moments", zeta_moments, ndim=1)
    mu, z2 = float(z[1]), float(z[2])
    g0, g1, g2 = _coefficients(model, test_function)
    k = np.arange(1, m + 1, dtype=np.float64)
    ak, c = a ** k, (1.0 - a ** k) / (1.0 - a)
    Eu0 = -h * mu / (1.0 - a)
    V0 = (h * h * z2 * c[-1] ** 2 - 2.0 * ak[-1] * c[-1] * h * mu * Eu0 + 2.0 * h * (1.0 - ak[-1] ** 2) / (1.0 - a * a)
          ) / (1.0 - ak[-1] ** 2)
    Eu = ak * Eu0 - h * mu * c
    Eu2 = ak ** 2 * V0 - 2.0 * ak * c * h * mu * Eu0 + h * h * z2 * c ** 2 + 2.0 * h * (1.0 - ak ** 2) / (1.0 - a * a)
    return float(np.mean(g0 + g1 * Eu + g2 * Eu2))


def sgld_long_run_variance(x, step_size: float, batch_size: int, replace: bool = False, prior_precision: float = 1.0,
                           test_function: str = "square") -> float:
    """``lim_L L · Var φ̂_L = Σ_{k∈ℤ} Cov(g(u_0), g(u_k))`` under SGLD's stationary law (closed form).

    For ``g = 2θ*u + u² − 1/κ``: ``4θ*²v_h(1+a)/(1−a) + (E u⁴ − v_h²)(1+a²)/(1−a²)
    + 2θ* E u³ [(1+a²)/(1−a²) + (1+a)/(1−a)]``; for ``g = u``: ``v_h(1+a)/(1−a)``.
    """
    s = sgld_stationary_moments(x, step_size, batch_size, replace, prior_precision)
    a, v, m3, m4, th = s["a"], s["var"], s["m3"], s["m4"], s["model"].posterior_mean
    r1, r2 = (1 + a) / (1 - a), (1 + a * a) / (1 - a * a)
    if test_function == "identity":
        return float(v * r1)
    _coefficients(s["model"], test_function)
    return float(4 * th * th * v * r1 + (m4 - v * v) * r2 + 2 * th * m3 * (r1 + r2))


def asymptotic_constants(x, prior_precision: float = 1.0) -> dict:
    """The three constants of Theorem 3 on this model, as ``h → 0`` with ``Lh → ∞``, for φ = θ².

    ``MSE ≈ C1/(Lh) + c_noise E ζ²/L + C3(n) h²``, with ``E ζ² = (N − n)N²Γ/n`` (without replacement):

    * ``C1 = (8θ*² + 2/κ)/κ²`` (the Brownian part of the long-run variance, ``∝ 1/h``);
    * ``c_noise = 4θ*²/κ²`` (the minibatch noise enters the time average of the linear part
      ``2θ*u`` through ``Σ_l ζ_l/κ``; the ``u²`` part adds O(h));
    * ``C3(n) = ((E ζ² + κ)/(2κ))²``: the squared stationary bias ``h(Eζ² + κ)/(κ(2 − hκ))`` over h² —
      it depends on n through the minibatch noise, while Theorem 3 takes C independent of n.

    Returns
    -------
    dict with ``C1``, ``c_noise``, ``C3_full_gradient`` (n = N: ``1/4``), ``kappa``, ``posterior_mean``.
    """
    model = gaussian_model(x, prior_precision)
    k, th = model.kappa, model.posterior_mean
    return {"C1": (8 * th * th + 2 / k) / k**2, "c_noise": 4 * th * th / k**2, "C3_full_gradient": 0.25,
            "kappa": k, "posterior_mean": th}
