"""HSG-HMC items brought into the ledger by issue #25: Theorem 1's bound (13), Lemma 1 / (4)-(6), eq. (7), the
mixture, SRVR-HMC's sensitivity, Table 3 — each entry shown to hold and to fail on constructed or planted inputs.

Seed ``001_d56659fdb8996bf2.txt`` (HSG-HMC): Theorem 1, eqs. (4)-(7), Lemma 1, Table 1, Table 3, § Gaussian mixture.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from sgmcmc_verify.estimators import HybridGradient
from sgmcmc_verify.integrators.exponential import ExponentialIntegrator
from sgmcmc_verify.ledger.claims import get
from sgmcmc_verify.ledger.measures import Compared, Estimate
from sgmcmc_verify.ledger.rules import judge
from sgmcmc_verify.paper_repro.hsg_hmc.claims_complexity import GREATLY
from sgmcmc_verify.paper_repro.hsg_hmc.complexity import srvr_sensitivity
from sgmcmc_verify.paper_repro.hsg_hmc.exact_checks import hybrid_check, integrator_step_moments, sde_step_moments
from sgmcmc_verify.paper_repro.hsg_hmc.settings import ExactChecksSettings, Table3Settings
from sgmcmc_verify.paper_repro.hsg_hmc.table3 import run_table3
from sgmcmc_verify.paper_repro.hsg_hmc.theorem1 import bound13_first_term, theorem1_constants
from sgmcmc_verify.targets.datasets import ENV_VAR, SEEN_ENV_VAR
from sgmcmc_verify.targets.mixtures import hsg_mixture_target


# ---- Lemma 1 / (4)-(6) ----------------------------------------------------------------------------------------

class UncorrelatedNoise(ExponentialIntegrator):
    """Planted bug: ε_x and ε_v drawn independently (the cross covariance of (6) dropped)."""

    def _validate(self):
        super()._validate()
        L = np.array(self.noise_cholesky)
        c = L @ L.T
        object.__setattr__(self, "noise_cholesky", np.diag(np.sqrt(np.diag(c))))


def _integrator_measure(cls):
    out = {}
    for gam, h, u in ExactChecksSettings().integrator_points:
        sde, got = sde_step_moments(gam, h, u, 1.7), integrator_step_moments(gam, h, u, 1.7, integrator_class=cls)
        out.update({f"{gam}/{h}/{u}: {q}": Compared(Estimate(got[q]), Estimate(sde[q])) for q in sde})
    return out


@pytest.mark.statistical(pair="hsg_hmc.lemma1_exact")
def test_integrator_step_is_the_frozen_gradient_sde_flow():
    rule = get("hsg_hmc.lemma1.exponential_integrator_exact").rule
    assert judge(rule, _integrator_measure(ExponentialIntegrator)).status == "held"


@pytest.mark.negative_control(pair="hsg_hmc.lemma1_exact")
def test_lemma1_entry_catches_uncorrelated_noise():
    rule = get("hsg_hmc.lemma1.exponential_integrator_exact").rule
    assert judge(rule, _integrator_measure(UncorrelatedNoise)).status == "failed"


# ---- eq. (7) -----------------------------------------------------------------------------------------------------

class FreshPreviousSample(HybridGradient):
    """Planted bug: ∇F(x^(k), ·) evaluated at a fresh sample ξ' instead of the ξ of ∇F(x^(k+1), ·) (two samples)."""

    def _previous_indices(self, rng, target, idx):
        return self.base.draw(rng, target, idx.shape[0])


def _hybrid_measure(cls):
    s = ExactChecksSettings().at("smoke")
    hy = [hybrid_check(s, sc, estimator_class=cls) for sc in s.schedules]
    return {"(7) by hand": {h["schedule"]: Estimate(h["max_relative_error"]) for h in hy},
            "one sample per iteration": {h["schedule"]: Estimate(h["samples_per_iteration"]) for h in hy}}


@pytest.mark.statistical(pair="hsg_hmc.eq7_exact")
def test_estimator_is_equation_7_with_one_sample():
    rule = get("hsg_hmc.eq7.hybrid_estimator_one_sample").rule
    assert judge(rule, _hybrid_measure(HybridGradient)).status == "held"


@pytest.mark.negative_control(pair="hsg_hmc.eq7_exact")
def test_eq7_entry_catches_a_second_sample():
    rule = get("hsg_hmc.eq7.hybrid_estimator_one_sample").rule
    v = judge(rule, _hybrid_measure(FreshPreviousSample))
    assert v.status == "failed"


# ---- Theorem 1 -----------------------------------------------------------------------------------------------------

def test_theorem1_constants_follow_the_printed_formulas():
    t = hsg_mixture_target(500, 2, 20210202)
    c = theorem1_constants(t, 0.01)
    gam, M, m = c["friction"], c["M"], c["m"]
    assert math.isclose(c["k_max"], 2 / (c["C"] * 1e-4) * min(1.0, gam**2 * m / (768 * M**3)), rel_tol=1e-12)
    assert math.isclose(c["Gamma_1"], 2 * c["Lambda_bar"] * (gam * M**2 * c["Ebar"]) ** 0.25, rel_tol=1e-12)
    first = bound13_first_term(c, [1, 10])
    assert math.isclose(first[0], c["Gamma_1"] * (gam**2 * 1e-6 + c["C"] * 1e-6) ** 0.25, rel_tol=1e-12)
    assert first[1] > first[0]
    with pytest.raises(ValueError, match="K must be"):
        bound13_first_term(c, [0])
    with pytest.raises(ValueError, match="step_size"):
        theorem1_constants(t, -1.0)


def test_theorem1_entries_hold_and_fail_on_constructed_numbers():
    rng = get("hsg_hmc.theorem1.range_covers_iterations").rule
    assert judge(rng, {"η = 0.01": Estimate(3.0)}).status == "held"
    assert judge(rng, {"η = 0.01": Estimate(2e-4)}).status == "failed"
    inf = get("hsg_hmc.theorem1.bound13_informative").rule
    assert judge(inf, {"η = 0.01": Compared(Estimate(1.0), Estimate(3.14))}).status == "held"
    assert judge(inf, {"η = 0.01": Compared(Estimate(1570.0), Estimate(3.14))}).status == "failed"


# ---- SRVR-HMC's sensitivity ------------------------------------------------------------------------------------

def _grid(counts_by_config, eta_counts):
    """``complexity_grid.csv`` rows: one ε, the base configuration over three step sizes, the others at one."""
    rows = []
    for hp, c in counts_by_config.items():
        steps = eta_counts if hp.startswith("inner_loop_length=10;outer_batch_size=n;inner_batch_size=1") else {0.01: c}
        for h, v in steps.items():
            rows.append({"method": "SRVR-HMC", "hyperparameters": hp, "step_size": h, "epsilon": 0.05,
                         "evaluations": v, "horizon_evaluations": 1e6})
    return rows


CONFIGS = ((10, 0, 1), (50, 0, 1), (10, 10, 1), (10, 0, 5))
KEYS = ["inner_loop_length=10;outer_batch_size=n;inner_batch_size=1",
        "inner_loop_length=50;outer_batch_size=n;inner_batch_size=1",
        "inner_loop_length=10;outer_batch_size=10;inner_batch_size=1",
        "inner_loop_length=10;outer_batch_size=n;inner_batch_size=5"]


def _sens(mult, eta_ratio):
    base = 100.0
    counts = {k: base * m for k, m in zip(KEYS, (1.0,) + mult)}
    eta = {0.007: base * eta_ratio, 0.01: base, 0.014: base * 1.1}
    return srvr_sensitivity(_grid(counts, eta), CONFIGS, [0.05])


def test_srvr_sensitivity_reads_each_parameter_moved_alone():
    s = _sens((1.5, 8.0, math.inf), 3.0)["0.05"]
    assert math.isclose(s["L"]["ratio"], 1.5) and math.isclose(s["B0"]["ratio"], 8.0)
    assert s["B"]["lower_bound"] and s["B"]["ratio"] == 1e6 / 100.0   # never reached: its horizon, a lower bound
    assert math.isclose(s["eta"]["ratio"], 3.0)


def test_srvr_sensitivity_entry_holds_and_fails():
    rule = get("hsg_hmc.corollary2.srvr_hyperparameters_matter").rule

    def measure(sens):
        return {f"ε = {e}": {p: Estimate(v["ratio"]) for p, v in r.items()} for e, r in sens.items()}
    assert judge(rule, measure(_sens((GREATLY * 2, 8.0, 3.0), 3.0))).status == "held"
    assert judge(rule, measure(_sens((1.1, 8.0, 3.0), 3.0))).status == "failed"


# ---- Table 3 -------------------------------------------------------------------------------------------------

def _libsvm(path, rows, features):
    rng = np.random.default_rng(0)
    with open(path, "w") as f:
        for i in range(rows):
            feats = " ".join(f"{j + 1}:{rng.normal():.3f}" for j in range(features))
            f.write(f"{1 if i % 2 else -1} {feats}\n")


@pytest.mark.parametrize("rows,status", [(768, "held"), (767, "failed")])
def test_table3_entry_on_a_constructed_libsvm_file(tmp_path, monkeypatch, rows, status):
    """pima (LIBSVM 'diabetes'): 8 features, 600 + 168 rows as printed; one row short fails."""
    from sgmcmc_verify.targets.datasets import set_data_path

    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.delenv(SEEN_ENV_VAR, raising=False)
    f = tmp_path / "pima.libsvm"
    _libsvm(f, rows, 8)
    set_data_path("pima", f)
    out = tmp_path / "res" / "hsg_hmc"
    run_table3(Table3Settings(), out)
    v = get("hsg_hmc.table3.statistics").evaluate(tmp_path / "res")
    assert v.status == status


def test_table3_entry_is_not_run_without_data(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    run_table3(Table3Settings(), tmp_path / "hsg_hmc")
    assert get("hsg_hmc.table3.statistics").evaluate(tmp_path).status == "not run (scale)"


def test_a_batch_size_of_one_is_not_a_grid_edge():
    """Table 1's minibatch methods tuned to b = 1 (the least batch size) are not capped by the tuning-edge rule."""
    from sgmcmc_verify.ledger.extract import tuned
    assert tuned(1, (1, 2, 5), "batch size", least=1).at_edge is None
    assert tuned(1, (1, 2, 5), "batch size").at_edge == "low"
    assert tuned(5, (1, 2, 5), "batch size", least=1).at_edge == "high"


# ---- Remark 2 (u = 1, e^{−γη} = 0.9) -----------------------------------------------------------------------------

class DecayPointEight(ExponentialIntegrator):
    """Planted bug: the default friction makes e^{−γη} = 0.8 instead of Remark 2's 0.9."""

    def _validate(self):
        if self.friction is None:
            object.__setattr__(self, "friction", -math.log(0.8) / self.step_size)
        super()._validate()


def _remark2_measure(factories=None):
    from sgmcmc_verify.paper_repro.hsg_hmc.exact_checks import remark2_defaults

    rows = remark2_defaults(ExactChecksSettings().remark2_step_sizes, hsg_mixture_target(4, 1, 0), factories)
    return {f"{r['sampler']}, {r['step_size']}": {"e^(-γη)": Estimate(r["decay"]), "u": Estimate(r["u"])}
            for r in rows}


@pytest.mark.statistical(pair="hsg_hmc.remark2")
def test_remark2_defaults_hold():
    assert judge(get("hsg_hmc.remark2.default_friction").rule, _remark2_measure()).status == "held"


@pytest.mark.negative_control(pair="hsg_hmc.remark2")
def test_remark2_entry_catches_a_wrong_default_decay():
    from sgmcmc_verify.estimators import UniformMinibatch

    bad = {"planted": lambda target, eta: DecayPointEight(target, eta, None, UniformMinibatch(1), 1.0)}
    assert judge(get("hsg_hmc.remark2.default_friction").rule, _remark2_measure(bad)).status == "failed"
