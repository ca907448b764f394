"""``bench/compare_results.py``: clock fields are ignored, any other change is reported (#26's output check)."""
import importlib.util
import json
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "bench" / "compare_results.py"
_spec = importlib.util.spec_from_file_location("compare_results", _PATH)
cr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cr)


def _tree(root, wall, value, col):
    (root / "exp").mkdir(parents=True)
    (root / "exp" / "r.json").write_text(json.dumps({"wall_time_s": wall, "result": {"kl": value, "seconds": wall}}))
    (root / "exp" / "r.csv").write_text(f"step,kl,wall_s\n1,{col},{wall}\n")
    (root / "exp" / "r.txt").write_text("same")


def test_clock_fields_ignored(tmp_path):
    _tree(tmp_path / "a", 1.0, 0.5, 0.25)
    _tree(tmp_path / "b", 9.0, 0.5, 0.25)
    r = cr.compare_trees(tmp_path / "a", tmp_path / "b")
    assert not r["differ"] and len(r["equal"]) == 3


def test_control_a_changed_number_is_reported(tmp_path):
    _tree(tmp_path / "a", 1.0, 0.5, 0.25)
    _tree(tmp_path / "b", 1.0, 0.5000000000000001, 0.26)
    r = cr.compare_trees(tmp_path / "a", tmp_path / "b")
    assert r["differ"] == {"exp/r.json": "$.result.kl", "exp/r.csv": "row 1"}
    assert cr.main(["--a", str(tmp_path / "a"), "--b", str(tmp_path / "b")]) == 1
