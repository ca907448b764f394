"""Atomic writes of tidy results (CSV, JSON, reports): write to a temporary file, then ``os.replace``.

The temporary file is created private (mode 0600, by :func:`tempfile.mkstemp`) and given the mode an
ordinary ``open`` would give it (0666 less the process umask) just before it replaces the target, so a
result or report is readable by whoever could read a file written any other way.
"""
from __future__ import annotations

import csv
import json
import os
import tempfile
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

__all__ = ["write_csv", "write_json", "write_text", "read_csv", "read_json"]


def _default_mode() -> int:
    """0666 less the umask (read once, at import, where no other thread can race the umask call)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


_MODE = _default_mode()


def _atomic(path: Path, writer) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="") as fh:
            writer(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _MODE)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _plain(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serializable: {type(o)}")


def write_text(path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (reports, HTML)."""
    _atomic(path, lambda fh: fh.write(text))


def write_json(path, obj) -> None:
    """Write ``obj`` as indented JSON to ``path`` atomically (NumPy scalars/arrays converted)."""
    _atomic(path, lambda fh: json.dump(obj, fh, indent=2, default=_plain, allow_nan=False))


def write_csv(path, rows: Iterable[Mapping], header_comment: str | None = None) -> None:
    """Write dict rows as CSV atomically; the columns are the keys of the first row."""
    rows = list(rows)
    if not rows:
        raise ValueError(f"no rows to write to {path}")

    def w(fh):
        if header_comment:
            for line in header_comment.splitlines():
                fh.write(f"# {line}\n")
        dw = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
        dw.writeheader()
        for r in rows:
            dw.writerow({k: (v.item() if isinstance(v, np.generic) else v) for k, v in r.items()})

    _atomic(path, w)


def read_csv(path) -> list[dict]:
    """Read a CSV written by :func:`write_csv` (comment lines skipped); numbers parsed as float."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(line for line in fh if not line.startswith("#")))
    out = []
    for r in rows:
        d = {}
        for k, v in r.items():
            try:
                d[k] = float(v)
            except (TypeError, ValueError):
                d[k] = v
        out.append(d)
    return out


def read_json(path):
    with open(path) as fh:
        return json.load(fh)
