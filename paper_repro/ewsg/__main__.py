"""``python -m paper_repro.ewsg run --scale default --n-jobs 2``: write results/ewsg/."""
from __future__ import annotations

import argparse
import sys

from .experiments import run_all
from .settings import SCALES


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m paper_repro.ewsg", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run the Figure 1 experiments and write results/ewsg/")
    r.add_argument("--scale", choices=sorted(SCALES), default="default")
    r.add_argument("--n-jobs", type=int, default=1)
    r.add_argument("--backend", default=None)
    r.add_argument("--out", default="results/ewsg")
    a = p.parse_args(argv)
    times = run_all(a.scale, a.out, a.n_jobs, a.backend)
    print(f"total {sum(times.values()):.1f} s; results in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
