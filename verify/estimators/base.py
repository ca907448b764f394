"""What every gradient estimator returns and receives, and the one minibatch-gradient formula.

An estimator is the half of a sampler that decides *which* data enter a step (the other half is
the integrator, :mod:`sgmcmc_verify.integrators`). Every estimator follows one shape::

    est_state = estimator.init(target, position, rng)
    estimate  = estimator(est_state, rng, target, position, context)

where ``estimate`` is a :class:`GradientEstimate` (gradient, per-chain evaluations spent, new
estimator state, diagnostics). Costs are in per-datum gradient evaluations per chain; a data pass
is ``n`` of them. Except for documented full passes (SVRG's snapshots, SRVR's ``B_0 = n`` resets),
no estimator touches O(n) data in a step.

The minibatch estimate ``ĝ_I(θ) = ∇V_0(θ) + (n/b) Σ_{j=1}^b ∇V_{I_j}(θ)`` is written once, in
:func:`minibatch_gradient`; every estimator that needs it calls it.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

__all__ = ["GradientEstimate", "StepContext", "GradientEstimator", "uniform_indices", "subset_indices",
           "minibatch_gradient", "sum_data_gradients", "correction_sum", "check_batch"]


class StepContext(NamedTuple):
    """What an integrator tells the estimator about the current step (EWSG needs it).

    momentum : (chains, d) ndarray or None
    step_size : float           h
    friction : float            γ
    noise_scale : float         σ
    """

    momentum: np.ndarray | None = None
    step_size: float | None = None
    friction: float | None = None
    noise_scale: float | None = None


class GradientEstimate(NamedTuple):
    """Result of one call of an estimator.

    gradient : (chains, d) ndarray of float64
        Estimate of ``∇V(θ)`` (full scale: the data term is multiplied by ``n/b``).
    evaluations : int
        Per-datum gradient evaluations spent, per chain (the same for every chain).
    state : Any
        The estimator's new state (``None`` for stateless estimators).
    info : dict
        Diagnostics, e.g. ``{"acceptance_rate": ...}`` for the EWSG index chain.
    """

    gradient: np.ndarray
    evaluations: int
    state: Any
    info: dict


@runtime_checkable
class GradientEstimator(Protocol):
    """The estimator protocol: ``init``, call, ``settings``."""

    def init(self, target, position: np.ndarray, rng: np.random.Generator | None = None) -> Any:
        """Validate against ``target`` and return the initial estimator state."""

    def __call__(self, state: Any, rng: np.random.Generator, target, position: np.ndarray,
                 context: StepContext = StepContext()) -> GradientEstimate:
        """The estimate of ``∇V(position)`` for every chain, its cost and the new state."""

    def settings(self) -> dict:
        """The estimator's hyperparameters (reported in results and errors)."""


def uniform_indices(rng: np.random.Generator, n: int, chains: int, batch_size: int) -> np.ndarray:
    """``(chains, batch_size)`` indices i.i.d. uniform on ``{0, …, n−1}`` (with replacement)."""
    return rng.integers(0, n, size=(chains, batch_size))


def subset_indices(rng: np.random.Generator, n: int, chains: int, batch_size: int) -> np.ndarray:
    """``(chains, batch_size)`` indices: for every chain a uniform random subset of ``{0, …, n−1}`` (without replacement).

    The inclusion indicators ``z_i`` of such a subset are the sampling scheme of the vrSG-MCMC proofs
    (seed ``002_245183f35db8d795.txt``, proof of Theorem 3: ``Σ z_i = n``, ``E z_i = b/n``,
    ``E z_i z_j = b(b−1)/(n(n−1))`` for ``i ≠ j``).

    Parameters
    ----------
    rng : numpy.random.Generator
    n : int
        Number of data terms.
    chains : int
    batch_size : int
        ``b``, with ``1 <= b <= n``.

    Returns
    -------
    (chains, batch_size) ndarray of int64
        Distinct indices within each row (their order within a row carries no meaning).

    Raises
    ------
    ValueError
        ``batch_size`` not in ``[1, n]``.

    Notes
    -----
    Exact, with a cost that does not grow with ``n`` while ``b <= n/2``:

    * ``b = n``: every index, no randomness consumed (the subset is the whole set);
    * ``b <= n/2``: draw ``b`` indices i.i.d. uniform, then redraw every repeated entry (all but
      the first occurrence of a value in the row) until the row is distinct. Which entries are
      redrawn depends only on which entries are equal, never on their values, so the procedure
      commutes with every relabelling of ``{0, …, n−1}``; a law on ``b``-subsets invariant under all
      relabellings is the uniform one. A round costs a sort of the row, O(b log b); a redraw
      repeats with probability below ``b/n <= 1/2``, so the expected number of rounds is
      O(log b). For ``b = 1`` it consumes the stream exactly as :func:`uniform_indices` does;
    * ``b > n/2``: the complement of a uniform ``(n−b)``-subset drawn as above (O(n) = O(b) per chain).

    Examples
    --------
    >>> idx = subset_indices(np.random.default_rng(0), 10, 3, 4)
    >>> idx.shape, all(len(set(r)) == 4 for r in idx.tolist())
    ((3, 4), True)
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or not (1 <= batch_size <= n):
        raise ValueError(f"batch_size must be an integer in [1, n = {n}] for sampling without replacement, "
                         f"got {batch_size!r}")
    if batch_size == n:
        return np.broadcast_to(np.arange(n, dtype=np.int64), (chains, n)).copy()
    if 2 * batch_size <= n:
        return _distinct_rows(rng, n, chains, batch_size)
    keep = np.ones((chains, n), dtype=bool)
    np.put_along_axis(keep, _distinct_rows(rng, n, chains, n - batch_size), False, axis=1)
    return np.broadcast_to(np.arange(n, dtype=np.int64), (chains, n))[keep].reshape(chains, batch_size)


def _distinct_rows(rng: np.random.Generator, n: int, chains: int, b: int) -> np.ndarray:
    """Rows of ``b`` distinct indices: i.i.d. uniform draws with every repeat redrawn (see :func:`subset_indices`).

    The first round marks, by a stable sort of each row, every entry equal to an entry at an earlier
    position. Each later round checks only the entries just redrawn: one is redrawn again if it
    equals an entry that was kept or a redrawn entry at an earlier position. Both rules read only
    which entries are equal and where they stand, never the values.
    """
    idx = rng.integers(0, n, size=(chains, b))
    order = np.argsort(idx, axis=1, kind="stable")  # equal values keep their positions' order
    srt = np.take_along_axis(idx, order, axis=1)
    rep_sorted = np.zeros(idx.shape, dtype=bool)
    rep_sorted[:, 1:] = srt[:, 1:] == srt[:, :-1]
    rep = np.zeros(idx.shape, dtype=bool)
    np.put_along_axis(rep, order, rep_sorted, axis=1)
    rows, cols = np.nonzero(rep)
    while rows.size:
        idx[rows, cols] = rng.integers(0, n, size=rows.size)
        clash = _redrawn_clashes(idx, rows, cols, n)
        rows, cols = rows[clash], cols[clash]
    return idx.astype(np.int64, copy=False)


#: the numba kernel of :func:`_redrawn_clashes` once imported; ``False`` without numba
_CLASH_KERNEL = None
#: redrawn entries × b below which :func:`_redrawn_clashes` compares in NumPy (6–14 ms a round at 10⁶, measured once):
#: importing numba (about 0.3 s) would cost more than it saves in a process that draws only small minibatches
_CLASH_KERNEL_MIN_WORK = 1_000_000


def _redrawn_clashes(idx, rows, cols, n):
    """Which redrawn entries ``(rows, cols)`` of ``idx`` must be redrawn again: each equals a kept entry of its row
    or a redrawn entry of its row at an earlier column (:func:`_distinct_rows`'s rule).

    NumPy builds (redrawn × b) arrays: at b = n/2 they reach gigabytes (``vrsg.identities``: b = 500 of n = 1,000,
    5,000 rows, about 107 repeats a row after the first draw, so ``idx[rows]`` holds 5,000 × 107 × 500 int64, 2.1 GB,
    from the shapes); where numba is installed and the work is large the compiled
    ``_subset_kernel.redrawn_clashes`` gives the same booleans by counting values per row (tested against this
    code). No random number is drawn here, so the stream is the same either way.
    """
    global _CLASH_KERNEL
    if rows.size * idx.shape[1] >= _CLASH_KERNEL_MIN_WORK:
        if _CLASH_KERNEL is None:
            try:
                from ._subset_kernel import redrawn_clashes
                _CLASH_KERNEL = redrawn_clashes
            except (ImportError, RuntimeError, OSError):   # no numba, or no writable cache location for cache=True
                _CLASH_KERNEL = False
        if _CLASH_KERNEL:
            return _CLASH_KERNEL(idx, rows, cols, n)
    pending = np.zeros(idx.shape, dtype=bool)
    pending[rows, cols] = True
    eq = idx[rows] == idx[rows, cols][:, None]          # (redrawn, b)
    eq[np.arange(rows.size), cols] = False              # not with itself
    pend = pending[rows]
    return (eq & ~pend).any(axis=1) | (eq & pend & (np.arange(idx.shape[1]) < cols[:, None])).any(axis=1)


def minibatch_gradient(target, position: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``ĝ_I(θ) = ∇V_0(θ) + (n/b) Σ_j ∇V_{I_j}(θ)`` for every chain.

    Parameters
    ----------
    target : FiniteSumPotential
    position : (chains, d) ndarray of float64
    idx : (chains, b) ndarray of int
        The minibatch ``I`` of each chain.

    Returns
    -------
    (chains, d) ndarray of float64
        Unbiased for ``∇V(θ)`` when the indices are uniform, with replacement (:func:`uniform_indices`)
        or without (:func:`subset_indices`).
    """
    g = (target.n / idx.shape[1]) * sum_data_gradients(target, position, idx)
    if _zero_prior(target):  # 0 + g as the zero prior gradient's sum gives it (-0.0 becomes +0.0), no zeros array
        g += 0.0
        return g
    return target.prior_gradient(position) + g


def _zero_prior(target) -> bool:
    """Whether ``target``'s prior gradient is :class:`~sgmcmc_verify.targets.base.CentersTarget`'s zeros (not overridden):
    that method carries the mark ``zero_prior`` (estimators do not import targets)."""
    return bool(getattr(getattr(type(target), "prior_gradient", None), "zero_prior", False))


def sum_data_gradients(target, position: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``Σ_j ∇V_{idx[c, j]}(θ_c)``: the target's ``data_gradient_sum`` where it offers one, else the per-datum sum.

    A target whose per-datum gradients are large (a neural network: ``d`` ≈ 8·10⁴) computes the sum
    as matrix products without forming the ``(chains, b, d)`` array; every other target's arithmetic
    is ``data_gradients(θ, idx).sum(axis=1)``, unchanged, computed by the target's
    ``data_gradient_sum_exact`` where it offers one (bit-identical, no ``(chains, b, d)`` array).

    Parameters
    ----------
    target : FiniteSumPotential
    position : (chains, d) ndarray of float64
    idx : (chains, b) ndarray of int

    Returns
    -------
    (chains, d) ndarray of float64
    """
    fn = getattr(target, "data_gradient_sum", None)
    if fn is None:  # a target's bit-identical sum (same values as the per-datum one; correction_sum ignores it)
        fn = getattr(target, "data_gradient_sum_exact", None)
    return fn(position, idx) if fn is not None else target.data_gradients(position, idx).sum(axis=1)


def correction_sum(target, position: np.ndarray, anchor: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``Σ_j (∇V_{idx_j}(θ) − ∇V_{idx_j}(θ̃))``, the control-variate correction with the same indices in both terms.

    Summed per datum (the difference first, the arithmetic of SVRG's reference implementation) for
    targets without ``data_gradient_sum``; as the difference of the two sums (no ``(chains, b, d)``
    array) for targets with one. The two agree up to round-off.

    Parameters
    ----------
    target : FiniteSumPotential
    position, anchor : (chains, d) ndarray of float64
        ``θ`` and the anchor ``θ̃``.
    idx : (chains, b) ndarray of int

    Returns
    -------
    (chains, d) ndarray of float64
    """
    if getattr(target, "data_gradient_sum", None) is not None:
        return target.data_gradient_sum(position, idx) - target.data_gradient_sum(anchor, idx)
    return (target.data_gradients(position, idx) - target.data_gradients(anchor, idx)).sum(axis=1)


def check_batch(target, name: str, value: int) -> None:
    """Raise ``ValueError`` naming ``name`` if a batch size exceeds the number of data terms."""
    if value > target.n:
        raise ValueError(f"{name} must be <= n = {target.n}, got {value}")
