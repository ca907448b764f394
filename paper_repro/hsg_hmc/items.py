"""The checkable items of the HSG-HMC text (seed ``001_d56659fdb8996bf2.txt``) and the ledger entries that decide them.

The hand-kept half of the coverage table (:mod:`sgmcmc_verify.ledger.coverage`, ``docs/coverage.md``).
"""
from sgmcmc_verify.ledger.coverage import Item

P = "hsg_hmc"

ITEMS = [
    Item("Table 1, SGLD row", "table", "SGLD needs Õ(ε⁻⁸ λ*⁻⁹) stochastic gradients, minibatch Õ(ε⁻⁴ λ*⁻²)",
         entries=(f"{P}.table1.exponent.SGLD",)),
    Item("Table 1, SGHMC row", "table", "SGHMC needs Õ(ε⁻⁸ μ*⁻⁵) stochastic gradients, minibatch Õ(ε⁻⁴ μ*⁻²)",
         entries=(f"{P}.table1.exponent.SGHMC",)),
    Item("Table 1, SG-UL-MCMC row", "table", "SG-UL-MCMC needs Õ(ε⁻⁶) stochastic gradients",
         entries=(f"{P}.table1.exponent.SG-UL-MCMC",)),
    Item("Table 1, SRVR-HMC row; 'the same as SRVR-HMC'", "table", "SRVR-HMC needs Õ(ε⁻⁴) stochastic gradients",
         entries=(f"{P}.table1.exponent.SRVR-HMC",)),
    Item("Table 1, HSG-HMC row", "table", "HSG-HMC needs Õ(ε⁻⁴) stochastic gradients with one sample per iteration",
         entries=(f"{P}.table1.exponent.HSG-HMC_periodic",)),
    Item("Table 1 (the headline)", "claim", "HSG-HMC improves on the baselines' ε-dependence",
         entries=(f"{P}.table1.hsg_improves_on_baselines", f"{P}.table1.hsg_fewer_gradients_than_sg_ul_mcmc")),
    Item("Table 1, mini-batch size and hyperparameter columns", "table",
         "the baselines' minibatch bounds and tuning-parameter counts (HSG-HMC: 1 and 1)", not_run=(
             "the baselines' minibatch sizes are other papers' bounds and the counts are properties of the algorithms "
             "as written; HSG-HMC's one sample per iteration is its construction (eq. (7)), counted by "
             "hsg_hmc.eq7.hybrid_estimator_one_sample")),
    Item("Eqs. (4)-(6) and Lemma 1 (the exponential integrator)", "lemma",
         "one step is the exact solution of the ULD SDE with frozen gradient; noise covariances (6)",
         entries=(f"{P}.lemma1.exponential_integrator_exact",)),
    Item("Algorithm 1 and eq. (7) (the hybrid estimator)", "algorithm",
         "g^(k+1) = ρ ∇F(x^(k+1)) + (1 − ρ)(g^(k) + ∇F(x^(k+1)) − ∇F(x^(k))), one sample per iteration",
         entries=(f"{P}.eq7.hybrid_estimator_one_sample",)),
    Item("Remark 1", "remark", "differences from the hybrid estimators of the optimization literature", not_run=(
        "a statement about other papers: nothing to measure")),
    Item("Assumptions 1-3", "assumption", "unbiased bounded-variance gradients, mean-squared smoothness, dissipativity",
         not_run=("hypotheses: nothing to measure; the mixture's G² and M are computed in the evidence of "
                  "hsg_hmc.lemma3.bound_holds")),
    Item("Lemma 2 (as stated)", "lemma", "the one-step recursion of the estimator's mean square error (G², M)",
         entries=(f"{P}.lemma2.recursion_stated",)),
    Item("Lemma 2 (the proof's sharper inequality)", "lemma", "the recursion with Var F and the measured increments",
         entries=(f"{P}.lemma2.recursion_sharp",)),
    Item("Text after Lemma 2 (ρ = 0 or 1)", "claim",
         "with ρ = 0 or 1 and one sample the error is not controlled; ρ_k = 1/k controls it",
         entries=(f"{P}.lemma2.rho_extremes_do_not_converge",)),
    Item("Lemma 3, eq. (10)-(12)", "lemma", "E‖g^(k) − ∇f‖² ≤ 2G²/k + C M² Ē η² k with the target's constants",
         entries=(f"{P}.lemma3.bound_holds",)),
    Item("Lemma 3, eq. (10), first term", "lemma", "with ρ_k = 1/k the mean square error first decays like 1/k",
         entries=(f"{P}.lemma3.first_term_decay",)),
    Item("Lemma 3, eq. (10), second term", "lemma", "the accumulated error of the biased part grows like η² k",
         entries=(f"{P}.lemma3.second_term_growth", f"{P}.lemma3.second_term_growth_remark2")),
    Item("Lemma 3, condition (9)", "lemma", "the step-size condition (9) can be met with Remark 2's γ",
         entries=(f"{P}.lemma3.condition9_remark2",)),
    Item("Theorem 1, bound (13)", "theorem", "W2(p_x(k), p*) ≤ Γ₁(γ²Kη³ + 4η ln K + Cη³K²)^{1/4} + Γ₀ e^{−μ*Kη}",
         entries=(f"{P}.theorem1.range_covers_iterations", f"{P}.theorem1.bound13_informative")),
    Item("Text after Theorem 1 (the two parts of (13))", "remark",
         "discretization error vs the ULD's convergence to the target", not_run=(
             "the attribution of the two parts to their sources is a proof step; the second part has no computable "
             "value on the mixture (μ*, Γ₀ = O(1/μ*)); the first is evaluated by hsg_hmc.theorem1.bound13_informative")),
    Item("Corollary 1 (ρ_k = 1/k)", "corollary", "HSG-HMC needs Õ(ε⁻⁴ μ*⁻³) stochastic gradients",
         entries=(f"{P}.table1.exponent.HSG-HMC_harmonic", f"{P}.table1.hsg_harmonic_fewer_gradients_than_sg_ul_mcmc")),
    Item("Text after Corollary 1 ('a very small η for large k')", "claim",
         "a smaller η makes the second term of (10) smaller", entries=(f"{P}.lemma3.second_term_small_eta_remark2",)),
    Item("Corollary 2 (ρ reset every η⁻¹ steps)", "corollary", "the periodic schedule reaches Õ(ε⁻⁴ μ*⁻²)",
         entries=(f"{P}.table1.exponent.HSG-HMC_periodic", f"{P}.table1.hsg_fewer_gradients_than_sg_ul_mcmc")),
    Item("Text after Corollary 2 (SRVR-HMC's four hyperparameters)", "claim",
         "L, B₀, B and η all affect SRVR-HMC's performance greatly",
         entries=(f"{P}.corollary2.srvr_hyperparameters_matter",)),
    Item("Remark 2", "remark", "u = 1 and γ from e^{−γη} = 0.9", not_run=(
        "a convention: the default friction of sgmcmc_verify.samplers.hsg_hmc / srvr_hmc / sg_ul_mcmc "
        "(friction=None → integrators.exponential.friction_for_decay; tests/verify/integrators/test_exponential.py::"
        "test_friction_for_decay_remark2 and ::test_defaults_remark2_and_sg_ul_mcmc); the Lemma 3 entries run it "
        "beside a fixed γ")),
    Item("Figure 1", "figure", "SRVR-HMC and HSG-HMC explore both modes; the others concentrate on one",
         entries=(f"{P}.fig1.vr_methods_explore_both_modes",)),
    Item("Figure 1 text ('the sample complexity of HSG-HMC is much lower')", "claim",
         "fewer samples per iterate for the same number of iterates",
         entries=(f"{P}.fig1.fewer_gradients_per_iterate",)),
    Item("Table 2 (cells)", "table", "the six printed W2 values on the Gaussian mixture",
         entries=tuple(f"{P}.table2.cell.{m}" for m in ("SGLD", "SGHMC", "SG-UL-MCMC", "SVRG-LD", "SRVR-HMC",
                                                        "HSG-HMC"))),
    Item("Table 2 (the ordering)", "table", "HSG-HMC < SRVR-HMC < SVRG-LD < SGHMC < SGLD < SG-UL-MCMC",
         entries=(f"{P}.table2.printed_ordering",)),
    Item("Table 2 text", "claim", "HSG-HMC and SRVR-HMC perform better than the other methods",
         entries=(f"{P}.table2.vr_methods_best",)),
    Item("Table 2 text (W2 by Sinkhorn, penalty 10⁻³)", "claim", "what the printed numbers measure", entries=(
        f"{P}.table2.literal_w2_reading", f"{P}.table2.printed_reading")),
    Item("toolkit: Table 2's reference and resolution", "claim",
         "the MH-corrected HMC reference represents the target; the W2 differences exceed the noise floor",
         entries=(f"{P}.table2.reference_agreement", f"{P}.table2.resolvable_from_floor")),
    Item("§ Gaussian mixture, 'when ‖a_i‖² ≥ 1, f_i is nonconvex and satisfies Assumption 3'", "claim",
         "nonconvexity and dissipativity of the mixture",
         entries=(f"{P}.mixture.nonconvex_when_norm_ge_1", f"{P}.mixture.assumption3")),
    Item("Table 3", "table", "statistics of the six LIBSVM data sets (dimension, train and test sizes)",
         entries=(f"{P}.table3.statistics",)),
    Item("Figure 2", "figure", "HSG-HMC has the best test NLL on all data sets", entries=(f"{P}.fig2.hsg_best_blr",)),
    Item("Figure 3 (HSG-HMC best)", "figure", "HSG-HMC achieves the best performance on the BNN",
         entries=(f"{P}.fig3.hsg_best",)),
    Item("Figure 3 (underdamped vs overdamped)", "figure", "ULD-based methods beat SGLD and SVRG-LD",
         entries=(f"{P}.fig3.underdamped_beat_overdamped",)),
    Item("Figure 3 (variance reduction)", "figure", "SRVR-HMC and HSG-HMC beat SGHMC and SG-UL-MCMC",
         entries=(f"{P}.fig3.vr_beat_non_vr",)),
    Item("Introduction, 'the first SG-MCMC method that dispenses with the Õ(ε⁻⁴ exp(O(d))) mini-batch'", "claim",
         "a priority claim over the literature", not_run="a statement about other papers: nothing to measure"),
]
