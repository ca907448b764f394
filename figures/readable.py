"""The figure check: can a reader read this figure? (issue #27 item 4)

:func:`figure_problems` inspects a drawn :class:`matplotlib.figure.Figure` (before it is saved; the text
positions come from matplotlib's renderer, as in the saved file) and returns one readable line per problem:

* ``overlap``   two pieces of text overlap (titles, axis labels, tick labels, legend entries, annotations,
                the claim stamp): their window extents intersect by more than :data:`OVERLAP_PX` pixels in
                both directions;
* ``label``     an axis that shows tick labels has no axis label (a colour bar included);
* ``units``     an axis label (a colour bar's included) does not state its unit by the rule of :func:`states_unit`:
                a unit in brackets or parentheses (``KL [nats]``, ``time (s)``, ``error (posterior s.d.)``,
                ``h · L (dimensionless)``), or the name of a count or a pure number (``data passes``,
                ``iteration k``, ``batch size b``, ``probability``, ``test accuracy``); axes whose tick labels
                are category names (``method``) have no unit and are exempt;
* ``ticks``     an axis shows exactly one tick label (a log axis spanning less than a decade typically
                shows one major label), or none while neither a shared sibling axis nor a label says why;
* ``legend``    an axes draws more than one series (lines with two or more points, scatter collections,
                bar groups, error bars) and neither it nor the figure has a legend;
* ``colorbar``  an image, mesh, contour fill or colour-mapped scatter encodes a value by colour and the
                figure has no colour bar for it (or for a mappable sharing its norm);
* ``stamp``     the figure is a claim's figure and does not carry, for every such claim, its id, a verdict
                label and the scale (:func:`sgmcmc_verify.figures._common.stamp_claims` draws them).

The check runs in ``make test`` over every figure drawn from the smoke results (``tests/figures``), and a
negative control draws one deliberately bad figure per rule and shows that each is caught.
"""
from __future__ import annotations

import itertools
import re
from typing import Iterable

import matplotlib
import numpy as np

matplotlib.use("Agg")
from matplotlib.axis import Axis  # noqa: E402
from matplotlib.collections import PathCollection, PolyCollection, QuadMesh  # noqa: E402
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402
from matplotlib.contour import ContourSet  # noqa: E402
from matplotlib.image import AxesImage  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.category import StrCategoryFormatter  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from matplotlib.ticker import FixedFormatter  # noqa: E402

__all__ = ["figure_problems", "states_unit", "RULES", "OVERLAP_PX", "UNIT_TERMS", "COUNT_TERMS"]

#: The rules, in the order :func:`figure_problems` reports them.
RULES = ("overlap", "label", "units", "ticks", "legend", "colorbar", "stamp")

#: Two texts overlap when their extents intersect by more than this many pixels in x *and* y (at the figure's
#: dpi): a pixel or two is antialiasing and the descender of one line touching the ascender of the next.
OVERLAP_PX = 1.5

#: Units a bracketed group of an axis label may name (matched as whole words, case-insensitive; ``%`` only where it
#: is not a number's, so ``(95 % CI)`` is no unit): information, time, what the papers count budgets and positions
#: in, the scales of the targets (a parameter θ of synthetic data has no physical unit; its scale is a unit), and
#: the words that say a quantity is a pure number.
UNIT_TERMS = (
    "nats", "nat", "nats/datum", "bits",
    "s", "ms", "seconds", "second", "min", "minutes", "hours", "m", "mm", "cm", "km", "kg", "Hz", "J",
    "steps", "step", "iterations", "iteration", "epochs", "epoch", "data passes", "passes", "gradient evaluations",
    "evaluations", "points", "draws", "count", "indices",
    "s.d.", "units", "units of θ", "units of θ²", "θ units", "per unit", "GFLOP/s", "bytes", "MB", "GB",
    "dimensionless", "unitless", "relative", "ratio", "fraction", "percent", "probability", "%",
)

#: Names of quantities that are counts or pure numbers (their unit is one), matched as whole words outside the
#: brackets of a label: ``data passes``, ``iteration k``, ``batch size b``, ``probability``, ``test accuracy``.
COUNT_TERMS = (
    "number of", "count", "iteration", "iterations", "epochs", "epoch", "data passes", "passes",
    "gradient evaluations", "evaluations", "batch size", "minibatch size", "minibatch", "index chain length",
    "chain length", "dimension", "index", "lag", "probability", "fraction", "ratio", "accuracy", "occupancy",
    "correlation", "dimensionless", "percent",
)


def _term_re(terms) -> re.Pattern:
    alts = []
    for t in sorted(terms, key=len, reverse=True):
        if t == "%":
            alts.append(r"(?<!\d)(?<!\d )%")
        else:
            alts.append(r"(?<![\w.])" + re.escape(t) + r"(?!\w)(?!\.\w)")   # "s" is no unit in "s.e."
    return re.compile("|".join(alts), re.IGNORECASE)


def _groups(label: str) -> tuple[list[str], str]:
    """The bracketed groups of ``label`` (``(...)`` and ``[...]``, every nesting level, each with its nested text)
    and the text outside every bracket."""
    groups, stack, outside = [], [], []
    pairs = {")": "(", "]": "["}
    for i, ch in enumerate(label):
        if ch in "([":
            stack.append((ch, i))
        elif ch in ")]" and stack and stack[-1][0] == pairs[ch]:
            _, j = stack.pop()
            groups.append(label[j + 1:i])
        elif not stack:
            outside.append(ch)
    return groups, "".join(outside)


def states_unit(label: str) -> bool:
    """Whether an axis label states its unit: the rule of the ``units`` check.

    A label states its unit when (a) one of its bracketed groups, ``(...)`` or ``[...]`` at any nesting level,
    names a unit of :data:`UNIT_TERMS` (``KL [nats]``, ``time (s)``, ``error (posterior s.d.)``,
    ``W2 (units of θ)``, ``h · L (dimensionless)``, ``error [%]``), or (b) its text outside the brackets names a
    count or a pure number of :data:`COUNT_TERMS` (``data passes``, ``iteration k``, ``batch size b``,
    ``occupancy of the +ā mode``). Terms match as whole words, case-insensitive. A bracket that only restates a
    symbol or qualifies the quantity (``step size (h)``, ``W2 (exact)``, ``λ (mean ± 3 s.e.)``) is no unit.

    Parameters
    ----------
    label : str
        The axis label's text (several lines allowed).

    Returns
    -------
    bool
    """
    groups, outside = _groups(label.translate(_SUPERSCRIPTS))   # "units²", "s⁻¹": the unit, with its power
    return any(_UNIT_RE.search(g) for g in groups) or bool(_COUNT_RE.search(outside))


_UNIT_RE = _term_re(UNIT_TERMS)
_SUPERSCRIPTS = str.maketrans("", "", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")
_COUNT_RE = _term_re(COUNT_TERMS)


def _visible(artist) -> bool:
    a = artist
    while a is not None:
        if not a.get_visible():
            return False
        a = getattr(a, "axes", None) if a is not getattr(a, "axes", None) else None
    return True


def _texts(fig, renderer) -> list[tuple[str, Text, object]]:
    """Every visible non-empty text of ``fig`` with a short description and its window extent."""
    out = []
    seen = set()

    def add(what, t):
        if id(t) in seen:
            return
        seen.add(id(t))
        if isinstance(t, Text) and t.get_visible() and t.get_text().strip() and t.get_alpha() != 0:
            try:
                bb = t.get_window_extent(renderer)
            except RuntimeError:
                return
            if bb.width > 0 and bb.height > 0:
                out.append((what, t, bb))

    for t in fig.texts:
        add("figure text", t)
    if getattr(fig, "_suptitle", None) is not None:
        add("suptitle", fig._suptitle)
    for leg in fig.legends:
        for t in leg.get_texts():
            add("legend", t)
        if leg.get_title() is not None:
            add("legend title", leg.get_title())
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        name = f"axes {i} ({ax.get_title()[:30]!r})" if ax.get_title() else f"axes {i}"
        for t in (ax.title, ax._left_title, ax._right_title):
            add(f"{name} title", t)
        if ax.axison:
            for axis, nm in ((ax.xaxis, "x"), (ax.yaxis, "y")):
                if not axis.get_visible():
                    continue
                add(f"{name} {nm} label", axis.label)
                add(f"{name} {nm} offset", axis.get_offset_text())
                for t in _tick_labels(axis, renderer):
                    add(f"{name} {nm} tick {t.get_text()!r}", t)
        for t in ax.texts:
            add(f"{name} text", t)
        leg = ax.get_legend()
        if leg is not None and leg.get_visible():
            for t in leg.get_texts():
                add(f"{name} legend", t)
            if leg.get_title() is not None:
                add(f"{name} legend title", leg.get_title())
        for tab in ax.tables:
            for cell in tab.get_celld().values():
                add(f"{name} table", cell.get_text())
    return out


def _tick_labels(axis: Axis, renderer) -> list[Text]:
    """The tick labels ``axis`` draws: visible, non-empty, at a tick inside the view interval."""
    tr = axis.get_transform()   # compare in the scale's own coordinates (log10 on a log axis)
    with np.errstate(all="ignore"):
        lo, hi = sorted(tr.transform(np.asarray(axis.get_view_interval(), float)))
    tol = 1e-9 * abs(hi - lo)
    out = []
    for tick in itertools.chain(axis.get_major_ticks(), axis.get_minor_ticks()):
        loc = tick.get_loc()
        if loc is None:
            continue
        with np.errstate(all="ignore"):
            t = float(tr.transform(np.array([loc], float))[0])
        if not np.isfinite(t) or not (lo - tol <= t <= hi + tol):
            continue
        for lab in (tick.label1, tick.label2):
            if lab.get_visible() and lab.get_text().strip():
                out.append(lab)
    return out


def _corners(t: Text, bb, renderer) -> np.ndarray:
    """The four corners (4, 2) of the text's own rectangle in pixels: its window extent when the text is upright,
    else the upright extent rotated by its angle about the centre of the (axis-aligned) window extent."""
    ang = t.get_rotation() % 180.0
    if min(ang, abs(ang - 90.0), 180.0 - ang) < 1e-6:
        return np.array([[bb.x0, bb.y0], [bb.x1, bb.y0], [bb.x1, bb.y1], [bb.x0, bb.y1]])
    rot = t.get_rotation()
    t.set_rotation(0)
    try:
        up = t.get_window_extent(renderer)
    finally:
        t.set_rotation(rot)
    w, h = up.width / 2, up.height / 2
    c, s = np.cos(np.radians(rot)), np.sin(np.radians(rot))
    centre = np.array([(bb.x0 + bb.x1) / 2, (bb.y0 + bb.y1) / 2])
    local = np.array([[-w, -h], [w, -h], [w, h], [-w, h]])
    return centre + local @ np.array([[c, s], [-s, c]])


def _penetration(p: np.ndarray, q: np.ndarray) -> float:
    """How deep two convex quadrilaterals overlap (pixels; <= 0: apart): the least overlap of their projections
    over the edge normals of both (the separating-axis theorem)."""
    depth = np.inf
    for poly in (p, q):
        for i in range(4):
            e = poly[(i + 1) % 4] - poly[i]
            n = np.array([-e[1], e[0]])
            norm = np.hypot(*n)
            if norm == 0:
                continue
            n = n / norm
            a, b = p @ n, q @ n
            depth = min(depth, min(a.max(), b.max()) - max(a.min(), b.min()))
            if depth <= 0:
                return depth
    return float(depth)


def _overlaps(texts, renderer) -> list[str]:
    probs = []
    polys = [_corners(t, bb, renderer) for _, t, bb in texts]
    for (i, (wa, ta, a)), (j, (wb, tb, b)) in itertools.combinations(enumerate(texts), 2):
        dx = min(a.x1, b.x1) - max(a.x0, b.x0)
        dy = min(a.y1, b.y1) - max(a.y0, b.y0)
        if dx <= OVERLAP_PX or dy <= OVERLAP_PX:
            continue
        depth = _penetration(polys[i], polys[j])
        if depth > OVERLAP_PX:
            probs.append(f"overlap: {wa} {ta.get_text()[:40]!r} overlaps {wb} {tb.get_text()[:40]!r} "
                         f"(by {depth:.0f} px)")
    return probs


def _is_colorbar(ax) -> bool:
    return hasattr(ax, "_colorbar") or getattr(ax, "_colorbar_info", None) is not None


def _shared(ax, which):
    g = ax.get_shared_x_axes() if which == "x" else ax.get_shared_y_axes()
    return [o for o in g.get_siblings(ax) if o is not ax]


def _has_ticks(axis) -> bool:
    tr = axis.get_transform()
    with np.errstate(all="ignore"):
        lo, hi = sorted(tr.transform(np.asarray(axis.get_view_interval(), float)))
        locs = tr.transform(np.asarray(list(axis.get_majorticklocs()) + list(axis.get_minorticklocs()), float))
    return bool(np.any(np.isfinite(locs) & (locs >= lo) & (locs <= hi)))


def _words(text: str) -> bool:
    """Whether a tick label is a category name (has letters beyond a number's e / mathtext), not a value."""
    import re

    t = re.sub(r"\\mathdefault|\\times|\\cdot|\\mathregular", "", text)
    return re.search(r"[A-DF-Za-df-z]", t) is not None


def _labelled(axis) -> bool:
    return bool(axis.label.get_text().strip()) and axis.label.get_visible()


def _axis_rules(fig, renderer) -> list[str]:
    probs = []
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible() or not ax.axison:
            continue
        cbar = _is_colorbar(ax)
        name = f"{'colour bar' if cbar else 'axes'} {i}" + (f" ({ax.get_title()[:40]!r})" if ax.get_title() else "")
        for which, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if not axis.get_visible():
                continue
            labels = _tick_labels(axis, renderer)
            if not labels:
                # no tick label: fine where the axis has no ticks at all (a colour bar's other axis, a blank image
                # axis) or a shared sibling shows them (label_outer); not where ticks are drawn but none is labelled
                # (a log axis inside one decade with its minor labels hidden)
                ticked = _has_ticks(axis)
                sibling = any(_tick_labels(o.xaxis if which == "x" else o.yaxis, renderer) for o in _shared(ax, which))
                if ticked and not sibling and not cbar:
                    probs.append(f"ticks: {name}: the {which} axis ({axis.get_scale()}) draws ticks and no tick "
                                 "label; a reader cannot read a value off it")
                continue
            own = [axis] + [o.xaxis if which == "x" else o.yaxis for o in _shared(ax, which)]
            texts = [a.label.get_text() for a in own if _labelled(a)]
            categorical = isinstance(axis.get_major_formatter(), (FixedFormatter, StrCategoryFormatter)) or \
                all(_words(t.get_text()) for t in labels)
            if not texts:
                probs.append(f"label: {name}: the {which} axis shows tick labels but has no axis label")
            elif not categorical and not any(states_unit(t) for t in texts):
                probs.append(f"units: {name}: the {which} axis label {texts[0]!r} states no unit (a unit in brackets, "
                             "'(dimensionless)', or a count's name: readable.states_unit)")
            if len({t.get_text() for t in labels}) < 2 and not categorical:
                scale = axis.get_scale()
                probs.append(f"ticks: {name}: the {which} axis ({scale}) shows one tick label "
                             f"({labels[0].get_text()!r}); a reader cannot read a value off it")
    return probs


def _series(ax) -> int:
    n = 0
    in_containers = set()
    for c in ax.containers:
        if isinstance(c, (BarContainer, ErrorbarContainer)):
            n += 1
            for a in c.get_children():
                in_containers.add(id(a))
            if isinstance(c, ErrorbarContainer) and c.lines[0] is not None:
                in_containers.add(id(c.lines[0]))
    for ln in ax.lines:
        if id(ln) in in_containers or not ln.get_visible():
            continue
        x = ln.get_xdata()
        if len(x) >= 2 and isinstance(ln, Line2D) and ln.get_transform() == ax.transData:
            n += 1
    for col in ax.collections:
        if isinstance(col, PathCollection) and id(col) not in in_containers and col.get_visible() \
                and len(col.get_offsets()) > 0:
            n += 1
    return n


def _series_labels(ax) -> set:
    arts = list(ax.lines) + list(ax.collections) + [c for c in ax.containers]
    return {a.get_label() for a in arts if a.get_label() and not a.get_label().startswith("_")}


def _legend_rules(fig) -> list[str]:
    """An axes with several series needs a legend: its own, the figure's, or another axes' legend that names every
    one of its series (one legend for panels that repeat the same series)."""
    probs = []
    fig_legend = bool(fig.legends)
    named = set()
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is not None and leg.get_visible():
            named |= {t.get_text() for t in leg.get_texts()}
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible() or _is_colorbar(ax):
            continue
        n = _series(ax)
        labels = _series_labels(ax)
        shared_legend = len(labels) >= 2 and labels <= named
        if n > 1 and ax.get_legend() is None and not fig_legend and not shared_legend:
            probs.append(f"legend: axes {i}" + (f" ({ax.get_title()[:40]!r})" if ax.get_title() else "")
                         + f" draws {n} series and has no legend (nor has the figure)")
    return probs


def _colorbar_rules(fig) -> list[str]:
    probs = []
    mappables = []
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible() or _is_colorbar(ax):
            continue
        for m in list(ax.images) + list(ax.collections):
            if isinstance(m, ContourSet) and m.filled is False:
                continue    # contour lines drawn in one colour mark levels, not a value by colour
            encodes = isinstance(m, (AxesImage, QuadMesh, ContourSet)) or (
                isinstance(m, (PathCollection, PolyCollection)) and m.get_array() is not None)
            if isinstance(m, AxesImage) and m.get_array() is not None and m.get_array().ndim == 3:
                encodes = False   # an RGB(A) picture: colour is the picture, not a value
            if encodes and m.get_visible():
                mappables.append((i, ax, m))
    for i, ax, m in mappables:
        if m.colorbar is not None:
            continue
        if any(o.colorbar is not None and o.norm is m.norm for _, _, o in mappables):
            continue
        if any(o.colorbar is not None and o.get_cmap().name == m.get_cmap().name and o.norm.vmin == m.norm.vmin
               and o.norm.vmax == m.norm.vmax for _, _, o in mappables):
            continue   # one colour bar for several panels on one scale
        probs.append(f"colorbar: axes {i}" + (f" ({ax.get_title()[:40]!r})" if ax.get_title() else "")
                     + f": a {type(m).__name__} encodes a value by colour and has no colour bar")
    return probs


def _stamp_rules(fig, texts, claims: Iterable) -> list[str]:
    from sgmcmc_verify.ledger.verdict import STATUSES

    claims = list(claims)
    if not claims:
        return []
    alltext = "\n".join(t.get_text() for _, t, _ in texts)
    probs = []
    for cid in claims:
        lines = [ln for ln in alltext.splitlines() if cid in ln]
        if not lines:
            probs.append(f"stamp: the figure of claim {cid} does not name it")
        elif not any(s in ln for ln in lines for s in STATUSES):
            probs.append(f"stamp: claim {cid} is named without a verdict")
    if "scale" not in alltext:
        probs.append("stamp: the figure of claims " + ", ".join(claims[:3]) + " does not say the scale")
    return probs


def figure_problems(fig, claims: Iterable[str] = ()) -> list[str]:
    """Every readability problem of ``fig``, one line each (empty: the figure passes).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A drawn figure (not yet closed); its layout is computed here with its own renderer.
    claims : iterable of str
        The ids of the claims whose ``figure`` is this file; each must be named with a verdict, and the
        scale must be said (the ``stamp`` rule). Empty: the rule does not apply.

    Returns
    -------
    list of str
        ``"<rule>: <what, where>"`` lines, grouped by :data:`RULES` in order.
    """
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = _texts(fig, renderer)
    return (_overlaps(texts, renderer) + _axis_rules(fig, renderer) + _legend_rules(fig) + _colorbar_rules(fig)
            + _stamp_rules(fig, texts, claims))
