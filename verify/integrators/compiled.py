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

* :class:`~sgmcmc_verify.integrators.OverdampedEM` with the identity preconditioner and a finite
  inverse temperature (SGLD: ``θ' = θ − hĝ + √(2h/β)ξ``), and :class:`~sgmcmc_verify.integrators.UnderdampedEM`
  (SGHMC, EWSG eq. (3): ``θ' = θ + hr``, ``r' = r − h(ĝ + γr) + σ√h ξ``);
* the estimator exactly :class:`~sgmcmc_verify.estimators.UniformMinibatch` with replacement, or
  :class:`~sgmcmc_verify.estimators.EWSGIndexChain` with the underdamped integrator in ``d = 2`` (EWSG Algorithm 1:
  per step the ``(chains, b)`` minibatch, then per Metropolis step the proposals' ``(chains, b)`` indices and the
  ``chains`` uniforms, then the Gaussians; every choice of x; the per-step acceptance rate returned through
  ``infos``). Its acceptance test ``log u < Δ`` uses libm's ``log``, within 1 ulp of NumPy's; at a test closer than
  :data:`_EWSG_BAND_ULPS` ulps to the threshold :func:`advance` raises :class:`~sgmcmc_verify.errors.CloseCallError`
  with the generator restored, and :func:`~sgmcmc_verify.runner.run_chains` runs those steps with the NumPy step;
* a target offering ``compiled_form()`` of a kind the kernels repeat, in dimension ``d ≥ 2`` (for
  ``d = 1`` NumPy's minibatch sum is pairwise, not sequential): ``"unit_quadratic"``
  (``V = λ‖θ‖²/2 + Σ_i ½‖θ − c_i‖²``: the EWSG §5.1 Gaussian and the vrSG-MCMC Gaussian-mean model),
  ``"hsg_mixture"`` (HSG-HMC's mixture, :class:`~sgmcmc_verify.targets.HSGMixtureTarget`) and ``"ls_mixture"``
  (LS-SGLD §4.1.2, :class:`~sgmcmc_verify.targets.LSMixtureTarget`). The mixtures' logistic function is
  written ``1/(1 + exp(−t))`` as SciPy's ``expit`` computes it; bit identity is tested for them as well
  (libm's ``exp`` in both; a build where they differ would differ by round-off, not in law).

numba is an optional dependency (extra ``compiled``); without it :func:`advance` raises ``ImportError``.
:func:`sgmcmc_verify.runner.run_chains` uses it when asked (``engine="compiled"``), or where it wins with
``engine="auto"`` (:func:`choose_engine`: few chains, :data:`COMPILED_MAX_DRAWS` / :data:`EWSG_COMPILED_MAX_CHAINS`);
its default is the NumPy step.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``: eq. (3) and Appendix E (the ``h`` convention); §5.1 (the target);
eq. (4), (6) and Algorithm 1 (the index chain).
"""
from __future__ import annotations

import numpy as np

from ..errors import CloseCallError, DivergenceError, check_nonnegative_int
from ..estimators.ewsg import EWSGIndexChain
from ..estimators.minibatch import UniformMinibatch
from .base import OverdampedState, UnderdampedState
from .overdamped import OverdampedEM
from .preconditioners import IdentityPreconditioner
from .underdamped import UnderdampedEM

__all__ = ["advance", "unsupported_reason", "numba_available", "choose_engine", "COMPILED_MAX_DRAWS",
           "EWSG_COMPILED_MAX_CHAINS"]

#: ``chains × b`` (index draws per step) up to which :func:`choose_engine` picks the compiled kernel. Measured
#: (``bench/bench_samplers.py``, "both engines"; docs/benchmarks.md, #26): the kernel draws its indices and normals
#: one scalar call at a time, so its cost per chain-step is flat while the NumPy step's per-call overhead is shared
#: by all chains. Compiled / NumPy on the §5.1 Gaussian, 2 cores under load: SGLD b = 1: 29× at 10 chains, 3.8× at
#: 100, 1.3× at 300, 0.8× at 1000, 0.7× at 10⁴; b = 10: 6.4× at 10 chains, 2.8× at 30, 0.8× at 100, 0.3× at 10⁴
#: (SGHMC alike). 256 draws per step keeps the kernel only where it wins.
COMPILED_MAX_DRAWS = 256

#: chains up to which :func:`choose_engine` picks the EWSG kernel (underdamped EWSG, the §5.1 target). Measured
#: (``bench/bench_samplers.py``, ``ewsg_engines_table``; docs/benchmarks.md, "EWSG kernel"; 2 cores, load ≈ 15):
#: compiled / NumPy step at M = 1, b = 1: 128× at 1 chain, 28× at 10, 3.5× at 100, 1.5× at 300, 0.81× at 1,000,
#: 0.53× at 3,000, 0.55× at 10⁴ (the kernel's draws are scalar calls, the NumPy step's per-call cost is shared).
EWSG_COMPILED_MAX_CHAINS = 500

#: the acceptance test of EWSG's index chain is ``log u < Δ``; the kernel's ``log`` (libm) and NumPy's (SIMD) agree
#: to 1 ulp (measured over 2·10⁶ uniforms: ≤ 1 ulp, 0.35 % differ). Where ``|Δ − log u|`` is within this many
#: ulps of ``log u`` the two could decide differently: the kernel stops and :func:`advance` raises CloseCallError
#: with the generator restored (probability ~10⁻¹⁵ a draw). Tests set it large to exercise that path.
_EWSG_BAND_ULPS = 8.0

_KERNELS = {}
#: the targets' per-datum gradients the kernels repeat (``compiled_form()[0]`` → code in the kernels)
_KINDS = {"unit_quadratic": 0, "hsg_mixture": 1, "ls_mixture": 2}
#: EWSG's choices of x (:func:`sgmcmc_verify.estimators.ewsg.ewsg_x`) → code in the kernel
_XMODES = {"recommended": 0, "zero": 1, "one": 2, "momentum_reset": 3}
_LOG2 = float(np.log(2.0))


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
    if type(est) is EWSGIndexChain:
        if type(sampler) is not UnderdampedEM:
            return "EWSG's index chain is compiled with the underdamped integrator (EWSG eq. (3)) only"
        if not sampler.noise_scale > 0:
            return "EWSG needs noise_scale > 0"
        if sampler.target.dim != 2:
            return "EWSG's kernel needs d = 2 (NumPy's einsum sums ‖y‖² in another order for d > 2)"
    elif type(est) is not UniformMinibatch or not est.replace:
        return "an estimator other than UniformMinibatch(b) with replacement or EWSGIndexChain"
    form = getattr(sampler.target, "compiled_form", None)
    if not callable(form):
        return f"target {type(sampler.target).__name__} offers no compiled_form()"
    if form()[0] not in _KINDS:
        return f"no compiled kernel for a target of form {form()[0]!r}"
    if sampler.target.dim < 2:
        return "d = 1 (NumPy sums the minibatch pairwise there)"
    return None


def choose_engine(sampler, chains: int) -> str:
    """``"compiled"`` where the compiled kernel is faster than the NumPy step, else ``"numpy"``; the same numbers either way.

    The kernel is chosen when ``sampler`` has one (:func:`unsupported_reason` is ``None``), numba is installed
    and ``chains × b`` is at most :data:`COMPILED_MAX_DRAWS` (EWSG: ``chains`` at most
    :data:`EWSG_COMPILED_MAX_CHAINS`) (few chains: the NumPy step's per-call overhead
    dominates there; many chains: NumPy's vectorized draws beat the kernel's scalar ones).

    Parameters
    ----------
    sampler : any sampler
    chains : int
        Number of chains the run steps together (>= 1).

    Returns
    -------
    {"compiled", "numpy"}

    Raises
    ------
    ValueError
        ``chains`` not an integer >= 1.
    """
    if isinstance(chains, bool) or not isinstance(chains, (int, np.integer)) or chains < 1:
        raise ValueError(f"chains must be an integer >= 1, got {chains!r}")
    if unsupported_reason(sampler) is not None or not numba_available():
        return "numpy"
    if type(sampler.estimator) is EWSGIndexChain:
        return "compiled" if chains <= EWSG_COMPILED_MAX_CHAINS else "numpy"
    return "compiled" if chains * sampler.estimator.batch_size <= COMPILED_MAX_DRAWS else "numpy"


def _kernels():
    if _KERNELS:
        return _KERNELS
    import numba

    @numba.njit(cache=False, nogil=True)
    def term(kind, x, centers, c, i, m, n, log2):
        """∇V_i(θ_c)[m] as the target's data_gradients computes it (kind: see _KINDS)."""
        if kind == 0:
            return x[c, m] - centers[i, m]
        s = 0.0
        for q in range(x.shape[1]):  # einsum's ⟨a_i, θ⟩
            s += centers[i, q] * x[c, q]
        if kind == 1:  # HSGMixtureTarget.component_gradients / n
            p = 1.0 / (1.0 + np.exp(-(2.0 * s + log2)))
            return (x[c, m] - (2.0 * p - 1.0) * centers[i, m]) / n
        # LSMixtureTarget._grad_f / n
        e = 1.0 / (1.0 + np.exp(2.0 * s + log2))  # expit(-(2s + log 2))
        return (x[c, m] - centers[i, m] + 2.0 * centers[i, m] * e) / n

    @numba.njit(cache=False, nogil=True)
    def gradient(kind, x, centers, scale, lam, has_prior, idx, acc, b, n, rng, log2):
        # the minibatch indices of every chain, drawn in C order as rng.integers(0, n, size=(chains, b))
        chains, d = x.shape
        for c in range(chains):
            for j in range(b):
                idx[c, j] = rng.integers(0, n)
        # Σ_j ∇V_{I_j}(θ) in j order (the axis-1 sum NumPy does for d ≥ 2), then ∇V_0 + (n/b)·sum
        for c in range(chains):
            for m in range(d):
                s = term(kind, x, centers, c, idx[c, 0], m, n, log2)
                for j in range(1, b):
                    s += term(kind, x, centers, c, idx[c, j], m, n, log2)
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
    def sgld(kind, x, centers, scale, lam, has_prior, b, n, h, amp, steps, rng, log2):
        chains, d = x.shape
        idx = np.empty((chains, b), dtype=np.int64)
        g = np.empty((chains, d))
        for k in range(steps):
            gradient(kind, x, centers, scale, lam, has_prior, idx, g, b, n, rng, log2)
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
    def sghmc(kind, x, v, centers, scale, lam, has_prior, b, n, h, gamma, amp, noisy, steps, rng, log2):
        chains, d = x.shape
        idx = np.empty((chains, b), dtype=np.int64)
        g = np.empty((chains, d))
        for k in range(steps):
            gradient(kind, x, centers, scale, lam, has_prior, idx, g, b, n, rng, log2)
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

    @numba.njit(cache=False, nogil=True)
    def half_sq(g, c, wscale, xmode, c1, c2, v):
        """½‖x + (√h/σ)ĝ‖² of chain c as EWSGIndexChain.select computes it (d = 2: einsum's y₀y₀ + y₁y₁)."""
        s = 0.0
        for m in range(g.shape[1]):
            if xmode == 0:
                xm = c1 * v[c, m] / c2        # ewsg_x "recommended": (√h γ) r / σ
            elif xmode == 1:
                xm = 0.0
            elif xmode == 2:
                xm = 1.0
            else:
                xm = c1 * v[c, m] / c2        # "momentum_reset": (−1 + hγ) r / (σ√h)
            y = g[c, m] * wscale + xm
            s += y * y
        return s * 0.5

    @numba.njit(cache=False, nogil=True)
    def ewsg(kind, x, v, centers, scale, lam, has_prior, b, n, h, gamma, amp, steps, rng, log2,
             M, xmode, c1, c2, wscale, band, accepted):
        chains, d = x.shape
        idx = np.empty((chains, b), dtype=np.int64)
        g = np.empty((chains, d))
        gp = np.empty((chains, d))
        hs = np.empty(chains)
        hsp = np.empty(chains)
        lu = np.empty(chains)
        eps = 2.220446049250313e-16
        for k in range(steps):
            # the index chain (EWSGIndexChain.select): a uniform minibatch, then M Metropolis steps, all chains at once
            gradient(kind, x, centers, scale, lam, has_prior, idx, g, b, n, rng, log2)
            for c in range(chains):
                hs[c] = half_sq(g, c, wscale, xmode, c1, c2, v)
            acc = 0
            for _ in range(M):
                gradient(kind, x, centers, scale, lam, has_prior, idx, gp, b, n, rng, log2)
                for c in range(chains):
                    hsp[c] = half_sq(gp, c, wscale, xmode, c1, c2, v)
                for c in range(chains):
                    lu[c] = rng.random()
                for c in range(chains):
                    lg = np.log(lu[c])
                    delta = hsp[c] - hs[c]
                    if abs(delta - lg) <= band * eps * abs(lg):
                        return k, -1          # NumPy's log might decide otherwise: the caller reruns with NumPy
                    if lg < delta:
                        for m in range(d):
                            g[c, m] = gp[c, m]
                        hs[c] = hsp[c]
                        acc += 1
            accepted[k] = acc
            # the underdamped step (UnderdampedEM._update) with ĝ of the final index
            for c in range(chains):
                for m in range(d):
                    r = v[c, m]
                    x[c, m] = x[c, m] + h * r
                    v[c, m] = r - h * (g[c, m] + gamma * r)
            for c in range(chains):
                for m in range(d):
                    v[c, m] = v[c, m] + amp * rng.standard_normal()
            nb = bad_chains(x, v, True)
            if nb:
                return k, nb
        return steps, 0

    _KERNELS.update(sgld=sgld, sghmc=sghmc, ewsg=ewsg)
    return _KERNELS


def advance(sampler, state, rng: np.random.Generator, steps: int, infos: dict | None = None):
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
    infos : dict or None
        If given, filled with the steps' ``StepInfo.info`` values, one list per key in step order (EWSG:
        ``"acceptance_rate"``, as :meth:`EWSGIndexChain.__call__` reports it; SGLD / SGHMC: nothing).

    Returns
    -------
    state : the state after ``steps`` steps (``state.step`` advanced by ``steps``)
    evaluations : int
        Per-datum gradient evaluations per chain spent (``b`` a step).

    Raises
    ------
    ValueError
        ``steps`` negative (named ``steps``); an unsupported sampler (names ``sampler`` and the
        reason; :func:`sgmcmc_verify.runner.run_chains` with the default ``engine="numpy"`` runs every sampler).
    ImportError
        numba absent (the ``compiled`` extra).
    sgmcmc_verify.errors.DivergenceError
        As :meth:`Integrator.step`: at the first step after which some chain is non-finite (with
        that step's number and the number of such chains).
    sgmcmc_verify.errors.CloseCallError
        EWSG only: an acceptance test too close to call with libm's ``log`` (module docstring); ``rng`` is
        restored to where the call found it: run the steps with the NumPy step (``run_chains`` does).

    Examples
    --------
    >>> from sgmcmc_verify.samplers import sgld
    >>> from sgmcmc_verify.targets import gaussian_means_target
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
    form, centers, lam = tgt.compiled_form()
    kind = _KINDS[form]
    centers = np.ascontiguousarray(centers, dtype=np.float64)
    b, n = sampler.estimator.batch_size, tgt.n
    scale = n / b  # the Python float of minibatch_gradient's (target.n / idx.shape[1])
    has_prior, lam = lam is not None, (0.0 if lam is None else lam)
    x = np.array(state.position, dtype=np.float64, order="C", copy=True)
    h = sampler.step_size
    est = sampler.estimator
    if type(est) is EWSGIndexChain:
        return _advance_ewsg(k, sampler, state, rng, steps, infos, kind, centers, scale, lam, has_prior, b, n, x)
    if type(sampler) is OverdampedEM:
        amp = float(np.sqrt(2.0 * h / sampler.inverse_temperature))  # IdentityPreconditioner.noise's factor
        done, nbad = k["sgld"](kind, x, centers, scale, lam, has_prior, b, n, h, amp, steps, rng, _LOG2)
        new = OverdampedState(x, state.preconditioner_state, state.estimator_state, state.step + done)
        arrays = (x,)
    else:
        v = np.array(state.momentum, dtype=np.float64, order="C", copy=True)
        sig = sampler.noise_scale
        amp = float(sig * np.sqrt(h))  # UnderdampedEM._update's sig * np.sqrt(h)
        done, nbad = k["sghmc"](kind, x, v, centers, scale, lam, has_prior, b, n, h, sampler.friction, amp,
                                sig > 0, steps, rng, _LOG2)
        new = UnderdampedState(x, v, state.estimator_state, state.step + done)
        arrays = (x, v)
    if nbad:
        raise DivergenceError(sampler.name, state.step + done, sampler.settings(), nbad)
    del arrays
    return new, steps * b


def _advance_ewsg(k, sampler, state, rng, steps, infos, kind, centers, scale, lam, has_prior, b, n, x):
    """:func:`advance` for UnderdampedEM with EWSGIndexChain (EWSG Algorithm 1 with eq. (3))."""
    est = sampler.estimator
    h, gam, sig = sampler.step_size, sampler.friction, sampler.noise_scale
    M = est.index_chain_length
    # the constants of ewsg_x and context_values, as NumPy forms them (same Python / NumPy scalars)
    if est.x_choice == "recommended":
        c1, c2 = float(np.sqrt(h) * gam), float(sig)
    elif est.x_choice == "momentum_reset":
        c1, c2 = float(-1.0 + h * gam), float(sig * np.sqrt(h))
    else:
        c1, c2 = 0.0, 1.0
    wscale = float(np.sqrt(h) / sig)
    amp = float(sig * np.sqrt(h))
    v = np.array(state.momentum, dtype=np.float64, order="C", copy=True)
    accepted = np.zeros(steps, dtype=np.int64)
    saved = rng.bit_generator.state
    done, nbad = k["ewsg"](kind, x, v, centers, scale, lam, has_prior, b, n, h, gam, amp, steps, rng, _LOG2,
                           M, _XMODES[est.x_choice], c1, c2, wscale, float(_EWSG_BAND_ULPS), accepted)
    if nbad < 0:   # an acceptance test too close to call with another log: the caller runs the NumPy steps
        rng.bit_generator.state = saved
        raise CloseCallError(sampler.name, done)
    if infos is not None and M:
        chains = x.shape[0]
        infos.setdefault("acceptance_rate", []).extend(int(a) / (M * chains) for a in accepted[:done])
    new = UnderdampedState(x, v, state.estimator_state, state.step + done)
    if nbad:
        raise DivergenceError(sampler.name, state.step + done, sampler.settings(), nbad)
    return new, steps * est.evaluations_per_step
