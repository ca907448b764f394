"""EWSG Lemma C.1 (issue #25): the exact second moment of F_k^E against the proof's bound, under both readings of F_k^E.

``field_second_moments`` depends on the state's law only through its first two moments (F is affine in the state given
the index), so a discrete law with the same mean and covariance (sigma points) and an exact average over the index give
the same number; a planted bug (the cross term dropped) is caught by that check.
"""
import numpy as np
import pytest

from sgmcmc_verify.ledger.claims import get
from sgmcmc_verify.ledger.measures import Compared, Estimate
from sgmcmc_verify.ledger.rules import judge
from sgmcmc_verify.paper_repro.ewsg import lemma_c1 as L

CID = "ewsg.lemmaC1.field_moments_bounded"
NAMES = tuple(L.READINGS)


def brute_force(mean, cov, centers, gamma, s):
    """E‖F‖² over sigma points z = m ± √(D) L e_j (the same first two moments) and every index i."""
    D, d = mean.size, centers.shape[1]
    Lc = np.linalg.cholesky(cov)
    pts = [mean + sign * np.sqrt(D) * Lc[:, j] for j in range(D) for sign in (1.0, -1.0)]
    tot = 0.0
    for z in pts:
        th, r = z[:d], z[d:]
        for c in centers:
            F = np.concatenate([r, -gamma * r - s * (th - c)])
            tot += F @ F
    return tot / (len(pts) * len(centers))


class DropCrossTerm:
    """Planted bug: E‖F‖² without the cross term 2γ E[r·g]."""

    @staticmethod
    def field(mean, cov, centers, gamma, s):
        out = L.field_second_moments(mean, cov, centers, gamma, s)
        d = centers.shape[1]
        e_rg = s * float(mean[d:] @ (mean[:d] - centers.mean(0)) + np.trace(cov[:d, d:]))
        return out["field"] - 2 * gamma * e_rg


def _case(seed=3):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((4, 4))
    return rng.standard_normal(4), A @ A.T + 0.5 * np.eye(4), rng.standard_normal((7, 2))


@pytest.mark.statistical(pair="ewsg.lemmaC1.moments")
@pytest.mark.parametrize("s", [1.0, 7.0])
def test_field_moment_matches_sigma_points_and_every_index(s):
    m, S, c = _case()
    assert L.field_second_moments(m, S, c, 10.0, s)["field"] == pytest.approx(brute_force(m, S, c, 10.0, s), rel=1e-10)


@pytest.mark.negative_control(pair="ewsg.lemmaC1.moments")
def test_the_check_catches_a_dropped_cross_term():
    m, S, c = _case()   # a random covariance: position and momentum correlated, so the cross term matters
    assert DropCrossTerm.field(m, S, c, 10.0, 7.0) != pytest.approx(brute_force(m, S, c, 10.0, 7.0), rel=1e-6)


def test_the_claim_depends_on_the_reading_of_F(tmp_path):
    from sgmcmc_verify.store.cache import run_experiment
    from sgmcmc_verify.store.registry import get_experiment

    run_experiment(get_experiment("ewsg.lemmaC1"), "smoke", results_root=tmp_path, n_jobs=1)
    v = get(CID).evaluate(tmp_path)
    assert v.status == "depends"
    assert v.map[NAMES[0]].status == "held" and v.map[NAMES[1]].status == "failed"


@pytest.mark.parametrize("a,b,status", [(1.0, 2.0, "held"), (3.0, 4.0, "failed"), (1.0, 4.0, "depends")])
def test_the_rule_reaches_every_status(a, b, status):
    ref = Estimate(2.5)
    m = {NAMES[0]: Compared(Estimate(a), ref), NAMES[1]: Compared(Estimate(b), ref)}
    assert judge(get(CID).rule, m).status == status
