"""The uniform minibatch estimator (SGLD, SGHMC, LS-SGLD ...) and the exact full gradient.

References
----------
Welling & Teh (2011), SGLD; EWSG (seed ``000_8e0377c44e2ea3b8.txt``) §2 and §5.1 (b = 1).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_positive_int
from .base import GradientEstimate, StepContext, check_batch, minibatch_gradient, subset_indices, uniform_indices

__all__ = ["UniformMinibatch", "FullGradient"]


@dataclass(frozen=True)
class UniformMinibatch:
    """Uniform minibatch ``ĝ = ∇V_0(θ) + (n/b) Σ_{j=1}^b ∇V_{I_j}(θ)``, with or without replacement.

    Parameters
    ----------
    batch_size : int, default 1
        ``b``.
    replace : bool, default True
        ``True``: ``I_j`` i.i.d. uniform on ``[n]`` (the i.i.d. estimator of the SG-MCMC analyses
        of EWSG, HSG-HMC and LS-SGLD, and of the printed vrSG-MCMC Algorithm 1, "sample with
        replacement"); ``False``: ``I`` a uniform random ``b``-subset
        (:func:`~sgmcmc_verify.estimators.base.subset_indices`), the inclusion-indicator scheme of the
        vrSG-MCMC proofs (seed ``002_245183f35db8d795.txt``, Theorem 3). Both are unbiased; for
        ``b = 1`` they coincide (and consume the random stream identically), for ``b > 1`` the
        variance of the data term is ``(n−b)/(n−1)`` times smaller without replacement.

    Raises
    ------
    ValueError
        ``batch_size`` not an integer >= 1 or ``replace`` not a bool; at ``init``, ``batch_size > n``.

    Notes
    -----
    Unbiased, cost ``b`` evaluations per chain per step, independent of ``n``. The variance-reduced
    estimators of :mod:`sgmcmc_verify.estimators.variance_reduced` wrap one of these for their fresh
    minibatches (:meth:`draw`, :meth:`gradient_at`).

    Examples
    --------
    >>> import numpy as np
    >>> from sgmcmc_verify.targets import gaussian_means_target
    >>> est = UniformMinibatch(5)
    >>> e = est(None, np.random.default_rng(0), gaussian_means_target(), np.zeros((3, 2)))
    >>> e.gradient.shape, e.evaluations
    ((3, 2), 5)
    """

    batch_size: int = 1
    replace: bool = True

    def __post_init__(self):
        check_positive_int("batch_size", self.batch_size)
        if not isinstance(self.replace, (bool, np.bool_)):
            raise ValueError(f"replace must be True or False, got {self.replace!r}")

    def init(self, target, position, rng=None):
        check_batch(target, "batch_size", self.batch_size)
        return None

    def draw(self, rng, target, chains: int):
        """The minibatch indices of every chain, ``(chains, b)``."""
        if self.replace:
            return uniform_indices(rng, target.n, chains, self.batch_size)
        return subset_indices(rng, target.n, chains, self.batch_size)

    def gradient_at(self, target, position, idx):
        """:func:`~sgmcmc_verify.estimators.base.minibatch_gradient` at ``position`` with the indices ``idx``."""
        return minibatch_gradient(target, position, idx)

    def __call__(self, state, rng, target, position, context=StepContext()):
        idx = self.draw(rng, target, position.shape[0])
        return GradientEstimate(self.gradient_at(target, position, idx), self.batch_size, None, {})

    def settings(self) -> dict:
        out = {"estimator": "uniform", "batch_size": self.batch_size}
        if not self.replace:  # reported only when it differs from the default (keeps existing records as they were)
            out["replace"] = False
        return out


@dataclass(frozen=True)
class FullGradient:
    """The exact gradient ``∇V(θ)``; costs ``n`` evaluations (one data pass) per chain per step."""

    def init(self, target, position, rng=None):
        return None

    def __call__(self, state, rng, target, position, context=StepContext()):
        return GradientEstimate(target.full_gradient(position), target.n, None, {})

    def settings(self) -> dict:
        return {"estimator": "full"}
