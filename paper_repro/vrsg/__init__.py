"""vrSG-MCMC: Chen, Wang, Zhang, Su, Carin — "A Convergence Analysis for a Class of Practical Variance-Reduction
SG-MCMC" (AAAI 2018), seed ``002_245183f35db8d795.txt``.

Modules: ``settings`` (one frozen dataclass per experiment), the experiment modules, ``registry`` (the
experiments, for the CLI and the cache) and ``claims`` (the ledger entries).
"""
