"""Settings of the vrSG-MCMC experiments: one frozen :class:`~verify.store.settings.ScaledSettings` per experiment.

Seed ``002_245183f35db8d795.txt``. Each class states where the paper gives a setting and where it is
silent (and what was chosen).
"""
from __future__ import annotations

__all__: list[str] = []
