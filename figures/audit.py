"""Figures and the HTML page of the audit battery (issue #15), from ``results/audit/<name>/`` only.

For every audited sampler ``<name>`` (a folder with ``summary.json``), :func:`draw_sampler` writes to
``figures/out/audit/<name>/``: one PNG (and PDF) per check, ``summary.json`` (the one-screen table rows
``{check, measured, expected, status, detail}``) and ``index.html`` (a Jinja2 template: plain
HTML + CSS, relative links only, no network). :func:`draw_all` does it for every sampler and writes an
``index.html`` listing them. Nothing here runs a sampler.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from jinja2 import Environment, select_autoescape  # noqa: E402

from sgmcmc_verify.figures._common import save_figure  # noqa: E402
from sgmcmc_verify.store.io import read_json, write_json, write_text  # noqa: E402

__all__ = ["draw_all", "draw_sampler", "render_index", "read_summaries"]

_SYMBOL = {"pass": "✓", "flagged": "✗ flagged", "warn": "⚠", "info": "i", "n/a": "—", "inconclusive": "?"}

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Audit: {{ name }}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 72em; color: #222; }
table { border-collapse: collapse; width: 100%; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.5em; vertical-align: top; text-align: left; }
th { background: #f3f3f3; }
.pass { background: #e8f6e8; } .flagged { background: #fbe0e0; font-weight: bold; }
.warn { background: #fff4d6; } .inconclusive { background: #eef; }
img { max-width: 100%; border: 1px solid #ddd; margin: 0.4em 0; }
code { background: #f5f5f5; padding: 0 0.2em; }
</style></head><body>
<h1>Audit of <code>{{ name }}</code></h1>
<p>Factory <code>{{ factory }}</code>{% if params %} with {% for k, v in params.items() %}<code>{{ k }}={{ v }}</code>{% if not loop.last %}, {% endif %}{% endfor %}{% endif %};
scale <b>{{ scale }}</b>, seed {{ seed }}, {{ "%.0f"|format(total_seconds) }} s.
{% if flagged %}<b>Flagged: {{ flagged|join(", ") }}.</b>{% else %}Nothing flagged.{% endif %}</p>
<table><tr><th>check</th><th>measured</th><th>expected</th><th>status</th><th>detail</th></tr>
{% for r in rows %}<tr class="{{ r.status }}"><td>{{ r.check }}</td><td>{{ r.measured }}</td><td>{{ r.expected }}</td>
<td>{{ symbol[r.status] }} {{ r.status }}</td><td>{{ r.detail }}</td></tr>
{% endfor %}</table>
<h2>Figures</h2>
{% for f in figures %}<p><a href="{{ f }}.pdf"><img src="{{ f }}.png" alt="{{ f }}"></a></p>
{% endfor %}
<p>Numbers: <code>{{ results }}</code> (one JSON per check, with settings, seed and versions).
Versions: {% for k, v in versions.items() %}{{ k }} {{ v }}{% if not loop.last %}, {% endif %}{% endfor %}.</p>
<p><a href="../index.html">all audited samplers</a></p>
</body></html>
"""

_INDEX = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Audit battery</title>
<style>body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 60em; }
table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; }
.flagged { background: #fbe0e0; }</style></head><body>
<h1>Audit battery</h1>
<table><tr><th>sampler</th><th>scale</th><th>passed</th><th>flagged</th><th>other</th></tr>
{% for s in samplers %}<tr class="{{ 'flagged' if s.flagged else '' }}"><td><a href="./{{ s.name | urlencode }}/index.html">{{ s.name }}</a></td>
<td>{{ s.scale }}</td><td>{{ s.passed }}</td><td>{{ s.flagged|join(", ") }}</td><td>{{ s.other }}</td></tr>
{% endfor %}</table></body></html>
"""


def _env():
    return Environment(autoescape=select_autoescape(default=True, default_for_string=True))


def _load(folder: Path, stem: str):
    """The numbers of one check, or ``None`` when there are none to draw (missing; timed out, diverged or
    raised: those rows carry the error, not the check's numbers)."""
    p = folder / f"{stem}.json"
    if not p.exists():
        return None
    r = read_json(p)
    m = str(r.get("measured", ""))
    if m in ("timed out", "diverged") or m.startswith("raised ") or "error" in r.get("data", {}):
        return None
    return r


def _consistency(res: Path, out: Path) -> list[Path]:
    recs = [r for r in (_load(res, "consistency_gaussian"), _load(res, "consistency_anisotropic")) if r]
    if not recs:
        return []
    fig, axes = plt.subplots(1, len(recs), figsize=(5.2 * len(recs), 4), squeeze=False)
    for ax, r in zip(axes[0], recs):
        d = r["data"]
        h = np.array(d["h"])
        for key, col, lab in (("cov", "C0", "covariance (rel., Frobenius)"), ("mean", "C1", "mean (posterior s.d.)")):
            e, f = np.array(d[key]["err"]), np.array(d[key]["floor"])
            ax.loglog(h, e, "o-", color=col, label=f"{lab}, Monte Carlo")
            ax.fill_between(h, 1e-300, 2 * f, color=col, alpha=0.12)
        if d.get("exact"):
            ex = np.array(d["exact"]["cov_err"])
            if np.all(ex > 0):
                ax.loglog(h, ex, "k--", label=f"covariance, exact law (p = {d['exact']['slope']:.2f})")
        c = d["cov"]
        above = np.array(c["above_floor"], bool)
        zero = (d.get("extrapolated_to_zero") or {}).get("cov")
        from_fit = c["slope"] is not None and int(above.sum()) >= 5 and r.get("status") not in ("flagged", "warn")
        if from_fit:   # the line the order verdict rests on: over the points it was fitted to, no further
            hx = h[above]
            ax.loglog(hx, np.exp(np.log(np.array(c["err"])[above]).mean() + c["slope"] * (np.log(hx) - np.log(hx).mean())),
                      ":", color="C0", lw=1.5,
                      label=f"fit p = {c['slope']:.2f} [{c['ci_low']:.2f}, {c['ci_high']:.2f}] ({int(above.sum())} points)")
        elif zero is not None and r.get("status") in ("flagged", "warn") and zero.get("norm"):
            ax.axhline(zero["norm"], color="C0", ls="-.", lw=1,   # what a flag or warning rests on: the error at h = 0
                       label=f"covariance error extrapolated to h = 0: {zero['norm']:.2g} (z = {zero['z']:.0f})")
        lo = min(np.min(np.array(d["cov"]["floor"])), np.min(np.array(d["mean"]["floor"]))) / 3
        hi = 3 * max(np.max(d["cov"]["err"]), np.max(d["mean"]["err"]), 2 * np.max(d["cov"]["floor"]))
        ax.set_ylim(max(lo, 1e-6), hi)
        ax.set(xlabel="step size h (dimensionless)", ylabel="stationary error (mean: posterior s.d.; cov.: relative)")
        ax.set_title(f"{r['check']}: {d['target']}\nverdict {r.get('status', '?')}: {r.get('measured', '')}", fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle("Check 1: error vs h (shaded: 2× the Monte Carlo floor)", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, out, "consistency", plain_log_minor_ticks=True)


def _sg(res: Path, out: Path) -> list[Path]:
    r = _load(res, "sg_sensitivity")
    if not r or "b" not in r["data"]:
        return []
    d = r["data"]
    fig, ax = plt.subplots(figsize=(5, 3.8))
    b = np.array(d["b"])
    ax.loglog(b, d["cov"]["err"], "o-", label="Monte Carlo")
    ax.fill_between(b, 1e-300, 2 * np.array(d["cov"]["floor"]), alpha=0.15)
    if d.get("exact_cov_err"):
        ax.loglog(b, d["exact_cov_err"], "k--", label="exact law")
    ax.set(xlabel="batch size b", ylabel="covariance error (relative, Frobenius)", title=f"Check 2: h·L = {d['hL']}")
    ax.set_ylim(max(np.min(d["cov"]["floor"]) / 3, 1e-6), 3 * max(np.max(d["cov"]["err"]), 2 * np.max(d["cov"]["floor"])))
    ax.legend(fontsize=8)
    return save_figure(fig, out, "sg_sensitivity", plain_log_minor_ticks=True)


def _time_average(res: Path, out: Path) -> list[Path]:
    r = _load(res, "time_average")
    if not r:
        return []
    d = r["data"]
    rows = d["grid"]
    C = [d["fit"]["coef"][k] for k in ("C1", "C2", "C3")]
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for i, h in enumerate(sorted({x["h"] for x in rows})):
        pts = sorted((x for x in rows if x["h"] == h), key=lambda x: x["T"])
        T = np.array([x["T"] for x in pts])
        ax.errorbar(T, [x["mse"] for x in pts], yerr=[2 * x["mse_se"] for x in pts], fmt="o", color=f"C{i}",
                    label=f"h = {h:.2g}")
        Tg = np.geomspace(T.min(), T.max(), 50)
        ax.loglog(Tg, C[0] / Tg + C[1] * h / Tg + C[2] * h**2, "-", color=f"C{i}", lw=1)
    ax.set(xscale="log", yscale="log", xlabel="time T = Kh (dimensionless)",
           ylabel="MSE of the time average of φ (dimensionless)",
           title=f"Check 3: fit C1/T + C2 h/T + C3 h² (misfit {d['fit']['rel_rmse']:.2f})")
    ax.legend(fontsize=8)
    return save_figure(fig, out, "time_average", plain_log_minor_ticks=True)


def _mixture(res: Path, out: Path) -> list[Path]:
    r = _load(res, "multimodality")
    if not r:
        return []
    d = r["data"]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(8, 3.5))
    a1.plot(np.zeros(len(d["floor"])), d["floor"], "o", color="grey", alpha=0.6, label="exact vs exact")
    a1.plot([1], [d["w2"]], "s", color="C3", label="sampler vs exact")
    if d.get("floor_bound") is not None:
        a1.axhline(d["floor_bound"], ls="--", color="grey", lw=0.8, label="99.87 % bound of the floor")
    if d.get("w2_start") is not None:
        a1.plot([1], [d["w2_start"]], "^", color="C1", label="the displaced start")
    a1.set(xticks=[0, 1], xticklabels=["floor", "sampler"], xlim=(-0.5, 1.5), xlabel="ensemble",
           ylabel="exact W2 (units of θ)",
           title=f"W2 on {d['chains']} points")
    a1.legend(fontsize=8)
    a2.bar([0, 1], [d["occupancy_exact"], d["occupancy"]], color=["grey", "C0"], label="occupancy")
    a2.errorbar([1], [d["occupancy"]], yerr=[2 * d["occupancy_se"]], fmt="none", color="k", capsize=4, label="± 2 s.e.")
    a2.legend(fontsize=8, loc="lower right")
    a2.set(xticks=[0, 1], xticklabels=["exact", "sampler"], xlabel="ensemble", ylabel="occupancy of the +ā mode",
           title=f"{d['switches_per_1000']:.2f} switches / 1,000 steps")
    fig.suptitle(f"Check 4: HSG-HMC mixture, h = {d['h']}", fontsize=10)
    return save_figure(fig, out, "multimodality", plain_log_minor_ticks=True)


def _stability(res: Path, out: Path) -> list[Path]:
    r = _load(res, "stability")
    if not r:
        return []
    d = r["data"]
    fig, ax = plt.subplots(figsize=(5.5, 2.6))
    x, bad = np.array(d["hL"]), np.array(d["diverged"])
    ax.semilogx(x[~bad], np.zeros((~bad).sum()), "o", color="C2", label="stable")
    ax.semilogx(x[bad], np.zeros(bad.sum()), "x", color="C3", ms=10, label="diverged")
    if d.get("exact_threshold_hL"):
        ax.axvline(d["exact_threshold_hL"], color="k", ls="--", label="exact threshold")
    ax.set(yticks=[], xlabel="h · L (dimensionless)", title="Check 5: stiff Gaussian (condition number 100)")
    ax.legend(fontsize=8)
    return save_figure(fig, out, "stability", plain_log_minor_ticks=True)


def _cost(res: Path, out: Path) -> list[Path]:
    r = _load(res, "cost")
    if not r:
        return []
    rows = r["data"]["rows"]
    n = [x["n"] for x in rows]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(8, 3.3))
    a1.loglog(n, [x["evals_per_step"] for x in rows], "o-")
    a1.set(xlabel="number of data n", ylabel="gradient evaluations / step (per chain)")
    a2.loglog(n, [x["seconds_per_step"] for x in rows], "o-")
    a2.set(xlabel="number of data n", ylabel=f"wall time per step (s; {r['data']['chains']} chains)")
    fig.suptitle("Check 6: cost vs n", fontsize=10)
    return save_figure(fig, out, "cost", plain_log_minor_ticks=True)


_PANELS = (("consistency", _consistency), ("sg_sensitivity", _sg), ("time_average", _time_average),
           ("multimodality", _mixture), ("stability", _stability), ("cost", _cost))


def render_index(summary: dict, figures: list[str], results: str) -> str:
    """The HTML page of one audited sampler (Jinja2; relative links only)."""
    rows = [dict(r) for r in summary["rows"]]
    return _env().from_string(_PAGE).render(
        name=summary["name"], factory=summary.get("factory", "?"), params=summary.get("params", {}),
        scale=summary.get("scale", "?"), seed=summary.get("seed"), total_seconds=summary.get("total_seconds", 0.0),
        flagged=summary.get("flagged", []), rows=rows, symbol=_SYMBOL, figures=figures, results=results,
        versions=summary.get("versions", {}))


def draw_sampler(res: Path, out: Path) -> list[Path]:
    """Figures, ``summary.json`` and ``index.html`` of one audited sampler (``res`` = ``results/audit/<name>``).

    The page is drawn into a fresh folder that then replaces ``out`` whole: no figure of an earlier audit
    of the same name stays beside the new summary.
    """
    import os
    import shutil

    res, out = Path(res), Path(out)
    summary = read_json(res / "summary.json")
    final = out
    out = final.with_name(f".{final.name}.partial-{os.getpid()}")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    try:
        paths, names = [], []
        for stem, fn in _PANELS:
            try:
                p = fn(res, out)
            except (KeyError, TypeError, ValueError) as e:   # numbers of another layout: no panel, said so
                warnings.warn(f"audit page {final.name}: panel {stem} not drawn ({type(e).__name__}: {e})",
                              RuntimeWarning, stacklevel=2)
                plt.close("all")
                continue
            if p:
                paths += p
                names.append(stem)
        rows = [{k: r[k] for k in ("check", "measured", "expected", "status", "detail")} for r in summary["rows"]]
        write_json(out / "summary.json", rows)
        write_text(out / "index.html", render_index(summary, names, str(res)))
        old = final.with_name(f".{final.name}.old-{os.getpid()}")
        if final.exists():
            os.replace(final, old)
        os.replace(out, final)
        if old.exists():
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if out.exists():
            shutil.rmtree(out, ignore_errors=True)
    return [final / p.relative_to(out) for p in paths] + [final / "summary.json", final / "index.html"]


def read_summaries(root, warn=None) -> dict:
    """``{name: summary}`` of every audit under ``root`` (``results/audit``) whose ``summary.json`` reads.

    A folder whose ``summary.json`` is missing, unreadable or not an audit summary is skipped with a
    warning (``warn(message)``, default :func:`warnings.warn`): one corrupt old audit does not stop the others.
    """
    warn = warn or (lambda m: warnings.warn(m, RuntimeWarning, stacklevel=3))
    out = {}
    root = Path(root)
    if not root.is_dir():
        return out
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        f = folder / "summary.json"
        if not f.is_file():
            continue
        try:
            sm = json.loads(f.read_text())
            if not isinstance(sm, dict) or not isinstance(sm.get("rows"), list) or not all(
                    isinstance(r, dict) and {"check", "status"} <= set(r) for r in sm["rows"]):
                raise ValueError("not an audit summary (no rows of check/status)")
        except (OSError, ValueError, UnicodeDecodeError) as e:
            warn(f"skipping the audit in {folder}: {f.name} is unreadable ({type(e).__name__}: {str(e)[:120]})")
            continue
        out[folder.name] = sm
    return out


def draw_all(results_dir, out_dir, warn=None) -> list[Path]:
    """Every audited sampler under ``results_dir`` (``results/audit``) into ``out_dir`` (``figures/out/audit``).

    A folder whose ``summary.json`` does not read is skipped with a warning (``warn(message)``; default
    :func:`warnings.warn`), so one corrupt old audit does not stop the listing of the others.
    """
    results_dir, out_dir = Path(results_dir), Path(out_dir)
    paths, listing = [], []
    for name, s in read_summaries(results_dir, warn).items():
        try:
            paths += draw_sampler(results_dir / name, out_dir / name)
        except (OSError, ValueError, KeyError, TypeError) as e:
            (warn or (lambda m: warnings.warn(m, RuntimeWarning, stacklevel=2)))(
                f"skipping the audit in {results_dir / name}: its files do not draw ({type(e).__name__}: {str(e)[:120]})")
            continue
        st = [r["status"] for r in s["rows"]]
        listing.append({"name": name, "scale": s.get("scale"), "passed": f"{st.count('pass')}/{len(st)}",
                        "flagged": s.get("flagged", []),
                        "other": ", ".join(f"{st.count(k)} {k}" for k in ("warn", "inconclusive", "info", "n/a")
                                           if st.count(k))})
    if listing:
        write_text(out_dir / "index.html", _env().from_string(_INDEX).render(samplers=listing))
        paths.append(out_dir / "index.html")
    return paths


if __name__ == "__main__":  # pragma: no cover
    import sys

    print(json.dumps([str(p) for p in draw_all(sys.argv[1], sys.argv[2])], indent=1))
