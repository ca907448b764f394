"""EWSG Lemma C.1 (Appendix C): the moments of the random vector field ``F_k^E`` along the chain, exactly, beside the
bound its proof builds from Theorem 4.3's assumptions (issue #25).

Lemma C.1 says that, under Theorem 4.3's assumptions (``E‖∇V_i(θ_k)‖^l < M1``, ``E‖r_k‖^l < M2`` for every i, k and
l <= 12), ``E‖F_k^E‖^j <= M`` for every k and j <= p/2. Its proof bounds ``‖F_k^E‖ <= √(1 + γ²)‖r_k‖ + ‖∇V_(I_k)(θ_k)‖``
and concludes from the assumption's constants; by Minkowski's inequality that gives, for j = 2,

    E‖F_k^E‖² <= (√(1 + γ²) √M2 + √M1)²,   M1 = sup_k max_i E‖∇V_i(θ_k)‖²,  M2 = sup_k E‖r_k‖².

The proof writes ``F_k^E = (r, −γr − ∇V_(I_k)(θ))``, but the generator difference that defines ``F_k`` (Appendix C,
``ΔL_k f = ⟨∇V(θ) − n∇V_(I_k)(θ), ∇_r f⟩``) and the algorithm use ``n∇V_(I_k)``: the two readings of ``F_k^E``.

What is computed (exact):

* the journal's §5.1 model (n = 50, d = 2, centers from ``default_rng(20210501)``, ``V_i = ‖θ − c_i‖²/2``), SG
  underdamped EM (3) at the paper's h = 0.05, γ = 10, with a uniform index (M = 0: the chain is linear with additive
  noise, so its first two moments are exact by :func:`~sgmcmc_verify.analytic.linear_samplers.propagate_moments`;
  EWSG's index law depends on the state and is not), started from the §5.1 initial law θ₀ ~ N(0, I), r₀ ~ N(0, I);
* at every step k up to ``steps`` and in the stationary limit: ``E‖r_k‖²``, ``max_i E‖∇V_i(θ_k)‖²`` and
  ``E‖F_k‖² = (1 + γ²)E‖r_k‖² + 2γ E[r_k·g_k] + E‖g_k‖²`` with ``g_k = s(θ_k − c_(I_k))``, ``s = 1`` (as the proof
  writes it) or ``s = n`` (as defined), ``I_k`` uniform and independent of the state;
* their suprema over k and the proof's bound.

Only j = 2 is exact here (higher moments of the chain need more than its first two moments).

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: Appendix C, Lemma C.1 and its proof; the generator ``L_k`` and ``ΔL_k``;
Theorem 4.3's assumptions; §5.1.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from sgmcmc_verify.analytic.gaussian import quadratic_posterior
from sgmcmc_verify.analytic.linear_samplers import (minibatch_noise_covariance, propagate_moments, stationary_moments,
                                                    underdamped_em_recursion)
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.store.settings import ScaledSettings
from sgmcmc_verify.targets import gaussian_means_target

__all__ = ["LemmaC1Settings", "field_second_moments", "run_lemma_c1", "READINGS"]

#: the two readings of F_k^E: the factor s in front of ∇V_(I_k)
READINGS = {"as the proof writes it (∇V_I)": "printed", "as defined by ΔL_k (n∇V_I)": "defined"}


@dataclass(frozen=True)
class LemmaC1Settings(ScaledSettings):
    """Lemma C.1 on the journal's §5.1 model at its SGHMC/EWSG step size; exact, the same at every scale.

    ``steps``: 30 data passes at b = 1 (the §5.1 budget, 75 time units; the recursion's spectral radius is 0.79, so
    about 300 relaxation times); the stationary limit is added.
    """

    n_data: int = 50
    dim: int = 2
    friction: float = 10.0
    seed: int = 20210501
    step_size: float = 5e-2
    steps: int = 1500
    SCALE_OVERRIDES: ClassVar[dict] = {}


def field_second_moments(mean, cov, centers, friction: float, scale: float) -> dict:
    """``E‖r‖²``, ``max_i E‖θ − c_i‖²`` and ``E‖F‖²`` for ``F = (r, −γr − s(θ − c_I))``, ``I`` uniform and independent
    of ``z = (θ, r)`` with the given first two moments.

    Parameters
    ----------
    mean : (2d,) array_like
        E z.
    cov : (2d, 2d) array_like
        Cov z.
    centers : (n, d) array_like
        The c_i.
    friction : float
        γ.
    scale : float
        s: 1 (∇V_I, as Lemma C.1's proof writes F) or n (n∇V_I, as ΔL_k defines it).

    Returns
    -------
    dict with ``r2``, ``grad_max``, ``field``.

    Raises
    ------
    ValueError
        Shapes that do not match.

    Examples
    --------
    >>> out = field_second_moments(np.zeros(2), np.eye(2), np.zeros((3, 1)), 1.0, 1.0)
    >>> out["r2"], out["grad_max"], out["field"]      # E r² = 1, E θ² = 1, E(r² + (r + θ)²) = 1 + 2
    (1.0, 1.0, 3.0)
    """
    m, S, c = np.asarray(mean, float), np.asarray(cov, float), np.asarray(centers, float)
    d = c.shape[1]
    if m.shape != (2 * d,) or S.shape != (2 * d, 2 * d):
        raise ValueError(f"mean, cov: expected shapes ({2 * d},) and ({2 * d}, {2 * d}), got {m.shape} and {S.shape}")
    mt, mr = m[:d], m[d:]
    Stt, Srr, Str = S[:d, :d], S[d:, d:], S[:d, d:]
    r2 = float(mr @ mr + np.trace(Srr))
    per_i = np.sum((mt - c) ** 2, axis=1) + np.trace(Stt)            # E‖θ − c_i‖², each i
    cbar = c.mean(axis=0)
    e_rg = scale * float(mr @ (mt - cbar) + np.trace(Str))            # E[r·s(θ − c_I)] (I independent, E c_I = c̄)
    e_g2 = scale ** 2 * float(per_i.mean())                            # E‖s(θ − c_I)‖²
    field = (1.0 + friction ** 2) * r2 + 2.0 * friction * e_rg + e_g2
    return {"r2": r2, "grad_max": float(per_i.max()), "field": float(field)}


def run_lemma_c1(cfg: LemmaC1Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Write ``lemmaC1.csv`` (per k: the moments under both readings) and ``lemmaC1.json`` (suprema, the proof's
    bound, the stationary values)."""
    t = gaussian_means_target(cfg.n_data, cfg.dim, cfg.seed)
    mu = quadratic_posterior(t.centers).mean
    rec = underdamped_em_recursion(t.hessian, mu, minibatch_noise_covariance(t.centers), cfg.step_size, cfg.friction)
    d = cfg.dim
    m0, S0 = np.zeros(2 * d), np.eye(2 * d)
    ks = np.arange(cfg.steps + 1)
    means, covs = propagate_moments(rec, m0, S0, ks)
    ms, Ss = stationary_moments(rec)
    rows = []
    for k, m, S in list(zip(ks.tolist(), means, covs)) + [("stationary", ms, Ss)]:
        row = {"k": k}
        for tag in READINGS.values():
            out = field_second_moments(m, S, t.centers, cfg.friction, 1.0 if tag == "printed" else float(cfg.n_data))
            row.update({"r2": out["r2"], "grad_max": out["grad_max"], f"field_{tag}": out["field"]})
        rows.append(row)
    m2, m1 = max(r["r2"] for r in rows), max(r["grad_max"] for r in rows)
    bound = (np.sqrt(1.0 + cfg.friction ** 2) * np.sqrt(m2) + np.sqrt(m1)) ** 2
    summary = {tag: {"sup_field": max(r[f"field_{tag}"] for r in rows),
                     "stationary_field": rows[-1][f"field_{tag}"]} for tag in READINGS.values()}
    out = Path(out_dir)
    write_csv(out / "lemmaC1.csv", rows, header_comment=(
        f"EWSG Lemma C.1: exact E||r_k||^2, max_i E||grad V_i(theta_k)||^2, E||F_k||^2 (F with grad V_I: printed; with "
        f"n grad V_I: defined) along SG underdamped EM, uniform index, n={cfg.n_data}, h={cfg.step_size}, "
        f"scale={cfg.scale}; last row: stationary"))
    write_json(out / "lemmaC1.json", {"M1": m1, "M2": m2, "proof_bound": float(bound), "readings": summary,
                                      "spectral_radius": float(np.max(np.abs(np.linalg.eigvals(rec.A)))),
                                      "scale": cfg.scale, "settings": cfg.as_dict()})
