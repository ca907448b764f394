"""Tests of verify/targets/bounds.py: the JJ and Taylor bounds are lower bounds, collapse exactly, and have the
gradients finite differences give; the misspecified Gaussian target's per-datum terms likewise."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from sgmcmc_verify.targets.bounds import (GaussianFitTarget, GaussianFitTaylorBound, LogisticJJBound, jj_lambda,
                                   lognormal_data)

FD_STEP = 1e-6
FD_TOL = 1e-6  # central differences: O(h²) truncation + O(eps/h) round-off ≈ 1e-9 relative, with margin


def _blr(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.ones(n), rng.standard_normal((n, d - 1))])
    y = (rng.random(n) < 0.5).astype(float)
    return X, y


def _fd(f, theta):
    """Central-difference gradient of ``f`` ``(K, d) -> (K,)`` at every row: ``(K, d)``."""
    out = np.empty_like(theta)
    for j in range(theta.shape[1]):
        e = np.zeros(theta.shape[1])
        e[j] = FD_STEP
        out[:, j] = (f(theta + e) - f(theta - e)) / (2 * FD_STEP)
    return out


@pytest.fixture(scope="module")
def jj():
    X, y = _blr()
    return LogisticJJBound.at(X, y, np.array([0.2, -0.5, 0.3]))


def test_jj_is_a_lower_bound_tight_at_its_point(jj):
    rng = np.random.default_rng(1)
    th = rng.normal(scale=3.0, size=(500, 3))
    idx = rng.integers(0, jj.n, 500)
    assert np.all(jj.log_bound_pairs(th, idx) <= jj.log_likelihood_pairs(th, idx) + 1e-12)
    at = np.repeat(np.array([[0.2, -0.5, 0.3]]), jj.n, 0)
    np.testing.assert_allclose(jj.log_bound_pairs(at, np.arange(jj.n)), jj.log_likelihood_pairs(at, np.arange(jj.n)),
                               atol=1e-12)


def test_jj_collapsed_total_is_the_sum_over_data(jj):
    th = np.random.default_rng(2).normal(size=(4, 3))
    full = np.array([jj.log_bound_pairs(np.repeat(t[None], jj.n, 0), np.arange(jj.n)).sum() for t in th])
    np.testing.assert_allclose(jj.log_bound_total(th), full, rtol=1e-12, atol=1e-10)
    lik = np.array([jj.log_likelihood_pairs(np.repeat(t[None], jj.n, 0), np.arange(jj.n)).sum() for t in th])
    np.testing.assert_allclose(jj.log_likelihood_total(th), lik, rtol=1e-12)


def test_jj_gradients_match_finite_differences(jj):
    rng = np.random.default_rng(3)
    th, idx = rng.normal(size=(30, 3)), rng.integers(0, jj.n, 30)
    for f, g in ((jj.log_likelihood_pairs, jj.grad_log_likelihood_pairs), (jj.log_bound_pairs, jj.grad_log_bound_pairs)):
        np.testing.assert_allclose(g(th, idx), _fd(lambda t, f=f: f(t, idx), th), atol=FD_TOL)
    np.testing.assert_allclose(jj.grad_log_bound_total(th), _fd(jj.log_bound_total, th), rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(jj.grad_log_prior(th), _fd(jj.log_prior, th), atol=FD_TOL)


def test_jj_lambda_limit_and_validation():
    np.testing.assert_allclose(jj_lambda(np.array([0.0, 1e-8, 1.0])), [0.125, 0.125, np.tanh(0.5) / 4.0], rtol=1e-12)
    X, y = _blr()
    with pytest.raises(ValueError, match="xi"):
        LogisticJJBound(X, y, -np.ones(X.shape[0]))
    with pytest.raises(ValueError, match="y"):
        LogisticJJBound(X, 2 * y, np.ones(X.shape[0]))
    with pytest.raises(ValueError, match="prior_precision"):
        LogisticJJBound(X, y, np.ones(X.shape[0]), prior_precision=0.0)


def test_jj_at_the_map_is_tight_for_every_datum():
    X, y = _blr(seed=4)

    def nlp(t):
        s = (2 * y - 1) * (X @ t)
        return np.sum(np.logaddexp(0, -s)) + 0.05 * t @ t

    tmap = minimize(nlp, np.zeros(3)).x
    b = LogisticJJBound.at(X, y, tmap)
    at = np.repeat(tmap[None], b.n, 0)
    np.testing.assert_allclose(b.log_bound_total(tmap[None])[0], b.log_likelihood_total(tmap[None])[0], rtol=1e-12)
    assert np.allclose(b.log_bound_pairs(at, np.arange(b.n)), b.log_likelihood_pairs(at, np.arange(b.n)))


# ---- the misspecified Gaussian (Appendix G.1) --------------------------------------------------------

@pytest.fixture(scope="module")
def gfit():
    return GaussianFitTarget(lognormal_data(3000, 11))


def test_gaussian_fit_per_datum_gradients_match_finite_differences(gfit):
    rng = np.random.default_rng(5)
    th = gfit.mle() + rng.normal(scale=0.1, size=(20, 2))
    idx = rng.integers(0, gfit.n, (20, 4))
    g = gfit.data_gradients(th, idx)
    for j in range(4):
        def v(t, j=j):
            return -gfit.log_likelihood_pairs(t, idx[:, j]) - 0.5 * np.log(2 * np.pi)
        np.testing.assert_allclose(g[:, j], _fd(v, th), atol=1e-5 * np.abs(g[:, j]).max())
        np.testing.assert_allclose(gfit.grad_log_likelihood_pairs(th, idx[:, j]), -g[:, j], rtol=1e-12)
    full = gfit.data_gradients(th, np.tile(np.arange(gfit.n), (20, 1))).sum(axis=1)
    np.testing.assert_allclose(gfit.full_gradient(th), full, rtol=1e-9, atol=1e-7)


def test_gaussian_fit_potential_is_the_sum_and_infinite_outside_the_box(gfit):
    th = gfit.mle()[None] + np.array([[0.0, 0.0], [0.01, -0.01]])
    direct = [-(gfit.log_likelihood_pairs(np.repeat(t[None], gfit.n, 0), np.arange(gfit.n)) + 0.5 * np.log(2 * np.pi)).sum()
              for t in th]
    np.testing.assert_allclose(gfit.potential(th), direct, rtol=1e-10)
    assert np.isinf(gfit.potential(gfit.box[:, 1][None] + 1.0))[0]
    with pytest.raises(ValueError, match="box"):
        GaussianFitTarget(gfit.x, box=[[1.0, 0.0], [0.0, 1.0]])


def test_taylor_bound_is_a_lower_bound_on_the_box_and_tight_at_its_center(gfit):
    b = GaussianFitTaylorBound(gfit)
    grid = np.stack(np.meshgrid(np.linspace(*gfit.box[0], 11), np.linspace(*gfit.box[1], 11), indexing="ij"),
                    -1).reshape(-1, 2)
    idx = np.concatenate([np.argsort(gfit.x)[-20:], np.argsort(gfit.x)[:20], np.arange(40)])  # extremes included
    th, ii = np.repeat(grid, idx.size, 0), np.tile(idx, grid.shape[0])
    assert np.all(b.log_likelihood_pairs(th, ii) - b.log_bound_pairs(th, ii) >= -1e-10)
    c = np.repeat(b.center[None], gfit.n, 0)
    np.testing.assert_allclose(b.log_bound_pairs(c, np.arange(gfit.n)), b.log_likelihood_pairs(c, np.arange(gfit.n)),
                               atol=1e-12)


def test_taylor_bound_collapses_and_has_finite_difference_gradients(gfit):
    b = GaussianFitTaylorBound(gfit)
    rng = np.random.default_rng(6)
    th = gfit.mle() + rng.normal(scale=0.02, size=(5, 2))
    full = [b.log_bound_pairs(np.repeat(t[None], gfit.n, 0), np.arange(gfit.n)).sum() for t in th]
    np.testing.assert_allclose(b.log_bound_total(th), full, rtol=1e-10)
    lik = [b.log_likelihood_pairs(np.repeat(t[None], gfit.n, 0), np.arange(gfit.n)).sum() for t in th]
    np.testing.assert_allclose(b.log_likelihood_total(th), lik, rtol=1e-10)
    idx = rng.integers(0, gfit.n, 5)
    np.testing.assert_allclose(b.grad_log_bound_pairs(th, idx), _fd(lambda t: b.log_bound_pairs(t, idx), th),
                               atol=1e-4)
    np.testing.assert_allclose(b.grad_log_bound_total(th), _fd(b.log_bound_total, th), rtol=1e-5)
    with pytest.raises(ValueError, match="center"):
        GaussianFitTaylorBound(gfit, center=gfit.box[:, 1] + 1.0)
