"""``hsg_hmc.lemma3.first_term_decay``: the early slope is read only while Lemma 3's first term is isolated.

The precondition (error at the window's end <= 1.5 x the averaged one-sample variance) is a ledger ``given``: unmet,
the verdict is inconclusive whatever the slope says, holds and failures alike (the old evaluator capped failures
only).
"""
import pytest

from sgmcmc_verify.ledger.claims import get
from sgmcmc_verify.ledger.measures import Estimate, Fit
from sgmcmc_verify.ledger.rules import judge

RULE = get("hsg_hmc.lemma3.first_term_decay").rule


def _m(slope_ci, ratio):
    lo, hi = slope_ci
    return {"condition": Estimate(ratio, 0.01 * ratio, n=120), "claim": Fit((lo + hi) / 2, lo, hi, points=19)}


@pytest.mark.parametrize("slope_ci, ratio, expected", [
    ((-0.79, -0.74), 1.2, "failed"),          # first term isolated: a slope outside -1 ± 0.2 counts
    ((-0.79, -0.74), 2.6, "inconclusive"),    # the recursive part dominates: the slope measures both terms
    ((-1.05, -0.95), 1.2, "held"),
    ((-1.05, -0.95), 2.6, "inconclusive"),    # the same cap stops a hold
])
def test_the_precondition_caps_holds_and_failures_alike(slope_ci, ratio, expected):
    v = judge(RULE, _m(slope_ci, ratio))
    assert v.status == expected
    if ratio > 1.5:
        assert v.capped and v.capped["by"] == "precondition" and v.decide_by.kind == "grid"


def test_the_claim_on_smoke_results(smoke_results):
    v = get("hsg_hmc.lemma3.first_term_decay").evaluate(smoke_results)
    assert v.status in ("held", "failed", "inconclusive") and "precondition" in v.measured
