"""``sgmcmc-verify``: list, run and check experiments and claims; draw figures; build the report.

Examples
--------
    sgmcmc-verify list claims
    sgmcmc-verify run ewsg.fig1a --scale smoke --n-jobs 2
    sgmcmc-verify run all --scale default --backend loky
    sgmcmc-verify run all --scale default --n-jobs 1 --concurrent 2   # two experiments side by side, a core each
    sgmcmc-verify run all --backend dask --scheduler tcp://10.0.0.5:8786
    sgmcmc-verify check ewsg.thm4.3.term1 --scale smoke
    sgmcmc-verify figures
    sgmcmc-verify report --scale default
    sgmcmc-verify verify --scale default      # run all + figures + report (what `make verify` does)
    sgmcmc-verify baseline --check            # smoke-scale regression against paper_repro/baselines/
    sgmcmc-verify baseline --refresh          # rewrite the baselines on purpose
    sgmcmc-verify audit sgmcmc_verify.samplers:sgld --scale smoke --name SGLD   # the audit battery (issue #15)
    sgmcmc-verify audit SGHMC --param friction=15                       # a toolkit sampler by name
    sgmcmc-verify audit toolkit --scale default                         # every registered sampler (make audit)
    sgmcmc-verify audit mysampler.py:factory --scale smoke --fail-on warn  # a file of one's own; exit 1 on warn (CI)
    sgmcmc-verify compare --a results --b results/paper   # both scales side by side -> docs/paper_scale_report.md
    sgmcmc-verify run ewsg.fig1a --scale smoke --seed 7 --set realizations=2000   # a changed setting: its own key
    sgmcmc-verify list claims --json | jq '.[0]'            # machine-readable listings (and report/check --json)
    sgmcmc-verify check ls_sgld --no-run --fail-on failed   # exit status 1 when a claim failed (for CI)
    eval "$(sgmcmc-verify completion bash)"                  # tab completion of subcommands, options and ids

The global options (``--debug``, ``--data``, ``--results``) may be given before or after the subcommand.

Exit status (for CI): 0 success; 1 a finding (``baseline --check`` out of tolerance, ``audit`` flagged a
check, ``check``/``report``/``verify --fail-on STATUS`` with a claim in that status); 2 an error (bad usage,
unknown id, a setting that does not exist or does not parse, a missing or corrupt result, a diverged run),
printed as one readable line on stderr unless ``--debug`` is given; 130 interrupted (Ctrl-C); 141 the output
pipe was closed early (``list claims | head -1``), quietly.
"""
# PYTHON_ARGCOMPLETE_OK
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path

from sgmcmc_verify.store.settings import SCALES

#: The joblib backends ``--backend`` accepts (the same as ``sgmcmc_verify.store.cache.BACKENDS``).
BACKENDS = ("loky", "threading", "multiprocessing", "dask")


def _progress_bar(desc):
    from tqdm.auto import tqdm

    bar = tqdm(desc=desc, unit="realization", leave=False, dynamic_ncols=True, file=sys.stderr)
    state = {"passes": 0.0}

    def update(n, passes):
        state["passes"] += n * passes
        bar.update(n)
        bar.set_postfix(passes=f"{state['passes']:.3g}")

    return bar, update


@contextlib.contextmanager
def _backend(name, scheduler, n_jobs):
    """Yield the joblib backend name; for dask, connect (or start a local cluster) for the duration."""
    if name != "dask":
        yield name
        return
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as e:
        raise RuntimeError("the dask backend needs dask.distributed: pip install 'sgmcmc-verify[dask]'") from e
    if scheduler:
        client = Client(scheduler)
        cluster = None
    else:
        cluster = LocalCluster(n_workers=max(1, n_jobs), threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        yield "dask"
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _select_experiments(target):
    from sgmcmc_verify.store.registry import all_experiments, get_experiment

    if target == "all":
        return all_experiments()
    exps = [e for e in all_experiments() if e.paper == target]
    return exps or [get_experiment(target)]


#: default-scale wall seconds per experiment (the manifests' ``wall_time_s`` of `make figures` at 6bbbc45, 2026-12-06:
#: two experiments side by side with one worker each, the wall-clock experiments alone; docs/benchmarks.md, "#26:
#: `make figures` measured whole again"; those under 1 s left out), the cost table :func:`_longest_first` falls back
#: on where a results directory holds no manifest: only the ratios matter
RECORDED_COSTS = {
    "vrsg.mlp": 1119, "hsg_hmc.bnn": 1109, "ewsg.bnn_cnn": 909, "ewsg_iclr.fig1ghi": 488, "ls_sgld.thm37": 339,
    "ewsg.fig1def": 284, "ewsg_iclr.fig1jkl": 272, "ewsg.table1": 220, "ls_sgld.fig5": 189, "vrsg.cnn4": 181,
    "ewsg.fig1c_repeat": 175, "ewsg.fig5": 167, "hsg_hmc.table2": 165, "ewsg.thm42": 164, "hsg_hmc.complexity": 129,
    "ewsg.bnn": 123, "ewsg.bias_split": 116, "hsg_hmc.growth": 110, "ewsg.thmH1": 99, "ewsg.table3": 90,
    "ls_sgld.table2": 87, "ewsg_iclr.fig1b": 81, "hsg_hmc.lemmas": 71, "vrsg.thm3": 58, "ls_sgld.fig3": 49,
    "vrsg.thm6": 44, "hsg_hmc.table2_readings": 41, "ls_sgld.fig1": 40, "vrsg.cor4": 36, "ewsg.g1": 36, "vrsg.fig1": 26,
    "vrsg.identities": 25, "ewsg.fig4": 24, "vrsg.blr_n1": 22, "hsg_hmc.blr": 19, "ewsg_iclr.fig1de": 17,
    "ls_sgld.single_mode": 17, "ewsg.thm41": 15, "ewsg.fig4_n20": 14, "hsg_hmc.theorem1": 11, "ewsg.appD": 8,
    "ewsg.algorithms": 6, "ewsg.fig1c": 6, "ewsg_iclr.fig1c": 6, "ewsg.fig1a": 6, "ewsg.appE": 5, "ewsg.fig1b": 5,
    "ls_sgld.fig3_exact": 5, "ewsg_iclr.minibatch_speed": 5, "ewsg_iclr.thm2": 4, "hsg_hmc.exact_checks": 4,
    "ls_sgld.prop21": 3, "ewsg_iclr.fig1a": 3, "ls_sgld.fig4": 3, "ls_sgld.table1": 2, "ls_sgld.proofs": 2,
    "ls_sgld.table3": 1, "ls_sgld.thm33": 1,
}


def _longest_first(exps, results, scale):
    """``exps`` ordered by expected cost, longest first (#26 item 5): the wall time the manifest under ``results``
    records for this scale (the previous run), else :data:`RECORDED_COSTS` (times the median ratio of the recorded
    walls to it, to put both in one unit), else 0; ties keep the registry order.

    One at a time (``--concurrent 1``) the order does not change the total time of a run; side by side (the
    default of ``make figures`` since 2026-12-06) it does: the long experiments start first, so that none of them is
    left running alone at the end while the other cores wait. The numbers do not depend on the order (every
    experiment seeds itself)."""
    walls = {}
    for f in Path(results).glob("*/*.manifest.json"):
        try:
            m = json.loads(f.read_text())
            if m.get("scale") == scale and isinstance(m.get("wall_time_s"), (int, float)):
                walls[m["id"]] = float(m["wall_time_s"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a broken manifest is the cache's business (it recomputes); the order just ignores it
    both = [walls[k] / RECORDED_COSTS[k] for k in walls if k in RECORDED_COSTS]
    factor = sorted(both)[len(both) // 2] if both else 1.0  # the recorded (default-scale) costs in this run's units
    rank = {e.id: i for i, e in enumerate(exps)}
    return sorted(exps, key=lambda e: (-walls.get(e.id, factor * RECORDED_COSTS.get(e.id, 0.0)), rank[e.id]))


def _warn_unused_data(exps, a, log):
    """Warn about every ``--data`` name that none of ``exps`` reads (the experiments' ``inputs()`` say what they read)."""
    given = [spec.partition("=")[0] for spec in a.data]
    if not given:
        return
    read = {d.get("name") for e in exps for d in e.settings.at(a.scale).inputs().get("data", [])}
    unused = [n for n in dict.fromkeys(given) if n not in read]
    if unused:
        ids = ", ".join(e.id for e in exps[:8]) + (f" and {len(exps) - 8} more" if len(exps) > 8 else "")
        log(f"warning: --data {', '.join(unused)}: not read by {ids}; ignored")


def _overrides(a) -> dict:
    """``--set KEY=VALUE`` items and ``--seed`` -> ``{key: text}`` (read as each field's type by the store)."""
    out = {}
    for item in getattr(a, "set", None) or []:
        key, sep, val = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ValueError(f"--set expects KEY=VALUE with KEY a setting name, got {item!r}")
        out[key] = val.strip()
    if getattr(a, "seed", None) is not None:
        if "seed" in out:
            raise ValueError("give the seed once: --seed or --set seed=..., not both")
        out["seed"] = str(a.seed)
    return out


def _check_overrides(exps, overrides, scale):
    """Every override must be a setting of every selected experiment, with a value of its type (before any run)."""
    from sgmcmc_verify.store.settings import apply_overrides

    if not overrides:
        return
    lacking = {k: [e.id for e in exps if k not in e.settings.at(scale).key_fields()] for k in overrides}
    for k, ids in lacking.items():
        if ids:
            have = [e.id for e in exps if e.id not in ids]
            shown = ", ".join(ids[:6]) + (f" and {len(ids) - 6} more" if len(ids) > 6 else "")
            if len(exps) == 1:
                apply_overrides(exps[0].settings.at(scale), {k: overrides[k]}, exps[0].id)   # lists its settings
            raise ValueError(f"setting {k!r} is not a setting of {shown}"
                             + (f" (it is one of {', '.join(have[:6])}); run those alone" if have else ""))
    for e in exps:
        apply_overrides(e.settings.at(scale), overrides, e.id)


def _run(exps, a, log, overrides=None):
    """Run ``exps`` (longest first when there are several), returning their manifests in the order given."""
    from sgmcmc_verify.store.cache import run_experiment

    _warn_unused_data(exps, a, log)
    _check_overrides(exps, overrides, a.scale)
    keeper = None
    if getattr(a, "keep_chains", False):
        from sgmcmc_verify.chains import KEEPER as keeper
    out = {}
    order = _longest_first(exps, a.results, a.scale) if len(exps) > 1 else list(exps)
    k = _concurrency(a, order)
    if k > 1:
        out = _run_concurrent(order, a, log, overrides, k)
        return [out[e.id] for e in exps]
    with _backend(a.backend, a.scheduler, a.n_jobs) as backend:
        for e in order:
            bar, upd = _progress_bar(e.id) if not a.no_progress else (None, None)
            try:
                out[e.id] = run_experiment(e, a.scale, results_root=a.results, n_jobs=a.n_jobs, backend=backend,
                                           force=a.force, progress=upd, log=log, overrides=overrides,
                                           keep_chains=keeper)
            finally:
                if bar is not None:
                    bar.close()
    return [out[e.id] for e in exps]


def _concurrency(a, order) -> int:
    """How many experiments ``_run`` runs at once: ``--concurrent`` (default 1), capped at the number selected;
    1 with the dask backend (its workers are the scheduler's, shared already)."""
    k = getattr(a, "concurrent", 1)
    k = 1 if k is None else k
    if not isinstance(k, int) or k < 1:
        raise ValueError(f"--concurrent must be a positive integer, got {k}")
    if a.backend == "dask":
        return 1
    return min(k, len(order))


def _release_loky_workers():
    """Shut down this process's reusable loky executor (joblib's worker processes), if it has one.

    A process of :func:`_run_concurrent`'s pool ends through ``multiprocessing``'s exit function, which joins the
    process's non-daemon children, and loky's idle workers only leave after their idle timeout (300 s): without
    this, a ``run all --concurrent 2 --n-jobs 2`` sat idle for about five minutes after its last experiment
    (measured 2026-12-06, ``docs/benchmarks.md``). Called at the end of every experiment of the pool (releasing
    them from an exit finalizer instead deadlocked the exit)."""
    from joblib.externals.loky import reusable_executor

    executor = getattr(reusable_executor, "_executor", None)   # loky's module global: None until a pool is made
    if executor is not None:
        executor.shutdown(wait=True)


def _run_in_child(exp_id, scale, results, n_jobs, backend, force, overrides, keep_chains, data):
    """One experiment in a process of :func:`_run_concurrent`'s pool (module level: the pool pickles it)."""
    import time

    from sgmcmc_verify.store.cache import run_experiment
    from sgmcmc_verify.store.registry import get_experiment
    from sgmcmc_verify.targets.datasets import set_data_path

    for spec in data:   # --data is process state: set again here
        name, _, path = spec.partition("=")
        set_data_path(name, path)
    keeper = None
    if keep_chains:
        from sgmcmc_verify.chains import KEEPER as keeper

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    t0 = time.time()
    try:
        m = run_experiment(get_experiment(exp_id), scale, results_root=results, n_jobs=n_jobs, backend=backend,
                           force=force, log=log, overrides=overrides, keep_chains=keeper)
    finally:
        _release_loky_workers()   # each experiment starts its own workers (about a second): see the function
    return m, time.time() - t0


def _run_concurrent(order, a, log, overrides, k) -> dict:
    """Run the experiments ``order`` (longest first) ``k`` at a time, each in its own process with ``--n-jobs``
    workers (#26 item 5).

    Why: an experiment alone leaves workers idle in its serial parts (exact references, fits, symbolic algebra,
    the tail of an uneven task list); a second experiment fills them. Every experiment seeds itself and every task
    runs with one BLAS thread (:func:`sgmcmc_verify.runner.one_blas_thread`), so the numbers are those of a run one
    at a time, bit for bit. An experiment whose claims read wall-clock measurements (``Experiment.timing``: EWSG
    Table 1, vrSG-MCMC Figure 1) runs alone, first, with nothing beside it. The first failure stops new starts; the
    running experiments finish and the failure is raised. No progress bars (one line per start and end instead).
    """
    import multiprocessing as mp
    import time
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    alone = [e for e in order if getattr(e, "timing", False)]
    rest = [e for e in order if not getattr(e, "timing", False)]
    out, failure, t_start = {}, None, {}
    args = (a.scale, a.results, a.n_jobs, a.backend, a.force, overrides, bool(getattr(a, "keep_chains", False)),
            tuple(a.data))
    with ProcessPoolExecutor(max_workers=k, mp_context=mp.get_context("spawn")) as pool:
        running = {}

        def collect(done):
            nonlocal failure
            for f in done:
                eid = running.pop(f)
                try:
                    m, wall = f.result()
                except BaseException as err:   # noqa: BLE001 (raised below, after the running ones finish)
                    log(f"{eid}: failed after {time.time() - t_start[eid]:.0f} s: {err}")
                    failure = failure or err
                    continue
                out[eid] = m
                log(f"{eid}: {'reused' if m['cached'] else 'computed'} in {wall:.0f} s")

        for e in alone:   # alone: wait for it before starting anything else
            if failure is not None:
                break
            t_start[e.id] = time.time()
            log(f"{e.id}: started alone (its claims read wall-clock times)")
            f = pool.submit(_run_in_child, e.id, *args)
            running[f] = e.id
            collect(wait([f]).done)
        for e in rest:
            if failure is not None:
                break
            while len(running) >= k:
                collect(wait(list(running), return_when=FIRST_COMPLETED).done)
            if failure is not None:
                break
            t_start[e.id] = time.time()
            log(f"{e.id}: started ({len(running) + 1} running)")
            running[pool.submit(_run_in_child, e.id, *args)] = e.id
        while running:
            collect(wait(list(running), return_when=FIRST_COMPLETED).done)
    if failure is not None:
        raise failure
    return out


#: papers in the order ``figures --n-jobs N`` hands them to its workers, longest drawing first (CPU seconds of each
#: paper's ``draw_all`` on the smoke results, 2026-12-06, docs/benchmarks.md "#26: the figures step"); papers not
#: listed go last, in registry order. The order decides only the schedule; the files and the log are the same.
FIGURE_ORDER = ("ewsg", "vrsg", "hsg_hmc", "ls_sgld", "ewsg_iclr", "audit")


def _draw_paper(name, results, out, experiment_results: bool):
    """Draw one paper's figures (:func:`_figures`): ``(paths, log lines)``; runs in a worker under ``--n-jobs``."""
    import shutil
    import tempfile

    from sgmcmc_verify.errors import ResultFileError
    from sgmcmc_verify.store.cache import snapshot_published
    from sgmcmc_verify.store.registry import all_experiments, figure_modules

    m = figure_modules()[name]
    res = Path(results) / name
    lines: list[str] = []
    if not experiment_results:   # not experiment results (the audit's folders): drawn as they are
        paths = m.draw_all(res, Path(out) / name)
        return paths, lines + [f"sgmcmc_verify.figures.{name}: {len(paths)} files in {Path(out) / name}"]
    missing = []
    snap = Path(tempfile.mkdtemp(prefix=f"sgmcmc-verify-{name}-"))
    try:
        for e in (e for e in all_experiments() if e.paper == name):
            try:
                snapshot_published(res, e.id, snap / name, log=lines.append)
            except FileNotFoundError:
                missing.append(e.id)
        try:
            paths = m.draw_all(snap / name, Path(out) / name) if (snap / name).is_dir() else []
        except ResultFileError as err:
            raise ResultFileError(err.path.replace(str(snap / name), str(res)), err.reason, err.remedy) from None
    finally:
        shutil.rmtree(snap, ignore_errors=True)
    lines.append(f"sgmcmc_verify.figures.{name}: {len(paths)} files in {Path(out) / name}")
    if missing:
        lines.append(f"sgmcmc_verify.figures.{name}: no results for {', '.join(missing)}; their panels are not drawn "
                     f"(`sgmcmc-verify run {name}` makes them)")
    return paths, lines


def _figures(paper, results, out, log, n_jobs: int = 1):
    """Draw every figure whose results are in ``results``; say which experiments' results are missing.

    Every experiment's published files are checked against its manifest and copied, as the verified
    bytes, into a snapshot (:func:`sgmcmc_verify.store.cache.snapshot_published`, under the experiment's
    publish lock); the figures are drawn from the snapshot, so a file without a manifest (a full disk
    during a publish leaves one) is never drawn, and a changed or truncated file stops the command,
    naming the file.

    With ``n_jobs`` > 1 the papers are drawn side by side, one per joblib worker (longest first,
    :data:`FIGURE_ORDER`); the files are the same as drawn one after another (PNG byte for byte; a PDF differs
    only in its creation date, as between any two runs) and the log lines come in the same order. Hooks in
    :data:`sgmcmc_verify.figures._common.FIGURE_HOOKS` live in this process only, so with a hook registered the
    papers are drawn here, one after another.
    """
    from sgmcmc_verify.store.registry import all_experiments, figure_modules

    root = Path(results)
    if not root.is_dir():
        raise FileNotFoundError(f"no results directory {str(root)!r}; run `sgmcmc-verify run ...` first "
                                "or point --results at one")
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be >= 1 or -1 (every core), got {n_jobs}")
    mods = figure_modules()
    if paper and paper not in mods:
        raise ValueError(f"no figures for {paper!r}; papers with figures: {', '.join(sorted(mods))}")
    papers = {e.paper for e in all_experiments()}
    todo = []
    for name in mods:
        if paper and name != paper:
            continue
        if not (root / name).is_dir():
            log(f"sgmcmc_verify.figures.{name}: no results under {root / name}; skipped")
            continue
        todo.append(name)
    # a hook can only be registered in a process that imported the figures' common module (figures are found at
    # run time, not imported here: tests/test_architecture.py)
    common = sys.modules.get("sgmcmc_verify.figures._common")
    done = []
    if n_jobs != 1 and len(todo) > 1 and not getattr(common, "FIGURE_HOOKS", None):
        from joblib import Parallel, delayed

        rank = {n: i for i, n in enumerate(FIGURE_ORDER)}
        order = sorted(todo, key=lambda n: rank.get(n, len(rank)))
        try:
            drawn = dict(zip(order, Parallel(n_jobs=min(len(order), n_jobs) if n_jobs > 0 else n_jobs)(
                delayed(_draw_paper)(n, str(root), str(out), n in papers) for n in order)))
        finally:
            _release_loky_workers()   # the workers leave now, not at exit or after an idle timeout
        for name in todo:   # the log in registry order, as drawn one after another
            paths, lines = drawn[name]
            for ln in lines:
                log(ln)
            done += paths
    else:
        for name in todo:
            paths, lines = _draw_paper(name, root, out, name in papers)
            for ln in lines:
                log(ln)
            done += paths
    if paper and not done:
        raise FileNotFoundError(f"no figures drawn for {paper!r}: no results under {root / paper}")
    return done


def _claims_for(target):
    from sgmcmc_verify.ledger.claims import all_claims, get

    if target in (None, "all"):
        return all_claims()
    cs = [c for c in all_claims() if c.paper == target]
    return cs or [get(target)]


def _report(a, log, write=True):
    """Evaluate the claims of ``a.target`` (running what they need unless ``--no-run``); with ``write``, write
    ``claims.json`` and the report. ``check`` evaluates without writing (the stored ledger and report stay as they are).
    """
    from sgmcmc_verify.ledger.report import evaluate, write_report
    from sgmcmc_verify.store.registry import get_experiment

    claims = _claims_for(getattr(a, "target", None))
    available = getattr(a, "available", False)
    if available and not getattr(a, "no_run", False):
        raise ValueError("--available evaluates stored results only: give it with --no-run")
    if not getattr(a, "no_run", False):
        needed = sorted({e for c in claims for e in c.experiments})
        _run([get_experiment(e) for e in needed], a, log)
    skipped = []
    records = evaluate(claims, a.results, missing="skip" if available else "raise", skipped=skipped)
    if skipped:
        lacking = sorted({e for _, es in skipped for e in es})
        log(f"report: {len(skipped)} of {len(claims)} claims left out (no stored result for {', '.join(lacking)}; "
            f"`sgmcmc-verify run <id> --results {a.results}` makes them): " + ", ".join(i for i, _ in skipped))
    if not records:
        raise FileNotFoundError(f"no claim could be evaluated: no stored results under {a.results}")
    if not write:
        return records
    meta = write_report(records, a.results, a.out)
    log(f"report: {meta['counts']} -> {Path(a.out) / 'REPORT.html'}, {Path(a.results) / 'claims.json'}")
    return records


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("sgmcmc-verify")
    except Exception:  # an uninstalled checkout
        return "unknown"


#: The global options: accepted before the subcommand and after it (``sgmcmc-verify run x --debug``).
def _add_globals(p, sub: bool):
    pre = "sub_" if sub else ""
    p.add_argument("--debug", action="store_true", dest=pre + "debug", help="show tracebacks")
    p.add_argument("--data", action="append", default=[], dest=pre + "data", metavar="NAME=PATH",
                   help="a LIBSVM file for data set NAME (e.g. a3a=~/data/a3a), or a directory for an image set "
                        "(mnist=DIR with the IDX files, cifar10=DIR with the python pickles); repeatable")
    p.add_argument("--results", dest=pre + "results", metavar="DIR", default=None,
                   help="the results directory (default: results; baseline: a temporary directory)")


def _merge_globals(a) -> None:
    a.debug = bool(a.debug or getattr(a, "sub_debug", False))
    a.data = list(a.data) + list(getattr(a, "sub_data", []) or [])
    sub = getattr(a, "sub_results", None)
    a.results = sub if sub is not None else a.results
    for k in ("sub_debug", "sub_data", "sub_results"):
        if hasattr(a, k):
            delattr(a, k)
    if a.results is None and a.cmd != "baseline":
        a.results = "results"


def _id_completer(kind):
    """argcomplete completer: experiment ids / claim ids, paper ids and ``all`` (imported only when completing)."""
    def complete(prefix, **_):
        from sgmcmc_verify.store.registry import all_experiments, paper_ids

        ids = ["all", *paper_ids()]
        if kind == "claims":
            from sgmcmc_verify.ledger.claims import all_claims
            ids += [c.id for c in all_claims()]
        else:
            ids += [e.id for e in all_experiments()]
        return [i for i in ids if i.startswith(prefix)]
    return complete


def build_parser():
    p = argparse.ArgumentParser(prog="sgmcmc-verify", description="Theory verification for SG-MCMC papers.",
                                epilog="exit status: 0 success; 1 a finding (baseline out of tolerance, audit flagged, "
                                       "--fail-on met); 2 an error; 130 interrupted; 141 output pipe closed")
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    _add_globals(p, sub=False)
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    def add(name, **kw):
        sp = sub.add_parser(name, **kw)
        _add_globals(sp, sub=True)
        return sp

    def common(sp, out=False):
        sp.add_argument("--scale", default="default", help="smoke | default | paper").completer = \
            lambda **_: list(SCALES)
        sp.add_argument("--n-jobs", type=int, default=1, help="joblib workers (>= 1; -1: every core)")
        sp.add_argument("--backend", default=None, help="joblib backend: " + " | ".join(BACKENDS))
        sp.add_argument("--scheduler", default=None, help="dask scheduler address (default: a LocalCluster)")
        sp.add_argument("--force", action="store_true", help="recompute even if a stored result matches")
        sp.add_argument("--concurrent", type=int, default=1, metavar="K",
                        help="run K experiments at a time, each in its own process with --n-jobs workers (fills the "
                             "cores an experiment leaves idle; the same numbers; experiments that time themselves "
                             "run alone); keep K x N_JOBS <= cores (on 2 cores: --n-jobs 1 --concurrent 2); default 1")
        sp.add_argument("--no-progress", action="store_true")
        if out:
            sp.add_argument("--out", default="figures/out")

    def fail_on(sp):
        sp.add_argument("--fail-on", default=None, metavar="STATUS[,STATUS]",
                        help="exit status 1 when a claim has one of these statuses (e.g. failed or "
                             "failed,inconclusive); default: exit 0 whatever the verdicts")

    def json_flag(sp, what):
        sp.add_argument("--json", action="store_true", help=f"print {what} as JSON on stdout")

    sp = add("list", help="list claims or experiments")
    sp.add_argument("what", choices=("claims", "experiments"))
    sp.add_argument("--paper", default=None)
    json_flag(sp, "the list (one object per claim or experiment)")
    sp = add("run", help="run experiments (an id, a paper id, or 'all')")
    sp.add_argument("target").completer = _id_completer("experiments")
    common(sp)
    sp.add_argument("--seed", type=int, default=None, help="the experiments' root seed (the setting 'seed')")
    sp.add_argument("--keep-chains", action="store_true",
                    help="also store the chains' final states (and kept traces) as ArviZ netCDF files in "
                         "results/<paper>/<id>.chains/ (the 'chains' extra: pip install 'sgmcmc-verify[chains]')")
    sp.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="change a setting of the experiment's settings class (a field; read as its type, e.g. "
                         "realizations=2000 or step_sizes='(0.01, 0.05)'); it enters the cache key; repeatable")
    sp = add("check", help="run what a claim (or every claim of a paper) needs and print the verdicts; "
                           "results/claims.json and the report are left as they are")
    sp.add_argument("target").completer = _id_completer("claims")
    sp.add_argument("--no-run", action="store_true", help="evaluate the stored results as they are (run nothing)")
    common(sp)
    fail_on(sp)
    json_flag(sp, "the verdict records")
    sp = add("figures", help="draw figures from stored results")
    sp.add_argument("paper", nargs="?", default=None)
    sp.add_argument("--out", default="figures/out")
    sp.add_argument("--n-jobs", type=int, default=1,
                    help="draw the papers side by side on N workers (-1: every core; the same files); default 1")
    sp = add("report", help="evaluate claims (running missing experiments) and write the report")
    sp.add_argument("target", nargs="?", default="all").completer = _id_completer("claims")
    sp.add_argument("--no-run", action="store_true",
                    help="evaluate the results stored under --results as they are (no experiment is run)")
    sp.add_argument("--available", action="store_true",
                    help="with --no-run: evaluate only the claims whose experiments are all stored (a partial "
                         "ledger, e.g. a paper-scale run still going on); the others are listed and left out")
    common(sp, out=True)
    fail_on(sp)
    json_flag(sp, "the verdict records (as in claims.json)")
    sp = add("verify", help="run every experiment, draw every figure, write the report")
    common(sp, out=True)
    fail_on(sp)
    sp = add("baseline", help="smoke-scale regression against paper_repro/baselines/")
    g = sp.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true")
    g.add_argument("--refresh", action="store_true")
    sp.add_argument("--n-jobs", type=int, default=1, help="joblib workers (>= 1; -1: every core)")
    sp = add("compare", help="two ledger runs side by side (default vs paper scale): verdicts, changes, "
                             "wall time per experiment -> markdown")
    sp.add_argument("--a", default="results", help="results directory of the reference run (its claims.json)")
    sp.add_argument("--b", default="results/paper", help="results directory of the other run")
    sp.add_argument("--labels", default="default,paper", help="the two column names, comma-separated")
    sp.add_argument("--out", default="docs/paper_scale_report.md")
    sp.add_argument("--title", default="Paper-scale report: every claim at the default and the paper scale")
    sp = add("coverage", help="the coverage table: every checkable item of the texts -> its ledger entries or why "
                              "none (docs/coverage.md)")
    sp.add_argument("--claims", default=None, help="a claims.json whose verdicts to show (default: RESULTS/claims.json "
                                                   "when present)")
    sp.add_argument("--out", default="docs/coverage.md")
    sp.add_argument("--check", action="store_true", help="only check the item lists against the ledger (exit 1 on a "
                                                          "problem)")
    sp = add("audit", help="run the audit battery on a sampler factory (PACKAGE.MODULE:FACTORY, a "
                           "toolkit sampler name, or 'toolkit' for all of them)")
    sp.add_argument("factory", help="a toolkit sampler name, 'toolkit' (every registered sampler), "
                                     "MODULE:FACTORY (the current folder is importable) or path/to/file.py:FACTORY")
    sp.add_argument("--scale", default="default", help="smoke | default")
    sp.add_argument("--name", default=None, help="folder name under results/audit/ (default: the factory's name); "
                                                 "replaced whole by the new audit")
    sp.add_argument("--timeout", type=float, default=1800.0,
                    help="seconds per check (default 1800); a check over it is the finding 'timed out', the rest run; "
                         "0: no limit")
    sp.add_argument("--fail-on", choices=("flagged", "warn", "never"), default="flagged",
                    help="exit 1 when a check is flagged (default), also when one warns (warn; for CI), or never")
    sp.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="a factory keyword argument (a Python literal, e.g. friction=15); repeatable")
    sp.add_argument("--expected-order", default="1", help="weak order the theory gives (a number, or 'none')")
    sp.add_argument("--checks", default=None, help="comma-separated subset of the checks (default: all)")
    sp.add_argument("--n-jobs", type=int, default=1, help="joblib workers (>= 1; -1: every core)")
    sp.add_argument("--out", default="figures/out")
    sp = add("completion", help="print the shell completion script (eval \"$(sgmcmc-verify completion bash)\")")
    sp.add_argument("shell", choices=("bash", "zsh", "fish", "tcsh", "powershell"))
    return p


def _parse_params(items) -> dict:
    """``--param KEY=VALUE`` items → a dict; values are Python literals when they parse as one, else strings."""
    import ast

    out = {}
    for item in items:
        key, sep, val = item.partition("=")
        if not sep or not key.isidentifier():
            raise ValueError(f"--param expects KEY=VALUE with KEY a Python name, got {item!r}")
        try:
            out[key] = ast.literal_eval(val)
        except (ValueError, SyntaxError):
            out[key] = val
    return out


def _audit(a, log) -> int:
    """``sgmcmc-verify audit``: run the battery, draw its page, print the summary table.

    Exit status: 1 when a check is flagged (``--fail-on flagged``, the default) or flagged or warns
    (``--fail-on warn``; ``never``: 0); 2 on a bad argument or a sampler that does not follow the protocol.
    """
    from sgmcmc_verify.audit import CHECKS, audit, toolkit_audit
    from sgmcmc_verify.store.registry import figure_modules

    fig = figure_modules()["audit"]   # figures are found at run time, as `figures` does

    if a.scale not in ("smoke", "default"):
        raise ValueError(f"audit scale must be smoke or default, got {a.scale!r}")
    if a.timeout < 0:
        raise ValueError(f"--timeout must be >= 0 seconds (0: no limit), got {a.timeout:g}")
    timeout = a.timeout or None
    order = None if a.expected_order.lower() == "none" else float(a.expected_order)
    params = _parse_params(a.param)
    jobs_all = toolkit_audit()           # every registered sampler, derived from the registry
    if a.factory == "toolkit":
        if a.name or params:
            raise ValueError("'audit toolkit' takes no --name or --param (each sampler uses its toolkit_audit() entry)")
        jobs = [(nm, nm, p, o) for nm, (p, o) in jobs_all.items()]
    elif a.factory in jobs_all and not params:
        p, o = jobs_all[a.factory]
        jobs = [(a.factory, a.name or a.factory, p, o if a.expected_order == "1" else order)]
    else:
        jobs = [(a.factory, a.name, params, order)]

    checks = CHECKS if a.checks is None else tuple(c.strip() for c in a.checks.split(",") if c.strip())
    bad = {"flagged": ("flagged",), "warn": ("flagged", "warn"), "never": ()}[a.fail_on]
    fail = False
    for spec, name, p, o in jobs:
        rep = audit(spec, p, scale=a.scale, name=name, expected_order=o, results=a.results, n_jobs=a.n_jobs, log=log,
                    checks=checks, timeout=timeout)
        fig.draw_sampler(Path(rep["path"]), Path(a.out) / "audit" / rep["name"])
        print(f"== audit {rep['name']} ({a.scale}, {rep['total_seconds']:.0f} s): {rep['path']}")
        for r in rep["rows"]:
            print(f"  {r['status']:12s} {r['check']:28s} {r['measured']}")
            print(f"  {'':12s} {r['detail']}")
        fail = fail or any(r["status"] in bad for r in rep["rows"])
    fig.draw_all(Path(a.results) / "audit", Path(a.out) / "audit")   # the listing of every audited sampler
    return 1 if fail else 0


def _n_jobs(n: int) -> int:
    """``--n-jobs``: a positive integer, or -1 for every CPU core (resolved here, so manifests record the number)."""
    if n == -1:
        import joblib

        return int(joblib.cpu_count())
    if n < 1:
        raise ValueError(f"--n-jobs must be a positive integer or -1 (every core), got {n}")
    return n


def _warn_ignored_options(a, argv, log) -> None:
    """Warn about options that the command line gives but that have no effect (#28): ``--scale`` with ``--no-run``
    (stored results are evaluated at the scale they were run), ``--scheduler`` without ``--backend dask``."""
    given = {t.split("=", 1)[0] for t in (sys.argv[1:] if argv is None else argv) if t.startswith("--")}
    if getattr(a, "no_run", False) and "--scale" in given:
        log(f"warning: --scale {a.scale} has no effect with --no-run: the stored results are evaluated at the scale "
            "they were run at (each record names it)")
    if getattr(a, "scheduler", None) and getattr(a, "backend", None) != "dask":
        log(f"warning: --scheduler {a.scheduler} has no effect without --backend dask; ignored")


def _log(msg: str) -> None:
    print(msg, file=sys.stderr)


def _fail_on(a, records) -> int:
    """1 when ``--fail-on`` names a status some record has, else 0 (statuses checked against the ledger's)."""
    spec = getattr(a, "fail_on", None)
    if not spec:
        return 0
    from sgmcmc_verify.ledger.verdict import STATUSES

    wanted = [x.strip() for x in spec.split(",") if x.strip()]
    bad = [x for x in wanted if x not in STATUSES]
    if bad or not wanted:
        raise ValueError(f"--fail-on: unknown status {', '.join(bad) or repr(spec)}; choose from {', '.join(STATUSES)}")
    hit = [r["id"] for r in records if r["status"] in wanted]
    if hit:
        _log(f"--fail-on {spec}: {len(hit)} claim(s): " + ", ".join(hit[:10]) + (" ..." if len(hit) > 10 else ""))
    return 1 if hit else 0


def _print_json(obj) -> None:
    print(json.dumps(obj, indent=1, ensure_ascii=False, default=str))


def _list(a) -> None:
    if a.what == "claims":
        cs = _claims_for(a.paper or "all")
        if a.json:
            _print_json([{"id": c.id, "paper": c.paper, "source": c.source, "statement": c.statement,
                          "experiments": list(c.experiments), "figure": c.figure, "about": c.about,
                          "declared": c.declared} for c in cs])
        else:
            for c in cs:
                print(f"{c.id:45s} {c.source}")
        return
    from sgmcmc_verify.store.registry import all_experiments
    es = [e for e in all_experiments() if a.paper in (None, e.paper)]
    if a.json:
        _print_json([{"id": e.id, "paper": e.paper, "description": e.description, "outputs": list(e.outputs),
                      "settings": {sc: e.settings.at(sc).key_fields() for sc in SCALES}} for e in es])
    else:
        for e in es:
            print(f"{e.id:20s} {e.description}")


def _completion(shell: str) -> None:
    try:
        import argcomplete
    except ImportError as e:
        raise RuntimeError("shell completion needs argcomplete: pip install argcomplete") from e
    print(argcomplete.shellcode(["sgmcmc-verify"], shell=shell))


def main(argv=None) -> int:
    p = build_parser()
    if argv is None:   # a shell asking for completions (_ARGCOMPLETE set): answer and exit; otherwise a no-op
        with contextlib.suppress(ImportError):
            import argcomplete

            argcomplete.autocomplete(p)
    a = p.parse_args(argv)
    _merge_globals(a)
    log = _log
    try:
        _warn_ignored_options(a, argv, log)
        code = _main(a, log)
        sys.stdout.flush()   # a closed pipe shows here, inside the handler, not at interpreter exit
        return code
    except BrokenPipeError:
        # `sgmcmc-verify list claims | head -1`: the reader is gone; stop quietly (128 + SIGPIPE, as a C tool would)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        print("interrupted; finished experiments are stored and will be reused", file=sys.stderr)
        return 130
    except Exception as e:  # one readable line unless --debug
        if a.debug:
            raise
        msg = e.args[0] if isinstance(e, KeyError) and e.args else e
        print(f"sgmcmc-verify: error: {msg}", file=sys.stderr)
        return 2


def _main(a, log) -> int:
    """The subcommand ``a.cmd``; its exit status (errors propagate to :func:`main`)."""
    if hasattr(a, "scale") and a.scale not in SCALES:
        raise ValueError(f"unknown scale {a.scale!r}; choose one of {', '.join(SCALES)}")
    if hasattr(a, "n_jobs"):
        a.n_jobs = _n_jobs(a.n_jobs)
    if getattr(a, "backend", None) is not None and a.backend not in BACKENDS:
        raise ValueError(f"unknown backend {a.backend!r}; choose one of {', '.join(BACKENDS)}")
    for spec in a.data:
        from sgmcmc_verify.targets.datasets import set_data_path
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise ValueError(f"--data expects NAME=PATH, got {spec!r}")
        set_data_path(name, path)
    if a.cmd == "completion":
        _completion(a.shell)
    elif a.cmd == "list":
        _list(a)
    elif a.cmd == "coverage":
        from sgmcmc_verify.ledger.claims import all_claims, load_all
        from sgmcmc_verify.ledger.coverage import check_items, coverage_rows, load_items, render_markdown
        load_all()
        items = load_items()
        problems = check_items(items, {c.id: c.paper for c in all_claims()})
        for p in problems:
            print(p)
        if a.check:
            return 1 if problems else 0
        cj = Path(a.claims) if a.claims else Path(a.results) / "claims.json"
        note = f"verdicts from {cj}" if cj.is_file() else "no claims.json: entries without verdicts"
        Path(a.out).write_text(render_markdown(coverage_rows(items, cj), note) + "\n", encoding="utf-8")
        log(f"coverage: {a.out} ({sum(len(v) for v in items.values())} items)")
    elif a.cmd == "compare":
        from sgmcmc_verify.ledger.compare import write_comparison
        labels = tuple(x.strip() for x in a.labels.split(","))
        a_dir, b_dir = Path(a.a), Path(a.b)
        def _scale(d, label):
            """The scale a ledger records (its meta ``scales`` / ``scale``), else the label (``default``, ``paper``)."""
            try:
                meta = json.loads((d / "claims.json").read_text()).get("meta", {})
            except (OSError, ValueError):
                meta = {}
            sc = meta.get("scales") or ([meta["scale"]] if meta.get("scale") else None)
            return ",".join(sc) if sc else label

        cmds = tuple(f"sgmcmc-verify verify --scale {_scale(d, lab)} --results {d} (or the same experiments one by one)"
                     for d, lab in ((a_dir, labels[0]), (b_dir, labels[-1]))) if len(labels) == 2 else ("", "")
        out = write_comparison(a.out, a_dir / "claims.json", b_dir / "claims.json", a_dir, b_dir, labels=labels,
                               commands=cmds, title=a.title)
        log(f"compare: {out}")
    elif a.cmd == "run":
        for m in _run(_select_experiments(a.target), a, log, overrides=_overrides(a)):
            print(f"{m['id']}: {'reused' if m['cached'] else 'computed'} ({m['key']})")
            if a.keep_chains:
                ch = m.get("chains") or {}
                where = Path(a.results) / m["paper"] / f"{m['id']}.chains"
                print(f"    chains: {len(ch)} InferenceData files in {where}" if ch else
                      "    chains: none (this experiment runs no chains through the runner: exact recursions "
                      "or closed forms)")
    elif a.cmd == "check":
        from sgmcmc_verify.ledger.report import sort_records
        _fail_on(a, [])   # a bad --fail-on is an error before anything runs
        recs = sort_records(_report(a, log, write=False))
        if a.json:
            _print_json(recs)
        for rec in ([] if a.json else recs):
            print(f"{rec['id']}: {rec['label']} — {rec['line']}")
            if rec.get("decide_by") and rec["status"] not in ("held", "failed", "depends"):
                print(f"    to decide: {rec['decide_by']['text']}")
        return _fail_on(a, recs)
    elif a.cmd == "figures":
        _figures(a.paper, a.results, a.out, log, n_jobs=a.n_jobs)
    elif a.cmd == "report":
        _fail_on(a, [])
        recs = _report(a, log)
        if a.json:
            _print_json(recs)
        else:
            for r in recs:
                print(f"{r['status']:13s} {r['id']}")
        return _fail_on(a, recs)
    elif a.cmd == "verify":
        _fail_on(a, [])
        _run(_select_experiments("all"), a, log)
        _figures(None, a.results, a.out, log, n_jobs=a.n_jobs)
        a.target = "all"
        recs = _report(a, log)
        for r in recs:
            print(f"{r['status']:13s} {r['id']}")
        return _fail_on(a, recs)
    elif a.cmd == "audit":
        return _audit(a, log)
    elif a.cmd == "baseline":
        from sgmcmc_verify.ledger.baseline import check, refresh
        if a.refresh:
            path = refresh(a.results, a.n_jobs, log)
            print(f"baselines written: {path}")
        else:
            problems = check(a.results, a.n_jobs, log)
            if problems:
                print("\n".join(problems), file=sys.stderr)
                return 1
            print("baselines: every number within its tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
