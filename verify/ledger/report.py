"""Evaluate the ledger against stored results and render the report (JSON, Markdown, HTML).

``results/claims.json``: one record per claim with the verdict (status, basis, the "measured … against expected …"
line, the map of a ``depends`` verdict, what would decide an ``inconclusive`` one), the measured numbers, the
settings and seed of the experiments it read, the pre-registration record (:mod:`sgmcmc_verify.ledger.prereg`),
package versions and the git commit. ``figures/out/REPORT.md``: a scale banner, the counts (the paper's setting,
substitute data, our design and the toolkit's own claims apart), one line per claim with failures first, the
``depends`` maps, the claims whose rule changed after their results were stored, the one-sided claims, then the
details. ``figures/out/REPORT.html`` and ``figures/out/report/``: the same as a small static site
(:mod:`sgmcmc_verify.ledger.site`).
"""
from __future__ import annotations

import dataclasses
import json
import math
import time
from pathlib import Path

from ..errors import ResultFileError
from ..store.cache import git_commit, package_versions, verify_published
from ..store.io import write_json, write_text
from . import prereg
from .claims import STATUSES, Claim, Verdict
from .site import write_site
from .verdict import BASES, REPORT_ORDER, DecideBy

__all__ = ["evaluate", "write_report", "report_markdown", "sort_records", "count_records", "MissingResultsError",
           "ClaimEvaluationError"]

#: the groups the report counts apart: verdicts on the paper's own setting, on substitute data, on the toolkit's design
#: of a part the paper leaves open, and claims about the toolkit itself
COUNT_GROUPS = ("paper", "substitute data", "our design", "toolkit")


class MissingResultsError(FileNotFoundError):
    """A claim's experiment has no stored result; run it first (``sgmcmc-verify run``)."""


class ClaimEvaluationError(ResultFileError):
    """A claim's evaluator failed on verified files (they lack a row or a column it reads); names the claim and files."""


def evaluate(claims: list[Claim], results_root="results", missing="raise", skipped=None) -> list[dict]:
    """Evaluate each claim from ``results_root``; a claim whose results are missing or corrupt raises.

    With ``missing="skip"`` a claim that needs an experiment with no stored result is left out of the
    records instead (a partial ledger, e.g. a paper-scale run that is still going on); its id and the
    experiments it lacks are appended to ``skipped`` (a list) when one is given. A corrupt result still
    raises: only an absent one is skipped.

    Before a claim is evaluated, the manifest of every experiment it reads and the SHA-256 of every
    file that experiment wrote are checked (:func:`sgmcmc_verify.store.cache.verify_published`).

    Raises
    ------
    MissingResultsError
        Naming the claim and the experiment(s) to run.
    sgmcmc_verify.errors.ResultFileError
        A corrupt manifest, or a file that is missing or differs from its manifest (naming the file
        and the command that repairs it); :class:`ClaimEvaluationError` when the evaluator itself
        fails on the files (naming the claim and the files it read).
    """
    if missing not in ("raise", "skip"):
        raise ValueError(f"missing must be 'raise' or 'skip', got {missing!r}")
    root = Path(results_root)
    records = []
    for c in claims:
        manifests, absent = {}, []
        for e in c.experiments:
            try:
                manifests[e] = verify_published(root / c.paper, e)
            except FileNotFoundError:   # no manifest; a corrupt one is a ResultFileError (a ValueError) and raises
                if missing == "raise":
                    raise MissingResultsError(f"claim {c.id} needs experiment {e}: no stored result under {root}; "
                                              f"run `sgmcmc-verify run {e}`") from None
                absent.append(e)
        if absent:
            if skipped is not None:
                skipped.append((c.id, absent))
            continue
        try:
            v: Verdict = c.evaluate(root)
        except (KeyError, IndexError, ValueError, TypeError, ZeroDivisionError) as err:
            if isinstance(err, ResultFileError):
                raise
            files = [str(root / c.paper / o) for m in manifests.values() for o in m["outputs"]]
            raise ClaimEvaluationError(", ".join(files), f"claim {c.id} could not be evaluated from these files "
                                       f"({type(err).__name__}: {err})",
                                       "recompute with " + ", ".join(f"`sgmcmc-verify run {e} --force`"
                                                                     for e in c.experiments)) from err
        records.append(_record(c, v, manifests))
    return records


def _jsonable(x):
    """``x`` with every non-finite float written as text (``"inf"``, ``"nan"``): claims.json is strict JSON."""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


def _record(c: Claim, v: Verdict, manifests: dict) -> dict:
    """The JSON record of one claim's verdict (the report, ``check`` and ``compare`` read these)."""
    if not c.declared and v.status == "inconclusive" and v.decide_by is None:
        v = dataclasses.replace(v, decide_by=DecideBy("unstated", "not stated by this old-style evaluator (its paper "
                                                                   "is not yet converted to declared rules)"))
    settings = {e: m["settings"] for e, m in manifests.items()}
    expected = c.expected_for(settings)
    measured_text = v.measured_text or v.detail
    line = f"measured {measured_text} against expected {expected}"
    return _jsonable({
        "id": c.id, "paper": c.paper, "source": c.source, "statement": c.statement, "expected": expected,
        "tolerance": c.tolerance, "status": v.status, "label": v.label, "basis": v.basis, "about": c.about,
        "line": line, "measured_text": measured_text, "rule_text": v.expected_text or None,
        "measured": v.measured, "detail": line, "map": v.map_record(), "axis": v.axis,
        "decide_by": v.decide_by.record() if v.decide_by else None, "capped": dict(v.capped) if v.capped else None,
        "declared": c.declared, "rule": c.rule.describe() if c.rule is not None else None, "design": c.design,
        "one_sided": c.one_sided, "note": (v.measured or {}).get("note") if isinstance(v.measured, dict) else None,
        "figure": c.figure, "experiments": list(c.experiments),
        "settings": settings,
        "scale": sorted({m["scale"] for m in manifests.values()}),
        "seed": {e: m["settings"].get("seed") for e, m in manifests.items()},
        "result_keys": {e: m["key"] for e, m in manifests.items()},
        "result_git": {e: m.get("git") for e, m in manifests.items()},
        "prereg": prereg.record(c, manifests),
    })


def sort_records(records: list[dict]) -> list[dict]:
    """Failures first (:data:`~sgmcmc_verify.ledger.verdict.REPORT_ORDER`), then the paper's setting before substitute
    data and our design, claims about the toolkit last within a status, then by id."""
    def key(r):
        st = r["status"]
        return (REPORT_ORDER.index(st) if st in REPORT_ORDER else len(REPORT_ORDER), r.get("about") == "toolkit",
                BASES.index(r.get("basis", "paper")) if r.get("basis", "paper") in BASES else 0, r["id"])
    return sorted(records, key=key)


def count_records(records: list[dict]) -> dict:
    """``{group: {status: count}}`` for the groups of :data:`COUNT_GROUPS` (a claim about the toolkit is counted under
    ``toolkit`` whatever its basis; a claim not run has no basis and counts under ``paper``), and ``all``."""
    out = {g: {s: 0 for s in STATUSES} for g in COUNT_GROUPS + ("all",)}
    for r in records:
        g = "toolkit" if r.get("about") == "toolkit" else (
            "paper" if r["status"] in ("not run", "not run (scale)") else r.get("basis", "paper"))
        out[g][r["status"]] += 1
        out["all"][r["status"]] += 1
    return out


def _before_after(records: list[dict], previous: dict) -> list[dict]:
    """Every claim whose rule changed after a result was stored, with the previous report's verdict where the rule's
    fingerprint differs from the one that report recorded (or that report recorded none)."""
    rows = []
    for r in records:
        p = r.get("prereg") or {}
        if not p.get("changed_after_result"):
            continue
        old = previous.get(r["id"])
        before = None
        if old is not None and ((old.get("prereg") or {}).get("fingerprint") != p.get("fingerprint")):
            before = old.get("label") or old.get("status")
        rows.append({"id": r["id"], "paper": r["paper"], "rule_changed": p.get("rule_changed"),
                     "first_result": p.get("first_result"), "how": p.get("how"), "before": before,
                     "after": r["label"]})
    return rows


def _read_previous(path: Path) -> dict:
    try:
        js = json.loads(path.read_text())
        return {c["id"]: c for c in js.get("claims", []) if isinstance(c, dict) and "id" in c}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


def _md_cell(text) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _md_map(m: dict, indent: int = 0) -> list[str]:
    out = []
    for k, v in m.items():
        out.append("  " * indent + f"- **{k}**: {v['label']}" + (f" — {_md_cell(v['measured'])}" if not v.get("map")
                                                                   else f" (by {v.get('axis')})"))
        if v.get("map"):
            out += _md_map(v["map"], indent + 1)
    return out


def report_markdown(records: list[dict], meta: dict) -> str:
    """``REPORT.md``: the scale banner, the counts, one line per claim (failures first), the depends maps, the claims
    whose rule changed after their results, the one-sided claims, the details."""
    recs = sort_records(records)
    scales = meta.get("scales") or ["—"]
    c = meta["counts_by"]
    md = ["# Claims report", "", f"> **Scale: {', '.join(scales)}.** Every number below was measured at this scale"
          + ("" if scales == ["paper"] else " (the paper scale runs the published settings: `make verify-paper`)") + ".",
          "", f"{len(records)} claims; commit `{meta['git']['commit']}`{' (dirty)' if meta['git']['dirty'] else ''}.",
          "", "| | " + " | ".join(STATUSES) + " |", "|---|" + "---|" * len(STATUSES)]
    names = {"paper": "on the paper's setting", "substitute data": "on substitute data", "our design": "on our design",
             "toolkit": "about the toolkit itself"}
    for g in COUNT_GROUPS:
        md.append(f"| {names[g]} | " + " | ".join(str(c[g][s]) for s in STATUSES) + " |")
    md += ["", "A failed claim is a finding: the measurement contradicts the paper's statement by the rule declared "
           "for it. *depends*: the verdict differs between readings of the statement or across a robustness axis (the "
           "map below). *inconclusive*: the run cannot decide; each says what would.", "",
           "| claim | status | measured … against expected … |", "|---|---|---|"]
    for r in recs:
        fig = f"[{r['id']}]({r['figure']})" if r["figure"] else r["id"]
        extra = f" — **to decide:** {r['decide_by']['text']}" if r.get("decide_by") and r["status"] != "held" else ""
        md.append(f"| {fig} | **{r['label']}** | {_md_cell(r['line'])}{_md_cell(extra)} |")
    dep = [r for r in recs if r.get("map") and r["status"] == "depends"]
    if dep:
        md += ["", "## Where the verdict depends", ""]
        for r in dep:
            md += [f"### {r['id']} (by {r.get('axis')})", ""] + _md_map(r["map"]) + [""]
    changed = meta.get("rule_changed_after_result") or []
    md += ["", "## Rules changed after their results were stored", ""]
    if changed:
        md += ["| claim | rule last changed | first result | before | after |", "|---|---|---|---|---|"]
        for x in changed:
            rc, fr = x.get("rule_changed") or {}, x.get("first_result") or {}
            md.append(f"| {x['id']} | {rc.get('commit')} ({rc.get('time')}) | {fr.get('experiment')} at "
                      f"{fr.get('commit')} ({fr.get('created')}) | {x['before'] or '—'} | {x['after']} |")
    else:
        md.append("None: every rule was fixed before the results it decides were stored.")
    one = [r for r in recs if r.get("one_sided")]
    md += ["", "## One-sided claims", ""] + ([f"- {r['id']}: {r['one_sided']}" for r in one] or
                                             ["None: every claim's rule can hold and fail (shown with constructed "
                                              "measurements in the test suite)."])
    md += ["", "## Details", ""]
    for r in recs:
        md += [f"### {r['id']} — {r['label']}", "", f"*{r['statement']}*", "",
               f"- source: {r['source']}", f"- expected: {r['expected']}", f"- rule: {r.get('rule_text') or '—'}",
               f"- tolerance: {r['tolerance']}", f"- measured: {r.get('measured_text', r['detail'])}"]
        if r.get("decide_by"):
            md.append(f"- to decide: {r['decide_by']['text']}")
        if r.get("note"):
            md.append(f"- note: {r['note']}")
        md += [f"- experiments: {', '.join(r['experiments'])} (scale {', '.join(r['scale'])}, "
               f"seed {', '.join(str(s) for s in r['seed'].values())})", ""]
    return "\n".join(md) + "\n"


def write_report(records: list[dict], results_root="results", out_dir="figures/out") -> dict:
    """Write ``claims.json`` (under ``results_root``), ``REPORT.md`` and the report site (``REPORT.html`` and
    ``report/``, :func:`sgmcmc_verify.ledger.site.write_site`) under ``out_dir``; return the metadata.

    The previous ``claims.json`` (when there is one) supplies the verdict *before* for every claim whose rule changed
    after its results were stored.
    """
    counts_by = count_records(records)
    previous = _read_previous(Path(results_root) / "claims.json")
    meta = {"generated": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "git": git_commit(), "versions": package_versions(),
            "counts": counts_by["all"], "counts_by": counts_by,
            "scales": sorted({s for r in records for s in r.get("scale", [])}),
            "rule_changed_after_result": _before_after(records, previous),
            "one_sided": [{"id": r["id"], "why": r["one_sided"]} for r in records if r.get("one_sided")]}
    write_json(Path(results_root) / "claims.json", {"meta": meta, "claims": records})
    out = Path(out_dir)
    write_text(out / "REPORT.md", report_markdown(records, meta))
    write_site(records, meta, out)
    return meta
