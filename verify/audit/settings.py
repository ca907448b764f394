"""The one settings dataclass of the audit battery, at the ``smoke`` and ``default`` scales.

Step sizes are given as ``h·L`` (``L`` the largest curvature of the target) and times in units of the
target's slowest relaxation time ``1/λ_min`` of the *continuous* overdamped dynamics, so the same
settings mean the same thing on every target. Nothing here was tuned until a sampler passed: the grids
were fixed from the cost budget (``docs/benchmarks.md``) before the battery was run.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

import numpy as np

from ..store.settings import ScaledSettings

__all__ = ["AuditSettings", "AUDIT_SCALES"]

#: The scales the audit accepts (it has no ``paper`` scale: no paper defines it).
AUDIT_SCALES = ("smoke", "default")


def _geom(lo, hi, k):
    return tuple(float(x) for x in np.geomspace(lo, hi, k))


@dataclass(frozen=True)
class AuditSettings(ScaledSettings):
    """Settings of every check of :func:`sgmcmc_verify.audit.audit` (``default`` scale as field defaults).

    Attributes
    ----------
    seed : int
        Root of every ``SeedSequence`` of the battery (each check spawns its own child by name).
    block_size : int
        Realizations per joblib block (part of the random streams' definition).
    gaussian_n : int
        n of the EWSG §5.1 target ``V = Σ_i ½‖θ − c_i‖²`` (d = 2); ``L = λ_min = n``.
    anisotropic_precision : tuple of float
        ``diag P`` of the anisotropic Gaussian ``Σ_i ½(θ − c_i)ᵀP(θ − c_i)`` (condition number 4).
    consistency_hL : tuple of float
        Step sizes ``h·L`` of checks 1 (six points, a factor 20: more than a decade).
    consistency_chains : int
        Independent chains per step size (started from exact draws of the target).
    burn_in_time, sample_time : float
        Burn-in and averaging time per chain, in units of ``1/λ_min``.
    sg_hL : float
        The fixed ``h·L`` of check 2; ``sg_batch_sizes`` the batch sizes b.
    ta_hL, ta_times : tuples of float
        The (h, T) grid of check 3 (T in units of ``1/λ_min``); ``ta_chains`` realizations per point.
        The shortest T is 8/λ_min: the bound's ``C1/T`` is an asymptotic statement, and the underdamped
        samplers at γ = 15 relax on a time ``≈ 2/γ ≈ 6.7/λ_min`` on the §5.1 target.
    mixture_n, mixture_step_size, mixture_steps, mixture_chains, mixture_cells, mixture_floor_reps :
        Check 4 on HSG-HMC's 2-D mixture: N, h, steps per chain, chains (= points of each W2),
        quadrature cells per axis of the exact density, and exact-vs-exact replicates of the floor.
    stiff_precision : tuple of float
        ``diag P`` of the stiff Gaussian of check 5 (condition number 100).
    stability_hL : tuple of float
        The ``h·L`` grid scanned by check 5 (ratio 2^{1/4}); ``stability_steps`` steps and
        ``stability_chains`` chains per grid point; ``divergence_ratio`` the whitened mean square
        (over ``d``) above which a run counts as diverged.
    cost_n : tuple of int
        Data sizes of check 6; ``cost_chains``, ``cost_steps``, ``cost_repeats`` (best of).
    displacement : float
        Whitened distance (posterior standard deviations) of the displaced point-mass start of the
        twin of check 1 and of the mixing check (:mod:`~sgmcmc_verify.audit.mixing`).
    displaced_burn_in_time : float
        Burn-in from the displaced start, in units of ``1/λ_min``: the slowest toolkit sampler (underdamped,
        γ = 15, on the anisotropic target) relaxes at ≈ 0.07 λ_min, leaving ``8·e^{−4.2} ≈ 0.1`` s.d.
    displaced_chains : int
        Chains of check 1's displaced-start twin (at the largest h of its grid).
    mixing_hL, mixing_time, mixing_chains :
        The mixing check: ``h·L``, the sample window (units of ``1/λ_min``; 2000 holds ≥ 50 integrated
        autocorrelation times of the underdamped samplers at γ = 15, τ ≈ 30/λ_min; smoke's 800 holds 26 of
        them, and 9 of HMC's with 5 leapfrog steps, τ ≈ 60–90/λ_min: above the warning level of 5)
        and the chains per ensemble (emcee averages the autocorrelation over them; 16 at smoke scale: the
        z of the law comparison is t-distributed with 15 degrees of freedom, P(|t| > 6) ≈ 2e-5).
    mixture_displacement : float
        Check 4's chains start from exact draws moved by this much perpendicular to ``ā`` (within
        their mode); a sampler whose final W2 is not below half the start's is flagged.
    """

    seed: int = 20261123
    block_size: int = 1000
    gaussian_n: int = 50
    anisotropic_precision: tuple = (1.0, 0.25)
    consistency_hL: tuple = _geom(2e-3, 4e-2, 6)
    consistency_chains: int = 2000
    burn_in_time: float = 3.0
    sample_time: float = 20.0
    sg_hL: float = 0.02
    sg_batch_sizes: tuple = (1, 2, 5, 10, 25, 50)
    ta_hL: tuple = _geom(5e-3, 4e-2, 4)
    ta_times: tuple = (8.0, 32.0, 128.0)
    ta_chains: int = 1000
    mixture_n: int = 500
    mixture_step_size: float = 0.05
    mixture_steps: int = 4000
    mixture_chains: int = 1000
    mixture_cells: int = 400
    mixture_floor_reps: int = 20
    stiff_precision: tuple = (1.0, 0.01)
    stability_hL: tuple = tuple(float(2.0 ** (k / 4)) for k in range(-8, 13))
    stability_steps: int = 2000
    stability_chains: int = 32
    divergence_ratio: float = 1e6
    cost_n: tuple = (100, 1000, 10_000, 100_000)
    cost_chains: int = 1000
    cost_steps: int = 300
    cost_repeats: int = 3
    displacement: float = 8.0
    displaced_burn_in_time: float = 60.0
    displaced_chains: int = 500
    mixing_hL: float = 0.08
    mixing_time: float = 2000.0
    mixing_chains: int = 32
    mixture_displacement: float = 2.0

    SCALE_OVERRIDES: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "smoke": {"consistency_hL": _geom(4e-3, 8e-2, 6), "consistency_chains": 500, "sample_time": 10.0,
                  "block_size": 500, "sg_batch_sizes": (1, 5, 25), "ta_hL": _geom(1e-2, 4e-2, 3),
                  "ta_times": (8.0, 32.0, 64.0), "ta_chains": 300, "mixture_steps": 1000, "mixture_chains": 300,
                  "mixture_cells": 200, "mixture_floor_reps": 10, "stability_steps": 500, "stability_chains": 8,
                  "cost_n": (100, 1000, 10_000), "cost_chains": 200, "cost_steps": 100, "cost_repeats": 2,
                  "displaced_chains": 125, "mixing_chains": 16, "mixing_time": 800.0},
    }

    @classmethod
    def at(cls, scale: str):
        """The settings at ``scale`` (``smoke`` or ``default``).

        Raises
        ------
        ValueError
            Any other scale (names the parameter).
        """
        if scale not in AUDIT_SCALES:
            raise ValueError(f"scale must be one of {', '.join(AUDIT_SCALES)}, got {scale!r}")
        return super().at(scale)
