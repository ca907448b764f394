"""The EWSG experiments, registered for the CLI, the cache and the claims ledger.

Each experiment reads only the settings fields listed here, so that changing, say, the Theorem 4.3
grids does not invalidate the stored KL panels.
"""
from __future__ import annotations

import functools

from verify.experiments import Experiment, register_experiment

from . import experiments as X
from .settings import get_settings

_COMMON = ("n_data", "dim", "realizations", "block_size", "passes", "checkpoint_every", "friction", "seed")
_FIELDS = {
    "fig1a": _COMMON + ("step_sizes",),
    "fig1b": _COMMON + ("x_panel_step", "x_choices"),
    "fig1c": _COMMON + ("m_values", "m_panel_step"),
    "fig1def": ("n_data", "dim", "block_size", "friction", "seed", "thm_realizations", "d_step", "d_times",
                "d_fit_min_time", "e_time", "e_steps", "f_time", "f_steps", "trace_chains", "trace_checkpoints",
                "n_boot"),
}


def _settings(name, scale):
    d = get_settings(scale).as_dict()
    return {k: d[k] for k in _FIELDS[name]}


_DESC = {
    "fig1a": "KL vs data passes: SGLD, pSGLD, SGHMC, EWSG, SVRG-LD (EWSG §5.1, Fig. 1a)",
    "fig1b": "KL vs data passes for the four choices of x (Fig. 1b)",
    "fig1c": "KL vs data passes for M in {0, 1, 9, 19} at equal data passes (Fig. 1c)",
    "fig1def": "Theorem 4.3: MSE of the time average vs T, vs h, long-run vs h; joint bound fit (Figs. 1d-f)",
}

EXPERIMENTS = [
    Experiment(f"ewsg.{p}", "ewsg", _DESC[p], "paper_repro.ewsg.experiments", (f"{p}.csv",),
               functools.partial(_settings, p), functools.partial(X.run_kl_panel, p))
    for p in ("fig1a", "fig1b", "fig1c")
] + [Experiment("ewsg.fig1def", "ewsg", _DESC["fig1def"], "paper_repro.ewsg.experiments",
                ("fig1d.csv", "fig1e.csv", "fig1f.csv", "rates.json"),
                functools.partial(_settings, "fig1def"), X.run_theorem43)]

register_experiment(*EXPERIMENTS)
