"""sgmcmc_verify.targets.datasets and the logistic-regression target (likelihood × prior)."""
import numpy as np
import pytest

from support import DATA_DIR
from sgmcmc_verify.targets.datasets import (data_identity, load, load_builtin, load_libsvm, set_data_path, standardize,
                                     train_test_split, user_data_names)
from sgmcmc_verify.targets.logistic import GammaNormPrior, GaussianPrior, LogisticRegressionTarget

FIXTURE = DATA_DIR / "a3a_fixture.libsvm"


def test_libsvm_fixture_loads_with_binary_labels():
    ds = load_libsvm(FIXTURE, n_features=123)
    assert ds.X.shape == (12, 123) and set(np.unique(ds.y)) <= {0.0, 1.0}
    assert np.all(ds.X.sum(axis=1) == 5)  # five active binary features per row, as written
    first = FIXTURE.read_text().splitlines()[0].split()
    assert ds.y[0] == (1.0 if first[0] == "+1" else 0.0)
    assert all(ds.X[0, int(t.split(":")[0]) - 1] == 1.0 for t in first[1:])


def test_missing_path_is_a_clear_value_error(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_libsvm(tmp_path / "a9a")


@pytest.mark.parametrize("name,shape", [("pima", (532, 7)), ("breast_cancer", (569, 30))])
def test_builtin_data_sets_ship_offline(name, shape):
    ds = load_builtin(name)
    assert ds.X.shape == shape and set(np.unique(ds.y)) == {0.0, 1.0}


def test_standardize_uses_training_statistics():
    tr, te = train_test_split(load_builtin("pima"), 0.25, seed=0)
    a, b = standardize(tr, te)
    np.testing.assert_allclose(a.X[:, :-1].mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(a.X[:, :-1].std(0), 1, atol=1e-12)
    assert np.all(a.X[:, -1] == 1) and b.X.shape[1] == a.X.shape[1]


def test_logistic_gradients_agree_with_finite_differences_and_sum():
    ds = standardize(load_builtin("pima"))[0]
    t = LogisticRegressionTarget(ds.X, ds.y, prior=0.5)
    rng = np.random.default_rng(1)
    th = rng.standard_normal((3, t.dim)) * 0.3
    idx = np.broadcast_to(np.arange(t.n), (3, t.n))
    np.testing.assert_allclose(t.data_gradients(th, idx).sum(1) + t.prior_gradient(th), t.full_gradient(th), rtol=1e-10)
    eps = 1e-6
    e = np.zeros(t.dim)
    e[2] = eps
    fd = (t.potential(th + e) - t.potential(th - e)) / (2 * eps)
    np.testing.assert_allclose(fd, t.full_gradient(th)[:, 2], rtol=1e-6)


def test_logistic_bad_input():
    with pytest.raises(ValueError, match="y must contain labels"):
        LogisticRegressionTarget(np.zeros((2, 2)), np.array([0.0, 2.0]))
    with pytest.raises(ValueError, match="prior_precision"):
        LogisticRegressionTarget(np.zeros((2, 2)), np.array([0.0, 1.0]), prior=0.0)


def test_named_data_set_resolves_user_path_then_builtin(monkeypatch):
    monkeypatch.delenv("SGMCMC_DATA", raising=False)
    with pytest.raises(ValueError, match="--data a3a="):
        load("a3a")
    set_data_path("a3a", FIXTURE)
    set_data_path("a3a.t", FIXTURE)
    try:
        assert load("a3a", n_features=123).X.shape == (12, 123) and load("a3a.t").name == "a3a.t"
        assert user_data_names() == ["a3a", "a3a.t"]
        ident = data_identity("a3a")
        assert ident["bytes"] == FIXTURE.stat().st_size and len(ident["sha256"]) == 64
    finally:
        monkeypatch.delenv("SGMCMC_DATA", raising=False)
    assert load("pima").name == "pima" and data_identity("pima") == {"name": "pima", "builtin": True}


def test_prior_objects_and_their_validation():
    X, y = np.eye(3), np.array([0.0, 1.0, 1.0])
    th = np.array([[0.3, -1.2, 2.0]])
    g = LogisticRegressionTarget(X, y, prior=GaussianPrior(2.0))
    np.testing.assert_allclose(g.prior_gradient(th), 2.0 * th)
    np.testing.assert_allclose(g.potential(th) - LogisticRegressionTarget(X, y, prior=GaussianPrior(1e-300)).potential(th),
                               np.sum(th**2), rtol=1e-12)
    gam = LogisticRegressionTarget(X, y, prior=GammaNormPrior(1.0, 0.5))
    r = np.linalg.norm(th)
    np.testing.assert_allclose(gam.prior_gradient(th), (1.0 / r**2 + 0.5 / r) * th)
    with pytest.raises(ValueError, match="theta"):
        GammaNormPrior(1.0, np.nan)
    with pytest.raises(ValueError, match="prior"):
        LogisticRegressionTarget(X, y, prior="flat")
