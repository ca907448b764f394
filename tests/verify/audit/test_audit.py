"""The audit battery on the toolkit's own samplers (smoke scale) and on planted bugs that it must flag."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from sgmcmc_verify import samplers
from sgmcmc_verify.audit import AuditSettings, audit, exact_recursion, load_factory
from sgmcmc_verify.audit.consistency import ORDER_TOLERANCE, consistency_check
from sgmcmc_verify.audit.cost import cost_check
from sgmcmc_verify.audit.stability import stability_check
from sgmcmc_verify.targets import gaussian_means_target

from support.audit import sgld_biased_gradient, sgld_missing_sqrt2, ula

SMOKE = AuditSettings.at("smoke")


def smoke(seed: int = 0) -> AuditSettings:
    """The smoke settings with the battery's root seed drawn from ``default_rng(seed)`` (shifted by
    ``tests/calibrate.py``'s ``--seed-offset``)."""
    return dataclasses.replace(SMOKE, seed=int(np.random.default_rng(seed).integers(2**31)))


# ---- check 1: consistency and weak order ---------------------------------------------------------

def _order_ok(res, expected=1.0):
    c = res.data["cov"]
    return c["ci_low"] is not None and expected - ORDER_TOLERANCE <= c["ci_low"] and c["ci_high"] <= expected + ORDER_TOLERANCE


@pytest.mark.statistical(pair="audit.consistency")
def test_sgld_comes_out_first_order_and_matches_its_exact_law():
    # The MC order interval must sit in 1 ± 0.3 (ORDER_TOLERANCE: the h² term over a factor-20 grid);
    # the exact linear law gives the order without noise.
    for aniso in (False, True):
        res = consistency_check(samplers.sgld, {}, smoke(1), name="c", anisotropic=aniso, expected_order=1.0)
        assert res.status == "pass", res.detail
        assert _order_ok(res), res.data["cov"]
        assert abs(res.data["exact"]["slope"] - 1.0) < 0.1
        assert res.data["mc_matches_exact"] is True


@pytest.mark.statistical(pair="audit.consistency")
def test_full_gradient_em_is_first_order_as_theory_says():
    # ULA and the underdamped FG scheme: the exact stationary covariance error is hL/2 + O(h²) (ULA), so
    # the exact slope is 1 within 0.1; the MC error is at or near its floor and must not be flagged.
    for factory, params in ((ula, {}), (samplers.fg, {"friction": 15.0})):
        res = consistency_check(factory, params, smoke(2), name="c", expected_order=1.0)
        assert res.status == "pass", res.detail
        assert abs(res.data["exact"]["slope"] - 1.0) < 0.1
        assert res.data["mc_matches_exact"] is True


@pytest.mark.statistical(pair="audit.consistency")
def test_sghmc_is_consistent_and_first_order():
    res = consistency_check(samplers.sghmc, {"friction": 15.0}, smoke(3), name="c", expected_order=1.0)
    assert res.status == "pass", res.detail
    assert abs(res.data["exact"]["slope"] - 1.0) < 0.1
    assert res.data["mc_matches_exact"] is True


@pytest.mark.negative_control(pair="audit.consistency")
def test_a_missing_sqrt2_in_the_noise_is_flagged():
    for aniso in (False, True):
        res = consistency_check(sgld_missing_sqrt2, {}, smoke(4), name="c", anisotropic=aniso)
        assert res.status == "flagged", res.detail
        assert "covariance error does not go to 0" in res.detail
        assert exact_recursion(sgld_missing_sqrt2(gaussian_means_target(), 1e-3)) is None  # audited by MC only


@pytest.mark.negative_control(pair="audit.consistency")
def test_a_biased_gradient_is_flagged():
    res = consistency_check(sgld_biased_gradient, {}, smoke(5), name="c")
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
    assert load_factory("sgmcmc_verify.samplers:sgld") is samplers.sgld and load_factory("SGLD") is samplers.sgld
    with pytest.raises(ValueError, match="checks"):
        audit(samplers.sgld, scale="smoke", checks=("nope",))


def test_cli_audit_exits_1_on_a_flagged_sampler_and_writes_the_page(tmp_path, capsys):
    from sgmcmc_verify.cli import main

    rc = main(["audit", "support.audit:sgld_missing_sqrt2", "--scale", "smoke", "--name", "nosqrt2",
               "--checks", "consistency_gaussian,cost", "--results", str(tmp_path / "results"),
               "--out", str(tmp_path / "out")])
    assert rc == 1
    page = tmp_path / "out" / "audit" / "nosqrt2"
    html = (page / "index.html").read_text()
    assert "flagged" in html and "consistency.png" in html and "http" not in html  # relative links only
    rows = json.loads((page / "summary.json").read_text())
    assert [r["status"] for r in rows] == ["flagged", "pass"]
    assert set(rows[0]) == {"check", "measured", "expected", "status", "detail"}
    assert (page / "consistency.png").exists() and (page / "cost.png").exists()
    assert "nosqrt2/index.html" in (tmp_path / "out" / "audit" / "index.html").read_text()
    out = capsys.readouterr().out
    assert "flagged" in out and "does not go to 0" in out


def test_cli_audit_rejects_bad_params(tmp_path):
    from sgmcmc_verify.cli import main

    assert main(["audit", "SGLD", "--param", "oops", "--results", str(tmp_path)]) == 2
    assert main(["audit", "SGLD", "--scale", "paper", "--results", str(tmp_path)]) == 2
