"""The Gaussian-mixture targets (verify/targets/mixtures.py): gradients, constants, grid quadrature.

Seeds ``001_d56659fdb8996bf2.txt`` (HSG-HMC Table 2) and ``004_8438bd4b543e0fc4.txt`` (LS-SGLD §4.1.2).
"""
from __future__ import annotations

import numpy as np
import pytest

from sgmcmc_verify.targets import HSGMixtureTarget, LSMixtureTarget, assumption_constants, hsg_mixture_target, mixture_centers


@pytest.fixture(scope="module")
def mixture():
    return hsg_mixture_target()


def test_mixture_gradients_and_constants(mixture):
    x = np.random.default_rng(0).standard_normal((4, 2)) * 3
    e = 1e-6
    fd = np.stack([(mixture.potential(x + e * np.eye(2)[j]) - mixture.potential(x - e * np.eye(2)[j])) / (2 * e)
                   for j in range(2)], 1)
    np.testing.assert_allclose(mixture.full_gradient(x), fd, atol=1e-7)
    idx = np.broadcast_to(np.arange(mixture.n), (4, mixture.n))
    np.testing.assert_allclose(mixture.data_gradients(x, idx).sum(1), mixture.full_gradient(x), atol=1e-12)
    c = assumption_constants(mixture)
    assert np.all(mixture.gradient_variance(x) <= c.G2)
    np.testing.assert_allclose(mixture.full_gradient(c.x_star[None]), 0.0, atol=1e-6)


def test_the_two_papers_mixtures_have_the_same_gradient():
    """HSG-HMC and LS-SGLD write the gradient of the same 2 : 1 mixture differently; in exact arithmetic
    they agree, and in float64 they agree to round-off."""
    c = mixture_centers(60, 3)
    a, b = HSGMixtureTarget(c), LSMixtureTarget(c)
    x = np.random.default_rng(1).standard_normal((7, 2)) * 3
    np.testing.assert_allclose(a.full_gradient(x), b.full_gradient(x), rtol=1e-12, atol=1e-12)
    # the potentials differ by the constant log 3 (weights 2 : 1 against 2/3 : 1/3)
    d = a.potential(x) - b.potential(x)
    np.testing.assert_allclose(d, d[0], atol=1e-12)
