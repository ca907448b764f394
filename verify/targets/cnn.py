"""Bayesian convolutional network classifier as a finite-sum potential: softmax likelihood × Gaussian prior.

The architecture of the texts' Bayesian CNN experiments, with its widths as parameters so that it fits
on two cores at a reduced scale:

``x → [conv k×k (valid) → ReLU → max-pool p×p] × L → flatten → [dense → ReLU] × F → dense → softmax``

EWSG (journal text, seed ``000_8e0377c44e2ea3b8.txt``, §5.3): "2 convolutional layers followed by 2 fully
connected layers. Both convolutional layers use 5 × 5 convolution kernel with 32 and 64 channels, 2 × 2 max
pooling layers follow immediately after convolutional layer. The last two fully-connected layers each has 200
neurons. We set the standard normal as prior for all weights and bias." That is
``conv_channels=(32, 64), kernel=5, pool=2, dense=(200, 200)`` with ``prior_precision=1`` — the text does not
say whether the softmax layer is one of the "two fully-connected layers"; this module reads it as two hidden
dense layers of 200 followed by the softmax layer (``dense=(200,)`` is the other reading). The text does not
name the nonlinearity or the padding: ReLU and valid (unpadded) convolutions, as in the reference it cites,
are this module's choice.

The parameters of every chain are one flat vector, layer by layer, each layer's kernel then bias (row-major):

``θ = (vec K_1, c_1, …, vec K_L, c_L, vec W_1, b_1, …, vec W_{F+1}, b_{F+1})``,
``K_l ∈ R^{k×k×C_{l−1}×C_l}``, ``W_j ∈ R^{D_{j−1}×D_j}``.

The potential is ``V(θ) = λ‖θ‖²/2 + Σ_i V_i(θ)`` with ``V_i(θ) = −log softmax(f(x_i; θ))_{y_i}``: an isotropic
Gaussian prior of precision ``λ`` on every weight and bias.

Convolutions are im2col products: the ``k×k×C`` patches of every position are gathered with
:func:`numpy.lib.stride_tricks.sliding_window_view` and multiplied by the kernel as one float64 GEMM per chain
(one 2-D ``matmul`` per chain, :func:`_bmm`); the backward pass is the transposed products and a ``k²``-term scatter
(col2im). A minibatch of ``b`` data costs ``O(b)`` per chain whatever ``n`` is.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``, §5.3 and Appendix G.2 (Table 2, CNN column); HSG-HMC, seed
``001_d56659fdb8996bf2.txt``, Fig. 3 (Bayesian neural network); LS-SGLD, seed ``004_8438bd4b543e0fc4.txt``,
Fig. 5 (Bayesian CNN); vrSG-MCMC, seed ``002_245183f35db8d795.txt``, §5 (CNN-4).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from scipy.special import log_softmax, softmax

from ..errors import check_finite_array, check_positive, check_positive_int
from .base import ExactAnswers

__all__ = ["CNNClassifierTarget", "EWSG_CNN"]

#: The EWSG journal text's CNN (§5.3): two 5×5 convolutions of 32 and 64 channels, each followed by 2×2 max
#: pooling, two dense layers of 200, standard normal prior.
EWSG_CNN = dict(conv_channels=(32, 64), kernel=5, pool=2, dense=(200, 200), prior_precision=1.0)


def _bmm(a, b):
    """``a @ b`` over a leading chain axis: one 2-D GEMM per chain (NumPy's stacked ``matmul`` does not call BLAS
    for every shape; the 2-D call does), into one preallocated array."""
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 3 or b.ndim != 3:
        return np.matmul(a, b)
    out = np.empty((a.shape[0], a.shape[1], b.shape[2]), dtype=np.result_type(a, b))
    for i in range(a.shape[0]):
        np.matmul(a[i], b[i], out=out[i])
    return out


def _tuple_of_positive_ints(name, value, allow_empty):
    try:
        out = tuple(int(v) for v in value)
    except TypeError:
        raise ValueError(f"{name} must be a sequence of positive integers, got {value!r}") from None
    if any(v < 1 for v in out) or any(int(v) != v for v in value) or (not out and not allow_empty):
        raise ValueError(f"{name} must be a {'possibly empty ' if allow_empty else ''}sequence of positive "
                         f"integers, got {value!r}")
    return out


@dataclass(frozen=True, eq=False)
class CNNClassifierTarget:
    """Finite-sum potential of a Bayesian convolutional network classifier (softmax likelihood, Gaussian prior).

    Parameters
    ----------
    X : (n, p) or (n, H, W) or (n, H, W, C) array_like of float64
        Images (e.g. MNIST pixels scaled to [0, 1]); a flat ``(n, p)`` array needs ``image_shape``.
    y : (n,) array_like of int
        Class labels in ``{0, …, K−1}``.
    image_shape : tuple (H, W) or (H, W, C), optional
        Shape of one image when ``X`` is flat (MNIST: ``(28, 28)``).
    conv_channels : sequence of int, default (32, 64)
        Output channels ``C_l`` of the convolutional layers (the EWSG text: 32 and 64).
    kernel : int, default 5
        Side ``k`` of the square kernels (valid convolution, stride 1).
    pool : int or sequence of int, default 2
        Side of the non-overlapping max pooling after every convolution (1: no pooling), or one side per
        convolution (vrSG-MCMC's CNN-4 pools after its first three convolutions only: ``(2, 2, 2, 1)``); rows
        and columns that do not fill a pooling window are dropped, as in ``floor`` pooling.
    dense : sequence of int, default (200, 200)
        Widths of the hidden dense (ReLU) layers before the softmax layer; may be empty.
    n_classes : int or None
        ``K``; ``None`` means ``max(y) + 1``.
    prior_precision : float, default 1
        ``λ > 0``: every weight and bias has prior ``N(0, 1/λ)`` (the EWSG text: standard normal).
    chunk_size : int, default 256
        Images per block in the full-data passes (:meth:`full_gradient`, :meth:`potential`,
        :meth:`log_proba`).
    dense_activation : {"relu", "identity"}, default "relu"
        Nonlinearity of the hidden dense layers ("identity": affine layers, as the LS-SGLD authors' LeNet, whose
        ``fc_128`` feeds the softmax layer directly).
    data_scale : float, default 1
        ``s > 0`` multiplying every data term: ``V_i = s·(−log softmax(f(x_i))_{y_i})``. ``1`` is the posterior;
        ``1/n`` is the mean loss that SG-MCMC code written as a PyTorch optimizer samples at its "learning rate"
        (the posterior at temperature ``n``; see :mod:`sgmcmc_verify.paper_repro.ls_sgld.cnn`).
    prior : object with ``gradient`` and ``potential``, optional
        Replaces the Gaussian prior (e.g. :class:`~sgmcmc_verify.targets.GammaNormPrior`, LS-SGLD's); then
        ``prior_precision`` is not used.

    Raises
    ------
    ValueError
        ``X`` not finite or not of a supported shape; ``y`` not one integer label per image in ``[0, K)``; a
        non-positive width, ``kernel``, ``pool``, ``n_classes``, ``chunk_size``, ``prior_precision`` or
        ``data_scale``; an unknown ``dense_activation``; a ``prior`` without ``gradient`` and ``potential``; an image
        too small for the layers (a feature map that becomes empty).

    Notes
    -----
    Backpropagation for one datum, output delta ``δ = softmax(z) − e_y``: a dense layer ``u = h W + b`` gives
    ``∇W = hᵀδ_u``, ``∇b = δ_u``, ``δ_h = δ_u Wᵀ``; ReLU multiplies by ``1[pre-activation > 0]``; max pooling
    routes each window's delta to the first position of its maximum; a convolution ``z = P K + c`` (``P`` the
    patches) gives ``∇K = Pᵀ δ_z``, ``∇c = Σ δ_z`` and ``δ_x = col2im(δ_z Kᵀ)``. Every per-datum gradient is
    linear in ``δ``, so importance weights scale ``δ`` (``weights`` of :meth:`data_gradient_sum`). Checked
    against central finite differences and against a direct loop convolution in
    ``tests/verify/targets/test_cnn.py``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> t = CNNClassifierTarget(rng.random((6, 8, 8)), np.array([0, 1, 2, 0, 1, 2]),
    ...                         conv_channels=(2,), kernel=3, pool=2, dense=(4,))
    >>> t.dim                 # 3·3·1·2 + 2  +  (3·3·2)·4 + 4  +  4·3 + 3
    111
    >>> theta = t.initial_position(rng, 2)
    >>> idx = np.array([[0, 1], [2, 3]])
    >>> g = t.data_gradients(theta, idx)
    >>> g.shape, bool(np.allclose(g.sum(axis=1), t.data_gradient_sum(theta, idx)))
    ((2, 2, 111), True)
    """

    X: np.ndarray
    y: np.ndarray
    image_shape: tuple | None = None
    conv_channels: tuple = (32, 64)
    kernel: int = 5
    pool: int = 2
    dense: tuple = (200, 200)
    n_classes: int | None = None
    prior_precision: float = 1.0
    chunk_size: int = 256
    dense_activation: str = "relu"
    data_scale: float = 1.0
    prior: Any = None
    #: :meth:`data_gradient_sum` accepts per-datum ``weights`` (read by importance-weighted estimators).
    weighted_data_gradient_sum: ClassVar[bool] = True

    def __post_init__(self):
        X = check_finite_array("X", self.X)
        if X.ndim == 2:
            if self.image_shape is None:
                raise ValueError("image_shape must be given when X is flat (n, p)")
            shape = _tuple_of_positive_ints("image_shape", self.image_shape, allow_empty=False)
            if len(shape) == 2:
                shape = shape + (1,)
            if len(shape) != 3 or int(np.prod(shape)) != X.shape[1]:
                raise ValueError(f"image_shape {self.image_shape!r} does not hold the {X.shape[1]} columns of X")
            X = X.reshape((X.shape[0],) + shape)
        elif X.ndim == 3:
            X = X[..., None]
        elif X.ndim != 4:
            raise ValueError(f"X must have shape (n, p), (n, H, W) or (n, H, W, C), got {X.shape}")
        if X.shape[0] < 1:
            raise ValueError("X must hold at least one image")
        y = np.asarray(self.y)
        if y.ndim != 1 or y.size != X.shape[0]:
            raise ValueError(f"y must be a 1-D array with one label per image of X ({X.shape[0]}), got shape {y.shape}")
        if not np.all(np.isfinite(y.astype(np.float64))) or not np.all(y == np.round(y)):
            raise ValueError("y must contain integer class labels")
        y = y.astype(np.int64)
        channels = _tuple_of_positive_ints("conv_channels", self.conv_channels, allow_empty=True)
        dense = _tuple_of_positive_ints("dense", self.dense, allow_empty=True)
        check_positive_int("kernel", self.kernel)
        if isinstance(self.pool, (int, np.integer)):
            pools = (check_positive_int("pool", self.pool),) * len(channels)
        else:
            pools = _tuple_of_positive_ints("pool", self.pool, allow_empty=True)
            if len(pools) != len(channels):
                raise ValueError(f"pool must be one integer or one per convolution ({len(channels)}), got {self.pool!r}")
        object.__setattr__(self, "_pools", pools)
        check_positive_int("chunk_size", self.chunk_size)
        K = int(y.max()) + 1 if self.n_classes is None else check_positive_int("n_classes", self.n_classes)
        if y.min() < 0 or y.max() >= K:
            raise ValueError(f"y must contain labels in [0, n_classes = {K}), got range [{y.min()}, {y.max()}]")
        object.__setattr__(self, "X", np.ascontiguousarray(X))
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "image_shape", tuple(X.shape[1:]))
        object.__setattr__(self, "conv_channels", channels)
        object.__setattr__(self, "dense", dense)
        object.__setattr__(self, "n_classes", K)
        object.__setattr__(self, "prior_precision", check_positive("prior_precision", self.prior_precision))
        object.__setattr__(self, "data_scale", check_positive("data_scale", self.data_scale))
        if self.dense_activation not in ("relu", "identity"):
            raise ValueError(f"dense_activation must be 'relu' or 'identity', got {self.dense_activation!r}")
        if self.prior is not None and not (hasattr(self.prior, "gradient") and hasattr(self.prior, "potential")):
            raise ValueError(f"prior must have gradient and potential, got {self.prior!r}")
        H, W, C = self.image_shape
        k = self.kernel
        for cout, p in zip(channels, pools):
            H, W = (H - k + 1) // p, (W - k + 1) // p
            if H < 1 or W < 1:
                raise ValueError(f"image_shape {tuple(X.shape[1:])} is too small for {len(channels)} convolutions of "
                                 f"kernel {k} and pooling {self.pool}: a feature map becomes empty")
            C = cout
        object.__setattr__(self, "_flat", H * W * C)
        shapes, cin = {}, self.image_shape[2]
        for l, cout in enumerate(channels, 1):
            shapes[f"conv{l}.kernel"] = (k, k, cin, cout)
            shapes[f"conv{l}.bias"] = (cout,)
            cin = cout
        din = H * W * C
        for j, dout in enumerate(dense + (K,), 1):
            shapes[f"dense{j}.weight"] = (din, dout)
            shapes[f"dense{j}.bias"] = (dout,)
            din = dout
        object.__setattr__(self, "_shapes", shapes)

    # ---- layout ---------------------------------------------------------------------------------

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def shapes(self) -> dict:
        """``{name: shape}`` of every kernel, weight and bias, in the order of θ."""
        return dict(self._shapes)

    @property
    def dim(self) -> int:
        return int(sum(np.prod(s) for s in self._shapes.values()))

    def unpack(self, theta):
        """The layers of every chain: a list of arrays ``(c,) + shape`` in the order of :attr:`shapes`.

        Raises
        ------
        ValueError
            ``theta`` not of shape ``(chains, d)``.
        """
        theta = np.asarray(theta, dtype=np.float64)
        if theta.ndim != 2 or theta.shape[1] != self.dim:
            raise ValueError(f"theta must have shape (chains, {self.dim}), got {theta.shape}")
        c, out, k = theta.shape[0], [], 0
        for shape in self._shapes.values():
            size = int(np.prod(shape))
            out.append(theta[:, k:k + size].reshape((c,) + shape))
            k += size
        return out

    def pack(self, parts):
        """The inverse of :meth:`unpack` (leading axes kept): a list of ``lead + shape`` arrays → ``lead + (d,)``."""
        lead = np.shape(parts[0])[:-len(next(iter(self._shapes.values())))]
        return np.concatenate([np.reshape(a, lead + (-1,)) for a in parts], axis=-1)

    def initial_position(self, rng, chains: int):
        """Starting points ``(chains, d)``: kernels and weights ``N(0, 2/fan_in)`` (He normal, for ReLU), biases 0.

        Not a prior draw: a standard normal draw of every weight saturates the softmax on 784 inputs.
        """
        c = check_positive_int("chains", chains)
        parts = []
        for name, shape in self._shapes.items():
            if name.endswith("bias"):
                parts.append(np.zeros((c,) + shape))
            else:
                fan_in = int(np.prod(shape[:-1]))
                parts.append(rng.standard_normal((c,) + shape) * np.sqrt(2.0 / fan_in))
        return self.pack(parts)

    # ---- forward and backward -------------------------------------------------------------------

    def _forward(self, params, Xb, tape_on=True):
        """Logits ``(c, b, K)`` and the tape the backward pass reads (``None`` if not ``tape_on``: predictions and
        potentials, computed in place). ``Xb``: ``(c, b, H, W, C)``, possibly broadcast over chains (:meth:`_patches`)."""
        c, b = Xb.shape[:2]
        k = self.kernel
        a, tape, i = Xb, [], 0
        for p in self._pools:
            Kl, cl = params[i], params[i + 1]
            i += 2
            Ho, Wo, cin = a.shape[2] - k + 1, a.shape[3] - k + 1, a.shape[4]
            P = self._patches(a, k)                                              # (c, b·Ho·Wo, k·k·cin)
            z = _bmm(P, Kl.reshape(c, k * k * cin, -1)).reshape(c, b, Ho, Wo, -1)
            if tape_on:
                z = z + cl[:, None, None, None, :]
                r = np.maximum(z, 0.0)
            else:                                                                # the same operations, in place
                z += cl[:, None, None, None, :]
                r = np.maximum(z, 0.0, out=z)
            a = self._pool(r, p)                                                 # (c, b, Ho // p, Wo // p, C)
            if tape_on:
                tape.append(("conv", P, z, (r, a), (Ho, Wo, cin, p)))
        h = a.reshape(c, b, -1)
        for j in range(len(self.dense) + 1):
            W, bias = params[i], params[i + 1]
            i += 2
            u = _bmm(h, W) + bias[:, None, :]
            if tape_on:
                tape.append(("dense", h, u))
            h = np.maximum(u, 0.0) if j < len(self.dense) and self.dense_activation == "relu" else u
        return h, (tape if tape_on else None)

    @staticmethod
    def _patches(a, k):
        """im2col: the ``k × k`` patches of ``a`` ``(c, b, H, W, C)``, ``(c, b·Ho·Wo, k·k·C)`` (row ``(j, y, x)``,
        column ``(u, v, channel)``). If ``a`` has stride 0 on its chain axis (the same images for every chain,
        ``np.broadcast_to``: full-data passes, test sets), they are built once and broadcast: each chain's GEMM then
        reads the same contiguous matrix it would read from a copy of its own (same call, same bits)."""
        c, b, H, W, C = a.shape
        Ho, Wo = H - k + 1, W - k + 1
        if a.strides[0] == 0:
            P = sliding_window_view(a[0], (k, k), axis=(1, 2))                   # (b, Ho, Wo, C, k, k)
            P = np.ascontiguousarray(P.transpose(0, 1, 2, 4, 5, 3)).reshape(b * Ho * Wo, k * k * C)
            return np.broadcast_to(P, (c,) + P.shape)
        P = sliding_window_view(a, (k, k), axis=(2, 3))                          # (c, b, Ho, Wo, C, k, k)
        return np.ascontiguousarray(P.transpose(0, 1, 2, 3, 5, 6, 4)).reshape(c, b * Ho * Wo, k * k * C)

    @staticmethod
    def _pool(r, p):
        """Max pooling: the maxima ``(c, b, H // p, W // p, C)`` of the non-overlapping ``p × p`` windows of ``r``
        ``(c, b, H, W, C)`` (rows and columns that fill no window dropped), by ``p² − 1`` elementwise maxima of
        strided views (no copy of the windows)."""
        Hp, Wp = r.shape[2] // p, r.shape[3] // p
        m = r[:, :, :Hp * p:p, :Wp * p:p, :].copy()
        for di in range(p):
            for dj in range(p):
                if di or dj:
                    np.maximum(m, r[:, :, di:Hp * p:p, dj:Wp * p:p, :], out=m)
        return m

    @staticmethod
    def _unpool(d, r, m, p):
        """Backward pass of :meth:`_pool`: each window's delta ``d`` ``(c, b, Hp, Wp, C)`` at the first position (row
        by row) where ``r`` equals the window's maximum ``m``, zero elsewhere: ``r.shape``. The same numbers as routing
        by ``argmax`` over the flattened window (tested against it) wherever ``r`` is finite."""
        Hp, Wp = m.shape[2:4]
        dz = np.zeros(r.shape)
        free = None                                                              # windows whose maximum is not yet found
        for di in range(p):
            for dj in range(p):
                first = r[:, :, di:Hp * p:p, dj:Wp * p:p, :] == m
                if free is None:
                    free = ~first
                else:
                    first &= free
                    free &= ~first
                dz[:, :, di:Hp * p:p, dj:Wp * p:p, :] = np.where(first, d, 0.0)
        return dz

    def _backward(self, params, tape, delta, per_datum):
        """Gradients of ``Σ_j δ_j · logits_j`` (one per datum if ``per_datum``), in the order of θ."""
        c, b = delta.shape[:2]
        k = self.kernel
        grads = []
        i = len(params)
        d = delta
        for t in reversed(tape):
            i -= 2
            if t[0] == "dense":
                _, h, u = t
                W = params[i]
                if d is not delta and self.dense_activation == "relu":          # a hidden layer: ReLU
                    d = d * (u > 0)
                if per_datum:
                    grads.append(d)
                    grads.append(h[..., :, None] * d[..., None, :])
                else:
                    grads.append(d.sum(axis=1))
                    grads.append(_bmm(np.swapaxes(h, 1, 2), d))
                d = _bmm(d, np.swapaxes(W, 1, 2)) if d.ndim == 3 else np.matmul(d, np.swapaxes(W, 1, 2))
                if t is tape[len(self.conv_channels)] and self.conv_channels:
                    d = d.reshape((c, b) + self._pooled_shape(len(self.conv_channels)))
            else:
                _, P, z, (r, m), (Ho, Wo, cin, p) = t
                Kl = params[i]
                C = d.shape[4]
                dz = self._unpool(d, r, m, p)
                dz *= z > 0
                if per_datum:
                    Pd = P.reshape(c, b, Ho * Wo, -1)
                    grads.append(dz.sum(axis=(2, 3)))
                    grads.append(np.matmul(np.swapaxes(Pd, 2, 3), dz.reshape(c, b, Ho * Wo, C)))
                else:
                    grads.append(dz.sum(axis=(1, 2, 3)))
                    grads.append(_bmm(np.swapaxes(P, 1, 2), dz.reshape(c, b * Ho * Wo, C)))
                if i > 0:                                                        # not the input layer: col2im
                    dP = _bmm(dz.reshape(c, b * Ho * Wo, C), np.swapaxes(Kl.reshape(c, k * k * cin, C), 1, 2))
                    dP = dP.reshape(c, b, Ho, Wo, k, k, cin)
                    d = np.zeros((c, b, Ho + k - 1, Wo + k - 1, cin))
                    for di in range(k):
                        for dj in range(k):
                            d[:, :, di:di + Ho, dj:dj + Wo, :] += dP[:, :, :, :, di, dj, :]
        grads.reverse()
        lead = (c, b) if per_datum else (c,)
        return np.concatenate([g.reshape(lead + (-1,)) for g in grads], axis=-1)

    def _pooled_shape(self, layers):
        H, W, C = self.image_shape
        for cout, p in zip(self.conv_channels[:layers], self._pools):
            H, W, C = (H - self.kernel + 1) // p, (W - self.kernel + 1) // p, cout
        return (H, W, C)

    def _check_idx(self, theta, idx):
        idx = np.asarray(idx)
        if idx.ndim != 2 or idx.shape[0] != np.shape(theta)[0]:
            raise ValueError(f"idx must have shape (chains, b) with chains = {np.shape(theta)[0]}, got {idx.shape}")
        if idx.size and (idx.min() < 0 or idx.max() >= self.n):
            raise ValueError(f"idx must index the n = {self.n} data, got range [{idx.min()}, {idx.max()}]")
        return idx

    def _output_delta(self, params, Xb, yb, weights=None):
        logits, tape = self._forward(params, Xb)
        delta = softmax(logits, axis=-1)
        delta -= np.eye(self.n_classes)[yb]
        if self.data_scale != 1.0:
            delta *= self.data_scale
        if weights is not None:
            delta *= weights[..., None]
        return delta, tape

    def data_gradients(self, theta, idx):
        """Per-datum gradients ``∇V_{idx[c, j]}(θ_c)``: theta ``(c, d)``, idx ``(c, b)`` → ``(c, b, d)``.

        Memory ``c·b·d`` float64 and per-datum patch products; prefer :meth:`data_gradient_sum` beyond tests
        and exact variances.

        Raises
        ------
        ValueError
            ``theta`` not ``(chains, d)``; ``idx`` not ``(chains, b)`` or out of range.
        """
        idx = self._check_idx(theta, idx)
        params = self.unpack(theta)
        delta, tape = self._output_delta(params, self.X[idx], self.y[idx])
        return self._backward(params, tape, delta, per_datum=True)

    def data_gradient_sum(self, theta, idx, weights=None):
        """``Σ_j w_j ∇V_{idx[c, j]}(θ_c)``: theta ``(c, d)``, idx ``(c, b)`` → ``(c, d)``, by batched GEMM.

        Equal to ``(weights[..., None] * data_gradients(theta, idx)).sum(axis=1)`` up to round-off
        (``weights=None``: all 1). Repeated indices count as often as they appear.

        Raises
        ------
        ValueError
            ``theta`` not ``(chains, d)``; ``idx`` not ``(chains, b)`` or out of range; ``weights`` not
            broadcastable to ``idx``'s shape.
        """
        idx = self._check_idx(theta, idx)
        params = self.unpack(theta)
        w = None
        if weights is not None:
            w = np.asarray(weights, dtype=np.float64)
            try:
                w = np.broadcast_to(w, idx.shape)
            except ValueError:
                raise ValueError(f"weights must broadcast to idx's shape {idx.shape}, got {w.shape}") from None
        delta, tape = self._output_delta(params, self.X[idx], self.y[idx], w)
        return self._backward(params, tape, delta, per_datum=False)

    def data_potentials(self, theta, idx):
        """``−log softmax(f(x_i; θ_c))_{y_i}``: theta ``(c, d)``, idx ``(c, b)`` → ``(c, b)``."""
        idx = self._check_idx(theta, idx)
        lp = log_softmax(self._forward(self.unpack(theta), self.X[idx], tape_on=False)[0], axis=-1)
        return -self.data_scale * np.take_along_axis(lp, self.y[idx][..., None], axis=-1)[..., 0]

    def exact_answers(self):
        """No closed form: :class:`~sgmcmc_verify.targets.base.ExactAnswers` with every field empty."""
        return ExactAnswers(missing="no closed form for a neural network posterior")

    def prior_gradient(self, theta):
        """``λθ`` (or ``prior.gradient(θ)``): ``(c, d)`` → ``(c, d)``."""
        theta = np.asarray(theta, dtype=np.float64)
        return self.prior_precision * theta if self.prior is None else self.prior.gradient(theta)

    def _blocks(self, m):
        for s in range(0, m, self.chunk_size):
            yield slice(s, min(s + self.chunk_size, m))

    def full_gradient(self, theta):
        """``∇V(θ) = λθ + Σ_i ∇V_i(θ)`` over all ``n`` data, in blocks of ``chunk_size`` images: ``(c, d)``."""
        params = self.unpack(theta)
        c = params[0].shape[0]
        acc = np.zeros((c, self.dim))
        for sl in self._blocks(self.n):
            Xc = np.broadcast_to(self.X[sl], (c,) + self.X[sl].shape)
            delta, tape = self._output_delta(params, Xc, np.broadcast_to(self.y[sl], (c, sl.stop - sl.start)))
            acc += self._backward(params, tape, delta, per_datum=False)
        return acc + self.prior_gradient(theta)

    def log_proba(self, theta, X):
        """``log p(k | x_m, θ_c)``: theta ``(c, d)``, X ``(m, H, W, C)`` (or flat ``(m, p)``) → ``(c, m, K)``.

        Raises
        ------
        ValueError
            ``X`` not finite or its images not of :attr:`image_shape`.
        """
        params = self.unpack(theta)
        X = check_finite_array("X", X)
        if X.ndim == 2 and X.shape[1] == int(np.prod(self.image_shape)):
            X = X.reshape((X.shape[0],) + self.image_shape)
        elif X.ndim == 3 and self.image_shape[2] == 1:
            X = X[..., None]
        if X.shape[1:] != self.image_shape:
            raise ValueError(f"X must hold images of shape {self.image_shape}, got {X.shape[1:]}")
        c = params[0].shape[0]
        out = np.empty((c, X.shape[0], self.n_classes))
        for sl in self._blocks(X.shape[0]):
            logits, _ = self._forward(params, np.broadcast_to(X[sl], (c,) + X[sl].shape), tape_on=False)
            out[:, sl] = log_softmax(logits, axis=-1)
        return out

    def predict_proba(self, theta, X):
        """Predictive class probabilities ``p(k | x_m, θ_c)``: ``(c, m, K)``."""
        return np.exp(self.log_proba(theta, X))

    def potential(self, theta):
        """``V(θ) = V_0(θ) + Σ_i V_i(θ)`` (``V_0 = λ‖θ‖²/2`` or ``prior.potential``): ``(c, d)`` → ``(c,)``."""
        lp = self.log_proba(theta, self.X)
        nll = -np.take_along_axis(lp, np.broadcast_to(self.y[None, :, None], lp.shape[:2] + (1,)), axis=2).sum(axis=(1, 2))
        theta = np.asarray(theta, dtype=np.float64)
        v0 = 0.5 * self.prior_precision * np.sum(theta * theta, axis=1) if self.prior is None else self.prior.potential(theta)
        return self.data_scale * nll + v0
