"""EWSG Appendix F, eq. (13) and the friction ``Γ_k``: does the corrected friction restore the stationary law to the
stated order? Decided exactly on the §5.1 model (issue #25).

Eq. (13) says that the randomness of the index enlarges the local covariance of the momentum step by
``h² cov[n∇V_I]``; modelled (modified-equation view) as an enlarged diffusion ``σ²I + h cov[n∇V_I]``, the text keeps
the temperature by the fluctuation–dissipation relation and sets ``Γ_k = (σ²I + h cov[n∇V_I(θ_(k−1))])/(2T)``. To
first order in h the enlargement is then compensated: the stochastic-gradient part of the stationary law should fall
from O(h) to O(h²) (the integrator's own O(h) bias, which the full-gradient EM chain has too, is not what eq. (13)
addresses).

What is computed (all exact, by discrete Lyapunov equations):

* on the journal's §5.1 model (``n = 50``, ``d = 2``, centers from ``default_rng(20210501)``, γ = 10, σ = √(2γ),
  T = 1), the Gaussian-means target has a state-independent ``cov[n∇V_I]``, so with a uniform index (M = 0) and the
  exact covariance the chain is linear with constant Γ: its stationary law is Gaussian and exact
  (:func:`~sgmcmc_verify.analytic.linear_samplers.variance_corrected_em_recursion`);
* for every h of ``step_sizes``: the stationary θ-covariances of full-gradient EM (FG), of SG-EM with friction γ (SG,
  uncorrected) and with Γ (VR), and their relative Frobenius distances ``‖S_SG − S_FG‖/‖S_FG‖``,
  ``‖S_VR − S_FG‖/‖S_FG‖`` (the stochastic-gradient part of the stationary law, with and without the correction) and
  to the target's ``H⁻¹``;
* the log-log slopes of those distances over the grid (exact numbers: a least-squares slope with no sampling error);
* at the paper's step size (Fig. 4 runs EWSG-VR at EWSG's h = 0.05) the spectral radius of both recursions: whether
  a stationary law exists there at all.

The relative Frobenius distance of the θ-covariances is used rather than W2: for two nearly equal Gaussians the
Bures formula loses the difference to cancellation (its W2² is O(‖ΔS‖²), here below 1e-15), while the Lyapunov
solves are accurate to ~1e-13 relative, far below the smallest distance on the grid (~1e-7).

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: Appendix F, eq. (13), the friction Γ_k, Algorithm 2 (line 18), §5.1.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from sgmcmc_verify.analytic.gaussian import quadratic_posterior
from sgmcmc_verify.analytic.linear_samplers import (minibatch_noise_covariance, stationary_moments,
                                                    underdamped_em_recursion, variance_corrected_em_recursion)
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.store.settings import ScaledSettings
from sgmcmc_verify.targets import gaussian_means_target

__all__ = ["FrictionCorrectionSettings", "stationary_distances", "loglog_slope", "run_friction_correction"]


@dataclass(frozen=True)
class FrictionCorrectionSettings(ScaledSettings):
    """Appendix F, eq. (13): the exact stationary laws with and without Γ_k on the journal's §5.1 model.

    ``step_sizes``: nine values over two decades, h ∈ [1e-5, 1e-3], where the correction is a perturbation of γ
    (h λ_max(Γ − γ)/γ = h λ_max(Q)/(2γ) from 0.0015 to 0.15 here), so that a leading-order statement can show. ``wide_step_sizes``:
    the decade below the paper's EWSG step (reported beside, not decided on). Exact: the same at every scale.
    """

    n_data: int = 50
    dim: int = 2
    friction: float = 10.0
    seed: int = 20210501
    step_sizes: tuple = tuple(float(x) for x in np.geomspace(1e-5, 1e-3, 9))
    wide_step_sizes: tuple = tuple(float(x) for x in np.geomspace(1e-4, 1e-2, 7))
    paper_step_size: float = 5e-2
    SCALE_OVERRIDES: ClassVar[dict] = {}


def stationary_distances(hessian, minimizer, noise_cov, step_size: float, friction: float) -> dict:
    """Relative Frobenius distances of the exact stationary θ-covariances of FG-EM, SG-EM (friction γ) and SG-EM with
    EWSG-VR's Γ, and to the target covariance ``H⁻¹``.

    Parameters
    ----------
    hessian : (d, d) array_like
        H of the quadratic potential.
    minimizer : (d,) array_like
        θ* (the stationary mean of every chain here).
    noise_cov : (d, d) array_like
        Q = cov[n∇V_I] of the uniform one-sample gradient.
    step_size, friction : float
        h > 0 and γ > 0 (σ = √(2γ), T = 1).

    Returns
    -------
    dict
        ``sg_vs_fg``, ``vr_vs_fg``, ``fg_vs_target``, ``sg_vs_target``, ``vr_vs_target`` (relative distances) and the
        spectral radii ``rho_sg``, ``rho_vr``.

    Raises
    ------
    ValueError
        A recursion without a stationary law at this step size (spectral radius >= 1), naming the chain.
    """
    Q = np.asarray(noise_cov, dtype=float)
    recs = {"fg": underdamped_em_recursion(hessian, minimizer, np.zeros_like(Q), step_size, friction),
            "sg": underdamped_em_recursion(hessian, minimizer, Q, step_size, friction),
            "vr": variance_corrected_em_recursion(hessian, minimizer, Q, step_size, friction)}
    d = np.asarray(minimizer).shape[0]
    cov = {}
    for k, rec in recs.items():
        try:
            cov[k] = stationary_moments(rec)[1][:d, :d]
        except ValueError as e:
            raise ValueError(f"{k.upper()}-EM at step_size {step_size:g}: {e}") from None
    target = np.linalg.inv(np.asarray(hessian, dtype=float))

    def dist(a, b):
        return float(np.linalg.norm(a - b) / np.linalg.norm(b))
    return {"sg_vs_fg": dist(cov["sg"], cov["fg"]), "vr_vs_fg": dist(cov["vr"], cov["fg"]),
            "fg_vs_target": dist(cov["fg"], target), "sg_vs_target": dist(cov["sg"], target),
            "vr_vs_target": dist(cov["vr"], target),
            "rho_sg": float(np.max(np.abs(np.linalg.eigvals(recs["sg"].A)))),
            "rho_vr": float(np.max(np.abs(np.linalg.eigvals(recs["vr"].A))))}


def loglog_slope(x, y) -> dict:
    """Least-squares slope of ``log y`` on ``log x`` of exact numbers: ``slope`` (with ``ci_low = ci_high = slope``:
    no sampling error), the local slopes between neighbours, ``x``, ``y``, ``points``.

    Raises
    ------
    ValueError
        Fewer than 2 points, or a non-positive value.

    Examples
    --------
    >>> round(loglog_slope([1.0, 2.0, 4.0], [3.0, 12.0, 48.0])["slope"], 12)
    2.0
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 2 or x.shape != y.shape:
        raise ValueError(f"x, y: need at least 2 points of equal length, got {x.size} and {y.size}")
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("x, y: a log-log slope needs positive values")
    lx, ly = np.log(x), np.log(y)
    s = float(np.polyfit(lx, ly, 1)[0])
    return {"slope": s, "ci_low": s, "ci_high": s, "level": 1.0, "points": int(x.size),
            "local_slopes": [float(v) for v in np.diff(ly) / np.diff(lx)], "x": x.tolist(), "y": y.tolist()}


def run_friction_correction(cfg: FrictionCorrectionSettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``friction_correction.csv`` (per h: the distances and spectral radii) and ``friction_correction.json``
    (the slopes on the decided grid and on the wide grid, the paper's step size)."""
    target = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
    post = quadratic_posterior(target.centers)
    Q = minibatch_noise_covariance(target.centers)
    rows = []
    for grid, hs in (("decided", cfg.step_sizes), ("wide", cfg.wide_step_sizes)):
        for h in hs:
            rows.append({"grid": grid, "step_size": h, **stationary_distances(target.hessian, post.mean, Q, h,
                                                                                cfg.friction)})
    fits = {}
    for grid in ("decided", "wide"):
        rr = [r for r in rows if r["grid"] == grid]
        fits[grid] = {k: loglog_slope([r["step_size"] for r in rr], [r[k] for r in rr])
                      for k in ("sg_vs_fg", "vr_vs_fg", "fg_vs_target", "sg_vs_target", "vr_vs_target")}
    paper = {"step_size": cfg.paper_step_size,
             "rho_sg": float(np.max(np.abs(np.linalg.eigvals(
                 underdamped_em_recursion(target.hessian, post.mean, Q, cfg.paper_step_size, cfg.friction).A)))),
             "rho_vr": float(np.max(np.abs(np.linalg.eigvals(
                 variance_corrected_em_recursion(target.hessian, post.mean, Q, cfg.paper_step_size, cfg.friction).A))))}
    out = Path(out_dir)
    write_csv(out / "friction_correction.csv", rows, header_comment=(
        f"EWSG Appendix F eq. (13): relative Frobenius distances of exact stationary theta-covariances (Lyapunov), "
        f"FG-EM, SG-EM with friction gamma (sg) and with Gamma_k (vr), uniform index, n={cfg.n_data}, scale={cfg.scale}"))
    write_json(out / "friction_correction.json", {"fits": fits, "paper_step": paper,
                                                  "trace_cov_n_grad": float(np.trace(Q)), "scale": cfg.scale,
                                                  "settings": cfg.as_dict()})
