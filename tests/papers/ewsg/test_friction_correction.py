"""EWSG Appendix F eq. (13): the friction correction Γ_k, decided on exact stationary laws (issue #25).

The experiment is exact (discrete Lyapunov equations), so it runs here in full; the claim is shown to hold on it, to
fail on a planted miscorrection (a friction that over-corrects by a factor 2 leaves an O(h) stochastic-gradient part),
and to be inconclusive where its precondition (an uncorrected part of order h) is not met.
"""
import numpy as np
import pytest

from sgmcmc_verify.analytic.gaussian import quadratic_posterior
from sgmcmc_verify.analytic.linear_samplers import (LinearRecursion, minibatch_noise_covariance, stationary_moments,
                                                    underdamped_em_recursion)
from sgmcmc_verify.ledger.claims import get
from sgmcmc_verify.ledger.measures import Fit
from sgmcmc_verify.ledger.rules import judge
from sgmcmc_verify.paper_repro.ewsg import friction_correction as F
from sgmcmc_verify.targets import gaussian_means_target

CID = "ewsg.appF.eq13.friction_restores_stationary_law"


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    from sgmcmc_verify.store.cache import run_experiment
    from sgmcmc_verify.store.registry import get_experiment

    root = tmp_path_factory.mktemp("friction")
    run_experiment(get_experiment("ewsg.appF_friction"), "smoke", results_root=root, n_jobs=1)
    return root


def test_the_claim_holds_on_the_exact_laws(stored):
    v = get(CID).evaluate(stored)
    assert v.status == "held" and v.basis == "our design"
    m = F.FrictionCorrectionSettings.at("smoke")
    assert len(m.step_sizes) >= 5


def _overcorrected_part(h, factor=2.0):
    """‖S − S_FG‖/‖S_FG‖ with the friction γ + factor·(hγ/σ²)Q (a planted bug: eq. (13)'s Γ_k times 2 in its
    correction)."""
    t = gaussian_means_target(50, 2, 20210501)
    mu, Q, g = quadratic_posterior(t.centers).mean, minibatch_noise_covariance(t.centers), 10.0
    rec = underdamped_em_recursion(t.hessian, mu, Q, h, g)
    A = rec.A.copy()
    A[2:, 2:] = np.eye(2) - h * (g * np.eye(2) + factor * (h * g / (2 * g)) * Q)
    s = stationary_moments(LinearRecursion(A, rec.a, rec.W, 2))[1][:2, :2]
    fg = stationary_moments(underdamped_em_recursion(t.hessian, mu, np.zeros_like(Q), h, g))[1][:2, :2]
    return float(np.linalg.norm(s - fg) / np.linalg.norm(fg))


def _fits(claim_slope_of):
    hs = F.FrictionCorrectionSettings().step_sizes
    f = F.loglog_slope(hs, [claim_slope_of(h) for h in hs])
    return Fit(f["slope"], f["ci_low"], f["ci_high"], points=f["points"], span=2.0)


@pytest.mark.statistical(pair="ewsg.appF.friction")
def test_the_exact_correction_leaves_an_order_h2_part():
    t = gaussian_means_target(50, 2, 20210501)
    mu, Q = quadratic_posterior(t.centers).mean, minibatch_noise_covariance(t.centers)
    claim = _fits(lambda h: F.stationary_distances(t.hessian, mu, Q, h, 10.0)["vr_vs_fg"])
    cond = _fits(lambda h: F.stationary_distances(t.hessian, mu, Q, h, 10.0)["sg_vs_fg"])
    assert judge(get(CID).rule, {"condition": cond, "claim": claim}).status == "held"


@pytest.mark.negative_control(pair="ewsg.appF.friction")
def test_an_overcorrected_friction_fails_the_claim():
    t = gaussian_means_target(50, 2, 20210501)
    mu, Q = quadratic_posterior(t.centers).mean, minibatch_noise_covariance(t.centers)
    cond = _fits(lambda h: F.stationary_distances(t.hessian, mu, Q, h, 10.0)["sg_vs_fg"])
    claim = _fits(_overcorrected_part)
    assert abs(claim.slope - 1.0) < 0.05
    assert judge(get(CID).rule, {"condition": cond, "claim": claim}).status == "failed"


def test_the_precondition_caps_both_ways():
    rule = get(CID).rule
    flat = Fit(0.2, 0.2, 0.2, points=9, span=2.0)      # the uncorrected part does not show its O(h): nothing read
    for slope in (2.0, 1.0):
        v = judge(rule, {"condition": flat, "claim": Fit(slope, slope, slope, points=9, span=2.0)})
        assert v.status == "inconclusive" and v.capped and v.capped["status"] in ("held", "failed")


def test_stationary_distances_refuses_an_unstable_step():
    t = gaussian_means_target(50, 2, 20210501)
    mu, Q = quadratic_posterior(t.centers).mean, minibatch_noise_covariance(t.centers)
    with pytest.raises(ValueError, match="VR-EM at step_size 0.05"):
        F.stationary_distances(t.hessian, mu, Q, 0.05, 10.0)
