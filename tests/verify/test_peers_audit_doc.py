"""``bench/peers_audit_doc.py`` (#27 item 3): the generated section of docs/peers_audit.md comes from the battery's
summaries only; a peer flagged where its toolkit counterpart passes is said in words; the hand-written rest of the
document is kept; ``bench/run_peers_default.sh`` names every peer factory the adapters define."""
import importlib.util
import json
import re
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("peers_audit_doc", _ROOT / "bench" / "peers_audit_doc.py")
pad = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pad)


def _summary(root, name, statuses, scale="default"):
    rows = [{"id": k, "check": k, "measured": f"m|{k}", "expected": "", "status": st, "detail": ""}
            for k, st in statuses.items()]
    (root / "audit" / name).mkdir(parents=True)
    (root / "audit" / name / "summary.json").write_text(json.dumps(
        {"name": name, "scale": scale, "rows": rows, "total_seconds": 12.0, "git_commit": {"commit": "abc1234def"}}))


def test_the_section_tables_every_summary_and_says_where_a_peer_is_flagged(tmp_path):
    ok = {"consistency_gaussian": "pass", "stability": "pass"}
    _summary(tmp_path, "toolkit_SGLD", ok)
    _summary(tmp_path, "posteriors_SGLD", ok)
    _summary(tmp_path, "SGMCMCJax_SGLD", {"consistency_gaussian": "flagged", "stability": "pass"})
    (tmp_path / "versions.json").write_text(json.dumps({"versions": {"jax": "0.11.2"}, "n_jobs": 16, "scale": "default"}))
    summaries, versions = pad.read(tmp_path)
    text = pad.section(summaries, versions, "R")
    assert text.startswith(pad.BEGIN) and text.endswith(pad.END)
    assert "jax 0.11.2" in text and "default scale" in text
    line = next(ln for ln in text.splitlines() if ln.startswith("- **SGMCMCJax_SGLD**"))
    assert "consistency_gaussian **flagged**" in line and "toolkit_SGLD: pass" in line
    assert next(ln for ln in text.splitlines() if ln.startswith("- **posteriors_SGLD**")).endswith("toolkit_SGLD's.")
    row = next(ln for ln in text.splitlines() if ln.startswith("| consistency_gaussian |"))
    assert "m\\|consistency_gaussian, pass" in row and "**flagged**" in row and "(not run)" in row   # blackjax: none


def test_rewrite_keeps_the_hand_written_text_and_replaces_only_the_section():
    doc = "# Title\n\nprose\n\n## Overdamped samplers (smoke scale; x)\n\nold table\n"
    once = pad.rewrite(doc, f"{pad.BEGIN}\nA\n{pad.END}")
    assert once.index("prose") < once.index(pad.BEGIN) < once.index("## Overdamped samplers (smoke") and "old table" in once
    twice = pad.rewrite(once, f"{pad.BEGIN}\nB\n{pad.END}")
    assert "\nB\n" in twice and "\nA\n" not in twice and twice.count(pad.BEGIN) == 1 and "old table" in twice


def test_no_summary_is_an_error_naming_results(tmp_path):
    with pytest.raises(ValueError, match="results"):
        pad.read(tmp_path)


def test_the_script_runs_every_peer_factory():
    script = (_ROOT / "bench" / "run_peers_default.sh").read_text()
    for mod in ("blackjax", "posteriors", "sgmcmcjax"):
        src = (_ROOT / "verify" / "peers" / f"{mod}.py").read_text()
        factories = set(re.findall(r"^def (\w+_factory)\(", src, re.M))
        assert factories and all(f"$P.{mod}:{f}|" in script for f in factories), (mod, factories)
    names = re.findall(r"^([^|\s]+)\|", script, re.M)
    assert {n for _, c in pad.TABLES for _, n in c} == set(names)
