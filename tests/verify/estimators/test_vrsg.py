"""vrSG-MCMC's two-minibatch control variate and sampling without replacement (verify/estimators).

Seed ``002_245183f35db8d795.txt``: Algorithm 1, eq. (10), Remark 7 (``n1 = N`` is SVRG-LD).
Deterministic properties only; the statistical checks of the estimator's law live with the paper's tests.
"""
from __future__ import annotations

import numpy as np
import pytest

from sgmcmc_verify.estimators import (SVRGControlVariate, TwoMinibatchControlVariate, UniformMinibatch, subset_indices,
                               uniform_indices)
from sgmcmc_verify.integrators import OverdampedEM
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.samplers import build, vrsg_estimator, vrsg_hmc, vrsg_ld
from sgmcmc_verify.targets import gaussian_means_target


@pytest.mark.parametrize("n, b", [(10, 1), (10, 4), (10, 9), (10, 10), (1000, 50), (1000, 100), (1000, 999)])
def test_subset_indices_are_distinct_and_in_range(n, b):
    idx = subset_indices(np.random.default_rng(1), n, 200, b)
    assert idx.shape == (200, b) and idx.dtype == np.int64
    assert idx.min() >= 0 and idx.max() < n
    assert all(len(np.unique(row)) == b for row in idx)


def test_subset_of_everything_consumes_no_randomness():
    rng = np.random.default_rng(5)
    idx = subset_indices(rng, 7, 3, 7)
    np.testing.assert_array_equal(np.sort(idx, axis=1), np.tile(np.arange(7), (3, 1)))
    assert rng.integers(0, 2**62) == np.random.default_rng(5).integers(0, 2**62)


def test_one_index_without_replacement_is_the_with_replacement_stream():
    a = subset_indices(np.random.default_rng(9), 50, 11, 1)
    b = uniform_indices(np.random.default_rng(9), 50, 11, 1)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("b", [0, 11])
def test_subset_size_outside_range_is_rejected(b):
    with pytest.raises(ValueError, match="batch_size"):
        subset_indices(np.random.default_rng(0), 10, 2, b)


def test_replace_must_be_a_bool():
    with pytest.raises(ValueError, match="replace"):
        UniformMinibatch(3, replace="no")


def test_without_replacement_is_reported_in_settings_only_when_chosen():
    assert UniformMinibatch(3).settings() == {"estimator": "uniform", "batch_size": 3}
    assert UniformMinibatch(3, replace=False).settings()["replace"] is False


def test_full_anchor_batch_is_svrg_ld_step_for_step():
    """Remark 7: with n1 = N (without replacement) the old gradient is the full gradient: SVRG-LD, epoch m."""
    t = gaussian_means_target()
    m, n2 = 7, 3
    # the fresh n2-batch with replacement, as SVRGControlVariate draws it, so that both consume one stream
    a = OverdampedEM(t, 2e-3, TwoMinibatchControlVariate(UniformMinibatch(n2), UniformMinibatch(t.n, replace=False), m),
                     name="vrSG-LD")
    b = OverdampedEM(t, 2e-3, SVRGControlVariate(UniformMinibatch(n2), m), name="SVRG-LD")
    x0 = np.random.default_rng(0).standard_normal((6, 2))
    ra, rb = np.random.default_rng(3), np.random.default_rng(3)
    sa, sb = a.init(x0), b.init(x0)
    for _ in range(40):
        sa, ia = a.step(sa, ra)
        sb, ib = b.step(sb, rb)
        assert ia.evaluations == ib.evaluations
        np.testing.assert_allclose(sa.position, sb.position, rtol=0, atol=1e-12)  # round-off of the summation order


def test_evaluations_are_two_n2_per_step_plus_n1_per_refresh():
    t = gaussian_means_target()
    s = vrsg_ld(t, 1e-3, n1=20, n2=4, update_interval=5)
    out = run_chains(s, s.init(np.zeros((3, 2))), np.random.default_rng(0), steps=23)
    refreshes = len(range(0, 23, 5))  # l mod m = 0 for l = 0, 5, 10, 15, 20
    assert out["evaluations"] == 23 * 2 * 4 + refreshes * 20


def test_anchor_is_refreshed_every_m_steps_at_the_current_position():
    t = gaussian_means_target()
    est = vrsg_estimator(10, 2, update_interval=3)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 2))
    st = est.init(t, x)
    anchors = []
    for _ in range(7):
        e = est(st, rng, t, x)
        st = e.state
        anchors.append(st.anchor.copy())
        x = x + 0.1
    assert np.array_equal(anchors[0], anchors[2]) and not np.array_equal(anchors[2], anchors[3])
    np.testing.assert_allclose(anchors[3], anchors[0] + 0.3)
    assert np.array_equal(anchors[3], anchors[5]) and not np.array_equal(anchors[5], anchors[6])


def test_anchor_batch_not_larger_than_current_warns():
    with pytest.warns(UserWarning, match="n1 = 5 <= n2 = 5"):
        vrsg_estimator(5, 5)


@pytest.mark.parametrize("kw, name", [({"update_interval": 0}, "update_interval"), ({"current": 3}, "current")])
def test_bad_estimator_input_names_the_parameter(kw, name):
    args = {"current": UniformMinibatch(2), "anchor": UniformMinibatch(10), "update_interval": 5} | kw
    with pytest.raises(ValueError, match=name):
        TwoMinibatchControlVariate(**args)


def test_registry_builds_both_bases():
    t = gaussian_means_target()
    assert build("vrSG-LD", t, 1e-3, n1=20, n2=2).name == "vrSG-LD"
    s = vrsg_hmc(t, 1e-2, 10.0, n1=20, n2=2)
    state, info = s.step(s.init(np.zeros((4, 2))), np.random.default_rng(0))
    assert state.momentum.shape == (4, 2) and info.evaluations == 2 * 2 + 20
