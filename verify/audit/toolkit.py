"""The toolkit's samplers as ``make audit`` runs them: the factory parameters the battery uses.

The parameters are the ones each paper's experiments use where a paper fixes them, else a choice
stated here: friction ``γ = 15`` (≈ 2√50, near critical damping on the §5.1 target, ``L = 50``) for the
underdamped samplers, including SG-UL-MCMC / HSG-HMC / SRVR-HMC (whose Remark 2 default
``e^{−γη} = 0.9`` would make γ grow as h → 0 and change the scheme along the h grid); smoothing
``σ = 1`` for the Laplacian-smoothed samplers; vrSG ``n1 = 10, n2 = 1``; HMC with 5 leapfrog steps.
Every one is expected weakly first order in h for its stationary covariance except the
Metropolis-corrected references (HMC, MALA), which are exact (``expected_order=None``).
"""
from __future__ import annotations

__all__ = ["TOOLKIT_AUDIT"]

_G = 15.0

#: sampler name (``sgmcmc_verify.samplers.SAMPLERS``) → (factory parameters, expected weak order or None)
TOOLKIT_AUDIT: dict[str, tuple[dict, float | None]] = {
    "SGLD": ({}, 1.0),
    "pSGLD": ({}, 1.0),
    "SVRG-LD": ({}, 1.0),
    "vrSG-LD": ({"n1": 10, "n2": 1}, 1.0),
    "LS-SGLD": ({"smoothing": 1.0}, 1.0),
    "LS-GLD": ({"smoothing": 1.0}, 1.0),
    "LS-LD": ({"smoothing": 1.0}, 1.0),
    "LS-pSGLD": ({"smoothing": 1.0}, 1.0),
    "EWSG-LD": ({}, 1.0),
    "SGHMC": ({"friction": _G}, 1.0),
    "EWSG": ({"friction": _G}, 1.0),
    "FG": ({"friction": _G}, 1.0),
    "EWSG-VR": ({"friction": _G}, 1.0),
    "vrSG-HMC": ({"friction": _G, "n1": 10, "n2": 1}, 1.0),
    "SG-UL-MCMC": ({"friction": _G}, 1.0),
    "HSG-HMC": ({"friction": _G}, 1.0),
    "SRVR-HMC": ({"friction": _G, "outer_batch_size": 10}, 1.0),
    "HMC": ({"num_steps": 5}, None),
    "MALA": ({}, None),
}
