"""vrSG-MCMC figures, drawn from ``results/vrsg/*.csv|json`` only (seed ``002_245183f35db8d795.txt``).

``sgmcmc-verify figures vrsg``. Each panel function takes ``(results_dir, out_dir)`` and returns the
paths it wrote, or ``[]`` when its results are not there; :func:`draw_all` calls every one in
:data:`PANELS`.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402,F401

__all__ = ["draw_all", "PANELS"]

#: The panel functions, in drawing order.
PANELS: list = []


def draw_all(results_dir, out_dir) -> list[Path]:
    """Draw every vrSG-MCMC figure whose results exist; returns the written paths."""
    res, out = Path(results_dir), Path(out_dir)
    paths: list[Path] = []
    for panel in PANELS:
        paths += panel(res, out)
    return paths
