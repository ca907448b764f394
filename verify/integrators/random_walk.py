"""Isotropic random-walk Metropolis–Hastings on the full potential: the exact reference of EWSG Appendix G.1.

``θ' = θ + εξ``, ``ξ ~ N(0, I)``, accepted with probability ``min(1, e^{V(θ) − V(θ')})``; the chain leaves
``π ∝ e^{−V}`` exactly invariant. Needs only ``target.potential`` ``(chains, d) → (chains,)`` (``+∞`` where
the prior vanishes: such proposals are rejected). One potential evaluation (``n`` per-datum
likelihood evaluations, however the target computes it) per chain and step.

References
----------
Metropolis et al. (1953); Hastings (1970). EWSG, seed ``000_8e0377c44e2ea3b8.txt``, Appendix G.1 ("an
isotropic random walk Metropolis Hastings (MH) is also run for sufficiently long and serves as the
ground truth").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .base import Integrator, StepInfo

__all__ = ["RWMState", "RandomWalkMetropolis"]


class RWMState(NamedTuple):
    """position (chains, d); potential (chains,); step : int."""

    position: np.ndarray
    potential: np.ndarray
    step: int


@dataclass(frozen=True, eq=False)
class RandomWalkMetropolis(Integrator):
    """Random-walk MH with isotropic Gaussian proposals of s.d. ``step_size`` (ε).

    Parameters
    ----------
    target : object with ``n``, ``dim`` and ``potential``
    step_size : float
        ε > 0.
    name : str, default "MH"

    Raises
    ------
    ValueError
        Non-positive ``step_size``; at ``init``, a non-finite or mis-shaped position, a position of
        infinite potential, or a ``momentum``.

    Examples
    --------
    >>> from sgmcmc_verify.targets import gaussian_means_target
    >>> s = RandomWalkMetropolis(gaussian_means_target(), 0.05)
    >>> st, info = s.step(s.init(np.zeros((3, 2))), np.random.default_rng(0))
    >>> info.evaluations
    50
    """

    target: Any
    step_size: float
    name: str = "MH"

    def log_acceptance_ratio(self, potential_current, potential_proposed):
        """``log α = V(θ) − V(θ')`` (chains,): the symmetric proposal's Metropolis log-ratio."""
        return potential_current - potential_proposed

    def _init_state(self, position, momentum) -> RWMState:
        if momentum is not None:
            raise ValueError("momentum must be None: random-walk MH has no momentum")
        v = np.asarray(self.target.potential(position), dtype=np.float64)
        if not np.all(np.isfinite(v)):
            raise ValueError("position must have finite potential (inside the prior's support) for every chain")
        return RWMState(position, v, 0)

    def _update(self, state: RWMState, rng: np.random.Generator):
        c, d = state.position.shape
        prop = state.position + self.step_size * rng.standard_normal((c, d))
        log_u = np.log1p(-rng.random(c))
        v = np.asarray(self.target.potential(prop), dtype=np.float64)
        log_alpha = np.where(np.isfinite(v), self.log_acceptance_ratio(state.potential, v), -np.inf)
        acc = log_u < log_alpha
        pos = np.where(acc[:, None], prop, state.position)
        info = {"acceptance_rate": float(acc.mean())}
        return RWMState(pos, np.where(acc, v, state.potential), state.step + 1), StepInfo(self.target.n, info), (pos,)
