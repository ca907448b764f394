"""Plotting code, one module per paper. Figures read stored results only; they never run a sampler."""
