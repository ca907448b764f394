"""Reading helpers shared by the EWSG journal text's claims (``ewsg``) and the conference text's (``ewsg_iclr``).

Both texts run the same §5.1 Gaussian study (n = 50 in the journal, n = 20 in the conference text) and store its KL
curves and slope fits in the same format. These helpers read stored results and return numbers; they never decide
(the ledger's rules do, :mod:`sgmcmc_verify.ledger.rules`). Public so that neither paper imports the other's private
names (issue #24, item 1).
"""
from __future__ import annotations

__all__ = ["last_checkpoints", "passes_to_settle", "FIXED_T_WHY"]

#: Why a fixed-T slope of the total MSE cannot refute the second term of the time-average bound (journal eq. (5),
#: conference eq. (6)): the h-independent C1/T term flattens it. The ``masked=`` reason of both texts' fixed-T slope.
FIXED_T_WHY = ("the h-independent C1/T term flattens a fixed-T slope of the total MSE (its log-slope is "
               "C2h/(C1 + C2h) < 1 in the small-h regime), so this slope cannot confirm or refute the h/T term")


def last_checkpoints(rows) -> dict:
    """``{label: row}``: each run's last checkpoint (its recorded passes may overshoot the budget slightly).

    Parameters
    ----------
    rows : list of dict
        Rows of a KL-curve CSV (``label``, ``passes``, ...), as :func:`sgmcmc_verify.store.io.read_csv` returns them.

    Examples
    --------
    >>> last_checkpoints([{"label": "A", "passes": 1.0, "kl": 2.0}, {"label": "A", "passes": 2.0, "kl": 1.0}])
    {'A': {'label': 'A', 'passes': 2.0, 'kl': 1.0}}
    """
    fin = {}
    for r in rows:
        if r["label"] not in fin or r["passes"] >= fin[r["label"]]["passes"]:
            fin[r["label"]] = r
    return fin


def passes_to_settle(rows, label, factor=1.1):
    """Data passes after which the KL of ``label`` stays within ``factor`` of its final value.

    Parameters
    ----------
    rows : list of dict
        Rows of a KL-curve CSV (``label``, ``passes``, ``kl``).
    label : str
        The run (method) whose curve is read.
    factor : float
        The KL must stay at or below ``factor`` times its value at the last checkpoint (> 1).

    Returns
    -------
    float
        The first checkpoint (in data passes) from which the curve stays within the factor; the last checkpoint
        when it never settles earlier.

    Raises
    ------
    ValueError
        No row of ``label``, or ``factor`` not above 1.

    Examples
    --------
    >>> rows = [{"label": "A", "passes": p, "kl": k} for p, k in ((0.5, 9.0), (1.0, 1.5), (1.5, 1.05), (2.0, 1.0))]
    >>> passes_to_settle(rows, "A", 1.1), passes_to_settle(rows, "A", 2.0)
    (1.5, 1.0)
    """
    if not factor > 1:
        raise ValueError(f"factor must be > 1, got {factor}")
    rr = sorted((r for r in rows if r["label"] == label), key=lambda r: r["passes"])
    if not rr:
        raise ValueError(f"label: no rows of {label!r}")
    final = rr[-1]["kl"]
    for r in rr:
        if all(x["kl"] <= factor * final for x in rr if x["passes"] >= r["passes"]):
            return r["passes"]
    return rr[-1]["passes"]


def kl_estimates(rows, realizations: int) -> dict:
    """``{label: Estimate}``: the KL at each run's last checkpoint with its bootstrap s.e. over ``realizations``.

    Parameters
    ----------
    rows : list of dict
        Rows of a KL-curve CSV (``label``, ``passes``, ``kl``, ``kl_se``).
    realizations : int
        Independent realizations behind each KL (the ensemble the bootstrap resamples).
    """
    from sgmcmc_verify.ledger.measures import Estimate

    return {k: Estimate(r["kl"], r["kl_se"], n=int(realizations)) for k, r in last_checkpoints(rows).items()}


def settle_passes(rows, factor: float) -> dict:
    """``{label: Estimate}``: the data passes after which each run's KL stays within ``factor`` of its final value
    (:func:`passes_to_settle`; a checkpoint count read off the stored curve, exact at the checkpoint resolution)."""
    from sgmcmc_verify.ledger.measures import Estimate

    return {k: Estimate(passes_to_settle(rows, k, factor)) for k in last_checkpoints(rows)}


def exact_local_slope(loc) -> "object":
    """The exact local slope of SGHMC's stationary bias² on the smallest-h window (``loc[0]`` of the stored
    ``exact_local_slopes``), as an exact :class:`~sgmcmc_verify.ledger.measures.Estimate`."""
    from sgmcmc_verify.ledger.measures import Estimate

    return Estimate(loc[0]["exact_slope"])


__all__ += ["kl_estimates", "settle_passes", "exact_local_slope"]
