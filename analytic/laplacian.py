"""Laplacian-smoothing operators ``A_σ = I − σL`` of LS-SGLD, applied by FFT.

``L`` is the periodic one-dimensional discrete Laplacian, ``L = S + Sᵀ − 2I`` with ``S`` the cyclic
shift ``(Sv)_i = v_{i−1 mod d}``. For ``d ≥ 3`` this is the circulant of eq. (2.1): ``−2`` on the
diagonal and ``1`` on the two periodic off-diagonals, so ``A_σ`` has ``1 + 2σ`` on the diagonal and
``−σ`` on the off-diagonals and in the two corners. ``A_σ`` is circulant and symmetric; its
eigenvalues (Lemma 2.2 applied to (2.1)) are

    λ_j = 1 + 2σ − σ(ω^j + ω^{−j}) = 1 + 2σ − 2σ cos(2πj/d) = 1 + 4σ sin²(πj/d),  j = 0, …, d−1,

with ``ω = exp(2πi/d)``, and ``A_σ⁻¹ v`` and ``A_σ^{−1/2} v`` are computed by dividing the discrete
Fourier transform of ``v`` by ``λ_j`` or ``√λ_j`` (eq. (2.7)–(2.8), Lemma 2.5).

Small dimensions
----------------
The recipe "``−2`` on the diagonal, ``1`` at the two periodic neighbours" is ambiguous for tiny ``d``.
We use ``L = S + Sᵀ − 2I`` for every ``d ≥ 1``, which is the unique reading whose FFT symbol is
``−4 sin²(πj/d)`` (so that the eigenvalue formula above, and the paper's γ₂ of Theorem 3.3, hold for
every ``d``):

* ``d = 1``: ``S = I`` and ``L = 0``, so ``A_σ = I`` for every σ.
* ``d = 2``: ``S = Sᵀ`` and both neighbours of a coordinate are the same coordinate, whose ``1`` is
  counted twice: ``L = [[−2, 2], [2, −2]]``, ``A_σ = [[1 + 2σ, −2σ], [−2σ, 1 + 2σ]]``, eigenvalues
  ``1`` and ``1 + 4σ``. (Writing the vector ``d = [−2, 1, 0, …, 0, 1]`` of §2.1 into a length-2
  array so that the last ``1`` overwrites the first gives ``[−2, 1]`` instead, whose symbol
  ``{−1, −3}`` does not vanish on constants; we do not use it.)

The paper's 2-D experiments (§4.1.1, eq. (4.1)) use yet another matrix,
``[[1 + σ, −σ], [−σ, 1 + σ]]`` = ``I − σ L_path`` with the path-graph (Neumann) Laplacian
``L_path = [[−1, 1], [1, −1]]``; it equals the ``d = 2`` periodic operator at half the smoothing,
``smoothing_matrix(2, σ/2)``. It is provided separately as :func:`paper_matrix_2d`.

References
----------
Wang, Zou, Gu, Osher, "Laplacian Smoothing Stochastic Gradient MCMC" (seed
``004_8438bd4b543e0fc4.txt``): §2.1 eq. (2.1) (``A_σ``) and the FFT formula that follows it;
§2.3 Lemma 2.2 (circulant eigenvalues), Lemma 2.5 eq. (2.7) (FFT inverse), eq. (2.8)
(``A_σ^{−1/2}``); §4.1.1 eq. (4.1) (the 2-D matrix of the experiments).
"""
from __future__ import annotations

import functools
import numbers
from typing import Any, NamedTuple

import numpy as np
import scipy.linalg

from .validation import check_finite_array, check_positive_int

__all__ = [
    "OperatorNorms",
    "check_smoothing",
    "eigenvalues",
    "smoothing_matrix",
    "apply_inverse",
    "apply_inverse_sqrt",
    "operator_norm",
    "paper_matrix_2d",
    "paper_matrix_2d_inverse",
    "paper_matrix_2d_inverse_sqrt",
]


class OperatorNorms(NamedTuple):
    """Spectral norms of the smoothing operator.

    norm : float
        ``‖A_σ‖₂ = max_j λ_j`` (dimensionless, ≥ 1).
    inverse_norm : float
        ``‖A_σ⁻¹‖₂ = 1 / min_j λ_j`` (dimensionless; equal to 1 since ``λ_0 = 1``).
    """

    norm: float
    inverse_norm: float


def check_smoothing(sigma: Any) -> float:
    """Return ``float(sigma)`` or raise ``ValueError`` if it is not a finite number ``≥ 0``.

    Parameters
    ----------
    sigma : float
        Laplacian smoothing constant σ (dimensionless).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``sigma`` is not a real number, is non-finite, or is negative (``A_σ`` is then not
        positive definite: ``λ_j = 1 + 4σ sin²(πj/d)`` can vanish).

    Examples
    --------
    >>> check_smoothing(0)
    0.0
    """
    if (
        isinstance(sigma, bool)
        or not isinstance(sigma, numbers.Real)
        or not np.isfinite(sigma)
        or sigma < 0
    ):
        raise ValueError(f"sigma must be a finite number >= 0, got {sigma!r}")
    return float(sigma)


def _symbol(d: int, sigma: float) -> np.ndarray:
    """Eigenvalues ``1 + 4σ sin²(πj/d)``, ``j = 0, …, d−1`` (FFT order)."""
    j = np.arange(d, dtype=np.float64)
    return 1.0 + 4.0 * sigma * np.sin(np.pi * j / d) ** 2


def eigenvalues(d: int, sigma: float) -> np.ndarray:
    """Eigenvalues of ``A_σ`` in FFT order.

    Parameters
    ----------
    d : int
        Dimension, ``d ≥ 1``.
    sigma : float
        Smoothing constant σ ``≥ 0``.

    Returns
    -------
    (d,) ndarray of float64
        ``λ_j = 1 + 2σ − 2σ cos(2πj/d) = 1 + 4σ sin²(πj/d)``, ``j = 0, …, d−1``; ``λ_j`` is the
        eigenvalue of the Fourier mode ``exp(2πi jk/d)``. All entries lie in ``[1, 1 + 4σ]``.

    Raises
    ------
    ValueError
        If ``d`` is not an integer ``≥ 1`` or ``sigma`` is not a finite number ``≥ 0``.

    Notes
    -----
    Lemma 2.2 with ``c_0 = 1 + 2σ``, ``c_1 = c_{d−1} = −σ``:
    ``λ_j = 1 + 2σ − σ(ω^j + ω^{−j})``, ``ω = exp(2πi/d)``. We evaluate the ``sin²`` form, which
    has no cancellation for small ``j/d``.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, Lemma 2.2 and eq. (2.1).

    Examples
    --------
    >>> eigenvalues(4, 1.0)
    array([1., 3., 5., 3.])
    """
    d = check_positive_int("d", d)
    sigma = check_smoothing(sigma)
    return _symbol(d, sigma)


def smoothing_matrix(d: int, sigma: float) -> np.ndarray:
    """Dense ``A_σ = I − σL`` (for cross-checks; use the FFT functions in samplers).

    Parameters
    ----------
    d : int
        Dimension, ``d ≥ 1``.
    sigma : float
        Smoothing constant σ ``≥ 0``.

    Returns
    -------
    (d, d) ndarray of float64
        Symmetric circulant. ``d ≥ 3``: eq. (2.1). ``d = 2``: ``[[1 + 2σ, −2σ], [−2σ, 1 + 2σ]]``.
        ``d = 1``: ``[[1]]``. (See the module docstring for the small-``d`` convention.)

    Raises
    ------
    ValueError
        If ``d`` is not an integer ``≥ 1`` or ``sigma`` is not a finite number ``≥ 0``.

    Notes
    -----
    ``L = S + Sᵀ − 2I`` with ``S`` the cyclic shift; built with :func:`numpy.roll`, so the ``d = 2``
    entries add up rather than overwrite each other.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, eq. (2.1).

    Examples
    --------
    >>> smoothing_matrix(3, 1.0)
    array([[ 3., -1., -1.],
           [-1.,  3., -1.],
           [-1., -1.,  3.]])
    >>> smoothing_matrix(2, 1.0)
    array([[ 3., -2.],
           [-2.,  3.]])
    """
    d = check_positive_int("d", d)
    sigma = check_smoothing(sigma)
    eye = np.eye(d)
    lap = np.roll(eye, 1, axis=1) + np.roll(eye, -1, axis=1) - 2.0 * eye
    return eye - sigma * lap


def _check_vector(v: Any) -> np.ndarray:
    arr = check_finite_array("v", v)
    if arr.ndim < 1 or arr.shape[-1] < 1:
        raise ValueError(f"v must have shape (..., d) with d >= 1, got shape {arr.shape}")
    return arr


@functools.lru_cache(maxsize=64)
def _multiplier(d: int, sigma: float, power: float) -> np.ndarray:
    """``λ^{−power}`` on the rfft frequencies (read-only), computed once per ``(d, σ, power)``, not every step."""
    m = _symbol(d, sigma)[: d // 2 + 1] ** (-power)
    m.setflags(write=False)
    return m


def _apply_multiplier(v: np.ndarray, sigma: float, power: float) -> np.ndarray:
    d = v.shape[-1]
    coef = np.fft.rfft(v, axis=-1)
    return np.fft.irfft(coef * _multiplier(d, sigma, power), n=d, axis=-1)


def apply_inverse(v, sigma: float) -> np.ndarray:
    """``A_σ⁻¹ v`` by FFT, batched over leading axes.

    Parameters
    ----------
    v : (..., d) array_like of float
        Vectors to smooth (e.g. minibatch gradients ``g_k`` of shape ``(chains, d)``).
    sigma : float
        Smoothing constant σ ``≥ 0``; ``sigma = 0`` returns ``v`` (as float64) unchanged up to
        round-off.

    Returns
    -------
    (..., d) ndarray of float64
        ``u`` with ``A_σ u = v``, real.

    Raises
    ------
    ValueError
        If ``v`` has non-finite entries or no last axis, or ``sigma`` is not a finite number
        ``≥ 0``.

    Notes
    -----
    ``u = ifft(fft(v) / λ)`` with ``λ_j = 1 + 4σ sin²(πj/d)`` (eq. (2.7), Lemma 2.5); we use the
    real FFT (``rfft``/``irfft``), valid because the symbol is real and even in ``j``. Cost
    ``O(d log d)`` per vector.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, §2.1 (FFT formula after eq. (2.2)) and Lemma 2.5,
    eq. (2.7).

    Examples
    --------
    >>> v = [1.0, 0.0, 0.0]
    >>> bool(np.allclose(smoothing_matrix(3, 2.0) @ apply_inverse(v, 2.0), v))
    True
    """
    arr = _check_vector(v)
    sigma = check_smoothing(sigma)
    return _apply_multiplier(arr, sigma, 1.0)


def apply_inverse_sqrt(v, sigma: float) -> np.ndarray:
    """``A_σ^{−1/2} v`` by FFT (symmetric positive-definite square root), batched.

    Parameters
    ----------
    v : (..., d) array_like of float
        Vectors, e.g. the Gaussian noise ``ε_k`` of shape ``(chains, d)``.
    sigma : float
        Smoothing constant σ ``≥ 0``.

    Returns
    -------
    (..., d) ndarray of float64
        ``A_σ^{−1/2} v``, real. If ``v ~ N(0, I)`` then the result is ``N(0, A_σ⁻¹)``.

    Raises
    ------
    ValueError
        If ``v`` has non-finite entries or no last axis, or ``sigma`` is not a finite number
        ``≥ 0``.

    Notes
    -----
    ``A_σ^{−1/2} = Q Λ^{−1/2} Qᴴ`` with ``Q`` the unitary DFT (eq. (2.8)), hence
    ``A_σ^{−1/2} v = ifft(fft(v) / √λ)``. This is the principal (symmetric positive-definite)
    square root, i.e. the matrix ``scipy.linalg.sqrtm(inv(A_σ))``.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, §2.3.2, eq. (2.8) and Remark 2.6.

    Examples
    --------
    >>> v = np.array([0.3, -1.0, 2.0, 0.5])
    >>> w = apply_inverse_sqrt(apply_inverse_sqrt(v, 1.5), 1.5)
    >>> bool(np.allclose(w, apply_inverse(v, 1.5)))
    True
    """
    arr = _check_vector(v)
    sigma = check_smoothing(sigma)
    return _apply_multiplier(arr, sigma, 0.5)


def operator_norm(d: int, sigma: float) -> OperatorNorms:
    """``‖A_σ‖₂`` and ``‖A_σ⁻¹‖₂`` in closed form.

    Parameters
    ----------
    d : int
        Dimension, ``d ≥ 1``.
    sigma : float
        Smoothing constant σ ``≥ 0``.

    Returns
    -------
    OperatorNorms
        ``norm = 1 + 4σ sin²(π⌊d/2⌋/d)`` (``= 1 + 4σ`` for even ``d``,
        ``1 + 4σ cos²(π/(2d))`` for odd ``d``, ``1`` for ``d = 1``);
        ``inverse_norm = 1`` (the constant vector is an eigenvector with eigenvalue 1).

    Raises
    ------
    ValueError
        If ``d`` is not an integer ``≥ 1`` or ``sigma`` is not a finite number ``≥ 0``.

    Notes
    -----
    ``A_σ`` is symmetric positive definite, so its 2-norm is its largest eigenvalue and the
    2-norm of its inverse is the reciprocal of its smallest eigenvalue. These are the norms in the
    ranges ``c_0 ∈ [‖A_σ‖₂⁻¹, 1]`` and ``γ₁ ∈ [‖A_σ‖₂⁻², 1]`` of Theorems 3.3 and 3.7, and the
    bound ``‖A_σ⁻¹‖₂ ≤ 1`` used in the proof of Lemma B.3.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, Theorem 3.3, Theorem 3.7, Appendix C (proof of Lemma B.3).

    Examples
    --------
    >>> operator_norm(10, 1.0)
    OperatorNorms(norm=5.0, inverse_norm=1.0)
    """
    d = check_positive_int("d", d)
    sigma = check_smoothing(sigma)
    top = 1.0 + 4.0 * sigma * np.sin(np.pi * (d // 2) / d) ** 2
    return OperatorNorms(norm=float(top), inverse_norm=1.0)


def paper_matrix_2d(sigma: float) -> np.ndarray:
    """The 2-D smoothing matrix the paper's 2-D experiments use, eq. (4.1).

    Parameters
    ----------
    sigma : float
        Smoothing constant σ ``≥ 0`` (the paper uses ``σ = 0.1`` in §4.1.1).

    Returns
    -------
    (2, 2) ndarray of float64
        ``[[1 + σ, −σ], [−σ, 1 + σ]]``, eigenvalues ``1`` and ``1 + 2σ``.

    Raises
    ------
    ValueError
        If ``sigma`` is not a finite number ``≥ 0``.

    Notes
    -----
    Which operator is which:

    * ``paper_matrix_2d(σ)`` is what §4.1.1 states "in 2D ``A_σ`` becomes" (eq. (4.1)); use it to
      reproduce the 2-D Gaussian (and 2-D Gaussian-mixture) experiments as printed. It is
      ``I − σ L_path`` with the path-graph (Neumann) Laplacian ``[[−1, 1], [1, −1]]``, and equals
      ``smoothing_matrix(2, σ / 2)``.
    * ``smoothing_matrix(2, σ)`` (the periodic circulant ``[[1 + 2σ, −2σ], [−2σ, 1 + 2σ]]``) is the
      operator whose eigenvalues ``1 + 2σ − 2σ cos(2πi/d)`` enter the paper's γ₂ (Theorem 3.3) and
      its ``‖A_σ‖₂ = 1 + 4σ``, which is the origin of the step-size factor ``(1 + 4σ)^{1/4}``. For
      (4.1) ``‖A_σ‖₂ = 1 + 2σ`` instead, so the theory's constants evaluated at ``d = 2`` do not
      describe the printed 2-D experiments at the same σ.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, §4.1.1, eq. (4.1).

    Examples
    --------
    >>> paper_matrix_2d(0.1)
    array([[ 1.1, -0.1],
           [-0.1,  1.1]])
    """
    sigma = check_smoothing(sigma)
    return np.array([[1.0 + sigma, -sigma], [-sigma, 1.0 + sigma]])


def paper_matrix_2d_inverse(sigma: float) -> np.ndarray:
    """Inverse of the eq. (4.1) matrix, by :func:`scipy.linalg.inv`.

    Parameters
    ----------
    sigma : float
        Smoothing constant σ ``≥ 0``.

    Returns
    -------
    (2, 2) ndarray of float64
        ``[[1 + σ, σ], [σ, 1 + σ]] / (1 + 2σ)``. Apply to ``(chains, 2)`` vectors as ``v @ M``
        (the matrix is symmetric).

    Raises
    ------
    ValueError
        If ``sigma`` is not a finite number ``≥ 0``.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, §4.1.1, eq. (4.1), used in eq. (2.5).

    Examples
    --------
    >>> bool(np.allclose(paper_matrix_2d_inverse(0.5) @ paper_matrix_2d(0.5), np.eye(2)))
    True
    """
    return scipy.linalg.inv(paper_matrix_2d(sigma))


def paper_matrix_2d_inverse_sqrt(sigma: float) -> np.ndarray:
    """Symmetric positive-definite ``A^{−1/2}`` of the eq. (4.1) matrix, by :func:`scipy.linalg.eigh`.

    Parameters
    ----------
    sigma : float
        Smoothing constant σ ``≥ 0``.

    Returns
    -------
    (2, 2) ndarray of float64
        ``V diag(λ^{−1/2}) Vᵀ`` with ``λ = (1, 1 + 2σ)``; squares to :func:`paper_matrix_2d_inverse`.

    Raises
    ------
    ValueError
        If ``sigma`` is not a finite number ``≥ 0``.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, §4.1.1, eq. (4.1), used in eq. (2.5).

    Examples
    --------
    >>> r = paper_matrix_2d_inverse_sqrt(0.5)
    >>> bool(np.allclose(r @ r, paper_matrix_2d_inverse(0.5)))
    True
    """
    w, vecs = scipy.linalg.eigh(paper_matrix_2d(sigma))
    return (vecs * w ** -0.5) @ vecs.T
