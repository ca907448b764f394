"""What the EWSG conference text's claims modules share: the seed, the paper id, the declaration helper, reading
helpers (seed ``003_19372d6d86d2623b.txt``)."""
from __future__ import annotations

from sgmcmc_verify.ledger.claims import declare
from sgmcmc_verify.ledger.extract import csv_rows, json_result, settings
from sgmcmc_verify.paper_repro.ewsg.experiments import RATE_TOLERANCE

__all__ = ["SEED", "P", "TOL", "claim", "rows", "rates", "setting"]

SEED = "003_19372d6d86d2623b.txt"
P = "ewsg_iclr"
#: ±0.15 slope units around a rate, fixed before measuring (the journal study's band,
#: :data:`sgmcmc_verify.paper_repro.ewsg.experiments.RATE_TOLERANCE`): the pre-asymptotic curvature of a 4-6 point
#: log-log fit over one to two decades.
TOL = RATE_TOLERANCE


def claim(cid, source, statement, exps, **kw):
    """:func:`~sgmcmc_verify.ledger.claims.declare` with the paper's id, seed and experiment prefix filled in."""
    return declare(f"{P}.{cid}", P, f"{SEED}, {source}", statement, experiments=tuple(f"{P}.{e}" for e in exps), **kw)


def rows(root, name) -> list[dict]:
    """The rows of ``results/ewsg_iclr/<name>``."""
    return csv_rows(root, P, name)


def rates(root) -> dict:
    """``results/ewsg_iclr/thm4_rates.json`` (the Theorem 4 fits, Figs. 1j–l)."""
    return json_result(root, P, "thm4_rates.json")


def setting(root, exp: str) -> dict:
    """The settings the stored experiment ``ewsg_iclr.<exp>`` ran with."""
    return settings(root, f"{P}.{exp}")
