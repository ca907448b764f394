"""HSG-HMC Lemma 3: how the growth term of the estimator error scales with the step size η, and condition (9) as a set.

Two studies (experiments never plot; ``figures/hsg_hmc.py`` reads what they write):

* **Growth in η** (:func:`run_growth`). With ``ρ_k = 1/k`` the error ``e_k = E‖g^(k) − ∇f(x^(k))‖²``
  of the hybrid estimator (7) first decays like ``1/k`` and then grows linearly in ``k`` (the
  second term ``C M² Ē η² k`` of (10)). Writing ``k g^(k)`` as a sum of martingale increments
  ``ζ_j = δ_j(x_j) + (j − 1)(δ_j(x_j) − δ_j(x_{j−1}))`` with ``δ_j(x) = ∇F(x, ξ_j) − ∇f(x)`` gives
  ``e_k = k⁻² Σ_j E‖ζ_j‖² ≈ A/k + c + B k`` with ``B = D/3``, ``D`` the mean-squared change of the
  per-sample noise over one step; we fit that three-term model and read the growth coefficient
  ``B``. To make the chains' law the same at every η except through η itself, each chain starts
  from an *exact* draw of the target (``x`` from the grid quadrature of
  :func:`sgmcmc_verify.targets.mixtures.grid_density`, ``v ~ N(0, uI)``, the stationary law of (3)), and
  every run covers the same simulated time ``T = K η`` (``K = ⌈T/η⌉`` steps), so that the fit window
  holds the same number of decay times ``√(A/B) ∝ 1/η`` at every η. The exponent of ``B`` in η is
  a log–log slope over ≥ 5 step sizes with a percentile bootstrap over chains (each step size's
  chains resampled independently). Runs: exact starts with Remark 2's friction (``e^{−γη} = 0.9``,
  ``γ ∝ 1/η``), exact starts with a fixed friction, and Lemma 3's own start ``(0, 0)`` with
  Remark 2's friction (the earlier design, kept to show where its chains are). Where the chains
  are is recorded: the fraction of chains in the heavier mode, the one-sample variance ``σ²(x_k)``
  and the local mean-squared smoothness ``(1/N) Σ_i ‖∇²f_i(x_k)‖_F²`` averaged over the fit window,
  next to their exact expectations under the target.
* **Condition (9)** (:func:`run_condition9`): the boundary ``η_max(γ)`` on a log grid of ``γ``, the
  largest admissible η over all ``γ``, and the tied sets under ``e^{−γη} = q`` for several ``q``
  (:mod:`sgmcmc_verify.analytic.hsg_lemma3`), with the target's constants ``M, m, b``.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: eq. (7), Lemma 3 with (9)–(12), Remark 2, Assumptions 1–3.
"""
from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
from scipy.optimize import lsq_linear
from scipy.special import expit

from sgmcmc_verify.analytic.hsg_lemma3 import (CONDITION9_TERMS, bound10_growth_coefficient, condition9_best,
                                 condition9_max_step, condition9_terms, condition9_tied)
from sgmcmc_verify.estimators import HybridGradient, UniformMinibatch
from sgmcmc_verify.integrators.exponential import ExponentialIntegrator, friction_for_decay
from sgmcmc_verify.runner import run_chains, run_realizations
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets.mixtures import assumption_constants, grid_density, hsg_mixture_target, sample_from_grid

from .lemmas import lemma3_constants
from .settings import Condition9Settings, GrowthSettings

__all__ = ["growth_block", "fit_growth", "growth_exponent", "run_growth", "run_condition9", "GROWTH_TOLERANCE"]

#: Half-width of the band around 2 for the exponent of the growth coefficient in η, fixed before
#: measuring: 2 is the leading order (the step ``x^(k+1) − x^(k)`` is ``η`` times an O(1) velocity term
#: plus ``η²`` times the gradient), and on η ≤ 0.1 with ``‖g‖ ≈ 3`` the ``η²`` part and the
#: discretization bias of the law move ``B`` by up to ~30 % across the grid, ~0.2 in the slope.
GROWTH_TOLERANCE = 0.3


@functools.lru_cache(maxsize=4)
def _grid(n_data, dim, mixture_seed, cells):
    return grid_density(hsg_mixture_target(n_data, dim, mixture_seed), cells=cells)


def _observers(target, n_chains, stride):
    """What :func:`growth_block` records after step k, about iteration k − 1 (the estimator holds g^(k−1), x^(k−1))."""
    abar = target.centers.mean(axis=0)
    a2 = np.sum(target.centers**2, axis=1)

    def err2(s):
        x, g = s.estimator_state.previous_position, s.estimator_state.previous_gradient
        return np.sum((g - target.full_gradient(x)) ** 2, axis=1)

    def sig2(s):  # a full (chains, N, d) pass: every ``stride``-th iteration only (NaN elsewhere)
        if (s.step - 1) % stride:
            return np.full(n_chains, np.nan)
        return target.gradient_variance(s.estimator_state.previous_position)

    def hess2(s):  # mean_i ‖∇²f_i(x)‖_F² = mean_i (d − 2 s_i‖a_i‖² + s_i²‖a_i‖⁴), s_i = 4p_i(1 − p_i)
        if (s.step - 1) % stride:
            return np.full(n_chains, np.nan)
        p = expit(2.0 * s.estimator_state.previous_position @ target.centers.T + math.log(2.0))
        si = 4.0 * p * (1.0 - p)
        return np.mean(target.dim - 2.0 * si * a2 + si**2 * a2**2, axis=1)

    return {"err2": err2, "sig2": sig2, "hess2": hess2,
            "major": lambda s: (s.estimator_state.previous_position @ abar > 0).astype(float)}


def growth_block(n_chains, rng, *, n_data, dim, mixture_seed, step_size, friction, steps, start="stationary",
                 grid_cells=600, u=1.0, estimator_class=HybridGradient):
    """HSG-HMC with ``ρ_k = 1/k`` from exact target draws (or from ``(0, 0)``); the error at every k.

    Parameters
    ----------
    n_chains : int
    rng : numpy.random.Generator
    n_data, dim, mixture_seed : the target (:func:`sgmcmc_verify.targets.hsg_mixture_target`)
    step_size : float
        η > 0.
    friction : float or None
        γ > 0; ``None`` is Remark 2's ``e^{−γη} = 0.9``.
    steps : int
        K >= 2.
    start : {"stationary", "origin"}
        ``"stationary"``: ``x`` an exact draw from the grid quadrature (``grid_cells`` cells per axis),
        ``v ~ N(0, uI)``; ``"origin"``: ``(0, 0)`` as Lemma 3 states.
    grid_cells : int, default 600
    u : float, default 1
    estimator_class : type, default :class:`~sgmcmc_verify.estimators.HybridGradient`
        Called as ``estimator_class(UniformMinibatch(1), "harmonic", step_size)`` (tests pass a
        planted-bug subclass).

    Returns
    -------
    dict of (chains, K) arrays, column j holding iteration k = j
        ``err2`` ``‖g^(k) − ∇f(x^(k))‖²``; ``sig2`` ``E_ξ‖∇F(x^(k), ξ) − ∇f(x^(k))‖²`` (exact, at every
        ``max(1, K // 40)``-th k, NaN elsewhere);
        ``hess2`` ``(1/N) Σ_i ‖∇²f_i(x^(k))‖_F²``, the local mean-squared smoothness (same k's as ``sig2``);
        ``major`` 1.0 where ``⟨x^(k), ā⟩ > 0`` (the mode of weight 2/3), else 0.0.

    Raises
    ------
    ValueError
        Unknown ``start``, ``steps < 2``; the sampler's own checks.
    """
    if start not in ("stationary", "origin"):
        raise ValueError(f"start must be 'stationary' or 'origin', got {start!r}")
    if steps < 2:
        raise ValueError(f"steps must be >= 2, got {steps!r}")
    target = hsg_mixture_target(n_data, dim, mixture_seed)
    if start == "stationary":
        x0 = sample_from_grid(_grid(n_data, dim, mixture_seed, grid_cells), n_chains, rng)
        v0 = math.sqrt(u) * rng.standard_normal((n_chains, dim))
    else:
        x0, v0 = np.zeros((n_chains, dim)), np.zeros((n_chains, dim))
    est = estimator_class(UniformMinibatch(1), "harmonic", step_size)
    sampler = ExponentialIntegrator(target, step_size, friction, est, u=u, name="HSG-HMC")
    run = run_chains(sampler, sampler.init(x0, v0), rng, checkpoints=np.arange(1, steps + 1),
                     observe=_observers(target, n_chains, max(1, steps // 40)))
    return {key: run[key] for key in ("err2", "sig2", "hess2", "major")}


def fit_growth(k, err2, *, n_boot=0, rng=0):
    """Fit ``e_k ≈ A/k + c + B k`` to the mean over chains (weights ``1/e_k``, ``A, B >= 0``).

    Parameters
    ----------
    k : (K,) array_like of int >= 1
    err2 : (R, K) ndarray
        Per-chain squared errors ``‖g^(k) − ∇f(x^(k))‖²``.
    n_boot : int, default 0
        Bootstrap replicates over chains (rows resampled with replacement).
    rng : Generator or int

    Returns
    -------
    dict
        ``A``, ``c``, ``B`` on the mean, and ``B_boot`` (n_boot,) the bootstrap values of ``B``.

    Raises
    ------
    ValueError
        Mismatched shapes, fewer than 3 k's, ``k < 1``, or a non-positive mean error.

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``, Lemma 3, eq. (10) (the model adds the constant ``c``
    that the martingale expansion in the module docstring produces).
    """
    k = np.asarray(k, dtype=float)
    err2 = np.asarray(err2, dtype=float)
    if err2.ndim != 2 or err2.shape[1] != k.size or k.size < 3 or np.any(k < 1):
        raise ValueError(f"need k (K,) >= 1 with K >= 3 and err2 (R, K); got {k.shape} and {err2.shape}")
    X = np.stack([1.0 / k, np.ones_like(k), k], axis=1)
    bounds = ([0.0, -np.inf, 0.0], [np.inf, np.inf, np.inf])

    def one(mean):
        if np.any(mean <= 0):
            raise ValueError("the mean error must be > 0 at every k")
        w = 1.0 / mean
        return lsq_linear(X * w[:, None], mean * w, bounds=bounds, method="bvls").x

    A, c, B = one(err2.mean(axis=0))
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    R = err2.shape[0]
    boot = np.array([one(err2[rng.integers(0, R, R)].mean(axis=0))[2] for _ in range(int(n_boot))])
    return {"A": float(A), "c": float(c), "B": float(B), "B_boot": boot}


def growth_exponent(step_sizes, B, B_boot, level=0.95):
    """Log–log slope of ``B`` in η with a percentile interval from independent per-η bootstraps.

    Parameters
    ----------
    step_sizes : (m,) array_like of float > 0, m >= 2
    B : (m,) array_like
        Growth coefficients on the full sample.
    B_boot : (m, n_boot) array_like
        Bootstrap replicates of each ``B`` (replicate j of every η combined into one slope).
    level : float, default 0.95

    Returns
    -------
    dict
        ``slope``, ``ci_low``, ``ci_high``, ``level``, ``n_boot``, ``n_boot_nonpositive`` (replicates with
        some ``B <= 0``, kept with ``B`` clipped to the smallest float so they sit in the tails), and
        ``ci_unbounded`` (more of those than ``(1 − level)/2`` of the replicates).

    Raises
    ------
    ValueError
        Fewer than 2 step sizes, non-positive step sizes or ``B``, mismatched shapes.
    """
    h = np.asarray(step_sizes, dtype=float)
    B = np.asarray(B, dtype=float)
    Bb = np.asarray(B_boot, dtype=float)
    if h.size < 2 or np.any(h <= 0) or B.shape != h.shape or Bb.ndim != 2 or Bb.shape[0] != h.size:
        raise ValueError(f"need >= 2 step sizes > 0 with matching B and B_boot; got {h.shape}, {B.shape}, {Bb.shape}")
    if np.any(B <= 0):
        raise ValueError(f"B must be > 0 for a log-log fit, got {B.tolist()}")
    lx = np.log(h) - np.log(h).mean()
    slope = float(np.sum(lx * np.log(B)) / np.sum(lx**2))
    tiny = np.finfo(float).tiny
    bs = np.sum(lx[:, None] * np.log(np.clip(Bb, tiny, None)), axis=0) / np.sum(lx**2)
    nonpos = int(np.sum(np.any(Bb <= 0, axis=0)))
    a = (1 - level) / 2
    return {"slope": slope, "ci_low": float(np.quantile(bs, a)), "ci_high": float(np.quantile(bs, 1 - a)),
            "level": level, "n_boot": int(Bb.shape[1]), "n_boot_nonpositive": nonpos,
            "ci_unbounded": bool(nonpos > a * Bb.shape[1])}


def _bound_terms(target, step_sizes, frictions):
    """The bound's growth coefficient ``C M² Ē η²`` at each (η, γ), with the constants of ``lemma3_constants``."""
    c = lemma3_constants(target, float(step_sizes[0]))
    kw = dict(M=c["M"], m=c["m"], b=c["b"], d=target.dim, G2=c["G2"], x_star_sq=float(np.sum(np.square(c["x_star"]))),
              f0_minus_fstar=c["f0_minus_fstar"])
    return np.asarray(bound10_growth_coefficient(np.asarray(step_sizes), np.asarray(frictions), **kw)), kw


def _config_runs(s: GrowthSettings, start, rule, ci, n_jobs, backend):
    """Run every step size of one (start, friction rule); per-η summary rows and bootstrap replicates."""
    rows, boots = [], []
    for j, h in enumerate(s.step_sizes):
        steps = max(3, math.ceil(s.horizon / h))
        gam = friction_for_decay(h) if rule == "remark2" else s.fixed_friction
        fn = functools.partial(growth_block, n_data=s.n_data, dim=s.dim, mixture_seed=s.mixture_seed, step_size=h,
                               friction=gam, steps=steps, start=start, grid_cells=s.grid_cells)
        r = run_realizations(fn, s.chains, seed=s.seed + 5000 + 100 * ci + j, block_size=s.block_size,
                             n_jobs=n_jobs, backend=backend, chain_keys=("err2", "sig2", "hess2", "major"))
        k = np.arange(1, steps)
        f = fit_growth(k, r["err2"][:, 1:], n_boot=s.n_boot, rng=s.seed + j)
        boots.append(f["B_boot"])
        mse = r["err2"].mean(axis=0)
        q = max(2, steps // 4 + 1)  # the first quarter of the window, where a start away from the target shows
        rows.append({"start": start, "friction_rule": rule, "step_size": h, "friction": gam, "steps": steps,
                     "A": f["A"], "c": f["c"], "B": f["B"], "B_ci_low": float(np.quantile(f["B_boot"], 0.025)),
                     "B_ci_high": float(np.quantile(f["B_boot"], 0.975)), "mse_first": float(mse[1]),
                     "mse_last": float(mse[-1]), "major_fraction": float(r["major"][:, 1:].mean()),
                     "sigma2_mean": float(np.nanmean(r["sig2"][:, 1:])),
                     "hess2_mean": float(np.nanmean(r["hess2"][:, 1:])),
                     "sigma2_early": float(np.nanmean(r["sig2"][:, 1:q])), "hess2_early": float(np.nanmean(r["hess2"][:, 1:q])),
                     "chains": int(r["err2"].shape[0])})
    return rows, np.array(boots)


def _exact_expectations(target, grid):
    """Heavier-mode weight, ``E σ²(x)`` and ``E (1/N) Σ_i ‖∇²f_i(x)‖_F²`` under the grid quadrature of the target."""
    X, Y = np.meshgrid(grid.x, grid.y, indexing="ij")
    pts = np.stack([X.ravel(), Y.ravel()], axis=1)
    p = grid.prob.ravel()
    a2 = np.sum(target.centers**2, axis=1)
    sig2 = hess2 = 0.0
    for i in range(0, len(pts), 5000):
        x, w = pts[i:i + 5000], p[i:i + 5000]
        sig2 += float(np.sum(w * target.gradient_variance(x)))
        pp = expit(2.0 * x @ target.centers.T + math.log(2.0))
        si = 4.0 * pp * (1.0 - pp)
        hess2 += float(np.sum(w * np.mean(target.dim - 2 * si * a2 + si**2 * a2**2, axis=1)))
    return {"exact_major_fraction": float(p[pts @ target.centers.mean(axis=0) > 0].sum()), "exact_sigma2": sig2,
            "exact_hess2": hess2}


def run_growth(s: GrowthSettings, out_dir, n_jobs=1, backend=None, progress=None):
    """Lemma 3's growth coefficient against η on ≥ 5 step sizes, three designs; the bound's own term beside it.

    Writes ``growth.csv`` (one row per design and η) and ``growth.json`` (exponents with intervals,
    the bound's exponents, the exact mode weight and one-sample variance of the target).
    """
    target = hsg_mixture_target(s.n_data, s.dim, s.mixture_seed)
    exact = _exact_expectations(target, _grid(s.n_data, s.dim, s.mixture_seed, s.grid_cells))
    rows, fits = [], {}
    for ci, (start, rule) in enumerate(s.designs):
        rr, boots = _config_runs(s, start, rule, ci, n_jobs, backend)
        h = np.array([r["step_size"] for r in rr])
        bound, _ = _bound_terms(target, h, [r["friction"] for r in rr])
        for r, bd in zip(rr, bound):
            r["bound_coefficient"] = float(bd)
        rows += rr
        B = [r["B"] for r in rr]
        meas = (growth_exponent(h, B, boots) if min(B) > 0 else
                {"slope": None, "reason": "a growth coefficient fitted as 0 (no growth resolved in the window)"})
        fits[f"{start}|{rule}"] = {"start": start, "friction_rule": rule, "step_sizes": h.tolist(), "measured": meas,
                                   "bound_slope": float(np.polyfit(np.log(h), np.log(bound), 1)[0])}
    hh = np.geomspace(1e-6, 1.0, 121)
    tied, _ = _bound_terms(target, hh, [friction_for_decay(x) for x in hh])
    write_csv(Path(out_dir) / "growth.csv", rows)
    write_json(Path(out_dir) / "growth.json", {
        "fits": fits, "tolerance": GROWTH_TOLERANCE, **exact, "horizon": s.horizon, "fixed_friction": s.fixed_friction,
        "bound_remark2_curve": {"step_size": hh.tolist(), "coefficient": tied.tolist()},
        "bound_remark2_argmin_step": float(hh[int(np.argmin(tied))]),
        "bound_remark2_small_step_slope": float(np.polyfit(np.log(hh[:10]), np.log(tied[:10]), 1)[0])})


def run_condition9(s: Condition9Settings, out_dir, n_jobs=1, backend=None, progress=None):
    """Condition (9) as a set: ``η_max(γ)`` on a log grid, its maximum, and the tied sets ``e^{−γη} = q``.

    Writes ``condition9.csv`` (one row per γ: the seven terms, ``eta_max``, the binding term) and
    ``condition9.json`` (constants, the best point, the tied sets, the experiments' (γ, η) pairs).
    """
    target = hsg_mixture_target(s.n_data, s.dim, s.mixture_seed)
    ac = assumption_constants(target)
    kw = dict(M=ac.M, m=ac.m, b=ac.b, d=target.dim, u=s.u)
    gam = np.geomspace(s.friction_low, s.friction_high, s.friction_points)
    terms = condition9_terms(gam, **kw)
    em, bind = condition9_max_step(gam, **kw)
    rows = [{"friction": float(g), "eta_max": float(e), "binding_term": CONDITION9_TERMS[int(i)],
             **{f"T{j + 1}": float(terms[j, n]) for j in range(7)}} for n, (g, e, i) in enumerate(zip(gam, em, bind))]
    tied = [condition9_tied(q, **kw) for q in s.decays]
    tested = [{"step_size": h, "friction": friction_for_decay(h), "satisfies": bool(
        h <= condition9_max_step(friction_for_decay(h), **kw)[0])} for h in s.tested_step_sizes]
    write_csv(Path(out_dir) / "condition9.csv", rows)
    write_json(Path(out_dir) / "condition9.json", {
        "constants": kw, "terms": list(CONDITION9_TERMS), "best": condition9_best(**kw), "tied": tied,
        "remark2_decay": 0.9, "tested": tested})
