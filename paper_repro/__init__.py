"""One subpackage per paper: settings (frozen dataclasses per experiment), experiments writing results/, claims.

============  =========================================================================================
package       paper (seed file in ``../shared/seeds/``)
============  =========================================================================================
``ewsg``      Li, Wang, Zha, Tao — EWSG, journal text (``000_8e0377c44e2ea3b8.txt``)
``ewsg_iclr`` Li, Wang, Zha, Tao — EWSG, conference text (``003_19372d6d86d2623b.txt``): §5.1 at n = 20, Theorem 2
``hsg_hmc``   Zhang, Li, Shen, Xie, Qian — HSG-HMC (``001_d56659fdb8996bf2.txt``)
``ls_sgld``   Wang, Zou, Gu, Osher — LS-SGLD (``004_8438bd4b543e0fc4.txt``)
``vrsg``      Chen, Wang, Zhang, Su, Carin — vrSG-MCMC (``002_245183f35db8d795.txt``)
============  =========================================================================================

Each package has ``settings``, its experiment modules, ``registry`` (the experiments, for the CLI and
the cache) and ``claims`` (the ledger entries); :mod:`sgmcmc_verify.store.registry` discovers them.
"""
__all__ = ["ewsg", "ewsg_iclr", "hsg_hmc", "ls_sgld", "vrsg"]
