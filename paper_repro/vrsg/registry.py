"""The vrSG-MCMC experiments, registered for the CLI, the cache and the claims ledger."""
from __future__ import annotations

from verify.store.registry import Experiment, register_experiment

EXPERIMENTS: list[Experiment] = []

register_experiment(*EXPERIMENTS)
