"""`make figures` wall time of two runs side by side, experiment by experiment, from their manifests.

Used for issue #16's "the default `make figures` wall time before and after": run the experiments of two
checkouts (e.g. the commit before the performance work and ``main``) into two results directories, one after
the other on an otherwise idle machine, then::

    python bench/bench_figures_wall.py --a /tmp/figtime/before/results --b /tmp/figtime/after/results \
        --labels before,after [--total-a SECONDS --total-b SECONDS]

For each experiment: the wall time each manifest records (``wall_time_s``, the experiment's own run), the
ratio, whether the two runs used the same settings, and whether every output file has the same SHA-256 in
both (the performance changes must not change a number). The sums are given over every experiment of each run
and over the experiments both ran with the same settings, which is the like-for-like comparison when the set
of experiments changed between the two checkouts. ``--total-a/--total-b`` are whole-command times measured
outside (``run all`` plus ``figures``), printed as given.
"""
from __future__ import annotations

import argparse

from sgmcmc_verify.ledger.compare import _fmt_s, manifests


def table(results_a, results_b, labels=("before", "after"), total_a=None, total_b=None) -> str:
    """Markdown: per-experiment wall times of two runs, settings and output identity, and the sums."""
    ma, mb = manifests(results_a), manifests(results_b)
    if not ma or not mb:
        raise FileNotFoundError(f"no manifests under {results_a if not ma else results_b}")
    la, lb = labels
    md = [f"| experiment | {la} | {lb} | {lb} / {la} | settings | outputs |", "|---|---|---|---|---|---|"]
    sums = {"all_a": 0.0, "all_b": 0.0, "same_a": 0.0, "same_b": 0.0, "n_same": 0, "identical": 0}
    for e in sorted(set(ma) | set(mb)):
        xa, xb = ma.get(e), mb.get(e)
        wa = xa["wall_time_s"] if xa else None
        wb = xb["wall_time_s"] if xb else None
        sums["all_a"] += wa or 0.0
        sums["all_b"] += wb or 0.0
        same = bool(xa and xb and xa["settings"] == xb["settings"])
        ident = bool(same and xa.get("sha256") and xa.get("sha256") == xb.get("sha256"))
        if same:
            sums["same_a"] += wa
            sums["same_b"] += wb
            sums["n_same"] += 1
            sums["identical"] += ident
        outputs = ("—" if not same else ("byte-identical" if ident else
                   "differ: " + ", ".join(sorted(k for k in set(xa.get("sha256", {})) | set(xb.get("sha256", {}))
                                                 if xa.get("sha256", {}).get(k) != xb.get("sha256", {}).get(k)))))
        md.append(f"| {e} | {_fmt_s(wa)} | {_fmt_s(wb)} | {f'{wb / wa:.2f}' if wa and wb else '—'} | "
                  f"{'same' if same else ('different' if xa and xb else 'only in ' + (la if xa else lb))} | {outputs} |")
    md.append(f"| **sum, every experiment of each run** ({len(ma)} / {len(mb)}) | {_fmt_s(sums['all_a'])} | "
              f"{_fmt_s(sums['all_b'])} | {sums['all_b'] / sums['all_a']:.2f} | | |")
    if sums["n_same"]:
        md.append(f"| **sum, the {sums['n_same']} run with the same settings by both** | {_fmt_s(sums['same_a'])} | "
                  f"{_fmt_s(sums['same_b'])} | {sums['same_b'] / sums['same_a']:.2f} | | "
                  f"{sums['identical']} of {sums['n_same']} byte-identical |")
    if total_a is not None and total_b is not None:
        md.append(f"| **whole command (run all + figures), measured outside** | {_fmt_s(total_a)} | {_fmt_s(total_b)} | "
                  f"{total_b / total_a:.2f} | | |")
    return "\n".join(md) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a", required=True, help="results directory of the reference run")
    p.add_argument("--b", required=True, help="results directory of the other run")
    p.add_argument("--labels", default="before,after")
    p.add_argument("--total-a", type=float, default=None)
    p.add_argument("--total-b", type=float, default=None)
    a = p.parse_args(argv)
    labels = tuple(a.labels.split(","))
    if len(labels) != 2:
        raise ValueError(f"labels: two names separated by a comma, got {a.labels!r}")
    print(table(a.a, a.b, labels, a.total_a, a.total_b), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
