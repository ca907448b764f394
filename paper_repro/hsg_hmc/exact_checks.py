"""HSG-HMC's exact items: the exponential integrator (Lemma 1, eqs. (4)-(6)), the hybrid estimator (7) and the mixture's
nonconvexity and dissipativity (§ "Sampling from a Gaussian Mixture Density").

Three measurements, no Monte Carlo:

* **Lemma 1 / (4)-(6)**: one step of :class:`~sgmcmc_verify.integrators.exponential.ExponentialIntegrator` with a frozen
  gradient ``g`` is read exactly (its mean map from noiseless steps, ``inverse_temperature = inf``; its noise map by
  feeding the step prescribed unit normals) and compared with the exact flow of the frozen-gradient SDE (8) computed
  independently: the mean by the matrix exponential of the affine drift, the covariance by Van Loan's block
  exponential (scipy.linalg.expm), at several (γ, η, u), Remark 2's among them. Beside it, the sympy derivation of
  (4)-(6) from (8) (:func:`sgmcmc_verify.analytic.ou_integrator.symbolic_check`).
* **Eq. (7)**: HSG-HMC run on the mixture with the periodic and the harmonic ρ; at every step the estimator's output is
  compared with (7) evaluated by hand from the same sample ξ (the generator's state is copied before each call and
  the draw replayed), and the samples drawn per iteration are counted.
* **The mixture**: with ``f_i(x) = −log(2e^{−‖x−a‖²/2} + e^{−‖x+a‖²/2})`` sympy derives ``∇²f_i = I − a aᵀ sech²(t)``,
  ``t = ⟨a, x⟩ + ln√2`` (so the smallest Hessian eigenvalue over x is ``1 − ‖a‖²``, attained at t = 0), and the
  decomposition ``⟨∇f_i(x), x⟩ − (‖x‖²/2 − ‖a‖²/2) = (‖x‖ − ‖a‖)²/2 + ‖a‖‖x‖(1 − τc)`` (``τ = tanh t``,
  ``c`` the cosine between a and x; both terms >= 0): Assumption 3 with m = 1/2, b = ‖a‖²/2 for every a.

Writes ``exact_checks.json``.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: Lemma 1 and SDE (8), eqs. (4)-(7), Algorithm 1, Assumption 3, § "Sampling
from a Gaussian Mixture Density".
"""
from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
from scipy.linalg import expm

from sgmcmc_verify.estimators import HybridGradient, UniformMinibatch
from sgmcmc_verify.estimators.base import GradientEstimate
from sgmcmc_verify.integrators.exponential import ExponentialIntegrator
from sgmcmc_verify.store.io import write_json
from sgmcmc_verify.targets.mixtures import hsg_mixture_target
from sgmcmc_verify.runner import run_chains

from .settings import ExactChecksSettings

__all__ = ["sde_step_moments", "integrator_step_moments", "hybrid_check", "mixture_symbolic", "run_exact_checks",
           "FrozenGradient"]


class FrozenGradient:
    """An estimator that returns the same gradient ``g`` (``(d,)``) for every chain: the frozen ``g^(k)`` of (8)."""

    def __init__(self, g):
        self.g = np.asarray(g, dtype=float)

    def init(self, target, position, rng=None):
        return None

    def __call__(self, state, rng, target, position, context=None):
        return GradientEstimate(np.broadcast_to(self.g, position.shape).copy(), 0, None, {})

    def settings(self) -> dict:
        return {"estimator": "frozen"}


class _Normals:
    """A stand-in generator whose ``standard_normal`` returns prescribed arrays (reads the step's noise map)."""

    def __init__(self, xi):
        self.xi = xi

    def standard_normal(self, shape):
        return np.broadcast_to(self.xi, shape).copy()


def sde_step_moments(friction, step_size, u, g) -> dict:
    """The exact one-step mean map and covariance of the frozen-gradient SDE (8), one coordinate.

    ``dX = V dt``, ``dV = −γV dt − u g dt + √(2γu) dB``: the mean of ``(X_η, V_η)`` from ``(x, v)`` is read from
    ``expm`` of the 3 × 3 affine drift; the covariance is Van Loan's ``F₂₂ᵀ F₁₂`` of ``expm([[−A, Q], [0, Aᵀ]] η)``.

    Parameters
    ----------
    friction, step_size, u : float
        γ, η (time units), the inverse mass; each finite and > 0.
    g : float
        The frozen gradient, finite and nonzero (the g-coefficients are read as a ratio to it).

    Returns
    -------
    dict
        ``x_from_x, x_from_v, x_from_g, v_from_x, v_decay, v_from_g, cov_xx, cov_xv, cov_vv`` (floats).

    Raises
    ------
    ValueError
        A parameter outside its range (named).
    """
    for name, v in (("friction", friction), ("step_size", step_size), ("u", u)):
        if not (math.isfinite(v) and v > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {v!r}")
    if not (math.isfinite(g) and g != 0):
        raise ValueError(f"g must be finite and nonzero, got {g!r}")
    gam, h = float(friction), float(step_size)
    A = np.array([[0.0, 1.0], [0.0, -gam]])
    aff = np.zeros((3, 3))
    aff[:2, :2], aff[1, 2] = A, -u * g
    E = expm(aff * h)
    Q = np.diag([0.0, 2.0 * gam * u])
    H = np.zeros((4, 4))
    H[:2, :2], H[:2, 2:], H[2:, 2:] = -A, Q, A.T
    F = expm(H * h)
    cov = F[2:, 2:].T @ F[:2, 2:]
    return {"x_from_x": E[0, 0], "x_from_v": E[0, 1], "x_from_g": E[0, 2] / g, "v_from_x": E[1, 0],
            "v_decay": E[1, 1], "v_from_g": E[1, 2] / g, "cov_xx": cov[0, 0], "cov_xv": cov[0, 1], "cov_vv": cov[1, 1]}


def integrator_step_moments(friction, step_size, u, g, integrator_class=ExponentialIntegrator) -> dict:
    """The same nine numbers read from one step of the toolkit's integrator, ``d = 1``.

    The mean map from noiseless steps (``inverse_temperature = inf``) from the unit states and a frozen gradient; the
    noise map from the step's response to unit normals (a stand-in generator), whose outer product is the covariance.
    The target (a 1-D mixture) only sizes the state: the frozen estimator never calls its gradient.
    ``integrator_class`` replaces :class:`~sgmcmc_verify.integrators.exponential.ExponentialIntegrator` (tests plant
    a bug there). Raises what :func:`sde_step_moments` and the integrator raise for bad parameters.
    """
    sde_step_moments(friction, step_size, u, g)   # the same validation
    target = hsg_mixture_target(4, 1, 0)

    def mean(x, v, gg):
        s = integrator_class(target, step_size, friction, FrozenGradient([gg]), u, inverse_temperature=np.inf)
        st = s.init(np.array([[x]]), np.array([[v]]))
        new = run_chains(s, st, np.random.default_rng(0), steps=1)["state"]
        return new.position[0, 0], new.momentum[0, 0]
    x0, v0 = mean(0.0, 0.0, 0.0)
    xx, vx = mean(1.0, 0.0, 0.0)
    xv, vv = mean(0.0, 1.0, 0.0)
    xg, vg = mean(0.0, 0.0, g)
    noisy = integrator_class(target, step_size, friction, FrozenGradient([0.0]), u)
    cols = []
    for xi in (np.array([1.0, 0.0]), np.array([0.0, 1.0])):
        st = noisy.init(np.zeros((1, 1)), np.zeros((1, 1)))
        new = run_chains(noisy, st, _Normals(xi[:, None, None]), steps=1)["state"]
        cols.append((new.position[0, 0], new.momentum[0, 0]))
    L = np.array(cols).T        # columns: the response to each unit normal
    cov = L @ L.T
    return {"x_from_x": xx - x0, "x_from_v": xv - x0, "x_from_g": (xg - x0) / g, "v_from_x": vx - v0,
            "v_decay": vv - v0, "v_from_g": (vg - v0) / g, "cov_xx": cov[0, 0], "cov_xv": cov[0, 1],
            "cov_vv": cov[1, 1]}


def _grad_F(target, x, idx):
    """∇F(x, ξ) by hand: prior gradient + (n/b) Σ_ξ ∇f_ξ(x), (chains, d)."""
    return target.prior_gradient(x) + target.n * target.data_gradients(x, idx).mean(axis=1)


def hybrid_check(s, schedule, estimator_class=HybridGradient) -> dict:
    """Run HSG-HMC on the mixture; at every step compare the estimate with (7) by hand and count the samples drawn.

    Returns
    -------
    dict
        ``max_relative_error`` (max over steps and chains of ‖g − g₍₇₎‖ / ‖g₍₇₎‖), ``samples_per_iteration`` (the
        ξ drawn per chain per iteration, max over steps; one more than the replayed draw when the
        estimator's generator moved further than that draw), ``evaluations_per_iteration`` (mean), ``steps``.
    """
    target = hsg_mixture_target(s.n_data, s.dim, s.mixture_seed)
    est = estimator_class(UniformMinibatch(1), schedule, s.step_size)
    rng = np.random.default_rng(s.seed)
    state = est.init(target, np.zeros((s.chains, s.dim)))
    x = rng.standard_normal((s.chains, s.dim))
    worst, samples, evals = 0.0, 0, []
    g_prev = x_prev = None
    for k in range(s.steps):
        replay = copy.deepcopy(rng)
        out = est(state, rng, target, x)
        idx = UniformMinibatch(1).draw(replay, target, s.chains)
        # the estimator drew exactly this one sample per chain iff the replayed generator is where the real one is
        drawn = idx.shape[1] if replay.bit_generator.state == rng.bit_generator.state else idx.shape[1] + 1
        samples = max(samples, drawn)
        g_u = _grad_F(target, x, idx)
        if k == 0:
            ref = g_u
        else:
            rho = est.rho_at(k)
            ref = rho * g_u + (1 - rho) * (g_prev + g_u - _grad_F(target, x_prev, idx))
        err = np.linalg.norm(out.gradient - ref, axis=1) / np.maximum(np.linalg.norm(ref, axis=1), 1e-300)
        worst = max(worst, float(err.max()))
        evals.append(out.evaluations)
        g_prev, x_prev, state = ref, x, out.state
        x = x - s.step_size * out.gradient + math.sqrt(2 * s.step_size) * rng.standard_normal(x.shape)
    return {"max_relative_error": worst, "samples_per_iteration": int(samples),
            "evaluations_per_iteration": float(np.mean(evals)), "steps": s.steps, "schedule": schedule}


def mixture_symbolic() -> dict:
    """sympy: the Hessian and dissipativity identities of one mixture component, and its smallest Hessian eigenvalue.

    Returns
    -------
    dict
        ``hessian_residual`` and ``dissipativity_residual`` (sympy text, "0" when the identities hold),
        ``lambda_min`` (the eigenvalue along a, as a function of t and r = ‖a‖², text) and ``lambda_min_inf`` (its
        infimum over t, text).
    """
    import sympy as sp

    x1, x2, a, rx = sp.symbols("x1 x2 a r_x", real=True)
    ra = sp.Symbol("r_a", positive=True)
    # by rotation invariance, a = (a, 0) with a = ‖a‖ > 0
    f = -sp.log(2 * sp.exp(-((x1 - a) ** 2 + x2**2) / 2) + sp.exp(-((x1 + a) ** 2 + x2**2) / 2))
    t = a * x1 + sp.log(2) / 2
    H = sp.hessian(f, (x1, x2))
    H_claim = sp.eye(2) - sp.Matrix([[a * a, 0], [0, 0]]) * (1 - sp.tanh(t) ** 2)
    hess_res = (H - H_claim).applyfunc(lambda e: sp.simplify(e.rewrite(sp.exp)))
    grad = sp.Matrix([sp.diff(f, x1), sp.diff(f, x2)])
    grad_claim = sp.Matrix([x1 - a * sp.tanh(t), x2])
    grad_res = (grad - grad_claim).applyfunc(lambda e: sp.simplify(e.rewrite(sp.exp)))
    # dissipativity: <grad f, x> - (|x|^2/2 - |a|^2/2) with |x| = rx, <a, x> = ra rx c, tanh t = tau
    c, tau = sp.symbols("c tau", real=True)
    lhs = rx**2 - tau * ra * rx * c - (rx**2 / 2 - ra**2 / 2)
    rhs = (rx - ra) ** 2 / 2 + ra * rx * (1 - tau * c)
    diss_res = sp.simplify(lhs - rhs)
    T = sp.Symbol("t", real=True)
    r = sp.Symbol("r", real=True)
    lam = 1 - r * (1 - sp.tanh(T) ** 2)
    crit = sp.solve(sp.diff(lam, T), T)            # tanh'(t) = 0 only at t = 0 (sech² > 0)
    ends = sp.limit(lam, T, sp.oo)                  # 1: the eigenvalue tends to 1 away from t = 0
    # for r >= 0 the value at the critical point is the smaller: the infimum over t (attained, at x with t = 0)
    inf = sp.simplify(sp.Min(*(lam.subs(T, c0) for c0 in crit), ends).subs(r, sp.Symbol("r", nonnegative=True)))
    def text(mat):
        return "0" if all(e == 0 for e in mat) else str(mat)
    return {"hessian_residual": text(hess_res), "gradient_residual": text(grad_res),
            "dissipativity_residual": str(diss_res), "lambda_min": str(lam), "lambda_min_inf": str(inf),
            "critical_t": [str(c0) for c0 in crit]}


def _remark2_factories():
    from sgmcmc_verify import samplers

    return {"SG-UL-MCMC": samplers.sg_ul_mcmc, "HSG-HMC": samplers.hsg_hmc,
            "SRVR-HMC": lambda target, eta: samplers.srvr_hmc(target, eta, outer_batch_size=10)}


def remark2_defaults(step_sizes, target, factories=None) -> list[dict]:
    """Remark 2's convention as the toolkit builds it: for each η, the friction γ and the u of
    :func:`~sgmcmc_verify.samplers.sg_ul_mcmc`, :func:`~sgmcmc_verify.samplers.hsg_hmc` and
    :func:`~sgmcmc_verify.samplers.srvr_hmc` built with their defaults (``friction=None``), and ``e^{−γη}``.

    ``factories`` (tests plant a bug there): ``{name: callable(target, η) -> sampler}``; default the three above.
    Source: seed ``001_d56659fdb8996bf2.txt``, Remark 2 ("we set u = 1 and γ is chosen to make e^{−γη} = 0.9").
    Raises what the sampler factories raise for a bad η (``ValueError`` naming ``step_size``).
    """
    out = []
    for eta in step_sizes:
        for name, make in (factories or _remark2_factories()).items():
            smp = make(target, eta)
            out.append({"sampler": name, "step_size": float(eta), "friction": float(smp.friction),
                        "u": float(smp.u), "decay": math.exp(-smp.friction * eta)})
    return out


def run_exact_checks(s: ExactChecksSettings, out_dir, n_jobs=1, backend=None, progress=None):
    """Lemma 1 / (4)-(6), eq. (7), the mixture's nonconvexity and dissipativity, Remark 2's defaults; writes
    ``exact_checks.json``."""
    from sgmcmc_verify.analytic.ou_integrator import symbolic_check

    pts = []
    for gam, h, u in s.integrator_points:
        sde, integ = sde_step_moments(gam, h, u, s.frozen_gradient), integrator_step_moments(gam, h, u,
                                                                                             s.frozen_gradient)
        pts.append({"friction": gam, "step_size": h, "u": u, "sde": {k: float(v) for k, v in sde.items()},
                    "integrator": {k: float(v) for k, v in integ.items()}})
    sym = {k: str(v) for k, v in symbolic_check().items()}
    hyb = [hybrid_check(s, sc) for sc in s.schedules]
    mix = mixture_symbolic()
    import sympy as sp
    inf = sp.sympify(mix["lambda_min_inf"])
    nonconvex = {f"{v:g}": float(inf.subs({sym: v for sym in inf.free_symbols})) for v in s.norms_squared}
    target = hsg_mixture_target(s.n_data, s.dim, s.mixture_seed)
    a2 = np.sum(target.centers**2, axis=1)
    write_json(Path(out_dir) / "exact_checks.json", {"remark2": remark2_defaults(s.remark2_step_sizes, target),
        "integrator": pts, "symbolic_4_6": sym, "hybrid": hyb, "mixture": mix, "lambda_min_inf_at": nonconvex,
        "data_norms_squared": {"min": float(a2.min()), "fraction_below_1": float(np.mean(a2 < 1.0)), "n": int(a2.size)},
        "frozen_gradient": s.frozen_gradient})
