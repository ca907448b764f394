"""Independent realizations in blocks, seeded from one ``SeedSequence``, run with joblib.

Two layers:

* :func:`simulate` runs one vectorized batch of chains (one block) and records observables at
  checkpoints counted in data passes or in steps, plus running time averages.
* :func:`run_realizations` splits R realizations into fixed-size blocks, gives block ``j`` the
  generator ``default_rng(SeedSequence(seed).spawn(n_blocks)[j])``, runs the blocks with joblib
  and concatenates them along the chain axis. Blocks do not depend on ``n_jobs`` or on the joblib
  backend, so the numbers are bitwise identical for any of them.
"""
from __future__ import annotations

from typing import Callable, Mapping

import numpy as np
from joblib import Parallel, delayed, parallel_config

from .errors import check_positive_int

__all__ = ["simulate", "run_realizations", "block_sizes"]


def simulate(sampler, state, rng, *, checkpoints, unit="passes", observe=None, time_average=None):
    """Run ``sampler`` from ``state`` until the last checkpoint; record at every checkpoint.

    Parameters
    ----------
    sampler : object with ``step(state, rng) -> (state, StepInfo)`` and a ``target`` with ``n``
    state : the sampler's state (``sampler.init(...)``)
    rng : numpy.random.Generator
    checkpoints : 1-D array_like, non-decreasing, >= 0
        In data passes (``unit="passes"``: per-datum gradient evaluations / n) or steps
        (``unit="steps"``). A checkpoint is recorded after the first step at which the budget
        reaches it (before any step for a checkpoint at 0); the budget actually spent is returned.
    unit : {"passes", "steps"}
    observe : mapping name -> f(state) -> (chains, ...) array, optional
        Recorded at each checkpoint.
    time_average : mapping name -> f(state) -> (chains,) array, optional
        Accumulated after every step; its running mean ``(1/K) Σ_{k=1}^K f(X_k)`` is recorded at
        each checkpoint (``NaN``-free: a checkpoint at K = 0 records ``f(X_0)``).

    Returns
    -------
    dict
        ``"passes"`` (n_ckpt,) data passes spent, ``"steps"`` (n_ckpt,) steps taken,
        each observable as ``(chains, n_ckpt, ...)``, each time average as ``(chains, n_ckpt)``,
        ``"state"`` the final state, ``"info"`` a dict of mean diagnostics
        (e.g. the index chain's acceptance rate).

    Raises
    ------
    ValueError
        Bad ``checkpoints`` or ``unit``.
    verify.errors.DivergenceError
        From the sampler, when a chain goes non-finite.
    """
    if unit not in ("passes", "steps"):
        raise ValueError(f"unit must be 'passes' or 'steps', got {unit!r}")
    ck = np.asarray(checkpoints, dtype=np.float64)
    if ck.ndim != 1 or ck.size == 0 or np.any(ck < 0) or np.any(np.diff(ck) < 0) or not np.all(np.isfinite(ck)):
        raise ValueError("checkpoints must be a non-empty non-decreasing 1-D sequence of finite numbers >= 0")
    observe = dict(observe or {})
    time_average = dict(time_average or {})
    n = sampler.target.n
    rec = {k: [] for k in observe}
    tav = {k: [] for k in time_average}
    sums = {k: None for k in time_average}
    passes_at, steps_at = [], []
    evals, steps = 0, 0
    info_sums: dict[str, float] = {}

    def budget():
        return evals / n if unit == "passes" else float(steps)

    def record():
        passes_at.append(evals / n)
        steps_at.append(steps)
        for k, f in observe.items():
            rec[k].append(np.array(f(state), copy=True))
        for k, f in time_average.items():
            tav[k].append(sums[k] / steps if steps > 0 else np.asarray(f(state), dtype=np.float64))

    j = 0
    while j < ck.size:
        while j < ck.size and budget() >= ck[j] - 1e-12:
            record()
            j += 1
        if j == ck.size:
            break
        state, info = sampler.step(state, rng)
        evals += info.evaluations
        steps += 1
        for k, v in info.info.items():
            info_sums[k] = info_sums.get(k, 0.0) + float(v)
        for k, f in time_average.items():
            v = np.asarray(f(state), dtype=np.float64)
            sums[k] = v.copy() if sums[k] is None else sums[k] + v
    out = {"passes": np.asarray(passes_at), "steps": np.asarray(steps_at, dtype=np.int64)}
    for k in observe:
        out[k] = np.stack(rec[k], axis=1)
    for k in time_average:
        out[k] = np.stack(tav[k], axis=1)
    out["state"] = state
    out["info"] = {k: v / max(steps, 1) for k, v in info_sums.items()}
    return out


def block_sizes(n_realizations: int, block_size: int) -> list[int]:
    """Split ``n_realizations`` into blocks of ``block_size`` (the last one may be smaller)."""
    R = check_positive_int("n_realizations", n_realizations)
    B = check_positive_int("block_size", block_size)
    return [B] * (R // B) + ([R % B] if R % B else [])


def _run_block(block_fn, size, seed_seq):
    return block_fn(size, np.random.default_rng(seed_seq))


def run_realizations(block_fn: Callable[[int, np.random.Generator], Mapping[str, np.ndarray]],
                     n_realizations: int, *, seed: int, block_size: int = 1000, n_jobs: int = 1,
                     backend: str | None = None, chain_keys=None, progress=None) -> dict:
    """Run R independent realizations as blocks of vectorized chains, in parallel with joblib.

    Parameters
    ----------
    block_fn : callable ``(n_chains, rng) -> dict``
        Runs ``n_chains`` independent realizations with the generator it is given and returns
        arrays whose first axis is the chain axis (other entries, such as ``"passes"``, are taken
        from the first block and checked equal across blocks). Must be picklable for process
        backends (a module-level function or a ``functools.partial`` of one).
    n_realizations : int
        R >= 1.
    seed : int
        Root of ``numpy.random.SeedSequence(seed)``; block j uses its j-th spawned child.
    block_size : int, default 1000
        Realizations per block. Part of the experiment's definition (changing it changes the
        random streams); independent of ``n_jobs`` and ``backend``.
    n_jobs : int, default 1
    backend : str or None
        A joblib backend ("loky", "threading", "multiprocessing", "dask", ...).
    chain_keys : iterable of str or None
        Keys to concatenate along axis 0. ``None``: every array entry whose first axis equals the
        block's size and is not listed as shared (``"passes"``, ``"steps"``).
    progress : callable ``(realizations_done, passes_per_realization)`` or None
        Called as each block finishes (in block order), e.g. to advance a progress bar.

    Returns
    -------
    dict
        Chain arrays concatenated over blocks (R along axis 0); shared entries once; ``"info"`` as
        the realization-weighted mean of the blocks' ``"info"`` dicts.

    Raises
    ------
    ValueError
        Bad counts, or shared entries that differ between blocks.
    """
    sizes = block_sizes(n_realizations, block_size)
    children = np.random.SeedSequence(seed).spawn(len(sizes))
    blocks = []

    def collect(it):
        for size, b in zip(sizes, it):
            blocks.append(b)
            if progress is not None:
                passes = b.get("passes")
                progress(size, float(passes[-1]) if passes is not None and len(passes) else 0.0)

    if n_jobs == 1 and backend is None:
        collect(_run_block(block_fn, s, c) for s, c in zip(sizes, children))
    else:
        # parallel_config (not Parallel(backend=...)) is what registers external backends such as dask
        with parallel_config(n_jobs=n_jobs, **({"backend": backend} if backend is not None else {})):
            collect(Parallel(return_as="generator")(delayed(_run_block)(block_fn, s, c) for s, c in zip(sizes, children)))
    shared = {"passes", "steps"}
    out: dict = {}
    first = blocks[0]
    for key, val in first.items():
        if key == "info":
            continue
        is_chain = (key in chain_keys) if chain_keys is not None else (
            key not in shared and isinstance(val, np.ndarray) and val.ndim >= 1 and val.shape[0] == sizes[0])
        if is_chain:
            out[key] = np.concatenate([b[key] for b in blocks], axis=0)
        else:
            for b in blocks[1:]:
                if not np.array_equal(np.asarray(b[key]), np.asarray(val)):
                    raise ValueError(f"entry {key!r} differs between blocks; list it in chain_keys if it is per chain")
            out[key] = val
    if "info" in first:
        total = float(sum(sizes))
        keys = set().union(*(b.get("info", {}).keys() for b in blocks))
        out["info"] = {k: sum(s * b["info"].get(k, 0.0) for s, b in zip(sizes, blocks)) / total for k in keys}
    return out
