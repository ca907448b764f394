"""Integrators: how a step moves the chains, given a gradient estimate. One base for all of them.

===================  ==================================================================================
module               contents
===================  ==================================================================================
``base``             the :class:`Sampler` protocol; :class:`Integrator` (validated init; step = errstate +
                     update + divergence check; settings from the fields), :class:`StepInfo`, the states
``overdamped``       :class:`OverdampedEM`: ``x' = x − hDĝ + √(2h/β)Rξ`` (SGLD, pSGLD, SVRG-LD, LS-SGLD ...)
``preconditioners``  ``(D, R)``: :class:`IdentityPreconditioner`, :class:`LaplacianPreconditioner` (LS-SGLD
                     (2.5)), :class:`RMSpropPreconditioner` (pSGLD; both conventions; ± smoothing)
``smoothing``        the operators ``A_σ``: :class:`PeriodicSmoothing` (FFT, eq. (2.1)),
                     :class:`MatrixSmoothing`, :func:`paper_2d_smoothing` (eq. (4.1))
``underdamped``      :class:`UnderdampedEM`: EWSG eq. (3) (SGHMC, EWSG, FG)
``exponential``      :class:`ExponentialIntegrator`: HSG-HMC eqs. (4)–(6) (SG-UL-MCMC, HSG-HMC, SRVR-HMC)
``metropolis``       :class:`HMC`, :class:`MALA`: exact references (Metropolis-corrected)
===================  ==================================================================================
"""
from .base import (Integrator, OverdampedState, Sampler, StepInfo, UnderdampedIntegrator, UnderdampedState,
                   check_inverse_temperature, init_position)
from .exponential import REMARK2_DECAY, ExponentialIntegrator, friction_for_decay
from .metropolis import HMC, MALA, MCMCState
from .overdamped import OverdampedEM
from .preconditioners import (PSGLD_CONVENTIONS, IdentityPreconditioner, LaplacianPreconditioner, RMSpropPreconditioner,
                              RMSpropState)
from .smoothing import MatrixSmoothing, PeriodicSmoothing, as_smoothing_operator, paper_2d_smoothing
from .underdamped import UnderdampedEM

__all__ = ["Sampler", "Integrator", "UnderdampedIntegrator", "StepInfo", "OverdampedState", "UnderdampedState", "MCMCState",
           "check_inverse_temperature", "init_position", "OverdampedEM", "UnderdampedEM", "ExponentialIntegrator",
           "friction_for_decay", "REMARK2_DECAY", "HMC", "MALA", "IdentityPreconditioner", "LaplacianPreconditioner",
           "RMSpropPreconditioner", "RMSpropState", "PSGLD_CONVENTIONS", "PeriodicSmoothing", "MatrixSmoothing",
           "paper_2d_smoothing", "as_smoothing_operator"]
