"""Statistical rate assertions for the three terms of EWSG Theorem 4.3 (seed 000, eq. (5)), smoke scale.

Each assertion: the 95 % bootstrap interval of the fitted log–log slope (over realizations) is not
entirely outside ``expected ± 0.15`` (status "held" or "inconclusive", not "failed"). Each has a
negative control: a planted bug for which the same assertion must report "failed".

* Term 1, O(1/T): EWSG (M = 1), h = 1e-3, T ∈ {1, 2, 4, 8}. Planted bug: a constant gradient bias
  (stationary mean shifted by 0.15 ≈ one posterior s.d.), so the MSE stops decreasing in T.
* Term 2, O(h/T): SGHMC (the theorem covers it; on EWSG the term is not resolvable, see
  docs/findings.md), variance of the time average above the exact continuous-limit C1/T, at T = 2,
  h ∈ {5e-4, …, 4e-3}. Planted bug: stochastic-gradient noise rescaled by √(h0/h), as if Brownian.
* Term 3, O(h²): SGHMC long-run MSE at T = 64, h ∈ {2e-3, 4e-3, 8e-3} (exact slope there ≈ 2.05).
  Planted bug: σ = √γ instead of √(2γ), a bias that does not vanish with h.

Seeds were fixed before looking at the outcome; the pass/detection rates over 20 seeds are in
docs/calibration.md.
"""
import pytest

from sgmcmc_verify.paper_repro.ewsg.experiments import RATE_TOLERANCE
from support.theorem43 import TOL, term1_check, term2_check, term3_check


def test_support_uses_the_experiments_rate_tolerance():
    assert TOL == RATE_TOLERANCE


@pytest.mark.statistical(pair="ewsg.thm4.3.term1")
def test_term1_mse_decays_like_one_over_T():
    fit, status = term1_check(seed=101)
    assert status != "failed", fit.as_dict()


@pytest.mark.negative_control(pair="ewsg.thm4.3.term1")
def test_term1_catches_a_biased_gradient():
    fit, status = term1_check(seed=101, planted=True)
    assert status == "failed", fit.as_dict()


@pytest.mark.statistical(pair="ewsg.thm4.3.term2")
def test_term2_excess_variance_grows_like_h_over_T():
    fit, status = term2_check(seed=202)
    assert fit is not None and status != "failed", None if fit is None else fit.as_dict()


@pytest.mark.negative_control(pair="ewsg.thm4.3.term2")
def test_term2_catches_brownian_scaled_gradient_noise():
    fit, status = term2_check(seed=202, planted=True)
    assert status == "failed"


@pytest.mark.statistical(pair="ewsg.thm4.3.term3")
def test_term3_long_run_mse_grows_like_h_squared():
    fit, status = term3_check(seed=303)
    assert status != "failed", fit.as_dict()


@pytest.mark.negative_control(pair="ewsg.thm4.3.term3")
def test_term3_catches_a_missing_factor_two_in_the_noise():
    fit, status = term3_check(seed=303, planted=True)
    assert status == "failed", fit.as_dict()
