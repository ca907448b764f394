"""Independent realizations in blocks, seeded from one ``SeedSequence``, run with joblib.

Two layers:

* :func:`run_chains` — the one chain loop of the toolkit — runs one vectorized batch of chains and
  records observables at checkpoints counted in data passes or in steps, running time averages,
  the last positions and per-step diagnostics. Every experiment steps its chains through it.
* :func:`run_realizations` splits R realizations into fixed-size blocks, gives block ``j`` the
  generator ``default_rng(SeedSequence(seed).spawn(n_blocks)[j])``, runs the blocks with joblib
  and concatenates them along the chain axis. Blocks do not depend on ``n_jobs`` or on the joblib
  backend, so the numbers are bitwise identical for any of them.
* :func:`run_realizations_many` does the same for several studies at once (one joblib task list over
  all their blocks, so a paper-scale grid of step sizes × schedules keeps every worker busy instead of
  waiting at a barrier after each grid point), and :func:`run_tasks` runs any list of independent
  tasks (one long chain of one sampler, one configuration ...) whose seeds the caller derived
  beforehand, returning the results in task order.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Mapping, NamedTuple, Sequence

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs, parallel_config

from .errors import CloseCallError, DivergenceError, check_nonnegative_int, check_positive_int

__all__ = ["run_chains", "run_realizations", "run_realizations_many", "RealizationStudy", "run_tasks",
           "block_sizes", "record_tasks", "keeping_chains", "dispatch_order", "one_blas_thread"]

# ---- chains out (issue #27 item 7) ----------------------------------------------------------------------------
#: This process's records of its run_chains calls while chains are kept (None: not keeping).
_CAPTURE: list | None = None
#: The parent's collector while :func:`keeping_chains` is active: ``[(label, record), ...]``.
_COLLECTED: list | None = None
_INVOCATION = [0]


def _capture(sampler, state, kept) -> None:
    if _CAPTURE is None:
        return
    _CAPTURE.append({"sampler": str(getattr(sampler, "name", type(sampler).__name__)),
                     "step_size": float(getattr(sampler, "step_size", float("nan")) or float("nan")),
                     "final": np.array(state.position, dtype=np.float64, copy=True),
                     "trace": None if kept is None else np.array(kept, dtype=np.float64, copy=True)})


def _with_capture(fn, *args):
    """Run ``fn(*args)`` recording its run_chains calls (in a joblib worker or in process); ``(result, records)``."""
    global _CAPTURE
    prev, _CAPTURE = _CAPTURE, []
    try:
        out = fn(*args)
        return out, _CAPTURE
    finally:
        _CAPTURE = prev


@contextlib.contextmanager
def keeping_chains():
    """Record the final states (and the ``keep_last`` traces) of every :func:`run_chains` call made inside, in this
    process or in joblib workers through :func:`run_realizations`, :func:`run_realizations_many` and :func:`run_tasks`.

    Nothing random is touched: the numbers of a run are the same with or without it.

    Yields
    ------
    list of (str, dict)
        ``(label, record)`` in call order; ``label`` is ``"<parallel call>.<study or task>.<call in task>"`` (blocks
        of one study share it, so their chains are concatenated in block order) or ``"direct.<k>"`` for a call made
        outside the parallel runner; ``record`` has ``sampler``, ``step_size``, ``final`` ``(chains, d)`` and
        ``trace`` ``(chains, keep_last, d)`` or None.
    """
    global _CAPTURE, _COLLECTED
    prev_c, prev_k = _CAPTURE, _COLLECTED
    _CAPTURE, _COLLECTED = [], []
    _INVOCATION[0] = 0
    out = _COLLECTED
    try:
        yield out
    finally:
        direct = _CAPTURE
        _CAPTURE, _COLLECTED = prev_c, prev_k
        out.extend((f"direct.{k}", r) for k, r in enumerate(direct))


def run_chains(sampler, state, rng, *, steps=None, checkpoints=None, unit="steps", observe=None,
               time_average=None, keep_last: int = 0, trace_info: bool = False, engine: str = "numpy") -> dict:
    """Run ``sampler`` from ``state``: the one chain loop of the toolkit.

    Parameters
    ----------
    sampler : object with ``step(state, rng) -> (state, StepInfo)`` and a ``target`` with ``n``
    state : the sampler's state (``sampler.init(...)``)
    rng : numpy.random.Generator
    steps : int or None
        Run exactly this many steps (the same as ``checkpoints=[steps], unit="steps"``).
    checkpoints : 1-D array_like, non-decreasing, >= 0, or None
        In data passes (``unit="passes"``: per-datum gradient evaluations / n) or steps
        (``unit="steps"``). A checkpoint is recorded after the first step at which the budget
        reaches it (before any step for a checkpoint at 0); the budget actually spent is returned.
        A step that reaches several checkpoints at once (SVRG's full-pass snapshot can span more
        than one checkpoint interval) is recorded once, so there may be fewer records than
        checkpoints. The run stops at the last checkpoint. Give ``steps`` or ``checkpoints``, not both.
    unit : {"passes", "steps"}, default "steps"
    observe : mapping name -> f(state) -> (chains, ...) array, optional
        Recorded at each checkpoint.
    time_average : mapping name -> f(state) -> (chains, ...) array, optional
        Accumulated after every step; its running mean ``(1/K) Σ_{k=1}^K f(X_k)`` is recorded at
        each checkpoint (a checkpoint at K = 0 records ``f(X_0)``).
    keep_last : int, default 0
        Keep ``state.position`` after each of the last ``keep_last`` steps (``unit="steps"`` only,
        where the length of the run is known).
    trace_info : bool, default False
        Keep every step's ``info`` values (e.g. a Metropolis acceptance rate) as arrays of length
        ``steps``.
    engine : {"numpy", "compiled", "auto"}, default "numpy"
        ``"numpy"``: one ``sampler.step`` per step (the reference, what every experiment uses).
        ``"compiled"``: the stretches between checkpoints in one ``sampler.advance(state, rng, k)`` call
        (:func:`sgmcmc_verify.integrators.compiled.advance`, numba; the same numbers bit for bit) for long
        single chains; needs ``unit="steps"``, no ``time_average``, ``keep_last`` or ``trace_info``.
        ``"auto"``: ``"compiled"`` where it is faster (the sampler's ``choose_engine``,
        :func:`~sgmcmc_verify.integrators.compiled.choose_engine`:
        a kernel exists and chains × b is small) and the run allows it, else ``"numpy"``; the same numbers.

    Returns
    -------
    dict
        ``"passes"`` (n_rec,) data passes spent, ``"steps"`` (n_rec,) steps taken (n_rec records,
        at most one per step),
        each observable as ``(chains, n_rec, ...)``, each time average as ``(chains, n_rec, ...)``,
        ``"kept"`` ``(chains, keep_last, d)`` when ``keep_last``, ``"info_trace"`` (dict of
        ``(steps,)`` arrays) when ``trace_info``, ``"evaluations"`` (per-chain total),
        ``"state"`` the final state, ``"info"`` a dict of the diagnostics' means over steps
        (e.g. the index chain's acceptance rate).

    Raises
    ------
    ValueError
        Bad ``steps``, ``checkpoints``, ``unit``, ``keep_last`` or ``engine`` (or ``engine="compiled"`` with
        per-step records, or a sampler without a compiled kernel).
    sgmcmc_verify.errors.DivergenceError
        From the sampler, when a chain goes non-finite.

    Examples
    --------
    >>> from sgmcmc_verify.samplers import sgld
    >>> from sgmcmc_verify.targets import gaussian_means_target
    >>> s = sgld(gaussian_means_target(), 1e-3)
    >>> out = run_chains(s, s.init(np.zeros((4, 2))), np.random.default_rng(0), steps=100, keep_last=10)
    >>> out["kept"].shape, out["evaluations"]
    ((4, 10, 2), 100)
    """
    if unit not in ("passes", "steps"):
        raise ValueError(f"unit must be 'passes' or 'steps', got {unit!r}")
    if (steps is None) == (checkpoints is None):
        raise ValueError("give exactly one of steps and checkpoints")
    if steps is not None:
        if unit != "steps":
            raise ValueError("steps counts steps: use unit='steps' (or checkpoints for data passes)")
        checkpoints = [check_nonnegative_int("steps", steps)]
    ck = np.asarray(checkpoints, dtype=np.float64)
    if ck.ndim != 1 or ck.size == 0 or np.any(ck < 0) or np.any(np.diff(ck) < 0) or not np.all(np.isfinite(ck)):
        raise ValueError("checkpoints must be a non-empty non-decreasing 1-D sequence of finite numbers >= 0")
    keep_last = check_nonnegative_int("keep_last", keep_last)
    if keep_last and unit != "steps":
        raise ValueError("keep_last needs unit='steps' (the length of a run in data passes is not known in advance)")
    total = int(round(ck[-1])) if unit == "steps" else None
    if keep_last > (total or 0):
        raise ValueError(f"keep_last must be <= the number of steps {total}, got {keep_last}")
    if engine not in ("numpy", "compiled", "auto"):
        raise ValueError(f"engine must be 'numpy', 'compiled' or 'auto', got {engine!r}")
    if engine == "auto":
        simple = unit == "steps" and not (time_average or keep_last or trace_info)
        chooser = getattr(sampler, "choose_engine", None)   # an Integrator's; the runner imports no integrator
        engine = chooser(state.position.shape[0]) if simple and chooser is not None else "numpy"
    if engine == "compiled" and (unit != "steps" or time_average or keep_last or trace_info):
        raise ValueError("engine='compiled' needs unit='steps' and no time_average, keep_last or trace_info")
    observe = dict(observe or {})
    time_average = dict(time_average or {})
    n = sampler.target.n
    rec = {k: [] for k in observe}
    tav = {k: [] for k in time_average}
    sums = {k: None for k in time_average}
    passes_at, steps_at = [], []
    evals, done, numpy_until = 0, 0, 0
    info_sums: dict[str, float] = {}
    info_trace: dict[str, list] = {}
    kept = np.empty((state.position.shape[0], keep_last, state.position.shape[1])) if keep_last else None
    keep_from = (total - keep_last) if keep_last else None

    def budget():
        return evals / n if unit == "passes" else float(done)

    def record():
        passes_at.append(evals / n)
        steps_at.append(done)
        for k, f in observe.items():
            rec[k].append(np.array(f(state), copy=True))
        for k, f in time_average.items():
            tav[k].append(sums[k] / done if done > 0 else np.asarray(f(state), dtype=np.float64))

    j = 0
    while j < ck.size:
        recorded = False
        while j < ck.size and budget() >= ck[j] - 1e-12:
            if not recorded:  # one record per step, however many checkpoints it reached
                record()
                recorded = True
            j += 1
        if j == ck.size:
            break
        if engine == "compiled" and done >= numpy_until:  # every step to the next checkpoint in one call (no records)
            k = max(1, int(np.ceil(ck[j] - 1e-12)) - done)
            infos: dict = {}
            try:
                state, ev = sampler.advance(state, rng, k, infos)
            except CloseCallError:   # the generator is restored: these k steps with the NumPy step, the same bits
                numpy_until = done + k
            else:
                evals += ev
                done += k
                for key, vals in infos.items():   # summed step by step, in step order, as the NumPy engine sums them
                    for v in vals:
                        info_sums[key] = info_sums.get(key, 0.0) + float(v)
                continue
        state, info = sampler.step(state, rng)
        evals += info.evaluations
        if keep_last and done >= keep_from:
            kept[:, done - keep_from] = state.position
        done += 1
        for k, v in info.info.items():
            info_sums[k] = info_sums.get(k, 0.0) + float(v)
            if trace_info:
                info_trace.setdefault(k, []).append(v)
        for k, f in time_average.items():
            v = np.asarray(f(state), dtype=np.float64)
            sums[k] = v.copy() if sums[k] is None else sums[k] + v
    out = {"passes": np.asarray(passes_at), "steps": np.asarray(steps_at, dtype=np.int64)}
    for k in observe:
        out[k] = np.stack(rec[k], axis=1)
    for k in time_average:
        out[k] = np.stack(tav[k], axis=1)
    if keep_last:
        out["kept"] = kept
    if trace_info:
        out["info_trace"] = {k: np.asarray(v) for k, v in info_trace.items()}
    out["evaluations"] = evals
    out["state"] = state
    if _CAPTURE is not None:   # keeping chains (run --keep-chains): a copy of the final states and the kept trace
        _capture(sampler, state, kept)
    out["info"] = {k: v / max(done, 1) for k, v in info_sums.items()}
    return out


def block_sizes(n_realizations: int, block_size: int) -> list[int]:
    """Split ``n_realizations`` into blocks of ``block_size`` (the last one may be smaller)."""
    R = check_positive_int("n_realizations", n_realizations)
    B = check_positive_int("block_size", block_size)
    return [B] * (R // B) + ([R % B] if R % B else [])


class _Diverged:
    """A task's DivergenceError, returned (not raised) so that the caller raises the first one in task order."""

    def __init__(self, error):
        self.error = error


def _run_block(block_fn, size, seed_seq):
    try:
        return block_fn(size, np.random.default_rng(seed_seq))
    except DivergenceError as e:   # which block fails first in *time* depends on scheduling; in block order it does not
        return _Diverged(e)


def _run_task(fn, args, kwargs):
    try:
        return fn(*args, **kwargs)
    except DivergenceError as e:
        return _Diverged(e)


#: where :func:`record_tasks` collects task timings (``None``: not recording; the default)
_TASK_LOG: list | None = None


class record_tasks:
    """Context manager: record every task the runner dispatches, for the load-balance report (#26 item 5).

    Inside ``with record_tasks() as log:``, each call of the joblib task lists (:func:`run_tasks`,
    :func:`run_realizations_many`) appends to ``log.sections`` one dict ``{"n_jobs", "start", "end",
    "tasks": [(worker pid, start, end), ...]}`` (``time.time()`` seconds; tasks in task order). The numbers
    the tasks return are unchanged (each call is wrapped, its result unwrapped in the parent).
    :meth:`idle_fraction` is ``1 − Σ task time / (n_jobs × Σ section span)``: the share of worker time spent
    waiting inside the parallel sections (the tail of a task list, dispatch and pickling).
    """

    def __init__(self):
        self.sections = []

    def __enter__(self):
        global _TASK_LOG
        self._previous, _TASK_LOG = _TASK_LOG, self.sections
        return self

    def __exit__(self, *exc):
        global _TASK_LOG
        _TASK_LOG = self._previous
        return False

    def idle_fraction(self) -> float | None:
        """Idle share of the workers over the recorded sections (``None`` if nothing ran in parallel)."""
        cap = sum(sec["n_jobs"] * (sec["end"] - sec["start"]) for sec in self.sections)
        busy = sum(t1 - t0 for sec in self.sections for _, t0, t1 in sec["tasks"])
        return None if cap <= 0 else max(0.0, 1.0 - busy / cap)

    def summary(self) -> dict:
        """``{"sections", "tasks", "span_s", "busy_s", "idle_fraction"}`` over the recorded sections."""
        return {"sections": len(self.sections), "tasks": sum(len(sec["tasks"]) for sec in self.sections),
                "span_s": sum(sec["end"] - sec["start"] for sec in self.sections),
                "busy_s": sum(t1 - t0 for sec in self.sections for _, t0, t1 in sec["tasks"]),
                "idle_fraction": self.idle_fraction()}


def _timed_call(fn, *args):
    import os
    import time
    t0 = time.time()
    out = fn(*args)
    return out, (os.getpid(), t0, time.time())


def dispatch_order(cost, n_tasks: int, name: str = "cost") -> list[int] | None:
    """The order in which to hand ``n_tasks`` tasks to the workers: the costliest first (stable), or ``None``.

    Longest-processing-time-first keeps both workers busy to the end of a list whose tasks differ in length
    (a long task dispatched last would run alone). Only the dispatch order changes; every task keeps its seed
    and the runner returns the results in task order, so no number depends on it.

    Parameters
    ----------
    cost : sequence of float or None
        A relative cost per task (any unit: the order is all that is used). ``None``: task order.
    n_tasks : int
        Number of tasks.
    name : str
        The parameter name used in error messages.

    Returns
    -------
    list of int or None
        Task indices in dispatch order (ties in task order); ``None`` when ``cost`` is ``None``.

    Raises
    ------
    ValueError
        ``cost`` (named ``name``) not of length ``n_tasks``, or with a negative or non-finite entry.
    """
    if cost is None:
        return None
    c = np.asarray(cost, dtype=np.float64)
    if c.shape != (n_tasks,) or not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError(f"{name} must hold one finite nonnegative number per task ({n_tasks}), got {cost!r}")
    return sorted(range(n_tasks), key=lambda i: -c[i])


def _parallel_results(calls: Sequence[tuple], n_jobs: int, backend: str | None, groups=None,
                      order=None) -> Iterator[Any]:
    """Yield ``fn(*args)`` for each ``(fn, *args)`` in ``calls``, in order: serially, or over joblib workers.

    ``order`` (from :func:`dispatch_order`): the workers get the calls in this order; the results are still
    yielded in task order (each as soon as every earlier task's result is in). Serially the calls run in task order.

    ``n_jobs`` is capped at the number of calls (``-1``, every core, too): no worker is started that would get no
    task (#28). While :func:`keeping_chains` is active in this process, every call also returns its run_chains
    records, which are collected here under the label ``<invocation>.<groups[i]>.<j>`` (``groups``: the study of
    each block).
    """
    n_jobs = max(1, min(len(calls), effective_n_jobs(n_jobs)))
    if _COLLECTED is not None:
        collected = _COLLECTED
        inv = _INVOCATION[0]
        _INVOCATION[0] += 1
        labels = list(groups) if groups is not None else list(range(len(calls)))
        wrapped = [(_with_capture, *c) for c in calls]
        for i, (res, recs) in enumerate(_parallel_results_timed(wrapped, n_jobs, backend, order)):
            collected.extend((f"{inv}.{labels[i]}.{j}", r) for j, r in enumerate(recs))
            yield res
        return
    yield from _parallel_results_timed(calls, n_jobs, backend, order)


def _parallel_results_timed(calls: Sequence[tuple], n_jobs: int, backend: str | None, order=None) -> Iterator[Any]:
    log = _TASK_LOG
    if log is not None and not (n_jobs == 1 and backend is None):
        import time
        now = time.time()
        sec = {"n_jobs": n_jobs if n_jobs > 0 else __import__("os").cpu_count(), "start": now, "end": now, "tasks": []}
        log.append(sec)  # recorded up front: a consumer (zip) may stop without exhausting this generator
        for out, timing in _parallel_results_plain([(_timed_call,) + tuple(c) for c in calls], n_jobs, backend, order):
            sec["tasks"].append(timing)
            sec["end"] = time.time()
            yield out
        return
    yield from _parallel_results_plain(calls, n_jobs, backend, order)


# ---- one BLAS thread in every task (#26): bits independent of n_jobs, backend and machine -------------------------
#: The BLAS controller of this process (created on first use: it scans the loaded libraries once).
_BLAS: list = []


def _blas_controller():
    if not _BLAS:
        import scipy.linalg  # noqa: F401  (loads SciPy's own BLAS, so that the controller sees it beside NumPy's)
        from threadpoolctl import ThreadpoolController
        _BLAS.append(ThreadpoolController())
    return _BLAS[0]


def one_blas_thread():
    """Context manager: this process's BLAS runs on one thread inside the block, restored on exit.

    Why: a BLAS product of the same operands can differ in the last bit with the number of BLAS threads
    (measured on OpenBLAS: 1.7e-16 on the logistic target's log-likelihood, ``docs/benchmarks.md``), and that
    number is the parent's (all cores) for a task run serially but ``cpu_count // n_jobs`` in a loky worker. Every
    task the runner dispatches therefore runs with one BLAS thread wherever it runs, so that the numbers do not
    depend on ``n_jobs``, the backend or the machine's core count. Parallelism is the runner's (one task per
    worker), not BLAS's. Only NumPy's and SciPy's BLAS are limited (not OpenMP, not a peer library's own BLAS);
    ``threadpoolctl`` does it.
    """
    return _blas_controller().limit(limits=1, user_api="blas")


def _pinned_call(parent_pid, fn, *args):
    """Run ``fn(*args)`` in a worker with one BLAS thread. In a worker *process* the limit is set once and kept
    (a loky or dask worker runs one task per thread; restoring it between tasks could race when a worker runs
    tasks in several threads); in the parent (threading backend) the caller's :func:`one_blas_thread` holds."""
    import os
    if os.getpid() != parent_pid and not _BLAS_PINNED:
        _blas_controller().limit(limits=1, user_api="blas")   # kept for the worker's life
        _BLAS_PINNED.append(True)
    return fn(*args)


#: Set in a worker process once its BLAS is pinned to one thread.
_BLAS_PINNED: list = []


def _parallel_results_plain(calls: Sequence[tuple], n_jobs: int, backend: str | None, order=None) -> Iterator[Any]:
    if n_jobs == 1 and backend is None:
        for c in calls:
            with one_blas_thread():
                r = c[0](*c[1:])
            yield r
        return
    if order is not None and list(order) != list(range(len(calls))):
        gen = _parallel_results_plain([calls[i] for i in order], n_jobs, backend)
        held, nxt = {}, 0
        for i, r in zip(order, gen):   # back to task order, each result as soon as its predecessors are in
            held[i] = r
            while nxt in held:
                yield held.pop(nxt)
                nxt += 1
        return
    # parallel_config (not Parallel(backend=...)) is what registers external backends such as dask
    # joblib's multiprocessing backend cannot return a generator: it returns the list (in task order,
    # the same numbers; a progress callback then runs once all tasks are done)
    ret = "list" if backend == "multiprocessing" else "generator"
    import os
    pid = os.getpid()
    # the parent holds one BLAS thread while the tasks run (tasks of the threading backend run here, in its threads)
    with one_blas_thread(), parallel_config(n_jobs=n_jobs, **({"backend": backend} if backend is not None else {})):
        gen = Parallel(return_as=ret)(delayed(_pinned_call)(pid, c[0], *c[1:]) for c in calls)
        try:
            for r in gen:   # not `yield from`: an early close must reach the `finally` below, where its warning is known
                yield r
        finally:
            _close_quietly(gen)


#: joblib's warning when a result generator is closed before its end (joblib.parallel ``_warn_exit_early``)
_EXIT_EARLY = r"\d+ tasks (have been successfully executed|which were still being processed)"


def _close_quietly(gen) -> None:
    """Close joblib's result generator without its "tasks ... cancelled" warning.

    A consumer stops early on purpose: :func:`run_tasks` and :func:`run_realizations` raise the first
    :class:`~sgmcmc_verify.errors.DivergenceError` in task order, and the tasks after it cannot change what is raised
    (the experiments that expect divergence, such as EWSG's Fig. 4 step-size sweep, catch it and record the
    failing setting). joblib then cancels the running tasks and warns that "you could benefit from
    adjusting the input task iterator", which would tell a user of ``make figures`` of a problem that is not one. Any
    other warning passes; a generator already at its end (or a list) is left alone."""
    import warnings
    if not hasattr(gen, "close"):
        return
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_EXIT_EARLY, category=UserWarning)
        gen.close()


def run_tasks(fn: Callable[..., Any], tasks: Sequence[tuple | Mapping], *, n_jobs: int = 1,
              backend: str | None = None, cost: Sequence[float] | None = None) -> list:
    """Run independent tasks ``fn(*task)`` (or ``fn(**task)``) with joblib; results in task order.

    Parameters
    ----------
    fn : callable
        A module-level function (picklable for process backends). Every random number it uses must
        come from a seed carried *in its task* (a ``numpy.random.SeedSequence`` child the caller
        spawned in a fixed order), so that the results do not depend on ``n_jobs`` or ``backend``.
    tasks : sequence of tuple or mapping
        Positional (tuple) or keyword (mapping) arguments of each task.
    n_jobs : int, default 1
    backend : str or None
        A joblib backend ("loky", "threading", "multiprocessing", "dask", ...).
    cost : sequence of float or None
        A relative cost per task: with workers, the costliest are dispatched first (:func:`dispatch_order`);
        the results and every number in them are the same for any ``cost``.

    Returns
    -------
    list
        ``[fn(*tasks[0]), fn(*tasks[1]), ...]``.

    Raises
    ------
    ValueError
        ``n_jobs`` is 0; ``cost`` not one finite nonnegative number per task.
    sgmcmc_verify.errors.DivergenceError
        The first task *in task order* that raised one (the same for any ``n_jobs``).
    """
    if n_jobs == 0:
        raise ValueError("n_jobs must be nonzero (joblib: a positive count, or -1 for all cores)")
    calls = [(_run_task, fn, tuple(t) if not isinstance(t, Mapping) else (), dict(t) if isinstance(t, Mapping) else {})
             for t in tasks]
    order = dispatch_order(cost, len(calls))
    out = []
    for r in _parallel_results(calls, n_jobs, backend, order=order):
        if isinstance(r, _Diverged):
            raise r.error
        out.append(r)
    return out


class RealizationStudy(NamedTuple):
    """One :func:`run_realizations` call, to be run together with others by :func:`run_realizations_many`."""

    block_fn: Callable[[int, np.random.Generator], Mapping[str, np.ndarray]]
    n_realizations: int
    seed: int
    block_size: int = 1000
    chain_keys: Any = None
    #: relative cost of one realization (any unit); with workers, the blocks of the costliest studies go first
    #: (:func:`dispatch_order`, cost × block size). ``None`` everywhere: task order. Changes no number.
    cost: float | None = None


def _assemble(blocks, sizes, chain_keys):
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


def run_realizations_many(studies: Sequence[RealizationStudy], *, n_jobs: int = 1, backend: str | None = None,
                          progress=None) -> list[dict]:
    """Several :func:`run_realizations` studies as one joblib task list over all their blocks.

    Study ``i`` gets exactly the blocks, seeds and numbers that ``run_realizations(*studies[i])``
    gives (block j of study i uses ``SeedSequence(studies[i].seed).spawn(n_blocks_i)[j]``), for any
    ``n_jobs`` and backend; only the scheduling differs: no barrier between studies.

    Parameters
    ----------
    studies : sequence of RealizationStudy
    n_jobs, backend : as :func:`run_realizations`
    progress : callable ``(realizations_done, passes_per_realization)`` or None
        Called per block, in (study, block) order.

    Returns
    -------
    list of dict
        One :func:`run_realizations` result per study, in order.

    Raises
    ------
    ValueError
        Bad counts, or shared entries that differ between blocks.
    sgmcmc_verify.errors.DivergenceError
        The first diverged block in (study, block) order.
    """
    plan = []
    for st in studies:
        sizes = block_sizes(st.n_realizations, st.block_size)
        plan.append((st, sizes, np.random.SeedSequence(st.seed).spawn(len(sizes))))
    calls = [(_run_block, st.block_fn, size, child) for st, sizes, children in plan
             for size, child in zip(sizes, children)]
    groups = [i for i, (_, sizes, _) in enumerate(plan) for _ in sizes]
    order = None
    if any(st.cost is not None for st in studies):
        order = dispatch_order([(0.0 if st.cost is None else st.cost) * size for st, sizes, _ in plan for size in sizes],
                               len(calls), "RealizationStudy.cost")
    flat = []
    for size, b in zip((c[2] for c in calls), _parallel_results(calls, n_jobs, backend, groups=groups, order=order)):
        if isinstance(b, _Diverged):
            raise b.error
        flat.append(b)
        if progress is not None:
            passes = b.get("passes")
            progress(size, float(passes[-1]) if passes is not None and len(passes) else 0.0)
    outs, k = [], 0
    for st, sizes, _ in plan:
        outs.append(_assemble(flat[k:k + len(sizes)], sizes, st.chain_keys))
        k += len(sizes)
    return outs


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
    sgmcmc_verify.errors.DivergenceError
        The first block *in block order* whose chains diverged (the same for every ``n_jobs`` and
        backend, so the step and chain count it reports are reproducible).
    """
    return run_realizations_many([RealizationStudy(block_fn, n_realizations, seed, block_size, chain_keys)],
                                 n_jobs=n_jobs, backend=backend, progress=progress)[0]
