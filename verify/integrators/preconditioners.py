"""Preconditioners of the overdamped Euler–Maruyama step: identity, Laplacian smoothing, RMSprop (± smoothing).

A preconditioned Langevin step ``x' = x − h D ĝ + √(2h/β) D^{1/2} ξ`` keeps ``π ∝ exp(−βV)`` (for a
frozen ``D``) when ``D`` is symmetric positive definite and the noise factor ``R`` satisfies
``R Rᵀ = D``. A preconditioner supplies, in the floating-point arrangement of the reference
implementation of each method:

* ``init(position) -> state`` and ``update(state, gradient, n) -> state`` (RMSprop's accumulator);
* ``drift(state, gradient, h)`` — the array ``h D ĝ``;
* ``noise(state, xi, h, beta)`` — the array ``√(2h/β) R ξ``;
* ``requires_finite_gradient`` — whether ``ĝ`` must be checked before ``drift`` (the FFT operators
  of :mod:`sgmcmc_verify.analytic.laplacian` reject non-finite input; the check turns that into a divergence);
* ``settings()``.

==================================  =====================================  ==================================
preconditioner                      ``D``                                   ``R``
==================================  =====================================  ==================================
:class:`IdentityPreconditioner`     ``I`` (SGLD)                            ``I``
:class:`LaplacianPreconditioner`    ``A_σ⁻¹`` (LS-SGLD (2.5))               ``A_σ^{−1/2}``
:class:`RMSpropPreconditioner`      ``G = diag(1/(λ + √v))`` (pSGLD)        ``G^{1/2}``
  with ``smoothing``                ``G^{1/2} A_σ⁻¹ G^{1/2}`` (LS-pSGLD)    ``G^{1/2} A_σ^{−1/2}``
==================================  =====================================  ==================================

References
----------
LS-SGLD, seed ``004_8438bd4b543e0fc4.txt``: eqs. (2.3)–(2.5), Proposition 2.1, §4 (LS-pSGLD).
Li, Chen, Carlson & Carin, "Preconditioned stochastic gradient Langevin dynamics", AAAI 2016
(pSGLD, RMSprop, λ = 1e-5, α = 0.99 as EWSG §5 uses them).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..errors import check_positive
from .smoothing import as_smoothing_operator

__all__ = ["IdentityPreconditioner", "LaplacianPreconditioner", "RMSpropPreconditioner", "RMSpropState",
           "PSGLD_CONVENTIONS"]

#: What the RMSprop accumulator is fed: Li et al.'s per-datum mean gradient ``ĝ/n`` (EWSG's pSGLD), or
#: the full-scale ``ĝ`` itself (the LS-SGLD paper's pSGLD / LS-pSGLD).
PSGLD_CONVENTIONS = ("per_datum", "full")


@dataclass(frozen=True)
class IdentityPreconditioner:
    """``D = I``: plain (stochastic-gradient) Langevin, ``x' = x − hĝ + √(2h/β) ξ``."""

    requires_finite_gradient = False

    def init(self, position):
        return None

    def update(self, state, gradient, n):
        return None

    def drift(self, state, gradient, step_size):
        return step_size * gradient

    def noise(self, state, xi, step_size, inverse_temperature):
        return np.sqrt(2.0 * step_size / inverse_temperature) * xi

    def settings(self) -> dict:
        return {"preconditioner": "identity"}


@dataclass(frozen=True, eq=False)
class LaplacianPreconditioner:
    """``D = A_σ⁻¹``, ``R = A_σ^{−1/2}``: Laplacian smoothing of the gradient and the noise (LS-SGLD (2.5)).

    Parameters
    ----------
    smoothing : float or smoothing operator
        A number σ ``≥ 0`` means :class:`~sgmcmc_verify.integrators.smoothing.PeriodicSmoothing` (σ); or pass
        an operator (:func:`~sgmcmc_verify.integrators.smoothing.paper_2d_smoothing` for eq. (4.1)).

    Raises
    ------
    ValueError
        A bad σ or an object that is not a smoothing operator.

    Notes
    -----
    Cost per step: two FFTs of length ``d`` per chain (``O(d log d)``), independent of ``n``. The
    noise is smoothed by ``A^{−1/2}``, not ``A⁻¹``: only then is ``π`` invariant (Proposition 2.1).
    """

    smoothing: Any = 0.0
    requires_finite_gradient = True

    def __post_init__(self):
        object.__setattr__(self, "smoothing", as_smoothing_operator(self.smoothing))

    def init(self, position):
        return None

    def update(self, state, gradient, n):
        return None

    def drift(self, state, gradient, step_size):
        return step_size * self.smoothing.apply_inverse(gradient)

    def noise(self, state, xi, step_size, inverse_temperature):
        return np.sqrt(2.0 * step_size / inverse_temperature) * self.smoothing.apply_inverse_sqrt(xi)

    def settings(self) -> dict:
        return {"preconditioner": "laplacian", **self.smoothing.settings()}


class RMSpropState(NamedTuple):
    """square_avg : (chains, d) the accumulator ``v``; scale : (chains, d) ``G`` (or ``G^{1/2}`` with smoothing)."""

    square_avg: np.ndarray
    scale: np.ndarray | None


@dataclass(frozen=True, eq=False)
class RMSpropPreconditioner:
    """pSGLD's RMSprop preconditioner ``G = diag(1/(λ + √v))``, optionally composed with Laplacian smoothing.

    ``v' = α v + (1−α) ḡ⊙ḡ`` with ``ḡ`` given by ``preconditioner_input``, ``v_0 = 0`` (Li et al.'s
    Algorithm 1); the Γ(θ) drift correction is omitted, as in Li et al.'s experiments.

    Parameters
    ----------
    alpha : float, default 0.99
        RMSprop decay α in (0, 1) (EWSG §5: "λ = 1e-5 and α = 0.99, as suggested in [25]").
    lam : float, default 1e-5
        Damping λ > 0.
    preconditioner_input : {"per_datum", "full"}, default "per_datum"
        The two documented pSGLD conventions (:data:`PSGLD_CONVENTIONS`). ``"per_datum"``:
        ``ḡ = ĝ/n``, Li et al.'s per-datum mean gradient (EWSG's pSGLD). ``"full"``: ``ĝ`` itself, the
        gradient of the potential the sampler moves on — the LS-SGLD paper's convention, where pSGLD
        and LS-pSGLD precondition the same ``g_k`` that (2.5) smooths (with its step sizes, e.g.
        0.002 for BLR, only this reading gives steps of the size of η; with ``ḡ = ĝ/n`` the RMSprop
        step ``ηGĝ ≈ ηn sign(ĝ)`` is ``n`` times larger).
    smoothing : None, float or smoothing operator, default None
        ``None``: pSGLD, ``D = G``, ``R = G^{1/2}``. Otherwise LS-pSGLD (our composition for the
        paper's "incorporated" preconditioner): ``D = G^{1/2} A⁻¹ G^{1/2}``, ``R = G^{1/2} A^{−1/2}``.

    Raises
    ------
    ValueError
        ``alpha`` outside (0, 1); non-positive ``lam``; unknown ``preconditioner_input``; a bad
        ``smoothing``.

    Notes
    -----
    Why the symmetric sandwich. A Langevin step keeps ``π`` only if its drift matrix is symmetric
    positive definite with noise covariance ``2hD/β`` — the same reason the paper smooths the noise
    by ``A^{−1/2}`` (Proposition 2.1). The naive products ``A⁻¹G`` or ``GA⁻¹`` are not symmetric.
    ``G^{1/2}A⁻¹G^{1/2}`` is Laplacian smoothing (2.5) carried out in the RMSprop-rescaled
    coordinates ``u = G^{−1/2}x``; it reduces to pSGLD at σ = 0 (up to the round-off of the σ = 0
    FFT) and to LS-SGLD at ``G = I``. pSGLD is not a linear recursion, so its laws are measured by
    Monte Carlo only.

    References
    ----------
    Li et al., AAAI 2016; LS-SGLD seed ``004_8438bd4b543e0fc4.txt``, §4 (LS-pSGLD), Proposition 2.1.
    """

    alpha: float = 0.99
    lam: float = 1e-5
    preconditioner_input: str = "per_datum"
    smoothing: Any = None

    def __post_init__(self):
        if isinstance(self.alpha, bool) or not isinstance(self.alpha, numbers.Real) or not (0.0 < self.alpha < 1.0):
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha!r}")
        object.__setattr__(self, "lam", check_positive("lam", self.lam))
        if self.preconditioner_input not in PSGLD_CONVENTIONS:
            raise ValueError(f"preconditioner_input must be one of {PSGLD_CONVENTIONS}, got {self.preconditioner_input!r}")
        if self.smoothing is not None:
            object.__setattr__(self, "smoothing", as_smoothing_operator(self.smoothing))

    @property
    def requires_finite_gradient(self) -> bool:
        return self.smoothing is not None

    def init(self, position):
        return RMSpropState(np.zeros_like(position), None)

    def update(self, state, gradient, n):
        gbar = gradient / n if self.preconditioner_input == "per_datum" else gradient
        v = self.alpha * state.square_avg + (1.0 - self.alpha) * gbar * gbar
        if self.smoothing is None:
            return RMSpropState(v, 1.0 / (self.lam + np.sqrt(v)))
        return RMSpropState(v, 1.0 / np.sqrt(self.lam + np.sqrt(v)))

    def drift(self, state, gradient, step_size):
        if self.smoothing is None:
            return step_size * state.scale * gradient
        return step_size * state.scale * self.smoothing.apply_inverse(state.scale * gradient)

    def noise(self, state, xi, step_size, inverse_temperature):
        if self.smoothing is None:
            return np.sqrt(2.0 * step_size * state.scale / inverse_temperature) * xi
        return np.sqrt(2.0 * step_size / inverse_temperature) * state.scale * self.smoothing.apply_inverse_sqrt(xi)

    def settings(self) -> dict:
        out = {"preconditioner": "rmsprop", "alpha": self.alpha, "lam": self.lam,
               "preconditioner_input": self.preconditioner_input}
        if self.smoothing is not None:
            out.update(self.smoothing.settings())
        return out
