"""Exact first and second moments of SGLD, SGHMC, SG-UL-MCMC, SRVR-HMC and HSG-HMC on a quadratic finite sum with
*different* per-datum Hessians.

The potential is ``f(x) = Σ_i f_i(x)``, ``f_i(x) = ½ xᵀA_i x − b_iᵀx`` with symmetric ``A_i`` that
differ from datum to datum, so the target is ``N(A⁻¹b, A⁻¹)`` with ``A = Σ A_i``, ``b = Σ b_i``.
Unlike :mod:`sgmcmc_verify.analytic.hsg_moments` (all ``A_i = I``), the difference term of the recursive
estimators is *not* exact here: ``∇F(x', ξ) − ∇F(x, ξ) = n A_ξ (x' − x) ≠ ∇f(x') − ∇f(x)``, which is
what the variance reduction of HSG-HMC (7) and SRVR-HMC has to control.

Every estimate is affine in the sampler state with a random matrix: with the augmented state
``s_k = (x_k, v_k, g_{k−1}, x_{k−1}, 1)`` (dimension ``D = 4d + 1``) a step is
``s_{k+1} = M_ξ s_k + w_k``, where ``M_ξ = E_0 + F G_ξ``, ``g_k = G_ξ s_k`` is the estimate, ``E_0``
and ``F`` hold the exponential-integrator coefficients (4)–(6), and ``w_k`` is the Gaussian OU
noise (6), independent of everything else. For one sample ξ (uniform on ``{1..n}``):

* SG-UL-MCMC, and a reset of any method:  ``g = n(A_ξ x − b_ξ)``;
* HSG-HMC (7) with weight ρ:  ``g = n A_ξ x + (1 − ρ)(g_{k−1} − n A_ξ x_{k−1}) − ρ n b_ξ``;
* SRVR-HMC inner step:  ``g = g_{k−1} + n A_ξ (x − x_{k−1})``;
* a full gradient (SRVR-HMC reset with ``B_0 = n``):  ``g = A x − b``;

and a minibatch of ``b`` i.i.d. samples averages ``G_ξ`` over the draws. The two baselines of Table 1 that do not
use the exponential integrator take the fresh estimate with their own ``E_0``, ``F`` and ``W``:

* SGLD (overdamped Euler–Maruyama, :func:`sgmcmc_verify.samplers.sgld`): ``x' = x − h g + √(2h) ξ``;
* SGHMC (underdamped Euler–Maruyama, :class:`sgmcmc_verify.integrators.underdamped.UnderdampedEM`, as Table 2 runs
  it with Remark 2's ``γ = −log(0.9)/h``, ``u = 1``): ``x' = x + h v``, ``v' = v − h(g + γ v) + √(2γh) ξ``.
 Because ``ξ`` is drawn
afresh and independently of ``s_k``, the second moment ``T_k = E[s_k s_kᵀ]`` obeys the *exact*
linear recursion ``T_{k+1} = M̄ T M̄ᵀ + (1/b) F (E_ξ[G_ξ T G_ξᵀ] − Ḡ T Ḡᵀ) Fᵀ + W`` (``M̄ = E M_ξ``,
``W`` the OU covariance in the (x, v) block, multiplied by ``T[1, 1] = 1``). No Monte Carlo enters.

The law of ``x_k`` is not Gaussian (the noise is multiplicative), so the W2 reported is the Bures
(Gelbrich) distance between the exact moments of ``x_k`` and the target: a **lower bound** on the
true W2, equal to it for Gaussian laws.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: eqs. (4)–(7), Algorithm 1, Remark 2 (γ from
``e^{−γη} = 0.9``, ``u = 1``), Theorem 1 (``ρ_{k+1} = 1/(k+1)``), Corollary 2 (periodic ``ρ``),
Table 1; SRVR-HMC (Zou, Xu & Gu 2019) as described in the seed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .ou_integrator import ou_noise_covariance, ou_step_coefficients
from .validation import check_positive_int

__all__ = ["QuadraticSum", "random_quadratic_sum", "exact_trajectory", "bures_w2_2d", "METHODS"]

METHODS = ("SG-UL-MCMC", "HSG-HMC", "SRVR-HMC", "SGLD", "SGHMC")


@dataclass(frozen=True)
class QuadraticSum:
    """``f(x) = Σ_i ½ xᵀA_i x − b_iᵀx``.

    Attributes
    ----------
    A : (n, d, d) ndarray of float64
        Symmetric per-datum Hessians; ``Σ_i A_i`` must be positive definite.
    b : (n, d) ndarray of float64
    """

    A: np.ndarray
    b: np.ndarray

    def __post_init__(self):
        A = np.asarray(self.A, dtype=np.float64)
        b = np.asarray(self.b, dtype=np.float64)
        if A.ndim != 3 or A.shape[1] != A.shape[2] or b.shape != A.shape[:2]:
            raise ValueError(f"A must be (n, d, d) and b (n, d); got A {A.shape}, b {b.shape}")
        if not (np.all(np.isfinite(A)) and np.all(np.isfinite(b))):
            raise ValueError("A and b must be finite")
        if not np.allclose(A, np.swapaxes(A, 1, 2)):
            raise ValueError("A must hold symmetric matrices")
        if np.linalg.eigvalsh(A.sum(0)).min() <= 0:
            raise ValueError("sum of A_i must be positive definite (the target must be a proper Gaussian)")
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "b", b)

    @property
    def n(self) -> int:
        return self.A.shape[0]

    @property
    def dim(self) -> int:
        return self.A.shape[1]

    @property
    def hessian(self) -> np.ndarray:
        """``A = Σ A_i``, (d, d)."""
        return self.A.sum(0)

    @property
    def mean(self) -> np.ndarray:
        """Target mean ``A⁻¹ b``, (d,)."""
        return np.linalg.solve(self.hessian, self.b.sum(0))

    @property
    def cov(self) -> np.ndarray:
        """Target covariance ``A⁻¹``, (d, d)."""
        return np.linalg.inv(self.hessian)

    def hessian_spread(self) -> float:
        """``‖E_ξ[(nA_ξ − A)²]‖₂ / ‖A‖₂²``: the relative variance of the one-sample Hessian (0 when all ``A_i`` are equal)."""
        H = self.hessian
        dev = self.n * self.A - H
        return float(np.linalg.norm(np.einsum("nij,njk->ik", dev, dev) / self.n, 2) / np.linalg.norm(H, 2) ** 2)


def random_quadratic_sum(n: int = 50, dim: int = 2, seed: int = 20210205, wishart_dof: int = 2) -> QuadraticSum:
    """Per-datum Hessians ``A_i = G_i G_iᵀ / m`` (``G_i`` a d × m standard normal, ``m = wishart_dof``), ``b_i = A_i c_i``, ``c_i ~ N(0, I)``.

    Each ``A_i`` has mean ``I`` (so ``A ≈ n I``, like :func:`sgmcmc_verify.targets.gaussian_means_target`)
    and a Wishart spread that makes the per-datum Hessians differ strongly (rank-deficient when
    ``m < d``); ``f_i`` is minimized at ``c_i`` when ``A_i`` is invertible.

    Parameters
    ----------
    n, dim : int
        ``n >= 1`` data, dimension ``d >= 1``.
    seed : int
        ``numpy.random.default_rng`` seed (ours: the text has no such target).
    wishart_dof : int
        ``m >= 1``.

    Returns
    -------
    QuadraticSum

    Raises
    ------
    ValueError
        ``n``, ``dim`` or ``wishart_dof`` not an integer >= 1.
    """
    n = check_positive_int("n", n)
    dim = check_positive_int("dim", dim)
    m = check_positive_int("wishart_dof", wishart_dof)
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((n, dim, m))
    A = np.einsum("nik,njk->nij", G, G) / m
    c = rng.standard_normal((n, dim))
    return QuadraticSum(A, np.einsum("nij,nj->ni", A, c))


def bures_w2_2d(mean0, cov0, mean1, cov1) -> np.ndarray:
    """Bures W2 between Gaussians in d ≤ 2, vectorized over a leading axis, in closed form.

    ``W2² = ‖m0 − m1‖² + tr S0 + tr S1 − 2 tr (S1^{1/2} S0 S1^{1/2})^{1/2}``, and for a 2 × 2
    PSD ``X``, ``tr X^{1/2} = (tr X + 2 √det X)^{1/2}`` with ``tr X = tr(S0 S1)``,
    ``det X = det S0 det S1``.

    Parameters
    ----------
    mean0 : (..., d) ; cov0 : (..., d, d) ; mean1 : (d,) ; cov1 : (d, d), d in {1, 2}

    Returns
    -------
    (...,) ndarray of float64

    Raises
    ------
    ValueError
        ``d > 2``.
    """
    m0, S0 = np.asarray(mean0, float), np.asarray(cov0, float)
    m1, S1 = np.asarray(mean1, float), np.asarray(cov1, float)
    d = m0.shape[-1]
    if d > 2:
        raise ValueError(f"bures_w2_2d needs d <= 2, got d = {d}")
    if d == 1:
        s0, s1 = np.sqrt(np.maximum(S0[..., 0, 0], 0)), math.sqrt(S1[0, 0])
        return np.sqrt((m0[..., 0] - m1[0]) ** 2 + (s0 - s1) ** 2)
    tr01 = np.einsum("...ij,ji->...", S0, S1)
    det0 = np.maximum(np.linalg.det(S0), 0.0)
    cross = np.sqrt(np.maximum(tr01 + 2.0 * np.sqrt(det0 * np.linalg.det(S1)), 0.0))
    w2sq = np.sum((m0 - m1) ** 2, -1) + np.trace(S0, axis1=-2, axis2=-1) + np.trace(S1) - 2.0 * cross
    return np.sqrt(np.maximum(w2sq, 0.0))


def _blocks(q: QuadraticSum, step_size, decay, u):
    n, d = q.n, q.dim
    D = 4 * d + 1
    gam = -math.log(decay) / step_size
    co = ou_step_coefficients(gam, step_size, u)
    Q = ou_noise_covariance(gam, step_size, u)
    I = np.eye(d)
    X, V, GP, XP, ONE = (slice(0, d), slice(d, 2 * d), slice(2 * d, 3 * d), slice(3 * d, 4 * d), 4 * d)
    E0 = np.zeros((D, D))
    E0[X, X], E0[X, V] = I, co.x_from_v * I
    E0[V, V] = co.v_decay * I
    E0[XP, X] = I
    E0[ONE, ONE] = 1.0
    F = np.zeros((D, d))
    F[X], F[V], F[GP] = co.x_from_g * I, co.v_from_g * I, I
    W = np.zeros((D, D))
    W[X, X], W[X, V], W[V, X], W[V, V] = Q[0, 0] * I, Q[0, 1] * I, Q[1, 0] * I, Q[1, 1] * I
    nA, nb = n * q.A, n * q.b
    Z = np.zeros((n, d, D))
    fresh = Z.copy()                      # g = n(A_ξ x − b_ξ)
    fresh[:, :, X], fresh[:, :, ONE] = nA, -nb
    hyb1 = Z.copy()                       # ∂g/∂ρ for the hybrid estimator: −g_{k−1} + nA_ξ x_{k−1} − n b_ξ
    hyb1[:, :, GP], hyb1[:, :, XP], hyb1[:, :, ONE] = -I, nA, -nb
    hyb0 = Z.copy()                       # the hybrid estimator at ρ = 0: nA_ξ x + g_{k−1} − nA_ξ x_{k−1}
    hyb0[:, :, X], hyb0[:, :, GP], hyb0[:, :, XP] = nA, I, -nA
    full = np.zeros((d, D))
    full[:, X], full[:, ONE] = q.hessian, -q.b.sum(0)
    return {"E0": E0, "F": F, "W": W, "fresh": fresh, "hyb0": hyb0, "hyb1": hyb1, "full": full, "D": D}


def _euler_blocks(d, step_size, decay, method):
    """``E_0``, ``F``, ``W`` of SGLD (overdamped EM) or SGHMC (underdamped EM, ``γ = −log(decay)/h``) on the
    augmented state ``(x, v, g_{k−1}, x_{k−1}, 1)`` (``v`` stays 0 for SGLD)."""
    D = 4 * d + 1
    h = float(step_size)
    I = np.eye(d)
    X, V, GP, XP, ONE = (slice(0, d), slice(d, 2 * d), slice(2 * d, 3 * d), slice(3 * d, 4 * d), 4 * d)
    E0, F, W = np.zeros((D, D)), np.zeros((D, d)), np.zeros((D, D))
    E0[X, X], E0[XP, X], E0[ONE, ONE] = I, I, 1.0
    F[GP] = I
    if method == "SGLD":
        F[X] = -h * I
        W[X, X] = 2.0 * h * I
    else:
        gam = -math.log(decay) / h
        E0[X, V], E0[V, V] = h * I, (1.0 - h * gam) * I
        F[V] = -h * I
        W[V, V] = 2.0 * gam * h * I
    return E0, F, W


class _Step:
    """``T ↦ E[M_ξ T M_ξᵀ] + W`` for one estimator kind, as a matrix on ``vec(T)`` (polynomial in ρ)."""

    def __init__(self, E0, F, W, G0, G1=None, batch=1):
        D = E0.shape[0]
        self.D = D
        # vec(M T Mᵀ) = (M ⊗ M) vec(T); the mean over ξ of G_ξ ⊗ G_ξ carries the sampling noise
        parts = [(G0, G0)] if G1 is None else [(G0, G0), (G0, G1), (G1, G0), (G1, G1)]
        ops = []
        for Ga, Gb in parts:
            if Ga.ndim == 2:  # deterministic (full gradient): no sampling noise
                Ma, Mb = F @ Ga, F @ Gb
                ops.append(np.kron(Ma, Mb))
                continue
            Gma, Gmb = Ga.mean(0), Gb.mean(0)
            mean_kron = np.kron(F @ Gma, F @ Gmb)
            kron_mean = np.einsum("nij,nkl->ikjl", F @ Ga, F @ Gb).reshape(D * D, D * D) / Ga.shape[0]
            ops.append(mean_kron + (kron_mean - mean_kron) / batch)
        # cross terms between E0 and F G (E0 is deterministic)
        def lin(G):
            Gm = G if G.ndim == 2 else G.mean(0)
            FG = F @ Gm
            return np.kron(E0, FG) + np.kron(FG, E0)
        if G1 is None:
            L0 = np.kron(E0, E0) + lin(G0) + ops[0]
            self.ops = [L0]
        else:
            L0 = np.kron(E0, E0) + lin(G0) + ops[0]
            L1 = lin(G1) + ops[1] + ops[2]
            L2 = ops[3]
            self.ops = [L0, L1, L2]
        self.stack = np.vstack(self.ops)
        self.w = W.reshape(-1)
        self.one = (D - 1) * D + (D - 1)   # index of T[1, 1] in vec(T)

    def __call__(self, t, rho=None):
        if len(self.ops) == 1:
            out = self.ops[0] @ t
        else:
            y = self.stack @ t
            k = self.D * self.D
            out = y[:k] + rho * y[k:2 * k] + (rho * rho) * y[2 * k:]
        return out + self.w * t[self.one]


#: Second moments beyond this are a diverged run (``det`` of the 2 × 2 covariance overflows near 1e154).
_DIVERGED = 1e100


def _period(step_size):
    return int(math.ceil(1.0 / step_size - 1e-12))


def exact_trajectory(q: QuadraticSum, method: str, step_size: float, iterations: int, *, batch_size: int = 1,
                     schedule: str = "periodic", outer_batch_size: int | None = None, inner_batch_size: int = 1,
                     inner_loop_length: int = 10, decay: float = 0.9, u: float = 1.0):
    """Exact moments of ``x_k`` for ``k = 0..iterations``, W2 lower bound and gradients spent.

    Parameters
    ----------
    q : QuadraticSum
    method : {"SG-UL-MCMC", "HSG-HMC", "SRVR-HMC", "SGLD", "SGHMC"}
    step_size : float
        ``η > 0``; friction ``γ = −log(decay)/η`` (Remark 2), inverse mass ``u`` (SGLD: the step ``h``; SGHMC:
        ``h`` with the same friction rule, ``u = 1``).
    iterations : int
        ``K >= 1``.
    batch_size : int
        SG-UL-MCMC's, SGLD's and SGHMC's ``b`` (i.i.d. draws, as :class:`sgmcmc_verify.estimators.UniformMinibatch` with
        ``replace=True``); HSG-HMC uses one sample (Algorithm 1).
    schedule : {"periodic", "harmonic"}
        HSG-HMC's ``ρ_k`` (Corollary 2: ``ρ_k = 1/(mod(k−1, ⌈1/η⌉) + 1)``; Theorem 1: ``1/k``).
    outer_batch_size, inner_batch_size, inner_loop_length : int
        SRVR-HMC's ``B_0`` (``None`` = n, the exact full gradient), ``B`` and ``L``.

    Returns
    -------
    dict
        ``mean`` (K+1, d), ``cov`` (K+1, d, d) of ``x_k``; ``w2`` (K+1,) the Bures lower bound on
        ``W2(law(x_k), N(A⁻¹b, A⁻¹))`` (d <= 2: closed form); ``evaluations`` (K+1,) per-datum
        gradient evaluations spent on ``g^(0) … g^(k−1)``, counted as the samplers count them
        (:mod:`sgmcmc_verify.estimators.variance_reduced`: ``b`` for a fresh estimate or a ρ = 1 step,
        ``2`` for a hybrid step, ``B_0`` (``n`` when full) at a reset, ``2B`` for an inner step).

    Raises
    ------
    ValueError
        Unknown ``method`` or ``schedule``, ``step_size <= 0``, non-integer or < 1 sizes,
        ``dim > 2``.

    Notes
    -----
    Starts at ``(x_0, v_0) = (0, 0)`` (Theorem 1). Cost: one ``D² × D²`` (81 × 81 for d = 2)
    matrix–vector product per iteration.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if schedule not in ("periodic", "harmonic"):
        raise ValueError(f"schedule must be 'periodic' or 'harmonic', got {schedule!r}")
    if not (isinstance(step_size, (int, float)) and step_size > 0 and math.isfinite(step_size)):
        raise ValueError(f"step_size must be a finite number > 0, got {step_size!r}")
    K = check_positive_int("iterations", iterations)
    batch_size = check_positive_int("batch_size", batch_size)
    inner_batch_size = check_positive_int("inner_batch_size", inner_batch_size)
    L = check_positive_int("inner_loop_length", inner_loop_length)
    if q.dim > 2:
        raise ValueError(f"exact_trajectory reports the closed-form Bures W2 for d <= 2, got d = {q.dim}")
    B0 = q.n if outer_batch_size is None else check_positive_int("outer_batch_size", outer_batch_size)
    bl = _blocks(q, float(step_size), decay, u)
    E0, F, W, D, d = bl["E0"], bl["F"], bl["W"], bl["D"], q.dim
    fresh_b = _Step(E0, F, W, bl["fresh"], batch=batch_size)
    if method in ("SGLD", "SGHMC"):
        E0e, Fe, We = _euler_blocks(d, step_size, decay, method)
        fresh_e = _Step(E0e, Fe, We, bl["fresh"], batch=batch_size)

        def step(k):
            return fresh_e(t), batch_size
    elif method == "SG-UL-MCMC":
        def step(k):      # g^(k) for k >= 0
            return fresh_b(t), batch_size
    elif method == "HSG-HMC":
        fresh1 = _Step(E0, F, W, bl["fresh"], batch=1)
        hyb = _Step(E0, F, W, bl["hyb0"], bl["hyb1"], batch=1)
        P = _period(step_size)

        def step(k):
            if k == 0:
                return fresh1(t), 1
            rho = 1.0 / k if schedule == "harmonic" else 1.0 / (((k - 1) % P) + 1)
            if rho == 1.0:
                return fresh1(t), 1
            return hyb(t, rho), 2
    else:
        reset = (_Step(E0, F, W, bl["full"]) if B0 == q.n else _Step(E0, F, W, bl["fresh"], batch=B0))
        inner_G = bl["hyb0"]          # ρ = 0 hybrid = SRVR's recursion with one sample
        inner = _Step(E0, F, W, inner_G, batch=inner_batch_size)

        def step(k):
            if k % L == 0:
                return reset(t), B0
            return inner(t), 2 * inner_batch_size
    t = np.zeros(D * D)
    t[-1] = 1.0                       # s_0 = (0, 0, 0, 0, 1)
    means = np.empty((K + 1, d))
    covs = np.empty((K + 1, d, d))
    ev = np.zeros(K + 1)
    spent = 0
    for k in range(K + 1):
        T = t.reshape(D, D)
        m = T[:d, -1]
        means[k] = m
        covs[k] = T[:d, :d] - np.outer(m, m)
        ev[k] = spent
        if k == K:
            break
        with np.errstate(over="ignore", invalid="ignore"):
            t, c = step(k)
        spent += c
        if not np.all(np.abs(t) < _DIVERGED):   # an unstable step size: the moments leave the floating-point range
            # (and the closed-form Bures distance of moments near it cancels to 0, a spurious hit: stop before)
            means[k + 1:], covs[k + 1:] = np.nan, np.nan
            ev[k + 1:] = np.arange(1, K - k + 1) * c + spent - c
            break
    with np.errstate(invalid="ignore"):
        w2 = bures_w2_2d(means, covs, q.mean, q.cov)
    return {"mean": means, "cov": covs, "w2": w2, "evaluations": ev}
