"""The audit battery: run the checks on one sampler factory and store the numbers.

``audit(factory, params=..., scale=..., name=...)`` probes the protocol (:mod:`~sgmcmc_verify.audit.protocol`),
then runs the checks (:data:`CHECKS`: :mod:`~sgmcmc_verify.audit.consistency` on two targets,
:mod:`~sgmcmc_verify.audit.mixing`, :mod:`~sgmcmc_verify.audit.sg_noise`, :mod:`~sgmcmc_verify.audit.time_average`,
:mod:`~sgmcmc_verify.audit.multimodal`, :mod:`~sgmcmc_verify.audit.stability`, :mod:`~sgmcmc_verify.audit.cost`),
each under its time limit (:func:`run_check`: a timeout, a divergence, an exception of the audited code or
non-finite numbers are a ``flagged`` finding of that check, and the others still run), and writes
``results/audit/<name>/`` — replaced whole when it is complete: ``summary.json`` (the one-screen table rows
``{check, measured, expected, status, detail}``, the settings, the seed, the factory, its parameters and the
package versions), ``summary.csv``, and one ``<check>.json`` with the numbers behind each row. Drawing
(``figures/audit.py``) reads these files only, through its ``read_summaries`` (which skips a corrupt one).
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import shutil
import signal
import sys
import threading
import time
import traceback
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from ..store.cache import git_commit, package_versions
from ..store.io import write_csv, write_json
import numpy as np

from ..targets.gaussian import gaussian_means_target
from .common import CheckResult
from .consistency import consistency_check
from .mixing import mixing_check
from .protocol import ProtocolError, factory_name, probe
from .cost import cost_check
from .multimodal import multimodality_check
from .settings import AuditSettings
from .sg_noise import sg_sensitivity_check
from .stability import stability_check
from .time_average import time_average_check

__all__ = ["audit", "load_factory", "CHECKS", "AuditReport", "CheckTimeout", "time_limit", "run_check",
           "LABELS"]

#: check id → file stem of its numbers.
CHECKS = ("consistency_gaussian", "consistency_anisotropic", "mixing", "sg_sensitivity", "time_average",
          "multimodality", "stability", "cost")


class AuditReport(dict):
    """The summary written to ``summary.json``: ``rows`` (list of dicts), ``flagged`` (list of check names),
    ``settings``, ``seconds`` (per check), ``path`` (the results folder)."""

    @property
    def flagged(self) -> list:
        return [r["check"] for r in self["rows"] if r["status"] == "flagged"]


def _import_from_cwd(mod: str):
    """``import mod``; if it is not importable, with the current folder appended to ``sys.path`` (appended,
    so that it shadows nothing installed). A module found only there is pickled by value for joblib workers."""
    try:
        return importlib.import_module(mod)
    except ModuleNotFoundError as e:
        cwd = os.getcwd()
        if cwd in sys.path or "" in sys.path or not (e.name and mod.split(".")[0] == e.name.split(".")[0]):
            raise
        sys.path.append(cwd)
        m = importlib.import_module(mod)
        _by_value(m)
        return m


def _by_value(module) -> None:
    """Let joblib's workers unpickle functions of ``module`` without importing it (cloudpickle by value)."""
    try:
        import cloudpickle
        cloudpickle.register_pickle_by_value(module)
    except (ImportError, ValueError, AttributeError):  # joblib vendors its own copy; n_jobs=1 needs neither
        try:
            from joblib.externals import cloudpickle
            cloudpickle.register_pickle_by_value(module)
        except (ImportError, ValueError, AttributeError):
            pass


def _import_file(path: str):
    """The module of the Python file ``path`` (imported under a name derived from its resolved path)."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise ValueError(f"factory file {path!r} does not exist")
    p = p.resolve()
    name = "_sgmcmc_audit_" + hashlib.sha1(str(p).encode()).hexdigest()[:12] + "_" + "".join(
        c if c.isalnum() else "_" for c in p.stem)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise ValueError(f"factory file {path!r} is not a Python module")
    m = importlib.util.module_from_spec(spec)
    sys.modules[name] = m
    try:
        spec.loader.exec_module(m)
    except Exception as e:
        del sys.modules[name]
        raise ValueError(f"factory file {path!r} does not import: {type(e).__name__}: {e}") from e
    _by_value(m)
    return m


def load_factory(spec: str) -> Callable:
    """The factory named by ``spec``.

    ``spec`` is one of: a toolkit sampler name (``"SGLD"``, a key of :data:`sgmcmc_verify.samplers.SAMPLERS`);
    ``"package.module:factory"`` (the current folder is importable: it is appended to ``sys.path`` when the
    module is not found otherwise, so no ``PYTHONPATH`` is needed); or ``"path/to/file.py:factory"`` (a file
    anywhere, imported by path). ``factory`` may be dotted (``module:Class.method``).

    Raises
    ------
    ValueError
        Not one of these forms, a module or file that does not import (with the reason), a missing
        attribute, or a non-callable (each named).
    """
    from ..samplers import SAMPLERS

    if ":" not in spec:
        if spec in SAMPLERS:
            return SAMPLERS[spec]
        raise ValueError(f"factory must be 'package.module:factory', 'path/to/file.py:factory' or one of "
                         f"{', '.join(SAMPLERS)}; got {spec!r}")
    mod, _, attr = spec.rpartition(":")
    if not mod or not attr:
        raise ValueError(f"factory {spec!r}: expected MODULE:FACTORY or FILE.py:FACTORY")
    if mod.endswith(".py") or os.sep in mod or "/" in mod:
        m = _import_file(mod)
    else:
        try:
            m = _import_from_cwd(mod)
        except ImportError as e:
            raise ValueError(f"factory module {mod!r} does not import: {e}") from e
        except Exception as e:
            raise ValueError(f"factory module {mod!r} does not import: {type(e).__name__}: {e}") from e
    f = m
    for part in attr.split("."):
        f = getattr(f, part, None)
    if not callable(f):
        raise ValueError(f"factory {spec!r}: {mod} has no callable {attr!r}")
    return f


class CheckTimeout(Exception):
    """A check ran past its time limit (``timeout``)."""


@contextmanager
def time_limit(seconds: float | None):
    """Raise :class:`CheckTimeout` in the block after ``seconds`` of wall time (``None``: no limit).

    A ``SIGALRM`` interval timer: it interrupts Python code and sleeps (a ``time.sleep`` in a factory or a
    step), not a single long call into compiled code, which is interrupted when it returns. It needs
    the main thread of a POSIX process; elsewhere the limit is not enforced and a ``RuntimeWarning`` says so.
    """
    if seconds is None:
        yield
        return
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        warnings.warn("the audit's time limit needs SIGALRM in the main thread: not enforced here", RuntimeWarning,
                      stacklevel=3)
        yield
        return

    def _alarm(signum, frame):
        raise CheckTimeout(seconds)

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, float(seconds))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


#: check id → the row label used when a check produces no result of its own (timed out, diverged, raised)
LABELS = {"consistency_gaussian": "consistency (Gaussian §5.1)", "consistency_anisotropic": "consistency (anisotropic)",
          "mixing": "mixing (displaced start)", "sg_sensitivity": "SG sensitivity (b)",
          "time_average": "time-average MSE", "multimodality": "multimodality (mixture)",
          "stability": "stability (stiff Gaussian)", "cost": "cost vs n"}

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,99}")


def _where(e: BaseException) -> str:
    tb = traceback.extract_tb(e.__traceback__)
    return f" (at {Path(tb[-1].filename).name}:{tb[-1].lineno})" if tb else ""


def _nonfinite(obj, path="") -> tuple[object, list]:
    """``obj`` with every non-finite float replaced by ``None``, and the keys where that happened."""
    if isinstance(obj, dict):
        out, bad = {}, []
        for k, v in obj.items():
            out[k], b = _nonfinite(v, f"{path}.{k}" if path else str(k))
            bad += b
        return out, bad
    if isinstance(obj, (list, tuple)):
        out, bad = [], []
        for i, v in enumerate(obj):
            o, b = _nonfinite(v, f"{path}[{i}]")
            out.append(o)
            bad += b
        return out, bad
    if isinstance(obj, np.ndarray):
        return _nonfinite(obj.tolist(), path)
    if isinstance(obj, (float, np.floating)) and not np.isfinite(obj):
        return None, [path]
    return obj, []


def run_check(check: str, fn: Callable[[], CheckResult], timeout: float | None) -> CheckResult:
    """``fn()`` under the time limit; a timeout, a divergence or an exception of the audited code is a
    finding of this check (``flagged``), and non-finite numbers in its result are one too.

    Raises
    ------
    ProtocolError
        Passed through: a sampler that does not follow the protocol cannot be audited at all.
    """
    label = LABELS.get(check, check)
    try:
        with time_limit(timeout):
            res = fn()
    except ProtocolError:
        raise
    except CheckTimeout:
        return CheckResult(label, "timed out", "—", "flagged",
                           f"did not finish within the time limit of {timeout:g} s (--timeout): timed out "
                           "(a factory or step that hangs, or a limit too short for this scale)", {"timeout": timeout})
    except FloatingPointError as e:          # DivergenceError, or numpy's errstate(raise) in the sampler
        return CheckResult(label, "diverged", "—", "flagged", f"diverged: {e}{_where(e)}: flagged",
                           {"error": type(e).__name__, "message": str(e)})
    except Exception as e:  # noqa: BLE001 - the audited code may raise anything: a finding, with its place
        return CheckResult(label, f"raised {type(e).__name__}", "—", "flagged",
                           f"the sampler raised {type(e).__name__}: {e}{_where(e)}: flagged",
                           {"error": type(e).__name__, "message": str(e)})
    data, bad = _nonfinite(res.data)
    res.data = data
    if bad or "nan" in res.measured.lower().split():
        res.status = "flagged"
        res.detail += (f"; non-finite numbers in the result ({', '.join(bad[:5])}{' …' if len(bad) > 5 else ''}): "
                       "flagged")
        res.data["non_finite"] = bad
    return res


def _replace_dir(tmp: Path, out: Path) -> None:
    """Put the finished folder ``tmp`` in place of ``out`` (whatever ``out`` held is removed whole)."""
    old = None
    if out.exists() or out.is_symlink():
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        if old.exists():
            shutil.rmtree(old)
        os.replace(out, old)
    os.replace(tmp, out)
    if old is not None:
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink()


def audit(factory, params: dict | None = None, *, scale: str = "default", name: str | None = None,
          expected_order: float | None = 1.0, results: str | Path = "results", n_jobs: int = 1,
          checks=CHECKS, log=None, timeout: float | None = None, settings: AuditSettings | None = None) -> AuditReport:
    """Run the audit battery on a sampler factory and write ``results/audit/<name>/``.

    Parameters
    ----------
    factory : callable or str
        ``factory(target, step_size, **params)`` building a sampler of the protocol
        :class:`~sgmcmc_verify.audit.protocol.AuditedSampler`, or a spec for :func:`load_factory`
        (``"SGLD"``, ``"sgmcmc_verify.samplers:sgld"``, ``"mysampler.py:factory"``).
    params : dict, optional
        Keyword arguments of the factory other than the step size (e.g. ``friction``).
    scale : {"smoke", "default"}
    name : str, optional
        Folder name under ``results/audit/`` (letters, digits, ``. _ + -``); default: the factory's name.
        The folder is replaced whole when the audit ends (nothing of an earlier audit of that name stays).
    expected_order : float or None, default 1
        The weak order the theory gives for the stationary covariance (1 for every Euler–Maruyama
        type scheme and for the exponential integrator with a stochastic gradient); ``None`` reports
        the order without a verdict on it.
    results : path, default "results"
    n_jobs : int, default 1
        joblib workers over blocks of realizations (the numbers do not depend on it).
    checks : iterable of str
        A subset of :data:`CHECKS`.
    log : callable(str) or None
    timeout : float or None
        Seconds of wall time per check (and for the protocol probe); a check over it is the finding
        "timed out" and the others still run. ``None``: no limit.
    settings : AuditSettings, optional
        Settings to use instead of ``AuditSettings.at(scale)`` (``scale`` is then only recorded).

    Returns
    -------
    AuditReport

    Raises
    ------
    ValueError
        Unknown scale or check, a bad name, a bad factory spec, or a non-positive timeout.
    sgmcmc_verify.audit.protocol.ProtocolError
        The factory or its sampler does not follow the protocol (one line naming the factory and what is
        wrong); nothing is written.
    """
    s = settings if settings is not None else AuditSettings.at(scale)
    spec = factory_name(factory)
    if isinstance(factory, str):
        factory = load_factory(factory)
    params = dict(params or {})
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        raise ValueError(f"checks must be among {', '.join(CHECKS)}; got {unknown}")
    if timeout is not None and not (float(timeout) > 0):
        raise ValueError(f"timeout must be > 0 seconds (or None), got {timeout!r}")
    name = name or getattr(factory, "__name__", "sampler")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"name must be a plain folder name (letters, digits, '. _ + -', not starting with '.'), "
                         f"got {name!r}")
    root = Path(results) / "audit"
    out = root / name
    tmp = root / f".{name}.partial-{os.getpid()}"
    runners = {
        "consistency_gaussian": lambda: consistency_check(factory, params, s, name=LABELS["consistency_gaussian"],
                                                          expected_order=expected_order, n_jobs=n_jobs),
        "consistency_anisotropic": lambda: consistency_check(factory, params, s, name=LABELS["consistency_anisotropic"],
                                                             anisotropic=True, expected_order=expected_order,
                                                             n_jobs=n_jobs),
        "mixing": lambda: mixing_check(factory, params, s, n_jobs=n_jobs),
        "sg_sensitivity": lambda: sg_sensitivity_check(factory, params, s, n_jobs=n_jobs),
        "time_average": lambda: time_average_check(factory, params, s, n_jobs=n_jobs),
        "multimodality": lambda: multimodality_check(factory, params, s, n_jobs=n_jobs),
        "stability": lambda: stability_check(factory, params, s),
        "cost": lambda: cost_check(factory, params, s),
    }
    # the protocol once, before any check: a violation is one line naming the factory, in a second
    t = gaussian_means_target(s.gaussian_n)
    probe_hung = None
    try:
        with time_limit(timeout):
            probe(factory, params, t, 0.01 / t.n, name=spec)
    except CheckTimeout:
        probe_hung = CheckTimeout(timeout)
    except FloatingPointError:
        pass                                  # non-finite already: each check reports its own divergence
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    rows, seconds = [], {}
    try:
        for c in checks:
            t0 = time.perf_counter()
            if probe_hung is not None:
                res = CheckResult(LABELS[c], "timed out", "—", "flagged",
                                  f"not run: the protocol probe (build, init, 2 steps) did not finish within {timeout:g} s "
                                  "(--timeout): timed out", {"timeout": timeout})
            else:
                res = run_check(c, runners[c], timeout)
            seconds[c] = time.perf_counter() - t0
            if log:
                log(f"audit {name}: {c} {res.status} ({seconds[c]:.1f} s)")
            write_json(tmp / f"{c}.json", {"check": c, **res.row(), "data": res.data, "seconds": seconds[c]})
            rows.append({"id": c, **res.row()})
        report = AuditReport(name=name, factory=spec, params={k: repr(v) for k, v in params.items()}, scale=scale,
                             settings=s.as_dict(), seed=s.seed, expected_order=expected_order, rows=rows,
                             seconds=seconds, total_seconds=float(sum(seconds.values())), versions=package_versions(),
                             git_commit=git_commit(), timeout=timeout, path=str(out))
        report["flagged"] = report.flagged
        write_json(tmp / "summary.json", dict(report))
        write_csv(tmp / "summary.csv", rows)
        _replace_dir(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return report
