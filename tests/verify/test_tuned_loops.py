"""The tuned NumPy loops of ``bench/tuned_loops.py`` repeat the toolkit's steps bit for bit (#26 item 2).

The benchmark's ratio toolkit / tuned is only a comparison of equal work if the two compute the same numbers from
the same generator; these tests run a few steps of each family both ways and compare exactly (and the generators'
states after). The control: the same comparison with one setting changed (or the draws reordered) differs.
"""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from sgmcmc_verify import samplers
from sgmcmc_verify.targets import gaussian_means_target, hsg_mixture_target

_PATH = Path(__file__).resolve().parents[2] / "bench" / "tuned_loops.py"
_spec = importlib.util.spec_from_file_location("tuned_loops", _PATH)
tl = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tl)

CHAINS, STEPS = 64, 7


def _start(seed, d=2):
    r = np.random.default_rng(seed)
    return 0.3 * r.standard_normal((CHAINS, d)), r.standard_normal((CHAINS, d))


def _toolkit(sampler, x0, v0, seed, steps=STEPS):
    rng = np.random.default_rng(seed)
    st = sampler.init(x0, v0) if v0 is not None else sampler.init(x0)
    for _ in range(steps):
        st, _ = sampler.step(st, rng)
    return st, rng


def _same_rng(a, b):
    return a.bit_generator.state == b.bit_generator.state


@pytest.mark.parametrize("b", [1, 3, 10])
def test_sgld_sghmc_equal_toolkit(b):
    t = gaussian_means_target()
    x0, v0 = _start(b)
    st, r1 = _toolkit(samplers.sgld(t, 5e-3, batch_size=b), x0, None, 11)
    r2 = np.random.default_rng(11)
    assert np.array_equal(tl.sgld(t.centers, 5e-3, b, x0, r2, STEPS), st.position) and _same_rng(r1, r2)
    st, r1 = _toolkit(samplers.sghmc(t, 5e-2, 10.0, batch_size=b), x0, v0, 12)
    r2 = np.random.default_rng(12)
    x, v = tl.sghmc(t.centers, 5e-2, 10.0, b, x0, v0, r2, STEPS)
    assert np.array_equal(x, st.position) and np.array_equal(v, st.momentum) and _same_rng(r1, r2)


def test_sgld_other_dimension_equal_toolkit():
    t = gaussian_means_target(dim=5)
    x0, _ = _start(3, d=5)
    st, _ = _toolkit(samplers.sgld(t, 5e-3, batch_size=4), x0, None, 2)
    assert np.array_equal(tl.sgld(t.centers, 5e-3, 4, x0, np.random.default_rng(2), STEPS), st.position)


@pytest.mark.parametrize("M", [1, 3])
def test_ewsg_equal_toolkit(M):
    t = gaussian_means_target()
    x0, v0 = _start(M)
    st, r1 = _toolkit(samplers.ewsg(t, 5e-2, 10.0, index_chain_length=M), x0, v0, 5)
    r2 = np.random.default_rng(5)
    x, v = tl.ewsg(t.centers, 5e-2, 10.0, M, x0, v0, r2, STEPS)
    assert np.array_equal(x, st.position) and np.array_equal(v, st.momentum) and _same_rng(r1, r2)


@pytest.mark.parametrize("d", [2, 7])
def test_ls_sgld_equal_toolkit(d):
    t = gaussian_means_target(dim=d)
    x0, _ = _start(d, d=d)
    st, r1 = _toolkit(samplers.ls_sgld(t, 5e-3, 1.0), x0, None, 6)
    r2 = np.random.default_rng(6)
    assert np.array_equal(tl.ls_sgld(t.centers, 5e-3, 1.0, x0, r2, STEPS), st.position) and _same_rng(r1, r2)


def test_hsg_hmc_equal_toolkit():
    t = hsg_mixture_target()
    s = samplers.hsg_hmc(t, 0.1)
    x0 = 0.5 * np.random.default_rng(0).standard_normal((CHAINS, 2))
    steps = 3 * s.estimator.period + 2  # several resets of the periodic ρ
    st, r1 = _toolkit(s, x0, None, 8, steps)
    r2 = np.random.default_rng(8)
    x, v = tl.hsg_hmc(t.centers, s.coefficients, s.noise_cholesky, s.estimator.period, x0, np.zeros_like(x0), r2, steps)
    assert np.array_equal(x, st.position) and np.array_equal(v, st.momentum) and _same_rng(r1, r2)


def test_psgld_equal_toolkit():
    t = gaussian_means_target()
    x0, _ = _start(4)
    st, r1 = _toolkit(samplers.psgld(t, 5e-3), x0, None, 9)
    r2 = np.random.default_rng(9)
    assert np.array_equal(tl.psgld(t.centers, 5e-3, x0, r2, STEPS), st.position) and _same_rng(r1, r2)


def test_control_a_changed_setting_is_seen():
    """The exact comparison is not vacuous: a step size off by one ulp, or SGHMC's draws with another γ, differ."""
    t = gaussian_means_target()
    x0, v0 = _start(0)
    st, _ = _toolkit(samplers.sgld(t, 5e-3, batch_size=3), x0, None, 11)
    off = tl.sgld(t.centers, np.nextafter(5e-3, 1.0), 3, x0, np.random.default_rng(11), STEPS)
    assert not np.array_equal(off, st.position)
    st, _ = _toolkit(samplers.ewsg(t, 5e-2, 10.0), x0, v0, 5)
    x, _ = tl.ewsg(t.centers, 5e-2, 10.0, 0, x0, v0, np.random.default_rng(5), STEPS)  # no index chain: SGHMC
    assert not np.array_equal(x, st.position)
