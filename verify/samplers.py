"""The named samplers of the papers (integrator × estimator) and a name → factory registry.

Every factory takes ``(target, step_size, **params)`` and returns an integrator of
:mod:`sgmcmc_verify.integrators` composed with an estimator of :mod:`sgmcmc_verify.estimators`::

    from sgmcmc_verify import samplers
    s = samplers.build("EWSG", target, 0.05, friction=10.0, index_chain_length=1)
    state = s.init(position, momentum)
    state, info = s.step(state, rng)

========== ================================================ ==========================================
name       integrator                                       estimator
========== ================================================ ==========================================
SGLD       overdamped EM, ``θ' = θ − hĝ + √(2h/β)ξ``        uniform minibatch
pSGLD      overdamped EM, RMSprop preconditioner            uniform minibatch
SVRG-LD    overdamped EM                                    SVRG control variate (full passes counted)
vrSG-LD    overdamped EM                                    vrSG-MCMC two-minibatch control variate
LS-SGLD    overdamped EM, Laplacian smoothing (2.5)         uniform minibatch
LS-GLD     overdamped EM, Laplacian smoothing (2.4)         full gradient
LS-LD      LS-GLD at a very small step (2.3)                full gradient
LS-pSGLD   overdamped EM, RMSprop ∘ Laplacian               uniform minibatch
SGHMC      underdamped EM, EWSG eq. (3), σ = √(2γ)          uniform minibatch
EWSG       underdamped EM (3)                               EWSG index chain, Algorithm 1
FG         underdamped EM (3)                               full gradient
EWSG-LD    overdamped EM (Appendix E)                       EWSG index chain, ``x = 0``
EWSG-VR    underdamped EM (3), friction ``Γ_k``             EWSG index chain + variance calibration (App. F)
vrSG-HMC   underdamped EM (3)                               vrSG-MCMC two-minibatch control variate
SG-UL-MCMC exponential (OU) integrator, HSG-HMC (4)–(6)     uniform minibatch
HSG-HMC    exponential integrator (4)–(6)                   hybrid estimator (7)
SRVR-HMC   exponential integrator (4)–(6)                   SRVR recursion
HMC        leapfrog + Metropolis (exact reference)          full gradient
MALA       Langevin proposal + Metropolis (exact reference) full gradient
MH         random-walk Metropolis, s.d. ``√(2h)`` (exact)   full potential
CP-SGHMC   underdamped EM (3)                               k-means clustered minibatch (EWSG §5.3 [20])
FlyMC      Firefly MC: Gibbs on brightnesses + MALA on θ    bright data only (exact on the joint)
========== ================================================ ==========================================

References
----------
EWSG (seed ``000_8e0377c44e2ea3b8.txt``) eq. (3), Algorithm 1, §5.1, Appendices E–F (Algorithm 2); HSG-HMC (seed
``001_d56659fdb8996bf2.txt``) eqs. (4)–(7), Algorithm 1; LS-SGLD (seed ``004_8438bd4b543e0fc4.txt``)
eqs. (2.3)–(2.5), §4; vrSG-MCMC (seed ``002_245183f35db8d795.txt``) Algorithm 1.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .errors import check_positive
from .estimators.cp_sghmc import ClusteredMinibatch, kmeans_clusters
from .estimators.ewsg import EWSGIndexChain
from .estimators.ewsg_vr import EWSGVarianceReduced
from .estimators.minibatch import FullGradient, UniformMinibatch
from .estimators.variance_reduced import (HybridGradient, RecursiveGradient, SVRGControlVariate,
                                         TwoMinibatchControlVariate)
from .integrators.exponential import ExponentialIntegrator
from .integrators.flymc import FireflyMC
from .integrators.metropolis import HMC, MALA
from .integrators.overdamped import OverdampedEM
from .integrators.preconditioners import LaplacianPreconditioner, RMSpropPreconditioner
from .integrators.random_walk import RandomWalkMetropolis
from .integrators.underdamped import UnderdampedEM

__all__ = ["sgld", "psgld", "svrg_ld", "ls_sgld", "ls_gld", "ls_ld", "ls_psgld", "sghmc", "ewsg", "fg",
           "vrsg_estimator", "vrsg_ld", "vrsg_hmc", "ewsg_ld", "ewsg_vr",
           "sg_ul_mcmc", "hsg_hmc", "srvr_hmc", "hmc", "mala", "random_walk_mh", "cp_sghmc", "flymc", "GapBound",
           "SAMPLERS", "get", "build"]


def _minibatch(estimator, batch_size):
    return UniformMinibatch(batch_size) if estimator is None else estimator


# ---- overdamped --------------------------------------------------------------------------------

def sgld(target, step_size, batch_size=1, inverse_temperature=1.0, estimator=None) -> OverdampedEM:
    """SGLD (Welling & Teh 2011) in the ``h`` convention: ``θ' = θ − h ĝ + √(2h/β) ξ``, uniform minibatch.

    ``estimator`` replaces the uniform minibatch of size ``batch_size`` (e.g. a noisy exact gradient).
    """
    return OverdampedEM(target, step_size, _minibatch(estimator, batch_size), inverse_temperature=inverse_temperature,
                        name="SGLD")


def psgld(target, step_size, batch_size=1, alpha=0.99, lam=1e-5, inverse_temperature=1.0,
          preconditioner_input="per_datum", smoothing=None, estimator=None) -> OverdampedEM:
    """pSGLD (Li et al. 2016) with EWSG §5's defaults ``λ = 1e-5, α = 0.99``.

    ``preconditioner_input`` picks one of the two documented conventions (see
    :class:`~sgmcmc_verify.integrators.preconditioners.RMSpropPreconditioner`): ``"per_datum"`` (Li et al.,
    EWSG) or ``"full"`` (the LS-SGLD paper). ``smoothing`` (``None``) composes Laplacian smoothing as
    LS-pSGLD does; the LS-SGLD experiments run their pSGLD as ``smoothing=0.0``, LS-pSGLD's arithmetic
    at σ = 0, which equals pSGLD up to the round-off of the σ = 0 FFT.
    """
    pre = RMSpropPreconditioner(alpha, lam, preconditioner_input, smoothing)
    return OverdampedEM(target, step_size, _minibatch(estimator, batch_size), pre, inverse_temperature, name="pSGLD")


def svrg_ld(target, step_size, batch_size=1, epoch_length=None, inverse_temperature=1.0) -> OverdampedEM:
    """SVRG-LD (Dubey et al. 2016): overdamped EM with the SVRG control variate; full passes counted."""
    return OverdampedEM(target, step_size, SVRGControlVariate(UniformMinibatch(batch_size), epoch_length),
                        inverse_temperature=inverse_temperature, name="SVRG-LD")


def ls_sgld(target, step_size, smoothing, batch_size=1, inverse_temperature=1.0, estimator=None) -> OverdampedEM:
    """LS-SGLD, eq. (2.5) / Algorithm 1: ``x' = x − η A_σ⁻¹ĝ + √(2η/β) A_σ^{−1/2}ξ``, uniform minibatch.

    ``smoothing``: a number σ (periodic ``A_σ`` of eq. (2.1), FFT) or an operator
    (:func:`~sgmcmc_verify.integrators.smoothing.paper_2d_smoothing` for eq. (4.1)).
    """
    return OverdampedEM(target, step_size, _minibatch(estimator, batch_size), LaplacianPreconditioner(smoothing),
                        inverse_temperature, name="LS-SGLD")


def ls_gld(target, step_size, smoothing, inverse_temperature=1.0) -> OverdampedEM:
    """LS-GLD, eq. (2.4): the full gradient; ``n`` evaluations per chain per step."""
    return OverdampedEM(target, step_size, FullGradient(), LaplacianPreconditioner(smoothing), inverse_temperature,
                        name="LS-GLD")


def ls_ld(target, step_size, smoothing, inverse_temperature=1.0) -> OverdampedEM:
    """LS-LD, eq. (2.3), approximated by EM with a very small step (the paper's §4.1.3 recipe).

    ``step_size`` must be small against the inverse largest curvature of ``A⁻¹∇²V``; the bias of the
    invariant law is O(step_size).
    """
    return OverdampedEM(target, step_size, FullGradient(), LaplacianPreconditioner(smoothing), inverse_temperature,
                        name="LS-LD")


def ls_psgld(target, step_size, smoothing, batch_size=1, alpha=0.99, lam=1e-5, inverse_temperature=1.0,
             preconditioner_input="per_datum", estimator=None) -> OverdampedEM:
    """LS-pSGLD (§4): RMSprop composed with Laplacian smoothing, ``D = G^{1/2}A⁻¹G^{1/2}`` (see
    :class:`~sgmcmc_verify.integrators.preconditioners.RMSpropPreconditioner` for why)."""
    pre = RMSpropPreconditioner(alpha, lam, preconditioner_input, smoothing)
    return OverdampedEM(target, step_size, _minibatch(estimator, batch_size), pre, inverse_temperature,
                        name="LS-pSGLD")


def ewsg_ld(target, step_size, index_chain_length=1, batch_size=1, x_choice="zero",
            inverse_temperature=1.0) -> OverdampedEM:
    """Overdamped EWSG (EWSG Appendix E): overdamped EM ``θ' = θ − hĝ + √(2h/β)ξ`` with the index chain (6).

    The weights are Appendix E's ``p_i ∝ exp(½‖x + n a_i‖²)``, ``n a_i = √(hβ/2) n∇V_i``, with
    ``x = 0`` by default (the paper recommends no x for this case; see
    :class:`~sgmcmc_verify.estimators.EWSGIndexChain`). ``index_chain_length=0`` is SGLD step for step.
    """
    est = EWSGIndexChain(index_chain_length, batch_size, x_choice)
    return OverdampedEM(target, step_size, est, inverse_temperature=inverse_temperature, name="EWSG-LD")


# ---- underdamped (EWSG eq. (3)) ----------------------------------------------------------------

def sghmc(target, step_size, friction, batch_size=1, noise_scale=None, estimator=None) -> UnderdampedEM:
    """SGHMC / SGULD as the EWSG paper runs it: underdamped EM (3) with a uniform minibatch gradient."""
    return UnderdampedEM(target, step_size, friction, _minibatch(estimator, batch_size), noise_scale, name="SGHMC")


def ewsg(target, step_size, friction, index_chain_length=1, batch_size=1, x_choice="recommended",
         noise_scale=None) -> UnderdampedEM:
    """EWSG, Algorithm 1: underdamped EM (3) with the exponentially weighted index chain (6)."""
    est = EWSGIndexChain(index_chain_length, batch_size, x_choice)
    return UnderdampedEM(target, step_size, friction, est, noise_scale, name="EWSG")


def fg(target, step_size, friction, noise_scale=None) -> UnderdampedEM:
    """Full-gradient underdamped Langevin, EM (3): ``n`` evaluations per step."""
    return UnderdampedEM(target, step_size, friction, FullGradient(), noise_scale, name="FG")


def ewsg_vr(target, step_size, friction, index_chain_length=1, batch_size=1, x_choice="recommended",
            calibration_period=1, period_unit="passes", x_friction="base", noise_scale=None) -> UnderdampedEM:
    """EWSG-VR (EWSG Appendix F, Algorithm 2): underdamped EM (3) with friction ``Γ_k`` corrected by the
    SVRG-updated covariance of the stochastic gradient, calibrated every ``calibration_period`` (L) data
    passes; calibration passes are counted (see :class:`~sgmcmc_verify.estimators.EWSGVarianceReduced`)."""
    est = EWSGVarianceReduced(EWSGIndexChain(index_chain_length, batch_size, x_choice), calibration_period,
                              period_unit, x_friction)
    return UnderdampedEM(target, step_size, friction, est, noise_scale, name="EWSG-VR")


# ---- vrSG-MCMC (Algorithm 1) wrapping SGLD and SGHMC ---------------------------------------------

def vrsg_estimator(n1, n2, update_interval=10, replace=False) -> TwoMinibatchControlVariate:
    """vrSG-MCMC's estimator: old gradient from ``n1`` data refreshed every ``m = update_interval`` steps,
    correction from ``n2`` data every step.

    ``replace=False`` (default) samples both minibatches without replacement, the scheme of the
    paper's proofs (inclusion indicators ``z_i``, ``b_i``); ``True`` is the printed Algorithm 1
    ("sample w/t replacement"). §5's deep-learning runs use ``n1 = 100, n2 = 10, m = 10``.
    """
    return TwoMinibatchControlVariate(UniformMinibatch(n2, replace), UniformMinibatch(n1, replace), update_interval)


def vrsg_ld(target, step_size, n1, n2, update_interval=10, replace=False, inverse_temperature=1.0) -> OverdampedEM:
    """vrSG-MCMC on SGLD ("NextS" = the SGLD update): overdamped EM with :func:`vrsg_estimator`.

    ``n1 = N`` with ``replace=False`` is SVRG-LD (Dubey et al. 2016; Remark 7) with epoch length ``m``.
    """
    return OverdampedEM(target, step_size, vrsg_estimator(n1, n2, update_interval, replace),
                        inverse_temperature=inverse_temperature, name="vrSG-LD")


def vrsg_hmc(target, step_size, friction, n1, n2, update_interval=10, replace=False, noise_scale=None) -> UnderdampedEM:
    """vrSG-MCMC on SGHMC: underdamped EM (3) with :func:`vrsg_estimator` (Algorithm 1's ``τ`` is the momentum)."""
    return UnderdampedEM(target, step_size, friction, vrsg_estimator(n1, n2, update_interval, replace), noise_scale,
                         name="vrSG-HMC")


# ---- exponential integrator (HSG-HMC (4)–(6)) --------------------------------------------------

def sg_ul_mcmc(target, step_size, friction=None, batch_size=1, u=1.0, estimator=None) -> ExponentialIntegrator:
    """SG-UL-MCMC (Cheng et al. 2017, as described in the HSG-HMC seed): (4)–(6) with a uniform minibatch.

    ``friction=None`` takes Remark 2's ``e^{−γη} = 0.9``.
    """
    return ExponentialIntegrator(target, step_size, friction, _minibatch(estimator, batch_size), u,
                                 name="SG-UL-MCMC")


def hsg_hmc(target, step_size, friction=None, schedule="periodic", rho=None, batch_size=1,
            u=1.0) -> ExponentialIntegrator:
    """HSG-HMC (Algorithm 1): the exponential integrator (4)–(6) with the hybrid estimator (7).

    Parameters
    ----------
    target : FiniteSumPotential
    step_size : float
        ``η`` > 0 (the method's one hyperparameter).
    friction : float or None
        ``γ`` > 0; ``None`` takes Remark 2's ``e^{−γη} = 0.9``.
    schedule, rho : see :class:`~sgmcmc_verify.estimators.HybridGradient`
    batch_size : int, default 1
        Fresh samples per iteration.
    u : float, default 1
        Inverse mass (Remark 2).

    Returns
    -------
    sgmcmc_verify.integrators.ExponentialIntegrator

    Raises
    ------
    ValueError
        ``step_size <= 0`` (names ``step_size``), ``friction <= 0`` (names ``friction``), and the
        estimator's errors.
    """
    h = check_positive("step_size", step_size)
    est = HybridGradient(UniformMinibatch(batch_size), schedule, h, rho)
    return ExponentialIntegrator(target, h, friction, est, u, name="HSG-HMC")


def srvr_hmc(target, step_size, outer_batch_size, inner_batch_size=1, inner_loop_length=10, friction=None,
             u=1.0) -> ExponentialIntegrator:
    """SRVR-HMC: the exponential integrator (4)–(6) with the recursive estimator (η, L, B, B0).

    Raises
    ------
    ValueError
        ``step_size <= 0``, ``friction <= 0``, ``B0 < B``, ``L < 1``, ``B < 1`` (each named).
    """
    est = RecursiveGradient(outer_batch_size, inner_batch_size, inner_loop_length)
    return ExponentialIntegrator(target, step_size, friction, est, u, name="SRVR-HMC")


# ---- Metropolis-corrected references -----------------------------------------------------------

def hmc(target, step_size, num_steps) -> HMC:
    """HMC with ``num_steps`` leapfrog steps (unit mass) whose ``step_size`` means a time step h, as for every other
    factory here (MALA's, random-walk MH's): trajectory length ``τ = √(2h)``, leapfrog step ``ε = τ / num_steps``.
    One iteration from a fresh momentum moves θ by ``−(τ²/2)∇V + τ ξ`` to leading order in τ, one Langevin step of
    time ``τ²/2 = h``; an exact reference. (Read as the leapfrog step ε itself, ``step_size`` = h would give a
    trajectory ``num_steps · h``, a Langevin time ``O(h²)`` per iteration: at the audit's h·L = 0.08 on the §5.1
    target, L = 50, HMC moved ≈ 10⁻³ of what SGLD moves and the displaced-start check flagged it, |z| = 17.)

    Raises
    ------
    ValueError
        ``step_size`` not positive, or ``num_steps`` not a positive integer.
    """
    h = check_positive("step_size", step_size)
    if int(num_steps) != num_steps or num_steps < 1:
        raise ValueError(f"num_steps must be a positive integer, got {num_steps!r}")
    return HMC(target, float(np.sqrt(2.0 * h)) / int(num_steps), int(num_steps))


def mala(target, step_size) -> MALA:
    """MALA with the Langevin proposal of step ``step_size``; an exact reference."""
    return MALA(target, step_size)


def random_walk_mh(target, step_size) -> RandomWalkMetropolis:
    """Random-walk Metropolis with proposal s.d. ``ε = √(2h)``: the diffusion of one Langevin step of size h,
    so that ``step_size`` means a time step as for every other factory here; an exact reference (EWSG G.1)."""
    return RandomWalkMetropolis(target, float(np.sqrt(2.0 * check_positive("step_size", step_size))))


def cp_sghmc(target, step_size, friction, batch_size=10, n_clusters=10, allocation="equal", seed=0,
             noise_scale=None) -> UnderdampedEM:
    """CP-SGHMC (EWSG §5.3, [20]): underdamped EM (3) with ``b_k`` draws from every k-means cluster of the data.

    The clusters are k-means of the target's data (``target.centers``, or ``target.X``) with
    ``K = min(n_clusters, batch_size)`` (every cluster needs a draw), ``random_state = seed``.

    Raises
    ------
    ValueError
        A target without ``centers`` or ``X``; bad ``batch_size``, ``n_clusters`` or ``allocation``.
    """
    data = getattr(target, "centers", None)
    data = getattr(target, "X", None) if data is None else data
    if data is None:
        raise ValueError("cp_sghmc needs a target with data (target.centers or target.X) to cluster")
    k = min(int(n_clusters), int(batch_size), int(np.asarray(data).shape[0]))
    labels = kmeans_clusters(np.asarray(data, dtype=np.float64), k, seed=seed)
    return UnderdampedEM(target, step_size, friction, ClusteredMinibatch(labels, batch_size, allocation),
                         noise_scale=noise_scale, name="CP-SGHMC")


class GapBound:
    """The bound interface of :mod:`sgmcmc_verify.targets.bounds` for any finite-sum target, ``B_n = L_n e^{−δ}``.

    ``log L_n(θ) = −V_n(θ)`` (``target.data_potentials``), ``log B_n = log L_n − δ``: a lower bound with a
    constant gap, so a datum is bright with probability ``1 − e^{−δ}`` and FlyMC stays exact. The collapsed
    total ``Σ_n log B_n`` together with the prior is ``−V(θ) − nδ`` (one ``target.potential`` call: O(d²) on the
    Gaussian targets, O(n) on the others, not counted as evaluations), and the prior is carried in it
    (``log_prior = 0``). It lets the audit run FlyMC on any target; the papers' FlyMC uses tight bounds
    (:class:`~sgmcmc_verify.targets.bounds.LogisticJJBound`).
    """

    def __init__(self, target, gap: float = 0.1):
        self.base, self.gap = target, check_positive("gap", gap)
        self.n, self.dim = target.n, target.dim

    def __getattr__(self, key):           # posterior_mean, hessian, ... of the wrapped target
        if key in ("base", "gap"):
            raise AttributeError(key)
        return getattr(self.base, key)

    def log_likelihood_pairs(self, theta, idx):
        return -self.base.data_potentials(theta, np.asarray(idx)[:, None])[:, 0]

    def grad_log_likelihood_pairs(self, theta, idx):
        return -self.base.data_gradients(theta, np.asarray(idx)[:, None])[:, 0, :]

    def log_bound_pairs(self, theta, idx):
        return self.log_likelihood_pairs(theta, idx) - self.gap

    def grad_log_bound_pairs(self, theta, idx):
        return self.grad_log_likelihood_pairs(theta, idx)

    def log_bound_total(self, theta):
        return -self.base.potential(theta) - self.n * self.gap

    def grad_log_bound_total(self, theta):
        return -self.base.full_gradient(theta)

    def log_prior(self, theta):
        return np.zeros(theta.shape[0])

    def grad_log_prior(self, theta):
        return np.zeros_like(theta)

    def log_likelihood_total(self, theta):
        return -self.base.potential(theta)


def flymc(target, step_size, resample_size=None, proposal="mala", gap=0.1) -> FireflyMC:
    """Firefly MC (EWSG §5.2, G.1) on ``target``: its own bound interface if it has one, else :class:`GapBound`.

    ``resample_size`` defaults to 10 % of n (EWSG G.1); with ``proposal="mala"`` the step is the Langevin
    step h (drift ``h∇``, noise ``√(2h)``), an exact reference (Metropolis-corrected).
    """
    bound = target if hasattr(target, "log_bound_total") else GapBound(target, gap)
    m = max(1, bound.n // 10) if resample_size is None else resample_size
    return FireflyMC(bound, step_size, m, proposal)


#: name (as the papers write it) → factory ``(target, step_size, **params)``.
SAMPLERS: dict[str, Callable] = {
    "SGLD": sgld, "pSGLD": psgld, "SVRG-LD": svrg_ld, "LS-SGLD": ls_sgld, "LS-GLD": ls_gld, "LS-LD": ls_ld,
    "LS-pSGLD": ls_psgld, "SGHMC": sghmc, "EWSG": ewsg, "FG": fg, "SG-UL-MCMC": sg_ul_mcmc, "HSG-HMC": hsg_hmc,
    "SRVR-HMC": srvr_hmc, "HMC": hmc, "MALA": mala, "vrSG-LD": vrsg_ld, "vrSG-HMC": vrsg_hmc,
    "EWSG-LD": ewsg_ld, "EWSG-VR": ewsg_vr, "MH": random_walk_mh, "CP-SGHMC": cp_sghmc, "FlyMC": flymc,
}


def get(name: str) -> Callable:
    """The factory registered as ``name``.

    Raises
    ------
    ValueError
        Unknown name (the message lists the known ones).
    """
    try:
        return SAMPLERS[name]
    except KeyError:
        raise ValueError(f"sampler must be one of {', '.join(SAMPLERS)}; got {name!r}") from None


def build(name: str, target, step_size, **params):
    """``get(name)(target, step_size, **params)``.

    Examples
    --------
    >>> from sgmcmc_verify.targets import gaussian_means_target
    >>> build("SGHMC", gaussian_means_target(), 0.05, friction=10.0).name
    'SGHMC'
    """
    return get(name)(target, step_size, **params)

