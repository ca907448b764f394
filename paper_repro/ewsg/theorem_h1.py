"""EWSG Theorem H.1: the mean of a non-uniform SG chain stays within O(h^p) of SGHMC's, on the §5.1 target.

Theorem H.1 (Appendix H) is stated for the scalar quadratic ``V_i(θ) = (θ − μ_i)²/(2n)`` and an index
law with ``P(I_k = i) = 1/n + O(h^p)``; we measure it on the §5.1 target (d = 2, n = 50), which has
the same structure (every ``V_i`` has the same Hessian, so SGHMC's mean follows the linear
recursion (14) exactly). For EWSG the conditional index law given the state is
``1/n + (ε/n)(u_i − ū) + O(ε²)`` with ``ε = h/σ²`` (:mod:`sgmcmc_verify.analytic.ewsg_weights`): p = 1, so the
theorem predicts ``‖x_k − x'_k‖ = O(h)``.

What is exact and what is measured:

* ``x'_k = E z'_k`` of SGHMC: exact (:func:`sgmcmc_verify.analytic.linear_samplers.propagate_moments`);
* ``x_k = E z_k`` of EWSG (M = 1): Monte Carlo over realizations, all started at one point so that
  ``x_0 = x'_0`` carries no sampling noise;
* the first-order prediction: EWSG's conditional gradient bias is linear in the state to first
  order, so its mean obeys a closed linear recursion
  (:func:`sgmcmc_verify.analytic.ewsg_weights.linear_response_recursion`), whose difference from SGHMC's is the
  exact O(h) coefficient;
* ``max_i n |P(I = i | θ, r) − 1/n|`` of the M = 1 law, by enumeration at states ``θ ~ π, r ~ N(0, I)``.

Outputs: ``thmH1.csv`` (per h and checkpoint), ``thmH1.json`` (per h: the noise-debiased sup-norm
with a bootstrap interval over realizations, the deviation's amplitude along the predicted profile
with its standard error, the prediction; the order fits).

The order is fitted on the amplitude (a mean over realizations, so :func:`sgmcmc_verify.measure.rates.fit_slope`
applies and the noise does not bias it); the sup-norm fit is reported next to it.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: Appendix H, Theorem H.1, eq. (14); weights (4), Algorithm 1.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from sgmcmc_verify.analytic.ewsg_weights import gaussian_means_linear_response, linear_response_recursion
from sgmcmc_verify.analytic.gaussian import quadratic_posterior
from sgmcmc_verify.analytic.linear_samplers import minibatch_noise_covariance, propagate_moments, underdamped_em_recursion
from sgmcmc_verify import samplers
from sgmcmc_verify.estimators import EWSGIndexChain
from sgmcmc_verify.measure.metrics import weighted_means
from sgmcmc_verify.measure.rates import fit_slope
from sgmcmc_verify.runner import run_chains, run_realizations
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets import gaussian_means_target

from .settings import TheoremH1Settings

__all__ = ["mean_deviation", "sup_norm_bootstrap", "projected_amplitude", "index_law_deviation", "theorem_h1",
           "run_theorem_h1"]


def _checkpoints(cfg, h):
    K = int(round(cfg.horizon / h))
    return np.unique(np.round(np.linspace(0, K, cfg.checkpoints + 1)).astype(int))


def _h1_block(n_chains, rng, *, cfg, h):
    target = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
    s = samplers.build("EWSG", target, h, friction=cfg.friction, index_chain_length=cfg.index_chain_length)
    theta0 = np.broadcast_to(target.posterior_mean + np.asarray(cfg.offset), (n_chains, cfg.dim)).copy()
    out = run_chains(s, s.init(theta0, np.zeros((n_chains, cfg.dim))), rng, checkpoints=_checkpoints(cfg, h),
                     unit="steps", observe={"z": lambda st: np.concatenate([st.position, st.momentum], axis=1)})
    return {"z": out["z"], "steps": out["steps"]}


def mean_deviation(cfg: TheoremH1Settings, h: float, n_jobs=1, backend=None, progress=None) -> dict:
    """Per-realization deviations ``z_k − x'_k`` (EWSG M = 1 minus SGHMC's exact mean) and the first-order prediction.

    Returns
    -------
    dict with ``steps`` (n_ck,), ``deviation`` (R, n_ck, 2d), ``predicted`` (n_ck, 2d).
    """
    target = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
    mu = quadratic_posterior(target.centers).mean
    Q = minibatch_noise_covariance(target.centers)
    rec = underdamped_em_recursion(target.hessian, mu, Q, h, cfg.friction)
    lr = linear_response_recursion(rec, gaussian_means_linear_response(target.centers, cfg.friction), mu, h,
                                   np.sqrt(2 * cfg.friction))
    seed = np.random.SeedSequence([cfg.seed, 81, int(round(h * 1e7))]).entropy
    res = run_realizations(functools.partial(_h1_block, cfg=cfg, h=h), cfg.realizations, seed=seed,
                           block_size=cfg.block_size, n_jobs=n_jobs, backend=backend, progress=progress)
    m0 = np.concatenate([mu + np.asarray(cfg.offset), np.zeros(cfg.dim)])
    zero = np.zeros((m0.size, m0.size))
    exact, _ = propagate_moments(rec, m0, zero, res["steps"])
    pred, _ = propagate_moments(lr, m0, zero, res["steps"])
    return {"steps": res["steps"], "deviation": res["z"] - exact[None], "predicted": pred - exact}


def _debiased_sup(means, second, R):
    """``sup_k sqrt(max(‖m_k‖² − tr Ŝ_k / R, 0))``: the norm of a mean with the noise ``E‖m̂‖² − ‖m‖² = tr S/R`` removed."""
    var = (second - np.sum(means**2, axis=-1)) * R / (R - 1)
    return np.sqrt(np.clip(np.sum(means**2, axis=-1) - var / R, 0.0, None)).max(axis=-1)


def sup_norm_bootstrap(deviation, n_boot, rng, block=slice(None)):
    """``sup_k ‖E deviation[:, k, block]‖`` (noise-debiased) and its bootstrap replicates over realizations.

    The squared norm of a Monte Carlo mean overestimates the squared norm of the mean by
    ``tr Cov / R``; that term is subtracted at every checkpoint before the supremum, in the point
    estimate and in every bootstrap replicate (multinomial weights over realizations).
    """
    dev = deviation[..., block]
    R = dev.shape[0]
    sq = np.sum(dev * dev, axis=-1)  # (R, n_ck)
    point = float(_debiased_sup(dev.mean(axis=0), sq.mean(axis=0), R))
    w = rng.multinomial(R, np.full(R, 1.0 / R), size=n_boot) / R
    boot = _debiased_sup(weighted_means(w, dev), w @ sq, R)   # weighted_means: einsum("br,rkd->bkd")'s bits
    return point, boot


def projected_amplitude(deviation, predicted):
    """Per realization, the deviation's least-squares amplitude along the predicted profile, in the units of its sup-norm.

    ``a_i = sup_k ‖P_k‖ · Σ_k ⟨z_k^(i) − x'_k, P_k⟩ / Σ_k ‖P_k‖²`` with ``P_k`` the first-order prediction:
    its mean is ``sup_k ‖P_k‖`` when the mean deviation equals the prediction, and, being linear in
    the realizations, it has no noise bias (unlike a norm of a Monte Carlo mean) and averages the noise
    over all checkpoints and components. Returns (R,).
    """
    P = np.asarray(predicted)
    return np.einsum("rkd,kd->r", deviation, P) / np.sum(P * P) * float(np.max(np.linalg.norm(P, axis=1)))


def index_law_deviation(cfg: TheoremH1Settings, h: float) -> float:
    """Mean over states ``θ ~ π, r ~ N(0, I)`` of ``max_i n |P(I = i | θ, r) − 1/n|`` for the M-step law."""
    target = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 82]))
    S = cfg.law_states
    th = target.posterior_mean + rng.standard_normal((S, cfg.dim)) / np.sqrt(target.n)
    p = EWSGIndexChain(cfg.index_chain_length).index_law(target, th, rng.standard_normal((S, cfg.dim)), h,
                                                         cfg.friction, np.sqrt(2 * cfg.friction))
    return float(np.mean(np.max(np.abs(target.n * p - 1.0), axis=1)))


def _order_fit(hs, points, boots, level=0.95):
    """Log–log slope of the (debiased) sup-norms with a bootstrap interval; ``None`` if a point estimate is 0
    (the deviation is not resolved from the noise). Replicates at 0 are kept at the smallest float, in the tails."""
    if np.any(np.asarray(points) <= 0):
        return None
    lx = np.log(hs)
    slope = float(np.polyfit(lx, np.log(points), 1)[0])
    B = np.log(np.clip(np.stack(boots, axis=1), np.finfo(float).tiny, None))  # (n_boot, m)
    lxc = lx - lx.mean()
    bs = np.sum(lxc * (B - B.mean(axis=1, keepdims=True)), axis=1) / np.sum(lxc**2)
    a = (1 - level) / 2
    return {"slope": slope, "ci_low": float(np.quantile(bs, a)), "ci_high": float(np.quantile(bs, 1 - a)),
            "level": level, "x": hs.tolist(), "y": list(points), "n_boot": int(B.shape[0]),
            "n_boot_zero": int(np.sum(np.isclose(B, np.log(np.finfo(float).tiny))))}


def theorem_h1(cfg: TheoremH1Settings, n_jobs=1, backend=None, progress=None) -> tuple[list[dict], dict]:
    """Rows (per h and checkpoint) and the summary: sup-norms, predictions, the order fit on ``h <= fit_max_step``."""
    rows, per_h = [], []
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 83]))
    d = cfg.dim
    for h in cfg.steps:
        md = mean_deviation(cfg, h, n_jobs, backend, progress)
        mean = md["deviation"].mean(axis=0)
        se = md["deviation"].std(axis=0, ddof=1) / np.sqrt(md["deviation"].shape[0])
        for k, step in enumerate(md["steps"]):
            rows.append({"step_size": h, "steps": int(step), "t": step * h,
                         **{f"dev_{c}": mean[k, j] for j, c in enumerate(("theta_1", "theta_2", "r_1", "r_2")[:2 * d])},
                         **{f"se_{c}": se[k, j] for j, c in enumerate(("theta_1", "theta_2", "r_1", "r_2")[:2 * d])},
                         **{f"pred_{c}": md["predicted"][k, j]
                            for j, c in enumerate(("theta_1", "theta_2", "r_1", "r_2")[:2 * d])}})
        amp = projected_amplitude(md["deviation"], md["predicted"])
        full, boot_full = sup_norm_bootstrap(md["deviation"], cfg.n_boot, rng)
        pos, boot_pos = sup_norm_bootstrap(md["deviation"], cfg.n_boot, rng, slice(0, d))
        noise = float(np.sqrt(np.max(np.sum(se**2, axis=1))))
        per_h.append({"step_size": h, "sup_norm": full, "sup_norm_position": pos,
                      "sup_norm_ci": np.quantile(boot_full, [0.025, 0.975]).tolist(),
                      "predicted_sup_norm": float(np.max(np.linalg.norm(md["predicted"], axis=1))),
                      "predicted_sup_norm_position": float(np.max(np.linalg.norm(md["predicted"][:, :d], axis=1))),
                      "noise_floor": noise, "index_law_deviation": index_law_deviation(cfg, h),
                      "amplitude": float(amp.mean()), "amplitude_se": float(amp.std(ddof=1) / np.sqrt(amp.size)),
                      "_boot": boot_full, "_boot_pos": boot_pos, "_amp": amp})
    return rows, _h1_summary(cfg, per_h)


def _h1_summary(cfg, per_h):
    hs = np.array([e["step_size"] for e in per_h])
    win = hs <= cfg.fit_max_step + 1e-15
    summary = {"per_step": [{k: v for k, v in e.items() if not k.startswith("_")} for e in per_h],
               "fit_window": hs[win].tolist(), "expected_order": 1.0}
    if win.sum() >= 2:
        sel = [e for e, w in zip(per_h, win) if w]
        if all(e["amplitude"] > 0 for e in sel):
            summary["order_fit_amplitude"] = {**fit_slope(hs[win], [e["_amp"] for e in sel], n_boot=cfg.n_boot,
                                                          rng=5).as_dict(), "expected": 1.0}
        else:  # a mean amplitude <= 0: the deviation is not resolved from the noise at some h (smoke scale)
            summary["order_fit_amplitude_missing"] = "a mean amplitude <= 0 in the fit window: not resolved"
        for key, pt, bt in (("order_fit", "sup_norm", "_boot"), ("order_fit_position", "sup_norm_position", "_boot_pos")):
            fit = _order_fit(hs[win], [e[pt] for e in sel], [e[bt] for e in sel])
            if fit is not None:
                summary[key] = fit
        pred = np.array([e["predicted_sup_norm"] for e in sel])
        summary["predicted_order"] = float(np.polyfit(np.log(hs[win]), np.log(pred), 1)[0])
        dev = np.array([e["index_law_deviation"] for e in sel])
        summary["index_law_order"] = float(np.polyfit(np.log(hs[win]), np.log(dev), 1)[0])
    return summary


def run_theorem_h1(cfg: TheoremH1Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``thmH1.csv`` and ``thmH1.json``."""
    rows, summary = theorem_h1(cfg, n_jobs, backend, progress)
    write_csv(Path(out_dir) / "thmH1.csv", rows, header_comment=(
        f"EWSG Theorem H.1, scale={cfg.scale}: E z_k(EWSG M={cfg.index_chain_length}) - E z'_k(SGHMC, exact) on the "
        "Sec. 5.1 target, Monte Carlo mean (dev_*, se_*) and first-order linear-response prediction (pred_*)"))
    write_json(Path(out_dir) / "thmH1.json", {**summary, "scale": cfg.scale, "settings": cfg.as_dict()})
