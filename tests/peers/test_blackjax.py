"""sgmcmc_verify.peers.blackjax: blackjax's SGLD / SGHMC in the sampler protocol share the law of the toolkit's recursions.

Skipped when JAX / blackjax are absent (``make test-peers`` installs the ``peers`` extra and runs them).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("blackjax")

from sgmcmc_verify.analytic.linear_samplers import (minibatch_noise_covariance, propagate_moments,  # noqa: E402
                                      sgld_recursion, stationary_moments, underdamped_em_recursion)
from sgmcmc_verify.errors import DivergenceError  # noqa: E402
from sgmcmc_verify.estimators import FullGradient, UniformMinibatch  # noqa: E402
from sgmcmc_verify.integrators import Sampler  # noqa: E402
from sgmcmc_verify.peers import blackjax as bj  # noqa: E402
from sgmcmc_verify.runner import run_chains  # noqa: E402
from sgmcmc_verify.targets import (GaussianMeanModel, LSMixtureTarget, anisotropic_gaussian_means_target,  # noqa: E402
                            gaussian_means_target, hsg_mixture_target, mixture_centers)

Z_BOUND = 4.5  # two-sided normal tail 7e-6 per statistic; every test below is seeded


def _z_scores(sampler, rec, chains, K, seed, x0):
    """z-scores of the chains' mean and variance after K steps against the exact law of ``rec`` from ``x0``."""
    tgt = sampler.target
    d = tgt.dim
    st = run_chains(sampler, sampler.init(np.tile(x0, (chains, 1))), np.random.default_rng(seed), steps=K)["state"]
    z = st.position if st.momentum is None else np.hstack([st.position, st.momentum])
    D = rec.A.shape[0]
    m0 = np.r_[x0, np.zeros(D - d)]
    m, S = propagate_moments(rec, m0, np.zeros((D, D)), [K])
    m, S = m[0], S[0]
    zm = (z.mean(0) - m) / np.sqrt(np.diag(S) / chains)
    c = z - z.mean(0)
    v, m4 = (c**2).mean(0), (c**4).mean(0)
    zv = (c.var(0, ddof=1) - np.diag(S)) / np.sqrt((m4 - v**2) / chains)
    # the off-diagonal covariance of the position, against its exact value, with the delta-method s.e.
    p = c[:, :d]
    prod = p[:, 0] * p[:, 1]
    zc = (prod.mean() - S[0, 1]) / np.sqrt(prod.var() / chains)
    return zm, zv, zc, (m, S)


def _sgld_rec(tgt, h, Q):
    return sgld_recursion(tgt.hessian, tgt.posterior_mean, Q, h)


def _sghmc_rec(tgt, h, gamma, Q):
    return underdamped_em_recursion(tgt.hessian, tgt.posterior_mean, Q, h, gamma)


# ---- the law: blackjax's chains against the exact law of the toolkit's recursion at the same h ---------------

@pytest.mark.statistical(pair="peers.blackjax_sgld_law")
@pytest.mark.parametrize("estimator", [FullGradient(), UniformMinibatch(1)], ids=["full", "uniform_b1"])
def test_blackjax_sgld_matches_the_exact_law_of_the_toolkit_sgld_recursion(estimator):
    # §5.1 Gaussian (n = 50), h = 1e-3 (h n = 0.05): after K = 400 steps the recursion is stationary to
    # (1 − hn)^400 ≈ 1e-9, so this is the stationary law of the toolkit's SGLD at the same h
    tgt = gaussian_means_target()
    h = 1e-3
    Q = np.zeros((2, 2)) if isinstance(estimator, FullGradient) else minibatch_noise_covariance(tgt.centers, 1)
    s = bj.sgld_factory(tgt, h, estimator=estimator)
    zm, zv, zc, (m, S) = _z_scores(s, _sgld_rec(tgt, h, Q), chains=4000, K=400, seed=11, x0=np.ones(2))
    ms, Ss = stationary_moments(_sgld_rec(tgt, h, Q))
    assert np.allclose(m, ms, atol=1e-8) and np.allclose(S, Ss, rtol=1e-6)  # K steps reach stationarity
    assert np.all(np.abs(zm) < Z_BOUND), zm
    assert np.all(np.abs(zv) < Z_BOUND), zv
    assert abs(zc) < Z_BOUND, zc


@dataclasses.dataclass(frozen=True, eq=False)
class WellingTehConvention(bj.BlackjaxSGLD):
    """Planted bug: blackjax called with Welling & Teh's reading of the step size (temperature 1/2, i.e. noise
    N(0, h) instead of N(0, 2h)): the stationary variance halves."""

    def __post_init__(self):
        object.__setattr__(self, "inverse_temperature", 2.0)
        super().__post_init__()


@pytest.mark.negative_control(pair="peers.blackjax_sgld_law")
def test_sgld_law_check_catches_a_wrong_noise_convention():
    tgt = gaussian_means_target()
    h = 1e-3
    s = WellingTehConvention(tgt, h, None)
    zm, zv, zc, _ = _z_scores(s, _sgld_rec(tgt, h, np.zeros((2, 2))), chains=4000, K=400, seed=11, x0=np.ones(2))
    assert np.max(np.abs(zv)) > Z_BOUND, zv


@pytest.mark.statistical(pair="peers.blackjax_sghmc_law")
@pytest.mark.parametrize("estimator", [FullGradient(), UniformMinibatch(1)], ids=["full", "uniform_b1"])
def test_blackjax_sghmc_matches_the_exact_law_of_the_toolkit_sghmc_recursion(estimator):
    # h = 5e-3, γ = 10: K = 1500 steps is 7.5 time units, the slowest mode (rate ≈ n/γ = 5) has decayed by e^-37
    tgt = gaussian_means_target()
    h, gamma = 5e-3, 10.0
    Q = np.zeros((2, 2)) if isinstance(estimator, FullGradient) else minibatch_noise_covariance(tgt.centers, 1)
    s = bj.sghmc_factory(tgt, h, gamma, estimator=estimator)
    rec = _sghmc_rec(tgt, h, gamma, Q)
    zm, zv, zc, (m, S) = _z_scores(s, rec, chains=4000, K=1500, seed=12, x0=np.ones(2))
    ms, Ss = stationary_moments(rec)
    assert np.allclose(m, ms, atol=1e-8) and np.allclose(S, Ss, rtol=1e-6)
    assert np.all(np.abs(zm) < Z_BOUND), zm
    assert np.all(np.abs(zv) < Z_BOUND), zv
    assert abs(zc) < Z_BOUND, zc


@dataclasses.dataclass(frozen=True, eq=False)
class DefaultAlpha(bj.BlackjaxSGHMC):
    """Planted bug: blackjax's default ``alpha = 0.01`` kept for the solver, the toolkit's friction only reported."""

    def __post_init__(self):
        gamma = self.friction
        object.__setattr__(self, "friction", 0.01)
        super().__post_init__()
        object.__setattr__(self, "friction", gamma)


@pytest.mark.negative_control(pair="peers.blackjax_sghmc_law")
def test_sghmc_law_check_catches_the_default_alpha():
    tgt = gaussian_means_target()
    h, gamma = 5e-3, 10.0
    s = DefaultAlpha(tgt, h, gamma, None)
    zm, zv, zc, _ = _z_scores(s, _sghmc_rec(tgt, h, gamma, np.zeros((2, 2))), chains=4000, K=1500, seed=12,
                              x0=np.ones(2))
    assert max(np.max(np.abs(zm)), np.max(np.abs(zv))) > Z_BOUND, (zm, zv)


# ---- protocol, mapping, errors ------------------------------------------------------------------------

def test_adapters_follow_the_sampler_protocol_and_report_the_mapping():
    tgt = gaussian_means_target(n=10)
    s = bj.sgld_factory(tgt, 1e-3, batch_size=3)
    assert isinstance(s, Sampler)
    state, info = s.step(s.init(np.zeros((5, 2))), np.random.default_rng(0))
    assert state.position.shape == (5, 2) and state.position.dtype == np.float64 and info.evaluations == 3
    assert s.settings() == {"sampler": "blackjax-SGLD", "step_size": 1e-3, "inverse_temperature": 1.0,
                            "estimator": "uniform", "batch_size": 3, "implementation": "blackjax"}
    h = bj.sghmc_factory(tgt, 1e-2, 5.0, estimator=FullGradient())
    state, info = h.step(h.init(np.zeros((2, 2))), np.random.default_rng(0))
    assert state.momentum.shape == (2, 2) and info.evaluations == 10
    assert h.settings()["friction"] == 5.0 and h.settings()["estimator"] == "full"


def test_same_generator_same_chains():
    tgt = gaussian_means_target(n=10)
    s = bj.sghmc_factory(tgt, 1e-2, 5.0)
    a = run_chains(s, s.init(np.zeros((3, 2))), np.random.default_rng(4), steps=20)["state"]
    b = run_chains(s, s.init(np.zeros((3, 2))), np.random.default_rng(4), steps=20)["state"]
    assert np.array_equal(a.position, b.position) and np.array_equal(a.momentum, b.momentum)


def test_full_data_step_is_the_exact_gradient_step_at_zero_noise_limit():
    # with the whole data as minibatch, blackjax's N·mean gradient is the exact ∇V; the drift of one step is −h∇V
    tgt = GaussianMeanModel(np.random.default_rng(0).standard_normal((20, 2)), prior_precision=2.0)
    s = bj.BlackjaxSGLD(tgt, 1e-3, None, inverse_temperature=1e12)
    x = np.random.default_rng(1).standard_normal((4, 2))
    st, _ = s.step(s.init(x), np.random.default_rng(2))
    drift = x - 1e-3 * tgt.full_gradient(x)
    # noise s.d. √(2h/β) = 4.5e-8; 1e-6 is 20 of them
    np.testing.assert_allclose(st.position, drift, atol=1e-6)


def test_divergence_raises_with_the_step():
    tgt = gaussian_means_target(n=50)
    s = bj.sgld_factory(tgt, 1.0, estimator=FullGradient())  # h n = 50: |1 − hn| = 49, overflows in ~200 steps
    with pytest.raises(DivergenceError, match="blackjax-SGLD"):
        run_chains(s, s.init(np.ones((2, 2))), np.random.default_rng(0), steps=400)


@pytest.mark.parametrize("call,match", [
    (lambda t: bj.sgld_factory(t, 0.0), "step_size"),
    (lambda t: bj.sgld_factory(t, 1e-3, batch_size=0), "batch_size"),
    (lambda t: bj.sgld_factory(t, 1e-3, estimator=UniformMinibatch(2, replace=False)), "estimator"),
    (lambda t: bj.sghmc_factory(t, 1e-3, 0.0), "friction"),
    (lambda t: bj.sghmc_factory(t, 1e-3, 2.0, noise_scale=1.0), "noise_scale"),
    (lambda t: bj.sgld_factory(LSMixtureTarget(mixture_centers(20, 0)), 1e-3), "target"),
    (lambda t: bj.sgld_factory(t, 1e-3).init(np.zeros((2, 3))), "position"),
    (lambda t: bj.sgld_factory(t, 1e-3, batch_size=60).init(np.zeros((2, 2))), "batch_size"),
    (lambda t: bj.compiled_loop("SGNHT", t, 1e-3, 10), "method"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call(gaussian_means_target())


def test_compiled_loop_runs_and_is_seeded():
    tgt = gaussian_means_target()
    run = bj.compiled_loop("SGHMC", tgt, 5e-3, 50, chains=3)
    a, b = np.asarray(run(1, np.zeros((3, 2)))), np.asarray(run(1, np.zeros((3, 2))))
    assert a.shape == (3, 2) and np.all(np.isfinite(a)) and np.array_equal(a, b)


@pytest.mark.parametrize("make", [lambda: gaussian_means_target(), lambda: GaussianMeanModel(np.ones((5, 2)), 0.5),
                                  lambda: anisotropic_gaussian_means_target([1.0, 100.0]),
                                  lambda: hsg_mixture_target(n=30)])
def test_jax_log_densities_give_the_targets_per_datum_gradients(make):
    """−∇(logprior + Σ_{i∈I} loglik_i) in JAX equals the toolkit's prior + per-datum gradients on every audit
    target (the audit battery runs blackjax on these); 1e-12 relative: float64 round-off of two formulas."""
    tgt = make()
    logprior, loglik, data = bj.jax_log_densities(tgt)
    rng = np.random.default_rng(0)
    theta = rng.standard_normal((4, tgt.dim))
    idx = rng.integers(0, tgt.n, size=(4, 3))
    g_lik = jax.vmap(jax.vmap(jax.grad(loglik), in_axes=(None, 0)))(theta, data[idx])
    g_pri = jax.vmap(jax.grad(logprior))(theta)
    ours = tgt.data_gradients(theta, idx)
    np.testing.assert_allclose(-np.asarray(g_lik), ours, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(-np.asarray(g_pri), tgt.prior_gradient(theta), rtol=1e-12, atol=1e-12)
