"""The checkable items of the LS-SGLD text (seed ``004_8438bd4b543e0fc4.txt``) and the ledger entries that decide them.

The hand-kept half of the coverage table (:mod:`sgmcmc_verify.ledger.coverage`, ``docs/coverage.md``).
"""
from sgmcmc_verify.ledger.coverage import Item

P = "ls_sgld"

ITEMS = [
    Item("§2.1, eq. (2.1)-(2.2), the FFT solve of A_σ u = v", "equation",
         "A_σ⁻¹v = ifft(fft(v)/(1 − σ fft(d))) for the periodic Laplacian", entries=(f"{P}.sec2.1.fft_solve",)),
    Item("Proposition 2.1", "proposition", "the stationary law of LS-LD (2.3) is ∝ exp(−βf)",
         entries=(f"{P}.prop2.1.invariant_law",)),
    Item("Algorithm 2.1 (LS-SGLD, eq. (2.5))", "algorithm", "x' = x − η A_σ⁻¹ g + √(2η/β) A_σ^{−1/2} ε, uniform minibatch",
         entries=(f"{P}.alg2.1.one_step",)),
    Item("Lemmas 2.2-2.5, eq. (2.7)-(2.8), Remark 2.6", "lemma",
         "circulant eigenvectors, inverse and square root by FFT", not_run=(
             "textbook facts (cited); the square-root solve A_σ^{−1/2} is implemented in PeriodicSmoothing, its noise "
             "covariance checked in tests/verify/integrators/test_laplacian_smoothing.py")),
    Item("Assumptions 1-4, Definition 3.1, Proposition 3.2", "assumption",
         "dissipativity, smoothness, bounded variance, convexity; LSI", not_run=(
             "hypotheses and a cited result: nothing to measure; the §4.1.2 constants are checked by "
             "ls_sgld.sec4.1.2.nonconvexity and ls_sgld.sec4.1.2.dissipativity")),
    Item("Theorem 3.3, discretization terms (γ₁, γ₂ < 1)", "theorem",
         "LS-SGLD's discretization error is smaller than SGLD's",
         entries=(f"{P}.thm3.3.discretization_smaller", f"{P}.thm3.3.gamma2_factor")),
    Item("Theorem 3.3 / Lemma B.2 / Corollary 3.5, statement vs proof", "theorem",
         "(3.1) is what Lemmas B.1 + B.2 give; (3.2) is (3.1) at γ₁ = γ₂ = c₀ = 1 (the β factors)",
         entries=(f"{P}.thm3.3.statement_matches_proof",)),
    Item("Theorem 3.3, ergodicity term (c₀ ≤ 1)", "theorem", "the ergodicity of LS-LD is slower than LD's",
         entries=(f"{P}.thm3.3.ergodicity_slower",)),
    Item("Remark 3.4", "remark", "the three terms of (3.1): gradient noise, integrator, ergodicity",
         entries=(f"{P}.thm3.3.gamma2_factor", f"{P}.thm3.3.discretization_smaller")),
    Item("Corollary 3.5", "corollary", "SGLD's rate: (3.1) with γ₁ = γ₂ = c₀ = 1",
         entries=(f"{P}.thm3.3.discretization_smaller",)),
    Item("Remark 3.6", "remark", "γ₂ < 1; a trade-off between discretization error and ergodicity",
         entries=(f"{P}.remark3.6.gamma2_below_one", f"{P}.remark3.6.tradeoff")),
    Item("Table 1", "table", "γ₂ for σ = 1..5 and d = 10³, 10⁴, 10⁵", entries=(f"{P}.table1.gamma2_values",)),
    Item("Theorem 3.7, statement vs proof", "theorem", "(3.3) is what Lemmas B.1 + B.3 give (B vs 2B, the β factors)",
         entries=(f"{P}.thm3.7.statement_matches_proof",)),
    Item("Theorem 3.7", "theorem", "W2 rate of LS-SGLD for non-log-concave densities: smoothing shrinks the "
         "discretization part, slows the ergodicity part", entries=(f"{P}.thm3.7.discretization_smaller",
                                                                   f"{P}.thm3.7.ergodicity_slower")),
    Item("Remark 3.8", "remark", "SGLD's non-log-concave rate is (3.3) with A_σ = I; LS-SGLD's discretization part "
         "smaller, its ergodicity part worse", entries=(f"{P}.thm3.7.discretization_smaller",
                                                        f"{P}.thm3.7.ergodicity_slower")),
    Item("§4.1.1, Figure 1(a)-(b)", "figure", "Laplacian smoothing reduces the covariance error and τ at equal steps",
         entries=(f"{P}.fig1.ls_reduces_cov_error", f"{P}.fig1.ls_reduces_tau_psgld")),
    Item("§4.1.1, Figure 1(c)-(d)", "figure", "with steps × (1 + 4σ)^{1/4}, LS still reduces the covariance error",
         entries=(f"{P}.fig1.ls_reduces_cov_error_scaled",)),
    Item("§4.1.1, the step-size enlargement (1 + 4σ)^{1/4}", "claim",
         "the smoothed recursion is stable at steps enlarged by (1 + 4σ)^{1/4}",
         entries=(f"{P}.sec4.1.1.step_enlargement",)),
    Item("§4.1.2, f_i and ∇f_i as printed", "equation", "the printed gradient of the mixture's f_i",
         entries=(f"{P}.sec4.1.2.mixture_gradient",)),
    Item("§4.1.2, nonconvexity and dissipativity (m = 1/2, b = ‖a_i‖²/2)", "claim",
         "f_i nonconvex when ‖a_i‖ > 3/2; dissipative with m = 1/2",
         entries=(f"{P}.sec4.1.2.nonconvexity", f"{P}.sec4.1.2.dissipativity")),
    Item("Table 2", "table", "W2 of the last 10⁴ samples to MH samples after 10⁵, 5×10⁵, 9×10⁵ iterations",
         entries=tuple(f"{P}.table2.cell.{m}.{k}" for m in ("SGLD", "pSGLD", "LS-SGLD")
                       for k in (100000, 500000, 900000)) + (f"{P}.table2.references_agree",
                                                              f"{P}.table2.printed_within_single_mode_range")),
    Item("Table 2 / Figure 2 text", "claim", "LS-SGLD's samples are consistently closest to the MH samples",
         entries=(f"{P}.table2.ls_sgld_closest",)),
    Item("Figure 2", "figure", "all samplers' iterates match the reference at 10⁶ iterations (kernel density plots)",
         entries=(f"{P}.fig2.all_match_reference",)),
    Item("§4.1.3, Figure 3", "figure", "LD and LS-LD reconstruct the mean similarly (smoothing does not slow mixing)",
         entries=(f"{P}.fig3.similar_mixing",)),
    Item("§4.2.1, Table 3 (as printed)", "table", "the printed maximum variance decreases in σ and in the batch size",
         entries=(f"{P}.table3.printed_monotone",)),
    Item("§4.2.1, Table 3 (the claim)", "claim", "Laplacian smoothing reduces the stochastic gradient's variance",
         entries=(f"{P}.table3.variance_reduction",)),
    Item("§4.2, Figure 4 (NLL)", "figure", "LS reduces the negative log-likelihood (BLR)",
         entries=(f"{P}.fig4.ls_reduces_nll",)),
    Item("§4.2, Figure 4 (accuracy)", "figure", "LS increases the accuracy (BLR)",
         entries=(f"{P}.fig4.ls_increases_accuracy",)),
    Item("§4.2, Figure 4 text (preconditioning, early)", "claim", "the preconditioning accelerates mixing initially",
         entries=(f"{P}.fig4.preconditioning_accelerates_initially",)),
    Item("§4.2, Figure 4 text (preconditioning)", "claim", "with preconditioning the gap to the target is larger",
         entries=(f"{P}.fig4.preconditioning_gap",)),
    Item("§4.3, Figure 5 (NLL)", "figure", "LS reduces the NLL of the Bayesian CNN, train and test",
         entries=(f"{P}.fig5.ls_reduces_nll",)),
    Item("§4.3, Figure 5 (accuracy)", "figure", "LS increases the CNN's accuracy, train and test",
         entries=(f"{P}.fig5.ls_increases_accuracy",)),
    Item("§4.3, Figure 5 text (preconditioning)", "claim", "preconditioning accelerates mixing and reduces the gap",
         entries=(f"{P}.fig5.preconditioning",)),
    Item("Lemma C.4", "lemma", "E‖x_k‖² ≤ E‖x_k‖²_A ≤ 2(2b + β⁻¹d)/(c₁m) (proof of Lemma B.3)",
         entries=(f"{P}.lemmaC.4.second_moment_bound",)),
]
