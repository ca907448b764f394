"""Typed errors and input validation shared by the whole toolkit.

Bad user input raises :class:`ValueError` naming the parameter and its value (the ``check_*``
helpers, defined in :mod:`sgmcmc_verify.analytic.validation` at the bottom of the package graph and re-exported
here); a chain that leaves the finite numbers raises :class:`DivergenceError` naming the sampler,
the step and the setting; a stored result that is unreadable, truncated or does not match the
SHA-256 its manifest recorded raises :class:`ResultFileError` naming the file and the repair.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from sgmcmc_verify.analytic.validation import check_finite_array, check_nonnegative_int, check_positive, check_positive_int

__all__ = [
    "DivergenceError",
    "ResultFileError",
    "CloseCallError",
    "check_positive",
    "check_nonnegative_int",
    "check_positive_int",
    "check_finite_array",
    "check_state_finite",
    "nonfinite_chains",
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

    def __reduce__(self):
        # rebuilt from its fields, so that it survives the trip back from a joblib worker process
        return (type(self), (self.sampler, self.step, self.setting, self.n_bad_chains))


class CloseCallError(ArithmeticError):
    """A compiled kernel met a decision it cannot take with the NumPy step's bits (EWSG's ``log u < Δ`` within a few
    ulps of the threshold, where libm's ``log`` and NumPy's may round differently; about 10⁻¹⁵ a draw).

    Raised by :func:`sgmcmc_verify.integrators.compiled.advance` with the generator restored to where the call
    found it and the input state untouched: the caller runs the same steps with the NumPy step instead
    (:func:`sgmcmc_verify.runner.run_chains` does), and the numbers are those of the NumPy step.

    Parameters
    ----------
    sampler : str
        The sampler's name.
    step : int
        The step (counted from the call's start) at which the close decision came.
    """

    def __init__(self, sampler, step):
        self.sampler, self.step = sampler, step
        super().__init__(f"{sampler}: an acceptance test at step {step} of a compiled call is too close to call with "
                         "libm's log; rerun these steps with the NumPy step")

    def __reduce__(self):
        return (type(self), (self.sampler, self.step))


class ResultFileError(ValueError):
    """A stored result file (CSV, JSON, manifest) is unreadable, truncated, or not what its manifest recorded.

    Parameters
    ----------
    path : str or path-like
        The file.
    reason : str
        What is wrong with it (e.g. ``"SHA-256 differs from the manifest"``, ``"no data rows"``).
    remedy : str, default ""
        How to repair it (e.g. the ``sgmcmc-verify run <id> --force`` command).

    The message is ``"<path>: <reason>; <remedy>"``; the attributes carry the same names.

    Examples
    --------
    >>> str(ResultFileError("results/ewsg/fig1a.csv", "no data rows", "rerun with --force"))
    'results/ewsg/fig1a.csv: no data rows; rerun with --force'
    """

    def __init__(self, path, reason: str, remedy: str = ""):
        self.path = str(path)
        self.reason = reason
        self.remedy = remedy
        super().__init__(f"{self.path}: {reason}" + (f"; {remedy}" if remedy else ""))

    def __reduce__(self):
        return (type(self), (self.path, self.reason, self.remedy))


def nonfinite_chains(*arrays: np.ndarray) -> int:
    """Number of chains (rows) holding a non-finite entry in any of ``arrays``, each ``(chains, ...)``.

    Examples
    --------
    >>> nonfinite_chains(np.array([[0.0, 1.0], [np.nan, 0.0]]), np.zeros((2, 2)))
    1
    """
    if all(np.isfinite(a).all() for a in arrays):  # the common case: one pass, no per-chain reduction
        return 0
    bad = None
    for a in arrays:
        ok = np.isfinite(a).reshape(a.shape[0], -1).all(axis=1)
        bad = ~ok if bad is None else (bad | ~ok)
    return int(bad.sum())


def check_state_finite(sampler: str, step: int, setting: Mapping[str, Any], *arrays: np.ndarray) -> None:
    """Raise :class:`DivergenceError` if any chain of any of ``arrays`` (each ``(chains, d)``) is non-finite."""
    bad = nonfinite_chains(*arrays)
    if bad:
        raise DivergenceError(sampler, step, setting, bad)
