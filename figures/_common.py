"""What every figure module shares: writing a figure as PNG and PDF, drawing only the panels whose results exist.

Figures read stored results only (``results/<paper>/``); they never run a sampler. A figure is written
to a temporary file next to its target and renamed into place, so a run killed while drawing leaves
the previous figure (or none), never a truncated one; the temporary files of killed runs are removed
by the next save into the same directory.
"""
from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402

from sgmcmc_verify.store.cache import pid_alive  # noqa: E402
from sgmcmc_verify.store.io import ResultFileError  # noqa: E402

__all__ = ["save_figure", "have", "draw_available", "named_files"]

#: ``.<name>.<ext>.<pid>.tmp``: a figure being written by process ``pid``.
_TEMP = re.compile(r"^\..+\.(\d+)\.tmp$")


def _remove_stale(out: Path) -> None:
    for p in out.glob(".*.tmp"):
        m = _TEMP.match(p.name)
        if m and int(m.group(1)) != os.getpid() and not pid_alive(int(m.group(1))):
            p.unlink(missing_ok=True)


def save_figure(fig, out: Path, name: str, dpi: int = 130, plain_log_minor_ticks: bool = False) -> list[Path]:
    """Write ``fig`` to ``out/name.png`` and ``out/name.pdf`` (creating ``out``), close it, return the two paths.

    Each file is written to ``out/.<name>.<ext>.<pid>.tmp`` and renamed into place.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    out : pathlib.Path
        Directory (``figures/out/<paper>/``).
    name : str
        File stem.
    dpi : int, default 130
        Resolution of the PNG.
    plain_log_minor_ticks : bool, default False
        Hide the minor tick labels of log-scaled x axes (short log ranges otherwise print every minor tick).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _remove_stale(out)
    if plain_log_minor_ticks:
        for ax in fig.axes:
            if ax.get_xscale() == "log":
                ax.xaxis.set_minor_formatter(NullFormatter())
    paths = []
    try:
        for ext in ("png", "pdf"):
            p = out / f"{name}.{ext}"
            tmp = out / f".{name}.{ext}.{os.getpid()}.tmp"
            try:
                fig.savefig(tmp, dpi=dpi, bbox_inches="tight", format=ext)
                os.replace(tmp, p)
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
            paths.append(p)
    finally:
        plt.close(fig)
    return paths


def have(res: Path, *names: str) -> bool:
    """Whether every file of ``names`` exists in ``res``."""
    return all((Path(res) / n).exists() for n in names)


def draw_available(panels, res: Path, out: Path) -> list[Path]:
    """Draw each panel whose result files exist; skip the others.

    Parameters
    ----------
    panels : iterable of ``(files, draw)``
        ``files``: the file names (in ``res``) the panel reads; ``draw(res, out) -> list of paths``.
    res, out : pathlib.Path

    Returns
    -------
    list of pathlib.Path
        The files written.

    Raises
    ------
    sgmcmc_verify.errors.ResultFileError
        A panel that fails on its files, naming them (:func:`named_files`).
    """
    paths: list[Path] = []
    for files, draw in panels:
        if have(res, *files):
            with named_files([Path(res) / f for f in files], getattr(draw, "__name__", "panel")):
                paths += draw(Path(res), Path(out))
    return paths


@contextlib.contextmanager
def named_files(files, panel: str):
    """Turn a panel's failure on its files (a missing row, column or key) into an error naming the files.

    Raises
    ------
    sgmcmc_verify.errors.ResultFileError
        For a ``KeyError``, ``IndexError``, ``ValueError`` or ``TypeError`` raised inside (the original
        is chained; ``--debug`` shows it).
    """
    try:
        yield
    except ResultFileError:
        raise
    except (KeyError, IndexError, ValueError, TypeError) as e:
        raise ResultFileError(", ".join(str(f) for f in files), f"{panel} could not be drawn from these files "
                              f"({type(e).__name__}: {e})", "`sgmcmc-verify run <experiment> --force` recomputes "
                              "them") from e
