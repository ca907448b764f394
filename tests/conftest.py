import numpy as np
import pytest

from verify.targets import gaussian_means_target


class ZeroTarget:
    """V ≡ 0 with n data terms: every gradient is zero."""

    def __init__(self, n=10, dim=2):
        self.n, self.dim = n, dim

    def data_gradients(self, theta, idx):
        return np.zeros(idx.shape + (self.dim,))

    def prior_gradient(self, theta):
        return np.zeros_like(theta)

    def full_gradient(self, theta):
        return np.zeros_like(theta)

    def potential(self, theta):
        return np.zeros(theta.shape[0])


@pytest.fixture(scope="session")
def target():
    return gaussian_means_target()


@pytest.fixture
def zero_target():
    return ZeroTarget()
