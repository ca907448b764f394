"""The step-size enlargement by (1 + 4σ)^{1/4} (§4.1.1, §4.2, §4.3): the exact stability limit of the smoothed vs the
plain Langevin recursion on quadratic targets, over Hessian families that do and do not share A_σ's eigenvectors.

``run_stability`` writes ``stability.csv`` (one row per family × σ × draw) and ``stability.json``; the claim
``ls_sgld.sec4.1.1.step_enlargement`` reads them.

References
----------
Seed ``004_8438bd4b543e0fc4.txt``: §2 (the LS-SGD step result of [33]: "the largest step size for LSSGD is
(1+4σ)^{1/4}/L"), §4.1.1 (Fig. 1(c)-(d)), §4.2 (Fig. 4), §4.3 (Fig. 5); the formulas in
:mod:`sgmcmc_verify.analytic.ls_stability`.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.stats

from sgmcmc_verify.analytic.laplacian import paper_matrix_2d, smoothing_matrix
from sgmcmc_verify.analytic.ls_stability import iteration_spectral_radius, stable_step_limit, step_enlargement
from sgmcmc_verify.store.cache import package_versions
from sgmcmc_verify.store.io import write_csv, write_json

from .settings import StabilitySettings

__all__ = ["FAMILIES", "family_hessians", "run_stability"]

#: The Hessian families: name → (shares A_σ's eigenvectors?, description).
FAMILIES = {
    "§4.1.1 Gaussian (2-D, eq. (4.1) matrix)": (True, "H = Σ⁻¹, Σ = [[1, .9], [.9, 1]]: Fig. 1's target; its stiff "
                                                "mode (1, −1) is the eq. (4.1) matrix's top mode"),
    "circulant, stiff at high frequency": (True, "H = A_c (c = stiffness), the stiffest mode the highest frequency"),
    "circulant, stiff at low frequency": (True, "H = κ A_c⁻¹ scaled to top eigenvalue κ: the stiffest mode constant"),
    "isotropic (H = I)": (True, "every direction equally stiff"),
    "random rotation, one stiff direction": (False, "H = I + (κ − 1) v vᵀ, v uniform on the sphere"),
    "random rotation, log-spaced spectrum": (False, "H = Q diag(κ^{j/(d−1)}) Qᵀ, Q Haar-distributed"),
}


def family_hessians(name: str, d: int, stiffness: float, draws: int, rng) -> list:
    """The Hessians of family ``name`` in dimension ``d`` (one for a deterministic family, ``draws`` otherwise).

    Raises
    ------
    ValueError
        Unknown family name.
    """
    if name not in FAMILIES:
        raise ValueError(f"name must be one of {list(FAMILIES)}, got {name!r}")
    if name.startswith("§4.1.1"):
        return [np.linalg.inv(np.array([[1.0, 0.9], [0.9, 1.0]]))]
    c = (stiffness - 1.0) / 4.0        # A_c has eigenvalues 1 + 4c sin²: top = stiffness
    if name == "circulant, stiff at high frequency":
        return [smoothing_matrix(d, c)]
    if name == "circulant, stiff at low frequency":
        return [stiffness * np.linalg.inv(smoothing_matrix(d, c))]
    if name == "isotropic (H = I)":
        return [np.eye(d)]
    out = []
    for _ in range(draws):
        if name == "random rotation, one stiff direction":
            v = rng.standard_normal(d)
            v /= np.linalg.norm(v)
            out.append(np.eye(d) + (stiffness - 1.0) * np.outer(v, v))
        else:
            Q = scipy.stats.special_ortho_group.rvs(d, random_state=rng)
            H = (Q * stiffness ** (np.arange(d) / (d - 1))) @ Q.T
            out.append((H + H.T) / 2)
    return out


def run_stability(cfg: StabilitySettings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Exact stable-step limits ``2/λ_max(A_σ⁻¹H)`` vs ``2/λ_max(H)`` per Hessian family and σ; ``stability.csv``.

    Each row: the family, σ, the draw, the enlargement ``η*_A/η*_I``, the paper's factor ``(1 + 4σ)^{1/4}`` and
    their ratio, and the spectral radius of the smoothed iteration matrix ``I − ηA⁻¹H`` computed directly at
    ``(1 ∓ 10⁻⁶)·η*_A`` (a cross-check of the generalized eigenproblem: below 1, then above 1). The periodic A_σ of
    eq. (2.1) in ``dim`` dimensions, the eq. (4.1) matrix for the 2-D family.
    """
    rng = np.random.default_rng(cfg.seed)
    rows = []
    for fam, (shares, _) in FAMILIES.items():
        d = 2 if fam.startswith("§4.1.1") else cfg.dim
        Hs = family_hessians(fam, d, cfg.stiffness, cfg.draws, rng)
        for sig in cfg.sigmas:
            A = paper_matrix_2d(sig) if d == 2 else smoothing_matrix(d, sig)
            paper = (1 + 4 * sig) ** 0.25
            for k, H in enumerate(Hs):
                e = step_enlargement(H, A)
                eta = stable_step_limit(H, A)
                rows.append({"family": fam, "shares_eigenvectors": shares, "dim": d, "sigma": sig, "draw": k,
                             "eta_plain": stable_step_limit(H), "eta_smoothed": eta, "enlargement": e,
                             "paper_factor": paper, "enlargement_over_paper": e / paper,
                             "max_possible": 1 + 4 * sig if d > 2 else 1 + 2 * sig,
                             "rho_below": iteration_spectral_radius(H, eta * (1 - 1e-6), A),
                             "rho_above": iteration_spectral_radius(H, eta * (1 + 1e-6), A)})
    out = Path(out_dir)
    write_csv(out / "stability.csv", rows, header_comment=(
        f"LS-SGLD step-size enlargement, exact, scale={cfg.scale}: stable step 2/lambda_max(A^-1 H) of the smoothed "
        "vs 2/lambda_max(H) of the plain recursion x' = (I - eta A^-1 H) x + noise; periodic A_sigma (eq. (2.1)) in "
        f"d = {cfg.dim}, eq. (4.1) matrix in 2-D; stiffness {cfg.stiffness:g}"))
    write_json(out / "stability.json", {"families": {k: {"shares_eigenvectors": s, "description": t}
                                                     for k, (s, t) in FAMILIES.items()},
                                        "settings": cfg.as_dict(), "versions": package_versions()})
