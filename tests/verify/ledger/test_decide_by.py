"""Every ``inconclusive`` says what would decide it (issue #24, item 2), for every claim of the ledger.

Two halves:

* **the rules** — every declared claim's rule is fed constructed measurements that it decides ``inconclusive`` (its
  own example, every assignment of its parts' outcomes that combines to ``inconclusive``, the precondition of a
  ``given`` unmet, and the measurement on a stand-in data set or tuned at a grid edge); each verdict must carry a
  *specific* decide-note (:func:`specific_problem`);
* **the extractors** — an extractor that finds no estimate returns :class:`~sgmcmc_verify.ledger.measures.Unmeasured`,
  whose ``kind`` / ``needs`` / ``factor`` become the decide-note. Every such call in ``paper_repro`` names its kind
  (no silent default), and a ``"replicates"`` / ``"steps"`` one passes ``factor=`` (estimated from the run, or None
  with ``needs`` saying why the run gives no basis for one).
"""
from __future__ import annotations

import ast
import dataclasses
import itertools
import math
from pathlib import Path

import pytest

from sgmcmc_verify import paper_repro
from sgmcmc_verify.ledger.claims import all_claims
from sgmcmc_verify.ledger.measures import DataUsed, OnData, Tuned, TunedChoice, Unmeasured
from sgmcmc_verify.ledger.rules import Bound, Given, _Combination, bound, judge, ordering, slope_in
from sgmcmc_verify.ledger.verdict import DECIDE_KINDS, DecideBy, Verdict

PAPERS_DIR = Path(paper_repro.__file__).parent
#: words that make an "unrefutable" note say why (a bound, an asymptotic statement, a statement no run refutes)
UNREFUTABLE_WORDS = ("bound", "asymptot", "refute", "finite", "limit")
#: how many part-outcome assignments of a combination are tried (the reachability test's own cap is 4096)
ASSIGNMENTS = 256


def specific_problem(d: DecideBy | None) -> str | None:
    """Why ``d`` is not a specific decide-note, or None.

    Specific: a kind other than ``unstated``; a sentence (>= 15 characters); for ``replicates`` / ``steps`` a factor
    estimated from the run's own standard errors (``inf`` when out of practical reach), unless the note asks for a
    second independent run (one run has no standard error) or says why the run gives no basis for an estimate; for
    ``data`` the data set; for ``unrefutable`` why no finite run refutes the statement.
    """
    if d is None:
        return "no decide-note"
    if d.kind not in DECIDE_KINDS or d.kind == "unstated":
        return f"kind {d.kind!r}"
    if len(d.text.strip()) < 15:
        return f"text {d.text!r}"
    t = d.text.lower()
    if d.kind in ("replicates", "steps") and d.factor is None and "at least 2" not in t and "no basis" not in t \
            and "no standard error" not in t:
        return f"{d.kind} without a factor estimated from the run: {d.text!r}"
    if d.kind == "data" and "data" not in t and "--data" not in t:
        return f"data note that names no data set: {d.text!r}"
    if d.kind == "unrefutable" and not any(w in t for w in UNREFUTABLE_WORDS):
        return f"unrefutable note that does not say why: {d.text!r}"
    return None


def inconclusive_measurements(rule):
    """Constructed measurements that ``rule`` decides ``inconclusive`` (and some that it may decide otherwise: the
    caller keeps the inconclusive ones)."""
    outs = rule.outcomes()
    if "inconclusive" in outs:
        yield rule.example("inconclusive")
    if isinstance(rule, _Combination):
        keys = rule._keys(rule._n_examples())
        for a in itertools.islice(itertools.product(*(rule._rule(k).outcomes() for k in keys)), ASSIGNMENTS):
            if rule._combine({k: Verdict(s) for k, s in zip(keys, a)}).status == "inconclusive":
                yield {k: rule._rule(k).example(s) for k, s in zip(keys, a)}
    if isinstance(rule, Given) and "failed" in rule.condition.outcomes():
        for s in rule.rule.outcomes():
            yield {"condition": rule.condition.example("failed"), "claim": rule.rule.example(s)}
    for s in ("held", "failed", "inconclusive"):   # the ledger-wide wrappers, on the whole measurement
        if s in outs:
            m = rule.example(s)
            yield OnData(m, (DataUsed("pima", "builtin", True),), ("covtype",))
            yield Tuned(m, {"method": TunedChoice(1e-3, (1e-3, 1e-2), "step size")})


def undecided_verdicts(rule):
    for m in inconclusive_measurements(rule):
        v = judge(rule, m)
        if v.status == "inconclusive":
            yield v


DECLARED = [c for c in all_claims() if c.declared]


@pytest.mark.parametrize("claim", DECLARED, ids=[c.id for c in DECLARED])
def test_every_inconclusive_says_what_would_decide_it(claim):
    problems = {p for v in undecided_verdicts(claim.rule) if (p := specific_problem(v.decide_by))}
    assert problems == set()


def test_every_claim_that_can_be_inconclusive_is_shown_inconclusive():
    """The test above is not vacuous: every rule that declares ``inconclusive`` produces one here."""
    missing = [c.id for c in DECLARED if "inconclusive" in c.rule.outcomes()
               and next(undecided_verdicts(c.rule), None) is None]
    assert missing == []


def test_a_substitute_data_note_names_the_papers_data():
    r = ordering("A", "B")
    v = judge(r, OnData(r.example("inconclusive"), (DataUsed("pima", "builtin", True),), ("covtype",)))
    assert v.status == "inconclusive" and "covtype" in v.decide_by.text


# ---- negative controls: planted rules whose inconclusive says nothing ------------------------------------

@dataclasses.dataclass(frozen=True)
class _Mute(Bound):
    """A planted bug: a bound whose undecided verdicts carry no decide-note."""

    def decide(self, m):
        v = super().decide(m)
        return dataclasses.replace(v, decide_by=None) if v.status == "inconclusive" else v


@dataclasses.dataclass(frozen=True)
class _Vague(Bound):
    """A planted bug: "more replicates", with no count estimated from the run."""

    def decide(self, m):
        v = super().decide(m)
        return dataclasses.replace(v, decide_by=DecideBy("replicates", "more replicates would decide it")) \
            if v.status == "inconclusive" else v


@pytest.mark.negative_control(pair="ledger.decide_by")
@pytest.mark.parametrize("planted", [_Mute(le=1.0), _Vague(le=1.0)])
def test_the_decide_note_check_catches_a_mute_or_vague_rule(planted):
    assert any(specific_problem(v.decide_by) for v in undecided_verdicts(planted))


@pytest.mark.statistical(pair="ledger.decide_by")
def test_the_decide_note_check_passes_the_vocabulary():
    for r in (bound(le=1.0), ordering("a", "b"), slope_in(1.0, 0.1), slope_in(2.0, 0.15, bound=True)):
        assert [specific_problem(v.decide_by) for v in undecided_verdicts(r)] and \
            not any(specific_problem(v.decide_by) for v in undecided_verdicts(r))


def test_a_slope_the_bootstrap_could_not_bound_still_gets_a_count():
    from sgmcmc_verify.ledger.measures import Fit

    v = judge(slope_in(1.0, 0.15), Fit(1.05, 0.9, 3.0, points=5, replicates=200, unbounded="high"))
    assert v.status == "inconclusive" and v.decide_by.factor is not None and math.isfinite(v.decide_by.factor)
    assert "could not bound the high end" in v.decide_by.text and "200 ->" in v.decide_by.text


# ---- extractors ---------------------------------------------------------------------------------------------

def unmeasured_calls_without_a_note() -> list[str]:
    """``Unmeasured(...)`` calls in ``paper_repro`` that leave ``kind`` to its default, name an unknown kind, or (for
    ``replicates`` / ``steps``) pass no ``factor=``."""
    found = []
    for path in sorted(PAPERS_DIR.glob("*/*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None))
                    == "Unmeasured"):
                continue
            where = f"{path.relative_to(PAPERS_DIR)}:{node.lineno}"
            kw = {k.arg: k.value for k in node.keywords}
            kind = node.args[2] if len(node.args) > 2 else kw.get("kind")
            if kind is None:
                found.append(f"{where}: no kind (the default 'steps' is silent)")
                continue
            if isinstance(kind, ast.Constant):
                if kind.value not in DECIDE_KINDS or kind.value == "unstated":
                    found.append(f"{where}: kind {kind.value!r}")
                elif kind.value in ("replicates", "steps") and "factor" not in kw and len(node.args) < 4:
                    found.append(f"{where}: {kind.value} without factor=")
    return found


def test_every_unmeasured_names_its_kind_and_a_count_where_it_asks_for_more_runs():
    assert unmeasured_calls_without_a_note() == []


@pytest.mark.parametrize("m, ok", [(Unmeasured("no fit", "more chains", "replicates"), False),
                                   (Unmeasured("no fit", "more chains; this run gives no basis to estimate how many",
                                               "replicates", factor=None), True),
                                   (Unmeasured("no fit", "about 4x the chains", "replicates", factor=4.0), True),
                                   (Unmeasured("not shipped", "the paper's data: --data cifar10=DIR", "data"), True)])
def test_an_unmeasured_becomes_the_decide_note(m, ok):
    v = judge(bound(le=1.0), m)
    assert v.status == "inconclusive" and (specific_problem(v.decide_by) is None) == ok
