"""``sgmcmc-verify compare``: two ledger runs side by side (verify/ledger/compare.py)."""
import json

import pytest

from sgmcmc_verify.cli import main
from sgmcmc_verify.errors import ResultFileError
from sgmcmc_verify.ledger.compare import compare_markdown, manifests
from sgmcmc_verify.store.cache import settings_key


def _claim(cid, status, detail="d"):
    return {"id": cid, "paper": cid.split(".")[0], "source": "s.txt, Thm 1", "status": status, "detail": detail}


def _run(root, claims, walls, settings=None):
    root.mkdir(parents=True)
    (root / "claims.json").write_text(json.dumps({"meta": {"generated": "t", "git": {"commit": "abc"}},
                                                  "claims": claims}))
    for eid, w in walls.items():
        paper = eid.split(".")[0]
        (root / paper).mkdir(exist_ok=True)
        st = (settings or {}).get(eid, {"k": 1})
        (root / paper / f"{eid}.manifest.json").write_text(json.dumps(   # a manifest whose key its settings reproduce
            {"id": eid, "paper": paper, "key": settings_key(eid, st, "c0"), "code_fingerprint": "c0",
             "outputs": ["x.json"], "sha256": {"x.json": "0" * 64}, "wall_time_s": w, "n_jobs": 2, "scale": root.name,
             "settings": st}))


@pytest.fixture
def two_runs(tmp_path):
    a, b = tmp_path / "default", tmp_path / "paper"
    _run(a, [_claim("p.x", "held"), _claim("p.y", "failed"), _claim("q.z", "inconclusive")],
         {"p.e1": 10.0, "q.e2": 4.0})
    _run(b, [_claim("p.x", "held"), _claim("p.y", "inconclusive", "a | b"), _claim("q.w", "held")],
         {"p.e1": 100.0}, settings={"p.e1": {"k": 2}})
    return a, b


def test_differences_counts_and_wall_times(two_runs):
    a, b = two_runs
    md = compare_markdown(a / "claims.json", b / "claims.json", a, b)
    diff = md.split("## Verdicts that differ")[1].split("## Every claim")[0]
    assert "p.y | failed | **inconclusive** | a \\| b" in diff    # the pipe of a detail is escaped
    assert "p.x" not in diff                                     # unchanged verdicts are not listed as changes
    assert "1 only at default (q.z)" in md and "1 only at paper (q.w)" in md
    assert "| p | 2 | 1 / 1 / 0 / 0 / 0 / 0 | 1 / 0 / 0 / 1 / 0 / 0 | 1 |" in md   # the order of STATUSES
    assert "| p.e1 | 10 s (2 jobs, default) | 100 s (2 jobs, paper) | 10.0 | different |" in md
    assert "| q.e2 | 4 s (2 jobs, default) | — | — | — |" in md   # a missing manifest is shown, not filled in


def test_cli_writes_the_document(two_runs, tmp_path):
    a, b = two_runs
    out = tmp_path / "docs" / "report.md"
    assert main(["compare", "--a", str(a), "--b", str(b), "--out", str(out)]) == 0
    assert out.read_text().startswith("# Paper-scale report")
    assert set(manifests(a)) == {"p.e1", "q.e2"}


def test_cli_names_each_ledgers_recorded_scale_not_its_label(two_runs, tmp_path):
    """Two ledgers of the same scale on two dates: the header's commands give the scale each claims.json records."""
    a, b = two_runs
    for d, sc in ((a, ["default"]), (b, None)):
        js = json.loads((d / "claims.json").read_text())
        js["meta"]["scales"] = sc
        (d / "claims.json").write_text(json.dumps(js))
    out = tmp_path / "changes.md"
    assert main(["compare", "--a", str(a), "--b", str(b), "--labels", "2026-11-23,2026-11-25", "--out", str(out)]) == 0
    md = out.read_text()
    assert f"verify --scale default --results {a}" in md      # recorded in a's meta
    assert f"verify --scale 2026-11-25 --results {b}" in md   # none recorded: the label, as before


def test_bad_inputs(two_runs, tmp_path):
    a, b = two_runs
    with pytest.raises(FileNotFoundError, match="no ledger"):
        compare_markdown(tmp_path / "nope.json", b / "claims.json", a, b)
    (tmp_path / "bad.json").write_text("[]")
    with pytest.raises(ValueError, match="not a claims.json"):
        compare_markdown(tmp_path / "bad.json", b / "claims.json", a, b)
    (a / "p" / "p.e1.manifest.json").write_text("{")   # a broken manifest is named, not skipped
    with pytest.raises(ResultFileError, match="p.e1.manifest.json"):
        manifests(a)
    with pytest.raises(ValueError, match="labels"):
        compare_markdown(a / "claims.json", b / "claims.json", a, b, labels=("one",))
