"""The coverage table (issue #25): every checkable item of every text has ledger entries or a reason, both ways."""
from pathlib import Path

import pytest

from sgmcmc_verify.ledger.claims import all_claims, load_all
from sgmcmc_verify.ledger.coverage import Item, check_items, coverage_rows, load_items, render_markdown
from sgmcmc_verify.store.registry import paper_ids

ROOT = Path(__file__).resolve().parents[3]


def _ledger():
    load_all()
    return {c.id: c.paper for c in all_claims()}


def test_every_paper_has_an_item_list():
    assert sorted(load_items()) == paper_ids()


def test_item_lists_and_ledger_agree_both_ways():
    assert check_items(load_items(), _ledger()) == []


def test_docs_coverage_lists_every_item():
    text = (ROOT / "docs" / "coverage.md").read_text(encoding="utf-8")
    missing = [f"{p}: {it.ref}" for p, its in load_items().items() for it in its
               if f"| {it.ref.replace('|', chr(92) + '|')} |" not in text]
    assert missing == [], "regenerate with `sgmcmc-verify coverage`"


@pytest.mark.parametrize("kw, match", [(dict(kind="poem"), "kind"), (dict(entries=(), not_run=""), "exactly one"),
                                       (dict(entries=("x",), not_run="why"), "exactly one")])
def test_an_item_absent_or_malformed_is_refused(kw, match):
    base = dict(ref="Theorem 1", kind="theorem", summary="s", entries=("p.a",), not_run="")
    with pytest.raises(ValueError, match=match):
        Item(**{**base, **kw})


def test_negative_control_check_items_catches_both_directions():
    items = {"p": [Item("Fig. 1", "figure", "s", entries=("p.a", "p.zzz"))]}
    bad = check_items(items, {"p.a": "p", "p.b": "p"})
    assert any("p.zzz" in b and "not a registered claim" in b for b in bad)
    assert any("p.b" in b and "named by no item" in b for b in bad)


def test_render_shows_entries_verdicts_and_reasons(tmp_path):
    items = {"p": [Item("Fig. 1", "figure", "a | b", entries=("p.a",)), Item("Fig. 2", "figure", "c", not_run="no data")]}
    cj = tmp_path / "claims.json"
    cj.write_text('{"claims": [{"id": "p.a", "status": "held", "label": "held on substitute data"}]}')
    md = render_markdown(coverage_rows(items, cj))
    assert "`p.a` — held on substitute data" in md and "not run: no data" in md and "a \\| b" in md
    assert "| p | 2 | 1 | 1 |" in md
