"""Atomic writes of tidy results (CSV, JSON, reports): write to a temporary file, then ``os.replace``.

The temporary file is created private (mode 0600, by :func:`tempfile.mkstemp`) and given the mode an
ordinary ``open`` would give it (0666 less the process umask) just before it replaces the target, so a
result or report is readable by whoever could read a file written any other way.

Reads check what they return: :func:`read_csv` refuses an empty file, a header without rows, a row
with more or fewer fields than the header (a truncated or garbled file) and missing required
columns; :func:`read_json` refuses invalid JSON. Both raise :class:`sgmcmc_verify.errors.ResultFileError`
naming the file. :func:`sha256_file` is the digest the cache's manifests record.
"""
from __future__ import annotations

import csv
import hashlib
import json
import io
import os
import stat
import tempfile
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

from ..errors import ResultFileError

__all__ = ["write_csv", "write_json", "write_text", "read_csv", "read_json", "sha256_file", "read_regular",
           "parse_csv", "parse_json", "ResultFileError"]


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


def read_regular(path) -> bytes:
    """The bytes of ``path``, which must be a regular file (a FIFO, device or directory is refused before it is
    opened for reading, and the open is non-blocking, so a FIFO swapped in cannot hang the reader).

    Raises
    ------
    FileNotFoundError
        No such file.
    sgmcmc_verify.errors.ResultFileError
        Not a regular file, or unreadable; the message names the file.
    """
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a directory" if stat.S_ISDIR(st.st_mode) else "not a file"
        raise ResultFileError(path, f"{kind}, not a regular file: refused (reading it could block)")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise ResultFileError(path, f"cannot be opened ({e.strerror or e})") from None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise ResultFileError(path, "not a regular file: refused")
        return fh.read()


def parse_csv(path, data: bytes, columns: Iterable[str] = ()) -> list[dict]:
    """:func:`read_csv` on bytes already read (``path`` names them in errors)."""
    try:
        text = data.decode("utf-8")
        reader = csv.DictReader(line for line in io.StringIO(text, newline="") if not line.startswith("#"))
        header = reader.fieldnames
        rows = list(reader)
    except (UnicodeDecodeError, csv.Error) as e:
        raise ResultFileError(path, f"not a readable CSV file ({e})") from None
    return _checked_rows(path, header, rows, columns)


def parse_json(path, data: bytes):
    """:func:`read_json` on bytes already read (``path`` names them in errors)."""
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ResultFileError(path, f"not valid JSON ({e})") from None


def read_csv(path, columns: Iterable[str] = ()) -> list[dict]:
    """Read a CSV written by :func:`write_csv` (comment lines skipped); numbers parsed as float.

    Parameters
    ----------
    path : str or path-like
    columns : iterable of str, default ()
        Columns the caller needs; a file without one of them is refused.

    Returns
    -------
    list of dict
        One dict per data row (at least one), every row with every column of the header.

    Raises
    ------
    FileNotFoundError
        No such file.
    sgmcmc_verify.errors.ResultFileError
        An empty file, a header without data rows, a row whose number of fields differs from the
        header's (truncated or garbled), undecodable bytes, a required column missing, or not a regular
        file (:func:`read_regular`); the message names the file.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> write_csv(p, [{"a": 1, "b": "x"}])
    >>> read_csv(p, columns=["a"])
    [{'a': 1.0, 'b': 'x'}]
    >>> _ = p.write_text("a,b\\n1\\n")
    >>> read_csv(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sgmcmc_verify.errors.ResultFileError: ...t.csv: data row 1 has 1 field(s), the header has 2 (a truncated or garbled file)
    """
    return parse_csv(path, read_regular(path), columns)


def _checked_rows(path, header, rows, columns) -> list[dict]:
    if not header:
        raise ResultFileError(path, "empty file (no header line)")
    if not rows:
        raise ResultFileError(path, "a header but no data rows (a truncated or emptied file)")
    for i, r in enumerate(rows, start=1):
        if None in r or None in r.values():
            n = len(header) + len(r.get(None, ())) - sum(v is None for v in r.values())
            raise ResultFileError(path, f"data row {i} has {n} field(s), the header has {len(header)} "
                                        "(a truncated or garbled file)")
    missing = [c for c in columns if c not in header]
    if missing:
        raise ResultFileError(path, f"no column(s) {', '.join(missing)} (the file has {', '.join(header)})")
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
    """Read a JSON file.

    Raises
    ------
    FileNotFoundError
        No such file.
    sgmcmc_verify.errors.ResultFileError
        Invalid JSON (e.g. a truncated file), undecodable bytes, or not a regular file; the message names the file.
    """
    return parse_json(path, read_regular(path))


def sha256_file(path) -> str:
    """Hex SHA-256 of the bytes of ``path`` (read in 1 MiB chunks).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x"
    >>> _ = p.write_bytes(b"")
    >>> sha256_file(p)[:16]
    'e3b0c44298fc1c14'
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
