"""Check 5, stability: the largest step size that does not diverge on a stiff Gaussian, as a multiple of 1/L.

Target: ``Σ_i ½(θ − c_i)ᵀP(θ − c_i)`` with ``P = diag(1, 0.01)`` (condition number 100, ``L = n``).
For each ``h·L`` of a grid with ratio 2^{1/4}, a few chains start from exact draws and run a fixed
number of steps; a run diverges when a chain leaves the floating-point range
(:class:`~sgmcmc_verify.errors.DivergenceError`) or the whitened mean square ``‖Σ^{-1/2}(θ − μ)‖²/d`` exceeds
``divergence_ratio``. Where the sampler exposes a linear recursion the exact threshold (spectral
radius of ``A`` = 1, by bisection) is the expected value; for overdamped EM it is ``h·L = 2``.
"""
from __future__ import annotations

import numpy as np

from ..errors import DivergenceError
from ..runner import run_chains
from ..targets.gaussian import anisotropic_gaussian_means_target
from .common import CheckResult, exact_draws, exact_recursion, init_state, make_sampler

__all__ = ["stability_check", "exact_threshold"]


def _radius(factory, params, target, hL, L):
    rec = exact_recursion(make_sampler(factory, target, hL / L, params))
    return None if rec is None else float(np.max(np.abs(np.linalg.eigvals(rec.A))))


def exact_threshold(factory, params, target, lo, hi, iters=50):
    """The ``h·L`` in ``[lo, hi]`` where the spectral radius of the exact recursion reaches 1; ``None`` if the
    sampler exposes no recursion or the radius does not cross 1 in the bracket."""
    L = float(np.max(np.linalg.eigvalsh(target.hessian)))
    r_lo, r_hi = _radius(factory, params, target, lo, L), _radius(factory, params, target, hi, L)
    if r_lo is None or not (r_lo < 1.0 <= r_hi):
        return None
    for _ in range(iters):
        mid = np.sqrt(lo * hi)
        if _radius(factory, params, target, mid, L) < 1.0:
            lo = mid
        else:
            hi = mid
    return float(np.sqrt(lo * hi))


def stability_check(factory, params, settings) -> CheckResult:
    """Check 5.

    Returns
    -------
    CheckResult
        ``data``: the grid, diverged flags, the largest stable ``h·L`` and the exact threshold.
    """
    s = settings
    target = anisotropic_gaussian_means_target(s.stiff_precision, s.gaussian_n)
    L = float(np.max(np.linalg.eigvalsh(target.hessian)))
    prec = np.linalg.inv(target.posterior_cov)
    seed = int(np.random.SeedSequence([s.seed, 5]).generate_state(1)[0])
    grid, diverged = [], []
    for j, x in enumerate(s.stability_hL):
        rng = np.random.default_rng([seed, j])
        smp = make_sampler(factory, target, x / L, params)
        try:
            out = run_chains(smp, init_state(smp, exact_draws(target, s.stability_chains, rng), rng), rng,
                             steps=s.stability_steps)
            z = out["state"].position - target.posterior_mean
            ms = float(np.mean(np.einsum("ci,ij,cj->c", z, prec, z))) / target.dim
            bad = not np.isfinite(ms) or ms > s.divergence_ratio
        except DivergenceError:
            bad = True
        grid.append(float(x))
        diverged.append(bool(bad))
        if bad:
            break
    stable = [g for g, d in zip(grid, diverged) if not d]
    largest = max(stable) if stable else None
    ratio = s.stability_hL[1] / s.stability_hL[0]
    exact = exact_threshold(factory, params, target, s.stability_hL[0], s.stability_hL[-1] * ratio)
    if largest is None:
        status, verdict = "warn", f"diverges at every h·L ≥ {grid[0]:.3g} within {s.stability_steps} steps"
    elif not any(diverged):
        status, verdict = "info", f"no divergence up to h·L = {largest:.3g} (the end of the grid)"
    elif exact is not None:
        # one grid cell either way: the grid's resolution, and just above the threshold the growth
        # (spectral radius barely above 1) may not reach divergence_ratio within stability_steps
        ok = exact / ratio ** 1.0001 <= largest <= exact * ratio ** 1.0001
        status = "pass" if ok else "warn"
        verdict = (f"largest stable h = {largest:.3g}/L (grid ratio {ratio:.3f}); exact linear threshold {exact:.3g}/L"
                   + (" ✓" if ok else ": more than one grid cell from the exact threshold"))
    else:
        status, verdict = "info", f"largest stable h = {largest:.3g}/L (grid ratio {ratio:.3f}); no exact threshold"
    data = {"hL": grid, "diverged": diverged, "largest_stable_hL": largest, "exact_threshold_hL": exact, "L": L,
            "precision": list(s.stiff_precision), "steps": s.stability_steps, "chains": s.stability_chains,
            "divergence_ratio": s.divergence_ratio, "seed": seed}
    return CheckResult("stability (stiff Gaussian)", "—" if largest is None else f"h_max ≈ {largest:.3g}/L",
                       "—" if exact is None else f"{exact:.3g}/L", status, verdict, data)
