"""Calibration of the statistical tests (``make calibrate``; not part of ``make test``).

Reruns every test marked ``statistical`` or ``negative_control`` with ``--seed-offset k`` for
k = 1 … K (K >= 20), i.e. on K independent sets of seeds, and reports for each test the fraction
of seeds on which it passed. The kind of a test is read from its marker (``conftest.py`` writes it
to a log), never guessed from its name. For a statistical assertion the rate is its pass rate; for
a negative control (which asserts that a planted bug is caught) it is the detection rate. Writes
``docs/calibration.md``. An assertion under 95 % or a control under 95 % must be fixed (more
realizations, a better statistic), not widened.

    python tests/calibrate.py [--seeds 20] [--out docs/calibration.md]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_offset(k: int, log: Path, paths) -> dict[str, tuple[str, str, bool]]:
    """``{nodeid: (kind, pair, passed)}`` of every marked test run with seed offset ``k``."""
    if log.exists():
        log.unlink()
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "statistical or negative_control",
           f"--seed-offset={k}", f"--calibration-log={log}", *paths]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode not in (0, 1):  # 0: all passed, 1: some failed; anything else: nothing was measured
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-20:])
        raise RuntimeError(f"pytest exited with {proc.returncode} at seed offset {k} (collection or usage error):\n{tail}")
    out = {}
    for line in log.read_text().splitlines() if log.exists() else []:
        r = json.loads(line)
        if r["skipped"]:
            continue
        prev = out.get(r["nodeid"])
        ok = r["passed"] and (prev is None or prev[2])
        out[r["nodeid"]] = (r["kind"], r["pair"], ok)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--out", default=str(ROOT / "docs" / "calibration.md"))
    p.add_argument("paths", nargs="*", default=["tests"], help="test files or directories (default: tests)")
    a = p.parse_args(argv)
    if a.seeds < 20:
        p.error("--seeds must be >= 20")
    passed, total, meta = defaultdict(int), defaultdict(int), {}  # filled below; an empty selection is an error
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(1, a.seeds + 1):
            res = run_offset(k, Path(tmp) / f"r{k}.jsonl", a.paths)
            for name, (kind, pair, ok) in res.items():
                total[name] += 1
                passed[name] += ok
                meta[name] = (kind, pair)
            if not res:
                raise RuntimeError(f"no statistical / negative-control test ran at seed offset {k} (paths: {a.paths})")
            print(f"offset {k}: {sum(r[2] for r in res.values())}/{len(res)} passed ({time.time() - t0:.0f} s)",
                  flush=True)
    lines = ["# Calibration of the statistical tests", "",
             f"`python tests/calibrate.py --seeds {a.seeds}` (`make calibrate`): each test below was rerun on "
             f"{a.seeds} independent seed sets (`--seed-offset 1..{a.seeds}`, every integer seed of the test shifted). "
             "Tests are selected and classified by their markers (`statistical(pair=...)` / "
             "`negative_control(pair=...)`). For a statistical assertion the rate is its pass rate; for a negative "
             "control (a planted bug the assertion must catch) it is the detection rate. Target: >= 95 % for both.",
             "", "| pair | test | kind | rate | runs |", "|---|---|---|---|---|"]
    flagged = []
    for name in sorted(total, key=lambda n: (meta[n][1] or "", meta[n][0] != "statistical", n)):
        kind, pair = meta[name]
        rate = passed[name] / total[name]
        if rate < 0.95:
            flagged.append(name)
        lines.append(f"| {pair} | `{name}` | {kind.replace('_', ' ')} | {100 * rate:.0f} % | {total[name]} |")
    lines += ["", f"Below 95 %: {', '.join(flagged) if flagged else 'none'}.", ""]
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text("\n".join(lines))
    print("\n".join(lines))
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
