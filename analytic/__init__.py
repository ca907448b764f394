"""Exact mathematics, no randomness: closed forms for Gaussian targets and linear samplers."""
__all__ = ["gaussian", "linear_samplers", "time_average", "laplacian", "ls_constants", "ls_exact", "ou_integrator",
           "hsg_moments", "hsg_lemma3"]
