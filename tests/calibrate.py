"""Calibration of the statistical tests (``make calibrate``; not part of ``make test``).

Reruns every test marked ``statistical`` or ``negative_control`` with ``--seed-offset k`` for
k = 1 … K (K >= 20), i.e. on K independent sets of seeds, and reports for each test the fraction
of seeds on which it passed. For a statistical assertion that is its pass rate; for a negative
control (which asserts that a planted bug is caught) it is the detection rate. Writes
``docs/calibration.md``. An assertion under 95 % or a control under 95 % must be fixed (more
realizations, a better statistic), not widened.

    python tests/calibrate.py [--seeds 20] [--out docs/calibration.md]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_offset(k: int, xml: Path, paths) -> dict[str, bool]:
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "statistical or negative_control",
           f"--seed-offset={k}", f"--junitxml={xml}", *paths]
    subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    out = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        bad = any(child.tag in ("failure", "error") for child in case)
        skipped = any(child.tag == "skipped" for child in case)
        if not skipped:
            out[name] = not bad
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--out", default=str(ROOT / "docs" / "calibration.md"))
    p.add_argument("paths", nargs="*", default=["tests"], help="test files or directories (default: tests)")
    a = p.parse_args(argv)
    if a.seeds < 20:
        p.error("--seeds must be >= 20")
    passed = defaultdict(int)
    total = defaultdict(int)
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(1, a.seeds + 1):
            res = run_offset(k, Path(tmp) / f"r{k}.xml", a.paths)
            for name, ok in res.items():
                total[name] += 1
                passed[name] += ok
            print(f"offset {k}: {sum(res.values())}/{len(res)} passed ({time.time() - t0:.0f} s)", flush=True)
    lines = ["# Calibration of the statistical tests", "",
             f"`python tests/calibrate.py --seeds {a.seeds}` (`make calibrate`): each test below was rerun on "
             f"{a.seeds} independent seed sets (`--seed-offset 1..{a.seeds}`, every integer seed of the test shifted). "
             "For a statistical assertion the rate is its pass rate; for a negative control (a planted bug the "
             "assertion must catch) it is the detection rate. Target: >= 95 % for both.", "",
             "| test | kind | rate | runs |", "|---|---|---|---|"]
    flagged = []
    for name in sorted(total):
        kind = "negative control" if any(w in name for w in ("catches", "planted", "negative", "rejected", "buggy")) \
            else "statistical"
        rate = passed[name] / total[name]
        if rate < 0.95:
            flagged.append(name)
        lines.append(f"| `{name}` | {kind} | {100 * rate:.0f} % | {total[name]} |")
    lines += ["", f"Below 95 %: {', '.join(flagged) if flagged else 'none'}.", ""]
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text("\n".join(lines))
    print("\n".join(lines))
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
