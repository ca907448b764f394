import numpy as np
import pytest

SEED_STRIDE = 7919  # a prime: offsets k and k' never map two tests' seeds onto each other's


def pytest_addoption(parser):
    parser.addoption("--seed-offset", type=int, default=0,
                     help="shift every integer seed given to numpy.random.default_rng inside statistical and "
                          "negative-control tests by SEED_STRIDE * k (used by tests/calibrate.py)")


@pytest.fixture(autouse=True)
def _seed_offset(request, monkeypatch):
    k = request.config.getoption("--seed-offset")
    node = request.node
    if not k or not (node.get_closest_marker("statistical") or node.get_closest_marker("negative_control")):
        return
    real = np.random.default_rng

    def shifted(seed=None):
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seed = int(seed) + SEED_STRIDE * k
        elif isinstance(seed, (list, tuple)) and seed and all(isinstance(x, (int, np.integer)) for x in seed):
            seed = [int(seed[0]) + SEED_STRIDE * k, *seed[1:]]
        return real(seed)

    monkeypatch.setattr(np.random, "default_rng", shifted)

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


@pytest.fixture(scope="session")
def smoke_results(tmp_path_factory):
    """Every registered experiment run once at smoke scale into a session temp dir."""
    from verify.experiments import all_experiments, run_experiment
    root = tmp_path_factory.mktemp("smoke_results")
    for e in all_experiments():
        run_experiment(e, "smoke", results_root=root, n_jobs=1)
    return root
