"""Lemma 3 of HSG-HMC as exact arithmetic: condition (9) as a set, the constants (11)-(12).

Seed ``001_d56659fdb8996bf2.txt``: Lemma 3, eqs. (9)-(12); Remark 2. The reference below is the
printed condition (9) transcribed term by term, independently of :mod:`sgmcmc_verify.analytic.hsg_lemma3`.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from sgmcmc_verify.analytic.hsg_lemma3 import (bound10_growth_coefficient, condition9_best, condition9_max_step, condition9_terms,
                                 condition9_tied, lemma3_C, lemma3_Ebar)

MIX = dict(M=10.58, m=0.5, b=4.53, d=2, u=1.0)  # the HSG-HMC mixture's constants (rounded)


def _printed(g, M, m, b, d, u):
    """Condition (9) as printed: the seven upper limits on η at friction γ."""
    return [1 / (2 * g), 6 * M / (g * m), g / (4 * (8 * M * u + u * g + 22 * g * g)), 2 / math.sqrt(4 * M * u + 3 * g * g),
            6 * g * b * u / ((4 * M * u + 3 * g * g) * d), g**3 * m / (48 * M**3 * u * (288 * u + 14 * g)),
            math.sqrt(24 * u * M / 5)]


GAMMAS = np.geomspace(1e-3, 1e5, 161)


def _boundary_matches_printed(max_step, consts, gammas=GAMMAS):
    """The check: ``η_max(γ)`` of an implementation equals the printed minimum at every γ (rel. 1e-12)."""
    got = max_step(gammas, **consts)
    ref = np.array([min(_printed(g, **consts)) for g in gammas])
    return bool(np.allclose(got, ref, rtol=1e-12, atol=0))


def _flipped_sign_max_step(friction, *, M, m, b, d, u=1.0):
    """Planted bug: the third term with ``8Mu − uγ`` instead of ``8Mu + uγ``."""
    t = condition9_terms(friction, M=M, m=m, b=b, d=d, u=u)
    g = np.asarray(friction, float)
    t[2] = np.abs(g / (4 * (8 * M * u - u * g + 22 * g**2)))
    return t.min(axis=0)


@pytest.mark.parametrize("consts", [MIX, dict(M=1.0, m=1.0, b=1.0, d=1, u=1.0), dict(M=3.0, m=0.2, b=10.0, d=5, u=0.5)])
def test_condition9_boundary_equals_the_printed_minimum(consts):
    assert _boundary_matches_printed(lambda g, **c: condition9_max_step(g, **c)[0], consts)


def test_boundary_check_catches_a_flipped_sign():
    """Planted bug: one sign flipped in one of the seven terms."""
    assert not _boundary_matches_printed(_flipped_sign_max_step, MIX)


@pytest.mark.parametrize("consts", [MIX, dict(M=0.01, m=5.0, b=100.0, d=1, u=10.0), dict(M=3.0, m=0.2, b=10.0, d=5, u=0.5)])
def test_remark2_tie_leaves_no_step_size_for_any_constants(consts):
    """γη = −log 0.9 ≈ 0.105 > 1/88: the third term alone fails, at every η (checked on a brute-force grid too)."""
    r = condition9_tied(0.9, **consts)
    assert not r["nonempty"] and r["binding"] == 2 and r["decay_threshold"] > 0.9
    c = -math.log(0.9)
    for h in np.geomspace(1e-12, 1.0, 60):
        assert h > min(_printed(c / h, **consts))


def test_tied_set_end_is_on_the_boundary():
    r = condition9_tied(0.999, **MIX)
    assert r["nonempty"]
    c, h = r["c"], r["eta_max"]
    assert h <= min(_printed(c / h, **MIX)) * (1 + 1e-10)
    assert 1.001 * h > min(_printed(c / (1.001 * h), **MIX))
    assert 0.5 * h <= min(_printed(c / (0.5 * h), **MIX))


def test_decay_threshold_separates_empty_from_nonempty():
    q = condition9_tied(0.9, **MIX)["decay_threshold"]
    assert math.isclose(q, math.exp(-1 / 88), rel_tol=1e-12)
    assert not condition9_tied(q * 0.9999, **MIX)["nonempty"] and condition9_tied(min(q * 1.0001, 0.99999), **MIX)["nonempty"]


def test_best_step_is_the_maximum_of_the_boundary():
    best = condition9_best(**MIX)
    g = np.geomspace(1e-3, 1e6, 20001)
    em = condition9_max_step(g, **MIX)[0]
    assert best["eta_max"] >= em.max() * (1 - 1e-12)
    assert math.isclose(best["eta_max"], min(_printed(best["friction"], **MIX)), rel_tol=1e-12)
    assert sorted(best["binding"]) == [2, 5]  # T3 and T6 cross at the top of the set


def test_bound_growth_coefficient_scalings():
    kw = dict(M=2.0, m=0.5, b=1.0, d=2, G2=3.0, x_star_sq=1.0, f0_minus_fstar=0.5)
    r = bound10_growth_coefficient(2e-3, 1.0, **kw) / bound10_growth_coefficient(1e-3, 1.0, **kw)
    assert math.isclose(r, 4.0, rel_tol=1e-12)  # fixed γ: η²
    c = -math.log(0.9)
    h = np.array([1e-9, 1e-8])
    t = bound10_growth_coefficient(h, c / h, **kw)
    assert math.isclose(math.log(t[1] / t[0]) / math.log(10), -1.0, abs_tol=1e-3)  # Remark 2, η → 0: η^-1
    assert math.isclose(float(lemma3_C(1.0, M=2.0, d=2)), 6 * (1 + 28 + 4))
    E = float(lemma3_Ebar(1.0, **{k: v for k, v in kw.items()}))
    ref = 8 * 2 * (16 * 3 + 2 * 0.5 * 1 + 16 * 3 * 3) / 0.5 + 8 * 0.5 + 3 / 4 + 2
    assert math.isclose(E, ref, rel_tol=1e-12)


@pytest.mark.parametrize("call,name", [
    (lambda: condition9_terms(0.0, **MIX), "friction"), (lambda: condition9_terms(1.0, **{**MIX, "M": -1}), "M"),
    (lambda: condition9_tied(1.0, **MIX), "decay"), (lambda: condition9_best(**MIX, friction_range=(10, 1)), "friction_range"),
    (lambda: bound10_growth_coefficient(-1.0, 1.0, M=1, m=1, b=1, d=1, G2=1, x_star_sq=0, f0_minus_fstar=0), "step_size"),
    (lambda: lemma3_Ebar(1.0, M=1, m=1, b=1, d=1, G2=1, x_star_sq=-1, f0_minus_fstar=0), "x_star_sq")])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
