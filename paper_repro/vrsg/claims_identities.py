"""vrSG-MCMC claims decided on exact identities: Lemma 2, eq. (7) of Theorem 3 and the sampling line of Algorithm 1,
Theorem 3's statement constant, eq. (10), Proposition 10 and eq. (12), Corollary 4's stationary point
(seed ``002_245183f35db8d795.txt``).

Extractors read ``results/vrsg/identities*.{json,csv}`` (written by :func:`sgmcmc_verify.paper_repro.vrsg.theory.
run_identities`: sympy and exhaustive enumeration of every minibatch) and return measurements; the rules of
:mod:`sgmcmc_verify.ledger.rules` decide.
"""
from __future__ import annotations

from sgmcmc_verify.ledger.claims import declare
from sgmcmc_verify.ledger.extract import csv_rows, json_result, settings
from sgmcmc_verify.ledger.measures import Compared, Estimate, Symbolic, fmt_num
from sgmcmc_verify.ledger.rules import all_of, bound, equivalent, identity, readings

__all__ = ["SEED", "P", "EXACT_TOL", "CLAIMS", "identities", "SAMPLING_READINGS"]

SEED = "002_245183f35db8d795.txt"
P = "vrsg"
#: Relative error below which an exact identity counts as verified in float64: the sums involved have at most a few
#: thousand O(1) terms, so round-off is ~1e-15; 1e-12 leaves three digits of margin.
EXACT_TOL = 1e-12
#: the two readings of Algorithm 1's "Sample w/t replacement" (issue #24 item 5): "w/t" is "without" in the proof's
#: own model (eq. (6): binary indicators z_i with sum z_i = n, E z_i z_j = n(n-1)/(N(N-1))) and "with" read literally
SAMPLING_READINGS = {"without replacement": "without", "with replacement": "with"}
_EXACT_WHY = f"relative error <= {EXACT_TOL:g} (float64 round-off of sums of <= a few thousand terms is ~1e-15)"
_ID = ("vrsg.identities",)


def _claim(cid, source, statement, exps, **kw):
    return declare(f"{P}.{cid}", P, f"{SEED}, {source}", statement, experiments=exps, **kw)


def identities(root) -> dict:
    """``identities.json``."""
    return json_result(root, P, "identities.json")


def _enum(root, scheme):
    return [r for r in csv_rows(root, P, "identities_enum.csv") if r["scheme"] == scheme]


def _case(r) -> str:
    return f"N = {int(r['N'])}, d = {int(r['d'])}, population {int(r['population'])}, n = {int(r['n'])}"


# ---- Lemma 2 ----------------------------------------------------------------------------------------

def _lemma2_nonneg(root):
    l2 = identities(root)["lemma2"]
    return {"Gamma (exact rationals), min over populations": Estimate(l2["min_gamma_exact"]),
            "Gamma (centred float64 form), min over populations": Estimate(l2["min_gamma_centred"]),
            "centred form against the exact value (largest relative error)": Estimate(l2["max_rel_err_centred"])}


def _lemma2_note(root):
    rows = csv_rows(root, P, "identities_lemma2.csv")
    worst = max(rows, key=lambda r: r["rel_err_printed"])
    neg = [r["population"] for r in rows if r["gamma_printed"] < 0]
    return (f"closed form {identities(root)['symbolic']['lemma2']['closed']} (sympy); the printed form cancels in "
            f"float64: relative error {fmt_num(worst['rel_err_printed'], 2)} on '{worst['population']}', negative on "
            f"{neg or 'no population'} (these populations only: the size of the cancellation depends on them)")


def _lemma2_forms(root):
    d = identities(root)
    sym, l2 = d["symbolic"]["lemma2"], d["lemma2"]
    return {"Lemma 2 minus the closed form": Symbolic(sym["printed_minus_closed"]),
            "eq. (7) minus the closed form": Symbolic(sym["eq7_minus_closed"]),
            "float64 agreement on random populations (largest relative error)": Estimate(l2["max_rel_err_printed_random"])}


def _lemma2_forms_note(root):
    return (f"the last line of (7) as extracted, with i <= j, is off by "
            f"{identities(root)['symbolic']['lemma2']['eq7_leq_minus_closed']}")


# ---- eq. (7), Algorithm 1's sampling line, Theorem 3's statement constant ---------------------------------

def _eq7_wor(root):
    d = identities(root)
    mc = {f"Monte Carlo, N = 1000, n = {int(r['n'])}": Compared(Estimate(r["mc_mean"], r["mc_se"], n=int(r["draws"])),
                                                                 Estimate(r["eq7_without"]))
          for r in d["mc_noise"] if r["scheme"] == "without" and r["eq7_without"] > 0}
    return {"enumeration (largest error over the scale of the summed terms)": Estimate(
                d["theorem3"]["max_err_without_vs_eq7"]),
            "sympy residual": Symbolic(d["symbolic"]["lemma2"]["theorem3_residual"]),
            "the sampler's minibatches": mc}


def _scale(r) -> float:
    """The with-replacement value (N-1)N^2 Gamma/n: positive for every non-constant population, the size of the
    noise, used to express differences of exact values (a difference of 1e-31 against an exact 0 is round-off)."""
    return r["formula_with"] if r["formula_with"] > 0 else 1.0


def _sampling(root):
    """Per reading of "Sample w/t replacement": every enumerated case's |E||dV||^2 - (7)| over (N-1)N^2 Gamma/n."""
    return {name: {_case(r): Estimate(abs(r["enumerated"] - r["eq7_without"]) / _scale(r)) for r in _enum(root, s)}
            for name, s in SAMPLING_READINGS.items()}


def _sampling_note(root):
    t3 = identities(root)["theorem3"]
    return (f"with replacement the exact value is (N-1)N^2 Gamma/n (enumeration within "
            f"{fmt_num(t3['max_err_with_vs_formula_with'], 2)} of the scale), not (N-n)N^2 Gamma/n; the proof's indicators "
            "z_i (binary, sum z_i = n, E z_i z_j = n(n-1)/(N(N-1))) are sampling without replacement, and at n = N the "
            "with-replacement algorithm keeps noise that (7) says is 0")


def _statement(root):
    """Theorem 3's first term at the smallest Gamma_M the statement allows (Gamma_M = Gamma_l), 2(N-n)N^2 Gamma_l/n,
    minus the exact E||dV||^2 enumerated over every minibatch (the proof's model, without replacement), over
    (N-1)N^2 Gamma/n."""
    return {_case(r): Estimate((r["statement_2x"] - r["enumerated"]) / _scale(r)) for r in _enum(root, "without")}


def _statement_note(root):
    rows = [r for r in _enum(root, "without") if r["enumerated"] > 0]
    ratio = sorted({round(r["statement_2x"] / r["enumerated"], 9) for r in rows})
    return (f"statement / exact = {', '.join(fmt_num(x) for x in ratio[:3])} on every case with noise (the factor 2 of "
            "the statement; Gamma_l <= Gamma_M only loosens it further)")


# ---- eq. (10), Proposition 10, eq. (12) ----------------------------------------------------------------------

def _unbiased(root):
    rows = identities(root)["unbiased"]
    return {r["scheme"]: Compared(Estimate(r["mc_mean_sq_error"], r["mc_mean_sq_error_se"], n=int(r["draws"])),
                                  Estimate(r["exact_mean_sq_error"])) for r in rows}


def _unbiased_note(root):
    rows = identities(root)["unbiased"]
    return (f"mean of {rows[0]['draws']} draws of (10) at a fixed (theta, theta~) on Pima (d = {rows[0]['dim']}): "
            "Hotelling p = " + ", ".join(f"{r['scheme']} {r['hotelling_p']:.2f}" for r in rows)
            + "; the mean squared error against the full gradient is compared with the exact "
              "f(n2) Gamma_(alpha-beta) + f(n1) Gamma_beta")


def _unbiased_regression(root):
    return {r["scheme"]: (r["mc_mean_sq_error"], r["mc_mean_sq_error_se"]) for r in identities(root)["unbiased"]}


def _prop10(*keys):
    def measure(root):
        err = identities(root)["prop10"]["max_rel_err"]
        return {k: Estimate(err[k]) for k in keys} if len(keys) > 1 else Estimate(err[keys[0]])
    return measure


def _population_note(what):
    """The size of a failing identity's error is a property of the enumerated population, not of the formula."""
    def note(root):
        p = identities(root)["prop10"]
        s = settings(root, "vrsg.identities")
        return (f"{what}; errors relative to max(|A|, |B|, |C|, E||dV||^2) on the random population of N = {p['N']} "
                f"(seed {s['seed']}; all n1 in {p['n1']}, n2 in {p['n2']}): the size of a nonzero error depends on "
                "this population and its order, and is not a property of the formula")
    return note


def _sampling_prop10(root):
    err = identities(root)["prop10"]["max_rel_err"]
    return {"without replacement": Estimate(err["total_A_B_C"]),
            "with replacement": Estimate(err["printed_without_vs_enumerated_with"])}


# ---- Corollary 4's stationary point ---------------------------------------------------------------------

def _cor4_second_derivative(root):
    """The sign of d²/dn² of (9) at its stationary point: sympy's second derivative, evaluated at n = T = 1 (its sign
    is that of the leading coefficient for every n, T > 0)."""
    import sympy as sp

    c4 = identities(root)["symbolic"]["corollary4"]
    n, T = sp.symbols("n T", positive=True)
    return Estimate(float(sp.sympify(c4["second_derivative"], locals={"n": n, "T": T}).subs({n: 1, T: 1})))


def _cor4_note(root):
    c4 = identities(root)["symbolic"]["corollary4"]
    ok = "matches" if c4["derivative_minus_printed"] == "0" else "differs from"
    return (f"(9)'s derivative {ok} the proof's (sympy); the stationary point n = {c4['optimal_n']}, d2/dn2 = "
            f"{c4['second_derivative']}; the thresholds {c4['threshold']}")


CLAIMS = [
    _claim("lemma2.gamma_nonnegative", "Lemma 2 and its proof", "Gamma_l >= 0.", _ID, measure=_lemma2_nonneg,
           rule=all_of({"Gamma (exact rationals), min over populations": bound(ge=0.0, quantity="Gamma"),
                        "Gamma (centred float64 form), min over populations": bound(ge=0.0, quantity="Gamma"),
                        "centred form against the exact value (largest relative error)": bound(
                            le=EXACT_TOL, quantity="relative error")}),
           expected="Gamma >= 0 on every random and adversarial population (exact rationals and the centred float64 "
                    "form), the centred form within round-off of the exact value", why=_EXACT_WHY,
           figure="vrsg/identities.png", note=_lemma2_note),
    _claim("lemma2.printed_forms_agree", "Lemma 2 vs proof of Theorem 3, eq. (7)",
           "Gamma_l as printed in Lemma 2 (sum over i != j) is the bracket of (7) (2 sum over i < j).", _ID,
           measure=_lemma2_forms,
           rule=all_of({"Lemma 2 minus the closed form": identity(0.0),
                        "eq. (7) minus the closed form": identity(0.0),
                        "float64 agreement on random populations (largest relative error)": bound(
                            le=EXACT_TOL, quantity="relative error")}),
           expected="sympy difference 0 for both forms and float agreement on random populations", why=_EXACT_WHY,
           figure="vrsg/identities.png", note=_lemma2_forms_note),
    _claim("thm3.eq7_without_replacement", "proof of Theorem 3, eq. (6)-(7)",
           "Summing out the inclusion indicators z_i gives E||dV_l||^2 = (N-n)N^2 Gamma_l/n.", _ID, measure=_eq7_wor,
           rule=all_of({"enumeration (largest error over the scale of the summed terms)": bound(
                            le=EXACT_TOL, quantity="error / scale"),
                        "sympy residual": identity(0.0),
                        "the sampler's minibatches": equivalent(quantity="Monte Carlo E||dV||^2 against (7)")}),
           expected="exhaustive enumeration of every minibatch and sympy equal to (7); the toolkit's without-replacement "
                    "minibatches (Monte Carlo, N = 1000) within the equivalence margin of (7)",
           why=_EXACT_WHY, figure="vrsg/identities.png"),
    _claim("thm3.eq7_algorithm1_sampling", "Algorithm 1 ('Sample w/t replacement') vs the proof of Theorem 3, eq. (6)",
           "The variance identity (7) describes the minibatches of Algorithm 1 as printed ('Sample w/t replacement').",
           _ID, measure=_sampling,
           rule=readings(each=bound(le=EXACT_TOL, quantity="|enumerated E||dV||^2 - (7)| / ((N-1)N^2 Gamma/n)"),
                         names=tuple(SAMPLING_READINGS)),
           expected="exact E||dV||^2 (every minibatch enumerated) equal to (N-n)N^2 Gamma/n in every case, under each "
                    "reading of 'w/t': without replacement (the proof's indicators z_i, eq. (6)) and with replacement",
           why=_EXACT_WHY, figure="vrsg/identities.png", note=_sampling_note),
    _claim("thm3.statement_constant", "Theorem 3 statement vs its proof",
           "The first term of Theorem 3 is 2(N-n)N^2 Gamma_M/(nL): it bounds the exact per-step noise (N-n)N^2 Gamma_l/n.",
           _ID, measure=_statement,
           rule=bound(ge=-EXACT_TOL, quantity="(statement's 2(N-n)N^2 Gamma_l/n - exact) / ((N-1)N^2 Gamma/n)"),
           expected="the statement's term at Gamma_M = Gamma_l (its smallest value) at or above the exact E||dV||^2 "
                    "of every enumerated case (the proof's sampling without replacement)",
           why=_EXACT_WHY, figure="vrsg/identities.png", note=_statement_note),
    _claim("eq10.unbiased", "'Convergence rate' section and appendix, eq. (10)",
           "vrSG-MCMC's stochastic gradient is an unbiased estimate of the full gradient.", _ID, measure=_unbiased,
           rule=all_of(each=equivalent(quantity="Monte Carlo mean squared error of (10)"), axis="scheme"),
           expected="the mean squared deviation of (10) from the full gradient over {unbiased_draws} draws equals the "
                    "exact variance of an unbiased estimator (a bias would add ||bias||^2), in both sampling schemes",
           why="a bias shows as an excess of the mean squared error over the exact variance", note=_unbiased_note,
           regression=_unbiased_regression),
    _claim("prop10.A_and_B", "Proposition 10 (A_l, B_l)", "A_l and B_l of (12) equal the printed closed forms.", _ID,
           measure=_prop10("A", "B"), rule=bound(le=EXACT_TOL, quantity="relative error against enumeration"),
           expected="exhaustive enumeration equal to the formulas", why=_EXACT_WHY),
    _claim("prop10.C_symmetric_reading", "Proposition 10 (C_l), reading sum_{i<j} as half of sum_{i!=j}",
           "C_l = 2(1 - N/n2) sum_ij E alpha_i beta_j + 4 N(N-n2)/(n2(N-1)) sum_{i<j} E alpha_i beta_j, with "
           "sum_{i<j} alpha_i^T beta_j read as (1/2) sum_{i!=j} (the sum the proof derives).", _ID,
           measure=_prop10("C_symmetric"), rule=bound(le=EXACT_TOL, quantity="relative error against enumeration"),
           expected="exhaustive enumeration equal to the formula (C_l already includes (12)'s factor 2)", why=_EXACT_WHY),
    _claim("prop10.C_literal_reading", "Proposition 10 (C_l), sum_{i<j} alpha_i^T beta_j read literally",
           "C_l with the upper-triangle sum of the non-symmetric alpha_i^T beta_j.", _ID,
           measure=_prop10("C_literal"), rule=bound(le=EXACT_TOL, quantity="relative error against enumeration"),
           expected="exhaustive enumeration equal to the formula", why=_EXACT_WHY,
           note=_population_note("the proof's step sum_{i!=j} = 2 sum_{i<j} needs alpha_i^T beta_j symmetric")),
    _claim("eq12.factor_two", "eq. (12) with Proposition 10",
           "E||dV_l||^2 = A_l + B_l + 2 C_l with A_l, B_l, C_l of Proposition 10.", _ID,
           measure=_prop10("total_eq12_literal_2C"), rule=bound(le=EXACT_TOL, quantity="relative error against enumeration"),
           expected="exhaustive enumeration equal to A + B + 2C", why=_EXACT_WHY,
           note=_population_note("Proposition 10's C_l already carries the 2; A + B + C_l is exact")),
    _claim("prop10.algorithm1_sampling", "Proposition 10 vs Algorithm 1 ('Sample w/t replacement')",
           "Proposition 10 describes the minibatches of Algorithm 1 as printed ('Sample w/t replacement').", _ID,
           measure=_sampling_prop10,
           rule=readings(each=bound(le=EXACT_TOL, quantity="relative error of A + B + C against enumeration"),
                         names=tuple(SAMPLING_READINGS)),
           expected="the printed A + B + C equal to the enumerated E||dV||^2 under each reading of 'w/t': without "
                    "replacement (the proof's indicators) and with replacement", why=_EXACT_WHY,
           note=_population_note("with replacement the exact value is (N-1)N^2(Gamma_(alpha-beta)/n2 + Gamma_beta/n1)")),
    _claim("cor4.optimal_n_formula", "Theorem 3 discussion ('optimal minibatch size n = O(8T/(27N^6 Gamma_M^3))')",
           "Setting the derivative of the optimized bound to zero gives the optimal minibatch size 8T/(27N^6 Gamma_M^3).",
           _ID, measure=_cor4_second_derivative, rule=bound(ge=0.0, strict=True, quantity="d2/dn2 of (9) at its stationary point"),
           expected="the stationary point of (9) in n is a minimum (second derivative > 0)", why="exact (sympy)",
           figure="vrsg/cor4.png", note=_cor4_note),
]
