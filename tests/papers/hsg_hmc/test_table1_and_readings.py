"""HSG-HMC Table 1 ordering over ε (issue #13 item 3) and the readings of Table 2's numbers (item 4).

Seed ``001_d56659fdb8996bf2.txt`` (HSG-HMC): Table 1, Corollaries 1–2, Table 2 and its text.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from sgmcmc_verify.ledger.claims import get
from sgmcmc_verify.ledger.measures import Fit, Tuned, TunedChoice
from sgmcmc_verify.ledger.rules import judge
from sgmcmc_verify.paper_repro.hsg_hmc.claims_complexity import MIN_DECADES
from sgmcmc_verify.paper_repro.hsg_hmc.complexity import first_hit, loglog_fit, run_complexity, stay_below
from sgmcmc_verify.paper_repro.hsg_hmc.settings import ComplexitySettings, Table2ReadingsSettings
from sgmcmc_verify.paper_repro.hsg_hmc.table2 import PRINTED_TABLE2
from sgmcmc_verify.paper_repro.hsg_hmc.table2_readings import (READINGS, fit_floor_models, reading_floors, readings_table,
                                                 run_table2_readings)
from sgmcmc_verify.store.io import write_csv, write_json


# ---- Table 1 --------------------------------------------------------------------------------------

def test_loglog_fit_recovers_a_power_law_with_a_narrow_interval():
    x = np.geomspace(10, 300, 8)
    f = loglog_fit(x, 3.0 * x ** 1.5 * (1 + 0.01 * np.sin(np.arange(8))))
    assert f["points"] == 8 and f["ci_low"] < 1.5 < f["ci_high"] and f["ci_high"] - f["ci_low"] < 0.05


def test_loglog_fit_drops_unreached_eps_and_needs_three_points():
    assert loglog_fit([1, 2, 3], [1.0, np.inf, 2.0]) == {"points": 2}


def test_first_hit_and_stay_below_differ_on_a_dip():
    w2 = np.array([1.0, 0.05, 0.5, 0.04, 0.03])
    ev = np.arange(5) * 10.0
    np.testing.assert_array_equal(first_hit(w2, ev, [0.06, 0.01]), [10, np.inf])
    np.testing.assert_array_equal(stay_below(w2, ev, [0.06, 0.01]), [30, np.inf])


def test_complexity_smoke_writes_fits_for_both_schedules_and_pairs(smoke_results):
    from sgmcmc_verify.store.io import read_json

    d = read_json(smoke_results / "hsg_hmc" / "complexity.json")
    assert set(d["fits"]) == {"SGLD", "SGHMC", "SG-UL-MCMC", "SRVR-HMC", "HSG-HMC (periodic)", "HSG-HMC (harmonic)"}
    assert d["target"]["hessian_spread"] > 0.5        # per-datum Hessians differ
    v = get("hsg_hmc.table1.hsg_fewer_gradients_than_sg_ul_mcmc").evaluate(smoke_results)
    assert d["decades"] < MIN_DECADES and v.status == "inconclusive"   # smoke spans 0.6 decades: no call


def _fit(e, lo, hi, decades=1.52, pts=8):
    return Fit(e, lo, hi, points=pts, span=decades)


@pytest.mark.parametrize("hsg,sgul,decades,status", [
    ((1.0, 0.9, 1.1), (1.5, 1.4, 1.6), 1.52, "held"),
    ((2.0, 1.9, 2.1), (1.5, 1.4, 1.6), 1.52, "failed"),
    ((1.45, 1.3, 1.6), (1.5, 1.4, 1.6), 1.52, "inconclusive"),     # overlapping intervals: no call
    ((1.0, 0.9, 1.1), (1.5, 1.4, 1.6), 1.0, "inconclusive"),       # less than 1.5 decades of eps
])
def test_table1_ordering_is_called_only_where_exponents_separate(hsg, sgul, decades, status):
    rule = get("hsg_hmc.table1.hsg_fewer_gradients_than_sg_ul_mcmc").rule
    m = {"HSG-HMC (periodic)": _fit(*hsg, decades), "SG-UL-MCMC": _fit(*sgul, decades)}
    assert judge(rule, Tuned(m, {})).status == status


def test_table1_ordering_is_capped_at_a_tuning_edge_both_ways():
    """The ledger's tuning-edge rule: a step size chosen at an end of its grid caps a hold and a failure alike."""
    rule = get("hsg_hmc.table1.hsg_fewer_gradients_than_sg_ul_mcmc").rule
    edge = {"HSG-HMC (periodic) at ε = 0.1: step size": TunedChoice(0.003, (0.003, 0.01, 0.03))}
    for hsg, before in (((1.0, 0.9, 1.1), "held"), ((2.0, 1.9, 2.1), "failed")):
        m = {"HSG-HMC (periodic)": _fit(*hsg), "SG-UL-MCMC": _fit(1.5, 1.4, 1.6)}
        v = judge(rule, Tuned(m, edge))
        assert v.status == "inconclusive" and v.capped["status"] == before and v.decide_by.kind == "tuning"


@pytest.mark.parametrize("ci,status", [((1.3, 1.6), "held"), ((4.5, 5.0), "failed"), ((3.5, 4.5), "inconclusive")])
def test_exponent_bound_uses_the_interval(ci, status):
    rule = get("hsg_hmc.table1.exponent.HSG-HMC_periodic").rule
    assert judge(rule, Tuned(_fit(sum(ci) / 2, *ci), {})).status == status


# ---- Table 2 readings -----------------------------------------------------------------------------

def test_floor_models_extrapolate_a_log_n_over_n_floor():
    n = np.array([125, 250, 500, 1000, 2000, 4000])
    fits = fit_floor_models(n, 20 * np.log(n) / n, 100 + 10 * np.log(n), target_n=100_000)
    assert math.isclose(fits["w2sq"]["log_n_over_n"]["at_target"], 20 * math.log(1e5) / 1e5, rel_tol=1e-9)
    assert fits["w2sq"]["low"] <= fits["w2sq"]["log_n_over_n"]["at_target"] <= fits["w2sq"]["high"]
    assert math.isclose(fits["cost_max"]["at_target"], 100 + 10 * math.log(1e5), rel_tol=1e-9)
    # population entropic cost on the cost/max scale: (d/2) reg (1 - reg maxM / 8) for d = 2
    cm = fits["cost_max"]["at_target"]
    assert math.isclose(fits["sinkhorn_norm"]["population"], 1e-3 * (1 - 1e-3 * cm / 8), rel_tol=1e-12)
    fl = reading_floors(fits, 1e-3, 100_000)
    assert set(fl) == set(READINGS)
    assert math.isclose(fl["raw_exact_w2"]["low"], math.sqrt(fl["raw_exact_w2sq"]["low"]))


def test_floor_models_reject_too_few_sizes():
    with pytest.raises(ValueError, match="sizes"):
        fit_floor_models([10, 20], [1.0, 0.5], [1.0, 1.0])


def _readings_json(w2sq_floor_1e5=2e-3, cmax=200.0):
    n = np.array([125, 250, 500, 1000, 2000, 4000], float)
    c = w2sq_floor_1e5 / (math.log(1e5) / 1e5)
    fits = fit_floor_models(n, c * np.log(n) / n, cmax + 0 * n, target_n=100_000)
    return {"fits": fits, "floors_at_paper_n": reading_floors(fits, 1e-3, 100_000), "paper_n": 100_000,
            "sinkhorn_reg": 1e-3}


def _t2_files(root, w2, sink_norm, floor_w2=0.25, floor_sink=2e-3):
    rows = [{"method": m, "w2_exact": w2[m], "w2_exact_se": 0.01, "emd_subsample": 2000} for m in PRINTED_TABLE2]
    rows.append({"method": "noise floor (exact vs exact)", "w2_exact": floor_w2, "w2_exact_se": 0.01,
                 "emd_subsample": 2000})
    (root / "hsg_hmc").mkdir(exist_ok=True)
    write_csv(root / "hsg_hmc" / "table2.csv", rows)
    sink = {m: {"normalized": {"cost": sink_norm[m]}} for m in PRINTED_TABLE2}
    sink["noise floor"] = {"normalized": {"cost": floor_sink}}
    write_json(root / "hsg_hmc" / "table2.json", {"sinkhorn": sink})
    return {r["method"]: r for r in rows}, {"sinkhorn": sink}


def test_readings_table_attributes_only_a_reading_that_alone_fits(tmp_path):
    """Our values built as the printed cells under raw W2² (excess + floor): raw W2² and its entropic twin fit;
    more than one reading fits, so nothing is attributed."""
    rj = _readings_json()
    fl = rj["floors_at_paper_n"]["raw_exact_w2sq"]["mid"]
    w2 = {m: math.sqrt(max(p - fl, 0) + 0.25 ** 2) for m, p in PRINTED_TABLE2.items()}
    rows, js = _t2_files(tmp_path, w2, {m: 1.0 for m in PRINTED_TABLE2})
    tab = readings_table(rows, js, rj)
    assert tab["raw_exact_w2sq"]["fits"] and not tab["raw_exact_w2"]["floor_test"]
    assert "norm_sinkhorn_w2" not in tab["_floor_survivors"]          # sqrt(1e-3) = 0.03 > printed 5e-3
    assert len(tab["_fitting"]) > 1
    write_json(tmp_path / "hsg_hmc" / "table2_readings.json", rj)
    v = get("hsg_hmc.table2.printed_reading").evaluate(tmp_path)
    assert v.status == "inconclusive" and v.decide_by.kind == "separating test"


@pytest.mark.parametrize("floor,status", [(2e-3, "failed"), (1e-6, "held")])
def test_literal_w2_reading_fails_when_printed_cells_lie_below_the_floor(tmp_path, floor, status):
    (tmp_path / "hsg_hmc").mkdir()
    write_json(tmp_path / "hsg_hmc" / "table2_readings.json", _readings_json(w2sq_floor_1e5=floor))
    assert get("hsg_hmc.table2.literal_w2_reading").evaluate(tmp_path).status == status


def test_readings_smoke_run_writes_every_reading(tmp_path):
    s = Table2ReadingsSettings.at("smoke")
    run_table2_readings(s, tmp_path)
    from sgmcmc_verify.store.io import read_json
    d = read_json(tmp_path / "table2_readings.json")
    assert set(d["floors_at_paper_n"]) == set(READINGS)
    assert all(v["low"] > 0 for v in d["floors_at_paper_n"].values())


def test_figures_draw_from_smoke_results(tmp_path):
    from sgmcmc_verify.figures.hsg_hmc import _complexity_figure, _readings_figure

    res = tmp_path / "res"
    res.mkdir()
    run_complexity(ComplexitySettings.at("smoke"), res)
    run_table2_readings(Table2ReadingsSettings.at("smoke"), res)
    paths = _complexity_figure(res, tmp_path / "out") + _readings_figure(res, tmp_path / "out")
    assert all(p.exists() for p in paths) and {p.stem for p in paths} == {"complexity", "table2_readings"}
