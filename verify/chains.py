"""Chains out: the final states (and kept traces) of an experiment's chains as ArviZ ``InferenceData`` (netCDF).

``sgmcmc-verify run <id> --keep-chains`` (or :func:`keep_chains` from Python) runs the experiment while
:func:`sgmcmc_verify.runner.keeping_chains` records every :func:`~sgmcmc_verify.runner.run_chains` call, and
writes one netCDF file per chain group next to the results::

    results/<paper>/<experiment id>.chains/<label>_<sampler>.nc

A *chain group* is one run_chains call of one study: the blocks of a study (:func:`run_realizations`) are
concatenated along the chain axis in block order, so a group holds every realization of that study. Each file is
an ``InferenceData`` whose ``posterior`` group has one variable ``theta`` with dims ``(chain, draw, theta_dim)``:
``draw`` is the last ``keep_last`` steps where the experiment keeps a trace, else a single draw, the final state.
Its attributes say which (``what``), the sampler, its step size, the experiment and the scale. The files are listed
in the manifest (``"chains"``) and kept in the cache entry, so a stored run with chains is reused as it is; a stored
run without them is recomputed once (the numbers are the same: recording touches no random stream).

ArviZ is the optional extra ``chains`` (``pip install 'sgmcmc-verify[chains]'``; ``arviz>=0.17,<1``: the 0.x
``InferenceData`` API; ArviZ 1.x moved it to ``arviz_base``/``xarray.DataTree``).

Examples
--------
>>> import arviz as az                                                      # doctest: +SKIP
>>> from sgmcmc_verify.chains import keep_chains
>>> chains = keep_chains("ewsg.fig1b", "smoke", results_root="results")    # doctest: +SKIP
>>> idata = next(iter(chains.values()))                                     # doctest: +SKIP
>>> az.plot_pair(idata, var_names=["theta"])                                # doctest: +SKIP
"""
from __future__ import annotations

import re
import shutil
import warnings
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .runner import keeping_chains
from .store.io import read_json

__all__ = ["KEEPER", "ChainKeeper", "load_chains", "keep_chains", "arviz"]


def arviz():
    """The ``arviz`` module (0.x), or ``ImportError`` saying how to install the ``chains`` extra."""
    try:
        with warnings.catch_warnings():   # 0.23 announces its 1.x refactor at import
            warnings.simplefilter("ignore", FutureWarning)
            import arviz as az
    except ImportError as e:
        raise ImportError("keeping chains needs ArviZ: pip install 'sgmcmc-verify[chains]' (arviz>=0.17,<1)") from e
    return az


def _safe(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("_") or "chains"


class ChainKeeper:
    """What :func:`sgmcmc_verify.store.cache.run_experiment` calls to keep chains (``keep_chains=KEEPER``)."""

    def capture(self):
        """The context manager that records the run_chains calls (:func:`sgmcmc_verify.runner.keeping_chains`)."""
        arviz()   # fail before the run, not after it, when the extra is missing
        return keeping_chains()

    def write(self, records, directory, meta: Mapping[str, Any]) -> dict:
        """One netCDF ``InferenceData`` per chain group of ``records`` into ``directory``; returns the listing.

        Parameters
        ----------
        records : list of (label, record)
            From :func:`~sgmcmc_verify.runner.keeping_chains`.
        directory : path
            Created (``<cache entry>/chains``).
        meta : mapping
            ``id`` and ``scale`` of the run (file attributes).

        Returns
        -------
        dict
            ``{file name: {"label", "sampler", "step_size", "chains", "draws", "dim", "what"}}``.

        Raises
        ------
        ValueError
            Records of one group whose samplers or shapes differ (blocks of one study must agree).
        """
        az = arviz()
        groups: dict[str, list] = {}
        for label, rec in records:
            groups.setdefault(label, []).append(rec)
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        listing = {}
        for label, recs in groups.items():
            first = recs[0]
            if any(r["sampler"] != first["sampler"] or r["final"].shape[1:] != first["final"].shape[1:]
                   or (r["trace"] is None) != (first["trace"] is None) for r in recs):
                raise ValueError(f"chain group {label}: its blocks differ in sampler or shape")
            if first["trace"] is not None:
                theta = np.concatenate([r["trace"] for r in recs], axis=0)
                what = f"the last {theta.shape[1]} steps of each chain (the last draw is the final state)"
            else:
                theta = np.concatenate([r["final"] for r in recs], axis=0)[:, None, :]
                what = "the final state of each chain (one draw)"
            with warnings.catch_warnings():   # "more chains than draws": by design for final states
                warnings.filterwarnings("ignore", message="More chains", category=UserWarning)
                idata = az.from_dict(posterior={"theta": theta}, dims={"theta": ["theta_dim"]})
            idata.posterior.attrs.update({"experiment": str(meta.get("id")), "scale": str(meta.get("scale")),
                                          "sampler": first["sampler"], "step_size": first["step_size"],
                                          "group": label, "what": what, "source": "sgmcmc-verify run --keep-chains"})
            name = f"{_safe(label)}_{_safe(first['sampler'])}_h{first['step_size']:.4g}.nc"
            idata.to_netcdf(str(directory / name))
            listing[name] = {"label": label, "sampler": first["sampler"], "step_size": first["step_size"],
                             "chains": int(theta.shape[0]), "draws": int(theta.shape[1]), "dim": int(theta.shape[2]),
                             "what": what}
        return listing

    @staticmethod
    def publish(entry, dest) -> None:
        """Copy ``<entry>/chains`` to ``dest`` (``results/<paper>/<id>.chains``), replacing what was there."""
        src, dest = Path(entry) / "chains", Path(dest)
        if dest.exists():
            shutil.rmtree(dest)
        if src.is_dir():
            shutil.copytree(src, dest)


#: The keeper the command line and :func:`keep_chains` pass to ``run_experiment``.
KEEPER = ChainKeeper()


def load_chains(results_root, exp_id: str) -> dict:
    """The kept chains of ``exp_id`` under ``results_root`` as ``{file name: arviz.InferenceData}``.

    Raises
    ------
    FileNotFoundError
        No chains were kept for it (``sgmcmc-verify run <id> --keep-chains`` keeps them).
    ImportError
        ArviZ is not installed (the ``chains`` extra).
    """
    from .store.registry import get_experiment

    exp = get_experiment(exp_id)
    root = Path(results_root) / exp.paper
    manifest = read_json(root / f"{exp.id}.manifest.json")
    listing = manifest.get("chains")
    if listing is None:
        raise FileNotFoundError(f"no chains kept for {exp.id} under {root}: run `sgmcmc-verify run {exp.id} "
                                "--keep-chains` (or keep_chains()) first")
    az = arviz()
    return {name: az.from_netcdf(str(root / f"{exp.id}.chains" / name)) for name in listing}


def keep_chains(exp, scale: str = "default", *, results_root="results", **kwargs) -> dict:
    """Run (or reuse) ``exp`` keeping its chains; return them as ``{file name: arviz.InferenceData}``.

    The same files ``sgmcmc-verify run <id> --keep-chains`` writes (:func:`load_chains` reads them back).
    ``kwargs`` go to :func:`sgmcmc_verify.store.cache.run_experiment` (``n_jobs``, ``overrides`` ...).
    """
    from .store.cache import run_experiment

    m = run_experiment(exp, scale, results_root=results_root, keep_chains=KEEPER, **kwargs)
    return load_chains(results_root, m["id"])
