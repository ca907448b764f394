"""SGMCMCJax's samplers in the toolkit's sampler protocol (JAX on CPU, float64).

Needs the ``peers-jax`` extra (``pip install -e '.[peers-jax]'``: ``sgmcmcjax`` 0.2.13, the PyPI release, and
``jax[cpu]``); importing this module does not, building a sampler does (``ImportError`` naming the extra).
SGMCMCJax 0.2.13's ``util.py:5`` imports ``jax.experimental.host_callback``, which JAX removed (0.4.35);
it is used only by the progress bar (``util.py:106-120``), which the adapters never build, so before
importing SGMCMCJax the adapter installs a stand-in module whose ``id_tap`` raises. No line of SGMCMCJax's
samplers is replaced.

Every sampler is the per-chain ``(init_fn, kernel, get_params)`` triple of ``sgmcmcjax.kernels``
(``_build_langevin_kernel``, ``kernels.py:17-69``), batched over chains with ``jax.vmap``: one kernel call
moves the diffusion with the gradient stored in the state, then draws the next minibatch and stores the
gradient at the new point (a palindrome scheme's closing half kick uses it). One call = one step, one
stochastic gradient (two for the control variates).

Parameter mapping, checked against SGMCMCJax 0.2.13 (``diffusions.py``, ``kernels.py``,
``gradient_estimation.py``; line numbers of that release) against the toolkit's conventions (EWSG seed
``000_8e0377c44e2ea3b8.txt``, eq. (3)). ``g`` is SGMCMCJax's gradient estimate,
``∇log p_0 + N·mean_j ∇log p(x_j|θ)`` (``util.py:43-44``) = ``−ĝ``; minibatches are
``random.choice(key, N, (b,))``, i.i.d. uniform with replacement (``gradient_estimation.py:32``).

========== ======================================================= ====================================================
method     SGMCMCJax update                                        toolkit parameters
========== ======================================================= ====================================================
SGLD       ``x + dt·g + √(2dt) ξ`` (``diffusions.py:65-68``)         ``dt = h``
SGLD-CV    same, ``g`` = control variate at ``centering_value``     ``dt = h``; centering at the MAP
           (``gradient_estimation.py:50-94``)                       (the toolkit has no SGLD-CV)
SVRG-LD    same, centering refreshed every ``update_rate`` steps     ``dt = h``, ``update_rate = ⌈n/b⌉`` (the
           (``gradient_estimation.py:97-153``)                      toolkit's SVRG-LD epoch)
pSGLD      ``v ← αv + (1−α)g²``, ``G = 1/(√v + ε)``,                 ``dt = 2h``: Welling & Teh's convention, drift
           ``x + (dt/2)·G·g + √(dt·G) ξ`` (``diffusions.py:97-106``)    ``dt/2``; the toolkit's pSGLD with
                                                                   ``preconditioner_input="full"`` (RMSprop on ``g``,
                                                                   not on the per-datum mean)
SGHMC      ``x ← x + v``; ``v ← v + dt·g − αv + √(2(α−β)dt) ξ``        Chen et al.'s Appendix G: ``v = h r``,
           (``diffusions.py:181-191``)                              ``dt = h²``, ``α = γh``, ``β = 0``
SGNHT      ``v ← v − αv + dt·g + √(2a·dt) ξ``; ``x ← x + v``;            ``v = h p``, ``dt = h²``, ``a = hA``;
           ``α ← α + ‖v‖²/d − dt`` (``diffusions.py:276-287``;      thermostat ``ξ = α/h`` starts at ``A``
           momentum redrawn as ``√dt·N(0, I)`` at step 0)            (``A = friction``)
BAOAB      ``B(dt/2) A(dt/2) O A(dt/2)``, gradient, ``B(dt/2)``,      ``dt = h``, ``gamma = γ``, ``tau = 1``
           O: ``v ← e^{−γdt}v + τ√(1−e^{−2γdt}) ξ``                 (``tau`` scales the noise's standard deviation:
           (``diffusions.py:224-241``)                              it is the temperature only at 1)
BADODAB    ``B A D O D A``, gradient, ``B`` with the thermostat      ``dt = h``, ``a`` = the thermostat's initial value
           ``α ← α + (dt/2)(‖v‖ − d)`` (``diffusions.py:317-341``)   (noise fixed at ``σ = 1``)
========== ======================================================= ====================================================

Two defects of the PyPI release, reported rather than repaired (``docs/peers_audit.md``):

- ``build_baoab_kernel`` and ``build_badodab_kernel`` unpack the diffusion's two updates as
  ``init_diff, (update_diff1, update_diff1), get_p_diff = baoab(...)`` (``kernels.py:383``, ``419``; also
  ``badodabCV``, ``457``): both names bind the *closing half kick*, so the kernel is two half kicks of the
  momentum and the **position never moves**. The repository fixed the first two after the release
  (github jeremiecoullon/SGMCMCJax at cb90097, 2023-10-23, ``kernels.py`` ``(update_diff1, update_diff2)``),
  not ``badodabCV``. ``baoab_factory`` / ``badodab_factory`` build the released kernels as a user of the
  release gets them; ``baoab_fixed_factory`` / ``badodab_fixed_factory`` pass the diffusion's own pair
  ``(update, update2)`` to the same ``_build_langevin_kernel``, as the repository's fix does.
- BADODAB's thermostat moves with ``‖v‖ − d`` (``diffusions.py:326, 334``; also at cb90097), where
  Leimkuhler & Shang's adaptive thermostat (arXiv:1505.06889, the paper the docstring cites) uses
  ``vᵀv − d k_BT``; SGMCMCJax's own SGNHT uses ``‖v‖²`` (``diffusions.py:286``). It holds ``E‖v‖ = d``
  instead of ``E‖v‖² = d``: the kinetic temperature is ``8/π ≈ 2.5`` at ``d = 2`` (it grows like ``d``).

SGMCMCJax's top-level SGHMC kernel (``build_sghmc_kernel``, ``kernels.py:110-122``) redraws the momentum
before every ``L`` steps; the adapter drives the diffusion's step through ``_build_langevin_kernel`` with
a persistent momentum (``L = ∞``), the papers' SGHMC, as the blackjax adapter does.

Randomness: every step takes one 32-bit seed from the NumPy generator given to :meth:`step`;
``k_init, k_step = split(key(seed))``, the chains' kernel keys are ``split(k_step, chains)`` (and, at the
first step, the keys of SGMCMCJax's ``init_fn``, which draws the first minibatch, ``split(k_init, chains)``).
The same generator gives the same chains.
"""
from __future__ import annotations

import math
import sys
import types
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..errors import DivergenceError, check_finite_array, check_positive, check_positive_int, nonfinite_chains
from ..integrators.base import StepInfo, init_position
from ..targets.gaussian import AnisotropicGaussianMeansTarget, GaussianMeanModel, GaussianMeansTarget
from .blackjax import _batch, _jax_only, jax_log_densities

__all__ = ["SGMCMCJaxState", "SGMCMCJaxSampler", "METHODS", "sgld_factory", "sgld_cv_factory", "svrg_ld_factory",
           "psgld_factory", "sghmc_factory", "sgnht_factory", "baoab_factory", "baoab_fixed_factory",
           "badodab_factory", "badodab_fixed_factory", "centering_value"]

#: method → (has momentum, has thermostat)
METHODS = {"SGLD": (False, False), "SGLD-CV": (False, False), "SVRG-LD": (False, False), "pSGLD": (False, False),
           "SGHMC": (True, False), "SGNHT": (True, True), "BAOAB": (True, False), "BAOAB-fixed": (True, False),
           "BADODAB": (True, True), "BADODAB-fixed": (True, True)}


def _private_util_standins() -> None:
    """SGMCMCJax's ``diffusion_util.py:6`` imports ``safe_map`` and ``unzip2`` from JAX's private ``jax._src.util``;
    should a JAX release drop or rename them, put behaviour-identical stand-ins there (JAX's definitions: a ``map``
    that checks equal lengths and returns a list; pairs split into two tuples). Present ones are left alone."""
    import importlib

    u = importlib.import_module("jax._src.util")
    if not hasattr(u, "safe_map"):
        def safe_map(f, *args):
            args = [list(a) for a in args]
            if any(len(a) != len(args[0]) for a in args[1:]):
                raise ValueError(f"safe_map: length mismatch {[len(a) for a in args]}")
            return list(map(f, *args))
        u.safe_map = safe_map
    if not hasattr(u, "unzip2"):
        def unzip2(xys):
            xs, ys = [], []
            for x, y in xys:
                xs.append(x)
                ys.append(y)
            return tuple(xs), tuple(ys)
        u.unzip2 = unzip2


def _sgmcmcjax():
    """``(jax, jnp, sgmcmcjax.kernels, sgmcmcjax.diffusions, sgmcmcjax.gradient_estimation, sgmcmcjax.util)``."""
    jax, jnp = _jax_only()
    try:
        import jax.experimental
        if "jax.experimental.host_callback" not in sys.modules and not hasattr(jax.experimental, "host_callback"):
            stub = types.ModuleType("jax.experimental.host_callback")

            def id_tap(*args, **kwargs):
                raise NotImplementedError("host_callback was removed from JAX; SGMCMCJax's progress bar is unavailable")

            stub.id_tap = id_tap
            sys.modules["jax.experimental.host_callback"] = stub
            jax.experimental.host_callback = stub
        _private_util_standins()
        import sgmcmcjax.diffusions as diffusions
        import sgmcmcjax.gradient_estimation as ge
        import sgmcmcjax.kernels as kernels
        import sgmcmcjax.util as util
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("sgmcmc_verify.peers.sgmcmcjax needs the 'peers-jax' extra: pip install -e '.[peers-jax]'") from e
    return jax, jnp, kernels, diffusions, ge, util


def centering_value(target) -> np.ndarray:
    """The control variates' centering value: the MAP of ``target`` (SGMCMCJax asks for "the MAP").

    The posterior mean of a Gaussian target (its mode); otherwise the minimizer of the full potential
    found by L-BFGS (scipy) from the best of the data points.

    Returns
    -------
    (d,) ndarray
    """
    if isinstance(target, (GaussianMeansTarget, GaussianMeanModel, AnisotropicGaussianMeansTarget)):
        return np.asarray(target.posterior_mean, dtype=float)
    from scipy.optimize import minimize

    starts = np.asarray(target.centers, dtype=float)
    x0 = starts[int(np.argmin(target.potential(starts)))]
    res = minimize(lambda x: float(target.potential(x[None])[0]), x0,
                   jac=lambda x: target.full_gradient(x[None])[0], method="L-BFGS-B")
    return np.asarray(res.x, dtype=float)


_KEYS = {}


def _split_keys(seed: int, chains: int):
    """``split(k_init, chains), split(k_step, chains)`` with ``k_init, k_step = split(key(seed))`` (jitted)."""
    fn = _KEYS.get(chains)
    if fn is None:
        jax, _ = _jax_only()

        def keys(seed):
            k_init, k_step = jax.random.split(jax.random.key(seed))
            return jax.random.split(k_init, chains), jax.random.split(k_step, chains)

        fn = _KEYS[chains] = jax.jit(keys)
    return fn(np.uint32(seed))


def _triple(sampler, h, friction):
    """SGMCMCJax's per-chain ``(init_fn, kernel, get_params)`` of ``sampler`` at step ``h`` and ``friction`` (either
    may be a JAX tracer: SGMCMCJax's ``make_schedule`` takes any 0-d value, ``diffusions.py:377-383``)."""
    jax, jnp, K, D, ge, util = _sgmcmcjax()
    logprior, loglik, data = jax_log_densities(sampler.target)
    data_t = (data,)
    # the whole data: SGMCMCJax's estimator takes b = N as "full batch" (gradient_estimation.py:41-42); its
    # init_gradient has no such branch and draws N indices with replacement (gradient_estimation.py:31-35)
    b = sampler.target.n if sampler.batch_size is None else sampler.batch_size
    m = sampler.method
    if m == "SGLD":
        return K.build_sgld_kernel(h, loglik, logprior, data_t, b)
    if m == "SGLD-CV":
        return K.build_sgldCV_kernel(h, loglik, logprior, data_t, b, jnp.asarray(sampler._centering))
    if m == "SVRG-LD":
        return K.build_sgld_SVRG_kernel(h, loglik, logprior, data_t, b, sampler.update_rate)
    if m == "pSGLD":
        return K.build_psgld_kernel(2.0 * h, loglik, logprior, data_t, b, sampler.alpha, sampler.eps)
    if m == "SGNHT":
        return K.build_sgnht_kernel(h * h, loglik, logprior, data_t, b, h * friction)
    if m == "BAOAB":
        return K.build_baoab_kernel(h, loglik, logprior, data_t, b, friction, 1.0)
    if m == "BADODAB":
        return K.build_badodab_kernel(h, loglik, logprior, data_t, b, friction)
    # SGHMC (persistent momentum), BAOAB-fixed, BADODAB-fixed: the diffusion's step, the library's assembly
    est, init_grad = ge.build_gradient_estimation_fn(util.build_grad_log_post(loglik, logprior, data_t), data_t, b)
    if m == "SGHMC":
        init_d, upd, get_p, _resample = D.sghmc(h * h, h * friction, 0.0)
    elif m == "BAOAB-fixed":
        init_d, upd, get_p = D.baoab(h, friction, 1.0)
    else:
        init_d, upd, get_p = D.badodab(h, friction)
    return K._build_langevin_kernel(init_d, upd, get_p, est, init_grad)


#: (id(target), method, b, update_rate, alpha, eps) -> (target, init, kernel, get_params): one compilation per
#: configuration, with the step size and the friction as arguments (the audit builds a sampler per step size)
_COMPILED: dict = {}


def _compiled(sampler):
    """Jitted, chain-vmapped ``init(h, friction, keys, positions)`` and ``kernel(h, friction, i, keys, state)`` of
    ``sampler``'s configuration, and SGMCMCJax's ``get_params``; cached per target object and configuration."""
    key = (id(sampler.target), sampler.method, sampler.batch_size, sampler.update_rate, sampler.alpha, sampler.eps,
           tuple(np.ravel(getattr(sampler, "_centering", ()))))
    hit = _COMPILED.get(key)
    if hit is not None and hit[0] is sampler.target:
        return hit[1:]
    jax, _ = _jax_only()

    def init(h, friction, keys, x):
        return jax.vmap(_triple(sampler, h, friction)[0])(keys, x)

    def kernel(h, friction, i, keys, state):
        return jax.vmap(_triple(sampler, h, friction)[1], in_axes=(None, 0, 0))(i, keys, state)

    get_params = _triple(sampler, sampler.step_size, 1.0 if sampler.friction is None else sampler.friction)[2]
    if len(_COMPILED) > 256:
        _COMPILED.clear()
    _COMPILED[key] = (sampler.target, jax.jit(init), jax.jit(kernel), get_params)
    return _COMPILED[key][1:]


class SGMCMCJaxState(NamedTuple):
    """position : (chains, d); momentum : (chains, d) or None, in the toolkit's units (``r``, unit mass);
    thermostat : (chains,) or None (SGNHT's ``ξ``, BADODAB's ``α``); step : int; peer : SGMCMCJax's batched
    ``SamplerState`` (None before the first step)."""

    position: np.ndarray
    momentum: np.ndarray | None
    thermostat: np.ndarray | None
    step: int
    peer: Any = None


@dataclass(frozen=True, eq=False)
class SGMCMCJaxSampler:
    """One of SGMCMCJax's samplers as a toolkit sampler (see the module docstring for the mapping).

    Parameters
    ----------
    target : a target of :func:`sgmcmc_verify.peers.blackjax.jax_log_densities`
    step_size : float
        ``h`` of the toolkit's convention (> 0).
    method : str
        A key of :data:`METHODS`.
    friction : float or None
        ``γ`` (SGHMC, BAOAB), ``A`` (SGNHT), the thermostat's initial value (BADODAB); None for the
        overdamped methods.
    batch_size : int or None
        ``b``; ``None`` the whole data (not for SGLD-CV / SVRG-LD).
    alpha, eps : float
        pSGLD's RMSprop decay and damping (SGMCMCJax's defaults 0.99, 1e-5).
    update_rate : int or None
        SVRG-LD's steps between centering refreshes (``None``: ``⌈n/b⌉``).
    name : str, optional

    Raises
    ------
    ValueError
        Unknown ``method``; a bad ``step_size``, ``friction``, ``batch_size``, ``update_rate`` (named);
        an unsupported ``target``.
    ImportError
        SGMCMCJax / JAX not installed.
    """

    target: Any
    step_size: float
    method: str = "SGLD"
    friction: float | None = None
    batch_size: int | None = 1
    alpha: float = 0.99
    eps: float = 1e-5
    update_rate: int | None = None
    name: str = ""

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}, got {self.method!r}")
        h = check_positive("step_size", self.step_size)
        object.__setattr__(self, "step_size", h)
        momentum, _ = METHODS[self.method]
        if momentum:
            object.__setattr__(self, "friction", check_positive("friction", self.friction))
        elif self.friction is not None:
            raise ValueError(f"friction must be None for {self.method}, got {self.friction!r}")
        if self.batch_size is not None:
            object.__setattr__(self, "batch_size", check_positive_int("batch_size", self.batch_size))
            if self.batch_size > self.target.n:
                raise ValueError(f"batch_size must be <= n = {self.target.n}, got {self.batch_size}")
        elif self.method in ("SGLD-CV", "SVRG-LD"):
            raise ValueError(f"batch_size must be an int for {self.method} (a control variate needs a minibatch)")
        if not self.name:
            object.__setattr__(self, "name", f"SGMCMCJax-{self.method}")
        if self.method == "SVRG-LD":
            rate = math.ceil(self.target.n / self.batch_size) if self.update_rate is None else self.update_rate
            object.__setattr__(self, "update_rate", check_positive_int("update_rate", rate))
        if self.method == "SGLD-CV":
            object.__setattr__(self, "_centering", centering_value(self.target))
        init, kernel, get_params = _compiled(self)
        object.__setattr__(self, "_h", np.float64(h))
        object.__setattr__(self, "_f", np.float64(0.0 if self.friction is None else self.friction))
        object.__setattr__(self, "_init", init)
        object.__setattr__(self, "_kernel", kernel)
        object.__setattr__(self, "_get_params", get_params)

    # ---- units: SGMCMCJax's v ↔ the toolkit's momentum r, its α ↔ the thermostat ------------------------
    def _v_scale(self):
        return self.step_size if self.method in ("SGHMC", "SGNHT") else 1.0

    def init(self, position, momentum=None, thermostat=None):
        """State at ``position`` ``(chains, d)``: momentum zeros by default (SGMCMCJax's ``init_fn``), thermostat
        at ``friction`` (SGNHT's ``a/h``, BADODAB's ``a``); SGMCMCJax's own state is built at the first step.

        Raises
        ------
        ValueError
            Non-finite or mis-shaped position / momentum / thermostat.
        """
        pos = init_position(self.target, position)
        has_m, has_t = METHODS[self.method]
        mom = xi = None
        if has_m:
            mom = np.zeros_like(pos) if momentum is None else check_finite_array("momentum", momentum).copy()
            if mom.shape != pos.shape:
                raise ValueError(f"momentum must have the shape of position {pos.shape}, got {mom.shape}")
        if has_t:
            xi = (np.full(pos.shape[0], float(self.friction)) if thermostat is None
                  else check_finite_array("thermostat", thermostat).astype(float).copy())
            if xi.shape != (pos.shape[0],):
                raise ValueError(f"thermostat must have shape ({pos.shape[0]},), got {xi.shape}")
        return SGMCMCJaxState(pos, mom, xi, 0, None)

    def keys(self, rng: np.random.Generator, chains: int):
        """``(init keys, step keys)``, each ``(chains,)`` JAX keys, from one 32-bit seed of ``rng``."""
        return _split_keys(int(rng.integers(0, 2**32, dtype=np.uint64)), chains)

    def _peer_state(self, state, init_keys):
        """SGMCMCJax's batched ``SamplerState`` at ``state`` (its ``init_fn``, then the momentum / thermostat
        of ``state`` written into the diffusion state in SGMCMCJax's units)."""
        jax, jnp = _jax_only()
        peer = self._init(self._h, self._f, init_keys, jnp.asarray(state.position))
        has_m, has_t = METHODS[self.method]
        if has_m:
            leaves = list(peer.diffusion_state.packed_state[0])
            leaves[1] = jnp.asarray(state.momentum * self._v_scale())
            if has_t:
                leaves[2] = jnp.asarray(state.thermostat * self._v_scale())
            ds = peer.diffusion_state._replace(packed_state=(leaves,))
            peer = peer._replace(diffusion_state=ds)
        return peer

    def step(self, state, rng: np.random.Generator):
        """One SGMCMCJax kernel call for every chain; ``(state, StepInfo)``.

        Raises
        ------
        sgmcmc_verify.errors.DivergenceError
            Some chain non-finite after the step.
        """
        chains = state.position.shape[0]
        init_keys, step_keys = self.keys(rng, chains)
        peer = self._peer_state(state, init_keys) if state.peer is None else state.peer
        evals = self._evaluations(state.step, first=state.peer is None)
        peer = self._kernel(self._h, self._f, state.step, step_keys, peer)
        leaves = peer.diffusion_state.packed_state[0]
        pos = np.asarray(self._get_params(peer))
        has_m, has_t = METHODS[self.method]
        mom = np.asarray(leaves[1]) / self._v_scale() if has_m else None
        xi = np.asarray(leaves[2]).reshape(chains) / self._v_scale() if has_t else None
        bad = nonfinite_chains(*[a for a in (pos, mom) if a is not None])
        if bad:
            raise DivergenceError(self.name, state.step, self.settings(), bad)
        return SGMCMCJaxState(pos, mom, xi, state.step + 1, peer), StepInfo(evals, {})

    def _evaluations(self, k, first):
        """Per-datum gradient evaluations of one chain in step ``k`` (the first adds the initial gradient)."""
        n, b = self.target.n, self.batch_size
        per = n if b is None or b == n else b
        if self.method == "SGLD-CV":
            per = 2 * b
        elif self.method == "SVRG-LD":
            per = 2 * b + (n if k % self.update_rate == 0 else 0)
        if first:
            per += n if self.method == "SVRG-LD" else (2 * b if self.method == "SGLD-CV" else
                                                        (n if b is None or b == n else b))
        return per

    def settings(self) -> dict:
        out = {"sampler": self.name, "step_size": self.step_size}
        if self.friction is not None:
            out["friction"] = self.friction
        if self.method == "pSGLD":
            out.update(alpha=self.alpha, eps=self.eps)
        if self.method == "SVRG-LD":
            out["update_rate"] = self.update_rate
        out["estimator"] = "full" if self.batch_size is None else "uniform"
        if self.batch_size is not None:
            out["batch_size"] = self.batch_size
        out["implementation"] = "SGMCMCJax"
        return out


def _b(target, batch_size, estimator):
    return _batch(target, batch_size, estimator, "SGMCMCJax")


def sgld_factory(target, step_size, batch_size=1, estimator=None) -> SGMCMCJaxSampler:
    """SGMCMCJax's SGLD (``build_sgld_kernel``, ``dt = h``).

    Parameters
    ----------
    target : a target of :func:`~sgmcmc_verify.peers.blackjax.jax_log_densities`
    step_size : float
        ``h``.
    batch_size : int, default 1
    estimator : None, FullGradient() or UniformMinibatch(b) with replacement

    Returns
    -------
    SGMCMCJaxSampler

    Raises
    ------
    ValueError
        As :class:`SGMCMCJaxSampler`; an estimator the adapter cannot express (names ``estimator``).
    """
    return SGMCMCJaxSampler(target, step_size, "SGLD", None, _b(target, batch_size, estimator))


def sgld_cv_factory(target, step_size, batch_size=1) -> SGMCMCJaxSampler:
    """SGMCMCJax's SGLD with control variates (``build_sgldCV_kernel``, ``dt = h``, centering at the MAP,
    :func:`centering_value`); 2b evaluations per step. Parameters, returns, raises as :func:`sgld_factory`."""
    return SGMCMCJaxSampler(target, step_size, "SGLD-CV", None, batch_size)


def svrg_ld_factory(target, step_size, batch_size=1, update_rate=None) -> SGMCMCJaxSampler:
    """SGMCMCJax's SGLD-SVRG (``build_sgld_SVRG_kernel``, ``dt = h``, ``update_rate`` default ``⌈n/b⌉``).
    Parameters, returns, raises as :func:`sgld_factory`."""
    return SGMCMCJaxSampler(target, step_size, "SVRG-LD", None, batch_size, update_rate=update_rate)


def psgld_factory(target, step_size, batch_size=1, alpha=0.99, eps=1e-5, estimator=None) -> SGMCMCJaxSampler:
    """SGMCMCJax's pSGLD (``build_psgld_kernel``, ``dt = 2h``: its drift is ``dt/2``).
    Parameters, returns, raises as :func:`sgld_factory`; ``alpha``, ``eps`` its RMSprop decay and damping."""
    return SGMCMCJaxSampler(target, step_size, "pSGLD", None, _b(target, batch_size, estimator), alpha=alpha, eps=eps)


def sghmc_factory(target, step_size, friction, batch_size=1, estimator=None) -> SGMCMCJaxSampler:
    """SGMCMCJax's SGHMC diffusion step with a persistent momentum (``dt = h²``, ``alpha = γh``).
    Parameters, returns, raises as :func:`sgld_factory`; ``friction`` is ``γ``."""
    return SGMCMCJaxSampler(target, step_size, "SGHMC", friction, _b(target, batch_size, estimator))


def sgnht_factory(target, step_size, friction, batch_size=1, estimator=None) -> SGMCMCJaxSampler:
    """SGMCMCJax's SGNHT (``build_sgnht_kernel``, ``dt = h²``, ``a = hA``, ``A = friction``).
    Parameters, returns, raises as :func:`sgld_factory`."""
    return SGMCMCJaxSampler(target, step_size, "SGNHT", friction, _b(target, batch_size, estimator))


def baoab_factory(target, step_size, friction, batch_size=1, estimator=None) -> SGMCMCJaxSampler:
    """SGMCMCJax 0.2.13's ``build_baoab_kernel`` as released (``dt = h``, ``gamma = γ``, ``tau = 1``): its
    position never moves (``kernels.py:383``, see the module docstring). Parameters as :func:`sghmc_factory`."""
    return SGMCMCJaxSampler(target, step_size, "BAOAB", friction, _b(target, batch_size, estimator))


def baoab_fixed_factory(target, step_size, friction, batch_size=1, estimator=None) -> SGMCMCJaxSampler:
    """SGMCMCJax's BAOAB diffusion with both of its updates (the repository's later fix of ``kernels.py:383``).
    Parameters as :func:`sghmc_factory`."""
    return SGMCMCJaxSampler(target, step_size, "BAOAB-fixed", friction, _b(target, batch_size, estimator))


def badodab_factory(target, step_size, friction=0.5, batch_size=1, estimator=None) -> SGMCMCJaxSampler:
    """SGMCMCJax 0.2.13's ``build_badodab_kernel`` as released (``dt = h``, ``a = friction``, the thermostat's
    initial value; default 0.5, where a correct thermostat settles at unit temperature with its ``σ = 1``):
    its position never moves (``kernels.py:419``). Parameters as :func:`sghmc_factory`."""
    return SGMCMCJaxSampler(target, step_size, "BADODAB", friction, _b(target, batch_size, estimator))


def badodab_fixed_factory(target, step_size, friction=0.5, batch_size=1, estimator=None) -> SGMCMCJaxSampler:
    """SGMCMCJax's BADODAB diffusion with both of its updates (the repository's later fix of ``kernels.py:419``);
    its thermostat keeps ``‖v‖ − d`` (``diffusions.py:326``). Parameters as :func:`badodab_factory`."""
    return SGMCMCJaxSampler(target, step_size, "BADODAB-fixed", friction, _b(target, batch_size, estimator))
