"""The claims ledger, its verdict rules, the report, and the smoke-scale regression against baselines."""
import json
import shutil

import pytest

from sgmcmc_verify.ledger import baseline
from sgmcmc_verify.ledger.claims import Claim, Verdict, all_claims, get, not_run_claim
from sgmcmc_verify.ledger.report import MissingResultsError, evaluate, write_report
from sgmcmc_verify.ledger.report_check import check_links
from sgmcmc_verify.ledger.verdict import REPORT_ORDER


def test_every_claim_is_complete_and_well_formed():
    claims = all_claims()
    assert len(claims) >= 10
    for c in claims:
        assert c.id.startswith(c.paper + ".") and c.source and c.statement and c.expected and c.tolerance
        assert (c.experiments or c.not_run) and callable(c.evaluate)


def test_unknown_claim_id_names_the_known_ones():
    with pytest.raises(KeyError, match="ewsg.thm4.3.term1"):
        get("ewsg.no_such_claim")


def test_verdict_refuses_unknown_status():
    with pytest.raises(ValueError, match="status"):
        Verdict("maybe", {})


def test_report_from_smoke_results(smoke_results, tmp_path):
    results = tmp_path / "results"
    shutil.copytree(smoke_results, results)
    recs = evaluate(all_claims(), results)
    meta = write_report(recs, results, tmp_path)
    assert sum(meta["counts"].values()) == len(recs)
    assert sum(sum(g.values()) for k, g in meta["counts_by"].items() if k != "all") == len(recs)
    data = json.loads((results / "claims.json").read_text())
    rec = next(r for r in data["claims"] if r["id"] == "ewsg.thm4.3.term1")
    assert rec["status"] in ("held", "failed", "inconclusive") and rec["seed"] and rec["settings"]
    assert data["meta"]["versions"]["numpy"] and "commit" in data["meta"]["git"]
    md = (tmp_path / "REPORT.md").read_text()
    assert md.splitlines()[2].startswith("> **Scale: smoke.**")                 # the banner, at the top
    assert "| claim | status | measured … against expected … |" in md and "(ewsg/fig1d.png)" in md
    table = [ln for ln in md.split("## ")[0].splitlines() if ln.startswith("| [") or ln.startswith("| ewsg")]
    order = [REPORT_ORDER.index(ln.split("| **")[1].split("**")[0].split(" on ")[0]) for ln in table]
    assert order == sorted(order)                                                 # failed claims first
    index = (tmp_path / "REPORT.html").read_text()
    assert 'href="report/ewsg.html"' in index and "Scale: smoke." in index and "about the toolkit itself" in index
    page = (tmp_path / "report" / "ls_sgld.html").read_text()
    assert "Scale: smoke." in page and "ewsg/fig1d.png" in (tmp_path / "report" / "ewsg.html").read_text()
    assert '<table class="map">' in page          # the depends map of ls_sgld.fig3.similar_mixing, drawn
    assert check_links(tmp_path) == []


REPR_MARKS = ("{'", "['", "np.float", "array(", "True", "False", "None", "Matrix(")


def test_declared_claims_read_as_sentences(smoke_results):
    """One line per claim: 'measured … against expected …' in words and numbers, no Python reprs, the expected text
    from the settings the run used (no '{field}' left), and every undecided verdict saying what would decide it."""
    recs = evaluate([c for c in all_claims() if c.declared], smoke_results)
    assert recs
    for r in recs:
        assert r["line"].startswith("measured ") and " against expected " in r["line"], r["id"]
        assert not any(m in r["line"] for m in REPR_MARKS), (r["id"], r["line"])
        assert "{" not in r["expected"], (r["id"], r["expected"])
        if r["status"] in ("inconclusive", "not run (scale)"):
            assert r["decide_by"] and r["decide_by"]["text"] and r["decide_by"]["kind"] != "unstated", r["id"]
        if r["status"] == "depends":
            assert r["map"], r["id"]


def test_missing_results_are_an_error_not_a_silent_pass(tmp_path):
    with pytest.raises(MissingResultsError, match="sgmcmc-verify run ewsg.fig1def"):
        evaluate([get("ewsg.thm4.3.term1")], tmp_path)


def test_smoke_numbers_match_committed_baselines(smoke_results):
    committed = {f.stem: json.loads(f.read_text())["claims"] for f in baseline.BASELINE_DIR.glob("*.json")}
    assert committed, "no committed baselines"
    problems = baseline.compare(committed, baseline.collect(smoke_results))
    assert problems == [], "\n".join(problems)


def test_baseline_check_reports_a_moved_number_readably(smoke_results):
    """Negative control: a baseline moved by 10 tolerances is reported with claim, baseline, now, tolerance."""
    now = baseline.collect(smoke_results)
    moved = json.loads(json.dumps(now))
    v, se = moved["ewsg"]["ewsg.thm4.3.term1"]["slope"]
    moved["ewsg"]["ewsg.thm4.3.term1"]["slope"] = [v + 10 * baseline.Z * se * 1.5, se]
    problems = baseline.compare(moved, now)
    assert len(problems) == 1
    assert problems[0].startswith("ewsg.thm4.3.term1 [slope]: baseline") and "now" in problems[0] and "tolerance" in problems[0]


def test_baseline_check_reports_a_moved_exact_number(smoke_results):
    """Negative control for the round-off allowance: an exact number (s.e. 0) moved by 1e-4 relative
    (100 x the allowance, far below any change of the law) is reported."""
    now = baseline.collect(smoke_results)
    moved = json.loads(json.dumps(now))
    metrics = moved["ls_sgld"]["ls_sgld.thm3.3.gamma2_factor"]
    name = next(iter(metrics))
    v, se = metrics[name]
    assert se == 0.0
    metrics[name] = [v * (1 + 100 * baseline.ROUNDOFF), se]
    problems = baseline.compare(moved, now)
    assert len(problems) == 1 and problems[0].startswith("ls_sgld.thm3.3.gamma2_factor")


def test_a_claim_that_is_not_run_is_reported_with_its_reason(tmp_path):
    c = not_run_claim("testpaper.fig9.cnn", "testpaper", "Fig. 9", "A CNN trains faster.", "test error vs passes",
                      "a CNN in float64 NumPy on 2 cores is out of reach")
    recs = evaluate([c], tmp_path)
    assert recs[0]["status"] == "not run" and "out of reach" in recs[0]["detail"]
    meta = write_report(recs, tmp_path, tmp_path)
    assert meta["counts"]["not run"] == 1
    assert "| on the paper's setting | 0 | 0 | 0 | 0 | 0 | 1 |" in (tmp_path / "REPORT.md").read_text()
    with pytest.raises(ValueError, match="names no experiment"):
        Claim("testpaper.x", "testpaper", "s", "st", (), "e", "t", lambda root: None)
