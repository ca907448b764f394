"""Variance-reduced estimators (verify/estimators/variance_reduced.py): HSG-HMC's hybrid estimator (7),
SRVR's recursion, SVRG's control variate.

Seed ``001_d56659fdb8996bf2.txt`` (HSG-HMC): eq. (7), Algorithm 1, Corollary 2.
"""
from __future__ import annotations

import numpy as np
import pytest

from sgmcmc_verify.estimators import (HybridGradient, RecursiveGradient, SVRGControlVariate, UniformMinibatch,
                               periodic_reset_period)
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.samplers import hsg_hmc, sg_ul_mcmc, srvr_hmc
from sgmcmc_verify.targets import gaussian_means_target, hsg_mixture_target


@pytest.fixture(scope="module")
def mixture():
    return hsg_mixture_target()


# ---- properties ------------------------------------------------------------------------------

def test_rho_one_is_sg_ul_mcmc_step_for_step(mixture):
    a = hsg_hmc(mixture, 0.1, schedule="constant", rho=1.0)
    b = sg_ul_mcmc(mixture, 0.1)
    sa, sb = a.init(np.zeros((5, 2))), b.init(np.zeros((5, 2)))
    ra, rb = np.random.default_rng(3), np.random.default_rng(3)
    for _ in range(100):
        sa, ia = a.step(sa, ra)
        sb, ib = b.step(sb, rb)
        assert ia.evaluations == ib.evaluations == 1
        np.testing.assert_array_equal(sa.position, sb.position)
        np.testing.assert_array_equal(sa.momentum, sb.momentum)


def test_hybrid_recursion_matches_equation_7():
    t = hsg_mixture_target(n=30, seed=1)
    est = HybridGradient(schedule="harmonic")
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((4, 2))
    st = est.init(t, x0)
    e0 = est(st, rng, t, x0)
    x1 = x0 + 0.1 * rng.standard_normal((4, 2))
    r1, r2 = np.random.default_rng(7), np.random.default_rng(7)
    e1 = est(e0.state, r1, t, x1)
    idx = r2.integers(0, t.n, size=(4, 1))
    gu = t.n * t.data_gradients(x1, idx).sum(1)
    gp = t.n * t.data_gradients(x0, idx).sum(1)
    rho = 1.0  # ρ_1 = 1/1
    np.testing.assert_allclose(e1.gradient, rho * gu + (1 - rho) * (e0.gradient + gu - gp))
    e2 = est(e1.state, r1, t, x1 + 0.05)
    idx = r2.integers(0, t.n, size=(4, 1))
    gu = t.n * t.data_gradients(x1 + 0.05, idx).sum(1)
    gp = t.n * t.data_gradients(x1, idx).sum(1)
    np.testing.assert_allclose(e2.gradient, 0.5 * gu + 0.5 * (e1.gradient + gu - gp))
    assert e2.evaluations == 2 and e2.info["rho"] == 0.5


def test_periodic_schedule_resets_every_ceil_inverse_eta():
    est = HybridGradient(schedule="periodic", step_size=0.3)
    assert periodic_reset_period(0.3) == 4 == est.period
    assert [est.rho_at(k) for k in range(1, 10)] == [1, 1 / 2, 1 / 3, 1 / 4, 1, 1 / 2, 1 / 3, 1 / 4, 1]
    assert periodic_reset_period(0.01) == 100


def test_evaluation_counts():
    t = gaussian_means_target(n=50)
    rng = np.random.default_rng(0)
    s = srvr_hmc(t, 0.05, outer_batch_size=20, inner_batch_size=3, inner_loop_length=4)
    ev = run_chains(s, s.init(np.zeros((2, 2))), rng, steps=9, trace_info=True)["info_trace"]["reset"]
    assert ev.tolist() == [1, 0, 0, 0, 1, 0, 0, 0, 1]
    st = s.init(np.zeros((2, 2)))
    ev = []
    for _ in range(9):
        st, info = s.step(st, rng)
        ev.append(info.evaluations)
    assert ev == [20, 6, 6, 6, 20, 6, 6, 6, 20]
    s = srvr_hmc(t, 0.05, outer_batch_size=50, inner_batch_size=1, inner_loop_length=2)
    st = s.init(np.zeros((2, 2)))
    assert [s.step(st, rng)[1].evaluations][0] == 50  # B0 = n: the exact full gradient
    h = hsg_hmc(t, 0.5)  # period 2: ρ = 1, 1, 1/2, 1, 1/2, ...
    st = h.init(np.zeros((2, 2)))
    ev = []
    for _ in range(6):
        st, info = h.step(st, rng)
        ev.append(info.evaluations)
    assert ev == [1, 1, 2, 1, 2, 1]


def test_srvr_full_reset_is_exact_and_recursion_exact_on_equal_hessians():
    # on V = Σ ½‖θ − c_i‖² the per-datum differences are exact, so SRVR with B0 = n is exact for all k
    t = gaussian_means_target(n=50)
    est = RecursiveGradient(outer_batch_size=50, inner_batch_size=1, inner_loop_length=10)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 2))
    st = est.init(t, x)
    for _ in range(7):
        e = est(st, rng, t, x)
        np.testing.assert_allclose(e.gradient, t.full_gradient(x), atol=1e-10)
        st, x = e.state, x + 0.1 * rng.standard_normal(x.shape)


@pytest.mark.parametrize("kwargs, name", [
    ({"step_size": 0.0}, "step_size"), ({"step_size": -1.0}, "step_size"),
    ({"step_size": 0.1, "friction": 0.0}, "friction"), ({"step_size": 0.1, "friction": -2.0}, "friction"),
])
def test_bad_eta_gamma_raise_naming_parameter(kwargs, name):
    t = gaussian_means_target()
    with pytest.raises(ValueError, match=name):
        hsg_hmc(t, **kwargs)
    with pytest.raises(ValueError, match=name):
        srvr_hmc(t, outer_batch_size=10, **kwargs)


@pytest.mark.parametrize("kwargs, name", [
    ({"outer_batch_size": 2, "inner_batch_size": 5}, "B0"), ({"outer_batch_size": 10, "inner_loop_length": 0}, "L"),
    ({"outer_batch_size": 10, "inner_batch_size": 0}, "B"), ({"outer_batch_size": 0}, "B0"),
])
def test_bad_srvr_hyperparameters_raise_naming_parameter(kwargs, name):
    with pytest.raises(ValueError, match=rf"\({name}\)"):
        srvr_hmc(gaussian_means_target(), 0.1, **kwargs)


def test_bad_hybrid_inputs():
    with pytest.raises(ValueError, match="schedule"):
        HybridGradient(schedule="cosine")
    with pytest.raises(ValueError, match="rho"):
        HybridGradient(schedule="constant", rho=1.5)
    with pytest.raises(ValueError, match="step_size"):
        HybridGradient(schedule="periodic")
    with pytest.raises(ValueError, match="base"):
        HybridGradient(base=3, schedule="harmonic")
    with pytest.raises(ValueError, match="base"):
        SVRGControlVariate(base="uniform")
    with pytest.raises(ValueError, match="outer_batch_size"):
        srvr_hmc(gaussian_means_target(n=10), 0.1, outer_batch_size=11).init(np.zeros((1, 2)))


def test_svrg_wraps_its_base_minibatch():
    """The fresh indices of every SVRG step are the base minibatch's draws; the estimate is
    ``∇V(θ̃) + (n/b) Σ_j (∇V_{I_j}(θ) − ∇V_{I_j}(θ̃))`` with the snapshot refreshed every epoch."""
    t = hsg_mixture_target(n=40, seed=2)
    est = SVRGControlVariate(UniformMinibatch(4), epoch_length=3)
    assert est.batch_size == 4 and est.settings()["batch_size"] == 4
    x = np.random.default_rng(0).standard_normal((5, 2))
    ra, rb = np.random.default_rng(2), np.random.default_rng(2)
    e1 = est(est.init(t, x), ra, t, x)  # the snapshot is taken at x
    rb.integers(0, t.n, size=(5, 4))
    x2 = x + 0.3
    e2 = est(e1.state, ra, t, x2)
    idx = rb.integers(0, t.n, size=(5, 4))
    want = t.full_gradient(x) + (t.n / 4) * (t.data_gradients(x2, idx) - t.data_gradients(x, idx)).sum(1)
    np.testing.assert_allclose(e2.gradient, want, rtol=1e-12, atol=1e-12)
    assert (e1.evaluations, e2.evaluations) == (t.n + 8, 8)


def test_rho_value_refuses_an_unknown_schedule_instead_of_treating_it_as_constant():
    from sgmcmc_verify.estimators import rho_value

    assert rho_value("constant", 3, constant=0.25) == 0.25 and rho_value("harmonic", 4) == 0.25
    with pytest.raises(ValueError, match="schedule"):
        rho_value("cosine", 2, constant=0.5)
    with pytest.raises(ValueError, match="period"):
        rho_value("periodic", 2)
    with pytest.raises(ValueError, match="k must"):
        rho_value("harmonic", 0)
