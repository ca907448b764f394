"""The keyed result store: caching, resume, atomic writes.

An experiment (:class:`verify.store.registry.Experiment`) writes files into a directory it is
given. :func:`run_experiment` keys a run by the experiment id, the *values* of the settings
dataclass it receives (not the scale's name) with the identity of its external inputs, and a
fingerprint of the source of every in-project module it imports (transitively). A rerun with the
same key reuses the stored files; a changed setting, or a changed module the experiment imports,
changes the key of exactly the experiments that depend on it.

Layout under ``results/``::

    .cache/<experiment id>/<key>/       the files + manifest.json   (complete or absent)
    <paper>/<file>                      the current files, copied from the cache (what figures read)
    <paper>/<experiment id>.manifest.json

A run writes into a temporary directory and is renamed into the cache only when complete, so an
interrupted ``make figures`` leaves no half-written results and resumes with the experiments
that had not finished.
"""
from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any, Mapping

from .io import write_json
from .registry import PROJECT_PACKAGES, Experiment, get_experiment

__all__ = ["run_experiment", "code_fingerprint", "settings_key", "package_versions", "git_commit"]


# ---- keys -------------------------------------------------------------------------------------

def _module_file(name: str) -> str | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    return spec.origin if spec and spec.origin and spec.origin.endswith(".py") else None


def _imports(name: str, path: str) -> set[str]:
    tree = ast.parse(Path(path).read_text(), filename=path)
    is_pkg = path.endswith("__init__.py")
    pkg = name if is_pkg else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)  # kept only if it is a module
    return out


def code_fingerprint(module: str) -> tuple[str, list[str]]:
    """SHA-256 over the source of ``module`` and every in-project module it imports, transitively.

    Parent packages (their ``__init__``) are included, since importing a module runs them.

    Returns
    -------
    (hex digest, sorted list of the module names hashed)
    """
    seen: dict[str, str] = {}
    stack = [module]
    while stack:
        m = stack.pop()
        if m in seen or m.split(".")[0] not in PROJECT_PACKAGES:
            continue
        f = _module_file(m)
        if f is None:
            continue
        seen[m] = f
        parts = m.split(".")
        stack.extend(".".join(parts[:i]) for i in range(1, len(parts)))
        stack.extend(x for x in _imports(m, f) if x.split(".")[0] in PROJECT_PACKAGES)
    h = hashlib.sha256()
    for m in sorted(seen):
        h.update(m.encode())
        h.update(Path(seen[m]).read_bytes())
    return h.hexdigest(), sorted(seen)


def _jsonable(o):
    if isinstance(o, dict):
        return {str(k): _jsonable(v) for k, v in sorted(o.items())}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    if hasattr(o, "item"):
        return o.item()
    return o


def settings_key(exp: Experiment, settings: Mapping[str, Any], fingerprint: str) -> str:
    """SHA-256 (20 hex digits) of the experiment id, its settings values and inputs, and the code fingerprint."""
    payload = json.dumps({"id": exp.id, "settings": _jsonable(dict(settings)), "code": fingerprint},
                         sort_keys=True, allow_nan=False)
    return hashlib.sha256(payload.encode()).hexdigest()[:20]


def package_versions() -> dict:
    import joblib
    import numpy
    import scipy
    out = {"python": platform.python_version(), "numpy": numpy.__version__, "scipy": scipy.__version__,
           "joblib": joblib.__version__}
    for mod in ("ot", "sympy", "matplotlib"):
        try:
            out[mod] = importlib.import_module(mod).__version__
        except ImportError:
            pass
    return out


def git_commit(root: str | os.PathLike | None = None) -> dict:
    """``{"commit": sha or None, "dirty": bool or None}`` of the repository containing this file."""
    cwd = Path(root) if root else Path(__file__).resolve().parents[2]
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=10)
        st = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd, capture_output=True,
                            text=True, timeout=10)
        if sha.returncode != 0:
            return {"commit": None, "dirty": None}
        return {"commit": sha.stdout.strip(), "dirty": bool(st.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


# ---- running ----------------------------------------------------------------------------------

def _copy_atomic(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.{uuid.uuid4().hex}.tmp")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def run_experiment(exp: Experiment | str, scale: str = "default", *, results_root="results", n_jobs: int = 1,
                   backend: str | None = None, force: bool = False, progress=None, log=None) -> dict:
    """Run (or reuse) one experiment and copy its outputs into ``results_root/<paper>/``.

    Parameters
    ----------
    exp : Experiment or its id
    scale : {"smoke", "default", "paper"}
        The experiment receives ``exp.settings.at(scale)``.
    results_root : path
    n_jobs, backend : joblib parallelism for the realizations (they do not change the numbers)
    force : bool
        Recompute even if a stored result with the same key exists.
    progress : callable or None
        Passed to the experiment's run (e.g. a tqdm updater).
    log : callable(str) or None

    Returns
    -------
    dict
        The manifest (id, key, scale, settings, code fingerprint and modules, versions, git commit,
        wall time, outputs) plus ``"cached": bool``.

    Raises
    ------
    KeyError
        Unknown experiment id.
    ValueError
        Unknown scale.
    """
    if isinstance(exp, str):
        exp = get_experiment(exp)
    cfg = exp.settings.at(scale)
    settings = {**cfg.key_fields(), **cfg.inputs()}
    fp, modules = code_fingerprint(exp.module)
    key = settings_key(exp, settings, fp)
    root = Path(results_root)
    cache = root / ".cache" / exp.id / key
    manifest_path = cache / "manifest.json"
    cached = manifest_path.exists() and not force
    if not cached:
        tmp = root / ".cache" / exp.id / f".tmp-{key}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir(parents=True, exist_ok=False)
        try:
            t0 = time.perf_counter()
            exp.run(cfg, tmp, n_jobs, backend, progress)
            wall = time.perf_counter() - t0
            missing = [o for o in exp.outputs if not (tmp / o).exists()]
            if missing:
                raise RuntimeError(f"experiment {exp.id} did not write {missing}")
            manifest = {"id": exp.id, "paper": exp.paper, "key": key, "scale": scale, "settings": _jsonable(settings),
                        "code_fingerprint": fp, "code_modules": modules, "versions": package_versions(),
                        "git": git_commit(), "wall_time_s": wall, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                        "outputs": list(exp.outputs), "n_jobs": n_jobs, "backend": backend}
            write_json(tmp / "manifest.json", manifest)
            if cache.exists():  # a concurrent or forced run finished first: replace it whole
                shutil.rmtree(cache)
            os.replace(tmp, cache)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        if log:
            log(f"{exp.id}: computed in {wall:.1f} s (key {key})")
    elif log:
        log(f"{exp.id}: reused stored result (key {key})")
    manifest = json.loads(manifest_path.read_text())
    for o in exp.outputs:
        _copy_atomic(cache / o, root / exp.paper / o)
    _copy_atomic(manifest_path, root / exp.paper / f"{exp.id}.manifest.json")
    manifest["cached"] = cached
    return manifest
