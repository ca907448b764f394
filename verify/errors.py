"""Typed errors and input validation shared by the whole toolkit.

Bad user input raises :class:`ValueError` naming the parameter and its value; a chain that leaves
the finite numbers raises :class:`DivergenceError` naming the sampler, the step and the setting.
"""
from __future__ import annotations

import numbers
from typing import Any, Mapping

import numpy as np

__all__ = [
    "DivergenceError",
    "check_positive",
    "check_nonnegative_int",
    "check_positive_int",
    "check_finite_array",
    "check_state_finite",
]


class DivergenceError(FloatingPointError):
    """A chain produced a non-finite value (the step size is usually too large).

    Parameters
    ----------
    sampler : str
        Name of the sampler, e.g. ``"SGHMC"``.
    step : int
        Index of the first step (0-based, counted from the sampler's ``init``) after which some
        chain held a non-finite position or momentum.
    setting : mapping
        The sampler's hyperparameters (step size, friction, ...).
    n_bad_chains : int
        How many chains were non-finite at that step.

    Attributes carry the same names so callers can report or skip the setting.
    """

    def __init__(self, sampler: str, step: int, setting: Mapping[str, Any], n_bad_chains: int):
        self.sampler = sampler
        self.step = int(step)
        self.setting = dict(setting)
        self.n_bad_chains = int(n_bad_chains)
        desc = ", ".join(f"{k}={v!r}" for k, v in self.setting.items())
        super().__init__(
            f"{sampler} diverged at step {self.step}: {self.n_bad_chains} chain(s) non-finite "
            f"with {desc}; reduce the step size"
        )


def check_positive(name: str, value: Any) -> float:
    """Return ``float(value)`` or raise ``ValueError`` if it is not a finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def check_nonnegative_int(name: str, value: Any) -> int:
    """Return ``int(value)`` or raise ``ValueError`` if it is not an integer >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    return int(value)


def check_positive_int(name: str, value: Any) -> int:
    """Return ``int(value)`` or raise ``ValueError`` if it is not an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def check_finite_array(name: str, value: Any, ndim: int | None = None) -> np.ndarray:
    """Return ``value`` as a float64 array; raise ``ValueError`` if it has non-finite entries or the wrong rank."""
    arr = np.asarray(value, dtype=np.float64)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} must be finite, got {bad} non-finite entr{'y' if bad == 1 else 'ies'}")
    return arr


def check_state_finite(sampler: str, step: int, setting: Mapping[str, Any], *arrays: np.ndarray) -> None:
    """Raise :class:`DivergenceError` if any chain of any of ``arrays`` (each ``(chains, d)``) is non-finite."""
    bad = None
    for a in arrays:
        ok = np.isfinite(a).all(axis=-1)
        bad = ~ok if bad is None else (bad | ~ok)
    if bad is not None and bad.any():
        raise DivergenceError(sampler, step, setting, int(bad.sum()))
