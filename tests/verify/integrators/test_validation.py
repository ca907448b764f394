"""Bad input raises ValueError naming the parameter; a diverging chain raises DivergenceError."""
import numpy as np
import pytest

from sgmcmc_verify import samplers as S
from sgmcmc_verify.errors import DivergenceError
from sgmcmc_verify.estimators import EWSGIndexChain, UniformMinibatch
from sgmcmc_verify.integrators import UnderdampedEM
from sgmcmc_verify.runner import run_chains


@pytest.mark.parametrize("bad", [0.0, -1e-3, np.nan, np.inf, "0.1", True])
def test_step_size_must_be_positive(target, bad):
    for make in (lambda: S.sgld(target, bad), lambda: S.sghmc(target, bad, 1.0), lambda: S.psgld(target, bad),
                 lambda: S.ewsg(target, bad, 1.0), lambda: S.svrg_ld(target, bad)):
        with pytest.raises(ValueError, match="step_size"):
            make()


@pytest.mark.parametrize("bad", [0.0, -2.0, np.nan])
def test_friction_must_be_positive(target, bad):
    with pytest.raises(ValueError, match="friction"):
        S.sghmc(target, 0.01, bad)
    with pytest.raises(ValueError, match="friction"):
        S.ewsg(target, 0.01, bad)


def test_index_chain_length_must_be_nonnegative(target):
    with pytest.raises(ValueError, match="index_chain_length"):
        S.ewsg(target, 0.01, 1.0, index_chain_length=-1)
    with pytest.raises(ValueError, match="index_chain_length"):
        EWSGIndexChain(1.5)


def test_batch_larger_than_n_is_refused(target):
    for s in (S.sghmc(target, 0.01, 1.0, batch_size=51), S.ewsg(target, 0.01, 1.0, batch_size=51),
              S.svrg_ld(target, 1e-3, batch_size=51)):
        with pytest.raises(ValueError, match="batch_size"):
            s.init(np.zeros((2, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="batch_size"):
        UniformMinibatch(0)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_initial_state_is_refused(target, bad):
    x = np.zeros((3, 2))
    x[1, 0] = bad
    with pytest.raises(ValueError, match="position"):
        S.sgld(target, 1e-3).init(x)
    with pytest.raises(ValueError, match="momentum"):
        S.sghmc(target, 1e-3, 1.0).init(np.zeros((3, 2)), x)


def test_wrong_shape_is_refused(target):
    with pytest.raises(ValueError, match="position"):
        S.sgld(target, 1e-3).init(np.zeros((3, 5)))


def test_bad_x_choice_and_temperature(target):
    with pytest.raises(ValueError, match="x_choice"):
        S.ewsg(target, 0.01, 1.0, x_choice="two")
    with pytest.raises(ValueError, match="inverse_temperature"):
        S.sgld(target, 0.01, inverse_temperature=0.0)
    with pytest.raises(ValueError, match="noise_scale"):
        UnderdampedEM(target, 0.01, 1.0, noise_scale=-1.0)


@pytest.mark.parametrize("make,name,key", [
    (lambda t: S.sgld(t, 0.1), "SGLD", "step_size"),           # |1 − h n| = 4 > 1
    (lambda t: S.sghmc(t, 0.5, 10.0), "SGHMC", "friction"),
    (lambda t: S.ewsg(t, 0.5, 10.0), "EWSG", "index_chain_length"),
])
def test_divergence_raises_typed_error_naming_sampler_step_and_setting(target, make, name, key):
    s = make(target)
    rng = np.random.default_rng(0)
    with pytest.raises(DivergenceError) as ei:
        run_chains(s, s.init(rng.standard_normal((10, 2)), np.zeros((10, 2))), rng, steps=100_000)
    err = ei.value
    assert err.sampler == name and err.step > 0 and err.setting["step_size"] == s.step_size and key in err.setting
    assert name in str(err) and "step_size" in str(err) and f"step {err.step}" in str(err)
