"""sgmcmc-verify: subcommands, one-line errors, --debug, progress, and identical numbers across backends."""

import numpy as np
import pytest

from sgmcmc_verify.cli import main
from sgmcmc_verify.runner import run_realizations


def test_list_claims_and_experiments(capsys):
    assert main(["list", "claims"]) == 0
    assert "ewsg.thm4.3.term1" in capsys.readouterr().out
    assert main(["list", "experiments"]) == 0
    assert "ewsg.fig1def" in capsys.readouterr().out


@pytest.mark.parametrize("argv,needle", [
    (["check", "ewsg.no_such_claim"], "unknown claim id 'ewsg.no_such_claim'"),
    (["run", "nope.fig9"], "unknown experiment 'nope.fig9'"),
    (["run", "ewsg.fig1a", "--scale", "huge"], "unknown scale 'huge'"),
    (["--data", "a3a=/no/such/file", "list", "claims"], "data set path '/no/such/file' for 'a3a' does not exist"),
    (["--data", "a3a", "list", "claims"], "--data expects NAME=PATH"),
])
def test_errors_are_one_readable_line(capsys, argv, needle):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("sgmcmc-verify: error:") and needle in err[0]


def test_debug_shows_the_traceback():
    with pytest.raises(KeyError):
        main(["--debug", "check", "ewsg.no_such_claim"])


def test_check_one_claim_at_smoke_scale_and_reuse(tmp_path, capsys):
    argv = ["check", "ewsg.fig1b.recommended_x_best", "--scale", "smoke", "--results", str(tmp_path / "r")]
    assert main(argv) == 0
    cap = capsys.readouterr()
    assert cap.out.startswith("ewsg.fig1b.recommended_x_best: ") and "computed" in cap.err
    assert "realization" in cap.err  # the tqdm bar counts realizations
    assert main(argv + ["--no-progress"]) == 0
    assert "reused stored result" in capsys.readouterr().err
    assert not (tmp_path / "r" / "claims.json").exists()   # check writes no ledger


def test_check_a_paper_prints_every_claim_and_leaves_the_ledger_and_report_untouched(smoke_results, tmp_path, capsys):
    """``check <paper>`` prints one verdict per claim of the paper; the stored claims.json and report stay byte for
    byte as they were (it used to overwrite them with a one-claim ledger)."""
    from sgmcmc_verify.ledger.claims import all_claims

    ledger = smoke_results / "claims.json"
    before = ledger.read_bytes() if ledger.exists() else None
    assert main(["check", "ls_sgld", "--no-run", "--results", str(smoke_results)]) == 0
    out = capsys.readouterr().out
    ids = sorted(c.id for c in all_claims() if c.paper == "ls_sgld")
    printed = sorted(ln.split(":")[0] for ln in out.splitlines() if ln and not ln.startswith(" "))
    assert printed == ids and all(" against expected " in ln for ln in out.splitlines() if ln.startswith("ls_sgld."))
    assert (ledger.read_bytes() if ledger.exists() else None) == before
    assert not (tmp_path / "figures").exists()


def test_figures_from_stored_results(smoke_results, tmp_path):
    assert main(["figures", "ewsg", "--results", str(smoke_results), "--out", str(tmp_path)]) == 0
    drawn = {p.name for p in (tmp_path / "ewsg").glob("*.png")}
    expected = ({f"fig1{c}.png" for c in "abcdef"} | {"appE.png", "fig4.png", "fig5.png", "appD.png"}
                | {f"{n}.png" for n in ("thm41", "thm42", "thmH1", "split", "remark1", "fig1c_repeat")})
    assert expected <= drawn


def _block(n_chains, rng):
    from sgmcmc_verify import samplers as S
    from sgmcmc_verify.runner import run_chains
    from sgmcmc_verify.targets import gaussian_means_target
    t = gaussian_means_target()
    s = S.ewsg(t, 0.05, 10.0)
    out = run_chains(s, s.init(rng.standard_normal((n_chains, 2)), rng.standard_normal((n_chains, 2))), rng,
                     checkpoints=[1, 2], unit="passes", observe={"position": lambda st: st.position})
    return {"position": out["position"], "passes": out["passes"]}


def test_dask_backend_gives_bitwise_identical_numbers():
    distributed = pytest.importorskip("distributed")
    ref = run_realizations(_block, 300, seed=3, block_size=100)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        got = run_realizations(_block, 300, seed=3, block_size=100, n_jobs=2, backend="dask")
    np.testing.assert_array_equal(got["position"], ref["position"])


# The CLI run under every documented backend (loky, threading, multiprocessing, dask), byte-identical to the
# default: tests/verify/store/test_faults.py::test_every_documented_backend_gives_identical_bytes.


def test_run_all_starts_the_longest_experiments_and_reports_in_registry_order(tmp_path, monkeypatch):
    """#26 item 5: the previous run's wall times (this scale's manifests) order the run, the recorded cost table
    fills in (in the same unit), a broken manifest is ignored; the manifests come back in the order asked."""
    import json
    from types import SimpleNamespace

    from sgmcmc_verify import cli
    from sgmcmc_verify.store import cache
    (tmp_path / "p").mkdir()
    for i, w in (("p.short", 1.0), ("p.long", 50.0), ("ewsg.fig5", 10.0)):
        (tmp_path / "p" / f"{i}.manifest.json").write_text(json.dumps({"id": i, "scale": "smoke", "wall_time_s": w}))
    (tmp_path / "p" / "p.other.manifest.json").write_text(json.dumps({"id": "p.other", "scale": "default",
                                                                       "wall_time_s": 1e6}))
    (tmp_path / "p" / "broken.manifest.json").write_text("{not json")
    exps = [SimpleNamespace(id=i, settings=None) for i in
            ("p.short", "p.new", "vrsg.mlp", "p.long", "ewsg.fig5", "p.other")]
    order = [e.id for e in cli._longest_first(exps, tmp_path, "smoke")]
    # vrsg.mlp: recorded 428 s x (10 / 71, ewsg.fig5's smoke / recorded) = 60 s; p.other's default-scale wall ignored
    assert order == ["vrsg.mlp", "p.long", "ewsg.fig5", "p.short", "p.new", "p.other"]
    ran = []
    monkeypatch.setattr(cache, "run_experiment", lambda e, *a, **k: ran.append(e.id) or {"id": e.id})
    monkeypatch.setattr(cli, "_warn_unused_data", lambda *a: None)
    args = SimpleNamespace(results=tmp_path, scale="smoke", backend=None, scheduler=None, n_jobs=1, force=False,
                           no_progress=True)
    out = cli._run(exps, args, lambda *_: None)
    assert ran == order and [m["id"] for m in out] == [e.id for e in exps]
