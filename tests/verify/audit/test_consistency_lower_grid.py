"""Check 1's lower grid (``consistency.LOWER_GRID_FACTOR``): when the first grid cannot decide whether the error
vanishes (a significant intercept while the error still decreases at its small end), the check reruns on the grid
divided by 20 and decides there.

EWSG-LD (Appendix E, x = 0) is the case that needs it: its index-chain weights ``exp(hβn²‖∇V_i‖²/4)`` are far from
uniform over the whole smoke grid, so its error saturates there; on the lower grid it reaches the Monte Carlo floor
(docs/audit.md). Negative control: the same sampler with a constant gradient offset of 1, which the first grid
leaves undecided too, must be flagged on the lower grid.
"""
import pytest

from sgmcmc_verify import samplers
from sgmcmc_verify.audit.consistency import LOWER_GRID_FACTOR, consistency_check
from sgmcmc_verify.audit.settings import AuditSettings
from sgmcmc_verify.audit.toolkit import toolkit_audit

from support import audit as broken


@pytest.mark.statistical(pair="audit.consistency_lower_grid")
def test_ewsg_ld_passes_check_1_on_the_lower_grid_at_smoke():
    p, order = toolkit_audit()["EWSG-LD"]
    s = AuditSettings.at("smoke")
    res = consistency_check(samplers.SAMPLERS["EWSG-LD"], p, s, name="EWSG-LD", expected_order=order)
    assert "first_grid" in res.data, "the first grid was expected to leave EWSG-LD undecided"
    assert res.data["hL"][-1] == pytest.approx(s.consistency_hL[-1] / LOWER_GRID_FACTOR)
    assert res.status == "pass", res.detail


@pytest.mark.negative_control(pair="audit.consistency_lower_grid")
def test_ewsg_ld_with_a_gradient_offset_is_flagged_on_the_lower_grid():
    res = consistency_check(broken.ewsg_ld_offset_gradient, {}, AuditSettings.at("smoke"), name="offset")
    assert "first_grid" in res.data   # undecided on the first grid, like the correct sampler
    assert res.status == "flagged", res.detail


def test_a_sampler_decided_on_the_first_grid_is_not_rerun():
    res = consistency_check(samplers.SAMPLERS["SGLD"], {}, AuditSettings.at("smoke"), name="SGLD")
    assert "first_grid" not in res.data and res.status == "pass", res.detail
