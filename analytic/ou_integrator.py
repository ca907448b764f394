"""The first-order exponential (OU) integrator of HSG-HMC / SG-UL-MCMC, eqs. (4)–(6), checked with sympy.

HSG-HMC (Zhang et al., AAAI 2021) discretizes the underdamped Langevin dynamics (3)::

    dV_t = −γ V_t dt − u ∇f(X_t) dt + √(2γu) dB_t,      dX_t = V_t dt,

(γ > 0 the "viscosity"/friction, u > 0 the inverse mass; the stationary law is
``∝ exp(−f(x) − ‖v‖²/(2u))``) by freezing the gradient at ``g = g^{(k)}`` over one step of length
η and solving the resulting *linear* SDE (8) exactly (Lemma 1). With ``a = γη`` the update is::

    x' = x + γ⁻¹(1 − e^{−a}) v − u γ⁻²(a + e^{−a} − 1) g + ε_x            (4)
    v' = e^{−a} v − u γ⁻¹(1 − e^{−a}) g + ε_v                             (5)

with ``(ε_x, ε_v)`` a zero-mean Gaussian pair, independent across coordinates, whose 2×2 covariance
per coordinate is (6)::

    E[ε_v ε_v] = u (1 − e^{−2a})
    E[ε_x ε_x] = u γ⁻² (2a + 4 e^{−a} − e^{−2a} − 3)
    E[ε_v ε_x] = u γ⁻¹ (1 − 2 e^{−a} + e^{−2a})

:func:`symbolic_check` derives all seven quantities from (8) by variation of constants and
compares them with the formulas transcribed from the paper: they agree exactly (every difference
simplifies to 0). The printed (4)–(6) therefore need no correction; see its Notes for the two
places where the printed text is easy to misread.

:func:`ou_step_coefficients`, :func:`ou_noise_covariance` and :func:`ou_noise_cholesky` evaluate
the same quantities in floating point without cancellation for any ``a = γη > 0`` (``expm1`` and
Taylor series of the entire functions ``φ₂`` and ``ψ`` below), and
:func:`exponential_integrator_recursion` writes the integrator on a quadratic potential as a
:class:`~sgmcmc_verify.analytic.linear_samplers.LinearRecursion`, whose moments are then exact.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: dynamics (3), updates (4)–(5), noise covariance (6),
Lemma 1 / SDE (8), Remark 2 (u = 1, e^{−γη} = 0.9).
Cheng, Chatterji, Bartlett & Jordan (2017), "Underdamped Langevin MCMC: a non-asymptotic analysis"
(the same integrator, as cited in the seed).
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from .linear_samplers import LinearRecursion
from .validation import check_finite_array, check_positive

__all__ = [
    "OUCoefficients",
    "ou_step_coefficients",
    "ou_noise_covariance",
    "ou_noise_cholesky",
    "exponential_integrator_recursion",
    "symbolic_check",
    "PSI_SERIES",
    "PHI2_SERIES",
    "SERIES_THRESHOLD",
]

#: Below this value of ``a = γη`` the functions φ₂ and ψ are evaluated by their Taylor series.
SERIES_THRESHOLD = 0.5

_N_TERMS = 26
#: Taylor coefficients of ``φ₂(a) = (a − 1 + e^{−a}) / a² = Σ_k (−1)^k a^k / (k+2)!``.
PHI2_SERIES = tuple(float(Fraction((-1) ** k, math.factorial(k + 2))) for k in range(_N_TERMS))
#: Taylor coefficients of ``ψ(a) = (2a + 4e^{−a} − e^{−2a} − 3) / a³ = Σ_k (−1)^{k+3} (4 − 2^{k+3}) a^k / (k+3)!``.
PSI_SERIES = tuple(float(Fraction((-1) ** (k + 3) * (4 - 2 ** (k + 3)), math.factorial(k + 3))) for k in range(_N_TERMS))


class OUCoefficients(NamedTuple):
    """Deterministic coefficients of one exponential-integrator step (eqs. (4)–(5)).

    ``x' = x + x_from_v · v + x_from_g · g + ε_x``, ``v' = v_decay · v + v_from_g · g + ε_v``.

    v_decay : numpy.float64     ``e^{−γη}``
    x_from_v : numpy.float64    ``γ⁻¹(1 − e^{−γη})``
    x_from_g : numpy.float64    ``−u γ⁻²(γη + e^{−γη} − 1)``
    v_from_g : numpy.float64    ``−u γ⁻¹(1 − e^{−γη})``
    """

    v_decay: np.float64
    x_from_v: np.float64
    x_from_g: np.float64
    v_from_g: np.float64


def _check(gamma, eta, u) -> tuple[float, float, float, float]:
    g = check_positive("gamma", gamma)
    h = check_positive("eta", eta)
    uu = check_positive("u", u)
    a = g * h
    if not math.isfinite(a):
        raise ValueError(f"gamma * eta must be finite, got gamma={gamma!r}, eta={eta!r}")
    return g, h, uu, a


def _horner(coeffs, a: float) -> float:
    acc = 0.0
    for c in reversed(coeffs):
        acc = acc * a + c
    return acc


def _phi1(a: float) -> float:
    """``(1 − e^{−a}) / a``, accurate for every a > 0 (expm1 carries the cancellation)."""
    return -math.expm1(-a) / a


def _phi2(a: float) -> float:
    """``(a − 1 + e^{−a}) / a²``; Taylor series below :data:`SERIES_THRESHOLD` (relative error ~1e-16)."""
    if a < SERIES_THRESHOLD:
        return _horner(PHI2_SERIES, a)
    return (a + math.expm1(-a)) / (a * a)


def _psi(a: float) -> float:
    """``(2a + 4e^{−a} − e^{−2a} − 3) / a³``; Taylor series below :data:`SERIES_THRESHOLD`.

    With ``E = expm1(−a)`` the numerator is ``2(a + E) − E²``; above the threshold its relative
    rounding error is at most ~``ε_mach / a²`` ≤ 4 ε_mach.
    """
    if a < SERIES_THRESHOLD:
        return _horner(PSI_SERIES, a)
    E = math.expm1(-a)
    return (2.0 * (a + E) - E * E) / (a * a * a)


def ou_step_coefficients(gamma, eta, u=1.0) -> OUCoefficients:
    """Deterministic coefficients of the exponential integrator, eqs. (4)–(5).

    Parameters
    ----------
    gamma : float
        Friction (viscosity) ``γ`` > 0.
    eta : float
        Step size ``η`` > 0.
    u : float, default 1
        Inverse mass ``u`` > 0.

    Returns
    -------
    OUCoefficients
        ``v_decay = e^{−a}``, ``x_from_v = η φ₁(a)``, ``x_from_g = −u η² φ₂(a)``,
        ``v_from_g = −u η φ₁(a)`` with ``a = γη``, ``φ₁(a) = (1 − e^{−a})/a`` and
        ``φ₂(a) = (a − 1 + e^{−a})/a²`` (numpy float64, finite, no cancellation for tiny a).

    Raises
    ------
    ValueError
        If ``gamma``, ``eta`` or ``u`` is not a finite number > 0, or ``gamma * eta`` overflows.

    Notes
    -----
    These are the coefficients of the exact flow of ``dv = −γ v dt − u g dt``, ``dx = v dt`` over
    time η (Lemma 1 without noise). As ``γ → 0`` they tend to the free-flight values
    ``(1, η, −u η²/2, −u η)``.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``, eqs. (4)–(5) and Lemma 1.

    Examples
    --------
    >>> c = ou_step_coefficients(gamma=2.0, eta=0.05)
    >>> bool(np.isclose(c.v_decay, np.exp(-0.1)))
    True
    >>> bool(np.isclose(c.x_from_g, -(0.1 + np.exp(-0.1) - 1) / 4.0, rtol=1e-14))
    True
    """
    g, h, uu, a = _check(gamma, eta, u)
    p1 = _phi1(a)
    return OUCoefficients(
        np.float64(math.exp(-a)),
        np.float64(h * p1),
        np.float64(-uu * h * h * _phi2(a)),
        np.float64(-uu * h * p1),
    )


def ou_noise_covariance(gamma, eta, u=1.0) -> np.ndarray:
    """Covariance of the per-coordinate noise pair ``(ε_x, ε_v)`` of eq. (6).

    Parameters
    ----------
    gamma : float
        Friction ``γ`` > 0.
    eta : float
        Step size ``η`` > 0.
    u : float, default 1
        Inverse mass ``u`` > 0.

    Returns
    -------
    (2, 2) ndarray of float64
        ``[[Var ε_x, Cov(ε_x, ε_v)], [Cov(ε_x, ε_v), Var ε_v]]``, symmetric, finite, positive
        semi-definite (positive definite whenever its entries do not underflow).

    Raises
    ------
    ValueError
        If ``gamma``, ``eta`` or ``u`` is not a finite number > 0, or ``gamma * eta`` overflows.

    Notes
    -----
    With ``a = γη``, ``φ₁(a) = (1 − e^{−a})/a`` and ``ψ(a) = (2a + 4e^{−a} − e^{−2a} − 3)/a³``::

        Var ε_v = u (1 − e^{−2a})                     = −u · expm1(−2a)
        Var ε_x = u γ⁻² (2a + 4e^{−a} − e^{−2a} − 3)  = u η² · a ψ(a)
        Cov     = u γ⁻¹ (1 − e^{−a})²                 = u η · a φ₁(a)²

    ψ is evaluated from its Taylor series ``2/3 − a/2 + 7a²/30 − …`` for ``a <`` 0.5 (the printed
    form loses all digits to cancellation as ``a → 0``: the numerator is ``O(a³)`` while its terms
    are ``O(1)``). For small a, ``Var ε_x ≈ (2/3) uγη³``, ``Var ε_v ≈ 2uγη``, ``Cov ≈ uγη²``; the
    squared correlation ``Cov²/(Var ε_x Var ε_v)`` never exceeds 3/4 (its ``a → 0`` limit), so the
    matrix is well conditioned in the correlation sense for every a.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``, eq. (6) and Lemma 1 (SDE (8)).

    Examples
    --------
    >>> S = ou_noise_covariance(gamma=1e-12, eta=1.0)
    >>> bool(np.all(np.isfinite(S)) and np.all(np.linalg.eigvalsh(S) > 0))
    True
    >>> bool(np.isclose(S[0, 0], 2e-12 / 3, rtol=1e-10))
    True
    """
    g, h, uu, a = _check(gamma, eta, u)
    p1 = _phi1(a)
    vxx = uu * h * h * (a * _psi(a))
    vvv = -uu * math.expm1(-2.0 * a)
    cxv = uu * h * (a * p1 * p1)
    return np.array([[vxx, cxv], [cxv, vvv]], dtype=np.float64)


def ou_noise_cholesky(gamma, eta, u=1.0) -> np.ndarray:
    """Lower-triangular ``L`` with ``L Lᵀ`` = :func:`ou_noise_covariance`, x first.

    ``ε_x = L₁₁ ξ₁``, ``ε_v = L₂₁ ξ₁ + L₂₂ ξ₂`` with ``ξ₁, ξ₂`` independent standard normals.

    Parameters
    ----------
    gamma, eta, u : float
        ``γ``, ``η``, ``u`` > 0, as in :func:`ou_noise_covariance`.

    Returns
    -------
    (2, 2) ndarray of float64
        ``[[L₁₁, 0], [L₂₁, L₂₂]]``, finite, with non-negative diagonal.

    Raises
    ------
    ValueError
        As :func:`ou_noise_covariance`.

    Notes
    -----
    ``L₁₁ = √Var ε_x``, ``L₂₁ = Cov / L₁₁``, ``L₂₂ = √max(Var ε_v − L₂₁², 0)``: the Schur complement
    (``det / Var ε_x``) is clipped at 0, so a matrix that rounding made slightly indefinite is
    factored as the nearest singular one instead of producing NaN. Since the squared correlation is
    at most 3/4, the subtraction loses at most two bits and the clip does not trigger for any
    representable ``a = γη`` in practice. Fallback: if ``Var ε_x`` underflows to 0 (only when
    ``uγη³ <`` ~1e-308), ``L₂₁ = 0`` and ``L₂₂ = √Var ε_v`` (the x-noise and the correlation are
    below the smallest float and are dropped).

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``, eq. (6).

    Examples
    --------
    >>> L = ou_noise_cholesky(gamma=2.0, eta=0.05)
    >>> bool(np.allclose(L @ L.T, ou_noise_covariance(2.0, 0.05), rtol=1e-13, atol=0))
    True
    """
    S = ou_noise_covariance(gamma, eta, u)
    vxx, cxv, vvv = S[0, 0], S[0, 1], S[1, 1]
    if vxx > 0.0:
        l11 = math.sqrt(vxx)
        l21 = cxv / l11
        l22 = math.sqrt(max(vvv - l21 * l21, 0.0))
    else:
        l11, l21, l22 = 0.0, 0.0, math.sqrt(vvv)
    return np.array([[l11, 0.0], [l21, l22]], dtype=np.float64)


def exponential_integrator_recursion(hessian, minimizer, noise_cov, step_size, friction, u=1.0,
                                     inverse_temperature=1.0) -> LinearRecursion:
    """The exponential integrator (4)–(6) on ``ĝ(x) = H(x − x*) + ζ`` as a linear recursion in z = (x, v).

    Parameters
    ----------
    hessian : (d, d) array_like             H
    minimizer : (d,) array_like             x*
    noise_cov : (d, d) array_like           Q, covariance of the gradient noise ζ (zeros for the full gradient)
    step_size : float                       η > 0
    friction : float                        γ > 0
    u : float, default 1                    inverse mass u > 0
    inverse_temperature : float, default 1  β > 0; the noise (6) is scaled by 1/β (``np.inf``: none)

    Returns
    -------
    LinearRecursion
        With the coefficients ``c`` of :func:`ou_step_coefficients` and ``S`` of
        :func:`ou_noise_covariance`:
        ``A = [[I + c.x_from_g H, c.x_from_v I], [c.v_from_g H, c.v_decay I]]``,
        ``a = −(c.x_from_g H x*, c.v_from_g H x*)``,
        ``W = [[c.x_from_g² Q + S₁₁/β I, c.x_from_g c.v_from_g Q + S₁₂/β I], [·, c.v_from_g² Q + S₂₂/β I]]``.

    Raises
    ------
    ValueError
        Non-finite arrays, or non-positive ``step_size``, ``friction``, ``u``, ``inverse_temperature``.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``, eqs. (4)–(6).
    """
    H = check_finite_array("hessian", hessian, ndim=2)
    xs = check_finite_array("minimizer", minimizer, ndim=1)
    Q = check_finite_array("noise_cov", noise_cov, ndim=2)
    h = check_positive("step_size", step_size)
    g = check_positive("friction", friction)
    uu = check_positive("u", u)
    if (isinstance(inverse_temperature, bool) or not isinstance(inverse_temperature, numbers.Real)
            or not (inverse_temperature > 0)):
        raise ValueError(f"inverse_temperature must be > 0 (np.inf for no noise), got {inverse_temperature!r}")
    d = xs.shape[0]
    if H.shape != (d, d) or Q.shape != (d, d):
        raise ValueError(f"hessian and noise_cov must have shape ({d}, {d}), got {H.shape} and {Q.shape}")
    c = ou_step_coefficients(g, h, uu)
    S = ou_noise_covariance(g, h, uu) / float(inverse_temperature)
    I = np.eye(d)
    A = np.block([[I + c.x_from_g * H, c.x_from_v * I], [c.v_from_g * H, c.v_decay * I]])
    a = -np.concatenate([c.x_from_g * H @ xs, c.v_from_g * H @ xs])
    Wxv = c.x_from_g * c.v_from_g * Q + S[0, 1] * I
    W = np.block([[c.x_from_g**2 * Q + S[0, 0] * I, Wxv], [Wxv.T, c.v_from_g**2 * Q + S[1, 1] * I]])
    return LinearRecursion(A, a, 0.5 * (W + W.T), d)


def symbolic_check() -> dict:
    """Derive (4)–(6) from the SDE (8) with sympy and compare them with the printed formulas.

    The frozen-gradient SDE (8), ``dz = (A z + b) dt + Σ dB`` with ``z = (x, v)`` (one coordinate),
    ``A = [[0, 1], [0, −γ]]``, ``b = (0, −u g)``, ``Σ = (0, √(2γu))``, is solved by variation of
    constants::

        z(t) = e^{At} z₀ + ∫₀ᵗ e^{A(t−s)} b ds + ∫₀ᵗ e^{A(t−s)} Σ dB_s,
        Cov z(t) = ∫₀ᵗ e^{A(t−s)} Σ Σᵀ e^{Aᵀ(t−s)} ds          (Itô isometry),

    and evaluated at ``t = η``.

    Returns
    -------
    dict of str -> sympy.Expr
        Simplified differences, all ``0`` when the paper and the derivation agree:

        ``"x_from_v"``, ``"x_from_g"``, ``"v_decay"``, ``"v_from_g"``
            derived coefficient − printed coefficient of (4)/(5);
        ``"x_from_x"``, ``"v_from_x"``
            derived ``∂x'/∂x − 1`` and ``∂v'/∂x`` (both 0 in (4)–(5));
        ``"cov_vv"``, ``"cov_xx"``, ``"cov_xv"``
            derived covariance − printed (6);
        ``"mean_ode_x"``, ``"mean_ode_v"``, ``"mean_initial"``
            residual of ``m' = A m + b`` and of ``m(0) = z₀`` for the derived mean (independent
            of the matrix-exponential formula);
        ``"cov_ode_xx"``, ``"cov_ode_xv"``, ``"cov_ode_vv"``, ``"cov_initial"``
            residual of the Lyapunov ODE ``P' = A P + P Aᵀ + Σ Σᵀ``, ``P(0) = 0``, for the printed
            covariance (6) with η replaced by t;
        ``"stationary_velocity"``
            ``e^{−2a} u + Var ε_v − u``: with zero gradient, ``v ~ N(0, u)`` is invariant, i.e.
            u is the stationary velocity variance (inverse mass) as in (3);
        ``"phi2_series"``, ``"psi_series"``
            the Taylor polynomials of φ₂ and ψ (degree 25) minus the float coefficients
            :data:`PHI2_SERIES`, :data:`PSI_SERIES` used by the numerical functions, as rationals.

    Notes
    -----
    Transcription of (6) used here (the seed's text)::

        E[ε_v ε_vᵀ] = u(1 − e^{−2γη}) I_d
        E[ε_x ε_xᵀ] = (u/γ²)(2ηγ + 4e^{−ηγ} − e^{−2γη} − 3) I_d
        E[ε_v ε_xᵀ] = (u/γ)(1 − 2e^{−γη} + e^{−2γη}) I_d

    The derivation reproduces (4), (5) and all three entries of (6) exactly; there is no
    discrepancy in the printed formulas. Two places are easy to misread: (i) (6) gives each
    block as a multiple of ``I_d`` but the x- and v-noise are *correlated* (coordinate-wise,
    correlation ``→ √3/2`` as γη → 0), so ε_x and ε_v must be drawn jointly, not independently;
    (ii) the diffusion is ``√(2γu)`` and u multiplies the gradient, so the stationary velocity
    law is ``N(0, u I)``, not ``N(0, I/u)``.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``, eqs. (3)–(6), (8), Lemma 1.

    Examples
    --------
    Skipped by the doctest run (3 s); ``tests/analytic/test_ou_integrator.py`` runs the check.

    >>> all(v == 0 for v in symbolic_check().values())  # doctest: +SKIP
    True
    """
    import sympy as sp

    gam, eta, u, s, t = sp.symbols("gamma eta u s t", positive=True)
    x0, v0, g = sp.symbols("x0 v0 g", real=True)
    A = sp.Matrix([[0, 1], [0, -gam]])
    b = sp.Matrix([0, -u * g])
    Sig = sp.Matrix([0, sp.sqrt(2 * gam * u)])
    z0 = sp.Matrix([x0, v0])

    def expA(tau):
        return (A * tau).exp().applyfunc(sp.simplify)

    mean = expA(t) * z0 + (expA(t - s) * b).applyfunc(lambda e: sp.integrate(e, (s, 0, t)))
    integrand = expA(t - s) * Sig * Sig.T * expA(t - s).T
    cov = integrand.applyfunc(lambda e: sp.integrate(sp.expand(e), (s, 0, t)))
    m_eta = mean.subs(t, eta)
    P_eta = cov.subs(t, eta)

    E1, E2 = sp.exp(-gam * eta), sp.exp(-2 * gam * eta)
    paper = {
        "x_from_v": (1 - E1) / gam,
        "x_from_g": -u / gam**2 * (eta * gam + E1 - 1),
        "v_decay": E1,
        "v_from_g": -u / gam * (1 - E1),
        "cov_vv": u * (1 - E2),
        "cov_xx": u / gam**2 * (2 * eta * gam + 4 * sp.exp(-eta * gam) - E2 - 3),
        "cov_xv": u / gam * (1 - 2 * E1 + E2),
    }
    derived = {
        "x_from_v": sp.diff(m_eta[0], v0),
        "x_from_g": sp.diff(m_eta[0], g),
        "v_decay": sp.diff(m_eta[1], v0),
        "v_from_g": sp.diff(m_eta[1], g),
        "cov_vv": P_eta[1, 1],
        "cov_xx": P_eta[0, 0],
        "cov_xv": P_eta[0, 1],
    }
    out = {k: sp.simplify(derived[k] - paper[k]) for k in paper}
    # (4)–(5) carry x with coefficient 1 into x' and not at all into v'
    out["x_from_x"] = sp.simplify(sp.diff(m_eta[0], x0) - 1)
    out["v_from_x"] = sp.simplify(sp.diff(m_eta[1], x0))

    # independent check: the mean solves m' = A m + b, m(0) = z0
    res_m = sp.diff(mean, t) - (A * mean + b)
    out["mean_ode_x"] = sp.simplify(res_m[0])
    out["mean_ode_v"] = sp.simplify(res_m[1])
    out["mean_initial"] = sp.simplify(sum(abs(e) for e in (mean.subs(t, 0) - z0)))
    # independent check: the printed covariance (eta -> t) solves the Lyapunov ODE, P(0) = 0
    P = sp.Matrix([[paper["cov_xx"], paper["cov_xv"]], [paper["cov_xv"], paper["cov_vv"]]]).subs(eta, t)
    res_P = sp.diff(P, t) - (A * P + P * A.T + Sig * Sig.T)
    out["cov_ode_xx"] = sp.simplify(res_P[0, 0])
    out["cov_ode_xv"] = sp.simplify(res_P[0, 1])
    out["cov_ode_vv"] = sp.simplify(res_P[1, 1])
    out["cov_initial"] = sp.simplify(sum(abs(e) for e in P.subs(t, 0)))
    out["stationary_velocity"] = sp.simplify(E2 * u + paper["cov_vv"] - u)

    # the Taylor coefficients used numerically are those of φ2 and ψ
    a = sp.symbols("a", positive=True)
    n = len(PSI_SERIES)
    phi2 = (a - 1 + sp.exp(-a)) / a**2
    psi = (2 * a + 4 * sp.exp(-a) - sp.exp(-2 * a) - 3) / a**3
    phi2_poly = sp.series(phi2, a, 0, n).removeO()
    psi_poly = sp.series(psi, a, 0, n).removeO()
    # float coefficients are compared after rounding the exact ones to float64
    out["phi2_series"] = sp.expand(sum(sp.Rational(float(phi2_poly.coeff(a, k))) * a**k for k in range(n))
                                   - sum(sp.Rational(c) * a**k for k, c in enumerate(PHI2_SERIES)))
    out["psi_series"] = sp.expand(sum(sp.Rational(float(psi_poly.coeff(a, k))) * a**k for k in range(n))
                                  - sum(sp.Rational(c) * a**k for k, c in enumerate(PSI_SERIES)))
    return out
