"""Benchmarks (``make bench``): chain-steps per second, n-independence of the per-step cost, Fig. 1 wall time.

Prints a table; numbers are recorded in docs/benchmarks.md by hand with the machine they came from.
Not a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from sgmcmc_verify.paper_repro.ewsg.experiments import make_sampler, run_all
from sgmcmc_verify.targets import GaussianMeansTarget, gaussian_means_target

STEP = {"SGLD": 5e-3, "pSGLD": 5e-3, "SGHMC": 5e-2, "EWSG": 5e-2, "SVRG-LD": 5e-4, "FG": 5e-2}


def chain_steps_per_second(method, target, chains=10_000, steps=200, repeats=3):
    """Best-of-``repeats`` chain-steps/s; the step size is the Fig. 1 one scaled by 50/n (stability needs h n = O(1))."""
    best = np.inf
    h = STEP[method] * 50 / target.n
    for r in range(repeats):
        rng = np.random.default_rng(r)
        s = make_sampler(method, target, h, 10.0)
        st = s.init(target.posterior_mean + rng.standard_normal((chains, target.dim)) * 0.1,
                    rng.standard_normal((chains, target.dim)))
        st, _ = s.step(st, rng)
        t0 = time.perf_counter()
        for _ in range(steps):
            st, _ = s.step(st, rng)
        best = min(best, time.perf_counter() - t0)
    return chains * steps / best


def _toolkit_rate(method, target, b, chains, steps, seed):
    """Chain-steps/s of the toolkit's SGLD / SGHMC (uniform minibatch of size ``b``) over ``steps`` steps."""
    from sgmcmc_verify.estimators import UniformMinibatch
    from sgmcmc_verify.integrators import OverdampedEM, UnderdampedEM
    rng = np.random.default_rng(seed)
    est = UniformMinibatch(b)
    if method == "SGLD":
        s = OverdampedEM(target, 5e-3, est)
    else:
        s = UnderdampedEM(target, 5e-2, 10.0, est)
    st = s.init(target.posterior_mean + rng.standard_normal((chains, target.dim)) * 0.1,
                rng.standard_normal((chains, target.dim)))
    t0 = time.perf_counter()
    for _ in range(steps):
        st, _ = s.step(st, rng)
    return chains * steps / (time.perf_counter() - t0)


def _minimal_rate(method, target, b, chains, steps, seed):
    """Chain-steps/s of a minimal hand-vectorized NumPy loop doing the same arithmetic (no validation, no state)."""
    rng = np.random.default_rng(seed)
    c, n = target.centers, target.n
    x = target.posterior_mean + rng.standard_normal((chains, target.dim)) * 0.1
    v = rng.standard_normal((chains, target.dim))
    h = 5e-3 if method == "SGLD" else 5e-2
    t0 = time.perf_counter()
    for _ in range(steps):
        idx = rng.integers(0, n, size=(chains, b))
        g = (n / b) * (x[:, None, :] - c[idx]).sum(axis=1)  # this target's prior gradient is 0
        if method == "SGLD":
            x = x - h * g + np.sqrt(2 * h) * rng.standard_normal(x.shape)
        else:
            x, v = x + h * v, v - h * (g + 10.0 * v) + np.sqrt(2 * 10.0 * h) * rng.standard_normal(v.shape)
    return chains * steps / (time.perf_counter() - t0)


# ---- EWSG, LS-SGLD, HSG-HMC: the toolkit's step against a minimal loop of the same arithmetic ---------------------

def _ewsg_pair(chains, steps, seed, toolkit):
    """EWSG (M = 1, b = 1, x recommended), §5.1 Gaussian, h = 0.05, γ = 10."""
    from sgmcmc_verify.samplers import ewsg
    t = gaussian_means_target()
    h, gam = 0.05, 10.0
    rng = np.random.default_rng(seed)
    x0, v0 = t.posterior_mean + 0.1 * rng.standard_normal((chains, 2)), rng.standard_normal((chains, 2))
    if toolkit:
        s = ewsg(t, h, gam, index_chain_length=1)
        st = s.init(x0, v0)
        t0 = time.perf_counter()
        for _ in range(steps):
            st, _ = s.step(st, rng)
        return chains * steps / (time.perf_counter() - t0)
    c, n = t.centers, t.n
    sig = np.sqrt(2 * gam)
    scale = np.sqrt(h) / sig
    x, v = x0, v0
    t0 = time.perf_counter()
    for _ in range(steps):
        xx = np.sqrt(h) * gam * v / sig
        g = n * (x - c[rng.integers(0, n, size=chains)])
        y = xx + scale * g
        hs = 0.5 * np.einsum("cd,cd->c", y, y)
        g2 = n * (x - c[rng.integers(0, n, size=chains)])
        y2 = xx + scale * g2
        acc = np.log(rng.random(chains)) < 0.5 * np.einsum("cd,cd->c", y2, y2) - hs
        g = np.where(acc[:, None], g2, g)
        x, v = x + h * v, v - h * (g + gam * v) + sig * np.sqrt(h) * rng.standard_normal(v.shape)
    return chains * steps / (time.perf_counter() - t0)


def _ls_sgld_pair(chains, steps, seed, toolkit):
    """LS-SGLD (σ = 1, b = 1), §5.1 Gaussian in d = 2 (the dimension of LS-SGLD §4.1), h = 5e-3."""
    from sgmcmc_verify.samplers import ls_sgld
    t = gaussian_means_target()
    h, sm = 5e-3, 1.0
    rng = np.random.default_rng(seed)
    x0 = t.posterior_mean + 0.1 * rng.standard_normal((chains, 2))
    if toolkit:
        s = ls_sgld(t, h, sm)
        st = s.init(x0)
        t0 = time.perf_counter()
        for _ in range(steps):
            st, _ = s.step(st, rng)
        return chains * steps / (time.perf_counter() - t0)
    c, n, d = t.centers, t.n, t.dim
    lam = (1.0 + 4.0 * sm * np.sin(np.pi * np.arange(d) / d) ** 2)[: d // 2 + 1]
    inv, inv_sqrt = lam ** -1.0, lam ** -0.5
    x = x0
    t0 = time.perf_counter()
    for _ in range(steps):
        g = n * (x - c[rng.integers(0, n, size=chains)])
        x = x - h * np.fft.irfft(np.fft.rfft(g, axis=-1) * inv, n=d, axis=-1)
        xi = rng.standard_normal(x.shape)
        x = x + np.sqrt(2 * h) * np.fft.irfft(np.fft.rfft(xi, axis=-1) * inv_sqrt, n=d, axis=-1)
    return chains * steps / (time.perf_counter() - t0)


def _hsg_hmc_pair(chains, steps, seed, toolkit):
    """HSG-HMC (periodic ρ, b = 1, Remark 2's γ), HSG-HMC mixture n = 500, d = 2, η = 0.1."""
    from scipy.special import expit

    from sgmcmc_verify.samplers import hsg_hmc
    from sgmcmc_verify.targets import hsg_mixture_target
    t = hsg_mixture_target()
    eta = 0.1
    s = hsg_hmc(t, eta)
    rng = np.random.default_rng(seed)
    x0 = 0.5 * rng.standard_normal((chains, 2))
    if toolkit:
        st = s.init(x0)
        t0 = time.perf_counter()
        for _ in range(steps):
            st, _ = s.step(st, rng)
        return chains * steps / (time.perf_counter() - t0)
    cf, L, P, a_all, n = s.coefficients, s.noise_cholesky, s.estimator.period, t.centers, t.n
    log2 = np.log(2.0)

    def grad(th, a):  # n/b Σ ∇V_i with ∇V_i = ∇f_i / n, b = 1: ∇f_i
        p = expit(2.0 * np.einsum("cd,cd->c", a, th) + log2)
        return th - (2.0 * p - 1.0)[:, None] * a

    x, v = x0, np.zeros_like(x0)
    x_prev = g_prev = None
    t0 = time.perf_counter()
    for k in range(steps):
        a = a_all[rng.integers(0, n, size=chains)]
        g_u = grad(x, a)
        rho = 1.0 if k == 0 else 1.0 / (((k - 1) % P) + 1)
        g = g_u if rho == 1.0 else rho * g_u + (1.0 - rho) * (g_prev + g_u - grad(x_prev, a))
        x_prev, g_prev = x, g
        xi = rng.standard_normal((2,) + x.shape)
        x, v = (x + cf.x_from_v * v + cf.x_from_g * g + L[0, 0] * xi[0],
                cf.v_decay * v + cf.v_from_g * g + L[1, 0] * xi[0] + L[1, 1] * xi[1])
    return chains * steps / (time.perf_counter() - t0)


def _psgld_pair(chains, steps, seed, toolkit):
    """pSGLD (RMSprop α = 0.99, λ = 1e-5, per-datum input, b = 1), §5.1 Gaussian, h = 5e-3."""
    from sgmcmc_verify.samplers import psgld
    t = gaussian_means_target()
    h, alpha, lam = 5e-3, 0.99, 1e-5
    rng = np.random.default_rng(seed)
    x0 = t.posterior_mean + 0.1 * rng.standard_normal((chains, 2))
    if toolkit:
        s = psgld(t, h)
        st = s.init(x0)
        t0 = time.perf_counter()
        for _ in range(steps):
            st, _ = s.step(st, rng)
        return chains * steps / (time.perf_counter() - t0)
    c, n = t.centers, t.n
    x, v = x0, np.zeros_like(x0)
    t0 = time.perf_counter()
    for _ in range(steps):
        g = n * (x - c[rng.integers(0, n, size=chains)])
        v = alpha * v + (1.0 - alpha) * (g / n) ** 2
        G = 1.0 / (lam + np.sqrt(v))
        x = x - h * G * g + np.sqrt(2.0 * h * G) * rng.standard_normal(x.shape)
    return chains * steps / (time.perf_counter() - t0)


PAIRS = {"EWSG": _ewsg_pair, "LS-SGLD": _ls_sgld_pair, "HSG-HMC": _hsg_hmc_pair, "pSGLD": _psgld_pair}


# ---- the tuned loops (bench/tuned_loops.py: in place, preallocated, the toolkit's numbers bit for bit) ----------

def _tuned_module():
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location("tuned_loops", Path(__file__).resolve().parent / "tuned_loops.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _tuned_rate(method, b, chains, steps, seed):
    """Chain-steps/s of the tuned loop of ``method`` with the workload of its toolkit / minimal pair."""
    tl = _tuned_module()
    rng = np.random.default_rng(seed)
    if method == "HSG-HMC":
        from sgmcmc_verify.samplers import hsg_hmc
        from sgmcmc_verify.targets import hsg_mixture_target
        t = hsg_mixture_target()
        s = hsg_hmc(t, 0.1)
        x0 = 0.5 * rng.standard_normal((chains, 2))
        t0 = time.perf_counter()
        tl.hsg_hmc(t.centers, s.coefficients, s.noise_cholesky, s.estimator.period, x0, np.zeros_like(x0), rng, steps)
        return chains * steps / (time.perf_counter() - t0)
    t = gaussian_means_target()
    x0 = t.posterior_mean + 0.1 * rng.standard_normal((chains, t.dim))
    v0 = rng.standard_normal((chains, t.dim))
    c = t.centers
    t0 = time.perf_counter()
    if method == "SGLD":
        tl.sgld(c, 5e-3, b, x0, rng, steps)
    elif method == "SGHMC":
        tl.sghmc(c, 5e-2, 10.0, b, x0, v0, rng, steps)
    elif method == "EWSG":
        tl.ewsg(c, 0.05, 10.0, 1, x0, v0, rng, steps)
    elif method == "LS-SGLD":
        tl.ls_sgld(c, 5e-3, 1.0, x0, rng, steps)
    elif method == "pSGLD":
        tl.psgld(c, 5e-3, x0, rng, steps)
    else:
        raise ValueError(f"no tuned loop for {method!r}")
    return chains * steps / (time.perf_counter() - t0)

RATIO_WORKLOADS = (("SGLD", 1, 10_000), ("SGHMC", 1, 10_000), ("SGLD", 10, 10_000), ("SGHMC", 10, 10_000),
                   ("SGLD", 1, 1), ("SGHMC", 1, 1), ("EWSG", 1, 10_000), ("LS-SGLD", 1, 10_000), ("HSG-HMC", 1, 10_000),
                   ("pSGLD", 1, 10_000))


def ratio_table(steps=1500, repeats=5, workloads=RATIO_WORKLOADS):
    """Toolkit vs the minimal and the tuned NumPy loops (bench/tuned_loops.py), measured interleaved in the same
    run: median chain-steps/s of each and the medians of the per-repeat ratios (the numbers that mean the same on
    any machine; a loaded machine slows the three alike within a repeat).

    Parameters
    ----------
    steps : int
        Steps per timed run (> 0); one chain runs ``10 × steps``.
    repeats : int
        Interleaved toolkit / minimal / tuned triples per workload (> 0).
    workloads : sequence of (method, batch size, chains)
        ``method`` "SGLD" / "SGHMC" (any b) or one of :data:`PAIRS` (b = 1).

    Returns
    -------
    list of tuple
        ``(method, b, chains, toolkit rate, minimal rate, tuned rate, toolkit/minimal, toolkit/tuned)``
        (medians over the repeats).
    """
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps!r}")
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats!r}")
    t = gaussian_means_target()
    rows = []
    for method, b, chains in workloads:
        k = max(1, steps if chains > 1 else 10 * steps)
        tk, mn, tu = [], [], []
        for r in range(repeats):
            if method in PAIRS:
                tk.append(PAIRS[method](chains, k, r, True))
                mn.append(PAIRS[method](chains, k, r, False))
            else:
                tk.append(_toolkit_rate(method, t, b, chains, k, r))
                mn.append(_minimal_rate(method, t, b, chains, k, r))
            tu.append(_tuned_rate(method, b, chains, k, r))
        tk, mn, tu = np.array(tk), np.array(mn), np.array(tu)
        rows.append((method, b, chains, float(np.median(tk)), float(np.median(mn)), float(np.median(tu)),
                     float(np.median(tk / mn)), float(np.median(tk / tu))))
    return rows


# ---- long single chains and the peers (blackjax's compiled loop, optional extra 'peers') --------------------

def _peers_available():
    try:
        import blackjax  # noqa: F401
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


def single_chain_table(steps=100_000, repeats=3, methods=("SGLD", "SGHMC"), batch_sizes=(1, 10)):
    """One chain, ``steps`` steps: steps/s of the toolkit's NumPy step, its compiled kernel (numba, same bits),
    the minimal NumPy loop and blackjax's compiled ``lax.scan`` loop (when installed), best of ``repeats``.

    Returns
    -------
    list of dict
        ``method, b, numpy, compiled, minimal, blackjax`` (steps/s; ``None`` where skipped) and the ratios
        ``compiled / blackjax`` and ``numpy / blackjax``.
    """
    from sgmcmc_verify.integrators.compiled import numba_available
    from sgmcmc_verify.samplers import sghmc, sgld
    t = gaussian_means_target()
    peers = _peers_available()
    rows = []
    for method in methods:
        for b in batch_sizes:
            h = 5e-3 if method == "SGLD" else 5e-2
            s = sgld(t, h, batch_size=b) if method == "SGLD" else sghmc(t, h, 10.0, batch_size=b)
            x0 = np.zeros((1, 2))
            np_steps = max(1, steps // 10)  # the NumPy step is ~30 µs: a tenth of the steps gives its rate
            best = {"numpy": 0.0, "compiled": 0.0, "minimal": 0.0, "blackjax": 0.0}
            if numba_available():
                s.advance(s.init(x0), np.random.default_rng(0), 10)  # compile
            run = None
            if peers:
                from sgmcmc_verify.peers.blackjax import compiled_loop
                run = compiled_loop(method, t, h, steps, batch_size=b, friction=10.0)
                run(0, x0).block_until_ready()  # compile
            for r in range(repeats):
                rng = np.random.default_rng(r)
                st = s.init(x0)
                t0 = time.perf_counter()
                for _ in range(np_steps):
                    st, _ = s.step(st, rng)
                best["numpy"] = max(best["numpy"], np_steps / (time.perf_counter() - t0))
                best["minimal"] = max(best["minimal"], _minimal_rate(method, t, b, 1, np_steps, r))
                if numba_available():
                    t0 = time.perf_counter()
                    s.advance(s.init(x0), rng, steps)
                    best["compiled"] = max(best["compiled"], steps / (time.perf_counter() - t0))
                if run is not None:
                    t0 = time.perf_counter()
                    run(r + 1, x0).block_until_ready()
                    best["blackjax"] = max(best["blackjax"], steps / (time.perf_counter() - t0))
            row = {"method": method, "b": b, **{k: (v or None) for k, v in best.items()}}
            bj = row["blackjax"]
            row["compiled/blackjax"] = row["compiled"] / bj if bj and row["compiled"] else None
            row["numpy/blackjax"] = row["numpy"] / bj if bj else None
            rows.append(row)
    return rows


def peers_many_chains_table(chains=10_000, steps=200, repeats=3, batch_sizes=(1, 10)):
    """10⁴ chains: chain-steps/s of the toolkit's NumPy step, its compiled kernel and blackjax's compiled loop
    (``jax.vmap`` over chains inside ``lax.scan``); ``None`` rows where blackjax is absent."""
    from sgmcmc_verify.integrators.compiled import numba_available
    from sgmcmc_verify.samplers import sghmc, sgld
    t = gaussian_means_target()
    rows = []
    for method in ("SGLD", "SGHMC"):
        for b in batch_sizes:
            h = 5e-3 if method == "SGLD" else 5e-2
            s = sgld(t, h, batch_size=b) if method == "SGLD" else sghmc(t, h, 10.0, batch_size=b)
            x0 = t.posterior_mean + 0.1 * np.random.default_rng(0).standard_normal((chains, 2))
            best = {"numpy": 0.0, "compiled": 0.0, "blackjax": 0.0}
            run = None
            if _peers_available():
                from sgmcmc_verify.peers.blackjax import compiled_loop
                run = compiled_loop(method, t, h, steps, batch_size=b, friction=10.0, chains=chains)
                run(0, x0).block_until_ready()
            for r in range(repeats):
                best["numpy"] = max(best["numpy"], _toolkit_rate(method, t, b, chains, steps, r))
                if numba_available():
                    rng = np.random.default_rng(r)
                    st = s.init(x0)
                    s.advance(st, rng, 1)
                    t0 = time.perf_counter()
                    s.advance(st, rng, steps)
                    best["compiled"] = max(best["compiled"], chains * steps / (time.perf_counter() - t0))
                if run is not None:
                    t0 = time.perf_counter()
                    run(r + 1, x0).block_until_ready()
                    best["blackjax"] = max(best["blackjax"], chains * steps / (time.perf_counter() - t0))
            rows.append({"method": method, "b": b, **{k: (v or None) for k, v in best.items()}})
    return rows


def engines_table(chain_counts=(1, 100, 10_000), batch_sizes=(1, 10), budget=2e6, repeats=3):
    """Both engines at several chain counts (SGLD, SGHMC on the §5.1 Gaussian): chain-steps/s of the NumPy step and
    of the compiled kernel (numba; same bits), interleaved, best of ``repeats``, the median ratio, and the engine
    ``run_chains(engine="auto")`` picks (:func:`sgmcmc_verify.integrators.compiled.choose_engine`).

    ``budget`` chain-steps per timed run (at least 20 steps; the NumPy step on one chain runs a tenth of them).

    Returns
    -------
    list of dict
        ``method, b, chains, numpy, compiled, compiled/numpy, auto``.
    """
    from sgmcmc_verify.integrators.compiled import choose_engine, numba_available
    from sgmcmc_verify.samplers import sghmc, sgld
    if not numba_available():
        return []
    t = gaussian_means_target()
    rows = []
    for method in ("SGLD", "SGHMC"):
        for b in batch_sizes:
            s = sgld(t, 5e-3, batch_size=b) if method == "SGLD" else sghmc(t, 5e-2, 10.0, batch_size=b)
            s.advance(s.init(np.zeros((2, 2))), np.random.default_rng(0), 2)  # compile
            for chains in chain_counts:
                steps = int(max(20, budget // (chains * b)))
                np_steps = max(20, steps // 10) if chains == 1 else steps
                rn, rc = [], []
                for r in range(repeats):
                    x0 = np.zeros((chains, 2))
                    rng = np.random.default_rng(r)
                    st = s.init(x0)
                    t0 = time.perf_counter()
                    for _ in range(np_steps):
                        st, _ = s.step(st, rng)
                    rn.append(chains * np_steps / (time.perf_counter() - t0))
                    t0 = time.perf_counter()
                    s.advance(s.init(x0), rng, steps)
                    rc.append(chains * steps / (time.perf_counter() - t0))
                rows.append({"method": method, "b": b, "chains": chains, "numpy": max(rn), "compiled": max(rc),
                             "compiled/numpy": float(np.median(np.array(rc) / np.array(rn))),
                             "auto": choose_engine(s, chains)})
    return rows


def ewsg_engines_table(chain_counts=(1, 100, 1000, 10_000), M=1, budget=1e6, repeats=3):
    """EWSG (Algorithm 1 with eq. (3), b = 1, x "recommended", §5.1 Gaussian): the toolkit's NumPy step, its compiled
    kernel (numba, same bits) and the tuned NumPy loop of the same arithmetic (``tuned_loops.ewsg``), interleaved,
    chain-steps/s (best of ``repeats``), the median ratios compiled / NumPy step and compiled / tuned loop, and the
    engine ``run_chains(engine="auto")`` picks.

    ``budget`` chain-steps per timed run (at least 20 steps; the NumPy step and the tuned loop on fewer than 100
    chains run a tenth of them: their per-step cost is Python overhead there).

    Returns
    -------
    list of dict
        ``method, M, chains, numpy, compiled, tuned, compiled/numpy, compiled/tuned, auto``.
    """
    from sgmcmc_verify.integrators.compiled import choose_engine, numba_available
    from sgmcmc_verify.samplers import ewsg
    if not numba_available():
        return []
    tl = _tuned_module()
    t = gaussian_means_target()
    h, gam = 0.05, 10.0
    s = ewsg(t, h, gam, index_chain_length=M)
    s.advance(s.init(np.zeros((2, 2))), np.random.default_rng(0), 2)  # compile
    rows = []
    for chains in chain_counts:
        steps = int(max(20, budget // chains))
        few = max(20, steps // 10) if chains < 100 else steps
        rn, rc, rt = [], [], []
        for r in range(repeats):
            rng = np.random.default_rng(r)
            x0 = t.posterior_mean + 0.1 * rng.standard_normal((chains, 2))
            v0 = rng.standard_normal((chains, 2))
            st = s.init(x0, v0)
            t0 = time.perf_counter()
            for _ in range(few):
                st, _ = s.step(st, rng)
            rn.append(chains * few / (time.perf_counter() - t0))
            t0 = time.perf_counter()
            s.advance(s.init(x0, v0), rng, steps)
            rc.append(chains * steps / (time.perf_counter() - t0))
            t0 = time.perf_counter()
            tl.ewsg(t.centers, h, gam, M, x0, v0, rng, few)
            rt.append(chains * few / (time.perf_counter() - t0))
        rc_, rn_, rt_ = np.array(rc), np.array(rn), np.array(rt)
        rows.append({"method": "EWSG", "M": M, "chains": chains, "numpy": max(rn), "compiled": max(rc),
                     "tuned": max(rt), "compiled/numpy": float(np.median(rc_ / rn_)),
                     "compiled/tuned": float(np.median(rc_ / rt_)), "auto": choose_engine(s, chains)})
    return rows


def _fmt(v, spec="11.3e"):
    return f"{v:{spec}}" if v is not None else f"{'skipped':>{spec.split('.')[0]}}"


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--skip-figure", action="store_true", help="skip the paper-scale Figure 1 wall time")
    p.add_argument("--quick", action="store_true", help="reduced repeats and steps (a loaded machine; ratios only)")
    p.add_argument("--only-ratios", action="store_true", help="the ratio, single-chain and peers tables only")
    a = p.parse_args(argv)
    steps, repeats = (300, 3) if a.quick else (1500, 5)
    print(f"# machine: {platform.machine()} {platform.processor() or ''}, python {platform.python_version()}, numpy {np.__version__}")
    print("\n## toolkit / minimal and toolkit / tuned NumPy loops (bench/tuned_loops.py), same run (interleaved;")
    print(f"## medians of {repeats} x {steps:,} steps, one chain {10 * steps:,}); targets (#26): toolkit/tuned >= 0.8 for")
    print("## SGLD / SGHMC at 10^4 chains, >= 0.5 for the other families")
    print(f"{'method':8s} {'b':>3s} {'chains':>7s} {'toolkit':>11s} {'minimal':>11s} {'tuned':>11s} {'tk/min':>6s} {'tk/tuned':>8s}")
    for m, b, ch, rt, rm, ru, q, qt in ratio_table(steps, repeats):
        print(f"{m:8s} {b:3d} {ch:7d} {rt:11.3e} {rm:11.3e} {ru:11.3e} {q:6.2f} {qt:8.2f}")
    sc_steps = 20_000 if a.quick else 100_000
    print(f"\n## one chain, {sc_steps:,} steps, steps/s (best of {repeats}): toolkit NumPy step (on a tenth of the steps),")
    print("## toolkit compiled kernel (numba, the same bits), minimal NumPy loop, blackjax's compiled lax.scan loop")
    if not _peers_available():
        print("# peers skipped: blackjax / jax not installed (pip install -e '.[peers]')")
    print(f"{'method':8s} {'b':>3s} {'numpy':>11s} {'compiled':>11s} {'minimal':>11s} {'blackjax':>11s} "
          f"{'comp/bjx':>9s} {'numpy/bjx':>9s}")
    for r in single_chain_table(sc_steps, repeats):
        print(f"{r['method']:8s} {r['b']:3d} {_fmt(r['numpy'])} {_fmt(r['compiled'])} {_fmt(r['minimal'])} "
              f"{_fmt(r['blackjax'])} {_fmt(r['compiled/blackjax'], '9.2f')} {_fmt(r['numpy/blackjax'], '9.3f')}")
    print(f"\n## 10,000 chains, chain-steps/s (best of {repeats} x 200 steps): toolkit NumPy, toolkit compiled, blackjax")
    print(f"{'method':8s} {'b':>3s} {'numpy':>11s} {'compiled':>11s} {'blackjax':>11s}")
    for r in peers_many_chains_table(repeats=repeats):
        print(f"{r['method']:8s} {r['b']:3d} {_fmt(r['numpy'])} {_fmt(r['compiled'])} {_fmt(r['blackjax'])}")
    print(f"\n## both engines, chain-steps/s (best of {repeats}), and what run_chains(engine='auto') picks")
    print(f"{'method':8s} {'b':>3s} {'chains':>7s} {'numpy':>11s} {'compiled':>11s} {'comp/numpy':>10s} {'auto':>9s}")
    for r in engines_table(repeats=repeats, budget=4e5 if a.quick else 2e6):
        print(f"{r['method']:8s} {r['b']:3d} {r['chains']:7d} {r['numpy']:11.3e} {r['compiled']:11.3e} "
              f"{r['compiled/numpy']:10.2f} {r['auto']:>9s}")
    print(f"\n## EWSG (M = 1, b = 1, x recommended), chain-steps/s (best of {repeats}): toolkit NumPy step, compiled kernel")
    print("## (numba, the same bits), tuned NumPy loop of the same arithmetic (bench/tuned_loops.py), and the auto pick")
    print(f"{'method':8s} {'M':>3s} {'chains':>7s} {'numpy':>11s} {'compiled':>11s} {'tuned':>11s} {'comp/numpy':>10s} "
          f"{'comp/tuned':>10s} {'auto':>9s}")
    for r in ewsg_engines_table(repeats=repeats, budget=2e5 if a.quick else 1e6):
        print(f"{r['method']:8s} {r['M']:3d} {r['chains']:7d} {r['numpy']:11.3e} {r['compiled']:11.3e} {r['tuned']:11.3e} "
              f"{r['compiled/numpy']:10.2f} {r['compiled/tuned']:10.2f} {r['auto']:>9s}")
    if a.only_ratios:
        return
    t = gaussian_means_target()
    print("\n## chain-steps per second, Gaussian target n = 50, d = 2, 10,000 chains (best of 3 x 200 steps)")
    for m in ("SGLD", "pSGLD", "SGHMC", "EWSG", "SVRG-LD", "FG"):
        print(f"{m:8s} {chain_steps_per_second(m, t):12.3e}")
    print("\n## per-step cost vs n, 10,000 chains, chain-steps/s (step size scaled by 50/n)")
    print("# SG samplers spend b (EWSG: (M+1)b) evaluations per step whatever n is; the wall-time drop at large n")
    print("# is cache misses of the random gather c[idx] from an n x 2 array (16 MB at n = 1e6), not O(n) work.")
    print("# FG's budget is n evaluations per step, but this target's full gradient has a closed form,")
    print("# so its wall time does not show that cost.")
    ns = (10**3, 10**4, 10**5, 10**6)
    print("method   " + " ".join(f"{'n=' + str(n):>11s}" for n in ns))
    targets = {n: GaussianMeansTarget(np.random.default_rng(n).standard_normal((n, 2))) for n in ns}
    for m in ("SGLD", "pSGLD", "SGHMC", "EWSG", "SVRG-LD", "FG"):
        row = []
        for n in ns:
            if m == "FG" and n > 10**4:
                row.append(f"{'(skipped)':>11s}")
                continue
            # SVRG-LD pays a full pass every n steps; over 200 steps at n >= 1e3 it is mostly the 2b-evaluation steps
            row.append(f"{chain_steps_per_second(m, targets[n], steps=100, repeats=2):11.3e}")
        print(f"{m:8s} " + " ".join(row))
    print("\n## Laplacian smoothing A_sigma^-1 v and A_sigma^-1/2 v by FFT (LS-SGLD eq. (2.8)), 10 chains, sigma = 1")
    print("# time per application; O(d log d) means time / (d log2 d) stays roughly flat")
    from sgmcmc_verify.analytic.laplacian import apply_inverse, apply_inverse_sqrt
    print(f"{'d':>9s} {'inverse (s)':>12s} {'inv-sqrt (s)':>13s} {'ns / (d log2 d)':>16s}")
    for d in (10**3, 10**4, 10**5, 10**6):
        v = np.random.default_rng(0).standard_normal((10, d))
        reps = max(3, int(2e6 // d))
        t0 = time.perf_counter()
        for _ in range(reps):
            apply_inverse(v, 1.0)
        ti = (time.perf_counter() - t0) / reps
        t0 = time.perf_counter()
        for _ in range(reps):
            apply_inverse_sqrt(v, 1.0)
        ts = (time.perf_counter() - t0) / reps
        print(f"{d:9d} {ti:12.3e} {ts:13.3e} {1e9 * ti / (10 * d * np.log2(d)):16.2f}")
    if not a.skip_figure:
        print("\n## EWSG Figure 1 at paper scale (10,000 realizations, all six panels), n_jobs = 2")
        t0 = time.perf_counter()
        times = run_all("paper", "results/bench_ewsg", n_jobs=2, log=lambda *_: None)
        total = time.perf_counter() - t0
        for k, v in times.items():
            print(f"{k:8s} {v:8.1f} s")
        print(f"total    {total:8.1f} s")


if __name__ == "__main__":
    main()
