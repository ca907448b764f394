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


# ---- #26: the faster forward and backward passes give the same bits as the ones they replace --------------------

class _ArgmaxPooling(CNNClassifierTarget):
    """Reference (test only): max pooling as written before #26, by a copy of the windows, ``argmax`` and
    ``take_along_axis`` / ``put_along_axis`` (routing to the first maximum in row-major window order)."""

    @staticmethod
    def _windows(r, p):
        c, b, Hp, Wp = r.shape[0], r.shape[1], r.shape[2] // p, r.shape[3] // p
        win = r[:, :, :Hp * p, :Wp * p, :].reshape(c, b, Hp, p, Wp, p, -1).transpose(0, 1, 2, 4, 6, 3, 5)
        return win.reshape(c, b, Hp, Wp, -1, p * p)

    @staticmethod
    def _pool(r, p):
        win = _ArgmaxPooling._windows(r, p)
        return np.take_along_axis(win, np.argmax(win, axis=-1)[..., None], axis=-1)[..., 0]

    @staticmethod
    def _unpool(d, r, m, p):
        c, b, Hp, Wp, C = d.shape
        arg = np.argmax(_ArgmaxPooling._windows(r, p), axis=-1)
        win = np.zeros((c, b, Hp, Wp, C, p * p))
        np.put_along_axis(win, arg[..., None], d[..., None], axis=-1)
        win = win.reshape(c, b, Hp, Wp, C, p, p).transpose(0, 1, 2, 5, 3, 6, 4).reshape(c, b, Hp * p, Wp * p, C)
        dz = np.zeros(r.shape)
        dz[:, :, :Hp * p, :Wp * p, :] = win
        return dz


class _EveryTiedMaximum(CNNClassifierTarget):
    """Planted bug (test only): the pooling's backward pass routes a window's delta to every position equal to its
    maximum, not to the first one only."""

    @staticmethod
    def _unpool(d, r, m, p):
        Hp, Wp = m.shape[2:4]
        dz = np.zeros(r.shape)
        for di in range(p):
            for dj in range(p):
                dz[:, :, di:Hp * p:p, dj:Wp * p:p, :] = np.where(r[:, :, di:Hp * p:p, dj:Wp * p:p, :] == m, d, 0.0)
        return dz


class _PatchesOfTheFirstChain(CNNClassifierTarget):
    """Planted bug (test only): the shared patches of a broadcast input swap the kernel's rows and columns."""

    @staticmethod
    def _patches(a, k):
        P = CNNClassifierTarget._patches(a, k)
        if a.strides[0] != 0:
            return P
        c, n, kkC = P.shape
        C = kkC // (k * k)
        return np.broadcast_to(P[0].reshape(n, k, k, C).transpose(0, 2, 1, 3).reshape(n, kkC), P.shape)


def _tied_problem(cls=CNNClassifierTarget, pool=2, n=10, seed=3):
    """Images of constant 3 × 3 blocks (values 0, 0.5, 1): whole pooling windows of equal positive activations
    (the same patch at every position of the window) and of ReLU zeros, where the tie-breaking rule decides. Feature
    maps 13 → 12 → 6 → 5 → 2 at pool 2 (the fifth row and column fill no window), 13 → 12 → 4 → 3 → 1 at pool 3."""
    rng = np.random.default_rng(seed)
    X = np.kron(rng.integers(0, 3, size=(n, 5, 5, 1)) / 2.0, np.ones((1, 3, 3, 1)))[:, :13, :13, :]
    y = np.arange(n) % 3
    t = cls(X, y, conv_channels=(3, 2), kernel=2, pool=pool, dense=(4,), n_classes=3,
            prior_precision=0.7, chunk_size=4)
    theta = CNNClassifierTarget.initial_position(t, rng, 3) + 0.3 * rng.standard_normal((3, t.dim))
    return t, theta, rng


def _same(cls, pool, **kwargs):
    t, theta, rng = _tied_problem(pool=pool, **kwargs)
    other = cls(t.X, t.y, conv_channels=t.conv_channels, kernel=t.kernel, pool=t.pool, dense=t.dense,
                n_classes=t.n_classes, prior_precision=t.prior_precision, chunk_size=t.chunk_size)
    idx = rng.integers(0, t.n, size=(3, 6))
    outs = {"log_proba": lambda u: u.log_proba(theta, u.X), "data_potentials": lambda u: u.data_potentials(theta, idx),
            "data_gradients": lambda u: u.data_gradients(theta, idx),
            "data_gradient_sum": lambda u: u.data_gradient_sum(theta, idx),
            "full_gradient": lambda u: u.full_gradient(theta)}
    return {k: f(t).tobytes() == f(other).tobytes() for k, f in outs.items()}


def _ties(pool):
    """(windows whose maximum is positive and tied, all windows) in the first layer of :func:`_tied_problem`."""
    t, theta, _ = _tied_problem(pool=pool)
    params = t.unpack(theta)
    _, tape = t._forward(params, t.X[np.broadcast_to(np.arange(t.n), (3, t.n))])
    r, m = tape[0][3]
    win = _ArgmaxPooling._windows(r, pool)
    tied = ((win == m[..., None]).sum(axis=-1) > 1) & (m > 0)
    return int(tied.sum()), m.size


@pytest.mark.parametrize("pool", [2, 3])
def test_pooling_gives_the_bits_of_the_argmax_routing_it_replaced(pool):
    # the check can fail: the data have many tied positive maxima, where a wrong tie-breaking rule shows
    tied, total = _ties(pool)
    assert tied > total // 20
    assert _same(_ArgmaxPooling, pool) == dict.fromkeys(
        ("log_proba", "data_potentials", "data_gradients", "data_gradient_sum", "full_gradient"), True)


def test_negative_control_routing_to_every_tied_maximum_is_caught():
    same = _same(_EveryTiedMaximum, 2)
    assert same["log_proba"] and same["data_potentials"]                 # the forward pass is not touched
    assert not same["data_gradients"] and not same["data_gradient_sum"] and not same["full_gradient"]


def test_shared_patches_and_the_tape_free_pass_give_the_bits_of_per_chain_copies():
    t, theta, _ = _tied_problem()
    params = t.unpack(theta)
    shared = np.broadcast_to(t.X, (3,) + t.X.shape)
    copies = np.ascontiguousarray(shared)
    assert shared.strides[0] == 0 and copies.strides[0] != 0
    ref, tape = t._forward(params, copies)
    for x in (shared, copies):
        for tape_on in (True, False):
            assert t._forward(params, x, tape_on=tape_on)[0].tobytes() == ref.tobytes()
    delta = np.random.default_rng(0).standard_normal(ref.shape)
    _, tape_shared = t._forward(params, shared)
    assert t._backward(params, tape_shared, delta, False).tobytes() == t._backward(params, tape, delta, False).tobytes()


def test_negative_control_wrong_shared_patches_are_caught():
    t, theta, _ = _tied_problem(cls=_PatchesOfTheFirstChain)
    params = t.unpack(theta)
    shared = np.broadcast_to(t.X, (3,) + t.X.shape)
    assert t._forward(params, shared)[0].tobytes() != t._forward(params, np.ascontiguousarray(shared))[0].tobytes()
