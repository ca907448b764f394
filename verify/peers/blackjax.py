"""blackjax's SGLD and SGHMC in the toolkit's sampler protocol (JAX on CPU, float64), for audits and benchmarks.

Needs the ``peers`` extra (``pip install -e '.[peers]'``: ``blackjax>=1.2``, ``jax[cpu]``); importing this
module does not, building a sampler does (``ImportError`` naming the extra otherwise).

Parameter mapping (checked against the source of blackjax 1.7.1, ``blackjax/sgmcmc/diffusions.py`` and
``gradients.py``; the toolkit's conventions are those of EWSG, seed ``000_8e0377c44e2ea3b8.txt``, eq. (3)
and Appendix E):

=========================== ======================================================== =================================
quantity                    blackjax                                                 toolkit
=========================== ======================================================== =================================
gradient                    ``g = ∇log p̂ = ∇log p_0 + (N/b) Σ_j ∇log p(x_j | θ)``     ``ĝ = ∇V_0 + (n/b) Σ_j ∇V_{I_j} = −g``
                            (``grad_estimator``: ``N · mean`` over the minibatch)
SGLD step                   ``θ' = θ + ε g + √(2Tε) ξ``                              ``θ' = θ − h ĝ + √(2h/β) ξ``
SGHMC step (one solver      ``θ' = θ + ε p``,                                        ``θ' = θ + h r``,
step, ``diffusions.sghmc``) ``p' = (1 − αε) p + ε g + √(εT(2α − εTβ_b)) ξ``          ``r' = r − h(ĝ + γ r) + σ√h ξ``
=========================== ======================================================== =================================

so ``ε = h``, ``T = 1/β`` (β the toolkit's inverse temperature), blackjax's ``alpha = γ`` (the friction)
and blackjax's ``beta = 0`` (its estimate of the gradient-noise variance, subtracted from the injected
noise; ``σ = √(2γ/β)``, the toolkit's fluctuation–dissipation default, is then what it injects). Both
use the same "``h`` convention": the drift is ``h`` times the gradient and the noise variance ``2h``.
This is **not** Welling & Teh's SGLD convention (``θ' = θ + (ε/2) g + N(0, ε)``, i.e. ``h = ε/2``), nor
Chen et al.'s SGHMC parametrization (``η = ε²``, ``α = εC`` with ``M = I``); a step size quoted from
those papers must be converted before it is passed here.

blackjax's top-level SGHMC kernel (``blackjax.sghmc``) is *not* the papers' SGHMC: it redraws the
momentum from ``N(0, I)`` at every call and runs ``num_integration_steps`` solver steps on one
minibatch. The adapter therefore drives the one-step solver that kernel scans over,
``blackjax.sgmcmc.diffusions.sghmc(alpha=γ, beta=0)``, with a persistent momentum and a fresh
minibatch every step: the recursion of the toolkit's :func:`sgmcmc_verify.samplers.sghmc`. The SGLD adapter
calls ``blackjax.sgmcmc.sgld.build_kernel()`` as it is.

Randomness: the minibatch indices are drawn from the NumPy generator given to :meth:`step`
(i.i.d. uniform, :func:`~sgmcmc_verify.estimators.base.uniform_indices`, as the toolkit's uniform
minibatch with replacement), then one 32-bit seed for a JAX key that gives each chain its own key
for blackjax's Gaussian noise. The same generator therefore gives the same chains, but not the
toolkit's numbers: only the law is shared.

Targets: those whose per-datum log-likelihood has a JAX form here, the unit quadratics
``V_i = ½‖θ − c_i‖²`` (:class:`~sgmcmc_verify.targets.GaussianMeansTarget`, EWSG §5.1; and
:class:`~sgmcmc_verify.targets.GaussianMeanModel` with its prior ``λ‖θ‖²/2``). Others raise ``ValueError``.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..errors import DivergenceError, check_finite_array, check_positive, check_positive_int, nonfinite_chains
from ..estimators.base import uniform_indices
from ..estimators.minibatch import FullGradient, UniformMinibatch
from ..integrators.base import StepInfo, check_inverse_temperature, init_position
from ..targets.gaussian import AnisotropicGaussianMeansTarget, GaussianMeanModel, GaussianMeansTarget
from ..targets.mixtures import HSGMixtureTarget

__all__ = ["BlackjaxState", "BlackjaxSGLD", "BlackjaxSGHMC", "sgld_factory", "sghmc_factory", "compiled_loop",
           "jax_log_densities"]


def _jax():
    """``(jax, jax.numpy, blackjax)`` with float64 enabled; ``ImportError`` naming the extra if absent."""
    try:
        import jax
        import jax.numpy as jnp

        import blackjax
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("sgmcmc_verify.peers.blackjax needs the 'peers' extra: pip install -e '.[peers]'") from e
    jax.config.update("jax_enable_x64", True)
    return jax, jnp, blackjax


def _jax_only():
    """``(jax, jax.numpy)`` with float64 enabled (no blackjax needed); ``ImportError`` naming the extra if absent."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("JAX is needed: pip install -e '.[peers]' (or '.[peers-jax]')") from e
    jax.config.update("jax_enable_x64", True)
    return jax, jnp


def jax_log_densities(target):
    """``(logprior_fn, loglikelihood_fn, data)`` of ``target`` in JAX, as blackjax's ``grad_estimator`` takes them.

    Parameters
    ----------
    target : GaussianMeansTarget, GaussianMeanModel, AnisotropicGaussianMeansTarget or HSGMixtureTarget
        ``V = V_0 + Σ_i ½‖θ − c_i‖²``; ``Σ_i ½(θ − c_i)ᵀP(θ − c_i)``; or HSG-HMC's mixture
        ``(1/N) Σ_i f_i`` (the targets of the audit battery, :mod:`sgmcmc_verify.audit`).

    Returns
    -------
    logprior_fn : callable ``(d,) -> ()``
        ``−V_0(θ)`` (0, or ``−λ‖θ‖²/2`` for the Gaussian-mean model).
    loglikelihood_fn : callable ``((d,), (d,)) -> ()``
        ``−V_i`` for one datum (``−½‖θ − c‖²``, ``−½(θ − c)ᵀP(θ − c)``, or ``−f_i(θ)/N``; constants dropped:
        only gradients are used).
    data : (n, d) jax array of float64
        The centers.

    Raises
    ------
    ValueError
        ``target`` of another kind (names ``target``).
    """
    kinds = (GaussianMeansTarget, GaussianMeanModel, AnisotropicGaussianMeansTarget, HSGMixtureTarget)
    if not isinstance(target, kinds):
        raise ValueError(f"target must be one of {', '.join(k.__name__ for k in kinds)} for the blackjax adapter "
                         f"(a JAX log-likelihood is written only for those), got {type(target).__name__}")
    _, jnp = _jax_only()
    data = jnp.asarray(target.centers, dtype=jnp.float64)
    if isinstance(target, AnisotropicGaussianMeansTarget):
        prec = jnp.asarray(target.precision, dtype=jnp.float64)

        def loglik_aniso(theta, c):
            return -0.5 * jnp.sum(prec * (theta - c) ** 2)

        return (lambda theta: 0.0 * jnp.sum(theta)), loglik_aniso, data
    if isinstance(target, HSGMixtureTarget):
        inv_n, log2 = 1.0 / target.n, float(np.log(2.0))

        def loglik_mixture(theta, a):  # −f_i(θ)/N, constants dropped
            s = jnp.dot(theta, a)
            return inv_n * (-0.5 * jnp.sum(theta**2) + jnp.logaddexp(s + log2, -s))

        return (lambda theta: 0.0 * jnp.sum(theta)), loglik_mixture, data
    lam = float(target.prior_precision) if isinstance(target, GaussianMeanModel) else 0.0

    def logprior_fn(theta):
        return -0.5 * lam * jnp.sum(theta**2)

    def loglikelihood_fn(theta, c):
        return -0.5 * jnp.sum((theta - c) ** 2)

    return logprior_fn, loglikelihood_fn, data


class BlackjaxState(NamedTuple):
    """position : (chains, d); momentum : (chains, d) or None (SGLD); step : int."""

    position: np.ndarray
    momentum: np.ndarray | None
    step: int


def _batch(target, batch_size, estimator, who="blackjax"):
    """``b`` (an int) or ``None`` for the full data, from the factory's ``batch_size`` / ``estimator``."""
    if estimator is None:
        return check_positive_int("batch_size", batch_size)
    if isinstance(estimator, FullGradient):
        return None
    if isinstance(estimator, UniformMinibatch) and estimator.replace:
        return estimator.batch_size
    raise ValueError(f"estimator must be None, FullGradient() or UniformMinibatch(b) with replacement for the "
                     f"{who} adapter, got {estimator!r}")


@dataclass(frozen=True, eq=False)
class _BlackjaxSampler:
    """Shared protocol part: validated ``init``, ``step`` = indices + JAX step + divergence check, ``settings``."""

    def init(self, position, momentum=None):
        """State at ``position`` ``(chains, d)`` (momentum zeros by default, as the toolkit's).

        Raises
        ------
        ValueError
            Non-finite or mis-shaped position / momentum; ``batch_size > n``.
        """
        pos = init_position(self.target, position)
        if self.batch_size is not None and self.batch_size > self.target.n:
            raise ValueError(f"batch_size must be <= n = {self.target.n}, got {self.batch_size}")
        mom = None
        if self._has_momentum:
            mom = np.zeros_like(pos) if momentum is None else check_finite_array("momentum", momentum).copy()
            if mom.shape != pos.shape:
                raise ValueError(f"momentum must have the shape of position {pos.shape}, got {mom.shape}")
        return BlackjaxState(pos, mom, 0)

    def _prepare(self):
        """Validate ``step_size``, ``inverse_temperature`` and ``batch_size`` in place; return
        ``(jax, blackjax, grad_fn, h, T)`` with blackjax's minibatch gradient estimator of the target and store
        the target's data for :meth:`_inputs`."""
        object.__setattr__(self, "step_size", check_positive("step_size", self.step_size))
        beta = check_inverse_temperature(self.inverse_temperature)
        if not np.isfinite(beta):
            raise ValueError("inverse_temperature must be finite for the blackjax adapter, got inf")
        object.__setattr__(self, "inverse_temperature", beta)
        if self.batch_size is not None:
            object.__setattr__(self, "batch_size", check_positive_int("batch_size", self.batch_size))
        jax, _, blackjax = _jax()
        logprior, loglik, data = jax_log_densities(self.target)
        object.__setattr__(self, "_data", data)
        grad_fn = blackjax.sgmcmc.gradients.grad_estimator(logprior, loglik, self.target.n)
        return jax, blackjax, grad_fn, self.step_size, 1.0 / beta

    def _inputs(self, state, rng):
        jax, jnp, _ = _jax()
        chains = state.position.shape[0]
        if self.batch_size is None:
            mb = self._data  # the whole data set, shared by every chain: blackjax's N·mean is the exact sum
        else:
            mb = self._data[jnp.asarray(uniform_indices(rng, self.target.n, chains, self.batch_size))]
        keys = jax.random.split(jax.random.key(int(rng.integers(0, 2**32, dtype=np.uint64))), chains)
        return keys, mb

    def step(self, state, rng: np.random.Generator):
        """One step of every chain; ``(state, StepInfo)``.

        Raises
        ------
        sgmcmc_verify.errors.DivergenceError
            Some chain non-finite after the step.
        """
        new = self._step(state, rng)
        arrays = (new.position,) if new.momentum is None else (new.position, new.momentum)
        bad = nonfinite_chains(*arrays)
        if bad:
            raise DivergenceError(self.name, state.step, self.settings(), bad)
        return new, StepInfo(self.target.n if self.batch_size is None else self.batch_size, {})

    def settings(self) -> dict:
        out = {"sampler": self.name, "step_size": self.step_size}
        out.update(self._extra_settings())
        out["estimator"] = "full" if self.batch_size is None else "uniform"
        if self.batch_size is not None:
            out["batch_size"] = self.batch_size
        out["implementation"] = "blackjax"
        return out


@dataclass(frozen=True, eq=False)
class BlackjaxSGLD(_BlackjaxSampler):
    """blackjax's SGLD kernel (``blackjax.sgmcmc.sgld.build_kernel``) as a toolkit sampler.

    ``θ' = θ + ε ∇log p̂(θ) + √(2Tε) ξ`` with ``ε = step_size``, ``T = 1/inverse_temperature``: the law of
    :func:`sgmcmc_verify.samplers.sgld` (``θ' = θ − h ĝ + √(2h/β) ξ``) at ``h = step_size`` (see the module
    docstring for the mapping).

    Parameters
    ----------
    target : a target of :func:`jax_log_densities`
    step_size : float
        ``h = ε > 0``.
    batch_size : int or None
        ``b`` (i.i.d. uniform indices); ``None``: the full data every step (exact gradient).
    inverse_temperature : float, default 1
        ``β > 0`` (finite); blackjax's temperature is ``1/β``.
    name : str

    Raises
    ------
    ValueError
        Bad ``step_size``, ``batch_size`` or ``inverse_temperature`` (named), unsupported ``target``.
    ImportError
        blackjax / JAX not installed.
    """

    target: Any
    step_size: float
    batch_size: int | None = 1
    inverse_temperature: float = 1.0
    name: str = "blackjax-SGLD"
    _has_momentum = False

    def __post_init__(self):
        jax, blackjax, grad_fn, h, T = self._prepare()
        kernel = blackjax.sgmcmc.sgld.build_kernel()

        def one(key, x, mb):
            return kernel(key, x, grad_fn, mb, h, T)

        mb_axis = None if self.batch_size is None else 0
        object.__setattr__(self, "_kernel", jax.jit(jax.vmap(one, in_axes=(0, 0, mb_axis))))

    def _step(self, state, rng):
        keys, mb = self._inputs(state, rng)
        pos = np.asarray(self._kernel(keys, state.position, mb))
        return BlackjaxState(pos, None, state.step + 1)

    def _extra_settings(self):
        return {"inverse_temperature": self.inverse_temperature}


@dataclass(frozen=True, eq=False)
class BlackjaxSGHMC(_BlackjaxSampler):
    """blackjax's SGHMC solver step (``blackjax.sgmcmc.diffusions.sghmc(alpha=γ, beta=0)``) as a toolkit sampler.

    ``θ' = θ + ε p``, ``p' = (1 − γε) p + ε ∇log p̂(θ) + √(2γεT) ξ``: the law of :func:`sgmcmc_verify.samplers.sghmc`
    (EWSG eq. (3), ``σ = √(2γ/β)``) at ``h = step_size``; the momentum persists across steps and each
    step draws a fresh minibatch (blackjax's own ``sghmc`` kernel redraws the momentum every call:
    see the module docstring).

    Parameters
    ----------
    target : a target of :func:`jax_log_densities`
    step_size : float
        ``h = ε > 0``.
    friction : float
        ``γ`` = blackjax's ``alpha`` > 0.
    batch_size : int or None
        ``b``; ``None`` the full data.
    inverse_temperature : float, default 1
    name : str

    Raises
    ------
    ValueError
        Bad ``step_size``, ``friction``, ``batch_size`` or ``inverse_temperature`` (named), unsupported
        ``target``.
    ImportError
        blackjax / JAX not installed.
    """

    target: Any
    step_size: float
    friction: float
    batch_size: int | None = 1
    inverse_temperature: float = 1.0
    name: str = "blackjax-SGHMC"
    _has_momentum = True

    def __post_init__(self):
        object.__setattr__(self, "friction", check_positive("friction", self.friction))
        jax, blackjax, grad_fn, h, T = self._prepare()
        solver = blackjax.sgmcmc.diffusions.sghmc(alpha=self.friction, beta=0.0)

        def one(key, x, p, mb):
            return solver(key, x, p, grad_fn(x, mb), h, T)

        mb_axis = None if self.batch_size is None else 0
        object.__setattr__(self, "_kernel", jax.jit(jax.vmap(one, in_axes=(0, 0, 0, mb_axis))))

    def _step(self, state, rng):
        keys, mb = self._inputs(state, rng)
        pos, mom = self._kernel(keys, state.position, state.momentum, mb)
        return BlackjaxState(np.asarray(pos), np.asarray(mom), state.step + 1)

    def _extra_settings(self):
        return {"friction": self.friction, "inverse_temperature": self.inverse_temperature}


def sgld_factory(target, step_size, batch_size=1, inverse_temperature=1.0, estimator=None) -> BlackjaxSGLD:
    """blackjax's SGLD with the signature of :func:`sgmcmc_verify.samplers.sgld`.

    Parameters
    ----------
    target : a target of :func:`jax_log_densities`
    step_size : float
        ``h`` of the toolkit's convention (= blackjax's ``step_size``).
    batch_size : int, default 1
    inverse_temperature : float, default 1
    estimator : None, FullGradient() or UniformMinibatch(b) (with replacement)
        Replaces ``batch_size`` as in the toolkit's factory; ``FullGradient()`` passes the whole data.

    Returns
    -------
    BlackjaxSGLD

    Raises
    ------
    ValueError
        An estimator the adapter cannot express (names ``estimator``), and :class:`BlackjaxSGLD`'s errors.
    """
    return BlackjaxSGLD(target, step_size, _batch(target, batch_size, estimator), inverse_temperature)


def sghmc_factory(target, step_size, friction, batch_size=1, noise_scale=None, estimator=None) -> BlackjaxSGHMC:
    """blackjax's SGHMC solver with the signature of :func:`sgmcmc_verify.samplers.sghmc`.

    Parameters
    ----------
    target : a target of :func:`jax_log_densities`
    step_size : float
        ``h`` (= blackjax's ``step_size``).
    friction : float
        ``γ`` (= blackjax's ``alpha``).
    batch_size : int, default 1
    noise_scale : None or float
        Only the fluctuation–dissipation value ``√(2γ)`` (``None``) is expressed (blackjax's ``beta = 0``).
    estimator : None, FullGradient() or UniformMinibatch(b) (with replacement)

    Returns
    -------
    BlackjaxSGHMC

    Raises
    ------
    ValueError
        ``noise_scale`` other than ``None`` / ``√(2γ)`` (names ``noise_scale``), an unexpressible
        ``estimator``, and :class:`BlackjaxSGHMC`'s errors.
    """
    if noise_scale is not None:
        ok = isinstance(noise_scale, numbers.Real) and np.isclose(float(noise_scale), np.sqrt(2.0 * float(friction)),
                                                                   rtol=1e-12, atol=0.0)
        if not ok:
            raise ValueError(f"noise_scale must be None (sqrt(2 friction)) for the blackjax adapter, got {noise_scale!r}")
    return BlackjaxSGHMC(target, step_size, friction, _batch(target, batch_size, estimator))


def compiled_loop(method, target, step_size, steps, batch_size=1, friction=10.0, chains=1):
    """blackjax's kernel in one compiled ``jax.lax.scan`` of ``steps`` steps (the peers' fastest loop), for benchmarks.

    The minibatch indices are drawn inside the loop with ``jax.random.randint`` (i.i.d. uniform, as
    the toolkit's uniform minibatch); nothing returns to Python between steps.

    Parameters
    ----------
    method : {"SGLD", "SGHMC"}
    target : GaussianMeansTarget or GaussianMeanModel
    step_size : float
    steps : int
        > 0.
    batch_size : int
        ``b`` >= 1.
    friction : float
        ``γ`` (SGHMC only).
    chains : int
        Chains, vectorized with ``jax.vmap``.

    Returns
    -------
    callable ``(seed: int, position (chains, d)) -> (chains, d) jax array``
        Jitted; the first call compiles. The result is the final position (momentum starts at 0).

    Raises
    ------
    ValueError
        Unknown ``method``, bad counts (named).
    """
    if method not in ("SGLD", "SGHMC"):
        raise ValueError(f"method must be 'SGLD' or 'SGHMC', got {method!r}")
    steps = check_positive_int("steps", steps)
    b = check_positive_int("batch_size", batch_size)
    chains = check_positive_int("chains", chains)
    h = check_positive("step_size", step_size)
    jax, jnp, blackjax = _jax()
    logprior, loglik, data = jax_log_densities(target)
    n = target.n
    grad_fn = blackjax.sgmcmc.gradients.grad_estimator(logprior, loglik, n)
    if method == "SGLD":
        kernel = blackjax.sgmcmc.sgld.build_kernel()

        def one(key, x, p):
            k1, k2 = jax.random.split(key)
            mb = data[jax.random.randint(k1, (b,), 0, n)]
            return kernel(k2, x, grad_fn, mb, h, 1.0), p
    else:
        solver = blackjax.sgmcmc.diffusions.sghmc(alpha=check_positive("friction", friction), beta=0.0)

        def one(key, x, p):
            k1, k2 = jax.random.split(key)
            mb = data[jax.random.randint(k1, (b,), 0, n)]
            return solver(k2, x, p, grad_fn(x, mb), h, 1.0)

    vone = jax.vmap(one)

    def body(carry, key):
        x, p = carry
        return vone(jax.random.split(key, chains), x, p), None

    @jax.jit
    def run(seed, x0):
        keys = jax.random.split(jax.random.key(seed), steps)
        (x, _), _ = jax.lax.scan(body, (x0, jnp.zeros_like(x0)), keys)
        return x

    return run
