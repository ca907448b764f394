"""Exact first two moments of SG-UL-MCMC, SRVR-HMC and HSG-HMC on a quadratic finite sum.

On ``V(θ) = Σ_i ½‖θ − c_i‖²`` (:class:`sgmcmc_verify.targets.GaussianMeansTarget`) every per-datum
Hessian is ``I``, so the difference term of the recursive estimators is exact,
``∇F(x', ξ) − ∇F(x, ξ) = ∇f(x') − ∇f(x)``, and the estimator error ``e = g − ∇f(x)`` obeys

* SG-UL-MCMC (minibatch b):          ``e' = u'``, ``Cov u' = Σ_u / b``;
* HSG-HMC (7), one sample:           ``e' = (1 − ρ') e + ρ' u'``, ``Cov u' = Σ_u``;
* SRVR-HMC (B0, B, L):               ``e' = u'`` (``Cov = Σ_u/B0``, 0 if ``B0 = n``) at a reset, else ``e' = e``;

with ``u'`` independent of the past and ``Σ_u = n² Cov_emp(c)`` (the state-independent noise of
one uniform sample). With ``y = x − c̄`` the triple ``z = (y, v, e)`` follows the *linear* recursion
``z' = A z + w`` with the exponential-integrator coefficients of (4)–(6), so its mean and
covariance propagate exactly (no Monte Carlo) even though ``u`` is not Gaussian. W2 of the
position law to the target ``N(c̄, I/n)`` is reported as the Bures (Gelbrich) distance of these
exact moments, which is a *lower bound* on the true W2 (and equal to it when the law is Gaussian).

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: eqs. (4)–(7), Remark 2, Table 1, Corollaries 1–2.
"""
from __future__ import annotations

import math

import numpy as np

from .gaussian import bures_w2
from .ou_integrator import ou_noise_covariance, ou_step_coefficients

__all__ = ["moment_trajectory", "gradients_to_accuracy"]


def _rho(schedule, k, period):
    if schedule == "harmonic":
        return 1.0 / k
    return 1.0 / (((k - 1) % period) + 1)


def moment_trajectory(centers, method, step_size, checkpoints, *, batch_size=1, outer_batch_size=None,
                      inner_batch_size=1, inner_loop_length=10, schedule="periodic", decay=0.9, u=1.0,
                      return_moments=False):
    """W2 lower bound (Bures on exact moments) and gradient evaluations at the given iteration counts.

    Parameters
    ----------
    centers : (n, d) ndarray
        The ``c_i`` of the quadratic target.
    method : {"SG-UL-MCMC", "HSG-HMC", "SRVR-HMC"}
    step_size : float
        ``η`` > 0; ``γ`` from ``e^{−γη} = decay`` (Remark 2).
    checkpoints : (m,) increasing ints
        Iteration counts ``k`` at which W2 is evaluated.
    batch_size : int
        SG-UL-MCMC's ``b``.
    outer_batch_size, inner_batch_size, inner_loop_length : int
        SRVR-HMC's ``B0`` (``None`` = n), ``B``, ``L``.
    schedule : {"periodic", "harmonic"}
        HSG-HMC's weights (Corollary 2 / Theorem 1).
    return_moments : bool, default False
        Also return the exact mean ``(m, d)`` and covariance ``(m, d, d)`` of the position ``x``.

    Returns
    -------
    w2 : (m,) ndarray; evaluations : (m,) ndarray of per-datum gradient evaluations spent by the
    sampler in its first k steps (the estimates ``g^(0)…g^(k−1)``);
    with ``return_moments``, also means (m, d) and covariances (m, d, d) of x.

    Raises
    ------
    ValueError
        Unknown ``method`` or non-positive ``step_size``.
    """
    if not (step_size > 0):
        raise ValueError(f"step_size must be > 0, got {step_size!r}")
    if method not in ("SG-UL-MCMC", "HSG-HMC", "SRVR-HMC"):
        raise ValueError(f"method must be SG-UL-MCMC, HSG-HMC or SRVR-HMC, got {method!r}")
    c = np.asarray(centers, dtype=np.float64)
    n, d = c.shape
    cbar = c.mean(axis=0)
    Su = n**2 * np.cov(c.T, bias=True).reshape(d, d)
    gam = -math.log(decay) / step_size
    co = ou_step_coefficients(gam, step_size, u)
    Q = ou_noise_covariance(gam, step_size, u)
    I = np.eye(d)
    Z = np.zeros((d, d))

    def A(keep):
        return np.block([[(1 + co.x_from_g * n) * I, co.x_from_v * I, co.x_from_g * I],
                         [co.v_from_g * n * I, co.v_decay * I, co.v_from_g * I],
                         [Z, Z, keep * I]])

    W_ou = np.block([[Q[0, 0] * I, Q[0, 1] * I, Z], [Q[1, 0] * I, Q[1, 1] * I, Z], [Z, Z, Z]])
    B0 = n if outer_batch_size is None else outer_batch_size
    period = int(math.ceil(1.0 / step_size - 1e-12))
    mean = np.concatenate([-cbar, np.zeros(2 * d)])
    S = np.zeros((3 * d, 3 * d))
    if method == "SG-UL-MCMC":
        S[2 * d:, 2 * d:] = Su / batch_size
        ev0 = batch_size
    elif method == "HSG-HMC":
        S[2 * d:, 2 * d:] = Su
        ev0 = 1
    else:
        S[2 * d:, 2 * d:] = 0.0 if B0 == n else Su / B0
        ev0 = B0
    ck = np.asarray(checkpoints, dtype=np.int64)
    out_w2, out_ev = np.empty(ck.size), np.empty(ck.size)
    out_m, out_S = np.empty((ck.size, d)), np.empty((ck.size, d, d))
    ev, pending = 0, ev0   # evaluations spent on g^(0..k-1), as the samplers count; cost of g^(k)
    j = 0
    tgt_cov = I / n
    A_full = {}
    for k in range(0, int(ck[-1]) + 1):
        while j < ck.size and ck[j] == k:
            out_w2[j] = float(bures_w2(mean[:d], S[:d, :d] + 1e-300 * I, np.zeros(d), tgt_cov))
            out_ev[j] = ev
            out_m[j], out_S[j] = mean[:d] + cbar, S[:d, :d]
            j += 1
        if j == ck.size:
            break
        # step k -> k+1 with g^(k), then the estimate g^(k+1)
        kk = k + 1
        if method == "SG-UL-MCMC":
            keep, inj, cost = 0.0, Su / batch_size, batch_size
        elif method == "HSG-HMC":
            r = _rho(schedule, kk, period)
            keep, inj, cost = 1.0 - r, r * r * Su, (1 if r == 1.0 else 2)
        else:
            if kk % inner_loop_length == 0:
                keep, inj, cost = 0.0, (0.0 * Su if B0 == n else Su / B0), B0
            else:
                keep, inj, cost = 1.0, 0.0 * Su, 2 * inner_batch_size
        key = keep
        if key not in A_full:
            A_full[key] = A(keep)
        Ak = A_full[key]
        mean = Ak @ mean
        S = Ak @ S @ Ak.T + W_ou
        S[2 * d:, 2 * d:] += inj
        ev += pending
        pending = cost
    if return_moments:
        return out_w2, out_ev, out_m, out_S
    return out_w2, out_ev


def gradients_to_accuracy(w2, evaluations, eps):
    """Fewest evaluations at a checkpoint from which on W2 ≤ ε (inf if never): (len(eps),) ndarray."""
    w2 = np.asarray(w2)
    out = np.full(len(eps), np.inf)
    # stay below from that checkpoint on (within the recorded horizon)
    run_max = np.maximum.accumulate(w2[::-1])[::-1]
    for i, e in enumerate(eps):
        ok = np.nonzero(run_max <= e)[0]
        if ok.size:
            out[i] = evaluations[ok[0]]
    return out
