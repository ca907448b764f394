"""The toolkit's samplers as ``make audit`` runs them, derived from the registry (no hand-kept list).

Every factory of :data:`sgmcmc_verify.samplers.SAMPLERS` is audited (:func:`toolkit_audit` reads the
registry when it is called: a sampler added to it is audited). Its parameters come from the factory's
signature: a parameter named in :data:`AUDIT_PARAMETERS` that has no default gets the value there, and so
does a ``friction`` whose default is ``None`` (:data:`FILL_NONE`); every other parameter keeps its default. A required parameter not in the
table is an error naming the sampler and the parameter.

The values are the ones each paper's experiments use where a paper fixes them, else a choice stated
here: friction ``γ = 15`` (≈ 2√50, near critical damping on the §5.1 target, ``L = 50``) for the
underdamped samplers, including SG-UL-MCMC / HSG-HMC / SRVR-HMC (whose Remark 2 default
``e^{−γη} = 0.9`` would make γ grow as h → 0 and change the scheme along the h grid); smoothing
``σ = 1`` for the Laplacian-smoothed samplers; vrSG ``n1 = 10, n2 = 1``; HMC with 5 leapfrog steps;
SRVR-HMC's outer batch 10. Every sampler is expected weakly first order in h for its stationary
covariance except the Metropolis-corrected ones (HMC, MALA, random-walk MH, FlyMC), which are exact
(``expected_order=None``): a sampler is exact when the object its factory builds is one of
:data:`EXACT_TYPES`.
"""
from __future__ import annotations

import inspect
from collections.abc import Mapping

__all__ = ["TOOLKIT_AUDIT", "AUDIT_PARAMETERS", "FILL_NONE", "EXACT_TYPES", "toolkit_audit", "audit_parameters"]

_G = 15.0

#: parameter name → the value the toolkit audit gives it where the factory has no default (or ``None``).
AUDIT_PARAMETERS = {"friction": _G, "smoothing": 1.0, "n1": 10, "n2": 1, "num_steps": 5, "outer_batch_size": 10}


def _exact_types():
    from ..integrators.flymc import FireflyMC
    from ..integrators.metropolis import HMC, MALA
    from ..integrators.random_walk import RandomWalkMetropolis
    return (HMC, MALA, RandomWalkMetropolis, FireflyMC)


#: parameters whose default ``None`` the audit replaces too (a friction left to the Remark 2 default
#: ``e^{−γh} = 0.9`` would change with h along the grids).
FILL_NONE = ("friction",)

#: Metropolis-corrected integrators: exact for every h, no order expected (filled on first use).
EXACT_TYPES: tuple = ()


def audit_parameters(name: str, factory) -> dict:
    """The keyword arguments the toolkit audit gives ``factory`` (see the module docstring).

    Raises
    ------
    ValueError
        A required parameter that :data:`AUDIT_PARAMETERS` does not cover (names sampler and parameter).
    """
    out = {}
    for i, p in enumerate(inspect.signature(factory).parameters.values()):
        if i < 2 or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue                             # target, step_size
        if p.default is p.empty or (p.default is None and p.name in FILL_NONE):
            if p.name in AUDIT_PARAMETERS:
                out[p.name] = AUDIT_PARAMETERS[p.name]
            elif p.default is p.empty:
                raise ValueError(f"sampler {name!r}: required parameter {p.name!r} has no audit value; add it to "
                                 "sgmcmc_verify.audit.toolkit.AUDIT_PARAMETERS")
    return out


def toolkit_audit() -> dict:
    """``{name: (params, expected_order)}`` for every sampler of the registry, in registry order."""
    global EXACT_TYPES
    from ..samplers import SAMPLERS
    from ..targets.gaussian import gaussian_means_target

    if not EXACT_TYPES:
        EXACT_TYPES = _exact_types()
    t = gaussian_means_target()
    out = {}
    for name, f in SAMPLERS.items():
        p = audit_parameters(name, f)
        out[name] = (p, None if isinstance(f(t, 1e-3, **p), EXACT_TYPES) else 1.0)
    return out


class _Live(Mapping):
    """A read-only mapping recomputed from the registry on every access (``TOOLKIT_AUDIT``)."""

    def __getitem__(self, key):
        return toolkit_audit()[key]

    def __iter__(self):
        return iter(toolkit_audit())

    def __len__(self):
        return len(toolkit_audit())

    def __repr__(self):
        return f"TOOLKIT_AUDIT({toolkit_audit()!r})"


#: sampler name → (factory parameters, expected weak order or None): :func:`toolkit_audit`, read live.
TOOLKIT_AUDIT: Mapping = _Live()
