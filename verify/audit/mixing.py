"""Movement and law, separately: chains started away from the target must reach it, and must mix.

Every check of the battery that starts its chains from exact draws of the target can be passed by a
sampler that never moves (``step`` returns its input: an ensemble of exact draws keeps the exact law).
This module supplies the two defences (issue #28 item 1):

* :func:`displaced_twin` — a *twin* of a stationary-moment run: chains from a point mass
  ``displacement`` posterior standard deviations away from the mean (whitened direction
  ``(1, −1, …)/√d``), run ``displaced_burn_in_time`` relaxation times, then averaged like the
  exact-start chains at the same step size. Their stationary moments must agree with the exact-start
  chains' (both carry the same O(h) bias, so the comparison needs no allowance for it): a largest
  |z| over the whitened mean and covariance entries above :data:`DISPLACED_Z` is ``flagged``.
  Check 1 runs it on both of its targets.
* :func:`mixing_check` — the battery row "mixing (displaced start)": on the §5.1 Gaussian at
  ``h·L = mixing_hL``, chains from the same displaced point mass run a burn-in and then
  ``mixing_time`` relaxation times with their trajectories kept. It measures the whitened mean
  squared jump distance per step (MSJD; 0 for a sampler that does not move), the integrated
  autocorrelation time τ of the whitened coordinates (``emcee.autocorr.integrated_time``, Sokal's
  window, averaged over chains), and the whitened errors of the law the chains reach.

Rules of :func:`mixing_check` (each with its reason). Two ensembles of ``mixing_chains`` run at
``h·L = mixing_hL``: one from exact draws, one from the displaced point mass; both have the same O(h)
bias, so their per-chain moments are compared with no allowance for it.

* ``flagged`` "does not move" when the MSJD is 0 or τ is not finite (a constant trajectory);
* ``flagged`` "does not reach the law" when some whitened moment of the displaced ensemble differs from
  the exact-start one by more than :data:`DISPLACED_Z` standard errors *and* by more than
  :data:`LAW_TOLERANCE` (0.25: a quarter of a posterior s.d. in the mean, 25 % in the covariance; with
  8 chains per ensemble z is t-distributed with 7 degrees of freedom, so the effect size guards the
  heavy tail, while a sampler that stays near its start differs by ``displacement`` = 8 in the mean and
  by 1 in the covariance);
* ``warn`` when the window holds fewer than :data:`TAU_MIN` (5) autocorrelation times: too slow for the
  window to test the law; τ itself is called rough below :data:`TAU_RELIABLE` (50, emcee's criterion);
* ``pass`` otherwise.

References
----------
Sokal (1997), "Monte Carlo methods in statistical mechanics", §3 (the automatic window);
Foreman-Mackey et al., emcee 3 ``autocorr.integrated_time``. EWSG, seed ``000_8e0377c44e2ea3b8.txt``: §5.1 (the target).
"""
from __future__ import annotations

import logging
import warnings
from functools import partial

import numpy as np

from ..runner import run_chains, run_realizations
from ..targets.gaussian import gaussian_means_target
from .common import CheckResult, init_state, make_sampler

__all__ = ["displaced_start", "displaced_twin", "mixing_check", "DISPLACED_Z", "LAW_TOLERANCE", "TAU_RELIABLE", "TAU_MIN"]

#: The displaced-start twin disagrees with the exact-start chains when the largest |z| over the whitened
#: mean and covariance entries exceeds this: a 6-σ excursion has probability ~2e-9 per entry for a
#: sampler that reaches its law (5 entries in d = 2; the twin's residual displacement after its burn-in
#: is below 0.15 standard errors for every sampler of the toolkit, see the module docstring).
DISPLACED_Z = 6.0

#: ... and, in the mixing check (whose few chains give a t-distributed z), the difference must also exceed this
#: (whitened: a posterior s.d. in the mean, relative in the covariance): see the module docstring.
LAW_TOLERANCE = 0.25

#: Autocorrelation times the sample window must hold for τ to be trusted (emcee's ``tol`` default); below it
#: τ is reported as rough.
TAU_RELIABLE = 50.0

#: Fewer autocorrelation times than this in the window and the window cannot test the law: ``warn``.
TAU_MIN = 5.0


def _whitening(target):
    w, V = np.linalg.eigh(target.posterior_cov)
    return V @ np.diag(w**-0.5) @ V.T, V @ np.diag(w**0.5) @ V.T


def displaced_start(target, chains: int, displacement: float) -> np.ndarray:
    """``(chains, d)`` copies of ``μ + Σ^{1/2} u · displacement``, ``u = (1, −1, 1, …)/√d``: a point mass
    ``displacement`` posterior standard deviations (whitened) from the mean."""
    d = target.dim
    u = np.where(np.arange(d) % 2 == 0, 1.0, -1.0) / np.sqrt(d)
    _, half = _whitening(target)
    return np.tile(target.posterior_mean + displacement * (half @ u), (chains, 1))


def _time_unit(target):
    ev = np.linalg.eigvalsh(target.hessian)
    return float(ev.max()), float(ev.min())


def displaced_block(n_chains, rng, *, factory, params, target, step_size, burn_in, steps, displacement):
    """Chains from :func:`displaced_start`: per-chain time averages of θ and θθᵀ after ``burn_in`` steps."""
    s = make_sampler(factory, target, step_size, params)
    state = init_state(s, displaced_start(target, n_chains, displacement), rng)
    out = run_chains(s, state, rng, checkpoints=[burn_in, burn_in + steps], unit="steps",
                     time_average={"m1": lambda st: st.position,
                                   "m2": lambda st: st.position[:, :, None] * st.position[:, None, :]})
    K0, K1 = out["steps"][0], out["steps"][-1]
    m1 = (K1 * out["m1"][:, -1] - K0 * out["m1"][:, 0]) / (K1 - K0)
    m2 = (K1 * out["m2"][:, -1] - K0 * out["m2"][:, 0]) / (K1 - K0)
    return {"m1": m1, "m2": m2}


def _moment_vector(target, m1, m2, idx=None):
    """Whitened mean and the upper triangle of the whitened covariance (off-diagonals × √2)."""
    if idx is not None:
        m1, m2 = m1[idx], m2[idx]
    Wi, _ = _whitening(target)
    m = m1.mean(axis=0)
    C = Wi @ (m2.mean(axis=0) - np.outer(m, m)) @ Wi
    iu = np.triu_indices(target.dim)
    return np.concatenate([Wi @ (m - target.posterior_mean), C[iu] * np.where(iu[0] == iu[1], 1.0, np.sqrt(2.0))])


def _boot_se(target, m1, m2, rng, n_boot=200):
    R = m1.shape[0]
    return np.array([_moment_vector(target, m1, m2, rng.integers(0, R, R)) for _ in range(n_boot)]).std(axis=0, ddof=1)


def displaced_twin(factory, params, target, ref: dict, settings, seed: int, *, chains: int, n_jobs: int = 1) -> dict:
    """Run the displaced-start twin of one exact-start run and compare the stationary moments.

    Parameters
    ----------
    factory, params : the audited factory and its keyword arguments
    target : a Gaussian target (``posterior_mean``, ``posterior_cov``, ``hessian``)
    ref : dict
        The exact-start run at the same step size: ``{"h", "m1" (R, d), "m2" (R, d, d), "steps"}``
        (:func:`sgmcmc_verify.audit.consistency.stationary_moment_runs`).
    settings : AuditSettings
        ``displacement``, ``displaced_burn_in_time`` (units of ``1/λ_min``).
    seed : int
    chains : int
        Chains of the twin.

    Returns
    -------
    dict
        ``h``, ``chains``, ``burn_in`` (steps), ``steps``, ``displacement``, ``diff`` (twin − exact-start,
        whitened), ``se``, ``z`` (largest |diff|/se), ``reached`` (``z <= DISPLACED_Z``).
    """
    L, lam = _time_unit(target)
    h = float(ref["h"])
    burn = int(np.ceil(settings.displaced_burn_in_time / (lam * h)))
    fn = partial(displaced_block, factory=factory, params=params, target=target, step_size=h, burn_in=burn,
                 steps=int(ref["steps"]), displacement=settings.displacement)
    out = run_realizations(fn, chains, seed=seed, block_size=settings.block_size, n_jobs=n_jobs, chain_keys=("m1", "m2"))
    rng = np.random.default_rng(seed)
    twin = _moment_vector(target, out["m1"], out["m2"])
    exact = _moment_vector(target, ref["m1"], ref["m2"])
    se = np.hypot(_boot_se(target, out["m1"], out["m2"], rng), _boot_se(target, ref["m1"], ref["m2"], rng))
    diff = twin - exact
    with np.errstate(divide="ignore", invalid="ignore"):
        zz = np.where(se > 0, np.abs(diff) / se, np.where(np.abs(diff) > 0, np.inf, 0.0))
    z = float(np.max(zz))
    return {"h": h, "hL": h * L, "chains": int(chains), "burn_in": burn, "steps": int(ref["steps"]),
            "displacement": settings.displacement, "diff": diff.tolist(), "se": se.tolist(),
            "z": z if np.isfinite(z) else None, "reached": bool(z <= DISPLACED_Z)}


def twin_sentence(tw: dict) -> str:
    """The verdict sentence of a :func:`displaced_twin` result."""
    z = "∞" if tw["z"] is None else f"{tw['z']:.1f}"
    head = (f"from a point mass {tw['displacement']:g} s.d. away ({tw['chains']} chains, h·L = {tw['hL']:.3g}, "
            f"{tw['burn_in']} burn-in steps)")
    if tw["reached"]:
        return f"{head} the chains reach the law the exact-start chains keep (largest |z| = {z}) ✓"
    return (f"{head} the chains do not reach the law the exact-start chains keep (largest |z| = {z} > "
            f"{DISPLACED_Z:g}): the exact start hid a sampler that does not move to its target: flagged")


def mixing_block(n_chains, rng, *, factory, params, target, step_size, burn_in, steps, displacement):
    """Two ensembles of ``n_chains``: from exact draws and from the displaced point mass; the whitened
    trajectories ``(chains, steps, d)`` after ``burn_in`` (``"exact"``, ``"displaced"``)."""
    from .common import exact_draws
    Wi, _ = _whitening(target)
    out = {}
    for key, x0 in (("exact", exact_draws(target, n_chains, rng)),
                    ("displaced", displaced_start(target, n_chains, displacement))):
        s = make_sampler(factory, target, step_size, params)
        res = run_chains(s, init_state(s, x0, rng), rng, steps=burn_in + steps, keep_last=steps)
        out[key] = (res["kept"] - target.posterior_mean) @ Wi.T
    return out


def _per_chain_stats(tr) -> np.ndarray:
    """Per chain: the whitened mean (d) and the upper triangle of the whitened covariance (off-diagonals × √2)."""
    d = tr.shape[-1]
    iu = np.triu_indices(d)
    m = tr.mean(axis=1)
    c = np.einsum("cti,ctj->cij", tr - m[:, None], tr - m[:, None]) / tr.shape[1]
    return np.concatenate([m, c[:, iu[0], iu[1]] * np.where(iu[0] == iu[1], 1.0, np.sqrt(2.0))], axis=1)


def _tau(tr) -> np.ndarray:
    """emcee's integrated autocorrelation time per coordinate of ``tr`` ``(chains, steps, d)`` (NaN: undefined)."""
    from emcee.autocorr import integrated_time

    lg = logging.getLogger("emcee")
    level = lg.level
    lg.setLevel(logging.ERROR)                  # quiet=True logs a warning when the window holds < 50 τ
    try:
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            warnings.simplefilter("ignore")
            return np.atleast_1d(integrated_time(np.transpose(tr, (1, 0, 2)), quiet=True)).astype(float)
    finally:
        lg.setLevel(level)


def mixing_check(factory, params, settings, *, n_jobs=1) -> CheckResult:
    """The battery row "mixing (displaced start)" (rules in the module docstring).

    Returns
    -------
    CheckResult
        ``data``: h, steps, chains, MSJD (per step, whitened; and per relaxation time), τ per coordinate
        (steps and relaxation times), the window in τ, the displaced-minus-exact differences with their
        standard errors and z.
    """
    s = settings
    target = gaussian_means_target(s.gaussian_n)
    L, lam = _time_unit(target)
    h = s.mixing_hL / L
    burn = int(np.ceil(s.displaced_burn_in_time / (lam * h)))
    steps = int(np.ceil(s.mixing_time / (lam * h)))
    seed = int(np.random.SeedSequence([s.seed, 7]).generate_state(1)[0])
    fn = partial(mixing_block, factory=factory, params=params, target=target, step_size=h, burn_in=burn, steps=steps,
                 displacement=s.displacement)
    out = run_realizations(fn, s.mixing_chains, seed=seed, block_size=s.block_size, n_jobs=n_jobs,
                           chain_keys=("exact", "displaced"))
    ex, dp = out["exact"], out["displaced"]            # (chains, steps, d), whitened
    msjd = float(np.mean([np.mean(np.sum(np.diff(t, axis=1) ** 2, axis=-1)) for t in (ex, dp)]))
    a, b = _per_chain_stats(ex), _per_chain_stats(dp)
    R = a.shape[0]
    diff = b.mean(axis=0) - a.mean(axis=0)
    se = np.sqrt(a.var(axis=0, ddof=1) / R + b.var(axis=0, ddof=1) / R)
    with np.errstate(divide="ignore", invalid="ignore"):
        zz = np.where(se > 0, np.abs(diff) / se, np.where(np.abs(diff) > 0, np.inf, 0.0))
    big = (zz > DISPLACED_Z) & (np.abs(diff) > LAW_TOLERANCE)
    z = float(np.max(zz))
    tau = np.maximum(_tau(ex), _tau(dp))
    tau_max = float(np.max(tau)) if np.all(np.isfinite(tau)) else float("inf")
    window = steps / tau_max if np.isfinite(tau_max) and tau_max > 0 else 0.0
    tau_time = tau_max * h * lam
    d = target.dim
    law = (f"displaced − exact start: mean {np.linalg.norm(diff[:d]):.3g} s.d., covariance "
           f"{np.linalg.norm(diff[d:]):.3g} (largest |z| {z:.1f})")
    head = (f"2 × {s.mixing_chains} chains (exact draws; a point mass {s.displacement:g} s.d. away) at h·L = "
            f"{s.mixing_hL:g}, {burn} burn-in + {steps} steps")
    tau_txt = (f"τ = {tau_max:.3g} steps ({tau_time:.3g}/λ_min), {window:.0f} τ in the window"
               + ("" if window >= TAU_RELIABLE else f" (< {TAU_RELIABLE:g}: τ is rough)"))
    if msjd == 0.0 or not np.isfinite(tau_max):
        status = "flagged"
        verdict = (f"{head}: the chains do not move (mean squared jump {msjd:.3g} per step"
                   f"{'' if np.isfinite(tau_max) else ', autocorrelation undefined'}): flagged")
    elif big.any():
        status = "flagged"
        verdict = f"{head}: from the displaced start the chains do not reach the law ({law}): flagged"
    elif window < TAU_MIN:
        status = "warn"
        verdict = (f"{head}: {law}; {tau_txt} < {TAU_MIN:g}: mixing too slow for this window to test the law")
    else:
        status = "pass"
        verdict = f"{head}: the displaced chains reach the law ({law}); {tau_txt}; mean squared jump {msjd:.3g} per step ✓"
    data = {"h": h, "hL": s.mixing_hL, "burn_in": burn, "steps": steps, "chains": s.mixing_chains,
            "displacement": s.displacement, "msjd_per_step": msjd, "msjd_per_relaxation_time": msjd / (h * lam),
            "tau_steps": [float(t) if np.isfinite(t) else None for t in tau],
            "tau_relaxation_times": tau_time if np.isfinite(tau_time) else None, "window_in_tau": window,
            "diff": diff.tolist(), "se": se.tolist(), "z": z if np.isfinite(z) else None,
            "law_tolerance": LAW_TOLERANCE, "displaced_z": DISPLACED_Z, "tau_min": TAU_MIN,
            "tau_reliable": TAU_RELIABLE, "seed": seed}
    measured = ("MSJD " + f"{msjd:.3g}/step; τ " + (f"{tau_max:.3g} steps" if np.isfinite(tau_max) else "undefined")
                + f"; |z| {z:.1f}")
    return CheckResult("mixing (displaced start)", measured, "moves; displaced start reaches the law",
                       status, verdict, data)
