"""A Gaussian finite sum whose per-datum Hessians differ: ``V(θ) = Σ_i ½ θᵀA_iθ − b_iᵀθ``.

The sampler-side view of :class:`sgmcmc_verify.analytic.hsg_quadratic.QuadraticSum`; the exact moments of
SG-UL-MCMC, SRVR-HMC and HSG-HMC on it are :func:`sgmcmc_verify.analytic.hsg_quadratic.exact_trajectory`.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: Table 1 study (the recursive estimators are exact when
all ``A_i`` are equal; this target is where they are not).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sgmcmc_verify.analytic.hsg_quadratic import QuadraticSum

from .base import GaussianExactAnswers

__all__ = ["QuadraticSumTarget"]


@dataclass(frozen=True, eq=False)
class QuadraticSumTarget(GaussianExactAnswers):
    """``V(θ) = Σ_i V_i(θ)``, ``V_i(θ) = ½ θᵀA_iθ − b_iᵀθ``; the target is ``N(A⁻¹b, A⁻¹)``.

    Parameters
    ----------
    quadratic : sgmcmc_verify.analytic.hsg_quadratic.QuadraticSum
        ``A`` (n, d, d) and ``b`` (n, d).

    Notes
    -----
    Per-datum gradient ``A_i θ − b_i`` costs O(d²) per chain and index, independent of ``n``.
    """

    quadratic: QuadraticSum

    def __post_init__(self):
        if not isinstance(self.quadratic, QuadraticSum):
            raise ValueError(f"quadratic must be an sgmcmc_verify.analytic.hsg_quadratic.QuadraticSum, got {type(self.quadratic)!r}")

    @property
    def n(self) -> int:
        return self.quadratic.n

    @property
    def dim(self) -> int:
        return self.quadratic.dim

    @property
    def posterior_mean(self) -> np.ndarray:
        """``A⁻¹b``, shape ``(d,)``."""
        return self.quadratic.mean

    @property
    def posterior_cov(self) -> np.ndarray:
        """``A⁻¹``, shape ``(d, d)``."""
        return self.quadratic.cov

    def data_gradients(self, theta, idx):
        """``A_{idx} θ − b_{idx}``: theta ``(chains, d)``, idx ``(chains, b)`` → ``(chains, b, d)``."""
        q = self.quadratic
        return np.einsum("cbij,cj->cbi", q.A[idx], theta) - q.b[idx]

    @property
    def hessian(self) -> np.ndarray:
        """``A = Σ_i A_i``, shape ``(d, d)``."""
        return self.quadratic.hessian

    def data_potentials(self, theta, idx):
        """``½ θᵀA_iθ − b_iᵀθ``: theta ``(chains, d)``, idx ``(chains, b)`` → ``(chains, b)``."""
        q = self.quadratic
        return 0.5 * np.einsum("ci,cbij,cj->cb", theta, q.A[idx], theta) - np.einsum("cbi,ci->cb", q.b[idx], theta)

    def prior_gradient(self, theta):
        return np.zeros_like(theta)

    def full_gradient(self, theta):
        q = self.quadratic
        return theta @ q.hessian.T - q.b.sum(0)

    def potential(self, theta):
        q = self.quadratic
        return 0.5 * np.einsum("ci,ij,cj->c", theta, q.hessian, theta) - theta @ q.b.sum(0)
