"""sgmcmc_verify.transport: exact W2 against the sorted-sample identity, Sinkhorn against its entropic bracket."""
import math

import numpy as np
import pytest

from sgmcmc_verify.measure.transport import TransportBatch, w2_exact, w2_many, w2_sinkhorn


def _sorted_w2(x, y):
    """W2 between two equal-size 1-D empirical measures: the monotone coupling is optimal."""
    return math.sqrt(np.mean((np.sort(x.ravel()) - np.sort(y.ravel())) ** 2))


def test_exact_w2_matches_the_one_dimensional_sorted_identity():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(400, 1)), rng.standard_t(3, size=(400, 1)) + 0.3
    assert w2_exact(x, y) == pytest.approx(_sorted_w2(x, y), rel=1e-10)


def test_exact_w2_of_a_translation_is_the_shift_length():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(200, 2))
    assert w2_exact(x, x + [3.0, 4.0]) == pytest.approx(5.0, rel=1e-12)


def test_exact_w2_is_infinite_for_non_finite_points_and_reports_an_unfinished_solver():
    x = np.zeros((3, 2))
    assert w2_exact(x, np.array([[0.0, 0.0], [np.inf, 0.0], [1.0, 1.0]])) == math.inf
    rng = np.random.default_rng(3)
    with pytest.raises(RuntimeError, match="did not reach optimality"):
        w2_exact(rng.normal(size=(300, 2)), rng.normal(size=(300, 2)), max_iter=5)


@pytest.mark.parametrize("normalize,reg", [(False, 0.1), (True, 1e-2)])
def test_converged_sinkhorn_lies_in_its_entropic_bracket(normalize, reg):
    """W2² ≤ ⟨P_ε, M⟩ ≤ W2² + ε log n for the exact entropic plan (Peyré & Cuturi, Prop. 4.1)."""
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=(150, 2)), rng.normal(size=(150, 2)) + [1.0, 0.0]
    e2 = w2_exact(x, y) ** 2
    r = w2_sinkhorn(x, y, reg, normalize=normalize, max_iter=20_000)
    assert r["converged"] and r["final_err"] < 1e-7
    assert e2 - 1e-6 <= r["w2"] ** 2 <= e2 + r["bracket_width_sq"]
    # the bracket is not vacuous: the entropic excess is a visible fraction of its width
    assert r["w2"] ** 2 - e2 > 0.05 * r["bracket_width_sq"]


def test_a_truncated_sinkhorn_says_it_did_not_converge():
    """Negative control: a budget far below what penalty 1e-3 on the raw cost needs is reported, not hidden."""
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(100, 2)), rng.normal(size=(100, 2))
    r = w2_sinkhorn(x, y, 1e-3, max_iter=50)
    assert not r["converged"] and r["iterations"] <= 50 + r["stages"]


def test_sinkhorn_bad_input_names_the_parameter():
    x = np.zeros((4, 2))
    with pytest.raises(ValueError, match="reg"):
        w2_sinkhorn(x, x, 0.0)
    with pytest.raises(ValueError, match="scaling"):
        w2_sinkhorn(x, x, 0.1, scaling=1.5)
    with pytest.raises(ValueError, match="finite"):
        w2_sinkhorn(x, x + np.nan, 0.1)
    with pytest.raises(ValueError, match="x must be"):
        w2_exact(np.zeros(4), x)
    with pytest.raises(ValueError, match="same dimension"):
        w2_exact(np.zeros((4, 3)), x)


def test_parallel_solve_equals_serial():
    rng = np.random.default_rng(6)
    tasks = [(w2_exact, (rng.normal(size=(120, 2)), rng.normal(size=(120, 2))), {}) for _ in range(4)]
    tasks.append((w2_sinkhorn, (rng.normal(size=(60, 2)), rng.normal(size=(60, 2)), 0.1), {"max_iter": 3000}))
    serial = w2_many(tasks)
    par = w2_many(tasks, n_jobs=2, backend="loky")
    assert serial[:4] == par[:4] and serial[4]["w2"] == par[4]["w2"]


def test_a_batch_gives_each_problem_its_own_result_for_any_n_jobs():
    rng = np.random.default_rng(9)
    pts = [(rng.standard_normal((40, 2)), rng.standard_normal((40, 2)) + k) for k in range(4)]
    results = []
    for n_jobs in (1, 2):
        batch = TransportBatch()
        exact = [batch.exact(x, y) for x, y in pts]
        sink = batch.sinkhorn(*pts[0], 0.5)
        batch.solve(n_jobs=n_jobs)
        results.append([p.value for p in exact] + [sink.value["w2"]])
        assert len(batch) == 5
    assert results[0] == results[1]
    assert results[0][:4] == [w2_exact(x, y) for x, y in pts]


def test_a_problem_read_before_solving_is_an_error():
    p = TransportBatch().exact(np.zeros((2, 1)), np.ones((2, 1)))
    with pytest.raises(RuntimeError, match="before TransportBatch.solve"):
        _ = p.value
