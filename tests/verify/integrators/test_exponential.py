"""Tests of the HSG-HMC exponential (OU) integrator as a sampler (verify/integrators/exponential.py).

The closed forms of (4)–(6) are tested in ``tests/analytic/test_ou_integrator.py``.

Seed ``001_d56659fdb8996bf2.txt`` (HSG-HMC), eqs. (3)–(6), Lemma 1, Remark 2.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from sgmcmc_verify.analytic.linear_samplers import minibatch_noise_covariance, propagate_moments
from sgmcmc_verify.analytic.ou_integrator import exponential_integrator_recursion, ou_noise_covariance
from sgmcmc_verify.errors import DivergenceError
from sgmcmc_verify.estimators import EWSGIndexChain, FullGradient, GradientEstimate, StepContext, UniformMinibatch
from sgmcmc_verify.integrators import ExponentialIntegrator, UnderdampedState, friction_for_decay
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.samplers import sg_ul_mcmc
from sgmcmc_verify.targets import gaussian_means_target

Z_BOUND = 4.5  # two-sided normal tail 7e-6 per statistic; every test below is seeded


# ---- helpers -----------------------------------------------------------------------------------

class ConstantGradientTarget:
    """``f(x) = bᵀx`` on R^d (n = 1): the gradient is ``b`` everywhere; ``b = 0`` is the free OU process."""

    def __init__(self, dim, slope=None):
        self.n = 1
        self.dim = dim
        self.slope = np.zeros(dim) if slope is None else np.asarray(slope, dtype=np.float64)

    def data_gradients(self, theta, idx):
        return np.broadcast_to(self.slope, idx.shape + (self.dim,)).copy()

    def prior_gradient(self, theta):
        return np.zeros_like(theta)

    def full_gradient(self, theta):
        return np.broadcast_to(self.slope, theta.shape).copy()

    def potential(self, theta):
        return theta @ self.slope


def zero_gradient_target(dim):
    return ConstantGradientTarget(dim)


class UncorrelatedNoise(ExponentialIntegrator):
    """Planted bug: ε_x and ε_v drawn independently with the right variances (correlation of (6) dropped)."""

    def _validate(self):
        super()._validate()
        S = self.noise_cholesky @ self.noise_cholesky.T
        object.__setattr__(self, "noise_cholesky", np.diag(np.sqrt(np.diag(S))))


def cov_z_scores(a, b, cov):
    """z-scores of the sample second moments of zero-mean pairs (a, b) against ``cov`` (Gaussian se)."""
    N = a.size
    emp = np.array([np.mean(a * a), np.mean(a * b), np.mean(b * b)])
    exact = np.array([cov[0, 0], cov[0, 1], cov[1, 1]])
    var = np.array([2 * cov[0, 0] ** 2, cov[0, 0] * cov[1, 1] + cov[0, 1] ** 2, 2 * cov[1, 1] ** 2]) / N
    return (emp - exact) / np.sqrt(var)


def test_friction_for_decay_remark2():
    for eta in [1e-4, 0.01, 0.5]:
        assert math.exp(-friction_for_decay(eta) * eta) == pytest.approx(0.9, rel=1e-14)
    assert math.exp(-friction_for_decay(0.1, 0.5) * 0.1) == pytest.approx(0.5, rel=1e-14)


# ---- the sampler: exact flow ----------------------------------------------------------------------

def test_zero_gradient_zero_noise_is_exact_ou_flow():
    gamma, eta = 1.7, 0.3
    tgt = zero_gradient_target(3)
    s = ExponentialIntegrator(tgt, eta, gamma, FullGradient(), u=2.0, inverse_temperature=np.inf)
    rng = np.random.default_rng(0)
    x0, v0 = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    state, info = s.step(s.init(x0, v0), rng)
    np.testing.assert_allclose(state.momentum, math.exp(-gamma * eta) * v0, rtol=1e-15)
    np.testing.assert_allclose(state.position, x0 + (1 - math.exp(-gamma * eta)) / gamma * v0, rtol=1e-14)
    assert info.evaluations == 1 and state.step == 1


def test_zero_noise_semigroup_k_steps_equal_one_step_of_k_eta():
    # with zero gradient the integrator is the exact flow, so Φ_η ∘ … ∘ Φ_η (k times) = Φ_{kη}
    gamma, eta, k = 0.8, 0.05, 40
    tgt = zero_gradient_target(2)
    small = ExponentialIntegrator(tgt, eta, gamma, FullGradient(), inverse_temperature=np.inf)
    big = ExponentialIntegrator(tgt, k * eta, gamma, FullGradient(), inverse_temperature=np.inf)
    rng = np.random.default_rng(1)
    x0, v0 = rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    st = small.init(x0, v0)
    for _ in range(k):
        st, _ = small.step(st, rng)
    sb, _ = big.step(big.init(x0, v0), rng)
    np.testing.assert_allclose(st.position, sb.position, rtol=1e-12)
    np.testing.assert_allclose(st.momentum, sb.momentum, rtol=1e-12)


def test_constant_gradient_zero_noise_matches_ode_solver():
    # cross-implementation: (4)–(5) without noise vs scipy's RK45 on dv = −γv − u b, dx = v
    gamma, eta, u = 0.9, 0.7, 1.5
    b = np.array([0.3, -1.2])
    tgt = ConstantGradientTarget(2, b)
    s = ExponentialIntegrator(tgt, eta, gamma, FullGradient(), u=u, inverse_temperature=np.inf)
    x0, v0 = np.array([[0.5, -0.2]]), np.array([[1.0, 0.4]])
    state, _ = s.step(s.init(x0, v0), np.random.default_rng(0))

    def rhs(t, z):
        return np.concatenate([z[2:], -gamma * z[2:] - u * b])

    sol = solve_ivp(rhs, (0, eta), np.concatenate([x0[0], v0[0]]), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(state.position[0], sol.y[:2, -1], rtol=1e-9)
    np.testing.assert_allclose(state.momentum[0], sol.y[2:, -1], rtol=1e-9)


# ---- the sampler: noise ---------------------------------------------------------------------------

@pytest.mark.statistical(pair="exponential.noise_covariance")
@pytest.mark.parametrize("eta,gamma,u", [(0.05, None, 1.0), (0.7, 0.3, 2.5)])
def test_noise_empirical_covariance_matches_eq6(eta, gamma, u):
    tgt = zero_gradient_target(5)
    s = ExponentialIntegrator(tgt, eta, gamma, FullGradient(), u=u)
    chains = 20000
    state, _ = s.step(s.init(np.zeros((chains, 5))), np.random.default_rng(123))
    z = cov_z_scores(state.position.ravel(), state.momentum.ravel(), ou_noise_covariance(s.friction, eta, u))
    assert np.all(np.abs(z) < Z_BOUND), z


@pytest.mark.negative_control(pair="exponential.noise_covariance")
def test_noise_check_catches_uncorrelated_noise():
    tgt = zero_gradient_target(5)
    s = UncorrelatedNoise(tgt, 0.05, None, FullGradient())
    chains = 20000
    state, _ = s.step(s.init(np.zeros((chains, 5))), np.random.default_rng(123))
    z = cov_z_scores(state.position.ravel(), state.momentum.ravel(), ou_noise_covariance(s.friction, 0.05))
    assert abs(z[1]) > 10 * Z_BOUND, z


def test_tiny_gamma_eta_sampler_noise_finite():
    tgt = zero_gradient_target(2)
    s = ExponentialIntegrator(tgt, 1.0, 1e-12, FullGradient())
    state, _ = s.step(s.init(np.zeros((1000, 2))), np.random.default_rng(5))
    assert np.all(np.isfinite(state.position)) and np.all(np.isfinite(state.momentum))
    assert np.all(np.isfinite(s.noise_cholesky))


# ---- the sampler on the Gaussian target: exact moments of the linear recursion ------------------

def _moment_z_scores(sampler, Q, chains, K, seed):
    tgt = sampler.target
    rng = np.random.default_rng(seed)
    st = run_chains(sampler, sampler.init(np.ones((chains, tgt.dim))), rng, steps=K)["state"]
    z = np.hstack([st.position, st.momentum])
    rec = exponential_integrator_recursion(tgt.hessian, tgt.posterior_mean, Q, sampler.step_size,
                                           sampler.friction, sampler.u)
    d = tgt.dim
    m, S = propagate_moments(rec, np.r_[np.ones(d), np.zeros(d)], np.zeros((2 * d, 2 * d)), [K])
    m, S = m[0], S[0]
    zm = (z.mean(0) - m) / np.sqrt(np.diag(S) / chains)
    c = z - z.mean(0)
    v, m4 = (c**2).mean(0), (c**4).mean(0)
    zv = (c.var(0, ddof=1) - np.diag(S)) / np.sqrt((m4 - v**2) / chains)
    return zm, zv


@pytest.mark.statistical(pair="exponential.gaussian_moments")
@pytest.mark.parametrize("estimator", [FullGradient(), UniformMinibatch(1)], ids=["full", "uniform_b1"])
def test_gaussian_target_moments_match_exact_recursion(estimator):
    tgt = gaussian_means_target(n=50)
    Q = np.zeros((2, 2)) if isinstance(estimator, FullGradient) else minibatch_noise_covariance(tgt.centers, 1)
    s = ExponentialIntegrator(tgt, 0.02, None, estimator)
    zm, zv = _moment_z_scores(s, Q, chains=20000, K=200, seed=7)
    assert np.all(np.abs(zm) < Z_BOUND), zm
    assert np.all(np.abs(zv) < Z_BOUND), zv


@pytest.mark.negative_control(pair="exponential.gaussian_moments")
def test_gaussian_moment_check_catches_uncorrelated_noise():
    # without the x–v correlation of (6) the stationary x-variance drops by ~9% at η = 0.02
    tgt = gaussian_means_target(n=50)
    s = UncorrelatedNoise(tgt, 0.02, None, FullGradient())
    zm, zv = _moment_z_scores(s, np.zeros((2, 2)), chains=20000, K=200, seed=7)
    assert np.max(np.abs(zv[:2])) > Z_BOUND, zv


# ---- composition with estimators ----------------------------------------------------------------

class SpyEstimator:
    """Records the StepContext it is called with; returns the full gradient."""

    def __init__(self):
        self.contexts = []

    def init(self, target, position, rng=None):
        return None

    def __call__(self, state, rng, target, position, context=StepContext()):
        self.contexts.append(context)
        return GradientEstimate(target.full_gradient(position), target.n, None, {})

    def settings(self):
        return {"estimator": "spy"}


def test_step_context_carries_momentum_and_settings():
    tgt = gaussian_means_target(n=10)
    spy = SpyEstimator()
    s = ExponentialIntegrator(tgt, 0.01, 2.0, spy, u=1.5)
    v0 = np.random.default_rng(0).standard_normal((3, 2))
    st = s.init(np.zeros((3, 2)), v0)
    s.step(st, np.random.default_rng(1))
    ctx = spy.contexts[0]
    np.testing.assert_array_equal(ctx.momentum, v0)
    assert (ctx.step_size, ctx.friction) == (0.01, 2.0)
    assert ctx.noise_scale == pytest.approx(math.sqrt(2 * 2.0 * 1.5))


def test_composes_with_ewsg_index_chain():
    tgt = gaussian_means_target(n=20)
    s = ExponentialIntegrator(tgt, 0.01, None, EWSGIndexChain(2), name="EWSG-exp")
    st = s.init(np.zeros((8, 2)))
    st, info = s.step(st, np.random.default_rng(0))
    assert isinstance(st, UnderdampedState) and info.evaluations == 3 and "acceptance_rate" in info.info


def test_defaults_remark2_and_sg_ul_mcmc():
    tgt = gaussian_means_target(n=10)
    s = sg_ul_mcmc(tgt, 0.01)
    assert s.u == 1.0 and isinstance(s.estimator, UniformMinibatch)
    assert math.exp(-s.friction * s.step_size) == pytest.approx(0.9)
    assert s.settings()["sampler"] == "SG-UL-MCMC"


def test_same_seed_same_numbers():
    tgt = gaussian_means_target(n=10)
    s = ExponentialIntegrator(tgt, 0.01)
    out = []
    for _ in range(2):
        rng = np.random.default_rng(42)
        st = s.init(np.zeros((4, 2)))
        for _ in range(5):
            st, _ = s.step(st, rng)
        out.append(st.position)
    np.testing.assert_array_equal(out[0], out[1])


def test_divergence_raises_typed_error():
    tgt = gaussian_means_target(n=50)
    s = ExponentialIntegrator(tgt, 5.0, 0.01, FullGradient())
    st = s.init(np.ones((2, 2)))
    with pytest.raises(DivergenceError, match="SG-UL-MCMC diverged"):
        with np.errstate(over="ignore", invalid="ignore"):
            for _ in range(2000):
                st, _ = s.step(st, np.random.default_rng(0))


# ---- bad input ------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,name", [
    ({"step_size": 0.0}, "step_size"), ({"step_size": -1.0}, "step_size"), ({"step_size": np.nan}, "step_size"),
    ({"friction": 0.0}, "friction"), ({"friction": -2.0}, "friction"),
    ({"u": 0.0}, "u"), ({"u": -1.0}, "u"),
    ({"inverse_temperature": 0.0}, "inverse_temperature"),
])
def test_bad_sampler_input_raises_value_error_naming_parameter(kwargs, name):
    tgt = gaussian_means_target(n=10)
    args = {"step_size": 0.01, "friction": 1.0, "u": 1.0, **kwargs}
    with pytest.raises(ValueError, match=rf"^{name} must"):
        ExponentialIntegrator(tgt, **args)


def test_bad_friction_for_decay_input():
    with pytest.raises(ValueError, match="^eta must"):
        friction_for_decay(0.0)
    for bad in (0.0, 1.0, 1.5, True):
        with pytest.raises(ValueError, match="^decay must"):
            friction_for_decay(0.1, bad)


def test_bad_init_input():
    tgt = gaussian_means_target(n=10)
    s = ExponentialIntegrator(tgt, 0.01)
    with pytest.raises(ValueError, match="^position"):
        s.init(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="^momentum"):
        s.init(np.zeros((3, 2)), np.zeros((2, 2)))
