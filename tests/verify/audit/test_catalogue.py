"""The catalogue of broken samplers (issue #28 item 1): each is flagged by name — by the checks that must
catch it, or by a one-line protocol error naming its factory — and none passes; correct samplers still pass
the checks that catch them (smoke scale).

Settings: the catalogue runs at the smoke scale with fewer chains where the flag is robust by orders of
magnitude (``TINY``): a sampler that does not move differs from the target by the displacement itself
(8 posterior s.d.; |z| = 78 at 150 chains, 23 at 16), the √h bug halves the covariance (z = 36 at 500 chains
at smoke scale, so ~20 at 150) and the gradient offset moves the mean by 0.98 s.d.; a divergence or a NaN
is caught at the step where it happens. For the samplers that do not move (``MOVE``) the consistency grid
keeps only its four largest h·L (the twin runs at the largest); the law bugs keep the smoke grid, on
which the √h bug's halved covariance is not cancelled by the minibatch noise's O(h) inflation.
"""
from __future__ import annotations

import dataclasses
import json
import sys

import numpy as np
import pytest

from sgmcmc_verify import samplers
from sgmcmc_verify.audit import AuditSettings, ProtocolError, audit, toolkit_audit
from sgmcmc_verify.audit.mixing import mixing_check
from sgmcmc_verify.audit.multimodal import multimodality_check
from sgmcmc_verify.audit.pytest_helpers import assert_sampler
from sgmcmc_verify.audit.time_average import time_average_check

from support import audit as broken

SMOKE = AuditSettings.at("smoke")
TINY = dataclasses.replace(SMOKE, consistency_chains=150, displaced_chains=40, ta_chains=100, mixture_chains=100,
                           mixture_floor_reps=5, mixture_cells=100)
MOVE = dataclasses.replace(TINY, consistency_hL=SMOKE.consistency_hL[-4:])


def smoke(seed: int = 0, base=SMOKE) -> AuditSettings:
    """``base`` with the battery's root seed drawn from ``default_rng(seed)`` (shifted by calibration)."""
    return dataclasses.replace(base, seed=int(np.random.default_rng(seed).integers(2**31)))


#: broken sampler → (checks run = the rows that must be flagged, a word of the verdict, settings)
CATALOGUE = {
    "frozen": (("consistency_gaussian", "mixing", "time_average", "multimodality"), "do not move", MOVE),
    "tiny_noise": (("consistency_gaussian", "mixing"), "do not reach", MOVE),
    "nan_sampler": (("consistency_gaussian", "mixing"), "diverged", MOVE),
    "divergent": (("mixing", "time_average"), "diverged", MOVE),
    "sgld_missing_sqrt2": (("consistency_gaussian",), "does not go to 0", TINY),
    "sgld_biased_gradient": (("consistency_gaussian",), "does not go to 0", TINY),
}


@pytest.mark.negative_control(pair="audit.catalogue")
@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_a_broken_sampler_is_flagged_by_name(name, tmp_path):
    checks, word, base = CATALOGUE[name]
    must = checks
    rep = audit(getattr(broken, name), scale="smoke", name=name, results=tmp_path, checks=checks, settings=smoke(11, base))
    rows = {r["id"]: r for r in rep["rows"]}
    assert [c for c in must if rows[c]["status"] != "flagged"] == [], {c: rows[c]["detail"] for c in must}
    assert any(word in rows[c]["detail"] for c in must), [rows[c]["detail"] for c in must]
    assert "pass" not in [r["status"] for r in rep["rows"]]
    summary = json.loads((tmp_path / "audit" / name / "summary.json").read_text())   # written, strict JSON
    assert summary["flagged"] == [rows[c]["check"] for c in checks]


@pytest.mark.parametrize("name, what", [("wrong_shape", "shape (3, 1), expected (3, 2)"),
                                        ("no_info", "expected (state, info)"),
                                        ("no_position", "without .position")])
def test_a_protocol_violation_is_one_line_naming_the_factory(name, what, tmp_path, capsys):
    with pytest.raises(ProtocolError, match="support.audit:" + name) as e:
        audit(getattr(broken, name), scale="smoke", results=tmp_path, checks=("mixing",))
    assert what in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "audit").exists() or not any((tmp_path / "audit").iterdir())   # nothing written
    from sgmcmc_verify.cli import main

    assert main(["audit", f"support.audit:{name}", "--scale", "smoke", "--checks", "mixing",
                 "--results", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"support.audit:{name}" in err[0] and what in err[0]


@pytest.mark.parametrize("name", ["sleeping_factory", "sleeping_step"])
def test_a_sampler_that_hangs_times_out_and_the_summary_is_written(name, tmp_path):
    rep = audit(getattr(broken, name), scale="smoke", name=name, results=tmp_path, checks=("mixing", "cost"),
                timeout=0.5)
    assert [(r["status"], r["measured"]) for r in rep["rows"]] == [("flagged", "timed out")] * 2
    assert rep["total_seconds"] < 5 and (tmp_path / "audit" / name / "summary.json").is_file()


def test_a_check_over_its_limit_is_a_finding_and_the_others_run(tmp_path):
    # a correct sampler under a limit too short for one check: that row times out, the next one still runs
    rep = audit(broken.ula, scale="smoke", name="short", results=tmp_path, checks=("time_average", "sg_sensitivity"),
                timeout=0.3, settings=smoke(0))
    st = {r["id"]: r for r in rep["rows"]}
    assert st["time_average"]["measured"] == "timed out" and "--timeout" in st["time_average"]["detail"]
    assert st["sg_sensitivity"]["status"] == "n/a", st["sg_sensitivity"]["detail"]   # ran (ULA has no batch_size)


def test_an_exception_inside_one_check_is_a_finding_of_that_check(tmp_path):
    # a divergence inside one check does not abort the audit: the rows after it run, the summary is written
    rep = audit(broken.divergent, scale="smoke", name="div", results=tmp_path, checks=("mixing", "stability"),
                settings=smoke(0))
    st = [r["status"] for r in rep["rows"]]
    assert st[0] == "flagged" and "diverged at step" in rep["rows"][0]["detail"]
    assert st[1] == "warn" and "diverges at every" in rep["rows"][1]["detail"]       # the next check ran


# ---- correct samplers pass the checks that catch a sampler that does not move --------------------------------

@pytest.mark.statistical(pair="audit.catalogue")
@pytest.mark.parametrize("name", ["SGLD", "SGHMC"])
def test_a_correct_sampler_moves_and_reaches_its_law_from_a_displaced_start(name):
    # SGHMC (γ = 15) is the slowest-mixing family of the toolkit: τ ≈ 30/λ_min, 26 τ in the smoke window
    p, _ = toolkit_audit()[name]
    res = mixing_check(samplers.SAMPLERS[name], p, smoke(21))
    assert res.status == "pass", res.detail
    assert res.data["msjd_per_step"] > 0 and res.data["z"] < 6


@pytest.mark.statistical(pair="audit.catalogue")
def test_sgld_time_averages_converge_and_the_mixture_is_reached_from_a_displaced_start():
    ta = time_average_check(samplers.sgld, {}, smoke(22))
    assert ta.status != "flagged" and ta.data["not_converging_hL"] == [], ta.detail
    mm = multimodality_check(samplers.sgld, {}, smoke(23))
    assert mm.status == "pass", mm.detail
    assert mm.data["w2"] < 0.5 * mm.data["w2_start"] and mm.data["rms_move"] > 0.5 * mm.data["displacement"]


# ---- the pytest helper, both ways ----------------------------------------------------------------------------

# the positive half (a correct sampler passes, in one line) is the README's "in your pytest" example:
# tests/verify/audit/test_readme_audit.py

@pytest.mark.negative_control(pair="audit.helper")
def test_assert_sampler_fails_a_planted_bug():
    with pytest.raises(AssertionError, match="covariance error does not go to 0"):
        assert_sampler(broken.sgld_missing_sqrt2, order=1, stable_to=2.0, mixing=False, settings=smoke(32, TINY))


# ---- where researchers work: files, modules from the current folder, the registry, CI exit codes ---------------

_MINE = '''
from sgmcmc_verify import samplers

def my_ula(target, step_size):
    return samplers.ls_gld(target, step_size, smoothing=0.0)
'''


def test_audit_a_file_and_a_module_of_the_current_folder(tmp_path, monkeypatch, capsys):
    from sgmcmc_verify.cli import main

    (tmp_path / "mine_audit_mod.py").write_text(_MINE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    args = ["--scale", "smoke", "--checks", "sg_sensitivity", "--results", "r", "--out", "o"]   # n/a: fast plumbing
    assert main(["audit", "mine_audit_mod.py:my_ula", "--name", "file", *args]) == 0
    assert main(["audit", "mine_audit_mod:my_ula", "--name", "module", *args]) == 0   # no PYTHONPATH needed
    assert main(["audit", str(tmp_path / "mine_audit_mod.py") + ":nope", *args]) == 2
    assert "no callable 'nope'" in capsys.readouterr().err
    assert json.loads((tmp_path / "r/audit/module/summary.json").read_text())["factory"] == "mine_audit_mod:my_ula"


def test_fail_on_warn_gives_exit_1_for_ci(tmp_path):
    from sgmcmc_verify.cli import main

    # check 2 is n/a for MALA (no batch_size) — not a warning; check 5 of MALA reports "info": exit 0 either way
    args = ["audit", "MALA", "--scale", "smoke", "--checks", "sg_sensitivity", "--results", str(tmp_path),
            "--out", str(tmp_path / "o")]
    assert main(args + ["--fail-on", "warn"]) == 0
    row = json.loads((tmp_path / "audit/MALA/summary.json").read_text())["rows"][0]
    assert row["status"] == "n/a" and "`batch_size`" in row["detail"]     # the missing keyword is named
    # a warn row: the divergent sampler's stability scan diverges everywhere (warn, not flagged)
    args = ["audit", "support.audit:divergent", "--scale", "smoke", "--checks", "stability", "--results", str(tmp_path),
            "--out", str(tmp_path / "o")]
    assert main(args) == 0 and main(args + ["--fail-on", "warn"]) == 1 and main(args + ["--fail-on", "never"]) == 0


def test_every_registered_sampler_is_in_the_toolkit_audit(monkeypatch, tmp_path, capsys):
    from sgmcmc_verify.cli import main

    jobs = toolkit_audit()
    assert set(jobs) == set(samplers.SAMPLERS)
    assert {"FlyMC", "CP-SGHMC", "MH"} <= set(jobs) and jobs["MH"][1] is None and jobs["CP-SGHMC"][0] == {"friction": 15.0}
    # a sampler added to the registry is audited, with no list to edit
    monkeypatch.setattr(samplers, "SAMPLERS", {"MALA": samplers.mala, "My-FG": samplers.fg})
    assert toolkit_audit() == {"MALA": ({}, None), "My-FG": ({"friction": 15.0}, 1.0)}
    assert main(["audit", "toolkit", "--scale", "smoke", "--checks", "sg_sensitivity", "--results", str(tmp_path),
                 "--out", str(tmp_path / "o")]) == 0
    assert sorted(p.name for p in (tmp_path / "audit").iterdir()) == ["MALA", "My-FG"]
    assert json.loads((tmp_path / "audit/My-FG/summary.json").read_text())["params"] == {"friction": "15.0"}


def test_an_audit_replaces_its_folder_whole_and_a_corrupt_old_one_is_skipped(tmp_path):
    from sgmcmc_verify.cli import main

    args = ["--scale", "smoke", "--results", str(tmp_path / "r"), "--out", str(tmp_path / "o")]
    assert main(["audit", "support.audit:ula", "--name", "x", "--checks", "stability,sg_sensitivity", *args]) == 0
    assert (tmp_path / "o/audit/x/stability.png").exists()
    assert main(["audit", "support.audit:ula", "--name", "x", "--checks", "sg_sensitivity", *args]) == 0   # same name
    assert sorted(p.name for p in (tmp_path / "r/audit/x").iterdir()) == ["sg_sensitivity.json", "summary.csv",
                                                                          "summary.json"]
    assert not (tmp_path / "o/audit/x/stability.png").exists()          # no stale figure of the earlier audit
    (tmp_path / "r/audit/old").mkdir()
    (tmp_path / "r/audit/old/summary.json").write_text("{ corrupt")
    with pytest.warns(RuntimeWarning, match="skipping the audit in .*old"):
        assert main(["audit", "support.audit:ula", "--name", "y", "--checks", "sg_sensitivity", *args]) == 0
    assert "y/index.html" in (tmp_path / "o/audit/index.html").read_text()


def test_non_finite_numbers_in_a_result_are_a_finding_and_the_json_stays_strict(tmp_path):
    from sgmcmc_verify.audit.battery import run_check
    from sgmcmc_verify.audit.common import CheckResult
    from sgmcmc_verify.store.io import write_json

    res = run_check("cost", lambda: CheckResult("cost vs n", "x", "y", "pass", "fine", {"a": [1.0, float("nan")],
                                                                                         "b": {"c": float("inf")}}), None)
    assert res.status == "flagged" and "non-finite numbers in the result (a[1], b.c)" in res.detail
    write_json(tmp_path / "r.json", res.data)          # allow_nan=False: it would raise on a NaN left in place
    assert json.loads((tmp_path / "r.json").read_text())["a"] == [1.0, None]


@pytest.mark.parametrize("bad", ["javascript:alert(1)", "../up", ".hidden", "a/b"])
def test_an_audit_name_must_be_a_plain_folder_name(bad, tmp_path):
    with pytest.raises(ValueError, match="name must be a plain folder name"):
        audit(samplers.sgld, scale="smoke", name=bad, results=tmp_path, checks=("cost",))
