"""LS-SGLD on the §4.1.2 Gaussian mixture: Table 2 / Fig. 2 (W2 to exact and MH references) and Fig. 3 (LD vs LS-LD).

References
----------
Seed ``004_8438bd4b543e0fc4.txt``: §4.1.2, Table 2, Figure 2; §4.1.3, eq. (4.3), Figure 3, Remark 3.6.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sgmcmc_verify.analytic.ls_mixing import mean_estimate_asymptotic_covariance
from sgmcmc_verify import samplers
from sgmcmc_verify.integrators.metropolis import MALA
from sgmcmc_verify.integrators.smoothing import paper_2d_smoothing
from sgmcmc_verify.measure.transport import TransportBatch
from sgmcmc_verify.runner import block_sizes, run_chains, run_tasks
from sgmcmc_verify.store.cache import package_versions
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets import GaussianTarget, LSMixtureTarget, mixture_centers

from .settings import Fig3Settings, Table2Settings

__all__ = ["mixture_reference_mean", "grid_sample", "grid_masses", "run_fig3", "run_table2", "fig3_tasks", "table2_tasks", "PAPER_TABLE2"]


def mixture_reference_mean(target, half_width: float, spacing: float) -> np.ndarray:
    """Mean of the §4.1.2 mixture law by quadrature of ``exp(−V)`` on a square grid.

    Parameters
    ----------
    target : LSMixtureTarget
    half_width : float
        The grid covers ``[−half_width, half_width]²`` (the density is below e⁻⁴⁰ of its peak
        outside for the widths used here; the tail mass is reported by the caller's grid check).
    spacing : float
        Grid spacing.

    Returns
    -------
    (2,) ndarray
        ``Σ x e^{−V(x)} / Σ e^{−V(x)}`` over the grid (midpoint rule; spectrally accurate for a
        smooth density that vanishes at the edges).
    """
    g = np.arange(-half_width, half_width + spacing / 2, spacing)
    X, Y = np.meshgrid(g, g, indexing="ij")
    pts = np.stack([X.ravel(), Y.ravel()], axis=1)
    V = np.concatenate([target.potential(pts[i:i + 20000]) for i in range(0, len(pts), 20000)])
    w = np.exp(-(V - V.min()))
    return (w[:, None] * pts).sum(axis=0) / w.sum()


def grid_masses(target, half_width, spacing):
    """The grid discretization of ``exp(−V)`` on ``[−half_width, half_width]²``: ``(points (m, 2), masses (m,))``.

    The potential on every grid point (m = (2·half_width/spacing + 1)², 251,001 at the default 0.04) is most of a
    :func:`grid_sample` call: compute it once with this and pass it as ``grid=`` to every draw of one target.
    """
    g = np.arange(-half_width, half_width + spacing / 2, spacing)
    X, Y = np.meshgrid(g, g, indexing="ij")
    pts = np.stack([X.ravel(), Y.ravel()], axis=1)
    V = np.concatenate([target.potential(pts[i:i + 20000]) for i in range(0, len(pts), 20000)])
    w = np.exp(-(V - V.min()))
    return pts, w / w.sum()


def grid_sample(target, half_width, spacing, size, rng, grid=None):
    """``size`` exact draws from the grid discretization of ``exp(−V)`` (cell chosen by its mass, uniform within).

    ``grid``: :func:`grid_masses` of the same ``(target, half_width, spacing)``, computed once for many draws (the
    same numbers as without it).
    """
    pts, p = grid_masses(target, half_width, spacing) if grid is None else grid
    idx = rng.choice(len(pts), size=size, p=p)
    return pts[idx] + spacing * (rng.random((size, 2)) - 0.5)


def _fig3_target(tname: str, seed: int):
    """The Gaussian (4.3) (mean (1, 2), covariance 4.5 I) or the §4.1.2 mixture (500 centers from ``seed``)."""
    if tname == "gaussian_4.3":
        return GaussianTarget(np.eye(2) * 4.5, mean=np.array([1.0, 2.0]))
    return LSMixtureTarget(mixture_centers(500, seed))


def _position(state):
    return state.position


def _fig3_block(tname, seed, sigma, step_size, runs, checkpoints, seed_seq):
    """One task of Fig. 3: ``runs`` LS-LD chains (σ = 0: LD) from 0; checkpoints and running means (runs, C, 2)."""
    smp = samplers.ls_ld(_fig3_target(tname, seed), step_size, paper_2d_smoothing(sigma))
    run = run_chains(smp, smp.init(np.zeros((runs, 2))), np.random.default_rng(seed_seq), checkpoints=checkpoints,
                     time_average={"mean": _position})
    return run["steps"], run["mean"]


def _fig3_pairs():
    return [(t, m) for t in ("gaussian_4.3", "mixture_4.1.2") for m in ("LD", "LS-LD")]


def fig3_tasks(cfg: Fig3Settings) -> list[tuple]:
    """The arguments of the Fig. 3 tasks (:func:`_fig3_block`): per (target, method) its blocks of runs.

    Block b of pair i is seeded by ``SeedSequence([seed, 3]).spawn(4)[i].spawn(n_blocks)[b]``, so the numbers do
    not depend on ``n_jobs``.
    """
    ck = np.unique(np.geomspace(100, cfg.samples, 12).round().astype(int))
    sizes = block_sizes(cfg.runs, cfg.block_size)
    tasks = []
    for (tname, name), pair_seed in zip(_fig3_pairs(), np.random.SeedSequence([cfg.seed, 3]).spawn(4)):
        sigma = cfg.sigma if name == "LS-LD" else 0.0
        tasks += [(tname, cfg.seed, sigma, cfg.step_size, size, ck, sd) for size, sd in zip(sizes, pair_seed.spawn(len(sizes)))]
    return tasks


def run_fig3(cfg: Fig3Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Fig. 3: MSE of the mean estimated from N samples of LD vs LS-LD; ``fig3.csv``, ``fig3.json``.

    LD and LS-LD (eq. (4.1) matrix, σ = ``sigma``) by EM with step ``step_size`` from x₀ = 0, ``runs``
    independent runs (the paper: 10); targets: the Gaussian (4.3) (mean (1, 2), covariance 4.5 I)
    and the §4.1.2 mixture (reference mean by quadrature). LD is run as LS-LD with the σ = 0 matrix
    (the identity). The runs of each (target, method) are split into blocks of ``block_size``, one
    joblib task each (seeds fixed per block: the numbers do not depend on ``n_jobs``). Also the exact asymptotic MSE ratio LS-LD / LD for the Gaussian: the
    time-average variance of an OU process ``dX = −BX dt + √2 A^{−1/2}dB`` is ``2 B⁻¹S_∞/T``,
    ``B = A⁻¹H``, so the ratio is ``tr(A H⁻²)/tr(H⁻²) = tr(A)/d`` for an isotropic H (``1 + σ`` for
    eq. (4.1)).
    """
    mu_g = np.array([1.0, 2.0])
    mu_m = mixture_reference_mean(_fig3_target("mixture_4.1.2", cfg.seed), cfg.grid_half_width, cfg.grid_spacing)
    rows = []
    pairs, tasks = _fig3_pairs(), fig3_tasks(cfg)
    sizes = block_sizes(cfg.runs, cfg.block_size)
    blocks = run_tasks(_fig3_block, tasks, n_jobs=n_jobs, backend=backend)
    for p, (tname, name) in enumerate(pairs):
        mine = blocks[p * len(sizes):(p + 1) * len(sizes)]
        steps = mine[0][0]
        means = np.concatenate([b[1] for b in mine], axis=0)   # (runs, checkpoints, 2)
        mu = mu_g if tname == "gaussian_4.3" else mu_m
        sigma = cfg.sigma if name == "LS-LD" else 0.0
        for j, k in enumerate(steps):
            err = np.sum((means[:, j] - mu) ** 2, axis=1)
            rows.append({"target": tname, "method": name, "samples": int(k), "mse": float(err.mean()),
                         "mse_se": float(err.std(ddof=1) / np.sqrt(len(err))), "step_size": cfg.step_size,
                         "sigma": sigma, "runs": cfg.runs})
    A = paper_2d_smoothing(cfg.sigma).matrix(2)
    write_csv(Path(out_dir) / "fig3.csv", rows, header_comment=(
        f"LS-SGLD Fig 3, scale={cfg.scale}: MSE of the running-mean estimate of the target mean, LD vs LS-LD "
        f"(EM, step {cfg.step_size}, eq. (4.1) matrix sigma={cfg.sigma}), {cfg.runs} runs from x0=0"))
    cov_g = _fig3_target("gaussian_4.3", cfg.seed).cov
    tr_v = {"LD": float(np.trace(mean_estimate_asymptotic_covariance(cov_g))),
            "LS-LD": float(np.trace(mean_estimate_asymptotic_covariance(cov_g, A)))}
    write_json(Path(out_dir) / "fig3.json", {"mixture_reference_mean": mu_m.tolist(),
                                             "gaussian_asymptotic_mse_ratio_exact": float(np.trace(A) / 2),
                                             "gaussian_asymptotic_trace_V": tr_v,
                                             "gaussian_asymptotic_mse": "trace_V / (samples * step_size)",
                                             "versions": package_versions()})


#: Table 2 as printed (rows SGLD, pSGLD, LS-SGLD; columns 1e5, 5e5, 9e5 iterations), seed lines 307–311.
PAPER_TABLE2 = {("SGLD", 100_000): 0.695, ("SGLD", 500_000): 6.726, ("SGLD", 900_000): 0.285,
                ("pSGLD", 100_000): 5.364, ("pSGLD", 500_000): 0.286, ("pSGLD", 900_000): 6.728,
                ("LS-SGLD", 100_000): 0.421, ("LS-SGLD", 500_000): 0.414, ("LS-SGLD", 900_000): 0.418}


def _table2_samplers(mix, cfg):
    """SGLD, pSGLD (the paper's convention), LS-SGLD, LS-pSGLD with the eq. (4.1) matrix, batch ``batch_size``."""
    op = paper_2d_smoothing(cfg.sigma)
    b, h = cfg.batch_size, cfg.step_size
    return [samplers.sgld(mix, h, batch_size=b),
            samplers.psgld(mix, h, batch_size=b, preconditioner_input="full", smoothing=0.0),
            samplers.ls_sgld(mix, h, op, batch_size=b),
            samplers.ls_psgld(mix, h, op, batch_size=b, preconditioner_input="full")]


def _reference_draws(cfg: Table2Settings, seed_seq):
    """The random part of Table 2's references, one task of :func:`run_table2`'s list: the exact grid sets, the
    MALA chain (from an exact grid draw, ``mh_steps`` steps) and the reference-agreement replicates, in the order
    one generator ``default_rng(seed_seq)`` drew them before this was a task.

    Returns
    -------
    ref_grid, ref_grid2, ref_mh : (w2_points, 2) ndarrays
    reps : list of ``(a, b)`` exact grid sets, ``floor_reps`` of them
    acceptance : float   the MALA chain's mean acceptance rate
    """
    mix = LSMixtureTarget(mixture_centers(500, cfg.seed))
    rng = np.random.default_rng(seed_seq)
    grid = grid_masses(mix, cfg.grid_half_width, cfg.grid_spacing)
    draw = lambda: grid_sample(mix, cfg.grid_half_width, cfg.grid_spacing, cfg.w2_points, rng, grid)  # noqa: E731
    ref_grid, ref_grid2 = draw(), draw()
    mala = MALA(mix, cfg.mh_step)
    run = run_chains(mala, mala.init(draw()), rng, steps=cfg.mh_steps, trace_info=True)
    reps = [(draw(), draw()) for _ in range(cfg.floor_reps)]
    return ref_grid, ref_grid2, run["state"].position, reps, float(np.nanmean(run["info_trace"]["acceptance_rate"]))


def _references(draws, batch):
    """The reference problems (added to ``batch``) from :func:`_reference_draws`'s sets: the grid and MALA references,
    the floors, the reference-agreement problems (fresh exact grid sets a_k, b_k: W2(a_k, b_k) is the sampling floor,
    W2(a_k, MH) what the MH reference adds to it) and the acceptance rate."""
    ref_grid, ref_grid2, ref_mh, reps, acceptance = draws
    floors = (batch.exact(ref_grid, ref_grid2), batch.exact(ref_grid, ref_mh))
    rep_problems = [(batch.exact(a, b), batch.exact(a, ref_mh)) for a, b in reps]
    return ref_grid, ref_mh, floors, rep_problems, acceptance


def _table2_task(cfg: Table2Settings, k, seed_seq):
    """A task of :func:`run_table2`'s list: ``k = None`` the references' draws, else sampler ``k``'s chains."""
    return _reference_draws(cfg, seed_seq) if k is None else _table2_sampler_run(cfg, k, seed_seq)


def table2_tasks(cfg: Table2Settings) -> list[tuple]:
    """The arguments of the Table 2 chain tasks (:func:`_table2_sampler_run`), seeds ``SeedSequence([seed, 5]).spawn(4)``."""
    return [(cfg, k, sd) for k, sd in enumerate(np.random.SeedSequence([cfg.seed, 5]).spawn(4))]


def _table2_sampler_run(cfg: Table2Settings, k: int, seed_seq):
    """One task of Table 2: sampler ``k``'s ``chains`` chains for the largest iteration count.

    Returns its name, the thinned window (chains, w2_points, 2) ending at each iteration count, and the
    Fig. 2 samples of chain 0 (every 4th of the last 2,000 of each window).
    """
    mix = LSMixtureTarget(mixture_centers(500, cfg.seed))
    smp = _table2_samplers(mix, cfg)[k]
    iters, win, m = sorted(cfg.iters), cfg.window, cfg.w2_points
    traj = run_chains(smp, smp.init(np.zeros((cfg.chains, 2))), np.random.default_rng(seed_seq), steps=iters[-1],
                      keep_last=iters[-1])["kept"]  # (chains, iterations, 2)
    windows, samples = {}, {}
    for N in iters:
        w = traj[:, max(0, N - win):N]
        thin = np.linspace(0, w.shape[1] - 1, m).round().astype(int)
        windows[N] = np.ascontiguousarray(w[:, thin, :])
        samples[N] = np.array(w[0, -min(2000, w.shape[1]):, :][::4])
    return smp.name, windows, samples


def run_table2(cfg: Table2Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Table 2 / Fig. 2: W2 between the last samples and reference samples; ``table2.csv``, ``table2_floors.csv``, ``fig2_samples.csv``.

    Samplers SGLD, pSGLD, LS-SGLD, LS-pSGLD (eq. (4.1), σ = 1), batch 10, step ``step_size`` (not
    given in the text), ``chains`` independent chains each; the window "last 10⁴ samples before
    iteration N" of one long chain (same law as a separate run of length N); each sampler's chains are
    one joblib task. References: (a) exact
    draws from the density on a fine grid (quadrature), (b) MALA (Metropolis-adjusted, the "MCMC
    with MH step") started from an independent exact grid draw and run ``mh_steps`` steps.
    W2 by ``ot.emd2`` on ``w2_points`` points of each (the window thinned evenly; the paper:
    10⁴), reported not squared, with the reference-vs-reference floor. The references' draws (one task, the
    grid masses computed once for all its draws) and the samplers' chains are one joblib list; every transport problem is gathered in a :class:`~sgmcmc_verify.measure.transport.TransportBatch`
    and solved afterwards over ``n_jobs`` joblib workers (numbers independent of ``n_jobs``).
    """
    batch = TransportBatch()
    m, win, iters = cfg.w2_points, cfg.window, sorted(cfg.iters)
    cells, srows = [], []
    # one joblib list: the references' draws (the grid masses and the MALA chain: the longest task, first) and one
    # task per sampler (its chains stay vectorized: with 2-D states a step of 3 chains costs what a step of 1 costs,
    # so splitting chains would multiply the work, not shorten the longest task)
    draws, *runs = run_tasks(_table2_task, [(cfg, None, np.random.SeedSequence([cfg.seed, 2]))] + table2_tasks(cfg),
                             n_jobs=n_jobs, backend=backend)
    ref_grid, ref_mh, floors, reps, acceptance = _references(draws, batch)
    for name, windows, samples in runs:
        for N in iters:
            for c in range(cfg.chains):
                pts = np.ascontiguousarray(windows[N][c])
                cells.append((name, N, c, batch.exact(pts, ref_grid), batch.exact(pts, ref_mh)))
            for p in samples[N]:
                srows.append({"sampler": name, "iterations": N, "x1": float(p[0]), "x2": float(p[1])})
    batch.solve(n_jobs, backend)
    floor_rows = [{"replicate": k, "w2_grid_vs_grid": a.value, "w2_grid_vs_mh": b.value, "points": m,
                   "mh_steps": cfg.mh_steps, "mh_step": cfg.mh_step} for k, (a, b) in enumerate(reps)]
    rows = [{"sampler": name, "iterations": N, "chain": c, "w2_grid": g.value, "w2_mh": h.value,
             "floor_grid_vs_grid": floors[0].value, "floor_grid_vs_mh": floors[1].value,
             "paper_value": PAPER_TABLE2.get((name, N), float("nan")), "step_size": cfg.step_size,
             "sigma": cfg.sigma if name.startswith("LS") else 0.0, "points": m, "window": win,
             "mh_acceptance": acceptance} for name, N, c, g, h in cells]
    for p in ref_grid[:500]:
        srows.append({"sampler": "reference (grid)", "iterations": 0, "x1": float(p[0]), "x2": float(p[1])})
    out = Path(out_dir)
    write_csv(out / "table2.csv", rows, header_comment=(
        f"LS-SGLD Table 2, scale={cfg.scale}: W2 (not squared, ot.emd2) between {m} points of the last {win} samples "
        f"and {m} reference points (grid-exact; MALA); step {cfg.step_size} (not printed in the paper), batch "
        f"{cfg.batch_size}, sigma {cfg.sigma} (eq. 4.1)"))
    write_csv(out / "table2_floors.csv", floor_rows, header_comment=(
        f"LS-SGLD Table 2 references: W2 (ot.emd2, not squared) between two independent exact grid sets of {m} points "
        f"(the sampling floor) and between an exact grid set and the MALA reference, {cfg.floor_reps} replicates"))
    write_csv(out / "fig2_samples.csv", srows, header_comment="samples for the Fig. 2 density plots (chain 0)")
