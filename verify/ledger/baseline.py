"""CI regression: smoke-scale numbers compared with committed baselines.

Each claim declares its regression numbers (``regression=`` of :func:`sgmcmc_verify.ledger.claims.declare`:
``f(results_root) -> {name: (value, standard_error)}``). A paper not yet converted to declared claims may still
keep them in a ``BASELINE_METRICS`` mapping claim id → function in its ``claims`` module
(:data:`sgmcmc_verify.ledger.claims.OLD_STYLE_PAPERS`). :func:`refresh` runs every experiment at the smoke scale and
writes ``paper_repro/baselines/<paper>.json``; :func:`check` reruns them and reports every number that moved by
more than its tolerance, and every registered claim whose baseline is missing (a deleted or emptied baseline
file fails the check, naming it)

    |now − baseline| > 4 · sqrt(se_baseline² + se_now²) + ROUNDOFF · |baseline|,

i.e. four combined Monte Carlo standard errors (a false alarm rate of about 6e-5 per number when
a refactor changes the random streams but not the law), plus a relative round-off allowance
``ROUNDOFF = 1e-6``. The allowance matters only for exact numbers (standard error 0): those that
come from discrete Lyapunov solves at tiny step sizes lose digits to cancellation (the stationary
bias is O(h) of the covariance), and they differ between NumPy/SciPy/LAPACK builds in the 8th
digit — measured: 4.4e-8 relative for ``ls_sgld.thm3.3.gamma2_factor`` at h = 1e-5 between the
build that wrote the baselines and NumPy 2.4.6 / SciPy 1.17.1. A change of the law moves such
numbers by orders of magnitude more. With unchanged code, seeds and build the numbers are
reproduced exactly.
"""
from __future__ import annotations

import importlib
import importlib.util
import math
import tempfile
from pathlib import Path

from ..errors import ResultFileError
from ..store.cache import run_experiment
from ..store.io import read_json, write_json
from ..store.registry import all_experiments
from .claims import load_all

__all__ = ["BASELINE_DIR", "collect", "refresh", "check", "compare", "Z", "ROUNDOFF", "registered_metrics",
           "load_baselines", "missing_baselines"]

#: ``paper_repro/baselines/`` (package data of :mod:`sgmcmc_verify.paper_repro`, found without importing it)
BASELINE_DIR = Path(importlib.util.find_spec("sgmcmc_verify.paper_repro").submodule_search_locations[0]) / "baselines"
Z = 4.0
#: Relative round-off allowance for exact numbers (see the module docstring for the measurement).
ROUNDOFF = 1e-6


def _metric_functions() -> dict:
    """``{paper: {claim id: f}}``: the regression functions declared on the claims, and an old-style paper's
    ``BASELINE_METRICS`` (a claim id in both is an error: one place only)."""
    claims = load_all()
    out: dict = {p: {} for p in sorted({c.paper for c in claims.values()})}
    for c in claims.values():
        if c.regression is not None:
            out[c.paper][c.id] = c.regression
    for paper in out:
        legacy = getattr(importlib.import_module(f"sgmcmc_verify.paper_repro.{paper}.claims"), "BASELINE_METRICS", {})
        both = sorted(set(legacy) & set(out[paper]))
        if both:
            raise ValueError(f"{paper}: regression metrics of {both} are declared on the claim and in BASELINE_METRICS; "
                             "keep them on the claim only")
        out[paper].update(legacy)
    return out


def collect(results_root) -> dict:
    """``{paper: {claim id: {metric: [value, se]}}}`` from the stored results under ``results_root``."""
    return {paper: {cid: {k: [float(v), float(se)] for k, (v, se) in fn(Path(results_root)).items()}
                    for cid, fn in sorted(fns.items())}
            for paper, fns in _metric_functions().items()}


def _run_smoke(results_root, n_jobs, log):
    for e in all_experiments():
        run_experiment(e, "smoke", results_root=results_root, n_jobs=n_jobs, log=log)


def refresh(results_root=None, n_jobs=1, log=None) -> Path:
    """Run every experiment at smoke scale and rewrite the baseline files; returns the directory."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(results_root or tmp)
        _run_smoke(root, n_jobs, log)
        for paper, claims in collect(root).items():
            write_json(BASELINE_DIR / f"{paper}.json", {"scale": "smoke", "z": Z, "claims": claims})
    return BASELINE_DIR


def compare(baseline: dict, now: dict) -> list[str]:
    """Readable lines, one per number outside its tolerance, missing now, or measured now without a baseline."""
    problems = []
    for paper, claims in baseline.items():
        for cid, metrics in claims.items():
            for name, (b, sb) in metrics.items():
                cur = now.get(paper, {}).get(cid, {}).get(name)
                if cur is None:
                    problems.append(f"{cid} [{name}]: baseline {b:.6g}, now missing")
                    continue
                v, sv = cur
                tol = Z * math.hypot(sb, sv) + ROUNDOFF * abs(b)
                if not (abs(v - b) <= tol):
                    problems.append(f"{cid} [{name}]: baseline {b:.6g}, now {v:.6g}, |diff| {abs(v - b):.3g} > "
                                    f"tolerance {tol:.3g} ({Z:g} combined s.e.)")
    for paper, claims in now.items():
        for cid, metrics in claims.items():
            for name in metrics:
                if name not in baseline.get(paper, {}).get(cid, {}):
                    problems.append(f"{cid} [{name}]: measured now, but not in the baseline of {paper}")
    return problems


def registered_metrics() -> dict:
    """``{paper: [claim id, ...]}``: every claim under regression (declared on the claim, or in an old-style
    paper's ``BASELINE_METRICS``)."""
    return {paper: sorted(fns) for paper, fns in _metric_functions().items() if fns}


def load_baselines(directory=None) -> tuple[dict, list[str]]:
    """The committed baselines ``{paper: {claim: {metric: [value, se]}}}`` and the problems found reading them.

    A file that is not valid JSON, or has no ``claims`` object, is a problem naming the file (and is
    left out of the returned mapping).
    """
    d = Path(directory) if directory is not None else BASELINE_DIR
    baseline, problems = {}, []
    for f in sorted(d.glob("*.json")):
        try:
            claims = read_json(f).get("claims")
        except (ResultFileError, AttributeError) as e:
            problems.append(f"{f}: not a baseline file ({e}); restore it from git or run `sgmcmc-verify baseline "
                            "--refresh`")
            continue
        if not isinstance(claims, dict):
            problems.append(f"{f}: no 'claims' object; restore it from git or run `sgmcmc-verify baseline --refresh`")
            continue
        baseline[f.stem] = claims
    return baseline, problems


def missing_baselines(baseline: dict, registered: dict, directory=None) -> list[str]:
    """One line per paper or claim that is registered for regression but has no baseline metrics.

    Parameters
    ----------
    baseline : ``{paper: {claim id: {metric: [value, se]}}}`` (:func:`load_baselines`)
    registered : ``{paper: [claim id, ...]}`` (:func:`registered_metrics`)

    Examples
    --------
    >>> missing_baselines({"p": {"p.a": {"m": [1.0, 0.1]}}}, {"p": ["p.a", "p.b"], "q": ["q.c"]}, "B")
    ['claim p.b: no baseline metrics in B/p.json', 'paper q: no baseline file B/q.json (its claims q.c are not checked)']
    """
    d = Path(directory) if directory is not None else BASELINE_DIR
    problems = []
    for paper, cids in sorted(registered.items()):
        if paper not in baseline:
            problems.append(f"paper {paper}: no baseline file {d / (paper + '.json')} (its claims "
                            f"{', '.join(cids)} are not checked)")
            continue
        for cid in cids:
            if not baseline[paper].get(cid):
                problems.append(f"claim {cid}: no baseline metrics in {d / (paper + '.json')}")
    return problems


def check(results_root=None, n_jobs=1, log=None) -> list[str]:
    """Rerun the smoke experiments and compare with the committed baselines; [] when all agree.

    Every claim under regression (:func:`registered_metrics`) must have its metrics in the baseline
    file of its paper: a missing or unreadable file, a missing claim, or a metric measured now but not
    in the baseline is a problem naming it (so the check cannot be switched off by deleting or
    emptying a baseline). Missing baselines are reported before anything is run.
    """
    baseline, problems = load_baselines()
    problems += missing_baselines(baseline, registered_metrics())
    if problems:
        return problems + ["`sgmcmc-verify baseline --refresh` rewrites the baselines (on purpose only; commit the "
                           "diff)"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(results_root or tmp)
        _run_smoke(root, n_jobs, log)
        now = collect(root)
    return compare(baseline, now)
