"""Check 6, cost: per-datum gradient evaluations per step and wall time per step vs n.

On the EWSG §5.1 Gaussian with n data (``h = 0.01/n``, so that ``h·L`` is fixed), ``cost_chains``
chains run ``cost_steps`` steps through :func:`sgmcmc_verify.runner.run_chains`; the best of ``cost_repeats``
wall times is kept. A stochastic-gradient method's evaluations per step do not depend on n (and its
time per step grows only through cache effects of the random gather); a full-gradient method's grow
like n. Timings depend on the machine and its load: they are reported, not judged.
"""
from __future__ import annotations

import time

import numpy as np

from ..runner import run_chains
from ..targets.gaussian import gaussian_means_target
from .common import CheckResult, exact_draws, init_state, make_sampler
from .protocol import unwrap

__all__ = ["cost_check", "FLAT_SLOPE"]

#: Evaluations per step are "flat in n" when their log–log slope against n is below this.
FLAT_SLOPE = 0.1


def cost_check(factory, params, settings) -> CheckResult:
    """Check 6.

    Returns
    -------
    CheckResult
        ``data``: n, evaluations per step, seconds per step (per chain-step too), the two log–log slopes.
    """
    s = settings
    seed = int(np.random.SeedSequence([s.seed, 6]).generate_state(1)[0])
    rows = []
    for n in s.cost_n:
        target = gaussian_means_target(int(n))
        smp = make_sampler(factory, target, 0.01 / n, params)
        best, evals = np.inf, None
        for r in range(s.cost_repeats):
            rng = np.random.default_rng([seed, int(n), r])
            st = init_state(smp, exact_draws(target, s.cost_chains, rng), rng)
            warm = run_chains(smp, st, rng, steps=s.cost_steps)   # untimed: initial passes, caches, allocations
            t0 = time.perf_counter()
            out = run_chains(unwrap(smp), warm["state"], rng, steps=s.cost_steps)   # timed without the checks
            best = min(best, time.perf_counter() - t0)
            evals = out["evaluations"] / s.cost_steps
        rows.append({"n": int(n), "evals_per_step": float(evals), "seconds_per_step": best / s.cost_steps,
                     "chain_steps_per_second": s.cost_chains * s.cost_steps / best})
    ln = np.log([r["n"] for r in rows])
    ev_slope = float(np.polyfit(ln, np.log([max(r["evals_per_step"], 1e-12) for r in rows]), 1)[0])
    t_slope = float(np.polyfit(ln, np.log([r["seconds_per_step"] for r in rows]), 1)[0])
    ev = ", ".join(f"{r['evals_per_step']:.3g}" for r in rows)
    if ev_slope < FLAT_SLOPE:
        status = "pass"
        verdict = (f"evaluations per step {ev} at n = {', '.join(str(r['n']) for r in rows)}: flat in n ✓ "
                   f"(time per step ∝ n^{t_slope:.2f})")
    else:
        status = "info"
        verdict = (f"evaluations per step {ev}: grow like n^{ev_slope:.2f} (full-gradient work); "
                   f"time per step ∝ n^{t_slope:.2f}")
    data = {"rows": rows, "evals_slope": ev_slope, "time_slope": t_slope, "chains": s.cost_chains,
            "steps": s.cost_steps, "repeats": s.cost_repeats, "seed": seed}
    return CheckResult("cost vs n", f"evals/step ∝ n^{ev_slope:.2f}; time ∝ n^{t_slope:.2f}",
                       "flat in n for SG methods", status, verdict, data)
