"""Input validation shared by every layer: the bottom of the package graph.

Bad input raises :class:`ValueError` naming the parameter and the bad value. These helpers live in
:mod:`sgmcmc_verify.analytic` (which imports nothing else of the project) so that every other package can use
them without an import cycle; :mod:`sgmcmc_verify.errors` re-exports them next to the typed divergence
error.
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["check_positive", "check_nonnegative_int", "check_positive_int", "check_finite_array"]


def check_positive(name: str, value: Any) -> float:
    """Return ``float(value)`` or raise ``ValueError`` if it is not a finite number > 0.

    Examples
    --------
    >>> check_positive("step_size", 0.1)
    0.1
    """
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
