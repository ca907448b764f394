"""The HSG-HMC experiments, registered for the CLI, the cache and the claims ledger.

Each experiment receives the frozen settings dataclass named here and reads nothing else.
"""
from __future__ import annotations

from sgmcmc_verify.store.registry import Experiment, register_experiment

from .blr import run_blr
from .bnn import run_bnn
from .complexity import run_complexity
from .growth import run_condition9, run_growth
from .lemmas import run_lemmas
from .settings import (BLRSettings, BNNSettings, ComplexitySettings, Condition9Settings, GrowthSettings, LemmaSettings,
                       Table2ReadingsSettings, Table2Settings, Theorem1Settings,
                       ExactChecksSettings, Table3Settings)
from .table2 import run_table2
from .table2_readings import run_table2_readings
from .theorem1 import run_theorem1
from .exact_checks import run_exact_checks
from .table3 import run_table3

EXPERIMENTS = [
    Experiment("hsg_hmc.lemmas", "hsg_hmc",
               "Lemmas 2-3: E||g^(k) - grad f(x^(k))||^2 along HSG-HMC runs for rho_k = 1/k, periodic reset, 0, 1",
               "sgmcmc_verify.paper_repro.hsg_hmc.lemmas", ("lemma.csv", "lemma.json"), LemmaSettings, run_lemmas),
    Experiment("hsg_hmc.growth", "hsg_hmc",
               "Lemma 3 growth term vs eta: HSG-HMC (rho_k = 1/k) from exact target draws on >= 5 step sizes, "
               "bootstrap interval on the exponent; the bound's own term beside it",
               "sgmcmc_verify.paper_repro.hsg_hmc.growth", ("growth.csv", "growth.json"), GrowthSettings, run_growth),
    Experiment("hsg_hmc.condition9", "hsg_hmc",
               "Lemma 3 condition (9) as a set of (gamma, eta): boundary eta_max(gamma), tied sets e^{-gamma eta} = q",
               "sgmcmc_verify.paper_repro.hsg_hmc.growth", ("condition9.csv", "condition9.json"), Condition9Settings,
               run_condition9),
    Experiment("hsg_hmc.table2", "hsg_hmc",
               "Gaussian mixture (Table 2, Fig. 1): six methods, grid search, exact/Sinkhorn W2, noise floor",
               "sgmcmc_verify.paper_repro.hsg_hmc.table2",
               ("table2.csv", "table2_tuning.csv", "table2.json", "figure1_samples.csv", "figure1_grid.csv"),
               Table2Settings, run_table2),
    Experiment("hsg_hmc.table2_readings", "hsg_hmc",
               "Table 2 readings: noise floors of W2 / W2^2, raw / cost-max, exact / Sinkhorn vs n, extrapolated to 1e5",
               "sgmcmc_verify.paper_repro.hsg_hmc.table2_readings", ("table2_readings_floor.csv", "table2_readings.json"),
               Table2ReadingsSettings, run_table2_readings),
    Experiment("hsg_hmc.blr", "hsg_hmc",
               "Bayesian logistic regression (Fig. 2): test NLL vs data passes, six methods, built-in data sets",
               "sgmcmc_verify.paper_repro.hsg_hmc.blr", ("blr.csv", "blr.json"), BLRSettings, run_blr),
    Experiment("hsg_hmc.bnn", "hsg_hmc",
               "Bayesian neural network (Fig. 3): test NLL / accuracy vs data passes, six methods, LeNet and MLP readings, "
               "MNIST subset", "sgmcmc_verify.paper_repro.hsg_hmc.bnn", ("bnn.csv", "bnn.json"), BNNSettings, run_bnn),
    Experiment("hsg_hmc.complexity", "hsg_hmc",
               "Table 1 / Corollaries 1-2: gradients to reach W2 <= eps on a quadratic target, exact moments",
               "sgmcmc_verify.paper_repro.hsg_hmc.complexity", ("complexity.csv", "complexity_grid.csv", "complexity.json"),
               ComplexitySettings,
               run_complexity),
    Experiment("hsg_hmc.theorem1", "hsg_hmc",
               "Theorem 1, bound (13): its computable part and range of k with the mixture's constants, beside the "
               "measured W2 of HSG-HMC (rho_k = 1/k, start (0, 0))",
               "sgmcmc_verify.paper_repro.hsg_hmc.theorem1", ("theorem1.csv", "theorem1.json"), Theorem1Settings,
               run_theorem1),
    Experiment("hsg_hmc.exact_checks", "hsg_hmc",
               "Lemma 1 / eqs. (4)-(6) (integrator step vs the exact frozen-gradient SDE), eq. (7) (estimator vs the "
               "formula), the mixture's nonconvexity and dissipativity (sympy)",
               "sgmcmc_verify.paper_repro.hsg_hmc.exact_checks", ("exact_checks.json",), ExactChecksSettings,
               run_exact_checks),
    Experiment("hsg_hmc.table3", "hsg_hmc",
               "Table 3: dimension and sizes of the LIBSVM files given with --data (a9a, mushrooms, phishing, pima, "
               "a3a, ijcnn1; none shipped)", "sgmcmc_verify.paper_repro.hsg_hmc.table3", ("table3.json",),
               Table3Settings, run_table3),
]

register_experiment(*EXPERIMENTS)
