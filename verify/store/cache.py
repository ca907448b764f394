"""The keyed result store: caching, resume, atomic writes.

An experiment (:class:`sgmcmc_verify.store.registry.Experiment`) writes files into a directory it is
given. :func:`run_experiment` keys a run by the experiment id, the *values* of the settings
dataclass it receives (not the scale's name) with the identity of its external inputs, and a
fingerprint of the source of every in-project module it imports (transitively). A rerun with the
same key reuses the stored files; a changed setting, or a changed module the experiment imports,
changes the key of exactly the experiments that depend on it.

Layout under ``results/``::

    .cache/<experiment id>/<key>/       the files + manifest.json   (complete or absent)
    .cache/<experiment id>/<key>.lock   the entry's lock (filelock)
    <paper>/<file>                      the current files, copied from the cache (what figures read)
    <paper>/<experiment id>.manifest.json

A run writes into a temporary directory and is renamed into the cache only when complete, so an
interrupted ``make figures`` leaves no half-written results and resumes with the experiments
that had not finished.

Faults (issue #14): the manifest records the SHA-256 of every output; an entry is reused only
when its manifest parses, names this experiment and key, and every output has the recorded
digest, and a corrupt entry is recomputed. The entry is locked while it is checked, computed and
copied (a concurrent run of the same experiment and settings waits, then reuses it); replacing an
entry renames the old one aside before the new one is renamed in; temporary directories of runs
that were killed are removed by the next run. The copies in ``<paper>/`` are checked against the
manifest after copying, and the manifest is copied last (it is removed first), so ``<paper>/``
never holds a manifest that does not describe the files next to it.
"""
from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any, Mapping

from filelock import FileLock, Timeout

from ..errors import ResultFileError, check_positive_int
from .io import parse_json, read_regular, sha256_file, write_json
from .registry import PROJECT_PACKAGES, Experiment, get_experiment, load_all_experiments, registered_experiments
from .settings import apply_overrides

__all__ = ["run_experiment", "code_fingerprint", "settings_key", "package_versions", "git_commit", "check_manifest",
           "verify_outputs", "verify_published", "snapshot_published", "remove_stale_temporaries", "pid_alive", "BACKENDS",
           "MANIFEST_FIELDS"]


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


def settings_key(exp: Experiment | str, settings: Mapping[str, Any], fingerprint: str) -> str:
    """SHA-256 (20 hex digits) of the experiment id, its settings values and inputs, and the code fingerprint.

    ``exp`` may be the experiment or its id; a manifest's ``id``, ``settings`` and ``code_fingerprint`` reproduce
    its ``key`` (:func:`check_manifest` checks this).
    """
    payload = json.dumps({"id": exp if isinstance(exp, str) else exp.id, "settings": _jsonable(dict(settings)),
                          "code": fingerprint}, sort_keys=True, allow_nan=False)
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


# ---- verification -----------------------------------------------------------------------------

#: What a manifest must hold: its key is reproduced from ``id``, ``settings`` and ``code_fingerprint``, and every output
#: has its SHA-256 in ``sha256`` (a manifest written before digests existed is refused, with the repair).
MANIFEST_FIELDS = ("id", "paper", "key", "scale", "settings", "outputs", "code_fingerprint", "sha256")

#: joblib backends accepted by :func:`run_experiment` (``None``: joblib's default, loky).
BACKENDS = ("loky", "threading", "multiprocessing", "dask")


def _repair(exp_id: str) -> str:
    return (f"rerun `sgmcmc-verify run {exp_id}` (it restores results/ from a verified cache entry) or "
            f"`sgmcmc-verify run {exp_id} --force` (recomputes it)")


def check_manifest(path, exp_id: str | None = None, key: str | None = None, *, data: bytes | None = None,
                   exp: Experiment | None = None) -> dict:
    """Read and check a manifest written by :func:`run_experiment`.

    Parameters
    ----------
    path : path-like
        ``results/.cache/<id>/<key>/manifest.json`` or ``results/<paper>/<id>.manifest.json``.
    exp_id, key : str or None
        The experiment id and cache key the manifest must name (not checked when ``None``).
    data : bytes or None
        The manifest's bytes, already read (then ``path`` only names them); read from ``path`` otherwise
        (a regular file only: a FIFO is refused, not waited on).
    exp : Experiment or None
        The experiment (default: looked up by the manifest's id; an id that is not registered skips the
        scale check).

    Returns
    -------
    dict
        The manifest, with ``"sha256"`` (``{output: hex digest}``) for every output.

    Raises
    ------
    FileNotFoundError
        No manifest.
    sgmcmc_verify.errors.ResultFileError
        Invalid JSON, not a JSON object, a missing field (``sha256`` included: results written before
        file digests existed), another experiment's or key's manifest, a ``sha256`` map that does not
        cover exactly the outputs, settings and code fingerprint that do not reproduce the key (an
        edited manifest), or settings that are not the experiment's settings at the manifest's scale
        (an edited scale: smoke numbers labelled paper scale); the message names the file and the repair.
    """
    exp_id_hint = exp_id or Path(path).name.removesuffix(".manifest.json")
    try:
        m = parse_json(path, read_regular(path) if data is None else data)
    except ResultFileError as e:
        raise ResultFileError(path, f"corrupt manifest: {e.reason}", _repair(exp_id_hint)) from None
    if not isinstance(m, dict):
        raise ResultFileError(path, f"corrupt manifest: a JSON object is expected, got {type(m).__name__}",
                              _repair(exp_id_hint))
    missing = [f for f in MANIFEST_FIELDS if f not in m]
    if missing == ["sha256"]:
        raise ResultFileError(path, "no SHA-256 of the outputs (written by a version before file digests), so the "
                                    "files cannot be verified", _repair(exp_id_hint))
    if missing:
        raise ResultFileError(path, f"corrupt manifest: no {', '.join(missing)}", _repair(exp_id_hint))
    if (exp_id is not None and m["id"] != exp_id) or (key is not None and m["key"] != key):
        raise ResultFileError(path, f"corrupt manifest: it names {m['id']!r} (key {m['key']!r}), expected {exp_id!r}"
                                    f"{f' (key {key!r})' if key else ''}", _repair(exp_id_hint))
    outputs = m["outputs"]
    if not (isinstance(outputs, list) and outputs and all(isinstance(o, str) for o in outputs)):
        raise ResultFileError(path, "corrupt manifest: outputs must be a non-empty list of file names",
                              _repair(exp_id_hint))
    h = m["sha256"]
    if not (isinstance(h, dict) and set(h) == set(outputs) and all(isinstance(v, str) for v in h.values())):
        raise ResultFileError(path, "corrupt manifest: sha256 must map every output to its digest",
                              _repair(exp_id_hint))
    _check_key(path, m, exp)
    return m


def _check_key(path, m: Mapping[str, Any], exp: Experiment | None) -> None:
    """The manifest's settings and code fingerprint reproduce its key; its settings are its scale's settings."""
    repair = _repair(m["id"])
    if not isinstance(m["settings"], dict) or not isinstance(m["code_fingerprint"], str):
        raise ResultFileError(path, "corrupt manifest: settings must be an object, code_fingerprint a string", repair)
    try:
        key = settings_key(str(m["id"]), m["settings"], m["code_fingerprint"])
    except (TypeError, ValueError) as e:
        raise ResultFileError(path, f"corrupt manifest: its settings cannot be keyed ({e})", repair) from None
    if key != m["key"]:
        raise ResultFileError(path, f"its settings and code fingerprint give key {key}, not the key {m['key']!r} it "
                                    "names (the manifest was edited after it was written)", repair)
    if exp is None:
        exp = registered_experiments().get(str(m["id"]))
        if exp is None:
            return   # not registered in this process (a test's experiment): nothing to compare the scale with
    try:
        cfg = exp.settings.at(m["scale"])
    except (ValueError, TypeError):
        raise ResultFileError(path, f"corrupt manifest: unknown scale {m['scale']!r}", repair) from None
    over = m.get("overrides") or {}
    try:   # a run with --set / --seed: the scale's settings with the recorded overrides
        cfg = apply_overrides(cfg, over, str(m["id"])) if isinstance(over, dict) else None
    except ValueError as e:
        raise ResultFileError(path, f"corrupt manifest: its overrides do not apply ({e})", repair) from None
    if cfg is None:
        raise ResultFileError(path, "corrupt manifest: overrides must be an object", repair)
    want = _jsonable(cfg.key_fields())
    over = m.get("overrides") or {}
    if not isinstance(over, dict):
        raise ResultFileError(path, "corrupt manifest: overrides must be an object", repair)
    want.update({k: _jsonable(v) for k, v in over.items() if k in want})   # `run --set` / `--seed`: named changes
    have = {k: m["settings"].get(k) for k in want}
    if json.dumps(want, sort_keys=True) != json.dumps(_jsonable(have), sort_keys=True):
        diff = sorted(k for k in want if json.dumps(want[k]) != json.dumps(_jsonable(have[k])))
        raise ResultFileError(path, f"its settings are not the {m['scale']!r} settings of {m['id']} (they differ in "
                                    f"{', '.join(diff[:5])}): the scale was edited, or the results were stored by a "
                                    "version whose settings differ", repair)


def _verified_bytes(f: Path, manifest: Mapping[str, Any], o: str) -> bytes:
    """The bytes of output ``o`` at ``f``, read once and checked against the manifest's digest."""
    try:
        data = read_regular(f)
    except FileNotFoundError:
        raise ResultFileError(f, f"missing (the manifest of {manifest['id']} lists it)", _repair(manifest["id"])) from None
    except ResultFileError as e:
        raise ResultFileError(f, e.reason, _repair(manifest["id"])) from None
    if hashlib.sha256(data).hexdigest() != manifest["sha256"][o]:
        raise ResultFileError(f, "SHA-256 differs from the one its manifest recorded (changed or truncated "
                                 "after it was written)", _repair(manifest["id"]))
    return data


def verify_outputs(directory, manifest: Mapping[str, Any]) -> None:
    """Check that every output named by ``manifest`` is in ``directory`` with the SHA-256 the manifest recorded.

    Raises
    ------
    sgmcmc_verify.errors.ResultFileError
        A missing output, one that is not a regular file, or one whose digest differs; the message names
        the file and the repair.
    """
    d = Path(directory)
    for o in manifest["outputs"]:
        _verified_bytes(d / o, manifest, o)


def verify_published(results_dir, exp_id: str) -> dict:
    """Check ``results_dir/<exp_id>.manifest.json`` and the outputs next to it; return the manifest.

    ``results_dir`` is a paper's directory (``results/<paper>/``), which figures and the report read.

    Raises
    ------
    FileNotFoundError
        No manifest for ``exp_id`` there (the experiment has not been run into this directory).
    sgmcmc_verify.errors.ResultFileError
        A corrupt manifest, or an output missing or changed (see :func:`verify_outputs`).
    """
    d = Path(results_dir)
    m = check_manifest(d / f"{exp_id}.manifest.json", exp_id)
    verify_outputs(d, m)
    return m


def _publish_lock(results_dir: Path, exp_id: str) -> FileLock | None:
    """The lock :func:`run_experiment` holds while it publishes ``exp_id`` into ``results_dir`` (``results/<paper>``),
    or ``None`` when the results have no cache beside them (a copied results directory)."""
    d = results_dir.parent / ".cache" / exp_id
    return FileLock(d / ".publish.lock") if d.is_dir() and os.access(d, os.W_OK) else None


def snapshot_published(results_dir, exp_id: str, dest, log=None) -> dict:
    """Copy ``exp_id``'s published manifest and outputs into ``dest`` as verified bytes; return the manifest.

    Under the experiment's publish lock (the one :func:`run_experiment` holds while it replaces the
    published files), the manifest is read once and checked (:func:`check_manifest`), every output is
    read once and its SHA-256 compared with the manifest's, and exactly those bytes are written to
    ``dest``. Readers (``figures``, ``report``) then read ``dest`` only: a file changed, or another run
    publishing, after the check cannot pair this manifest's settings with other numbers, and a file
    without a manifest is never read.

    Raises
    ------
    FileNotFoundError
        No manifest for ``exp_id`` in ``results_dir``.
    sgmcmc_verify.errors.ResultFileError
        What :func:`verify_published` raises (a FIFO in place of a file included, refused without blocking).
    """
    d, dest = Path(results_dir), Path(dest)
    load_all_experiments()   # the scale check compares with the registered experiment's settings
    lock = _publish_lock(d, exp_id)
    if lock is not None:
        _acquire(lock, exp_id, log)
    try:
        mpath = d / f"{exp_id}.manifest.json"
        raw = read_regular(mpath)
        m = check_manifest(mpath, exp_id, data=raw)
        files = {o: _verified_bytes(d / o, m, o) for o in m["outputs"]}
    finally:
        if lock is not None:
            lock.release()
    dest.mkdir(parents=True, exist_ok=True)
    for o, b in files.items():
        (dest / o).parent.mkdir(parents=True, exist_ok=True)
        (dest / o).write_bytes(b)
    (dest / f"{exp_id}.manifest.json").write_bytes(raw)
    return m


# ---- locks and temporary directories --------------------------------------------------------------

#: ``.tmp-<key>-<pid>-<random>`` (a run in progress) and ``.old-<key>-<pid>-<random>`` (an entry being replaced).
_TEMP_NAME = re.compile(r"^\.(tmp|old)-([0-9a-f]+)-(\d+)-[0-9a-f]+$")


def _entry_lock(exp_dir: Path, key: str) -> FileLock:
    return FileLock(exp_dir / f"{key}.lock")


def _acquire(lock: FileLock, what: str, log) -> None:
    try:
        lock.acquire(timeout=0)
    except Timeout:
        if log:
            log(f"{what}: another run holds {lock.lock_file}; waiting for it")
        lock.acquire()


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this machine (a zombie counts as gone); ``True`` when unknowable."""
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def remove_stale_temporaries(exp_dir, held_key: str | None = None, log=None) -> list[Path]:
    """Remove the temporary directories of runs of one experiment whose owner process is gone.

    A run creates ``.tmp-<key>-<pid>-<random>`` (and, when it replaces an entry, ``.old-...``) only
    while it holds the entry lock ``<key>.lock``, which the kernel releases when the process dies
    (SIGKILL included). A directory is removed when that lock is free (or held by the caller:
    ``held_key``) and process ``pid`` no longer exists; a live run's directories are never touched.

    Returns
    -------
    list of pathlib.Path
        The directories removed.
    """
    d = Path(exp_dir)
    removed = []
    if not d.is_dir():
        return removed
    for p in sorted(d.iterdir()):
        m = _TEMP_NAME.match(p.name)
        if m is None or not p.is_dir():
            continue
        key, pid = m.group(2), int(m.group(3))
        if pid != os.getpid() and pid_alive(pid):
            continue
        if key == held_key:
            shutil.rmtree(p, ignore_errors=True)
        else:
            lock = _entry_lock(d, key)
            try:
                lock.acquire(timeout=0)
            except Timeout:
                continue
            try:
                shutil.rmtree(p, ignore_errors=True)
            finally:
                lock.release()
        removed.append(p)
        if log:
            log(f"{d.name}: removed {p.name}, left by a run that was killed (process {pid} is gone)")
    return removed


# ---- running ----------------------------------------------------------------------------------

def _copy_atomic(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.{uuid.uuid4().hex}.tmp")
    try:
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _check_run_args(n_jobs, backend) -> None:
    check_positive_int("n_jobs", n_jobs)
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)} (or None), got {backend!r}")


def _compute(exp: Experiment, cfg, scale, settings, fp, modules, key, exp_dir: Path, cache: Path, n_jobs, backend,
             progress, log, overrides=None, keep_chains=None) -> None:
    """Run ``exp`` into a temporary directory and move it into place as ``cache`` (the entry lock is held)."""
    tmp = exp_dir / f".tmp-{key}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    tmp.mkdir(parents=True, exist_ok=False)
    try:
        t0 = time.perf_counter()
        if keep_chains is None:
            exp.run(cfg, tmp, n_jobs, backend, progress)
        else:
            with keep_chains.capture() as records:
                exp.run(cfg, tmp, n_jobs, backend, progress)
        wall = time.perf_counter() - t0
        missing = [o for o in exp.outputs if not (tmp / o).exists()]
        if missing:
            raise RuntimeError(f"experiment {exp.id} did not write {missing}")
        manifest = {"id": exp.id, "paper": exp.paper, "key": key, "scale": scale, "settings": _jsonable(settings),
                    "code_fingerprint": fp, "code_modules": modules, "versions": package_versions(),
                    "git": git_commit(), "wall_time_s": wall, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                    "outputs": list(exp.outputs), "n_jobs": n_jobs, "backend": backend,
                    "sha256": {o: sha256_file(tmp / o) for o in exp.outputs}}
        if overrides:   # only when given, so that a plain run's manifest is what it always was
            manifest["overrides"] = _jsonable(overrides)
        if keep_chains is not None:   # the final states / traces as netCDF under <entry>/chains (not outputs)
            manifest["chains"] = _jsonable(keep_chains.write(records, tmp / "chains", {"id": exp.id, "scale": scale}))
        write_json(tmp / "manifest.json", manifest)
        if cache.exists():  # a forced run, or a corrupt entry: set the old one aside first (rename, never delete first)
            old = exp_dir / f".old-{key}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
            os.replace(cache, old)
            os.replace(tmp, cache)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, cache)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if log:
        log(f"{exp.id}: computed in {wall:.1f} s (key {key})")


def _stored(exp: Experiment, cache: Path, key: str, log) -> dict | None:
    """The verified manifest of the cache entry, or ``None`` when there is none or it is corrupt (logged)."""
    manifest_path = cache / "manifest.json"
    if not manifest_path.exists():
        if cache.exists() and log:
            log(f"{exp.id}: stored result {key} has no manifest (an incomplete entry); recomputing")
        return None
    try:
        m = check_manifest(manifest_path, exp.id, key, exp=exp)
        if sorted(m["outputs"]) != sorted(exp.outputs):
            raise ResultFileError(manifest_path, f"corrupt manifest: it lists {m['outputs']}, the experiment writes "
                                                 f"{list(exp.outputs)}")
        verify_outputs(cache, m)
    except ResultFileError as e:
        if log:
            log(f"{exp.id}: stored result {key} cannot be reused ({e.path}: {e.reason}); recomputing")
        return None
    return m


def _same_file(a: Path, b: Path) -> bool:
    return b.is_file() and a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()


def _publish(exp: Experiment, cache: Path, manifest: Mapping[str, Any], root: Path, log) -> None:
    """Copy a verified entry into ``root/<paper>/``.

    Nothing is touched when the published files are already the entry's. Otherwise the published
    manifest is removed first and copied last, after the outputs were copied and checked against the
    entry's digests, so the directory never holds a manifest that does not describe its files.
    """
    lock = FileLock(cache.parent / ".publish.lock")
    _acquire(lock, exp.id, log)
    try:
        dest = root / exp.paper
        published = dest / f"{exp.id}.manifest.json"
        hashes = manifest["sha256"]
        stale = [o for o in manifest["outputs"] if not ((dest / o).is_file() and sha256_file(dest / o) == hashes[o])]
        if not stale and _same_file(cache / "manifest.json", published):
            return
        published.unlink(missing_ok=True)
        for o in stale:
            _copy_atomic(cache / o, dest / o)
        verify_outputs(dest, manifest)
        _copy_atomic(cache / "manifest.json", published)
    finally:
        lock.release()


def run_experiment(exp: Experiment | str, scale: str = "default", *, results_root="results", n_jobs: int = 1,
                   backend: str | None = None, force: bool = False, progress=None, log=None,
                   overrides: Mapping[str, Any] | None = None, keep_chains=None) -> dict:
    """Run (or reuse) one experiment and copy its outputs into ``results_root/<paper>/``.

    A stored entry is reused only after its manifest and the SHA-256 of every output check out
    (:func:`check_manifest`, :func:`verify_outputs`); a corrupt entry is recomputed (logged). The
    entry is locked (``results/.cache/<id>/<key>.lock``, :mod:`filelock`) while it is checked,
    computed and copied, so a concurrent run of the same experiment and settings waits and then
    reuses it; temporary directories left by killed runs are removed
    (:func:`remove_stale_temporaries`).

    Parameters
    ----------
    exp : Experiment or its id
    scale : {"smoke", "default", "paper"}
        The experiment receives ``exp.settings.at(scale)``.
    results_root : path
    n_jobs : int >= 1
    backend : one of :data:`BACKENDS` or None
        joblib parallelism for the realizations (they do not change the numbers).
    force : bool
        Recompute even if a stored result with the same key exists.
    progress : callable or None
        Passed to the experiment's run (e.g. a tqdm updater).
    log : callable(str) or None
    overrides : mapping or None
        Settings changed from the scale's values (``run --set KEY=VALUE`` / ``--seed``), checked and read
        as the fields' types by :func:`sgmcmc_verify.store.settings.apply_overrides`; they enter the cache
        key like every setting, and the manifest lists them under ``"overrides"``.
    keep_chains : sgmcmc_verify.chains.ChainKeeper or None
        Keep the chains' final states (and kept traces) as ArviZ netCDF files (``sgmcmc_verify.chains.KEEPER``;
        ``run --keep-chains``): in the entry's ``chains/``, listed under ``"chains"`` in the manifest, copied to
        ``results_root/<paper>/<id>.chains/``. A stored entry without chains is recomputed once.

    Returns
    -------
    dict
        The manifest (id, key, scale, settings, code fingerprint and modules, versions, git commit,
        wall time, outputs and their SHA-256) plus ``"cached": bool``.

    Raises
    ------
    KeyError
        Unknown experiment id.
    ValueError
        Unknown scale, ``n_jobs`` not a positive integer, unknown ``backend``, an override that is not a
        setting of the experiment or does not read as its type.
    sgmcmc_verify.errors.ResultFileError
        A copy in ``results_root/<paper>/`` that does not match the entry just verified (the disk
        changed under the run).
    """
    if isinstance(exp, str):
        exp = get_experiment(exp)
    _check_run_args(n_jobs, backend)
    cfg = apply_overrides(exp.settings.at(scale), overrides or {}, exp.id)
    settings = {**cfg.key_fields(), **cfg.inputs()}
    fp, modules = code_fingerprint(exp.module)
    key = settings_key(exp, settings, fp)
    root = Path(results_root)
    exp_dir = root / ".cache" / exp.id
    cache = exp_dir / key
    exp_dir.mkdir(parents=True, exist_ok=True)
    lock = _entry_lock(exp_dir, key)
    _acquire(lock, exp.id, log)
    try:
        remove_stale_temporaries(exp_dir, held_key=key, log=log)
        manifest = None if force else _stored(exp, cache, key, log)
        if manifest is not None and keep_chains is not None and "chains" not in manifest:
            if log:
                log(f"{exp.id}: the stored result {key} kept no chains; recomputing it to keep them (same numbers)")
            manifest = None
        cached = manifest is not None
        if cached:
            if log:
                log(f"{exp.id}: reused stored result (key {key})")
        else:
            _compute(exp, cfg, scale, settings, fp, modules, key, exp_dir, cache, n_jobs, backend, progress, log,
                     overrides={k: getattr(cfg, k) for k in (overrides or {})}, keep_chains=keep_chains)
            manifest = check_manifest(cache / "manifest.json", exp.id, key, exp=exp)
        _publish(exp, cache, manifest, root, log)
        if keep_chains is not None:
            keep_chains.publish(cache, root / exp.paper / f"{exp.id}.chains")
    finally:
        lock.release()
    manifest = dict(manifest)
    manifest["cached"] = cached
    return manifest
