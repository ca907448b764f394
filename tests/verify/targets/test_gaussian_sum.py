"""GaussianMeansTarget / GaussianMeanModel.data_gradient_sum_exact equals the per-datum reference sum bit for bit."""
import numpy as np
import pytest

from verify.estimators.base import minibatch_gradient, sum_data_gradients
from verify.targets import GaussianMeanModel, GaussianMeansTarget


@pytest.mark.parametrize("n, d, chains, b", [(50, 2, 1000, 10), (50, 2, 1000, 1), (50, 1, 300, 100), (200, 5, 33, 17),
                                             (50, 2, 1, 10), (1000, 3, 50, 64), (50, 2, 7, 8), (20, 4, 5, 20)])
@pytest.mark.parametrize("cls", [GaussianMeansTarget, GaussianMeanModel])
def test_exact_sum_is_bit_identical_to_per_datum_sum(n, d, chains, b, cls):
    rng = np.random.default_rng(n + d + chains + b)
    t = cls(rng.standard_normal((n, d)))
    theta = rng.standard_normal((chains, d)) * 3
    idx = rng.integers(0, n, (chains, b))
    ref = t.data_gradients(theta, idx).sum(axis=1)
    np.testing.assert_array_equal(t.data_gradient_sum_exact(theta, idx), ref)
    np.testing.assert_array_equal(sum_data_gradients(t, theta, idx), ref)
    g = minibatch_gradient(t, theta, idx)
    np.testing.assert_array_equal(g, t.prior_gradient(theta) + (n / b) * ref)
