"""HSG-HMC Lemma 3 as exact arithmetic: the step-size condition (9) as a set, and the constants (11)–(12).

Condition (9) reads ``η ≤ min_i T_i(γ)`` with seven terms ``T_i`` that depend on the friction ``γ``
and the constants ``M, m, b, d, u`` of Assumptions 2–3 but *not* on ``η``::

    T_1 = 1/(2γ)                     T_2 = 6M/(γm)          T_3 = γ / (4(8Mu + uγ + 22γ²))
    T_4 = 2/√(4Mu + 3γ²)             T_5 = 6γbu / ((4Mu + 3γ²) d)
    T_6 = γ³m / (48 M³ u (288u + 14γ))                      T_7 = √(24uM/5)

so the set of admissible pairs is ``{(γ, η) : 0 < η ≤ η_max(γ) := min_i T_i(γ)}``
(:func:`condition9_max_step`). Under Remark 2 the friction is tied to the step size by
``e^{−γη} = q`` (``q = 0.9``), i.e. ``γ = c/η`` with ``c = −log q``; then every ratio
``T_i(c/η)/η`` is non-increasing in ``η`` and the tied set is an interval ``(0, η*]`` or empty
(:func:`condition9_tied`). Its limits as ``η → 0`` are ``1/(2c)``, ``6M/(cm)``, ``1/(88c)``,
``2/(√3 c)``, ``2bu/(cd)``, ``∞``, ``∞``: the third alone requires ``c < 1/88``, i.e.
``e^{−γη} > e^{−1/88} ≈ 0.9887``, whatever the target. Remark 2's ``q = 0.9`` (``c ≈ 0.105``)
therefore admits no step size at all.

The second term of (10), ``C M² Ē η² k``, has ``C`` from (11) and ``Ē`` from (12), both functions
of ``γ`` (:func:`lemma3_C`, :func:`lemma3_Ebar`, :func:`bound10_growth_coefficient`). At fixed ``γ``
it is ``∝ η²``; with Remark 2's ``γ = c/η`` it behaves as ``6c³M²ud/η`` when ``η → 0``
(``C ≈ 6γ²``, ``Ē ≈ γud``), so it is not monotone in ``η``.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: Lemma 3, eqs. (9)–(12); Remark 2; Assumptions 1–3.
"""
from __future__ import annotations

import math

import numpy as np

from .validation import check_positive, check_positive_int

__all__ = ["CONDITION9_TERMS", "condition9_terms", "condition9_max_step", "condition9_tied", "condition9_best",
           "lemma3_C", "lemma3_Ebar", "bound10_growth_coefficient"]

#: Labels of the seven terms of (9), in the printed order.
CONDITION9_TERMS = ("1/(2γ)", "6M/(γm)", "γ/(4(8Mu+uγ+22γ²))", "2/√(4Mu+3γ²)", "6γbu/((4Mu+3γ²)d)",
                    "γ³m/(48M³u(288u+14γ))", "√(24uM/5)")


def _consts(M, m, b, d, u):
    return (check_positive("M", M), check_positive("m", m), check_positive("b", b), check_positive_int("d", d),
            check_positive("u", u))


def _gammas(friction, name="friction"):
    g = np.asarray(friction, dtype=np.float64)
    if g.size == 0 or not np.all(np.isfinite(g)) or np.any(g <= 0):
        raise ValueError(f"{name} must hold finite numbers > 0, got {friction!r}")
    return g


def condition9_terms(friction, *, M, m, b, d, u=1.0) -> np.ndarray:
    """The seven terms ``T_1 … T_7`` of condition (9) at friction ``γ``.

    Parameters
    ----------
    friction : float or (n,) array_like of float
        ``γ`` > 0.
    M, m, b : float
        Mean-squared smoothness (Assumption 2) and dissipativity constants (Assumption 3), > 0.
    d : int
        Dimension, >= 1.
    u : float, default 1
        Inverse mass (Remark 2: 1).

    Returns
    -------
    (7,) or (7, n) ndarray of float64
        Upper limits on ``η`` (time units), in the order of :data:`CONDITION9_TERMS`.

    Raises
    ------
    ValueError
        ``friction`` not finite and > 0; ``M, m, b, u`` not finite and > 0; ``d`` not an integer >= 1.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``, Lemma 3, eq. (9).

    Examples
    --------
    >>> t = condition9_terms(1.0, M=1.0, m=1.0, b=1.0, d=1)
    >>> bool(np.isclose(t[0], 0.5)) and bool(np.isclose(t[6], math.sqrt(4.8)))
    True
    """
    M, m, b, d, u = _consts(M, m, b, d, u)
    g = _gammas(friction)
    q = 4 * M * u + 3 * g**2
    return np.stack([1 / (2 * g), 6 * M / (g * m), g / (4 * (8 * M * u + u * g + 22 * g**2)), 2 / np.sqrt(q),
                     6 * g * b * u / (q * d), g**3 * m / (48 * M**3 * u * (288 * u + 14 * g)),
                     np.full_like(g, math.sqrt(24 * u * M / 5))])


def condition9_max_step(friction, *, M, m, b, d, u=1.0) -> tuple[np.ndarray, np.ndarray]:
    """The boundary ``η_max(γ) = min_i T_i(γ)`` of the set where (9) holds, and which term binds.

    Parameters
    ----------
    friction, M, m, b, d, u
        As in :func:`condition9_terms`.

    Returns
    -------
    eta_max : ndarray of float64, shape of ``friction``
        (9) holds at ``(γ, η)`` iff ``0 < η <= eta_max``.
    binding : ndarray of int, shape of ``friction``
        0-based index (into :data:`CONDITION9_TERMS`) of the smallest term.

    Raises
    ------
    ValueError
        As :func:`condition9_terms`.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``, Lemma 3, eq. (9).
    """
    t = condition9_terms(friction, M=M, m=m, b=b, d=d, u=u)
    return t.min(axis=0), t.argmin(axis=0)


def _tied_ratios(eta, c, M, m, b, d, u):
    """``T_i(c/η)/η`` for all i, each non-increasing in η."""
    return condition9_terms(c / eta, M=M, m=m, b=b, d=d, u=u) / eta


def condition9_tied(decay, *, M, m, b, d, u=1.0) -> dict:
    """The step sizes that satisfy (9) when ``γ`` is tied to ``η`` by ``e^{−γη} = decay`` (Remark 2).

    Parameters
    ----------
    decay : float
        ``q = e^{−γη}`` in (0, 1) (Remark 2: 0.9).
    M, m, b, d, u
        As in :func:`condition9_terms`.

    Returns
    -------
    dict
        ``decay``; ``c = −log q`` (= ``γη``); ``limit_ratios`` the seven limits of ``T_i(c/η)/η`` as
        ``η → 0`` (``None`` for +∞; the set is empty iff one is < 1); ``nonempty``; ``eta_max`` (the set is
        ``(0, eta_max]``; 0.0 when empty); ``binding`` (0-based index of the term that ends the set,
        or the one whose limit is < 1 when empty); ``decay_threshold`` = ``exp(−c_max)``, the smallest
        decay for which the set is nonempty.

    Raises
    ------
    ValueError
        ``decay`` not in (0, 1); the constants as in :func:`condition9_terms`.

    Notes
    -----
    ``T_i(c/η)/η`` equals ``1/(2c)``, ``6M/(cm)``, ``c/(4(8Muη² + ucη + 22c²))``,
    ``2/√(4Muη² + 3c²)``, ``6cbu/((4Muη² + 3c²)d)``, ``c³m/(48M³u(288uη⁴ + 14cη³))`` and
    ``√(24uM/5)/η``: constant or decreasing in η, so ``min_i`` of them crosses 1 at most once and
    the root is found by bisection in ``log η``.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: Lemma 3, eq. (9); Remark 2.

    Examples
    --------
    >>> condition9_tied(0.9, M=10.0, m=0.5, b=4.0, d=2)["nonempty"]
    False
    """
    if isinstance(decay, bool) or not isinstance(decay, (int, float, np.floating)) or not (0.0 < decay < 1.0):
        raise ValueError(f"decay must be a number in (0, 1), got {decay!r}")
    M, m, b, d, u = _consts(M, m, b, d, u)
    c = -math.log(float(decay))
    limits = np.array([1 / (2 * c), 6 * M / (c * m), 1 / (88 * c), 2 / (math.sqrt(3) * c), 2 * b * u / (c * d),
                       math.inf, math.inf])
    c_max = min(1 / 2, 6 * M / m, 1 / 88, 2 / math.sqrt(3), 2 * b * u / d)
    out = {"decay": float(decay), "c": c, "limit_ratios": [float(v) if math.isfinite(v) else None for v in limits],
           "decay_threshold": math.exp(-c_max)}
    if limits.min() < 1.0:
        return {**out, "nonempty": False, "eta_max": 0.0, "binding": int(limits.argmin())}
    lo, hi = 1e-90, 1.0
    if _tied_ratios(lo, c, M, m, b, d, u).min() < 1.0:  # a limit equal to 1 approached from below
        return {**out, "nonempty": False, "eta_max": 0.0, "binding": int(_tied_ratios(lo, c, M, m, b, d, u).argmin())}
    while _tied_ratios(hi, c, M, m, b, d, u).min() >= 1.0:
        hi *= 2.0
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if _tied_ratios(mid, c, M, m, b, d, u).min() >= 1.0:
            lo = mid
        else:
            hi = mid
        if hi / lo - 1 < 1e-13:
            break
    return {**out, "nonempty": True, "eta_max": lo, "binding": int(_tied_ratios(lo, c, M, m, b, d, u).argmin())}


def condition9_best(*, M, m, b, d, u=1.0, friction_range=(1e-3, 1e6), points=4001) -> dict:
    """The largest step size that (9) admits for any ``γ``, and the ``γ`` that attains it.

    A log grid of ``points`` frictions over ``friction_range``, refined by golden-section search
    on ``log γ`` between the neighbours of the best grid point (``η_max`` is a minimum of
    functions that are monotone or single-peaked in ``log γ``).

    Parameters
    ----------
    M, m, b, d, u
        As in :func:`condition9_terms`.
    friction_range : (float, float), default (1e-3, 1e6)
    points : int, default 4001

    Returns
    -------
    dict
        ``friction``, ``eta_max``, ``binding`` (0-based indices of the two smallest terms there),
        ``friction_times_eta`` (``γη`` at the optimum, i.e. ``−log`` of the velocity decay per step).

    Raises
    ------
    ValueError
        A range that is not ``0 < low < high`` or ``points < 3``; the constants as in
        :func:`condition9_terms`.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``, Lemma 3, eq. (9).
    """
    lo, hi = (check_positive("friction_range[0]", friction_range[0]), check_positive("friction_range[1]", friction_range[1]))
    if not lo < hi:
        raise ValueError(f"friction_range must be (low, high) with low < high, got {friction_range!r}")
    if check_positive_int("points", points) < 3:
        raise ValueError(f"points must be >= 3, got {points}")
    lg = np.linspace(math.log(lo), math.log(hi), points)
    em, _ = condition9_max_step(np.exp(lg), M=M, m=m, b=b, d=d, u=u)
    j = int(np.argmax(em))
    a, z = lg[max(j - 1, 0)], lg[min(j + 1, points - 1)]
    f = lambda t: float(condition9_max_step(math.exp(t), M=M, m=m, b=b, d=d, u=u)[0])  # noqa: E731
    r = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        x1, x2 = z - r * (z - a), a + r * (z - a)
        if f(x1) >= f(x2):
            z = x2
        else:
            a = x1
        if z - a < 1e-12:
            break
    g = math.exp((a + z) / 2)
    t = condition9_terms(g, M=M, m=m, b=b, d=d, u=u)
    return {"friction": g, "eta_max": float(t.min()), "binding": [int(i) for i in np.argsort(t)[:2]],
            "friction_times_eta": g * float(t.min())}


def lemma3_C(friction, *, M, d, u=1.0):
    """``C = 6(γ² + 7u²M² + 2ud)`` of (11).

    Parameters
    ----------
    friction : float or ndarray of float
        ``γ`` > 0.
    M : float
        > 0. d : int >= 1. u : float > 0.

    Returns
    -------
    float or ndarray of float64, shape of ``friction``

    Raises
    ------
    ValueError
        Non-positive or non-finite inputs.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``, Lemma 3, eq. (11).
    """
    M, u, d = check_positive("M", M), check_positive("u", u), check_positive_int("d", d)
    g = _gammas(friction)
    return 6.0 * (g**2 + 7 * u**2 * M**2 + 2 * u * d)


def lemma3_Ebar(friction, *, M, m, b, d, G2, x_star_sq, f0_minus_fstar, u=1.0):
    """``Ē`` of (12).

    ``Ē = 8Mu[16(d+b) + 2m‖x*‖² + 16u(γ²+2u)G²/γ²]/(γ²m) + 8u(f(0) − f(x*))/γ² + G²/M² + γud``.

    Parameters
    ----------
    friction : float or ndarray of float
        ``γ`` > 0.
    M, m, b, d, u
        As in :func:`condition9_terms`.
    G2 : float
        ``G²`` (Assumption 1 and the statement of Lemma 3), > 0.
    x_star_sq : float
        ``‖x*‖²`` >= 0, ``x*`` a minimizer of ``f``.
    f0_minus_fstar : float
        ``f(0) − f(x*)`` >= 0.

    Returns
    -------
    float or ndarray of float64, shape of ``friction``

    Raises
    ------
    ValueError
        Non-positive ``M, m, b, u, G2``, negative ``x_star_sq`` or ``f0_minus_fstar``, bad ``d`` or ``friction``.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``, Lemma 3, eq. (12).
    """
    M, m, b, d, u = _consts(M, m, b, d, u)
    G2 = check_positive("G2", G2)
    for name, v in (("x_star_sq", x_star_sq), ("f0_minus_fstar", f0_minus_fstar)):
        if isinstance(v, bool) or not np.isfinite(v) or v < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
    g = _gammas(friction)
    return (8 * M * u * (16 * (d + b) + 2 * m * x_star_sq + 16 * u * (g**2 + 2 * u) * G2 / g**2) / (g**2 * m)
            + 8 * u * f0_minus_fstar / g**2 + G2 / M**2 + g * u * d)


def bound10_growth_coefficient(step_size, friction, *, M, m, b, d, G2, x_star_sq, f0_minus_fstar, u=1.0):
    """The slope in ``k`` of the bound (10): ``C M² Ē η²``.

    Parameters
    ----------
    step_size : float or ndarray of float
        ``η`` > 0.
    friction : float or ndarray of float
        ``γ`` > 0 (broadcast against ``step_size``; pass ``−log(0.9)/η`` for Remark 2).
    M, m, b, d, G2, x_star_sq, f0_minus_fstar, u
        As in :func:`lemma3_Ebar`.

    Returns
    -------
    float or ndarray of float64
        In units of squared gradient per iteration.

    Raises
    ------
    ValueError
        As :func:`lemma3_Ebar`; non-positive ``step_size``.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``, Lemma 3, eqs. (10)–(12); Remark 2.

    Examples
    --------
    >>> kw = dict(M=2.0, m=0.5, b=1.0, d=2, G2=3.0, x_star_sq=1.0, f0_minus_fstar=0.5)
    >>> r = bound10_growth_coefficient(0.02, 1.0, **kw) / bound10_growth_coefficient(0.01, 1.0, **kw)
    >>> bool(np.isclose(r, 4.0))
    True
    """
    h = _gammas(step_size, "step_size")
    C = lemma3_C(friction, M=M, d=d, u=u)
    E = lemma3_Ebar(friction, M=M, m=m, b=b, d=d, G2=G2, x_star_sq=x_star_sq, f0_minus_fstar=f0_minus_fstar, u=u)
    return C * M**2 * E * h**2
