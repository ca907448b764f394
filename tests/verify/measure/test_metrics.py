"""``weighted_second_moments``: the bootstrap's weighted second moments, bit for bit NumPy's einsum (#26)."""
from __future__ import annotations

import numpy as np
import pytest

import sgmcmc_verify.measure.metrics as M
from sgmcmc_verify.measure.metrics import weighted_second_moments

pytest.importorskip("numba")

EINSUM = "br,rki,rkj->bkij"


def _bootstrap_weights(rng, B, R):
    """Multinomial resampling weights, as the KL bootstrap draws them (about e⁻¹ of them zero)."""
    return rng.multinomial(R, np.full(R, 1.0 / R), size=B) / R


def _same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


# (R, K, d, B): the EWSG panels' shape (R = 10^4 realizations, 31 checkpoints, d = 2, 100 resamples), longer R than
# einsum's 8,192-element buffer, small and odd shapes, d > 2, and K = 1 with d = 2 (fig1c_repeat's final states)
SHAPES = [(10_000, 31, 2, 100), (20_000, 3, 2, 10), (1_000, 11, 2, 100), (2, 1, 2, 3), (7, 1, 3, 5),
          (3_000, 6, 5, 20), (10_000, 1, 2, 100), (50, 4, 1, 7)]


@pytest.fixture
def always_compiled(monkeypatch):
    """Every size through the kernel (in use, inputs under ``_KERNEL_MIN_WORK`` go to einsum)."""
    monkeypatch.setattr(M, "_KERNEL_MIN_WORK", 0)


@pytest.mark.parametrize("R,K,d,B", SHAPES)
def test_the_kernel_gives_einsum_s_bits(R, K, d, B, always_compiled, monkeypatch):
    rng = np.random.default_rng([R, K, d, B])
    x = rng.standard_normal((R, K, d)) * rng.lognormal(0.0, 2.0, size=(R, 1, 1))   # magnitudes over decades
    w = _bootstrap_weights(rng, B, R)
    assert M._moments_kernel() is not None   # numba is present here: the compiled path is the one tested
    real = np.einsum
    calls = []
    monkeypatch.setattr(M.np, "einsum", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    assert _same_bits(weighted_second_moments(w, x), real(EINSUM, w, x, x))
    wr = rng.random((B, R)) * 3.0   # weights with no zeros, and a Fortran-ordered w
    assert _same_bits(weighted_second_moments(np.asfortranarray(wr), x), real(EINSUM, wr, x, x))
    assert calls == []   # the kernel computed both


@pytest.mark.parametrize("case", ["fortran x", "K*d = 1", "nan in x", "inf in w", "no numba", "small"])
def test_outside_the_kernel_s_domain_it_is_einsum_itself(case, monkeypatch):
    """Layouts where einsum sums r in another order (x Fortran-ordered, K·d = 1: chunks along the contiguous axis),
    non-finite input, and no numba all go to einsum: the same bits (and the same NaN) by construction."""
    rng = np.random.default_rng(3)
    R, K, d = {"K*d = 1": (12_000, 1, 1), "small": (500, 4, 2)}.get(case, (12_000, 4, 2))
    monkeypatch.setattr(M, "_KERNEL_MIN_WORK", 0 if case != "small" else M._KERNEL_MIN_WORK)
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
    called = []
    real = np.einsum
    monkeypatch.setattr(M.np, "einsum", lambda *a, **k: called.append(a[0]) or real(*a, **k))
    got = weighted_second_moments(w, x)
    monkeypatch.undo()
    assert called == [EINSUM]
    ref = np.einsum(EINSUM, w, x, x)
    assert _same_bits(got, ref)
    if case in ("fortran x", "K*d = 1"):
        # why these layouts are excluded: the kernel's order is not einsum's there (shown, not assumed)
        assert not _same_bits(M._moments_kernel()(np.ascontiguousarray(w.T), np.ascontiguousarray(x)), ref)


def test_a_kernel_summing_in_another_order_is_caught():
    """Control: the bit comparison above sees a kernel that adds the same terms in reverse r order."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((10_000, 31, 2))
    w = _bootstrap_weights(rng, 100, 10_000)
    reverse = M._moments_kernel()(np.ascontiguousarray(w[:, ::-1].T), np.ascontiguousarray(x[::-1]))
    assert np.allclose(reverse, np.einsum(EINSUM, w, x, x), rtol=0, atol=1e-12)    # same sums (entries of order 1) ...
    assert not _same_bits(reverse, np.einsum(EINSUM, w, x, x))                     # ... other bits


@pytest.mark.parametrize("w_shape,x_shape,match", [((3,), (3, 1, 2), "w must be"), ((2, 3), (3, 2), "x must be"),
                                                   ((2, 4), (3, 1, 2), "R = 4")])
def test_bad_shapes_name_the_argument(w_shape, x_shape, match):
    with pytest.raises(ValueError, match=match):
        weighted_second_moments(np.ones(w_shape), np.ones(x_shape))


def test_the_kl_bootstrap_keeps_its_bits():
    """The EWSG panels' bootstrap s.e. (the only caller at #26) equals the einsum formula it had, bit for bit."""
    from sgmcmc_verify.analytic.gaussian import kl_gaussian
    from sgmcmc_verify.paper_repro.ewsg.experiments import _kl_bootstrap_se

    rng = np.random.default_rng(5)
    pos = rng.standard_normal((4_000, 9, 2)) + 0.3
    mean, cov = np.array([0.1, -0.2]), np.array([[1.0, 0.3], [0.3, 2.0]])
    got = _kl_bootstrap_se(pos, mean, cov, np.random.default_rng(9))
    r2 = np.random.default_rng(9)   # the formula before #26, written out
    R = pos.shape[0]
    w = r2.multinomial(R, np.full(R, 1.0 / R), size=100) / R
    m = np.einsum("br,rkd->bkd", w, pos)
    c = (np.einsum(EINSUM, w, pos, pos) - m[..., :, None] * m[..., None, :]) * (R / (R - 1))
    ref = kl_gaussian(np.broadcast_to(mean, m.shape), np.broadcast_to(cov, c.shape), m, c).std(axis=0, ddof=1)
    assert _same_bits(got, ref)
