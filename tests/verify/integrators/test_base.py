"""The integrator base: one shell for every integrator, and the equalities that used to be separate classes.

* LS-SGLD at σ = 0 is SGLD step for step (the Laplacian preconditioner at σ = 0 is the identity up to
  FFT round-off); the identity preconditioner is SGLD bit for bit.
* pSGLD composed with smoothing at σ = 0 (LS-pSGLD's arithmetic) is pSGLD up to round-off, in both
  documented conventions of the RMSprop input.
* ``settings()`` is built from the dataclass fields; ``init`` validates; ``step`` turns a non-finite
  chain into a DivergenceError naming the sampler, the step and the settings.
"""
import dataclasses

import numpy as np
import pytest

from sgmcmc_verify import samplers
from sgmcmc_verify.errors import DivergenceError
from sgmcmc_verify.estimators import UniformMinibatch
from sgmcmc_verify.integrators import (HMC, MALA, ExponentialIntegrator, IdentityPreconditioner, Integrator,
                                LaplacianPreconditioner, OverdampedEM, RMSpropPreconditioner, Sampler, UnderdampedEM)
from sgmcmc_verify.targets import gaussian_means_target

TARGET = gaussian_means_target(50, 16, 1)


def _run_pair(a, b, x0, steps, seed, exact=False):
    ra, rb = np.random.default_rng(seed), np.random.default_rng(seed)
    sa, sb = a.init(x0), b.init(x0)
    for _ in range(steps):
        sa, ia = a.step(sa, ra)
        sb, ib = b.step(sb, rb)
        if exact:
            np.testing.assert_array_equal(sa.position, sb.position)
        else:
            np.testing.assert_allclose(sa.position, sb.position, rtol=1e-12, atol=1e-12)
        assert ia.evaluations == ib.evaluations


def test_identity_preconditioner_is_sgld_bit_for_bit():
    x0 = np.random.default_rng(0).standard_normal((7, TARGET.dim))
    plain = OverdampedEM(TARGET, 3e-3, UniformMinibatch(4), IdentityPreconditioner())
    _run_pair(samplers.sgld(TARGET, 3e-3, batch_size=4), plain, x0, 50, 11, exact=True)


def test_laplacian_preconditioner_at_sigma_zero_is_sgld_step_for_step():
    x0 = np.random.default_rng(0).standard_normal((7, TARGET.dim))
    _run_pair(samplers.sgld(TARGET, 3e-3, batch_size=4), samplers.ls_sgld(TARGET, 3e-3, 0.0, batch_size=4), x0, 50, 11)


@pytest.mark.parametrize("convention", ["per_datum", "full"])
def test_rmsprop_with_smoothing_at_sigma_zero_is_psgld_step_for_step(convention):
    x0 = np.random.default_rng(1).standard_normal((5, TARGET.dim))
    step = 1e-3 if convention == "per_datum" else 1e-5
    _run_pair(samplers.psgld(TARGET, step, batch_size=3, preconditioner_input=convention),
              samplers.ls_psgld(TARGET, step, 0.0, batch_size=3, preconditioner_input=convention), x0, 50, 12)


def test_the_two_psgld_conventions_differ_only_in_what_rmsprop_is_fed():
    """``full`` feeds ĝ, ``per_datum`` ĝ/n: with λ → 0 the RMSprop scales differ by the factor n."""
    g = np.random.default_rng(2).standard_normal((3, TARGET.dim))
    per = RMSpropPreconditioner(lam=1e-300, preconditioner_input="per_datum")
    full = RMSpropPreconditioner(lam=1e-300, preconditioner_input="full")
    sp = per.update(per.init(g), g, TARGET.n)
    sf = full.update(full.init(g), g, TARGET.n)
    np.testing.assert_allclose(sp.scale, TARGET.n * sf.scale, rtol=1e-12)


def test_settings_are_built_from_the_fields():
    s = samplers.ls_psgld(TARGET, 2e-3, 0.5, batch_size=3, preconditioner_input="full")
    st = s.settings()
    assert st["sampler"] == "LS-pSGLD" and st["step_size"] == 2e-3 and st["batch_size"] == 3
    assert st["sigma"] == 0.5 and st["alpha"] == 0.99 and st["preconditioner_input"] == "full"
    assert "target" not in st and "name" not in st
    e = samplers.sg_ul_mcmc(TARGET, 0.01).settings()
    assert set(e) >= {"sampler", "step_size", "friction", "u", "inverse_temperature", "estimator", "batch_size"}
    assert "coefficients" not in e and "noise_cholesky" not in e


@pytest.mark.parametrize("cls", [OverdampedEM, UnderdampedEM, ExponentialIntegrator, HMC, MALA])
def test_every_integrator_is_a_frozen_dataclass_on_the_base(cls):
    assert issubclass(cls, Integrator) and dataclasses.is_dataclass(cls)
    assert isinstance(samplers.sgld(TARGET, 1e-3), Sampler) and not isinstance(object(), Sampler)
    assert cls.__dataclass_params__.frozen
    assert "step" not in cls.__dict__ and "init" not in cls.__dict__  # the shell is the base's


@pytest.mark.parametrize("make", [
    lambda t: samplers.sgld(t, 1.0), lambda t: samplers.svrg_ld(t, 1.0), lambda t: samplers.ls_sgld(t, 1.0, 0.5),
    lambda t: samplers.sghmc(t, 1.0, 1.0), lambda t: samplers.sg_ul_mcmc(t, 5.0, friction=1e-3),
])
def test_divergence_is_a_typed_error_from_the_base(make):
    s = make(TARGET)
    st = s.init(np.ones((3, TARGET.dim)), *(() if isinstance(s, OverdampedEM) else (np.ones((3, TARGET.dim)),)))
    rng = np.random.default_rng(0)
    with pytest.raises(DivergenceError) as ei:
        for _ in range(2000):
            st, _ = s.step(st, rng)
    err = ei.value
    assert err.sampler == s.name and err.setting == s.settings() and err.n_bad_chains >= 1
    assert err.step == st.step  # the step that produced the non-finite chain


def test_laplacian_preconditioner_names_sigma():
    with pytest.raises(ValueError, match="sigma"):
        LaplacianPreconditioner(-1.0)
    with pytest.raises(ValueError, match="sigma"):
        LaplacianPreconditioner(object())  # neither an operator nor a number
