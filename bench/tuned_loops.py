"""Tuned NumPy loops: the toolkit's arithmetic written in place, the yardstick of ``make bench`` (#26 item 2).

Each function runs ``steps`` steps of one sampler family on many chains with every buffer allocated once
and reused, ``Generator.standard_normal(out=...)``, gathers as one ``np.take`` (on a complex128 view of the
data in d = 2, unbuffered), the minibatch sum as ``b`` contiguous adds over indices laid out ``(b, chains)``. There is
no validation, no state object and no divergence check: what is left is the arithmetic the toolkit's step
has to do, done as cheaply as NumPy allows.

Every loop repeats the toolkit step's floating-point operations in their order and consumes the generator
as it does (per step: the minibatch indices ``(chains, b)`` in C order, then the Gaussians), so from the
same generator it returns the same numbers bit for bit (``tests/verify/test_tuned_loops.py``): the ratio
toolkit / tuned compares equal work. The minimal loops of ``bench/bench_samplers.py`` are the other
yardstick (the arithmetic written naively, allocating every temporary).

Families (the toolkit samplers they repeat):

* :func:`sgld` — ``samplers.sgld`` (identity preconditioner, uniform minibatch with replacement, any b);
* :func:`sghmc` — ``samplers.sghmc`` (underdamped Euler–Maruyama, EWSG eq. (3));
* :func:`ewsg` — ``samplers.ewsg`` (the index chain (6) with ``M`` steps, b = 1, x "recommended");
* :func:`ls_sgld` — ``samplers.ls_sgld`` with the periodic FFT smoothing ``A_σ`` (LS-SGLD (2.5));
* :func:`hsg_hmc` — ``samplers.hsg_hmc`` (exponential integrator (4)–(6), hybrid estimator, periodic ρ, b = 1)
  on the HSG-HMC mixture;
* :func:`psgld` — ``samplers.psgld`` (RMSprop, per-datum input, no smoothing).

The data terms are those of the unit-quadratic targets ``∇V_i = θ − c_i`` (the EWSG §5.1 Gaussian, no prior)
except for :func:`hsg_hmc` (the mixture's ``∇f_i/N``).
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

__all__ = ["sgld", "sghmc", "ewsg", "ls_sgld", "hsg_hmc", "psgld", "Gather"]


class Gather:
    """``out ← Σ_j (θ − c_{I_j})`` for a unit-quadratic target, in the toolkit's order (``j`` ascending).

    The indices are copied to a reused ``(b, chains)`` buffer (one contiguous row per ``j``); each gather is one
    ``np.take`` into a reused buffer with ``mode="clip"`` (the default ``"raise"`` buffers ``out``; the
    indices come from ``rng.integers(0, n)``, so clipping never acts), in d = 2 on complex128 views (one
    16-byte element per datum).

    Parameters
    ----------
    centers : (n, d) ndarray of float64
    chains : int
    """

    def __init__(self, centers, chains):
        self.c = np.ascontiguousarray(centers, dtype=np.float64)
        self.n, self.d = self.c.shape
        self.chains = chains
        self.buf = np.empty((chains, self.d))
        self.cols = None
        self.complex = self.d == 2
        if self.complex:
            self.cv = self.c.view(np.complex128).reshape(self.n)

    def _cv(self, a):
        return a.view(np.complex128).reshape(self.chains)

    def take(self, idx_row, out):
        """``out ← c[idx_row]`` (idx_row contiguous of length chains)."""
        if self.complex:
            np.take(self.cv, idx_row, out=self._cv(out), mode="clip")
        else:
            np.take(self.c, idx_row, axis=0, out=out, mode="clip")

    def sum_into(self, theta, idx, out):
        """``out ← Σ_j (θ − c_{idx[:, j]})`` for idx ``(chains, b)``."""
        b = idx.shape[1]
        if b == 1:
            cols = idx.reshape(1, -1)
        else:
            if self.cols is None or self.cols.shape[0] != b:
                self.cols = np.empty((b, self.chains), dtype=idx.dtype)
            cols = self.cols
            cols[...] = idx.T
        th, o, t = (self._cv(theta), self._cv(out), self._cv(self.buf)) if self.complex else (theta, out, self.buf)
        self.take(cols[0], out)
        np.subtract(th, o, out=o)
        for j in range(1, b):
            self.take(cols[j], self.buf)
            np.subtract(th, t, out=t)
            o += t
        return out


def sgld(centers, h, b, x, rng, steps, beta=1.0):
    """SGLD ``x' = x − h(n/b)Σ_j(x − c_{I_j}) + √(2h/β) ξ`` for ``steps`` steps; returns the new ``x`` (a copy)."""
    x = np.array(x, dtype=np.float64, order="C", copy=True)
    chains = x.shape[0]
    gat = Gather(centers, chains)
    n = gat.n
    scale, amp = n / b, np.sqrt(2.0 * h / beta)
    g, z = np.empty_like(x), np.empty_like(x)
    for _ in range(steps):
        idx = rng.integers(0, n, size=(chains, b))
        gat.sum_into(x, idx, g)
        g *= scale
        g += 0.0          # the toolkit adds the zero prior gradient (turns -0.0 into +0.0)
        g *= h
        x -= g
        rng.standard_normal(out=z)
        z *= amp
        x += z
    return x


def sghmc(centers, h, gamma, b, x, v, rng, steps, noise_scale=None):
    """SGHMC (EWSG eq. (3)): ``x' = x + hv``, ``v' = v − h(ĝ(x) + γv) + σ√h ξ``; returns ``(x, v)`` (copies)."""
    x = np.array(x, dtype=np.float64, order="C", copy=True)
    v = np.array(v, dtype=np.float64, order="C", copy=True)
    chains = x.shape[0]
    gat = Gather(centers, chains)
    n = gat.n
    sig = np.sqrt(2.0 * gamma) if noise_scale is None else noise_scale
    scale, amp = n / b, sig * np.sqrt(h)
    g, t, z = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    for _ in range(steps):
        idx = rng.integers(0, n, size=(chains, b))
        gat.sum_into(x, idx, g)
        g *= scale
        g += 0.0
        np.multiply(v, h, out=t)
        x += t
        np.multiply(v, gamma, out=t)
        t += g
        t *= h
        v -= t
        if sig > 0:
            rng.standard_normal(out=z)
            z *= amp
            v += z
    return x, v


def ewsg(centers, h, gamma, M, x, v, rng, steps):
    """EWSG, Algorithm 1 (b = 1, x = √h γ r/σ, σ = √(2γ)): the index chain (6) of ``M`` Metropolis steps, then eq. (3)."""
    x = np.array(x, dtype=np.float64, order="C", copy=True)
    v = np.array(v, dtype=np.float64, order="C", copy=True)
    chains = x.shape[0]
    gat = Gather(centers, chains)
    n = gat.n
    sig = float(np.sqrt(2.0 * gamma))
    c1, wscale, amp = np.sqrt(h) * gamma, float(np.sqrt(h) / sig), sig * np.sqrt(h)
    xe, g, gp, y, t, z = (np.empty_like(x) for _ in range(6))
    hs, hsp, u = np.empty(chains), np.empty(chains), np.empty(chains)
    acc = np.empty(chains, dtype=bool)
    for _ in range(steps):
        np.multiply(v, c1, out=xe)       # √h γ r / σ, left to right as ewsg_x
        xe /= sig
        gat.sum_into(x, rng.integers(0, n, size=(chains, 1)), g)
        g *= n
        g += 0.0
        np.multiply(g, wscale, out=y)
        y += xe                          # x + scale·g
        np.einsum("cd,cd->c", y, y, out=hs)
        hs *= 0.5
        for _ in range(M):
            gat.sum_into(x, rng.integers(0, n, size=(chains, 1)), gp)
            gp *= n
            gp += 0.0
            np.multiply(gp, wscale, out=y)
            y += xe
            np.einsum("cd,cd->c", y, y, out=hsp)
            hsp *= 0.5
            rng.random(out=u)
            np.log(u, out=u)
            np.subtract(hsp, hs, out=t[:, 0])
            np.less(u, t[:, 0], out=acc)
            g[...] = np.where(acc[:, None], gp, g)   # faster than copyto(where=) on a random mask
            hs[...] = np.where(acc, hsp, hs)
        np.multiply(v, h, out=t)
        x += t
        np.multiply(v, gamma, out=t)
        t += g
        t *= h
        v -= t
        rng.standard_normal(out=z)
        z *= amp
        v += z
    return x, v


def _multiplier(d, sigma, power):
    j = np.arange(d, dtype=np.float64)
    return (1.0 + 4.0 * sigma * np.sin(np.pi * j / d) ** 2)[: d // 2 + 1] ** (-power)


def ls_sgld(centers, h, sigma, x, rng, steps, beta=1.0):
    """LS-SGLD (2.5), b = 1, periodic ``A_σ``: ``x' = x − h A_σ⁻¹ĝ + √(2h/β) A_σ^{−1/2} ξ`` by real FFTs."""
    x = np.array(x, dtype=np.float64, order="C", copy=True)
    chains, d = x.shape
    gat = Gather(centers, chains)
    n = gat.n
    m1, mh = _multiplier(d, sigma, 1.0), _multiplier(d, sigma, 0.5)
    amp = np.sqrt(2.0 * h / beta)
    g, s, z = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    spec = np.empty((chains, d // 2 + 1), dtype=np.complex128)
    for _ in range(steps):
        gat.sum_into(x, rng.integers(0, n, size=(chains, 1)), g)
        g *= n
        g += 0.0
        np.fft.rfft(g, axis=-1, out=spec)
        spec *= m1
        np.fft.irfft(spec, n=d, axis=-1, out=s)
        s *= h
        x -= s
        rng.standard_normal(out=z)
        np.fft.rfft(z, axis=-1, out=spec)
        spec *= mh
        np.fft.irfft(spec, n=d, axis=-1, out=s)
        s *= amp
        x += s
    return x


def hsg_hmc(centers, coefficients, cholesky, period, x, v, rng, steps):
    """HSG-HMC, Algorithm 1 (b = 1, periodic ρ with period ``period``) on the HSG-HMC mixture (``∇V_i = ∇f_i/N``).

    ``coefficients`` and ``cholesky`` are the integrator's ``ou_step_coefficients`` and noise Cholesky factor.
    """
    x = np.array(x, dtype=np.float64, order="C", copy=True)
    v = np.array(v, dtype=np.float64, order="C", copy=True)
    c_all = np.ascontiguousarray(centers, dtype=np.float64)
    n = c_all.shape[0]
    chains = x.shape[0]
    cf, L = coefficients, cholesky
    a, gu, gp, g, t = (np.empty_like(x) for _ in range(5))
    xp = np.empty_like(x)
    s, p = np.empty(chains), np.empty(chains)
    z = np.empty((2,) + x.shape)
    log2 = float(np.log(2.0))

    def grad(th, out):  # n · (th − (2p − 1) a) / n, the toolkit's minibatch_gradient for b = 1
        np.einsum("cd,cd->c", a, th, out=s)
        np.multiply(s, 2.0, out=s)
        np.add(s, log2, out=s)
        expit(s, out=p)
        np.multiply(p, 2.0, out=p)
        np.subtract(p, 1.0, out=p)
        np.multiply(a, p[:, None], out=out)
        np.subtract(th, out, out=out)
        out /= n
        out *= n
        out += 0.0
        return out

    for k in range(steps):
        idx = rng.integers(0, n, size=(chains, 1)).reshape(-1)
        np.take(c_all, idx, axis=0, out=a, mode="clip")
        grad(x, gu)
        rho = 1.0 if k == 0 else 1.0 / (((k - 1) % period) + 1)
        if rho == 1.0:
            g[...] = gu
        else:
            grad(xp, t)                       # ∇F(x^(k-1), ξ_k)
            np.add(g, gu, out=gp)              # g_prev + g_u
            gp -= t
            np.multiply(gu, rho, out=t)
            gp *= 1.0 - rho
            np.add(t, gp, out=g)
        xp[...] = x
        np.multiply(v, cf.x_from_v, out=t)
        x += t
        np.multiply(g, cf.x_from_g, out=t)
        x += t
        v *= cf.v_decay
        np.multiply(g, cf.v_from_g, out=t)
        v += t
        rng.standard_normal(out=z)
        np.multiply(z[0], L[0, 0], out=t)
        x += t
        np.multiply(z[0], L[1, 0], out=t)
        v += t
        np.multiply(z[1], L[1, 1], out=t)
        v += t
    return x, v


def psgld(centers, h, x, rng, steps, alpha=0.99, lam=1e-5, beta=1.0):
    """pSGLD (Li et al. 2016; per-datum RMSprop input ``ĝ/n``, b = 1): ``v' = αv + (1−α)(ĝ/n)²``,
    ``G = 1/(λ + √v')``, ``x' = x − hGĝ + √(2hG/β) ξ``."""
    x = np.array(x, dtype=np.float64, order="C", copy=True)
    chains = x.shape[0]
    gat = Gather(centers, chains)
    n = gat.n
    g, gb, sq, sc, t, z = (np.empty_like(x) for _ in range(6))
    sq[...] = 0.0
    for _ in range(steps):
        gat.sum_into(x, rng.integers(0, n, size=(chains, 1)), g)
        g *= n
        g += 0.0
        np.divide(g, n, out=gb)
        np.multiply(gb, 1.0 - alpha, out=t)
        t *= gb
        sq *= alpha
        sq += t
        np.sqrt(sq, out=sc)
        sc += lam
        np.divide(1.0, sc, out=sc)
        np.multiply(sc, h, out=t)
        t *= g
        x -= t
        np.multiply(sc, 2.0 * h, out=t)
        t /= beta
        np.sqrt(t, out=t)
        rng.standard_normal(out=z)
        z *= t
        x += z
    return x
