"""EWSG conference text: Theorem 4 at n = 20 (Figs. 1j–l).

Theorem 4 (= the journal's Theorem 4.3) is measured by the journal study's
:func:`sgmcmc_verify.paper_repro.ewsg.experiments.theorem43` with the conference's n = 20 on the journal's grids;
outputs are renamed to the conference's panels (1d → 1j, 1e → 1k, 1f → 1l).

References
----------
Seed ``003_19372d6d86d2623b.txt``: Theorem 4 eq. (6), §5.1 (Figs. 1j–l).
"""
from __future__ import annotations

from pathlib import Path

from sgmcmc_verify.paper_repro.ewsg import experiments as X
from sgmcmc_verify.store.io import write_csv, write_json

from .settings import Theorem4Settings

__all__ = ["run_theorem4"]

_PANELS = {"fig1d": "fig1j", "fig1e": "fig1k", "fig1f": "fig1l"}


def run_theorem4(cfg: Theorem4Settings, out_dir, n_jobs=1, backend=None, progress=None) -> None:
    """Figs. 1j–l: ``fig1j.csv``, ``fig1k.csv``, ``fig1l.csv`` and ``thm4_rates.json`` (Theorem 4 at n = 20)."""
    th = X.theorem43(cfg, n_jobs, backend, progress)
    out = Path(out_dir)
    for key, name, what in (("rows_d", "fig1j", "MSE vs T"), ("rows_e", "fig1k", "MSE vs h at fixed T"),
                            ("rows_f", "fig1l", "long-run MSE vs h")):
        write_csv(out / f"{name}.csv", th[key], header_comment=(
            f"EWSG conference Fig {name[3:]}, n={cfg.n_data}, scale={cfg.scale}: {what} of the time average of "
            "||theta-mu||^2 (EWSG M=1; SGHMC for comparison)"))
    rates = {_PANELS.get(k, k): v for k, v in th["rates"].items()}
    rates["expected_slopes"] = {_PANELS[k]: v for k, v in rates["expected_slopes"].items()}
    rates.update({"scale": cfg.scale, "settings": cfg.as_dict(), "versions": X._versions()})
    write_json(out / "thm4_rates.json", rates)
