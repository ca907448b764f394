"""Check 1, consistency and weak order: stationary mean and covariance error vs h on known Gaussians.

On the EWSG §5.1 Gaussian ``V = Σ_i ½‖θ − c_i‖²`` and an anisotropic Gaussian
``Σ_i ½(θ − c_i)ᵀP(θ − c_i)``, the audited sampler runs R independent chains from exact draws at six
step sizes spanning a factor 20 in ``h``; after a burn-in, each chain's time averages of θ and θθᵀ give
the stationary mean and covariance. The errors (in posterior standard deviations, and relative in the
whitened Frobenius norm) are fitted as ``e ∝ h^p`` over the points above the Monte Carlo floor, with a
bootstrap interval over chains. Where the sampler exposes a linear recursion
(:func:`~sgmcmc_verify.audit.common.exact_recursion`) the exact errors are computed too (discrete Lyapunov
equation), the order is fitted on them, and the Monte Carlo estimate is checked against the exact law.

A consistent sampler has errors that go to 0 as h → 0; a planted bug (a missing √2 in the noise: the
covariance is halved at every h; a constant gradient offset: the mean is shifted at every h) gives an
error that does not, and is flagged. The rule (:func:`order_verdict`): the signed whitened errors are
extrapolated to h = 0 by a quadratic in h (:func:`extrapolated_error`); the sampler is flagged when the
intercept is more than ``FLAG_FACTOR`` bootstrap standard errors from 0, at least half the error at the
smallest h, and the error has stopped decreasing over the three smallest h (slope interval below
``VANISHING_SLOPE``). A significant intercept with an error still decreasing there cannot be told from a
slowly vanishing error on this grid: the check then runs once more on the grid divided by
``LOWER_GRID_FACTOR`` (fresh seeds) and decides there; if the lower grid is undecided too, it is a ``warn``.

The exact start keeps the law of a sampler that never moves, so the largest-h run has a twin started from
a point mass ``displacement`` posterior s.d. away (:func:`~sgmcmc_verify.audit.mixing.displaced_twin`); the
row is flagged when the twin does not reach the moments the exact-start chains keep.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: §5.1 (the target), eq. (3), Appendix E; weak order of
Euler–Maruyama schemes for the invariant law (Mattingly, Stuart & Tretyakov 2010).
"""
from __future__ import annotations

import dataclasses
from functools import partial

import numpy as np

from sgmcmc_verify.analytic.linear_samplers import stationary_moments

from ..runner import run_chains, run_realizations
from ..targets.gaussian import anisotropic_gaussian_means_target, gaussian_means_target
from .common import CheckResult, bootstrap_error_slope, exact_draws, exact_recursion, init_state, make_sampler, whitened_errors
from .mixing import displaced_twin, twin_sentence

__all__ = ["moments_block", "stationary_moment_runs", "consistency_check", "order_verdict", "ORDER_TOLERANCE"]

#: Half-width of the band around the expected order: the h grid spans a factor 20, where the next
#: term of the expansion (h² against h) moves a fitted slope by up to ~0.2 at the largest h·L = 0.04–0.08.
ORDER_TOLERANCE = 0.3

#: Consistency fails when the signed errors extrapolated to h = 0 (quadratic in h) differ from 0 by more
#: than this many bootstrap standard errors (and are at least half the error at the smallest h): a
#: 4-σ excursion has probability ~6e-5 per component for a consistent sampler ...
FLAG_FACTOR = 4.0

#: ... and the error has stopped decreasing at the small end: the upper end of the slope interval over
#: the three smallest h is below this (an error that vanishes like h^p, p >= 0.3, is not flagged).
VANISHING_SLOPE = 0.3

#: When the first grid leaves consistency undecided (a significant intercept, the error still decreasing at the
#: small end), the whole check runs once more on the grid divided by this factor, and decides there. 20 is the
#: span of the grid itself (the new largest h is the old smallest); the cost grows by about this factor (steps ∝
#: 1/h). Chosen as the first value tried, on EWSG-LD (docs/audit.md), not tuned.
LOWER_GRID_FACTOR = 20.0


def moments_block(n_chains, rng, *, factory, params, target, step_size, burn_in, steps):
    """One block of chains: per-chain time averages of θ and θθᵀ over ``steps`` steps after ``burn_in``.

    Returns
    -------
    dict
        ``"m1"`` (chains, d), ``"m2"`` (chains, d, d), ``"evals"`` (chains,) gradient evaluations per step.
    """
    s = make_sampler(factory, target, step_size, params)
    state = init_state(s, exact_draws(target, n_chains, rng), rng)
    out = run_chains(s, state, rng, checkpoints=[burn_in, burn_in + steps], unit="steps",
                     time_average={"m1": lambda st: st.position,
                                   "m2": lambda st: st.position[:, :, None] * st.position[:, None, :]})
    K0, K1 = out["steps"][0], out["steps"][-1]
    m1 = (K1 * out["m1"][:, -1] - K0 * out["m1"][:, 0]) / (K1 - K0)
    m2 = (K1 * out["m2"][:, -1] - K0 * out["m2"][:, 0]) / (K1 - K0)
    return {"m1": m1, "m2": m2, "evals": np.full(n_chains, out["evaluations"] / max(K1, 1))}


def _time_unit(target):
    ev = np.linalg.eigvalsh(target.hessian)
    return float(ev.max()), float(ev.min())


def stationary_moment_runs(factory, params, target, hL, chains, burn_in_time, sample_time, seed, *,
                           block_size=1000, n_jobs=1, batch_size=None):
    """Per-chain stationary moment estimates at every ``h = hL[j] / L``, through :func:`run_realizations`.

    Returns
    -------
    list of dict
        One ``{"h", "m1", "m2", "exact"}`` per step size; ``exact`` is ``(mean, cov)`` of the exact
        linear law or ``None``.
    """
    L, lam = _time_unit(target)
    p = dict(params) if batch_size is None else {**params, "batch_size": batch_size}
    seeds = np.random.SeedSequence(seed).generate_state(len(hL))
    runs = []
    for j, x in enumerate(hL):
        h = float(x) / L
        burn, steps = int(np.ceil(burn_in_time / (lam * h))), int(np.ceil(sample_time / (lam * h)))
        fn = partial(moments_block, factory=factory, params=p, target=target, step_size=h, burn_in=burn, steps=steps)
        out = run_realizations(fn, chains, seed=int(seeds[j]), block_size=block_size, n_jobs=n_jobs,
                               chain_keys=("m1", "m2", "evals"))
        rec = exact_recursion(make_sampler(factory, target, h, p))
        exact = None
        if rec is not None:
            mz, Sz = stationary_moments(rec)
            d = rec.position_dim
            exact = (mz[:d], Sz[:d, :d])
        runs.append({"h": h, "hL": float(x), "m1": out["m1"], "m2": out["m2"], "exact": exact, "steps": steps,
                     "burn_in": burn})
    return runs


def _err_fns(target):
    """Signed-vector functions of the mean and covariance errors (their norms are :func:`whitened_errors`)."""

    def e_mean(pc, idx):
        return _signed(target, pc[0], pc[1], idx)[0]

    def e_cov(pc, idx):
        return _signed(target, pc[0], pc[1], idx)[1]

    return e_mean, e_cov


def _signed(target, m1, m2, idx=None):
    """Signed whitened errors: ``(Σ^{-1/2}(m − μ) (d,), upper triangle of Σ^{-1/2}CΣ^{-1/2} − I)``."""
    if idx is not None:
        m1, m2 = m1[idx], m2[idx]
    w, V = np.linalg.eigh(target.posterior_cov)
    Wi = V @ np.diag(w**-0.5) @ V.T
    m = m1.mean(axis=0)
    E = Wi @ (m2.mean(axis=0) - np.outer(m, m)) @ Wi - np.eye(len(w))
    iu = np.triu_indices(len(w))
    return Wi @ (m - target.posterior_mean), E[iu] * np.where(iu[0] == iu[1], 1.0, np.sqrt(2.0))


def extrapolated_error(h, runs, target, *, n_boot=400, rng=0) -> dict:
    """The signed errors extrapolated to h = 0 by a quadratic in h (least squares over the grid).

    A consistent sampler's stationary moments converge to the target's as h → 0, so the intercept is
    0; a missing √2 in the noise (covariance halved) or a constant gradient offset (mean shifted) leaves
    an intercept of the size of the error itself. The off-diagonal covariance entries carry a factor
    √2 so that the norm of the triangle is the Frobenius norm.

    Returns
    -------
    dict
        ``mean``/``cov``: ``{"intercept": list, "norm": float, "z": float}`` where ``z`` is the largest
        |intercept| / bootstrap standard error over the components.
    """
    rng = np.random.default_rng(rng)
    deg = 2 if len(h) >= 4 else 1
    X = np.vander(np.asarray(h), deg + 1)       # columns h², h, 1
    pinv = np.linalg.pinv(X)

    def icpt(per_h):
        M = np.array([np.concatenate(v) for v in per_h])   # (m, k)
        return (pinv @ M)[-1]

    est = icpt([_signed(target, r["m1"], r["m2"]) for r in runs])
    boot = np.array([icpt([_signed(target, r["m1"], r["m2"], rng.integers(0, r["m1"].shape[0], r["m1"].shape[0]))
                           for r in runs]) for _ in range(n_boot)])
    se = boot.std(axis=0, ddof=1)
    d = target.dim
    out = {}
    for key, sl in (("mean", slice(0, d)), ("cov", slice(d, None))):
        z = np.abs(est[sl]) / np.maximum(se[sl], 1e-300)
        out[key] = {"intercept": est[sl].tolist(), "se": se[sl].tolist(), "norm": float(np.linalg.norm(est[sl])),
                    "z": float(z.max())}
    return out


def _intercept_state(fit, zero, local):
    """The consistency rule's first question (module docstring): ``None`` when the error extrapolated to h = 0 is
    not significant; else ``"stalled"`` (the error stopped decreasing over the three smallest h: flagged) or
    ``"decreasing"`` (not decided on this grid: :func:`consistency_check` tries the lower grid)."""
    if zero is None or not (zero["z"] > FLAG_FACTOR and zero["norm"] >= 0.5 * fit.err[0] and fit.above[0]):
        return None
    stalled = local is None or local.n_fit < 2 or local.ci[1] < VANISHING_SLOPE
    return "stalled" if stalled else "decreasing"


def order_verdict(fit, expected_order, exact_slope=None, *, what="covariance", zero=None,
                  local=None) -> tuple[str, str]:
    """``(status, sentence)`` of a consistency/order fit (see the module docstring for the rules).

    ``zero``: the :func:`extrapolated_error` entry of this moment; ``local``: the slope fit over the three
    smallest h. Consistency fails (``flagged``) when the error extrapolated to h = 0 is significant
    (``z > FLAG_FACTOR``) and at least half the error measured at the smallest h, *and* the error has
    stopped decreasing at the small end of the grid (``local`` slope's upper end < ``VANISHING_SLOPE``).
    A significant intercept with an error still decreasing at the smallest h is a ``warn``: a slowly
    vanishing error and a constant one cannot be told apart on this grid.
    """
    p, (lo, hi) = fit.slope, fit.ci
    intercept = _intercept_state(fit, zero, local)
    if intercept is not None:
        loc = ("" if local is None or local.n_fit < 2 else
               f"; slope over the 3 smallest h {local.slope:.2f} [{local.ci[0]:.2f}, {local.ci[1]:.2f}]")
        if intercept == "stalled":
            return "flagged", (f"{what} error does not go to 0 as h → 0: extrapolated to h = 0 it is "
                               f"{zero['norm']:.3g} (z = {zero['z']:.0f}; {fit.err[0]:.3g} measured at the smallest h"
                               f"{loc}): flagged")
        return "warn", (f"{what} error extrapolated (quadratic in h) to h = 0 is {zero['norm']:.3g} (z = {zero['z']:.0f}; "
                        f"{fit.err[0]:.3g} at the smallest h), but it still decreases at the small end{loc}: "
                        "whether it vanishes is not decided on this grid")
    if fit.n_fit == 0:
        return "pass", f"{what} error at the Monte Carlo floor at every h: no bias resolved ✓"
    if fit.n_fit < 2:
        return "pass", f"{what} error above the floor at one h only: no bias resolved at small h ✓"
    src = f"p = {p:.2f} [{lo:.2f}, {hi:.2f}] on {fit.n_fit} points above the floor"
    if exact_slope is not None:
        src += f"; exact law p = {exact_slope:.2f}"
    if fit.n_fit < 5:
        if exact_slope is not None and expected_order is not None and abs(exact_slope - expected_order) <= ORDER_TOLERANCE:
            return "pass", f"{src} (< 5 MC points; order from the exact law): order {expected_order} ✓"
        return "inconclusive", f"{src}: fewer than 5 points above the floor, the order is not measured"
    if expected_order is None:
        return "info", f"{src}: consistent; no order expected"
    band = (expected_order - ORDER_TOLERANCE, expected_order + ORDER_TOLERANCE)
    if band[0] <= lo and hi <= band[1]:
        return "pass", f"order {src}: order {expected_order} ✓"
    if hi < band[0] or lo > band[1]:
        return "warn", f"order {src}: not order {expected_order} (band ±{ORDER_TOLERANCE})"
    return "inconclusive", f"order {src}: the interval straddles the band {expected_order} ± {ORDER_TOLERANCE}"


def _exact_errors(runs, target):
    if any(r["exact"] is None for r in runs):
        return None
    return np.array([whitened_errors(*r["exact"], target.posterior_mean, target.posterior_cov) for r in runs])


def _exact_slope(h, e):
    if e is None or np.any(e <= 1e-14):
        return None
    lx = np.log(h)
    return float(np.polyfit(lx, np.log(e), 1)[0])


def consistency_check(factory, params, settings, *, name, anisotropic=False, expected_order=1.0,
                      n_jobs=1, _lowered=False) -> CheckResult:
    """Check 1 on the §5.1 Gaussian (``anisotropic=False``) or the anisotropic Gaussian.

    Parameters
    ----------
    factory : callable ``(target, step_size, **params)``
    params : dict
    settings : :class:`~sgmcmc_verify.audit.AuditSettings`
    name : str
        The row label.
    anisotropic : bool
    expected_order : float or None
        The weak order the theory gives (1 for every Euler–Maruyama-type scheme of the toolkit);
        ``None``: report the order without a verdict on it.
    n_jobs : int

    Returns
    -------
    CheckResult
        ``data`` holds both error curves (Monte Carlo and exact), floors, fits and the settings used; when the
        first grid left consistency undecided, these are the lower grid's and ``data["first_grid"]`` holds the
        first grid's fits (``_lowered`` is internal: the rerun itself).
    """
    s = settings
    if anisotropic:
        target = anisotropic_gaussian_means_target(s.anisotropic_precision, s.gaussian_n)
    else:
        target = gaussian_means_target(s.gaussian_n)
    seed = int(np.random.SeedSequence([s.seed, 1, int(anisotropic)]).generate_state(1)[0])
    runs = stationary_moment_runs(factory, params, target, s.consistency_hL, s.consistency_chains, s.burn_in_time,
                                  s.sample_time, seed, block_size=s.block_size, n_jobs=n_jobs)
    h = np.array([r["h"] for r in runs])
    e_mean, e_cov = _err_fns(target)
    pcs = [(r["m1"], r["m2"]) for r in runs]
    fit_m = bootstrap_error_slope(h, pcs, e_mean, rng=seed % 2**31)
    fit_c = bootstrap_error_slope(h, pcs, e_cov, rng=seed % 2**31 + 1)
    ex = _exact_errors(runs, target)
    ex_slope = _exact_slope(h, None if ex is None else ex[:, 1])
    zero = extrapolated_error(h, runs, target, rng=seed % 2**31 + 2)
    loc_m = bootstrap_error_slope(h[:3], pcs[:3], e_mean, rng=seed % 2**31 + 3)
    loc_c = bootstrap_error_slope(h[:3], pcs[:3], e_cov, rng=seed % 2**31 + 4)
    st_m, txt_m = order_verdict(fit_m, None, None, what="mean", zero=zero["mean"], local=loc_m)
    st_c, txt_c = order_verdict(fit_c, expected_order, ex_slope, what="covariance", zero=zero["cov"], local=loc_c)
    if not _lowered and "decreasing" in (_intercept_state(fit_m, zero["mean"], loc_m),
                                         _intercept_state(fit_c, zero["cov"], loc_c)):
        lower = dataclasses.replace(s, consistency_hL=tuple(x / LOWER_GRID_FACTOR for x in s.consistency_hL),
                                    seed=int(np.random.SeedSequence([s.seed, 1, int(anisotropic), 1]).generate_state(1)[0]))
        res = consistency_check(factory, params, lower, name=name, anisotropic=anisotropic,
                                expected_order=expected_order, n_jobs=n_jobs, _lowered=True)
        first = f"mean: {txt_m}; covariance: {txt_c}"
        res.detail = (f"on the grid h / {LOWER_GRID_FACTOR:g} (h·L {lower.consistency_hL[0]:.2g}–"
                      f"{lower.consistency_hL[-1]:.2g}; on h·L {s.consistency_hL[0]:.2g}–{s.consistency_hL[-1]:.2g} "
                      f"it was not decided: {first}): {res.detail}")
        res.data["first_grid"] = {"hL": list(s.consistency_hL), "mean": fit_m.as_dict(), "cov": fit_c.as_dict(),
                                  "extrapolated_to_zero": zero, "detail": first}
        return res
    if st_m in ("info", "inconclusive"):   # no order is expected of the mean (0 bias on a Gaussian for linear drifts)
        st_m = "pass"
    agree = None
    if ex is not None:  # the implementation against its own exact law: |MC − exact| within 4 floors
        agree = bool(np.all(np.abs(fit_c.err - ex[:, 1]) <= 4 * fit_c.floor + 1e-12)
                     and np.all(np.abs(fit_m.err - ex[:, 0]) <= 4 * fit_m.floor + 1e-12))
    status = "flagged" if "flagged" in (st_m, st_c) else ("warn" if "warn" in (st_m, st_c) else st_c)
    detail = f"mean: {txt_m}; covariance: {txt_c}"
    if agree is False:
        status = "flagged"
        detail += "; Monte Carlo disagrees with the sampler's exact linear law (> 4 floors): flagged"
    elif agree:
        detail += "; Monte Carlo matches the exact linear law"
    # movement and law separately (#28): the exact start keeps the law of a sampler that never moves, so a
    # twin of the largest-h run starts from a displaced point mass and must reach the same moments
    twin = displaced_twin(factory, params, target, runs[-1], s, seed + 7, chains=s.displaced_chains, n_jobs=n_jobs)
    detail += "; " + twin_sentence(twin)
    if not twin["reached"]:
        status = "flagged"
    measured = (f"p = {fit_c.slope:.2f} [{fit_c.ci[0]:.2f}, {fit_c.ci[1]:.2f}]" if fit_c.n_fit >= 2
                else f"cov err ≤ floor ({fit_c.floor.max():.2g})")
    if st_m == "flagged":
        measured = f"mean err {fit_m.err[0]:.3g} at smallest h"
    elif st_c == "flagged":
        measured = f"cov err {fit_c.err[0]:.3g} at smallest h"
    elif not twin["reached"]:
        measured = f"displaced start not reached (|z| {'∞' if twin['z'] is None else format(twin['z'], '.0f')})"
    data = {"target": "anisotropic" if anisotropic else "gaussian_5.1", "precision": np.asarray(getattr(target, "precision", np.ones(target.dim))).tolist(),
            "n": target.n, "L": float(np.max(np.linalg.eigvalsh(target.hessian))),
            "lambda_min": float(np.min(np.linalg.eigvalsh(target.hessian))),
            "h": h.tolist(), "hL": [r["hL"] for r in runs], "steps": [r["steps"] for r in runs],
            "burn_in": [r["burn_in"] for r in runs], "chains": s.consistency_chains,
            "mean": fit_m.as_dict(), "cov": fit_c.as_dict(),
            "exact": None if ex is None else {"mean_err": ex[:, 0].tolist(), "cov_err": ex[:, 1].tolist(),
                                               "slope": ex_slope},
            "mc_matches_exact": agree, "extrapolated_to_zero": zero, "displaced_twin": twin,
            "local_slope": {"mean": loc_m.as_dict(), "cov": loc_c.as_dict()}, "expected_order": expected_order, "seed": seed}
    exp = "error → 0 as h → 0" + (f"; order {expected_order}" if expected_order is not None else "")
    return CheckResult(name, measured, exp, status, detail, data)
