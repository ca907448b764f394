"""LS-SGLD claims on Bayesian logistic regression: Table 3 (variance of the smoothed stochastic gradient) and
Figure 4 (NLL and accuracy) (seed ``004_8438bd4b543e0fc4.txt``, §4.2).

The paper runs both on a3a, which is not shipped: on the built-in Pima data every verdict is reported "on substitute
data" (the ledger's substitute-data rule, :func:`sgmcmc_verify.ledger.rules.data_basis`); giving the a3a files
(``--data a3a=TRAIN --data a3a.t=TEST``) runs them on the paper's data.
"""
from __future__ import annotations

from sgmcmc_verify.ledger.claims import declare
from sgmcmc_verify.ledger.extract import csv_rows, data_used, settings
from sgmcmc_verify.ledger.measures import Estimate, OnData, fmt_num
from sgmcmc_verify.ledger.rules import all_of, ordering, robust_to

from .claims_exact import P, SEED
from .settings import Table3Settings

__all__ = ["CLAIMS", "PAPER_DATA", "fig4_final", "table3_cells"]

#: the paper's data set for Table 3 and Figure 4 (§4.2: "the benchmark a3a dataset")
PAPER_DATA = ("a3a",)
_T3 = Table3Settings()


def _claim(cid, source, statement, exps, **kw):
    return declare(f"{P}.{cid}", P, f"{SEED}, {source}", statement, experiments=tuple(f"{P}.{e}" for e in exps), **kw)


# ---- Table 3 ------------------------------------------------------------------------------------------

def table3_cells(root, column: str) -> dict:
    """``{(σ, b): value}`` of one column of ``table3.csv``."""
    return {(float(r["sigma"]), int(r["batch_size"])): r[column] for r in csv_rows(root, P, "table3.csv")}


def _s(x):
    return f"σ = {fmt_num(x)}"


def _monotone_rule(quantity: str):
    """Decreasing in σ along each batch size and in b along each σ of Table 3's printed grid: a conjunction of chains."""
    parts = {f"b = {b}: decreasing in σ": ordering(*[_s(s) for s in _T3.sigmas], descending=True, quantity=quantity)
             for b in _T3.batches}
    parts.update({f"{_s(s)}: decreasing in b": ordering(*[f"b = {b}" for b in _T3.batches], descending=True,
                                                         quantity=quantity) for s in _T3.sigmas})
    return all_of(parts)


def _monotone_measure(cells) -> dict:
    out = {f"b = {b}: decreasing in σ": {_s(s): Estimate(cells[(float(s), b)]) for s in _T3.sigmas} for b in _T3.batches}
    out.update({f"{_s(s)}: decreasing in b": {f"b = {b}": Estimate(cells[(float(s), b)]) for b in _T3.batches}
                for s in _T3.sigmas})
    return out


def _table3_printed(root):
    return _monotone_measure(table3_cells(root, "paper_value"))


def _table3_exact(root):
    return OnData(_monotone_measure(table3_cells(root, "max_variance_exact")), data_used(root, f"{P}.table3"), PAPER_DATA)


def _table3_note(root) -> str:
    ex, mc = table3_cells(root, "max_variance_exact"), table3_cells(root, "max_variance_mc")
    b0 = _T3.batches[0]
    red = ", ".join(f"{_s(s)}: {fmt_num(ex[(float(s), b0)] / ex[(0.0, b0)])}" for s in _T3.sigmas)
    breaks = [f"b = {b}, σ {fmt_num(s1)} vs {fmt_num(s0)}" for b in _T3.batches
              for s0, s1 in zip(_T3.sigmas[:-1], _T3.sigmas[1:]) if not mc[(float(s1), b)] < mc[(float(s0), b)]]
    return (f"exact variance relative to sigma = 0 at b = {b0}: {red}; the paper's 100-repetition Monte Carlo "
            f"procedure on the same path breaks the order at {'; '.join(breaks) or 'no cell'}")


def _table3_regression(root):
    return {f"exact sigma={r['sigma']} b={r['batch_size']}": (r["max_variance_exact"], 0.0)
            for r in csv_rows(root, P, "table3.csv")}


# ---- Figure 4 ------------------------------------------------------------------------------------------

def fig4_final(root) -> dict:
    """``{sampler: row}`` at the last iteration of ``fig4.csv``."""
    rows = csv_rows(root, P, "fig4.csv")
    last = max(r["iteration"] for r in rows)
    return {r["sampler"]: r for r in rows if r["iteration"] == last}


def _fig4(col):
    def measure(root):
        fin, chains = fig4_final(root), settings(root, f"{P}.fig4")["chains"]

        def est(name):
            return Estimate(fin[name][col], fin[name][col + "_se"], n=chains)
        m = {"SGLD": {"with LS": est("LS-SGLD"), "without": est("SGLD")},
             "pSGLD": {"with LS": est("LS-pSGLD"), "without": est("pSGLD")}}
        return OnData(m, data_used(root, f"{P}.fig4"), PAPER_DATA)
    return measure


def _fig4_gap(root):
    fin, chains = fig4_final(root), settings(root, f"{P}.fig4")["chains"]
    m = {k: Estimate(fin[k]["train_nll"], fin[k]["train_nll_se"], n=chains) for k in ("SGLD", "pSGLD")}
    return OnData(m, data_used(root, f"{P}.fig4"), PAPER_DATA)


#: "The preconditioning accelerates mixing initially" (§4.2): "initially" is the first tenth of the iterations after
#: burn-in (fixed before measuring): every checkpoint of fig4.csv at iteration <= burn_in + EARLY_FRACTION·(iters − burn_in).
EARLY_FRACTION = 0.1


def _fig4_early(root):
    cfg = settings(root, f"{P}.fig4")
    rows = csv_rows(root, P, "fig4.csv")
    end = cfg["burn_in"] + EARLY_FRACTION * (cfg["iters"] - cfg["burn_in"])
    ks = sorted({r["iteration"] for r in rows if r["iteration"] <= end}) or [min(r["iteration"] for r in rows)]

    def est(name, k):
        r = next(x for x in rows if x["sampler"] == name and x["iteration"] == k)
        return Estimate(r["train_nll"], r["train_nll_se"], n=cfg["chains"])
    m = {base: {f"iteration {int(k):,}": {"with preconditioning": est(pre, k), "without": est(base, k)} for k in ks}
         for base, pre in (("SGLD", "pSGLD"), ("LS-SGLD", "LS-pSGLD"))}
    return OnData(m, data_used(root, f"{P}.fig4"), PAPER_DATA)


def _fig4_regression(col):
    def f(root):
        return {k: (r[col], r[col + "_se"]) for k, r in fig4_final(root).items()}
    return f


_FIG4_EXPECTED = ("final {what} of the running average of the samples after {iters} iterations (burn-in {burn_in}, "
                  "{chains} chains, batch {batch_size}, sigma = {sigma}): {rel} for both base samplers")

CLAIMS = [
    _claim("table3.printed_monotone", "Table 3, Section 4.2.1",
           "The maximum variance of the smoothed stochastic gradient decreases as sigma and the batch size grow (as printed).",
           ("table3",), measure=_table3_printed, rule=_monotone_rule("printed maximum variance"),
           expected="printed cells decrease down each column (sigma) and along each row (batch size)",
           figure="ls_sgld/table3.png"),
    _claim("table3.variance_reduction", "Table 3, Section 4.2.1",
           "Laplacian smoothing reduces the variance of the stochastic gradient, more for larger sigma and batch size.",
           ("table3",), measure=_table3_exact, rule=_monotone_rule("exact maximum variance"),
           expected="exact maximum variance (finite-population formula) along a {path_steps}-step full-batch path strictly "
                    "decreasing in sigma (fixed b) and in b (fixed sigma)",
           why="exact variance (without-replacement minibatch formula); the paper's Monte Carlo is in the note",
           figure="ls_sgld/table3.png", note=_table3_note, regression=_table3_regression),
    _claim("fig4.ls_reduces_nll", "Figure 4, Section 4.2",
           "Laplacian smoothing reduces the negative log-likelihood (test).", ("fig4",),
           measure=_fig4("test_nll"), rule=robust_to("base sampler", ordering("with LS", "without", quantity="test NLL")),
           expected=_FIG4_EXPECTED.replace("{what}", "test NLL").replace("{rel}", "with LS < without"),
           figure="ls_sgld/fig4.png", regression=_fig4_regression("test_nll")),
    _claim("fig4.ls_increases_accuracy", "Figure 4, Section 4.2",
           "Laplacian smoothing increases the accuracy (test).", ("fig4",),
           measure=_fig4("test_acc"), rule=robust_to("base sampler", ordering("with LS", "without", descending=True,
                                                                               quantity="test accuracy")),
           expected=_FIG4_EXPECTED.replace("{what}", "test accuracy").replace("{rel}", "with LS > without"),
           figure="ls_sgld/fig4.png", regression=_fig4_regression("test_acc")),
    _claim("fig4.preconditioning_accelerates_initially", "Figure 4, Section 4.2",
           "The preconditioning accelerates mixing initially (pSGLD ahead of SGLD, LS-pSGLD ahead of LS-SGLD early on).",
           ("fig4",), measure=_fig4_early,
           rule=robust_to("base sampler", all_of(each=ordering("with preconditioning", "without",
                                                               quantity="train NLL of the running average"),
                                                 axis="early checkpoint")),
           expected="train NLL of the running average at every checkpoint of the first tenth after burn-in "
                    f"(EARLY_FRACTION = {EARLY_FRACTION}; iterations {{burn_in}}..{{iters}}, every {{every}}, {{chains}} "
                    "chains): with preconditioning < without, for SGLD and for LS-SGLD",
           why="'initially' fixed before measuring as the first tenth after burn-in", figure="ls_sgld/fig4.png"),
    _claim("fig4.preconditioning_gap", "Figure 4, Section 4.2",
           "With preconditioning the gap to the target is remarkably larger (pSGLD worse than SGLD at the end).",
           ("fig4",), measure=_fig4_gap, rule=ordering("SGLD", "pSGLD", quantity="final train NLL"),
           expected="final train NLL after {iters} iterations: SGLD < pSGLD", figure="ls_sgld/fig4.png"),
]
