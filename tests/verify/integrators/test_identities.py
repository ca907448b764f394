"""Properties named after the identity they check (EWSG seed 000: eq. (3), (4), (6), Algorithm 1)."""
import numpy as np
import pytest

from sgmcmc_verify import samplers as S
from sgmcmc_verify.estimators import SVRGControlVariate, UniformMinibatch
from sgmcmc_verify.integrators import OverdampedEM, RMSpropPreconditioner, UnderdampedEM
from sgmcmc_verify.runner import run_chains


def test_zero_gradient_zero_temperature_overdamped_leaves_position_unchanged(zero_target):
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((7, 2))
    for s in (OverdampedEM(zero_target, 0.1, inverse_temperature=np.inf),
              OverdampedEM(zero_target, 0.1, preconditioner=RMSpropPreconditioner(), inverse_temperature=np.inf)):
        st = s.init(x0)
        for _ in range(5):
            st, _ = s.step(st, rng)
        np.testing.assert_array_equal(st.position, x0)


def test_zero_gradient_zero_temperature_underdamped_at_rest_leaves_position_unchanged(zero_target):
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal((7, 2))
    s = UnderdampedEM(zero_target, 0.1, 2.0, UniformMinibatch(), noise_scale=0.0)
    st = s.init(x0, np.zeros_like(x0))
    for _ in range(5):
        st, _ = s.step(st, rng)
    np.testing.assert_array_equal(st.position, x0)
    np.testing.assert_array_equal(st.momentum, 0.0)


def test_underdamped_em_is_equation_3(target):
    """One step by hand: θ' = θ + h r, r' = r − h(ĝ + γr) + σ√h ξ with the same index and ξ."""
    rng = np.random.default_rng(2)
    th, r = rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    h, g = 0.05, 10.0
    s = S.sghmc(target, h, g)
    st, _ = s.step(s.init(th, r), np.random.default_rng(5))
    rr = np.random.default_rng(5)
    i = rr.integers(0, target.n, size=(4, 1))
    grad = target.n * (th - target.centers[i[:, 0]])
    xi = rr.standard_normal((4, 2))
    np.testing.assert_allclose(st.position, th + h * r, rtol=0, atol=1e-15)
    np.testing.assert_allclose(st.momentum, r - h * (grad + g * r) + np.sqrt(2 * g) * np.sqrt(h) * xi, rtol=1e-14)


def test_ewsg_with_M_0_is_sghmc_step_for_step(target):
    x0 = np.random.default_rng(3).standard_normal((50, 2))
    r0 = np.random.default_rng(4).standard_normal((50, 2))
    a, b = S.ewsg(target, 0.05, 10.0, index_chain_length=0), S.sghmc(target, 0.05, 10.0)
    sa, sb = a.init(x0, r0), b.init(x0, r0)
    ra, rb = np.random.default_rng(9), np.random.default_rng(9)
    for _ in range(100):
        sa, _ = a.step(sa, ra)
        sb, _ = b.step(sb, rb)
        np.testing.assert_array_equal(sa.position, sb.position)
        np.testing.assert_array_equal(sa.momentum, sb.momentum)


def test_svrg_control_variate_is_exact_on_equal_hessians(target):
    """On Σ½‖θ − c_i‖² all V_i share the Hessian I, so the SVRG estimate equals ∇V(θ) exactly."""
    rng = np.random.default_rng(6)
    est = SVRGControlVariate(UniformMinibatch(3))
    th0 = rng.standard_normal((5, 2))
    st = est.init(target, th0)
    for _ in range(4):
        th = rng.standard_normal((5, 2))
        out = est(st, rng, target, th)
        st = out.state
        np.testing.assert_allclose(out.gradient, target.full_gradient(th), rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("M", [0, 1, 4])
@pytest.mark.parametrize("b", [1, 3])
def test_gradient_evaluation_counts(target, M, b):
    """EWSG: (M+1)b per step (§5.1 footnote 5); SGHMC/SGLD: b; FG: n; SVRG-LD: n at a snapshot plus 2b."""
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((3, 2))
    s = S.ewsg(target, 0.01, 10.0, index_chain_length=M, batch_size=b)
    _, info = s.step(s.init(x0, x0), rng)
    assert info.evaluations == (M + 1) * b
    for s, want in ((S.sghmc(target, 0.01, 10.0, batch_size=b), b), (S.sgld(target, 0.001, batch_size=b), b),
                    (S.fg(target, 0.01, 10.0), target.n)):
        _, info = s.step(s.init(x0, x0), rng)
        assert info.evaluations == want
    s = S.svrg_ld(target, 1e-3, batch_size=b, epoch_length=4)
    st = s.init(x0)
    counts = []
    for _ in range(9):
        st, info = s.step(st, rng)
        counts.append(info.evaluations)
    assert counts == [target.n + 2 * b, 2 * b, 2 * b, 2 * b] * 2 + [target.n + 2 * b]


def test_checkpoints_in_data_passes_count_the_budget(target):
    """30 data passes of EWSG with M = 1, b = 1 is 30 n / 2 = 750 steps (fair comparison, §5.1)."""
    s = S.ewsg(target, 0.05, 10.0, index_chain_length=1)
    rng = np.random.default_rng(0)
    out = run_chains(s, s.init(np.zeros((4, 2)), np.zeros((4, 2))), rng, checkpoints=[0, 1, 30], unit="passes")
    np.testing.assert_array_equal(out["steps"], [0, 25, 750])
    np.testing.assert_allclose(out["passes"], [0, 1, 30])
