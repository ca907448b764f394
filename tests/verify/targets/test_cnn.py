"""The Bayesian CNN target (verify/targets/cnn.py): gradients against finite differences and a loop reference.

Tolerances: central differences with ε = 1e-6 on a ReLU network are exact up to O(ε²·|V'''|) ≈ 1e-12 away from
the kinks and round-off O(|V|·1e-16/ε) ≈ 1e-10, so 1e-6 absolute leaves a margin of 10⁴ on round-off; random
continuous inputs put the pre-activations and pooling windows away from a kink or a tie with probability one (a
kink within ε would show as an O(1) error, a failure, never as a silent pass). Identities between two float64 evaluations of the same
sums: 1e-12 relative (round-off of sums of at most a few hundred terms).
"""
import numpy as np
import pytest

from sgmcmc_verify.estimators import sum_data_gradients
from sgmcmc_verify.targets.cnn import EWSG_CNN, CNNClassifierTarget


def _problem(n=12, shape=(12, 12, 2), channels=(3, 2), kernel=3, pool=2, dense=(5,), K=3, seed=0, chains=2):
    rng = np.random.default_rng(seed)
    X = rng.random((n,) + shape)
    y = np.arange(n) % K
    t = CNNClassifierTarget(X, y, conv_channels=channels, kernel=kernel, pool=pool, dense=dense, n_classes=K,
                            prior_precision=0.7, chunk_size=5)
    theta = t.initial_position(rng, chains) + 0.3 * rng.standard_normal((chains, t.dim))
    return t, theta, rng


def _v_i(t, theta, i):
    return -t.log_proba(theta, t.X[i:i + 1])[:, 0, t.y[i]]


def _fd(t, theta_c, i, eps=1e-6):
    E = eps * np.eye(t.dim)
    return np.array([(_v_i(t, theta_c + e[None], i) - _v_i(t, theta_c - e[None], i))[0] / (2 * eps) for e in E])


def _conv_loop(x, K, c):
    """Direct valid convolution of one image x (H, W, Cin) by K (k, k, Cin, Cout): the definition, by loops."""
    k = K.shape[0]
    Ho, Wo = x.shape[0] - k + 1, x.shape[1] - k + 1
    out = np.empty((Ho, Wo, K.shape[3]))
    for i in range(Ho):
        for j in range(Wo):
            for o in range(K.shape[3]):
                out[i, j, o] = np.sum(x[i:i + k, j:j + k, :] * K[:, :, :, o]) + c[o]
    return out


def _forward_loop(t, theta_c, x):
    """Logits of one image by the definition: loop convolutions, ReLU, first-maximum pooling, dense layers."""
    params = [p[0] for p in t.unpack(theta_c[None])]
    a, i = x, 0
    for layer in range(len(t.conv_channels)):
        z = np.maximum(_conv_loop(a, params[i], params[i + 1]), 0.0)
        i += 2
        p = t.pool if isinstance(t.pool, int) else t.pool[layer]
        Hp, Wp = z.shape[0] // p, z.shape[1] // p
        a = np.array([[[z[r * p:(r + 1) * p, s * p:(s + 1) * p, ch].max() for ch in range(z.shape[2])]
                       for s in range(Wp)] for r in range(Hp)])
    h = a.reshape(-1)
    for j in range(len(t.dense) + 1):
        h = h @ params[i] + params[i + 1]
        i += 2
        if j < len(t.dense):
            h = np.maximum(h, 0.0)
    return h


@pytest.mark.parametrize("config", [dict(), dict(shape=(13, 13, 1), channels=(2, 2, 3), kernel=2, pool=(2, 2, 1))])
def test_forward_matches_the_loop_definition_of_convolution_and_pooling(config):
    t, theta, _ = _problem(**config)
    from scipy.special import log_softmax
    for c in range(2):
        for i in (0, 7):
            ref = log_softmax(_forward_loop(t, theta[c], t.X[i]))
            np.testing.assert_allclose(t.log_proba(theta[c:c + 1], t.X[i:i + 1])[0, 0], ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("config", [dict(), dict(channels=(2,), dense=()), dict(channels=(), dense=(4, 3)),
                                    dict(shape=(10, 11, 1), channels=(2, 3), kernel=2, pool=2, dense=(3, 3)),
                                    dict(shape=(7, 7, 1), channels=(2,), kernel=3, pool=1, dense=(4,)),
                                    dict(shape=(24, 24, 1), channels=(2, 2, 2, 2), kernel=2, pool=(2, 2, 2, 1),
                                         dense=())])
def test_per_datum_gradients_match_central_differences(config):
    t, theta, _ = _problem(**config)
    idx = np.array([[0, 5, 5], [11, 1, 2]])
    g = t.data_gradients(theta, idx)
    for c in range(2):
        for j in range(3):
            np.testing.assert_allclose(g[c, j], _fd(t, theta[c:c + 1], idx[c, j]), atol=1e-6)


def test_potential_gradient_matches_central_differences():
    t, theta, _ = _problem(n=7)
    eps = 1e-6
    E = eps * np.eye(t.dim)
    fd = np.stack([(t.potential(theta + e[None]) - t.potential(theta - e[None])) / (2 * eps) for e in E], axis=1)
    np.testing.assert_allclose(t.full_gradient(theta), fd, atol=1e-6 * max(1.0, np.abs(fd).max()))


def test_sum_of_per_datum_gradients_equals_the_batched_gemm_sum_with_weights():
    t, theta, rng = _problem()
    idx = rng.integers(0, t.n, size=(2, 9))  # with repeats: a repeated index counts twice in both
    w = rng.random((2, 9))
    a = (w[..., None] * t.data_gradients(theta, idx)).sum(axis=1)
    b = t.data_gradient_sum(theta, idx, weights=w)
    np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12 * np.abs(a).max())
    np.testing.assert_allclose(sum_data_gradients(t, theta, idx), t.data_gradients(theta, idx).sum(axis=1),
                               rtol=1e-12, atol=1e-12 * np.abs(a).max())


def test_full_gradient_is_prior_plus_every_datum_whatever_the_chunking():
    t, theta, _ = _problem()
    every = np.broadcast_to(np.arange(t.n), (2, t.n))
    ref = t.data_gradient_sum(theta, every) + t.prior_gradient(theta)
    np.testing.assert_allclose(t.full_gradient(theta), ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())


def test_the_ewsg_architecture_has_the_texts_layer_sizes():
    t = CNNClassifierTarget(np.zeros((1, 784)), np.array([0]), image_shape=(28, 28), n_classes=10, **EWSG_CNN)
    # 28 -conv5-> 24 -pool2-> 12 -conv5-> 8 -pool2-> 4: 4·4·64 = 1024 inputs to the first dense layer
    assert t.shapes["conv1.kernel"] == (5, 5, 1, 32) and t.shapes["conv2.kernel"] == (5, 5, 32, 64)
    assert t.shapes["dense1.weight"] == (1024, 200) and t.shapes["dense3.weight"] == (200, 10)
    assert t.dim == 5 * 5 * 32 + 32 + 5 * 5 * 32 * 64 + 64 + 1024 * 200 + 200 + 200 * 200 + 200 + 200 * 10 + 10


@pytest.mark.parametrize("kwargs, match", [(dict(conv_channels=(0,)), "conv_channels"), (dict(kernel=0), "kernel"),
                                           (dict(pool=0), "pool"), (dict(dense=(3, -1)), "dense"),
                                           (dict(pool=(2, 2, 1)), "one per convolution"),
                                           (dict(prior_precision=0.0), "prior_precision"),
                                           (dict(kernel=6, conv_channels=(2, 2)), "too small"),
                                           (dict(dense_activation="tanh"), "dense_activation"),
                                           (dict(data_scale=-1.0), "data_scale"), (dict(prior=3), "prior")])
def test_bad_settings_are_refused_naming_the_parameter(kwargs, match):
    with pytest.raises(ValueError, match=match):
        CNNClassifierTarget(np.zeros((2, 8, 8)), np.array([0, 1]), **kwargs)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="image_shape"):
        CNNClassifierTarget(np.zeros((2, 64)), np.array([0, 1]))
    with pytest.raises(ValueError, match="image_shape"):
        CNNClassifierTarget(np.zeros((2, 64)), np.array([0, 1]), image_shape=(7, 7))
    with pytest.raises(ValueError, match="one label per image"):
        CNNClassifierTarget(np.zeros((2, 8, 8)), np.array([0, 1, 1]))
    t, theta, _ = _problem()
    with pytest.raises(ValueError, match="idx"):
        t.data_gradients(theta, np.array([[0, 99], [1, 2]]))
    with pytest.raises(ValueError, match="theta"):
        t.data_gradients(theta[:, :-1], np.array([[0], [1]]))


class _NoReluMaskInConvBackward(CNNClassifierTarget):
    """Planted bug (test only): the backward pass of the convolutions forgets their ReLU mask."""

    def _backward(self, params, tape, delta, per_datum):
        fake = [(t[0], t[1], np.abs(t[2]) + 1.0, t[3], t[4]) if t[0] == "conv" else t for t in tape]
        return super()._backward(params, fake, delta, per_datum)


def test_negative_control_a_backward_pass_without_the_relu_mask_is_caught():
    t, theta, _ = _problem()
    bad = _NoReluMaskInConvBackward(t.X, t.y, conv_channels=t.conv_channels, kernel=t.kernel, pool=t.pool,
                                   dense=t.dense, n_classes=t.n_classes, prior_precision=t.prior_precision)
    g = bad.data_gradients(theta, np.array([[0], [1]]))
    fd = _fd(t, theta[0:1], 0)
    assert np.abs(g[0, 0] - fd).max() > 1e-3          # the finite-difference test above would fail on it
