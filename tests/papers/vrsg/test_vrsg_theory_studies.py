"""vrSG-MCMC theory half: statistical checks of the real samplers against the exact results, each with planted bugs.

Seed ``002_245183f35db8d795.txt``. Every assertion is marked ``statistical(pair=...)`` and is shown to catch the
planted bug(s) of ``tests/support/vrsg.py`` marked ``negative_control`` with the same pair. Thresholds are fixed
before running: |z| <= 4 for a Monte Carlo mean against an exact value (two-sided false-alarm rate 6e-5 under the
normal approximation; every mean is over >= 1,000 independent draws or chains), Hotelling p >= 1e-3 for a
vector mean, 3 combined s.e. for an ordering. Pass and detection rates over 20 seed sets: docs/calibration.md.
"""
from __future__ import annotations

import numpy as np
import pytest

from sgmcmc_verify.paper_repro.vrsg.theory_lambda import anchor_gaps, state_statistics
from support import vrsg as S
from sgmcmc_verify.analytic import vrsg as V
from sgmcmc_verify.estimators import TwoMinibatchControlVariate, UniformMinibatch
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.samplers import vrsg_ld


def _vr(cls, n2=10, n1=100, m=10):
    return cls(UniformMinibatch(n2, replace=False), UniformMinibatch(n1, replace=False), m)


# ---- eq. (7) describes sampling without replacement ------------------------------------------------

@pytest.mark.statistical(pair="vrsg.eq7.scheme")
def test_without_replacement_minibatch_noise_matches_eq7():
    assert abs(S.eq7_z(UniformMinibatch(500, replace=False), 4000, seed=701)) <= 4


@pytest.mark.negative_control(pair="vrsg.eq7.scheme")
def test_eq7_check_catches_a_minibatch_that_mixes_the_schemes():
    assert abs(S.eq7_z(S.MixedSchemeMinibatch(500, replace=False), 4000, seed=701)) > 4


# ---- eq. (10): the estimator is unbiased --------------------------------------------------------------

@pytest.mark.statistical(pair="vrsg.eq10.unbiased")
@pytest.mark.parametrize("replace", [False, True])
def test_vrsg_estimator_is_unbiased_in_both_schemes(replace):
    est = TwoMinibatchControlVariate(UniformMinibatch(10, replace), UniformMinibatch(100, replace), 10)
    assert S.unbiased_p(est, 2000, seed=702) >= 1e-3


@pytest.mark.negative_control(pair="vrsg.eq10.unbiased")
def test_unbiasedness_check_catches_a_dropped_control_variate():
    assert S.unbiased_p(_vr(S.NoControlVariate), 2000, seed=702) < 1e-3


@pytest.mark.negative_control(pair="vrsg.eq10.unbiased")
def test_unbiasedness_check_catches_a_deduplicated_with_replacement_anchor():
    assert S.unbiased_p(_vr(S.DedupedAnchor), 2000, seed=702) < 1e-3


# ---- the exact MSE of vrSG-LD (anchor error held for m steps) is what the sampler does ---------------------

@pytest.mark.statistical(pair="vrsg.thm6.exact_mse")
def test_vrsg_ld_monte_carlo_mse_matches_the_exact_recursion():
    assert abs(S.vrsg_mse_z(_vr(TwoMinibatchControlVariate, n2=5, n1=20), 200, 1000, seed=703)) <= 4


@pytest.mark.negative_control(pair="vrsg.thm6.exact_mse")
def test_exact_mse_check_catches_an_anchor_error_that_does_not_persist():
    assert abs(S.vrsg_mse_z(_vr(S.AnchorBatchRefreshedEveryStep, n2=5, n1=20), 200, 1000, seed=703)) > 4


# ---- Corollary 4's two regimes -------------------------------------------------------------------------

@pytest.mark.statistical(pair="vrsg.cor4.small_budget")
def test_small_budget_full_batch_beats_unit_batch_at_the_bound_step():
    diff, se = S.cor4_budget_gap(UniformMinibatch, 2000.0, 400, seed=704)
    assert diff > 3 * se


@pytest.mark.negative_control(pair="vrsg.cor4.small_budget")
def test_small_budget_check_catches_a_minibatch_without_noise():
    diff, se = S.cor4_budget_gap(S.NoiselessMinibatch, 2000.0, 400, seed=704)
    assert not diff > 3 * se


@pytest.mark.statistical(pair="vrsg.cor4.noise_bias")
def test_unit_batch_stationary_bias_is_the_exact_noise_inflated_bias():
    """The mechanism that removes Corollary 4's large-budget regime on this model: SGLD's O(h) bias grows with the
    minibatch noise (h(Eζ² + κ)/(κ(2 − hκ)), ~500 h at n = 1 against h/2 at n = N)."""
    assert abs(S.stationary_bias_z(UniformMinibatch, 1000, seed=705)) <= 4


@pytest.mark.negative_control(pair="vrsg.cor4.noise_bias")
def test_bias_check_catches_a_minibatch_without_noise():
    assert abs(S.stationary_bias_z(S.NoiselessMinibatch, 1000, seed=705)) > 4


# ---- deterministic properties of the Theorem 6 measurement ------------------------------------------------

def test_anchor_gaps_follow_the_estimators_refresh_schedule():
    t = S.gaussian_target(50)
    m = 4
    s = vrsg_ld(t, 1e-3, 10, 2, m)
    rec = list(range(1, 14))
    out = run_chains(s, s.init(np.zeros((3, 1))), np.random.default_rng(0), checkpoints=rec, unit="steps",
                     observe={"pos": lambda q: q.position, "anchor": lambda q: q.estimator_state.anchor})
    gaps = anchor_gaps(out["steps"], m)
    for j, (c, k) in enumerate(zip(out["steps"], gaps)):
        i = rec.index(c - k) if c - k >= 1 else None
        ref = np.zeros((3, 1)) if i is None else out["pos"][:, i]
        np.testing.assert_array_equal(out["anchor"][:, j], ref)
    assert list(gaps) == [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1]


def test_state_statistics_are_the_analytic_quantities():
    from sgmcmc_verify.paper_repro.vrsg.theory import pima_target

    t = pima_target()
    rng = np.random.default_rng(1)
    pos, anc = 0.1 * rng.standard_normal((3, t.dim)), 0.1 * rng.standard_normal((3, t.dim))
    st = state_statistics(t, pos, anc)
    a, b = -t.data_gradients_all(pos), -t.data_gradients_all(anc)
    np.testing.assert_allclose(st["gA"], V.gamma(a), rtol=1e-14)
    np.testing.assert_allclose(2 * V.scheme_factor(t.n, 10, False) * st["gBD"], V.lambda_remainder(a, b, 10), rtol=1e-12)
    lam = V.scheme_factor(t.n, 10, False) * (st["gA"] - st["gD"]) - V.scheme_factor(t.n, 100, False) * st["gB"]
    np.testing.assert_allclose(lam, V.lambda_exact(a, b, 100, 10), rtol=1e-10)
