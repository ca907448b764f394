"""sgmcmc_verify.measure.rates: slope fits with bootstrap intervals and what their intervals imply."""
import numpy as np
import pytest

from sgmcmc_verify.measure.rates import fit_bound, fit_slope, se_from_interval


def test_se_from_interval_uses_the_interval_level():
    assert se_from_interval(-1.959963984540054, 1.959963984540054, 0.95) == pytest.approx(1.0, rel=1e-12)
    assert se_from_interval(-1.6448536269514722, 1.6448536269514722, 0.90) == pytest.approx(1.0, rel=1e-12)
    with pytest.raises(ValueError, match="level"):
        se_from_interval(0.0, 1.0, 95)


def test_fits_record_their_level():
    rng = np.random.default_rng(0)
    x = np.array([1.0, 2.0, 4.0, 8.0])
    samples = rng.exponential(1.0, (200, 4)) / x
    assert fit_slope(x, samples, level=0.9, n_boot=50).as_dict()["level"] == 0.9
    h, T = np.array([1e-3, 2e-3, 4e-3]), np.array([1.0, 2.0, 4.0])
    b = fit_bound(h, T, [rng.exponential(1.0 / t, 100) for t in T], level=0.8, n_boot=20)
    assert b.as_dict()["level"] == 0.8
