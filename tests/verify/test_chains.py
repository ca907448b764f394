"""Chains out (#27 item 7): ``run --keep-chains`` stores the chains as ArviZ InferenceData (netCDF), the Python API
returns the same objects, keeping them changes no number, and the README's example opens one in ArviZ and plots it."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from sgmcmc_verify.cli import main

az = pytest.importorskip("arviz", reason="the 'chains' extra (arviz>=0.17,<1) is not installed: "
                                         "pip install 'sgmcmc-verify[chains]'")

README = Path(__file__).resolve().parents[2] / "README.md"


def _manifest(root, exp="ewsg.fig1b"):
    return json.loads((Path(root) / "ewsg" / f"{exp}.manifest.json").read_text())


def test_keep_chains_stores_inferencedata_and_changes_no_number(tmp_path, capsys):
    plain, kept = tmp_path / "plain", tmp_path / "kept"
    base = ["run", "ewsg.fig1b", "--scale", "smoke", "--no-progress"]
    assert main(base + ["--results", str(plain)]) == 0
    assert main(base + ["--results", str(kept), "--keep-chains"]) == 0
    out = capsys.readouterr().out
    assert "chains: 4 InferenceData files" in out
    mp, mk = _manifest(plain), _manifest(kept)
    assert mp["sha256"] == mk["sha256"] and mp["key"] == mk["key"]   # the same numbers, the same key
    listing = mk["chains"]
    assert len(listing) == 4 and "chains" not in mp
    from sgmcmc_verify.chains import load_chains
    from sgmcmc_verify.store.registry import get_experiment

    loaded = load_chains(kept, "ewsg.fig1b")
    R = get_experiment("ewsg.fig1b").settings.at("smoke").realizations
    for name, idata in loaded.items():
        th = idata.posterior["theta"]
        assert th.dims == ("chain", "draw", "theta_dim") and th.shape == (R, 1, 2)
        assert listing[name]["chains"] == R and np.all(np.isfinite(th.values))
        assert idata.posterior.attrs["sampler"] == "EWSG" and idata.posterior.attrs["scale"] == "smoke"
    # a stored result without chains is recomputed once to keep them (same numbers), then reused with them
    assert main(base + ["--results", str(plain), "--keep-chains"]) == 0
    assert "kept no chains; recomputing" in capsys.readouterr().err
    assert _manifest(plain)["sha256"] == mp["sha256"]
    assert main(base + ["--results", str(plain), "--keep-chains"]) == 0
    assert "reused" in capsys.readouterr().out


def test_kept_traces_end_at_the_final_state(tmp_path):
    """An experiment that keeps the last steps of each chain stores them as draws; the last draw is the final state
    (the runner's records, checked on run_chains directly)."""
    from sgmcmc_verify.chains import KEEPER
    from sgmcmc_verify.runner import keeping_chains, run_chains
    from sgmcmc_verify.samplers import sgld
    from sgmcmc_verify.targets import gaussian_means_target

    s = sgld(gaussian_means_target(), 1e-3)
    with keeping_chains() as recs:
        out = run_chains(s, s.init(np.zeros((3, 2))), np.random.default_rng(0), steps=20, keep_last=5)
    listing = KEEPER.write(recs, tmp_path, {"id": "demo", "scale": "smoke"})
    (name, info), = listing.items()
    th = az.from_netcdf(str(tmp_path / name)).posterior["theta"].values
    assert info["draws"] == 5 and th.shape == (3, 5, 2)
    assert np.array_equal(th[:, -1], out["state"].position) and np.array_equal(th, out["kept"])


def test_the_readme_example_opens_the_chains_in_arviz_and_plots_them(tmp_path, monkeypatch, capsys):
    text = README.read_text()
    block = re.search(r"<!-- chains-example -->\s*```python\n(.*?)```", text, re.S)
    assert block, "the README's chains example is gone"
    monkeypatch.chdir(tmp_path)
    exec(compile(block.group(1), "README.md (chains example)", "exec"), {})
    assert (tmp_path / "fig1b_chains.png").stat().st_size > 1000
    assert "theta" in capsys.readouterr().out
