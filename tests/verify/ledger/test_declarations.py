"""Every claim is a declaration the ledger decides (issue #24): no hand-written combiner in a paper's claims modules,
every rule shown to reach ``held`` and ``failed`` (and ``depends`` / ``inconclusive`` where it declares them) on
constructed measurements, no paper importing another paper's private names, every claim's figure a file the figure
code draws, every expected text filled from the settings of the run.
"""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from sgmcmc_verify import paper_repro
from sgmcmc_verify.ledger.claims import OLD_STYLE_PAPERS, all_claims
from sgmcmc_verify.ledger.rules import Bound, bound, judge, ordering, slope_in
from sgmcmc_verify.ledger.verdict import STATUSES
from sgmcmc_verify.store.registry import paper_ids

PAPERS_DIR = Path(paper_repro.__file__).parent
#: old-style verdict helpers of sgmcmc_verify.ledger.claims (a declared claim never calls them)
OLD_HELPERS = {"ordering_verdict", "slope_verdict", "interval_verdict", "upper_bound_slope_verdict",
               "masked_slope_verdict"}


def claims_modules(paper: str) -> list[Path]:
    """``paper_repro/<paper>/claims*.py`` and ``paper_repro/<paper>/claims/*.py``."""
    d = PAPERS_DIR / paper
    return sorted(list(d.glob("claims*.py")) + list((d / "claims").glob("*.py")))


def _docstrings(tree) -> set:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def hand_written_combiners(source: str) -> list[str]:
    """Where a claims module decides instead of declaring.

    A claims module hand-writes a combiner (or any decision) when it

    * constructs a ``Verdict`` or imports the name;
    * calls an old-style verdict helper (``ordering_verdict``, ``slope_verdict``, ``interval_verdict``, ...);
    * reads a verdict's ``.status``;
    * holds a status word (``"held"``, ``"failed"``, ``"depends"``, ``"inconclusive"``, ``"not run"``,
      ``"not run (scale)"``) as a string literal outside a docstring.

    Extractors may only read results and build measurements; the rules of ``sgmcmc_verify.ledger.rules`` decide.
    Returns one ``"line N: what"`` per finding.
    """
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", "?")
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else None)
            if name == "Verdict":
                found.append(f"line {line}: constructs a Verdict")
            elif name in OLD_HELPERS:
                found.append(f"line {line}: calls the old-style helper {name}")
        elif isinstance(node, ast.ImportFrom) and any(a.name == "Verdict" for a in node.names):
            found.append(f"line {line}: imports Verdict")
        elif isinstance(node, ast.Attribute) and node.attr == "status":
            found.append(f"line {line}: reads a verdict's .status")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs \
                and node.value.strip() in STATUSES:
            found.append(f"line {line}: status literal {node.value!r}")
    return found


DECLARED_PAPERS = [p for p in paper_ids() if p not in OLD_STYLE_PAPERS]


@pytest.mark.parametrize("paper", DECLARED_PAPERS)
def test_no_claims_module_hand_writes_a_combiner(paper):
    mods = claims_modules(paper)
    assert mods, f"{paper} has no claims module"
    found = {m.name: hand_written_combiners(m.read_text()) for m in mods}
    assert not any(found.values()), found


@pytest.mark.parametrize("paper", DECLARED_PAPERS)
def test_every_claim_of_a_converted_paper_is_declared(paper):
    old = [c.id for c in all_claims() if c.paper == paper and not c.declared and c.not_run is None]
    assert old == [], f"{paper}: old-style evaluators {old}"
    mod = importlib.import_module(f"sgmcmc_verify.paper_repro.{paper}.claims")
    assert not hasattr(mod, "BASELINE_METRICS"), f"{paper}: regression metrics belong on the claims (regression=)"


def test_the_allow_list_of_old_style_papers_only_shrinks():
    """Every paper on the allow-list still has an old-style claim: a converted paper must leave the list."""
    for paper in OLD_STYLE_PAPERS:
        assert paper in paper_ids(), f"{paper} on the allow-list is not a paper"
        assert any(c.paper == paper and not c.declared and c.not_run is None for c in all_claims()), (
            f"{paper} is converted: remove it from sgmcmc_verify.ledger.claims.OLD_STYLE_PAPERS")


@pytest.mark.negative_control(pair="ledger.no_combiner")
@pytest.mark.parametrize("src, what", [
    ("from sgmcmc_verify.ledger.claims import Verdict\n", "imports Verdict"),
    ("def f(root):\n    return V.Verdict('held', {})\n", "constructs a Verdict"),
    ("def f(root):\n    v = ordering_verdict({}, {}, [])\n    return v\n", "ordering_verdict"),
    ("def f(a, b):\n    return 'failed' if a.status != b.status else 'x'\n", "status"),
    ("X = {'inconclusive': 1}\n", "status literal"),
])
def test_the_combiner_check_catches_planted_decisions(src, what):
    found = hand_written_combiners(src)
    assert found and any(what in f for f in found), found


@pytest.mark.statistical(pair="ledger.no_combiner")
def test_the_combiner_check_passes_a_declaration():
    src = ('"""A claims module; the word held in a docstring is fine."""\n'
           "def measure(root):\n    '''Extracts: \"failed\" in a docstring is fine.'''\n    return {'a': 1}\n"
           "C = declare('p.x', 'p', 's', 'st', experiments=('p.e',), measure=measure, rule=ordering('a', 'b'))\n")
    assert hand_written_combiners(src) == []


# ---- reachability ------------------------------------------------------------------------------------------

def unreachable(rule, one_sided: str | None = None) -> list[str]:
    """The statuses a rule should reach and does not, on its own constructed measurements: ``held`` and ``failed``
    (one of them when ``one_sided``), and every status it declares in ``outcomes()``."""
    outs = rule.outcomes()
    if one_sided:
        missing = [] if {"held", "failed"} & set(outs) else [f"neither held nor failed among {outs}"]
    else:
        missing = [f"{s}: not among its outcomes {outs}" for s in ("held", "failed") if s not in outs]
    for s in outs:
        got = judge(rule, rule.example(s)).status
        if got != s:
            missing.append(f"{s}: its example decides {got}")
    return missing


DECLARED = [c for c in all_claims() if c.declared]


@pytest.mark.parametrize("claim", DECLARED, ids=[c.id for c in DECLARED])
def test_every_declared_claim_can_hold_and_fail(claim):
    assert unreachable(claim.rule, claim.one_sided) == []
    if not claim.one_sided:
        assert {"held", "failed"} <= set(claim.rule.outcomes())


def test_reachability_covers_every_claim():
    """100 % of claims: declared (shown above), not run (no rule to show), or of a paper on the allow-list."""
    rest = [c.id for c in all_claims() if not c.declared and c.not_run is None and c.paper not in OLD_STYLE_PAPERS]
    assert rest == []


class _NeverFails(Bound):
    """A planted bug: a bound that reports every violation as inconclusive (the kind of rule #24 removes)."""

    def decide(self, m):
        import dataclasses
        v = super().decide(m)
        return dataclasses.replace(v, status="inconclusive") if v.status == "failed" else v


@pytest.mark.negative_control(pair="ledger.reachability")
def test_reachability_catches_a_rule_that_cannot_fail():
    r = _NeverFails(le=1.0)
    assert any(m.startswith("failed") for m in unreachable(r))


@pytest.mark.statistical(pair="ledger.reachability")
def test_reachability_passes_the_vocabulary():
    for r in (bound(le=1.0), ordering("a", "b"), slope_in(1.0, 0.1)):
        assert unreachable(r) == []


def test_a_rule_that_cannot_fail_must_be_declared_one_sided():
    from sgmcmc_verify.ledger.claims import declare

    masked = slope_in(1.0, 0.1, masked="the C1/T term flattens it")
    with pytest.raises(ValueError, match="one_sided"):
        declare("p.x", "p", "s", "st", experiments=("p.e",), measure=lambda root: None, rule=masked)
    c = declare("p.x", "p", "s", "st", experiments=("p.e",), measure=lambda root: None, rule=masked,
                one_sided="a slope outside the band is masked by the C1/T term")
    assert unreachable(c.rule, c.one_sided) == []


# ---- imports between papers ----------------------------------------------------------------------------------

def private_imports_across_papers() -> list[str]:
    """``paper_repro/<a>/*.py`` importing a ``_private`` name from another paper ``<b>``."""
    found = []
    for path in sorted(PAPERS_DIR.glob("*/*.py")):
        own = path.parent.name
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            mod = node.module or ""
            if node.level:   # relative: from ..other.x import _y
                other = mod.split(".")[0] if node.level == 2 and mod else own
            elif mod.startswith("sgmcmc_verify.paper_repro."):
                other = mod.split(".")[2]
            else:
                continue
            if other != own:
                found += [f"{path.relative_to(PAPERS_DIR)}: {a.name} from {mod}" for a in node.names
                          if a.name.startswith("_")]
    return found


def test_no_paper_imports_another_papers_private_names():
    assert private_imports_across_papers() == []


# ---- figures and expected texts ------------------------------------------------------------------------------

#: claims whose figure is drawn only outside the smoke run, and why (each must still not be drawn at smoke, and its
#: figure module must name the file)
FIGURES_OUTSIDE_SMOKE = {
    "ewsg_iclr.fig1h.best_M_19_at_n100": ("fig1h", "the n = 100 study runs from the default scale on"),
    "vrsg.fig2.cifar10.faster_than_sgld": ("fig2_", "drawn when CIFAR-10 is given (--data cifar10=DIR)"),
    "vrsg.fig3.cnn4_cifar10.faster_than_sgld": ("fig3_cnn4_", "drawn when CIFAR-10 is given (--data cifar10=DIR)"),
    "vrsg.fig8.cifar10.training": ("_fig2_and_8", "drawn (fig8_cifar10) when CIFAR-10 is given (--data cifar10=DIR)"),
}


def test_every_claims_figure_is_a_file_the_figure_code_draws(smoke_figures):
    drawn = {p.relative_to(smoke_figures).as_posix() for p in smoke_figures.rglob("*") if p.is_file()}
    missing, stale = [], []
    for c in all_claims():
        if not c.figure:
            continue
        if c.id in FIGURES_OUTSIDE_SMOKE:
            stem, _ = FIGURES_OUTSIDE_SMOKE[c.id]
            src = (PAPERS_DIR.parent / "figures" / f"{c.figure.split('/')[0]}.py")
            src = src if src.is_file() else Path(importlib.import_module(
                f"sgmcmc_verify.figures.{c.figure.split('/')[0]}").__file__)
            if c.figure in drawn:
                stale.append(c.id)
            elif stem not in src.read_text():
                missing.append(f"{c.id}: {c.figure} (not named in {src.name})")
        elif c.figure not in drawn:
            missing.append(f"{c.id}: {c.figure}")
    assert missing == [] and stale == [], (missing, stale)


def test_every_declared_expected_text_fills_from_the_smoke_settings(smoke_results):
    from sgmcmc_verify.ledger.extract import manifest

    for c in DECLARED:
        settings = {e: manifest(smoke_results, e)["settings"] for e in c.experiments}
        text = c.expected_for(settings)
        assert "{" not in text and "}" not in text, (c.id, text)
