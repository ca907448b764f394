"""The report site: rendering (cards, filter, figures, audits) and the link checker, on made-up records.

No Chromium is needed except in the last test, which is skipped without it; the Chromium half of
``make report-check`` is exercised here with a stand-in executable that prints a canned DOM and log.
"""
import functools
import json
import os
import re
import stat
import sys

import pytest
from PIL import Image

from sgmcmc_verify.ledger.report_check import check_links, find_chromium, page_refs, render_page
from sgmcmc_verify.ledger.site import INDEX, SITE_DIR, render_site_from_json, status_class, write_site
from sgmcmc_verify.ledger.verdict import STATUSES

META = {"generated": "2026-11-23T12:00:00+0000", "git": {"commit": "abc123", "dirty": False}, "counts": {}}


def _record(cid, paper, status, figure=None):
    return {"id": cid, "paper": paper, "source": "000_8e0377c44e2ea3b8.txt, §5.1, Fig. 1a", "status": status,
            "statement": f"statement of {cid} <b>not markup</b>", "expected": "a < b", "tolerance": "3 s.e.",
            "detail": "a = 1 ± 0.1, b = 2 ± 0.1", "measured": {"values": {"a": 1.0, "b": 2.0}}, "figure": figure,
            "experiments": [f"{paper}.exp"], "settings": {f"{paper}.exp": {"seed": 7}}, "scale": ["smoke"],
            "seed": {f"{paper}.exp": 7}, "result_keys": {f"{paper}.exp": "k" * 20},
            "result_git": {f"{paper}.exp": {"commit": "f" * 40, "dirty": False}}}


@pytest.fixture
def site(tmp_path):
    """Two papers, every status, one figure drawn, one figure named but not drawn, one claim without figure."""
    (tmp_path / "pa").mkdir()
    Image.new("RGB", (1200, 800), "white").save(tmp_path / "pa" / "fig1.png")
    Image.new("RGB", (10, 10), "white").save(tmp_path / "pa" / "fig1.pdf", format="PDF")
    records = [_record("pa.one", "pa", "held", "pa/fig1.png"), _record("pa.two", "pa", "failed", "pa/fig1.png"),
               _record("pa.three", "pa", "inconclusive", "pa/not_drawn.png"),
               _record("pb.one", "pb", "not run"), _record("pb.two", "pb", "failed")]
    pages = write_site(records, META, tmp_path)
    return tmp_path, records, pages


def test_index_has_one_card_per_paper_with_counts_and_headline_findings(site):
    out, records, pages = site
    assert [p.name for p in pages] == [INDEX, "pa.html", "pb.html"]
    index = (out / INDEX).read_text()
    assert len(re.findall(r'<section class="card paper"', index)) == 2
    card = index[index.index('id="paper-pa"'):index.index('id="paper-pb"')]
    assert "1 held" in card and "1 failed" in card and "1 inconclusive" in card and "not run" not in card
    assert 'href="report/pa.html#pa.two"' in card  # the failed claim is a headline finding
    assert 'href="report/pa.html?status=failed"' in card
    assert "&lt;b&gt;not markup&lt;/b&gt;" in index  # statements are escaped
    assert "No audit pages yet" in index


def test_paper_page_has_a_filter_input_and_class_per_status_and_each_claim_beside_its_figure(site):
    out, _, _ = site
    page = (out / SITE_DIR / "pa.html").read_text()
    for s in ("held", "failed", "inconclusive", "not run"):
        cls = status_class(s)
        assert f'id="f-{cls}"' in page and f'label for="f-{cls}"' in page
        assert f"#f-{cls}:not(:checked) ~ main .claim.{cls}" in (out / SITE_DIR / "report.css").read_text()
    assert re.findall(r'<article class="claim (s-[a-z-]+)" id="([^"]+)"', page) == [   # failed claims first
        ("s-failed", "pa.two"), ("s-inconclusive", "pa.three"), ("s-held", "pa.one")]
    assert "Scale: smoke." in page and "Scale: smoke." in (out / INDEX).read_text()   # the banner on every page
    (thumb,) = set(re.findall(r'<a href="\.\./pa/fig1\.png" title="full size"><img src="(thumbs/pa/fig1-[0-9a-f]{16}\.png)"',
                              page))   # thumbnails are named by the figure's content hash
    assert 'href="../pa/fig1.pdf"' in page and "<details>" in page
    with Image.open(out / SITE_DIR / thumb) as im:  # a thumbnail, not the figure
        assert im.size[0] <= 640 and im.size[1] <= 440
    assert "figure not drawn" in page and 'href="../pa/not_drawn.png"' not in page  # no broken link written
    assert "no figure" in (out / SITE_DIR / "pb.html").read_text()


def test_a_depends_map_is_drawn_on_the_paper_page(tmp_path):
    """A verdict that depends on a reading and a data set is drawn as a grid: a row per reading, a column per data
    set, each cell with its status; the index counts verdicts on substitute data apart."""
    def cell(st, label=None):
        return {"status": st, "label": label or st, "measured": f"x = 1 ({st})", "axis": None, "map": None}
    rec = _record("pa.dep", "pa", "depends")
    rec.update(label="depends on substitute data", basis="substitute data", axis="reading",
               line="measured by reading … against expected a < b",
               map={"as printed": {"status": "depends", "label": "depends", "measured": "", "axis": "data set",
                                   "map": {"pima": cell("held"), "a9a": cell("failed")}},
                    "as the proof reads it": {"status": "held", "label": "held", "measured": "", "axis": "data set",
                                              "map": {"pima": cell("held"), "a9a": cell("held")}}})
    meta = dict(META, counts_by={g: {s: int(g == "substitute data" and s == "depends") for s in STATUSES}
                                 for g in ("paper", "substitute data", "our design", "toolkit")})
    write_site([rec], meta, tmp_path)
    page = (tmp_path / SITE_DIR / "pa.html").read_text()
    grid = page[page.index('<table class="map">'):]
    grid = grid[:grid.index("</table>")]
    assert grid.count("<tr>") == 3 and "as printed" in grid and "a9a" in grid
    assert grid.count('<td class="s-failed"') == 1 and grid.count('<td class="s-held"') == 3
    assert "depends on substitute data" in page and "measured by reading" in page
    assert "on substitute data" in (tmp_path / INDEX).read_text()


def test_a_rendered_site_has_no_broken_link(site):
    out, _, _ = site
    assert check_links(out) == []


def test_link_checker_reports_planted_breakage(site):
    """Negative control: a broken image, a broken page link, a missing anchor, a network style sheet and an
    absolute path planted in the pages are each reported, and nothing else is."""
    out, _, _ = site
    page = out / SITE_DIR / "pa.html"
    text = re.sub(r'src="thumbs/pa/fig1-[0-9a-f]{16}\.png"', 'src="thumbs/pa/gone.png"', page.read_text(), count=1)
    text = text.replace("</main>", '<a href="pc.html">c</a><a href="#pa.nine">9</a>'
                        '<link rel="stylesheet" href="https://cdn.example.org/x.css">'
                        '<img src="/etc/hostname"><a href="https://example.org">fine</a></main>')
    page.write_text(text)
    problems = check_links(out)
    assert len(problems) == 5, problems
    for needle in ("thumbs/pa/gone.png", "pc.html", "'pa.nine'", "network", "absolute path"):
        assert sum(needle in p for p in problems) == 1, (needle, problems)


def test_link_checker_follows_the_index_into_audit_pages(site):
    out, records, _ = site
    audit = out / "audit" / "kl_check"
    audit.mkdir(parents=True)
    (audit / "index.html").write_text('<html><head><title>KL audit</title></head><body><img src="plot.png"></body></html>')
    (audit / "summary.json").write_text(json.dumps([
        {"check": "kl exact", "measured": 1.0, "expected": 1.0, "status": "pass", "detail": ""},
        {"check": "kl sinkhorn", "measured": 1.3, "expected": 1.0, "status": "fail", "detail": "off by 30 %"}]))
    write_site(records, META, out)
    index = (out / INDEX).read_text()
    assert 'href="audit/kl_check/index.html"' in index and "KL audit" in index and "off by 30 %" in index
    assert [p for p in check_links(out) if "plot.png" in p]  # the audit page's own broken image is found
    (audit / "plot.png").write_bytes(next((out / SITE_DIR / "thumbs" / "pa").glob("fig1-*.png")).read_bytes())
    (audit / "summary.json").write_text("{not json")
    write_site(records, META, out)
    assert check_links(out) == [] and "summary.json unreadable" in (out / INDEX).read_text()


def test_site_refuses_an_unknown_status_and_a_missing_claims_file(tmp_path):
    with pytest.raises(ValueError, match="records"):
        write_site([_record("pa.one", "pa", "maybe")], META, tmp_path)
    with pytest.raises(FileNotFoundError, match="claims_json"):
        render_site_from_json(tmp_path / "claims.json", tmp_path)
    with pytest.raises(FileNotFoundError, match="out_dir"):
        check_links(tmp_path)


def test_site_renders_from_a_stored_claims_json(tmp_path):
    (tmp_path / "claims.json").write_text(json.dumps({"meta": META, "claims": [_record("pa.one", "pa", "held")]}))
    pages = render_site_from_json(tmp_path / "claims.json", tmp_path / "out")
    assert [p.name for p in pages] == [INDEX, "pa.html"] and check_links(tmp_path / "out") == []


def test_page_refs_reads_srcset_and_anchors():
    refs, ids = page_refs('<img srcset="a.png 1x, b.png 2x"><a name="top"></a><div id="d"></div>')
    assert [r[2] for r in refs] == ["a.png", "b.png"] and ids == {"top", "d"}


def _fake_chromium(tmp_path, dom_html_tag, log=""):
    """A stand-in for chromium: writes the screenshot it is asked for, prints ``dom_html_tag`` as the DOM."""
    exe = tmp_path / "fake-chromium"
    exe.write_text(f"""#!{sys.executable}
import sys
for a in sys.argv[1:]:
    if a.startswith("--screenshot="):
        open(a.split("=", 1)[1], "wb").write(b"png")
    if a == "--dump-dom":
        print({dom_html_tag!r} + "<head></head><body></body></html>")
sys.stderr.write({log!r})
""")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return str(exe)


def test_render_page_passes_a_clean_page_and_keeps_the_screenshot(tmp_path):
    page = tmp_path / "p.html"
    page.write_text("<html></html>")
    exe = _fake_chromium(tmp_path, '<html data-report-loaded="1">')
    assert render_page(exe, page, tmp_path / "shots" / "p.png") == []
    assert (tmp_path / "shots" / "p.png").is_file()


@pytest.mark.parametrize("tag,log,needle", [
    ('<html data-report-errors="uncaught: ReferenceError: f is not defined" data-report-loaded="1">', "", "ReferenceError"),
    ('<html data-report-errors="image not loaded: file:///x.png" data-report-loaded="1">', "", "x.png"),
    ('<html data-report-loaded="1">', '[1:1:1123/1.0:INFO:CONSOLE:4] "boom", source: file:///p.html (4)\n', "boom"),
    ("<html>", "", "load event"),
])
def test_render_page_reports_console_and_dom_errors(tmp_path, tag, log, needle):
    """Negative control of the rendered half: an error recorded in the DOM, a console line in Chromium's log,
    and a page whose hook never saw the load event are each reported."""
    page = tmp_path / "p.html"
    page.write_text("<html></html>")
    problems = render_page(_fake_chromium(tmp_path, tag, log), page, tmp_path / "p.png")
    assert len(problems) == 1 and needle in problems[0], problems


@pytest.mark.skipif(find_chromium() is None or os.environ.get("SGMCMC_SKIP_CHROMIUM") == "1",
                    reason="chromium is not installed (make report-check installs it)")
def test_chromium_renders_a_paper_page_cleanly_and_catches_a_planted_script_error(site):
    out, _, _ = site
    page = out / SITE_DIR / "pa.html"
    assert render_page(find_chromium(), page, out / "shot.png", window=(800, 600)) == []
    page.write_text(page.read_text().replace("</main>", "<script>undefined_function()</script></main>"))
    problems = render_page(find_chromium(), page, out / "shot.png", window=(800, 600))
    assert any("undefined_function" in p for p in problems), problems


def test_report_check_copies_the_index_screenshot_for_the_readme(site, tmp_path, capsys):
    """``make report-check`` regenerates the README's picture: the index screenshot is copied when every check passes,
    and not when one fails."""
    from sgmcmc_verify.ledger.report_check import main

    out, _, _ = site
    exe = _fake_chromium(tmp_path, '<html data-report-loaded="1">')
    dst = tmp_path / "docs" / "img" / "report_index.png"
    assert main(["--out", str(out), "--no-render", "--chromium", exe, "--readme-screenshot", str(dst)]) == 0
    assert dst.read_bytes() == b"png"
    dst.unlink()
    bad = _fake_chromium(tmp_path, "<html>")                  # the load event never seen: a problem
    assert main(["--out", str(out), "--no-render", "--chromium", bad, "--readme-screenshot", str(dst)]) == 1
    assert not dst.exists()


# ---- every claim that can depend shows its map (issue #24) ----------------------------------------------------

@functools.lru_cache(maxsize=1)
def _depends_records_cached():
    return tuple(_depends_records_uncached())


def _depends_records():
    return [dict(r) for r in _depends_records_cached()]


def _depends_records_uncached():
    """One record per declared claim whose rule can reach ``depends``: the ledger's own verdict on the rule's constructed
    ``depends`` measurement, as the report writes it (status, label, map, axis)."""
    from sgmcmc_verify.ledger.claims import all_claims
    from sgmcmc_verify.ledger.rules import judge

    recs = []
    for c in all_claims():
        if not c.declared or "depends" not in c.rule.outcomes():
            continue
        v = judge(c.rule, c.rule.example("depends"))
        assert v.status == "depends", c.id
        rec = _record(c.id, c.paper, "depends")
        rec.update(label=v.label, basis=v.basis, axis=v.axis, map=v.map_record(), line=v.line)
        recs.append(rec)
    return recs


def map_problems(page: str, rec) -> list[str]:
    """What of ``rec``'s map its ``<article>`` on ``page`` does not show: the map box, a first-level key, or (where the
    first level has maps) a second-level key."""
    import html

    start = page.find(f'id="{rec["id"]}"')
    if start < 0:
        return [f"{rec['id']}: not on the page"]
    sect = page[start:page.find("</article>", start)]
    if 'class="mapbox"' not in sect:
        return [f"{rec['id']}: no map"]
    keys = list(rec["map"]) + [k for v in rec["map"].values() for k in (v.get("map") or {})]
    return [f"{rec['id']}: {k!r} not drawn" for k in dict.fromkeys(keys)
            if html.escape(str(k)).replace("&#x27;", "&#39;") not in sect]


def test_every_claim_that_can_depend_shows_its_map_on_its_papers_page(tmp_path):
    recs = _depends_records()
    assert recs, "no claim can reach depends"
    write_site(recs, META, tmp_path)
    problems = []
    for paper in sorted({r["paper"] for r in recs}):
        page = (tmp_path / SITE_DIR / f"{paper}.html").read_text()
        problems += [p for r in recs if r["paper"] == paper for p in map_problems(page, r)]
    assert problems == []


@pytest.mark.negative_control(pair="site.depends_map")
def test_the_map_check_catches_a_page_without_the_map(tmp_path):
    rec = _depends_records()[0]
    write_site([{**rec, "map": None}], META, tmp_path)
    page = (tmp_path / SITE_DIR / f"{rec['paper']}.html").read_text()
    assert map_problems(page, rec)


@pytest.mark.statistical(pair="site.depends_map")
def test_the_map_check_passes_a_drawn_map(tmp_path):
    rec = _depends_records()[0]
    write_site([rec], META, tmp_path)
    assert map_problems((tmp_path / SITE_DIR / f"{rec['paper']}.html").read_text(), rec) == []
