"""Pre-registration (``sgmcmc_verify.ledger.prereg``): when a claim's rule last changed against its stored results,
from ``git blame`` of the declaring lines and the result manifests' commits, in a throw-away repository."""
from __future__ import annotations

import importlib.util
import shutil
import subprocess

import pytest

from sgmcmc_verify.ledger import prereg
from sgmcmc_verify.ledger.claims import get
from sgmcmc_verify.ledger.report import _before_after

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

DECL = '''from sgmcmc_verify.ledger.claims import declare
from sgmcmc_verify.ledger.rules import ordering

C = declare("tp.x", "tp", "s", "A < B.", experiments=("tp.e",), measure=lambda root: None,
            rule=ordering("A", "B"{extra}))
'''


def _git(repo, *args) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          capture_output=True, text=True, check=True).stdout.strip()


def _load(path):
    spec = importlib.util.spec_from_file_location(f"tp_{abs(hash(path.read_text()))}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.C


@pytest.fixture
def repo(tmp_path, monkeypatch):
    _git(tmp_path, "init", "-q")
    mod = tmp_path / "tp_claims.py"
    mod.write_text(DECL.format(extra=""))
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "declare")
    (tmp_path / "other.txt").write_text("x")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "unrelated")
    result_commit = _git(tmp_path, "rev-parse", "HEAD")
    # the test is about the declaration's lines; the ledger's own rule classes are blamed in the real checkout
    monkeypatch.setattr(prereg, "rule_spans", lambda c: [c.declared_at])
    for f in (prereg._blame, prereg._toplevel, prereg._is_ancestor):
        f.cache_clear()
    return tmp_path, mod, {"tp.e": {"git": {"commit": result_commit, "dirty": False},
                                    "created": "2020-01-01T00:00:00+0000"}}


def test_a_rule_fixed_before_its_result(repo):
    _, mod, manifests = repo
    rec = prereg.record(_load(mod), manifests)
    assert rec["changed_after_result"] is False and rec["how"] == "git ancestry"
    assert rec["first_result"]["experiment"] == "tp.e"


def test_a_rule_changed_after_its_result_is_found(repo):
    root, mod, manifests = repo
    mod.write_text(DECL.format(extra=", level=0.01"))          # the rule loosened after the result was stored
    prereg._blame.cache_clear()
    rec = prereg.record(_load(mod), manifests)
    assert rec["changed_after_result"] is True and rec["rule_changed"]["commit"] == "uncommitted"
    _git(root, "commit", "-qam", "loosen the rule")
    prereg._blame.cache_clear()
    rec = prereg.record(_load(mod), manifests)
    assert rec["changed_after_result"] is True and rec["how"] == "git ancestry"
    assert rec["rule_changed"]["commit"] == _git(root, "rev-parse", "HEAD")[:12]


def test_a_result_from_another_repository_is_placed_in_time(repo):
    _, mod, manifests = repo
    manifests["tp.e"]["git"]["commit"] = "f" * 40                # not in this repository
    rec = prereg.record(_load(mod), manifests)
    assert rec["changed_after_result"] is True and rec["how"].startswith("time")
    manifests["tp.e"]["created"] = "2999-01-01T00:00:00+0000"
    assert prereg.record(_load(mod), manifests)["changed_after_result"] is False


def test_the_report_lists_before_and_after_where_the_fingerprint_changed():
    recs = [{"id": "p.a", "paper": "p", "label": "failed", "prereg": {"changed_after_result": True, "fingerprint": "new"}},
            {"id": "p.b", "paper": "p", "label": "held", "prereg": {"changed_after_result": False, "fingerprint": "x"}}]
    prev = {"p.a": {"label": "inconclusive", "prereg": {"fingerprint": "old"}}}
    rows = _before_after(recs, prev)
    assert [(r["id"], r["before"], r["after"]) for r in rows] == [("p.a", "inconclusive", "failed")]


def test_a_declared_rule_spans_its_declaration_rule_classes_and_thresholds():
    from sgmcmc_verify.ledger import rules

    spans = prereg.rule_spans(get("ls_sgld.fig4.ls_reduces_nll"))
    files = {s[0] for s in spans}
    assert rules.__file__ in files and any(s[0].endswith("claims_blr.py") for s in spans)
    text = rules.__file__ and open(rules.__file__).read().splitlines()
    covered = {i for f, a, b in spans if f == rules.__file__ for i in range(a, b + 1)}
    level_line = next(i + 1 for i, ln in enumerate(text) if ln.startswith("FAMILY_LEVEL ="))
    assert level_line in covered            # the threshold the ordering reads is part of its rule
    assert prereg.fingerprint(get("ls_sgld.fig4.ls_reduces_nll")) != prereg.fingerprint(get("ls_sgld.fig4.ls_increases_accuracy"))


def test_source_spans_are_cached_per_object_and_recomputed_when_the_file_changes(tmp_path, monkeypatch):
    """The span cache (#26: ``inspect.getsourcelines`` parses a whole module per class) gives what ``inspect`` gives,
    asks ``inspect`` once per object, and asks again after the file's modification time changes (control: an edit
    that moves the class is seen)."""
    import importlib.util
    import os

    src = tmp_path / "mod_span.py"
    src.write_text("class A:\n    x = 1\n")
    spec = importlib.util.spec_from_file_location("mod_span", src)
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(__import__("sys").modules, "mod_span", mod)     # inspect finds a class's file through it
    spec.loader.exec_module(mod)
    calls = []
    real = prereg.inspect.getsourcelines
    monkeypatch.setattr(prereg.inspect, "getsourcelines", lambda o: calls.append(o) or real(o))
    first = prereg._source_span(mod.A)
    assert first == (str(src), 1, 2)
    assert prereg._source_span(mod.A) == first and len(calls) == 1          # cached
    src.write_text("# moved\n\nclass A:\n    x = 1\n")
    st = src.stat()
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))             # a later modification time
    import linecache
    linecache.checkcache(str(src))
    assert prereg._source_span(mod.A) == (str(src), 3, 4) and len(calls) == 2
