"""The checkable items of the vrSG-MCMC text (seed ``002_245183f35db8d795.txt``) and the ledger entries that decide them.

The hand-kept half of the coverage table (:mod:`sgmcmc_verify.ledger.coverage`, ``docs/coverage.md``).
"""
from sgmcmc_verify.ledger.coverage import Item

P = "vrsg"

ITEMS = [
    Item("Lemma 1 (Chen, Ding and Carin 2015)", "lemma", "bias and MSE bounds of SG-MCMC with a Kth-order integrator",
         not_run=("a cited result; its MSE structure in the minibatch size is what Theorem 3's entries test")),
    Item("Preliminaries, 'the term E ΔV_l vanishes'; eq. (10)", "equation",
         "vrSG-MCMC's stochastic gradient is an unbiased estimate of the full gradient",
         entries=(f"{P}.eq10.unbiased",)),
    Item("Introduction, 'the same bias bound as standard SG-MCMC'", "claim",
         "vrSG-MCMC has the stationary bias of the SG-MCMC it wraps", entries=(f"{P}.intro.same_bias_bound",)),
    Item("Assumption 1 (T ∝ nL) and Assumption 2", "assumption", "a fixed budget linear in nL; ergodicity and the "
         "Poisson equation's regularity", not_run=("hypotheses: nothing to measure; Assumption 1 sets the budgets of "
                                                  "the Corollary 4 entries")),
    Item("Lemma 2", "lemma", "Γ_l ≥ 0", entries=(f"{P}.lemma2.gamma_nonnegative",)),
    Item("Lemma 2 vs the proof of Theorem 3, eq. (7)", "lemma", "the printed Γ_l (i ≠ j) is the bracket of (7) (i < j)",
         entries=(f"{P}.lemma2.printed_forms_agree",)),
    Item("Theorem 3", "theorem", "MSE ≤ C((N − n)N²Γ_M/(nL) + 1/(Lh) + h²)", entries=(
        f"{P}.thm3.three_terms", f"{P}.thm3.constant_independent_of_n")),
    Item("Theorem 3, statement vs proof (the factor 2)", "theorem", "the stated first term bounds the exact noise",
         entries=(f"{P}.thm3.statement_constant",)),
    Item("Proof of Theorem 3, eq. (6)-(7)", "equation", "E‖ΔV_l‖² = (N − n)N²Γ_l/n without replacement",
         entries=(f"{P}.thm3.eq7_without_replacement",)),
    Item("Text after Theorem 3 (the optimal n)", "claim", "the optimal minibatch size is O(8T/(27N⁶Γ_M³))",
         entries=(f"{P}.cor4.optimal_n_formula",)),
    Item("Corollary 4, case 1; Abstract ('a larger minibatch size leads to a faster decrease')", "corollary",
         "small budget: the bound decreases in n, minimum at n = N", entries=(f"{P}.cor4.small_budget_full_batch",)),
    Item("Corollary 4, case 2", "corollary", "large budget: the bound increases in n, minimum at n = 1",
         entries=(f"{P}.cor4.large_budget_unit_batch",)),
    Item("Corollary 4, case 3 (the thresholds)", "corollary",
         "between 27/8 Γ³N⁶ and N⁷ the optimum is at n = 1 or n = N", entries=(f"{P}.cor4.crossover_scale",)),
    Item("Algorithm 1 (vrSG-MCMC)", "algorithm",
         "old gradient on n1 data every m steps, current correction on n2 data", entries=(
             f"{P}.alg1.costs_and_refresh", f"{P}.alg1.full_anchor_is_svrg_ld")),
    Item("Algorithm 1 ('Sample w/t replacement') vs eq. (7) and Proposition 10", "claim",
         "which sampling scheme the identities describe", entries=(
             f"{P}.thm3.eq7_algorithm1_sampling", f"{P}.prop10.algorithm1_sampling")),
    Item("Comparison with SVRG-LD; Appendix 'Discussion of ... Dubey et al. 2016', eq. (13)-(15)", "claim",
         "Dubey et al.'s bound does not show an improvement over SGLD; Theorem 6 does", entries=(
             f"{P}.dubey.bound13_no_improvement", f"{P}.dubey.theorem6_improvement_on_model")),
    Item("Lemma 5", "lemma", "E α_li = E β_li + O(mh)", entries=(f"{P}.lemma5.mean_difference_O_mh",)),
    Item("Lemma 9 (Lemma 8 of Chen et al. 2016)", "lemma", "the τ-step-old parameter bound", not_run=(
        "a cited result; its use is checked through Lemma 5's entry")),
    Item("Theorem 6 (λ_l as printed)", "theorem", "λ_l > 0", entries=(f"{P}.thm6.lambda_printed_positive",)),
    Item("Theorem 6 and the text after it (n1 > n2)", "theorem",
         "λ_l > 0 iff n1 > n2; otherwise the bound is worse than SG-MCMC's", entries=(f"{P}.thm6.lambda_sign",)),
    Item("Text after Theorem 6 (the improvement O(λ_M/L))", "claim",
         "vrSG-MCMC has a lower MSE bound than the SG-MCMC it wraps", entries=(
             f"{P}.thm6.mse_improves_iff_n1_gt_n2",)),
    Item("Proof of Theorem 6 (the O(mh) term)", "equation", "replacing α by β costs O(mh)",
         entries=(f"{P}.thm6.remainder_O_mh",)),
    Item("Remark 7", "remark", "with n1 = N (Dubey et al.) λ_l is positive; the bound is not necessarily better", entries=(
        f"{P}.remark7.lambda_is_theorem6_at_N", f"{P}.remark7.lambda_positive")),
    Item("Remark 8 (the budget form of Theorem 6)", "remark", "O((A_M + mh − λ_M)(n1/m + n2)/T + 1/(Lh) + h²)",
         entries=(f"{P}.remark8.budget_form",)),
    Item("Remark 8, last sentence", "claim", "vrSG-MCMC always improves standard SG-MCMC at the same computational time",
         entries=(f"{P}.remark8.always_improves",)),
    Item("Eq. (12)", "equation", "E‖ΔV_l‖² = A_l + B_l + 2C_l", entries=(f"{P}.eq12.factor_two",)),
    Item("Proposition 10 (A_l, B_l)", "proposition", "the closed forms of A_l and B_l", entries=(
        f"{P}.prop10.A_and_B",)),
    Item("Proposition 10 (C_l)", "proposition", "the closed form of C_l, literal and symmetric readings of Σ_{i<j}",
         entries=(f"{P}.prop10.C_literal_reading", f"{P}.prop10.C_symmetric_reading")),
    Item("Appendix, 'with larger minibatch size n1, we can get smaller MSEs'", "claim",
         "B_l + C_l is larger for n1 ≠ N than for n1 = N", entries=(f"{P}.appendix.larger_n1_smaller_mse",)),
    Item("§5 'A synthetic experiment', Figure 1 (data evaluations)", "figure",
         "n = 1 achieves the lowest MSE (Corollary 4's long-run case)",
         entries=(f"{P}.fig1.sgld_evaluations", f"{P}.fig1.vrsg_evaluations")),
    Item("§5, Figure 1 (wall-clock)", "figure", "n = 1 achieves the lowest MSE against wall-clock time",
         entries=(f"{P}.fig1.sgld_wallclock", f"{P}.fig1.vrsg_wallclock")),
    Item("§5 'Multilayer perceptron', Figure 2 (top) and Figure 6 (top), MNIST", "figure",
         "vrSG-MCMC converges much faster than SGLD, with lower final test error and loss",
         entries=(f"{P}.fig2.mnist.faster_than_sgld", f"{P}.fig2.mnist.lower_final")),
    Item("§5 'Multilayer perceptron', Figure 2 (bottom) and Figure 6 (bottom), CIFAR-10", "figure",
         "the same on CIFAR-10", entries=(f"{P}.fig2.cifar10.faster_than_sgld",)),
    Item("§5 'Multilayer perceptron', Figure 2, SVRG-LD", "figure",
         "SVRG-LD leads to potentially lower errors/loss but converges slower (its full old gradient)",
         entries=(f"{P}.fig2.mnist.svrg_slower", f"{P}.fig2.mnist.svrg_lower_final")),
    Item("§5 'Parameter sensitivity', the difference from SVRG-LD", "claim",
         "a minibatch old gradient (n1) instead of the whole data makes a much more efficient algorithm",
         entries=(f"{P}.fig2.mnist.svrg_slower", f"{P}.fig5.large_n1_close")),
    Item("§5 'Convolutional neural networks', Figure 3 (top) and Figure 7 (top), CNN-4", "figure",
         "vrSG-MCMC converges much faster than SGLD on CIFAR-10 with C32-C32-C64-C32", entries=(
             f"{P}.fig3.cnn4_mnist.faster_than_sgld", f"{P}.fig3.cnn4_cifar10.faster_than_sgld", f"{P}.fig3.cnn4")),
    Item("§5, Figure 3 (bottom) and Figure 7 (bottom), ResNet-20", "figure",
         "vrSG-MCMC beats SGLD on ResNet-20, with a larger gap than on CNN-4 and smoother curves", entries=(f"{P}.fig3.resnet20",)),
    Item("§5, Figures 3-4 text ('learning curves much less noisy')", "claim",
         "vrSG-MCMC's learning curves are smoother (reduced CNN-4 and MLP on MNIST; ResNet-20 and the LSTMs not run)",
         entries=(f"{P}.fig3.smoother_curves", f"{P}.fig3.resnet20")),
    Item("§5 'Recurrent neural networks', Figure 4 (top), PTB", "figure", "lower test perplexity than SGLD",
         entries=(f"{P}.fig4.ptb",)),
    Item("§5, Figure 4 (bottom), WikiText-2", "figure", "lower test perplexity than SGLD",
         entries=(f"{P}.fig4.wikitext2",)),
    Item("§5 'Parameter sensitivity', Figure 5 and Figure 9 (bottom)", "figure",
         "vrSG-MCMC beats SGLD for every n1 in {100, ..., 2000}", entries=(f"{P}.fig5.every_n1_beats_sgld",)),
    Item("§5 'Parameter sensitivity', Figure 5 (n1 ≥ 200)", "figure", "for n1 large enough the curves are very close",
         entries=(f"{P}.fig5.large_n1_close",)),
    Item("Appendix, Figure 8 (MNIST)", "figure", "training error/loss: vrSG-MCMC beats SGLD",
         entries=(f"{P}.fig8.mnist.training",)),
    Item("Appendix, Figure 8 (CIFAR-10)", "figure", "training error/loss on CIFAR-10", entries=(f"{P}.fig8.cifar10.training",)),
    Item("Appendix, Figure 9 (top), Bayesian logistic regression on Pima", "figure",
         "vrSG-MCMC's test NLL falls below SGLD's for every n1", entries=(f"{P}.fig9.pima.every_n1_beats_sgld",)),
]
