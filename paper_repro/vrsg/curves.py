"""Reading vrSG-MCMC's per-chain learning curves (``mlp.csv``, ``mlp_n1.csv``, ``blr_n1.csv``, ``blr_n1_splits.csv``)
into per-chain summaries: what the real-data claims compare (seed ``002_245183f35db8d795.txt``, §5, Remark 8,
Figures 2, 5, 8, 9).

Every chain is an independent run (its own start and noise), scored by the posterior-predictive average over the
second half of its run so far (:mod:`sgmcmc_verify.paper_repro.vrsg.settings`). Two summaries per chain on the budget
range every compared method has recorded, ``[t0, T]`` in data passes (``t0``: the latest first record, e.g. SVRG-LD's
first snapshot costs a whole pass; ``T``: the earliest last record): the curve's mean over ``[t0, T]`` (the "curve
mean", for "converges faster") and its value at ``T`` (the "final value"). :func:`chain_estimates` turns them into
:class:`~sgmcmc_verify.ledger.measures.Estimate` objects (mean ± s.e. over chains, ``n`` = chains); the ledger's
ordering rule compares them (Welch's t).

Two budget countings (:data:`COUNTINGS`): every per-datum gradient (ours: ``2·n2 + n1/m`` per vrSG-MCMC step) and
Remark 8's own ``n2 + n1/m``.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sgmcmc_verify.ledger.extract import tuned
from sgmcmc_verify.ledger.measures import estimate_of
from sgmcmc_verify.store.io import read_csv, read_json

__all__ = ["COUNTINGS", "COUNTING_NAMES", "SUMMARIES", "step_costs", "curves", "common_range", "chain_summary",
           "chain_estimates", "n1_values", "eta_choices"]

P = "vrsg"
#: the budget countings: every per-datum gradient (primary) and Remark 8's n2 + n1/m per step
COUNTINGS = ("all", "remark8")
COUNTING_NAMES = {"all": "every per-datum gradient", "remark8": "Remark 8's n2 + n1/m per step"}
#: the two per-chain summaries of a curve: its mean over the common budget, its value at the end of it
SUMMARIES = {"curve mean": 0, "final value": 1}
_GRID = 200


def step_costs(method, meta, dataset):
    """Remark 8's budget per step: ``(per step, per refresh, refresh interval, N)`` in per-datum gradients.

    Remark 8 counts ``n1/m + n2`` per vrSG-MCMC step (the fresh minibatch once, the old gradient amortized); the
    analogue for SVRG-LD is ``b + N/epoch`` and for SGLD ``n``.

    Raises
    ------
    ValueError
        A method with no budget rule.
    """
    st = meta["settings"]
    n = meta["data"][dataset]["n_train"] if dataset in meta["data"] else meta["data"]["n_train"]
    if method == "SGLD":
        return st["batch_size"], 0, 1, n
    if method.startswith("vrSG-MCMC"):
        n1 = int(method.rsplit("G", 1)[1]) if "-G" in method else st.get("n1", st.get("n1_tuned"))
        return st["n2"], n1, st["update_interval"], n
    if method.startswith("SVRG-LD"):
        e = st["update_interval"] if "(m=" in method else -(-n // st["batch_size"])
        return st["batch_size"], n, e, n
    raise ValueError(f"no budget rule for method {method!r}")


def curves(root, fname, dataset=None, counting="all", split=None, meta=None):
    """``{method: {"passes": [(n_rec,)...], metric: [(n_rec,) per chain]}}`` from a per-chain CSV.

    ``counting="remark8"`` replaces the passes by Remark 8's count (:func:`step_costs`) from the recorded steps;
    ``counting="steps"`` charges every method SGLD's cost per step. ``split``: the rows of one split (files with a
    ``split`` column); ``meta``: the results JSON of that split (default: the file's own JSON).
    """
    out: dict = {}
    rows_all = read_csv(Path(root) / P / fname)
    for r in rows_all:
        if dataset is not None and r["dataset"] != dataset:
            continue
        if split is not None and int(r["split"]) != int(split):
            continue
        m = out.setdefault(r["method"], {})
        m.setdefault(int(r["chain"]), []).append(r)
    if counting != "all" and meta is None:
        meta = read_json(Path(root) / P / fname.replace(".csv", ".json"))
    res = {}
    for method, chains in out.items():
        res[method] = {}
        for _c, rows in sorted(chains.items()):
            rows.sort(key=lambda r: r["passes"])
            for k in rows[0]:
                if isinstance(rows[0][k], float):
                    res[method].setdefault(k, []).append(np.array([r[k] for r in rows]))
        if counting != "all":
            ds = dataset if dataset is not None else rows[0]["dataset"]
            per, refresh, every, n = step_costs(method if counting == "remark8" else "SGLD", meta, ds)
            res[method]["passes"] = [(k * per + np.ceil(k / every) * refresh) / n for k in res[method]["steps"]]
    return res


def common_range(cur, methods):
    """``(t0, T)``: the budget range in data passes every method in ``methods`` has recorded."""
    t0 = max(min(p[0] for p in cur[m]["passes"]) for m in methods)
    T = min(min(p[-1] for p in cur[m]["passes"]) for m in methods)
    return t0, T


def chain_summary(cur, method, metric, t0, T):
    """Per-chain (curve mean over ``[t0, T]``, value at ``T``) of ``metric``: two ``(chains,)`` arrays."""
    grid = np.linspace(t0, T, _GRID)
    vals = np.array([np.interp(grid, p, v) for p, v in zip(cur[method]["passes"], cur[method][metric])])
    return vals.mean(axis=1), vals[:, -1]


def chain_estimates(cur, methods, metric, summary, t0=None, T=None) -> dict:
    """``{method: Estimate}`` of one summary (``"curve mean"`` / ``"final value"``) of ``metric`` over the common
    budget of ``methods`` (mean ± s.e. over the chains)."""
    if t0 is None:
        t0, T = common_range(cur, methods)
    return {m: estimate_of(chain_summary(cur, m, metric, t0, T)[SUMMARIES[summary]]) for m in methods}


def n1_values(root, fname, split=None) -> list:
    """The n1 values (> 0) of a sensitivity file."""
    return sorted({int(r["n1"]) for r in read_csv(Path(root) / P / fname)
                   if int(r["n1"]) > 0 and (split is None or int(r["split"]) == int(split))})


def eta_choices(meta, methods, dataset=None) -> dict:
    """``{"method: step size η": TunedChoice}``: each compared method's tuned η and the grid it was chosen from."""
    out = {}
    for key, eta in meta["chosen_eta"].items():
        ds, _, method = key.rpartition("|")
        if method not in methods or (dataset is not None and ds and ds != dataset) or eta is None:
            continue
        grid = sorted({r["eta"] for r in meta["tuning"] if r["method"] == method
                       and (not ds or r.get("dataset") == ds)})
        if grid:
            out[f"{method}: step size η"] = tuned(eta, grid, "step size η")
    return out
