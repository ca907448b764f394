"""Bayesian multilayer perceptron classifier as a finite-sum potential: softmax likelihood × Gaussian prior.

One hidden layer of ``H`` units (sigmoid by default, tanh on request) and a softmax output over ``K``
classes; the parameters of every chain are one flat vector

``θ = (vec W1, b1, vec W2, b2)``,  ``W1 ∈ R^{p×H}``, ``b1 ∈ R^H``, ``W2 ∈ R^{H×K}``, ``b2 ∈ R^K``,

(row-major ``vec``), so ``d = pH + H + HK + K`` — 79,510 for MNIST (``p = 784``, ``H = 100``, ``K = 10``).
The potential is

``V(θ) = V_0(θ) + Σ_i V_i(θ)``,  ``V_i(θ) = −log softmax(f(x_i; θ))_{y_i}``,  ``V_0(θ) = λ‖θ‖²/2``,

with ``f(x; θ) = σ(x W1 + b1) W2 + b2`` and an isotropic Gaussian prior of precision ``λ`` (variance
``1/λ``) on every weight and bias. Per-datum gradients by backpropagation in batched NumPy: a
minibatch of ``b`` data costs ``O(b p H)`` per chain in matrix products, whatever ``n`` is.

Two forms of the minibatch term are offered:

* :meth:`MLPClassifierTarget.data_gradients` — the per-datum gradients ``(chains, b, d)`` (outer
  products; memory ``chains·b·d``: for tests, exact variances and small batches);
* :meth:`MLPClassifierTarget.data_gradient_sum` — their sum ``Σ_j ∇V_{idx_j}`` ``(chains, d)`` as matrix
  products (``X_bᵀ δ``), which the estimators of :mod:`sgmcmc_verify.estimators` use when a target offers it
  (:func:`sgmcmc_verify.estimators.base.sum_data_gradients`); equal to the summed per-datum gradients to
  round-off.

References
----------
vrSG-MCMC, seed ``002_245183f35db8d795.txt``, §5 "Multilayer perceptron": "a single-layer MLP with 100
hidden units, using the sigmoid activation function", "simple isotropic Gaussian priors".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.special import expit, log_softmax, softmax

from ..errors import check_finite_array, check_positive, check_positive_int
from .base import ExactAnswers

__all__ = ["MLPClassifierTarget", "ACTIVATIONS"]

#: Hidden-layer nonlinearities: sigmoid (the paper's) and tanh.
ACTIVATIONS = ("sigmoid", "tanh")


@dataclass(frozen=True, eq=False)
class MLPClassifierTarget:
    """Finite-sum potential of a one-hidden-layer Bayesian MLP classifier (softmax likelihood, Gaussian prior).

    Parameters
    ----------
    X : (n, p) array_like of float64
        Inputs (e.g. MNIST pixels scaled to [0, 1]).
    y : (n,) array_like of int
        Class labels in ``{0, …, K−1}``.
    hidden : int, default 100
        ``H``, the width of the hidden layer (the paper: 100).
    n_classes : int or None
        ``K``; ``None`` means ``max(y) + 1``.
    prior_precision : float, default 1
        ``λ > 0``: every weight and bias has prior ``N(0, 1/λ)``.
    activation : {"sigmoid", "tanh"}, default "sigmoid"
    chunk_size : int, default 2048
        Rows per block in the full-data passes (:meth:`full_gradient`, :meth:`potential`,
        :meth:`predict_proba`); bounds their memory at ``chains·chunk_size·max(H, K)`` numbers.

    Raises
    ------
    ValueError
        ``X`` not a finite 2-D array; ``y`` not one integer label per row in ``[0, K)``; a non-positive
        ``hidden``, ``n_classes``, ``chunk_size`` or ``prior_precision``; an unknown ``activation``.

    Notes
    -----
    Backpropagation for one datum ``(x, y)`` with ``a = x W1 + b1``, ``h = σ(a)``, ``z = h W2 + b2``,
    ``π = softmax(z)``: ``δ_z = π − e_y``, ``∇_{W2} = hᵀδ_z``, ``∇_{b2} = δ_z``,
    ``δ_a = (δ_z W2ᵀ) ⊙ σ'(a)``, ``∇_{W1} = xᵀδ_a``, ``∇_{b1} = δ_a``; ``σ' = h(1 − h)`` (sigmoid) or
    ``1 − h²`` (tanh). Checked against central finite differences in
    ``tests/verify/targets/test_mlp.py``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> t = MLPClassifierTarget(rng.random((6, 3)), np.array([0, 1, 2, 0, 1, 2]), hidden=4)
    >>> t.dim                                   # 3·4 + 4 + 4·3 + 3
    31
    >>> theta = t.initial_position(rng, 2)
    >>> g = t.data_gradients(theta, np.array([[0, 1], [2, 3]]))
    >>> g.shape, bool(np.allclose(g.sum(axis=1), t.data_gradient_sum(theta, np.array([[0, 1], [2, 3]]))))
    ((2, 2, 31), True)
    """

    X: np.ndarray
    y: np.ndarray
    hidden: int = 100
    n_classes: int | None = None
    prior_precision: float = 1.0
    activation: str = "sigmoid"
    chunk_size: int = 2048
    #: :meth:`data_gradient_sum` accepts per-datum ``weights`` (read by importance-weighted estimators).
    weighted_data_gradient_sum: ClassVar[bool] = True

    def __post_init__(self):
        X = check_finite_array("X", self.X, ndim=2)
        y = np.asarray(self.y)
        if y.ndim != 1 or y.size != X.shape[0]:
            raise ValueError(f"y must be a 1-D array with one label per row of X ({X.shape[0]}), got shape {y.shape}")
        if y.size == 0 or not np.all(np.isfinite(y.astype(np.float64))) or not np.all(y == np.round(y)):
            raise ValueError("y must contain integer class labels")
        y = y.astype(np.int64)
        check_positive_int("hidden", self.hidden)
        check_positive_int("chunk_size", self.chunk_size)
        K = int(y.max()) + 1 if self.n_classes is None else check_positive_int("n_classes", self.n_classes)
        if y.min() < 0 or y.max() >= K:
            raise ValueError(f"y must contain labels in [0, n_classes = {K}), got range [{y.min()}, {y.max()}]")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}, got {self.activation!r}")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "n_classes", K)
        object.__setattr__(self, "prior_precision", check_positive("prior_precision", self.prior_precision))

    # ---- layout ---------------------------------------------------------------------------------

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def n_inputs(self) -> int:
        """``p``, the input dimension."""
        return self.X.shape[1]

    @property
    def shapes(self) -> dict:
        """``{"W1": (p, H), "b1": (H,), "W2": (H, K), "b2": (K,)}``, in the order of θ."""
        p, H, K = self.n_inputs, self.hidden, self.n_classes
        return {"W1": (p, H), "b1": (H,), "W2": (H, K), "b2": (K,)}

    @property
    def dim(self) -> int:
        p, H, K = self.n_inputs, self.hidden, self.n_classes
        return p * H + H + H * K + K

    def unpack(self, theta):
        """``(W1, b1, W2, b2)`` of every chain: ``(c, p, H), (c, H), (c, H, K), (c, K)`` from θ ``(c, d)``.

        Raises
        ------
        ValueError
            ``theta`` not of shape ``(chains, d)``.
        """
        theta = np.asarray(theta, dtype=np.float64)
        if theta.ndim != 2 or theta.shape[1] != self.dim:
            raise ValueError(f"theta must have shape (chains, {self.dim}), got {theta.shape}")
        c, out, k = theta.shape[0], [], 0
        for shape in self.shapes.values():
            size = int(np.prod(shape))
            out.append(theta[:, k:k + size].reshape((c,) + shape))
            k += size
        return tuple(out)

    def pack(self, W1, b1, W2, b2):
        """The inverse of :meth:`unpack`: ``(c, d)``."""
        c = np.shape(W1)[0]
        return np.concatenate([np.reshape(a, (c, -1)) for a in (W1, b1, W2, b2)], axis=1)

    def initial_position(self, rng, chains: int):
        """Starting points ``(chains, d)``: weights ``N(0, 1/fan_in)`` (LeCun normal), biases 0.

        Not a prior draw: a prior draw with ``λ = 1`` saturates the sigmoid units on 784 inputs.
        """
        c = check_positive_int("chains", chains)
        p, H, K = self.n_inputs, self.hidden, self.n_classes
        W1 = rng.standard_normal((c, p, H)) / np.sqrt(p)
        W2 = rng.standard_normal((c, H, K)) / np.sqrt(H)
        return self.pack(W1, np.zeros((c, H)), W2, np.zeros((c, K)))

    # ---- forward and backward -------------------------------------------------------------------

    def _act(self, a):
        return expit(a) if self.activation == "sigmoid" else np.tanh(a)

    def _act_prime(self, h):
        return h * (1.0 - h) if self.activation == "sigmoid" else 1.0 - h * h

    def _logits(self, params, Xb):
        W1, b1, W2, b2 = params
        h = self._act(np.matmul(Xb, W1) + b1[:, None, :])
        return h, np.matmul(h, W2) + b2[:, None, :]

    def _deltas(self, params, Xb, yb):
        """Hidden activations ``h`` (c, b, H), output deltas ``δ_z`` (c, b, K), hidden deltas ``δ_a`` (c, b, H)."""
        h, z = self._logits(params, Xb)
        dz = softmax(z, axis=-1)
        dz -= np.eye(self.n_classes)[yb]
        da = np.matmul(dz, np.swapaxes(params[2], 1, 2)) * self._act_prime(h)
        return h, dz, da

    def _check_idx(self, theta, idx):
        idx = np.asarray(idx)
        if idx.ndim != 2 or idx.shape[0] != np.shape(theta)[0]:
            raise ValueError(f"idx must have shape (chains, b) with chains = {np.shape(theta)[0]}, got {idx.shape}")
        return idx

    def data_gradients(self, theta, idx):
        """Per-datum gradients ``∇V_{idx[c, j]}(θ_c)``: theta ``(c, d)``, idx ``(c, b)`` → ``(c, b, d)``.

        Memory ``c·b·d`` float64; prefer :meth:`data_gradient_sum` for large batches.
        """
        idx = self._check_idx(theta, idx)
        params = self.unpack(theta)
        Xb = self.X[idx]
        h, dz, da = self._deltas(params, Xb, self.y[idx])
        c, b = idx.shape
        parts = [(Xb[..., :, None] * da[..., None, :]).reshape(c, b, -1), da,
                 (h[..., :, None] * dz[..., None, :]).reshape(c, b, -1), dz]
        return np.concatenate(parts, axis=2)

    def data_gradient_blocks(self, theta, idx, width=128):
        """:meth:`data_gradients` by blocks of columns, for sums over the data that need no ``(c, b, d)`` array.

        Parameters
        ----------
        theta : (c, d) array_like
        idx : (c, b) array_like of int
            Data indices, as for :meth:`data_gradients`.
        width : int, default 128
            Columns per block of ``W1``: whole rows of ``max(1, width // H)`` inputs. Small blocks stay in cache
            (``vrsg.mlp``'s end-of-run noise diagnostic, docs/benchmarks.md, #26).

        Returns
        -------
        iterator of (slice, (c, b, k) ndarray)
            The columns of the ``d`` coordinates, in order and covering ``0 … d`` once, and the per-datum gradients
            in them. Each number is the product :meth:`data_gradients` computes for it, from the same forward and
            backward pass, so a sum over the data of a block gives the bits of the same sum over the whole array.

        Raises
        ------
        ValueError
            ``idx`` not ``(chains, b)``; ``width`` not a positive integer (at the call, not at the first block).
        """
        idx = self._check_idx(theta, idx)
        width = check_positive_int("width", width)
        params = self.unpack(theta)
        Xb = self.X[idx]
        h, dz, da = self._deltas(params, Xb, self.y[idx])
        c, b = idx.shape
        p, H, K = self.n_inputs, self.hidden, self.n_classes
        rows = max(1, width // H)

        def blocks():   # the checks above run at the call, the products one block at a time
            for a in range(0, p, rows):
                e = min(p, a + rows)
                yield slice(a * H, e * H), (Xb[..., a:e, None] * da[..., None, :]).reshape(c, b, -1)
            yield slice(p * H, p * H + H), da
            yield slice(p * H + H, p * H + H + H * K), (h[..., :, None] * dz[..., None, :]).reshape(c, b, -1)
            yield slice(p * H + H + H * K, self.dim), dz
        return blocks()

    def data_gradient_sum(self, theta, idx, weights=None):
        """``Σ_j w_j ∇V_{idx[c, j]}(θ_c)``: theta ``(c, d)``, idx ``(c, b)`` → ``(c, d)``, by matrix products.

        Equal to ``(weights[..., None] * data_gradients(theta, idx)).sum(axis=1)`` up to round-off
        (``weights=None``: all 1); costs ``O(b p H)`` per chain and memory ``O(c (b p + d))``. Repeated
        indices count as often as they appear. ``weights`` (``(b,)`` or ``(c, b)``) scales each datum's
        output and hidden deltas, which every per-datum gradient is linear in (importance-weighted
        minibatches, e.g. :class:`sgmcmc_verify.estimators.ClusteredMinibatch`).

        Raises
        ------
        ValueError
            ``idx`` not ``(chains, b)``; ``weights`` not broadcastable to ``idx``'s shape.
        """
        idx = self._check_idx(theta, idx)
        params = self.unpack(theta)
        Xb = self.X[idx]
        h, dz, da = self._deltas(params, Xb, self.y[idx])
        if weights is not None:
            w = np.asarray(weights, dtype=np.float64)
            try:
                w = np.broadcast_to(w, idx.shape)[..., None]
            except ValueError:
                raise ValueError(f"weights must broadcast to idx's shape {idx.shape}, got {w.shape}") from None
            dz, da = dz * w, da * w
        return self.pack(np.matmul(np.swapaxes(Xb, 1, 2), da), da.sum(axis=1),
                         np.matmul(np.swapaxes(h, 1, 2), dz), dz.sum(axis=1))

    def data_potentials(self, theta, idx):
        """``−log softmax(f(x_i; θ_c))_{y_i}``: theta ``(c, d)``, idx ``(c, b)`` → ``(c, b)``."""
        idx = self._check_idx(theta, idx)
        lp = log_softmax(self._logits(self.unpack(theta), self.X[idx])[1], axis=-1)
        return -np.take_along_axis(lp, self.y[idx][..., None], axis=-1)[..., 0]

    def exact_answers(self):
        """No closed form: :class:`~sgmcmc_verify.targets.base.ExactAnswers` with every field empty."""
        return ExactAnswers(missing="no closed form for a neural network posterior")

    def prior_gradient(self, theta):
        """``λθ``: ``(c, d)`` → ``(c, d)``."""
        return self.prior_precision * np.asarray(theta, dtype=np.float64)

    def _chunks(self, X):
        for s in range(0, X.shape[0], self.chunk_size):
            yield slice(s, s + self.chunk_size)

    def full_gradient(self, theta):
        """``∇V(θ) = λθ + Σ_i ∇V_i(θ)`` over all ``n`` data, in blocks of ``chunk_size`` rows: ``(c, d)``."""
        params = self.unpack(theta)
        c = params[0].shape[0]
        acc = [np.zeros((c,) + s) for s in self.shapes.values()]
        for sl in self._chunks(self.X):
            Xc = self.X[sl]
            h, dz, da = self._deltas(params, np.broadcast_to(Xc, (c,) + Xc.shape), self.y[sl])
            acc[0] += np.matmul(Xc.T, da)
            acc[1] += da.sum(axis=1)
            acc[2] += np.matmul(np.swapaxes(h, 1, 2), dz)
            acc[3] += dz.sum(axis=1)
        return self.pack(*acc) + self.prior_gradient(theta)

    def log_proba(self, theta, X):
        """``log p(k | x_m, θ_c)``: theta ``(c, d)``, X ``(m, p)`` → ``(c, m, K)``, in blocks of rows."""
        params = self.unpack(theta)
        X = check_finite_array("X", X, ndim=2)
        if X.shape[1] != self.n_inputs:
            raise ValueError(f"X must have {self.n_inputs} columns, got {X.shape[1]}")
        c = params[0].shape[0]
        out = np.empty((c, X.shape[0], self.n_classes))
        for sl in self._chunks(X):
            out[:, sl] = log_softmax(self._logits(params, np.broadcast_to(X[sl], (c,) + X[sl].shape))[1], axis=-1)
        return out

    def predict_proba(self, theta, X):
        """Predictive class probabilities ``p(k | x_m, θ_c)``: ``(c, m, K)``."""
        return np.exp(self.log_proba(theta, X))

    def potential(self, theta):
        """``V(θ) = λ‖θ‖²/2 + Σ_i V_i(θ)``: ``(c, d)`` → ``(c,)``."""
        lp = self.log_proba(theta, self.X)
        nll = -np.take_along_axis(lp, np.broadcast_to(self.y[None, :, None], lp.shape[:2] + (1,)), axis=2).sum(axis=(1, 2))
        theta = np.asarray(theta, dtype=np.float64)
        return nll + 0.5 * self.prior_precision * np.sum(theta * theta, axis=1)
