"""Keyed result store: reuse, exact invalidation (settings and code), resume after interruption, atomic writes."""
import csv
import dataclasses

import pytest

import sgmcmc_verify.store.cache as vc
import sgmcmc_verify.store.registry as vr
from sgmcmc_verify.store.cache import code_fingerprint, run_experiment
from sgmcmc_verify.store.io import write_csv
from sgmcmc_verify.store.registry import Experiment
from sgmcmc_verify.store.settings import ScaledSettings

#: The values the fake experiments' settings classes return (mutated by the tests to change a setting).
VALUES = {"a": {"x": 1}, "b": {"y": 2}}


@dataclasses.dataclass(frozen=True)
class ASettings(ScaledSettings):
    x: int = 1

    @classmethod
    def at(cls, scale):
        return cls(scale=scale, **VALUES["a"])


@dataclasses.dataclass(frozen=True)
class BSettings(ScaledSettings):
    y: int = 2

    @classmethod
    def at(cls, scale):
        return cls(scale=scale, **VALUES["b"])


@pytest.fixture
def fake_registry(monkeypatch):
    monkeypatch.setattr(vr, "_EXPERIMENTS", {})
    monkeypatch.setitem(VALUES, "a", {"x": 1})
    monkeypatch.setitem(VALUES, "b", {"y": 2})
    calls = {"a": 0, "b": 0}

    def make(name, fail=False):
        def run(cfg, out, n_jobs, backend, progress):
            calls[name] += 1
            (out / f"{name}.csv").write_text(f"value\n{cfg.key_fields()}\n")
            if fail:
                raise KeyboardInterrupt
        return run

    for name, cls in (("a", ASettings), ("b", BSettings)):
        vr.register_experiment(Experiment(f"testpaper.{name}", "testpaper", name, "sgmcmc_verify.store.io", (f"{name}.csv",),
                                          cls, make(name)))
    return calls, VALUES, make


def test_rerun_with_same_settings_reuses(tmp_path, fake_registry):
    calls, _, _ = fake_registry
    m1 = run_experiment("testpaper.a", results_root=tmp_path)
    m2 = run_experiment("testpaper.a", results_root=tmp_path)
    assert calls["a"] == 1 and not m1["cached"] and m2["cached"] and m1["key"] == m2["key"]
    assert (tmp_path / "testpaper" / "a.csv").read_text() == "value\n{'x': 1}\n"
    assert run_experiment("testpaper.a", results_root=tmp_path, force=True)["cached"] is False


def test_changed_setting_invalidates_exactly_the_affected_experiment(tmp_path, fake_registry):
    calls, settings, _ = fake_registry
    run_experiment("testpaper.a", results_root=tmp_path)
    run_experiment("testpaper.b", results_root=tmp_path)
    settings["a"]["x"] = 5
    assert run_experiment("testpaper.a", results_root=tmp_path)["cached"] is False
    assert run_experiment("testpaper.b", results_root=tmp_path)["cached"] is True
    assert calls == {"a": 2, "b": 1}


def test_interrupted_run_leaves_nothing_half_written_and_resumes(tmp_path, fake_registry):
    calls, settings, make = fake_registry
    run_experiment("testpaper.a", results_root=tmp_path)
    before = (tmp_path / "testpaper" / "a.csv").read_text()
    settings["a"]["x"] = 9
    good = vr._EXPERIMENTS["testpaper.a"]
    vr._EXPERIMENTS["testpaper.a"] = Experiment(good.id, good.paper, good.description, good.module, good.outputs,
                                                good.settings, make("a", fail=True))
    with pytest.raises(KeyboardInterrupt):
        run_experiment("testpaper.a", results_root=tmp_path)
    assert (tmp_path / "testpaper" / "a.csv").read_text() == before  # the old result is untouched
    assert not [p for p in (tmp_path / ".cache" / "testpaper.a").iterdir() if p.name.startswith(".tmp")]
    vr._EXPERIMENTS["testpaper.a"] = good
    m = run_experiment("testpaper.a", results_root=tmp_path)
    assert m["cached"] is False and "9" in (tmp_path / "testpaper" / "a.csv").read_text()


def test_code_fingerprint_follows_in_project_imports_only():
    _, mods = code_fingerprint("sgmcmc_verify.paper_repro.ewsg.experiments")
    assert {"sgmcmc_verify.samplers", "sgmcmc_verify.estimators.ewsg", "sgmcmc_verify.integrators.underdamped",
            "sgmcmc_verify.analytic.linear_samplers"} <= set(mods)
    assert "sgmcmc_verify.cli" not in mods and "sgmcmc_verify.paper_repro.ls_sgld.mixture" not in mods


def test_changed_sampler_code_changes_exactly_the_dependent_fingerprints(tmp_path, monkeypatch):
    ewsg_before = code_fingerprint("sgmcmc_verify.paper_repro.ewsg.experiments")[0]
    lap_before = code_fingerprint("sgmcmc_verify.analytic.laplacian")[0]
    real = vc._module_file
    edited = tmp_path / "samplers.py"
    edited.write_text(open(real("sgmcmc_verify.samplers")).read() + "\n# an edit\n")
    monkeypatch.setattr(vc, "_module_file", lambda m: str(edited) if m == "sgmcmc_verify.samplers" else real(m))
    assert code_fingerprint("sgmcmc_verify.paper_repro.ewsg.experiments")[0] != ewsg_before
    assert code_fingerprint("sgmcmc_verify.analytic.laplacian")[0] == lap_before


def test_atomic_csv_write_keeps_the_old_file_on_failure(tmp_path):
    p = tmp_path / "x.csv"
    write_csv(p, [{"a": 1}])

    class Boom:
        def __str__(self):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_csv(p, [{"a": 2}, {"a": Boom()}])
    assert list(csv.DictReader(open(p))) == [{"a": "1"}]
    assert [f.name for f in tmp_path.iterdir()] == ["x.csv"]


def test_the_key_is_built_from_the_settings_dataclass_the_experiment_receives(tmp_path, fake_registry):
    """An experiment receives ``settings.at(scale)``; the manifest's settings are exactly its fields (no
    hand-kept list), and the scale's name is not part of the key."""
    _, values, _ = fake_registry
    m = run_experiment("testpaper.a", "smoke", results_root=tmp_path)
    assert m["settings"] == {"x": 1}
    assert run_experiment("testpaper.a", "default", results_root=tmp_path)["key"] == m["key"]


def test_every_registered_experiment_declares_a_settings_dataclass():
    from sgmcmc_verify.store.registry import all_experiments

    for e in all_experiments():
        for scale in ("smoke", "default", "paper"):
            cfg = e.settings.at(scale)
            assert dataclasses.is_dataclass(cfg) and cfg.scale == scale
            assert isinstance(cfg.inputs(), dict)


def test_register_refuses_settings_that_are_not_a_dataclass(monkeypatch):
    monkeypatch.setattr(vr, "_EXPERIMENTS", {})
    with pytest.raises(ValueError, match="ScaledSettings"):
        vr.register_experiment(Experiment("testpaper.c", "testpaper", "c", "sgmcmc_verify.store.io", ("c.csv",),
                                          lambda scale: {}, lambda *a: None))


def test_unknown_scale_is_refused():
    with pytest.raises(ValueError, match="scale must be one of"):
        ScaledSettings.at("huge")


def test_written_results_and_reports_are_readable_like_any_new_file(tmp_path):
    """Atomic writes go through a private temporary file; the result gets 0666 less the umask (not 0600)."""
    import os

    from sgmcmc_verify.store.io import write_json, write_text

    mask = os.umask(0o022)
    os.umask(mask)
    write_csv(tmp_path / "a.csv", [{"a": 1}])
    write_json(tmp_path / "b.json", {"b": 2})
    write_text(tmp_path / "REPORT.html", "<html></html>")
    for name in ("a.csv", "b.json", "REPORT.html"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o666 & ~mask, name
