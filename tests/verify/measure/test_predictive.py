"""sgmcmc_verify.measure.predictive: the burn-in-window average of recorded predictions and its scores (exact checks)."""
import numpy as np
import pytest

from sgmcmc_verify.measure.predictive import classification_scores, window_average


@pytest.mark.parametrize("fraction", [0.0, 0.25, 0.5, 0.9])
def test_window_average_equals_the_brute_force_mean(fraction):
    rng = np.random.default_rng(0)
    budget = np.sort(rng.random(30)) * 10  # irregular records, as SVRG's snapshot steps give
    budget[5] = budget[4]                  # and a repeated budget
    v = rng.random((3, 30, 4, 2))
    got = window_average(v, budget, fraction)
    for j in range(30):
        inside = [k for k in range(j + 1) if budget[k] >= fraction * budget[j] - 1e-12]
        np.testing.assert_allclose(got[:, j], v[:, inside].mean(axis=1), rtol=1e-12)


def test_window_average_rejects_bad_budgets_and_fractions():
    with pytest.raises(ValueError, match="budget"):
        window_average(np.zeros((1, 3)), [0, 2, 1])
    with pytest.raises(ValueError, match="burn_in_fraction"):
        window_average(np.zeros((1, 3)), [0, 1, 2], 1.0)


def test_scores_of_a_sure_and_a_uniform_predictor():
    y = np.array([0, 2, 1, 1])
    sure = np.eye(3)[y]
    err, nll = classification_scores(sure, y)
    assert err == 0 and nll == 0
    err, nll = classification_scores(np.full((2, 4, 3), 1 / 3), y)  # leading axes kept; ties go to class 0
    np.testing.assert_allclose(err, [0.75, 0.75])
    np.testing.assert_allclose(nll, np.log(3), rtol=1e-15)


def test_a_zero_probability_gives_a_finite_loss_and_bad_labels_raise():
    _, nll = classification_scores(np.array([[1.0, 0.0]]), [1])
    assert np.isfinite(nll) and nll > 600
    with pytest.raises(ValueError, match="labels"):
        classification_scores(np.array([[0.5, 0.5]]), [2])
    with pytest.raises(ValueError, match="proba"):
        classification_scores(np.array([[0.5, 0.5]]), [0, 1])
