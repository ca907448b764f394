"""Laplacian-smoothing operators ``A_σ`` of LS-SGLD as objects: the periodic circulant by FFT, or a dense matrix.

An operator offers ``apply_inverse(v)`` and ``apply_inverse_sqrt(v)`` for ``v`` of shape
``(chains, d)``, the dense ``matrix(d)``, ``inverse_matrix(d)`` and ``inverse_sqrt_matrix(d)`` (for
exact laws), and ``settings()``. The formulas are in :mod:`sgmcmc_verify.analytic.laplacian`.

References
----------
Seed ``004_8438bd4b543e0fc4.txt``: eq. (2.1), Lemma 2.5, eqs. (2.7)–(2.8), eq. (4.1).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from sgmcmc_verify.analytic.laplacian import apply_inverse, apply_inverse_sqrt, check_smoothing, paper_matrix_2d, smoothing_matrix

from ..errors import check_finite_array, check_positive_int

__all__ = ["PeriodicSmoothing", "MatrixSmoothing", "paper_2d_smoothing", "as_smoothing_operator"]


@dataclass(frozen=True)
class PeriodicSmoothing:
    """The periodic circulant ``A_σ = I − σL`` of eq. (2.1), applied by FFT (any dimension).

    Parameters
    ----------
    sigma : float
        Smoothing constant σ ``≥ 0``; ``σ = 0`` is the identity (LS-SGLD = SGLD).

    Raises
    ------
    ValueError
        If ``sigma`` is not a finite number ``≥ 0``.

    Notes
    -----
    The small-``d`` convention (``d = 1``: ``A = I``; ``d = 2``: ``[[1+2σ, −2σ], [−2σ, 1+2σ]]``) is
    that of :mod:`sgmcmc_verify.analytic.laplacian`. For the paper's 2-D experiments use
    :func:`paper_2d_smoothing` (eq. (4.1)) instead.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, eq. (2.1), Lemma 2.5, eq. (2.7)–(2.8).
    """

    sigma: float

    def __post_init__(self):
        object.__setattr__(self, "sigma", check_smoothing(self.sigma))

    @property
    def name(self) -> str:
        return "periodic"

    def apply_inverse(self, v: np.ndarray) -> np.ndarray:
        """``A_σ⁻¹ v`` for ``v`` of shape ``(..., d)`` (FFT)."""
        return apply_inverse(v, self.sigma)

    def apply_inverse_sqrt(self, v: np.ndarray) -> np.ndarray:
        """``A_σ^{−1/2} v`` for ``v`` of shape ``(..., d)`` (FFT, symmetric square root)."""
        return apply_inverse_sqrt(v, self.sigma)

    def matrix(self, d: int) -> np.ndarray:
        """Dense ``A_σ``, ``(d, d)``."""
        return smoothing_matrix(d, self.sigma)

    def inverse_matrix(self, d: int) -> np.ndarray:
        """Dense ``A_σ⁻¹``, ``(d, d)`` (the FFT applied to the identity)."""
        return apply_inverse(np.eye(check_positive_int("d", d)), self.sigma)

    def inverse_sqrt_matrix(self, d: int) -> np.ndarray:
        """Dense ``A_σ^{−1/2}``, ``(d, d)``."""
        return apply_inverse_sqrt(np.eye(check_positive_int("d", d)), self.sigma)

    def settings(self) -> dict:
        return {"smoothing_operator": self.name, "sigma": self.sigma}


@dataclass(frozen=True, eq=False)
class MatrixSmoothing:
    """A smoothing operator given as a dense symmetric positive-definite matrix ``A``.

    Parameters
    ----------
    A : (d, d) array_like of float
        Symmetric positive definite (e.g. the eq. (4.1) matrix of the paper's 2-D experiments).
    sigma : float or None
        The σ that produced ``A`` (recorded in settings only).
    label : str
        Recorded in settings (``"paper_eq_4.1"``, ...).

    Raises
    ------
    ValueError
        If ``A`` is not a finite square symmetric matrix with positive eigenvalues.
    """

    A: np.ndarray
    sigma: float | None = None
    label: str = "matrix"

    def __post_init__(self):
        A = check_finite_array("A", self.A, ndim=2)
        if A.shape[0] != A.shape[1] or A.shape[0] < 1:
            raise ValueError(f"A must be a square (d, d) matrix, got shape {A.shape}")
        if not np.allclose(A, A.T, rtol=1e-12, atol=1e-12):
            raise ValueError("A must be symmetric")
        w, V = scipy.linalg.eigh(A)
        if not np.all(w > 0):
            raise ValueError(f"A must be positive definite, got smallest eigenvalue {w.min()!r}")
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "_inv", (V / w) @ V.T)
        object.__setattr__(self, "_inv_sqrt", (V * w ** -0.5) @ V.T)

    @property
    def name(self) -> str:
        return self.label

    def _check_d(self, d):
        d = check_positive_int("d", d)
        if d != self.A.shape[0]:
            raise ValueError(f"d must equal the operator's dimension {self.A.shape[0]}, got {d}")
        return d

    def apply_inverse(self, v: np.ndarray) -> np.ndarray:
        """``A⁻¹ v`` for ``v`` of shape ``(..., d)``."""
        return np.asarray(v, dtype=np.float64) @ self._inv  # symmetric

    def apply_inverse_sqrt(self, v: np.ndarray) -> np.ndarray:
        """``A^{−1/2} v`` for ``v`` of shape ``(..., d)`` (symmetric square root)."""
        return np.asarray(v, dtype=np.float64) @ self._inv_sqrt

    def matrix(self, d: int) -> np.ndarray:
        self._check_d(d)
        return self.A.copy()

    def inverse_matrix(self, d: int) -> np.ndarray:
        self._check_d(d)
        return self._inv.copy()

    def inverse_sqrt_matrix(self, d: int) -> np.ndarray:
        self._check_d(d)
        return self._inv_sqrt.copy()

    def settings(self) -> dict:
        return {"smoothing_operator": self.name, "sigma": self.sigma}


def paper_2d_smoothing(sigma: float) -> MatrixSmoothing:
    """The eq. (4.1) matrix ``[[1+σ, −σ], [−σ, 1+σ]]`` of the paper's 2-D experiments (§4.1).

    Parameters
    ----------
    sigma : float
        σ ``≥ 0`` (0.1 in §4.1.1, 1.0 in §4.1.2).

    Returns
    -------
    MatrixSmoothing

    Raises
    ------
    ValueError
        If ``sigma`` is not a finite number ``≥ 0``.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, §4.1.1, eq. (4.1).
    """
    return MatrixSmoothing(paper_matrix_2d(sigma), float(sigma), "paper_eq_4.1")


def _check_operator(op):
    for attr in ("apply_inverse", "apply_inverse_sqrt", "settings"):
        if not hasattr(op, attr):
            raise ValueError(f"smoothing must be a smoothing operator (PeriodicSmoothing, MatrixSmoothing) "
                             f"or a number sigma >= 0, got {op!r}")
    return op


def as_smoothing_operator(smoothing):
    """``smoothing`` itself if it is an operator, else :class:`PeriodicSmoothing` (σ = ``smoothing``)."""
    if hasattr(smoothing, "apply_inverse"):
        return _check_operator(smoothing)
    return PeriodicSmoothing(smoothing)
