"""The LS-SGLD experiments, registered for the CLI, the cache and the claims ledger.

Each experiment receives the frozen settings dataclass named here and reads nothing else (the data
file of Table 3 / Fig. 4 enters the cache key through the settings' ``inputs``), so that changing,
say, the Fig. 4 settings does not invalidate the stored Theorem 3.3 results.
"""
from __future__ import annotations

from sgmcmc_verify.store.registry import Experiment, register_experiment

from . import blr, cnn, diagnostics, exact_studies, gaussian2d, mixture, nonlogconcave, proofs, stability
from . import settings as S

_SPEC = {
    "table1": ("Table 1: printed cells vs gamma2 (Theorem 3.3) and d^-1 sum lambda^-2", ("table1.csv", "table1.json"),
               exact_studies, S.Table1Settings, exact_studies.run_table1),
    "thm33": ("Theorem 3.3 structure: exact W2 of SGLD vs LS-SGLD, discretization and ergodicity parts, crossover",
              ("thm33.csv", "thm33_gamma.csv", "thm33.json"), exact_studies, S.Theorem33Settings,
              exact_studies.run_theorem33),
    "prop21": ("Proposition 2.1: Fokker-Planck residual (sympy) and small-step invariant law of LS-GLD",
               ("prop21.json",), exact_studies, S.Prop21Settings, exact_studies.run_prop21),
    "table3": ("Table 3: max variance of the Laplacian-smoothed stochastic gradient along a full-batch path (BLR)",
               ("table3.csv",), blr, S.Table3Settings, blr.run_table3),
    "fig1": ("Fig. 1: 2-D Gaussian, covariance error vs autocorrelation time, SGLD/pSGLD/LS-SGLD/LS-pSGLD",
             ("fig1.csv", "fig1_samples.csv"), gaussian2d, S.Fig1Settings, gaussian2d.run_fig1),
    "table2": ("Table 2 / Fig. 2: W2 of the last 1e4 samples to exact-grid and MH references, Gaussian mixture",
               ("table2.csv", "table2_floors.csv", "fig2_samples.csv"), mixture, S.Table2Settings, mixture.run_table2),
    "fig3": ("Fig. 3: MSE of the mean from N samples, LD vs LS-LD (Gaussian (4.3) and the 4.1.2 mixture)",
             ("fig3.csv", "fig3.json"), mixture, S.Fig3Settings, mixture.run_fig3),
    "fig3_exact": ("Fig. 3 exactly: asymptotic MSE ratio LS-LD/LD vs sigma for (4.3) and the 4.1.1 covariance, "
                   "and the precision of 10 runs", ("fig3_exact.csv", "fig3_exact_finite.csv", "fig3_exact.json"), exact_studies,
                   S.Fig3ExactSettings, exact_studies.run_fig3_exact),
    "fig4": ("Fig. 4: BLR NLL / accuracy vs iterations, SGLD/pSGLD/LS-SGLD/LS-pSGLD", ("fig4.csv",), blr,
             S.Fig4Settings, blr.run_fig4),
    "fig5": ("Fig. 5: Bayesian CNN on MNIST, NLL / accuracy vs iterations, SGLD/pSGLD/LS-SGLD/LS-pSGLD", ("fig5.csv",),
             cnn, S.Fig5Settings, cnn.run_fig5),
    "proofs": ("Statements vs proofs (Theorems 3.3 / 3.7, Lemma C.4, sympy) and the 4.1.2 nonconvexity and "
               "dissipativity constants", ("proofs.json",), proofs, S.ProofsSettings, proofs.run_proofs),
    "operators": ("FFT solves of eq. (2.1)-(2.2) and one Algorithm 2.1 step vs dense linear algebra",
                  ("operators.csv",), proofs, S.OperatorsSettings, proofs.run_operators),
    "stability": ("Step-size enlargement (1+4 sigma)^(1/4): exact stable-step limits of the smoothed vs plain recursion "
                  "over Hessian families", ("stability.csv", "stability.json"), stability, S.StabilitySettings,
                  stability.run_stability),
    "thm37": ("Theorem 3.7 / Remark 3.8 on the 4.1.2 mixture: grid laws of GLD and LS-GLD, discretization and "
              "ergodicity parts of W2", ("thm37.csv", "thm37.json"), nonlogconcave, S.Theorem37Settings,
              nonlogconcave.run_theorem37),
    "single_mode": ("Table 2 yardstick: W2 from the 4.1.2 mixture to each of its modes alone, with the floor",
                    ("single_mode_w2.json",), diagnostics, S.SingleModeSettings, diagnostics.run_single_mode),
}

EXPERIMENTS = [Experiment(f"ls_sgld.{k}", "ls_sgld", desc, module.__name__, outs, settings, fn)
               for k, (desc, outs, module, settings, fn) in _SPEC.items()]

register_experiment(*EXPERIMENTS)
