"""One integrator base: validated ``init``, ``step`` = errstate + update + divergence check, ``settings()``.

Every sampler of the toolkit is an integrator composed with a gradient estimator
(:mod:`sgmcmc_verify.estimators`), vectorized over chains (arrays ``(chains, d)`` float64), taking its
randomness only from the ``rng`` argument::

    state = sampler.init(position, momentum=None)
    state, info = sampler.step(state, rng)

A subclass is a frozen dataclass whose fields are its hyperparameters (``target`` first and
``name`` last); it implements

* ``_validate()`` — normalize and check its own fields (``step_size`` and ``inverse_temperature``
  are checked here for every subclass that has them);
* ``_init_state(position, momentum)`` — the initial state from a validated position;
* ``_update(state, rng) -> (state, StepInfo, arrays)`` — one step; the base raises
  :class:`~sgmcmc_verify.errors.DivergenceError` (naming the sampler, the step and :meth:`settings`) if
  some chain of ``arrays`` is non-finite.

``settings()`` is built from the fields: numbers as they are, objects with their own
``settings()`` (estimator, preconditioner, smoothing operator) merged in.
"""
from __future__ import annotations

import abc
import dataclasses
import numbers
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from ..errors import DivergenceError, check_finite_array, check_positive, nonfinite_chains

__all__ = ["Sampler", "StepInfo", "OverdampedState", "UnderdampedState", "Integrator", "UnderdampedIntegrator",
           "check_inverse_temperature", "init_position"]


class StepInfo(NamedTuple):
    """evaluations : int, per-datum gradient evaluations per chain in this step; info : dict of diagnostics."""

    evaluations: int
    info: dict


@runtime_checkable
class Sampler(Protocol):
    """What the runner, the experiments and the audit ask of a sampler (every :class:`Integrator` is one).

    Attributes
    ----------
    target : FiniteSumPotential
        With ``n`` (data passes are evaluations / n) and ``dim``.
    name : str
        Reported in results and errors.
    """

    target: Any
    name: str

    def init(self, position: np.ndarray, momentum: np.ndarray | None = None) -> Any:
        """The initial state at ``position`` ``(chains, d)``."""

    def step(self, state: Any, rng: np.random.Generator) -> tuple[Any, "StepInfo"]:
        """One step for every chain: ``(new state, StepInfo)``; raises DivergenceError on a non-finite chain."""

    def settings(self) -> dict:
        """The hyperparameters (reported in results and errors)."""


class OverdampedState(NamedTuple):
    """position : (chains, d); preconditioner_state (``None`` for the identity); estimator_state; step : int."""

    position: np.ndarray
    preconditioner_state: Any
    estimator_state: Any
    step: int


class UnderdampedState(NamedTuple):
    """position : (chains, d); momentum : (chains, d); estimator_state; step : int."""

    position: np.ndarray
    momentum: np.ndarray
    estimator_state: Any
    step: int


def check_inverse_temperature(beta) -> float:
    """``float(beta)`` if ``beta > 0`` (``np.inf`` allowed: zero temperature), else ``ValueError``."""
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not (beta > 0):
        raise ValueError(f"inverse_temperature must be > 0 (np.inf for zero temperature), got {beta!r}")
    return float(beta)


def init_position(target, position) -> np.ndarray:
    """A validated float64 copy of ``position``, which must be finite with shape ``(chains, target.dim)``, chains >= 1."""
    pos = check_finite_array("position", position)
    if pos.ndim != 2 or pos.shape[1] != target.dim:
        raise ValueError(f"position must have shape (chains, {target.dim}), got {pos.shape}")
    if pos.shape[0] < 1:
        raise ValueError(f"position must hold at least one chain, got shape {pos.shape}")
    return pos.copy()


_NOT_SETTINGS = ("target", "name")


@dataclasses.dataclass(frozen=True, eq=False)
class Integrator(abc.ABC):
    """Base of every integrator; see the module docstring for what a subclass implements."""

    def __post_init__(self):
        if hasattr(self, "step_size"):
            object.__setattr__(self, "step_size", check_positive("step_size", self.step_size))
        if hasattr(self, "inverse_temperature"):
            object.__setattr__(self, "inverse_temperature", check_inverse_temperature(self.inverse_temperature))
        self._validate()

    def _validate(self) -> None:  # noqa: B027 - an optional hook, not an abstract method
        """Normalize and check the subclass's own fields (override)."""

    def settings(self) -> dict:
        """``{"sampler": name, <hyperparameters>...}``, built from the dataclass fields."""
        out = {"sampler": self.name}
        for f in dataclasses.fields(self):
            if f.name in _NOT_SETTINGS or not f.init:
                continue
            v = getattr(self, f.name)
            if hasattr(v, "settings"):
                out.update(v.settings())
            else:
                out[f.name] = v
        return out

    def init(self, position, momentum=None):
        """Validated initial state at ``position`` ``(chains, d)`` (and ``momentum`` where it applies).

        Raises
        ------
        ValueError
            A non-finite or mis-shaped position or momentum; an estimator whose batch exceeds ``n``.
        """
        return self._init_state(init_position(self.target, position), momentum)

    def step(self, state, rng: np.random.Generator):
        """One step for every chain; returns ``(state, StepInfo)``.

        Raises
        ------
        sgmcmc_verify.errors.DivergenceError
            If some chain is non-finite after the step (naming the sampler, the step and the settings).
        """
        with np.errstate(over="ignore", invalid="ignore"):  # overflow on the way out ends in DivergenceError
            new, info, arrays = self._update(state, rng)
        bad = nonfinite_chains(*arrays)
        if bad:
            raise DivergenceError(self.name, state.step, self.settings(), bad)
        return new, info

    def advance(self, state, rng: np.random.Generator, steps: int, infos: dict | None = None):
        """``steps`` steps in one compiled call, bit-identical to ``steps`` calls of :meth:`step`:
        :func:`sgmcmc_verify.integrators.compiled.advance` (numba; SGLD / SGHMC on the unit-quadratic and mixture
        targets, underdamped EWSG in d = 2).

        Returns ``(state, evaluations per chain)``; ``infos`` (a dict), if given, receives the steps' info values
        in step order. Raises ``ValueError`` for a sampler without a kernel.
        """
        from .compiled import advance
        return advance(self, state, rng, steps, infos)

    def choose_engine(self, chains: int) -> str:
        """``"compiled"`` where the compiled kernel beats the NumPy step for ``chains`` chains, else ``"numpy"``
        (:func:`sgmcmc_verify.integrators.compiled.choose_engine`; what ``run_chains(engine="auto")`` asks)."""
        from .compiled import choose_engine
        return choose_engine(self, chains)

    def _diverged(self, state, *arrays):
        """Raise the :class:`DivergenceError` of ``state.step`` for the non-finite chains of ``arrays``."""
        raise DivergenceError(self.name, state.step, self.settings(), nonfinite_chains(*arrays))

    @abc.abstractmethod
    def _init_state(self, position, momentum):
        """The initial state at a validated ``position``."""

    @abc.abstractmethod
    def _update(self, state, rng):
        """One step: ``(new state, StepInfo, arrays whose chains must be finite)``."""


@dataclasses.dataclass(frozen=True, eq=False)
class UnderdampedIntegrator(Integrator):
    """Base of the integrators of underdamped Langevin: state ``(position, momentum)``, an estimator."""

    def _init_state(self, position, momentum):
        if momentum is None:
            mom = np.zeros_like(position)
        else:
            mom = check_finite_array("momentum", momentum)
            if mom.shape != position.shape:
                raise ValueError(f"momentum must have the shape of position {position.shape}, got {mom.shape}")
            mom = mom.copy()
        return UnderdampedState(position, mom, self.estimator.init(self.target, position), 0)
