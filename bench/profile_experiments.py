"""Where the heavy experiments of `make figures` spend their time (#26 item 1), and their CPU time per checkout.

Three modes, each over a list of experiment ids (default: :data:`HEAVY`, the ten that took ~60 % of the default
`make figures` in docs/benchmarks.md) at one scale (default ``smoke``: the reduced scale every experiment
defines, the same code paths with fewer realizations / steps):

``--scale mid`` runs each experiment between its smoke and default settings (:func:`mid_settings`), outside
the result store (no manifest, no fingerprint).

``--profile``
    cProfile with the process CPU clock (``time.process_time``: on a loaded machine the wall clock counts the
    other processes' time too), ``n_jobs = 1``, then the time split into buckets by the file of the function
    that spent it; the time of a C function (a NumPy ufunc, ``take``, a BLAS product) is charged to the file
    that called it. Buckets: :data:`BUCKETS`.
``--cpu``
    CPU seconds of each experiment (``n_jobs = 1``, best of ``--repeats``), printed as JSON: run it with two
    checkouts' interpreters (e.g. main's and this branch's ``.venv/bin/python``), interleaved, and divide.
``--idle``
    ``n_jobs`` workers (default 2): wall time and the workers' idle fraction inside the parallel sections
    (:class:`sgmcmc_verify.runner.record_tasks`).

Usage::

    python bench/profile_experiments.py --profile [--scale smoke] [ids ...]
    python bench/profile_experiments.py --cpu --repeats 2 > cpu.json
    python bench/profile_experiments.py --idle --n-jobs 2
"""
from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import tempfile
import time

HEAVY = ("vrsg.mlp", "ewsg_iclr.fig1ghi", "ewsg.fig1def", "ewsg.table1", "ls_sgld.table2", "ewsg_iclr.fig1jkl",
         "vrsg.identities", "ewsg.fig1c_repeat", "ewsg.thm42", "ewsg.fig5")

#: (bucket, substrings of a file path); the first match wins. A function outside these (NumPy's and SciPy's Python
#: layers, a ufunc, ``take``, a BLAS product) is charged to its callers, recursively, up to one that matches
BUCKETS = (
    ("MLP / BLAS targets (matrix products)", ("targets/mlp.py", "targets/logistic.py", "targets/covtype.py")),
    ("integrator step (incl. its RNG draws)", ("verify/integrators/",)),
    ("gradient estimator", ("verify/estimators/",)),
    ("target gradients", ("verify/targets/",)),
    ("runner loop, records, time averages", ("verify/runner.py",)),
    ("transport solves (W2, POT)", ("measure/transport.py", "site-packages/ot/")),
    ("other measures (KL, rates, metrics)", ("verify/measure/", "/analytic/", "verify/ledger/")),
    ("experiment code (observers, post-processing)", ("/paper_repro/",)),
    ("result store, code fingerprint, JSON/CSV", ("verify/store/", "/ast.py", "/inspect.py", "/tokenize.py")),
    ("joblib dispatch, pickling", ("site-packages/joblib/", "loky", "pickle")),
    ("imports", ("<frozen importlib", "importlib/")),
    ("sympy (symbolic algebra)", ("site-packages/sympy/",)),
)
OTHER = "other (interpreter, unattributed)"


def _own_bucket(filename: str) -> str | None:
    for name, keys in BUCKETS:
        if any(k in filename for k in keys):
            return name
    return None


def split_by_bucket(stats: pstats.Stats) -> dict:
    """Seconds per bucket; a function in no bucket is charged to its callers in the proportions of the time it
    spent under each (recursively; a cycle or a function without callers goes to :data:`OTHER`)."""
    memo: dict = {}

    def weights(func, depth=0):
        if func in memo:
            return memo[func]
        own = _own_bucket(func[0]) if func[0] != "~" else None
        if own is not None:
            w = {own: 1.0}
        else:
            callers = stats.stats[func][4] if func in stats.stats else {}
            total = sum(v[2] for v in callers.values())
            if depth > 40 or not callers or total <= 0:
                w = {OTHER: 1.0}
            else:
                memo[func] = {OTHER: 1.0}  # cycle guard
                w = {}
                for caller, v in callers.items():
                    for b, x in weights(caller, depth + 1).items():
                        w[b] = w.get(b, 0.0) + x * v[2] / total
        memo[func] = w
        return w

    out: dict[str, float] = {}
    for func, (_cc, _nc, tt, _ct, _callers) in stats.stats.items():
        for b, x in weights(func).items():
            out[b] = out.get(b, 0.0) + tt * x
    return out


def mid_settings(exp):
    """Settings between smoke and default: every integer field the smoke scale reduces at the geometric mean of
    its two values (realizations, steps, passes counted in steps ...), every other field at its smoke value.

    The per-step arithmetic (chains per block, dimension, batch sizes the smoke scale keeps) is the default
    scale's where the smoke scale does not change it, and the run is ~10× shorter than the default one."""
    import dataclasses
    import math
    smoke, default = exp.settings.at("smoke"), exp.settings.at("default")
    kw = {}
    for f in dataclasses.fields(default):
        a, b = getattr(smoke, f.name), getattr(default, f.name)
        if (f.name != "scale" and isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool)
                and 0 < a < b):
            kw[f.name] = int(round(math.sqrt(a * b)))
    return dataclasses.replace(smoke, **kw)


def _run(exp_id, scale, n_jobs, root):
    from sgmcmc_verify.store.cache import run_experiment
    if scale != "mid":
        return run_experiment(exp_id, scale, results_root=root, n_jobs=n_jobs, force=True, log=lambda *_: None)
    from pathlib import Path

    from sgmcmc_verify.store.registry import get_experiment
    exp = get_experiment(exp_id)
    out = Path(root) / exp_id
    out.mkdir(parents=True)
    return exp.run(mid_settings(exp), out, n_jobs, None, None)


def profile(ids, scale):
    from sgmcmc_verify.store.registry import load_all_experiments
    load_all_experiments()  # every paper module imported once, outside the profiles
    rows = {}
    for e in ids:
        with tempfile.TemporaryDirectory() as root:
            pr = cProfile.Profile(time.process_time)
            pr.enable()
            _run(e, scale, 1, root)
            pr.disable()
        st = pstats.Stats(pr)
        rows[e] = {"total_cpu_s": st.total_tt, "buckets": split_by_bucket(st)}
        b = sorted(rows[e]["buckets"].items(), key=lambda kv: -kv[1])
        print(f"\n## {e} ({scale}, n_jobs 1): {st.total_tt:.1f} CPU s under cProfile", flush=True)
        for name, sec in b:
            if sec >= 0.005 * st.total_tt:
                print(f"  {100 * sec / st.total_tt:5.1f} %  {name}")
    return rows


def cpu(ids, scale, repeats):
    out = {}
    for e in ids:
        best = None
        for _ in range(repeats):
            with tempfile.TemporaryDirectory() as root:
                t0 = time.process_time()
                _run(e, scale, 1, root)
                dt = time.process_time() - t0
            best = dt if best is None else min(best, dt)
        out[e] = best
        print(f"# {e}: {best:.2f} CPU s", file=sys.stderr, flush=True)
    return out


def idle(ids, scale, n_jobs):
    from sgmcmc_verify.runner import record_tasks
    out = {}
    for e in ids:
        with tempfile.TemporaryDirectory() as root, record_tasks() as log:
            t0 = time.perf_counter()
            _run(e, scale, n_jobs, root)
            wall = time.perf_counter() - t0
        s = log.summary()
        s["wall_s"] = wall
        out[e] = s
        idle_f = "—" if s["idle_fraction"] is None else f"{s['idle_fraction']:.2f}"
        print(f"{e:22s} wall {wall:7.1f} s  parallel span {s['span_s']:7.1f} s  tasks {s['tasks']:4d}  "
              f"idle fraction {idle_f}", flush=True)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--profile", action="store_true")
    g.add_argument("--cpu", action="store_true")
    g.add_argument("--idle", action="store_true")
    p.add_argument("--scale", default="smoke")
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--json", default=None, help="also write the numbers here")
    p.add_argument("ids", nargs="*")
    a = p.parse_args(argv)
    ids = a.ids or list(HEAVY)
    if a.profile:
        res = profile(ids, a.scale)
    elif a.cpu:
        res = cpu(ids, a.scale, a.repeats)
        print(json.dumps(res, indent=1))
    else:
        res = idle(ids, a.scale, a.n_jobs)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
