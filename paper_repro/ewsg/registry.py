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


# ---- The algorithms of the appendices (issue #11): overdamped EWSG, EWSG-VR, minibatch EWSG ------
from . import appendix as _A  # noqa: E402
from . import appendix_blr as _AB  # noqa: E402
from .settings import AppendixESettings, Fig4Settings, Fig5Settings, MinibatchSettings  # noqa: E402

APPENDIX_EXPERIMENTS = [
    Experiment("ewsg.appE", "ewsg", "Appendix E: overdamped EWSG vs SGLD, pSGLD, SVRG-LD, KL vs data passes (§5.1 target)",
               "paper_repro.ewsg.appendix", ("appE.csv",), AppendixESettings, _A.run_appendix_e),
    Experiment("ewsg.fig4", "ewsg", "Appendix F, Fig. 4: FG, SGHMC, EWSG, EWSG-VR, KL vs data passes (§5.1 target)",
               "paper_repro.ewsg.appendix", ("fig4.csv", "fig4.json"), Fig4Settings, _A.run_fig4),
    Experiment("ewsg.fig5", "ewsg", "Appendix F, Fig. 5: BLR posterior-predictive mean and s.d. of the test "
               "log-likelihood (Pima; parkinsons via --data)", "paper_repro.ewsg.appendix_blr", ("fig5.csv", "fig5.json"),
               Fig5Settings, _AB.run_fig5),
    Experiment("ewsg.appD", "ewsg", "Appendix D (minibatch EWSG, b > 1) and G.3 (SGHMC with b(M+1)), KL vs data passes",
               "paper_repro.ewsg.appendix", ("appD.csv",), MinibatchSettings, _A.run_minibatch),
]
register_experiment(*APPENDIX_EXPERIMENTS)
