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
import hashlib
import json
import math
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

from ..errors import ResultFileError
from ..store.cache import git_commit, package_versions, snapshot_published
from ..store.io import write_json, write_text
from . import prereg
from .claims import STATUSES, Claim, Verdict
from .site import SITE_DIR, write_site
from .verdict import BASES, REPORT_ORDER, DecideBy

__all__ = ["evaluate", "write_report", "recover_report", "report_markdown", "sort_records", "count_records", "MissingResultsError",
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
    file that experiment wrote are checked, and the verified bytes are copied into a snapshot
    (:func:`sgmcmc_verify.store.cache.snapshot_published`, under the experiment's publish lock); the claim
    is evaluated from a directory holding its declared experiments' files only. So a run publishing
    into ``results_root`` meanwhile cannot pair one run's settings with another run's numbers, and a
    claim that reads a file its declared experiments do not write fails (:class:`ClaimEvaluationError`)
    instead of reading whatever lies there.

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
    with tempfile.TemporaryDirectory(prefix="sgmcmc-verify-snapshot-") as tmp:
        store, verified = Path(tmp) / "verified", {}
        for n, c in enumerate(claims):
            manifests, absent = {}, []
            for e in c.experiments:
                if e not in verified:
                    paper = e.split(".", 1)[0]
                    try:
                        verified[e] = snapshot_published(root / paper, e, store / e / paper)
                    except FileNotFoundError:   # no manifest; a corrupt one is a ResultFileError and raises
                        verified[e] = None
                if verified[e] is None:
                    if missing == "raise":
                        raise MissingResultsError(f"claim {c.id} needs experiment {e}: no stored result under {root}; "
                                                  f"run `sgmcmc-verify run {e}`") from None
                    absent.append(e)
                else:
                    manifests[e] = verified[e]
            if absent:
                if skipped is not None:
                    skipped.append((c.id, absent))
                continue
            view = Path(tmp) / f"claim{n}"
            for e in c.experiments:
                shutil.copytree(store / e, view, dirs_exist_ok=True, copy_function=_link_or_copy)
            try:
                v: Verdict = c.evaluate(view)
            except (KeyError, IndexError, ValueError, TypeError, ZeroDivisionError, FileNotFoundError) as err:
                if isinstance(err, ResultFileError):
                    raise ResultFileError(err.path.replace(str(view), str(root)), err.reason, err.remedy) from None
                files = [str(root / e.split(".", 1)[0] / o) for e, m in manifests.items() for o in m["outputs"]]
                what = (f"it reads {str(err.filename).replace(str(view), str(root))!r}, which none of its experiments "
                        f"({', '.join(c.experiments)}) writes: declare the experiment that does"
                        if isinstance(err, FileNotFoundError) else f"{type(err).__name__}: {err}")
                raise ClaimEvaluationError(", ".join(files), f"claim {c.id} could not be evaluated from these files "
                                           f"({what.replace(str(view), str(root))})",
                                           "recompute with " + ", ".join(f"`sgmcmc-verify run {e} --force`"
                                                                         for e in c.experiments)) from err
            finally:
                shutil.rmtree(view, ignore_errors=True)
            records.append(_record(c, v, manifests))
    return records


def _link_or_copy(src, dst):
    """Hard-link a snapshot file into a claim's view (read-only use), copying where links are not possible."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


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
    from ..store.io import read_regular

    try:
        js = json.loads(read_regular(path))   # a FIFO in its place is refused, not waited on
        return {c["id"]: c for c in js.get("claims", []) if isinstance(c, dict) and "id" in c}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|!#~])")


def _md_cell(text) -> str:
    """A string from a record as Markdown text: one line, HTML's ``& < >`` as entities, Markdown's link, emphasis,
    code and table characters backslash-escaped (a name like ``[x](javascript:...)`` or ``<img ...>`` stays text).

    Examples
    --------
    >>> print(_md_cell("[x](javascript:alert(1)) <b>|</b>"))
    \\[x\\](javascript:alert(1)) &lt;b&gt;\\|&lt;/b&gt;
    """
    t = " ".join(str(text).split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", t)


def _md_link(text, target) -> str:
    """``[text](target)`` for a relative figure path (segments percent-encoded), the escaped text alone otherwise."""
    from .site import rel_href

    parts = Path(str(target)).parts if target else ()
    if not parts or Path(str(target)).is_absolute() or any(p in ("", ".", "..") for p in parts):
        return _md_cell(text)
    return f"[{_md_cell(text)}]({rel_href(*parts)})"


def _md_map(m: dict, indent: int = 0) -> list[str]:
    out = []
    for k, v in m.items():
        out.append("  " * indent + f"- **{_md_cell(k)}**: {_md_cell(v['label'])}" +
                   (f" — {_md_cell(v['measured'])}" if not v.get("map") else f" (by {_md_cell(v.get('axis'))})"))
        if v.get("map"):
            out += _md_map(v["map"], indent + 1)
    return out


def report_markdown(records: list[dict], meta: dict) -> str:
    """``REPORT.md``: the scale banner, the counts, one line per claim (failures first), the depends maps, the claims
    whose rule changed after their results, the one-sided claims, the details."""
    recs = sort_records(records)
    scales = [_md_cell(x) for x in meta.get("scales") or ["—"]]
    c = meta["counts_by"]
    md = ["# Claims report", "", f"> **Scale: {', '.join(scales)}.** Every number below was measured at this scale"
          + ("" if scales == ["paper"] else " (the paper scale runs the published settings: `make verify-paper`)") + ".",
          "", f"{len(records)} claims; commit {_md_cell(meta['git']['commit'])}{' (dirty)' if meta['git']['dirty'] else ''}"
          + (f"; report {meta['report_id']}" if meta.get("report_id") else "") + ".",
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
        fig = _md_link(r["id"], r.get("figure"))
        extra = f" — **to decide:** {_md_cell(r['decide_by']['text'])}" if r.get("decide_by") and r["status"] != "held" \
            else ""
        md.append(f"| {fig} | **{_md_cell(r['label'])}** | {_md_cell(r['line'])}{extra} |")
    dep = [r for r in recs if r.get("map") and r["status"] == "depends"]
    if dep:
        md += ["", "## Where the verdict depends", ""]
        for r in dep:
            md += [f"### {_md_cell(r['id'])} (by {_md_cell(r.get('axis'))})", ""] + _md_map(r["map"]) + [""]
    changed = meta.get("rule_changed_after_result") or []
    md += ["", "## Rules changed after their results were stored", ""]
    if changed:
        md += ["| claim | rule last changed | first result | before | after |", "|---|---|---|---|---|"]
        for x in changed:
            rc, fr = x.get("rule_changed") or {}, x.get("first_result") or {}
            e = _md_cell
            md.append(f"| {e(x['id'])} | {e(rc.get('commit'))} ({e(rc.get('time'))}) | {e(fr.get('experiment'))} at "
                      f"{e(fr.get('commit'))} ({e(fr.get('created'))}) | {e(x['before'] or '—')} | {e(x['after'])} |")
    else:
        md.append("None: every rule was fixed before the results it decides were stored.")
    one = [r for r in recs if r.get("one_sided")]
    md += ["", "## One-sided claims", ""] + ([f"- {_md_cell(r['id'])}: {_md_cell(r['one_sided'])}" for r in one] or
                                             ["None: every claim's rule can hold and fail (shown with constructed "
                                              "measurements in the test suite)."])
    md += ["", "## Details", ""]
    e = _md_cell
    for r in recs:
        md += [f"### {e(r['id'])} — {e(r['label'])}", "", f"*{e(r['statement'])}*", "",
               f"- source: {e(r['source'])}", f"- expected: {e(r['expected'])}", f"- rule: {e(r.get('rule_text') or '—')}",
               f"- tolerance: {e(r['tolerance'])}", f"- measured: {e(r.get('measured_text', r['detail']))}"]
        if r.get("decide_by"):
            md.append(f"- to decide: {e(r['decide_by']['text'])}")
        if r.get("note"):
            md.append(f"- note: {e(r['note'])}")
        md += [f"- experiments: {e(', '.join(r['experiments']))} (scale {e(', '.join(r['scale']))}, "
               f"seed {e(', '.join(str(s) for s in r['seed'].values()))})", ""]
    return "\n".join(md) + "\n"


def write_report(records: list[dict], results_root="results", out_dir="figures/out") -> dict:
    """Write ``claims.json`` (under ``results_root``), ``REPORT.md`` and the report site (``REPORT.html`` and
    ``report/``, :func:`sgmcmc_verify.ledger.site.write_site`) under ``out_dir``; return the metadata.

    The previous ``claims.json`` (when there is one) supplies the verdict *before* for every claim whose rule changed
    after its results were stored.

    The outputs are written together: everything is rendered into a staging directory under ``out_dir``
    first (a full disk or a kill there leaves the previous report whole), then a journal
    (``out_dir/.report-commit.json``) is written and the staged files are renamed into place; a report
    killed during the renames is completed by the next ``write_report`` (:func:`recover_report`), so
    ``claims.json``, ``REPORT.md`` and the site always come from one evaluation (each names the same
    ``meta["report_id"]``).
    """
    counts_by = count_records(records)
    previous = _read_previous(Path(results_root) / "claims.json")
    meta = {"generated": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "git": git_commit(), "versions": package_versions(),
            "counts": counts_by["all"], "counts_by": counts_by,
            "scales": sorted({s for r in records for s in r.get("scale", [])}),
            "rule_changed_after_result": _before_after(records, previous),
            "one_sided": [{"id": r["id"], "why": r["one_sided"]} for r in records if r.get("one_sided")]}
    meta["report_id"] = hashlib.sha256(json.dumps([meta, records], sort_keys=True, default=str).encode()).hexdigest()[:16]
    out, results = Path(out_dir), Path(results_root)
    out.mkdir(parents=True, exist_ok=True)
    results.mkdir(parents=True, exist_ok=True)
    recover_report(out)
    stage = Path(tempfile.mkdtemp(dir=out, prefix=".report-stage-"))
    try:
        write_json(stage / "claims.json", {"meta": meta, "claims": records})
        write_text(stage / "REPORT.md", report_markdown(records, meta))
        write_site(records, meta, out, dest=stage)
        _make_readable(stage / SITE_DIR)
        write_json(out / _JOURNAL, {"stage": stage.name, "claims": str(results.resolve() / "claims.json"),
                                    "report_id": meta["report_id"]})
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    recover_report(out)
    return meta


#: the journal of a report being renamed into place (:func:`recover_report` completes it)
_JOURNAL = ".report-commit.json"


def _make_readable(d: Path) -> None:
    """Directories made by ``mkdtemp`` are 0700; give the staged site the mode of any other folder (0755)."""
    from ..store.io import _MODE

    dmode = _MODE | ((_MODE & 0o444) >> 2)   # 0644 -> 0755
    if d.is_dir():
        for p in [d, *d.rglob("*")]:
            if p.is_dir():
                os.chmod(p, dmode)


def recover_report(out_dir) -> bool:
    """Complete a report whose staged outputs were being renamed into ``out_dir`` when it was stopped.

    Reads ``out_dir/.report-commit.json`` (written once the staging directory is complete) and renames
    what is still staged: ``report/`` (the old one set aside first), ``REPORT.html``, ``REPORT.md``, then
    ``claims.json`` into the results directory; each step is skipped when already done. Staging
    directories without a journal (a report stopped while rendering) are removed.

    Returns
    -------
    bool
        Whether a journal was found and completed.
    """
    from ..store.io import read_json

    out = Path(out_dir)
    journal = out / _JOURNAL
    done = False
    if journal.is_file():
        try:
            j = read_json(journal)
            stage = out / str(j["stage"])
            claims = Path(j["claims"])
        except (ValueError, KeyError, TypeError):
            journal.unlink(missing_ok=True)
            j = None
        if j is not None and stage.parent.resolve() == out.resolve() and stage.name.startswith(".report-stage-"):
            if (stage / SITE_DIR).is_dir():
                old = out / f".report-old-{os.getpid()}-{time.monotonic_ns()}"
                if (out / SITE_DIR).exists():
                    os.replace(out / SITE_DIR, old)
                os.replace(stage / SITE_DIR, out / SITE_DIR)
                shutil.rmtree(old, ignore_errors=True)
            for name in ("REPORT.html", "REPORT.md"):
                if (stage / name).is_file():
                    os.replace(stage / name, out / name)
            if (stage / "claims.json").is_file():
                try:
                    os.replace(stage / "claims.json", claims)
                except OSError:   # another file system: copy next to it, then rename
                    tmp = claims.with_name(f".claims.json.{os.getpid()}.tmp")
                    shutil.copyfile(stage / "claims.json", tmp)
                    os.replace(tmp, claims)
            done = True
        journal.unlink(missing_ok=True)
        if j is not None and stage.name.startswith(".report-stage-"):
            shutil.rmtree(stage, ignore_errors=True)
    for p in out.glob(".report-stage-*"):
        if not journal.exists() and p.is_dir() and _stage_abandoned(p):
            shutil.rmtree(p, ignore_errors=True)
    for p in out.glob(".report-old-*"):
        shutil.rmtree(p, ignore_errors=True)
    return done


def _stage_abandoned(p: Path) -> bool:
    """A staging directory not touched for a minute (another report may be rendering into a fresh one)."""
    try:
        return time.time() - p.stat().st_mtime > 60
    except OSError:
        return False
