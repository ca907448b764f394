"""Exact (Metropolis-corrected) reference samplers: HMC and MALA, vectorized over chains.

These are the full-gradient baselines whose stationary law is exactly ``π ∝ exp(−V)``; the
stochastic-gradient samplers are checked against them (and against closed forms where those exist). Both follow the toolkit's shape::

    state = sampler.init(position)
    state, info = sampler.step(state, rng)

and need only ``target.potential(θ)`` ``(chains, d) → (chains,)`` and ``target.full_gradient(θ)``
``(chains, d) → (chains, d)`` (see :mod:`sgmcmc_verify.targets`). Both are subclasses of the integrator
base (:mod:`sgmcmc_verify.integrators.base`): validated ``init``, ``step`` under ``np.errstate`` with a
divergence check of the accepted positions. Costs are counted as the papers count
them: one full gradient is ``n`` per-datum gradient evaluations per chain (``StepInfo.evaluations``);
the potential evaluations, another ``n`` each, are reported in ``info["potential_evaluations"]``.

A proposal that leaves the finite numbers (a step size too large for the leapfrog or Langevin
proposal) has zero target density and is rejected; ``info["divergences"]`` counts them. The
Metropolis test is done in log space (``log U < log α`` with ``log U = log1p(−U')`` finite), so
large energy errors never overflow.

References
----------
Duane, Kennedy, Pendleton & Roweth (1987), "Hybrid Monte Carlo"; Neal (2011), "MCMC using
Hamiltonian dynamics" (leapfrog, eq. (5.18)–(5.20), and the acceptance ``min(1, e^{H₀−H₁})``).
Roberts & Tweedie (1996), "Exponential convergence of Langevin distributions and their discrete
approximations" (MALA), cited in the HSG-HMC seed ``001_d56659fdb8996bf2.txt`` as the
Metropolis-corrected counterpart of the Langevin methods it studies.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..errors import check_positive_int
from .base import Integrator, StepInfo

__all__ = ["MCMCState", "HMC", "MALA"]


class MCMCState(NamedTuple):
    """position : (chains, d); potential : (chains,) V(θ); gradient : (chains, d) ∇V(θ); step : int."""

    position: np.ndarray
    potential: np.ndarray
    gradient: np.ndarray
    step: int


class _Metropolis(Integrator):
    """Shared initial state of HMC and MALA: the position with its potential and full gradient cached."""

    def _init_state(self, position, momentum) -> MCMCState:
        if momentum is not None:
            raise ValueError("momentum must be None: HMC and MALA draw their own auxiliary variables each step")
        return MCMCState(position, np.asarray(self.target.potential(position), dtype=np.float64),
                         np.asarray(self.target.full_gradient(position), dtype=np.float64), 0)


def _log_uniform(rng: np.random.Generator, chains: int) -> np.ndarray:
    """``log U`` for ``U`` uniform on (0, 1]: always finite."""
    return np.log1p(-rng.random(chains))


def _accept(state: MCMCState, pos, pot, grad, log_alpha, log_u):
    """Metropolis accept/reject per chain; non-finite proposals are rejected."""
    ok = np.isfinite(log_alpha) & np.isfinite(pot) & np.isfinite(pos).all(axis=-1) & np.isfinite(grad).all(axis=-1)
    log_alpha = np.where(ok, log_alpha, -np.inf)
    acc = log_u < log_alpha
    new_pos = np.where(acc[:, None], pos, state.position)
    new_pot = np.where(acc, pot, state.potential)
    new_grad = np.where(acc[:, None], grad, state.gradient)
    prob = np.exp(np.minimum(log_alpha, 0.0))
    info = {"acceptance_rate": float(acc.mean()), "mean_acceptance_probability": float(prob.mean()),
            "divergences": int((~ok).sum())}
    return new_pos, new_pot, new_grad, info


@dataclass(frozen=True, eq=False)
class HMC(_Metropolis):
    """Hamiltonian Monte Carlo: ``L`` leapfrog steps of size ``ε``, unit mass, Metropolis correction.

    Parameters
    ----------
    target : object with ``n``, ``dim``, ``potential`` and ``full_gradient``
    step_size : float
        Leapfrog step ``ε`` > 0.
    num_steps : int
        Number of leapfrog steps ``L`` >= 1 per proposal.
    name : str, default "HMC"

    Raises
    ------
    ValueError
        Non-positive ``step_size``, ``num_steps < 1``; at ``init``, a non-finite or mis-shaped
        position, or a ``momentum`` (HMC refreshes it every step).

    Notes
    -----
    Each step draws ``p ~ N(0, I)``, integrates ``dθ/dt = p, dp/dt = −∇V(θ)`` by leapfrog::

        p ← p − (ε/2)∇V(θ);  repeat L times { θ ← θ + ε p;  p ← p − ε∇V(θ) } with the last kick halved,

    and accepts ``(θ_L, p_L)`` with probability ``min(1, exp(H₀ − H₁))``, ``H = V(θ) + ½‖p‖²``
    (:meth:`log_acceptance_ratio`). The leapfrog map is volume-preserving and reversible under
    ``p → −p``, so the chain leaves ``π ∝ e^{−V}`` exactly invariant. The gradient at the current
    state is cached: ``L`` full gradients (``L n`` evaluations) and one potential per step.
    ``info``: ``acceptance_rate`` (fraction of chains that accepted), ``mean_acceptance_probability``,
    ``divergences``, ``potential_evaluations``.

    References
    ----------
    Neal (2011), "MCMC using Hamiltonian dynamics", §5.2–5.3; reference sampler for the HSG-HMC
    experiments (seed ``001_d56659fdb8996bf2.txt``).

    Examples
    --------
    >>> from sgmcmc_verify.targets import gaussian_means_target
    >>> hmc = HMC(gaussian_means_target(), step_size=0.1, num_steps=5)
    >>> state, info = hmc.step(hmc.init(np.zeros((4, 2))), np.random.default_rng(0))
    >>> info.evaluations, 0.0 <= info.info["acceptance_rate"] <= 1.0
    (250, True)
    """

    target: Any
    step_size: float
    num_steps: int
    name: str = "HMC"

    def _validate(self):
        object.__setattr__(self, "num_steps", check_positive_int("num_steps", self.num_steps))

    def log_acceptance_ratio(self, energy_current, energy_proposed):
        """``log α = H₀ − H₁`` (chains,): the Metropolis log-ratio for a volume-preserving reversible proposal."""
        return energy_current - energy_proposed

    def _update(self, state: MCMCState, rng: np.random.Generator):
        eps, L, tgt = self.step_size, self.num_steps, self.target
        p0 = rng.standard_normal(state.position.shape)
        log_u = _log_uniform(rng, state.position.shape[0])
        x = state.position
        p = p0 - 0.5 * eps * state.gradient
        for j in range(L):
            x = x + eps * p
            g = np.asarray(tgt.full_gradient(x), dtype=np.float64)
            p = p - (eps if j < L - 1 else 0.5 * eps) * g
        pot = np.asarray(tgt.potential(x), dtype=np.float64)
        h0 = state.potential + 0.5 * np.einsum("cd,cd->c", p0, p0)
        h1 = pot + 0.5 * np.einsum("cd,cd->c", p, p)
        log_alpha = self.log_acceptance_ratio(h0, h1)
        pos, pot, grad, info = _accept(state, x, pot, g, log_alpha, log_u)
        info["potential_evaluations"] = tgt.n
        return MCMCState(pos, pot, grad, state.step + 1), StepInfo(L * tgt.n, info), (pos,)


@dataclass(frozen=True, eq=False)
class MALA(_Metropolis):
    """Metropolis-adjusted Langevin: ``θ' = θ − h∇V(θ) + √(2h) ξ``, Metropolis–Hastings correction.

    Parameters
    ----------
    target : object with ``n``, ``dim``, ``potential`` and ``full_gradient``
    step_size : float
        ``h`` > 0 (the Euler–Maruyama step of the overdamped Langevin diffusion, as in
        :class:`~sgmcmc_verify.samplers.OverdampedEM`).
    name : str, default "MALA"

    Raises
    ------
    ValueError
        Non-positive ``step_size``; at ``init``, a non-finite or mis-shaped position, or a
        ``momentum``.

    Notes
    -----
    With ``q(θ'|θ) ∝ exp(−‖θ' − θ + h∇V(θ)‖²/(4h))`` the acceptance probability is
    ``min(1, α)``, ``log α = V(θ) − V(θ') + log q(θ|θ') − log q(θ'|θ)``
    (:meth:`log_acceptance_ratio`); the chain leaves ``π ∝ e^{−V}`` exactly invariant. One full
    gradient (``n`` evaluations) and one potential per step; ``info`` as :class:`HMC`.

    References
    ----------
    Roberts & Tweedie (1996), Bernoulli 2(4), cited in seed ``001_d56659fdb8996bf2.txt``.

    Examples
    --------
    >>> from sgmcmc_verify.targets import gaussian_means_target
    >>> mala = MALA(gaussian_means_target(), step_size=0.01)
    >>> state, info = mala.step(mala.init(np.zeros((4, 2))), np.random.default_rng(0))
    >>> info.evaluations
    50
    """

    target: Any
    step_size: float
    name: str = "MALA"

    def log_proposal_density(self, to, frm, grad_frm):
        """``log q(to | frm)`` up to a constant, (chains,): ``−‖to − frm + h∇V(frm)‖² / (4h)``."""
        r = to - frm + self.step_size * grad_frm
        return -np.einsum("cd,cd->c", r, r) / (4.0 * self.step_size)

    def log_acceptance_ratio(self, state: MCMCState, proposal, potential, gradient):
        """``log α = V(θ) − V(θ') + log q(θ|θ') − log q(θ'|θ)`` (chains,)."""
        return (state.potential - potential
                + self.log_proposal_density(state.position, proposal, gradient)
                - self.log_proposal_density(proposal, state.position, state.gradient))

    def _update(self, state: MCMCState, rng: np.random.Generator):
        h, tgt = self.step_size, self.target
        xi = rng.standard_normal(state.position.shape)
        log_u = _log_uniform(rng, state.position.shape[0])
        x = state.position - h * state.gradient + np.sqrt(2.0 * h) * xi
        g = np.asarray(tgt.full_gradient(x), dtype=np.float64)
        pot = np.asarray(tgt.potential(x), dtype=np.float64)
        log_alpha = self.log_acceptance_ratio(state, x, pot, g)
        pos, pot, grad, info = _accept(state, x, pot, g, log_alpha, log_u)
        info["potential_evaluations"] = tgt.n
        return MCMCState(pos, pot, grad, state.step + 1), StepInfo(tgt.n, info), (pos,)
