"""What every figure module shares: writing a figure as PNG and PDF.

Figures read stored results only (``results/<paper>/``); they never run a sampler.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402

__all__ = ["save_figure"]


def save_figure(fig, out: Path, name: str, dpi: int = 130, plain_log_minor_ticks: bool = False) -> list[Path]:
    """Write ``fig`` to ``out/name.png`` and ``out/name.pdf`` (creating ``out``), close it, return the two paths.

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
    if plain_log_minor_ticks:
        for ax in fig.axes:
            if ax.get_xscale() == "log":
                ax.xaxis.set_minor_formatter(NullFormatter())
    paths = []
    for ext in ("png", "pdf"):
        p = out / f"{name}.{ext}"
        fig.savefig(p, dpi=dpi, bbox_inches="tight")
        paths.append(p)
    plt.close(fig)
    return paths
