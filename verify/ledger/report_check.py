"""``make report-check``: the report site's links resolve, and headless Chromium renders it without errors.

Two checks, each problem printed on one line, exit status 1 if there is any:

1. **Static** (:func:`check_links`): every ``href`` / ``src`` of every page reachable from the index
   (``REPORT.html``), and of every page under ``report/``, resolves to a file; a ``#fragment`` names an
   element ``id`` of its target page; style sheets' ``url(...)`` resolve too; no image, style sheet or
   script is loaded from the network (a plain ``<a href="https://...">`` is allowed: nothing is fetched).
2. **Rendered** (:func:`render_page`): Debian's ``chromium`` opens the index and one paper page
   headless (``--headless --disable-gpu --no-sandbox``); ``--screenshot`` at ``--window-size=1280,2000``
   saves a PNG under ``report/screenshots/`` beside the pages; ``--dump-dom`` returns the DOM after the
   load event, whose ``data-report-errors`` attribute (filled by the pages' inline hook: uncaught script
   errors, ``console.error``, images that did not load) must be absent and ``data-report-loaded`` present;
   Chromium's own log (``--enable-logging=stderr --v=0``) must hold no console message (the pages write none).

Usage::

    python -m sgmcmc_verify.ledger.report_check [--out figures/out] [--claims results/claims.json] [--paper ewsg]

With ``--claims`` (the default when the file exists) the site is first re-rendered from that file
(:func:`sgmcmc_verify.ledger.site.render_site_from_json`), so the check sees what the current templates write.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .site import INDEX, SITE_DIR, render_site_from_json

__all__ = ["check_links", "render_page", "find_chromium", "page_refs", "main", "WINDOW", "CHROMIUM_NAMES"]

#: the screenshot's window, width x height in CSS pixels
WINDOW = (1280, 2000)
#: executable names tried, in order, by :func:`find_chromium`
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_URL_ATTRS = {"href", "src", "poster", "data"}
_NETWORK_SCHEMES = {"http", "https", "ftp", "ws", "wss"}
_SKIPPED_SCHEMES = {"mailto", "data", "javascript", "tel"}


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.refs: list[tuple[str, str, str]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name") and (name == "id" or tag == "a"):
                self.ids.add(value)
            elif name in _URL_ATTRS:
                self.refs.append((tag, name, value.strip()))
            elif name == "srcset":
                self.refs += [(tag, name, part.split()[0]) for part in value.split(",") if part.strip()]


def page_refs(html_text: str) -> tuple[list[tuple[str, str, str]], set[str]]:
    """The links of an HTML page and its anchors.

    Returns
    -------
    refs : list of (tag, attribute, value)
        Every ``href``, ``src``, ``srcset`` entry, ``poster`` and ``data`` attribute, in page order.
    ids : set of str
        Every element ``id`` (and ``<a name>``), the targets a ``#fragment`` may name.

    Examples
    --------
    >>> page_refs('<a href="b.html#x">b</a><img src="p.png"><p id="x"></p>')
    ([('a', 'href', 'b.html#x'), ('img', 'src', 'p.png')], {'x'})
    """
    p = _Refs()
    p.feed(html_text)
    p.close()
    return p.refs, p.ids


def _resolve(page: Path, value: str) -> tuple[str, Path | None, str]:
    """``(kind, target, fragment)``; kind is ``skip``, ``self``, ``network``, ``absolute`` or ``file``."""
    parts = urlsplit(value)
    scheme = parts.scheme.lower()
    if scheme in _SKIPPED_SCHEMES:
        return "skip", None, ""
    if scheme in _NETWORK_SCHEMES or parts.netloc:
        return "network", None, ""
    if scheme == "file" or (not scheme and parts.path.startswith("/")):
        return "absolute", None, ""
    if scheme:
        return "skip", None, ""
    if not parts.path:
        return "self", page, unquote(parts.fragment)
    target = page.parent / unquote(parts.path)
    if target.is_dir():
        target = target / "index.html"
    return "file", target, unquote(parts.fragment)


def check_links(out_dir="figures/out", index: str = INDEX) -> list[str]:
    """Every link, image and style sheet of the site under ``out_dir`` that does not resolve.

    Pages crawled: the index, every HTML page it reaches through local links (audit pages included),
    and every page under ``out_dir/report/``.

    Parameters
    ----------
    out_dir : path
        The report directory (``figures/out``).
    index : str
        The index page's name under ``out_dir``.

    Returns
    -------
    list of str
        One line per problem: ``page: <tag attr="value">: what is wrong``; empty when every link resolves.

    Raises
    ------
    FileNotFoundError
        ``out_dir/index`` does not exist (render the report first).
    """
    root = Path(out_dir)
    start = root / index
    if not start.is_file():
        raise FileNotFoundError(f"out_dir: no {start}; render the report first (`sgmcmc-verify report --no-run`)")
    queue = [start] + sorted((root / SITE_DIR).glob("*.html"))
    seen: set[Path] = set()
    ids_of: dict[Path, set[str]] = {}
    problems: list[str] = []
    fragments: list[tuple[str, Path, str]] = []

    def ids(page: Path) -> set[str]:
        if page not in ids_of:
            ids_of[page] = page_refs(page.read_text(errors="replace"))[1]
        return ids_of[page]

    while queue:
        page = queue.pop(0).resolve()
        if page in seen:
            continue
        seen.add(page)
        rel = page.relative_to(root.resolve()) if page.is_relative_to(root.resolve()) else page
        if page.suffix.lower() == ".css":
            refs = [("css", "url", u.strip("'\" ")) for u in re.findall(r"url\(([^)]*)\)", page.read_text())]
        else:
            refs, ids_of[page] = page_refs(page.read_text(errors="replace"))
        for tag, attr, value in refs:
            where = f"{rel}: <{tag} {attr}=\"{value}\">"
            kind, target, frag = _resolve(page, value)
            if kind == "skip" or (kind == "network" and tag == "a"):
                continue
            if kind == "network":
                problems.append(f"{where}: loads from the network (the report must work offline)")
            elif kind == "absolute":
                problems.append(f"{where}: absolute path (the report must work wherever it is copied)")
            elif not target.is_file():
                problems.append(f"{where}: broken, {target} does not exist")
            else:
                if target.suffix.lower() in (".html", ".htm", ".css"):
                    queue.append(target)
                if frag:
                    fragments.append((where, target.resolve(), frag))
    for where, target, frag in fragments:
        if target.suffix.lower() in (".html", ".htm") and frag not in ids(target):
            problems.append(f"{where}: no element with id {frag!r} in {target.name}")
    return list(dict.fromkeys(problems))  # a link that appears twice on a page is one problem


def find_chromium(explicit: str | None = None) -> str | None:
    """The Chromium executable: ``explicit`` if given, else the first of :data:`CHROMIUM_NAMES` on ``PATH``."""
    if explicit:
        return shutil.which(explicit) or (explicit if Path(explicit).is_file() else None)
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _chromium(chromium: str, args: list[str], url: str, timeout: float) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="report-check-") as profile:
        cmd = [chromium, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--hide-scrollbars",
               "--disable-extensions", "--enable-logging=stderr", "--v=0", f"--user-data-dir={profile}", *args, url]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def render_page(chromium: str, page, screenshot, *, window: tuple[int, int] = WINDOW, timeout: float = 120.0) -> list[str]:
    """Open ``page`` in headless Chromium: save a screenshot, return the problems seen while rendering.

    Parameters
    ----------
    chromium : str
        The executable (:func:`find_chromium`).
    page : path
        The HTML file.
    screenshot : path
        Where the PNG goes (its folder is created).
    window : (int, int)
        Window width and height in CSS pixels.
    timeout : float
        Seconds allowed to each of the two Chromium runs.

    Returns
    -------
    list of str
        Console messages in Chromium's log, errors recorded in the DOM by the page's hook (uncaught
        errors, ``console.error``, images not loaded), a page whose hook never saw the load event, a
        missing screenshot, a Chromium exit status other than 0; empty when the page rendered cleanly.
    """
    page, screenshot = Path(page).resolve(), Path(screenshot)
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    url = page.as_uri()
    name = page.name
    problems = []
    runs = {"screenshot": [f"--screenshot={screenshot.resolve()}", f"--window-size={window[0]},{window[1]}"],
            "dump-dom": ["--virtual-time-budget=10000", "--dump-dom"]}
    dom = ""
    for what, args in runs.items():
        if what == "screenshot" and screenshot.exists():
            screenshot.unlink()
        try:
            res = _chromium(chromium, args, url, timeout)
        except subprocess.TimeoutExpired:
            problems.append(f"{name}: chromium --{what} did not finish in {timeout:g} s")
            continue
        if res.returncode != 0:
            problems.append(f"{name}: chromium --{what} exited with status {res.returncode}: {res.stderr.strip()[-300:]}")
        for line in res.stderr.splitlines():
            if ":CONSOLE" in line:
                problems.append(f"{name}: console message: {line.split(']', 1)[-1].strip()}")
        if what == "dump-dom":
            dom = res.stdout
    if not (screenshot.is_file() and screenshot.stat().st_size > 0):
        problems.append(f"{name}: no screenshot written to {screenshot}")
    if dom:
        m = re.search(r"<html\b[^>]*>", dom, re.I)
        head = m.group(0) if m else ""
        err = re.search(r'data-report-errors="([^"]*)"', head)
        if err:
            problems.append(f"{name}: errors while rendering: {err.group(1)}")
        if "data-report-loaded" not in head:
            problems.append(f"{name}: the page's load event was not seen (its error hook missing, or it did not load)")
    elif not any("--dump-dom" in p for p in problems):
        problems.append(f"{name}: chromium --dump-dom returned no DOM")
    return list(dict.fromkeys(problems))  # both runs see the same console messages


def main(argv=None) -> int:
    """Command line of ``make report-check``; returns the exit status (0: no problem; 1: problems; 2: no Chromium)."""
    ap = argparse.ArgumentParser(prog="python -m sgmcmc_verify.ledger.report_check", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="figures/out", help="the report directory (default: figures/out)")
    ap.add_argument("--claims", default="results/claims.json",
                    help="re-render the site from this claims.json first, if it exists (default: results/claims.json)")
    ap.add_argument("--no-render", action="store_true", help="check the pages as they are")
    ap.add_argument("--paper", default=None, help="the paper page to render (default: the first on the index)")
    ap.add_argument("--chromium", default=None, help="the Chromium executable (default: chromium on PATH)")
    ap.add_argument("--static-only", action="store_true", help="only the static link check")
    ap.add_argument("--readme-screenshot", default=None, metavar="PATH",
                    help="copy the index's screenshot to PATH when every check passed (make report-check: "
                         "docs/img/report_index.png, the README's picture)")
    a = ap.parse_args(argv)
    out = Path(a.out)
    if not a.no_render and Path(a.claims).is_file():
        pages = render_site_from_json(a.claims, out)
        print(f"rendered {len(pages)} pages from {a.claims} into {out}")
    problems = check_links(out)
    print(f"static check: {len(problems)} problem(s)")
    if not a.static_only:
        chromium = find_chromium(a.chromium)
        if chromium is None:
            print("no chromium on PATH (Debian: apt-get install -y chromium; `make report-check` offers to install it)",
                  file=sys.stderr)
            return 2
        papers = sorted((out / SITE_DIR).glob("*.html"))
        if a.paper:
            papers = [out / SITE_DIR / f"{a.paper}.html"]
        else:  # the first paper card on the index
            index_refs = page_refs((out / INDEX).read_text())[0]
            first = next((v for t, at, v in index_refs if t == "a" and re.fullmatch(rf"{SITE_DIR}/[^/?#]+\.html", v)), None)
            papers = [out / first] if first else papers[:1]
        shots = out / SITE_DIR / "screenshots"
        for page in [out / INDEX] + papers:
            if not page.is_file():
                problems.append(f"{page}: no such page")
                continue
            shot = shots / ("index.png" if page.name == INDEX else f"{page.stem}.png")
            found = render_page(chromium, page, shot)
            print(f"chromium: {page.relative_to(out)} -> {shot} ({len(found)} problem(s))")
            problems += found
    for p in problems:
        print("PROBLEM " + p, file=sys.stderr)
    shot = out / SITE_DIR / "screenshots" / "index.png"
    if a.readme_screenshot and not problems and not a.static_only and shot.is_file():
        dst = Path(a.readme_screenshot)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, dst)
        print(f"screenshot of the index -> {dst}")
    print("report-check: " + ("ok" if not problems else f"{len(problems)} problem(s)"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
