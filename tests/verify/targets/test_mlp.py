"""The Bayesian MLP target (verify/targets/mlp.py): gradients against finite differences, exact identities.

Tolerances: central differences with ε = 1e-6 have truncation error O(ε²·|V'''|) ≈ 1e-12 and
round-off O(|V|·1e-16/ε) ≈ 1e-10 on these small problems, so 1e-7 (absolute, gradients of order
1) leaves three orders of margin; identities between two float64 evaluations of the same sums are
checked at 1e-12 relative (round-off of sums of at most a few hundred terms).
"""
import numpy as np
import pytest

from sgmcmc_verify.estimators import minibatch_gradient, sum_data_gradients
from sgmcmc_verify.targets import MLPClassifierTarget


def _problem(activation="sigmoid", n=40, p=6, hidden=5, K=3, seed=0, prior=0.7):
    rng = np.random.default_rng(seed)
    X = rng.random((n, p))
    y = np.arange(n) % K
    t = MLPClassifierTarget(X, y, hidden=hidden, n_classes=K, prior_precision=prior, activation=activation)
    theta = t.initial_position(rng, 3) + 0.5 * rng.standard_normal((3, t.dim))
    return t, theta, rng


def _v_i(t, theta, i):
    return -t.log_proba(theta, t.X[i:i + 1])[:, 0, t.y[i]]


@pytest.mark.parametrize("activation", ["sigmoid", "tanh"])
def test_per_datum_gradients_match_central_differences(activation):
    t, theta, _ = _problem(activation)
    idx = np.array([[0, 5, 5], [39, 1, 2], [7, 8, 9]])
    g = t.data_gradients(theta, idx)
    eps = 1e-6
    for c in range(3):
        for j in range(3):
            i = idx[c, j]
            E = eps * np.eye(t.dim)
            fd = np.array([(_v_i(t, theta[c] + e[None], i) - _v_i(t, theta[c] - e[None], i))[0] / (2 * eps) for e in E])
            np.testing.assert_allclose(g[c, j], fd, atol=1e-7)


def test_potential_gradient_matches_central_differences():
    t, theta, _ = _problem(n=15)
    eps = 1e-6
    E = eps * np.eye(t.dim)
    fd = np.stack([(t.potential(theta + e[None]) - t.potential(theta - e[None])) / (2 * eps) for e in E], axis=1)
    np.testing.assert_allclose(t.full_gradient(theta), fd, atol=1e-6 * max(1.0, np.abs(fd).max()))


def test_sum_of_per_datum_gradients_equals_the_matrix_product_sum():
    t, theta, rng = _problem()
    idx = rng.integers(0, t.n, size=(3, 25))  # with repeats: a repeated index counts twice in both
    a = t.data_gradients(theta, idx).sum(axis=1)
    b = t.data_gradient_sum(theta, idx)
    np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12 * np.abs(a).max())


def test_full_gradient_is_prior_plus_every_datum_and_does_not_depend_on_chunking():
    t, theta, _ = _problem()
    every = np.broadcast_to(np.arange(t.n), (3, t.n))
    ref = t.prior_gradient(theta) + t.data_gradients(theta, every).sum(axis=1)
    np.testing.assert_allclose(t.full_gradient(theta), ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())
    small = MLPClassifierTarget(t.X, t.y, hidden=5, n_classes=3, prior_precision=0.7, chunk_size=7)
    np.testing.assert_allclose(small.full_gradient(theta), t.full_gradient(theta), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(small.potential(theta), t.potential(theta), rtol=1e-12)


def test_estimators_use_the_sum_and_agree_with_the_per_datum_path():
    """minibatch_gradient takes data_gradient_sum when the target has one; same value as summing per datum."""
    t, theta, rng = _problem()

    class PerDatumOnly:  # the same target without data_gradient_sum
        n, dim = t.n, t.dim
        data_gradients, prior_gradient = t.data_gradients, t.prior_gradient

    idx = rng.integers(0, t.n, size=(3, 10))
    np.testing.assert_allclose(minibatch_gradient(t, theta, idx), minibatch_gradient(PerDatumOnly(), theta, idx),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(sum_data_gradients(t, theta, idx), t.data_gradient_sum(theta, idx))


def test_layout_pack_unpack_and_the_mnist_dimension():
    t, theta, _ = _problem()
    W1, b1, W2, b2 = t.unpack(theta)
    assert W1.shape == (3, 6, 5) and b1.shape == (3, 5) and W2.shape == (3, 5, 3) and b2.shape == (3, 3)
    np.testing.assert_array_equal(t.pack(W1, b1, W2, b2), theta)
    mnist_like = MLPClassifierTarget(np.zeros((10, 784)), np.arange(10), hidden=100)
    assert mnist_like.dim == 784 * 100 + 100 + 100 * 10 + 10 == 79_510


def test_predictive_probabilities_are_distributions_and_match_the_potential():
    t, theta, _ = _problem()
    p = t.predict_proba(theta, t.X)
    np.testing.assert_allclose(p.sum(axis=2), 1.0, rtol=1e-14)
    nll = -np.log(p[:, np.arange(t.n), t.y]).sum(axis=1)
    np.testing.assert_allclose(t.potential(theta), nll + 0.35 * np.sum(theta**2, axis=1), rtol=1e-12)


def test_initial_position_scales_weights_by_fan_in_and_zeroes_biases():
    t = MLPClassifierTarget(np.zeros((5, 400)), np.arange(5), hidden=50)
    W1, b1, W2, b2 = t.unpack(t.initial_position(np.random.default_rng(3), 2))
    assert abs(W1.std() * np.sqrt(400) - 1) < 0.02 and abs(W2.std() * np.sqrt(50) - 1) < 0.1
    assert not b1.any() and not b2.any()


@pytest.mark.parametrize("kwargs,match", [
    ({"y": np.array([0, 1, 2.5])}, "integer"),
    ({"y": np.array([0, 1])}, "one label per row"),
    ({"y": np.array([0, 1, 3]), "n_classes": 3}, "labels in"),
    ({"hidden": 0}, "hidden"),
    ({"prior_precision": -1.0}, "prior_precision"),
    ({"activation": "relu"}, "activation"),
])
def test_bad_input_is_a_value_error_naming_the_parameter(kwargs, match):
    args = {"X": np.zeros((3, 2)), "y": np.array([0, 1, 2])}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        MLPClassifierTarget(**args)


def test_bad_theta_and_idx_shapes_are_value_errors():
    t, theta, _ = _problem()
    with pytest.raises(ValueError, match="theta"):
        t.unpack(theta[:, :-1])
    with pytest.raises(ValueError, match="idx"):
        t.data_gradient_sum(theta, np.zeros((2, 3), dtype=int))


@pytest.mark.parametrize("width", [1, 5, 12, 64, 10_000])
def test_gradient_blocks_are_the_columns_of_the_per_datum_gradients_bit_for_bit(width):
    t, theta, rng = _problem()
    idx = rng.integers(0, t.n, size=(3, 7))
    full = t.data_gradients(theta, idx)
    seen = np.zeros(t.dim, dtype=int)
    for cols, block in t.data_gradient_blocks(theta, idx, width=width):
        assert block.shape == (3, 7, cols.stop - cols.start)
        assert block.tobytes() == np.ascontiguousarray(full[..., cols]).tobytes()
        seen[cols] += 1
    assert np.all(seen == 1)                                     # every coordinate once


def test_gradient_blocks_check_their_input_at_the_call():
    t, theta, _ = _problem()
    with pytest.raises(ValueError, match="width"):
        t.data_gradient_blocks(theta, np.array([[0], [1], [2]]), width=0)
    with pytest.raises(ValueError, match="idx"):
        t.data_gradient_blocks(theta, np.array([[0, 1]]))
