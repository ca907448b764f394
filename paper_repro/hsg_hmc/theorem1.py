"""HSG-HMC Theorem 1, bound (13), evaluated with the Gaussian mixture's own constants beside the measured W2.

Theorem 1 states, for ``ρ_k = 1/k``, a start at ``(0, 0)``, η satisfying condition (9) and
``0 ≤ k ≤ k_max = (2/(Cη²)) min{1, γ²m/(768 u M³)}``::

    W2(p_x(k), p*) ≤ Γ₁ (γ² K η³ + 4η ln K + C η³ K²)^{1/4} + Γ₀ exp(−μ* K η)          (13)

with ``Γ₁ = 2 Λ̄ (u γ M² Ē)^{1/4}``, ``Ē`` from (12), ``C`` from (11) and
``Λ̄ = (8/γ) ((u m (f(x⁰) − f(x*)) + 2Mu(4d + 2b + m‖x*‖²γ²) + 12um + 3γ²)/m)^{1/2}``.

What can be computed: every constant of the first (discretization) term, from the constants the Lemma 3 study
already computes (:func:`sgmcmc_verify.paper_repro.hsg_hmc.lemmas.lemma3_constants`: M, m, b, G², x*, f(0) − f(x*),
C, Ē; γ from Remark 2), the range ``k_max`` of k, and the trivial scale ``W2(δ₀, p*) = (E_{p*}‖x‖²)^{1/2}`` (the
distance of the start from the target, by grid quadrature). What cannot: the spectral gap μ* of the ULD (3) on the
mixture (no closed form; the text only says it is ``exp(−O(d))`` in the worst case), and ``Γ₀``, which the text gives
only as ``O(1/μ*)`` with no constant. Since the second term is >= 0, the first term alone is a **lower bracket** of the
right side of (13): if it already exceeds the trivial scale, (13) says nothing whatever μ* is.

Measured beside it: ``W2(p_x(k), p*)`` along HSG-HMC (ρ_k = 1/k, Remark 2's γ, start (0, 0)) at checkpoints k,
exact W2 (``ot.emd2``) between the chains' positions (``groups`` groups of chains) and exact draws of the target
(grid quadrature), with the exact-vs-exact floor at the same size. (``K`` in (13) is read as the iteration ``k`` of the
left side; the text uses both letters.)

Writes ``theorem1.csv`` (one row per step size and checkpoint) and ``theorem1.json`` (the constants, ``k_max``, the
first term at K = 1, the trivial scale, what is not computable).

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: Theorem 1, eq. (13), Lemma 3 (11)-(12), Remark 2, Assumptions 1-3.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from sgmcmc_verify.integrators.exponential import ExponentialIntegrator
from sgmcmc_verify.estimators import HybridGradient, UniformMinibatch
from sgmcmc_verify.measure.transport import w2_exact
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets.mixtures import grid_density, hsg_mixture_target, sample_from_grid

from .lemmas import lemma3_constants
from .settings import Theorem1Settings

__all__ = ["theorem1_constants", "bound13_first_term", "run_theorem1", "NOT_COMPUTABLE"]

#: The parts of (13) that have no computable value on the mixture, and why.
NOT_COMPUTABLE = {
    "mu_star": "the spectral gap of the ULD (3) on the mixture: no closed form, and the text gives only its worst-case "
               "order exp(-O(d))",
    "Gamma_0": "given only as O(1/mu*), with no constant",
}


def theorem1_constants(target, step_size: float, u: float = 1.0) -> dict:
    """Λ̄, Γ₁, ``k_max`` of Theorem 1 with the target's constants at step size η (γ from Remark 2).

    Parameters
    ----------
    target : HSGMixtureTarget
    step_size : float
        η > 0.
    u : float, default 1
        Inverse mass (Remark 2).

    Returns
    -------
    dict
        The Lemma 3 constants (:func:`~sgmcmc_verify.paper_repro.hsg_hmc.lemmas.lemma3_constants`) and ``Lambda_bar``,
        ``Gamma_1``, ``k_max = (2/(Cη²)) min{1, γ²m/(768uM³)}``.

    Raises
    ------
    ValueError
        ``step_size`` or ``u`` not a finite number > 0.
    """
    if not (isinstance(step_size, (int, float)) and math.isfinite(step_size) and step_size > 0):
        raise ValueError(f"step_size must be a finite number > 0, got {step_size!r}")
    if not (isinstance(u, (int, float)) and math.isfinite(u) and u > 0):
        raise ValueError(f"u must be a finite number > 0, got {u!r}")
    c = lemma3_constants(target, step_size, u=u)
    gam, M, m, b, d = c["friction"], c["M"], c["m"], c["b"], target.dim
    xs2 = float(np.sum(np.asarray(c["x_star"]) ** 2))
    lam = 8.0 / gam * math.sqrt((u * m * c["f0_minus_fstar"] + 2 * M * u * (4 * d + 2 * b + m * xs2 * gam**2)
                                 + 12 * u * m + 3 * gam**2) / m)
    gamma1 = 2.0 * lam * (u * gam * M**2 * c["Ebar"]) ** 0.25
    kmax = 2.0 / (c["C"] * step_size**2) * min(1.0, gam**2 * m / (768 * u * M**3))
    return {**c, "Lambda_bar": lam, "Gamma_1": gamma1, "k_max": kmax}


def bound13_first_term(consts: dict, K) -> np.ndarray:
    """The discretization term ``Γ₁(γ²Kη³ + 4η ln K + Cη³K²)^{1/4}`` of (13) at iterations ``K >= 1``.

    Parameters
    ----------
    consts : dict
        From :func:`theorem1_constants`.
    K : array_like of int
        Iterations, >= 1 (``ln K`` is undefined at 0).

    Returns
    -------
    ndarray of float64, the shape of ``K`` (W2 units: those of x).

    Raises
    ------
    ValueError
        Some ``K < 1``.
    """
    K = np.asarray(K, dtype=float)
    if np.any(K < 1):
        raise ValueError(f"K must be >= 1 (ln K), got {K.min()}")
    h, gam, C = consts["step_size"], consts["friction"], consts["C"]
    return consts["Gamma_1"] * (gam**2 * K * h**3 + 4 * h * np.log(K) + C * h**3 * K**2) ** 0.25


def _w2_groups(x, ref_fn, groups):
    per = x.shape[0] // groups
    return [w2_exact(x[g * per:(g + 1) * per], ref_fn(per)) for g in range(groups)]


def run_theorem1(s: Theorem1Settings, out_dir, n_jobs=1, backend=None, progress=None):
    """Bound (13)'s computable part, its range of k and the trivial scale, beside the measured W2 of HSG-HMC.

    Parameters
    ----------
    s : Theorem1Settings
    out_dir : path
        Receives ``theorem1.csv`` and ``theorem1.json``.
    n_jobs, backend, progress
        Unused (one process; the transport problems are small).
    """
    target = hsg_mixture_target(s.n_data, s.dim, s.mixture_seed)
    grid = grid_density(target, cells=s.grid_cells)
    trivial = float(math.sqrt(np.trace(grid.cov) + float(np.sum(grid.mean**2))))
    ss = np.random.SeedSequence(s.seed).spawn(len(s.step_sizes) + 1)
    ref_rng = np.random.default_rng(ss[-1])

    def ref(n):
        return sample_from_grid(grid, n, ref_rng)
    ks = np.asarray(s.checkpoints, dtype=int)
    rows, per_eta = [], {}
    for h, seq in zip(s.step_sizes, ss[:-1]):
        c = theorem1_constants(target, float(h))
        rng = np.random.default_rng(seq)
        sampler = ExponentialIntegrator(target, float(h), None, HybridGradient(UniformMinibatch(1), "harmonic", h),
                                        name="HSG-HMC")
        run = run_chains(sampler, sampler.init(np.zeros((s.chains, s.dim))), rng, checkpoints=ks,
                         observe={"x": lambda st: st.position})
        first = bound13_first_term(c, ks)
        for j, k in enumerate(ks):
            w = np.asarray(_w2_groups(run["x"][:, j], ref, s.groups))
            fl = np.asarray(_w2_groups(ref(s.chains), ref, s.groups))
            rows.append({"step_size": float(h), "k": int(k), "w2": float(w.mean()),
                         "w2_se": float(w.std(ddof=1) / math.sqrt(w.size)), "floor": float(fl.mean()),
                         "floor_se": float(fl.std(ddof=1) / math.sqrt(fl.size)), "first_term": float(first[j]),
                         "in_stated_range": bool(k <= c["k_max"])})
        per_eta[f"{h:g}"] = {"step_size": float(h), "friction": c["friction"], "M": c["M"], "m": c["m"], "b": c["b"],
                             "G2": c["G2"], "C": c["C"], "Ebar": c["Ebar"], "Lambda_bar": c["Lambda_bar"],
                             "Gamma_1": c["Gamma_1"], "k_max": c["k_max"],
                             "first_term_K1": float(bound13_first_term(c, [1])[0]),
                             "satisfies_condition9": bool(c["satisfies_condition9"])}
    out = Path(out_dir)
    write_csv(out / "theorem1.csv", rows)
    write_json(out / "theorem1.json", {
        "per_step_size": per_eta, "trivial_w2": trivial, "groups": s.groups, "chains": s.chains,
        "not_computable": NOT_COMPUTABLE,
        "trivial": "W2(delta_0, p*) = (E_p* ||x||^2)^(1/2) by grid quadrature: the distance of the start from the target",
        "first_term": "Gamma_1 (gamma^2 K eta^3 + 4 eta ln K + C eta^3 K^2)^(1/4), a lower bracket of the right side "
                      "of (13) (its second term Gamma_0 exp(-mu* K eta) >= 0 is not computable)"})
