"""Shared machinery for the LS-SGLD statistical tests (seed ``004_8438bd4b543e0fc4.txt``).

Target: ``V(θ) = Σ_i ½‖θ − c_i‖²``, n = 50, d = 16, ``c_i ~ N(0, I)`` (seed 1); π = N(c̄, I/50).
The gradient noise of a uniform minibatch does not depend on θ, so the laws of SGLD / LS-SGLD are
known exactly (:mod:`sgmcmc_verify.analytic.ls_exact`).

Tolerances (fixed before looking at the outcomes):
* mean: the Mahalanobis statistic ``R (m̂ − m)ᵀ S⁻¹ (m̂ − m)`` against the 99.9 % quantile of χ²_d
  (CLT over R independent chains, exact S);
* trace of the covariance: ``|tr Ŝ − tr S| ≤ 4 s.e.``, s.e. from the sample variance of ``‖x − m‖²``
  over chains (no Gaussianity assumed);
* orderings: a difference counts when it exceeds 3 combined standard errors.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import chi2

from sgmcmc_verify.analytic.linear_samplers import minibatch_noise_covariance, propagate_moments
from sgmcmc_verify.analytic.ls_exact import ls_sgld_recursion
from sgmcmc_verify.estimators import FullGradient, UniformMinibatch
from sgmcmc_verify.integrators import LaplacianPreconditioner, OverdampedEM, PeriodicSmoothing
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.targets import gaussian_means_target

TARGET = gaussian_means_target(50, 16, 1)
D = TARGET.dim
MU = TARGET.posterior_mean
TR_PI = D / TARGET.n
CHAINS = 3000


class NoiseSmoothedLikeGradient(LaplacianPreconditioner):
    """Planted bug: the noise smoothed by ``A⁻¹`` like the gradient, instead of ``A^{−1/2}``.

    The chain then has the covariance ``A⁻¹`` in its noise but ``A⁻²``-weighted fluctuations, and its
    invariant law is not π (Proposition 2.1 needs the square root).
    """

    def noise(self, state, xi, step_size, inverse_temperature):
        return np.sqrt(2.0 * step_size / inverse_temperature) * self.smoothing.apply_inverse(xi)


def run(sigma, h, steps, seed, *, full=False, planted=False, start_at_pi=False, chains=CHAINS):
    """Positions of ``chains`` chains at each step count in ``steps``: ``(chains, len(steps), d)``.

    ``planted=True`` uses :class:`NoiseSmoothedLikeGradient`.
    """
    rng = np.random.default_rng(seed)
    est = FullGradient() if full else UniformMinibatch(1)
    pre = (NoiseSmoothedLikeGradient if planted else LaplacianPreconditioner)(PeriodicSmoothing(sigma))
    s = OverdampedEM(TARGET, h, est, pre, name="LS-SGLD")
    x0 = MU + rng.standard_normal((chains, D)) / np.sqrt(TARGET.n) if start_at_pi else np.zeros((chains, D))
    out = run_chains(s, s.init(x0), rng, checkpoints=steps, observe={"x": lambda st: st.position})
    return out["x"]


def exact(sigma, h, steps, *, full=False, start_at_pi=False):
    """Exact (means, covs) of the *correct* LS-SGLD law at ``steps``."""
    Q = np.zeros((D, D)) if full else minibatch_noise_covariance(TARGET.centers, 1)
    rec = ls_sgld_recursion(TARGET.hessian, MU, Q, h, PeriodicSmoothing(sigma).inverse_matrix(D))
    m0, S0 = (MU, np.eye(D) / TARGET.n) if start_at_pi else (np.zeros(D), np.zeros((D, D)))
    return propagate_moments(rec, m0, S0, steps)


def agrees_with_exact(x, mean, cov):
    """True iff the samples ``x`` (R, d) agree with N-moments (mean, cov) within the stated tolerances."""
    R = x.shape[0]
    dm = x.mean(axis=0) - mean
    maha = R * dm @ np.linalg.solve(cov, dm)
    sq = np.sum((x - mean) ** 2, axis=1)
    tr_hat, se = sq.mean() - dm @ dm, sq.std(ddof=1) / np.sqrt(R)
    ok_mean = maha <= chi2.ppf(0.999, x.shape[1])
    ok_tr = abs(tr_hat - np.trace(cov)) <= 4.0 * se
    return bool(ok_mean and ok_tr), {"mahalanobis": float(maha), "tr_hat": float(tr_hat),
                                     "tr_exact": float(np.trace(cov)), "se": float(se)}


def _excess(x):
    """tr Ŝ − tr Σ_π and its standard error (from the spread of ‖x − x̄‖² over chains)."""
    sq = np.sum((x - x.mean(axis=0)) ** 2, axis=1)
    return float(sq.mean() - TR_PI), float(sq.std(ddof=1) / np.sqrt(x.shape[0]))


def _mean_gap(x):
    """‖m̂ − θ*‖² and its standard error (delta method on the sample mean)."""
    dm = x.mean(axis=0) - MU
    se = 2.0 * np.sqrt(dm @ np.cov(x.T) @ dm / x.shape[0])
    return float(dm @ dm), float(se)


def theorem33_structure(seed, *, planted=False, sigma=1.0, h=5e-3, early=20, late=400, z=3.0):
    """Theorem 3.3's structure on LS-GLD vs GLD (full gradient, Remark 3.4), measured by Monte Carlo.

    Discretization part: the stationary covariance excess ``tr Ŝ − tr Σ_π`` (started at π, after
    ``late`` steps) satisfies ``0 < excess(LS) < excess(GLD)`` (the EM discretization inflates the
    variance, and smoothing inflates it less: γ₂ < 1). Ergodicity part: from ``x_0 = 0`` after
    ``early`` steps the squared mean gap ``‖m̂ − θ*‖²`` is larger for LS-GLD (c₀ < 1).
    Each inequality must be resolved at ``z`` combined standard errors.

    ``planted=True`` smooths the LS noise with ``A⁻¹`` instead of ``A^{−1/2}`` (invariant law ≠ π).
    """
    xs_ls = run(sigma, h, [late], seed, full=True, planted=planted, start_at_pi=True)[:, -1]
    xs_gld = run(0.0, h, [late], seed + 1, full=True, start_at_pi=True)[:, -1]
    e_ls, se_ls = _excess(xs_ls)
    e_gld, se_gld = _excess(xs_gld)
    xe_ls = run(sigma, h, [early], seed + 2, full=True, planted=planted)[:, -1]
    xe_gld = run(0.0, h, [early], seed + 3, full=True)[:, -1]
    g_ls, sg_ls = _mean_gap(xe_ls)
    g_gld, sg_gld = _mean_gap(xe_gld)
    checks = {
        "ls_excess_positive": e_ls > z * se_ls,
        "ls_excess_below_gld": e_gld - e_ls > z * np.hypot(se_ls, se_gld),
        "ls_mixes_slower": g_ls - g_gld > z * np.hypot(sg_ls, sg_gld),
    }
    info = {"excess_ls": (e_ls, se_ls), "excess_gld": (e_gld, se_gld), "gap_ls": (g_ls, sg_ls),
            "gap_gld": (g_gld, sg_gld), **checks}
    return all(checks.values()), info
