"""The six methods of HSG-HMC's experiments (Table 2, Figure 2), built from the sampler registry.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: § "Experiments", Remark 2 (γ with ``e^{−γη} = 0.9``).
"""
from __future__ import annotations

from sgmcmc_verify import samplers
from sgmcmc_verify.integrators.exponential import friction_for_decay

__all__ = ["METHODS", "make_method"]

#: The six methods of Table 2, in the paper's row order.
METHODS = ("SGLD", "SGHMC", "SG-UL-MCMC", "SVRG-LD", "SRVR-HMC", "HSG-HMC")


def make_method(name: str, target, params: dict):
    """The sampler of Table 2 / Figure 2 named ``name`` with hyperparameters ``params``.

    ``params`` holds ``step_size`` and, for SRVR-HMC, ``outer_batch_size``, ``inner_batch_size`` and
    ``inner_loop_length``. SGHMC takes its friction from Remark 2's rule ``e^{−γh} = 0.9`` (the rule
    the text applies to the exponential-integrator methods, which take it by default); HSG-HMC uses
    the periodic schedule of Corollary 2.

    Raises
    ------
    ValueError
        ``name`` not one of :data:`METHODS`.
    """
    if name not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {name!r}")
    h = params["step_size"]
    if name == "SGHMC":
        extra = {"friction": friction_for_decay(h)}
    elif name == "SRVR-HMC":
        extra = {k: params[k] for k in ("outer_batch_size", "inner_batch_size", "inner_loop_length")}
    else:
        extra = {"schedule": "periodic"} if name == "HSG-HMC" else {}
    return samplers.build(name, target, h, **extra)
