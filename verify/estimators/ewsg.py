"""EWSG: the exponentially weighted stochastic gradient, an index Metropolis chain (Algorithm 1).

One estimator serves both dynamics of the paper: composed with the underdamped integrator (EWSG
eq. (3)) it is Algorithm 1; composed with the identity-preconditioned overdamped integrator it is
the overdamped EWSG of Appendix E. In both the weights are ``p_i ∝ exp(½‖x + n a_i‖²)`` with
``n a_i = (√h/σ) n∇V_i(θ)`` and ``σ`` the amplitude of the noise per ``√h`` (``√(2γ/β)`` in (3),
``√(2/β)`` in Appendix E's ``θ' = θ − h∇V + √(2h)ξ``, whose ``a_i = √h∇V_i/√2``); only the
hyperparameter x differs. :mod:`sgmcmc_verify.estimators.ewsg_vr` wraps this chain for EWSG-VR.

References
----------
EWSG (seed ``000_8e0377c44e2ea3b8.txt``): weights (4), acceptance (6), Algorithm 1, §4.4 (the
choice of x), Appendix D (minibatch b > 1), Appendix E (overdamped Langevin).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sgmcmc_verify.analytic.ewsg_weights import ewsg_log_weights, metropolis_index_law, normalized_weights

from ..errors import check_nonnegative_int, check_positive_int
from .base import GradientEstimate, StepContext, check_batch, minibatch_gradient, uniform_indices

__all__ = ["EWSGIndexChain", "ewsg_x", "X_CHOICES"]


#: The four choices of the EWSG hyperparameter x compared in EWSG Fig. 1b.
X_CHOICES = ("recommended", "zero", "one", "momentum_reset")
_NEEDS_MOMENTUM = ("recommended", "momentum_reset")
_MOMENTUM_FREE = ("zero", "one")


def ewsg_x(choice: str, momentum: np.ndarray, step_size: float, friction: float, noise_scale: float) -> np.ndarray:
    """The EWSG hyperparameter ``x`` of eq. (4) for one of :data:`X_CHOICES`.

    Parameters
    ----------
    choice : {"recommended", "zero", "one", "momentum_reset"}
        ``"recommended"``: ``x = √h γ r_k / σ`` (EWSG §4.4);
        ``"zero"``: ``x = 0``; ``"one"``: ``x = (1, …, 1)``;
        ``"momentum_reset"``: ``x = (−1 + hγ) r_k / (σ √h)``, the value of x when ``r_{k+1} = 0``.
    momentum : (chains, d) ndarray
    step_size, friction, noise_scale : float
        h, γ, σ.

    Returns
    -------
    (chains, d) ndarray of float64
    """
    h, g, s = step_size, friction, noise_scale
    if choice == "recommended":
        return np.sqrt(h) * g * momentum / s
    if choice == "zero":
        return np.zeros_like(momentum)
    if choice == "one":
        return np.ones_like(momentum)
    if choice == "momentum_reset":
        return (-1.0 + h * g) * momentum / (s * np.sqrt(h))
    raise ValueError(f"x_choice must be one of {X_CHOICES}, got {choice!r}")


@dataclass(frozen=True)
class EWSGIndexChain:
    """Exponentially weighted stochastic gradient: the index Metropolis chain of EWSG Algorithm 1.

    At every outer step a minibatch ``I = (i_1, …, i_b)`` is drawn uniformly, then ``M`` Metropolis
    steps with uniform proposals ``J`` are taken, each accepted with probability (6)::

        min{1, exp(½‖x + n a_J‖² − ½‖x + n a_I‖²)},   n a_I = (√h/σ) ĝ_I,
        ĝ_I = ∇V_0(θ) + (n/b) Σ_j ∇V_{i_j}(θ),

    computed in log space (``log U < Δ``) so that large exponents never overflow. The gradient
    returned is ``ĝ_I`` of the final index. The stationary law of the index chain for frozen
    ``(θ, r)`` is the exponential weights (4) (Appendix D for b > 1).

    Parameters
    ----------
    index_chain_length : int, default 1
        ``M`` >= 0. ``M = 0`` is uniform subsampling (SGHMC), step for step.
    batch_size : int, default 1
        ``b``; each index-chain state is a minibatch of ``b`` i.i.d. uniform indices (Appendix D).
    x_choice : str, default "recommended"
        One of :data:`X_CHOICES`; see :func:`ewsg_x`.

    Notes
    -----
    Overdamped Langevin (Appendix E): with :class:`~sgmcmc_verify.integrators.OverdampedEM` (identity
    preconditioner) the integrator passes ``h`` and ``σ = √(2/β)``, and ``n a_i = √(hβ/2) n∇V_i``,
    Appendix E's ``a_i = √h∇V_i/√2`` at β = 1. Appendix E defines ``x = (θ_{k+1} − θ_k)/√(2h)`` but
    recommends no value; ``x_choice="zero"`` is the analogue of §4.4's recommendation (its rationale,
    "the density of the increment is maximized at 0", gives ``θ_{k+1} = θ_k``, i.e. x = 0) and is what
    :func:`sgmcmc_verify.samplers.ewsg_ld` uses. The momentum-based choices are refused there.

    Cost: ``(M + 1) b`` evaluations per chain per step (EWSG §5.1 footnote 5), independent of n.
    The index chain restarts from a fresh uniform draw at every outer step, as Algorithm 1 is
    written (with ``M = 0`` this is exactly SGHMC, as the text states); the paper's remark that
    "N × M inner steps take place on almost the same index chain" would need the index to persist
    across outer steps, which Algorithm 1 does not do and we do not either.
    The estimator needs the integrator's h and σ (and, for the momentum-based choices of x, r_k and
    γ) through ``context``; :meth:`select` is the chain itself, for estimators that wrap it (EWSG-VR).

    References
    ----------
    EWSG, seed ``000_8e0377c44e2ea3b8.txt``: eq. (4), eq. (6), Algorithm 1, Appendices D and E.
    """

    index_chain_length: int = 1
    batch_size: int = 1
    x_choice: str = "recommended"

    def __post_init__(self):
        check_nonnegative_int("index_chain_length", self.index_chain_length)
        check_positive_int("batch_size", self.batch_size)
        if self.x_choice not in X_CHOICES:
            raise ValueError(f"x_choice must be one of {X_CHOICES}, got {self.x_choice!r}")

    def init(self, target, position, rng=None):
        check_batch(target, "batch_size", self.batch_size)
        return None

    def _batch_gradient(self, rng, target, position):
        idx = uniform_indices(rng, target.n, position.shape[0], self.batch_size)
        return idx, minibatch_gradient(target, position, idx)

    def context_values(self, context: StepContext, position) -> tuple[np.ndarray, float]:
        """``(x, √h/σ)`` of the weights (4) from an integrator's ``context``.

        The underdamped integrator (EWSG eq. (3)) passes ``(r_k, h, γ, σ)``; the identity-preconditioned
        overdamped one (Appendix E) passes ``(None, h, None, σ = √(2/β))``, for which only the
        momentum-free choices of x (``"zero"``, ``"one"``) are defined.

        Raises
        ------
        ValueError
            No step size or noise scale in ``context``; ``σ <= 0``; a choice of x that needs the
            momentum (or γ) when the integrator has none.
        """
        h, gam, sig = context.step_size, context.friction, context.noise_scale
        if h is None or sig is None:
            raise ValueError("EWSGIndexChain needs the step_size and noise_scale of an underdamped integrator or of an "
                             "identity-preconditioned overdamped integrator")
        if not sig > 0:
            raise ValueError(f"noise_scale must be > 0 for EWSG (its weights (4) divide by σ), got {sig!r}")
        momentum = context.momentum
        if self.x_choice in _NEEDS_MOMENTUM:
            if momentum is None or gam is None:
                raise ValueError(f"x_choice={self.x_choice!r} needs the momentum and friction of an underdamped "
                                 f"integrator; on overdamped Langevin (Appendix E) use one of {_MOMENTUM_FREE}")
        else:
            momentum = np.zeros_like(position)
        return ewsg_x(self.x_choice, momentum, h, gam, sig), float(np.sqrt(h) / sig)

    def select(self, rng, target, position, x, scale):
        """Run the index chain (6) for every chain; the random draws of :meth:`__call__`, in its order.

        Parameters
        ----------
        rng : numpy.random.Generator
        target : FiniteSumPotential
        position : (chains, d) ndarray
        x : (chains, d) ndarray
            The hyperparameter x of the weights (4).
        scale : float
            ``√h/σ``, so that ``n a_I = scale · ĝ_I``.

        Returns
        -------
        idx : (chains, b) ndarray of int
            The minibatch the chain ends on.
        gradient : (chains, d) ndarray
            ``ĝ_I`` of that minibatch (:func:`~sgmcmc_verify.estimators.base.minibatch_gradient`).
        accepted : int
            Accepted proposals, summed over chains and the ``M`` steps.
        """
        # x + scale·g, ½‖y‖² and log u, each as written, in arrays this call owns
        idx, g = self._batch_gradient(rng, target, position)
        y = np.multiply(g, scale)
        y += x
        half_sq = np.einsum("cd,cd->c", y, y)
        half_sq *= 0.5
        accepted = 0
        for _ in range(self.index_chain_length):
            idx_prop, g_prop = self._batch_gradient(rng, target, position)
            np.multiply(g_prop, scale, out=y)
            y += x
            half_sq_prop = np.einsum("cd,cd->c", y, y)
            half_sq_prop *= 0.5
            log_u = rng.random(position.shape[0])
            np.log(log_u, out=log_u)
            acc = log_u < (half_sq_prop - half_sq)
            g = np.where(acc[:, None], g_prop, g)  # np.where, not copyto(where=): faster on a random mask
            idx = np.where(acc[:, None], idx_prop, idx)
            half_sq = np.where(acc, half_sq_prop, half_sq)
            accepted += int(np.count_nonzero(acc))
        return idx, g, accepted

    def __call__(self, state, rng, target, position, context=StepContext()):
        x, scale = self.context_values(context, position)
        _, g, accepted = self.select(rng, target, position, x, scale)
        info = {}
        if self.index_chain_length:
            info["acceptance_rate"] = accepted / (self.index_chain_length * position.shape[0])
        return GradientEstimate(g, self.evaluations_per_step, None, info)

    @property
    def evaluations_per_step(self) -> int:
        """``(M + 1) b``: per-datum gradient evaluations per chain per step."""
        return (self.index_chain_length + 1) * self.batch_size

    def settings(self) -> dict:
        return {"estimator": "ewsg", "index_chain_length": self.index_chain_length,
                "batch_size": self.batch_size, "x_choice": self.x_choice}

    # ---- exact laws, for diagnostics and tests (b = 1, small n) -------------------------------
    def index_weights(self, target, position, momentum, step_size, friction, noise_scale) -> np.ndarray:
        """The exponential weights (4) for b = 1: ``p_i ∝ exp(½‖x + n a_i‖²)``, shape ``(chains, n)``.

        Costs a full data pass; for diagnostics only. Computed with a max-shift in log space
        (:func:`sgmcmc_verify.analytic.ewsg_weights.ewsg_log_weights`, :func:`sgmcmc_verify.analytic.ewsg_weights.normalized_weights`).
        """
        if self.batch_size != 1:
            raise ValueError(f"index_weights enumerates single indices: batch_size must be 1, got {self.batch_size}")
        return normalized_weights(self._log_weights(target, position, momentum, step_size, friction, noise_scale))

    def _log_weights(self, target, position, momentum, step_size, friction, noise_scale):
        chains, n = position.shape[0], target.n
        x = ewsg_x(self.x_choice, momentum, step_size, friction, noise_scale)
        idx = np.broadcast_to(np.arange(n), (chains, n))
        g = target.prior_gradient(position)[:, None, :] + n * target.data_gradients(position, idx)
        return ewsg_log_weights(x, g, step_size, noise_scale)

    def index_law(self, target, position, momentum, step_size, friction, noise_scale) -> np.ndarray:
        """Exact law of the index after ``M`` Metropolis steps from a uniform start, shape ``(chains, n)``.

        Enumerates the ``n × n`` Metropolis transition matrix per chain
        (:func:`sgmcmc_verify.analytic.ewsg_weights.metropolis_index_law`, O(M n²) per chain): for
        diagnostics (the conditional covariance in Theorem 4.3) and tests, b = 1 only.
        """
        if self.batch_size != 1:
            raise ValueError(f"index_law enumerates single indices: batch_size must be 1, got {self.batch_size}")
        return metropolis_index_law(self._log_weights(target, position, momentum, step_size, friction, noise_scale),
                                    self.index_chain_length)
