"""Two results trees file by file, wall-clock fields ignored: the "no output byte changed" check of #26.

Performance work must not change a number. ``bench/bench_figures_wall.py`` compares the manifests' SHA-256 digests,
which also see the fields that measure time (a run's wall time, seconds per step, the load average, the date, the
package version). This script reads every file both trees hold and compares

* JSON: the parsed documents, with every key whose name contains one of :data:`CLOCK_WORDS` dropped at any depth;
* CSV: the rows, with every column whose header contains one of them dropped;
* anything else: the bytes.

Usage (two runs of the same experiments at the same scale, e.g. ``sgmcmc-verify baseline --check --results DIR``
from two checkouts)::

    python bench/compare_results.py --a /tmp/before --b /tmp/after

Exit status 0 when every shared file is equal (and both trees hold the same files), 1 otherwise; the differing
files are listed with the first differing key.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

#: a key or column whose lower-cased name contains one of these measures time or names the build, not a result
CLOCK_WORDS = ("wall", "time", "seconds", "date", "version", "elapsed", "load", "created", "host", "python",
               "numpy", "platform", "git", "commit", "duration", "_s_per", "per_second", "throughput")


def _is_clock(key) -> bool:
    k = str(key).lower()
    return any(w in k for w in CLOCK_WORDS) or k.endswith("_s")


def _strip(obj):
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if not _is_clock(k)}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def _first_diff(a, b, path="$"):
    if type(a) is not type(b):
        return path
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                return f"{path}.{k}"
            d = _first_diff(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}[len]"
        for i, (x, y) in enumerate(zip(a, b)):
            d = _first_diff(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    same = a == b or (isinstance(a, float) and a != a and b != b)  # NaN written as NaN on both sides
    return None if same else path


def _csv_rows(p: Path):
    with open(p, newline="") as f:
        rows = list(csv.reader(f))
    comments = [r for r in rows if r and r[0].startswith("#")]
    rows = [r for r in rows if not (r and r[0].startswith("#"))]  # a leading '# ...' line describes the run
    if not rows:
        return comments
    keep = [i for i, h in enumerate(rows[0]) if not _is_clock(h)]
    return comments + [[r[i] for i in keep if i < len(r)] for r in rows]


def compare_file(pa: Path, pb: Path) -> str | None:
    """``None`` if equal up to the clock fields, else where they first differ."""
    if pa.read_bytes() == pb.read_bytes():
        return None
    if pa.suffix == ".json":
        try:
            ja, jb = json.loads(pa.read_text()), json.loads(pb.read_text())
        except ValueError:
            return "bytes (not JSON)"
        return _first_diff(_strip(ja), _strip(jb))
    if pa.suffix == ".csv":
        ra, rb = _csv_rows(pa), _csv_rows(pb)
        if ra == rb:
            return None
        if len(ra) != len(rb):
            return f"rows {len(ra)} vs {len(rb)}"
        i = next(i for i, (x, y) in enumerate(zip(ra, rb)) if x != y)
        return f"row {i}"
    return "bytes"


def compare_trees(a, b, skip=("manifest", ".lock")) -> dict:
    """``{"equal": [...], "differ": {rel: where}, "only_a": [...], "only_b": [...]}`` over every file of two trees.

    Parameters
    ----------
    a, b : str or Path
        Results directories.
    skip : tuple of str
        Files whose name contains one of these are left out (the run manifests: digests and wall times).
        The result store's ``.cache/`` (entries named by a key that includes the code fingerprint; the published
        files beside it are the same outputs) is left out too.
    """
    a, b = Path(a), Path(b)
    if not a.is_dir() or not b.is_dir():
        raise FileNotFoundError(f"not a directory: {a if not a.is_dir() else b}")
    def files(root):
        return {p.relative_to(root) for p in root.rglob("*") if p.is_file() and not any(s in p.name for s in skip)
                and ".cache" not in p.relative_to(root).parts}

    fa, fb = files(a), files(b)
    out = {"equal": [], "differ": {}, "only_a": sorted(map(str, fa - fb)), "only_b": sorted(map(str, fb - fa))}
    for rel in sorted(fa & fb):
        d = compare_file(a / rel, b / rel)
        if d is None:
            out["equal"].append(str(rel))
        else:
            out["differ"][str(rel)] = d
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a", required=True)
    p.add_argument("--b", required=True)
    args = p.parse_args(argv)
    r = compare_trees(args.a, args.b)
    print(f"{len(r['equal'])} files equal (clock fields ignored), {len(r['differ'])} differ, "
          f"{len(r['only_a'])} only in a, {len(r['only_b'])} only in b")
    for k, v in r["differ"].items():
        print(f"  differ: {k}  (first at {v})")
    for k in r["only_a"]:
        print(f"  only in a: {k}")
    for k in r["only_b"]:
        print(f"  only in b: {k}")
    return 0 if not (r["differ"] or r["only_a"] or r["only_b"]) else 1


if __name__ == "__main__":
    sys.exit(main())
