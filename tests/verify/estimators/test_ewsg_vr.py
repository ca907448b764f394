"""EWSG-VR (EWSG seed 000, Appendix F, Algorithm 2): the variance-corrected friction and its SVRG-updated moments."""
from dataclasses import dataclass

import numpy as np
import pytest

from sgmcmc_verify.analytic.linear_samplers import minibatch_noise_covariance, stationary_moments, variance_corrected_em_recursion
from sgmcmc_verify import samplers
from sgmcmc_verify.errors import DivergenceError
from sgmcmc_verify.estimators import EWSGIndexChain, EWSGVarianceReduced, GradientEstimate, StepContext, calibration_moments
from sgmcmc_verify.integrators import UnderdampedEM
from sgmcmc_verify.runner import run_chains

GAMMA = 10.0


@dataclass(frozen=True)
class ExactVarianceReference:
    """Test-only reference: the friction of Algorithm 2 from the *exact* covariance of n∇V_I at θ_{k−1}.

    ``Γ_k = γ + (h/2T) cov_U[n∇V_I(θ_{k−1})]``, ``Γ_0 = γ``, the covariance by the two-pass formula over all n
    data at every step; the index chain (and its random draws) are the EWSG chain's.
    """

    chain: EWSGIndexChain
    x_friction: str = "base"

    def init(self, target, position, rng=None):
        return None

    def __call__(self, state, rng, target, position, context=StepContext()):
        h, gam, sig, r = context.step_size, context.friction, context.noise_scale, context.momentum
        extra = np.zeros((position.shape[0], position.shape[1], position.shape[1])) if state is None else state
        force = np.einsum("cde,ce->cd", extra, r)
        x, scale = self.chain.context_values(context, position)
        _, g, _ = self.chain.select(rng, target, position, x + scale * force if self.x_friction == "step" else x, scale)
        ng = target.n * target.data_gradients(position, np.broadcast_to(np.arange(target.n), (position.shape[0], target.n)))
        dev = ng - ng.mean(axis=1, keepdims=True)
        cov = np.einsum("cnd,cne->cde", dev, dev) / target.n
        return GradientEstimate(g + force, target.n + self.chain.evaluations_per_step,
                                (h * gam / sig**2) * cov / self.chain.batch_size, {})

    def settings(self):
        return {"estimator": "exact_variance_reference"}


@pytest.mark.parametrize("M,xf,b", [(1, "base", 1), (1, "step", 1), (0, "base", 1), (2, "step", 3)])
def test_period_one_step_equals_the_exact_variance_reference(target, M, xf, b):
    """With a calibration at every step the SVRG corrections vanish (ω = θ_k) and EWSG-VR is the exact-variance
    reference, step for step. Tolerance: rtol 1e-9 covers the round-off of m2 − m1m1ᵀ against the two-pass
    covariance (relative 1e-14 per step here, |m1|² ≪ tr cov) accumulated over 200 contracting steps."""
    chain = EWSGIndexChain(M, b)
    vr = UnderdampedEM(target, 0.02, GAMMA, EWSGVarianceReduced(chain, 1, "steps", xf), name="EWSG-VR")
    ref = UnderdampedEM(target, 0.02, GAMMA, ExactVarianceReference(chain, xf), name="reference")
    x0 = np.random.default_rng(1).standard_normal((50, 2))
    outs = [run_chains(s, s.init(x0, x0[::-1].copy()), np.random.default_rng(2), steps=200, keep_last=200)
            for s in (vr, ref)]
    np.testing.assert_allclose(outs[0]["kept"], outs[1]["kept"], rtol=1e-9, atol=1e-12)
    assert outs[0]["evaluations"] == outs[1]["evaluations"] == 200 * (target.n + (M + 1) * b)


class _ScriptedChain(EWSGIndexChain):
    """Test-only chain that selects the indices of a script (one column per step), to check the moment updates."""

    def __init__(self, script):
        super().__init__(0, 1)
        object.__setattr__(self, "script", script)
        object.__setattr__(self, "k", [0])

    def select(self, rng, target, position, x, scale):
        idx = self.script[:, self.k[0]][:, None]
        self.k[0] += 1
        return idx, self._batch_gradient_at(target, position, idx), 0

    def _batch_gradient_at(self, target, position, idx):
        return target.prior_gradient(position) + target.n * target.data_gradients(position, idx)[:, 0]


def test_moment_updates_follow_algorithm_2_lines_16_to_19(target):
    """m1 = Σ_j ∇V_j(ω) + Σ_s (∇V_{i_s}(θ_s) − ∇V_{i_s}(ω)), m2 likewise with n ∇V∇Vᵀ, Γ − γ = (h/2T)(m2 − m1m1ᵀ),
    written out with loops for a scripted index sequence (repeats included); exact to round-off (rtol 1e-12)."""
    rng = np.random.default_rng(4)
    chains, steps, n, h = 3, 6, target.n, 0.01
    script = rng.integers(0, n, size=(chains, steps))
    script[:, 3] = script[:, 1]  # an index drawn twice is corrected twice, as the printed update does
    est = EWSGVarianceReduced(_ScriptedChain(script), calibration_period=100, period_unit="steps")
    sig = np.sqrt(2 * GAMMA)
    pos = [rng.standard_normal((chains, 2)) for _ in range(steps)]
    r = rng.standard_normal((chains, 2))
    state = est.init(target, pos[0])
    for k in range(steps):
        e = est(state, rng, target, pos[k], StepContext(r, h, GAMMA, sig))
        state = e.state
        assert e.evaluations == (n + 1 if k == 0 else 1)
    for c in range(chains):
        G = [target.data_gradients(pos[0][c:c + 1], np.array([[j]]))[0, 0] for j in range(n)]
        m1, m2 = sum(G), n * sum(np.outer(g, g) for g in G)
        for k in range(steps):
            i = script[c, k]
            cur = target.data_gradients(pos[k][c:c + 1], np.array([[i]]))[0, 0]
            m1 = m1 + cur - G[i]
            m2 = m2 + n * (np.outer(cur, cur) - np.outer(G[i], G[i]))
        np.testing.assert_allclose(state.m1[c], m1, rtol=1e-12)
        np.testing.assert_allclose(state.m2[c], m2, rtol=1e-12)
        np.testing.assert_allclose(state.extra_friction[c], h * GAMMA / sig**2 * (m2 - np.outer(m1, m1)), rtol=1e-10)


def test_calibration_moments_are_the_uniform_moments(target):
    pos = np.random.default_rng(0).standard_normal((2, 2))
    m1, m2, G = calibration_moments(target, pos)
    ng = target.n * (pos[:, None, :] - target.centers[None])
    np.testing.assert_allclose(m1, ng.mean(axis=1), rtol=1e-13)
    np.testing.assert_allclose(m2, np.einsum("cnd,cne->cde", ng, ng) / target.n, rtol=1e-13)
    cov = m2[0] - np.outer(m1[0], m1[0])
    np.testing.assert_allclose(cov, minibatch_noise_covariance(target.centers), rtol=1e-10)


def test_data_passes_count_the_calibration_passes(target):
    """L = 1 pass, M = 1, b = 1, n = 50: a period is a calibration (50) and 25 steps of 2 evaluations: 2 passes."""
    s = samplers.ewsg_vr(target, 5e-3, GAMMA)
    x0 = np.zeros((4, 2))
    out = run_chains(s, s.init(x0, x0), np.random.default_rng(0), steps=75)
    assert out["evaluations"] == 3 * (50 + 25 * 2)
    assert out["info"]["calibration"] == pytest.approx(3 / 75)
    out = run_chains(s, s.init(x0, x0), np.random.default_rng(0), checkpoints=[2.0, 4.0], unit="passes")
    assert list(out["steps"]) == [25, 50] and list(out["passes"]) == [2.0, 4.0]
    s3 = samplers.ewsg_vr(target, 5e-3, GAMMA, calibration_period=3)
    assert s3.estimator.period_steps(target.n) == 75


def test_ewsg_vr_diverges_at_the_papers_step_size_on_section_5_1(target):
    """h = 0.05, γ = 10 (Appendix F: 'the same as EWSG'): h·λmax(Γ) ≈ 4.3; the exact recursion has spectral radius
    3.27 and the sampler raises DivergenceError."""
    Q = minibatch_noise_covariance(target.centers)
    rec = variance_corrected_em_recursion(target.hessian, target.posterior_mean, Q, 0.05, GAMMA)
    assert np.max(np.abs(np.linalg.eigvals(rec.A))) == pytest.approx(3.2736, abs=1e-3)
    s = samplers.ewsg_vr(target, 0.05, GAMMA)
    x0 = np.random.default_rng(0).standard_normal((20, 2))
    with pytest.raises(DivergenceError):
        run_chains(s, s.init(x0, x0), np.random.default_rng(1), steps=400)


@pytest.mark.parametrize("kw,match", [({"calibration_period": 0}, "calibration_period"),
                                      ({"period_unit": "epochs"}, "period_unit"),
                                      ({"x_friction": "gamma"}, "x_friction"),
                                      ({"index_chain": object()}, "index_chain")])
def test_bad_parameters_are_named(kw, match):
    with pytest.raises(ValueError, match=match):
        EWSGVarianceReduced(**kw)


def test_ewsg_vr_refuses_overdamped_langevin(target):
    from sgmcmc_verify.integrators import OverdampedEM
    s = OverdampedEM(target, 1e-3, EWSGVarianceReduced(EWSGIndexChain(1, x_choice="zero")))
    with pytest.raises(ValueError, match="underdamped"):
        s.step(s.init(np.zeros((2, 2))), np.random.default_rng(0))


# ---- statistical: the stationary law of the variance-corrected friction -----------------------------

class _DoubledCorrection(EWSGVarianceReduced):
    """Planted bug: Γ − γ = (h/T) covar, the 1/(2T) of Appendix F read as 1/T."""

    def __call__(self, state, rng, target, position, context=StepContext()):
        e = super().__call__(state, rng, target, position, context)
        return e._replace(state=e.state._replace(extra_friction=2.0 * e.state.extra_friction))


def _stationary_z(target, est_cls, seed, h=0.02, R=2000, steps=150):
    """z-scores of the sample variances of θ (two coordinates) after ``steps`` against the exact stationary law of
    EM with Γ = (σ²I + hQ)/(2T) (discrete Lyapunov), for EWSG-VR with M = 0 and the exact variance (calibration
    every step). Chains start from the exact stationary moments; s.e. of a variance: v√(2/(R−1))."""
    Q = minibatch_noise_covariance(target.centers)
    mean, cov = stationary_moments(variance_corrected_em_recursion(target.hessian, target.posterior_mean, Q, h, GAMMA))
    rng = np.random.default_rng(seed)
    z0 = mean + rng.standard_normal((R, 4)) @ np.linalg.cholesky(cov).T
    s = UnderdampedEM(target, h, GAMMA, est_cls(EWSGIndexChain(0), 1, "steps"), name="EWSG-VR")
    out = run_chains(s, s.init(z0[:, :2], z0[:, 2:]), rng, steps=steps, observe={"p": lambda st: st.position})
    v = out["p"][:, -1].var(axis=0, ddof=1)
    exact = np.diag(cov)[:2]
    return (v - exact) / (exact * np.sqrt(2.0 / (R - 1)))


@pytest.mark.statistical(pair="ewsg_vr.variance_corrected_law")
def test_variance_corrected_friction_has_the_exact_stationary_variance(target):
    """|z| < 4 on both coordinates (a Gaussian false alarm rate of 1.3e-4; the law is close to Gaussian)."""
    z = _stationary_z(target, EWSGVarianceReduced, 31)
    assert np.all(np.abs(z) < 4.0), z


@pytest.mark.negative_control(pair="ewsg_vr.variance_corrected_law")
def test_variance_check_catches_a_doubled_friction_correction(target):
    """Planted bug: twice the correction, stationary variance ≈ 0.6 of the exact one (z ≈ −13)."""
    z = _stationary_z(target, _DoubledCorrection, 31)
    assert np.any(np.abs(z) >= 4.0), z
