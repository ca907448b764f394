"""Fixtures shared by the test suite, the seed offset used by calibration, and the statistical-pair markers.

Every seeded statistical assertion is marked ``@pytest.mark.statistical(pair="<id>")`` and every planted
bug it must catch ``@pytest.mark.negative_control(pair="<id>")``; ``tests/test_architecture.py`` checks
that every pair has both halves, and ``tests/calibrate.py`` selects them by these markers.
"""
import json

from pathlib import Path

import numpy as np
import pytest

from sgmcmc_verify.targets import gaussian_means_target

SEED_STRIDE = 7919  # a prime: offsets k and k' never map two tests' seeds onto each other's
KINDS = ("statistical", "negative_control")


def pytest_addoption(parser):
    parser.addoption("--seed-offset", type=int, default=0,
                     help="shift every integer seed given to numpy.random.default_rng inside statistical and "
                          "negative-control tests by SEED_STRIDE * k (used by tests/calibrate.py)")
    parser.addoption("--calibration-log", default=None,
                     help="append one JSON line per statistical / negative-control test outcome (tests/calibrate.py)")


def marker_kind(item):
    """``("statistical" | "negative_control", pair)`` of a test item, or ``None``."""
    for kind in KINDS:
        m = item.get_closest_marker(kind)
        if m is not None:
            return kind, m.kwargs.get("pair")
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    log = item.config.getoption("--calibration-log")
    rep = outcome.get_result()
    kind = marker_kind(item)
    if not log or kind is None or not (rep.when == "call" or rep.failed or rep.skipped):
        return
    if rep.when != "call" and rep.passed:
        return
    with open(log, "a") as fh:
        fh.write(json.dumps({"nodeid": item.nodeid, "kind": kind[0], "pair": kind[1], "when": rep.when,
                             "passed": rep.passed, "skipped": rep.skipped}) + "\n")


@pytest.fixture(autouse=True)
def _seed_offset(request, monkeypatch):
    k = request.config.getoption("--seed-offset")
    if not k or marker_kind(request.node) is None:
        return
    real = np.random.default_rng

    def shifted(seed=None):
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seed = int(seed) + SEED_STRIDE * k
        elif isinstance(seed, (list, tuple)) and seed and all(isinstance(x, (int, np.integer)) for x in seed):
            seed = [int(seed[0]) + SEED_STRIDE * k, *seed[1:]]
        return real(seed)

    monkeypatch.setattr(np.random, "default_rng", shifted)


class ZeroTarget:
    """V ≡ 0 with n data terms: every gradient is zero."""

    def __init__(self, n=10, dim=2):
        self.n, self.dim = n, dim

    def data_gradients(self, theta, idx):
        return np.zeros(idx.shape + (self.dim,))

    def prior_gradient(self, theta):
        return np.zeros_like(theta)

    def full_gradient(self, theta):
        return np.zeros_like(theta)

    def potential(self, theta):
        return np.zeros(theta.shape[0])


@pytest.fixture(scope="session")
def target():
    return gaussian_means_target()


@pytest.fixture
def zero_target():
    return ZeroTarget()


@pytest.fixture(scope="session")
def smoke_results(tmp_path_factory):
    """Every registered experiment run once at smoke scale into a session temp dir (2 joblib workers: the
    numbers do not depend on ``n_jobs``, which ``tests/verify/test_runner.py`` checks)."""
    from sgmcmc_verify.store.cache import run_experiment
    from sgmcmc_verify.store.registry import all_experiments

    root = tmp_path_factory.mktemp("smoke_results")
    for e in all_experiments():
        run_experiment(e, "smoke", results_root=root, n_jobs=2)
    return root


#: ``{"<paper>/<name>.png": [problem, ...]}`` of every figure :func:`smoke_figures` drew (the figure check,
#: ``sgmcmc_verify.figures.readable``), kept on the session's config
FIGURE_PROBLEMS = pytest.StashKey[dict]()


@pytest.fixture(scope="session")
def smoke_figures(smoke_results, tmp_path_factory, pytestconfig):
    """Every paper's figures drawn once from :func:`smoke_results` into a session temp dir (``<out>/<paper>/...``);
    shared by the tests that check what the figure code draws. Each figure also goes through the figure check
    just before it is written (:func:`smoke_figure_problems`)."""
    from sgmcmc_verify.figures import _common
    from sgmcmc_verify.figures.readable import figure_problems
    from sgmcmc_verify.store.registry import figure_modules

    import re

    from sgmcmc_verify.figures import audit as audit_figures

    problems: dict = {}

    def check(fig, rel, claims):
        folder, file = rel.split("/", 1)
        m = re.fullmatch(r"\.(.+)\.partial-\d+", folder)   # an audit page is drawn into .<name>.partial-<pid>/
        problems[f"audit/{m.group(1)}/{file}" if m else rel] = figure_problems(fig, claims)

    out = tmp_path_factory.mktemp("smoke_figures")
    _common.FIGURE_HOOKS.append(check)
    try:
        for name, mod in figure_modules().items():
            if (smoke_results / name).is_dir():
                mod.draw_all(smoke_results / name, out / name)
        # the audit's figures, from stored smoke audits (tests/data/audit_smoke/README.md): the battery is not rerun
        audit_figures.draw_all(Path(__file__).parent / "data" / "audit_smoke", out / "audit")
    finally:
        _common.FIGURE_HOOKS.remove(check)
    pytestconfig.stash[FIGURE_PROBLEMS] = problems
    return out


@pytest.fixture(scope="session")
def smoke_figure_problems(smoke_figures, pytestconfig):
    """The figure check's findings on every figure drawn by :func:`smoke_figures` (``{file: [problem, ...]}``)."""
    return pytestconfig.stash[FIGURE_PROBLEMS]
