"""HSG-HMC Lemmas 2–3: the mean square error of the hybrid estimator (7) along real runs.

Experiments never plot: they write tidy CSV/JSON into the directory they are given;
``figures/hsg_hmc.py`` reads them.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: eq. (7), Lemmas 2–3 with (9)–(12), Corollary 2, Remark 2,
Assumptions 1–3.
"""
from __future__ import annotations

import functools
import itertools
import math
from pathlib import Path

import numpy as np
from scipy.special import expit

from sgmcmc_verify.analytic.hsg_lemma3 import condition9_terms, lemma3_C, lemma3_Ebar
from sgmcmc_verify.estimators import HybridGradient, UniformMinibatch
from sgmcmc_verify.integrators.exponential import ExponentialIntegrator, friction_for_decay
from sgmcmc_verify.measure.rates import fit_slope
from sgmcmc_verify.runner import RealizationStudy, run_chains, run_realizations_many
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets.mixtures import assumption_constants, hsg_mixture_target

from .settings import LemmaSettings

__all__ = ["lemma_block", "lemma3_constants", "lemma_studies", "run_lemmas", "SLOPE_TOLERANCE"]

#: Half-width (slope units) of the band around −1 for the early-decay slope of Lemma 3's first term;
#: fixed before measuring (the cross term between u_k and w_k and the x-dependence of the
#: one-sample variance bend the curve slightly at k ~ 20).
SLOPE_TOLERANCE = 0.2


def _schedule(name: str):
    """``"harmonic"``/``"periodic"`` or ``"constant<ρ>"`` → (schedule, rho)."""
    if name.startswith("constant"):
        return "constant", float(name[len("constant"):])
    return name, None


def _all_component_grads(target, x):
    """``∇f_i(x)`` for all i: (chains, d) → (chains, N, d) (a full pass, for diagnostics)."""
    s = x @ target.centers.T
    w = 2.0 * expit(2.0 * s + math.log(2.0)) - 1.0
    return x[:, None, :] - w[..., None] * target.centers[None]


def lemma_block(n_chains, rng, *, n_data, dim, mixture_seed, step_size, schedule, steps,
                estimator_class=HybridGradient):
    """Run HSG-HMC from ``(0, 0)`` and record the estimator error and the terms of Lemma 2 at every k.

    The chains are stepped by :func:`sgmcmc_verify.runner.run_chains`; the estimate ``g^(k)`` used in step
    ``k + 1`` is read from the estimator's state after that step, and one more estimator call at the
    last position gives ``g^(steps)``.

    Parameters
    ----------
    n_chains : int
    rng : numpy.random.Generator
    n_data, dim, mixture_seed : the target (:func:`sgmcmc_verify.targets.hsg_mixture_target`)
    step_size : float
        η; the friction follows Remark 2.
    schedule : str
        ``"harmonic"``, ``"periodic"`` or ``"constant<ρ>"``.
    steps : int
    estimator_class : type, default :class:`~sgmcmc_verify.estimators.HybridGradient`
        Called as ``estimator_class(UniformMinibatch(1), schedule, step_size, rho)`` (tests pass a
        planted-bug subclass here).

    Returns
    -------
    dict of (chains, steps+1) / (chains, steps) arrays
        ``err2[k] = ‖g^(k) − ∇f(x^(k))‖²``; ``sig2[k] = E_ξ‖∇F(x^(k), ξ) − ∇f(x^(k))‖²`` (exact);
        ``dx2[k] = ‖x^(k+1) − x^(k)‖²``; ``diff2[k] = E_ξ‖∇F(x^(k+1), ξ) − ∇F(x^(k), ξ)‖²`` (exact);
        ``rho`` (steps+1,) the weights (ρ_0 := 1 for the unbiased start).
    """
    target = hsg_mixture_target(n_data, dim, mixture_seed)
    sched, rho = _schedule(schedule)
    est = estimator_class(UniformMinibatch(1), sched, step_size, rho)
    sampler = ExponentialIntegrator(target, step_size, None, est, name="HSG-HMC")
    run = run_chains(sampler, sampler.init(np.zeros((n_chains, dim))), rng, checkpoints=np.arange(steps + 1),
                     observe={"x": lambda s: s.position,
                              "g": lambda s: s.estimator_state.previous_gradient if s.step else s.position},
                     trace_info=True)
    last = sampler.estimator(run["state"].estimator_state, rng, target, run["state"].position)
    xs = run["x"]
    grads = np.concatenate([run["g"][:, 1:], last.gradient[:, None]], axis=1)
    rhos = np.concatenate([run["info_trace"]["rho"], [last.info["rho"]]]) if steps else np.array([last.info["rho"]])
    err2, sig2 = np.empty((n_chains, steps + 1)), np.empty((n_chains, steps + 1))
    dx2, diff2 = np.empty((n_chains, steps)), np.empty((n_chains, steps))
    comp = _all_component_grads(target, np.ascontiguousarray(xs[:, 0]))
    for k in range(steps + 1):
        full = comp.mean(axis=1)
        err2[:, k] = np.sum((grads[:, k] - full) ** 2, axis=1)
        sig2[:, k] = np.mean(np.sum((comp - full[:, None, :]) ** 2, axis=-1), axis=1)
        if k == steps:
            break
        x, pos = xs[:, k], np.ascontiguousarray(xs[:, k + 1])
        comp_new = _all_component_grads(target, pos)
        dx2[:, k] = np.sum((pos - x) ** 2, axis=1)
        diff2[:, k] = np.mean(np.sum((comp_new - comp) ** 2, axis=-1), axis=1)
        comp = comp_new
    return {"err2": err2, "sig2": sig2, "dx2": dx2, "diff2": diff2, "rho": rhos}


def lemma3_constants(target, step_size, u=1.0, friction=None) -> dict:
    """The constants of Lemma 3 for the mixture target at step size η (γ from Remark 2 unless ``friction`` is given).

    ``G`` is taken as ``max(√G²_bound, max_ξ‖∇F(0, ξ)‖ + 1)`` (the statement asks
    ``G ≥ max{‖∇F(0,ξ)‖, σ²} + 1`` with σ undefined in the text; we drop σ). Returns C (11), Ē (12),
    the seven terms of condition (9) and whether η satisfies it.
    """
    ac = assumption_constants(target)
    d = target.dim
    gam = friction_for_decay(step_size) if friction is None else float(friction)
    grad0 = np.linalg.norm(target.component_gradients(np.zeros((1, d)), np.arange(target.n)[None])[0], axis=1).max()
    G = max(math.sqrt(ac.G2), grad0 + 1.0)
    G2, M, m, b = G * G, ac.M, ac.m, ac.b
    C = float(lemma3_C(gam, M=M, d=d, u=u))
    xs2 = float(np.sum(ac.x_star**2))
    Ebar = float(lemma3_Ebar(gam, M=M, m=m, b=b, d=d, G2=G2, x_star_sq=xs2, f0_minus_fstar=ac.f0_minus_fstar, u=u))
    cond = condition9_terms(gam, M=M, m=m, b=b, d=d, u=u).tolist()
    return {"step_size": step_size, "friction": gam, "G": G, "G2": G2, "G2_variance_bound": ac.G2, "M": M, "m": m,
            "b": b, "x_star": ac.x_star.tolist(), "f0_minus_fstar": ac.f0_minus_fstar, "C": C, "Ebar": Ebar,
            "condition9_terms": cond, "condition9_max_step": min(cond), "satisfies_condition9": step_size <= min(cond),
            "bound_slope_coefficient": C * M**2 * Ebar * step_size**2}


def _harmonic_fit(k, mse):
    """Least squares of ``e_k ≈ A/k + B k`` (k >= 1), nonnegative coefficients."""
    from scipy.optimize import nnls

    X = np.stack([1.0 / k, k.astype(float)], axis=1)
    w = 1.0 / mse  # relative errors
    coef, _ = nnls(X * w[:, None], mse * w)
    return float(coef[0]), float(coef[1])


def lemma_studies(s: LemmaSettings) -> list[RealizationStudy]:
    """One :class:`~sgmcmc_verify.runner.RealizationStudy` per (step size, schedule), in that order.

    Study ``ci`` keeps seed ``s.seed + 1000 + ci`` and its block seeds: the numbers are those of one
    ``run_realizations`` call per study, for any ``n_jobs``.
    """
    return [RealizationStudy(functools.partial(lemma_block, n_data=s.n_data, dim=s.dim, mixture_seed=s.mixture_seed,
                                               step_size=h, schedule=sched, steps=s.steps),
                             s.chains, s.seed + 1000 + ci, s.block_size, ("err2", "sig2", "dx2", "diff2"))
            for ci, (h, sched) in enumerate(itertools.product(s.step_sizes, s.schedules))]


def run_lemmas(s: LemmaSettings, out_dir, n_jobs=1, backend=None, progress=None):
    """Lemma 2 (recursion, as an inequality between measured quantities) and Lemma 3 (shape of (10)).

    Writes ``lemma.csv`` (one row per schedule, η and k) and ``lemma.json`` (constants, fits).
    """
    target = hsg_mixture_target(s.n_data, s.dim, s.mixture_seed)
    out = Path(out_dir)
    rows, fits = [], {}
    consts = {f"{h:g}": lemma3_constants(target, h) for h in s.step_sizes}
    # every (step size, schedule) study's blocks form one joblib task list (no barrier between studies)
    grid = list(itertools.product(s.step_sizes, s.schedules))
    studies = lemma_studies(s)
    results = run_realizations_many(studies, n_jobs=n_jobs, backend=backend)
    for (h, sched), r in zip(grid, results):
        rows += _lemma_rows(sched, h, r, consts[f"{h:g}"])
        fits[f"{sched}|{h:g}"] = _lemma_fits(sched, h, r, consts[f"{h:g}"], s)
    # growth coefficient B ∝ η² across step sizes (harmonic schedule)
    hs = [h for h in s.step_sizes if fits[f"harmonic|{h:g}"]["fit_B"] > 0]
    growth = {"step_sizes": hs, "B": [fits[f"harmonic|{h:g}"]["fit_B"] for h in hs]}
    if len(hs) >= 2:
        growth["slope"] = float(np.polyfit(np.log(hs), np.log(growth["B"]), 1)[0])
    write_csv(out / "lemma.csv", rows)
    write_json(out / "lemma.json", {"constants": consts, "fits": fits, "growth": growth,
                                    "slope_window": list(s.slope_window), "slope_tolerance": SLOPE_TOLERANCE})


def _lemma_gaps(r, cst):
    """Per-realization gaps of Lemma 2, (R, steps): the sharp form and the stated form."""
    rho, err2, sig2, dx2, diff2 = r["rho"], r["err2"], r["sig2"], r["dx2"], r["diff2"]
    rr = rho[1:][None, :]
    # Lemma 2, sharp form (the proof's inequality before Assumption 2):
    # e_{k+1} <= 2ρ²σ²(x_{k+1}) + (1−ρ)²(e_k + 2 E_ξ‖∇F(x_{k+1},ξ) − ∇F(x_k,ξ)‖²)
    z = err2[:, 1:] - (2 * rr**2 * sig2[:, 1:] + (1 - rr) ** 2 * (err2[:, :-1] + 2 * diff2))
    # Lemma 2 as stated, with the closed-form G² and M of the target
    z_stated = err2[:, 1:] - (2 * rr**2 * cst["G2"] + (1 - rr) ** 2 * (err2[:, :-1] + 2 * cst["M"] ** 2 * dx2))
    return z, z_stated


def _mse_and_bound(err2, cst):
    """Mean and s.e. of the estimator error over realizations, and the bound (10) at every k."""
    mse, mse_se = err2.mean(0), err2.std(0, ddof=1) / math.sqrt(err2.shape[0])
    k = np.arange(err2.shape[1])
    bound10 = np.where(k > 0, 2 * cst["G2"] / np.maximum(k, 1) + cst["bound_slope_coefficient"] * k, np.nan)
    return mse, mse_se, k, bound10


def _lemma_rows(sched, h, r, cst):
    """One ``lemma.csv`` row per k."""
    rho, err2, sig2, dx2, diff2 = r["rho"], r["err2"], r["sig2"], r["dx2"], r["diff2"]
    R = err2.shape[0]
    z, z_stated = _lemma_gaps(r, cst)
    mse, mse_se, _, bound10 = _mse_and_bound(err2, cst)
    nan = float("nan")
    return [{"schedule": sched, "step_size": h, "k": int(j), "rho": float(rho[j]), "mse": float(mse[j]),
             "mse_se": float(mse_se[j]), "sigma2": float(sig2[:, j].mean()),
             "dx2": float(dx2[:, j].mean()) if j < dx2.shape[1] else nan,
             "diff2": float(diff2[:, j].mean()) if j < diff2.shape[1] else nan,
             "lemma2_gap": float(z[:, j - 1].mean()) if j > 0 else nan,
             "lemma2_gap_se": float(z[:, j - 1].std(ddof=1) / math.sqrt(R)) if j > 0 else nan,
             "lemma2_stated_gap": float(z_stated[:, j - 1].mean()) if j > 0 else nan,
             "lemma2_stated_gap_se": float(z_stated[:, j - 1].std(ddof=1) / math.sqrt(R)) if j > 0 else nan,
             "bound10": float(bound10[j])} for j in range(err2.shape[1])]


def _lemma_fits(sched, h, r, cst, s):
    """The Lemma 2 z-scores and the Lemma 3 shape fits of one (schedule, η)."""
    err2, sig2, diff2 = r["err2"], r["sig2"], r["diff2"]
    R = err2.shape[0]
    z, z_stated = _lemma_gaps(r, cst)
    mse, mse_se, k, bound10 = _mse_and_bound(err2, cst)
    zs = z.mean(0) / np.maximum(z.std(0, ddof=1) / math.sqrt(R), 1e-300)
    zst = z_stated.mean(0) / np.maximum(z_stated.std(0, ddof=1) / math.sqrt(R), 1e-300)
    w0, w1 = s.slope_window
    kk = np.arange(w0, w1 + 1)
    # normalize by the mean one-sample variance at the same k: the variance σ²(x) changes as the
    # chains leave x = 0, and Lemma 3's shape is about the estimator, not about σ²(x_k)
    norm = err2 / sig2.mean(axis=0)[None, :]
    slope = fit_slope(kk, norm[:, kk], n_boot=500, rng=s.seed)
    late = np.arange(max(2, err2.shape[1] // 2), err2.shape[1])
    slope_late = fit_slope(late, norm[:, late], n_boot=500, rng=s.seed)
    A, B = _harmonic_fit(k[1:], norm.mean(0)[1:])
    return {
        "schedule": sched, "step_size": h, "realizations": R, "steps": int(err2.shape[1] - 1),
        "lemma2_max_z": float(zs.max()), "lemma2_max_gap": float(z.mean(0).max()),
        "lemma2_stated_max_z": float(zst.max()),
        "early_slope": slope.as_dict(), "late_slope": slope_late.as_dict(),
        "fit_A": A, "fit_B": B, "mean_sigma2": float(sig2.mean()),
        "growth_predicted_B": float(diff2.mean() / sig2.mean() / 3.0),
        "mse_first": float(mse[1]), "mse_last": float(mse[-1]), "normalized_first": float(norm.mean(0)[1]),
        "normalized_last": float(norm.mean(0)[-1]), "normalized_min": float(norm.mean(0)[1:].min()),
        "mse_last_se": float(mse_se[-1]), "mse_min": float(mse[1:].min()), "argmin_k": int(1 + np.argmin(mse[1:])),
        "bound10_max_ratio": float(np.nanmax(mse[1:] / bound10[1:])),
    }
