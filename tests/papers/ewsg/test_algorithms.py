"""EWSG's algorithms as entries (issue #25): the index chain (eq. (6) / conference eq. (5)), Algorithm 1, Algorithm 2.

The smoke run holds every entry; each part is shown to fail on a planted bug (the dropped ½ in the acceptance, a
doubled friction correction, a miscounted moment update).
"""
import dataclasses

import numpy as np
import pytest

from sgmcmc_verify.estimators import EWSGIndexChain, EWSGVarianceReduced, StepContext
from sgmcmc_verify.integrators import UnderdampedEM
from sgmcmc_verify.ledger.claims import get
from sgmcmc_verify.ledger.measures import Compared, Estimate
from sgmcmc_verify.ledger.rules import judge
from sgmcmc_verify.paper_repro.ewsg import algorithms as A
from sgmcmc_verify.targets import gaussian_means_target

IDS = ("ewsg.eq6.index_chain_stationary_law", "ewsg.alg1.ewsg_step", "ewsg.alg2.ewsg_vr",
       "ewsg_iclr.eq5.index_chain_stationary_law", "ewsg_iclr.alg1.ewsg_step")
SMOKE = A.AlgorithmsSettings.at("smoke")


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    from sgmcmc_verify.store.cache import run_experiment
    from sgmcmc_verify.store.registry import get_experiment

    root = tmp_path_factory.mktemp("algorithms")
    run_experiment(get_experiment("ewsg.algorithms"), "smoke", results_root=root, n_jobs=1)
    return root


@pytest.fixture(scope="module")
def t50():
    return gaussian_means_target(50, 2, 20210501)


@pytest.mark.statistical(pair="ewsg.algorithms.smoke")
def test_every_entry_holds_on_the_smoke_run(stored):
    for cid in IDS:
        v = get(cid).evaluate(stored)
        assert v.status == "held" and v.basis == "our design", (cid, v.status, v.measured_text)


def _index_measure(res):
    return {"invariance": {"r": Estimate(res["invariance"])}, "stationary law": {"r": Estimate(res["stationary"])},
            "estimator's M-step law": {"r": Estimate(res["m_step_law"])}}


def test_index_chain_residuals_are_round_off(t50):
    res = A.index_chain_residuals(t50, SMOKE, np.random.default_rng(0))
    assert max(res["invariance"], res["stationary"], res["m_step_law"]) < 1e-13 and res["cases"] == 24
    assert judge(get(IDS[0]).rule, _index_measure(res)).status == "held"


def test_a_dropped_half_in_the_acceptance_fails_the_index_chain_entry(t50):
    """Planted: the matrix of (6) with exp(‖·‖² difference) (½ dropped): its stationary law is w², not w."""
    res = A.index_chain_residuals(t50, dataclasses.replace(SMOKE, chain_lengths=(1,)), np.random.default_rng(0),
                                  half=2.0)
    assert res["stationary"] > 1e-3
    assert judge(get(IDS[0]).rule, _index_measure(res)).status == "failed"


class HalfMissingIndexChain(EWSGIndexChain):
    """Planted bug: acceptance exp(‖x + n a_J‖² − ‖x + n a_I‖²), the ½ of (6) dropped (h → 2h in the weights)."""

    def __call__(self, state, rng, target, position, context=StepContext()):
        return super().__call__(state, rng, target, position, context._replace(step_size=2.0 * context.step_size))


def _alg1_measure(o):
    return {"gradients per step": {"M=1, b=1": Compared(Estimate(2.0), Estimate(2.0))},
            "one step's law": {"shift": Compared(Estimate(o["shift"], o["se"], n=o["chains"]),
                                                 Estimate(o["exact_shift"]))}}


@pytest.mark.negative_control(pair="ewsg.algorithms.smoke")
def test_a_dropped_half_in_the_sampler_fails_algorithm_1(t50):
    s = dataclasses.replace(SMOKE, one_step_chains=100_000)
    smp = UnderdampedEM(t50, s.one_step_sizes[0], s.friction, HalfMissingIndexChain(1), name="EWSG-planted")
    o = A.one_step_shift(t50, s, np.random.default_rng(1), sampler=smp, step_size=s.one_step_sizes[0])
    assert judge(get(IDS[1]).rule, _alg1_measure(o)).status == "failed", o


def test_a_wrong_gradient_count_fails_algorithm_1():
    m = {"gradients per step": {"M=1, b=1": Compared(Estimate(3.0), Estimate(2.0))},
         "one step's law": {"shift": Compared(Estimate(1.0, 0.001, n=1000), Estimate(1.0))}}
    assert judge(get(IDS[1]).rule, m).status == "failed"


class _DoubledCorrection(EWSGVarianceReduced):
    """Planted bug: Γ − γ = (h/T) covar, the 1/(2T) of Appendix F read as 1/T."""

    def __call__(self, state, rng, target, position, context=StepContext()):
        e = super().__call__(state, rng, target, position, context)
        return e._replace(state=e.state._replace(extra_friction=2.0 * e.state.extra_friction))


class _MiscountedUpdate(EWSGVarianceReduced):
    """Planted bug: line 16's update of m1 takes one per-datum gradient too many (∇V_1(θ_k) added every step)."""

    def __call__(self, state, rng, target, position, context=StepContext()):
        e = super().__call__(state, rng, target, position, context)
        if state.m1 is None or state.since_calibration >= self.period_steps(target.n):
            return e
        return e._replace(state=e.state._replace(m1=e.state.m1 + target.data_gradients(position, np.zeros(
            (position.shape[0], 1), dtype=int)).sum(axis=1)))


def _alg2_measure(target, s, rng, moments_cls=EWSGVarianceReduced, variance_cls=EWSGVarianceReduced):
    mom = A.alg2_moment_residuals(target, s, rng, moments_cls)
    st = A.alg2_stationary_variance(target, s, rng, variance_cls)
    return {"moment updates (lines 16–19)": {k: Estimate(v) for k, v in mom.items()},
            "calibration (line 6)": {"c": Estimate(A.alg2_calibration_residual(target, rng))},
            "data passes": {"M=0, b=1": Compared(Estimate(300.0), Estimate(300.0))},
            "stationary variance with Γ_k": {f"{i}": Compared(Estimate(v, se, n=st["chains"]), Estimate(e))
                                            for i, (v, se, e) in enumerate(zip(st["sampled"], st["se"], st["exact"]))}}


@pytest.mark.negative_control(pair="ewsg.algorithms.smoke")
def test_a_doubled_friction_correction_fails_algorithm_2(t50):
    s = dataclasses.replace(SMOKE, vr_chains=3000, vr_steps=30)
    m = _alg2_measure(t50, s, np.random.default_rng(2), variance_cls=_DoubledCorrection)
    assert judge(get(IDS[2]).rule, m).status == "failed"


def test_a_miscounted_moment_update_fails_algorithm_2(t50):
    s = dataclasses.replace(SMOKE, vr_chains=3000, vr_steps=30)
    m = _alg2_measure(t50, s, np.random.default_rng(3), moments_cls=_MiscountedUpdate)
    assert m["moment updates (lines 16–19)"]["m1"].value > 1e-3
    assert judge(get(IDS[2]).rule, m).status == "failed"


def test_metropolis_matrix_rows_are_laws():
    P = A.metropolis_matrix(np.array([0.0, 1.0, -2.0, 0.5]))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert np.all(P >= 0)
