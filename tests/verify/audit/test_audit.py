"""The audit battery on the toolkit's own samplers (smoke scale) and on planted bugs that it must flag."""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest

from verify import samplers
from verify.audit import AuditSettings, audit, exact_recursion, load_factory
from verify.audit.consistency import ORDER_TOLERANCE, consistency_check
from verify.audit.cost import cost_check
from verify.audit.stability import stability_check
from verify.estimators.minibatch import FullGradient, UniformMinibatch
from verify.integrators.base import OverdampedState, StepInfo
from verify.integrators.overdamped import OverdampedEM
from verify.targets import gaussian_means_target

SMOKE = AuditSettings.at("smoke")


def ula(target, step_size):
    """Full-gradient overdamped EM (ULA): weakly first order for the stationary covariance."""
    return OverdampedEM(target, step_size, FullGradient(), name="ULA")


# ---- planted bugs (test-only subclasses) -------------------------------------------------------

@dataclass(frozen=True, eq=False)
class _NoSqrt2SGLD(OverdampedEM):
    """SGLD with the noise √h ξ instead of √(2h) ξ: the stationary covariance is halved at every h."""

    def _update(self, state, rng):
        est = self.estimator(state.estimator_state, rng, self.target, state.position, self._context())
        pos = state.position - self.step_size * est.gradient + np.sqrt(self.step_size) * rng.standard_normal(
            state.position.shape)
        return OverdampedState(pos, None, est.state, state.step + 1), StepInfo(est.evaluations, est.info), (pos,)


class _OffsetMinibatch(UniformMinibatch):
    """A biased stochastic gradient: the uniform minibatch plus a constant offset 5 in every coordinate."""

    def __call__(self, *args, **kwargs):
        e = super().__call__(*args, **kwargs)
        return e._replace(gradient=e.gradient + 5.0)


def sgld_missing_sqrt2(target, step_size, batch_size=1):
    return _NoSqrt2SGLD(target, step_size, UniformMinibatch(batch_size), name="SGLD-missing-sqrt2")


def sgld_biased_gradient(target, step_size, batch_size=1):
    return OverdampedEM(target, step_size, _OffsetMinibatch(batch_size), name="SGLD-biased-gradient")


# ---- check 1: consistency and weak order ---------------------------------------------------------

def _order_ok(res, expected=1.0):
    c = res.data["cov"]
    return c["ci_low"] is not None and expected - ORDER_TOLERANCE <= c["ci_low"] and c["ci_high"] <= expected + ORDER_TOLERANCE


@pytest.mark.statistical(pair="audit.consistency")
def test_sgld_comes_out_first_order_and_matches_its_exact_law():
    # The MC order interval must sit in 1 ± 0.3 (ORDER_TOLERANCE: the h² term over a factor-20 grid);
    # the exact linear law gives the order without noise.
    for aniso in (False, True):
        res = consistency_check(samplers.sgld, {}, SMOKE, name="c", anisotropic=aniso, expected_order=1.0)
        assert res.status == "pass", res.detail
        assert _order_ok(res), res.data["cov"]
        assert abs(res.data["exact"]["slope"] - 1.0) < 0.1
        assert res.data["mc_matches_exact"] is True


@pytest.mark.statistical(pair="audit.consistency")
def test_full_gradient_em_is_first_order_as_theory_says():
    # ULA and the underdamped FG scheme: the exact stationary covariance error is hL/2 + O(h²) (ULA), so
    # the exact slope is 1 within 0.1; the MC error is at or near its floor and must not be flagged.
    for factory, params in ((ula, {}), (samplers.fg, {"friction": 15.0})):
        res = consistency_check(factory, params, SMOKE, name="c", expected_order=1.0)
        assert res.status == "pass", res.detail
        assert abs(res.data["exact"]["slope"] - 1.0) < 0.1
        assert res.data["mc_matches_exact"] is True


@pytest.mark.statistical(pair="audit.consistency")
def test_sghmc_is_consistent_and_first_order():
    res = consistency_check(samplers.sghmc, {"friction": 15.0}, SMOKE, name="c", expected_order=1.0)
    assert res.status == "pass", res.detail
    assert abs(res.data["exact"]["slope"] - 1.0) < 0.1
    assert res.data["mc_matches_exact"] is True


@pytest.mark.negative_control(pair="audit.consistency")
def test_a_missing_sqrt2_in_the_noise_is_flagged():
    for aniso in (False, True):
        res = consistency_check(sgld_missing_sqrt2, {}, SMOKE, name="c", anisotropic=aniso)
        assert res.status == "flagged", res.detail
        assert "covariance error does not go to 0" in res.detail
        assert exact_recursion(sgld_missing_sqrt2(gaussian_means_target(), 1e-3)) is None  # audited by MC only


@pytest.mark.negative_control(pair="audit.consistency")
def test_a_biased_gradient_is_flagged():
    res = consistency_check(sgld_biased_gradient, {}, SMOKE, name="c")
    assert res.status == "flagged", res.detail
    assert "mean error does not go to 0" in res.detail


# ---- checks 5 and 6 ---------------------------------------------------------------------------------

def test_stability_of_sgld_is_the_exact_threshold_2_over_L():
    res = stability_check(samplers.sgld, {}, SMOKE)
    assert res.status == "pass", res.detail
    assert res.data["exact_threshold_hL"] == pytest.approx(2.0, rel=1e-6)


def test_cost_is_flat_in_n_for_sgld_and_linear_for_the_full_gradient():
    assert cost_check(samplers.sgld, {}, SMOKE).data["evals_slope"] == pytest.approx(0.0, abs=1e-12)
    res = cost_check(ula, {}, SMOKE)
    assert res.status == "info" and res.data["evals_slope"] == pytest.approx(1.0, abs=1e-9)


# ---- the battery, its files and its inputs ------------------------------------------------------------

def test_audit_writes_the_summary_and_flags_a_planted_bug(tmp_path):
    rep = audit(sgld_biased_gradient, scale="smoke", name="biased", results=tmp_path,
                checks=("consistency_gaussian", "sg_sensitivity", "cost"))
    folder = tmp_path / "audit" / "biased"
    summary = json.loads((folder / "summary.json").read_text())
    assert [r["id"] for r in summary["rows"]] == ["consistency_gaussian", "sg_sensitivity", "cost"]
    assert set(summary["rows"][0]) == {"id", "check", "measured", "expected", "status", "detail"}
    assert summary["flagged"] == ["consistency (Gaussian §5.1)"] == rep.flagged
    assert {"numpy", "scipy"} <= set(summary["versions"]) and summary["seed"] == SMOKE.seed
    assert (folder / "summary.csv").exists() and (folder / "consistency_gaussian.json").exists()


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="scale"):
        AuditSettings.at("paper")
    with pytest.raises(ValueError, match="factory"):
        load_factory("no_such_sampler")
    with pytest.raises(ValueError, match="factory module"):
        load_factory("no.such.module:f")
    assert load_factory("verify.samplers:sgld") is samplers.sgld and load_factory("SGLD") is samplers.sgld
    with pytest.raises(ValueError, match="checks"):
        audit(samplers.sgld, scale="smoke", checks=("nope",))
