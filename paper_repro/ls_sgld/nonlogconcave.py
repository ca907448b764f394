"""Theorem 3.7 / Remark 3.8 on the §4.1.2 mixture (non-log-concave): the discretization and ergodicity parts of the
W2 error of LS-GLD vs GLD, with the laws computed on a grid (no sampling).

Theorem 3.7 bounds ``W2(P(x_K), π) ≤ W2(P(x_K), P(X_{Kη})) + W2(P(X_{Kη}), π)`` (Appendix B.2): a discretization
part (the γ₁, γ₂ bracket) and an ergodicity part (the c₀ term). Remark 3.8: smoothing makes the first smaller and the
second worse. The Gaussian study (``ls_sgld.thm33``) measures the same split with exact Gaussian laws; here the
target is §4.1.2's bimodal mixture and the three laws are computed on a grid:

* coordinates ``z = diag(1, s) Rᵀ x`` with R the eigenvectors (1, 1)/√2, (1, −1)/√2 of the eq. (4.1) matrix A_σ and
  ``s = √(1 + 2σ)``, i.e. ``z = Rᵀ A^{1/2} x``: LS-LD ``dx = −A⁻¹∇f dt + √(2/β) A^{−1/2} dW`` becomes plain Langevin
  dynamics on ``g(z) = f(x(z))`` (and LS-GLD's Euler step the plain Euler step on g). The z-grid has spacing ``h``
  on both axes (so both samplers' kernels are resolved alike; in x the LS grid is finer across (1, −1) by s) and
  covers ``[−L1, L1] × [−sL2, sL2]``, i.e. the same box in x for every σ;
* the continuous law P(X_t): the square-root-approximation generator on the grid, ``Q_ij = h_k⁻² exp(−β(g_j −
  g_i)/2)`` between neighbours along axis k (reversible, its stationary law exactly ∝ exp(−βg) on the grid, a
  consistent discretization of the Fokker-Planck operator), ``P(X_t) = P(X_0) e^{tQ}`` (``expm_multiply``);
* the Euler (LS-GLD) law P(x_K): K applications of the Euler kernel ``N(z − η∇g(z), (2η/β) I)``, integrated over the
  cells of the grid with Sheppard's correction (the variance ``2η/β − h²/12`` per axis, so that the law on the cell
  centres has variance ``2η/β``; separable in z₁, z₂; each row renormalized to mass 1);
* π: ``exp(−βg)`` on the grid;
* W2 (not squared) between grid laws by ``ot.emd2`` on their supports in x (masses below ``prune`` in total dropped).

Only the full-gradient sampler is studied: the stochastic-gradient term (γ₁ω²/B) would need the law of the minibatch
gradient on the grid. The theorem's constants are not computable for this target: the log-Sobolev constant λ (and
with it the ergodicity term's rate c₀/(2βλ) and its prefactor), γ₁ and c₀ are existence statements, and Γ̄ multiplies
a bracket whose ω and M would have to be bounded over R²; what is measured instead is each part of the error itself.

References
----------
Seed ``004_8438bd4b543e0fc4.txt``: Theorem 3.7 (3.3), Remark 3.8, Lemma B.3, Appendix B.2, §4.1.2, eq. (4.1).
"""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import NamedTuple

import numpy as np
import ot
import scipy.sparse as sps
from scipy.sparse.linalg import expm_multiply
from scipy.special import ndtr

from sgmcmc_verify.store.cache import package_versions
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets import LSMixtureTarget, mixture_centers

from .settings import Theorem37Settings

__all__ = ["ZGrid", "mixture_zgrid", "sqra_generator", "euler_kernels", "euler_step", "grid_w2", "run_theorem37"]

_R = np.array([[1.0, 1.0], [1.0, -1.0]]) / np.sqrt(2.0)


class ZGrid(NamedTuple):
    """The grid of the whitened coordinates z of one σ: axes ``z1`` (N1,), ``z2`` (N2,), points in x ``X`` (N1·N2, 2),
    the potential ``g`` (N1·N2,) and its z-gradient ``grad`` (N1·N2, 2), ``x0_index`` the point x = 0."""

    z1: np.ndarray
    z2: np.ndarray
    X: np.ndarray
    g: np.ndarray
    grad: np.ndarray
    x0_index: int


def mixture_zgrid(target, sigma: float, spacing: float, half_widths: tuple) -> ZGrid:
    """The z-grid of σ for ``target`` (2-D): ``z1 ∈ [−L1, L1]``, ``z2 ∈ [−sL2, sL2]``, step h on both (z2's range
    rounded up to a whole number of steps).

    Raises
    ------
    ValueError
        ``sigma < 0``, ``spacing <= 0``, or half-widths not multiples of the spacing (x = 0 must be a grid point).
    """
    if sigma < 0:
        raise ValueError(f"sigma must be >= 0, got {sigma!r}")
    if spacing <= 0:
        raise ValueError(f"spacing must be > 0, got {spacing!r}")
    n1, n2 = (round(L / spacing) for L in half_widths)
    if any(abs(n * spacing - L) > 1e-9 * L for n, L in zip((n1, n2), half_widths)):
        raise ValueError(f"half_widths must be multiples of spacing, got {half_widths} and {spacing}")
    s = np.sqrt(1.0 + 2.0 * sigma)
    z1 = spacing * np.arange(-n1, n1 + 1)
    z2 = spacing * np.arange(-int(np.ceil(s * n2 - 1e-9)), int(np.ceil(s * n2 - 1e-9)) + 1)
    Z = np.stack(np.meshgrid(z1, z2, indexing="ij"), axis=-1).reshape(-1, 2)
    X = (Z * np.array([1.0, 1.0 / s])) @ _R.T
    g = np.concatenate([target.potential(X[i:i + 20000]) for i in range(0, len(X), 20000)])
    grad = (target.full_gradient(X) @ _R) * np.array([1.0, 1.0 / s])
    return ZGrid(z1, z2, X, g, grad, int(n1 * len(z2) + len(z2) // 2))


def sqra_generator(zg: ZGrid, inverse_temperature: float = 1.0) -> sps.csr_matrix:
    """The generator ``Q`` (rows: from) of the square-root approximation of Langevin dynamics on ``g`` on the grid."""
    N1, N2 = len(zg.z1), len(zg.z2)
    idx = np.arange(N1 * N2).reshape(N1, N2)
    b = inverse_temperature
    rows, cols, vals = [], [], []
    for a, c, h in ((idx[:-1, :], idx[1:, :], zg.z1[1] - zg.z1[0]), (idx[:, :-1], idx[:, 1:], zg.z2[1] - zg.z2[0])):
        a, c = a.ravel(), c.ravel()
        rows += [a, c]
        cols += [c, a]
        vals += [np.exp(-b * (zg.g[c] - zg.g[a]) / 2) / h**2, np.exp(-b * (zg.g[a] - zg.g[c]) / 2) / h**2]
    Q = sps.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(N1 * N2,) * 2)
    return (Q - sps.diags(np.asarray(Q.sum(axis=1)).ravel())).tocsr()


def euler_kernels(zg: ZGrid, step_size: float, inverse_temperature: float = 1.0) -> tuple:
    """Cell-integrated Euler kernels along each z axis, ``(Φ1 (N, N1), Φ2 (N, N2))``, rows summing to 1.

    The Gaussian is integrated over the cells with variance ``2η/β − h²/12`` (Sheppard's correction: mass on the cell
    centres then has the Euler step's variance ``2η/β`` to O(h⁴)).

    Raises
    ------
    ValueError
        ``2η/β <= h²/12`` (the grid cannot resolve one step).
    """
    var = 2.0 * step_size / inverse_temperature
    h = zg.z1[1] - zg.z1[0]
    if var <= h * h / 12:
        raise ValueError(f"step_size {step_size} is too small for the grid spacing {h} (2η/β must exceed h²/12)")
    sd = np.sqrt(var - h * h / 12)
    Z = np.stack(np.meshgrid(zg.z1, zg.z2, indexing="ij"), -1).reshape(-1, 2)
    out = []
    for k, ax in enumerate((zg.z1, zg.z2)):
        mean = Z[:, k] - step_size * zg.grad[:, k]
        h = ax[1] - ax[0]
        edges = np.concatenate([ax - h / 2, [ax[-1] + h / 2]])
        cdf = ndtr((edges[None, :] - mean[:, None]) / sd)
        w = np.diff(cdf, axis=1)
        out.append(w / w.sum(axis=1, keepdims=True))
    return tuple(out)


def euler_step(p: np.ndarray, kernels: tuple) -> np.ndarray:
    """One Euler step of the grid law ``p`` (N,): ``p'(i1, i2) = Σ_j p_j Φ1[j, i1] Φ2[j, i2]``."""
    P1, P2 = kernels
    return (P1.T @ (p[:, None] * P2)).ravel()


def grid_w2(X: np.ndarray, p: np.ndarray, q: np.ndarray, prune: float) -> float:
    """W2 (not squared, ``ot.emd2``) between the grid laws ``p`` and ``q`` on the points ``X``, after dropping from
    each the smallest masses that total at most ``prune`` (then renormalized)."""
    def support(w):
        o = np.argsort(w)
        drop = o[np.cumsum(w[o]) <= prune]
        keep = np.setdiff1d(np.arange(len(w)), drop)
        return keep, w[keep] / w[keep].sum()
    (a, wa), (b, wb) = support(p), support(q)
    M = ot.dist(X[a], X[b])
    return float(np.sqrt(max(ot.emd2(wa, wb, M, numItermax=10**8), 0.0)))


@contextlib.contextmanager
def _seeded_norm_estimates(seed=0):
    """Seed NumPy's legacy global generator for the enclosed code, restoring its state afterwards.

    ``expm_multiply`` chooses its Taylor degree and number of substeps from 1-norm estimates of powers of the
    generator (``scipy.sparse.linalg.onenormest``), which draw random ±1 test vectors from ``np.random``'s global
    state. Unseeded, that state is whatever earlier calls in the same process left, so the chosen parameters
    (and the last bits of the laws) depended on which tasks a worker had run before: ``thm37.csv`` differed
    between ``--n-jobs 1`` and ``2`` in the 14th digit (measured 2026-12-06). Seeded per call, each task's
    result depends on its own inputs only."""
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


def _laws(target, sigma, step, ks, cfg):
    """Per K of ``ks``: the Euler law, the continuous law at Kη, and π, all on σ's z-grid; and the x-points."""
    zg = mixture_zgrid(target, sigma, cfg.spacing, cfg.half_widths)
    pi = np.exp(-(zg.g - zg.g.min()))
    pi /= pi.sum()
    Qt = sqra_generator(zg).T.tocsr()
    ker = euler_kernels(zg, step)
    p_em = np.zeros(len(zg.g))
    p_em[zg.x0_index] = 1.0
    p_ct = p_em.copy()
    out, k_prev = [], 0
    for k in ks:
        for _ in range(k - k_prev):
            p_em = euler_step(p_em, ker)
        with _seeded_norm_estimates():
            p_ct = np.clip(expm_multiply(Qt * ((k - k_prev) * step), p_ct), 0.0, None)
        p_ct /= p_ct.sum()
        k_prev = k
        out.append((p_em.copy(), p_ct.copy()))
    return zg, pi, out


def _task(cfg, spacing, step, sig):
    """One (grid spacing, η, σ): the rows of ``thm37.csv`` and, on the first step, the generator's spectral gap."""
    from scipy.sparse.linalg import eigs

    import dataclasses
    c = dataclasses.replace(cfg, spacing=spacing)
    target = LSMixtureTarget(mixture_centers(cfg.n, cfg.seed))
    kmax = int(np.ceil(cfg.horizon / step))
    ks = np.unique(np.geomspace(1, kmax, cfg.grid_points).round().astype(int))
    zg, pi, laws = _laws(target, sig, step, ks, c)
    rows = [{"method": "LS-GLD" if sig > 0 else "GLD", "sigma": sig, "step_size": step, "spacing": spacing,
             "K": int(k), "time": float(k * step), "discretization": grid_w2(zg.X, p_em, p_ct, cfg.prune),
             "ergodicity": grid_w2(zg.X, p_ct, pi, cfg.prune), "total": grid_w2(zg.X, p_em, pi, cfg.prune)}
            for k, (p_em, p_ct) in zip(ks, laws)]
    gen = None
    if step == cfg.steps[0] and spacing == cfg.spacing:
        # ARPACK's own start vector comes from a generator state kept across calls in the process (so the gap
        # differed in its 9th digit with the tasks a worker had run before); a fixed start makes it the task's own
        v0 = np.random.default_rng(cfg.seed).uniform(-1.0, 1.0, len(zg.g))
        ev = np.sort(eigs(sqra_generator(zg).T.tocsc(), k=2, sigma=-1e-9, which="LM", v0=v0,
                          return_eigenvectors=False).real)
        edge = pi.reshape(len(zg.z1), len(zg.z2))
        gen = {"spectral_gap": float(-ev[0]), "edge_mass": float(edge[[0, -1], :].sum() + edge[1:-1, [0, -1]].sum()),
               "grid_points": int(len(zg.g))}
    return rows, gen


def run_theorem37(cfg: Theorem37Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """The Theorem 3.7 split on the §4.1.2 mixture, GLD vs LS-GLD (eq. (4.1) matrix); ``thm37.csv``, ``thm37.json``.

    For every step η and σ (σ = 0 is GLD / LD): on a geometric grid of K up to ``horizon/η``, the discretization
    part W2(P(x_K), P(X_{Kη})), the ergodicity part W2(P(X_{Kη}), π) and the total W2(P(x_K), π), from x₀ = 0, β = 1,
    full gradient; each at the grid ``spacing`` and at ``coarsen`` × it (the grid check the claims read). The JSON
    holds the spectral gap of each grid generator (the slowest relaxation rate of LD / LS-LD on this target) and the
    mass of π on the grid's edge. One joblib task per (spacing, η, σ); the numbers do not depend on ``n_jobs``.
    """
    from sgmcmc_verify.runner import run_tasks

    spacings = (cfg.spacing, cfg.spacing * cfg.coarsen)
    tasks = [(cfg, h, step, sig) for h in spacings for step in cfg.steps for sig in (0.0,) + tuple(cfg.sigmas)]
    res = run_tasks(_task, tasks, n_jobs=n_jobs, backend=backend)
    rows = [r for rr, _ in res for r in rr]
    gaps = {f"{t[3]:g}": g for t, (_, g) in zip(tasks, res) if g is not None}
    out = Path(out_dir)
    write_csv(out / "thm37.csv", rows, header_comment=(
        f"LS-SGLD Theorem 3.7 split on the 4.1.2 mixture (n = {cfg.n}), grid laws, scale={cfg.scale}: GLD (sigma 0) and "
        "LS-GLD (eq. (4.1) matrix), full gradient, x0 = 0, beta = 1; W2 not squared (ot.emd2 between grid laws); "
        "spacing: of the x-grid"))
    write_json(out / "thm37.json", {"generators": gaps, "settings": cfg.as_dict(), "versions": package_versions()})
