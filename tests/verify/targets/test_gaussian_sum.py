"""GaussianMeansTarget / GaussianMeanModel.data_gradient_sum_exact equals the per-datum reference sum bit for bit."""
import numpy as np
import pytest

from sgmcmc_verify.estimators.base import minibatch_gradient, sum_data_gradients
from sgmcmc_verify.targets import GaussianMeanModel, GaussianMeansTarget


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


def test_anisotropic_target_gradients_posterior_and_reduction_to_the_isotropic_one():
    from sgmcmc_verify.targets import AnisotropicGaussianMeansTarget, anisotropic_gaussian_means_target, gaussian_means_target

    t = anisotropic_gaussian_means_target([1.0, 0.25, 4.0], n=30)
    rng = np.random.default_rng(0)
    theta = rng.standard_normal((7, 3))
    all_idx = np.tile(np.arange(t.n), (7, 1))
    np.testing.assert_allclose(t.data_gradients(theta, all_idx).sum(axis=1), t.full_gradient(theta), rtol=1e-12,
                               atol=1e-12)
    idx = rng.integers(0, t.n, (7, 5))
    np.testing.assert_array_equal(t.data_gradient_sum_exact(theta, idx), t.data_gradients(theta, idx).sum(axis=1))
    np.testing.assert_allclose(t.posterior_cov @ t.hessian, np.eye(3), atol=1e-14)
    np.testing.assert_allclose(t.full_gradient(t.posterior_mean[None]), 0.0, atol=1e-12)
    # V(θ) − V(μ) = ½ (θ − μ)ᵀ H (θ − μ)
    z = theta - t.posterior_mean
    np.testing.assert_allclose(t.potential(theta) - t.potential(t.posterior_mean[None]),
                               0.5 * np.einsum("ci,ij,cj->c", z, t.hessian, z), rtol=1e-10)
    iso, ref = anisotropic_gaussian_means_target([1.0, 1.0]), gaussian_means_target()
    np.testing.assert_array_equal(iso.centers, ref.centers)
    np.testing.assert_allclose(iso.full_gradient(theta[:, :2]), ref.full_gradient(theta[:, :2]), rtol=1e-14)
    with pytest.raises(ValueError, match="precision"):
        AnisotropicGaussianMeansTarget(ref.centers, np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="precision"):
        AnisotropicGaussianMeansTarget(ref.centers, np.array([1.0]))
