"""Evaluate the ledger against stored results and render the report (JSON, Markdown, HTML).

``results/claims.json``: one record per claim with the verdict, the measured numbers, the settings
and seed of the experiments it read, package versions and the git commit.
``figures/out/REPORT.md``: a summary table (claim, source, expected, measured, status) with each claim
linked to the figure that shows it, then the details. ``figures/out/REPORT.html`` and ``figures/out/report/``:
the same as a small static site (:mod:`sgmcmc_verify.ledger.site`): an index card per paper, a page per paper
with each claim beside its figure.
"""
from __future__ import annotations

import time
from pathlib import Path

from ..errors import ResultFileError
from ..store.cache import git_commit, package_versions, verify_published
from ..store.io import write_json, write_text
from .claims import STATUSES, Claim, Verdict
from .site import write_site

__all__ = ["evaluate", "write_report", "MissingResultsError", "ClaimEvaluationError"]


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
        records.append({
            "id": c.id, "paper": c.paper, "source": c.source, "statement": c.statement, "expected": c.expected,
            "tolerance": c.tolerance, "status": v.status, "measured": v.measured, "detail": v.detail,
            "figure": c.figure, "experiments": list(c.experiments),
            "settings": {e: m["settings"] for e, m in manifests.items()},
            "scale": sorted({m["scale"] for m in manifests.values()}),
            "seed": {e: m["settings"].get("seed") for e, m in manifests.items()},
            "result_keys": {e: m["key"] for e, m in manifests.items()},
            "result_git": {e: m.get("git") for e, m in manifests.items()},
        })
    return records


def write_report(records: list[dict], results_root="results", out_dir="figures/out") -> dict:
    """Write ``claims.json`` (under ``results_root``), ``REPORT.md`` and the report site (``REPORT.html`` and
    ``report/``, :func:`sgmcmc_verify.ledger.site.write_site`) under ``out_dir``; return the metadata."""
    counts = {s: sum(r["status"] == s for r in records) for s in STATUSES}
    meta = {"generated": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "git": git_commit(), "versions": package_versions(),
            "counts": counts}
    write_json(Path(results_root) / "claims.json", {"meta": meta, "claims": records})
    out = Path(out_dir)
    md = ["# Claims report", "",
          f"{len(records)} claims: **{counts['held']} held**, **{counts['failed']} failed**, "
          f"**{counts['inconclusive']} inconclusive**, **{counts['not run']} not run**. Commit `{meta['git']['commit']}`"
          f"{' (dirty)' if meta['git']['dirty'] else ''}; scale(s) {sorted({s for r in records for s in r['scale']})}.",
          "", "A failed claim is a finding: our measurement does not support the paper's statement at the stated "
          "tolerance. Details and evidence below the table.", "",
          "| claim | source | expected | measured | status |", "|---|---|---|---|---|"]
    for r in records:
        fig = f"[{r['id']}]({r['figure']})" if r["figure"] else r["id"]
        md.append(f"| {fig} | {r['source']} | {r['expected']} | {r['detail']} | **{r['status']}** |")
    md += ["", "## Details", ""]
    for r in records:
        md += [f"### {r['id']} — {r['status']}", "", f"*{r['statement']}*", "",
               f"- source: {r['source']}", f"- expected: {r['expected']}", f"- tolerance: {r['tolerance']}",
               f"- measured: {r['detail']}", f"- experiments: {', '.join(r['experiments'])} (scale {', '.join(r['scale'])}, "
               f"seed {', '.join(str(s) for s in r['seed'].values())})", ""]
    write_text(out / "REPORT.md", "\n".join(md) + "\n")

    write_site(records, meta, out)
    return meta
