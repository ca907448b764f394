"""Overdamped EWSG (EWSG seed 000, Appendix E): the index chain of Algorithm 1 driven by overdamped EM."""
import numpy as np
import pytest
from scipy.stats import chisquare

from sgmcmc_verify import samplers
from sgmcmc_verify.estimators import EWSGIndexChain, StepContext
from sgmcmc_verify.integrators import OverdampedEM
from sgmcmc_verify.integrators.preconditioners import RMSpropPreconditioner
from sgmcmc_verify.runner import run_chains


@pytest.mark.parametrize("batch_size", [1, 3])
def test_overdamped_ewsg_with_M0_is_sgld_step_for_step(target, batch_size):
    """M = 0 runs no index chain: the same draws as SGLD's uniform minibatch, then the same Gaussian; bitwise equal."""
    rng0 = np.random.default_rng(5)
    x0 = rng0.standard_normal((64, 2))
    runs = []
    for s in (samplers.sgld(target, 5e-3, batch_size=batch_size),
              samplers.ewsg_ld(target, 5e-3, index_chain_length=0, batch_size=batch_size)):
        out = run_chains(s, s.init(x0), np.random.default_rng(6), steps=300, keep_last=300)
        runs.append(out)
    np.testing.assert_array_equal(runs[0]["kept"], runs[1]["kept"])
    assert runs[0]["evaluations"] == runs[1]["evaluations"] == 300 * batch_size


def test_overdamped_index_chain_stationary_law_is_appendix_e_weights(target):
    """Appendix E: p_i ∝ exp(½‖x + n a_i‖²) with a_i = √h ∇V_i/√2 (σ = √2 at β = 1), x = 0, written out
    independently for V_i = ½‖θ − c_i‖²; the M-step chain's exact law converges to it (enumeration)."""
    rng = np.random.default_rng(3)
    th = target.posterior_mean + 0.2 * rng.standard_normal((3, 2))
    h, sig = 5e-3, np.sqrt(2.0)
    est = EWSGIndexChain(1, x_choice="zero")
    w = est.index_weights(target, th, np.zeros_like(th), h, None, sig)
    a_n = np.sqrt(h) / np.sqrt(2.0) * target.n * (th[:, None, :] - target.centers[None])  # n a_i, (3, n, 2)
    logw = 0.5 * np.sum(a_n**2, axis=-1)
    direct = np.exp(logw - logw.max(axis=1, keepdims=True))
    np.testing.assert_allclose(w, direct / direct.sum(axis=1, keepdims=True), rtol=1e-12, atol=0)
    long = EWSGIndexChain(3000, x_choice="zero").index_law(target, th, np.zeros_like(th), h, None, sig)
    np.testing.assert_allclose(long, w, atol=1e-8)


def test_overdamped_integrator_tells_the_estimator_h_and_sigma(target):
    s = samplers.ewsg_ld(target, 2e-3, inverse_temperature=4.0)
    ctx = s._context()
    assert ctx == StepContext(None, 2e-3, None, np.sqrt(2.0 / 4.0))
    pre = OverdampedEM(target, 2e-3, preconditioner=RMSpropPreconditioner())
    assert pre._context() == StepContext()


def test_overdamped_ewsg_refuses_momentum_based_x(target):
    s = samplers.ewsg_ld(target, 5e-3, x_choice="recommended")
    with pytest.raises(ValueError, match="x_choice='recommended'"):
        s.step(s.init(np.zeros((2, 2))), np.random.default_rng(0))


def test_overdamped_ewsg_refuses_a_preconditioned_kernel(target):
    """The weights of Appendix E match the identity-preconditioned kernel only."""
    s = OverdampedEM(target, 5e-3, EWSGIndexChain(1, x_choice="zero"), RMSpropPreconditioner())
    with pytest.raises(ValueError, match="step_size and noise_scale"):
        s.step(s.init(np.zeros((2, 2))), np.random.default_rng(0))


def test_overdamped_ewsg_at_zero_temperature_is_refused(target):
    s = samplers.ewsg_ld(target, 5e-3, inverse_temperature=np.inf)
    with pytest.raises(ValueError, match="noise_scale"):
        s.step(s.init(np.zeros((2, 2))), np.random.default_rng(0))


class _HalfNoiseOverdamped(OverdampedEM):
    """Planted bug: the integrator reports σ = √(1/β) instead of √(2/β) to the estimator."""

    def _context(self):
        return StepContext(step_size=self.step_size, noise_scale=float(np.sqrt(1.0 / self.inverse_temperature)))


def _overdamped_chi_square_pvalue(target, integrator_cls, seed):
    """p-value: does the index selected by EWSG-LD (M = 2) inside the overdamped integrator follow the exact
    law of Appendix E's chain (σ = √2)? The state is frozen and replicated over 40,000 chains; the selected
    gradient identifies the index (all c_i distinct)."""
    rng = np.random.default_rng(seed)
    th = target.posterior_mean + 0.15 * rng.standard_normal((1, 2))
    h = 5e-3
    s = integrator_cls(target, h, EWSGIndexChain(2, x_choice="zero"), name="EWSG-LD")
    R = 40_000
    pos = np.repeat(th, R, 0)
    out = s.estimator(None, rng, target, pos, s._context())
    idx = np.argmin(np.abs(target.n * (th - target.centers)[None, :, 0] - out.gradient[:, None, 0]), axis=1)
    counts = np.bincount(idx, minlength=target.n)
    p_law = EWSGIndexChain(2, x_choice="zero").index_law(target, th, np.zeros_like(th), h, None, np.sqrt(2.0))[0]
    return chisquare(counts, R * p_law).pvalue


@pytest.mark.statistical(pair="ewsg.overdamped_index_law")
def test_overdamped_index_chain_sampled_law_matches_appendix_e(target):
    """Chi-square at level 1e-3 (a false alarm rate of 1e-3 per seed)."""
    assert _overdamped_chi_square_pvalue(target, OverdampedEM, 21) > 1e-3


@pytest.mark.negative_control(pair="ewsg.overdamped_index_law")
def test_overdamped_index_law_check_catches_a_wrong_noise_amplitude(target):
    """Planted bug: σ = 1 in the weights instead of Appendix E's √2 (exponents twice too large)."""
    assert _overdamped_chi_square_pvalue(target, _HalfNoiseOverdamped, 21) < 1e-3
