"""EWSG conference text §5.1: the KL-vs-data-passes panels, Fig. 1a, Fig. 1c and Figs. 1g–i, at n = 20 (and 50, 100).

Every run is the journal study's :func:`sgmcmc_verify.paper_repro.ewsg.experiments.kl_vs_passes` (ensemble of
realizations, KL(target ‖ Gaussian fit) in nats with its bootstrap s.e., the exact Lyapunov KL where
the sampler is linear) given the conference's settings; nothing here steps a chain.

References
----------
Seed ``003_19372d6d86d2623b.txt``: §5.1, Figure 1a (methods), 1c (choices of x), 1g–i (the best
index-chain length M at n = 20, 50, 100 with b = 1), Algorithm 1.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sgmcmc_verify.paper_repro.ewsg import experiments as X
from sgmcmc_verify.store.io import write_csv

from .settings import Fig1aSettings, Fig1cSettings, Fig1giSettings, MinibatchSpeedSettings

__all__ = ["run_fig1a", "fig1c_runs", "run_fig1c", "best_m_sweep", "run_fig1gi", "run_minibatch_speed"]

_KL_NOTE = ("kl = KL(target || Gaussian fit of the realizations) in nats, kl_se its bootstrap s.e.; "
            "kl_exact empty where no closed form exists")


def run_fig1a(cfg: Fig1aSettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Fig. 1a at n = 20: ``fig1a.csv`` (the journal's panel function with the conference's settings)."""
    X.run_kl_panel("fig1a", cfg, out_dir, n_jobs, backend, progress)


def fig1c_runs(cfg: Fig1cSettings) -> list[dict]:
    """EWSG (M = 1) with every choice of x (:data:`sgmcmc_verify.estimators.X_CHOICES`) at every step size."""
    return [{"label": f"x = {x}, h = {h:g}", "method": "EWSG", "h": h, "M": 1, "x_choice": x}
            for h in cfg.step_sizes for x in cfg.x_choices]


def run_fig1c(cfg: Fig1cSettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Fig. 1c at n = 20: ``fig1c.csv``, KL vs data passes for the four choices of x at each h."""
    rows = X.kl_vs_passes(cfg, fig1c_runs(cfg), "fig1c", n_jobs, backend, progress)
    write_csv(Path(out_dir) / "fig1c.csv", rows, header_comment=(
        f"EWSG conference Figure 1c (choices of x), n={cfg.n_data}, scale={cfg.scale}; {_KL_NOTE}"))


def _last_rows(rows):
    last = {}
    for r in rows:  # rows come in checkpoint order within a run
        last[r["label"]] = r
    return list(last.values())


def best_m_sweep(cfg: Fig1giSettings, n_jobs=1, backend=None, progress=None) -> tuple[list[dict], list[dict]]:
    """KL after ``cfg.passes`` data passes for every (n, data draw, h, M) of the grid.

    Each (n, draw, h) is one panel of :func:`~sgmcmc_verify.paper_repro.ewsg.experiments.kl_vs_passes` with
    ``n_data = n`` and ``seed = draw`` (the seed draws the centers ``c_i`` and roots the
    realizations), one run per M at equal data passes (M + 1 evaluations per step); the panels of one (n, draw) run
    as one joblib task list (:func:`~sgmcmc_verify.paper_repro.ewsg.experiments.kl_vs_passes_many`, the same numbers).

    Returns
    -------
    final : list of dict
        One row per run at its last checkpoint, with ``n_data``, ``data_seed``, ``step_size`` and
        ``index_chain_length``.
    curves : list of dict
        Every checkpoint of the runs on the first data draw (the figure panels).
    """
    final, curves = [], []
    for n in cfg.n_values:
        for draw in cfg.data_seeds:
            c = replace(cfg, n_data=n, seed=draw)
            panels = [(c, [{"label": f"M = {m}", "method": "EWSG", "h": h, "M": m, "x_choice": "recommended"}
                           for m in cfg.index_chain_lengths], "fig1g") for h in cfg.step_sizes]
            for rows in X.kl_vs_passes_many(panels, n_jobs, backend, progress):   # one task list per (n, draw)
                for r in rows:
                    r.update({"n_data": n, "data_seed": draw})
                final += _last_rows(rows)
                if draw == cfg.data_seeds[0]:
                    curves += rows
    return final, curves


def run_fig1gi(cfg: Fig1giSettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Figs. 1g–i: ``best_m.csv`` (final KL of every run) and ``fig1gh.csv`` (curves, first data draw)."""
    final, curves = best_m_sweep(cfg, n_jobs, backend, progress)
    out = Path(out_dir)
    write_csv(out / "best_m.csv", final, header_comment=(
        f"EWSG conference Figs 1g-i, scale={cfg.scale}: KL after {cfg.passes:g} passes for each n, data draw "
        f"(data_seed), h and M; {_KL_NOTE}"))
    write_csv(out / "fig1gh.csv", curves, header_comment=(
        f"EWSG conference Figs 1g-h, scale={cfg.scale}: KL vs data passes, first data draw; {_KL_NOTE}"))


def run_minibatch_speed(cfg: MinibatchSpeedSettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """§5.1, the paragraph on M: ``minibatch_speed.csv``, KL vs data passes of SGHMC(b), EWSG(b, M) and SGHMC(b(M + 1))
    at n = 20 (the journal's Appendix D runs, :func:`sgmcmc_verify.paper_repro.ewsg.appendix.minibatch_runs`)."""
    from sgmcmc_verify.paper_repro.ewsg.appendix import kl_curves, minibatch_runs

    rows, _ = kl_curves(cfg, minibatch_runs(cfg), "appD", n_jobs, backend, progress)
    write_csv(Path(out_dir) / "minibatch_speed.csv", rows, header_comment=(
        f"EWSG conference §5.1 (comparable speed with minibatch b/(M+1)), n={cfg.n_data}, h={cfg.step_size:g}, "
        f"M={cfg.index_chain_length}, scale={cfg.scale}: SGHMC b, EWSG b, SGHMC b(M+1); {_KL_NOTE}"))
