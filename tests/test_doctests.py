"""The docstring examples of every module of the installed package, run as doctests (they check themselves).

The package is imported by its one import name, ``sgmcmc_verify``, never from the folders by path: pytest's
``--doctest-modules`` would import ``verify/cli.py`` as a second module ``verify.cli`` beside
``sgmcmc_verify.cli`` (two registries, two classes of every error), so the examples are collected here instead.
Modules that need an optional extra (the peers) are run only when the extra imports.
"""
from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

#: optional extras: a module importing one of these is skipped when it is not installed
_OPTIONAL = ("jax", "blackjax", "torch", "numba", "arviz", "posteriors", "sgmcmcjax")


#: the package and its three mapped subpackages (in an editable install they live in other folders than the root)
_ROOTS = ("sgmcmc_verify", "sgmcmc_verify.analytic", "sgmcmc_verify.paper_repro", "sgmcmc_verify.figures")


def _modules_with_examples() -> list[str]:
    out = set()
    for root in _ROOTS:
        path = importlib.import_module(root).__path__
        names = [root] + [i.name for i in pkgutil.walk_packages(path, root + ".", onerror=lambda name: None)]
        for name in names:
            spec = importlib.util.find_spec(name)
            if spec is not None and spec.origin and spec.origin.endswith(".py") and ">>>" in Path(spec.origin).read_text():
                out.add(name)
    return sorted(out)


MODULES = _modules_with_examples()


def test_the_examples_are_found():
    """The collection itself: modules of every mapped folder that carry examples are listed."""
    assert len(MODULES) >= 30
    assert any(m.startswith("sgmcmc_verify.analytic.") for m in MODULES)
    assert "sgmcmc_verify.store.io" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name and e.name.split(".")[0] in _OPTIONAL:
            pytest.skip(f"optional extra not installed: {e.name}")
        raise
    tests = [t for t in doctest.DocTestFinder().find(module, name) if t.examples]
    assert tests, f"{name}: '>>>' in the source but no examples found"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    for t in tests:
        runner.run(t, out=report.append)
    assert runner.failures == 0, "".join(report)
