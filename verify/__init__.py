"""sgmcmc-verify: reference stochastic-gradient MCMC samplers and the measurements that check the papers' claims.

Sub-modules
-----------
targets     finite-sum potentials with known answers
estimators  gradient estimators (uniform minibatch, EWSG index chain, SVRG control variate, full gradient)
samplers    integrators composed with an estimator (SGLD, pSGLD, SGHMC/EWSG/FG, SVRG-LD)
runner      realizations in blocks, seeded from one SeedSequence, parallel with joblib
metrics     KL, W2, MSE of time averages
rates       log-log slope fits with bootstrap intervals, the joint fit of Theorem 4.3's bound
claims      the ledger; experiments: registry and keyed result store; report; baseline; cli
"""
__all__ = ["errors", "targets", "logistic", "datasets", "estimators", "samplers", "exponential", "mcmc",
           "ls_samplers", "ls_targets", "hsg_estimators", "mixture_targets", "runner", "metrics", "rates", "io",
           "claims", "experiments", "report", "baseline", "cli"]
