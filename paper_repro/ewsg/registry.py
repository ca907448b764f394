"""The EWSG experiments, registered for the CLI, the cache and the claims ledger.

Each experiment receives the frozen settings dataclass named here and reads nothing else, so that
changing, say, the Theorem 4.3 grids does not invalidate the stored KL panels.
"""
from __future__ import annotations

import functools

from verify.store.registry import Experiment, register_experiment

from . import experiments as X
from .settings import Fig1aSettings, Fig1bSettings, Fig1cSettings, Theorem43Settings

_DESC = {
    "fig1a": "KL vs data passes: SGLD, pSGLD, SGHMC, EWSG, SVRG-LD (EWSG §5.1, Fig. 1a)",
    "fig1b": "KL vs data passes for the four choices of x (Fig. 1b)",
    "fig1c": "KL vs data passes for M in {0, 1, 9, 19} at equal data passes (Fig. 1c)",
    "fig1def": "Theorem 4.3: MSE of the time average vs T, vs h, long-run vs h; joint bound fit (Figs. 1d-f)",
}
_SETTINGS = {"fig1a": Fig1aSettings, "fig1b": Fig1bSettings, "fig1c": Fig1cSettings}

EXPERIMENTS = [
    Experiment(f"ewsg.{p}", "ewsg", _DESC[p], "paper_repro.ewsg.experiments", (f"{p}.csv",), _SETTINGS[p],
               functools.partial(X.run_kl_panel, p))
    for p in ("fig1a", "fig1b", "fig1c")
] + [Experiment("ewsg.fig1def", "ewsg", _DESC["fig1def"], "paper_repro.ewsg.experiments",
                ("fig1d.csv", "fig1e.csv", "fig1f.csv", "rates.json"), Theorem43Settings, X.run_theorem43)]

register_experiment(*EXPERIMENTS)
