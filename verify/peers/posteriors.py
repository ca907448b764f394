"""posteriors' (PyTorch) SGLD, SGHMC, SGNHT and BAOA in the toolkit's sampler protocol (CPU, float64).

Needs the ``peers-torch`` extra (``pip install -e '.[peers-torch]'``: ``posteriors``, with ``torch==2.13.0``
asked for first so that pip takes the CPU wheel); importing this module does not, building a sampler does
(``ImportError`` naming the extra otherwise).

Parameter mapping, checked against the source of posteriors 0.1.3 (``posteriors/sgmcmc/<file>.py``, line
numbers of that release; the toolkit's conventions are EWSG's, seed ``000_8e0377c44e2ea3b8.txt``, eq. (3)):

========== ======================================================================== ==============================
sampler    posteriors' update (``g = ∇ log_posterior(θ, batch)``, ``ξ ~ N(0, I)``)    toolkit, ``ĝ = −g``
========== ======================================================================== ==============================
SGLD       ``θ' = θ + ε g + √(εT(2 − εTβ)) ξ`` (``sgld.py:121-127``)                  ``θ' = θ − hĝ + √(2h/β)ξ``
SGHMC      ``θ' = θ + εσ⁻²m``, ``m' = m + εg − εσ⁻²αm + √(εT(2α − εβT)) ξ``           ``θ' = θ + hr``,
           (``sghmc.py:155-170``: θ moves with the *old* m)                         ``r' = r − h(ĝ + γr) + √(2γh/β)ξ``
SGNHT      as SGHMC with the friction ``α`` replaced by the thermostat ``ξ_t`` in     SGHMC with γ → ξ_t (no
           the drift (not in the noise), ``ξ' = ξ + ε(σ⁻² mean(m²) − T)``             toolkit SGNHT)
           (``sgnht.py:164-177``, the mean over every entry of the momentum)
BAOA       ``m ← m + εg``; ``θ ← θ + (ε/2)σ⁻²m``; ``m ← e^{−γε}m + √(T(1−e^{−2γε}))σξ``;  BAOAB with the two half
           ``θ ← θ + (ε/2)σ⁻²m``, ``γ = ασ⁻²`` (``baoa.py:158-174``)                  kicks merged (no toolkit
                                                                                    BAOAB)
========== ======================================================================== ==============================

so the adapters pass ``lr = ε = h`` (posteriors' learning rate *is* the toolkit's step size: drift ``h``
times the gradient, noise variance ``2h T``), ``temperature = T = 1/β``, ``alpha = γ`` (the friction;
for SGNHT the noise coefficient ``A``, around which the thermostat settles, and its initial value as
posteriors' ``build`` does, ``sgnht.py:59``), ``sigma = 1`` (unit mass) and ``beta = 0`` (posteriors'
estimate of the gradient-noise variance, subtracted from the injected noise; 0 = none).

The log-posterior the adapters hand to posteriors is the toolkit's full-data-scaled estimate
``−V̂(θ) = −V_0(θ) − (n/b) Σ_{j∈I} V_{I_j}(θ)`` at temperature ``T = 1/β``. posteriors' documentation
recommends another scaling (the docstrings' "constructed in tandem", ``sgld.py:29-30``): the per-datum
average ``log p_0/n + mean_j log p(x_j|θ)`` with ``temperature = 1/n``. That is the same chain at
``lr = n h``: with that scaling posteriors' learning rate is ``n`` times the toolkit's step size, and a
learning rate read as ``h`` would give a step ``n`` times too small (no bias, a chain ``n`` times slower).

Chains: SGLD, SGHMC and BAOA are elementwise, so the chains are one ``(chains, d)`` parameter tensor of one
posteriors state (the log-posterior is the sum over chains, whose gradient is each chain's gradient).
SGNHT's thermostat is a scalar fed by ``mean(m²)`` over *every* entry of the momentum (``sgnht.py:176-177``):
one tensor would couple the chains through one thermostat, so SGNHT's chains are batched with
``torch.func.vmap(update, randomness="different")``, one posteriors state and thermostat per chain.
posteriors' ``update`` itself is called unchanged.

Randomness: the minibatch indices come from the NumPy generator given to :meth:`step` (i.i.d. uniform,
:func:`~sgmcmc_verify.estimators.base.uniform_indices`), then one 63-bit seed for ``torch.manual_seed``
(the global torch generator, which posteriors' ``torch.randn_like`` draws from). The same generator gives
the same chains.

Targets: those of :func:`torch_log_densities` (the audit battery's).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..errors import DivergenceError, check_finite_array, check_positive, check_positive_int, nonfinite_chains
from ..estimators.base import uniform_indices
from ..integrators.base import StepInfo, check_inverse_temperature, init_position
from ..targets.gaussian import AnisotropicGaussianMeansTarget, GaussianMeanModel, GaussianMeansTarget
from ..targets.mixtures import HSGMixtureTarget
from .blackjax import _batch

__all__ = ["PosteriorsState", "PosteriorsSampler", "torch_log_densities", "sgld_factory", "sghmc_factory",
           "sgnht_factory", "baoa_factory", "METHODS"]

#: method → posteriors module (``posteriors.sgmcmc.<module>``).
METHODS = {"SGLD": "sgld", "SGHMC": "sghmc", "SGNHT": "sgnht", "BAOA": "baoa"}


_MODULES: tuple = ()


def _torch():
    """``(torch, posteriors.sgmcmc)``; ``ImportError`` naming the extra if absent."""
    global _MODULES
    if _MODULES:
        return _MODULES
    try:
        import warnings

        import torch
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # tensordict's notice about a shared default, not ours
            import posteriors.sgmcmc as ps
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("sgmcmc_verify.peers.posteriors needs the 'peers-torch' extra: "
                          "pip install torch==2.13.0 && pip install -e '.[peers-torch]'") from e
    _MODULES = (torch, ps)
    return _MODULES


def torch_log_densities(target):
    """``(logprior_fn, loglik_fn, data)`` of ``target`` in PyTorch (float64).

    Parameters
    ----------
    target : GaussianMeansTarget, GaussianMeanModel, AnisotropicGaussianMeansTarget or HSGMixtureTarget
        The audit battery's targets (as :func:`sgmcmc_verify.peers.blackjax.jax_log_densities`).

    Returns
    -------
    logprior_fn : callable ``(..., d) tensor -> (...) tensor``
        ``−V_0(θ)``.
    loglik_fn : callable ``((..., d), (..., d)) -> (...) tensor``
        ``−V_i(θ)`` for each datum ``c_i`` (broadcast over the leading axes; constants dropped: only
        gradients are used).
    data : (n, d) float64 tensor

    Raises
    ------
    ValueError
        ``target`` of another kind (names ``target``).
    """
    kinds = (GaussianMeansTarget, GaussianMeanModel, AnisotropicGaussianMeansTarget, HSGMixtureTarget)
    if not isinstance(target, kinds):
        raise ValueError(f"target must be one of {', '.join(k.__name__ for k in kinds)} for the posteriors adapter "
                         f"(a PyTorch log-likelihood is written only for those), got {type(target).__name__}")
    torch, _ = _torch()
    data = torch.as_tensor(np.asarray(target.centers, dtype=np.float64))
    if isinstance(target, AnisotropicGaussianMeansTarget):
        prec = torch.as_tensor(np.asarray(target.precision, dtype=np.float64))
        return (lambda theta: 0.0 * theta.sum(-1)), (lambda theta, c: -0.5 * (prec * (theta - c) ** 2).sum(-1)), data
    if isinstance(target, HSGMixtureTarget):
        inv_n, log2 = 1.0 / target.n, float(np.log(2.0))

        def loglik_mixture(theta, a):  # −f_i(θ)/N, constants dropped
            s = (a * theta).sum(-1)
            return inv_n * (-0.5 * (theta**2).sum(-1) + torch.logaddexp(s + log2, -s))

        return (lambda theta: 0.0 * theta.sum(-1)), loglik_mixture, data
    lam = float(target.prior_precision) if isinstance(target, GaussianMeanModel) else 0.0
    return (lambda theta: -0.5 * lam * (theta**2).sum(-1)), (lambda theta, c: -0.5 * ((theta - c) ** 2).sum(-1)), data


class PosteriorsState(NamedTuple):
    """position : (chains, d); momentum : (chains, d) or None (SGLD); thermostat : (chains,) or None (SGNHT's ξ);
    step : int."""

    position: np.ndarray
    momentum: np.ndarray | None
    thermostat: np.ndarray | None
    step: int


@dataclass(frozen=True, eq=False)
class PosteriorsSampler:
    """One of posteriors' SG-MCMC transforms (``posteriors.sgmcmc.<method>.build``) as a toolkit sampler.

    Parameters
    ----------
    target : a target of :func:`torch_log_densities`
    step_size : float
        ``h`` = posteriors' ``lr`` > 0 (see the module docstring).
    method : {"SGLD", "SGHMC", "SGNHT", "BAOA"}
    friction : float or None
        ``γ`` = posteriors' ``alpha`` > 0 (SGNHT: the noise coefficient and the thermostat's initial value);
        ``None`` for SGLD.
    batch_size : int or None
        ``b`` (i.i.d. uniform indices); ``None``: the whole data every step.
    inverse_temperature : float, default 1
        ``β`` (finite); posteriors' ``temperature = 1/β``.
    name : str, optional

    Raises
    ------
    ValueError
        Unknown ``method``; bad ``step_size``, ``friction``, ``batch_size`` or ``inverse_temperature``
        (named); an unsupported ``target``.
    ImportError
        posteriors / torch not installed.
    """

    target: Any
    step_size: float
    method: str = "SGLD"
    friction: float | None = None
    batch_size: int | None = 1
    inverse_temperature: float = 1.0
    name: str = ""

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}, got {self.method!r}")
        object.__setattr__(self, "step_size", check_positive("step_size", self.step_size))
        if self.method == "SGLD":
            if self.friction is not None:
                raise ValueError(f"friction must be None for SGLD, got {self.friction!r}")
        else:
            object.__setattr__(self, "friction", check_positive("friction", self.friction))
        beta = check_inverse_temperature(self.inverse_temperature)
        if not np.isfinite(beta):
            raise ValueError("inverse_temperature must be finite for the posteriors adapter, got inf")
        object.__setattr__(self, "inverse_temperature", beta)
        if self.batch_size is not None:
            object.__setattr__(self, "batch_size", check_positive_int("batch_size", self.batch_size))
        if not self.name:
            object.__setattr__(self, "name", f"posteriors-{self.method}")
        torch, ps = _torch()
        logprior, loglik, data = torch_log_densities(self.target)
        n = self.target.n
        scale = n / (n if self.batch_size is None else self.batch_size)

        def log_posterior(theta, batch):  # −V̂(θ) of one chain (θ (d,)), posteriors' (value, aux) convention
            return logprior(theta) + scale * loglik(theta, batch).sum(), torch.zeros(())

        def log_posterior_chains(theta, batch):  # Σ_c −V̂(θ_c) over the chains (θ (chains, d)): per-chain gradients
            return logprior(theta).sum() + scale * loglik(theta[:, None, :], batch).sum(), torch.zeros(())

        mod = getattr(ps, METHODS[self.method])
        kw = {"lr": self.step_size, "temperature": 1.0 / beta}
        if self.method in ("SGHMC", "SGNHT", "BAOA"):
            kw.update(alpha=self.friction, sigma=1.0)
        if self.method in ("SGLD", "SGHMC", "SGNHT"):
            kw["beta"] = 0.0
        object.__setattr__(self, "_data", data)
        object.__setattr__(self, "_module", mod)
        if self.method == "SGNHT":
            # one thermostat per chain: the chains are vmapped, each a posteriors state of its own
            transform = mod.build(log_posterior, **kw)

            def one(p, m, xi, batch):
                new, _ = transform.update(mod.SGNHTState(p, m, xi), batch)
                return new.params, new.momenta, new.xi
            in_dims = (0, 0, 0, None if self.batch_size is None else 0)
            step_fn = torch.func.vmap(one, in_dims=in_dims, randomness="different")
        else:
            # elementwise updates: the chains are one (chains, d) parameter tensor of one posteriors state
            # (gradient of the sum over chains = each chain's gradient; randn_like draws every entry)
            transform = mod.build(log_posterior_chains, **kw)
            if self.method == "SGLD":
                def step_fn(p, batch):
                    new, _ = transform.update(mod.SGLDState(p), batch)
                    return (new.params,)
            else:
                cls = mod.SGHMCState if self.method == "SGHMC" else mod.BAOAState

                def step_fn(p, m, batch):
                    new, _ = transform.update(cls(p, m), batch)
                    return new.params, new.momenta
        object.__setattr__(self, "transform", transform)
        object.__setattr__(self, "_step_fn", step_fn)

    def init(self, position, momentum=None, thermostat=None):
        """State at ``position`` ``(chains, d)``; momentum zeros by default (as the toolkit's), SGNHT's
        thermostat ``ξ = friction`` by default (posteriors' ``build``, ``sgnht.py:59``).

        Raises
        ------
        ValueError
            Non-finite or mis-shaped position / momentum / thermostat; ``batch_size > n``.
        """
        pos = init_position(self.target, position)
        if self.batch_size is not None and self.batch_size > self.target.n:
            raise ValueError(f"batch_size must be <= n = {self.target.n}, got {self.batch_size}")
        mom = xi = None
        if self.method != "SGLD":
            mom = np.zeros_like(pos) if momentum is None else check_finite_array("momentum", momentum).copy()
            if mom.shape != pos.shape:
                raise ValueError(f"momentum must have the shape of position {pos.shape}, got {mom.shape}")
        if self.method == "SGNHT":
            xi = (np.full(pos.shape[0], float(self.friction)) if thermostat is None
                  else check_finite_array("thermostat", thermostat).astype(float).copy())
            if xi.shape != (pos.shape[0],):
                raise ValueError(f"thermostat must have shape ({pos.shape[0]},), got {xi.shape}")
        return PosteriorsState(pos, mom, xi, 0)

    def step(self, state, rng: np.random.Generator):
        """One posteriors update of every chain; ``(state, StepInfo)``.

        Raises
        ------
        sgmcmc_verify.errors.DivergenceError
            Some chain non-finite after the step.
        """
        torch, _ = _torch()
        chains = state.position.shape[0]
        if self.batch_size is None:
            batch = self._data
        else:
            batch = self._data[torch.as_tensor(uniform_indices(rng, self.target.n, chains, self.batch_size))]
        torch.manual_seed(int(rng.integers(0, 2**63 - 1)))
        args = [torch.as_tensor(state.position)]
        if state.momentum is not None:
            args.append(torch.as_tensor(state.momentum))
        if state.thermostat is not None:
            args.append(torch.as_tensor(state.thermostat))
        out = [o.numpy() for o in self._step_fn(*args, batch)]
        pos = out[0]
        mom = out[1] if len(out) > 1 else None
        xi = out[2] if len(out) > 2 else None
        new = PosteriorsState(pos, mom, xi, state.step + 1)
        bad = nonfinite_chains(*[a if a.ndim == 2 else a[:, None] for a in out])
        if bad:
            raise DivergenceError(self.name, state.step, self.settings(), bad)
        return new, StepInfo(self.target.n if self.batch_size is None else self.batch_size, {})

    def settings(self) -> dict:
        out = {"sampler": self.name, "step_size": self.step_size}
        if self.friction is not None:
            out["friction"] = self.friction
        out["inverse_temperature"] = self.inverse_temperature
        out["estimator"] = "full" if self.batch_size is None else "uniform"
        if self.batch_size is not None:
            out["batch_size"] = self.batch_size
        out["implementation"] = "posteriors"
        return out


def sgld_factory(target, step_size, batch_size=1, inverse_temperature=1.0, estimator=None) -> PosteriorsSampler:
    """posteriors' SGLD (``posteriors.sgmcmc.sgld``, ``lr = h``) with the signature of :func:`sgmcmc_verify.samplers.sgld`.

    Parameters
    ----------
    target : a target of :func:`torch_log_densities`
    step_size : float
        ``h`` (= posteriors' ``lr`` with the log-posterior scaled to the whole data set).
    batch_size : int, default 1
    inverse_temperature : float, default 1
    estimator : None, FullGradient() or UniformMinibatch(b) (with replacement)

    Returns
    -------
    PosteriorsSampler

    Raises
    ------
    ValueError
        An estimator the adapter cannot express (names ``estimator``), and :class:`PosteriorsSampler`'s errors.
    """
    return PosteriorsSampler(target, step_size, "SGLD", None, _batch(target, batch_size, estimator, "posteriors"), inverse_temperature)


def sghmc_factory(target, step_size, friction, batch_size=1, estimator=None) -> PosteriorsSampler:
    """posteriors' SGHMC (``lr = h``, ``alpha = γ``, ``sigma = 1``, ``beta = 0``): the toolkit's :func:`~sgmcmc_verify.samplers.sghmc` recursion.

    Parameters
    ----------
    target, step_size : as :func:`sgld_factory`
    friction : float
        ``γ`` (= posteriors' ``alpha``).
    batch_size, estimator : as :func:`sgld_factory`

    Returns
    -------
    PosteriorsSampler

    Raises
    ------
    ValueError
        As :func:`sgld_factory`; ``friction`` not > 0.
    """
    return PosteriorsSampler(target, step_size, "SGHMC", friction, _batch(target, batch_size, estimator, "posteriors"))


def sgnht_factory(target, step_size, friction, batch_size=1, estimator=None) -> PosteriorsSampler:
    """posteriors' SGNHT (Ding et al. 2014; ``lr = h``, ``alpha = A = friction``, thermostat from ``A``).

    Parameters
    ----------
    target, step_size : as :func:`sgld_factory`
    friction : float
        ``A`` (= posteriors' ``alpha``): the injected noise is ``√(2Ah)``, the thermostat starts at and
        settles around ``A`` (plus the part that absorbs the minibatch noise).
    batch_size, estimator : as :func:`sgld_factory`

    Returns
    -------
    PosteriorsSampler

    Raises
    ------
    ValueError
        As :func:`sghmc_factory`.
    """
    return PosteriorsSampler(target, step_size, "SGNHT", friction, _batch(target, batch_size, estimator, "posteriors"))


def baoa_factory(target, step_size, friction, batch_size=1, estimator=None) -> PosteriorsSampler:
    """posteriors' BAOA (Leimkuhler & Matthews' BAOAB with the half kicks merged; ``lr = h``, ``alpha = γ``).

    Parameters
    ----------
    target, step_size : as :func:`sgld_factory`
    friction : float
        ``γ`` (= posteriors' ``alpha`` at ``sigma = 1``).
    batch_size, estimator : as :func:`sgld_factory`

    Returns
    -------
    PosteriorsSampler

    Raises
    ------
    ValueError
        As :func:`sghmc_factory`.
    """
    return PosteriorsSampler(target, step_size, "BAOA", friction, _batch(target, batch_size, estimator, "posteriors"))
