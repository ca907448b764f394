"""Robustness study of Figure 9 (Pima): the every-n1 claim on other random train/test splits.

The registered experiment ``vrsg.blr_n1`` uses one random 75/25 split of R's MASS Pima (``split_seed`` 0).
This study reruns it, unchanged otherwise, on several splits (and optionally a wider η grid) and evaluates
the claim's two readings on each, so the ledger's verdict can be read against the split it was measured on::

    python -m sgmcmc_verify.paper_repro.vrsg.pima_splits --splits 0 1 2 3 4 5 6 --scale paper \
        --eta-grid 0.03 0.1 0.3 1 3 10 --out results/studies/pima_splits

Writes ``<out>/<split>/vrsg/blr_n1.{csv,json}`` (the experiment's own outputs) and ``<out>/summary.json``: per
split the tuned η (and whether it is an end of the grid), the verdict of each reading (budget counting x curve
mean / final value) by Figure 9's declared rule (:data:`~sgmcmc_verify.paper_repro.vrsg.claims_data.FIG9_SPLIT_RULE`)
and the split's combined verdict. Seed ``002_245183f35db8d795.txt``, Remark 8, Figure 9 (top).
"""
from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

from sgmcmc_verify.store.io import read_json, write_json

from sgmcmc_verify.ledger.measures import DataUsed
from sgmcmc_verify.ledger.rules import judge

from .claims_data import FIG9_SPLIT_RULE, fig9_split
from .blr import run_blr_n1
from .settings import BLRSensitivitySettings

__all__ = ["run_splits"]


def run_splits(splits, out, scale="paper", eta_grid=None) -> dict:
    """Run ``vrsg.blr_n1`` at ``scale`` on each split seed in ``splits`` and evaluate Figure 9's claim on each.

    Parameters
    ----------
    splits : iterable of int
        Split seeds (``BLRSensitivitySettings.split_seed``); 0 is the registered experiment's split.
    out : path-like
        Output directory (created).
    scale : str
        ``smoke`` / ``default`` / ``paper``.
    eta_grid : sequence of float or None
        Replaces the η tuning grid (None: the experiment's).

    Returns
    -------
    dict
        ``{split: summary}`` as written to ``<out>/summary.json``.

    Raises
    ------
    ValueError
        An empty ``splits``, or a negative split seed.
    """
    splits = [int(k) for k in splits]
    if not splits or min(splits) < 0:
        raise ValueError(f"splits must be one or more non-negative integers, got {splits!r}")
    over = {"eta_grid": tuple(float(e) for e in eta_grid)} if eta_grid else {}
    over["extra_splits"] = 0
    summary = {}
    for k in splits:
        root = Path(out) / str(k)
        (root / "vrsg").mkdir(parents=True, exist_ok=True)
        s = dataclasses.replace(BLRSensitivitySettings.at(scale), split_seed=k, **over)
        t0 = time.time()
        run_blr_n1(s, root / "vrsg")
        m = fig9_split(root, used=tuple(DataUsed(d.get("name", "?"), str(d.get("source", "")), bool(d.get("builtin")))
                                        for d in s.inputs()["data"]))
        v = judge(FIG9_SPLIT_RULE, m)
        meta = read_json(root / "vrsg" / "blr_n1.json")
        summary[k] = {"status": v.status, "by_reading": {r: e.status for r, e in (v.map or {}).items()},
                      "capped": v.capped, "chosen_eta": meta["chosen_eta"],
                      "tuned_at_grid_edge": {c: t.value for c, t in m.inner.choices.items() if t.at_edge},
                      "settings": s.as_dict(), "wall_s": time.time() - t0}
    write_json(Path(out) / "summary.json", {str(k): v for k, v in summary.items()})
    return summary


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--splits", type=int, nargs="+", required=True)
    p.add_argument("--scale", default="paper")
    p.add_argument("--eta-grid", type=float, nargs="+", default=None)
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    for k, r in run_splits(a.splits, a.out, a.scale, a.eta_grid).items():
        edge = ", ".join(f"{m} at the grid's end" for m in r["tuned_at_grid_edge"]) or "interior"
        print(f"split {k}: eta {r['chosen_eta']} ({edge}); " + "; ".join(f"{rd}: {st}" for rd, st in r["by_reading"].items())
              + f"; the split's verdict: {r['status']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
