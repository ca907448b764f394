"""The audit battery: run the six checks on one sampler factory and store the numbers.

``audit(factory, params=..., scale=..., name=...)`` runs checks 1–6 (:mod:`~sgmcmc_verify.audit.consistency`,
:mod:`~sgmcmc_verify.audit.sg_noise`, :mod:`~sgmcmc_verify.audit.time_average`, :mod:`~sgmcmc_verify.audit.multimodal`,
:mod:`~sgmcmc_verify.audit.stability`, :mod:`~sgmcmc_verify.audit.cost`) and writes ``results/audit/<name>/``:
``summary.json`` (the one-screen table rows ``{check, measured, expected, status, detail}``, the
settings, the seed, the factory, its parameters and the package versions), ``summary.csv``, and one
``<check>.json`` with the numbers behind each row. Drawing (``figures/audit.py``) reads these files only.
"""
from __future__ import annotations

import importlib
import time
from pathlib import Path
from typing import Callable

from ..store.cache import git_commit, package_versions
from ..store.io import write_csv, write_json
from .consistency import consistency_check
from .cost import cost_check
from .multimodal import multimodality_check
from .settings import AuditSettings
from .sg_noise import sg_sensitivity_check
from .stability import stability_check
from .time_average import time_average_check

__all__ = ["audit", "load_factory", "CHECKS", "AuditReport"]

#: check id → file stem of its numbers.
CHECKS = ("consistency_gaussian", "consistency_anisotropic", "sg_sensitivity", "time_average", "multimodality",
          "stability", "cost")


class AuditReport(dict):
    """The summary written to ``summary.json``: ``rows`` (list of dicts), ``flagged`` (list of check names),
    ``settings``, ``seconds`` (per check), ``path`` (the results folder)."""

    @property
    def flagged(self) -> list:
        return [r["check"] for r in self["rows"] if r["status"] == "flagged"]


def load_factory(spec: str) -> Callable:
    """The factory named by ``"package.module:factory"``, or a toolkit sampler name (``"SGLD"``).

    Raises
    ------
    ValueError
        Not ``module:attribute``, a module that does not import, a missing attribute, or a
        non-callable (each named).
    """
    from ..samplers import SAMPLERS

    if ":" not in spec:
        if spec in SAMPLERS:
            return SAMPLERS[spec]
        raise ValueError(f"factory must be 'package.module:factory' or one of {', '.join(SAMPLERS)}; got {spec!r}")
    mod, _, attr = spec.partition(":")
    try:
        m = importlib.import_module(mod)
    except ImportError as e:
        raise ValueError(f"factory module {mod!r} does not import: {e}") from e
    f = getattr(m, attr, None)
    if not callable(f):
        raise ValueError(f"factory {spec!r}: {mod} has no callable {attr!r}")
    return f


def audit(factory, params: dict | None = None, *, scale: str = "default", name: str | None = None,
          expected_order: float | None = 1.0, results: str | Path = "results", n_jobs: int = 1,
          checks=CHECKS, log=None) -> AuditReport:
    """Run the audit battery on a sampler factory and write ``results/audit/<name>/``.

    Parameters
    ----------
    factory : callable or str
        ``factory(target, step_size, **params)`` building a sampler of the toolkit's protocol
        (``init``, ``step(state, rng) -> (state, StepInfo)``, ``target``), or a spec for
        :func:`load_factory` (``"sgmcmc_verify.samplers:sgld"``, ``"SGLD"``).
    params : dict, optional
        Keyword arguments of the factory other than the step size (e.g. ``friction``).
    scale : {"smoke", "default"}
    name : str, optional
        Folder name under ``results/audit/``; default: the factory's name.
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

    Returns
    -------
    AuditReport

    Raises
    ------
    ValueError
        Unknown scale or check, a bad factory spec, or a factory that does not build a sampler.
    """
    s = AuditSettings.at(scale)
    spec = factory if isinstance(factory, str) else f"{getattr(factory, '__module__', '?')}:{getattr(factory, '__qualname__', factory)}"
    if isinstance(factory, str):
        factory = load_factory(factory)
    params = dict(params or {})
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        raise ValueError(f"checks must be among {', '.join(CHECKS)}; got {unknown}")
    name = name or getattr(factory, "__name__", "sampler")
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"name must be a plain folder name, got {name!r}")
    out = Path(results) / "audit" / name
    runners = {
        "consistency_gaussian": lambda: consistency_check(factory, params, s, name="consistency (Gaussian §5.1)",
                                                          expected_order=expected_order, n_jobs=n_jobs),
        "consistency_anisotropic": lambda: consistency_check(factory, params, s, name="consistency (anisotropic)",
                                                             anisotropic=True, expected_order=expected_order,
                                                             n_jobs=n_jobs),
        "sg_sensitivity": lambda: sg_sensitivity_check(factory, params, s, n_jobs=n_jobs),
        "time_average": lambda: time_average_check(factory, params, s, n_jobs=n_jobs),
        "multimodality": lambda: multimodality_check(factory, params, s, n_jobs=n_jobs),
        "stability": lambda: stability_check(factory, params, s),
        "cost": lambda: cost_check(factory, params, s),
    }
    rows, seconds = [], {}
    for c in checks:
        t0 = time.perf_counter()
        res = runners[c]()
        seconds[c] = time.perf_counter() - t0
        if log:
            log(f"audit {name}: {c} {res.status} ({seconds[c]:.1f} s)")
        write_json(out / f"{c}.json", {"check": c, **res.row(), "data": res.data, "seconds": seconds[c]})
        rows.append({"id": c, **res.row()})
    report = AuditReport(name=name, factory=spec, params={k: repr(v) for k, v in params.items()}, scale=scale,
                         settings=s.as_dict(), seed=s.seed, expected_order=expected_order, rows=rows,
                         seconds=seconds, total_seconds=float(sum(seconds.values())), versions=package_versions(),
                         git_commit=git_commit(), path=str(out))
    report["flagged"] = report.flagged
    write_json(out / "summary.json", dict(report))
    write_csv(out / "summary.csv", rows)
    return report
