"""The EWSG index chain (EWSG seed 000: weights (4), acceptance (6), Algorithm 1, Appendix D)."""
import numpy as np
import pytest
from scipy.stats import chisquare

from sgmcmc_verify.estimators import EWSGIndexChain, StepContext
from sgmcmc_verify.integrators import UnderdampedEM


def test_ewsg_at_zero_temperature_is_refused(zero_target):
    """The weights (4) divide by σ: EWSG with σ = 0 is undefined and must say so."""
    s = UnderdampedEM(zero_target, 0.1, 2.0, EWSGIndexChain(3), noise_scale=0.0)
    x0 = np.zeros((2, 2))
    with pytest.raises(ValueError, match="noise_scale"):
        s.step(s.init(x0, x0), np.random.default_rng(0))


def _frozen_state(target, rng, chains=3):
    return rng.standard_normal((chains, 2)) * 0.3 + target.posterior_mean, rng.standard_normal((chains, 2))


@pytest.mark.parametrize("x_choice", ["recommended", "zero", "one", "momentum_reset"])
def test_index_chain_stationary_law_is_exponential_weights(target, x_choice):
    """For a frozen (θ, r), the Metropolis index chain (6) has the weights (4) as its stationary law
    (exact enumeration of the n × n transition matrix, n = 50)."""
    rng = np.random.default_rng(11)
    th, r = _frozen_state(target, rng)
    h, g, s = 0.01, 10.0, np.sqrt(20.0)
    w = EWSGIndexChain(1, x_choice=x_choice).index_weights(target, th, r, h, g, s)
    long = EWSGIndexChain(4000, x_choice=x_choice).index_law(target, th, r, h, g, s)
    np.testing.assert_allclose(long, w, atol=1e-8)
    # and w is the fixed point of one step: w P = w
    one = EWSGIndexChain(1, x_choice=x_choice)
    logw = one._log_weights(target, th, r, h, g, s)
    for c in range(th.shape[0]):
        lw = logw[c]
        P = np.exp(np.minimum(lw[None, :] - lw[:, None], 0.0)) / target.n
        np.fill_diagonal(P, 0.0)
        P[np.arange(target.n), np.arange(target.n)] = 1.0 - P.sum(axis=1)
        np.testing.assert_allclose(w[c] @ P, w[c], atol=1e-14)


def _chi_square_pvalue(target, M_law):
    """p-value of the chi-square test: is the index selected by the M = 2 chain distributed as ``index_law``
    of an index chain of length ``M_law``? The state is frozen and replicated over 40,000 chains; the
    selected gradient identifies the index (all c_i distinct)."""
    rng = np.random.default_rng(12)
    th, r = _frozen_state(target, rng, chains=1)
    h, g, s = 0.02, 10.0, np.sqrt(20.0)
    est = EWSGIndexChain(2)
    R = 40_000
    out = est(None, rng, target, np.repeat(th, R, 0), StepContext(np.repeat(r, R, 0), h, g, s))
    idx = np.argmin(np.abs(target.n * (th - target.centers)[None, :, 0] - out.gradient[:, None, 0]), axis=1)
    counts = np.bincount(idx, minlength=target.n)
    p_law = EWSGIndexChain(M_law).index_law(target, th, r, h, g, s)[0]
    return chisquare(counts, R * p_law).pvalue


@pytest.mark.statistical(pair="ewsg.index_chain_law")
def test_index_chain_sampled_law_matches_exact_enumeration(target):
    """The estimator's selected gradient follows index_law (M = 2), by a chi-square test at level 1e-3."""
    assert _chi_square_pvalue(target, 2) > 1e-3


@pytest.mark.negative_control(pair="ewsg.index_chain_law")
def test_index_chain_law_check_rejects_the_uniform_law(target):
    """Planted bug: the law of M = 0 (uniform subsampling) in place of the M = 2 chain's."""
    assert _chi_square_pvalue(target, 0) < 1e-3
