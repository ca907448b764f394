"""The first-order exponential (OU) integrator of SG-UL-MCMC / HSG-HMC, eqs. (4)–(6).

One step freezes the gradient estimate ``g = ĝ(x_k)`` and moves ``(x, v)`` by the exact flow of
the linear SDE (8) over time η (Lemma 1)::

    x' = x + γ⁻¹(1 − e^{−γη}) v − u γ⁻²(γη + e^{−γη} − 1) g + ε_x          (4)
    v' = e^{−γη} v − u γ⁻¹(1 − e^{−γη}) g + ε_v                           (5)

with ``(ε_x, ε_v)`` drawn *jointly* per coordinate from the 2×2 covariance (6), scaled by ``1/β``
(``β = 1`` in the paper). As every sampler of the toolkit, it is the composition of this
integrator with a gradient estimator from :mod:`sgmcmc_verify.estimators`: with
:class:`~sgmcmc_verify.estimators.UniformMinibatch` it is SG-UL-MCMC (Cheng et al. 2017), with the full
gradient it is UL-MCMC; HSG-HMC is this integrator with the hybrid estimator (7).

The coefficients are computed once, without cancellation for tiny ``γη``, by
:mod:`sgmcmc_verify.analytic.ou_integrator`.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: dynamics (3), eqs. (4)–(6), Lemma 1 / SDE (8),
Remark 2 (u = 1 and γ with ``e^{−γη} = 0.9``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sgmcmc_verify.analytic.ou_integrator import OUCoefficients, ou_noise_cholesky, ou_step_coefficients

from ..errors import check_positive
from ..estimators.base import StepContext
from ..estimators.minibatch import UniformMinibatch
from .base import StepInfo, UnderdampedIntegrator, UnderdampedState

__all__ = ["ExponentialIntegrator", "friction_for_decay", "REMARK2_DECAY"]

#: Remark 2: "γ is chosen to make e^{−γη} = 0.9".
REMARK2_DECAY = 0.9


def friction_for_decay(eta, decay=REMARK2_DECAY) -> float:
    """Friction ``γ`` with ``e^{−γη} = decay`` (HSG-HMC Remark 2 uses ``decay = 0.9``).

    Parameters
    ----------
    eta : float
        Step size ``η`` > 0.
    decay : float, default 0.9
        Velocity decay per step ``e^{−γη}``, in (0, 1).

    Returns
    -------
    float
        ``γ = −log(decay) / η`` > 0.

    Raises
    ------
    ValueError
        If ``eta`` is not a finite number > 0 or ``decay`` is not in (0, 1).

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``, Remark 2.

    Examples
    --------
    >>> bool(np.isclose(np.exp(-friction_for_decay(0.01) * 0.01), 0.9))
    True
    """
    h = check_positive("eta", eta)
    if isinstance(decay, bool) or not isinstance(decay, (int, float, np.floating)) or not (0.0 < decay < 1.0):
        raise ValueError(f"decay must be a number in (0, 1), got {decay!r}")
    return -math.log(float(decay)) / h


@dataclass(frozen=True, eq=False)
class ExponentialIntegrator(UnderdampedIntegrator):
    """Underdamped Langevin (3) by the exponential integrator (4)–(6), gradient from an estimator.

    Parameters
    ----------
    target : FiniteSumPotential
        ``f = V`` with ``n``, ``dim`` and the per-datum gradients the estimator needs.
    step_size : float
        ``η`` > 0.
    friction : float or None, default None
        ``γ`` > 0 (the paper's viscosity). ``None`` means Remark 2's choice
        ``e^{−γη} = 0.9`` (:func:`friction_for_decay`).
    estimator : gradient estimator, default ``UniformMinibatch(1)`` (SG-UL-MCMC, b = 1)
    u : float, default 1
        Inverse mass ``u`` > 0 (Remark 2: fixed to 1). The stationary velocity law is ``N(0, u I)``.
    inverse_temperature : float, default 1
        ``β`` > 0; the noise covariance (6) is divided by β. ``np.inf`` gives the noiseless flow.
    name : str, default "SG-UL-MCMC"
        Reported in errors and results.

    Raises
    ------
    ValueError
        Non-positive or non-finite ``step_size``, ``friction``, ``u``; non-positive
        ``inverse_temperature``; at ``init``, non-finite or mis-shaped position or momentum, or
        ``batch_size > n``.

    Notes
    -----
    Per step, with ``g = ĝ(x_k)`` (``(chains, d)``) and ``ξ₁, ξ₂`` independent ``(chains, d)``
    standard normals::

        x' = x + c.x_from_v v + c.x_from_g g + L₁₁ ξ₁
        v' = c.v_decay v + c.v_from_g g + L₂₁ ξ₁ + L₂₂ ξ₂

    with ``c`` = :func:`~sgmcmc_verify.analytic.ou_integrator.ou_step_coefficients` and ``L`` the Cholesky
    factor (:func:`~sgmcmc_verify.analytic.ou_integrator.ou_noise_cholesky`) of (6), divided by √β. The estimator
    receives ``StepContext(momentum=v_k, step_size=η, friction=γ, noise_scale=√(2γu/β))``, the
    diffusion coefficient of (3). Cost: what the estimator spends; the integrator adds O(chains·d).

    References
    ----------
    HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: eqs. (3)–(6), Lemma 1, Remark 2.

    Examples
    --------
    >>> from sgmcmc_verify.targets import gaussian_means_target
    >>> s = ExponentialIntegrator(gaussian_means_target(), step_size=0.01)
    >>> bool(np.isclose(np.exp(-s.friction * s.step_size), 0.9))
    True
    >>> state, info = s.step(s.init(np.zeros((3, 2))), np.random.default_rng(0))
    >>> state.position.shape, info.evaluations
    ((3, 2), 1)
    """

    target: Any
    step_size: float
    friction: float | None = None
    estimator: Any = field(default_factory=UniformMinibatch)
    u: float = 1.0
    inverse_temperature: float = 1.0
    name: str = "SG-UL-MCMC"
    coefficients: OUCoefficients = field(init=False, repr=False)
    noise_cholesky: np.ndarray = field(init=False, repr=False)

    def _validate(self):
        h = self.step_size
        gam = friction_for_decay(h) if self.friction is None else check_positive("friction", self.friction)
        object.__setattr__(self, "friction", gam)
        object.__setattr__(self, "u", check_positive("u", self.u))
        if not math.isfinite(gam * h):
            raise ValueError(f"friction * step_size must be finite, got friction={gam!r}, step_size={h!r}")
        object.__setattr__(self, "coefficients", ou_step_coefficients(gam, h, self.u))
        L = ou_noise_cholesky(gam, h, self.u) / math.sqrt(self.inverse_temperature)
        L.setflags(write=False)
        object.__setattr__(self, "noise_cholesky", L)

    @property
    def noise_scale(self) -> float:
        """Diffusion coefficient ``√(2γu/β)`` of (3)."""
        return math.sqrt(2.0 * self.friction * self.u / self.inverse_temperature)

    def _update(self, state, rng):
        c, L = self.coefficients, self.noise_cholesky
        ctx = StepContext(state.momentum, self.step_size, self.friction, self.noise_scale)
        est = self.estimator(state.estimator_state, rng, self.target, state.position, ctx)
        x, v, g = state.position, state.momentum, est.gradient
        # x + c_xv v + c_xg g and c_vv v + c_vg g (+ L ξ), each operation as written, in arrays this step owns
        pos = np.multiply(v, c.x_from_v)
        pos += x
        t = np.multiply(g, c.x_from_g)
        pos += t
        mom = np.multiply(v, c.v_decay)
        np.multiply(g, c.v_from_g, out=t)
        mom += t
        if np.isfinite(self.inverse_temperature):
            xi = rng.standard_normal((2,) + x.shape)
            np.multiply(xi[0], L[0, 0], out=t)
            pos += t
            np.multiply(xi[0], L[1, 0], out=t)
            mom += t
            np.multiply(xi[1], L[1, 1], out=t)
            mom += t
        return (UnderdampedState(pos, mom, est.state, state.step + 1), StepInfo(est.evaluations, est.info),
                (pos, mom))
