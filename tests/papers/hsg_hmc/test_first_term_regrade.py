"""``hsg_hmc.lemma3.first_term_decay``: a slope outside −1 ± tol fails only while the first term is isolated."""
import pytest

import sgmcmc_verify.paper_repro.hsg_hmc.claims as hc


def _fake(monkeypatch, slope_ci, mse_at_end):
    lo, hi = slope_ci
    monkeypatch.setattr(hc, "_lemma", lambda root: {"fits": {"harmonic|0.01": {"early_slope": {
        "slope": (lo + hi) / 2, "ci_low": lo, "ci_high": hi}}}, "slope_window": [2, 4]})
    monkeypatch.setattr(hc, "_smallest_step", lambda root: 0.01)
    rows = [{"schedule": "harmonic", "step_size": 0.01, "k": k, "sigma2": 1.0,
             "mse": mse_at_end if k == 4 else 1.0} for k in range(1, 6)]
    monkeypatch.setattr(hc, "read_csv", lambda path: rows)


@pytest.mark.parametrize("mse_at_end, expected", [
    (0.25 * 1.2, "failed"),          # error 1.2 x (1/k²)Σσ² = 0.25 at k = 4: first term isolated, the slope counts
    (0.25 * 2.6, "inconclusive"),    # 2.6 x: the recursive part dominates, the slope measures both terms
])
def test_regrade_depends_on_isolation(monkeypatch, mse_at_end, expected):
    _fake(monkeypatch, (-0.79, -0.74), mse_at_end)
    assert hc._lemma3_early_decay("unused").status == expected


def test_inside_band_holds_regardless(monkeypatch):
    _fake(monkeypatch, (-1.05, -0.95), 0.25 * 2.6)
    assert hc._lemma3_early_decay("unused").status == "held"
