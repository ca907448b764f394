"""sgmcmc_verify.integrators.compiled: the numba kernels give the NumPy steps' numbers bit for bit, and the same generator state."""
from __future__ import annotations

import numpy as np
import pytest

from sgmcmc_verify.errors import DivergenceError
from sgmcmc_verify.estimators import FullGradient, UniformMinibatch
from sgmcmc_verify.integrators import LaplacianPreconditioner, OverdampedEM, UnderdampedEM
from sgmcmc_verify.integrators.compiled import advance, numba_available, unsupported_reason
from sgmcmc_verify.samplers import ewsg, ewsg_ld, sghmc, sgld
from sgmcmc_verify.targets import (GaussianMeanModel, GaussianMeansTarget, GaussianTarget, LSMixtureTarget, gaussian_means_target,
                            hsg_mixture_target, mixture_centers)

needs_numba = pytest.mark.skipif(not numba_available(), reason="numba (the 'compiled' extra) is not installed")


def _targets():
    return {"ewsg51": gaussian_means_target(),
            "meanmodel_d3": GaussianMeanModel(np.random.default_rng(3).standard_normal((40, 3)), prior_precision=2.0),
            "hsg_mixture": hsg_mixture_target(n=100),
            "ls_mixture": LSMixtureTarget(mixture_centers(100, 5))}


def _reference(sampler, state, rng, steps):
    ev = 0
    for _ in range(steps):
        state, info = sampler.step(state, rng)
        ev += info.evaluations
    return state, ev


@needs_numba
@pytest.mark.parametrize("tname", ["ewsg51", "meanmodel_d3", "hsg_mixture", "ls_mixture"])
@pytest.mark.parametrize("b", [1, 3, 10])
@pytest.mark.parametrize("chains", [1, 7])
@pytest.mark.parametrize("kind", ["SGLD", "SGLD_beta", "SGHMC", "SGHMC_sigma0"])
def test_compiled_steps_are_bit_identical_to_the_numpy_steps(tname, b, chains, kind):
    tgt = _targets()[tname]
    if kind == "SGLD":
        s = sgld(tgt, 5e-3, batch_size=b)
    elif kind == "SGLD_beta":
        s = OverdampedEM(tgt, 2e-3, UniformMinibatch(b), inverse_temperature=3.0)
    elif kind == "SGHMC":
        s = sghmc(tgt, 2e-2, 10.0, batch_size=b)
    else:
        s = UnderdampedEM(tgt, 2e-2, 10.0, UniformMinibatch(b), noise_scale=0.0)
    init = np.random.default_rng(1).standard_normal((chains, tgt.dim))
    st0 = s.init(init, init[::-1].copy()) if isinstance(s, UnderdampedEM) else s.init(init)
    r1, r2 = np.random.default_rng(9), np.random.default_rng(9)
    ref, ev_ref = _reference(s, st0, r1, 300)
    got, ev = advance(s, st0, r2, 300)
    assert ev == ev_ref == 300 * b and got.step == ref.step == 300
    np.testing.assert_array_equal(got.position, ref.position)
    if isinstance(s, UnderdampedEM):
        np.testing.assert_array_equal(got.momentum, ref.momentum)
    assert r1.integers(0, 2**62) == r2.integers(0, 2**62)  # the generator is left where the NumPy steps leave it
    np.testing.assert_array_equal(st0.position, init)  # the input state is not modified


@needs_numba
def test_compiled_chunks_compose_with_numpy_steps():
    tgt = gaussian_means_target()
    s = sghmc(tgt, 5e-2, 10.0)
    r1, r2 = np.random.default_rng(2), np.random.default_rng(2)
    st = s.init(np.zeros((3, 2)))
    ref, _ = _reference(s, st, r1, 250)
    a, _ = advance(s, st, r2, 100)
    a, _ = _reference(s, a, r2, 50)
    a, _ = advance(s, a, r2, 100)
    np.testing.assert_array_equal(a.position, ref.position)
    np.testing.assert_array_equal(a.momentum, ref.momentum)


@needs_numba
@pytest.mark.parametrize("make", [lambda t: sgld(t, 0.05), lambda t: sghmc(t, 0.5, 1.0)], ids=["SGLD", "SGHMC"])
def test_divergence_is_reported_at_the_same_step(make):
    tgt = gaussian_means_target()
    s = make(tgt)
    st = s.init(np.ones((4, 2)))
    with pytest.raises(DivergenceError) as ref:
        _reference(s, st, np.random.default_rng(0), 2000)
    with pytest.raises(DivergenceError) as got:
        advance(s, st, np.random.default_rng(0), 2000)
    assert str(got.value) == str(ref.value)


@pytest.mark.parametrize("make,words", [
    (lambda t: ewsg_ld(t, 0.05), "underdamped"),
    (lambda t: ewsg(GaussianMeanModel(np.zeros((5, 3))), 0.05, 10.0), "d = 2"),
    (lambda t: UnderdampedEM(t, 0.05, 10.0, UniformMinibatch(2, replace=False)), "estimator"),
    (lambda t: sgld(t, 1e-3, estimator=UniformMinibatch(2, replace=False)), "estimator"),
    (lambda t: sgld(t, 1e-3, estimator=FullGradient()), "estimator"),
    (lambda t: OverdampedEM(t, 1e-3, preconditioner=LaplacianPreconditioner(1.0)), "preconditioner"),
    (lambda t: OverdampedEM(t, 1e-3, inverse_temperature=np.inf), "zero temperature"),
    (lambda t: sgld(GaussianTarget(np.eye(2)), 1e-3), "compiled_form"),
    (lambda t: sgld(GaussianMeansTarget(np.zeros((5, 1))), 1e-3), "d = 1"),
])
def test_unsupported_samplers_say_why(make, words):
    s = make(gaussian_means_target())
    reason = unsupported_reason(s)
    assert reason is not None and words in reason
    with pytest.raises(ValueError, match="sampler"):
        s.advance(s.init(np.zeros((2, s.target.dim))), np.random.default_rng(0), 3)


def test_bad_steps_is_named():
    s = sgld(gaussian_means_target(), 1e-3)
    with pytest.raises(ValueError, match="steps"):
        advance(s, s.init(np.zeros((1, 2))), np.random.default_rng(0), -1)


# ---- EWSG's index chain (Algorithm 1 with eq. (3)) in the kernel --------------------------------------------------

def _ewsg_pair(s, st0, seed, steps):
    r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed)
    ref, acc = st0, []
    for _ in range(steps):
        ref, info = s.step(ref, r1)
        acc += [info.info["acceptance_rate"]] if "acceptance_rate" in info.info else []
    infos = {}
    got, ev = advance(s, st0, r2, steps, infos)
    return ref, acc, got, ev, infos, (r1, r2)


@needs_numba
@pytest.mark.parametrize("x_choice", ["recommended", "zero", "one", "momentum_reset"])
@pytest.mark.parametrize("M,b", [(0, 1), (1, 1), (3, 2), (1, 10)])
@pytest.mark.parametrize("chains", [1, 9])
@pytest.mark.parametrize("tname", ["ewsg51", "hsg_mixture"])
def test_ewsg_kernel_is_bit_identical_to_the_numpy_step(x_choice, M, b, chains, tname):
    """Positions, momenta, the acceptance rate of every step and the generator state equal the NumPy step's."""
    tgt = _targets()[tname]
    s = ewsg(tgt, 0.05 if tname == "ewsg51" else 0.02, 10.0, index_chain_length=M, batch_size=b, x_choice=x_choice)
    init = np.random.default_rng(1).standard_normal((chains, 2))
    st0 = s.init(init, init[::-1].copy())
    ref, acc, got, ev, infos, (r1, r2) = _ewsg_pair(s, st0, 4, 200)
    assert ev == 200 * (M + 1) * b and got.step == ref.step == 200
    np.testing.assert_array_equal(got.position, ref.position)
    np.testing.assert_array_equal(got.momentum, ref.momentum)
    assert infos.get("acceptance_rate", []) == acc and (len(acc) == 200) == (M > 0)
    assert r1.integers(0, 2**62) == r2.integers(0, 2**62)
    np.testing.assert_array_equal(st0.position, init)


@needs_numba
def test_ewsg_kernel_hands_a_close_acceptance_test_back_to_numpy(monkeypatch):
    """An acceptance test within the log band: advance raises CloseCallError with the generator restored and the
    state untouched, and run_chains(engine="compiled") runs those steps with the NumPy step (forced here by a band
    that catches every test): the records and the acceptance rate are the NumPy engine's."""
    from sgmcmc_verify.errors import CloseCallError
    from sgmcmc_verify.integrators import compiled
    from sgmcmc_verify.runner import run_chains
    monkeypatch.setattr(compiled, "_EWSG_BAND_ULPS", 1e300)
    s = ewsg(gaussian_means_target(), 0.05, 10.0, index_chain_length=2)
    st0 = s.init(np.ones((4, 2)), np.zeros((4, 2)))
    rng, ref = np.random.default_rng(5), np.random.default_rng(5)
    with pytest.raises(CloseCallError):
        advance(s, st0, rng, 50)
    assert rng.integers(0, 2**62) == ref.integers(0, 2**62)
    np.testing.assert_array_equal(st0.position, np.ones((4, 2)))
    kw = dict(checkpoints=[0, 10, 50], observe={"x": lambda st: st.position})
    a = run_chains(s, st0, np.random.default_rng(8), **kw)
    b = run_chains(s, st0, np.random.default_rng(8), engine="compiled", **kw)
    np.testing.assert_array_equal(a["x"], b["x"])
    assert a["info"] == b["info"]


@needs_numba
def test_ewsg_bit_test_catches_a_kernel_with_another_x():
    """Control: the comparison above sees a planted difference (the kernel run with another choice of x than the
    NumPy step), so equality there is not vacuous."""
    tgt = gaussian_means_target()
    s, other = (ewsg(tgt, 0.05, 10.0, x_choice=x) for x in ("recommended", "zero"))
    st0 = s.init(np.ones((5, 2)), np.ones((5, 2)))
    ref, _, _, _, _, _ = _ewsg_pair(s, st0, 6, 100)
    got, _ = advance(other, st0, np.random.default_rng(6), 100)
    assert not np.array_equal(got.position, ref.position)


@needs_numba
def test_ewsg_divergence_is_reported_at_the_same_step():
    s = ewsg(gaussian_means_target(), 0.9, 0.1)
    st = s.init(np.ones((4, 2)) * 5.0)
    with pytest.raises(DivergenceError) as ref:
        _reference(s, st, np.random.default_rng(0), 3000)
    with pytest.raises(DivergenceError) as got:
        advance(s, st, np.random.default_rng(0), 3000)
    assert str(got.value) == str(ref.value)


@needs_numba
def test_run_chains_compiled_ewsg_gives_the_numpy_records_and_acceptance():
    from sgmcmc_verify.integrators import compiled
    from sgmcmc_verify.runner import run_chains
    s = ewsg(gaussian_means_target(), 0.05, 10.0, index_chain_length=2)
    kw = dict(checkpoints=[0, 10, 55, 200], observe={"x": lambda st: st.position})
    a = run_chains(s, s.init(np.ones((3, 2))), np.random.default_rng(8), **kw)
    b = run_chains(s, s.init(np.ones((3, 2))), np.random.default_rng(8), engine="compiled", **kw)
    np.testing.assert_array_equal(a["x"], b["x"])
    assert a["info"] == b["info"] and "acceptance_rate" in a["info"]
    assert compiled.choose_engine(s, 1) == "compiled"
    assert compiled.choose_engine(s, compiled.EWSG_COMPILED_MAX_CHAINS + 1) == "numpy"
