"""Pre-registration: was each claim's rule fixed before its results were stored?

A claim's *rule lines* are the lines of its declaration (the ``declare(...)`` expression, or an old-style
evaluator's source), the classes of every rule it is built from, and the definitions of the thresholds those
rules read (:data:`sgmcmc_verify.ledger.rules.THRESHOLDS`). ``git blame`` gives the commit that last changed each
line (uncommitted edits count as now); the latest of them is when the rule last changed. A claim's *first result* is
the earliest-created manifest among the experiments it reads (``created`` and the ``git`` commit the experiment ran
at, :mod:`sgmcmc_verify.store.cache`). The rule changed after the result when its last commit is not an ancestor of
the result's commit (or, where the result's commit is not in the repository, when it is later in time), or when a
rule line has uncommitted edits.

The report lists every claim whose rule changed after a result was stored, with the verdict recorded in the
previous ``claims.json`` beside the new one where the rule's fingerprint (:func:`fingerprint`) differs.

Outside a git checkout (an installed wheel) the record says so; nothing fails.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import json
import re
import subprocess
import time
from pathlib import Path
from typing import Mapping

from .rules import THRESHOLDS, walk

__all__ = ["fingerprint", "rule_spans", "last_change", "record", "UNCOMMITTED"]

UNCOMMITTED = "0" * 40


def fingerprint(claim) -> str:
    """SHA-256 (16 hex) of what decides the claim: the rule's parameters, the expected text, design and one-sidedness
    of a declared claim; the source of an old-style evaluator."""
    if claim.rule is not None:
        payload = json.dumps({"rule": claim.rule.describe(), "expected": claim.expected, "design": claim.design,
                              "one_sided": claim.one_sided}, sort_keys=True, default=str)
    else:
        try:
            payload = inspect.getsource(_unwrap(claim.evaluate))
        except (OSError, TypeError):
            payload = repr(claim.evaluate)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def _unwrap(fn):
    while isinstance(fn, functools.partial):
        fn = fn.func
    return inspect.unwrap(fn)


#: ``{obj: (file's mtime_ns, span)}``: :func:`_source_span`'s results. ``inspect.getsourcelines`` parses the whole
#: module for a class (0.05 s each for ``rules.py``), and every claim evaluated (the report, each figure's verdict
#: stamp) asks again for the same rule classes: with the cache, ``figures ls_sgld`` takes 0.76x the CPU time
#: (docs/benchmarks.md, "#26: the figures step").
#: A span is recomputed when its file's modification time changes, so an edit in a running process is seen.
_SPANS: dict = {}


def _mtime(file) -> int | None:
    try:
        return Path(file).stat().st_mtime_ns
    except (OSError, TypeError):
        return None


def _source_span(obj) -> tuple | None:
    """``(file, first line, last line)`` of ``obj``'s source, or None where it has none."""
    try:
        hit = _SPANS.get(obj)
    except TypeError:   # unhashable: not cached
        hit = None
    if hit is not None and hit[1] is not None and hit[0] == _mtime(hit[1][0]):
        return hit[1]
    try:
        lines, start = inspect.getsourcelines(obj)
        span = (inspect.getsourcefile(obj), start, start + len(lines) - 1)
    except (OSError, TypeError):
        return None
    try:
        _SPANS[obj] = (_mtime(span[0]), span)
    except TypeError:
        pass
    return span


@functools.lru_cache(maxsize=None)
def _constant_lines(file: str) -> dict:
    """``{NAME: (first, last)}``: each ``NAME = ...`` definition of ``file`` with the ``#:`` comment above it."""
    out = {}
    lines = Path(file).read_text().splitlines()
    for i, ln in enumerate(lines):
        m = re.match(r"^([A-Z][A-Z0-9_]*)\s*(?::[^=]*)?=", ln)
        if m:
            j = i
            while j > 0 and lines[j - 1].startswith("#:"):
                j -= 1
            out[m.group(1)] = (j + 1, i + 1)
    return out


def rule_spans(claim) -> list[tuple]:
    """``[(file, first line, last line), ...]``: the declaration, the rule classes and the thresholds they read."""
    spans = []
    if claim.declared_at:
        spans.append(claim.declared_at)
    elif claim.evaluate is not None:
        s = _source_span(_unwrap(claim.evaluate))
        if s:
            spans.append(s)
    if claim.rule is not None:
        from . import rules as R

        seen = set()
        for node in walk(claim.rule):
            cls = type(node)
            for c in cls.__mro__:
                if c.__module__ == R.__name__ and c not in seen and c is not object:
                    seen.add(c)
                    s = _source_span(c)
                    if s:
                        spans.append(s)
            consts = _constant_lines(R.__file__)
            for name in cls.uses:
                if name in consts and name in THRESHOLDS:
                    spans.append((R.__file__,) + consts[name])
    return spans


def _git(repo: Path, *args) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


@functools.lru_cache(maxsize=None)
def _toplevel(directory: str) -> str | None:
    out = _git(Path(directory), "rev-parse", "--show-toplevel")
    return out.strip() if out else None


@functools.lru_cache(maxsize=None)
def _blame(file: str) -> dict | None:
    """``{line: (commit, committer time)}`` for every line of ``file`` (uncommitted lines: :data:`UNCOMMITTED`, now)."""
    top = _toplevel(str(Path(file).parent))
    if top is None:
        return None
    out = _git(Path(top), "blame", "--porcelain", "--", str(Path(file).resolve()))
    if out is None:
        return None
    times, lines, cur = {}, {}, None
    for ln in out.splitlines():
        m = re.match(r"^([0-9a-f]{40}) \d+ (\d+)", ln)
        if m:
            cur = m.group(1)
            lines[int(m.group(2))] = cur
        elif ln.startswith("committer-time ") and cur is not None:
            times[cur] = int(ln.split()[1])
    now = int(time.time())
    return {k: (c, now if c == UNCOMMITTED else times.get(c, now)) for k, c in lines.items()}


def last_change(claim) -> dict | None:
    """The latest commit among the claim's rule lines: ``{"commit", "time", "epoch", "repo"}`` (None outside git).

    Commits with the same committer time (one second) are ordered by ancestry."""
    spans = rule_spans(claim)
    if not spans:
        return None
    found = {}
    for file, a, b in spans:
        bl = _blame(file)
        if bl is None:
            return None
        for k in range(a, b + 1):
            if k in bl:
                found[bl[k][0]] = bl[k][1]
    if not found:
        return None
    repo = _toplevel(str(Path(spans[0][0]).parent))
    if UNCOMMITTED in found:
        best = UNCOMMITTED
    else:
        top = max(found.values())
        tied = [c for c, t in found.items() if t == top]
        best = tied[0]
        for c in tied[1:]:
            if _is_ancestor(repo, best, c):
                best = c
    return {"commit": best, "time": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(found[best])),
            "epoch": found[best], "repo": repo}


@functools.lru_cache(maxsize=None)
def _is_ancestor(repo: str, a: str, b: str) -> bool | None:
    """``a`` is an ancestor of (or equal to) ``b``; None when ``b`` is not in the repository."""
    if _git(Path(repo), "cat-file", "-e", f"{b}^{{commit}}") is None:
        return None
    try:
        r = subprocess.run(["git", "-C", repo, "merge-base", "--is-ancestor", a, b], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.returncode == 0


def _epoch(created: str) -> float | None:
    try:
        return time.mktime(time.strptime(created, "%Y-%m-%dT%H:%M:%S%z"))
    except (TypeError, ValueError):
        return None


def record(claim, manifests: Mapping[str, Mapping]) -> dict:
    """The pre-registration record of ``claim`` against the manifests of the results it read.

    Returns
    -------
    dict
        ``fingerprint``; ``rule_changed`` (``commit``, ``time``) or None outside git; ``first_result``
        (``experiment``, ``commit``, ``created``); ``changed_after_result`` (True / False / None when unknown) and
        ``how`` (``"git ancestry"``, ``"time"``, or why unknown).
    """
    out = {"fingerprint": fingerprint(claim), "rule_changed": None, "first_result": None,
           "changed_after_result": None, "how": ""}
    lc = last_change(claim)
    if lc is None:
        out["how"] = "no git history here (an installed copy)"
        return out
    out["rule_changed"] = {"commit": "uncommitted" if lc["commit"] == UNCOMMITTED else lc["commit"][:12],
                           "time": lc["time"]}
    if not manifests:
        out["how"] = "no stored result"
        return out
    first_id, first = min(manifests.items(), key=lambda kv: str(kv[1].get("created", "")))
    git = first.get("git") or {}
    out["first_result"] = {"experiment": first_id, "commit": (git.get("commit") or "")[:12] or None,
                           "dirty": bool(git.get("dirty")), "created": first.get("created")}
    if lc["commit"] == UNCOMMITTED:
        out.update(changed_after_result=True, how="uncommitted edits to the rule")
        return out
    anc = _is_ancestor(lc["repo"], lc["commit"], git["commit"]) if git.get("commit") else None
    if anc is not None:
        out.update(changed_after_result=not anc, how="git ancestry")
        return out
    t = _epoch(first.get("created"))
    if t is None:
        out["how"] = "the result's commit and time are unknown"
        return out
    out.update(changed_after_result=lc["epoch"] > t, how="time (the result's commit is not in this repository)")
    return out
