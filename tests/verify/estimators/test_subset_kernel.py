"""Sampling without replacement: the compiled redraw rule gives the NumPy rule's subsets and stream, bit for bit (#26)."""
from __future__ import annotations

import numpy as np
import pytest

import sgmcmc_verify.estimators.base as B
from sgmcmc_verify.estimators.base import subset_indices

numba = pytest.importorskip("numba")


def _draw(monkeypatch, kernel, n, chains, b, seed):
    """``subset_indices`` with the kernel forced (``kernel`` the compiled function or a stand-in) or off (False),
    and the generator's state after it."""
    monkeypatch.setattr(B, "_CLASH_KERNEL", kernel)
    monkeypatch.setattr(B, "_CLASH_KERNEL_MIN_WORK", 0)
    rng = np.random.default_rng(seed)
    return subset_indices(rng, n, chains, b), rng.bit_generator.state


def _kernel():
    from sgmcmc_verify.estimators._subset_kernel import redrawn_clashes
    return redrawn_clashes


# (n, chains, b): b = n/2 (the most redraw rounds; vrsg.identities' 1,000 / 500), just past n/2 (the complement path),
# b = 1 and small b, a single chain, n = 2
CASES = [(1_000, 300, 500), (1_000, 200, 501), (1_000, 100, 900), (50, 400, 25), (50, 400, 1), (7, 1_000, 3),
         (2, 50, 1), (1_000, 1, 500), (100_000, 20, 300)]


@pytest.mark.parametrize("n,chains,b", CASES)
def test_the_kernel_gives_the_numpy_rule_s_subsets_and_stream(n, chains, b, monkeypatch):
    for seed in range(3):
        got, st_got = _draw(monkeypatch, _kernel(), n, chains, b, [seed, n, b])
        ref, st_ref = _draw(monkeypatch, False, n, chains, b, [seed, n, b])
        assert got.dtype == ref.dtype == np.int64 and np.array_equal(got, ref) and st_got == st_ref
        assert all(len(set(r)) == b for r in got.tolist())


def test_a_rule_that_forgets_earlier_redrawn_entries_is_caught(monkeypatch):
    """Control: a kernel that checks the kept entries only (two redrawn entries may then take the same value) gives
    other subsets, and the comparison above sees it."""
    real = _kernel()

    def kept_only(idx, rows, cols, n):
        out = real(idx, rows, cols, n)
        for t in range(rows.size):   # recompute without the "earlier redrawn" half of the rule
            r, c = rows[t], cols[t]
            others = np.delete(idx[r], cols[rows == r])
            out[t] = bool(np.any(others == idx[r, c]))
        return out
    got, _ = _draw(monkeypatch, kept_only, 1_000, 50, 500, 1)
    ref, _ = _draw(monkeypatch, False, 1_000, 50, 500, 1)
    assert not np.array_equal(got, ref)


def test_small_draws_stay_in_numpy(monkeypatch):
    """Below ``_CLASH_KERNEL_MIN_WORK`` numba is not even imported (a sampler drawing small minibatches pays nothing)."""
    monkeypatch.setattr(B, "_CLASH_KERNEL", None)
    subset_indices(np.random.default_rng(0), 100, 10, 5)
    assert B._CLASH_KERNEL is None
