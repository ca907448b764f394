"""sgmcmc_verify.peers.sgmcmcjax: one step of each SGMCMCJax sampler against a hand computation with the same noise,
the law of SGLD / SGHMC against the exact law of the toolkit's recursions, the two defects of the 0.2.13 release,
the protocol and the errors.

Skipped when the ``peers-jax`` extra (SGMCMCJax, JAX) is absent; ``make test-peers`` installs it.
"""
from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the peers-jax extra (JAX, SGMCMCJax) is not installed: make test-peers installs it")
pytest.importorskip("sgmcmcjax", reason="the peers-jax extra (SGMCMCJax) is not installed: make test-peers installs it")

from sgmcmc_verify.analytic.linear_samplers import (minibatch_noise_covariance, propagate_moments,  # noqa: E402
                                                    sgld_recursion, underdamped_em_recursion)
from sgmcmc_verify.errors import DivergenceError  # noqa: E402
from sgmcmc_verify.estimators import FullGradient, UniformMinibatch  # noqa: E402
from sgmcmc_verify.integrators import Sampler  # noqa: E402
from sgmcmc_verify.peers import sgmcmcjax as sj  # noqa: E402
from sgmcmc_verify.runner import run_chains  # noqa: E402
from sgmcmc_verify.targets import (GaussianMeanModel, LSMixtureTarget, gaussian_means_target,  # noqa: E402
                                   hsg_mixture_target, mixture_centers)

Z_BOUND = 4.5  # two-sided normal tail 7e-6 per statistic; every statistical test below is seeded
CHAINS, D = 4, 2


def _target():
    # a prior (λ = 2) and n = 20 data: the prior's gradient and the N·mean scaling both enter
    return GaussianMeanModel(np.random.default_rng(0).standard_normal((20, D)), prior_precision=2.0)


def _noise(step_key, shape=(D,)):
    """The Gaussian SGMCMCJax's diffusion draws in one kernel call: ``k1, k2 = split(key)`` (kernels.py:55), then
    the diffusion's own key for the one-leaf parameter tree, ``split(k1, 1)[0]`` (diffusion_util.py:219)."""
    k1, k2 = jax.random.split(step_key)
    k = jax.random.split(k1, 1)[0]
    return k, k2


def _hand(method, tgt, h, gamma, x, r, xi, rng, b):
    """One step as SGMCMCJax 0.2.13's source writes it, in its own variables, with the adapter's keys."""
    init_keys, step_keys = sj._split_keys(int(rng.integers(0, 2**32, dtype=np.uint64)), CHAINS)
    grad = lambda th: -tgt.full_gradient(th[None])[0]  # noqa: E731 - g = ∇log π, the full data
    out_x, out_r, out_t = [], [], []
    for c in range(CHAINS):
        k, k2 = _noise(step_keys[c])
        if method in ("SGLD-CV", "SVRG-LD"):
            if method == "SGLD-CV":  # init_gradient: choice(init key, N, (b,)) around the MAP (gradient_estimation.py:74-86)
                idx = np.asarray(jax.random.choice(init_keys[c], np.arange(tgt.n), shape=(b,)))
                cv = np.asarray(tgt.posterior_mean)
                dg = tgt.data_gradients(x[c:c + 1], idx[None])[0] - tgt.data_gradients(cv[None], idx[None])[0]
                g0 = -(tgt.full_gradient(cv[None])[0] + tgt.n * dg.mean(0)) - (tgt.prior_gradient(x[c:c + 1])[0]
                                                                              - tgt.prior_gradient(cv[None])[0])
            else:  # SVRG's init_gradient is the full gradient at x0 (gradient_estimation.py:124-128)
                g0 = grad(x[c])
            xi_ = np.asarray(jax.random.normal(k, (D,)))
            out_x.append(x[c] + h * g0 + np.sqrt(2 * h) * xi_)
            continue
        # the first gradient is init_fn's: with b = N, N indices drawn with replacement by the init key
        # (gradient_estimation.py:31-35); the later ones are the full data (gradient_estimation.py:41-42)
        idx0 = np.asarray(jax.random.choice(init_keys[c], np.arange(tgt.n), shape=(tgt.n,)))
        g0 = -(tgt.prior_gradient(x[c:c + 1])[0] + tgt.data_gradients(x[c:c + 1], idx0[None])[0].sum(0))
        if method == "SGLD":                               # diffusions.py:65-68, dt = h
            out_x.append(x[c] + h * g0 + np.sqrt(2 * h) * np.asarray(jax.random.normal(k, (D,))))
        elif method == "pSGLD":                            # diffusions.py:97-106, dt = 2h, v0 = 0
            v = 0.01 * g0**2
            G = 1.0 / (np.sqrt(v) + 1e-5)
            out_x.append(x[c] + h * G * g0 + np.sqrt(2 * h * G) * np.asarray(jax.random.normal(k, (D,))))
        elif method == "SGHMC":                            # diffusions.py:181-191, dt = h², α = γh, v = h r
            v = h * r[c]
            out_x.append(x[c] + v)
            v = v + h * h * g0 - gamma * h * v + np.sqrt(2 * gamma * h * h * h) * np.asarray(jax.random.normal(k, (D,)))
            out_r.append(v / h)
        elif method == "SGNHT":                            # diffusions.py:269-287, dt = h², a = hA; v redrawn at i = 0
            key, sub = jax.random.split(k)
            v = h * np.asarray(jax.random.normal(sub, (D,)))
            a = h * xi[c]
            v = v - a * v + h * h * g0 + np.sqrt(2 * gamma * h * h * h) * np.asarray(jax.random.normal(key, (D,)))
            out_x.append(x[c] + v)
            out_r.append(v / h)
            out_t.append((a + v @ v / D - h * h) / h)
        elif method == "BAOAB-fixed":                      # diffusions.py:224-241, then the gradient, then B
            v = r[c] + 0.5 * h * g0
            y = x[c] + 0.5 * h * v
            c1 = np.exp(-gamma * h)
            v = c1 * v + np.sqrt(1 - c1**2) * np.asarray(jax.random.normal(k, (D,)))
            y = y + 0.5 * h * v
            out_x.append(y)
            out_r.append(v + 0.5 * h * grad(y))
        elif method == "BADODAB-fixed":                    # diffusions.py:317-341 (its ‖v‖ − d), then the gradient, B
            a = xi[c]
            v = r[c] + 0.5 * h * g0
            y = x[c] + 0.5 * h * v
            a = a + 0.5 * h * (np.linalg.norm(v) - D)
            c1 = np.exp(-a * h)
            v = c1 * v + np.sqrt(abs((1 - c1**2) / (2 * a))) * np.asarray(jax.random.normal(k, (D,)))
            a = a + 0.5 * h * (np.linalg.norm(v) - D)
            y = y + 0.5 * h * v
            out_x.append(y)
            out_r.append(v + 0.5 * h * grad(y))
            out_t.append(a)
        elif method in ("BAOAB", "BADODAB"):               # the released kernels: two closing half kicks, x fixed
            out_x.append(x[c])
            out_r.append(r[c] + 0.5 * h * g0 + 0.5 * h * grad(x[c]))
            if method == "BADODAB":
                out_t.append(xi[c])
    arr = lambda v: np.array(v) if v else None  # noqa: E731
    return arr(out_x), arr(out_r), arr(out_t)


METHODS = ["SGLD", "SGLD-CV", "SVRG-LD", "pSGLD", "SGHMC", "SGNHT", "BAOAB-fixed", "BADODAB-fixed", "BAOAB", "BADODAB"]


def _one_step_gap(cls, method, h=0.01):
    tgt = _target()
    has_m, has_t = sj.METHODS[method]
    gamma = 3.0 if has_m else None
    b = 3 if method in ("SGLD-CV", "SVRG-LD") else None  # the others on the full data: a deterministic gradient
    s = cls(tgt, h, method, gamma, b)
    r0 = np.random.default_rng(5)
    x = r0.standard_normal((CHAINS, D))
    r = r0.standard_normal((CHAINS, D)) if has_m else None
    xi = r0.uniform(1, 3, CHAINS) if has_t else None
    new, info = s.step(s.init(x, r, xi) if has_t else s.init(x, r), np.random.default_rng(9))
    want = _hand(method, tgt, h, gamma, x, r, xi, np.random.default_rng(9), b)
    got = (new.position, new.momentum, new.thermostat)
    return max(float(np.max(np.abs(a - w))) for a, w in zip(got, want) if w is not None), info


@pytest.mark.parametrize("method", METHODS)
def test_one_step_is_the_hand_computed_update_with_the_same_noise(method):
    gap, _ = _one_step_gap(sj.SGMCMCJaxSampler, method)
    assert gap < 1e-11, gap  # float64 round-off of two orderings (the momenta are divided by h = 0.01)


class DoubledStep(sj.SGMCMCJaxSampler):
    """Planted bug: SGHMC's Chen et al. parameters read as ``dt = h`` (not ``h²``) with the toolkit's h passed in."""

    def __post_init__(self):
        h = self.step_size
        object.__setattr__(self, "step_size", 2 * h)
        super().__post_init__()
        object.__setattr__(self, "step_size", h)


@pytest.mark.parametrize("method", ["SGLD", "SGHMC"])
def test_the_hand_computation_catches_a_wrong_step_mapping(method):
    gap, _ = _one_step_gap(DoubledStep, method)
    assert gap > 1e-3, gap


def test_released_baoab_and_badodab_never_move_the_position():
    """SGMCMCJax 0.2.13's build_baoab_kernel / build_badodab_kernel (kernels.py:383, 419) bind both updates to the
    closing half kick: after 50 steps every position is where it started (the fixed assembly moves)."""
    tgt = gaussian_means_target()
    x0 = np.random.default_rng(0).standard_normal((8, 2))
    for f in (sj.baoab_factory, sj.badodab_factory):
        s = f(tgt, 1e-3, 15.0)
        out = run_chains(s, s.init(x0, np.random.default_rng(1).standard_normal((8, 2))), np.random.default_rng(2),
                         steps=50)["state"]
        assert np.array_equal(out.position, x0)
    s = sj.baoab_fixed_factory(tgt, 1e-3, 15.0)
    out = run_chains(s, s.init(x0), np.random.default_rng(2), steps=50)["state"]
    assert not np.allclose(out.position, x0)


# ---- the law: SGMCMCJax's chains against the exact law of the toolkit's recursion at the same h ---------------

def _z_scores(sampler, rec, chains, K, seed, x0):
    d = sampler.target.dim
    st = run_chains(sampler, sampler.init(np.tile(x0, (chains, 1))), np.random.default_rng(seed), steps=K)["state"]
    z = st.position if st.momentum is None else np.hstack([st.position, st.momentum])
    n_dim = rec.A.shape[0]
    m, S = propagate_moments(rec, np.r_[x0, np.zeros(n_dim - d)], np.zeros((n_dim, n_dim)), [K])
    m, S = m[0], S[0]
    zm = (z.mean(0) - m) / np.sqrt(np.diag(S) / chains)
    c = z - z.mean(0)
    v, m4 = (c**2).mean(0), (c**4).mean(0)
    zv = (c.var(0, ddof=1) - np.diag(S)) / np.sqrt((m4 - v**2) / chains)
    return zm, zv


@pytest.mark.statistical(pair="peers.sgmcmcjax_sgld_law")
def test_sgmcmcjax_sgld_matches_the_exact_law_of_the_toolkit_sgld_recursion():
    # §5.1 Gaussian, h = 1e-3, b = 1: the first step uses the gradient drawn by init_fn, then one per step;
    # K = 400 steps from x0 = 1, compared with the exact law after K steps
    tgt = gaussian_means_target()
    h = 1e-3
    rec = sgld_recursion(tgt.hessian, tgt.posterior_mean, minibatch_noise_covariance(tgt.centers, 1), h)
    zm, zv = _z_scores(sj.sgld_factory(tgt, h), rec, chains=4000, K=400, seed=11, x0=np.ones(2))
    assert np.all(np.abs(zm) < Z_BOUND), zm
    assert np.all(np.abs(zv) < Z_BOUND), zv


@pytest.mark.negative_control(pair="peers.sgmcmcjax_sgld_law")
def test_sgld_law_check_catches_the_welling_teh_reading():
    # dt read as Welling & Teh's ε (drift dt/2): the adapter called with h/2 runs another law
    tgt = gaussian_means_target()
    h = 1e-3
    rec = sgld_recursion(tgt.hessian, tgt.posterior_mean, minibatch_noise_covariance(tgt.centers, 1), h)
    zm, zv = _z_scores(sj.sgld_factory(tgt, h / 2), rec, chains=4000, K=400, seed=11, x0=np.ones(2))
    assert max(np.max(np.abs(zm)), np.max(np.abs(zv))) > Z_BOUND, (zm, zv)


@pytest.mark.statistical(pair="peers.sgmcmcjax_sghmc_law")
def test_sgmcmcjax_sghmc_matches_the_exact_law_of_the_toolkit_sghmc_recursion():
    # dt = h², α = γh: Chen et al.'s Appendix G variables of the toolkit's recursion (h = 5e-3, γ = 10, K = 1500)
    tgt = gaussian_means_target()
    h, gamma = 5e-3, 10.0
    rec = underdamped_em_recursion(tgt.hessian, tgt.posterior_mean, minibatch_noise_covariance(tgt.centers, 1), h, gamma)
    zm, zv = _z_scores(sj.sghmc_factory(tgt, h, gamma), rec, chains=4000, K=1500, seed=12, x0=np.ones(2))
    assert np.all(np.abs(zm) < Z_BOUND), zm
    assert np.all(np.abs(zv) < Z_BOUND), zv


@pytest.mark.negative_control(pair="peers.sgmcmcjax_sghmc_law")
def test_sghmc_law_check_catches_dt_read_as_h():
    # Chen et al.'s η = dt read as the toolkit's h: dt = h (not h²) and α = γ√dt, i.e. the adapter at √h —
    # a step 14 times too large (still stable here: h·γ = 0.7)
    tgt = gaussian_means_target()
    h, gamma = 5e-3, 10.0
    rec = underdamped_em_recursion(tgt.hessian, tgt.posterior_mean, minibatch_noise_covariance(tgt.centers, 1), h, gamma)
    zm, zv = _z_scores(sj.sghmc_factory(tgt, np.sqrt(h), gamma), rec, chains=4000, K=1500, seed=12, x0=np.ones(2))
    assert max(np.max(np.abs(zm)), np.max(np.abs(zv))) > Z_BOUND, (zm, zv)


# ---- protocol, errors -----------------------------------------------------------------------------------

def test_adapters_follow_the_sampler_protocol_and_count_evaluations():
    tgt = gaussian_means_target(n=10)
    s = sj.sgnht_factory(tgt, 1e-3, 5.0, batch_size=3)
    assert isinstance(s, Sampler)
    state, info = s.step(s.init(np.zeros((5, 2))), np.random.default_rng(0))
    assert state.position.shape == (5, 2) and state.thermostat.shape == (5,) and info.evaluations == 3 + 3
    assert s.settings() == {"sampler": "SGMCMCJax-SGNHT", "step_size": 1e-3, "friction": 5.0, "estimator": "uniform",
                            "batch_size": 3, "implementation": "SGMCMCJax"}
    cv = sj.sgld_cv_factory(tgt, 1e-3, batch_size=2)
    st, info = cv.step(cv.init(np.zeros((2, 2))), np.random.default_rng(0))
    assert info.evaluations == 4 + 4 and cv.step(st, np.random.default_rng(1))[1].evaluations == 4
    sv = sj.svrg_ld_factory(tgt, 1e-3, batch_size=2)   # update_rate ⌈10/2⌉ = 5: a full pass at steps 0, 5, …
    st = sv.init(np.zeros((2, 2)))
    ev = []
    for k in range(6):
        st, info = sv.step(st, np.random.default_rng(k))
        ev.append(info.evaluations)
    assert sv.update_rate == 5 and ev == [10 + 4 + 10, 4, 4, 4, 4, 14]


def test_same_generator_same_chains():
    tgt = gaussian_means_target(n=10)
    s = sj.sghmc_factory(tgt, 1e-2, 5.0)
    a = run_chains(s, s.init(np.zeros((3, 2))), np.random.default_rng(4), steps=20)["state"]
    b = run_chains(s, s.init(np.zeros((3, 2))), np.random.default_rng(4), steps=20)["state"]
    assert np.array_equal(a.position, b.position) and np.array_equal(a.momentum, b.momentum)


def test_divergence_raises_with_the_step():
    s = sj.sgld_factory(gaussian_means_target(n=50), 1.0, estimator=FullGradient())  # |1 − hn| = 49
    with pytest.raises(DivergenceError, match="SGMCMCJax-SGLD"):
        run_chains(s, s.init(np.ones((2, 2))), np.random.default_rng(0), steps=400)


def test_centering_value_is_a_stationary_point_of_the_mixture():
    tgt = hsg_mixture_target(n=30)
    c = sj.centering_value(tgt)
    assert np.linalg.norm(tgt.full_gradient(c[None])[0]) < 1e-4 * tgt.n


@pytest.mark.parametrize("call,match", [
    (lambda t: sj.sgld_factory(t, 0.0), "step_size"),
    (lambda t: sj.sgld_factory(t, 1e-3, batch_size=0), "batch_size"),
    (lambda t: sj.sgld_factory(t, 1e-3, batch_size=60), "batch_size"),
    (lambda t: sj.sgld_cv_factory(t, 1e-3, batch_size=None), "batch_size"),
    (lambda t: sj.svrg_ld_factory(t, 1e-3, update_rate=0), "update_rate"),
    (lambda t: sj.sgld_factory(t, 1e-3, estimator=UniformMinibatch(2, replace=False)), "estimator"),
    (lambda t: sj.sghmc_factory(t, 1e-3, 0.0), "friction"),
    (lambda t: sj.SGMCMCJaxSampler(t, 1e-3, "SGLD", 2.0), "friction"),
    (lambda t: sj.SGMCMCJaxSampler(t, 1e-3, "HMC"), "method"),
    (lambda t: sj.sgld_factory(LSMixtureTarget(mixture_centers(20, 0)), 1e-3), "target"),
    (lambda t: sj.sgld_factory(t, 1e-3).init(np.zeros((2, 3))), "position"),
    (lambda t: sj.sgnht_factory(t, 1e-3, 1.0).init(np.zeros((2, 2)), thermostat=np.ones(3)), "thermostat"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call(gaussian_means_target())


# ---- BADODAB's thermostat: ‖v‖ − d instead of ‖v‖² − d (diffusions.py:326, 334) ---------------------------

def _stationary_variance_ratio(sampler, chains=400, steps=4000, seed=3):
    """Position variance over chains after ``steps`` steps (started at the exact law), over the exact variance."""
    tgt = sampler.target
    rng = np.random.default_rng(seed)
    x0 = tgt.posterior_mean + rng.standard_normal((chains, tgt.dim)) * np.sqrt(np.diag(tgt.posterior_cov))
    st = run_chains(sampler, sampler.init(x0, rng.standard_normal((chains, tgt.dim))), rng, steps=steps)["state"]
    return st.position.var(axis=0, ddof=1) / np.diag(tgt.posterior_cov)


@pytest.mark.statistical(pair="peers.sgmcmcjax_badodab_thermostat")
def test_badodab_thermostat_holds_the_wrong_temperature():
    # full gradient, h = 0.01 (h·L = 0.5), 4000 steps = 40 time units: the thermostat (μ = 1) has settled. A
    # correct adaptive thermostat gives variance ratio 1 (+ O(h)); E‖v‖ = d holds a kinetic temperature 8/π ≈ 2.5
    # at d = 2 for Gaussian momenta. The ratio's s.e. over 400 chains is √(2/399) ≈ 0.07 (independent chains):
    # 1.8 is 10 s.e. above 1 and 10 s.e. below 2.5
    s = sj.badodab_fixed_factory(gaussian_means_target(), 0.01, 0.5, estimator=FullGradient())
    ratio = _stationary_variance_ratio(s)
    assert np.all(ratio > 1.8), ratio


@pytest.mark.negative_control(pair="peers.sgmcmcjax_badodab_thermostat")
def test_the_thermostat_check_passes_sgmcmcjaxs_own_sgnht():
    # SGMCMCJax's SGNHT thermostat uses ‖v‖²/d (diffusions.py:286): the same check finds the right temperature
    s = sj.sgnht_factory(gaussian_means_target(), 0.01, 0.5, estimator=FullGradient())
    ratio = _stationary_variance_ratio(s)
    assert np.all(np.abs(ratio - 1.0) < 0.4), ratio  # 0.4 = 5.7 s.e. plus the O(h) bias at h·L = 0.5
