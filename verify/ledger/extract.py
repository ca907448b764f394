"""Helpers for claim extractors: read a paper's stored results, its manifests, and the data a run used.

Extractors (the ``measure=`` of :func:`sgmcmc_verify.ledger.claims.declare`) read stored results only; these
helpers are the common reading steps, shared by every paper.
"""
from __future__ import annotations

from pathlib import Path

from ..store.io import read_csv, read_json
from .measures import DataUsed, TunedChoice

__all__ = ["result", "csv_rows", "json_result", "manifest", "settings", "data_used", "tuned"]


def result(root, paper: str, name: str) -> Path:
    """The path of a stored result file ``<root>/<paper>/<name>``."""
    return Path(root) / paper / name


def csv_rows(root, paper: str, name: str) -> list[dict]:
    """The rows of a stored CSV (typed as :func:`sgmcmc_verify.store.io.read_csv` types them)."""
    return read_csv(result(root, paper, name))


def json_result(root, paper: str, name: str):
    """A stored JSON result."""
    return read_json(result(root, paper, name))


def manifest(root, experiment: str) -> dict:
    """The manifest ``<root>/<paper>/<experiment>.manifest.json`` of a stored experiment (``paper.exp``)."""
    paper = experiment.split(".", 1)[0]
    return read_json(result(root, paper, f"{experiment}.manifest.json"))


def settings(root, experiment: str) -> dict:
    """The settings a stored experiment ran with (from its manifest)."""
    return manifest(root, experiment)["settings"]


def data_used(root, experiment: str, sources: dict | None = None) -> tuple:
    """The data sets a stored experiment read, as :class:`DataUsed` (from the ``data`` entries its settings recorded:
    ``builtin`` for a data set shipped in a package, a path and hash for a file the user gave).

    Parameters
    ----------
    sources : dict, optional
        ``{name: text}`` describing where each set came from (e.g. from the results JSON), shown in the report.

    Raises
    ------
    ValueError
        The experiment's settings record no data (its ``inputs()`` name none).
    """
    recorded = settings(root, experiment).get("data")
    if not recorded:
        raise ValueError(f"{experiment}: its stored settings record no data sets")
    out = []
    for d in recorded:
        name = d.get("name", "?")
        src = (sources or {}).get(name) or (d.get("source") or d.get("path") or ("built-in" if d.get("builtin") else ""))
        out.append(DataUsed(name, str(src), bool(d.get("builtin", False))))
    return tuple(out)


def tuned(value, grid, parameter: str = "step size", least: float | None = None) -> TunedChoice:
    """A :class:`TunedChoice` from a chosen value and the values tried (``least``: the parameter's smallest possible
    value, not a grid edge when the grid starts there)."""
    return TunedChoice(float(value), tuple(float(g) for g in grid), parameter, least)
