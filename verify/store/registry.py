"""The one place where the toolkit discovers papers, their experiments and claims, and the figure modules.

* Papers are the subpackages of :mod:`sgmcmc_verify.paper_repro` (``sgmcmc_verify.paper_repro.<paper>``). Each may have a
  ``registry`` module (registering its :class:`Experiment` objects with
  :func:`register_experiment`) and a ``claims`` module (registering its claims with
  :func:`sgmcmc_verify.ledger.claims.register`); :func:`import_paper_modules` imports them.
* Figures are the modules ``sgmcmc_verify.figures.<paper>`` with a ``draw_all(results_dir, out_dir)`` function
  (:func:`figure_modules`).
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from types import ModuleType
from typing import Callable

__all__ = ["Experiment", "register_experiment", "load_all_experiments", "get_experiment", "all_experiments",
           "paper_ids", "import_paper_modules", "figure_modules", "PROJECT_PACKAGES", "registered_experiments"]

#: The top-level import name of this project (the code fingerprint of a result follows imports into it only).
PROJECT_PACKAGES = ("sgmcmc_verify",)


@dataclass(frozen=True)
class Experiment:
    """One experiment.

    id : str                       ``<paper>.<name>``, e.g. ``"ewsg.fig1a"``
    paper : str
    description : str
    module : str                   module whose code (and in-project imports) is fingerprinted
    outputs : tuple of str         file names the run writes (relative to its directory)
    settings : type                a :class:`~sgmcmc_verify.store.settings.ScaledSettings` subclass; the
                                   experiment receives ``settings.at(scale)`` and reads nothing else
    run : callable(cfg, out_dir, n_jobs, backend, progress) -> None   writes ``outputs``
    timing : bool                  its outputs include wall-clock measurements that claims read (EWSG Table 1,
                                   vrSG-MCMC Figure 1): ``run --concurrent K`` runs it alone, with nothing beside it
    """

    id: str
    paper: str
    description: str
    module: str
    outputs: tuple
    settings: type
    run: Callable[..., None]
    timing: bool = False


_EXPERIMENTS: dict[str, Experiment] = {}


def register_experiment(*exps: Experiment) -> None:
    """Add experiments to the registry (re-registering an id replaces it).

    Raises
    ------
    ValueError
        An id that does not start with its paper id, or settings that are not a scaled-settings class.
    """
    from .settings import ScaledSettings

    for e in exps:
        if not e.id.startswith(e.paper + "."):
            raise ValueError(f"experiment id {e.id!r} must start with its paper id {e.paper!r}")
        if not (isinstance(e.settings, type) and issubclass(e.settings, ScaledSettings)):
            raise ValueError(f"experiment {e.id!r}: settings must be a ScaledSettings subclass, got {e.settings!r}")
        _EXPERIMENTS[e.id] = e


def registered_experiments() -> dict[str, Experiment]:
    """The experiments registered so far in this process (no paper module is imported)."""
    return dict(_EXPERIMENTS)


def paper_ids() -> list[str]:
    """The paper packages under :mod:`sgmcmc_verify.paper_repro`, sorted."""
    from sgmcmc_verify import paper_repro

    return sorted(m.name for m in pkgutil.iter_modules(paper_repro.__path__) if m.ispkg)


def import_paper_modules(submodule: str) -> None:
    """Import ``sgmcmc_verify.paper_repro.<paper>.<submodule>`` for every paper package that has one."""
    for paper in paper_ids():
        try:
            importlib.import_module(f"sgmcmc_verify.paper_repro.{paper}.{submodule}")
        except ModuleNotFoundError as e:
            if e.name != f"sgmcmc_verify.paper_repro.{paper}.{submodule}":
                raise


def load_all_experiments() -> dict[str, Experiment]:
    """Import ``sgmcmc_verify.paper_repro.<paper>.registry`` for every paper package; return the registry."""
    import_paper_modules("registry")
    return dict(_EXPERIMENTS)


def all_experiments() -> list[Experiment]:
    """Every registered experiment, sorted by id."""
    reg = load_all_experiments()
    return [reg[k] for k in sorted(reg)]


def get_experiment(exp_id: str) -> Experiment:
    """The experiment with this id; ``KeyError`` naming the known ids otherwise."""
    reg = load_all_experiments()
    if exp_id not in reg:
        raise KeyError(f"unknown experiment {exp_id!r}; known: {', '.join(sorted(reg))}")
    return reg[exp_id]


def figure_modules() -> dict[str, ModuleType]:
    """``{paper: sgmcmc_verify.figures.<paper>}`` for every module of :mod:`sgmcmc_verify.figures` that has ``draw_all``."""
    from sgmcmc_verify import figures

    out = {}
    for m in pkgutil.iter_modules(figures.__path__):
        if m.name.startswith("_"):
            continue
        mod = importlib.import_module(f"sgmcmc_verify.figures.{m.name}")
        if hasattr(mod, "draw_all"):
            out[m.name] = mod
    return out
