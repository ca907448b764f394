"""``weighted_means`` / ``weighted_second_moments``: the bootstraps' weighted moments, bit for bit NumPy's einsum (#26)."""
from __future__ import annotations

import numpy as np
import pytest

import sgmcmc_verify.measure.metrics as M
from sgmcmc_verify.measure.metrics import weighted_means, weighted_second_moments

pytest.importorskip("numba")

SECOND = "br,rki,rkj->bkij"
MEANS = "br,rkd->bkd"
#: (function, its einsum, index of its kernel in M._moments_kernel())
FUNCS = {"second": (weighted_second_moments, SECOND, 1), "means": (weighted_means, MEANS, 0)}


def _einsum(which, w, x):
    return np.einsum(FUNCS[which][1], w, x, x) if which == "second" else np.einsum(MEANS, w, x)


def _bootstrap_weights(rng, B, R):
    """Multinomial resampling weights, as the bootstraps draw them (about e⁻¹ of them zero)."""
    return rng.multinomial(R, np.full(R, 1.0 / R), size=B) / R


def _same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.fixture
def always_compiled(monkeypatch):
    """Every size through the kernels (in use, inputs under ``_KERNEL_MIN_WORK`` go to einsum)."""
    monkeypatch.setattr(M, "_KERNEL_MIN_WORK", 0)


@pytest.fixture
def einsum_calls(monkeypatch):
    """The einsum subscripts the module calls (a spy; the real einsum computes)."""
    real, calls = np.einsum, []
    monkeypatch.setattr(M.np, "einsum", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    return calls


# (R, K, d, B): the EWSG §5.1 panels' shape (R = 10^4 realizations, 31 checkpoints, d = 2, 100 resamples), Theorem
# H.1's (41 checkpoints, 2d = 4, 1,000 resamples, fewer realizations here), R past einsum's 8,192-element buffer,
# small and odd shapes, d > 2, and K = 1
SHAPES = [(10_000, 31, 2, 100), (2_000, 41, 4, 1_000), (20_000, 3, 2, 10), (2, 1, 2, 3), (7, 1, 3, 5),
          (3_000, 6, 5, 20), (10_000, 1, 2, 100), (50, 4, 1, 7)]


@pytest.mark.parametrize("which", ["second", "means"])
@pytest.mark.parametrize("R,K,d,B", SHAPES)
def test_the_kernels_give_einsum_s_bits(which, R, K, d, B, always_compiled, einsum_calls):
    fn = FUNCS[which][0]
    rng = np.random.default_rng([R, K, d, B])
    x = rng.standard_normal((R, K, d)) * rng.lognormal(0.0, 2.0, size=(R, 1, 1))   # magnitudes over decades
    w = _bootstrap_weights(rng, B, R)
    wr = rng.random((B, R)) * 3.0   # weights with no zeros, Fortran-ordered below
    wide = rng.standard_normal((R, K + 1, d + 2))
    sliced = wide[:, 1:, 1:d + 1]   # r-major but not contiguous: Theorem H.1 bootstraps a slice of the deviations
    got = [fn(w, x), fn(np.asfortranarray(wr), x), fn(w, sliced)]
    assert M._moments_kernel() is not None and einsum_calls == []   # the kernels computed all three
    ref = [_einsum(which, w, x), _einsum(which, wr, x), _einsum(which, w, sliced)]
    assert all(_same_bits(a, b) for a, b in zip(got, ref))


@pytest.mark.parametrize("which", ["second", "means"])
@pytest.mark.parametrize("case", ["fortran x", "K*d = 1", "nan in x", "inf in w", "no numba", "small"])
def test_outside_the_kernels_domain_it_is_einsum_itself(which, case, monkeypatch, einsum_calls):
    """Layouts where einsum sums r in another order (x Fortran-ordered, K·d = 1: chunks along the contiguous axis),
    non-finite input, no numba and small inputs all go to einsum: the same bits (and the same NaN) by construction."""
    fn, sub, k = FUNCS[which]
    rng = np.random.default_rng(3)
    R, K, d = {"K*d = 1": (12_000, 1, 1), "small": (500, 4, 2)}.get(case, (12_000, 4, 2))
    monkeypatch.setattr(M, "_KERNEL_MIN_WORK", M._KERNEL_MIN_WORK if case == "small" else 0)
    x = rng.standard_normal((R, K, d))
    w = _bootstrap_weights(rng, 20, R)
    if case == "fortran x":
        x = np.asfortranarray(x)
    elif case == "nan in x":
        x[5, 1, 0] = np.nan
    elif case == "inf in w":
        w[3, 7] = np.inf
    elif case == "no numba":
        monkeypatch.setattr(M, "_MOMENTS_KERNEL", False)
    got = fn(w, x)
    assert einsum_calls == [sub]
    ref = _einsum(which, w, x)
    assert _same_bits(got, ref)
    if case in ("fortran x", "K*d = 1") and which == "second":
        # why these layouts are excluded: the kernel's order is not einsum's there (shown, not assumed)
        monkeypatch.setattr(M, "_MOMENTS_KERNEL", None)
        kernel = M._moments_kernel()[k]
        assert not _same_bits(kernel(np.ascontiguousarray(w.T), np.ascontiguousarray(x)), ref)


@pytest.mark.parametrize("which", ["second", "means"])
def test_a_kernel_summing_in_another_order_is_caught(which):
    """Control: the bit comparison above sees a kernel that adds the same terms in reverse r order."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((10_000, 31, 2))
    w = _bootstrap_weights(rng, 100, 10_000)
    kernel = M._moments_kernel()[FUNCS[which][2]]
    reverse = kernel(np.ascontiguousarray(w[:, ::-1].T), np.ascontiguousarray(x[::-1]))
    ref = _einsum(which, w, x)
    assert np.allclose(reverse, ref, rtol=0, atol=1e-12)   # same sums (entries of order 1) ...
    assert not _same_bits(reverse, ref)                    # ... other bits


@pytest.mark.parametrize("fn", [weighted_means, weighted_second_moments])
@pytest.mark.parametrize("w_shape,x_shape,match", [((3,), (3, 1, 2), "w must be"), ((2, 3), (3, 2), "x must be"),
                                                   ((2, 4), (3, 1, 2), "R = 4")])
def test_bad_shapes_name_the_argument(fn, w_shape, x_shape, match):
    with pytest.raises(ValueError, match=match):
        fn(np.ones(w_shape), np.ones(x_shape))


def test_the_kl_bootstrap_keeps_its_bits():
    """The EWSG panels' bootstrap s.e. equals the einsum formula it had before #26, bit for bit."""
    from sgmcmc_verify.analytic.gaussian import kl_gaussian
    from sgmcmc_verify.paper_repro.ewsg.experiments import _kl_bootstrap_se

    rng = np.random.default_rng(5)
    pos = rng.standard_normal((10_000, 31, 2)) + 0.3   # the panels' shape: over _KERNEL_MIN_WORK, compiled
    mean, cov = np.array([0.1, -0.2]), np.array([[1.0, 0.3], [0.3, 2.0]])
    got = _kl_bootstrap_se(pos, mean, cov, np.random.default_rng(9))
    r2 = np.random.default_rng(9)   # the formula before #26, written out
    R = pos.shape[0]
    w = r2.multinomial(R, np.full(R, 1.0 / R), size=100) / R
    m = np.einsum(MEANS, w, pos)
    c = (np.einsum(SECOND, w, pos, pos) - m[..., :, None] * m[..., None, :]) * (R / (R - 1))
    ref = kl_gaussian(np.broadcast_to(mean, m.shape), np.broadcast_to(cov, c.shape), m, c).std(axis=0, ddof=1)
    assert _same_bits(got, ref)


def test_the_h1_bootstrap_keeps_its_bits():
    """EWSG Theorem H.1's sup-norm bootstrap (full state and the position slice) equals its einsum formula."""
    from sgmcmc_verify.paper_repro.ewsg.theorem_h1 import _debiased_sup, sup_norm_bootstrap

    rng = np.random.default_rng(6)
    dev = rng.standard_normal((5_000, 41, 4)) * 0.01 + 0.002
    for block in (slice(None), slice(0, 2)):
        point, boot = sup_norm_bootstrap(dev, 300, np.random.default_rng(2), block)
        d = dev[..., block]
        sq = np.sum(d * d, axis=-1)
        w = np.random.default_rng(2).multinomial(5_000, np.full(5_000, 1 / 5_000), size=300) / 5_000
        assert _same_bits(boot, _debiased_sup(np.einsum(MEANS, w, d), w @ sq, 5_000))


def test_a_kernel_module_that_cannot_load_falls_back_to_einsum(monkeypatch):
    """numba raises RuntimeError at decoration when no cache location is writable (``cache=True``); the functions then
    call einsum (the same bits) instead of failing."""
    import sys
    import types

    class Unloadable(types.ModuleType):
        def __getattr__(self, name):
            raise RuntimeError("cannot cache function: no locator available")
    monkeypatch.setitem(sys.modules, "sgmcmc_verify.measure._moments_kernel", Unloadable("k"))
    monkeypatch.setattr(M, "_MOMENTS_KERNEL", None)
    monkeypatch.setattr(M, "_KERNEL_MIN_WORK", 0)
    rng = np.random.default_rng(8)
    x, w = rng.standard_normal((300, 3, 2)), _bootstrap_weights(rng, 10, 300)
    assert _same_bits(weighted_second_moments(w, x), np.einsum(SECOND, w, x, x))
    assert M._MOMENTS_KERNEL is False
