"""Wasserstein-2 distances between empirical measures, by POT: exact (network simplex) and entropic.

Both functions take two point clouds with uniform weights and report W2 (not squared), the unit of
the points. Exact W2 is ``ot.emd2`` on the squared-Euclidean cost; its solver status is checked
(a solver that stops at its iteration cap raises instead of returning a wrong number). The
entropic value is POT's log-domain Sinkhorn (``ot.bregman.sinkhorn_log``) run along a decreasing
sequence of penalties, each stage warm-started from the previous duals (ε-scaling), because at
small penalties plain Sinkhorn needs of the order of (cost range)/penalty iterations from a cold
start; whether the last stage converged is reported, never assumed.

The entropic plan's linear cost brackets the exact one: for the minimizer ``P_ε`` of
``⟨P, M⟩ − ε H(P)`` over couplings of two uniform measures on n and m points,
``W2² ≤ ⟨P_ε, M⟩ ≤ W2² + ε log min(n, m)`` (compare the objective at ``P_ε`` and at the exact
plan, and use ``max(log n, log m) ≤ H(P) ≤ log n + log m`` for every coupling). ``w2_sinkhorn``
returns this width so that a converged value can be checked against ``w2_exact``.

References
----------
HSG-HMC §"Gaussian mixture" (seed ``001_d56659fdb8996bf2.txt``): "Sinkhorn method with penalty
10⁻³"; LS-SGLD Table 2 (seed ``004_8438bd4b543e0fc4.txt``): W2 on 10⁴ samples.
Peyré & Cuturi, *Computational Optimal Transport* (2019), Prop. 4.1 and §4.4 (log domain);
Schmitzer (2019), ε-scaling.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..errors import check_positive, check_positive_int

__all__ = ["w2_exact", "w2_sinkhorn", "w2_many", "TransportBatch", "TransportProblem"]


def _points(name, x):
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] < 1:
        raise ValueError(f"{name} must be an (n, d) array of points with n >= 1, got shape {x.shape}")
    return x


def w2_exact(x, y, *, max_iter: int = 10**8) -> float:
    """Exact W2 (not squared) between the uniform empirical measures on ``x`` and ``y``.

    Parameters
    ----------
    x : (n, d) array_like
    y : (m, d) array_like
        Same ``d``.
    max_iter : int, default 1e8
        Network-simplex iteration cap passed to ``ot.emd2``.

    Returns
    -------
    float
        ``sqrt(min_P ⟨P, M⟩)``, ``M_ij = ‖x_i − y_j‖²``; ``inf`` when a point is not finite (a
        chain that left the floating-point range is infinitely far from the target; callers
        record it as such).

    Raises
    ------
    ValueError
        Bad shapes.
    RuntimeError
        The network simplex stopped before optimality (POT's ``result_code`` ≠ 1), naming the
        sizes and the cap.

    Notes
    -----
    Memory is one dense n × m float64 cost matrix (800 MB at n = m = 10⁴); time on one core is
    ≈ 25 s at n = m = 10⁴ for the 2-D mixtures here (``docs/benchmarks.md``).
    """
    import ot

    x, y = _points("x", x), _points("y", y)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"x and y must have the same dimension, got {x.shape[1]} and {y.shape[1]}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return float("inf")
    with np.errstate(over="ignore", invalid="ignore"):
        M = ot.dist(x, y)
    if not np.all(np.isfinite(M)):
        return float("inf")
    a = np.full(len(x), 1.0 / len(x))
    b = np.full(len(y), 1.0 / len(y))
    cost, log = ot.emd2(a, b, M, numItermax=int(max_iter), log=True)
    if log.get("result_code", 1) != 1:
        raise RuntimeError(f"ot.emd2 did not reach optimality on {len(x)} x {len(y)} points "
                           f"(result_code {log.get('result_code')}: {log.get('warning')}); max_iter={max_iter}")
    return float(math.sqrt(max(float(cost), 0.0)))


def w2_sinkhorn(x, y, reg: float, *, normalize: bool = False, max_iter: int = 5000,
                stop_thr: float = 1e-7, scaling: float = 0.5) -> dict:
    """Entropic W2 by log-domain Sinkhorn with ε-scaling (POT ``sinkhorn_log``, warm-started).

    Parameters
    ----------
    x : (n, d) array_like
    y : (m, d) array_like
    reg : float
        Entropic penalty ε > 0, on the scale of the cost actually used (see ``normalize``).
    normalize : bool, default False
        Divide the squared-distance cost by its maximum first (the habit of POT's tutorials);
        ``reg`` then acts on that scale, i.e. as ``reg · max M`` on the raw one.
    max_iter : int, default 5000
        Total Sinkhorn iterations over all stages. The penalties are ``c, c·s, c·s², …, reg`` with
        ``c`` the largest cost and ``s = scaling``; intermediate stages stop at ``stop_thr`` or at
        an equal share of the budget, the last stage gets what remains.
    stop_thr : float, default 1e-7
        POT's stopping threshold (L2 norm of the marginal violation).
    scaling : float in (0, 1), default 0.5

    Returns
    -------
    dict
        ``w2``: sqrt of the plan's linear cost ``⟨P, M⟩`` on the raw squared-distance scale;
        ``cost``: that cost on the scale used (divided by ``cost_max`` if normalized);
        ``reg``, ``reg_raw`` (penalty on the raw scale), ``normalize``, ``iterations``,
        ``stages``, ``final_err``, ``converged`` (``final_err < stop_thr``), ``cost_max``, and
        ``bracket_width_sq = reg_raw · log min(n, m)``: at convergence
        ``w2_exact² ≤ w2² ≤ w2_exact² + bracket_width_sq``.

    Raises
    ------
    ValueError
        Bad shapes, ``reg ≤ 0``, ``max_iter < 1``, ``scaling`` outside (0, 1), or non-finite
        points.
    """
    import ot

    x, y = _points("x", x), _points("y", y)
    reg = check_positive("reg", reg)
    max_iter = check_positive_int("max_iter", max_iter)
    if not 0.0 < scaling < 1.0:
        raise ValueError(f"scaling must be in (0, 1), got {scaling!r}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x and y must be finite for Sinkhorn (a diverged chain has no entropic W2)")
    a = np.full(len(x), 1.0 / len(x))
    b = np.full(len(y), 1.0 / len(y))
    M = ot.dist(x, y)
    mx = float(M.max())
    Mu = M / mx if normalize and mx > 0 else M
    regs = []
    r = float(Mu.max())
    while r > reg:
        regs.append(r)
        r *= scaling
    regs.append(reg)
    share = max(1, max_iter // (2 * len(regs)))
    warm, used, err = None, 0, float("nan")
    P = None
    for i, r in enumerate(regs):
        left = max_iter - used
        if left <= 0:
            break
        cap = left if i == len(regs) - 1 else min(share, left)
        with np.errstate(over="ignore", under="ignore"):
            P, log = ot.bregman.sinkhorn_log(a, b, Mu, r, numItermax=cap, stopThr=stop_thr, log=True,
                                             warmstart=warm, warn=False)
        warm = (log["log_u"], log["log_v"])
        used += int(log["niter"]) + 1
        err = float(log["err"][-1]) if len(log["err"]) else float("nan")
        last_reg = r
    reached = last_reg == reg
    lin = float(np.sum(P * M))
    reg_raw = reg * (mx if normalize else 1.0)
    return {"w2": math.sqrt(max(lin, 0.0)), "cost": lin / mx if normalize else lin, "reg": reg,
            "reg_raw": reg_raw, "normalize": bool(normalize), "iterations": used, "stages": len(regs),
            "final_err": err, "converged": bool(reached and err < stop_thr), "cost_max": mx,
            "bracket_width_sq": reg_raw * math.log(min(len(x), len(y)))}


def _call(fn, args, kwargs):
    return fn(*args, **kwargs)


def w2_many(tasks, *, n_jobs: int = 1, backend: str | None = None) -> list:
    """Evaluate independent transport problems in parallel with joblib, results in task order.

    Parameters
    ----------
    tasks : iterable of ``(fn, args, kwargs)``
        ``fn`` is ``w2_exact`` or ``w2_sinkhorn`` (any picklable callable works).
    n_jobs : int, default 1
    backend : str or None
        A joblib backend; ``None`` with ``n_jobs == 1`` runs in this process.

    Returns
    -------
    list
        ``fn(*args, **kwargs)`` for each task. Deterministic: the problems carry no randomness.
    """
    from joblib import Parallel, delayed, parallel_config

    tasks = list(tasks)
    if (n_jobs == 1 and backend is None) or len(tasks) <= 1:
        return [_call(f, a, k) for f, a, k in tasks]
    with parallel_config(n_jobs=n_jobs, **({"backend": backend} if backend is not None else {})):
        return list(Parallel()(delayed(_call)(f, a, k) for f, a, k in tasks))


@dataclass(eq=False)
class TransportProblem:
    """One transport problem of a :class:`TransportBatch`; ``result`` is set by :meth:`TransportBatch.solve`."""

    fn: Callable
    args: tuple
    kwargs: dict = field(default_factory=dict)
    result: Any = None
    solved: bool = False

    @property
    def value(self):
        """The solver's result; ``RuntimeError`` if the batch has not been solved yet."""
        if not self.solved:
            raise RuntimeError("transport problem read before TransportBatch.solve()")
        return self.result


class TransportBatch:
    """Gather every transport problem of a study, then solve them together over joblib workers.

    A study draws its point sets (in the order its random streams require) and adds one problem per
    W2 it needs; :meth:`solve` runs :func:`w2_many` once, and each returned
    :class:`TransportProblem` holds its own result. The problems carry no randomness, so the results
    do not depend on ``n_jobs`` or on the order of solving.

    Examples
    --------
    >>> batch = TransportBatch()
    >>> p = batch.exact(np.zeros((3, 1)), np.ones((3, 1)))
    >>> batch.solve()
    >>> p.value
    1.0
    """

    def __init__(self):
        self.problems: list[TransportProblem] = []

    def __len__(self) -> int:
        return len(self.problems)

    def add(self, fn, *args, **kwargs) -> TransportProblem:
        """Add ``fn(*args, **kwargs)`` (``w2_exact``, ``w2_sinkhorn`` or any picklable callable)."""
        p = TransportProblem(fn, args, kwargs)
        self.problems.append(p)
        return p

    def exact(self, x, y, **kwargs) -> TransportProblem:
        """Add an exact W2 problem (:func:`w2_exact`)."""
        return self.add(w2_exact, x, y, **kwargs)

    def sinkhorn(self, x, y, reg, **kwargs) -> TransportProblem:
        """Add an entropic W2 problem (:func:`w2_sinkhorn`)."""
        return self.add(w2_sinkhorn, x, y, reg, **kwargs)

    def solve(self, n_jobs: int = 1, backend: str | None = None) -> None:
        """Solve every unsolved problem (in parallel over ``n_jobs`` joblib workers)."""
        todo = [p for p in self.problems if not p.solved]
        for p, r in zip(todo, w2_many([(p.fn, p.args, p.kwargs) for p in todo], n_jobs=n_jobs, backend=backend)):
            p.result, p.solved = r, True
