"""Check 2, stochastic-gradient sensitivity: the stationary covariance error vs the batch size b at fixed h.

On the EWSG §5.1 Gaussian, the minibatch noise of a uniform estimator has covariance ``Q/b``
(:func:`sgmcmc_verify.analytic.linear_samplers.minibatch_noise_covariance`), and for SGLD the stationary covariance
is ``(2h I + h²Q/b)/(1 − (1 − hn)²)`` per coordinate: the error falls with b towards the full-gradient
bias. The check reports the error curve (and the exact one where the sampler exposes a linear
recursion) and says whether the error falls with b beyond the Monte Carlo noise; samplers whose
factory takes no ``batch_size`` are ``n/a``.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: §5.1 and Theorem 4.3 (the factor ``Tr cov(n∇V_I)``).
"""
from __future__ import annotations

import numpy as np

from ..targets.gaussian import gaussian_means_target
from .common import CheckResult, accepts, bootstrap_error_slope, whitened_errors
from .consistency import _err_fns, stationary_moment_runs

__all__ = ["sg_sensitivity_check"]


def sg_sensitivity_check(factory, params, settings, *, n_jobs=1) -> CheckResult:
    """Check 2: covariance error vs b at ``h·L = settings.sg_hL``.

    Returns
    -------
    CheckResult
        ``data``: b, errors, floors, the log–log slope against b with its interval, the exact errors.
    """
    s = settings
    if not accepts(factory, "batch_size"):
        return CheckResult("SG sensitivity (b)", "—", "error falls with b", "n/a",
                           ("n/a: the factory takes no `batch_size` keyword, which enables this check (the minibatch size b; "
                            "a full-gradient or exact sampler has none)"), {"missing_keyword": "batch_size"})
    target = gaussian_means_target(s.gaussian_n)
    seed = int(np.random.SeedSequence([s.seed, 2]).generate_state(1)[0])
    bs = [b for b in s.sg_batch_sizes if b <= target.n]
    runs = []
    for b in bs:
        runs += stationary_moment_runs(factory, {k: v for k, v in params.items() if k != "batch_size"}, target,
                                       (s.sg_hL,), s.consistency_chains, s.burn_in_time, s.sample_time, seed + b,
                                       block_size=s.block_size, n_jobs=n_jobs, batch_size=b)
    _, e_cov = _err_fns(target)
    fit = bootstrap_error_slope(np.array(bs, float), [(r["m1"], r["m2"]) for r in runs], e_cov, rng=seed % 2**31)
    exact = None
    if all(r["exact"] is not None for r in runs):
        exact = [whitened_errors(*r["exact"], target.posterior_mean, target.posterior_cov)[1] for r in runs]
    drop = fit.err[0] - fit.err[-1]
    noise = 2.0 * np.hypot(fit.floor[0], fit.floor[-1])
    if drop > noise:
        status, verdict = "pass", (f"error falls from {fit.err[0]:.3g} (b = {bs[0]}) to {fit.err[-1]:.3g} (b = {bs[-1]}): "
                                   "sensitive to the stochastic gradient as expected ✓")
    elif abs(drop) <= noise:
        status, verdict = "info", (f"error flat in b ({fit.err[0]:.3g} → {fit.err[-1]:.3g}, within 2σ of the noise): "
                                   "insensitive to the minibatch at this h (variance reduction or a full gradient)")
    else:
        status, verdict = "warn", f"error grows with b ({fit.err[0]:.3g} → {fit.err[-1]:.3g}): unexpected"
    measured = f"{fit.err[0]:.3g} → {fit.err[-1]:.3g}"
    if fit.n_fit >= 2:
        measured += f"; slope {fit.slope:.2f} [{fit.ci[0]:.2f}, {fit.ci[1]:.2f}]"
    data = {"b": bs, "h": runs[0]["h"], "hL": s.sg_hL, "cov": fit.as_dict(), "exact_cov_err": exact,
            "chains": s.consistency_chains, "seed": seed}
    return CheckResult("SG sensitivity (b)", measured, "error falls with b (SG methods)", status, verdict, data)
