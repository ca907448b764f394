"""One conformance suite over every registered target (``sgmcmc_verify.targets.registry.TARGETS``).

A target is tested by being registered. Each check is a function returning the list of what is wrong, so the
negative controls at the end run the very same checks on planted bugs.

Tolerances (float64):
* central differences with a step ε = 1e-6·max(1, |θ|): truncation O(ε²|V'''|) ≲ 1e-10 and round-off
  O(|V|·1e-16/ε) ≲ 1e-9 on these small instances, so gradients are compared at 1e-6·max(1, |∇V|) — a margin of
  ~10³ over both, while a wrong term (a missing factor, a swapped datum) is an O(1) relative error;
* two evaluations of the same sums: 1e-11 relative (round-off of at most a few hundred terms);
* quadrature: the midpoint rule on the box mean ± 9 s.d. with 400² cells has error O(cell²/24·|∂²p|) ≈ 1e-4 of a
  variance; means are compared at 2e-3 s.d., covariances at 2e-3 relative;
* exact draws: 20,000 draws, each coordinate's mean and each covariance entry against the exact value at
  |z| < 5 (the standard error estimated from the draws' fourth moments); over the ≈ 60 statistics of the suite the
  chance of a false alarm is below 1e-4, and a 0.1-s.d. shift or a 10 % variance error is ≥ 10 s.e.
"""
from __future__ import annotations

import importlib
import pkgutil

import numpy as np
import pytest
from scipy import integrate

import sgmcmc_verify.targets as targets_pkg
from sgmcmc_verify.targets.base import ExactAnswers, FiniteSumPotential
from sgmcmc_verify.targets.mixtures import HSGMixtureTarget, grid_density
from sgmcmc_verify.targets.gaussian import GaussianMeansTarget
from sgmcmc_verify.targets.registry import TARGET_CLASSES, TARGETS, build_target

NAMES = list(TARGETS)
CHAINS, B = 3, 4


def _setup(t, seed=0):
    """Points where the potential is finite: exact draws where the target has them, its own starting points,
    or standard normal ones."""
    rng = np.random.default_rng(seed)
    sample = t.exact_answers().sample
    if sample is not None:
        theta = sample(rng, CHAINS)
    elif hasattr(t, "initial_position"):
        theta = t.initial_position(rng, CHAINS) + 0.3 * rng.standard_normal((CHAINS, t.dim))
    else:
        theta = rng.standard_normal((CHAINS, t.dim)) * 0.7 + 0.3
    idx = rng.integers(0, t.n, size=(CHAINS, B))
    return theta, idx, rng


def _close(a, b, rel):
    scale = max(1.0, float(np.max(np.abs(b))) if np.size(b) else 1.0)
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) <= rel * scale


def _fd_rows(f, theta_c):
    """Central differences of ``f((m, d)) -> (m, k)`` at one point ``theta_c`` (d,) → (k, d)."""
    d = theta_c.size
    eps = 1e-6 * max(1.0, float(np.max(np.abs(theta_c))))
    E = eps * np.eye(d)
    vals = f(np.concatenate([theta_c + E, theta_c - E]))
    return ((vals[:d] - vals[d:]) / (2 * eps)).T


def check_shapes(t):
    theta, idx, _ = _setup(t)
    bad = []
    for name, got, want in (("data_gradients", t.data_gradients(theta, idx).shape, (CHAINS, B, t.dim)),
                            ("data_potentials", t.data_potentials(theta, idx).shape, (CHAINS, B)),
                            ("prior_gradient", t.prior_gradient(theta).shape, (CHAINS, t.dim)),
                            ("full_gradient", t.full_gradient(theta).shape, (CHAINS, t.dim)),
                            ("potential", t.potential(theta).shape, (CHAINS,))):
        if got != want:
            bad.append(f"{name} has shape {got}, expected {want}")
    return bad


def check_per_datum_gradients(t):
    """∇V_i against central differences of V_i, datum by datum and chain by chain."""
    theta, idx, _ = _setup(t)
    g, bad = t.data_gradients(theta, idx), []
    for c in range(CHAINS):
        fd = _fd_rows(lambda th, c=c: t.data_potentials(th, np.broadcast_to(idx[c], (th.shape[0], B))), theta[c])
        if not _close(g[c], fd, 1e-6):
            bad.append(f"per-datum gradients of chain {c} differ from central differences of data_potentials "
                       f"by {np.max(np.abs(g[c] - fd)):.2e}")
    return bad


def check_full_gradient_is_prior_plus_data(t):
    """∇V = ∇V_0 + Σ_i ∇V_i, with V_0 = V − Σ_i V_i checked against central differences."""
    theta, _, _ = _setup(t)
    every = np.broadcast_to(np.arange(t.n), (CHAINS, t.n))
    bad = []
    full = t.full_gradient(theta)
    summed = t.prior_gradient(theta) + t.data_gradients(theta, every).sum(axis=1)
    if not _close(full, summed, 1e-11):
        bad.append(f"full_gradient differs from prior_gradient + Σ_i data_gradients by {np.max(np.abs(full - summed)):.2e}")
    for c in range(CHAINS):
        def v0(th):
            return (t.potential(th) - t.data_potentials(th, np.broadcast_to(np.arange(t.n), (th.shape[0], t.n))).sum(1))[:, None]
        fd = _fd_rows(v0, theta[c])[0]
        if not _close(t.prior_gradient(theta[c:c + 1])[0], fd, 1e-6):
            bad.append(f"prior_gradient of chain {c} differs from central differences of V − Σ V_i")
    return bad


def check_batches(t):
    """A batch call equals the one-index calls; minibatch sums equal the summed per-datum gradients."""
    theta, idx, rng = _setup(t)
    g, bad = t.data_gradients(theta, idx), []
    one = np.array([[t.data_gradients(theta[c:c + 1], idx[c:c + 1, j:j + 1])[0, 0] for j in range(B)]
                    for c in range(CHAINS)])
    if not _close(g, one, 1e-11):
        bad.append("data_gradients of a batch differ from the one-index calls")
    if hasattr(t, "data_gradient_sum"):
        if not _close(t.data_gradient_sum(theta, idx), g.sum(axis=1), 1e-11):
            bad.append("data_gradient_sum differs from Σ_j data_gradients")
        if getattr(t, "weighted_data_gradient_sum", False):
            w = rng.random((CHAINS, B))
            if not _close(t.data_gradient_sum(theta, idx, weights=w), (w[..., None] * g).sum(axis=1), 1e-11):
                bad.append("weighted data_gradient_sum differs from Σ_j w_j data_gradients")
    if hasattr(t, "data_gradient_sum_exact") and not np.array_equal(t.data_gradient_sum_exact(theta, idx), g.sum(axis=1)):
        bad.append("data_gradient_sum_exact is not bit-identical to data_gradients(...).sum(axis=1)")
    return bad


def _quadrature(t, ex):
    """Mean and covariance of exp(−V) by quadrature, on a box of ± 9 s.d. around the stated answer."""
    sd = np.sqrt(np.diag(ex.cov))
    if t.dim == 1:
        m0, s0 = float(ex.mean[0]), float(sd[0])
        v_min = float(t.potential(np.array([[m0]]))[0])

        def p(x):
            return np.exp(-(t.potential(np.array([[x]]))[0] - v_min))
        lo, hi = m0 - 9 * s0, m0 + 9 * s0
        Z = integrate.quad(p, lo, hi, epsabs=0, epsrel=1e-12, limit=200)[0]
        m = integrate.quad(lambda x: x * p(x), lo, hi, epsabs=0, epsrel=1e-12, limit=200)[0] / Z
        v = integrate.quad(lambda x: (x - m) ** 2 * p(x), lo, hi, epsabs=0, epsrel=1e-12, limit=200)[0] / Z
        return np.array([m]), np.array([[v]])
    g = grid_density(t, ex.mean - 9 * sd, ex.mean + 9 * sd, cells=400)
    return g.mean, g.cov


def check_exact_answers(t, draws=20_000, seed=11):
    ex = t.exact_answers()
    bad = []
    if not isinstance(ex, ExactAnswers):
        return [f"exact_answers() returned {type(ex).__name__}, not ExactAnswers"]
    filled = [f for f in ("mean", "cov", "hessian", "grid", "sample") if getattr(ex, f) is not None]
    if len(filled) < 5 and not ex.missing:
        bad.append("exact_answers leaves fields empty without saying why (missing)")
    theta, _, _ = _setup(t)
    if ex.hessian is not None:
        fd = _fd_rows(t.full_gradient, theta[0])
        if not _close(fd, ex.hessian, 1e-6):
            bad.append("the Hessian differs from central differences of full_gradient")
        if ex.mean is not None and not _close(t.full_gradient(ex.mean[None])[0], np.zeros(t.dim), 1e-9):
            bad.append("the gradient does not vanish at the stated mean")
        if ex.cov is not None and not _close(ex.cov @ ex.hessian, np.eye(t.dim), 1e-10):
            bad.append("the covariance is not the inverse of the Hessian")
    if ex.mean is not None and ex.cov is not None and t.dim <= 2:
        m, C = _quadrature(t, ex)
        sd = np.sqrt(np.diag(ex.cov))
        if np.max(np.abs(m - ex.mean) / sd) > 2e-3:
            bad.append(f"the mean differs from quadrature by {np.max(np.abs(m - ex.mean) / sd):.1e} s.d.")
        if np.max(np.abs(C - ex.cov)) > 2e-3 * np.max(np.abs(ex.cov)):
            bad.append(f"the covariance differs from quadrature by {np.max(np.abs(C - ex.cov)):.1e}")
    if ex.grid is not None and ex.grid.mass_at_boundary > 1e-8:
        bad.append(f"the quadrature box leaves {ex.grid.mass_at_boundary:.1e} of the mass on its boundary")
    if ex.sample is not None and ex.mean is not None and ex.cov is not None:
        x = ex.sample(np.random.default_rng(seed), draws)
        if x.shape != (draws, t.dim):
            return bad + [f"exact draws have shape {x.shape}, expected {(draws, t.dim)}"]
        xc = x - x.mean(axis=0)
        z_mean = (x.mean(axis=0) - ex.mean) / (x.std(axis=0, ddof=1) / np.sqrt(draws))
        prod = xc[:, :, None] * xc[:, None, :]
        z_cov = (prod.mean(axis=0) - ex.cov) / (prod.std(axis=0, ddof=1) / np.sqrt(draws))
        if np.max(np.abs(z_mean)) > 5:
            bad.append(f"exact draws: mean off by |z| = {np.max(np.abs(z_mean)):.1f}")
        if np.max(np.abs(z_cov)) > 5:
            bad.append(f"exact draws: covariance off by |z| = {np.max(np.abs(z_cov)):.1f}")
    return bad


CHECKS = [check_shapes, check_per_datum_gradients, check_full_gradient_is_prior_plus_data, check_batches,
          check_exact_answers]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("name", NAMES)
def test_every_registered_target_conforms(name, check):
    t = build_target(name)
    assert isinstance(t, FiniteSumPotential)
    assert check(t) == []


def _target_classes_defined_in_the_package():
    found = set()
    for info in pkgutil.iter_modules(targets_pkg.__path__):
        mod = importlib.import_module(f"{targets_pkg.__name__}.{info.name}")
        for obj in vars(mod).values():
            if (isinstance(obj, type) and obj.__module__ == mod.__name__ and not obj.__name__.startswith("_")
                    and obj is not FiniteSumPotential and hasattr(obj, "data_gradients") and hasattr(obj, "potential")):
                found.add(obj)
    return found


def test_every_target_class_of_the_package_is_registered():
    assert _target_classes_defined_in_the_package() == set(TARGET_CLASSES)
    built = {type(f()) for f in TARGETS.values()}
    assert built == set(TARGET_CLASSES), f"registered classes without an instance: {set(TARGET_CLASSES) - built}"


def test_unknown_target_name_is_refused():
    with pytest.raises(ValueError, match="target must be one of"):
        build_target("no such target")


# ---- negative controls: planted bugs (test-only subclasses), each caught by the check named ----------------

class _SwappedDatum(HSGMixtureTarget):
    """Each index returns the gradient of the next datum: every sum over all data is unchanged."""

    def data_gradients(self, theta, idx):
        return super().data_gradients(theta, (np.asarray(idx) + 1) % self.n)


class _WrongPrior(GaussianMeansTarget):
    """A prior gradient that its potential does not have."""

    def prior_gradient(self, theta):
        return 0.1 * theta


class _BiasedDraws(GaussianMeansTarget):
    """Exact draws whose mean is off by 0.1 s.d."""

    def exact_answers(self):
        ex = super().exact_answers()
        shift = 0.1 * np.sqrt(np.diag(ex.cov))
        return ExactAnswers(mean=ex.mean, cov=ex.cov, hessian=ex.hessian, sample=lambda r, s: ex.sample(r, s) + shift,
                            source=ex.source)


class _WideDraws(GaussianMeansTarget):
    """Exact draws whose variance is 10 % too large."""

    def exact_answers(self):
        ex = super().exact_answers()
        return ExactAnswers(mean=ex.mean, cov=ex.cov, hessian=ex.hessian,
                            sample=lambda r, s: ex.mean + np.sqrt(1.1) * (ex.sample(r, s) - ex.mean), source=ex.source)


class _WrongCovariance(GaussianMeansTarget):
    """A stated covariance (and draws) of 1/(n+1) instead of 1/n: wrong against the Hessian and quadrature."""

    @property
    def posterior_cov(self):
        return np.eye(self.dim) / (self.n + 1)


def _centers():
    return build_target("gaussian_means").centers


@pytest.mark.parametrize("bug, check", [
    (lambda: _SwappedDatum(build_target("hsg_mixture").centers), check_per_datum_gradients),
    (lambda: _WrongPrior(_centers()), check_full_gradient_is_prior_plus_data),
    (lambda: _BiasedDraws(_centers()), check_exact_answers),
    (lambda: _WideDraws(_centers()), check_exact_answers),
    (lambda: _WrongCovariance(_centers()), check_exact_answers),
], ids=["swapped datum", "wrong prior", "biased draws", "wide draws", "wrong covariance"])
def test_negative_control_planted_bugs_are_caught(bug, check):
    assert check(bug()) != []


def test_negative_control_a_swapped_datum_passes_every_sum_check():
    """Why the per-datum check exists: the swap keeps every sum over all data, so only it can catch it."""
    t = _SwappedDatum(build_target("hsg_mixture").centers)
    assert check_full_gradient_is_prior_plus_data(t) == [] and check_per_datum_gradients(t) != []
