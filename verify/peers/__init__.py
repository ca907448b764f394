"""Adapters that run other libraries' samplers in the toolkit's sampler protocol (optional extras).

``sgmcmc_verify.peers.blackjax``: blackjax's SGLD and SGHMC kernels (JAX on CPU, float64), installed with the
``peers`` extra (``pip install -e '.[peers]'``). Importing this package needs nothing beyond NumPy; the
adapters import JAX when they are built.
"""
__all__ = ["blackjax"]
