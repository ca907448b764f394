"""Diagnostics that read no stored result: the scale of W2 a single-mode window can reach on the §4.1.2 mixture.

``python -c "from paper_repro.ls_sgld.diagnostics import single_mode_w2; print(single_mode_w2())"``
prints the W2 between exact draws of the mixture and exact draws restricted to one of its two modes
— the largest W2 (up to the floor) that a window of samples lying wholly in one mode can have, the
yardstick for Table 2's printed 5.36 and 6.73 (``docs/findings.md``).
"""
from __future__ import annotations

import numpy as np

from verify.measure.transport import w2_exact
from verify.targets import LSMixtureTarget, mixture_centers

from .mixture import grid_sample
from .settings import Table2Settings

__all__ = ["single_mode_w2"]


def single_mode_w2(points: int = 3000, seed: int = 1, scale: str = "paper") -> dict:
    """W2 (not squared, ``ot.emd2``) from the mixture to each of its modes alone, with the exact-vs-exact floor.

    Parameters
    ----------
    points : int
        Size of every point set.
    seed : int
        ``default_rng`` seed of the exact grid draws.
    scale : str
        Settings scale of Table 2 (target seed, grid).

    Returns
    -------
    dict
        ``major_weight`` (mass on the side of the mean direction), ``w2_major_only``,
        ``w2_minor_only``, ``floor`` (two exact sets), ``points``.
    """
    cfg = Table2Settings.at(scale)
    mix = LSMixtureTarget(mixture_centers(500, cfg.seed))
    rng = np.random.default_rng(seed)
    draw = lambda k: grid_sample(mix, cfg.grid_half_width, cfg.grid_spacing, k, rng)  # noqa: E731
    ref = draw(points)
    pool = draw(6 * points)
    u = pool.mean(axis=0) / np.linalg.norm(pool.mean(axis=0))
    side = pool @ u > 0
    return {"major_weight": float(side.mean()), "w2_major_only": w2_exact(ref, pool[side][:points]),
            "w2_minor_only": w2_exact(ref, pool[~side][:points]), "floor": w2_exact(ref, draw(points)),
            "points": points}
