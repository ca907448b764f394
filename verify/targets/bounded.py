"""Bounded reading of user data files: every byte a loader parses is read here, once, within stated limits.

A data file given with ``--data`` (or ``SGMCMC_DATA``) is read by :func:`read_bounded`, which

* refuses anything that is not a regular file (a FIFO, a device, a directory) before opening it for
  reading (and opens it non-blocking, so a FIFO swapped in after the check cannot hang the reader);
* refuses a file larger than :data:`MAX_FILE_BYTES` from its size, before reading a byte;
* decompresses gzip, bzip2 and xz (told by the magic bytes, not the name) while streaming, and stops
  as soon as the decompressed bytes pass :data:`MAX_DECOMPRESSED_BYTES` or, for text formats, the
  lines pass :data:`MAX_ROWS` (a 1.4 MB gzip bomb of 10^8 rows is refused after ~10^7 rows, not read
  into memory);
* hashes the raw bytes it read (SHA-256) and compares the digest with the one recorded when the
  file's identity entered a cache key (:func:`record_identity`), so a file changed between hashing
  and loading cannot store results under the old file's hash;
* for text formats refuses binary content (NUL bytes) and UTF-16, and drops a UTF-8 byte-order mark.

Every error is a one-line :class:`ValueError` naming the file (:func:`one_line`).

The limits are overridable by environment variables (inherited by worker processes) or per call::

    SGMCMC_MAX_FILE_BYTES          default 1 GiB   (the size of the file on disk)
    SGMCMC_MAX_DECOMPRESSED_BYTES  default 1 GiB   (bytes after decompression; the file's size if not compressed)
    SGMCMC_MAX_ROWS                default 10^7    (lines of a text data file; covtype, the largest set the
                                                    papers use, has 581,012)
"""
from __future__ import annotations

import bz2
import hashlib
import json
import lzma
import os
import stat
import zlib
from pathlib import Path

__all__ = ["read_bounded", "hash_bounded", "record_identity", "limits", "one_line", "MAX_FILE_BYTES",
           "MAX_DECOMPRESSED_BYTES", "MAX_ROWS", "LIMIT_VARS", "SHA_ENV_VAR"]

#: default limits (see the module docstring for the environment variables that override them)
MAX_FILE_BYTES = 2**30
MAX_DECOMPRESSED_BYTES = 2**30
MAX_ROWS = 10_000_000
#: the environment variable of each limit
LIMIT_VARS = {"file_bytes": "SGMCMC_MAX_FILE_BYTES", "decompressed_bytes": "SGMCMC_MAX_DECOMPRESSED_BYTES",
              "rows": "SGMCMC_MAX_ROWS"}
#: environment variable holding ``{absolute path: sha256}`` of the data files hashed into cache keys in this run
#: (set by :func:`record_identity`; inherited by worker processes, which compare what they load against it)
SHA_ENV_VAR = "SGMCMC_DATA_SHA256"

_CHUNK = 1 << 20
_OUT_CAP = 4 << 20   # the most one decompression call may return
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))


def one_line(text, limit: int = 300) -> str:
    """``text`` on one line (whitespace runs collapsed, control bytes escaped), at most ``limit`` characters.

    Examples
    --------
    >>> one_line("a\\n  b\\x00c")
    'a b\\\\x00c'
    >>> len(one_line("x" * 5000))
    300
    """
    s = " ".join(str(text).split())
    s = "".join(c if c.isprintable() else repr(c)[1:-1] for c in s)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _limit(kind: str, value) -> int:
    if value is not None:
        return int(value)
    var = LIMIT_VARS[kind]
    raw = os.environ.get(var)
    default = {"file_bytes": MAX_FILE_BYTES, "decompressed_bytes": MAX_DECOMPRESSED_BYTES, "rows": MAX_ROWS}[kind]
    if not raw:
        return default
    try:
        v = int(float(raw))
    except ValueError:
        raise ValueError(f"{var} must be a positive integer, got {raw!r}") from None
    if v <= 0:
        raise ValueError(f"{var} must be a positive integer, got {raw!r}")
    return v


def limits(max_file_bytes=None, max_decompressed_bytes=None, max_rows=None) -> dict:
    """The limits in force: the arguments given, else the environment variables, else the defaults."""
    return {"file_bytes": _limit("file_bytes", max_file_bytes),
            "decompressed_bytes": _limit("decompressed_bytes", max_decompressed_bytes),
            "rows": _limit("rows", max_rows)}


def _gib(n: int) -> str:
    return f"{n / 2**30:.3g} GiB" if n >= 2**20 else f"{n} bytes"


def _open_regular(p: Path, what: str, lim: dict) -> int:
    """An fd of ``p`` opened non-blocking after checking it is a regular file within the size limit."""
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise ValueError(f"{what} {str(p)!r} does not exist") from None
    except OSError as e:
        raise ValueError(one_line(f"{what} {str(p)!r} cannot be read ({e.strerror or e})")) from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a directory" if stat.S_ISDIR(st.st_mode) else \
            "a device or socket"
        raise ValueError(f"{what} {str(p)!r} is {kind}, not a regular file; refused (it could block or never end)")
    if st.st_size > lim["file_bytes"]:
        raise ValueError(f"{what} {str(p)!r} is {_gib(st.st_size)}, more than the limit of {_gib(lim['file_bytes'])} "
                         f"({LIMIT_VARS['file_bytes']}); raise it if the file is meant to be this large")
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise ValueError(one_line(f"{what} {str(p)!r} cannot be opened ({e.strerror or e})")) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced between the check and the open
        os.close(fd)
        raise ValueError(f"{what} {str(p)!r} is not a regular file; refused")
    return fd


def _raw_chunks(fd: int, p: Path, what: str, lim: dict):
    total = 0
    with os.fdopen(fd, "rb") as fh:
        while True:
            chunk = fh.read(_CHUNK)
            if not chunk:
                return
            total += len(chunk)
            if total > lim["file_bytes"]:  # it grew while being read
                raise ValueError(f"{what} {str(p)!r} grew past the limit of {_gib(lim['file_bytes'])} while being "
                                 f"read ({LIMIT_VARS['file_bytes']})")
            yield chunk


def _expected(p: Path) -> str | None:
    raw = os.environ.get(SHA_ENV_VAR)
    if not raw:
        return None
    try:
        return json.loads(raw).get(str(p.resolve()))
    except (ValueError, AttributeError):
        return None


def record_identity(path, sha256: str) -> None:
    """Record that ``path`` entered a cache key with digest ``sha256`` (a later :func:`read_bounded` compares)."""
    try:
        d = json.loads(os.environ.get(SHA_ENV_VAR) or "{}")
        d = d if isinstance(d, dict) else {}
    except ValueError:
        d = {}
    d[str(Path(path).resolve())] = sha256
    os.environ[SHA_ENV_VAR] = json.dumps(d, sort_keys=True)


def _check_expected(p: Path, digest: str, what: str) -> None:
    want = _expected(p)
    if want is not None and want != digest:
        raise ValueError(f"{what} {str(p)!r} changed since it was hashed for this run's cache key (SHA-256 "
                         f"{want[:12]}... then, {digest[:12]}... now); its results would be stored under the old "
                         "file's hash: rerun the command")


def hash_bounded(path, what: str = "data file", *, max_file_bytes=None) -> tuple[int, str]:
    """``(bytes, sha256)`` of a regular file within the size limit, streamed (nothing kept in memory).

    Raises
    ------
    ValueError
        One line naming the file: missing, not a regular file, larger than the limit.
    """
    p = Path(os.fspath(path)).expanduser()
    lim = limits(max_file_bytes=max_file_bytes)
    fd = _open_regular(p, what, lim)
    h, n = hashlib.sha256(), 0
    for chunk in _raw_chunks(fd, p, what, lim):
        h.update(chunk)
        n += len(chunk)
    return n, h.hexdigest()


class _Sink:
    """Collects decompressed bytes, counting them and (for text) the lines, against the limits."""

    def __init__(self, p, what, lim, text):
        self.p, self.what, self.lim, self.text = p, what, lim, text
        self.parts, self.n, self.rows = [], 0, 0

    def add(self, b: bytes):
        if not b:
            return
        self.n += len(b)
        if self.n > self.lim["decompressed_bytes"]:
            raise ValueError(f"{self.what} {str(self.p)!r} expands to more than {_gib(self.lim['decompressed_bytes'])} "
                             f"({LIMIT_VARS['decompressed_bytes']}); refused while decompressing")
        if self.text:
            if b"\x00" in b and not (self.n == len(b) and b.startswith((b"\xff\xfe", b"\xfe\xff"))):
                raise ValueError(f"{self.what} {str(self.p)!r} is a binary file (it holds NUL bytes), not a text data "
                                 "file")   # refused at the first chunk that has one, before the rest is read
            self.rows += b.count(b"\n")
            if self.rows > self.lim["rows"]:
                raise ValueError(f"{self.what} {str(self.p)!r} has more than {self.lim['rows']:,} rows "
                                 f"({LIMIT_VARS['rows']}); refused while reading")
        self.parts.append(b)


def _decompressor(kind):
    return {"gzip": lambda: zlib.decompressobj(wbits=31), "bzip2": bz2.BZ2Decompressor,
            "xz": lzma.LZMADecompressor}[kind]()


def _one_stream(d, kind, data: bytes, sink: _Sink) -> bytes:
    """Feed ``data`` to decompressor ``d`` in outputs of at most :data:`_OUT_CAP` bytes; return the input left
    after the end of its stream (``b""`` if the stream goes on)."""
    if kind == "gzip":
        while True:
            out = d.decompress(data, _OUT_CAP)
            sink.add(out)
            data = d.unconsumed_tail
            if d.eof:
                return d.unused_data
            if not data and len(out) < _OUT_CAP:
                return b""
    sink.add(d.decompress(data, max_length=_OUT_CAP))
    while not d.eof and not d.needs_input:
        sink.add(d.decompress(b"", max_length=_OUT_CAP))
    return d.unused_data if d.eof else b""


def _decompress(chunks, kind, sink: _Sink):
    """Feed ``chunks`` through a decompressor into ``sink`` (concatenated streams too), a few MiB at a time, so the
    sink's limits stop a bomb before more than a few MiB past them is held."""
    d = None
    for chunk in chunks:
        data = chunk
        while data:
            if d is None or d.eof:
                if d is not None and not data.strip(b"\x00"):  # padding after the last stream
                    break
                d = _decompressor(kind)
            data = _one_stream(d, kind, data, sink)
    if d is None or not d.eof:
        raise ValueError(f"truncated {kind} stream (the file ends before the compressed data does)")


def read_bounded(path, what: str = "data file", *, text: bool = True, max_file_bytes=None,
                 max_decompressed_bytes=None, max_rows=None) -> bytes:
    """The (decompressed) bytes of a user data file, read once within the limits.

    Parameters
    ----------
    path : str or path-like
    what : str
        How the file is named in errors (``"data set file"``, ``"IDX file"``...).
    text : bool, default True
        A text format (LIBSVM, CSV): count lines against the row limit, refuse NUL bytes and UTF-16,
        drop a UTF-8 byte-order mark.
    max_file_bytes, max_decompressed_bytes, max_rows : int or None
        Override the limits (default: the environment variables of :data:`LIMIT_VARS`, else the defaults).

    Returns
    -------
    bytes
        The file's content, decompressed when it is gzip, bzip2 or xz.

    Raises
    ------
    ValueError
        One line naming the file: missing or not a regular file; over a limit; a corrupt or truncated
        compressed stream; binary content or UTF-16 in a text format; a digest that differs from the
        one recorded for the run's cache key (:func:`record_identity`).
    """
    p = Path(os.fspath(path)).expanduser()
    lim = limits(max_file_bytes, max_decompressed_bytes, max_rows)
    fd = _open_regular(p, what, lim)
    h = hashlib.sha256()
    sink = _Sink(p, what, lim, text)
    def hashed():
        for chunk in _raw_chunks(fd, p, what, lim):
            h.update(chunk)
            yield chunk

    chunks = hashed()
    first = next(chunks, b"")
    kind = next((k for magic, k in _MAGIC if first.startswith(magic)), None)

    def all_chunks():
        if first:
            yield first
        yield from chunks

    if kind is None:
        for c in all_chunks():
            sink.add(c)
    else:
        try:
            _decompress(all_chunks(), kind, sink)
        except (zlib.error, OSError, EOFError, lzma.LZMAError) as e:
            raise ValueError(one_line(f"{what} {str(p)!r} is not a readable {kind} file ({e})")) from None
        except ValueError as e:
            if str(p) in str(e):
                raise
            raise ValueError(one_line(f"{what} {str(p)!r}: {e}")) from None
    _check_expected(p, h.hexdigest(), what)
    data = b"".join(sink.parts)
    if text:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise ValueError(f"{what} {str(p)!r} is UTF-16 text (byte-order mark {data[:2]!r}); save it as UTF-8")
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        if b"\x00" in data[: 1 << 16] or (len(data) > 1 << 16 and b"\x00" in data):
            raise ValueError(f"{what} {str(p)!r} is a binary file (it holds NUL bytes), not a text data file")
    return data
