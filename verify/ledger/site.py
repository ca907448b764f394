"""The claims report as a small static site: an index of papers (one card each) and a page per paper.

Layout under the report directory ``out`` (``figures/out``; the figures are already there, drawn by
``figures/<paper>.py`` into ``out/<paper>/``)::

    REPORT.html                      the index: a card per paper (status counts, headline findings,
                                     thumbnails), a card per audit page found under audit/<name>/
    report/<paper>.html              each claim beside its figure (thumbnail, a click opens the PNG),
                                     the evidence folded under it, a filter by status
    report/report.css                the one style sheet
    report/thumbs/<paper>/<fig>-<sha>.png  thumbnails (Pillow), keyed by the SHA-256 of the figure's bytes
                                     (a copy that keeps old times, or clock skew, cannot leave a stale one)

Plain HTML and CSS from the Jinja2 templates in ``verify/ledger/templates/``; no server, no network.
Each page carries a few lines of inline JavaScript: the status filter's preset from ``?status=``, and a
hook that records script errors, ``console.error`` calls and images that did not load in the
``data-report-errors`` attribute of ``<html>``, which :mod:`sgmcmc_verify.ledger.report_check` reads from the
DOM of a headless Chromium.

Audit pages (``out/audit/<name>/index.html``) are written by the audit battery; a ``summary.json``
beside each (rows ``{check, measured, expected, status, detail}``, a list or under ``"rows"``) gives its
card's counts. The index works without any.

Safety (the records may come from a ``claims.json`` anyone could have edited): every name that becomes a
path is a slug (:func:`slug`), every link is a relative path whose segments are percent-encoded
(:func:`rel_href`: an audit named ``javascript:alert(1)`` links to ``audit/javascript%3Aalert%281%29/``),
every path written or read is checked to stay inside the report directory (:func:`inside`), and
the files are written with the pages' mode (0666 less the umask: 0644).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections import Counter
from urllib.parse import quote
from pathlib import Path
from typing import Any, Mapping, Sequence

import jinja2

from ..store.io import _MODE, write_text
from .verdict import REPORT_ORDER, STATUSES

__all__ = ["write_site", "render_site_from_json", "status_class", "short_source", "INDEX", "SITE_DIR", "PAPERS", "THUMB_BOX",
           "slug", "rel_href", "inside"]

#: the index page, under the report directory (the name the README and ``make verify`` have always used)
INDEX = "REPORT.html"
#: the folder of the paper pages, style sheet and thumbnails, under the report directory
SITE_DIR = "report"
#: thumbnails fit in this box (pixels, width x height); shown at half size for sharp rendering on HiDPI screens
THUMB_BOX = (640, 440)
#: short name and full reference of each paper (seed texts, ``/work/shared/seeds/README``); a paper not listed
#: is shown by its id
PAPERS = {
    "ewsg": ("EWSG, journal text", "Li, Wang, Zha, Tao — Improving sampling accuracy of stochastic gradient MCMC "
             "methods via non-uniform subsampling of gradients (journal text, 2021)"),
    "ewsg_iclr": ("EWSG, conference text", "Li, Wang, Zha, Tao — the same paper, earlier conference text "
                  "(n = 20 in §5.1, Theorem 2's exact kernel matching, extra Fig. 1 panels)"),
    "hsg_hmc": ("HSG-HMC", "Zhang, Li, Shen, Xie, Qian — A Hybrid Stochastic Gradient Hamiltonian Monte Carlo "
                "Method (AAAI 2021)"),
    "vrsg": ("vrSG-MCMC", "Chen, Wang, Zhang, Su, Carin — A Convergence Analysis for a Class of Practical "
             "Variance-Reduction SG-MCMC (AAAI 2018)"),
    "ls_sgld": ("LS-SGLD", "Wang, Zou, Gu, Osher — Laplacian Smoothing Stochastic Gradient MCMC "
                "(SIAM J. Sci. Comput. 2021)"),
}
_HEADLINES = 3
_RASTER = (".png", ".jpg", ".jpeg", ".gif", ".webp")
_TEMPLATES = Path(__file__).with_name("templates")


def status_class(status: str) -> str:
    """CSS class of a status: ``held`` -> ``s-held``, ``not run (scale)`` -> ``s-not-run-scale``; audit words map onto
    the ledger's statuses (``pass``/``ok`` -> held, ``fail``/``error`` -> failed, ``warn`` -> inconclusive).

    Examples
    --------
    >>> status_class("not run"), status_class("PASS"), status_class("error"), status_class("not run (scale)")
    ('s-not-run', 's-held', 's-failed', 's-not-run-scale')
    """
    s = str(status).strip().lower()
    s = {"pass": "held", "passed": "held", "ok": "held", "fail": "failed", "error": "failed",
         "warn": "inconclusive", "warning": "inconclusive"}.get(s, s)
    return "s-" + re.sub(r"[^a-z]+", "-", s if s in STATUSES else "not run").strip("-")


def short_source(source: str) -> str:
    """A claim's source without the leading seed-file name (the paper page shows it in full).

    Examples
    --------
    >>> short_source("000_8e0377c44e2ea3b8.txt, §5.1, Fig. 1c")
    '§5.1, Fig. 1c'
    """
    return re.sub(r"^\s*\d{3}_[0-9a-f]{16}\.txt[,;:]?\s*", "", source) or source


def slug(name) -> str:
    """``name`` as one safe path segment: letters, digits, ``.``, ``_`` and ``-`` kept, every other run replaced by
    ``-``; no leading dot or dash, at most 80 characters (a digest suffix keeps distinct long names apart).

    Examples
    --------
    >>> slug("ewsg"), slug("javascript:alert(1)"), slug("../../etc"), slug("")
    ('ewsg', 'javascript-alert-1', 'etc', 'x')
    """
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", str(name)).strip(".-") or "x"
    if len(s) > 80:
        s = s[:63] + "-" + hashlib.sha256(str(name).encode()).hexdigest()[:16]
    return s


def rel_href(*segments) -> str:
    """A relative link from path segments, each percent-encoded (``:`` ``/`` ``?`` ``#`` included), so no segment
    can make it absolute, give it a scheme or leave its folder.

    Examples
    --------
    >>> rel_href("audit", "javascript:alert(1)", "index.html")
    'audit/javascript%3Aalert%281%29/index.html'
    >>> rel_href("..", "x")
    Traceback (most recent call last):
    ...
    ValueError: link segment '..' is not allowed
    """
    out = []
    for seg in segments:
        seg = str(seg)
        if seg in ("", ".", ".."):
            raise ValueError(f"link segment {seg!r} is not allowed")
        out.append(quote(seg, safe=""))
    return "/".join(out)


def inside(base, path) -> Path:
    """``path`` (resolved) if it lies inside ``base`` (resolved), else ``ValueError`` naming both."""
    b, p = Path(base).resolve(), Path(path).resolve()
    if p != b and b not in p.parents:
        raise ValueError(f"{str(path)!r} is outside the report directory {str(base)!r}; refused")
    return p


def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(_TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters["status_class"] = status_class
    env.filters["short_source"] = short_source
    env.filters["slug"] = slug
    env.filters["seg"] = lambda v: quote(str(v), safe="")
    return env


def _thumbnail(src: Path, dst: Path, reuse: Path | None = None) -> tuple[int, int]:
    """Write a PNG thumbnail of ``src`` fitting :data:`THUMB_BOX` to ``dst`` (atomically, mode 0644); return its
    (width, height) in pixels.

    ``dst``'s name carries the SHA-256 of ``src``'s bytes, so an existing ``dst`` (or ``reuse``, the same name in
    the previous site) is the thumbnail of exactly these bytes and is kept (linked or copied from ``reuse``)."""
    import shutil

    from PIL import Image

    for have in (dst, reuse):
        if have is not None and have.is_file():
            try:
                with Image.open(have) as im:
                    size = im.size
            except (OSError, ValueError):
                continue
            if size[0] <= THUMB_BOX[0] and size[1] <= THUMB_BOX[1]:  # else made for a larger box: remake
                if have != dst:
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(have, dst)
                    os.chmod(dst, _MODE)
                return size
    dst.parent.mkdir(parents=True, exist_ok=True)
    with Image.open(src) as im:
        im.thumbnail(THUMB_BOX, Image.Resampling.LANCZOS)
        fd, tmp = tempfile.mkstemp(dir=dst.parent, prefix=f".{dst.name}.", suffix=".png")
        os.close(fd)
        try:
            im.save(tmp, format="PNG", optimize=True)
            os.chmod(tmp, _MODE)
            os.replace(tmp, dst)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return im.size


def _figure(rel: str | None, out: Path, dest: Path | None = None, claim: str = "?") -> dict | None:
    """What a page shows for a claim's figure ``rel`` (relative to ``out``): links from ``out/report/``, the
    thumbnail (written under ``dest``, default ``out``), or ``missing`` when the file is not there (no broken link is
    written).

    Raises
    ------
    ValueError
        ``rel`` is absolute, has a ``..`` or empty segment, or resolves outside ``out`` (a crafted record).
    """
    if not rel:
        return None
    parts = Path(str(rel)).parts
    if Path(str(rel)).is_absolute() or not parts or any(p in ("", ".", "..") for p in parts) or "\\" in str(rel):
        raise ValueError(f"claim {claim!r}: figure {str(rel)!r} is not a relative path inside the report directory")
    src = out / rel
    inside(out, src)
    dest = out if dest is None else dest
    fig = {"rel": rel, "name": Path(rel).name, "missing": not src.is_file(), "full": "../" + rel_href(*parts),
           "pdf": None, "thumb": None, "width": None, "height": None, "paper": parts[0]}
    if fig["missing"]:
        return fig
    pdf = src.with_suffix(".pdf")
    if src.suffix.lower() != ".pdf" and pdf.is_file():
        fig["pdf"] = "../" + rel_href(*Path(rel).with_suffix(".pdf").parts)
    if src.suffix.lower() in _RASTER:
        digest = hashlib.sha256(src.read_bytes()).hexdigest()[:16]
        tparts = [slug(p) for p in parts[:-1]] + [f"{slug(Path(parts[-1]).stem)}-{digest}.png"]
        tdst = inside(dest, dest.joinpath(SITE_DIR, "thumbs", *tparts))
        w, h = _thumbnail(src, tdst, out.joinpath(SITE_DIR, "thumbs", *tparts) if dest != out else None)
        fig.update(thumb=rel_href("thumbs", *tparts), width=(w + 1) // 2, height=(h + 1) // 2)
    elif src.suffix.lower() == ".svg":
        fig.update(thumb=fig["full"])
    return fig


#: the rows of the counts table: what a verdict rests on (claims about the toolkit counted apart)
_GROUPS = (("paper", "on the paper's setting"), ("substitute data", "on substitute data"),
           ("our design", "on our design"), ("toolkit", "about the toolkit itself"))


def _shown_statuses(records) -> tuple:
    """Statuses in report order (failures first); the rarely used ``not run (scale)`` only when a record has it."""
    present = {r["status"] for r in records}
    return tuple(s for s in REPORT_ORDER if s != "not run (scale)" or s in present)


def _report_order(recs: Sequence[Mapping]) -> list:
    """Failures first, then depends, inconclusive, held, not run; the paper's setting before substitute data and our
    design, claims about the toolkit last within a status."""
    bases = ("paper", "our design", "substitute data")
    return sorted(recs, key=lambda r: (REPORT_ORDER.index(r["status"]) if r["status"] in REPORT_ORDER else 99,
                                       r.get("about") == "toolkit",
                                       bases.index(r.get("basis", "paper")) if r.get("basis", "paper") in bases else 0,
                                       r["id"]))


def map_grid(m: Mapping | None) -> dict | None:
    """A ``depends`` (or any combined) verdict's map as a drawable grid.

    One level: ``{"rows": None, "cols": [keys], "cells": [[cell, ...]]}`` (one row). Two levels (e.g. reading ×
    data set): rows are the first-level keys, columns the union of the second-level keys; a missing cell is None.
    Each cell is ``{"label", "status", "title"}``. Deeper levels are summarized by the second level's status. When
    only some first-level entries have a map (a reading decided over data draws beside one decided once), the grid has
    two levels all the same: an entry without a map is a row whose header carries its status and whose cells are
    empty, so that the regions of every entry that has them are drawn.

    Examples
    --------
    >>> g = map_grid({"a": {"status": "held", "label": "held", "measured": "x", "map": None}})
    >>> g["cols"], g["cells"][0][0]["status"]
    (['a'], 'held')
    >>> leaf = {"status": "failed", "label": "failed", "measured": "y", "map": None}
    >>> g = map_grid({"once": leaf, "per draw": {"status": "depends", "label": "depends", "measured": "",
    ...                                         "map": {"draw 1": leaf, "draw 2": {**leaf, "status": "held"}}}})
    >>> g["cols"], [r[0] for r in g["rows"]], g["cells"][0], [c["status"] for c in g["cells"][1]]
    (['draw 1', 'draw 2'], ['once', 'per draw'], [None, None], ['failed', 'held'])
    """
    if not m:
        return None

    def cell(v):
        return None if v is None else {"status": v["status"], "label": v["label"],
                                       "title": " ".join(str(v.get("measured") or "").split())[:400]}
    if any(v.get("map") for v in m.values()):
        cols = list(dict.fromkeys(k for v in m.values() for k in (v.get("map") or {})))
        return {"rows": [(k, cell(v)) for k, v in m.items()], "cols": cols,
                "axis": next(v for v in m.values() if v.get("map")).get("axis"),
                "cells": [[cell((v.get("map") or {}).get(c)) for c in cols] for v in m.values()]}
    return {"rows": None, "cols": list(m), "axis": None, "cells": [[cell(v) for v in m.values()]]}


def _pretty(obj: Any) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False, default=str)


def _audits(out: Path) -> list[dict]:
    """One card per ``out/audit/<name>/index.html``, with counts from the ``summary.json`` beside it."""
    cards = []
    for page in sorted((out / "audit").glob("*/index.html")):
        if not page.is_file() or page.is_symlink():   # a FIFO or a link planted there is not read
            continue
        name = page.parent.name
        m = re.search(r"<title>(.*?)</title>", page.read_text(errors="replace"), re.S | re.I)
        card = {"name": name, "title": " ".join(m.group(1).split()) if m else name,
                "href": rel_href("audit", name, "index.html"), "counts": [], "problems": [], "note": ""}
        summary = page.parent / "summary.json"
        if summary.is_file() and not summary.is_symlink():
            try:
                data = json.loads(summary.read_text())
                rows = data.get("rows", data.get("checks", [])) if isinstance(data, dict) else data
                rows = [r for r in rows if isinstance(r, Mapping)]
                counts = Counter(str(r.get("status", "?")) for r in rows)
                card["counts"] = [(s, n, status_class(s)) for s, n in sorted(counts.items())]
                card["problems"] = [r for r in rows if status_class(r.get("status", "")) != "s-held"][:_HEADLINES]
            except (ValueError, TypeError, AttributeError) as err:
                card["note"] = f"summary.json unreadable ({type(err).__name__}: {err})"
        else:
            card["note"] = "no summary.json beside the page"
        cards.append(card)
    return cards


def _paper_card(paper: str, recs: Sequence[Mapping], figs: Mapping[str, dict | None]) -> dict:
    name, title = PAPERS.get(paper, (paper, ""))
    counts = {s: sum(r["status"] == s for r in recs) for s in STATUSES}
    failed = [r for r in recs if r["status"] == "failed"]
    shown, thumbs = set(), []
    for r in failed + [r for r in recs if r["status"] != "failed"]:
        f = figs[r["id"]]
        if f and f["thumb"] and f["rel"] not in shown and len(thumbs) < 3:
            shown.add(f["rel"])
            thumbs.append(dict(f, claim=r["id"], status=r["status"]))
    return {"id": paper, "name": name, "title": title, "counts": counts, "total": len(recs),
            "headlines": failed[:_HEADLINES], "more_failed": max(0, len(failed) - _HEADLINES), "thumbs": thumbs,
            "href": rel_href(SITE_DIR, f"{slug(paper)}.html")}


def write_site(records: Sequence[Mapping], meta: Mapping[str, Any], out_dir="figures/out", dest=None) -> list[Path]:
    """Render the report site for ``records`` (the dicts of :func:`sgmcmc_verify.ledger.report.evaluate`).

    Parameters
    ----------
    records : sequence of dict
        Claim records: ``id``, ``paper``, ``status``, ``statement``, ``source``, ``expected``, ``tolerance``,
        ``detail``, ``measured``, ``figure`` (path under ``out_dir`` or None), ``experiments``, ``settings``,
        ``scale``, ``seed``, ``result_keys``, ``result_git``; the last six may be absent.
    meta : dict
        ``generated`` (time stamp), ``git`` (``commit``, ``dirty``), ``counts``.
    out_dir : path
        The report directory; the figures named by the records are looked up there.
    dest : path or None
        Where the pages are written (default ``out_dir``): :func:`sgmcmc_verify.ledger.report.write_report` writes
        them into a staging directory and renames them into ``out_dir`` together with ``REPORT.md`` and
        ``claims.json``.

    Returns
    -------
    list of pathlib.Path
        The pages written: the index first, then one page per paper (papers in the order they first appear).

    Raises
    ------
    ValueError
        A record whose ``status`` is not one of :data:`sgmcmc_verify.ledger.claims.STATUSES`, or a figure path or
        page that would lie outside the report directory.
    """
    out = Path(out_dir)
    dest = out if dest is None else Path(dest)
    for r in records:
        if r["status"] not in STATUSES:
            raise ValueError(f"records: claim {r.get('id')!r} has status {r['status']!r}, not one of {STATUSES}")
    env = _env()
    site = dest / SITE_DIR
    site.mkdir(parents=True, exist_ok=True)
    write_text(site / "report.css", (_TEMPLATES / "report.css").read_text())
    by_paper: dict[str, list] = {}
    for r in records:
        by_paper.setdefault(r["paper"], []).append(r)
    figs = {r["id"]: _figure(r.get("figure"), out, dest, r.get("id", "?")) for r in records}
    cards = [_paper_card(p, recs, figs) for p, recs in by_paper.items()]
    scales = sorted({s for r in records for s in r.get("scale", [])})
    common = {"meta": meta, "scales": scales, "statuses": _shown_statuses(records), "papers": cards,
              "changed": meta.get("rule_changed_after_result") or [], "one_sided": meta.get("one_sided") or [],
              "counts_by": meta.get("counts_by"), "groups": _GROUPS}
    pages = [dest / INDEX]
    write_text(pages[0], env.get_template("index.html.j2").render(
        root="", css=f"{SITE_DIR}/report.css", total=len(records), audits=_audits(out),
        markdown="REPORT.md" if (dest / "REPORT.md").is_file() else None,
        counts={s: sum(r["status"] == s for r in records) for s in STATUSES}, **common))
    template = env.get_template("paper.html.j2")
    for card in cards:
        claims = [dict(r, fig=figs[r["id"]], measured_json=_pretty(r.get("measured", {})),
                       settings_json=_pretty(r.get("settings", {})), grid=map_grid(r.get("map")))
                  for r in _report_order(by_paper[card["id"]])]
        page = inside(site, site / f"{slug(card['id'])}.html")
        write_text(page, template.render(root="../", css="report.css", paper=card, claims=claims, **common))
        pages.append(page)
    for stale in site.glob("*.html"):  # pages of papers no longer in the records would dangle
        if stale.resolve() not in {p.resolve() for p in pages}:
            stale.unlink()
    return pages


def render_site_from_json(claims_json="results/claims.json", out_dir="figures/out") -> list[Path]:
    """Re-render the site from a stored ``claims.json`` (``{"meta": ..., "claims": [...]}``) without evaluating
    any claim; what ``make report-check`` does before it opens the pages.

    Raises
    ------
    FileNotFoundError
        ``claims_json`` does not exist (``make verify`` or ``sgmcmc-verify report`` writes it).
    ValueError
        The file is not a claims report.
    """
    path = Path(claims_json)
    if not path.is_file():
        raise FileNotFoundError(f"claims_json: {path} does not exist; `make verify` or "
                                f"`sgmcmc-verify report --no-run` writes it")
    data = json.loads(path.read_text())
    if not isinstance(data, dict) or "claims" not in data or "meta" not in data:
        raise ValueError(f"claims_json: {path} has no 'meta' and 'claims' (not written by sgmcmc_verify.ledger.report)")
    return write_site(data["claims"], data["meta"], out_dir)
