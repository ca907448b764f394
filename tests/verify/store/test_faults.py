"""Fault injection (issue #14): every fault ends in a correct recovery or in one clear error, never in a silent wrong output.

Faults injected: truncated, garbled, emptied or deleted cache files; truncated, emptied (``{}``) or foreign
manifests; changed files under ``results/``; concurrent runs of one experiment (child processes); a run
killed with SIGKILL, and a figure killed while it is written; a LIBSVM train/test pair that disagrees on the
feature indexing, unknown labels, malformed files, a huge feature index, ``--data`` nobody reads; every
documented joblib backend; a deleted, emptied or truncated regression baseline; bad ``--n-jobs`` /
``--backend``, zero chains, a non-numeric ``noise_scale``, ``figures`` with partial or missing results.

A recovery must give outputs byte-identical to a clean run; an error must be one line naming the file
(or parameter) and, where one exists, the command that repairs it. Most cache faults use a tiny test-only
experiment (:mod:`support.faults`, never registered globally); the end-to-end ones use ``ewsg.fig1a`` and
``ewsg.fig1b`` at smoke scale, the cheapest real experiments. Child processes are bounded in number (4)
and time (``timeout``).
"""
import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import sgmcmc_verify.store.registry as vr
from support import DATA_DIR
from support.faults import TESTS_DIR, TINY, spawn
from sgmcmc_verify.cli import main
from sgmcmc_verify.store.cache import run_experiment

FIXTURE = DATA_DIR / "a3a_fixture.libsvm"
CHILD_TIMEOUT = 60


# ---- helpers ----------------------------------------------------------------------------------------

def _entry(root: Path, exp_id: str = "faultpaper.tiny") -> Path:
    """The one complete cache entry of ``exp_id`` under ``root``."""
    (d,) = [p for p in (root / ".cache" / exp_id).iterdir() if p.is_dir() and not p.name.startswith(".")]
    return d


def _temporaries(root: Path, exp_id: str = "faultpaper.tiny") -> list[str]:
    return sorted(p.name for p in (root / ".cache" / exp_id).iterdir() if p.name.startswith((".tmp-", ".old-")))


def _published(root: Path) -> dict:
    return {o: (root / "faultpaper" / o).read_bytes() for o in TINY.outputs}


def _finish(procs) -> list[tuple[int, str, str]]:
    out = []
    for p in procs:
        so, se = p.communicate(timeout=CHILD_TIMEOUT)
        out.append((p.returncode, so, se))
    return out


def _one_error_line(capsys) -> str:
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and err[0].startswith("sgmcmc-verify: error:"), err
    return err[0]


@pytest.fixture(scope="module")
def tiny_reference(tmp_path_factory) -> dict:
    """The bytes a clean run of the tiny experiment publishes."""
    root = tmp_path_factory.mktemp("tiny_reference")
    run_experiment(TINY, "smoke", results_root=root)
    return _published(root)


@pytest.fixture(scope="module")
def fig1a_run(tmp_path_factory) -> tuple[Path, bytes]:
    """``sgmcmc-verify run ewsg.fig1a --scale smoke`` into a module directory (tests copy it) and its CSV's bytes."""
    root = tmp_path_factory.mktemp("fig1a_run") / "r"
    assert main(["run", "ewsg.fig1a", "--scale", "smoke", "--results", str(root), "--no-progress"]) == 0
    return root, (root / "ewsg" / "fig1a.csv").read_bytes()


@pytest.fixture
def fig1a_copy(fig1a_run, tmp_path) -> tuple[Path, bytes]:
    root, ref = fig1a_run
    shutil.copytree(root, tmp_path / "r")
    return tmp_path / "r", ref


@pytest.fixture
def with_tiny_registered(monkeypatch):
    """``faultpaper.tiny`` in the registry for the duration of one test (the CLI looks experiments up by id)."""
    vr.load_all_experiments()
    monkeypatch.setitem(vr._EXPERIMENTS, TINY.id, TINY)


@pytest.fixture
def clean_data_env(monkeypatch):
    monkeypatch.setenv("SGMCMC_DATA", "{}")
    monkeypatch.setenv("SGMCMC_DATA_SEEN", "[]")
    monkeypatch.setenv("SGMCMC_DATA_SHA256", "{}")


# ---- 1. a corrupted cache entry is never reused --------------------------------------------------------

def _truncate(p: Path, keep: float = 0.5) -> None:
    b = p.read_bytes()
    p.write_bytes(b[: int(len(b) * keep)])


def _garble(p: Path) -> None:  # same length, one digit changed: only the digest can tell
    b = bytearray(p.read_bytes())
    i = next(i for i in range(len(b) - 1, 0, -1) if chr(b[i]).isdigit())
    b[i] = ord("7") if b[i] != ord("7") else ord("3")
    p.write_bytes(bytes(b))


def _edit_manifest(p: Path, fn) -> None:
    m = json.loads(p.read_text())
    fn(m)
    p.write_text(json.dumps(m))


CACHE_FAULTS = {
    "csv truncated mid-row": ("tiny.csv", lambda e: _truncate(e / "tiny.csv")),
    "csv cut at a line end": ("tiny.csv", lambda e: (e / "tiny.csv").write_text(
        "".join((e / "tiny.csv").read_text().splitlines(keepends=True)[:4]))),
    "csv garbled, same length": ("tiny.csv", lambda e: _garble(e / "tiny.csv")),
    "json emptied": ("tiny.json", lambda e: (e / "tiny.json").write_text("")),
    "output deleted": ("tiny.json", lambda e: (e / "tiny.json").unlink()),
    "manifest truncated": ("manifest.json", lambda e: _truncate(e / "manifest.json")),
    "manifest {}": ("manifest.json", lambda e: (e / "manifest.json").write_text("{}")),
    "manifest of another key": ("manifest.json", lambda e: _edit_manifest(
        e / "manifest.json", lambda m: m.update(key="0" * 20))),
    "manifest without digests": ("manifest.json", lambda e: _edit_manifest(
        e / "manifest.json", lambda m: m.pop("sha256"))),
    "manifest with a wrong digest": ("tiny.csv", lambda e: _edit_manifest(
        e / "manifest.json", lambda m: m["sha256"].update({"tiny.csv": "0" * 64}))),
}


@pytest.mark.parametrize("fault", list(CACHE_FAULTS))
def test_corrupt_cache_entry_is_recomputed_byte_identically(fault, tmp_path, tiny_reference):
    named, inject = CACHE_FAULTS[fault]
    run_experiment(TINY, "smoke", results_root=tmp_path)
    inject(_entry(tmp_path))
    log = []
    m = run_experiment(TINY, "smoke", results_root=tmp_path, log=log.append)
    assert m["cached"] is False, "a corrupt entry was reused"
    assert any("cannot be reused" in line and named in line for line in log), log
    assert _published(tmp_path) == tiny_reference
    assert run_experiment(TINY, "smoke", results_root=tmp_path)["cached"] is True  # the repaired entry verifies


def test_cli_truncated_cached_csv_is_recomputed_not_copied(fig1a_copy, capsys):
    """The issue's reproduction: truncate results/.cache/ewsg.fig1a/<key>/fig1a.csv and rerun."""
    root, ref = fig1a_copy
    _truncate(_entry(root, "ewsg.fig1a") / "fig1a.csv")
    capsys.readouterr()
    assert main(["run", "ewsg.fig1a", "--scale", "smoke", "--results", str(root), "--no-progress"]) == 0
    cap = capsys.readouterr()
    assert "computed" in cap.out and "fig1a.csv" in cap.err
    assert (root / "ewsg" / "fig1a.csv").read_bytes() == ref


def test_report_refuses_a_changed_results_file_and_run_repairs_it(fig1a_copy, capsys):
    root, ref = fig1a_copy
    argv = ["report", "ewsg.fig1a.ewsg_most_accurate", "--no-run", "--results", str(root), "--out", str(root / "o")]
    _truncate(root / "ewsg" / "fig1a.csv", 0.6)
    capsys.readouterr()
    assert main(argv) == 2
    line = _one_error_line(capsys)
    assert str(root / "ewsg" / "fig1a.csv") in line and "--force" in line
    assert main(["run", "ewsg.fig1a", "--scale", "smoke", "--results", str(root), "--no-progress"]) == 0
    assert (root / "ewsg" / "fig1a.csv").read_bytes() == ref  # restored from the verified cache entry
    assert main(argv) == 0


def test_figures_refuse_an_emptied_results_file(fig1a_copy, tmp_path, capsys):
    root, _ = fig1a_copy
    (root / "ewsg" / "fig1a.csv").write_text("")
    capsys.readouterr()
    assert main(["figures", "ewsg", "--results", str(root), "--out", str(tmp_path / "o")]) == 2
    assert str(root / "ewsg" / "fig1a.csv") in _one_error_line(capsys)
    assert not (tmp_path / "o" / "ewsg" / "fig1a.png").exists()


def test_figures_in_workers_refuse_an_emptied_results_file_naming_it(fig1a_copy, tmp_path, capsys):
    """The same refusal when the papers are drawn in joblib workers (``figures --n-jobs 2``, two paper folders):
    the worker's ``ResultFileError`` reaches the command line naming the file under ``--results``."""
    root, _ = fig1a_copy
    (root / "ewsg" / "fig1a.csv").write_text("")
    (root / "ls_sgld").mkdir()                       # a second paper folder: the papers go to workers
    capsys.readouterr()
    assert main(["figures", "--n-jobs", "2", "--results", str(root), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()   # the papers without results are said first, then the error
    assert err[-1].startswith("sgmcmc-verify: error:") and str(root / "ewsg" / "fig1a.csv") in err[-1]
    assert sum(ln.startswith("sgmcmc-verify: error:") for ln in err) == 1
    assert not (tmp_path / "o" / "ewsg" / "fig1a.png").exists()


def test_a_panel_refuses_a_file_without_rows_even_without_a_manifest(tmp_path):
    """An emptied fig1d.csv (header kept) drew an empty panel labelled "(held)"; without a manifest to check,
    the panel's own reading must refuse it, naming the file."""
    from sgmcmc_verify.figures.ewsg import draw_all
    from sgmcmc_verify.errors import ResultFileError

    res = tmp_path / "ewsg"
    res.mkdir()
    (res / "fig1d.csv").write_text("T,steps,step_size,mse,bias_sq,variance,continuous_limit_mse,realizations\n")
    (res / "rates.json").write_text("{}")
    with pytest.raises(ResultFileError, match="fig1d.csv: a header but no data rows"):
        draw_all(res, tmp_path / "o")


@pytest.mark.parametrize("paper,fname", [("ls_sgld", "table3.csv"), ("hsg_hmc", "blr.csv"), ("ewsg_iclr", "best_m.csv")])
def test_a_panel_missing_columns_names_its_file(paper, fname, tmp_path):
    """A results file that parses but lacks the columns its panel reads (no manifest to check it against)."""
    import importlib

    from sgmcmc_verify.errors import ResultFileError

    res = tmp_path / paper
    res.mkdir()
    (res / fname).write_text("a,b\n1,2\n")
    with pytest.raises(ResultFileError) as e:
        importlib.import_module(f"sgmcmc_verify.figures.{paper}").draw_all(res, tmp_path / "o")
    assert str(res / fname) in str(e.value)


def test_an_evaluator_missing_rows_names_the_claim_and_the_file(fig1a_copy, capsys):
    """A results file that parses but lacks rows a claim reads (its manifest's digest updated to match: a buggy run,
    not a damaged file) fails naming the claim and the file, not with a bare ``error: SGHMC``."""
    import hashlib

    root, _ = fig1a_copy
    csv = root / "ewsg" / "fig1a.csv"
    lines = csv.read_text().splitlines(keepends=True)
    header = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    csv.write_text("".join(lines[: header + 1] + [line for line in lines[header + 1:] if ",SGLD," in line]))
    _edit_manifest(root / "ewsg" / "ewsg.fig1a.manifest.json",
                   lambda m: m["sha256"].update({"fig1a.csv": hashlib.sha256(csv.read_bytes()).hexdigest()}))
    capsys.readouterr()
    argv = ["report", "ewsg.fig1a.ewsg_most_accurate", "--no-run", "--results", str(root), "--out", str(root / "o")]
    assert main(argv) == 2
    line = _one_error_line(capsys)
    assert "ewsg.fig1a.ewsg_most_accurate" in line and str(csv) in line


# ---- 2. a corrupted manifest is named, never copied ----------------------------------------------------

@pytest.mark.parametrize("garble", ["truncated", "{}"])
def test_report_names_a_corrupt_results_manifest(garble, fig1a_copy, capsys):
    root, _ = fig1a_copy
    mp = root / "ewsg" / "ewsg.fig1a.manifest.json"
    if garble == "truncated":
        _truncate(mp)
    else:
        mp.write_text("{}")
    capsys.readouterr()
    assert main(["report", "ewsg.fig1a.ewsg_most_accurate", "--no-run", "--results", str(root),
                 "--out", str(root / "o")]) == 2
    line = _one_error_line(capsys)
    assert str(mp) in line and "sgmcmc-verify run ewsg.fig1a" in line


def test_cli_never_publishes_an_unverified_manifest(fig1a_copy, capsys):
    root, ref = fig1a_copy
    (_entry(root, "ewsg.fig1a") / "manifest.json").write_text("{}")
    assert main(["run", "ewsg.fig1a", "--scale", "smoke", "--results", str(root), "--no-progress"]) == 0
    published = json.loads((root / "ewsg" / "ewsg.fig1a.manifest.json").read_text())
    assert published["id"] == "ewsg.fig1a" and set(published["sha256"]) == {"fig1a.csv"}
    assert (root / "ewsg" / "fig1a.csv").read_bytes() == ref


# ---- 3. concurrent runs: wait, then reuse; never crash ----------------------------------------------------

def test_concurrent_runs_compute_once_and_the_others_reuse(tmp_path, tiny_reference):
    procs = [spawn(tmp_path, fault="sleep=0.4") for _ in range(4)]
    results = _finish(procs)
    assert [rc for rc, _, _ in results] == [0] * 4, [se for _, _, se in results]
    cached = sorted(json.loads(so)["cached"] for _, so, _ in results)
    assert cached == [False, True, True, True], "every process recomputed: no lock"
    assert _published(tmp_path) == tiny_reference and _temporaries(tmp_path) == []


def test_concurrent_forced_runs_never_expose_a_missing_entry(tmp_path, tiny_reference):
    for _ in range(3):
        results = _finish([spawn(tmp_path, force=True, fault="sleep=0.05") for _ in range(4)])
        assert [rc for rc, _, _ in results] == [0] * 4, [se for _, _, se in results]
        assert (_entry(tmp_path) / "manifest.json").is_file()
    assert _published(tmp_path) == tiny_reference and _temporaries(tmp_path) == []


# ---- 4. SIGKILL: temporary directories and half-written figures -------------------------------------------

def test_a_killed_run_leaves_a_temporary_that_the_next_run_removes(tmp_path, tiny_reference):
    (rc, _, _), = _finish([spawn(tmp_path, fault="kill")])
    assert rc == -signal.SIGKILL
    assert [n for n in _temporaries(tmp_path) if n.startswith(".tmp-")], "the kill left no temporary directory"
    log = []
    m = run_experiment(TINY, "smoke", results_root=tmp_path, log=log.append)
    assert m["cached"] is False and _temporaries(tmp_path) == []
    assert any("removed .tmp-" in line for line in log)
    assert _published(tmp_path) == tiny_reference


def test_a_live_runs_temporary_is_left_alone(tmp_path):
    """Control: a run in progress (another key of the same experiment) keeps its directory and finishes."""
    gate = tmp_path / "gate"
    child = spawn(tmp_path / "r", scale="default", fault=f"wait={gate}")
    deadline = time.monotonic() + 30
    while not ((tmp_path / "r" / ".cache" / TINY.id).is_dir() and _temporaries(tmp_path / "r")):
        assert time.monotonic() < deadline and child.poll() is None, "the child never started its run"
        time.sleep(0.05)
    live = _temporaries(tmp_path / "r")
    run_experiment(TINY, "smoke", results_root=tmp_path / "r")
    assert child.poll() is None and set(live) <= set(_temporaries(tmp_path / "r"))
    gate.touch()
    (rc, so, se), = _finish([child])
    assert rc == 0 and json.loads(so)["cached"] is False, se
    assert _temporaries(tmp_path / "r") == []


def test_a_figure_killed_while_written_leaves_no_truncated_pdf(tmp_path):
    out = tmp_path / "o"
    code = (
        "import os, signal\n"
        "import matplotlib.figure as mf\n"
        "real = mf.Figure.savefig\n"
        "def savefig(self, fname, *a, **k):\n"
        "    if str(fname).endswith('.pdf') or k.get('format') == 'pdf':\n"
        "        open(fname, 'wb').close()\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    return real(self, fname, *a, **k)\n"
        "mf.Figure.savefig = savefig\n"
        "import matplotlib.pyplot as plt\n"
        "from sgmcmc_verify.figures._common import save_figure\n"
        "fig, ax = plt.subplots()\n"
        "ax.plot([0, 1])\n"
        f"save_figure(fig, {str(out)!r}, 'panel')\n")
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=CHILD_TIMEOUT,
                           cwd=TESTS_DIR.parent)
    assert child.returncode == -signal.SIGKILL, child.stderr
    assert not (out / "panel.pdf").exists(), "a truncated PDF under the figure's own name"
    import matplotlib.pyplot as plt

    from sgmcmc_verify.figures._common import save_figure

    fig, ax = plt.subplots()
    ax.plot([0, 1])
    save_figure(fig, out, "panel")
    assert (out / "panel.pdf").read_bytes().startswith(b"%PDF") and sorted(p.name for p in out.iterdir()) == [
        "panel.pdf", "panel.png"]


# ---- 5. data files: one indexing per pair, known labels, named files, bounded size, --data used -------------

def _libsvm(path: Path, lines) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_a_zero_index_in_one_file_of_a_libsvm_pair_is_refused(tmp_path, clean_data_env, capsys):
    """a9a's LIBSVM files are one-based: a training file with one 0 index would have every column shifted by one
    against its test file (``zero_based="auto"`` per file). The run must stop, naming the file."""
    lines = FIXTURE.read_text().splitlines()
    train = _libsvm(tmp_path / "train", [lines[0].replace(" 5:1", " 0:1")] + lines[1:])
    capsys.readouterr()
    assert main(["--data", f"a9a={train}", "--data", f"a9a.t={FIXTURE}", "run", "hsg_hmc.blr", "--scale", "smoke",
                 "--results", str(tmp_path / "r"), "--no-progress"]) == 2
    line = _one_error_line(capsys)
    assert str(train) in line and "index 0" in line


def test_a_pair_is_read_with_one_indexing(tmp_path):
    from sgmcmc_verify.targets.datasets import load_libsvm_pair

    lines = ["+1 0:1 3:2", "-1 1:1 2:1"]
    a, b = _libsvm(tmp_path / "toy", lines), _libsvm(tmp_path / "toy.t", lines)
    tr, te = load_libsvm_pair(a, b, name="toy")  # both zero-based: the same columns
    np.testing.assert_array_equal(tr.X, te.X)
    assert tr.X.shape == (2, 4) and tr.X[0, 0] == 1.0
    c = _libsvm(tmp_path / "toy1.t", ["+1 1:1 3:2", "-1 1:1 2:1"])  # no 0 index: one-based or not?
    with pytest.raises(ValueError, match="disagree on the feature indexing") as e:
        load_libsvm_pair(a, c, name="toy")
    assert str(a) in str(e.value) and str(c) in str(e.value)


def test_unknown_labels_are_refused_not_mapped(tmp_path):
    from sgmcmc_verify.targets.datasets import load_libsvm

    f = _libsvm(tmp_path / "five_seven", ["5 1:1", "7 2:1", "5 3:1"])
    with pytest.raises(ValueError, match="labels 5 and 7") as e:
        load_libsvm(f)
    assert str(f) in str(e.value)
    assert load_libsvm(_libsvm(tmp_path / "one_two", ["1 1:1", "2 2:1"])).y.tolist() == [0.0, 1.0]  # mushrooms' 1/2


def test_a_malformed_data_file_is_named(tmp_path):
    from sgmcmc_verify.targets.datasets import load_libsvm

    f = _libsvm(tmp_path / "garbage", ["abc def", "1 2:x"])
    with pytest.raises(ValueError) as e:
        load_libsvm(f)
    assert str(f) in str(e.value)


def test_a_huge_feature_index_is_refused_before_allocating(tmp_path):
    from sgmcmc_verify.targets.datasets import load_libsvm

    f = _libsvm(tmp_path / "huge", ["+1 1:1 2000000000:1", "-1 2:1"])  # a dense 2 x 2e9 float64 matrix: 32 GB
    with pytest.raises(ValueError, match="GiB") as e:
        load_libsvm(f)
    assert str(f) in str(e.value) and "2000000000" in str(e.value)


def test_data_that_no_selected_experiment_reads_is_reported(with_tiny_registered, clean_data_env, tmp_path, capsys):
    assert main(["--data", f"a3a={FIXTURE}", "run", TINY.id, "--scale", "smoke", "--results", str(tmp_path),
                 "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "warning: --data a3a" in err and TINY.id in err


# ---- 6. every documented backend runs and gives the same bytes ------------------------------------------------

@pytest.fixture(scope="module")
def fig1b_reference(tmp_path_factory) -> bytes:
    root = tmp_path_factory.mktemp("fig1b_reference")
    assert main(["run", "ewsg.fig1b", "--scale", "smoke", "--results", str(root), "--no-progress"]) == 0
    return (root / "ewsg" / "fig1b.csv").read_bytes()


@pytest.mark.parametrize("backend", ["loky", "threading", "multiprocessing", "dask"])
def test_every_documented_backend_gives_identical_bytes(backend, fig1b_reference, tmp_path):
    if backend == "dask":
        pytest.importorskip("distributed")
    assert main(["run", "ewsg.fig1b", "--scale", "smoke", "--results", str(tmp_path), "--backend", backend,
                 "--n-jobs", "2", "--no-progress"]) == 0
    assert (tmp_path / "ewsg" / "fig1b.csv").read_bytes() == fig1b_reference


def test_the_documented_backends_are_the_accepted_ones(capsys):
    from sgmcmc_verify.cli import BACKENDS
    from sgmcmc_verify.store.cache import BACKENDS as STORE_BACKENDS

    with pytest.raises(SystemExit):
        main(["run", "--help"])
    helptext = capsys.readouterr().out
    readme = (TESTS_DIR.parent / "README.md").read_text()
    assert BACKENDS == STORE_BACKENDS
    for b in BACKENDS:
        assert f"`{b}`" in readme and b in helptext


# ---- 7. the regression check cannot be switched off by deleting or emptying a baseline ---------------------

@pytest.fixture
def baselines(tmp_path, monkeypatch):
    """A copy of the committed baselines to damage; the smoke rerun is replaced by the committed numbers."""
    from sgmcmc_verify.ledger import baseline

    d = tmp_path / "baselines"
    shutil.copytree(baseline.BASELINE_DIR, d)
    committed = {f.stem: json.loads(f.read_text())["claims"] for f in baseline.BASELINE_DIR.glob("*.json")}
    monkeypatch.setattr(baseline, "BASELINE_DIR", d)
    monkeypatch.setattr(baseline, "_run_smoke", lambda *a, **k: None)
    monkeypatch.setattr(baseline, "collect", lambda root: committed)
    return d


def test_baseline_check_passes_on_the_intact_copy(baselines, capsys):
    """Control for the three tests below."""
    assert main(["baseline", "--check"]) == 0


def test_a_deleted_baseline_file_fails_the_check(baselines, capsys):
    (baselines / "ewsg.json").unlink()
    assert main(["baseline", "--check"]) == 1
    err = capsys.readouterr().err
    assert "paper ewsg" in err and "ewsg.thm4.3.term1" in err


def test_an_emptied_baseline_fails_the_check_naming_its_claims(baselines, capsys):
    (baselines / "hsg_hmc.json").write_text(json.dumps({"claims": {}}))
    assert main(["baseline", "--check"]) == 1
    err = capsys.readouterr().err
    assert "claim hsg_hmc.table2.vr_methods_best: no baseline metrics" in err


def test_a_truncated_baseline_file_fails_the_check_naming_it(baselines, capsys):
    _truncate(baselines / "vrsg.json")
    assert main(["baseline", "--check"]) == 1
    assert str(baselines / "vrsg.json") in capsys.readouterr().err


# ---- 8. smaller: arguments, zero chains, noise_scale, partial and missing results ----------------------------

@pytest.mark.parametrize("argv,needle", [
    (["--n-jobs", "-3"], "--n-jobs must be a positive integer or -1"),
    (["--n-jobs", "0"], "--n-jobs must be a positive integer or -1"),
    (["--backend", "nosuch"], "unknown backend 'nosuch'"),
])
def test_bad_parallel_arguments_are_refused_before_running(argv, needle, with_tiny_registered, tmp_path, capsys):
    assert main(["run", TINY.id, "--scale", "smoke", "--results", str(tmp_path), "--no-progress"] + argv) == 2
    assert needle in _one_error_line(capsys)
    assert not (tmp_path / "faultpaper").exists()


def test_run_experiment_refuses_zero_jobs_and_an_unknown_backend(tmp_path):
    with pytest.raises(ValueError, match="n_jobs must be an integer >= 1, got 0"):
        run_experiment(TINY, "smoke", results_root=tmp_path, n_jobs=0)
    with pytest.raises(ValueError, match="backend must be one of"):
        run_experiment(TINY, "smoke", results_root=tmp_path, backend="nosuch")


def test_n_jobs_minus_one_means_every_core(with_tiny_registered, tmp_path):
    import joblib

    assert main(["run", TINY.id, "--scale", "smoke", "--results", str(tmp_path), "--n-jobs", "-1",
                 "--no-progress"]) == 0
    m = json.loads((tmp_path / "faultpaper" / f"{TINY.id}.manifest.json").read_text())
    assert m["n_jobs"] == joblib.cpu_count()


def test_ewsg_with_zero_chains_is_a_value_error(target):
    from sgmcmc_verify import samplers

    s = samplers.build("EWSG", target, 0.05, friction=10.0)
    with pytest.raises(ValueError, match="position must hold at least one chain"):
        s.step(s.init(np.zeros((0, 2))), np.random.default_rng(0))


def test_a_non_numeric_noise_scale_is_a_value_error(target):
    from sgmcmc_verify import samplers

    with pytest.raises(ValueError, match="noise_scale must be a finite number >= 0, got 'a'"):
        samplers.build("SGHMC", target, 0.05, friction=10.0, noise_scale="a")


def test_figures_draw_what_is_there_and_say_what_is_missing(fig1a_copy, tmp_path, capsys):
    """The README's own example: ``run ewsg.fig1a`` then ``figures ewsg``."""
    root, _ = fig1a_copy
    capsys.readouterr()
    assert main(["figures", "ewsg", "--results", str(root), "--out", str(tmp_path / "o")]) == 0
    assert sorted(p.name for p in (tmp_path / "o" / "ewsg").glob("*.png")) == ["fig1a.png"]
    err = capsys.readouterr().err
    assert "no results for" in err and "ewsg.fig1def" in err


def test_figures_on_a_missing_results_directory_is_an_error(tmp_path, capsys):
    assert main(["figures", "--results", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o")]) == 2
    assert "no results directory" in _one_error_line(capsys)


# ---- a partial ledger: --available evaluates what is stored, names what is not ---------------------------

def test_report_available_evaluates_the_stored_claims_and_lists_the_rest(fig1a_copy, capsys):
    from sgmcmc_verify.ledger.claims import all_claims

    root, _ = fig1a_copy
    stored = {c.id for c in all_claims() if c.paper == "ewsg" and set(c.experiments) <= {"ewsg.fig1a"}}
    others = {c.id for c in all_claims() if c.paper == "ewsg"} - stored
    assert stored and others
    base = ["report", "ewsg", "--no-run", "--results", str(root), "--out", str(root / "o")]
    capsys.readouterr()
    assert main(base) == 2                                   # the full ledger stops at the first missing result
    assert "no stored result" in _one_error_line(capsys)
    assert main(base + ["--available"]) == 0
    err = capsys.readouterr().err
    assert f"{len(others)} of {len(stored) + len(others)} claims left out" in err
    recs = json.loads((root / "claims.json").read_text())
    recs = recs["claims"] if isinstance(recs, dict) else recs
    assert {r["id"] for r in recs} == stored
    assert main(["report", "ewsg", "--available", "--results", str(root), "--out", str(root / "o")]) == 2
    assert "--no-run" in _one_error_line(capsys)
    (root / "ewsg" / "ewsg.fig1a.manifest.json").write_text("{}")   # a corrupt result is never skipped
    assert main(base + ["--available"]) == 2
    assert "ewsg.fig1a.manifest.json" in _one_error_line(capsys)


# ---- 9. issue #28: bounded loading; every loader error one line naming the file --------------------------

def test_a_multi_gb_sparse_file_is_refused_from_its_size(tmp_path, monkeypatch):
    """A 2 GiB sparse file (no disk used) was read until the machine killed the process (23.5 GB)."""
    from sgmcmc_verify.targets.datasets import load_libsvm

    big = tmp_path / "sparse.libsvm"
    with open(big, "wb") as fh:
        fh.truncate(2 * 2**30)
    monkeypatch.delenv("SGMCMC_MAX_FILE_BYTES", raising=False)
    with pytest.raises(ValueError, match="more than the limit of 1 GiB") as e:
        load_libsvm(big)
    assert str(big) in str(e.value) and "SGMCMC_MAX_FILE_BYTES" in str(e.value)


def test_a_gzip_bomb_is_refused_while_streaming(tmp_path, monkeypatch):
    """A small gzip file expanding to many rows is refused at the row limit, not parsed (here scaled down: the limit
    is lowered to 10^4 rows by the documented variable, the file holds 10^6)."""
    import gzip

    from sgmcmc_verify.targets.datasets import load_libsvm

    f = tmp_path / "bomb.gz"
    f.write_bytes(gzip.compress(b"+1 1:1 2:1\n-1 2:1\n" * 500_000, compresslevel=9))
    monkeypatch.setenv("SGMCMC_MAX_ROWS", "10000")
    with pytest.raises(ValueError, match="more than 10,000 rows") as e:
        load_libsvm(f)
    assert str(f) in str(e.value)
    monkeypatch.setenv("SGMCMC_MAX_ROWS", "2000000")   # control: under a higher limit the same file loads
    monkeypatch.setenv("SGMCMC_MAX_DECOMPRESSED_BYTES", "1000000")
    with pytest.raises(ValueError, match="expands to more than"):
        load_libsvm(f)
    monkeypatch.delenv("SGMCMC_MAX_DECOMPRESSED_BYTES")
    assert load_libsvm(f).X.shape == (1_000_000, 2)


def test_a_finite_value_that_overflows_standardization_is_refused(tmp_path):
    """1e308 made its whole column zeros after standardization."""
    from sgmcmc_verify.targets.datasets import load_libsvm, standardize

    f = _libsvm(tmp_path / "huge_values", ["+1 1:1e308 2:1", "-1 1:-1e308 2:3", "+1 1:1e308 2:2"])
    with pytest.raises(ValueError, match="column 0 .* overflows in standardization") as e:
        standardize(load_libsvm(f))
    assert str(f) in str(e.value)
    ok = _libsvm(tmp_path / "fine", ["+1 1:1e150 2:1", "-1 1:-1e150 2:3", "+1 1:1e150 2:2"])   # control
    assert np.all(np.isfinite(standardize(load_libsvm(ok))[0].X))


def test_a_fifo_given_as_data_is_refused_not_waited_on(tmp_path):
    import os

    from sgmcmc_verify.targets.datasets import load_libsvm, load_parkinsons, read_idx

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for load in (load_libsvm, load_parkinsons, read_idx):
        with pytest.raises(ValueError, match="is a FIFO, not a regular file") as e:
            load(fifo)
        assert str(fifo) in str(e.value)


def _loader_error(load, path) -> str:
    with pytest.raises(ValueError) as e:
        load(path)
    msg = str(e.value)
    assert str(path) in msg and "\n" not in msg and len(msg) < 400, msg
    return msg


def test_loader_errors_name_the_file_on_one_line(tmp_path):
    """Decompression errors and BOM errors did not name the file; a binary file gave a 4 MB 'one-line' error."""
    import gzip
    import os

    from sgmcmc_verify.targets.datasets import load_libsvm, load_parkinsons, read_idx

    cut = tmp_path / "cut.gz"
    whole = gzip.compress(FIXTURE.read_bytes())
    cut.write_bytes(whole[: len(whole) // 2])
    assert "truncated gzip" in _loader_error(load_libsvm, cut)
    assert "truncated gzip" in _loader_error(read_idx, cut)
    garbled = tmp_path / "garbled.gz"
    garbled.write_bytes(b"\x1f\x8b" + bytes(range(7, 255)) * 4)
    assert "not a readable gzip file" in _loader_error(load_libsvm, garbled)
    utf16 = tmp_path / "utf16"
    utf16.write_bytes("+1 1:1\n-1 2:1\n".encode("utf-16"))
    assert "UTF-16" in _loader_error(load_libsvm, utf16)
    binary = tmp_path / "binary"
    binary.write_bytes(os.urandom(1 << 22))
    _loader_error(load_libsvm, binary)
    _loader_error(load_parkinsons, binary)
    noise = tmp_path / "noise"
    noise.write_bytes(bytes(b % 254 + 1 for b in os.urandom(1 << 20)))   # no NUL byte: the parser's own error, cut
    _loader_error(load_libsvm, noise)
    bom = _libsvm(tmp_path / "bom", ["+1 1:1", "-1 2:1"])
    bom.write_bytes(b"\xef\xbb\xbf" + bom.read_bytes())   # control: a UTF-8 byte-order mark is read through
    assert load_libsvm(bom).X.tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_an_inherited_sgmcmc_data_is_announced(monkeypatch, capsys):
    """An inherited SGMCMC_DATA silently replaced the built-in data set."""
    from sgmcmc_verify.targets import datasets

    monkeypatch.setenv("SGMCMC_DATA", json.dumps({"pima": str(FIXTURE)}))
    monkeypatch.setattr(datasets, "_ANNOUNCED", set(), raising=False)
    monkeypatch.delenv("SGMCMC_DATA_SEEN", raising=False)
    ds = datasets.load("pima")
    assert ds.source == f"LIBSVM file {FIXTURE}"
    assert f"data set 'pima' is read from {FIXTURE} (inherited" in capsys.readouterr().err
    datasets.load("pima")
    assert capsys.readouterr().err == ""   # once
    monkeypatch.setenv("SGMCMC_DATA", "{}")   # control: given with --data (set_data_path), nothing is announced
    datasets.set_data_path("a3a", FIXTURE)
    datasets.load("a3a")
    assert capsys.readouterr().err == ""


def test_a_data_file_changed_between_hashing_and_loading_is_refused(tmp_path, monkeypatch):
    """The file was hashed for the cache key, then changed before it was loaded: its results must not be stored
    under the original file's hash."""
    from sgmcmc_verify.targets import datasets

    f = _libsvm(tmp_path / "a9a", FIXTURE.read_text().splitlines())
    monkeypatch.setenv("SGMCMC_DATA", json.dumps({"a9a": str(f)}))
    monkeypatch.delenv("SGMCMC_DATA_SHA256", raising=False)
    ident = datasets.data_identity("a9a")
    assert datasets.load("a9a").X.shape[0] > 0       # control: unchanged, it loads
    f.write_text(f.read_text().replace("+1", "-1", 1))
    with pytest.raises(ValueError, match="changed since it was hashed") as e:
        datasets.load("a9a")
    assert str(f) in str(e.value) and ident["sha256"][:12] in str(e.value)


# ---- 10. issue #28: a stored result is exactly what its manifest says ------------------------------------

REPORT_ARGV = ["report", "ewsg.fig1a.ewsg_most_accurate", "--no-run"]


def _report(root, *extra) -> int:
    return main(REPORT_ARGV + ["--results", str(root), "--out", str(root / "o"), *extra])


@pytest.mark.parametrize("edit,needle", [
    (lambda m: m["settings"].update(realizations=m["settings"]["realizations"] * 2), "not the key"),
    (lambda m: m.update(scale="paper"), "not the 'paper' settings"),
    (lambda m: m.pop("sha256"), "no SHA-256 of the outputs"),
    (lambda m: m.pop("code_fingerprint"), "no code_fingerprint"),
])
def test_an_edited_manifest_is_refused(edit, needle, fig1a_copy, capsys):
    """Settings or scale edited with the digests unchanged (smoke numbers reported as paper scale), and results
    written without digests, were accepted."""
    root, _ = fig1a_copy
    mp = root / "ewsg" / "ewsg.fig1a.manifest.json"
    _edit_manifest(mp, edit)
    capsys.readouterr()
    assert _report(root) == 2
    line = _one_error_line(capsys)
    assert str(mp) in line and needle in line and "sgmcmc-verify run ewsg.fig1a" in line, line
    assert main(["run", "ewsg.fig1a", "--scale", "smoke", "--results", str(root), "--no-progress"]) == 0  # the repair
    assert _report(root) == 0


def test_an_edited_cache_manifest_is_recomputed(tmp_path, tiny_reference):
    run_experiment(TINY, "smoke", results_root=tmp_path)
    _edit_manifest(_entry(tmp_path) / "manifest.json", lambda m: m["settings"].update(rows=40))
    log = []
    assert run_experiment(TINY, "smoke", results_root=tmp_path, log=log.append)["cached"] is False
    assert any("not the key" in line for line in log), log
    assert _published(tmp_path) == tiny_reference


def test_figures_never_draw_a_csv_whose_manifest_is_missing(fig1a_copy, tmp_path, capsys):
    """A full disk during publish leaves the CSV without its manifest: it was drawn while the log said it was not."""
    root, _ = fig1a_copy
    (root / "ewsg" / "ewsg.fig1a.manifest.json").unlink()
    assert main(["figures", "--results", str(root), "--out", str(tmp_path / "o")]) == 0
    assert not (tmp_path / "o" / "ewsg" / "fig1a.png").exists()
    err = capsys.readouterr().err
    assert "ewsg: no results for" in err and "ewsg.fig1a" in err


def _other_runs_numbers(csv: Path) -> None:
    """Rewrite ``fig1a.csv`` as another run would have it: SGLD's KL a thousand times smaller."""
    lines = csv.read_text().splitlines(keepends=True)
    h = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    cols = lines[h].strip().split(",")
    k, lab = cols.index("kl"), cols.index("label")
    for i in range(h + 1, len(lines)):
        f = lines[i].rstrip("\r\n").split(",")
        if f[lab] == "SGLD":
            f[k] = repr(float(f[k]) / 1000)
            lines[i] = ",".join(f) + "\r\n"
    csv.write_text("".join(lines))


def test_report_pairs_a_manifest_only_with_the_numbers_it_verified(fig1a_copy):
    """A run publishing into the directory while ``report`` reads it could pair one run's label with another run's
    numbers: here the CSV is replaced after the verification, just before the claim reads it."""
    import dataclasses

    from sgmcmc_verify.ledger.claims import get
    from sgmcmc_verify.ledger.report import _jsonable, evaluate

    root, _ = fig1a_copy
    claim = get("ewsg.fig1a.ewsg_most_accurate")
    clean = evaluate([claim], root)[0]

    def publish_meanwhile(d):
        _other_runs_numbers(root / "ewsg" / "fig1a.csv")
        return claim.evaluate(d)

    raced = evaluate([dataclasses.replace(claim, evaluate=publish_meanwhile)], root)[0]
    assert raced["measured"] == clean["measured"] and raced["status"] == clean["status"]
    assert _jsonable(claim.evaluate(root).measured) != clean["measured"]   # control: those numbers change the result


def test_a_claim_reading_a_file_it_does_not_declare_fails_naming_it(fig1a_copy):
    """Negative control of the read spy below: a claim declaring ewsg.fig1a but reading fig1b.csv."""
    import dataclasses

    from sgmcmc_verify.ledger.claims import get
    from sgmcmc_verify.ledger.report import ClaimEvaluationError, evaluate
    from sgmcmc_verify.store.io import read_csv

    root, _ = fig1a_copy
    shutil.copy(root / "ewsg" / "fig1a.csv", root / "ewsg" / "fig1b.csv")
    claim = dataclasses.replace(get("ewsg.fig1a.ewsg_most_accurate"),
                                evaluate=lambda d: read_csv(Path(d) / "ewsg" / "fig1b.csv") and get(
                                    "ewsg.fig1a.ewsg_most_accurate").evaluate(d))
    with pytest.raises(ClaimEvaluationError, match="declare the experiment") as e:
        evaluate([claim], root)
    assert str(root / "ewsg" / "fig1b.csv") in str(e.value)


def test_every_claim_reads_only_files_its_declared_experiments_write(smoke_results):
    """A spy on every file opened while each claim of the smoke ledger is evaluated straight from the results
    directory: under it, a claim may open only its declared experiments' outputs and manifests (two claims read
    ewsg/split.json without declaring ewsg.bias_split)."""
    import os
    import sys

    from sgmcmc_verify.ledger.claims import all_claims
    from sgmcmc_verify.store.cache import check_manifest

    root = str(Path(smoke_results).resolve())
    opened, spying = [], [False]

    def hook(event, args):
        if spying[0] and event == "open" and isinstance(args[0], (str, bytes, Path)):
            p = os.fsdecode(args[0])
            if os.path.abspath(p).startswith(root + os.sep):
                opened.append(os.path.abspath(p))

    sys.addaudithook(hook)   # audit hooks cannot be removed: this one records only while ``spying``
    undeclared = {}
    for c in all_claims():
        if not c.experiments:
            continue
        allowed = set()
        for e in c.experiments:
            paper = e.split(".", 1)[0]
            mp = Path(root) / paper / f"{e}.manifest.json"
            allowed |= {str(mp)} | {str(Path(root) / paper / o) for o in check_manifest(mp, e)["outputs"]}
        opened.clear()
        spying[0] = True
        try:
            c.evaluate(Path(smoke_results))
        finally:
            spying[0] = False
        extra = sorted(set(opened) - allowed)
        if extra:
            undeclared[c.id] = [os.path.relpath(p, root) for p in extra]
    assert undeclared == {}


def test_a_fifo_in_place_of_a_manifest_is_refused_not_waited_on(fig1a_copy, tmp_path):
    """A FIFO where a manifest should be hung ``report`` and ``figures`` (a child process, bounded in time)."""
    import os

    root, _ = fig1a_copy
    mp = root / "ewsg" / "ewsg.fig1a.manifest.json"
    mp.unlink()
    os.mkfifo(mp)
    for argv in (REPORT_ARGV + ["--results", str(root), "--out", str(tmp_path / "o")],
                 ["figures", "ewsg", "--results", str(root), "--out", str(tmp_path / "o")]):
        try:
            child = subprocess.run([sys.executable, "-c", "import sys; from sgmcmc_verify.cli import main; "
                                    "sys.exit(main(sys.argv[1:]))", *argv], capture_output=True, text=True,
                                   timeout=CHILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{argv[0]} hung on a FIFO in place of {mp}")
        err = [line for line in child.stderr.splitlines() if line.strip()]
        assert child.returncode == 2 and len(err) == 1 and str(mp) in err[0] and "FIFO" in err[0], child.stderr


def _report_outputs(root: Path) -> dict:
    out = root / "o"
    files = [root / "claims.json", out / "REPORT.md", out / "REPORT.html", *sorted((out / "report").rglob("*"))]
    return {str(f.relative_to(root)): f.read_bytes() for f in files if f.is_file()}


def test_a_report_stopped_while_writing_leaves_the_previous_one_whole(fig1a_copy, monkeypatch, capsys):
    """A kill or a full disk during ``report`` left claims.json, REPORT.md and the site disagreeing."""
    import errno

    from sgmcmc_verify.ledger import report, site

    root, _ = fig1a_copy
    assert _report(root) == 0
    before = _report_outputs(root)
    assert "claims.json" in before and "o/REPORT.md" in before and "o/report/ewsg.html" in before

    def full_disk(records, meta, out_dir="figures/out", dest=None, **kw):
        site.write_text(Path(dest or out_dir) / "report" / "ewsg.html", "<html>half</html>")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(report, "write_site", full_disk)
    time.sleep(1.1)   # a second later: a rewritten claims.json would differ in its time stamp
    assert _report(root) == 2
    assert _report_outputs(root) == before
    monkeypatch.undo()
    assert _report(root) == 0                                   # the next report replaces all of them
    after = _report_outputs(root)
    rid = json.loads(after["claims.json"])["meta"]["report_id"]
    assert rid in after["o/REPORT.md"].decode() and after["claims.json"] != before["claims.json"]
    assert not list((root / "o").glob(".report-*"))


def test_a_report_killed_during_the_renames_is_completed_by_the_next(fig1a_copy, monkeypatch):
    from sgmcmc_verify.ledger import report

    root, _ = fig1a_copy
    assert _report(root) == 0
    real = report.recover_report
    monkeypatch.setattr(report, "recover_report", lambda out: False)   # killed after the journal, before renaming
    assert _report(root) == 0
    staged = json.loads((root / "o" / ".report-commit.json").read_text())
    assert (root / "o" / staged["stage"] / "claims.json").is_file()
    assert real(root / "o") is True
    after = _report_outputs(root)
    rid = json.loads(after["claims.json"])["meta"]["report_id"]
    assert rid == staged["report_id"] and rid in after["o/REPORT.md"].decode()


# ---- 11. issue #28: a safe report site ---------------------------------------------------------------------

def _record(**kw) -> dict:
    r = {"id": "p.c1", "paper": "p", "source": "s.txt, Thm 1", "statement": "a statement", "expected": "e",
         "tolerance": "t", "status": "held", "label": "held", "detail": "d", "line": "measured d against expected e",
         "measured": {}, "figure": None, "experiments": ["p.e"], "scale": ["smoke"], "seed": {"p.e": 0}}
    r.update(kw)
    return r


_META = {"generated": "t", "git": {"commit": "abc", "dirty": False}, "counts": {}, "counts_by": None}


def _hrefs(html: str) -> list[str]:
    import re

    return re.findall(r'(?:href|src)="([^"]*)"', html)


def test_an_audit_named_javascript_links_relatively(tmp_path):
    from urllib.parse import urlparse

    from sgmcmc_verify.ledger.site import write_site

    out = tmp_path / "o"
    a = out / "audit" / "javascript:alert(1)"
    a.mkdir(parents=True)
    (a / "index.html").write_text("<title>x</title>")
    pages = write_site([_record()], _META, out)
    for page in pages:
        for h in _hrefs(page.read_text()):
            u = urlparse(h)
            assert not u.scheme and not u.netloc and not h.startswith("/"), (page.name, h)
    assert "audit/javascript%3Aalert%281%29/index.html" in pages[0].read_text()


def test_the_audit_index_links_a_javascript_name_relatively(tmp_path):
    from urllib.parse import urlparse

    from sgmcmc_verify.figures.audit import _INDEX, _env

    html = _env().from_string(_INDEX).render(samplers=[{"name": "javascript:alert(1)", "scale": "smoke",
                                                        "passed": "1/1", "flagged": [], "other": ""}])
    hrefs = [h for h in _hrefs(html) if "alert" in h]
    assert hrefs and all(not urlparse(h).scheme for h in hrefs), hrefs


def test_a_crafted_claims_json_cannot_write_outside_the_report_directory(tmp_path):
    from sgmcmc_verify.ledger.site import render_site_from_json

    out = tmp_path / "site" / "o"
    cj = tmp_path / "claims.json"
    cj.write_text(json.dumps({"meta": _META, "claims": [_record(paper="../../../escaped")]}))
    pages = render_site_from_json(cj, out)
    written = {p for p in tmp_path.rglob("*") if p.is_file()} - {cj}
    assert all(out in p.parents for p in written), sorted(map(str, written))
    assert all(out in p.resolve().parents for p in pages)
    cj.write_text(json.dumps({"meta": _META, "claims": [_record(figure="../../../outside.png")]}))
    (tmp_path / "outside.png").write_bytes(b"")
    with pytest.raises(ValueError, match="outside.png"):
        render_site_from_json(cj, out)


def test_markdown_output_escapes_user_strings():
    from sgmcmc_verify.ledger.claims import STATUSES
    from sgmcmc_verify.ledger.report import report_markdown

    evil = "[click](javascript:alert(1)) <img src=x onerror=alert(1)> | cell"
    md = report_markdown([_record(statement=evil, line=evil, id="p.c1<script>", figure="p/f](javascript:x).png")],
                         dict(_META, counts_by={g: {s: 0 for s in STATUSES} for g in ("paper", "substitute data", "our design", "toolkit")}))
    import re

    assert "<img" not in md and "<script>" not in md and not re.search(r"(?<!\\)\]\(javascript:", md)
    assert "\\[click\\](javascript:alert(1)) &lt;img src=x onerror=alert(1)&gt; \\| cell" in md


def _png(path: Path, color, size=(64, 48)) -> None:
    from PIL import Image

    Image.new("RGB", size, color).save(path)


def test_thumbnails_follow_the_figures_bytes_not_their_times_and_are_0644(tmp_path):
    """A figure replaced by a copy that keeps an older time (``cp -p``, ``rsync -a``, clock skew) kept its stale
    thumbnail, written with mode 0600."""
    import os
    import re

    from PIL import Image

    from sgmcmc_verify.ledger.site import write_site

    out = tmp_path / "o"
    (out / "p").mkdir(parents=True)
    fig = out / "p" / "f.png"
    _png(fig, (255, 0, 0))
    rec = _record(figure="p/f.png")
    write_site([rec], _META, out)
    old = fig.stat().st_mtime - 3600
    _png(fig, (0, 0, 255))
    os.utime(fig, (old, old))
    page = write_site([rec], _META, out)[1].read_text()
    (thumb,) = re.findall(r'src="(thumbs/[^"]+)"', page)
    with Image.open(out / "report" / thumb) as im:
        assert im.convert("RGB").getpixel((1, 1)) == (0, 0, 255)
    mask = os.umask(0o022)
    os.umask(mask)
    assert (out / "report" / thumb).stat().st_mode & 0o777 == 0o666 & ~mask


# ---- 12. issue #28: --n-jobs capped at the number of tasks; options without effect warn ---------------------

@pytest.mark.parametrize("n_jobs", [8, -1])
def test_n_jobs_is_capped_at_the_number_of_tasks(n_jobs, monkeypatch):
    from sgmcmc_verify import runner

    seen = []
    real = runner.parallel_config

    def spy(**kw):
        seen.append(kw.get("n_jobs"))
        return real(**kw)

    monkeypatch.setattr(runner, "parallel_config", spy)
    out = runner.run_tasks(abs, [(-1,), (-2,)], n_jobs=n_jobs, backend="threading")
    assert list(out) == [1, 2] and seen == [2]


@pytest.mark.parametrize("argv,needle", [
    (REPORT_ARGV + ["--scale", "paper"], "--scale paper has no effect with --no-run"),
    (["run", "ewsg.fig1a", "--scale", "smoke", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler tcp://127.0.0.1:1 has "
                                                                                    "no effect without --backend dask"),
])
def test_options_without_effect_warn(argv, needle, fig1a_copy, capsys):
    root, _ = fig1a_copy
    capsys.readouterr()
    assert main(argv + ["--results", str(root), "--no-progress"] + (["--out", str(root / "o")] if argv[0] == "report"
                                                                      else [])) == 0
    assert needle in capsys.readouterr().err


def test_a_run_with_a_changed_setting_is_not_taken_for_an_edited_manifest(fig1a_copy, capsys):
    """Control for the scale check: ``run --set`` records its changes (``overrides``), which the check allows."""
    root, _ = fig1a_copy
    n = json.loads((root / "ewsg" / "ewsg.fig1a.manifest.json").read_text())["settings"]["realizations"]
    assert main(["run", "ewsg.fig1a", "--scale", "smoke", "--set", f"realizations={n // 2}", "--results", str(root),
                 "--no-progress"]) == 0
    assert _report(root) == 0
