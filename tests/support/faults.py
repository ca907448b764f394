"""Test-only machinery of the fault-injection tests (``tests/verify/store/test_faults.py``).

:data:`TINY` is an experiment that is never registered: it is passed to
:func:`sgmcmc_verify.store.cache.run_experiment` as an object, in the test process or in a child process
started with ``python -m support.faults`` (which prints ``{"cached": ..., "key": ...}``). Faults
are injected into a child through the environment variable ``SGMCMC_FAULT``:

``sleep=S``   sleep S seconds inside the run, after the CSV is written (widens every race window)
``wait=PATH`` wait inside the run, after the CSV is written, until the file PATH exists (a run held open)
``kill``      SIGKILL itself inside the run, after the CSV is written (a killed run)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

import sgmcmc_verify.store.cache as cache
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.store.registry import Experiment
from sgmcmc_verify.store.settings import ScaledSettings

__all__ = ["TinySettings", "TINY", "run_tiny", "spawn", "TESTS_DIR"]

TESTS_DIR = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class TinySettings(ScaledSettings):
    """Rows of standard normals: 40 at the default scale, 20 at smoke (so the two scales have different keys)."""

    rows: int = 40
    seed: int = 0
    SCALE_OVERRIDES: ClassVar[dict] = {"smoke": {"rows": 20}}


def run_tiny(cfg: TinySettings, out, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``tiny.csv`` (the draws) and ``tiny.json`` (their mean), obeying ``SGMCMC_FAULT``."""
    x = np.random.default_rng(cfg.seed).standard_normal(cfg.rows)
    write_csv(Path(out) / "tiny.csv", [{"i": i, "x": float(v)} for i, v in enumerate(x)])
    fault = os.environ.get("SGMCMC_FAULT", "")
    if fault.startswith("sleep="):
        time.sleep(float(fault.partition("=")[2]))
    elif fault.startswith("wait="):  # until the test creates the gate file (at most 60 s)
        gate, deadline = Path(fault.partition("=")[2]), time.monotonic() + 60
        while not gate.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    elif fault == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    write_json(Path(out) / "tiny.json", {"mean": float(x.mean()), "rows": cfg.rows})


TINY = Experiment("faultpaper.tiny", "faultpaper", "a tiny test-only experiment (two files)", "sgmcmc_verify.store.io",
                  ("tiny.csv", "tiny.json"), TinySettings, run_tiny)


def spawn(results, *, scale="smoke", force=False, fault="", **popen) -> subprocess.Popen:
    """Start ``python -m support.faults`` in a child process (stdout: one JSON line)."""
    env = dict(os.environ, SGMCMC_FAULT=fault,
               PYTHONPATH=os.pathsep.join(filter(None, [str(TESTS_DIR), os.environ.get("PYTHONPATH")])))
    argv = [sys.executable, "-m", "support.faults", str(results), "--scale", scale] + (["--force"] if force else [])
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m support.faults")
    p.add_argument("results")
    p.add_argument("--scale", default="smoke")
    p.add_argument("--force", action="store_true")
    a = p.parse_args(argv)
    # the manifest's package versions import sympy, POT and matplotlib (seconds per child, while the entry is
    # locked); what these children test is the locking, so they record the Python version only
    cache.package_versions = lambda: {"python": platform.python_version()}
    m = cache.run_experiment(TINY, a.scale, results_root=a.results, force=a.force)
    print(json.dumps({"cached": m["cached"], "key": m["key"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
