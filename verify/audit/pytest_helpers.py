"""The audit in a user's own test suite: one line asserts "first order, no bias as h → 0, moves to its
target, stable to 2/L" on a sampler factory.

Example (a test file of one's own; the factory follows :class:`~sgmcmc_verify.audit.protocol.AuditedSampler`)::

    from sgmcmc_verify.audit.pytest_helpers import assert_sampler
    from mypkg.samplers import my_sgld

    def test_my_sgld_is_a_correct_first_order_sampler():
        assert_sampler(my_sgld, order=1, stable_to=2.0)      # smoke scale: ~30 s

On a failure the ``AssertionError`` lists every row that failed with its verdict sentence (measured, expected,
why), and the folder of the numbers when ``results`` is given.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

__all__ = ["assert_sampler", "audit_rows"]


def audit_rows(factory, params=None, *, checks, scale="smoke", order=1.0, results=None, timeout=600.0,
               settings=None) -> tuple[dict, dict]:
    """Run :func:`sgmcmc_verify.audit.audit` on ``checks`` and return ``(rows by check id, data by check id)``.

    ``results=None`` writes to a temporary folder that is removed afterwards.
    """
    from .battery import audit

    def run(folder):
        rep = audit(factory, params, scale=scale, name="under_test", expected_order=order, results=folder,
                    checks=tuple(checks), timeout=timeout, settings=settings)
        data = {r["id"]: json.loads((Path(rep["path"]) / f"{r['id']}.json").read_text())["data"] for r in rep["rows"]}
        return {r["id"]: r for r in rep["rows"]}, data

    if results is not None:
        return run(results)
    with tempfile.TemporaryDirectory(prefix="sgmcmc-audit-") as d:
        return run(d)


def assert_sampler(factory, params=None, *, order: float | None = 1.0, stable_to: float | None = None,
                   mixing: bool = True, scale: str = "smoke", results=None, timeout: float = 600.0,
                   settings=None) -> dict:
    """Assert that a sampler factory passes the audit's consistency (and, optionally, mixing and stability) checks.

    Parameters
    ----------
    factory : callable or str
        ``factory(target, step_size, **params)`` (or a spec for :func:`~sgmcmc_verify.audit.load_factory`).
    params : dict, optional
        Keyword arguments of the factory other than the step size.
    order : float or None, default 1
        The weak order expected of the stationary covariance error (``None``: an exact sampler, no order).
        Asserted: check 1 on the §5.1 Gaussian is ``pass`` — no bias left as h → 0 (the error extrapolated
        to h = 0 is 0), the order within ``order ± 0.3``, and chains from a displaced start reach the law.
    stable_to : float or None
        ``h·L`` the sampler must be stable to on the stiff Gaussian of check 5 (e.g. 2.0 for overdamped
        Langevin: stable to 2/L), within one grid cell (ratio 2^{1/4}); ``None`` skips check 5.
    mixing : bool, default True
        Also assert the mixing check (moves; a displaced start reaches the law).
    scale : {"smoke", "default"}
    results : path or None
        Where to keep the numbers (``results/audit/under_test/``); ``None``: a temporary folder.
    timeout : float
        Seconds per check.
    settings : AuditSettings, optional
        Settings in place of the scale's.

    Returns
    -------
    dict
        The rows by check id (when every assertion holds).

    Raises
    ------
    AssertionError
        A check did not pass (every failing row with its verdict sentence).
    sgmcmc_verify.audit.protocol.ProtocolError
        The sampler does not follow the protocol.

    Examples
    --------
    >>> from sgmcmc_verify.audit.pytest_helpers import assert_sampler
    >>> from sgmcmc_verify import samplers
    >>> rows = assert_sampler(samplers.sgld, stable_to=2.0)            # doctest: +SKIP
    """
    checks = ["consistency_gaussian"] + (["mixing"] if mixing else []) + (["stability"] if stable_to else [])
    rows, data = audit_rows(factory, params, checks=checks, scale=scale, order=order, results=results,
                            timeout=timeout, settings=settings)
    bad = [f"{r['check']}: {r['status']} — {r['detail']}" for c, r in rows.items()
           if c != "stability" and r["status"] != "pass"]
    if stable_to:
        st = data["stability"]
        largest = st.get("largest_stable_hL")
        grid = st.get("hL") or [stable_to]
        ratio = (grid[1] / grid[0]) if len(grid) > 1 else 2 ** 0.25
        if rows["stability"]["status"] in ("flagged", "warn") or largest is None or largest * ratio ** 1.0001 < stable_to:
            bad.append(f"stability: expected stable to h·L = {stable_to:g} (one grid cell, ratio {ratio:.3f}); "
                       f"largest stable h·L = {largest} — {rows['stability']['detail']}")
    if bad:
        raise AssertionError(f"the audit of {getattr(factory, '__name__', factory)} failed "
                             f"({scale} scale):\n  " + "\n  ".join(bad))
    return rows
