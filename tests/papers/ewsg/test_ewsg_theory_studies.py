"""Statistical assertions of the EWSG theory study (issue #11; seed 000, §4, Appendix H, Fig. 1c), smoke scale.

Each assertion has a planted-bug partner that must make it fail (``tests/support/ewsg_theory.py``):

* Theorem 4.2: over 2,000 fresh data sets (ball law, ‖b_i‖ <= 50, n = 50, h = 1e-3, y = 0), E[Δ] is
  positive and equals its exact first order. Planted bug: the exponent of the weights (4) with the
  wrong sign.
* Theorem H.1: EWSG's mean deviation from SGHMC's exact mean at h = 1e-3 matches the first-order
  prediction. Planted bug: the weights evaluated at 16 h.
* Fig. 1c repeated: the Monte Carlo KL of the M = 0 arm (and its mean / covariance parts) on another data
  draw equals SGHMC's exact KL. Planted bug: the chains run on the canonical draw.
* Theorem 4.3 term 3: EWSG's long-run bias is negative at h = 1e-3 and positive at h = 4e-3.
  Planted bug: the index chain never runs (uniform subsampling).
* Theorem 4.3 term 3, same fit: SGHMC's Monte Carlo MSE of the time average at (h, T) = (0.02, 32) equals
  the exact mean and Gaussian-surrogate variance. Planted bug: σ = √γ.

Seeds were fixed before looking at the outcome; the pass / detection rates over 20 seed sets are in
the report of this branch (``tests/calibrate.py``).
"""
import pytest

from sgmcmc_verify.paper_repro.ewsg.settings import BiasSplitSettings, Theorem43Settings
from support.ewsg_theory import ewsg_sign_check, fig1c_check, h1_check, sghmc_exact_mse_check, theorem42_check


@pytest.mark.parametrize("scale", ["smoke", "default", "paper"])
def test_bias_split_uses_the_grids_of_figs_1e_and_1f(scale):
    a, b = BiasSplitSettings.at(scale), Theorem43Settings.at(scale)
    assert (a.e_time, a.e_steps, a.f_time, a.f_steps) == (b.e_time, b.e_steps, b.f_time, b.f_steps)
    assert (a.n_data, a.dim, a.friction, a.seed) == (b.n_data, b.dim, b.friction, b.seed)


@pytest.mark.statistical(pair="ewsg.thm4.2.expected_variance_reduction")
def test_theorem42_expected_delta_is_positive_and_first_order():
    got, ok = theorem42_check(seed=421)
    assert ok, got


@pytest.mark.negative_control(pair="ewsg.thm4.2.expected_variance_reduction")
def test_theorem42_catches_flipped_weights():
    got, ok = theorem42_check(seed=421, planted=True)
    assert not ok, got


@pytest.mark.statistical(pair="ewsg.thmH1.mean_within_O_hp")
def test_h1_mean_deviation_matches_first_order():
    got, ok = h1_check(seed=811)
    assert ok, got


@pytest.mark.negative_control(pair="ewsg.thmH1.mean_within_O_hp")
def test_h1_catches_weights_at_the_wrong_step_size():
    got, ok = h1_check(seed=811, planted=True)
    assert not ok, got


@pytest.mark.statistical(pair="ewsg.fig1c.repeat_accuracy_increases_with_M")
def test_fig1c_repeat_kl_parts_match_exact_sghmc_on_another_draw():
    got, ok = fig1c_check(seed=131)
    assert ok, got


@pytest.mark.negative_control(pair="ewsg.fig1c.repeat_accuracy_increases_with_M")
def test_fig1c_repeat_catches_a_reused_data_draw():
    got, ok = fig1c_check(seed=131, planted=True)
    assert not ok, got


@pytest.mark.statistical(pair="ewsg.thm4.3.term3.ewsg_slope_readable")
def test_ewsg_long_run_bias_changes_sign():
    got, ok = ewsg_sign_check(seed=911)
    assert ok, got


@pytest.mark.negative_control(pair="ewsg.thm4.3.term3.ewsg_slope_readable")
def test_ewsg_sign_check_catches_an_index_chain_that_never_runs():
    got, ok = ewsg_sign_check(seed=911, planted=True)
    assert not ok, got


@pytest.mark.statistical(pair="ewsg.thm4.3.term3.sghmc_same_fit")
def test_sghmc_time_average_mse_is_exact():
    got, ok = sghmc_exact_mse_check(seed=431)
    assert ok, got


@pytest.mark.negative_control(pair="ewsg.thm4.3.term3.sghmc_same_fit")
def test_sghmc_exact_mse_catches_half_the_noise():
    got, ok = sghmc_exact_mse_check(seed=431, planted=True)
    assert not ok, got
