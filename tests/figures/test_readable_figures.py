"""The figure check (#27 item 4): every figure drawn from the smoke results is readable, and each rule of the check
catches a deliberately bad figure (the negative controls) while the same figure without the defect passes."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from sgmcmc_verify.figures import _common  # noqa: E402
from sgmcmc_verify.figures.readable import RULES, figure_problems, states_unit  # noqa: E402


def test_every_smoke_figure_passes_the_figure_check(smoke_figure_problems, smoke_figures):
    """Every figure the figure code draws from the smoke results, and the audit's figures of four stored smoke
    audits, went through the check (the hook saw each PNG written) and none has a problem: no overlapping text,
    labelled axes with units, two tick labels, legends, colour bars, and each claim's figure names its claims with
    their verdicts and the scale."""
    drawn = {p.relative_to(smoke_figures).as_posix() for p in smoke_figures.rglob("*.png")}
    assert set(smoke_figure_problems) == drawn and len(drawn) >= 50
    audit = {k for k in drawn if k.startswith("audit/")}   # the audit's pages, four samplers, six figures each
    assert {k.split("/")[1] for k in audit} == {"SGLD", "SGHMC", "LS-pSGLD", "EWSG-LD"} and len(audit) >= 20, audit
    bad = {k: v for k, v in sorted(smoke_figure_problems.items()) if v}
    assert bad == {}, "\n".join(f"{k}: {p}" for k, v in bad.items() for p in v)


def test_claims_figures_carry_their_claims_verdicts_and_scale(tmp_path):
    """A claim's figure names each of its claims with the ledger's verdict, under a line saying the scale."""
    from sgmcmc_verify.ledger.claims import all_claims
    from sgmcmc_verify.store.cache import run_experiment
    from sgmcmc_verify.store.registry import figure_modules

    seen = {}

    def record(fig, rel, claims):
        seen[rel] = (claims, "\n".join(t.get_text() for t in fig.texts))

    run_experiment("ls_sgld.table1", "smoke", results_root=tmp_path / "r")
    _common.FIGURE_HOOKS.append(record)
    try:
        figure_modules()["ls_sgld"].draw_all(tmp_path / "r" / "ls_sgld", tmp_path / "out" / "ls_sgld")
    finally:
        _common.FIGURE_HOOKS.remove(record)
    claims, text = seen["ls_sgld/table1.png"]
    assert claims and sorted(claims) == sorted(c.id for c in all_claims() if c.figure == "ls_sgld/table1.png")
    assert text.splitlines()[0].startswith("smoke scale")
    for cid in claims:
        line = next(ln for ln in text.splitlines() if ln.startswith(cid + ":"))
        assert any(w in line for w in ("held", "failed", "depends", "inconclusive", "not run")), line


# ---- negative controls: one planted defect per rule ------------------------------------------------------------

def _figure(defect=None):
    """A small two-panel figure that passes every rule; ``defect`` plants one problem."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(8, 3.2))
    x = np.linspace(1, 10, 20)
    a.plot(x, x, label="linear")
    if defect != "legend":
        a.plot(x, x ** 1.5, label="power 1.5")
        a.legend(fontsize=7)
    else:
        a.plot(x, x ** 1.5)   # a second series and no legend
    a.set_xlabel("time t (s)")
    if defect == "units":
        a.set_ylabel("distance d")   # a label, no unit
    elif defect != "label":
        a.set_ylabel("distance (m)")
    a.set_title("two series")
    img = b.imshow(np.outer(np.arange(5), np.arange(5)), origin="lower")
    b.set_xlabel("column index j")
    b.set_ylabel("row index i")
    if defect != "colorbar":
        fig.colorbar(img, ax=b, label="i · j (dimensionless)")
    if defect == "ticks":
        a.set_yscale("log")
        a.set_ylim(2.0, 8.0)   # inside one decade: the major locator puts no labelled tick there
        a.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    if defect == "one_tick":
        a.set_xscale("log")
        a.set_xlim(0.5, 3.0)   # one major tick (1) inside
        a.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    if defect == "overlap":
        b.set_title("a title long enough to run into the left panel's title", loc="right", fontsize=12)
        b.set_title("and another one on top of it", loc="left", fontsize=12)
    fig.tight_layout()
    return fig


@pytest.mark.parametrize("defect,rule", [("overlap", "overlap"), ("label", "label"), ("units", "units"),
                                         ("ticks", "ticks"),
                                         ("one_tick", "ticks"), ("legend", "legend"), ("colorbar", "colorbar")])
def test_each_rule_catches_its_planted_defect(defect, rule):
    good = _figure()
    try:
        assert figure_problems(good) == []
    finally:
        plt.close(good)
    bad = _figure(defect)
    try:
        probs = figure_problems(bad)
    finally:
        plt.close(bad)
    assert probs and {p.split(":")[0] for p in probs} == {rule}, probs


@pytest.mark.parametrize("label,ok", [
    ("KL(target ‖ samples) [nats]", True), ("time (s)", True), ("error (posterior s.d.)", True),
    ("W2 (units of θ)", True), ("h · L (dimensionless)", True), ("test error [%]", True), ("data passes", True),
    ("iteration k", True), ("batch size b", True), ("occupancy of the +ā mode", True),
    ("step size h", False), ("step size (h)", False), ("W2 (exact)", False), ("λ (mean over chains ± 3 s.e.)", False),
    ("growth B (95 % bootstrap CI)", False), ("autocorrelation time (4.2)", False), ("x₁ (first coordinate)", False),
    ("MSE of the time average", False)])
def test_the_units_rule(label, ok):
    """What counts as a unit (``states_unit``): a unit word in brackets, or a count's / pure number's name; a
    bracket that restates a symbol or qualifies the quantity, a percentage inside a number, "s" of "s.e." do not."""
    assert states_unit(label) is ok


def test_the_units_rule_reads_a_colour_bar_and_exempts_category_axes():
    """A colour bar labelled without a unit is flagged; a category axis (method names as ticks) needs no unit."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(8, 3.2))
    a.bar(["SGLD", "SGHMC", "EWSG"], [1.0, 2.0, 3.0])
    a.set(xlabel="method", ylabel="wall time (s)")
    img = b.imshow(np.eye(3), origin="lower")
    b.set(xlabel="column index j", ylabel="row index i")
    fig.colorbar(img, ax=b, label="weight w")
    fig.tight_layout()
    try:
        probs = figure_problems(fig)
        assert len(probs) == 1 and probs[0].startswith("units: colour bar") and "'weight w'" in probs[0], probs
    finally:
        plt.close(fig)


def test_the_stamp_rule_catches_a_claims_figure_without_its_verdict():
    fig = _figure()
    try:
        probs = figure_problems(fig, ["paper.claim_a"])
        assert {p.split(":")[0] for p in probs} == {"stamp"} and len(probs) == 2   # not named; no scale
        fig.text(0, -0.1, "smoke scale — verdicts:\npaper.claim_a")
        probs = figure_problems(fig, ["paper.claim_a"])
        assert probs == ["stamp: claim paper.claim_a is named without a verdict"]
        fig.texts[-1].set_text("smoke scale — verdicts:\npaper.claim_a: held")
        assert figure_problems(fig, ["paper.claim_a"]) == []
    finally:
        plt.close(fig)


def test_rotated_tick_labels_are_compared_by_their_own_rectangles():
    """Slanted labels whose axis-aligned boxes overlap but whose glyph rectangles do not are not an overlap; the
    same labels upright and crowded are."""
    fig, ax = plt.subplots(figsize=(4, 3))
    names = [f"method number {i}" for i in range(6)]
    ax.bar(range(6), np.arange(6) + 1.0)
    ax.set_xticks(range(6), names, rotation=40, ha="right", fontsize=7)
    ax.set_xlabel("method")
    ax.set_ylabel("score (points)")
    fig.tight_layout()
    try:
        assert figure_problems(fig) == []
        ax.set_xticks(range(6), names, rotation=0, ha="center", fontsize=7)
        assert any(p.startswith("overlap:") for p in figure_problems(fig))
    finally:
        plt.close(fig)


def test_save_figure_gives_a_short_log_axis_two_tick_labels(tmp_path):
    """The fix for the flagged log axes (EWSG Fig. 1d, LS-SGLD Fig. 1b/1d, ...): ``save_figure`` labels 1, 2, 5 × 10^k
    (or plain positions) on a log axis that would show fewer than two labels."""
    seen = []
    _common.FIGURE_HOOKS.append(lambda fig, rel, claims: seen.append(figure_problems(fig)))
    try:
        fig, ax = plt.subplots()
        ax.loglog([1.0, 2.0, 4.0, 8.0], [1.0, 0.5, 0.25, 0.125], "o-")
        ax.set(xlabel="T (s)", ylabel="MSE (units²)")
        _common.save_figure(fig, tmp_path, "short", plain_log_minor_ticks=True)
        fig, ax = plt.subplots()
        ax.loglog([1.2, 1.5, 1.8], [3.0, 3.5, 4.0], "o-")   # no 1/2/5 position inside either axis
        ax.set(xlabel="T (s)", ylabel="MSE (units²)")
        _common.save_figure(fig, tmp_path, "shorter", plain_log_minor_ticks=True)
    finally:
        _common.FIGURE_HOOKS.pop()
    assert seen == [[], []]


def test_rules_are_documented():
    import sgmcmc_verify.figures.readable as mod

    assert all(f"``{r}``" in mod.__doc__ for r in RULES)


def test_a_paper_draws_in_its_theme_and_leaves_matplotlib_as_it_found_it():
    """#26: ``sns.set_theme`` in one paper's ``draw_all`` used to stay set, so a paper drawn after the EWSG modules in
    the same process (``sgmcmc-verify figures``) looked different from the same paper drawn alone or in a worker.
    Inside :func:`draws_results` the theme is set; after it, the rcParams and the colour codes are what they were.
    Control: the same body without the decorator leaves both changed, which this check sees."""
    import matplotlib
    import matplotlib.colors as mcolors
    import seaborn as sns

    from sgmcmc_verify.figures._common import draws_results

    def body(results_dir, out_dir):
        sns.set_theme(style="darkgrid", palette="bright")     # what a module might do inside
        return matplotlib.rcParams["axes.grid"], mcolors.colorConverter.colors["b"]

    def state():
        return dict(matplotlib.rcParams), {c: mcolors.colorConverter.colors[c] for c in "bgrmyck"}

    matplotlib.rcdefaults()
    before = state()
    grid_inside, _ = draws_results(body)("res", "out")
    assert grid_inside is True                                   # the theme (whitegrid) is on while drawing
    assert state() == before                                     # nothing leaks out
    body("res", "out")                                           # control: undecorated, the theme stays set
    leaked = state()
    assert leaked[0]["axes.grid"] is True and leaked[1]["b"] != before[1]["b"]
    matplotlib.rcdefaults()
    mcolors.colorConverter.colors.update(before[1])
