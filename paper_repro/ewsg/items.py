"""The checkable items of the EWSG journal text (seed ``000_8e0377c44e2ea3b8.txt``) and the ledger entries that decide them.

The hand-kept half of the coverage table (:mod:`sgmcmc_verify.ledger.coverage`, ``docs/coverage.md``).
"""
from sgmcmc_verify.ledger.coverage import Item

P = "ewsg"

ITEMS = [
    Item("Theorem 4.1 (uniform subsampling suboptimal)", "theorem",
         "uniform subsampling is not the minimum-variance unbiased subsampling law",
         entries=(f"{P}.thm4.1.uniform_suboptimal",)),
    Item("Theorem 4.1, eq. (2) (sparsity of p*)", "theorem", "the LP optimum p* has at most d + 1 nonzero entries a.s.",
         entries=(f"{P}.thm4.1.sparse_optimum",)),
    Item("§4.2, eq. (4)", "equation", "with the weights (4) the SG and full-gradient EM kernels are identical",
         entries=("ewsg_iclr.thm2.kernels_identical",)),
    Item("Theorem 4.2 (E[Δ] < 0)", "theorem", "for x = O(√h) the exponential weights reduce the SG covariance trace",
         entries=(f"{P}.thm4.2.expected_variance_reduction", f"{P}.thm4.2.variance_reduction")),
    Item("Theorem 4.2 (concentration)", "theorem", "P(|Δ − EΔ| ≥ ε) ≤ 2 exp(−ε²/(n C h²)), C free of n and h",
         entries=(f"{P}.thm4.2.tail_bound",)),
    Item("Theorem 4.3, eq. (5), all three terms", "theorem", "MSE ≤ C1/T + C2 (h/T) E Tr cov + C3 h²",
         entries=(f"{P}.thm4.3.joint",)),
    Item("Theorem 4.3, first term; Fig. 1d", "figure", "the MSE decays like 1/T at small h",
         entries=(f"{P}.thm4.3.term1",)),
    Item("Theorem 4.3, second term; Fig. 1e", "figure", "at fixed T, small h, the MSE grows like h (the SG variance term)",
         entries=(f"{P}.thm4.3.term2", f"{P}.thm4.3.term2.fixed_T_slope", f"{P}.thm4.3.term2.ewsg_variance",
                  f"{P}.thm4.3.term2.sghmc_variance")),
    Item("Theorem 4.3, third term; Fig. 1f", "figure", "the long-run MSE scales like h², even for large h",
         entries=(f"{P}.thm4.3.term3", f"{P}.thm4.3.term3.ewsg_slope_readable", f"{P}.thm4.3.term3.sghmc_exact",
                  f"{P}.thm4.3.term3.sghmc_same_fit")),
    Item("Remark 1 (EWSG's local variance)", "remark", "the factor E Tr cov(n∇V_I | F_k) of (5) is smaller for EWSG",
         entries=(f"{P}.remark1.ewsg_smaller_factor",)),
    Item("Remark 1 (2nd term vs 3rd term); §4.4 'its effect is dominated by the variance effect'", "remark",
         "for moderate T the h/T term exceeds the O(h²) term (the small bias is dominated by the variance)",
         entries=(f"{P}.remark1.term2_dominates_term3.ewsg", f"{P}.remark1.term2_dominates_term3.sghmc")),
    Item("Remark 1 ('with or without bias, the 3rd term remains O(h²)')", "remark",
         "the bias of EWSG's approximations does not change the h² order of the long-run error",
         entries=(f"{P}.thm4.3.term3.ewsg_slope_readable", f"{P}.thm4.3.term3.sghmc_same_fit")),
    Item("§4.4 and §5.1 ('approximations due to M and x are not detrimental to the theory')", "claim",
         "Algorithm 1 with M = 1 and the recommended x still follows (5)", entries=(f"{P}.thm4.3.joint",)),
    Item("Remark 2", "remark", "relation to the literature; with unbiased SG the bound reduces to [41, 11]", not_run=(
        "a statement about other papers' bounds: nothing to measure")),
    Item("§4.4, eq. (6) (the Metropolis index chain)", "equation",
         "the index chain with acceptance (6) has the weights (4) as its stationary law", not_run=(
             "implemented in sgmcmc_verify.samplers.ewsg (index_chain_length M); tests/analytic/test_ewsg_theory.py::"
             "test_metropolis_law_matches_an_explicit_transition_matrix_and_leaves_weights_4_invariant checks the "
             "M-step law against an explicit transition matrix and that (4) is invariant, tests/verify/estimators/"
             "test_ewsg.py::test_index_chain_sampled_law_matches_exact_enumeration the sampled law (the uniform law "
             "rejected); no ledger entry")),
    Item("Algorithm 1 (EWSG)", "algorithm", "M + 1 gradients per step, Metropolis index chain, one EM step",
         not_run=(
             "implemented as sgmcmc_verify.samplers.ewsg; tests/analytic/test_ewsg_kernel.py::"
             "test_one_ewsg_step_has_the_mixture_law_of_the_exact_index_law checks one step's law exactly (with a "
             "planted dropped-half acceptance caught); run by every §5.1 entry; no entry of its own")),
    Item("§5.1, Fig. 1a (EWSG's accuracy)", "figure", "EWSG outperforms SGHMC, SGLD and pSGLD in accuracy",
         entries=(f"{P}.fig1a.ewsg_most_accurate",)),
    Item("§5.1, Fig. 1a (SVRG-LD)", "figure", "SVRG-LD has the best accuracy but the slowest convergence",
         entries=(f"{P}.fig1a.svrg_best_accuracy", f"{P}.fig1a.svrg_slowest")),
    Item("§5.1, Fig. 1b; §4.4 (the choice of x)", "figure", "the recommended x = √h γ r_k/σ performs better",
         entries=(f"{P}.fig1b.recommended_x_best",)),
    Item("§5.1, Fig. 1c (M = 1)", "figure", "M = 1 converges as fast as SGHMC (M = 0) but improves its accuracy",
         entries=(f"{P}.fig1c.m1_as_fast_as_sghmc",)),
    Item("§5.1, Fig. 1c (accuracy in M)", "figure", "as M increases, sampling accuracy improves",
         entries=(f"{P}.fig1c.accuracy_increases_with_M", f"{P}.fig1c.repeat_accuracy_increases_with_M")),
    Item("§5.2, Table 1 (accuracy)", "table", "EWSG has the best test accuracy after one pass (BLR, Covertype)",
         entries=(f"{P}.table1.ewsg_best_accuracy",)),
    Item("§5.2, Table 1 (log-likelihood)", "table", "EWSG's test log-likelihood beats the SG methods, comparable to FlyMC",
         entries=(f"{P}.table1.ewsg_loglik_comparable_to_flymc",)),
    Item("§5.2, Table 1 (wall time) and the sentence below Fig. 2", "table",
         "EWSG slightly slower than SGLD/SGHMC, faster than pSGLD, orders of magnitude faster than FlyMC",
         entries=(f"{P}.table1.wall_time",)),
    Item("§5.2, Fig. 2a-b", "figure", "BLR learning curves (accuracy, log-likelihood) of the five methods", not_run=(
        "a picture of the Table 1 runs (drawn as ewsg/table1_fig2.png); its claims are Table 1's")),
    Item("§5.3, Fig. 3a (MLP)", "figure", "EWSG improves over SGHMC and CP-SGHMC on the Bayesian MLP",
         entries=(f"{P}.bnn.mlp.ewsg_beats_sghmc_and_cp_sghmc",)),
    Item("§5.3, Fig. 3a text (SGLD, pSGLD)", "claim", "EWSG also outperforms SGLD and pSGLD",
         entries=(f"{P}.bnn.mlp.ewsg_beats_all",)),
    Item("§5.3, Fig. 3b (CNN)", "figure", "EWSG beats the other methods on the Bayesian CNN",
         entries=(f"{P}.bnn.cnn.ewsg_beats_all",)),
    Item("§5.3, the note on d > n", "claim", "EWSG outperforms SGHMC in the overparametrized MLP (d > 78,400 > n)",
         entries=(f"{P}.bnn.mlp.ewsg_beats_sghmc_and_cp_sghmc",)),
    Item("§5.3, 'comparable to some of the early works [12, 25]'", "claim",
         "the improvement over baselines on MNIST is comparable to early works", not_run=(
             "a comparison with other papers' reported numbers: nothing the toolkit can measure")),
    Item("Lemma C.1", "lemma", "the moments of the random vector field F_k^E are bounded",
         entries=(f"{P}.lemmaC1.field_moments_bounded",)),
    Item("Appendix D (minibatch b > 1)", "claim", "EWSG extends to minibatches and keeps its advantage",
         entries=(f"{P}.appD.minibatch_ewsg_beats_sghmc",)),
    Item("Appendix E (EWSG for overdamped Langevin)", "algorithm",
         "the weights approximate the full-gradient overdamped kernel; EWSG-LD beats SGLD",
         entries=(f"{P}.appE.more_accurate_than_sgld",)),
    Item("Appendix F, eq. (13) and Γ_k", "equation", "the raised friction restores the stationary law",
         entries=(f"{P}.appF.eq13.friction_restores_stationary_law",)),
    Item("Algorithm 2 (EWSG-VR)", "algorithm", "SVRG estimate of cov[n∇V_I], friction Γ_k, calibration every L passes",
         not_run=(
             "implemented as sgmcmc_verify.samplers.ewsg_vr; tests/verify/estimators/test_ewsg_vr.py checks the "
             "moment updates of lines 16-19, the calibration moments, the data-pass count and (with a doubled "
             "correction caught) the corrected friction's exact stationary variance; run by the Fig. 4/5 entries; "
             "no entry of its own")),
    Item("Appendix F, Fig. 4 (accuracy)", "figure", "EWSG-VR achieves better KL than EWSG",
         entries=(f"{P}.fig4.ewsg_vr_most_accurate", f"{P}.fig4.ewsg_vr_most_accurate.smaller_h")),
    Item("Appendix F, Fig. 4 (speed)", "figure", "EWSG-VR is significantly faster than FG",
         entries=(f"{P}.fig4.ewsg_vr_faster_than_fg",)),
    Item("Appendix F, Fig. 5 (convergence in passes)", "figure", "SG methods converge in tens of passes, FG in hundreds",
         entries=(f"{P}.fig5.sg_tens_fg_hundreds",)),
    Item("Appendix F, Fig. 5 (EWSG vs SGHMC)", "figure", "EWSG is closer to FG than SGHMC (test log-likelihood)",
         entries=(f"{P}.fig5.ewsg_closer_to_fg_than_sghmc",)),
    Item("Appendix F, Fig. 5 (EWSG-VR)", "figure", "EWSG-VR is more accurate than EWSG but converges slower",
         entries=(f"{P}.fig5.ewsg_vr_closest", f"{P}.fig5.ewsg_vr_slower_than_ewsg")),
    Item("Appendix F, last paragraph", "remark", "EWSG-VR's full passes may not suit very large data sets", not_run=(
        "advice with no measurable statement beyond Fig. 4's cost, which ewsg.fig4.ewsg_vr_faster_than_fg counts")),
    Item("Appendix G.1, Fig. 6a", "figure", "FlyMC's histogram of data used per iteration", not_run=(
        "measured and drawn (paper_repro/ewsg/misspecified.py writes g1_used.csv; figures/ewsg_flymc.py draws it); "
        "the text states no number about it, so no entry")),
    Item("Appendix G.1, Fig. 6b", "figure", "FlyMC's autocorrelation decays very slowly, EWSG's much faster",
         entries=(f"{P}.g1.flymc_slow_autocorrelation",)),
    Item("Appendix G.1, Fig. 6c-d", "figure", "EWSG's samples centre on the mode, FlyMC's are still far away",
         entries=(f"{P}.g1.flymc_far_from_posterior",)),
    Item("Appendix G.2, Table 2 (MLP column)", "table", "EWSG has the lowest MLP test error after 200 epochs",
         entries=(f"{P}.bnn.mlp.ewsg_beats_all",)),
    Item("Appendix G.2, Table 2 (CNN column)", "table", "EWSG has the lowest CNN test error after 200 epochs",
         entries=(f"{P}.bnn.cnn.ewsg_beats_all",)),
    Item("Appendix G.3 (the question)", "claim", "EWSG with minibatch b beats SGHMC with minibatch b(M + 1)",
         entries=(f"{P}.appG3.ewsg_beats_larger_minibatch",)),
    Item("Appendix G.3, Table 3 (cells)", "table", "the nine cells b ∈ {100, 200, 500} × M + 1 ∈ {2, 5, 10}",
         entries=tuple(f"{P}.table3.b{b}_m{m}" for b in (100, 200, 500) for m in (2, 5, 10))),
    Item("Appendix G.3, Table 3 (count)", "table", "EWSG wins 8 of the 9 comparison groups",
         entries=(f"{P}.table3.eight_of_nine",)),
    Item("Theorem H.1 (Appendix H)", "theorem", "with P(I_k = i) = 1/n + O(h^p) the mean stays within O(h^p) of SGHMC's",
         entries=(f"{P}.thmH1.mean_within_O_hp",)),
]
