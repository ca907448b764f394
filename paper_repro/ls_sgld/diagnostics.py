"""The scale of W2 a single-mode window can reach on the §4.1.2 mixture (experiment ``ls_sgld.single_mode``).

The W2 between exact draws of the mixture and exact draws restricted to one of its two modes is the
largest W2 (up to the floor) that a window of samples lying wholly in one mode can have — the
yardstick for Table 2's printed 5.36 and 6.73 (``docs/findings.md``). ``sgmcmc-verify run
ls_sgld.single_mode`` writes ``results/ls_sgld/single_mode_w2.json``.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sgmcmc_verify.measure.transport import w2_exact
from sgmcmc_verify.store.io import write_json
from sgmcmc_verify.targets import LSMixtureTarget, mixture_centers

from .mixture import grid_masses, grid_sample
from .settings import SingleModeSettings

__all__ = ["single_mode_w2", "run_single_mode"]


def single_mode_w2(cfg: SingleModeSettings) -> dict:
    """W2 (not squared, ``ot.emd2``) from the mixture to each of its modes alone, with the exact-vs-exact floor.

    Parameters
    ----------
    cfg : SingleModeSettings
        ``points`` per set, ``draw_seed`` of the exact grid draws (``default_rng``), the target seed and
        the quadrature grid.

    Returns
    -------
    dict
        ``major_weight`` (mass on the side of the mean direction), ``w2_major_only``,
        ``w2_minor_only``, ``floor`` (two exact sets), ``points``.
    """
    mix = LSMixtureTarget(mixture_centers(500, cfg.seed))
    rng = np.random.default_rng(cfg.draw_seed)
    grid = grid_masses(mix, cfg.grid_half_width, cfg.grid_spacing)
    draw = lambda k: grid_sample(mix, cfg.grid_half_width, cfg.grid_spacing, k, rng, grid)  # noqa: E731
    points = cfg.points
    ref = draw(points)
    pool = draw(6 * points)
    u = pool.mean(axis=0) / np.linalg.norm(pool.mean(axis=0))
    side = pool @ u > 0
    return {"major_weight": float(side.mean()), "w2_major_only": w2_exact(ref, pool[side][:points]),
            "w2_minor_only": w2_exact(ref, pool[~side][:points]), "floor": w2_exact(ref, draw(points)),
            "points": points}


def run_single_mode(cfg: SingleModeSettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``single_mode_w2.json``."""
    write_json(Path(out_dir) / "single_mode_w2.json", {**single_mode_w2(cfg), "settings": cfg.as_dict()})
