"""HSG-HMC paper studies: the exact and MH references of Table 2, Lemmas 2–3, mode switches.

Seed ``001_d56659fdb8996bf2.txt`` (HSG-HMC): Lemmas 2–3, Corollary 2, Table 2, Figure 1.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from sgmcmc_verify.paper_repro.hsg_hmc.lemmas import lemma_block
from sgmcmc_verify.paper_repro.hsg_hmc.table2 import mode_crossings
from sgmcmc_verify.estimators import HybridGradient
from sgmcmc_verify.integrators.metropolis import HMC
from sgmcmc_verify.measure.transport import w2_exact
from sgmcmc_verify.runner import run_chains
from sgmcmc_verify.targets.mixtures import grid_density, hsg_mixture_target, sample_from_grid

Z_LEMMA2 = 4.0  # max over <= 100 k's of a one-sided z: Bonferroni 100 × 3e-5 = 0.3 % false alarm


@pytest.fixture(scope="module")
def mixture():
    return hsg_mixture_target()


class DecoupledHybridGradient(HybridGradient):
    """Planted bug: the two gradients of the difference term of (7), at x^(k) and x^(k−1), use independent
    samples, which destroys the variance reduction of the difference."""

    def _previous_indices(self, rng, target, idx):
        return rng.integers(0, target.n, size=idx.shape)


# ---- exact reference vs MH reference ---------------------------------------------------------

@pytest.mark.statistical(pair="hsg_hmc.hmc_reference")
def test_hmc_reference_agrees_with_grid_quadrature(mixture):
    """The MH-corrected HMC reference and the grid-quadrature reference describe the same law.

    800 independent chains start from exact grid draws and take 100 HMC steps; a correct MH kernel
    keeps them exactly distributed as the target, so their W2 to a fresh exact sample is distributed
    like the exact-vs-exact W2 (the floor, 30 replicates). Pass if it is below the floor's mean + 4 s.d.
    (Starting all chains at one point, as an earlier version did, measured how 40 chains split
    between the modes rather than the kernel: it passed on 80 % of seeds only.)
    """
    grid = grid_density(mixture, cells=200)
    assert grid.mass_at_boundary < 1e-8
    rng = np.random.default_rng(11)
    hmc = HMC(mixture, 0.3, 5)
    st = run_chains(hmc, hmc.init(sample_from_grid(grid, 800, rng)), rng, steps=100)["state"]
    floor = [w2_exact(sample_from_grid(grid, 800, rng), sample_from_grid(grid, 800, rng)) for _ in range(30)]
    w = w2_exact(st.position, sample_from_grid(grid, 800, rng))
    assert w < np.mean(floor) + 4 * np.std(floor, ddof=1), (w, floor)


@pytest.mark.negative_control(pair="hsg_hmc.hmc_reference")
def test_hmc_reference_check_catches_wrong_target(mixture):
    """Planted bug: a mixture with the other weight order (1:2) has the mode weights swapped."""
    grid = grid_density(mixture, cells=200)
    rng = np.random.default_rng(11)
    bad = sample_from_grid(grid, 800, rng) * np.array([-1.0, -1.0])
    floor = [w2_exact(sample_from_grid(grid, 800, rng), sample_from_grid(grid, 800, rng)) for _ in range(30)]
    w = w2_exact(bad, sample_from_grid(grid, 800, rng))
    assert w > np.mean(floor) + 4 * np.std(floor, ddof=1)


# ---- Lemma 2 (recursion as an inequality) and Lemma 3 (shape) --------------------------------

def _lemma(schedule, steps, rng, decouple=False, chains=300, h=0.01):
    return lemma_block(chains, rng, n_data=500, dim=2, mixture_seed=20210202, step_size=h, schedule=schedule,
                       steps=steps, estimator_class=DecoupledHybridGradient if decouple else HybridGradient)


def _lemma2_max_z(r):
    rho = r["rho"][1:][None]
    z = r["err2"][:, 1:] - (2 * rho**2 * r["sig2"][:, 1:] + (1 - rho) ** 2 * (r["err2"][:, :-1] + 2 * r["diff2"]))
    return float(np.max(z.mean(0) / (z.std(0, ddof=1) / math.sqrt(z.shape[0]))))


@pytest.mark.statistical(pair="hsg_hmc.lemma2")
def test_lemma2_recursion_holds_between_measured_quantities():
    assert _lemma2_max_z(_lemma("harmonic", 40, np.random.default_rng(5))) < Z_LEMMA2


@pytest.mark.negative_control(pair="hsg_hmc.lemma2")
def test_lemma2_check_catches_decoupled_samples():
    """Planted bug: the two gradients of the difference term use independent samples."""
    assert _lemma2_max_z(_lemma("harmonic", 40, np.random.default_rng(5), decouple=True)) > Z_LEMMA2


def _normalized_at(r, k):
    norm = r["err2"][:, k] / r["sig2"][:, k].mean()
    return norm.mean(), norm.std(ddof=1) / math.sqrt(norm.size)


# Lemma 3 shape: with ρ_k = 1/k the error at k = 20 is at most 2G²/k relative to the one-sample
# variance, 2/20 = 0.1, up to the growth of σ²(x) along the path from x = 0; the threshold 0.3
# allows a three-fold growth (measured σ²(x_20)/σ²(x_1) ≈ 1.5 at η = 0.01). Fixed before running.
LEMMA3_THRESHOLD = 0.3


@pytest.mark.statistical(pair="hsg_hmc.lemma3")
def test_lemma3_harmonic_weight_decays_like_one_over_k():
    m, se = _normalized_at(_lemma("harmonic", 20, np.random.default_rng(8)), 20)
    assert m + 3 * se < LEMMA3_THRESHOLD, (m, se)


@pytest.mark.negative_control(pair="hsg_hmc.lemma3")
def test_lemma3_check_catches_non_decaying_weight():
    """Planted bug: ρ_k stuck at its first value ρ_1 = 1 instead of decaying like 1/k."""
    m, se = _normalized_at(_lemma("constant1", 20, np.random.default_rng(8)), 20)
    assert not (m + 3 * se < LEMMA3_THRESHOLD), (m, se)


def test_mode_crossings_uses_hysteresis():
    s = np.array([3.0, 0.5, -0.5, 3.0, -3.0, 0.9, -1.2, 2.0])  # labels +, ., ., +, -, ., -, +
    samples = np.stack([s, np.zeros_like(s)], axis=1)[None]
    assert mode_crossings(samples, np.array([1.0, 0.0])).tolist() == [2]
