"""Settings of EWSG §5.1 (Figure 1) as frozen dataclasses, one per experiment, at three scales.

``paper`` is the published setting (10,000 realizations, 30 data passes, minibatch 1, γ = 10,
h = 5e-3 SGLD/pSGLD, 5e-2 SGHMC/EWSG, 5e-4 SVRG-LD, h = 7e-2 for the x panel, M ∈ {0, 1, 9, 19}).
``default`` is what ``make figures`` runs: identical to ``paper`` for this study (it fits in a few
minutes). ``smoke`` keeps every panel's shape with fewer realizations and shorter grids, for
tests and CI.

Choices the text leaves open, and ours
--------------------------------------
* Initial law for Figs 1a–1c: ``θ_0 ~ N(0, I₂)``, ``r_0 ~ N(0, I₂)`` independently per realization
  (the text does not say; a spread initial law keeps the ensemble covariance, hence KL, finite
  from pass 0).
* Theorem 4.3 panels (1d–1f): ``θ_0 ~ π`` exactly, ``r_0 ~ N(0, I)``: starting at the invariant law
  of the continuous dynamics removes the O(1/T²) initial-transient part of the MSE and leaves the
  three terms of eq. (5).
* Test function "variance": ``φ(θ) = ‖θ − μ‖²`` with μ the exact posterior mean; its exact
  posterior average is ``φ̄ = tr Σ = d/n = 0.04``.
* The grids of h and T for 1d–1f are fixed here before running (they are not printed in the
  paper): 1d at h = 1e-3 (small enough that C3 h² is far below C1/T over the T range), 1e at T = 4,
  1f at T = 128 with h from 5e-3 to 8e-2 ("even for large h").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from verify.store.settings import ScaledSettings

__all__ = ["KLPanelSettings", "Fig1aSettings", "Fig1bSettings", "Fig1cSettings", "Theorem43Settings"]

@dataclass(frozen=True)
class _Section51(ScaledSettings):
    """The §5.1 target and the ensemble of realizations every Figure 1 panel uses."""

    n_data: int = 50
    dim: int = 2
    friction: float = 10.0
    seed: int = 20210501
    realizations: int = 10_000
    block_size: int = 1_000
    SCALE_OVERRIDES: ClassVar[dict] = {"smoke": {"realizations": 1_000, "block_size": 500}}


@dataclass(frozen=True)
class KLPanelSettings(_Section51):
    """What Figs. 1a–1c share: the budget in data passes and the checkpoints."""

    passes: float = 30.0
    checkpoint_every: float = 0.5  # data passes
    SCALE_OVERRIDES: ClassVar[dict] = {"smoke": {**_Section51.SCALE_OVERRIDES["smoke"], "passes": 10.0,
                                                 "checkpoint_every": 1.0}}


@dataclass(frozen=True)
class Fig1aSettings(KLPanelSettings):
    """Fig. 1a: the five methods at their published step sizes."""

    step_sizes: dict = field(default_factory=lambda: {"SGLD": 5e-3, "pSGLD": 5e-3, "SGHMC": 5e-2,
                                                      "EWSG": 5e-2, "SVRG-LD": 5e-4})


@dataclass(frozen=True)
class Fig1bSettings(KLPanelSettings):
    """Fig. 1b: EWSG (M = 1) with the four choices of x at h = 0.07."""

    step_size: float = 7e-2
    x_choices: tuple = ("recommended", "zero", "one", "momentum_reset")


@dataclass(frozen=True)
class Fig1cSettings(KLPanelSettings):
    """Fig. 1c: EWSG with index chains of length M at h = 0.05 (the journal text gives no h)."""

    step_size: float = 5e-2
    index_chain_lengths: tuple = (0, 1, 9, 19)


@dataclass(frozen=True)
class Theorem43Settings(_Section51):
    """Figs. 1d–1f: MSE of the time average vs T, vs h at fixed T, long-run vs h (EWSG M = 1)."""

    d_step: float = 1e-3
    d_times: tuple = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
    d_fit_min_time: float = 2.0   # fit window T >= this (T much larger than the relaxation time ~0.2)
    e_time: float = 4.0
    e_steps: tuple = (2.5e-4, 5e-4, 1e-3, 2e-3, 4e-3, 8e-3)
    f_time: float = 128.0
    f_steps: tuple = (5e-3, 1e-2, 2e-2, 4e-2, 8e-2)
    trace_chains: int = 200       # chains on which Tr cov(n∇V_I | F_k) is computed exactly
    trace_checkpoints: int = 10
    n_boot: int = 1000
    SCALE_OVERRIDES: ClassVar[dict] = {"smoke": {
        **_Section51.SCALE_OVERRIDES["smoke"], "d_times": (1.0, 2.0, 4.0, 8.0), "d_fit_min_time": 1.0,
        "e_time": 2.0, "e_steps": (1e-3, 2e-3, 4e-3, 8e-3), "f_time": 32.0, "f_steps": (1e-2, 2e-2, 4e-2),
        "trace_chains": 50, "trace_checkpoints": 4, "n_boot": 300}}
