"""EWSG-VR: the EWSG index chain with a periodically calibrated, SVRG-updated variance correction (Algorithm 2).

The extra variance ``h² cov[n∇V_I(θ_k)]`` that a stochastic gradient adds to the momentum (13) is
compensated by a larger friction, ``Γ_k = (σ² I + h cov[n∇V_I(θ_{k−1})]) / (2T)``, ``σ² = 2γT``.
The covariance is computed exactly from a full data pass every ``L`` data passes (the "variance
calibration") and, between calibrations, updated "in an SVRG fashion" from the index each step
selects (Algorithm 2, lines 16–19).

Because the friction enters EWSG eq. (3) as ``r' = r − h(ĝ + Γ_k r) + σ√h ξ``, the estimator returns
the effective force ``ĝ + (Γ_k − γI) r_k``: composed with the unchanged
:class:`~sgmcmc_verify.integrators.UnderdampedEM` at friction γ, one step is exactly eq. (3) with
``ĝ = n∇V_I`` as gradient and ``Γ_k`` as friction, as Algorithm 2 line 15 states.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: Appendix F, eq. (13), the friction ``Γ_k``, Algorithm 2,
Figures 4 and 5; Algorithm 1 and eq. (6) for the index chain.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..errors import check_positive_int
from .base import GradientEstimate, StepContext, check_batch
from .ewsg import EWSGIndexChain

__all__ = ["EWSGVRState", "EWSGVarianceReduced", "PERIOD_UNITS", "X_FRICTIONS", "calibration_moments"]

#: Units of the calibration period: data passes of the inner loop (Algorithm 2's L) or steps.
PERIOD_UNITS = ("passes", "steps")
#: Which friction the hyperparameter x of the index chain sees (see :class:`EWSGVarianceReduced`).
X_FRICTIONS = ("base", "step")


class EWSGVRState(NamedTuple):
    """State of :class:`EWSGVarianceReduced`, per chain.

    m1 : (chains, d) ndarray or None
        Estimate of ``E_I[n∇V_I(θ)] = Σ_j ∇V_j(θ)`` (data terms; the prior adds no variance).
    m2 : (chains, d, d) ndarray or None
        Estimate of ``E_I[n²∇V_I∇V_Iᵀ] = n Σ_j ∇V_j∇V_jᵀ``.
    snapshot_gradients : (chains, n, d) ndarray or None
        ``∇V_j(ω)`` for every j at the last calibration point ω (kept, so the SVRG corrections of
        lines 16–17 cost no evaluations).
    extra_friction : (chains, d, d) ndarray or None
        ``Γ_k − γI = (h/2T) covar`` for the next step (``None`` before the first step: ``Γ_0 = γ``).
    since_calibration : int
        Steps since the last calibration.
    """

    m1: np.ndarray | None
    m2: np.ndarray | None
    snapshot_gradients: np.ndarray | None
    extra_friction: np.ndarray | None
    since_calibration: int


def calibration_moments(target, position):
    """The full-pass moments of Algorithm 2 line 6 at ``position``: ``(m1, m2, per-datum gradients)``.

    Parameters
    ----------
    target : FiniteSumPotential
    position : (chains, d) ndarray

    Returns
    -------
    m1 : (chains, d) ndarray
        ``Σ_j ∇V_j(θ) = E_I[n∇V_I(θ)]`` for I uniform on [n].
    m2 : (chains, d, d) ndarray
        ``n Σ_j ∇V_j(θ)∇V_j(θ)ᵀ = E_I[n²∇V_I∇V_Iᵀ]``.
    gradients : (chains, n, d) ndarray
        ``∇V_j(θ)`` for every datum (``n`` evaluations per chain).

    Notes
    -----
    ``m2 − m1 m1ᵀ`` is the covariance of the one-sample gradient ``n∇V_I`` under uniform I.
    """
    chains, n = position.shape[0], target.n
    G = target.data_gradients(position, np.broadcast_to(np.arange(n), (chains, n)))
    return G.sum(axis=1), n * np.matmul(G.transpose(0, 2, 1), G), G


@dataclass(frozen=True)
class EWSGVarianceReduced:
    """EWSG-VR (EWSG Appendix F, Algorithm 2): the index chain (6) with a variance-corrected friction.

    Every step: the index chain of ``index_chain`` selects a minibatch ``I`` (Algorithm 1); the
    returned force is ``ĝ_I + (Γ_k − γI) r_k``; then the moment estimates are updated with the
    selected indices (lines 16–17, for b = 1; for b > 1 summed over the minibatch)::

        m1 ← m1 + Σ_{j∈I} (∇V_j(θ_k) − ∇V_j(ω)),
        m2 ← m2 + n Σ_{j∈I} (∇V_j(θ_k)∇V_j(θ_k)ᵀ − ∇V_j(ω)∇V_j(ω)ᵀ),
        covar = m2 − m1 m1ᵀ,   Γ_{k+1} = (σ² I + (h/b) covar) / (2T),   T = σ²/(2γ),

    with ``ω`` the point of the last calibration, where ``m1, m2`` are computed exactly from all n
    data (:func:`calibration_moments`). ``Γ_0 = γ I`` (line 2).

    Parameters
    ----------
    index_chain : EWSGIndexChain, default ``EWSGIndexChain(1)``
        ``M``, ``b`` and the choice of x (Algorithm 1).
    calibration_period : int, default 1
        ``L`` >= 1 (Appendix F uses L = 1), in ``period_unit``.
    period_unit : {"passes", "steps"}, default "passes"
        ``"passes"``: a calibration before every ``L`` inner loops of ``⌈n/((M+1)b)⌉`` steps (one data
        pass of the index chain each, Algorithm 2 line 8); ``"steps"``: a calibration every ``L`` steps.
        With ``"steps"`` and L = 1 the covariance is exact at every step (the SVRG corrections vanish
        at ω = θ_k): the exact-variance reference.
    x_friction : {"base", "step"}, default "base"
        ``"base"``: x of eq. (6) as printed, from γ (``x = √h γ r_k/σ`` for the recommended choice);
        ``"step"``: x of the kernel actually used, with friction ``Γ_k``
        (``x = √h Γ_k r_k/σ``), i.e. every candidate's force ``ĝ_J + (Γ_k − γI) r_k`` enters (6).
        Algorithm 2 does not say which; both are run in the experiments.

    Raises
    ------
    ValueError
        ``index_chain`` not an :class:`EWSGIndexChain`; ``calibration_period`` not an integer >= 1;
        unknown ``period_unit`` or ``x_friction``; at ``init``, ``batch_size > n``; at a step, a
        context without momentum and friction (EWSG-VR is defined on underdamped Langevin only).

    Notes
    -----
    **Gradient evaluations counted** (per chain): ``(M + 1) b`` per step, as Algorithm 1 (each index
    of the chain costs one per-datum gradient, "compute and store"), plus ``n`` at every
    calibration (a full data pass). The SVRG corrections cost nothing more: ``∇V_j(θ_k)`` of the
    selected indices were computed by the index chain (we recompute them for simplicity and do
    not count them again), and ``∇V_j(ω)`` are kept from the calibration (memory ``n·d`` per chain).
    With L = 1 pass, M = 1, b = 1 a period costs ``n + 2⌈n/2⌉`` evaluations, i.e. two data passes for
    one pass of integration.

    Reading of Algorithm 2: as printed, line 5's ``if (l − 1) mod L = 0`` calibrates *instead of*
    running the inner loop (``else``), which with the paper's L = 1 would never integrate; we
    calibrate and then run the inner loop, i.e. a calibration before every L inner loops. The
    snapshot ω of lines 16–17 is not defined in the text; we take the calibration point (SVRG). The
    estimate ``covar`` is not guaranteed positive semi-definite between calibrations (an index drawn
    twice is corrected twice, as the printed update does); it is used as it is.

    What EWSG already does: to first order in h, the weights (4) with the recommended
    ``x = √h γ r_k/σ`` shift the selected gradient by ``(√h/σ) cov[n∇V_I] x = (h/2T) cov[n∇V_I] r_k``, which is
    exactly the correction ``(Γ_k − γI) r_k`` added here; one Metropolis step from a uniform start
    (M = 1) already realizes this first-order term. EWSG-VR with M >= 1 therefore applies the correction
    about twice at small h (``sgmcmc_verify.paper_repro.ewsg.appendix.ewsg_selection_friction`` measures the share
    EWSG's chain applies; 0.45 at h = 0.005 on §5.1's target, → 1 as h → 0); with M = 0 the correction
    is applied once.

    Stability: EM's momentum update is stable only if ``h λ_max(Γ_k)`` is below about 2. On EWSG
    §5.1's target (n = 50, tr cov ≈ 5000) at the paper's h = 0.05, ``Γ ≈ 10 + 0.025·3000``, so
    ``hΓ ≈ 4.3``: the linear recursion has spectral radius 3.27 and every chain diverges (reported
    by :class:`~sgmcmc_verify.errors.DivergenceError`).

    References
    ----------
    EWSG, seed ``000_8e0377c44e2ea3b8.txt``: Appendix F, eq. (13), Algorithm 2.

    Examples
    --------
    >>> from sgmcmc_verify.targets import gaussian_means_target
    >>> from sgmcmc_verify.integrators import UnderdampedEM
    >>> s = UnderdampedEM(gaussian_means_target(), 5e-3, 10.0, EWSGVarianceReduced(), name="EWSG-VR")
    >>> state, info = s.step(s.init(np.zeros((3, 2)), np.zeros((3, 2))), np.random.default_rng(0))
    >>> info.evaluations          # a calibration pass (n = 50) and the index chain (M + 1 = 2)
    52
    """

    index_chain: EWSGIndexChain = field(default_factory=EWSGIndexChain)
    calibration_period: int = 1
    period_unit: str = "passes"
    x_friction: str = "base"

    def __post_init__(self):
        if not isinstance(self.index_chain, EWSGIndexChain):
            raise ValueError(f"index_chain must be an EWSGIndexChain, got {self.index_chain!r}")
        check_positive_int("calibration_period", self.calibration_period)
        if self.period_unit not in PERIOD_UNITS:
            raise ValueError(f"period_unit must be one of {PERIOD_UNITS}, got {self.period_unit!r}")
        if self.x_friction not in X_FRICTIONS:
            raise ValueError(f"x_friction must be one of {X_FRICTIONS}, got {self.x_friction!r}")

    @property
    def batch_size(self) -> int:
        return self.index_chain.batch_size

    def period_steps(self, n: int) -> int:
        """Steps between calibrations: ``L⌈n/((M+1)b)⌉`` (passes) or ``L`` (steps)."""
        if self.period_unit == "steps":
            return self.calibration_period
        return self.calibration_period * math.ceil(n / self.index_chain.evaluations_per_step)

    def init(self, target, position, rng=None) -> EWSGVRState:
        check_batch(target, "batch_size", self.batch_size)
        return EWSGVRState(None, None, None, None, self.period_steps(target.n))

    def __call__(self, state: EWSGVRState, rng, target, position, context=StepContext()):
        r, gam = context.momentum, context.friction
        if r is None or gam is None:
            raise ValueError("EWSGVarianceReduced needs the momentum and friction of an underdamped integrator "
                             "(Algorithm 2 corrects the friction of EWSG eq. (3))")
        chain, n, chains = self.index_chain, target.n, position.shape[0]
        evals = chain.evaluations_per_step
        m1, m2, snap, extra, since = state
        calibrated = since >= self.period_steps(n)
        if calibrated:
            m1, m2, snap = calibration_moments(target, position)
            since, evals = 0, evals + n
        x, scale = chain.context_values(context, position)
        force = np.zeros_like(position) if extra is None else np.einsum("cde,ce->cd", extra, r)
        idx, g, accepted = chain.select(rng, target, position, x + scale * force if self.x_friction == "step" else x,
                                        scale)
        cur = target.data_gradients(position, idx)                        # (chains, b, d)
        old = snap[np.arange(chains)[:, None], idx]                       # (chains, b, d)
        m1 = m1 + (cur - old).sum(axis=1)
        m2 = m2 + n * (np.matmul(cur.transpose(0, 2, 1), cur) - np.matmul(old.transpose(0, 2, 1), old))
        covar = m2 - m1[:, :, None] * m1[:, None, :]
        h, sig = context.step_size, context.noise_scale
        # Γ_{k+1} − γI = (h/b) covar / (2T), T = σ²/(2γ)
        new_extra = (h * gam / (sig * sig * self.batch_size)) * covar
        info = {"calibration": float(calibrated)}
        if chain.index_chain_length:
            info["acceptance_rate"] = accepted / (chain.index_chain_length * chains)
        return GradientEstimate(g + force, evals, EWSGVRState(m1, m2, snap, new_extra, since + 1), info)

    def settings(self) -> dict:
        return {**self.index_chain.settings(), "estimator": "ewsg_vr", "calibration_period": self.calibration_period,
                "period_unit": self.period_unit, "x_friction": self.x_friction}
