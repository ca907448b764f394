"""The one chain loop (run_chains) and realizations in blocks (bitwise-identical for any n_jobs and backend)."""
import functools

import numpy as np
import pytest

from sgmcmc_verify import samplers as S
from sgmcmc_verify.integrators import OverdampedEM
from sgmcmc_verify.runner import (RealizationStudy, block_sizes, run_chains, run_realizations, run_realizations_many,
                           run_tasks)
from sgmcmc_verify.targets import gaussian_means_target


def _block(n_chains, rng, *, method):
    t = gaussian_means_target()
    s = S.ewsg(t, 0.05, 10.0) if method == "EWSG" else S.sgld(t, 5e-3)
    out = run_chains(s, s.init(rng.standard_normal((n_chains, 2)), rng.standard_normal((n_chains, 2))), rng,
                     checkpoints=[0, 1, 2], unit="passes", observe={"position": lambda st: st.position})
    return {"position": out["position"], "passes": out["passes"], "info": out["info"]}


@pytest.mark.parametrize("method", ["EWSG", "SGLD"])
def test_same_seed_same_numbers_for_any_n_jobs_and_backend(method):
    fn = functools.partial(_block, method=method)
    ref = run_realizations(fn, 250, seed=7, block_size=100, n_jobs=1)
    assert ref["position"].shape == (250, 3, 2)
    for n_jobs, backend in ((2, None), (2, "loky"), (2, "threading")):
        other = run_realizations(fn, 250, seed=7, block_size=100, n_jobs=n_jobs, backend=backend)
        np.testing.assert_array_equal(other["position"], ref["position"])
    different = run_realizations(fn, 250, seed=8, block_size=100, n_jobs=1)
    assert not np.array_equal(different["position"], ref["position"])


def test_block_sizes():
    assert block_sizes(250, 100) == [100, 100, 50]
    with pytest.raises(ValueError, match="block_size"):
        block_sizes(10, 0)


def test_time_average_is_the_running_mean_from_step_1():
    """φ̂_K = (1/K) Σ_{k=1}^K φ(X_k), checked against the recorded path of a deterministic chain."""
    t = gaussian_means_target()
    s = OverdampedEM(t, 0.001, inverse_temperature=np.inf)  # gradient flow, deterministic given the index stream
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    x0 = np.ones((2, 2))
    f = lambda st: st.position[:, 0]
    out = run_chains(s, s.init(x0), rng_a, steps=5, time_average={"f": f})
    st, vals = s.init(x0), []
    for _ in range(5):
        st, _ = s.step(st, rng_b)
        vals.append(f(st))
    np.testing.assert_allclose(out["f"][:, 0], np.mean(vals, axis=0), rtol=1e-15)


def test_run_chains_rejects_bad_arguments():
    t = gaussian_means_target()
    s = S.sgld(t, 1e-3)
    st, rng = s.init(np.zeros((1, 2))), np.random.default_rng(0)
    with pytest.raises(ValueError, match="checkpoints"):
        run_chains(s, st, rng, checkpoints=[2, 1])
    with pytest.raises(ValueError, match="unit"):
        run_chains(s, st, rng, checkpoints=[1], unit="seconds")
    with pytest.raises(ValueError, match="exactly one of steps and checkpoints"):
        run_chains(s, st, rng, steps=3, checkpoints=[3])
    with pytest.raises(ValueError, match="keep_last"):
        run_chains(s, st, rng, steps=3, keep_last=4)
    with pytest.raises(ValueError, match="keep_last needs unit='steps'"):
        run_chains(s, st, rng, checkpoints=[1.0], unit="passes", keep_last=1)


def test_keep_last_and_info_trace_equal_a_hand_written_loop():
    """``keep_last`` holds the positions after each of the last steps, ``info_trace`` every step's
    diagnostics and ``evaluations`` their sum, exactly as a plain loop over ``step`` gives them."""
    t = gaussian_means_target()
    s = S.ewsg(t, 0.05, 10.0, index_chain_length=2)
    x0 = np.zeros((3, 2))
    out = run_chains(s, s.init(x0), np.random.default_rng(5), steps=12, keep_last=4, trace_info=True)
    st, rng, pos, acc, ev = s.init(x0), np.random.default_rng(5), [], [], 0
    for _ in range(12):
        st, info = s.step(st, rng)
        pos.append(st.position)
        acc.append(info.info["acceptance_rate"])
        ev += info.evaluations
    np.testing.assert_array_equal(out["kept"], np.stack(pos[-4:], axis=1))
    np.testing.assert_array_equal(out["info_trace"]["acceptance_rate"], acc)
    assert out["evaluations"] == ev == 12 * 3
    np.testing.assert_array_equal(out["state"].position, st.position)
    assert out["info"]["acceptance_rate"] == pytest.approx(np.mean(acc))


def test_a_step_that_reaches_several_checkpoints_is_recorded_once():
    """SVRG-LD's snapshot step costs n + 2b evaluations (1.04 passes at n = 50): from 27.0 passes it reaches
    the checkpoints at 27.5 and 28.0 at once. It used to be recorded twice (two identical rows in
    fig1a.csv); now once, and every record is a distinct step."""
    t = gaussian_means_target()
    s = S.svrg_ld(t, 5e-4)
    ck = np.arange(0.0, 30.0 + 1e-9, 0.5)
    out = run_chains(s, s.init(np.zeros((3, 2))), np.random.default_rng(0), checkpoints=ck, unit="passes",
                     observe={"x": lambda st: st.position})
    assert np.all(np.diff(out["steps"]) > 0) and out["x"].shape[1] == out["steps"].size < ck.size
    assert 28.04 in np.round(out["passes"], 2) and out["passes"][-1] >= 30.0


def _diverge_by_size(n_chains, rng, delay):
    """Test block: blocks of 3 chains diverge at step 3 (slowly), blocks of 2 at step 2 (at once)."""
    import time

    from sgmcmc_verify.errors import DivergenceError

    if n_chains == 3:
        time.sleep(delay)
    raise DivergenceError("test", n_chains, {"h": 1.0}, n_chains)


@pytest.mark.parametrize("n_jobs,backend", [(1, None), (2, "threading")])
def test_the_divergence_reported_is_the_first_block_in_block_order(n_jobs, backend):
    """Block 0 (3 chains) fails late, block 1 (2 chains) at once: the error is block 0's for every n_jobs
    (ewsg.fig4 once recorded 43 and once 36 bad chains for the same run: whichever block failed first in time)."""
    from sgmcmc_verify.errors import DivergenceError

    fn = functools.partial(_diverge_by_size, delay=0.3)
    with pytest.raises(DivergenceError) as e:
        run_realizations(fn, 5, seed=1, block_size=3, n_jobs=n_jobs, backend=backend)
    assert e.value.n_bad_chains == 3 and e.value.step == 3


# ---- engine="compiled": the numba kernels between checkpoints, the same numbers ----------------------------

def test_compiled_engine_gives_the_numpy_engines_records_bit_for_bit():
    pytest.importorskip("numba")
    from sgmcmc_verify.samplers import sghmc
    from sgmcmc_verify.targets import gaussian_means_target
    s = sghmc(gaussian_means_target(), 5e-2, 10.0, batch_size=2)
    obs = {"position": lambda st: st.position, "momentum": lambda st: st.momentum}
    kw = dict(checkpoints=[0, 1, 7.5, 100, 100, 250], unit="steps", observe=obs)
    a = run_chains(s, s.init(np.ones((3, 2))), np.random.default_rng(8), **kw)
    b = run_chains(s, s.init(np.ones((3, 2))), np.random.default_rng(8), engine="compiled", **kw)
    for k in ("passes", "steps", "position", "momentum"):
        np.testing.assert_array_equal(a[k], b[k])
    assert a["evaluations"] == b["evaluations"] == 500 and a["info"] == b["info"] == {}


def test_auto_engine_chooses_by_chain_count_with_the_same_numbers(monkeypatch):
    """engine="auto": the kernel for few chains, the NumPy step for many (or where the run needs per-step records);
    the records equal the NumPy engine's either way. Control: the choice is seen (a kernel call is counted)."""
    pytest.importorskip("numba")
    from sgmcmc_verify.integrators import compiled
    from sgmcmc_verify.samplers import sgld
    from sgmcmc_verify.targets import gaussian_means_target
    s = sgld(gaussian_means_target(), 1e-3, batch_size=4)
    assert compiled.choose_engine(s, 1) == "compiled"
    assert compiled.choose_engine(s, compiled.COMPILED_MAX_DRAWS // 4 + 1) == "numpy"
    calls = []
    real = compiled.advance
    monkeypatch.setattr(compiled, "advance", lambda *a: calls.append(a[0].name) or real(*a))
    obs = {"position": lambda st: st.position}
    for chains, used in ((2, ["SGLD"] * 3), (100, [])):
        calls.clear()
        kw = dict(checkpoints=[0, 5, 20, 40], unit="steps", observe=obs)
        a = run_chains(s, s.init(np.ones((chains, 2))), np.random.default_rng(3), **kw)
        b = run_chains(s, s.init(np.ones((chains, 2))), np.random.default_rng(3), engine="auto", **kw)
        np.testing.assert_array_equal(a["position"], b["position"])
        assert calls == used
    calls.clear()
    run_chains(s, s.init(np.ones((2, 2))), np.random.default_rng(3), steps=5, keep_last=2, engine="auto")
    assert calls == []
    with pytest.raises(ValueError, match="chains"):
        compiled.choose_engine(s, 0)


@pytest.mark.parametrize("kw,match", [
    (dict(engine="jit"), "engine"),
    (dict(engine="compiled", checkpoints=[1.0], unit="passes"), "unit"),
    (dict(engine="compiled", time_average={"x": lambda st: st.position}), "time_average"),
    (dict(engine="compiled", keep_last=2), "keep_last"),
])
def test_engine_errors_are_named(kw, match):
    from sgmcmc_verify.samplers import sgld
    from sgmcmc_verify.targets import gaussian_means_target
    s = sgld(gaussian_means_target(), 1e-3)
    args = {"steps": 10} if "checkpoints" not in kw else {}
    with pytest.raises(ValueError, match=match):
        run_chains(s, s.init(np.zeros((2, 2))), np.random.default_rng(0), **args, **kw)


def test_many_studies_in_one_task_list_give_each_study_its_own_numbers():
    """run_realizations_many == one run_realizations per study, for any n_jobs (no barrier, same seeds)."""
    studies = [RealizationStudy(functools.partial(_block, method=m), r, seed, 40)
               for m, r, seed in (("SGLD", 90, 3), ("EWSG", 50, 4), ("SGLD", 40, 5))]
    ref = [run_realizations(st.block_fn, st.n_realizations, seed=st.seed, block_size=st.block_size) for st in studies]
    for n_jobs, backend in ((1, None), (2, "threading")):
        got = run_realizations_many(studies, n_jobs=n_jobs, backend=backend)
        for a, b in zip(got, ref):
            np.testing.assert_array_equal(a["position"], b["position"])
            assert a["info"] == b["info"]


def _seeded_task(k, seed_seq):
    return k, np.random.default_rng(seed_seq).standard_normal(3)


def test_run_tasks_returns_results_in_task_order_for_any_n_jobs():
    seeds = np.random.SeedSequence(11).spawn(7)
    ref = run_tasks(_seeded_task, [(k, s) for k, s in enumerate(seeds)])
    assert [r[0] for r in ref] == list(range(7))
    for n_jobs, backend in ((2, None), (2, "threading")):
        got = run_tasks(_seeded_task, [{"k": k, "seed_seq": s} for k, s in enumerate(seeds)], n_jobs=n_jobs,
                        backend=backend)
        for a, b in zip(got, ref):
            assert a[0] == b[0] and np.array_equal(a[1], b[1])


@pytest.mark.parametrize("n_jobs,backend", [(1, None), (2, "threading")])
def test_run_tasks_raises_the_first_divergence_in_task_order(n_jobs, backend):
    from sgmcmc_verify.errors import DivergenceError

    with pytest.raises(DivergenceError) as e:
        run_tasks(functools.partial(_diverge_by_size, delay=0.3), [(3, None), (2, None)], n_jobs=n_jobs, backend=backend)
    assert e.value.n_bad_chains == 3
    with pytest.raises(ValueError, match="n_jobs"):
        run_tasks(_seeded_task, [(0, 1)], n_jobs=0)


def _diverge_first(k):
    """Test task: task 0 diverges after 0.2 s, the others take 1 s each (still running when task 0 fails)."""
    import time

    from sgmcmc_verify.errors import DivergenceError

    time.sleep(0.2 if k == 0 else 1.0)
    if k == 0:
        raise DivergenceError("test", 7, {"h": 1.0}, 1)
    return k


@pytest.mark.parametrize("backend", [None, "threading"])
def test_a_divergence_that_stops_a_task_list_early_leaves_no_joblib_warning(backend):
    """run_tasks stops at the first divergence in task order on purpose; joblib's "tasks ... have been cancelled"
    warning about the running ones is not shown. It was shown in ``make test``'s warnings summary, from the smoke run
    of ``ewsg.fig4`` (EWSG Fig. 4's step-size sweep, whose largest step sizes diverge; whether a task is still running
    then depends on timing). Checked to fail without :func:`sgmcmc_verify.runner._close_quietly` (a plain ``yield
    from``): the warning came once per backend. Other warnings still pass (the second half)."""
    import warnings

    from sgmcmc_verify.errors import DivergenceError
    from sgmcmc_verify.runner import _close_quietly

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(DivergenceError):
            run_tasks(_diverge_first, [(k,) for k in range(6)], n_jobs=2, backend=backend)
    assert [str(w.message) for w in seen if "cancelled" in str(w.message) or "not used" in str(w.message)] == []

    def warns_on_close():
        try:
            yield 1
        finally:
            warnings.warn("another warning", stacklevel=2)

    g = warns_on_close()
    next(g)
    with pytest.warns(UserWarning, match="another warning"):
        _close_quietly(g)


def _sleepy(k):
    import time
    time.sleep(0.02 * k)
    return k * k


def test_record_tasks_times_every_task_and_leaves_results_alone():
    """record_tasks: one section per task list, one timing per task, results as without it; a serial run records
    nothing; the idle fraction sees a lopsided list (control: one long task among short ones idles a worker)."""
    from sgmcmc_verify.runner import record_tasks
    tasks = [(k,) for k in (10, 10, 10, 10)]
    plain = run_tasks(_sleepy, tasks, n_jobs=2, backend="threading")
    with record_tasks() as log:
        timed = run_tasks(_sleepy, tasks, n_jobs=2, backend="threading")
        run_tasks(_sleepy, [(0,)], n_jobs=1)
    assert timed == plain == [100] * 4
    assert len(log.sections) == 1 and len(log.sections[0]["tasks"]) == 4
    balanced = log.idle_fraction()
    with record_tasks() as lop:
        run_tasks(_sleepy, [(24,), (1,), (1,)], n_jobs=2, backend="threading")
    assert lop.idle_fraction() > 0.25 and lop.idle_fraction() > balanced
    assert lop.summary()["tasks"] == 3
    with record_tasks() as many:  # run_realizations_many reads its generator through zip (never exhausted)
        run_realizations(functools.partial(_block, method="SGLD"), 6, seed=1, block_size=3, n_jobs=2,
                         backend="threading")
    assert many.summary()["sections"] == 1 and many.summary()["tasks"] == 2


def _started(k, log):
    import time
    log.append(k)
    time.sleep(0.01)
    return k * k


def test_cost_dispatches_the_costliest_first_and_returns_task_order():
    """run_tasks(cost=...): the workers get the tasks costliest first, the results come back in task order and equal
    those without ``cost``; a lopsided list (one long task last) idles a worker unless the long task goes first."""
    from sgmcmc_verify.runner import dispatch_order, record_tasks
    assert dispatch_order([1.0, 3.0, 2.0, 3.0], 4) == [1, 3, 2, 0] and dispatch_order(None, 4) is None
    log = []
    got = run_tasks(_started, [(k, log) for k in range(6)], n_jobs=2, backend="threading", cost=[0, 1, 2, 3, 4, 5])
    assert got == [k * k for k in range(6)]
    assert log[:2] == [5, 4] or log[:2] == [4, 5]    # the two costliest dispatched first (one per worker)
    assert set(log) == set(range(6))
    seeds = np.random.SeedSequence(11).spawn(5)
    ref = run_tasks(_seeded_task, [(k, s) for k, s in enumerate(seeds)])
    for n_jobs, backend in ((1, None), (2, "threading"), (2, "loky")):
        other = run_tasks(_seeded_task, [(k, s) for k, s in enumerate(seeds)], n_jobs=n_jobs, backend=backend,
                          cost=[5, 1, 4, 2, 3])
        assert all(a[0] == b[0] and np.array_equal(a[1], b[1]) for a, b in zip(other, ref))
    tasks, cost = [(1,)] * 6 + [(8,)], [1] * 6 + [8]
    with record_tasks() as last:
        run_tasks(_sleepy, tasks, n_jobs=2, backend="threading")
    with record_tasks() as first:
        run_tasks(_sleepy, tasks, n_jobs=2, backend="threading", cost=cost)
    assert first.idle_fraction() < last.idle_fraction()
    for bad in ([1, 2], [1, -1, 1, 1, 1, 1, 1], [1, np.nan, 1, 1, 1, 1, 1]):
        with pytest.raises(ValueError, match="cost"):
            run_tasks(_sleepy, tasks, n_jobs=2, backend="threading", cost=bad)


def test_study_cost_changes_no_number():
    studies = [RealizationStudy(functools.partial(_block, method=m), r, seed, 40, None, c)
               for m, r, seed, c in (("SGLD", 90, 3, 1.0), ("EWSG", 50, 4, 3.0), ("SGLD", 40, 5, None))]
    ref = [run_realizations(st.block_fn, st.n_realizations, seed=st.seed, block_size=st.block_size) for st in studies]
    got = run_realizations_many(studies, n_jobs=2, backend="threading")
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a["position"], b["position"])
        assert a["info"] == b["info"]


def _blas_threads(_k):
    from threadpoolctl import threadpool_info
    return sorted({d["num_threads"] for d in threadpool_info() if d["user_api"] == "blas"})


def _parent_blas_threads():
    import scipy.linalg  # noqa: F401  (the same libraries the runner's controller sees)
    return _blas_threads(0)


@pytest.mark.parametrize("n_jobs,backend", [(1, None), (2, None), (2, "loky"), (2, "threading")])
def test_every_task_runs_with_one_blas_thread_and_the_parent_gets_its_count_back(n_jobs, backend):
    # why: a BLAS product can differ in the last bit with the BLAS thread count (docs/benchmarks.md, #26), and a
    # serial task would otherwise use all of the parent's threads where a loky worker uses cpu_count // n_jobs
    before = _parent_blas_threads()
    seen = run_tasks(_blas_threads, [(k,) for k in range(4)], n_jobs=n_jobs, backend=backend)
    assert all(s == [1] for s in seen), seen
    assert _parent_blas_threads() == before


def test_a_runner_that_does_not_pin_blas_is_caught(monkeypatch):
    # negative control of the test above: the planted bug (the runner's pin replaced by a no-op) lets a serial task
    # run with the parent's threads, which the same probe sees (needs >= 2 cores: OpenBLAS starts one per core)
    import contextlib
    import os

    from threadpoolctl import threadpool_limits

    import sgmcmc_verify.runner as R
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: OpenBLAS runs one thread anyway")
    monkeypatch.setattr(R, "one_blas_thread", contextlib.nullcontext)
    with threadpool_limits(limits=2, user_api="blas"):
        seen = run_tasks(_blas_threads, [(k,) for k in range(2)], n_jobs=1)
    assert all(s != [1] for s in seen), seen
