"""vrSG-MCMC Theorem 6, Lemma 5 and Proposition 10 measured along real vrSG-LD chains (Bayesian logistic regression).

At every recorded state of a chain the estimator's two parameters are known: θ_l (the position) and θ̃_l
(the anchor of the last refresh, ``k = l − l_anchor`` steps older). From all N per-datum
log-likelihood gradients ``α_i = ∇log p(d_i | θ_l)`` and ``β_i = ∇log p(d_i | θ̃_l)`` the exact
conditional quantities of the proofs follow (:mod:`sgmcmc_verify.analytic.vrsg`): Γ_α, Γ_β, Γ_{α−β}, the cross term,
Theorem 6's λ_l as printed, as the proof derives it (``N³(n1 − n2)Γ_β/(n1 n2)``) and exactly
(``E‖ΔV‖²(SG, n2) − E‖ΔV‖²(vrSG, n1, n2)``); the expectation over the algorithm's randomness is the
average over chains and recorded states, with standard errors over independent chains.

* λ vs n1 at the paper's ``(n2, m) = (10, 10)``: where does the exact per-step reduction change sign?
* The O(mh) remainder: ``λ_exact − λ_derived = 2 f(n2) Γ(β, α − β)`` against the gap ``k h``.
* Lemma 5 (``E α = E β + O(mh)``): in stationarity both laws are the same and the difference is 0;
  in the transient from θ_0 = 0 (first epoch, θ̃ = θ_0) the mean difference is measured against
  ``k h`` and compared with its first-order value ``k h J(θ_0)(−∇V(θ_0))``, ``J = ∂ᾱ/∂θ``.

References
----------
Seed ``002_245183f35db8d795.txt``: Algorithm 1, (10)–(12), Lemma 5 (Lemma 9), Proposition 10, Theorem 6,
Remark 7.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
from scipy.special import expit

from sgmcmc_verify.analytic import vrsg as V
from sgmcmc_verify import samplers
from sgmcmc_verify.measure.rates import fit_slope
from sgmcmc_verify.runner import run_chains, run_realizations
from sgmcmc_verify.store.cache import package_versions
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets import LogisticRegressionTarget

from .settings import Theorem6Settings
from .theory import pima_map, pima_target, single_threaded_blas

__all__ = ["run_theorem6", "state_statistics", "anchor_gaps"]


def anchor_gaps(steps, m: int) -> np.ndarray:
    """Gap ``k = c − m⌊(c − 1)/m⌋ ∈ {1..m}`` between θ_c and the anchor held after ``c`` steps (refreshes at ``l mod m = 0``)."""
    c = np.asarray(steps, dtype=np.int64)
    return c - m * ((c - 1) // m)


def state_statistics(target, pos: np.ndarray, anchor: np.ndarray) -> dict:
    """Per-state Γ_α, Γ_β, Γ_{α−β}, Γ(β, α−β), S_β = ‖Σβ_i‖², D_β = Σ‖β_i‖² for positions and anchors ``(chains, d)``.

    For logistic regression every per-datum gradient is a residual times its feature row,
    ``∇V_i(θ) = (σ(x_iᵀθ) − y_i) x_i``, so the sums over i need only ``(chains, N)`` residuals:
    ``N(N−1)Γ(a, b) = Σ_i r^a_i r^b_i ‖x_i‖² − (Σ_i r^a_i x_i)ᵀ(Σ_i r^b_i x_i)/N`` (the uncentred form; its
    cancellation factor ``‖Σa_i‖²/(N Σ‖a_i‖²)`` is returned as ``cancellation`` and stays far below 1 in
    stationarity). Other targets go through :mod:`sgmcmc_verify.analytic.vrsg` on all ``(chains, N, d)`` gradients.
    The signs of α = −∇V_i and β cancel in every quadratic form.
    """
    if isinstance(target, LogisticRegressionTarget):
        xx = np.sum(target.X**2, axis=1)
        ra = expit(pos @ target.X.T) - target.y
        rb = expit(anchor @ target.X.T) - target.y
        rd = ra - rb
        Sa, Sb, Sd = ra @ target.X, rb @ target.X, rd @ target.X
        N = target.n
        nn = N * (N - 1)

        def g(Dab, Sx, Sy):
            return (Dab - np.sum(Sx * Sy, axis=1) / N) / nn

        Db = (rb * rb) @ xx
        return {"gA": g((ra * ra) @ xx, Sa, Sa), "gB": g(Db, Sb, Sb), "gD": g((rd * rd) @ xx, Sd, Sd),
                "gBD": g((rb * rd) @ xx, Sb, Sd), "S": np.sum(Sb * Sb, axis=1), "D": Db,
                "cancellation": np.sum(Sb * Sb, axis=1) / (N * Db)}
    a = -target.data_gradients_all(pos)   # ∇log p(d_i | θ) = −∇V_i(θ): (chains, N, d)
    b = -target.data_gradients_all(anchor)
    S, D, _ = V.pair_sums(b, literal=False)
    return {"gA": V.gamma(a), "gB": V.gamma(b), "gD": V.gamma(a - b), "gBD": V.gamma_cross(b, a - b), "S": S, "D": D,
            "cancellation": S / (b.shape[-2] * D)}


def _block(n_chains, rng, *, cfg, h, m, start, record):
    t = pima_target(cfg.prior_precision)
    s = samplers.vrsg_ld(t, h, cfg.n1, cfg.n2, m)
    out = run_chains(s, s.init(np.tile(start, (n_chains, 1))), rng, checkpoints=list(record), unit="steps",
                     observe={"pos": lambda st: st.position, "anchor": lambda st: st.estimator_state.anchor})
    return {"pos": out["pos"], "anchor": out["anchor"], "steps": out["steps"]}


def _run(cfg, h, m, start, record, chains, tag, n_jobs, backend):
    fn = functools.partial(_block, cfg=cfg, h=h, m=m, start=start, record=tuple(int(c) for c in record))
    seed = np.random.SeedSequence([cfg.seed, tag, int(round(h * 1e9)), m]).entropy
    return run_realizations(fn, chains, seed=seed, block_size=max(1, min(chains, 200)), n_jobs=n_jobs, backend=backend)


def _stats(target, res, m, used_only: bool) -> dict:
    """Stack per-state statistics ``(chains, n_rec)``; ``used_only``: pair θ_c with the anchor step c uses (θ_c itself
    when ``c mod m = 0``), else with the anchor held after c steps (gap 1..m)."""
    steps = res["steps"]
    cols = []
    for j, c in enumerate(steps):
        anc = res["pos"][:, j] if (used_only and c % m == 0) else res["anchor"][:, j]
        cols.append(state_statistics(target, res["pos"][:, j], anc))
    return {k: np.stack([c[k] for c in cols], axis=1) for k in cols[0]}, anchor_gaps(steps, m)


def _lambda_table(cfg, st, N) -> tuple[list[dict], dict]:
    f = lambda n: V.scheme_factor(N, n, False)  # noqa: E731
    c = lambda n: N * (N - n) / (n * (N - 1))   # noqa: E731
    rows = []
    for n1 in cfg.n1_grid:
        printed = (N / n1 - N / cfg.n2) * st["S"] - (c(cfg.n2) - c(n1)) * (st["S"] - st["D"])
        derived = (f(cfg.n2) - f(n1)) * st["gB"]
        exact = f(cfg.n2) * (st["gA"] - st["gD"]) - f(n1) * st["gB"]
        row = {"n1": n1, "n2": cfg.n2}
        for name, v in (("printed", printed), ("derived", derived), ("exact", exact)):
            pc = v.mean(axis=1)  # per chain
            row |= {f"lambda_{name}": float(pc.mean()), f"lambda_{name}_se": float(pc.std(ddof=1) / np.sqrt(pc.size)),
                    f"frac_states_{name}_negative": float(np.mean(v < 0))}
        row["sgld_noise_n2"] = float(f(cfg.n2) * st["gA"].mean())
        rows.append(row)
    pcs = {k: v.mean(axis=1) for k, v in st.items()}
    rho = lambda ix: (N - cfg.n2) * (pcs["gA"][ix].mean() - pcs["gD"][ix].mean()) / (cfg.n2 * pcs["gB"][ix].mean())  # noqa: E731
    R = pcs["gA"].size
    allix = np.arange(R)
    rng = np.random.default_rng(cfg.seed)
    boot = [N / (1 + rho(rng.integers(0, R, R))) for _ in range(cfg.n_boot)]
    cross = {"n1_star": float(N / (1 + rho(allix))), "ci": [float(np.quantile(boot, 0.025)), float(np.quantile(boot, 0.975))],
             "n2": cfg.n2, "definition": "n1 at which the exact per-step reduction is 0: f(n1) Gamma_beta = f(n2)(Gamma_alpha - "
             "Gamma_(alpha-beta)), chain-averaged Gammas, bootstrap over chains"}
    return rows, cross


def _gap_rows(cfg, target, lam_max, n_jobs, backend) -> list[dict]:
    rows = []
    m = cfg.gap_update_interval
    for h in cfg.gap_step_sizes:
        burn = int(round(cfg.burn_in_steps * cfg.step_size / h))
        burn += (-burn) % m
        record = np.arange(burn + 1, burn + cfg.gap_epochs * m + 1)
        res = _run(cfg, h, m, pima_map(target), record, cfg.chains, 2, n_jobs, backend)
        st, gaps = _stats(target, res, m, used_only=False)
        fn2 = V.scheme_factor(target.n, cfg.n2, False)
        for k in cfg.gaps:
            sel = gaps == k
            R = 2 * fn2 * st["gBD"][:, sel]
            pc = R.mean(axis=1)
            rows.append({"step_size": h, "gap": k, "gap_time": k * h, "gap_time_lambda_max": k * h * lam_max,
                         "remainder_mean": float(pc.mean()), "remainder_se": float(pc.std(ddof=1) / np.sqrt(pc.size)),
                         "remainder_rms": float(np.sqrt(np.mean(R**2))), "gamma_delta_mean": float(st["gD"][:, sel].mean()),
                         "gamma_beta_mean": float(st["gB"][:, sel].mean()), "_per_chain": pc,
                         "_per_chain_gd": st["gD"][:, sel].mean(axis=1), "_per_chain_rsq": (R**2).mean(axis=1)})
    return rows


def _lemma5_rows(cfg, target, n_jobs, backend) -> list[dict]:
    m = cfg.gap_update_interval
    th0 = np.zeros(target.dim)
    z0 = target.X @ th0
    J = -(target.X * (expit(z0) * (1 - expit(z0)))[:, None]).T @ target.X / target.n   # ∂ᾱ/∂θ at θ_0
    drift = -target.full_gradient(th0[None])[0]
    pred = J @ drift
    e = pred / np.linalg.norm(pred)
    beta_bar = -target.data_gradients_all(th0[None])[0].mean(axis=0)
    rows = []
    for h in cfg.gap_step_sizes:
        res = _run(cfg, h, m, th0, list(cfg.gaps), cfg.transient_chains, 5, n_jobs, backend)
        for j, k in enumerate(res["steps"]):
            abar = -target.data_gradients_all(res["pos"][:, j]).mean(axis=1)
            diff = abar - beta_bar
            proj = diff @ e
            rows.append({"step_size": h, "gap": int(k), "gap_time": int(k) * h, "mean_diff_norm": float(np.linalg.norm(diff.mean(0))),
                         "projection_mean": float(proj.mean()), "projection_se": float(proj.std(ddof=1) / np.sqrt(proj.size)),
                         "first_order_prediction": float(int(k) * h * np.linalg.norm(pred)), "_per_chain": proj})
    return rows


def _slope(rows, key, cfg, lam_max, sign=1.0):
    sel = [r for r in rows if r["gap_time"] * lam_max <= cfg.gap_fit_max]
    x = np.array([r["gap_time"] for r in sel])
    cols = [sign * r[key] for r in sel]
    if len(sel) < 5 or any(c.mean() <= 0 for c in cols):
        return {"status": "not fitted", "points": len(sel), "reason": "fewer than 5 points or a non-positive mean"}
    return {**fit_slope(x, cols, n_boot=cfg.n_boot, rng=cfg.seed).as_dict(), "points": len(sel),
            "window": f"k h lambda_max <= {cfg.gap_fit_max}"}


@single_threaded_blas
def run_theorem6(cfg: Theorem6Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``thm6_lambda.csv``, ``thm6_gap.csv``, ``thm6_lemma5.csv`` and ``thm6.json``."""
    target = pima_target(cfg.prior_precision)
    th_map = pima_map(target)
    p = expit(target.X @ th_map)
    H = (target.X * (p * (1 - p))[:, None]).T @ target.X + cfg.prior_precision * np.eye(target.dim)
    lam = np.linalg.eigvalsh(H)
    m = cfg.update_interval
    record = np.arange(cfg.burn_in_steps + 1, cfg.burn_in_steps + cfg.record_epochs * m + 1)
    res = _run(cfg, cfg.step_size, m, th_map, record, cfg.chains, 1, n_jobs, backend)
    st, _ = _stats(target, res, m, used_only=True)
    lam_rows, cross = _lambda_table(cfg, st, target.n)
    gap = _gap_rows(cfg, target, lam[-1], n_jobs, backend)
    l5 = _lemma5_rows(cfg, target, n_jobs, backend)
    sign = float(np.sign(np.mean([r["remainder_mean"] for r in gap])) or 1.0)
    fits = {"remainder_mean": {**_slope(gap, "_per_chain", cfg, lam[-1], sign), "sign": sign, "expected": 1.0},
            "gamma_delta": {**_slope(gap, "_per_chain_gd", cfg, lam[-1]), "expected": 1.0},
            "remainder_mean_square": {**_slope(gap, "_per_chain_rsq", cfg, lam[-1]), "expected": 1.0},
            "lemma5_projection": {**_slope(l5, "_per_chain", cfg, lam[-1]), "expected": 1.0}}
    out = Path(out_dir)
    write_csv(out / "thm6_lambda.csv", lam_rows, header_comment=(
        f"vrSG Theorem 6 on Pima logistic regression: lambda_l (printed / derived N^3(n1-n2)Gamma_beta/(n1 n2) / exact) "
        f"averaged over {cfg.chains} vrSG-LD chains x {len(record)} states (n2={cfg.n2}, m={m}, h={cfg.step_size}); se over chains"))
    write_csv(out / "thm6_gap.csv", [{k: v for k, v in r.items() if not k.startswith("_")} for r in gap], header_comment=(
        "Theorem 6's O(mh) remainder 2 f(n2) Gamma(beta, alpha-beta) vs the gap k h between theta and the anchor; se over chains"))
    write_csv(out / "thm6_lemma5.csv", [{k: v for k, v in r.items() if not k.startswith("_")} for r in l5], header_comment=(
        "Lemma 5 in the transient from theta_0 = 0 (anchor = theta_0): E(alpha_bar - beta_bar) projected on its first-order "
        "direction J(-grad V), vs k h; se over chains"))
    write_json(out / "thm6.json", {
        "setup": {"N": target.n, "dim": target.dim, "hessian_eigenvalues_at_map": lam.tolist(), "n1": cfg.n1, "n2": cfg.n2,
                  "m": m, "step_size": cfg.step_size, "h_lambda_max": cfg.step_size * lam[-1], "chains": cfg.chains,
                  "states_per_chain": len(record)},
        "lambda_at_n1": next(r for r in lam_rows if r["n1"] == cfg.n1), "exact_sign_change": cross, "fits": fits,
        "max_cancellation_factor": float(st["cancellation"].max()),
        "scale": cfg.scale, "settings": cfg.as_dict(), "versions": package_versions()})
