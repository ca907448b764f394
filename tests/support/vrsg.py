"""Planted bugs and shared checks for the vrSG-MCMC theory tests (seed ``002_245183f35db8d795.txt``).

Planted bugs are test-only subclasses of the library's estimators; each statistical check in
``tests/papers/vrsg/test_vrsg_theory_studies.py`` is shown to catch at least one of them. Also used by
``tests/calibrate.py`` (through the tests) to measure pass and detection rates over many seeds.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import f as fdist

from sgmcmc_verify.analytic import vrsg as V
from sgmcmc_verify.analytic import vrsg_gaussian as G
from sgmcmc_verify import samplers
from sgmcmc_verify.estimators import GradientEstimate, StepContext, TwoMinibatchControlVariate, UniformMinibatch
from sgmcmc_verify.estimators.base import uniform_indices
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.targets import vrsg_gaussian_target

# ---- planted bugs ------------------------------------------------------------------------------


class MixedSchemeMinibatch(UniformMinibatch):
    """Planted bug: reports ``replace=False`` (the proofs' scheme) but draws with replacement."""

    def draw(self, rng, target, chains):
        return uniform_indices(rng, target.n, chains, self.batch_size)


class NoiselessMinibatch(UniformMinibatch):
    """Planted bug: returns the full gradient while charging ``batch_size`` evaluations (no minibatch noise)."""

    def __call__(self, state, rng, target, position, context=StepContext()):
        return GradientEstimate(target.full_gradient(position), self.batch_size, None, {})


class NoControlVariate(TwoMinibatchControlVariate):
    """Planted bug: drops vrSG-MCMC's correction ``(N/n2) Σ (∇V_i(θ) − ∇V_i(θ̃))``: returns ``∇V_0(θ) + g̃``."""

    def __call__(self, state, rng, target, position, context=StepContext()):
        e = super().__call__(state, rng, target, position, context)
        return e._replace(gradient=target.prior_gradient(position) + e.state.anchor_gradient)


class DedupedAnchor(TwoMinibatchControlVariate):
    """Planted bug mixing the schemes: the anchor minibatch is drawn with replacement, its duplicates dropped
    (as if it were a set), and the sum scaled by ``N/n1`` as for a subset of size n1."""

    def __call__(self, state, rng, target, position, context=StepContext()):
        anchor, anchor_grad, since = state
        evals = 2 * self.current.batch_size
        if since >= self.update_interval:
            anchor = position.copy()
            big = np.sort(uniform_indices(rng, target.n, position.shape[0], self.anchor.batch_size), axis=1)
            first = np.ones(big.shape, dtype=bool)
            first[:, 1:] = big[:, 1:] != big[:, :-1]
            g = target.data_gradients(anchor, big) * first[..., None]
            anchor_grad = (target.n / self.anchor.batch_size) * g.sum(axis=1)
            since = 0
            evals += self.anchor.batch_size
        idx = self.current.draw(rng, target, position.shape[0])
        diff = target.data_gradients(position, idx) - target.data_gradients(anchor, idx)
        g = target.prior_gradient(position) + anchor_grad + (target.n / self.current.batch_size) * diff.sum(axis=1)
        return GradientEstimate(g, evals, state._replace(anchor=anchor, anchor_gradient=anchor_grad, since=since + 1), {})


class AnchorBatchRefreshedEveryStep(TwoMinibatchControlVariate):
    """Planted bug: a fresh anchor minibatch at every step (θ̃ still refreshed every m): the anchor error no longer
    persists over the m steps of an epoch — what the per-step accounting of Theorem 6's proof assumes."""

    def __call__(self, state, rng, target, position, context=StepContext()):
        e = super().__call__(state, rng, target, position, context)
        st = e.state
        big = self.anchor.draw(rng, target, position.shape[0])
        fresh = (target.n / self.anchor.batch_size) * target.data_gradients(st.anchor, big).sum(axis=1)
        return e._replace(gradient=e.gradient - st.anchor_gradient + fresh)


# ---- shared checks -----------------------------------------------------------------------------

def gaussian_target(n=1000):
    return vrsg_gaussian_target(n)


def eq7_z(minibatch: UniformMinibatch, draws: int, seed: int) -> float:
    """z-score of the Monte Carlo E‖ΔV‖² of ``minibatch`` on the §5 data against (7), ``(N−n)N²Γ/n``."""
    t = gaussian_target()
    rng = np.random.default_rng(seed)
    a = t.centers[:, 0] - t.posterior_mean[0]
    idx = minibatch.draw(rng, t, draws)
    v = (a.sum() - (t.n / minibatch.batch_size) * a[idx].sum(axis=1)) ** 2
    return float((v.mean() - V.noise_second_moment(a, minibatch.batch_size, replace=False)) / (v.std(ddof=1) / np.sqrt(draws)))


def unbiased_p(estimator, draws: int, seed: int) -> float:
    """Hotelling T² p-value of "the mean of vrSG-MCMC's estimate at (θ, θ̃) is the full gradient" on Pima.

    θ̃ = 0 (far from the mode, where the full data gradient is large, so that a biased anchor term shows) and
    θ = θ̃ + 0.2 ξ; the estimator refreshes its anchor at θ̃ (first call), then estimates at θ (second call).
    """
    from sgmcmc_verify.paper_repro.vrsg.theory import pima_target

    t = pima_target()
    rng = np.random.default_rng(seed)
    tilde = np.zeros(t.dim)
    theta = tilde + 0.2 * np.random.default_rng(12345).standard_normal(t.dim)
    st = estimator(estimator.init(t, np.tile(tilde, (draws, 1))), rng, t, np.tile(tilde, (draws, 1))).state
    dev = estimator(st, rng, t, np.tile(theta, (draws, 1))).gradient - t.full_gradient(theta[None])[0]
    d, m = t.dim, dev.mean(axis=0)
    T2 = draws * float(m @ np.linalg.solve(np.cov(dev, rowvar=False), m))
    return float(fdist.sf(T2 * (draws - d) / (d * (draws - 1)), d, draws - d))


def time_average_sq_errors(sampler, target, steps: int, chains: int, rng) -> np.ndarray:
    """Per-chain ``(φ̂_L − φ̄)²`` for φ = θ², chains started at the posterior."""
    m, v = target.posterior_mean[0], target.posterior_cov[0, 0]
    th0 = m + np.sqrt(v) * rng.standard_normal((chains, 1))
    out = run_chains(sampler, sampler.init(th0), rng, steps=steps, time_average={"phi": lambda s: s.position[:, 0] ** 2})
    return (out["phi"][:, -1] - (m * m + v)) ** 2


def vrsg_mse_z(estimator, steps: int, chains: int, seed: int, h: float = 1e-4) -> float:
    """z-score of vrSG-LD's Monte Carlo MSE (estimator ``estimator``) against the exact MSE of Algorithm 1 (n1, m)."""
    t = gaussian_target()
    s = samplers.sgld(t, h, estimator=estimator)
    sq = time_average_sq_errors(s, t, steps, chains, np.random.default_rng(seed))
    ex = G.vrsg_ld_time_average_mse(t.centers[:, 0], h, [steps], estimator.anchor.batch_size,
                                    estimator.update_interval).mse[0]
    return float((sq.mean() - ex) / (sq.std(ddof=1) / np.sqrt(chains)))


def cor4_budget_gap(minibatch_cls, budget: float, chains: int, seed: int, n_data: int = 100):
    """Monte Carlo ``MSE(n = 1) − MSE(n = N)`` at a budget of ``budget`` gradient evaluations, and its s.e.

    On the §5 model with N = ``n_data``; each n runs ``L = budget/n`` steps at the step size Corollary 4's bound
    prescribes with n-independent constants, capped at ``hκ = 1``.
    """
    t = gaussian_target(n_data)
    x = t.centers[:, 0]
    ac = G.asymptotic_constants(x)
    out = {}
    rng = np.random.default_rng(seed)
    for n in (1, n_data):
        _, h = V.bound_optimal_mse(n, budget, n_data, float(V.gamma(x)), ac["c_noise"], ac["C1"], ac["C3_full_gradient"])
        h = min(float(h), 1.0 / ac["kappa"])
        s = samplers.sgld(t, h, estimator=minibatch_cls(n, replace=False))
        out[n] = time_average_sq_errors(s, t, int(budget // n), chains, rng)
    diff = out[1].mean() - out[n_data].mean()
    se = np.hypot(out[1].std(ddof=1), out[n_data].std(ddof=1)) / np.sqrt(chains)
    return float(diff), float(se)


def stationary_bias_z(minibatch_cls, chains: int, seed: int, h_kappa: float = 0.05, burn: int = 400, keep: int = 400):
    """z-score of SGLD (n = 1)'s measured stationary bias of θ² against the exact ``h(Eζ² + κ)/(κ(2 − hκ))``.

    The bias that makes Corollary 4's large-budget regime fail on this model: it grows with the minibatch noise
    (Theorem 3's h² constant depends on n). Chains start at the posterior, run ``burn`` steps (20 relaxation
    times at hκ = 0.05), then θ² is averaged over ``keep`` steps.
    """
    t = gaussian_target()
    x = t.centers[:, 0]
    k = t.n + t.prior_precision
    h = h_kappa / k
    s = samplers.sgld(t, h, estimator=minibatch_cls(1, replace=False))
    rng = np.random.default_rng(seed)
    m, v = t.posterior_mean[0], t.posterior_cov[0, 0]
    st = s.init(m + np.sqrt(v) * rng.standard_normal((chains, 1)))
    out = run_chains(s, st, rng, checkpoints=[burn, burn + keep], unit="steps",
                     time_average={"phi": lambda q: q.position[:, 0] ** 2})
    S = out["phi"][:, 1] * (burn + keep) - out["phi"][:, 0] * burn   # sum of θ² over the kept steps
    est = S / keep - (m * m + v)
    exact = G.sgld_stationary_bias(x, h, 1)
    return float((est.mean() - exact) / (est.std(ddof=1) / np.sqrt(chains)))
