"""One conformance suite over every registered sampler (``sgmcmc_verify.samplers.SAMPLERS``).

A sampler is tested by being registered: each factory is built with the parameters the toolkit audit gives it
(:func:`sgmcmc_verify.audit.toolkit.audit_parameters`, derived from the factory's signature) on the §5.1
Gaussian target, and checked for the protocol (``init`` / ``step`` returning ``(state, StepInfo)``), shapes and
dtype, seeding (the same generator state gives the same bits; another seed other bits), and the cost of a step in
per-datum gradient evaluations: at n = 40 and n = 4,000 every step costs the same, unless the sampler is declared
below with its documented full passes (then some step must cost more at the larger n: the list stays honest). Each check is a function returning what is wrong, so that the negative
controls at the end run the very same checks on planted bugs.
"""
from __future__ import annotations

import numpy as np
import pytest

from sgmcmc_verify.audit.toolkit import audit_parameters
from sgmcmc_verify.integrators.base import StepInfo
from sgmcmc_verify.samplers import SAMPLERS
from sgmcmc_verify.targets.gaussian import gaussian_means_target

#: samplers whose steps may touch all n data, with the documentation of it (every other sampler must not)
FULL_PASSES = {
    "FG": "the full gradient at every step (the reference of EWSG §5.2)",
    "SVRG-LD": "a snapshot full gradient every epoch (SVRG's control variate)",
    "EWSG-VR": "EWSG-VR's full-gradient anchors (Appendix F)",
    "HMC": "exact Metropolis-corrected reference: full gradients and potentials",
    "MALA": "exact Metropolis-corrected reference: full gradients and potentials",
    "MH": "exact Metropolis-corrected reference: full potentials",
    "FlyMC": "exact FlyMC: the bright set and the full-data bound terms",
    "LS-GLD": "full-batch Laplacian-smoothed Langevin (the Table 3 path)",
    "LS-LD": "full-gradient Laplacian-smoothed Langevin dynamics (Fig. 3)",
}

NAMES = list(SAMPLERS)
CHAINS, STEPS, H = 4, 12, 1e-3


def _build(name, n=40, factory=None):
    t = gaussian_means_target(n=n, dim=2)
    f = factory or SAMPLERS[name]
    return f(t, H, **audit_parameters(name, SAMPLERS[name])), t


def _start(t, seed=1):
    rng = np.random.default_rng(seed)
    return t.posterior_mean + rng.standard_normal((CHAINS, t.dim)) / np.sqrt(t.n)


def _run(smp, t, seed, steps=STEPS):
    rng = np.random.default_rng(seed)
    state = smp.init(_start(t))
    out = []
    for _ in range(steps):
        state, info = smp.step(state, rng)
        out.append((np.array(state.position, copy=True), info))
    return out


def check_protocol(name, factory=None):
    smp, t = _build(name, factory=factory)
    bad = []
    for attr in ("init", "step", "target", "name"):
        if not hasattr(smp, attr):
            bad.append(f"no attribute {attr}")
    if bad:
        return bad
    state = smp.init(_start(t))
    res = smp.step(state, np.random.default_rng(0))
    if not (isinstance(res, tuple) and len(res) == 2):
        return [f"step returned {type(res).__name__}, not (state, StepInfo)"]
    new, info = res
    if not isinstance(info, StepInfo) or not isinstance(info.info, dict):
        bad.append(f"step's info is {type(info).__name__}, not a StepInfo with a dict")
    pos = np.asarray(getattr(new, "position", None))
    if pos.shape != (CHAINS, t.dim) or pos.dtype != np.float64:
        bad.append(f"position has shape {pos.shape} and dtype {pos.dtype}, expected ({CHAINS}, {t.dim}) float64")
    elif not np.all(np.isfinite(pos)):
        bad.append("position not finite after one small step")
    return bad


def check_seeding(name, factory=None):
    smp, t = _build(name, factory=factory)
    a, b, c = _run(smp, t, 7), _run(smp, t, 7), _run(smp, t, 8)
    bad = []
    if not all(np.array_equal(x[0], y[0]) for x, y in zip(a, b)):
        bad.append("the same seed gave different positions")
    if all(np.array_equal(x[0], y[0]) for x, y in zip(a, c)):
        bad.append("two seeds gave the same positions (randomness not from the rng argument)")
    return bad


def check_cost_independent_of_n(name, factory=None, n1=40, n2=4000):
    s1, t1 = _build(name, n1, factory)
    s2, t2 = _build(name, n2, factory)
    e1 = np.array([info.evaluations for _, info in _run(s1, t1, 3)], dtype=np.int64)
    e2 = np.array([info.evaluations for _, info in _run(s2, t2, 3)], dtype=np.int64)
    if name in FULL_PASSES:
        if not np.any(e2 > e1):
            return [f"declared with full passes ({FULL_PASSES[name]}) but no step of {len(e1)} grew with n: "
                    f"{e1.tolist()} at n = {n1}, {e2.tolist()} at n = {n2}"]
        return []
    if not np.array_equal(e1, e2):
        return [f"evaluations per step depend on n: {e1.tolist()} at n = {n1}, {e2.tolist()} at n = {n2}, and the "
                "sampler is not declared with documented full passes"]
    return []


CHECKS = [check_protocol, check_seeding, check_cost_independent_of_n]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("name", NAMES)
def test_every_registered_sampler_conforms(name, check):
    assert check(name) == []


def test_full_pass_declarations_name_registered_samplers():
    assert set(FULL_PASSES) <= set(SAMPLERS)


# ---- negative controls: planted bugs (test-only wrappers), each caught by the check named -------------------

class _Bugged:
    """A test-only wrapper of the toolkit's SGLD whose ``step`` is replaced by a planted bug."""

    def __init__(self, base, bug):
        self.base, self.bug = base, bug
        self.target, self.name = base.target, "bugged SGLD"

    def init(self, position, momentum=None):
        return self.base.init(position)

    def step(self, state, rng):
        return self.bug(self.base, state, rng)


def _wrap(bug):
    def factory(target, step_size, **kw):
        return _Bugged(SAMPLERS["SGLD"](target, step_size, **kw), bug)
    return factory


def _global_noise(base, state, rng):
    new, info = base.step(state, np.random.default_rng())       # draws from fresh entropy, not from rng
    return new, info


def _full_pass(base, state, rng):
    new, info = base.step(state, rng)
    return new, StepInfo(info.evaluations + base.target.n, info.info)  # an O(n) step passed off as a stochastic one


def _bare_state(base, state, rng):
    new, info = base.step(state, rng)
    return new.position, info                                      # a state without .position


@pytest.mark.parametrize("bug, check", [(_global_noise, check_seeding), (_full_pass, check_cost_independent_of_n),
                                        (_bare_state, check_protocol)],
                         ids=["randomness not from rng", "undeclared full pass", "state without position"])
def test_negative_control_planted_bugs_are_caught(bug, check):
    assert check("SGLD", factory=_wrap(bug)) != []
