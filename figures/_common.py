"""What every figure module shares: writing a figure as PNG and PDF, drawing only the panels whose results exist.

Figures read stored results only (``results/<paper>/``); they never run a sampler. A figure is written
to a temporary file next to its target and renamed into place, so a run killed while drawing leaves
the previous figure (or none), never a truncated one; the temporary files of killed runs are removed
by the next save into the same directory.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402

from sgmcmc_verify.store.cache import pid_alive  # noqa: E402
from sgmcmc_verify.store.io import ResultFileError  # noqa: E402

__all__ = ["save_figure", "have", "draw_available", "named_files", "draws_results", "claims_for_figure",
           "stamp_claims", "FIGURE_HOOKS", "paper_style", "PAPER_THEME"]

#: The results directory (``results/<paper>``) a figure module's ``draw_all`` is drawing from (:func:`draws_results`);
#: :func:`save_figure` evaluates the claims of a figure against the results root above it.
_DRAWING: contextvars.ContextVar = contextvars.ContextVar("sgmcmc_verify_figures_drawing", default=None)

#: Callables ``hook(fig, rel, claims)`` run on every figure just before it is written (``rel``: ``<paper>/<name>.png``;
#: ``claims``: the ids of the claims whose figure it is). The figure check of ``tests/figures`` registers one.
FIGURE_HOOKS: list = []

#: ``.<name>.<ext>.<pid>.tmp``: a figure being written by process ``pid``.
_TEMP = re.compile(r"^\..+\.(\d+)\.tmp$")


def _remove_stale(out: Path) -> None:
    for p in out.glob(".*.tmp"):
        m = _TEMP.match(p.name)
        if m and int(m.group(1)) != os.getpid() and not pid_alive(int(m.group(1))):
            p.unlink(missing_ok=True)


#: The seaborn theme every paper's figures are drawn in (:func:`paper_style`).
PAPER_THEME = {"style": "whitegrid", "context": "paper"}


@contextlib.contextmanager
def paper_style():
    """Draw inside the papers' seaborn theme (:data:`PAPER_THEME`) and leave matplotlib as it was found.

    ``sns.set_theme`` changes process-wide state: the rcParams and the single-letter colour codes
    (``"b"``, ``"g"``, ..., ``"k"``). Until #26 the EWSG modules set the theme and left it set, so the HSG-HMC,
    LS-SGLD and vrSG figures were drawn in it when ``sgmcmc-verify figures`` drew every paper in one process and
    in matplotlib's defaults when drawn alone or in another process. Every paper now draws in the theme it had in
    the full run, whatever was drawn before it in the process, and nothing leaks into what is drawn after.
    """
    import matplotlib.colors as mcolors
    import seaborn as sns

    codes = {c: mcolors.colorConverter.colors[c] for c in "bgrmyck"}
    try:
        with matplotlib.rc_context():
            sns.set_theme(**PAPER_THEME)
            yield
    finally:
        mcolors.colorConverter.colors.update(codes)


def draws_results(draw_all):
    """Decorator of a figure module's ``draw_all(results_dir, out_dir)``: while it runs, :func:`save_figure` knows
    the results it draws from, so a claim's figure is stamped with the claim's verdict (:func:`stamp_claims`), and
    the figures are drawn in :func:`paper_style`."""
    import inspect

    sig = inspect.signature(draw_all)
    first = next(iter(sig.parameters))

    @functools.wraps(draw_all)
    def wrapper(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        tok = _DRAWING.set(Path(bound.arguments[first]))
        try:
            with paper_style():
                return draw_all(*args, **kwargs)
        finally:
            _DRAWING.reset(tok)
    return wrapper


@functools.lru_cache(maxsize=1)
def _figure_claims() -> dict:
    from sgmcmc_verify.ledger.claims import all_claims

    out: dict = {}
    for c in all_claims():
        if c.figure:
            out.setdefault(c.figure, []).append(c)
    return out


def claims_for_figure(rel: str) -> list:
    """The claims whose ``figure`` is ``rel`` (``"<paper>/<name>.png"``), in registry order."""
    return list(_figure_claims().get(rel, []))


def stamp_claims(fig, claims, results_root) -> list[str]:
    """Write below everything else on ``fig``: the scale, then one line per claim ``<id>: <verdict>``.

    The verdicts are the ledger's (:func:`sgmcmc_verify.ledger.report.evaluate` on the stored results under
    ``results_root``: the same numbers and rules as the report, nothing run); a claim whose results are not stored
    reads "not run here (no stored result for ...)", one that cannot be evaluated says so with the error.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    claims : list of sgmcmc_verify.ledger.claims.Claim
    results_root : path
        The results root (``results``; the figure reads ``results/<paper>/``).

    Returns
    -------
    list of str
        The lines written.
    """
    from sgmcmc_verify.ledger.report import evaluate

    lines, scales = [], set()
    for c in claims:
        try:
            skipped: list = []
            recs = evaluate([c], results_root, missing="skip", skipped=skipped)
        except Exception as e:  # the figure still shows its evidence, and says why it carries no verdict
            lines.append(f"{c.id}: no verdict (evaluation failed: {type(e).__name__}: {str(e)[:80]})")
            continue
        if not recs:
            lacking = ", ".join(sorted({x for _, es in skipped for x in es}))
            lines.append(f"{c.id}: not run here (no stored result for {lacking})")
            continue
        r = recs[0]
        scales.update(r.get("scale") or [])
        lines.append(f"{c.id}: {r['label']}")
    head = (f"{' + '.join(sorted(scales))} scale" if scales else "scale unknown") + \
        " — the ledger's verdicts on this figure (sgmcmc-verify report):"
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    bb = fig.get_tightbbox(r)   # inches; everything drawn so far
    w, h = fig.get_size_inches()
    fig.text(max(bb.x0, 0.0) / w, (bb.y0 - 0.06) / h, "\n".join([head] + lines), ha="left", va="top", fontsize=7,
             color="0.15", family="DejaVu Sans", linespacing=1.35)
    return [head] + lines


def _n_labels(axis) -> int:
    lo, hi = sorted(axis.get_view_interval())
    fmt_major, fmt_minor = axis.get_major_formatter(), axis.get_minor_formatter()
    n = 0
    for locs, fmt in ((axis.get_majorticklocs(), fmt_major), (axis.get_minorticklocs(), fmt_minor)):
        inside = [v for v in locs if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)]
        if hasattr(fmt, "set_locs"):
            fmt.set_locs(inside)
        n += sum(1 for v in inside if str(fmt(v)).strip())
    return n


def readable_log_ticks(fig) -> None:
    """Give every log axis that would show fewer than two tick labels (a range under about a decade) labelled ticks
    at 1, 2 and 5 × 10^k, or, where none of those falls inside either, at about four plain ``%g`` positions; its
    minor tick labels are hidden."""
    import numpy as np
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator

    fig.canvas.draw()   # the final view limits
    for ax in fig.axes:
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            if scale != "log" or not axis.get_visible() or _n_labels(axis) >= 2:
                continue
            lim = axis.get_view_interval()
            lo, hi = sorted(lim)
            # 1, 2, 5 x 10^k inside the range (a FixedLocator: LogLocator itself turns linear under one decade)
            k0, k1 = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi)))
            cand = [m * 10.0 ** k for k in range(k0, k1 + 1) for m in (1.0, 2.0, 5.0)]
            inside = [v for v in cand if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)]
            axis.set_major_locator(FixedLocator(inside) if len(inside) >= 2 else MaxNLocator(nbins=3))
            axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            axis.set_minor_formatter(NullFormatter())
            axis.set_view_interval(*lim, ignore=True)


def save_figure(fig, out: Path, name: str, dpi: int = 130, plain_log_minor_ticks: bool = False) -> list[Path]:
    """Write ``fig`` to ``out/name.png`` and ``out/name.pdf`` (creating ``out``), close it, return the two paths.

    Each file is written to ``out/.<name>.<ext>.<pid>.tmp`` and renamed into place. A claim's figure (a claim
    whose ``figure`` is ``<out's name>/<name>.png``) drawn inside a :func:`draws_results` ``draw_all`` carries
    the claims' ids, verdicts and scale (:func:`stamp_claims`); every :data:`FIGURE_HOOKS` hook sees the figure
    before it is written.

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
    readable_log_ticks(fig)
    paths = []
    try:
        rel = f"{out.name}/{name}.png"
        claims = claims_for_figure(rel)
        res = _DRAWING.get()
        if claims and res is not None:
            stamp_claims(fig, claims, res.parent)
        for hook in list(FIGURE_HOOKS):
            hook(fig, rel, [c.id for c in claims])
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
