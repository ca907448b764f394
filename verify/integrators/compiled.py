"""Optional compiled kernels (numba): many SGLD / SGHMC steps per Python call, the same numbers as the NumPy steps.

:func:`advance` runs ``steps`` steps of a supported sampler in one call of a numba kernel that draws
from the same ``numpy.random.Generator`` in the same order as :meth:`Integrator.step` (per step: the
``(chains, b)`` minibatch indices, then the ``(chains, d)`` Gaussians, each in C order) and repeats
its floating-point operations one by one. The result is bit-identical to ``steps`` calls of
``sampler.step(state, rng)``, and the generator is left in the same state (tested in
``tests/verify/integrators/test_compiled.py``). The NumPy step stays the reference: the experiments
and the ledger use it; this path is for long single chains, where the per-step Python overhead
(≈ 30 µs) is the whole cost, and for benchmarks.

Supported (:func:`unsupported_reason` says why not otherwise):

* :class:`~verify.integrators.OverdampedEM` with the identity preconditioner and a finite
  inverse temperature (SGLD: ``θ' = θ − hĝ + √(2h/β)ξ``), and :class:`~verify.integrators.UnderdampedEM`
  (SGHMC, EWSG eq. (3): ``θ' = θ + hr``, ``r' = r − h(ĝ + γr) + σ√h ξ``);
* the estimator exactly :class:`~verify.estimators.UniformMinibatch` with replacement;
* a target offering ``unit_quadratic_form()`` (``V = λ‖θ‖²/2 + Σ_i ½‖θ − c_i‖²``: the EWSG §5.1
  Gaussian and the vrSG-MCMC Gaussian-mean model) in dimension ``d ≥ 2`` (for ``d = 1`` NumPy's
  minibatch sum is pairwise, not sequential).

numba is an optional dependency (extra ``compiled``); without it :func:`advance` raises ``ImportError``.
:func:`verify.runner.run_chains` uses it when asked (``engine="compiled"``); its default is the NumPy step.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: eq. (3) and Appendix E (the ``h`` convention); §5.1 (the target).
"""
from __future__ import annotations

import numpy as np

from ..errors import DivergenceError, check_nonnegative_int
from ..estimators.minibatch import UniformMinibatch
from .base import OverdampedState, UnderdampedState
from .overdamped import OverdampedEM
from .preconditioners import IdentityPreconditioner
from .underdamped import UnderdampedEM

__all__ = ["advance", "unsupported_reason", "numba_available"]

_KERNELS = {}


def numba_available() -> bool:
    """Whether numba can be imported (the optional ``compiled`` extra)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def unsupported_reason(sampler) -> str | None:
    """``None`` if :func:`advance` has a compiled kernel for ``sampler``, else the reason in words."""
    if type(sampler) not in (OverdampedEM, UnderdampedEM):
        return f"no compiled kernel for {type(sampler).__name__} (OverdampedEM and UnderdampedEM only)"
    if type(sampler) is OverdampedEM:
        if type(sampler.preconditioner) is not IdentityPreconditioner:
            return "a preconditioner other than the identity"
        if not np.isfinite(sampler.inverse_temperature):
            return "zero temperature (inverse_temperature = inf)"
    est = sampler.estimator
    if type(est) is not UniformMinibatch or not est.replace:
        return "an estimator other than UniformMinibatch(b) with replacement"
    form = getattr(sampler.target, "unit_quadratic_form", None)
    if not callable(form):
        return f"target {type(sampler.target).__name__} offers no unit_quadratic_form()"
    if sampler.target.dim < 2:
        return "d = 1 (NumPy sums the minibatch pairwise there)"
    return None


def _kernels():
    if _KERNELS:
        return _KERNELS
    import numba

    @numba.njit(cache=False, nogil=True)
    def gradient(x, v, centers, scale, lam, has_prior, idx, acc, b, n, rng):
        # the minibatch indices of every chain, drawn in C order as rng.integers(0, n, size=(chains, b))
        chains, d = x.shape
        for c in range(chains):
            for j in range(b):
                idx[c, j] = rng.integers(0, n)
        # Σ_j (θ − c_{I_j}) in j order (data_gradient_sum_exact), then ∇V_0 + (n/b)·sum (minibatch_gradient)
        for c in range(chains):
            for m in range(d):
                s = x[c, m] - centers[idx[c, 0], m]
                for j in range(1, b):
                    s += x[c, m] - centers[idx[c, j], m]
                if has_prior:
                    acc[c, m] = lam * x[c, m] + scale * s
                else:
                    acc[c, m] = 0.0 + scale * s

    @numba.njit(cache=False, nogil=True)
    def bad_chains(x, v, check_v):
        chains, d = x.shape
        bad = 0
        for c in range(chains):
            ok = True
            for m in range(d):
                if not np.isfinite(x[c, m]) or (check_v and not np.isfinite(v[c, m])):
                    ok = False
            if not ok:
                bad += 1
        return bad

    @numba.njit(cache=False, nogil=True)
    def sgld(x, centers, scale, lam, has_prior, b, n, h, amp, steps, rng):
        chains, d = x.shape
        idx = np.empty((chains, b), dtype=np.int64)
        g = np.empty((chains, d))
        for k in range(steps):
            gradient(x, x, centers, scale, lam, has_prior, idx, g, b, n, rng)
            for c in range(chains):
                for m in range(d):
                    x[c, m] = x[c, m] - h * g[c, m]
            for c in range(chains):
                for m in range(d):
                    x[c, m] = x[c, m] + amp * rng.standard_normal()
            nb = bad_chains(x, x, False)
            if nb:
                return k, nb
        return steps, 0

    @numba.njit(cache=False, nogil=True)
    def sghmc(x, v, centers, scale, lam, has_prior, b, n, h, gamma, amp, noisy, steps, rng):
        chains, d = x.shape
        idx = np.empty((chains, b), dtype=np.int64)
        g = np.empty((chains, d))
        for k in range(steps):
            gradient(x, v, centers, scale, lam, has_prior, idx, g, b, n, rng)
            for c in range(chains):
                for m in range(d):
                    r = v[c, m]
                    x[c, m] = x[c, m] + h * r
                    v[c, m] = r - h * (g[c, m] + gamma * r)
            if noisy:
                for c in range(chains):
                    for m in range(d):
                        v[c, m] = v[c, m] + amp * rng.standard_normal()
            nb = bad_chains(x, v, True)
            if nb:
                return k, nb
        return steps, 0

    _KERNELS.update(sgld=sgld, sghmc=sghmc)
    return _KERNELS


def advance(sampler, state, rng: np.random.Generator, steps: int):
    """``steps`` steps of ``sampler`` from ``state`` in one compiled call; bit-identical to calling ``sampler.step``.

    Parameters
    ----------
    sampler : OverdampedEM or UnderdampedEM (see the module docstring for what is supported)
    state : OverdampedState or UnderdampedState
        From ``sampler.init`` (or earlier steps); not modified.
    rng : numpy.random.Generator
        Advanced exactly as ``steps`` calls of ``sampler.step`` advance it.
    steps : int
        >= 0.

    Returns
    -------
    state : the state after ``steps`` steps (``state.step`` advanced by ``steps``)
    evaluations : int
        Per-datum gradient evaluations per chain spent (``b`` a step).

    Raises
    ------
    ValueError
        ``steps`` negative (named ``steps``); an unsupported sampler (names ``sampler`` and the
        reason; :func:`verify.runner.run_chains` with the default ``engine="numpy"`` runs every sampler).
    ImportError
        numba absent (the ``compiled`` extra).
    verify.errors.DivergenceError
        As :meth:`Integrator.step`: at the first step after which some chain is non-finite (with
        that step's number and the number of such chains).

    Examples
    --------
    >>> from verify.samplers import sgld
    >>> from verify.targets import gaussian_means_target
    >>> s = sgld(gaussian_means_target(), 1e-3)
    >>> st, ev = advance(s, s.init(np.zeros((1, 2))), np.random.default_rng(0), 1000)  # doctest: +SKIP
    >>> st.step, ev  # doctest: +SKIP
    (1000, 1000)
    """
    steps = check_nonnegative_int("steps", steps)
    reason = unsupported_reason(sampler)
    if reason is not None:
        raise ValueError(f"sampler {sampler.name!r} has no compiled kernel: {reason}")
    if not numba_available():
        raise ImportError("advance needs numba for its compiled kernels: pip install -e '.[compiled]'")
    k = _kernels()
    tgt = sampler.target
    centers, lam = tgt.unit_quadratic_form()
    centers = np.ascontiguousarray(centers, dtype=np.float64)
    b, n = sampler.estimator.batch_size, tgt.n
    scale = n / b  # the Python float of minibatch_gradient's (target.n / idx.shape[1])
    has_prior, lam = lam is not None, (0.0 if lam is None else lam)
    x = np.array(state.position, dtype=np.float64, order="C", copy=True)
    h = sampler.step_size
    if type(sampler) is OverdampedEM:
        amp = float(np.sqrt(2.0 * h / sampler.inverse_temperature))  # IdentityPreconditioner.noise's factor
        done, nbad = k["sgld"](x, centers, scale, lam, has_prior, b, n, h, amp, steps, rng)
        new = OverdampedState(x, state.preconditioner_state, state.estimator_state, state.step + done)
        arrays = (x,)
    else:
        v = np.array(state.momentum, dtype=np.float64, order="C", copy=True)
        sig = sampler.noise_scale
        amp = float(sig * np.sqrt(h))  # UnderdampedEM._update's sig * np.sqrt(h)
        done, nbad = k["sghmc"](x, v, centers, scale, lam, has_prior, b, n, h, sampler.friction, amp, sig > 0,
                                steps, rng)
        new = UnderdampedState(x, v, state.estimator_state, state.step + done)
        arrays = (x, v)
    if nbad:
        raise DivergenceError(sampler.name, state.step + done, sampler.settings(), nbad)
    del arrays
    return new, steps * b
