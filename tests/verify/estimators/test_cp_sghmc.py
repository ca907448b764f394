"""CP-SGHMC's clustered estimator: exact unbiasedness by enumeration, a seeded Monte Carlo check, planted bugs.

The exact expectation of the estimate over the cluster sampling law is computed by enumerating every
possible draw (each draw is one "chain" row, all rows equally likely) and compared with the full
gradient; a test-only subclass that drops the importance weight ``n_k / b_k`` (uniform ``n/b`` for every
draw) must be caught.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from sgmcmc_verify.estimators import ClusteredMinibatch, cluster_allocation, kmeans_clusters
from sgmcmc_verify.integrators import UnderdampedEM
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.targets import MLPClassifierTarget


class UniformWeightBug(ClusteredMinibatch):
    """Planted bug: every draw weighted n/b (the weight 1/(b p_i) of the cluster sampling law left out)."""

    def cluster_weights(self):
        return np.full(self.n_clusters, self.labels.size / self.batch_size)


def _problem(n=7, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = rng.integers(0, 2, n)
    t = MLPClassifierTarget(X, y, hidden=2, n_classes=2, prior_precision=0.5)
    theta = t.initial_position(rng, 1) + 0.3 * rng.standard_normal((1, t.dim))
    labels = np.array([0, 0, 1, 1, 1, 1, 1])[:n]  # clusters of 2 and 5 data: unequal sizes, so weights differ
    return t, theta, labels


def _exact_expectation(est, t, theta):
    """E[ĝ] over the cluster sampling law, by enumerating every draw (all equally likely)."""
    per_pos = [m for m, bk in zip(est._members, est.per_cluster) for _ in range(bk)]
    combos = np.array(list(itertools.product(*per_pos)))           # (n_draws, b)
    splits = np.cumsum(est.per_cluster)[:-1]
    idx = np.split(combos, splits, axis=1)                          # one (n_draws, b_k) block per cluster
    pos = np.repeat(theta, combos.shape[0], axis=0)
    return est.gradient_at(t, pos, idx).mean(axis=0), combos.shape[0]


@pytest.mark.parametrize("allocation,b", [("equal", 3), ("equal", 2), ("proportional", 4)])
def test_clustered_estimate_is_exactly_unbiased_by_enumeration(allocation, b):
    t, theta, labels = _problem()
    est = ClusteredMinibatch(labels, b, allocation)
    mean, count = _exact_expectation(est, t, theta)
    assert count == np.prod(est.sizes ** est.per_cluster)
    np.testing.assert_allclose(mean, t.full_gradient(theta)[0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("allocation,b", [("equal", 3), ("proportional", 4)])
def test_enumeration_catches_the_missing_importance_weight(allocation, b):
    """Planted bug (UniformWeightBug): the exact expectation is no longer the full gradient."""
    t, theta, labels = _problem()
    mean, _ = _exact_expectation(UniformWeightBug(labels, b, allocation), t, theta)
    assert np.max(np.abs(mean - t.full_gradient(theta)[0])) > 1e-3


def test_draw_probabilities_sum_to_one_and_weights_are_their_inverse():
    _, _, labels = _problem()
    est = ClusteredMinibatch(labels, 3)
    p = est.draw_probabilities()
    assert p.sum() == pytest.approx(1.0, abs=1e-15)
    np.testing.assert_allclose(est.weights(), 1.0 / (est.batch_size * p), rtol=1e-14)
    assert est.per_cluster.tolist() == [2, 1]


def _max_z(est_cls, seed=11, R=40_000):
    """Max over coordinates of |mean(ĝ) − ∇V| / s.e. over R independent draws (R rows of one call)."""
    t, theta, labels = _problem()
    est = est_cls(labels, 3)
    g = est(None, np.random.default_rng(seed), t, np.repeat(theta, R, axis=0)).gradient
    se = g.std(axis=0, ddof=1) / np.sqrt(R)
    ok = se > 0
    return float(np.max(np.abs(g.mean(axis=0) - t.full_gradient(theta)[0])[ok] / se[ok]))


@pytest.mark.statistical(pair="cp_sghmc.unbiased")
def test_sampled_clustered_estimate_mean_matches_full_gradient():
    """Monte Carlo mean over 40,000 draws within 4.5 s.e. of ∇V in every coordinate.

    4.5 s.e.: a two-sided normal tail of 7e-6 per coordinate, 1e-4 over the 14 coordinates.
    """
    assert _max_z(ClusteredMinibatch) < 4.5


@pytest.mark.negative_control(pair="cp_sghmc.unbiased")
def test_sampled_mean_check_catches_the_missing_importance_weight():
    assert _max_z(UniformWeightBug) > 4.5


def test_cost_is_b_per_chain_and_labels_must_match_target():
    t, theta, labels = _problem()
    est = ClusteredMinibatch(labels, 5)
    assert est(None, np.random.default_rng(0), t, theta).evaluations == 5
    with pytest.raises(ValueError, match="labels has"):
        ClusteredMinibatch(np.array([0, 1, 1]), 2).init(t, theta)


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="batch_size"):
        cluster_allocation([3, 4, 5], 2)
    with pytest.raises(ValueError, match="allocation"):
        cluster_allocation([3, 4], 2, "sqrt")
    with pytest.raises(ValueError, match="labels"):
        ClusteredMinibatch(np.array([0, 2, 2]), 2)
    with pytest.raises(ValueError, match="n_clusters"):
        kmeans_clusters(np.zeros((3, 2)), 4)


def test_proportional_allocation_sums_to_b_and_tracks_sizes():
    a = cluster_allocation([600, 300, 100], 20, "proportional")
    assert a.sum() == 20 and a.min() >= 1 and a[0] > a[1] > a[2]


def test_kmeans_recovers_separated_blobs():
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(c, 0.1, (30, 2)) for c in (0.0, 5.0, 10.0)])
    lab = kmeans_clusters(X, 3, seed=0)
    assert all(np.unique(lab[i * 30:(i + 1) * 30]).size == 1 for i in range(3))
    assert np.unique(lab).size == 3


def test_cp_sghmc_runs_on_the_mlp_with_the_underdamped_integrator():
    t, theta, labels = _problem()
    s = UnderdampedEM(t, 0.01, 0.1, ClusteredMinibatch(labels, 3), name="CP-SGHMC")
    out = run_chains(s, s.init(np.repeat(theta, 2, 0)), np.random.default_rng(0), steps=20)
    assert np.isfinite(out["state"].position).all() and out["evaluations"] == 60


def test_weighted_single_call_equals_the_per_cluster_sum():
    """The MLP's one weighted call and the generic per-cluster path give the same estimate (round-off)."""
    t, theta, labels = _problem(n=7)
    est = ClusteredMinibatch(labels, 4)
    idx = est.draw(np.random.default_rng(2), 3)
    pos = np.repeat(theta, 3, axis=0)

    class _Plain:  # the same target seen without the weighted sum: the per-cluster path
        n, prior_gradient = t.n, t.prior_gradient
        data_gradient_sum = staticmethod(lambda p, i: t.data_gradient_sum(p, i))

    np.testing.assert_allclose(est.gradient_at(t, pos, idx), est.gradient_at(_Plain(), pos, idx), rtol=1e-12,
                               atol=1e-12)


def test_mlp_weighted_sum_matches_weighted_per_datum_gradients():
    t, theta, _ = _problem()
    idx = np.array([[0, 3, 3, 6]])
    w = np.array([0.5, 2.0, 1.0, 3.0])
    np.testing.assert_allclose(t.data_gradient_sum(theta, idx, weights=w),
                               (w[None, :, None] * t.data_gradients(theta, idx)).sum(axis=1), rtol=1e-12, atol=1e-13)
    with pytest.raises(ValueError, match="weights"):
        t.data_gradient_sum(theta, idx, weights=np.ones(3))
