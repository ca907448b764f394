"""The experiments of the EWSG conference text, registered for the CLI, the cache and the claims ledger.

Each experiment receives the frozen settings dataclass named here and reads nothing else. The
Gaussian-study runs reuse the journal study's functions (:mod:`sgmcmc_verify.paper_repro.ewsg.experiments`) with
the conference's settings (n = 20; n = 50, 100 for the best-M panels).
"""
from __future__ import annotations

from sgmcmc_verify.store.registry import Experiment, register_experiment

from . import autocorrelation, index_chain, kl_panels, theorem2, theorem4
from . import settings as S

_SPEC = {
    "fig1a": ("Fig. 1a at n = 20: KL vs data passes, SGLD, pSGLD, SGHMC, EWSG, SVRG-LD", ("fig1a.csv",), kl_panels,
              S.Fig1aSettings, kl_panels.run_fig1a),
    "fig1b": ("Fig. 1b: stationary KL vs integrated autocorrelation time (emcee), EWSG and SGHMC over h",
              ("fig1b.csv", "fig1b_kl.csv"), autocorrelation, S.Fig1bSettings, autocorrelation.run_fig1b),
    "fig1c": ("Fig. 1c at n = 20: KL vs data passes for the four choices of x, h = 0.05 and 0.07", ("fig1c.csv",),
              kl_panels, S.Fig1cSettings, kl_panels.run_fig1c),
    "fig1de": ("Figs. 1d-e: local (exact) and time-average bias and variance of EWSG as M grows",
               ("fig1d_local.csv", "fig1e_time_average.csv"), index_chain, S.Fig1deSettings, index_chain.run_fig1de),
    "fig1ghi": ("Figs. 1g-i: KL after 30 passes vs M for n = 20, 50, 100, eight data draws, three step sizes",
                ("best_m.csv", "fig1gh.csv"), kl_panels, S.Fig1giSettings, kl_panels.run_fig1gi),
    "fig1jkl": ("Figs. 1j-l: Theorem 4 at n = 20 (MSE of the time average vs T, vs h, long-run vs h)",
                ("fig1j.csv", "fig1k.csv", "fig1l.csv", "thm4_rates.json"), theorem4, S.Theorem4Settings,
                theorem4.run_theorem4),
    "minibatch_speed": ("§5.1, comparable speed with minibatch b/(M+1): SGHMC(b), EWSG(b, M = 1), SGHMC(b(M+1)), KL vs "
                        "data passes at n = 20", ("minibatch_speed.csv",), kl_panels, S.MinibatchSpeedSettings,
                        kl_panels.run_minibatch_speed),
    "thm2": ("Theorem 2: the full-gradient and exactly weighted EM kernels computed exactly (mass, moments, TV)",
             ("thm2.json", "thm2_density.csv"), theorem2, S.Theorem2Settings, theorem2.run_theorem2),
}

EXPERIMENTS = [Experiment(f"ewsg_iclr.{k}", "ewsg_iclr", desc, module.__name__, outs, settings, fn)
               for k, (desc, outs, module, settings, fn) in _SPEC.items()]

register_experiment(*EXPERIMENTS)
