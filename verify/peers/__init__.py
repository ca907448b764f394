"""Adapters that run other libraries' samplers in the toolkit's sampler protocol (optional extras).

- ``sgmcmc_verify.peers.blackjax``: blackjax's SGLD and SGHMC kernels (JAX on CPU, float64), extra ``peers``.
- ``sgmcmc_verify.peers.posteriors``: posteriors' SGLD, SGHMC, SGNHT and BAOA (PyTorch on CPU, float64),
  extra ``peers-torch`` (install ``torch==2.13.0`` first).
- ``sgmcmc_verify.peers.sgmcmcjax``: SGMCMCJax's SGLD, SGLD-CV, SVRG-LD, pSGLD, SGHMC, SGNHT, BAOAB and
  BADODAB (JAX on CPU, float64), extra ``peers-jax``.

Every factory has the toolkit's factory signature ``factory(target, step_size, **params)`` with ``step_size``
the toolkit's ``h`` (each module's docstring maps it to the peer's parameters, with file:line of the peer's
source), so it runs through the audit (``sgmcmc-verify audit sgmcmc_verify.peers.posteriors:sgnht_factory
--param friction=15``), :func:`sgmcmc_verify.runner.run_chains` and the pytest helper like a toolkit sampler.
Importing this package needs nothing beyond NumPy; the adapters import their library when they are built.
"""
__all__ = ["blackjax", "posteriors", "sgmcmcjax"]
