"""The ledger's vocabulary of decision rules (``sgmcmc_verify.ledger.rules``) on constructed measurements.

Each rule is shown to hold, fail and stay undecided where it should; the small-sample rule is calibrated against
identical pairs (with a planted large-sample rule as its negative control); the ledger-wide caps are shown to treat
holds and failures alike.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from sgmcmc_verify.ledger.measures import (Compared, DataUsed, Estimate, Fit, NotAtScale, OnData, Symbolic, Tuned,
                                           TunedChoice, Unmeasured, estimate_of)
from sgmcmc_verify.ledger.rules import (FAMILY_LEVEL, MIN_FIT_POINTS, Ordering, all_of, any_of, bound, equivalent,
                                        exactly_one, given, identity, judge, ordering, over_axis, readings, robust_to,
                                        slope_in)
from sgmcmc_verify.ledger.verdict import Verdict


def E(v, se=0.0, n=None):
    return Estimate(v, se, n=n)


# ---- measurements -------------------------------------------------------------------------------------------

def test_an_estimate_with_an_error_must_say_how_many_replicates():
    with pytest.raises(ValueError, match="replicate count"):
        Estimate(1.0, 0.1)
    with pytest.raises(ValueError, match="finite"):
        Estimate(float("nan"))
    assert Estimate(1.0).exact and Estimate(1.0, 0.0, n=1).single


def test_estimate_of_replicates():
    e = estimate_of([1.0, 2.0, 3.0, 4.0])
    assert e.n == 4 and e.value == 2.5 and math.isclose(e.se, np.std([1, 2, 3, 4], ddof=1) / 2)


# ---- ordering ---------------------------------------------------------------------------------------------

def test_ordering_statuses():
    r = ordering("a", "b")
    assert judge(r, {"a": E(1, 0.1, 40), "b": E(2, 0.1, 40)}).status == "held"
    assert judge(r, {"a": E(2, 0.1, 40), "b": E(1, 0.1, 40)}).status == "failed"
    v = judge(r, {"a": E(1, 0.1, 40), "b": E(1.2, 0.1, 40)})
    assert v.status == "inconclusive" and v.decide_by.kind == "replicates" and 1 < v.decide_by.factor < 100


def test_ordering_of_exact_numbers_is_decided_by_the_sign():
    r = ordering("a", "b", "c", descending=True)
    assert judge(r, {"a": E(3), "b": E(2), "c": E(1)}).status == "held"
    assert judge(r, {"a": E(3), "b": E(3), "c": E(1)}).status == "failed"


def test_no_decision_from_a_single_run():
    """LS-SGLD Fig. 1 at the paper scale: one run each, the standard error unknown: never held or failed."""
    v = judge(ordering("LS-SGLD", "SGLD"), {"LS-SGLD": E(1.0, 0.0, 1), "SGLD": E(5.0, 0.0, 1)})
    assert v.status == "inconclusive" and "at least 2 independent runs" in v.decide_by.text


def test_ordering_uses_t_quantiles_below_30_replicates():
    """t = 4.2 on 4 degrees of freedom is not resolved at the family level (t quantile 7.2); with 40 replicates it is."""
    r = ordering("a", "b")
    assert judge(r, {"a": E(0, 0.1, 3), "b": E(0.6, 0.1, 3)}).status == "inconclusive"
    assert judge(r, {"a": E(0, 0.1, 40), "b": E(0.6, 0.1, 40)}).status == "held"


def test_holm_over_pairs_for_a_failure_and_each_pair_for_a_hold():
    """Two pairs each at t = 3.1: each resolved at the level (a hold needs every pair: an intersection-union test);
    the same t against the claim is not enough for a failure over two pairs (Holm's first threshold is level/2)."""
    r = ordering("a", ("b", "c"))
    hold = {"a": E(0, 0.1 / math.sqrt(2), 1000), "b": E(0.31, 0.1 / math.sqrt(2), 1000),
            "c": E(0.31, 0.1 / math.sqrt(2), 1000)}
    assert judge(r, hold).status == "held"
    contra = {"a": E(0.31, 0.1 / math.sqrt(2), 1000), "b": E(0, 0.1 / math.sqrt(2), 1000),
              "c": E(0.31, 0.1 / math.sqrt(2), 1000)}
    v = judge(r, contra)
    assert v.status == "inconclusive" and "against the claim" in v.decide_by.text


def _false_call_rate(rule, n, trials, rng):
    calls = 0
    for _ in range(trials):
        a, b = rng.standard_normal(n), rng.standard_normal(n)
        st = judge(rule, {"a": estimate_of(a), "b": estimate_of(b)}).status
        calls += st in ("held", "failed")
    return calls / trials


class _NormalOnlyOrdering(Ordering):
    """A planted bug: the large-sample rule on few replicates (normal quantiles whatever the degrees of freedom)."""

    def decide(self, m):
        from sgmcmc_verify.ledger import rules

        real = rules.LARGE_SAMPLE
        rules.LARGE_SAMPLE = 0
        try:
            return super().decide(m)
        finally:
            rules.LARGE_SAMPLE = real


@pytest.mark.statistical(pair="ledger.small_samples")
def test_identical_pairs_of_three_replicates_are_called_at_the_stated_rate():
    """3,000 pairs of identical laws, 3 replicates each: the t rule calls 'held' or 'failed' at its level 0.27 %
    (binomial s.e. 0.09 %; bound 0.8 %, 6 s.e. above; measured 0.15 % with this seed)."""
    rate = _false_call_rate(ordering("a", "b"), 3, 3000, np.random.default_rng(2024))
    assert rate < 0.008


@pytest.mark.negative_control(pair="ledger.small_samples")
def test_the_large_sample_rule_on_three_replicates_is_caught():
    """The normal 3-s.e. rule on 3 replicates calls identical pairs about 5 % of the time: the bound catches it."""
    rate = _false_call_rate(_NormalOnlyOrdering((("a",), ("b",))), 3, 3000, np.random.default_rng(2024))
    assert rate > 0.008


# ---- slopes ----------------------------------------------------------------------------------------------

def test_slope_band_and_points():
    r = slope_in(-1.0, 0.15)
    assert judge(r, Fit(-1.0, -1.05, -0.95, points=5)).status == "held"
    assert judge(r, Fit(-0.5, -0.6, -0.4, points=5)).status == "failed"
    assert judge(r, Fit(-0.9, -1.0, -0.8, points=5)).status == "inconclusive"
    # fewer than 5 points decide neither way
    for fit in (Fit(-1.0, -1.05, -0.95, points=4), Fit(-0.5, -0.6, -0.4, points=4)):
        v = judge(r, fit)
        assert v.status == "inconclusive" and v.decide_by.kind == "grid"
    with pytest.raises(ValueError, match="min_points"):
        slope_in(1.0, 0.1, min_points=MIN_FIT_POINTS - 1)


def test_an_upper_bound_slope_fails_only_below_the_band():
    r = slope_in(2.0, 0.3, bound=True)
    assert judge(r, Fit(1.0, 0.9, 1.1, points=5)).status == "failed"
    assert judge(r, Fit(3.0, 2.9, 3.1, points=5)).status == "inconclusive"
    assert judge(r, Fit(2.0, 1.9, 2.1, points=5)).status == "held"


def test_a_span_requirement_caps_both_ways():
    r = slope_in(1.0, 0.1, min_span=1.5)
    for fit in (Fit(1.0, 0.95, 1.05, points=6, span=1.0), Fit(3.0, 2.9, 3.1, points=6, span=1.0)):
        assert judge(r, fit).status == "inconclusive"


# ---- bounds ---------------------------------------------------------------------------------------------

def test_one_bound_rule_for_numbers_references_and_fits():
    assert judge(bound(le=1.0), {"a": E(0.5), "b": E(0.9)}).status == "held"
    assert judge(bound(le=1.0), {"a": E(0.5), "b": E(1.1)}).status == "failed"
    assert judge(bound(le="reference"), {"a": Compared(E(2.0), E(3.0))}).status == "held"
    assert judge(bound(ge=0.8, le=1.25), E(2.0)).status == "failed"
    assert judge(bound(le=6.0), Fit(2.0, 1.0, 3.0, points=5)).status == "held"
    assert judge(bound(le=6.0), Fit(2.0, 1.0, 7.0, points=5)).status == "inconclusive"
    assert judge(bound(le=0.0, strict=True), E(0.0)).status == "failed"


def test_a_bound_holds_only_where_every_point_is_resolved_below_it():
    """A point within noise of the bound decides nothing: 'no violation seen' is not 'respected'."""
    v = judge(bound(le=0.0), {"k=1": E(-1.0, 0.1, 100), "k=2": E(0.01, 0.1, 100)})
    assert v.status == "inconclusive"
    assert judge(bound(le=0.0), {"k=1": E(-1.0, 0.1, 100), "k=2": E(-0.5, 0.1, 100)}).status == "held"


def test_a_violation_needs_bonferroni_over_the_points():
    """One point 3.5 s.e. above the bound among 1,000: not a resolved violation (Bonferroni quantile 4.6)."""
    pts = {f"k={i}": E(-1.0, 0.1, 1000) for i in range(999)}
    pts["k=999"] = E(0.35, 0.1, 1000)
    assert judge(bound(le=0.0), pts).status == "inconclusive"
    pts["k=999"] = E(0.6, 0.1, 1000)
    assert judge(bound(le=0.0), pts).status == "failed"


# ---- identity and equivalence ----------------------------------------------------------------------------------

def test_identity_is_for_exact_numbers():
    assert judge(identity(0.0), Symbolic("0")).status == "held"
    assert judge(identity(0.0), Symbolic("x - 1")).status == "failed"
    with pytest.raises(ValueError, match="equivalent"):
        judge(identity(1.0), E(1.0, 0.1, 10))


def test_a_point_value_is_graded_against_a_margin_fixed_in_advance():
    """A wide interval that covers the printed value does not make it hold (the old '3 s.e.' rule did)."""
    r = equivalent(0.0146)
    assert judge(r, E(0.015, 0.0002, 50)).status == "held"
    v = judge(r, E(0.02, 0.02, 50))
    assert v.status == "inconclusive" and v.decide_by.kind == "replicates"
    assert judge(r, E(0.03, 0.001, 50)).status == "failed"


def test_a_printed_value_below_the_estimators_floor_is_not_measurable():
    v = judge(equivalent(), Compared(E(1.3, 0.2, 4), E(0.005), floor=E(0.46, 0.02, 4)))
    assert v.status == "inconclusive" and v.decide_by.kind == "resolution"


# ---- combinations and the one combiner over settings ------------------------------------------------------------

def test_over_axis_is_the_one_combiner_over_settings():
    h, f, i = Verdict("held"), Verdict("failed"), Verdict("inconclusive")
    assert over_axis({"a": h, "b": h}, "x").status == "held"
    assert over_axis({"a": f, "b": f}, "x").status == "failed"
    v = over_axis({"a": h, "b": f}, "x")
    assert v.status == "depends" and set(v.map) == {"a", "b"}
    assert over_axis({"a": h, "b": i}, "x").status == "inconclusive"
    assert over_axis({"a": f, "b": i}, "x").status == "inconclusive"     # symmetric: a failure needs every value too
    assert over_axis({"a": h, "b": h}, "data draw", min_values=8).status == "inconclusive"
    assert over_axis({"a": f, "b": f}, "data draw", min_values=8).status == "inconclusive"


def test_readings_that_disagree_depend_and_the_map_says_which():
    r = readings({"with replacement": identity(1.0), "without replacement": identity(1.0)})
    v = judge(r, {"with replacement": E(2.0), "without replacement": E(1.0)})
    assert v.status == "depends" and v.map_record()["without replacement"]["status"] == "held"
    with pytest.raises(ValueError, match="declared"):
        judge(r, {"with replacement": E(1.0)})


def test_robust_to_an_axis():
    r = robust_to("data set", ordering("a", "b"))
    m = {"x": {"a": E(1), "b": E(2)}, "y": {"a": E(1), "b": E(2)}}
    assert judge(r, m).status == "held"


def test_all_of_any_of_exactly_one():
    a = all_of({"p": identity(0.0), "q": bound(le=1.0)})
    assert judge(a, {"p": Symbolic("0"), "q": E(2.0)}).status == "failed"
    o = any_of(each=bound(le=0.0))
    assert judge(o, {"u": E(1.0), "v": E(-1.0)}).status == "held"
    assert judge(o, {"u": E(1.0), "v": E(2.0)}).status == "failed"
    x = exactly_one(each=bound(le=1.0))
    assert judge(x, {"u": E(0.5), "v": E(0.5)}).decide_by.kind == "separating test"


def test_a_precondition_caps_holds_and_failures_alike():
    r = given(bound(le=1.5), slope_in(-1.0, 0.2), needs="an earlier window")
    for fit, before in ((Fit(-1.0, -1.1, -0.9, points=5), "held"), (Fit(-0.5, -0.6, -0.4, points=5), "failed")):
        assert judge(r, {"condition": E(1.0), "claim": fit}).status == before
        v = judge(r, {"condition": E(2.0), "claim": fit})
        assert v.status == "inconclusive" and v.capped["status"] == before


# ---- ledger-wide caps -------------------------------------------------------------------------------------------

def test_substitute_data_is_reported_as_such_both_ways():
    """The substitute-data rule keeps the status and marks the basis: a hold and a failure alike."""
    r = ordering("a", "b")
    pima = (DataUsed("pima", "R MASS", builtin=True),)
    for vals, st in (({"a": E(1), "b": E(2)}, "held"), ({"a": E(3), "b": E(2)}, "failed")):
        v = judge(r, OnData(vals, pima, ("a3a",)))
        assert v.status == st and v.basis == "substitute data" and v.label == f"{st} on substitute data"
    v = judge(r, OnData({"a": E(1), "b": E(2)}, (DataUsed("a3a", "/data/a3a", builtin=False),), ("a3a",)))
    assert v.basis == "paper" and v.label == "held"


def test_the_tuning_edge_caps_holds_and_failures_alike():
    r = ordering("a", "b")
    edge = {"a: step size": TunedChoice(0.3, (0.1, 0.3))}
    inside = {"a: step size": TunedChoice(0.2, (0.1, 0.2, 0.3))}
    for vals, st in (({"a": E(1), "b": E(2)}, "held"), ({"a": E(3), "b": E(2)}, "failed")):
        v = judge(r, Tuned(vals, edge))
        assert v.status == "inconclusive" and v.capped == {"by": "tuning edge", "status": st,
                                                            "why": v.capped["why"]}
        assert judge(r, Tuned(vals, inside)).status == st
    assert TunedChoice(0.1, (0.1,)).at_edge is None   # a grid of one value is no tuning


def test_not_at_this_scale_and_unmeasured():
    v = judge(equivalent(1.0), NotAtScale("windows end at 4,000", "run --scale paper"))
    assert v.status == "not run (scale)" and v.decide_by.kind == "scale"
    v = judge(slope_in(2.0, 0.3), Unmeasured("no growth resolved", "a longer window"))
    assert v.status == "inconclusive" and v.decide_by.text == "a longer window"


def test_family_level_is_the_three_standard_error_tail():
    from scipy import stats

    assert math.isclose(FAMILY_LEVEL, 2 * stats.norm.sf(3.0), rel_tol=0.01)


def test_ordering_of_replicates_without_spread_is_not_decided_by_sign():
    """Two chains each that all land on the same number (e.g. chance accuracy) cannot resolve an order either way;
    exact numbers can (a tie of exact numbers contradicts a strict order)."""
    from sgmcmc_verify.ledger.measures import Estimate
    from sgmcmc_verify.ledger.rules import judge, ordering

    rule = ordering("a", "b", descending=True)
    tie = judge(rule, {"a": Estimate(0.1, 0.0, n=2), "b": Estimate(0.1, 0.0, n=2)})
    apart = judge(rule, {"a": Estimate(0.2, 0.0, n=2), "b": Estimate(0.1, 0.0, n=2)})
    assert tie.status == "inconclusive" and apart.status == "inconclusive"
    assert judge(rule, {"a": Estimate(0.1), "b": Estimate(0.1)}).status == "failed"
    assert judge(rule, {"a": Estimate(0.2), "b": Estimate(0.1)}).status == "held"
