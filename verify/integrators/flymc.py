"""Firefly Monte Carlo (Maclaurin & Adams 2014): exact MCMC on subsets of data, vectorized over chains.

Each datum n carries a brightness ``z_n ∈ {0, 1}``; with a lower bound ``0 < B_n(θ) <= L_n(θ)`` of its
likelihood the joint law

``p(θ, z) ∝ p(θ) Π_n B_n(θ) · Π_{n: z_n = 1} (L_n(θ) − B_n(θ)) / B_n(θ)``

has the posterior ``p(θ) Π_n L_n(θ)`` as its θ-marginal (sum over each ``z_n``: ``B_n + (L_n − B_n) = L_n``).
The product of all bounds collapses to sufficient statistics (a quadratic ``log B``, see
:mod:`sgmcmc_verify.targets.bounds`), so the θ-density costs the *bright* data only. One step:

1. **brightness update** — ``m`` data (``resample_size``) are drawn uniformly with replacement,
   independently of z, and the distinct ones are Gibbs-resampled from ``P(z_n = 1 | θ) = 1 − B_n/L_n``;
   the z_n are conditionally independent given θ, so this leaves the joint law invariant (``m``
   likelihood evaluations counted; a sort of the ``m`` draws finds the repeats, O(m log m), where
   drawing a subset without replacement would cost O(n) per step at m = 10 % of n);
2. **θ update** — one Metropolis–Hastings step on the joint with z fixed: a random walk
   ``θ' = θ + εξ`` or MALA ``θ' = θ + ε∇log p(θ, z) + √(2ε) ξ`` (``proposal``), which evaluates the
   likelihood and bound of the bright data at θ' (``K`` evaluations; the bright terms at θ are
   carried in the state, updated exactly when z changes and replaced when θ moves).

Evaluations (per-datum likelihood-or-gradient evaluations, the papers' unit of a data pass) per chain
and step are ``m + K``, and so is the work: the bright pairs are kept as a flat key list next to the dense
``(chains, n)`` brightness array, which is updated in place, so a step costs O(m log m + K d), not O(n); :class:`~sgmcmc_verify.integrators.base.StepInfo` carries their mean over chains,
``info`` the bright fraction, the data used, the acceptance rate and the count of bound violations
(a datum with ``L_n < B_n`` at a θ of positive prior: the bound is not a lower bound there, and the
chain is no longer exact — an experiment must report it).

The chain starts with every datum dark (``z = 0``: a state of positive probability, reached at no
cost; Maclaurin & Adams' code instead samples z | θ₀, one full pass).

References
----------
Maclaurin & Adams (2014), "Firefly Monte Carlo: Exact MCMC with subsets of data", Algorithm 1, §3
(joint, implicit z sampling), §4 (JJ bound at the MAP). EWSG, seed ``000_8e0377c44e2ea3b8.txt``: §5.2
(FlyMC with 50 data "sampled in each iteration to switch state"), Appendix G.1 (10 % resampled).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..errors import check_positive_int
from .base import Integrator, StepInfo

__all__ = ["FlyMCState", "FireflyMC", "PROPOSALS"]

#: The θ-proposals: an isotropic Gaussian random walk, or the Langevin (MALA) proposal on the joint.
PROPOSALS = ("random_walk", "mala")


class FlyMCState(NamedTuple):
    """position (chains, d); bright (chains, n) bool, updated *in place* by the next step (a state shares it with
    its successor); bright_keys (K,) int64 the bright pairs as ``chain * n + datum``, unordered; bright_term
    (chains,) ``Σ_bright log(L_n/B_n − 1)`` at θ; bright_grad (chains, d) its gradient (MALA; zeros for the random
    walk); data_used (chains,) evaluations of the last step; step : int."""

    position: np.ndarray
    bright: np.ndarray
    bright_keys: np.ndarray
    bright_term: np.ndarray
    bright_grad: np.ndarray
    data_used: np.ndarray
    step: int


def _chain_sum(ci, values, chains):
    """Sum rows of ``values`` ``(K,)`` or ``(K, d)`` by chain id ``ci`` ``(K,)``: ``(chains,)`` or ``(chains, d)``."""
    if values.ndim == 1:
        return np.bincount(ci, weights=values, minlength=chains)
    out = np.zeros((chains, values.shape[1]))
    np.add.at(out, ci, values)
    return out


@dataclass(frozen=True, eq=False)
class FireflyMC(Integrator):
    """FlyMC with collapsed bounds: Gibbs on a random subset of brightness variables, then MH on θ.

    Parameters
    ----------
    target : bound object
        The bound interface of :mod:`sgmcmc_verify.targets.bounds` (``n``, ``dim``, per-pair log-likelihood,
        log-bound and their gradients, the collapsed ``log_bound_total``, ``log_prior``).
    step_size : float
        ε > 0: the random-walk s.d., or the MALA step (drift ``ε∇``, noise ``√(2ε)``).
    resample_size : int
        ``m``, 1 <= m <= n: brightness variables Gibbs-resampled per step (EWSG §5.2: 50; G.1: 10 % of n).
    proposal : {"mala", "random_walk"}, default "mala"
    name : str, default "FlyMC"

    Raises
    ------
    ValueError
        Non-positive ``step_size``; ``resample_size`` not in [1, n]; an unknown ``proposal``; at ``init``,
        a non-finite or mis-shaped position, or a ``momentum``.

    Examples
    --------
    >>> from sgmcmc_verify.targets.bounds import LogisticJJBound
    >>> X = np.column_stack([np.ones(6), np.linspace(-1, 1, 6)]); y = np.array([0., 0, 1, 0, 1, 1])
    >>> f = FireflyMC(LogisticJJBound.at(X, y, np.zeros(2)), 0.1, resample_size=3)
    >>> st, info = f.step(f.init(np.zeros((2, 2))), np.random.default_rng(0))
    >>> st.bright.shape, info.evaluations >= 3
    ((2, 6), True)
    """

    target: Any
    step_size: float
    resample_size: int
    proposal: str = "mala"
    name: str = "FlyMC"

    def _validate(self):
        m = check_positive_int("resample_size", self.resample_size)
        if m > self.target.n:
            raise ValueError(f"resample_size must be <= n = {self.target.n}, got {m}")
        object.__setattr__(self, "resample_size", m)
        if self.proposal not in PROPOSALS:
            raise ValueError(f"proposal must be one of {PROPOSALS}, got {self.proposal!r}")

    # -- the bright datum's log-weight log((L − B)/B) = log expm1(a), a = log L − log B (a hook for test-only bugs) --
    def bright_log_weight(self, a):
        """``log(e^a − 1)`` for ``a = log L_n − log B_n > 0`` (``−∞`` at a <= 0): ``(K,)``."""
        pos = a > 0
        out = np.full(a.shape, -np.inf)
        out[pos] = np.log(np.expm1(a[pos]))
        return out

    def bright_log_weight_slope(self, a):
        """``d/da log(e^a − 1) = 1/(1 − e^{−a})``: ``(K,)`` (``+∞`` at a <= 0)."""
        with np.errstate(divide="ignore"):
            return np.where(a > 0, 1.0 / -np.expm1(-np.maximum(a, 0.0)), np.inf)

    def _pairs(self, theta, ci, di, grad):
        """``(a, log-weight, gradient of the log-weight or None)`` for the pairs (chain ci, datum di)."""
        tgt, th = self.target, theta[ci]
        a = tgt.log_likelihood_pairs(th, di) - tgt.log_bound_pairs(th, di)
        w = self.bright_log_weight(a)
        if not grad:
            return a, w, None
        g = tgt.grad_log_likelihood_pairs(th, di) - tgt.grad_log_bound_pairs(th, di)
        slope = self.bright_log_weight_slope(a)
        return a, w, np.where(np.isfinite(slope)[:, None], slope[:, None] * g, 0.0)

    def _init_state(self, position, momentum) -> FlyMCState:
        if momentum is not None:
            raise ValueError("momentum must be None: FlyMC's auxiliary variables are the brightnesses")
        c = position.shape[0]
        return FlyMCState(position, np.zeros((c, self.target.n), dtype=bool), np.zeros(0, dtype=np.int64), np.zeros(c),
                          np.zeros_like(position), np.zeros(c), 0)

    def _resample_brightness(self, state: FlyMCState, rng):
        """Gibbs update of ``m`` brightnesses per chain; returns (bright, keys, bright_term, bright_grad, violations)."""
        c, m, mala = state.position.shape[0], self.resample_size, self.proposal == "mala"
        idx = np.sort(rng.integers(0, self.target.n, size=(c, m)), axis=1)
        first = np.ones((c, m), dtype=bool)
        first[:, 1:] = idx[:, 1:] != idx[:, :-1]  # a datum drawn twice is resampled once
        ci, di, first = np.repeat(np.arange(c), m), idx.ravel(), first.ravel()
        a, w, g = self._pairs(state.position, ci, di, mala)
        violations = int(np.sum(a < -1e-12))
        old = state.bright[ci, di]
        new = np.where(first, rng.random(ci.size) < -np.expm1(-np.maximum(a, 0.0)), old)
        on, off = new & ~old, old & ~new
        delta = np.where(on, w, 0.0) - np.where(off, w, 0.0)
        bright = state.bright  # in place: a copy would cost O(chains · n) per step
        bright[ci[first], di[first]] = new[first]  # with repeats, a fancy assignment's last write would win
        key = ci * self.target.n + di
        keys = state.bright_keys
        if off.any():
            keys = keys[~np.isin(keys, key[off])]
        if on.any():
            keys = np.concatenate([keys, key[on]])  # repeats never switch on: only first draws can change
        term = state.bright_term + delta.reshape(c, m).sum(axis=1)
        grad = state.bright_grad
        if mala:
            sign = on.astype(np.float64) - off.astype(np.float64)
            grad = grad + (sign[:, None] * g).reshape(c, m, -1).sum(axis=1)
        return bright, keys, term, grad, violations

    def _log_joint_grad(self, theta, bright_grad):
        tgt = self.target
        return tgt.grad_log_prior(theta) + tgt.grad_log_bound_total(theta) + bright_grad

    def _update(self, state: FlyMCState, rng: np.random.Generator):
        tgt, eps, mala = self.target, self.step_size, self.proposal == "mala"
        c, d = state.position.shape
        bright, keys, term, bgrad, violations = self._resample_brightness(state, rng)
        x = state.position
        xi = rng.standard_normal((c, d))
        log_u = np.log1p(-rng.random(c))
        if mala:
            g_cur = self._log_joint_grad(x, bgrad)
            prop = x + eps * g_cur + np.sqrt(2.0 * eps) * xi
        else:
            prop = x + eps * xi
        ci, di = np.divmod(keys, tgt.n)
        a, w, g = self._pairs(prop, ci, di, mala)
        prior_prop = tgt.log_prior(prop)
        violations += int(np.sum((a < -1e-12) & np.isfinite(prior_prop)[ci]))
        term_prop = _chain_sum(ci, w, c)
        lp_prop = prior_prop + tgt.log_bound_total(prop) + term_prop
        lp_cur = tgt.log_prior(x) + tgt.log_bound_total(x) + term
        log_alpha = lp_prop - lp_cur
        if mala:
            bgrad_prop = _chain_sum(ci, g, c)
            g_prop = self._log_joint_grad(prop, bgrad_prop)
            fwd = prop - x - eps * g_cur
            bwd = x - prop - eps * g_prop
            log_alpha = log_alpha + (np.sum(fwd * fwd, 1) - np.sum(bwd * bwd, 1)) / (4.0 * eps)
        ok = np.isfinite(log_alpha) & np.isfinite(prop).all(axis=1)
        acc = ok & (log_u < np.where(ok, log_alpha, -np.inf))
        pos = np.where(acc[:, None], prop, x)
        term = np.where(acc, term_prop, term)
        if mala:
            bgrad = np.where(acc[:, None], bgrad_prop, bgrad)
        k = np.bincount(ci, minlength=c).astype(np.float64)
        used = self.resample_size + k
        info = {"acceptance_rate": float(acc.mean()), "bright_fraction": float(k.mean() / tgt.n),
                "data_used_fraction": float(used.mean() / tgt.n), "bound_violations": violations}
        new = FlyMCState(pos, bright, keys, term, bgrad, used, state.step + 1)
        return new, StepInfo(float(used.mean()), info), (pos,)
