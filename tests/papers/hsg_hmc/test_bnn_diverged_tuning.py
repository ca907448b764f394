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
