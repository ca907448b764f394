"""vrSG-MCMC items nobody had evaluated (issue #25): Remark 7's λ, the introduction's "same bias bound", Dubey et al.'s
bounds (13)-(15) on the §5 model, and Algorithm 1's counts run through the toolkit's sampler.

Every number here is exact (closed forms, float64 sums over the data, sympy) except Algorithm 1's, which are counts
and positions of real chains. Experiments write ``results/vrsg/``; the claims (:mod:`.claims_bounds`) read them.

References
----------
Seed ``002_245183f35db8d795.txt``: Introduction ("the same bias bound as standard SG-MCMC"), Algorithm 1, Theorem 6,
Remark 7, §5 "A synthetic experiment", Appendix "Discussion of the Theoretical Results of Dubey et al. 2016",
eq. (13)-(15).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sgmcmc_verify import samplers
from sgmcmc_verify.analytic import vrsg as V
from sgmcmc_verify.analytic import vrsg_gaussian as G
from sgmcmc_verify.estimators import SVRGControlVariate, TwoMinibatchControlVariate, UniformMinibatch
from sgmcmc_verify.integrators import OverdampedEM
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.store.cache import package_versions
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets import vrsg_gaussian_target

from .settings import Algorithm1Settings, DubeySettings, Remark7Settings, Remark8Settings, StationaryBiasSettings

__all__ = ["remark7_rows", "run_remark7", "bias_rows", "local_slope_fit", "run_stationary_bias", "dubey_terms",
           "run_dubey", "run_algorithm1", "remark8_rows", "run_remark8"]


# ---- Remark 7 ---------------------------------------------------------------------------------------------

def remark7_rows(cfg: Remark7Settings, remark7=V.lambda_remark7) -> list[dict]:
    """One row per (population, n2): Remark 7's λ (``remark7``, replaceable by a planted form in the tests), Theorem
    6's printed λ at n1 = N, the proof's last line (derived λ) at n1 = N, and Γ_β (Lemma 2).

    Raises
    ------
    ValueError
        Through :mod:`sgmcmc_verify.analytic.vrsg` on a bad population or batch size.
    """
    rng = np.random.default_rng(cfg.seed)
    rows = []
    for N in cfg.sizes:
        for d in cfg.dims:
            for k in range(cfg.populations):
                kind = "centred" if k % 2 == 0 else "offset"
                beta = rng.standard_normal((N, d)) + (cfg.offset if kind == "offset" else 0.0)
                for n2 in sorted({min(N - 1, max(1, int(round(f * N)))) for f in cfg.n2_fractions}):
                    rows.append({"N": N, "d": d, "population": k, "kind": kind, "n2": n2,
                                 "lambda_remark7": float(remark7(beta, n2)),
                                 "lambda_printed_at_N": float(V.lambda_printed(beta, N, n2)),
                                 "lambda_derived_at_N": float(V.lambda_derived(beta, N, n2)),
                                 "gamma": float(V.gamma(beta))})
    return rows


def run_remark7(cfg: Remark7Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``remark7.csv`` (one row per population and n2) and ``remark7.json`` (sympy residuals)."""
    rows = remark7_rows(cfg)
    sym = V.lambda_symbolic()
    write_csv(Path(out_dir) / "remark7.csv", rows, header_comment=(
        "vrSG Remark 7: lambda_l with n1 = N as Remark 7 prints it, Theorem 6's printed lambda_l at n1 = N, and the "
        "proof's last line N^3 (n1 - n2) Gamma / (n1 n2) at n1 = N, exact (float64 sums over the population)"))
    write_json(Path(out_dir) / "remark7.json", {
        "symbolic": {"remark7_minus_printed_at_N": str(sym["remark7_minus_printed_at_N"]),
                     "remark7_minus_derived_at_N": str(sym["remark7_minus_derived_at_N"])},
        "scale": cfg.scale, "settings": cfg.as_dict(), "versions": package_versions()})


# ---- the introduction's bias claim ---------------------------------------------------------------------

def bias_rows(x, cfg: StationaryBiasSettings, zeta_moments=None) -> list[dict]:
    """The exact stationary bias of φ̂ (φ = θ²) of vrSG-LD and SGLD at every step size of ``cfg``.

    ``zeta_moments`` replaces vrSG-LD's anchor-error moments (a planted biased estimator in the tests).
    """
    rows = []
    for h in cfg.step_sizes:
        vr = G.vrsg_ld_stationary_bias(x, h, cfg.n1, cfg.update_interval, prior_precision=cfg.prior_precision,
                                       zeta_moments=zeta_moments)
        sg = G.sgld_stationary_bias(x, h, cfg.n2, prior_precision=cfg.prior_precision)
        rows.append({"step_size": h, "h_kappa": h * (x.size + cfg.prior_precision), "bias_vrsg": vr, "bias_sgld": sg,
                     "ratio": vr / sg, "in_fit": bool(h <= cfg.fit_max_step)})
    return rows


def local_slope_fit(h, y) -> dict:
    """Least-squares slope of ``log|y|`` on ``log h`` with the range of the local slopes between neighbours as its
    interval (exact inputs: the spread is curvature, not noise); ``{"slope", "ci", "points", "span"}``.

    Raises
    ------
    ValueError
        Fewer than 2 points, or a non-positive ``h`` or zero ``y``.
    """
    h, y = np.asarray(h, float), np.abs(np.asarray(y, float))
    if h.size < 2 or np.any(h <= 0) or np.any(y == 0):
        raise ValueError("local_slope_fit needs >= 2 points with h > 0 and y != 0")
    lh, ly = np.log(h), np.log(y)
    slope = float(np.polyfit(lh, ly, 1)[0])
    loc = np.diff(ly) / np.diff(lh)
    return {"slope": slope, "ci": [float(min(loc.min(), slope)), float(max(loc.max(), slope))], "points": int(h.size),
            "span": float(np.log10(h.max() / h.min()))}


def run_stationary_bias(cfg: StationaryBiasSettings, out_dir, n_jobs=1, backend=None, progress=None,
                        zeta_moments=None) -> None:
    """Write ``bias.csv`` and ``bias.json`` (fits of |bias| vs h for both samplers; the closed form checked against
    the exact finite-L mean error at ``check_steps`` and twice that, extrapolated to L → ∞)."""
    from .theory import gaussian_data

    x = gaussian_data(cfg)
    rows = bias_rows(x, cfg, zeta_moments)
    fit = [r for r in rows if r["in_fit"]]
    fits = {k: local_slope_fit([r["step_size"] for r in fit], [r[f"bias_{k}"] for r in fit]) for k in ("vrsg", "sgld")}
    h = cfg.step_sizes[len(cfg.step_sizes) // 2]
    L = cfg.check_steps
    me = G.vrsg_ld_time_average_mse(x, h, [L, 2 * L], cfg.n1, cfg.update_interval,
                                    prior_precision=cfg.prior_precision).mean_error
    closed = G.vrsg_ld_stationary_bias(x, h, cfg.n1, cfg.update_interval, prior_precision=cfg.prior_precision)
    write_csv(Path(out_dir) / "bias.csv", rows, header_comment=(
        "vrSG introduction ('the same bias bound as standard SG-MCMC'): EXACT stationary bias of the time average of "
        "theta^2 on the section-5 model, vrSG-LD (anchor n1 every m steps) and SGLD (n = n2)"))
    write_json(Path(out_dir) / "bias.json", {
        "fits": fits, "check": {"step_size": h, "L": [L, 2 * L], "recursion_extrapolated": float(2 * me[1] - me[0]),
                                "closed_form": closed},
        "paper_step_size_row": next((r for r in rows if np.isclose(r["step_size"], 1e-4)), None),
        "scale": cfg.scale, "settings": cfg.as_dict(), "versions": package_versions()})


# ---- Dubey et al.'s bounds (13)-(15) -------------------------------------------------------------------------

def dubey_terms(N: int, n: int, m: int, h: float, sigma2: float, D: float, d: int) -> dict:
    """The first terms of (13), (14), (15) times ``L`` (their O(·) constants equal):

    ``(13) = N² min{2σ², m²(D²h²σ² + hd)}/n``, ``(14) = N²σ²/n``, ``(15) = N²m²(D²h²σ² + hd)/n``.

    Raises
    ------
    ValueError
        Non-positive ``N``, ``n``, ``m``, ``h``, ``sigma2``, ``D`` or ``d``.
    """
    for name, v in (("N", N), ("n", n), ("m", m), ("h", h), ("sigma2", sigma2), ("D", D), ("d", d)):
        if not v > 0:
            raise ValueError(f"{name} must be > 0, got {v}")
    x = m * m * (D * D * h * h * sigma2 + h * d)
    return {"eq13": N * N * min(2.0 * sigma2, x) / n, "eq14": N * N * sigma2 / n, "eq15": N * N * x / n}


def run_dubey(cfg: DubeySettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``dubey.csv`` (the bounds' ratios per step size, epoch and σ² reading), ``dubey_lambda.csv`` (Theorem 6's
    λ_l printed and derived on the model's β at several anchors) and ``dubey.json`` (the constants)."""
    from .theory import gaussian_data

    x = gaussian_data(cfg)
    model = G.gaussian_model(x, cfg.prior_precision)
    N = x.size
    D = 1.0 + cfg.prior_precision / N
    sig = {"data variance": float(np.var(x)), "bounded gradient": float(np.max((model.posterior_mean - x) ** 2))}
    rows = []
    for reading, s2 in sig.items():
        for m in cfg.epochs:
            for h in cfg.step_sizes:
                t = dubey_terms(N, cfg.batch_size, m, h, s2, D, 1)
                rows.append({"sigma2_reading": reading, "sigma2": s2, "m": m, "step_size": h, **t,
                             "ratio_13_14": t["eq13"] / t["eq14"], "ratio_15_14": t["eq15"] / t["eq14"]})
    lam = []
    for q in cfg.anchor_quantiles:
        anchor = model.posterior_mean + q / np.sqrt(model.kappa)
        beta = x - anchor * D        # ∇ log p(x_i | θ̃) with the prior split evenly over the data: x_i − θ̃(1 + λ/N)
        for n1 in cfg.n1_values:
            lam.append({"anchor_quantile": q, "n1": n1, "n2": cfg.batch_size,
                        "lambda_printed": float(V.lambda_printed(beta, n1, cfg.batch_size)),
                        "lambda_derived": float(V.lambda_derived(beta, n1, cfg.batch_size))})
    write_csv(Path(out_dir) / "dubey.csv", rows, header_comment=(
        "vrSG appendix, Dubey et al. 2016: first terms (x L) of bounds (13) SVRG-LD, (14) SGLD, (15) SVRG-LD without "
        "the 2 sigma^2 branch, O() constants equal, on the section-5 model's constants"))
    write_csv(Path(out_dir) / "dubey_lambda.csv", lam, header_comment=(
        "vrSG Theorem 6 on the section-5 model: lambda_l printed and derived (proof's last line), beta_i = x_i - theta~"))
    write_json(Path(out_dir) / "dubey.json", {"constants": {"N": N, "n": cfg.batch_size, "D": D, "d": 1, "sigma2": sig},
                                             "scale": cfg.scale, "settings": cfg.as_dict(),
                                             "versions": package_versions()})


# ---- Algorithm 1 -------------------------------------------------------------------------------------------

def _per_step(sampler, x0, seed, steps, anchor=False):
    """Every step's position (and anchor) and per-datum evaluations, through the toolkit's one chain loop."""
    obs = {"position": lambda s: s.position}
    if anchor:
        obs["anchor"] = lambda s: s.estimator_state.anchor
    r = run_chains(sampler, sampler.init(x0), np.random.default_rng(seed), checkpoints=np.arange(1, steps + 1),
                   unit="steps", observe=obs)
    r["evaluations_per_step"] = np.rint(np.diff(np.concatenate([[0.0], r["passes"]])) * sampler.target.n).astype(int)
    return r


def run_algorithm1(cfg: Algorithm1Settings, out_dir, n_jobs=1, backend=None, progress=None, sampler=None) -> None:
    """Write ``algorithm1.json``: vrSG-LD's per-step evaluations and anchor changes against Algorithm 1's counts, and
    the largest position difference between vrSG-LD with ``n1 = N`` and SVRG-LD (epoch m) from one random stream.

    ``sampler``: a replacement for the vrSG-LD sampler (a planted bug in the tests).
    """
    t = vrsg_gaussian_target(cfg.n_data, 1, cfg.data_seed)
    s = sampler or samplers.vrsg_ld(t, cfg.step_size, cfg.n1, cfg.n2, cfg.update_interval)
    x0 = np.zeros((cfg.chains, 1))
    r = _per_step(s, x0, cfg.seed, cfg.steps, anchor=True)
    anchors = r["anchor"]                                   # (chains, steps, 1): the anchor after step k
    before = np.concatenate([x0[:, None, :], r["position"][:, :-1]], axis=1)   # the position step k started from
    changed = np.concatenate([[True], np.any(anchors[:, 1:] != anchors[:, :-1], axis=(0, 2))])
    changes = np.flatnonzero(changed)
    at_current = bool(np.all(anchors[:, changes] == before[:, changes]))
    refresh = np.zeros(cfg.steps, bool)
    refresh[::cfg.update_interval] = True
    expected = 2 * cfg.n2 + cfg.n1 * refresh
    evals = r["evaluations_per_step"]
    # n1 = N without replacement against SVRG-LD, one stream (the fresh n2-batch drawn with replacement by both)
    a = OverdampedEM(t, cfg.step_size, TwoMinibatchControlVariate(UniformMinibatch(cfg.n2),
                                                                  UniformMinibatch(t.n, replace=False),
                                                                  cfg.update_interval), name="vrSG-LD")
    b = OverdampedEM(t, cfg.step_size, SVRGControlVariate(UniformMinibatch(cfg.n2), cfg.update_interval),
                     name="SVRG-LD")
    x1 = np.random.default_rng(cfg.seed + 1).standard_normal((cfg.chains, 1))
    ra, rb = _per_step(a, x1, cfg.seed + 2, cfg.steps), _per_step(b, x1, cfg.seed + 2, cfg.steps)
    gaps = np.diff(changes)
    write_json(Path(out_dir) / "algorithm1.json", {
        "evaluations": {"steps": cfg.steps, "max_abs_excess": int(np.max(np.abs(evals - expected))),
                        "total": int(evals.sum()), "expected_total": int(expected.sum())},
        "anchor": {"changes": int(changes.size), "expected_changes": int(refresh.sum()),
                   "gap_min": int(gaps.min()) if gaps.size else None, "gap_max": int(gaps.max()) if gaps.size else None,
                   "first_change": int(changes[0]), "all_at_current_position": at_current},
        "svrg_equivalence": {
            "max_abs_position_difference": float(np.max(np.abs(ra["position"] - rb["position"]))),
            "max_abs_evaluation_difference": int(np.max(np.abs(ra["evaluations_per_step"] - rb["evaluations_per_step"]))),
            "position_scale": float(np.max(np.abs(rb["state"].position)))},
        "scale": cfg.scale, "settings": cfg.as_dict(), "versions": package_versions()})


# ---- Remark 8 ----------------------------------------------------------------------------------------------

def remark8_rows(x, cfg: Remark8Settings, mse=None) -> list[dict]:
    """Per (h, m): vrSG-LD's exact MSE at the budget, the full-gradient MSE at the same (h, L), the noise part and the
    noise part over Remark 8's factor ``E ζ²(n1)(n1/m + n2)/T``. ``mse``: a replacement for the vrSG-LD MSE function
    (a planted sampler in the tests)."""
    from sgmcmc_verify.analytic import vrsg_gaussian as Gm

    mse = mse or Gm.vrsg_ld_time_average_mse
    A1 = float(Gm.noise_moments(x, cfg.n1)[2])
    rows = []
    for h in cfg.step_sizes:
        for m in cfg.update_intervals:
            L = int(cfg.budget / (cfg.n2 + cfg.n1 / m))
            vr = float(mse(x, h, [L], cfg.n1, m, prior_precision=cfg.prior_precision).mse[0])
            full = float(Gm.sgld_time_average_mse(x, h, [L], x.size, prior_precision=cfg.prior_precision).mse[0])
            factor = A1 * (cfg.n1 / m + cfg.n2) / cfg.budget
            rows.append({"step_size": h, "m": m, "L": L, "m_h_kappa": m * h * (x.size + cfg.prior_precision),
                         "mse_vrsg": vr, "mse_full_gradient": full, "noise_part": vr - full,
                         "remark8_factor": factor, "normalized": (vr - full) / factor})
    return rows


def run_remark8(cfg: Remark8Settings, out_dir, n_jobs=1, backend=None, progress=None, mse=None) -> None:
    """Write ``remark8.csv`` and ``remark8.json`` (per step size, the slope of the normalized noise part in m)."""
    from .theory import gaussian_data

    x = gaussian_data(cfg)
    rows = remark8_rows(x, cfg, mse)
    fits = {f"{h:g}": local_slope_fit([r["m"] for r in rows if r["step_size"] == h],
                                      [r["normalized"] for r in rows if r["step_size"] == h]) for h in cfg.step_sizes}
    write_csv(Path(out_dir) / "remark8.csv", rows, header_comment=(
        "vrSG Remark 8: EXACT MSE of vrSG-LD's time average of theta^2 at budget T (n2 + n1/m per step) on the "
        "section-5 model, its minibatch-noise part (minus the full-gradient MSE at the same h, L) and that part over "
        "Remark 8's factor E zeta^2(n1) (n1/m + n2)/T"))
    write_json(Path(out_dir) / "remark8.json", {"fits": fits, "scale": cfg.scale, "settings": cfg.as_dict(),
                                               "versions": package_versions()})
