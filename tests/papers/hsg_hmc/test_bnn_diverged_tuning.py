"""A diverged tuning run of HSG-HMC Fig. 3 (``hsg_hmc.bnn``) is stored, not crashed on.

The default-scale run of 2026-11-25 stopped with "Out of range float values are not JSON compliant: inf": a grid point
whose tuning run diverged scored ``inf`` and that ``inf`` went into ``bnn.json``. The grid point is now stored as
``final_test_nll: null, diverged: true`` and is never chosen.
"""
import json

import pytest

from sgmcmc_verify.paper_repro.hsg_hmc import bnn
from sgmcmc_verify.paper_repro.hsg_hmc.settings import BNNSettings


def _first_grid_point_diverges(monkeypatch, diverge=True):
    seen, original = set(), bnn._bnn_task

    def task(s, arch, method, cfg, chains, every, seed_seq, tuning):
        if diverge and tuning and (arch, method) not in seen:
            seen.add((arch, method))
            return None            # what _bnn_task returns for a diverged tuning run
        return original(s, arch, method, cfg, chains, every, seed_seq, tuning)

    monkeypatch.setattr(bnn, "_bnn_task", task)


@pytest.mark.parametrize("diverge", [True, False])
def test_a_diverged_tuning_run_is_stored_as_null_and_never_chosen(tmp_path, monkeypatch, diverge):
    _first_grid_point_diverges(monkeypatch, diverge)
    bnn.run_bnn(BNNSettings.at("smoke"), tmp_path)
    meta = json.loads((tmp_path / "bnn.json").read_text())     # strict JSON: no Infinity
    for key, c in meta["chosen"].items():
        flags = [g["diverged"] for g in c["grid"]]
        assert flags[0] is diverge and not any(flags[1:]), key
        nll = [g["final_test_nll"] for g in c["grid"]]
        assert (nll[0] is None) is diverge and all(v is not None for v in nll[1:]), key
        if diverge and c["chosen"] is not None:
            first = {k: v for k, v in c["grid"][0].items() if k not in ("final_test_nll", "diverged")}
            assert c["chosen"] != first, f"{key}: the diverged grid point was chosen"


def test_a_method_whose_whole_grid_diverged_leaves_its_reading_inconclusive_naming_the_grid(tmp_path, monkeypatch):
    """The default run of 2026-11-25: every HSG-HMC step of the LeNet grid diverged, so no final run; the claims
    naming HSG-HMC (all three) read that network as unmeasured, saying which grid to extend; before, the report
    stopped with "ordering: no measurement for ['HSG-HMC']"."""
    from sgmcmc_verify.ledger.claims import get
    from sgmcmc_verify.store.cache import run_experiment

    original = bnn._bnn_task

    def task(s, arch, method, cfg, chains, every, seed_seq, tuning):
        if tuning and arch == "lenet" and method == "HSG-HMC":
            return None
        return original(s, arch, method, cfg, chains, every, seed_seq, tuning)

    monkeypatch.setattr(bnn, "_bnn_task", task)
    run_experiment("hsg_hmc.bnn", "smoke", results_root=tmp_path, n_jobs=1)
    for cid in ("hsg_hmc.fig3.hsg_best", "hsg_hmc.fig3.underdamped_beat_overdamped", "hsg_hmc.fig3.vr_beat_non_vr"):
        v = get(cid).evaluate(tmp_path)
        assert v.measured["values"]["LeNet (the text)"] == "inconclusive", (cid, v)
        assert "a step-size grid for HSG-HMC extending below its smallest step" in v.decide_by.text, (cid, v)
