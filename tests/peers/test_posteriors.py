"""sgmcmc_verify.peers.posteriors: one step of each posteriors sampler against a hand computation with the same noise,
the law of SGLD / SGHMC against the exact law of the toolkit's recursions, the protocol and the errors.

Skipped when the ``peers-torch`` extra (posteriors, PyTorch) is absent; ``make test-peers`` installs it.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the peers-torch extra (PyTorch, posteriors) is not installed: "
                                             "make test-peers installs it")
pytest.importorskip("posteriors", reason="the peers-torch extra (posteriors) is not installed: make test-peers installs it")

from sgmcmc_verify.analytic.linear_samplers import (minibatch_noise_covariance, propagate_moments,  # noqa: E402
                                                    sgld_recursion, stationary_moments, underdamped_em_recursion)
from sgmcmc_verify.errors import DivergenceError  # noqa: E402
from sgmcmc_verify.estimators import FullGradient, UniformMinibatch  # noqa: E402
from sgmcmc_verify.integrators import Sampler  # noqa: E402
from sgmcmc_verify.peers import posteriors as pp  # noqa: E402
from sgmcmc_verify.runner import run_chains  # noqa: E402
from sgmcmc_verify.targets import (GaussianMeanModel, LSMixtureTarget, anisotropic_gaussian_means_target,  # noqa: E402
                                   gaussian_means_target, hsg_mixture_target, mixture_centers)

Z_BOUND = 4.5  # two-sided normal tail 7e-6 per statistic; every statistical test below is seeded


def _hand_step(method, tgt, h, gamma, state, rng, beta=1.0, b=3):
    """The update of posteriors' source written out in the toolkit's notation with the adapter's randomness:
    indices ``rng.integers(0, n, (chains, b))``, then ``torch.manual_seed(seed)``, ``ξ = torch.randn(chains, d)``."""
    chains, d = state.position.shape
    idx = rng.integers(0, tgt.n, size=(chains, b))
    torch.manual_seed(int(rng.integers(0, 2**63 - 1)))
    xi = torch.randn(chains, d, dtype=torch.float64).numpy()
    x, r = state.position, state.momentum
    g = tgt.prior_gradient(x) + (tgt.n / b) * tgt.data_gradients(x, idx).sum(axis=1)  # ĝ = ∇V̂
    if method == "SGLD":      # sgld.py:121-127, ε = h, T = 1/β, beta = 0
        return x - h * g + np.sqrt(2 * h / beta) * xi, None, None
    if method == "SGHMC":     # sghmc.py:155-170: θ moves with the old momentum
        return x + h * r, r - h * g - h * gamma * r + np.sqrt(2 * gamma * h) * xi, None
    if method == "SGNHT":     # sgnht.py:164-177: the thermostat ξ_t in the drift, α in the noise, per-chain mean(m²)
        t = state.thermostat
        return (x + h * r, r - h * g - h * t[:, None] * r + np.sqrt(2 * gamma * h) * xi,
                t + h * ((r**2).mean(axis=1) - 1.0))
    # BAOA, baoa.py:158-174; γ is built by torch.tensor(alpha·σ⁻²) (baoa.py:159) in torch's default dtype, float32,
    # so e^{−γh} and ζ = √(1 − e^{−2γh}) are float32 numbers (relative 6e-8) even on float64 chains: written so here
    g32 = torch.tensor(gamma * 1.0)
    c1, z = torch.exp(-g32 * h).item(), ((1 - torch.exp(-2 * g32 * h)) ** 0.5).item()
    r1 = r - h * g
    x1 = x + 0.5 * h * r1
    r2 = c1 * r1 + z * xi
    return x1 + 0.5 * h * r2, r2, None


def _one_step_gap(sampler, method, gamma, beta=1.0):
    tgt = sampler.target
    rng0 = np.random.default_rng(5)
    x0 = rng0.standard_normal((6, tgt.dim))
    state = sampler.init(x0, None if method == "SGLD" else rng0.standard_normal((6, tgt.dim)),
                         **({"thermostat": rng0.uniform(1, 3, 6)} if method == "SGNHT" else {}))
    new, info = sampler.step(state, np.random.default_rng(9))
    want = _hand_step(method, tgt, sampler.step_size, gamma, state, np.random.default_rng(9), beta=beta)
    got = (new.position, new.momentum, new.thermostat)
    return max(float(np.max(np.abs(a - w))) for a, w in zip(got, want) if w is not None), info


@pytest.mark.parametrize("method,factory", [("SGLD", pp.sgld_factory), ("SGHMC", pp.sghmc_factory),
                                            ("SGNHT", pp.sgnht_factory), ("BAOA", pp.baoa_factory)])
def test_one_step_is_the_hand_computed_update_with_the_same_noise(method, factory):
    # a prior and a non-unit curvature: GaussianMeanModel (λ = 2) exercises ∇V_0, the anisotropic target a P ≠ I
    for tgt in (GaussianMeanModel(np.random.default_rng(0).standard_normal((20, 2)), prior_precision=2.0),
                anisotropic_gaussian_means_target([1.0, 0.25], n=20)):
        kw = {} if method == "SGLD" else {"friction": 3.0}
        s = factory(tgt, 0.01, batch_size=3, **kw)
        gap, info = _one_step_gap(s, method, kw.get("friction"))
        assert gap < 1e-12, gap  # float64 round-off of two orderings of the same sums
        assert info.evaluations == 3


@dataclasses.dataclass(frozen=True, eq=False)
class HalfLearningRate(pp.PosteriorsSampler):
    """Planted bug: posteriors' lr read as Welling & Teh's ε (lr = 2h): drift 2h, noise variance 4h."""

    def __post_init__(self):
        h = self.step_size
        object.__setattr__(self, "step_size", 2 * h)
        super().__post_init__()
        object.__setattr__(self, "step_size", h)


def test_the_hand_computation_catches_a_wrong_learning_rate():
    tgt = GaussianMeanModel(np.random.default_rng(0).standard_normal((20, 2)), prior_precision=2.0)
    gap, _ = _one_step_gap(HalfLearningRate(tgt, 0.01, "SGLD", None, 3), "SGLD", None)
    assert gap > 1e-3, gap


def test_temperature_enters_as_one_over_beta():
    tgt = gaussian_means_target(n=20)
    s = pp.sgld_factory(tgt, 0.01, batch_size=3, inverse_temperature=4.0)
    gap, _ = _one_step_gap(s, "SGLD", None, beta=4.0)
    assert gap < 1e-12, gap


# ---- the law: posteriors' chains against the exact law of the toolkit's recursion at the same h -----------

def _z_scores(sampler, rec, chains, K, seed, x0):
    """z-scores of the chains' mean and variance after K steps against the exact law of ``rec`` from ``x0``."""
    d = sampler.target.dim
    st = run_chains(sampler, sampler.init(np.tile(x0, (chains, 1))), np.random.default_rng(seed), steps=K)["state"]
    z = st.position if st.momentum is None else np.hstack([st.position, st.momentum])
    D = rec.A.shape[0]
    m, S = propagate_moments(rec, np.r_[x0, np.zeros(D - d)], np.zeros((D, D)), [K])
    m, S = m[0], S[0]
    zm = (z.mean(0) - m) / np.sqrt(np.diag(S) / chains)
    c = z - z.mean(0)
    v, m4 = (c**2).mean(0), (c**4).mean(0)
    zv = (c.var(0, ddof=1) - np.diag(S)) / np.sqrt((m4 - v**2) / chains)
    return zm, zv, (m, S)


@pytest.mark.statistical(pair="peers.posteriors_sgld_law")
def test_posteriors_sgld_matches_the_exact_law_of_the_toolkit_sgld_recursion():
    # §5.1 Gaussian (n = 50), h = 1e-3, b = 1: K = 400 steps reach stationarity to (1 − hn)^400 ≈ 1e-9
    tgt = gaussian_means_target()
    h = 1e-3
    rec = sgld_recursion(tgt.hessian, tgt.posterior_mean, minibatch_noise_covariance(tgt.centers, 1), h)
    zm, zv, (m, S) = _z_scores(pp.sgld_factory(tgt, h), rec, chains=4000, K=400, seed=11, x0=np.ones(2))
    ms, Ss = stationary_moments(rec)
    assert np.allclose(S, Ss, rtol=1e-6)
    assert np.all(np.abs(zm) < Z_BOUND), zm
    assert np.all(np.abs(zv) < Z_BOUND), zv


@pytest.mark.negative_control(pair="peers.posteriors_sgld_law")
def test_sgld_law_check_catches_the_per_datum_scaling_read_as_h():
    # posteriors' recommended per-datum log-posterior at temperature 1/n, with lr read as the toolkit's h:
    # the same chain at h/n — after K = 400 steps it has barely left x0 (the law check sees it)
    tgt = gaussian_means_target()
    h = 1e-3
    rec = sgld_recursion(tgt.hessian, tgt.posterior_mean, minibatch_noise_covariance(tgt.centers, 1), h)
    zm, zv, _ = _z_scores(pp.sgld_factory(tgt, h / tgt.n), rec, chains=4000, K=400, seed=11, x0=np.ones(2))
    assert max(np.max(np.abs(zm)), np.max(np.abs(zv))) > Z_BOUND, (zm, zv)


@pytest.mark.statistical(pair="peers.posteriors_sghmc_law")
def test_posteriors_sghmc_matches_the_exact_law_of_the_toolkit_sghmc_recursion():
    # h = 5e-3, γ = 10: K = 1500 steps is 7.5 time units; the slowest mode (rate ≈ n/γ = 5) has decayed by e^-37
    tgt = gaussian_means_target()
    h, gamma = 5e-3, 10.0
    rec = underdamped_em_recursion(tgt.hessian, tgt.posterior_mean, minibatch_noise_covariance(tgt.centers, 1), h, gamma)
    zm, zv, _ = _z_scores(pp.sghmc_factory(tgt, h, gamma), rec, chains=4000, K=1500, seed=12, x0=np.ones(2))
    assert np.all(np.abs(zm) < Z_BOUND), zm
    assert np.all(np.abs(zv) < Z_BOUND), zv


@pytest.mark.negative_control(pair="peers.posteriors_sghmc_law")
def test_sghmc_law_check_catches_posteriors_default_alpha():
    # posteriors' default alpha = 0.01 kept (the friction only reported): another law
    tgt = gaussian_means_target()
    h, gamma = 5e-3, 10.0
    rec = underdamped_em_recursion(tgt.hessian, tgt.posterior_mean, minibatch_noise_covariance(tgt.centers, 1), h, gamma)
    zm, zv, _ = _z_scores(pp.sghmc_factory(tgt, h, 0.01), rec, chains=4000, K=1500, seed=12, x0=np.ones(2))
    assert max(np.max(np.abs(zm)), np.max(np.abs(zv))) > Z_BOUND, (zm, zv)


# ---- protocol, gradients, errors -----------------------------------------------------------------------

def test_adapters_follow_the_sampler_protocol_and_report_the_mapping():
    tgt = gaussian_means_target(n=10)
    s = pp.sgnht_factory(tgt, 1e-3, 5.0, batch_size=3)
    assert isinstance(s, Sampler)
    state, info = s.step(s.init(np.zeros((5, 2))), np.random.default_rng(0))
    assert state.position.shape == (5, 2) and state.thermostat.shape == (5,) and info.evaluations == 3
    assert s.settings() == {"sampler": "posteriors-SGNHT", "step_size": 1e-3, "friction": 5.0,
                            "inverse_temperature": 1.0, "estimator": "uniform", "batch_size": 3,
                            "implementation": "posteriors"}
    f = pp.sgld_factory(tgt, 1e-3, estimator=FullGradient())
    assert f.step(f.init(np.zeros((2, 2))), np.random.default_rng(0))[1].evaluations == 10


def test_same_generator_same_chains():
    tgt = gaussian_means_target(n=10)
    s = pp.baoa_factory(tgt, 1e-2, 5.0)
    a = run_chains(s, s.init(np.zeros((3, 2))), np.random.default_rng(4), steps=20)["state"]
    b = run_chains(s, s.init(np.zeros((3, 2))), np.random.default_rng(4), steps=20)["state"]
    assert np.array_equal(a.position, b.position) and np.array_equal(a.momentum, b.momentum)


def test_divergence_raises_with_the_step():
    s = pp.sgld_factory(gaussian_means_target(n=50), 1.0, estimator=FullGradient())  # |1 − hn| = 49
    with pytest.raises(DivergenceError, match="posteriors-SGLD"):
        run_chains(s, s.init(np.ones((2, 2))), np.random.default_rng(0), steps=400)


@pytest.mark.parametrize("call,match", [
    (lambda t: pp.sgld_factory(t, 0.0), "step_size"),
    (lambda t: pp.sgld_factory(t, 1e-3, batch_size=0), "batch_size"),
    (lambda t: pp.sgld_factory(t, 1e-3, estimator=UniformMinibatch(2, replace=False)), "estimator"),
    (lambda t: pp.sghmc_factory(t, 1e-3, 0.0), "friction"),
    (lambda t: pp.PosteriorsSampler(t, 1e-3, "SGLD", 2.0), "friction"),
    (lambda t: pp.PosteriorsSampler(t, 1e-3, "HMC"), "method"),
    (lambda t: pp.sgld_factory(t, 1e-3, inverse_temperature=float("inf")), "inverse_temperature"),
    (lambda t: pp.sgld_factory(LSMixtureTarget(mixture_centers(20, 0)), 1e-3), "target"),
    (lambda t: pp.sgld_factory(t, 1e-3).init(np.zeros((2, 3))), "position"),
    (lambda t: pp.sgnht_factory(t, 1e-3, 1.0).init(np.zeros((2, 2)), thermostat=np.ones(3)), "thermostat"),
    (lambda t: pp.sgld_factory(t, 1e-3, batch_size=60).init(np.zeros((2, 2))), "batch_size"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call(gaussian_means_target())


@pytest.mark.parametrize("make", [lambda: gaussian_means_target(), lambda: GaussianMeanModel(np.ones((5, 2)), 0.5),
                                  lambda: anisotropic_gaussian_means_target([1.0, 100.0]),
                                  lambda: hsg_mixture_target(n=30)])
def test_torch_log_densities_give_the_targets_per_datum_gradients(make):
    """−∇ of the PyTorch log densities equals the toolkit's prior and per-datum gradients on every audit target;
    1e-12: float64 round-off of two formulas."""
    tgt = make()
    logprior, loglik, data = pp.torch_log_densities(tgt)
    rng = np.random.default_rng(0)
    theta = rng.standard_normal((4, tgt.dim))
    idx = rng.integers(0, tgt.n, size=(4, 3))
    for c in range(4):
        th = torch.tensor(theta[c], requires_grad=True)
        for j in range(3):
            (g,) = torch.autograd.grad(loglik(th, data[idx[c, j]][None])[0], th)
            np.testing.assert_allclose(-g.numpy(), tgt.data_gradients(theta[c:c + 1], idx[c:c + 1, j:j + 1])[0, 0],
                                       rtol=1e-12, atol=1e-12)
        (gp,) = torch.autograd.grad(logprior(th), th, allow_unused=True)
        gp = np.zeros(tgt.dim) if gp is None else gp.numpy()
        np.testing.assert_allclose(-gp, tgt.prior_gradient(theta[c:c + 1])[0], rtol=1e-12, atol=1e-12)
