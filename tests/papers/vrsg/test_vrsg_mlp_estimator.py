"""vrSG-MCMC's estimator (Algorithm 1) on the Bayesian MLP: its mean and its exact variance.

With the anchor θ̃ fixed, the old-gradient batch π (size n1) and the fresh batch π̃ (size n2) drawn
independently without replacement, the estimate at θ is

    g = λθ + (N/n1) Σ_{i∈π} β_i + (N/n2) Σ_{i∈π̃} (α_i − β_i),   α_i = ∇V_i(θ), β_i = ∇V_i(θ̃),

so E g = ∇V(θ) (eq. (10)) and, batches being independent and sampled without replacement,

    tr Cov g = N²/n1 · (N−n1)/(N−1) · S²(β) + N²/n2 · (N−n2)/(N−1) · S²(α − β),

with S²(a) = (1/N) Σ_i ‖a_i − ā‖² (the per-datum population variance, trace). Both are checked by
Monte Carlo over R independent draws (chains) at one (θ, θ̃), on an MLP small enough for every
per-datum gradient to be computed; the estimator runs through the MLP's ``data_gradient_sum`` path.

Tolerances: the mean as a max over the d coordinates of |z| (z = MC mean error / MC s.e.) below 4.5
(Bonferroni over d = 39 coordinates at a two-sided 1e-3 family-wise level gives 4.4); the trace as
|z| < 4 with the s.e. of the MC trace from the per-draw squared deviations (delta method).
Planted bugs (test-only subclasses): the old gradient scaled by N/n2 instead of N/n1 (biased), and
the two terms of the correction evaluated at independent index sets (unbiased, larger variance).
"""
import numpy as np
import pytest

from sgmcmc_verify.estimators import GradientEstimate, TwoMinibatchControlVariate, UniformMinibatch, VRSGState
from sgmcmc_verify.targets import MLPClassifierTarget

N, N1, N2, R = 60, 20, 5, 6000
Z_MEAN, Z_TRACE = 4.5, 4.0


def _target():
    rng = np.random.default_rng(20180202)  # fixed problem; the test's seed below drives the draws
    X = rng.random((N, 5))
    return MLPClassifierTarget(X, np.arange(N) % 3, hidden=4, n_classes=3, prior_precision=0.5), rng


def _points(t, rng):
    theta = t.initial_position(rng, 1) + 0.8 * rng.standard_normal((1, t.dim))
    return theta, theta + 0.3 * rng.standard_normal((1, t.dim))


class ScaledAnchorBug(TwoMinibatchControlVariate):
    """Planted bug: the old gradient scaled by N/n2 (the fresh batch's factor) instead of N/n1."""

    def __call__(self, state, rng, target, position, context=None):
        est = super().__call__(state, rng, target, position)
        if state.since >= self.update_interval:  # just refreshed: rescale the stored old gradient
            s = est.state
            k = self.anchor.batch_size / self.current.batch_size
            fixed = VRSGState(s.anchor, k * s.anchor_gradient, s.since)
            return GradientEstimate(est.gradient + (k - 1) * s.anchor_gradient, est.evaluations, fixed, est.info)
        return est


class DecoupledCorrectionBug(TwoMinibatchControlVariate):
    """Planted bug: ∇V_i(θ) and ∇V_j(θ̃) of the correction use independent index sets."""

    def __call__(self, state, rng, target, position, context=None):
        est = super().__call__(state, rng, target, position)
        if state.since >= self.update_interval:
            return est
        i = self.current.draw(rng, target, position.shape[0])
        j = self.current.draw(rng, target, position.shape[0])
        c = (target.n / self.current.batch_size) * (target.data_gradient_sum(position, i)
                                                    - target.data_gradient_sum(state.anchor, j))
        g = target.prior_gradient(position) + state.anchor_gradient + c
        return GradientEstimate(g, est.evaluations, VRSGState(state.anchor, state.anchor_gradient, state.since + 1), {})


def _draws(cls, seed):
    t, prng = _target()
    theta, anchor = _points(t, prng)
    est = cls(UniformMinibatch(N2, replace=False), UniformMinibatch(N1, replace=False), 2)
    rng = np.random.default_rng(seed)
    at_anchor = est(est.init(t, np.repeat(anchor, R, 0)), rng, t, np.repeat(anchor, R, 0))  # refresh: θ̃, π
    g = est(at_anchor.state, rng, t, np.repeat(theta, R, 0)).gradient  # (R, d) at θ with the old gradient
    every = np.arange(N)[None, :]
    alpha, beta = t.data_gradients(theta, every)[0], t.data_gradients(anchor, every)[0]
    exact_mean = t.full_gradient(theta)[0]
    s2 = lambda a: np.sum((a - a.mean(0)) ** 2) / N
    exact_trace = N**2 / N1 * (N - N1) / (N - 1) * s2(beta) + N**2 / N2 * (N - N2) / (N - 1) * s2(alpha - beta)
    return g, exact_mean, exact_trace


def _mean_z(g, mean):
    return np.max(np.abs(g.mean(0) - mean) / (g.std(0, ddof=1) / np.sqrt(R)))


def _trace_z(g, trace):
    dev2 = np.sum((g - g.mean(0)) ** 2, axis=1)
    return abs(dev2.mean() * R / (R - 1) - trace) / (dev2.std(ddof=1) / np.sqrt(R))


@pytest.mark.statistical(pair="vrsg.mlp_estimator_mean")
def test_vrsg_estimator_on_the_mlp_is_unbiased():
    g, mean, _ = _draws(TwoMinibatchControlVariate, 1)
    assert _mean_z(g, mean) < Z_MEAN


@pytest.mark.negative_control(pair="vrsg.mlp_estimator_mean")
def test_unbiasedness_check_catches_a_misscaled_old_gradient():
    g, mean, _ = _draws(ScaledAnchorBug, 1)
    assert not _mean_z(g, mean) < Z_MEAN


@pytest.mark.statistical(pair="vrsg.mlp_estimator_variance")
def test_vrsg_estimator_on_the_mlp_has_the_exact_without_replacement_variance():
    g, _, trace = _draws(TwoMinibatchControlVariate, 2)
    assert _trace_z(g, trace) < Z_TRACE


@pytest.mark.negative_control(pair="vrsg.mlp_estimator_variance")
def test_variance_check_catches_decoupled_correction_indices():
    g, _, trace = _draws(DecoupledCorrectionBug, 2)
    assert not _trace_z(g, trace) < Z_TRACE
