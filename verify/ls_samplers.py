"""Laplacian-smoothing Langevin samplers: LS-SGLD (2.5), LS-GLD (2.4), LS-LD (2.3) by EM, LS-pSGLD.

Wang, Zou, Gu, Osher, "Laplacian Smoothing Stochastic Gradient MCMC" (seed
``004_8438bd4b543e0fc4.txt``). With ``ĝ`` a gradient estimate of ``f`` (any estimator of
:mod:`verify.estimators`) the smoothed overdamped Euler–Maruyama step is, eq. (2.5),

    x' = x − η A_σ⁻¹ ĝ(x) + √(2η/β) A_σ^{−1/2} ε,      ε ~ N(0, I_d).

* LS-SGLD (2.5): ``ĝ`` a uniform minibatch (:func:`ls_sgld`);
* LS-GLD (2.4): ``ĝ = ∇f`` (:func:`ls_gld`);
* LS-LD (2.3), ``dX = −A_σ⁻¹∇f dt + √(2/β) A_σ^{−1/2} dB``: approximated, as the paper does in
  §4.1.3, by (2.4) with a very small step (:func:`ls_ld`);
* LS-pSGLD (§4: the paper only says pSGLD's preconditioner was "incorporated"): see
  :class:`LaplacianSmoothingPSGLD` for the composition we chose and why.

Conventions
-----------
* ``f`` is the toolkit's finite-sum potential ``V = V_0 + Σ_i V_i`` and the estimators return
  full-scale gradients (``(n/b)Σ_{j∈I}∇V_j + ∇V_0``), so ``π ∝ exp(−β V)``. The paper writes
  ``f = n⁻¹Σ f_i`` and averages the minibatch, with ``π ∝ exp(−β f)``; its ``(f, β)`` is our
  ``(V, β)`` with ``V = f`` — the only thing that matters is that ``β`` multiplies the potential
  whose gradient is estimated. ``β`` is "inverse temperature β as in the paper" (eq. (1.2)).
* The smoothing operator is an object with ``apply_inverse(v)`` and ``apply_inverse_sqrt(v)``
  (``v`` of shape ``(chains, d)``) and ``inverse_matrix(d)`` / ``inverse_sqrt_matrix(d)`` (dense,
  for exact laws): :class:`PeriodicSmoothing` (the circulant ``A_σ`` of eq. (2.1), applied by FFT
  with :mod:`analytic.laplacian`, any ``d``) or :class:`MatrixSmoothing` (any symmetric positive-
  definite matrix, e.g. :func:`analytic.laplacian.paper_matrix_2d`, the eq. (4.1) matrix of the 2-D
  experiments; :func:`paper_2d_smoothing`).
* The random stream is consumed exactly as in :class:`verify.samplers.OverdampedEM`: the
  estimator's draws first, then one ``rng.standard_normal((chains, d))``. Hence with ``σ = 0``
  LS-SGLD reproduces SGLD step for step under the same generator (up to FFT round-off).

References
----------
Seed ``004_8438bd4b543e0fc4.txt``: eqs. (2.1), (2.3), (2.4), (2.5), Algorithm 1, eq. (4.1), §4.
Li, Chen, Carlson, Carin, "Preconditioned SGLD", AAAI 2016 (pSGLD, the paper's ref. [26]).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg

from analytic.laplacian import (apply_inverse, apply_inverse_sqrt, check_smoothing, paper_matrix_2d,
                                smoothing_matrix)

from .errors import check_finite_array, check_positive, check_positive_int, check_state_finite
from .estimators import FullGradient, StepContext, UniformMinibatch
from .samplers import OverdampedState, PSGLDState, StepInfo, _check_beta, _init_position

__all__ = [
    "PeriodicSmoothing",
    "MatrixSmoothing",
    "paper_2d_smoothing",
    "LaplacianSmoothingEM",
    "LaplacianSmoothingPSGLD",
    "ls_sgld",
    "ls_gld",
    "ls_ld",
    "ls_psgld",
    "psgld_full",
]


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
    that of :mod:`analytic.laplacian`. For the paper's 2-D experiments use
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


def _as_operator(smoothing):
    if hasattr(smoothing, "apply_inverse"):
        return _check_operator(smoothing)
    return PeriodicSmoothing(smoothing)


@dataclass(frozen=True, eq=False)
class LaplacianSmoothingEM:
    """Laplacian-smoothing overdamped EM: ``x' = x − η A⁻¹ĝ(x) + √(2η/β) A^{−1/2} ε`` (eq. (2.5)).

    Parameters
    ----------
    target : FiniteSumPotential
    step_size : float
        ``η`` > 0.
    smoothing : float or smoothing operator
        A number σ ``≥ 0`` means :class:`PeriodicSmoothing` (σ); or pass an operator
        (:func:`paper_2d_smoothing` for eq. (4.1)).
    estimator : gradient estimator, default ``UniformMinibatch(1)`` (LS-SGLD);
        ``FullGradient()`` gives LS-GLD (2.4).
    inverse_temperature : float, default 1
        ``β`` > 0; ``np.inf`` is zero temperature (Laplacian-smoothing gradient descent).
    noise_power : float, default 0.5
        The noise is ``A^{−noise_power} ε``. The paper's (2.3) is ``0.5``; ``1.0`` is the
        "smooth the noise like the gradient" variant that the paper rules out (invariant law
        ``≠ π``), kept to serve as a planted-bug negative control in the tests. Only 0.5 and 1.0
        are accepted.
    name : str

    Raises
    ------
    ValueError
        Non-positive ``step_size`` or ``inverse_temperature``; bad ``smoothing`` or ``noise_power``;
        at ``init``, a non-finite or mis-shaped position or ``batch_size > n``.

    Notes
    -----
    Cost per step: the estimator's evaluations plus two FFTs of length ``d`` per chain
    (``O(d log d)``), independent of ``n``.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, eqs. (2.4), (2.5), Algorithm 1.
    """

    target: Any
    step_size: float
    smoothing: Any = 0.0
    estimator: Any = field(default_factory=UniformMinibatch)
    inverse_temperature: float = 1.0
    noise_power: float = 0.5
    name: str = "LS-SGLD"

    def __post_init__(self):
        object.__setattr__(self, "step_size", check_positive("step_size", self.step_size))
        object.__setattr__(self, "inverse_temperature", _check_beta(self.inverse_temperature))
        object.__setattr__(self, "smoothing", _as_operator(self.smoothing))
        if self.noise_power not in (0.5, 1.0):
            raise ValueError(f"noise_power must be 0.5 (the paper) or 1.0 (negative control), got {self.noise_power!r}")

    def settings(self) -> dict:
        return {"sampler": self.name, "step_size": self.step_size, "inverse_temperature": self.inverse_temperature,
                "noise_power": self.noise_power, **self.smoothing.settings(), **self.estimator.settings()}

    def init(self, position, momentum=None) -> OverdampedState:
        pos = _init_position(self.target, position)
        return OverdampedState(pos, self.estimator.init(self.target, pos), 0)

    def step(self, state: OverdampedState, rng: np.random.Generator):
        with np.errstate(over="ignore", invalid="ignore"):
            return self._step(state, rng)

    def _noise(self, xi):
        if self.noise_power == 0.5:
            return self.smoothing.apply_inverse_sqrt(xi)
        return self.smoothing.apply_inverse(xi)

    def _step(self, state, rng):
        est = self.estimator(state.estimator_state, rng, self.target, state.position, StepContext())
        h = self.step_size
        noise = np.sqrt(2.0 * h / self.inverse_temperature)
        if not np.all(np.isfinite(est.gradient)):
            check_state_finite(self.name, state.step, self.settings(), est.gradient)
        pos = state.position - h * self.smoothing.apply_inverse(est.gradient)
        if noise > 0:
            pos = pos + noise * self._noise(rng.standard_normal(pos.shape))
        check_state_finite(self.name, state.step, self.settings(), pos)
        return OverdampedState(pos, est.state, state.step + 1), StepInfo(est.evaluations, est.info)


@dataclass(frozen=True, eq=False)
class LaplacianSmoothingPSGLD:
    """LS-pSGLD: RMSprop-preconditioned SGLD composed with Laplacian smoothing (our composition).

    ``v' = α v + (1−α) ḡ⊙ḡ``, ``G = diag(1/(λ + √v'))``,

        x' = x − η G^{1/2} A⁻¹ G^{1/2} ĝ + √(2η/β) G^{1/2} A^{−1/2} ε.

    Parameters
    ----------
    target, step_size, smoothing, estimator, inverse_temperature : as :class:`LaplacianSmoothingEM`
    alpha : float, default 0.99
        RMSprop decay α in (0, 1).
    lam : float, default 1e-5
        Damping λ > 0.
    preconditioner_input : {"per_datum", "full"}, default "per_datum"
        What the RMSprop accumulator is fed. ``"per_datum"``: ``ḡ = ĝ/n`` as
        :class:`verify.samplers.PSGLD` (Li et al.'s per-datum mean gradient); ``"full"``: ``ĝ``
        itself, the gradient of the potential ``f`` the sampler moves on — the paper's convention,
        where pSGLD/LS-pSGLD precondition the same ``g_k`` that (2.5) smooths (with its step sizes,
        e.g. 0.002 for BLR, only this reading gives steps of the size of η; with ``ḡ = ĝ/n`` the
        RMSprop step ``ηG ĝ ≈ η n sign(ĝ)`` is ``n`` times larger).
    name : str

    Raises
    ------
    ValueError
        As :class:`LaplacianSmoothingEM`; ``alpha`` outside (0, 1); non-positive ``lam``;
        unknown ``preconditioner_input``.

    Notes
    -----
    Why this composition. The paper (§4) says only that pSGLD's preconditioner "was incorporated"
    into LS-SGLD. A Langevin step ``x' = x − η D ĝ + √(2η/β) D^{1/2}ε`` keeps ``π ∝ exp(−βf)``
    (for a frozen ``D``, up to the Γ(θ) term that pSGLD drops in practice) only if the drift matrix
    ``D`` is symmetric positive definite and the noise covariance is ``2ηD/β`` — the same reason the
    paper smooths the noise by ``A^{−1/2}`` (Proposition 2.1). The naive products ``A⁻¹G`` or
    ``GA⁻¹`` are not symmetric. The symmetric sandwich ``D = G^{1/2} A⁻¹ G^{1/2}`` is the Laplacian
    smoothing of (2.5) carried out in the RMSprop-rescaled coordinates ``u = G^{−1/2}x``, its
    noise factor ``G^{1/2}A^{−1/2}`` satisfies ``(G^{1/2}A^{−1/2})(G^{1/2}A^{−1/2})ᵀ = D``, and it
    reduces to pSGLD at σ = 0 and to LS-SGLD at ``G = I``. The accumulator ``v`` is fed the raw
    per-datum mean gradient ``ḡ = ĝ/n`` exactly as in :class:`verify.samplers.PSGLD` (``v_0 = 0``,
    Γ dropped). Cost: two FFTs per chain per step, as LS-SGLD.

    References
    ----------
    Seed ``004_8438bd4b543e0fc4.txt``, §4 (LS-pSGLD), Proposition 2.1; Li et al., AAAI 2016.
    """

    target: Any
    step_size: float
    smoothing: Any = 0.0
    estimator: Any = field(default_factory=UniformMinibatch)
    alpha: float = 0.99
    lam: float = 1e-5
    inverse_temperature: float = 1.0
    name: str = "LS-pSGLD"
    preconditioner_input: str = "per_datum"

    def __post_init__(self):
        object.__setattr__(self, "step_size", check_positive("step_size", self.step_size))
        object.__setattr__(self, "lam", check_positive("lam", self.lam))
        object.__setattr__(self, "inverse_temperature", _check_beta(self.inverse_temperature))
        object.__setattr__(self, "smoothing", _as_operator(self.smoothing))
        if isinstance(self.alpha, bool) or not isinstance(self.alpha, (int, float, np.floating)) \
                or not (0.0 < self.alpha < 1.0):
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha!r}")
        if self.preconditioner_input not in ("per_datum", "full"):
            raise ValueError(f"preconditioner_input must be 'per_datum' or 'full', got {self.preconditioner_input!r}")

    def settings(self) -> dict:
        return {"sampler": self.name, "step_size": self.step_size, "alpha": self.alpha, "lam": self.lam,
                "preconditioner_input": self.preconditioner_input,
                "inverse_temperature": self.inverse_temperature, **self.smoothing.settings(),
                **self.estimator.settings()}

    def init(self, position, momentum=None) -> PSGLDState:
        pos = _init_position(self.target, position)
        return PSGLDState(pos, np.zeros_like(pos), self.estimator.init(self.target, pos), 0)

    def step(self, state: PSGLDState, rng: np.random.Generator):
        with np.errstate(over="ignore", invalid="ignore"):
            return self._step(state, rng)

    def _step(self, state, rng):
        est = self.estimator(state.estimator_state, rng, self.target, state.position, StepContext())
        if not np.all(np.isfinite(est.gradient)):
            check_state_finite(self.name, state.step, self.settings(), est.gradient)
        gbar = est.gradient / self.target.n if self.preconditioner_input == "per_datum" else est.gradient
        v = self.alpha * state.square_avg + (1.0 - self.alpha) * gbar * gbar
        sqrtG = 1.0 / np.sqrt(self.lam + np.sqrt(v))
        h = self.step_size
        pos = state.position - h * sqrtG * self.smoothing.apply_inverse(sqrtG * est.gradient)
        if np.isfinite(self.inverse_temperature):
            xi = rng.standard_normal(pos.shape)
            pos = pos + np.sqrt(2.0 * h / self.inverse_temperature) * sqrtG * self.smoothing.apply_inverse_sqrt(xi)
        check_state_finite(self.name, state.step, self.settings(), pos)
        return PSGLDState(pos, v, est.state, state.step + 1), StepInfo(est.evaluations, est.info)


# ---- the named samplers of the paper ---------------------------------------------------------

def ls_sgld(target, step_size, smoothing, batch_size=1, inverse_temperature=1.0) -> LaplacianSmoothingEM:
    """LS-SGLD, eq. (2.5) / Algorithm 1: uniform minibatch of size ``batch_size``; see :class:`LaplacianSmoothingEM`."""
    return LaplacianSmoothingEM(target, step_size, smoothing, UniformMinibatch(batch_size), inverse_temperature,
                                name="LS-SGLD")


def ls_gld(target, step_size, smoothing, inverse_temperature=1.0) -> LaplacianSmoothingEM:
    """LS-GLD, eq. (2.4): the full gradient; ``n`` evaluations per chain per step."""
    return LaplacianSmoothingEM(target, step_size, smoothing, FullGradient(), inverse_temperature, name="LS-GLD")


def ls_ld(target, smoothing, step_size=1e-4, inverse_temperature=1.0) -> LaplacianSmoothingEM:
    """LS-LD, eq. (2.3), approximated by EM with a very small step (the paper's §4.1.3 recipe).

    Parameters
    ----------
    target : FiniteSumPotential
    smoothing : float or operator
    step_size : float, default 1e-4
        Must be small against the inverse largest curvature of ``A⁻¹∇²f``; the bias of the
        invariant law is O(step_size) (measured in :mod:`paper_repro.ls_sgld`).
    inverse_temperature : float
    """
    return LaplacianSmoothingEM(target, step_size, smoothing, FullGradient(), inverse_temperature, name="LS-LD")


def ls_psgld(target, step_size, smoothing, batch_size=1, alpha=0.99, lam=1e-5,
             inverse_temperature=1.0, preconditioner_input="per_datum") -> LaplacianSmoothingPSGLD:
    """LS-pSGLD (§4) with the composition of :class:`LaplacianSmoothingPSGLD`."""
    return LaplacianSmoothingPSGLD(target, step_size, smoothing, UniformMinibatch(batch_size), alpha, lam,
                                   inverse_temperature, name="LS-pSGLD", preconditioner_input=preconditioner_input)


def psgld_full(target, step_size, batch_size=1, alpha=0.99, lam=1e-5, inverse_temperature=1.0):
    """pSGLD with the paper's preconditioner input (``ĝ`` itself): :class:`LaplacianSmoothingPSGLD` at σ = 0."""
    return LaplacianSmoothingPSGLD(target, step_size, 0.0, UniformMinibatch(batch_size), alpha, lam,
                                   inverse_temperature, name="pSGLD", preconditioner_input="full")
