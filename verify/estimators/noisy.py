"""The synthetic stochastic gradient "exact gradient + Gaussian noise" (SGHMC paper §5.1).

References
----------
Chen, Fox & Guestrin (2014), "Stochastic gradient Hamiltonian Monte Carlo", §5.1, as cited by
LS-SGLD (seed ``004_8438bd4b543e0fc4.txt``, §4.1.1, its ref. [10]).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import check_positive
from .base import GradientEstimate, StepContext

__all__ = ["NoisyExactGradient"]


@dataclass(frozen=True)
class NoisyExactGradient:
    """Stochastic gradient ``∇V(x) + s·ξ``, ``ξ ~ N(0, I)``.

    Parameters
    ----------
    noise_scale : float, default 1
        ``s`` > 0 (the cited example uses N(0, 1) noise).

    Raises
    ------
    ValueError
        ``noise_scale`` not a finite number > 0.

    Notes
    -----
    Costs 1 evaluation per step (meant for one-datum targets, ``n = 1``).
    """

    noise_scale: float = 1.0

    def __post_init__(self):
        check_positive("noise_scale", self.noise_scale)

    def init(self, target, position, rng=None):
        return None

    def __call__(self, state, rng, target, position, context=StepContext()):
        g = target.full_gradient(position) + self.noise_scale * rng.standard_normal(position.shape)
        return GradientEstimate(g, 1, None, {})

    def settings(self) -> dict:
        return {"estimator": "exact+gaussian_noise", "noise_scale": self.noise_scale}
