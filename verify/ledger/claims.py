"""The claims ledger: every paper claim a declared entry with a status and the evidence.

A claim is a *declaration* (:func:`declare`): what is measured (an extractor reading an experiment's stored
results, never measuring anything itself), the expected relation in words, the decision rule from the vocabulary
of :mod:`sgmcmc_verify.ledger.rules` (readings and robustness axes included), and the smoke-scale regression
metrics. The ledger decides (:func:`sgmcmc_verify.ledger.rules.judge`), applies the ledger-wide caps, and returns a
:class:`~sgmcmc_verify.ledger.verdict.Verdict` (statuses ``held``, ``failed``, ``depends``, ``inconclusive``,
``not run (scale)``, ``not run``; see :mod:`sgmcmc_verify.ledger.verdict`).

Papers register their claims in ``paper_repro/<paper>/claims.py`` with :func:`register`; :func:`load_all` imports
every such module. ``docs/ledger_rules.md`` says how to declare a claim and how to convert an old evaluator.

Every paper declares its claims (issue #24); the old-style verdict helpers (a hand-written status per claim) are
gone. :data:`OLD_STYLE_PAPERS` is empty and may only stay so: ``tests/verify/ledger/test_declarations.py`` keeps every
paper declared (a :class:`Claim` built directly, with a hand-written ``evaluate(root) -> Verdict``, fails it).
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping


from .rules import MIN_FIT_POINTS, Rule, judge
from .verdict import STATUSES, DecideBy, Verdict

__all__ = ["Claim", "Verdict", "DecideBy", "STATUSES", "ABOUT", "OLD_STYLE_PAPERS", "register", "load_all", "get",
           "all_claims", "declare", "not_run_claim", "evaluate_declared", "format_ci", "MIN_FIT_POINTS"]

#: what a claim is about: a paper's statement, or the toolkit itself (its references, its measurability); the
#: report counts the two apart
ABOUT = ("paper", "toolkit")
#: Papers whose claims module may still hold old-style evaluators (hand-written verdicts). The lead empties this
#: list as the papers are converted; a paper not listed must declare every claim (a test checks it).
OLD_STYLE_PAPERS: tuple = ()


@dataclass(frozen=True)
class Claim:
    """One paper claim.

    Parameters
    ----------
    id : str
        Dotted id, ``<paper>.<where>.<what>``, e.g. ``"ewsg.thm4.3.term1"``.
    paper : str
        Short paper id (``ewsg``, ``hsg_hmc``, ``vrsg``, ``ls_sgld``, ``ewsg_iclr``).
    source : str
        Seed file and the theorem / equation / figure / table.
    statement : str
        The claim in one sentence, as the paper makes it.
    experiments : tuple of str
        Ids of the experiments whose stored results the claim reads (empty only for a claim that is
        not run).
    expected : str
        The expected relation in words. For a declared claim, ``{name}`` fields are filled from the settings of the run
        that was read (:meth:`expected_for`), so the report quotes the scale it ran (write a literal brace as ``{{``).
    tolerance : str
        The tolerance and the reason for it (for a declared claim: the rule's thresholds and their reasons).
    evaluate : callable ``(results_dir: pathlib.Path) -> Verdict``
        Reads stored results only (for a declared claim: the extractor followed by the ledger's rule).
    figure : str or None
        Path (under ``figures/out/``) of the figure that shows the evidence; a file the figure code draws.
    not_run : str or None
        Why the claim is not measured (then its status is always ``not run``).
    rule : Rule or None
        The decision rule of a declared claim (None: an old-style evaluator).
    measure : callable or None
        The extractor of a declared claim: ``(results_dir) -> measurement`` (:mod:`sgmcmc_verify.ledger.measures`).
    about : str
        ``"paper"`` or ``"toolkit"`` (:data:`ABOUT`).
    design : str or None
        The part of the setting the paper leaves unspecified and the toolkit designed (the verdict is then "on our
        design").
    one_sided : str or None
        Why the rule cannot reach ``held`` or ``failed`` (listed on the report; ideally never needed).
    regression : callable or None
        ``(results_dir) -> {name: (value, se)}``: the smoke-scale numbers ``sgmcmc-verify baseline`` keeps.
    note : callable or None
        ``(results_dir) -> str``: context for the reader (evidence only; never part of the decision).
    declared_at : tuple or None
        ``(file, first line, last line)`` of the declaration (for the pre-registration record).

    Raises
    ------
    ValueError
        A claim that is measured but names no experiment; an unknown ``about``.
    """

    id: str
    paper: str
    source: str
    statement: str
    experiments: tuple
    expected: str
    tolerance: str
    evaluate: Callable[[Any], Verdict] = field(repr=False, compare=False)
    figure: str | None = None
    not_run: str | None = None
    rule: Rule | None = field(default=None, compare=False)
    measure: Callable | None = field(default=None, repr=False, compare=False)
    about: str = "paper"
    design: str | None = None
    one_sided: str | None = None
    regression: Callable | None = field(default=None, repr=False, compare=False)
    note: Callable | None = field(default=None, repr=False, compare=False)
    declared_at: tuple | None = field(default=None, compare=False)

    def __post_init__(self):
        if self.not_run is None and not self.experiments:
            raise ValueError(f"claim {self.id!r} names no experiment; give one, or say why it is not run")
        if self.about not in ABOUT:
            raise ValueError(f"claim {self.id!r}: about must be one of {ABOUT}, got {self.about!r}")

    @property
    def declared(self) -> bool:
        """A declaration (a rule and an extractor) rather than an old-style evaluator."""
        return self.rule is not None

    def expected_for(self, settings: Mapping[str, Mapping] | None = None) -> str:
        """``expected`` with ``{name}`` fields filled from ``settings`` (``{experiment: settings dict}``; the first
        experiment that has the name wins).

        Raises
        ------
        KeyError
            A field no experiment's settings define (naming the claim and the field).
        """
        if "{" not in self.expected or not self.declared:   # old-style texts use braces literally
            return self.expected
        flat: dict = {}
        for s in (settings or {}).values():
            for k, v in (s or {}).items():
                flat.setdefault(k, _setting_text(v))
        try:
            return self.expected.format_map(flat)
        except KeyError as e:
            raise KeyError(f"claim {self.id}: expected text names the setting {e.args[0]!r}, which the settings of "
                           f"{', '.join(self.experiments)} do not define") from None


def _setting_text(v) -> str:
    """A setting value as the expected text shows it (no Python reprs)."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        from .measures import fmt_num
        return fmt_num(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, (list, tuple)):
        return ", ".join(_setting_text(x) for x in v)
    return str(v)


def evaluate_declared(rule: Rule, measure: Callable, design: str | None, note: Callable | None, root) -> Verdict:
    """The ledger's evaluation of a declared claim: extract, decide by ``rule`` (:func:`judge`), mark the design basis,
    add the note. The same function for every declared claim of every paper."""
    import dataclasses

    m = measure(root)
    v = judge(rule, m)
    if design and v.basis == "paper" and v.status not in ("not run", "not run (scale)"):
        v = dataclasses.replace(v, basis="our design", measured={**v.measured, "design": design})
    if note is not None:
        n = note(root)
        if n:
            v = dataclasses.replace(v, measured={**v.measured, "note": n})
    return v


def _caller_span() -> tuple | None:
    """``(file, first line, last line)`` of the outermost call, in the file that called :func:`declare`, that is
    being executed (the declaration expression, even when built through a module's helper)."""
    try:
        f = sys._getframe(2)
    except ValueError:
        return None
    file = f.f_code.co_filename
    best = None
    while f is not None and f.f_code.co_filename == file:
        pos = None
        try:
            pos = list(f.f_code.co_positions())[f.f_lasti // 2]
        except (IndexError, AttributeError):
            pass
        if pos and pos[0] is not None:
            best = (file, pos[0], pos[1] or pos[0])
        f = f.f_back
    return best


def declare(id: str, paper: str, source: str, statement: str, *, experiments, measure: Callable, rule: Rule,
            expected: str | None = None, why: str = "", figure: str | None = None, about: str = "paper",
            design: str | None = None, one_sided: str | None = None, regression: Callable | None = None,
            note: Callable | None = None) -> Claim:
    """Declare a claim: what is measured, the rule that decides it, the regression numbers.

    Parameters
    ----------
    id, paper, source, statement
        As for :class:`Claim`.
    experiments : sequence of str
        The experiments whose stored results ``measure`` reads.
    measure : callable ``(results_dir) -> measurement``
        An extractor: reads stored results and returns :mod:`sgmcmc_verify.ledger.measures` objects (or mappings of
        them) shaped for ``rule``. It never decides (no status, no threshold).
    rule : Rule
        From :mod:`sgmcmc_verify.ledger.rules`.
    expected : str, optional
        The expected relation in words (``{setting}`` fields filled from the run's settings); default: the rule's
        own text.
    why : str
        Extra reason for the thresholds, added to the rule's own (the claim's tolerance text).
    figure, about, design, one_sided, regression, note
        As for :class:`Claim`.

    Raises
    ------
    ValueError
        ``rule`` is not a :class:`~sgmcmc_verify.ledger.rules.Rule`; a rule that cannot reach ``held`` and
        ``failed`` without ``one_sided`` (or with it when it can).
    """
    if not isinstance(rule, Rule):
        raise ValueError(f"claim {id!r}: rule must be a sgmcmc_verify.ledger.rules.Rule, got {type(rule).__name__}")
    outs = rule.outcomes()
    if ("held" not in outs or "failed" not in outs) and not one_sided:
        raise ValueError(f"claim {id!r}: its rule reaches only {outs}; declare one_sided='<why>' or choose a rule "
                         "that can hold and fail")
    if one_sided and "held" in outs and "failed" in outs:
        raise ValueError(f"claim {id!r} is declared one-sided but its rule can hold and fail")
    tol = "; ".join(x for x in (rule.why(), why) if x)
    return Claim(id, paper, source, statement, tuple(experiments), expected or rule.expected(), tol or "none",
                 functools.partial(evaluate_declared, rule, measure, design, note), figure, None, rule, measure, about,
                 design, one_sided, regression, note, _caller_span())


def not_run_claim(id: str, paper: str, source: str, statement: str, expected: str, reason: str,
                  figure: str | None = None) -> Claim:
    """A ledger entry for a claim this toolkit does not measure, with the reason.

    Examples
    --------
    >>> c = not_run_claim("vrsg.fig3.resnet", "vrsg", "Fig. 3", "vrSG-MCMC trains ResNet-20 faster.",
    ...                   "test error vs passes", "a ResNet-20 in float64 NumPy on 2 cores is out of reach")
    >>> c.evaluate(None).status
    'not run'
    """
    return Claim(id, paper, source, statement, (), expected, "none: not measured",
                 functools.partial(_not_run_verdict, reason), figure, reason, declared_at=_caller_span())


def _not_run_verdict(reason, root) -> Verdict:
    return Verdict("not run", {"reason": reason}, reason, measured_text=f"nothing ({reason})",
                   expected_text="a run of the claim's experiment")


_REGISTRY: dict[str, Claim] = {}


def register(*claims: Claim) -> None:
    """Add claims to the ledger; re-registering an id replaces it (module reloads)."""
    for c in claims:
        if not c.id.startswith(c.paper + "."):
            raise ValueError(f"claim id {c.id!r} must start with its paper id {c.paper!r}")
        _REGISTRY[c.id] = c


def load_all() -> dict[str, Claim]:
    """Import ``paper_repro.<paper>.claims`` for every paper package and return the ledger."""
    from ..store.registry import import_paper_modules

    import_paper_modules("claims")
    return dict(_REGISTRY)


def all_claims() -> list[Claim]:
    return [load_all()[k] for k in sorted(load_all())]


def get(claim_id: str) -> Claim:
    """The claim with this id; ``KeyError`` with the known ids otherwise."""
    reg = load_all()
    if claim_id not in reg:
        raise KeyError(f"unknown claim id {claim_id!r}; known: {', '.join(sorted(reg))}")
    return reg[claim_id]


# ---- display helpers ----------------------------------------------------------------------------------

def format_ci(fit: Mapping[str, Any]) -> str:
    """``[low, high]``, with an end shown as unbounded when the bootstrap could not bound it
    (``ci_unbounded``: too many replicates with a non-positive mean; see :class:`sgmcmc_verify.measure.rates.SlopeFit`)."""
    lo, hi = f"{fit['ci_low']:.3f}", f"{fit['ci_high']:.3f}"
    if fit.get("ci_unbounded"):
        if fit["ci_high"] - fit["slope"] > fit["slope"] - fit["ci_low"]:
            hi = "unbounded"
        else:
            lo = "unbounded"
    return f"[{lo}, {hi}]"


