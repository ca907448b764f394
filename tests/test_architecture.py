"""The shape of the code: one-way layers, one chain loop, short experiment functions, paired statistical tests.

Layers, bottom to top (a module may import its own layer and the layers below, never above)::

    analytic                      exact mathematics; imports nothing of the project
    verify.errors                 typed errors, validators
    verify.targets | verify.estimators | verify.measure     (side by side)
    verify.integrators            (estimators below it)
    verify.samplers, verify.runner
    verify.store                  (its registry discovers paper_repro and figures at run time)
    verify.ledger
    verify.cli
    paper_repro                   the papers: settings, experiments, claims
    figures                       reads stored results only (verify.store.io, verify.ledger)
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("analytic", "verify", "paper_repro", "figures")

#: module prefix → the project prefixes it may import (its own prefix is always allowed)
ALLOWED = {
    "analytic": (),
    "verify.errors": ("analytic",),
    "verify.targets": ("analytic", "verify.errors"),
    "verify.estimators": ("analytic", "verify.errors"),
    "verify.measure": ("analytic", "verify.errors"),
    "verify.integrators": ("analytic", "verify.errors", "verify.estimators"),
    "verify.samplers": ("analytic", "verify.errors", "verify.estimators", "verify.integrators"),
    "verify.runner": ("verify.errors",),
    "verify.peers": ("analytic", "verify.errors", "verify.targets", "verify.estimators", "verify.integrators"),
    "verify.store": ("verify.errors",),
    "verify.audit": ("analytic", "verify.errors", "verify.targets", "verify.estimators", "verify.measure",
                     "verify.integrators", "verify.samplers", "verify.runner", "verify.store"),
    "verify.ledger": ("verify.store", "verify.errors"),
    "verify.cli": ("verify",),
    "verify": (),  # the package __init__ imports nothing
    "paper_repro": ("analytic", "verify"),
    "figures": ("verify.store", "verify.ledger"),
}
#: run-time discovery, the one documented exception: the registry imports the papers and the figures
DISCOVERY = {"verify.store.registry": ("paper_repro", "figures")}


def _modules():
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join(parts), path


def _imports(name, path):
    tree = ast.parse(path.read_text(), filename=str(path))
    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
                yield mod
                if not node.module:  # "from . import x": the submodules
                    yield from (f"{mod}.{a.name}" for a in node.names)
            else:
                yield node.module or ""


def _rule(name):
    best = max((p for p in ALLOWED if name == p or name.startswith(p + ".")), key=len)
    return best, ALLOWED[best]


def _within(mod, prefixes):
    return any(mod == p or mod.startswith(p + ".") for p in prefixes)


def test_every_module_imports_only_its_own_and_lower_layers():
    bad = []
    for name, path in _modules():
        layer, allowed = _rule(name)
        for mod in _imports(name, path):
            if mod.split(".")[0] not in PACKAGES:
                continue
            if _within(mod, (layer,) + allowed) or _within(mod, DISCOVERY.get(name, ())):
                continue
            bad.append(f"{name} imports {mod}")
    assert bad == [], "\n".join(bad)


def test_the_layer_check_catches_an_upward_import(tmp_path):
    """Negative control of the check above: an analytic module importing verify is reported."""
    f = tmp_path / "bad.py"
    f.write_text("from verify.errors import DivergenceError\n")
    mods = [m for m in _imports("analytic.bad", f) if m.split(".")[0] in PACKAGES]
    layer, allowed = _rule("analytic.bad")
    assert [m for m in mods if not _within(m, (layer,) + allowed)] == ["verify.errors"]


@pytest.mark.parametrize("stmt,forbidden", [
    ("import analytic, analytic.gaussian, analytic.hsg_moments, analytic.laplacian, analytic.linear_samplers, "
     "analytic.ls_constants, analytic.ls_exact, analytic.ou_integrator, analytic.time_average, analytic.validation",
     ("verify", "paper_repro", "figures")),
    ("import verify.samplers, verify.runner, verify.measure, verify.targets", ("paper_repro", "figures", "verify.store",
                                                                             "verify.ledger", "verify.cli")),
    ("import verify.ledger.claims, verify.store.cache", ("paper_repro", "figures", "verify.cli")),
])
def test_importing_a_layer_loads_nothing_above_it(stmt, forbidden):
    code = (f"import sys; {stmt}; "
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {PACKAGES!r} and "
            f"any(m == f or m.startswith(f + '.') for f in {forbidden!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_no_module_steps_chains_outside_the_runner():
    """The one chain loop: only verify/runner.py calls an integrator's ``step`` in a loop."""
    found = []
    for name, path in _modules():
        if name == "verify.runner" or not name.startswith(("verify", "paper_repro")):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step":
                found.append(f"{name}:{node.lineno}")
    assert found == [], found


def test_experiment_functions_are_short():
    """No experiment function longer than about 60 lines (claims and settings are data, not experiments)."""
    long = []
    for name, path in _modules():
        if not name.startswith("paper_repro") or name.endswith((".claims", ".settings")):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > 65:
                long.append(f"{name}.{node.name}: {node.end_lineno - node.lineno + 1} lines")
    assert long == [], long


def _marked_tests():
    """``(file, test name, kind, pair)`` for every test function decorated with a statistical marker."""
    out = []
    for path in sorted(Path(__file__).parent.rglob("test_*.py")):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef):
                continue
            for dec in node.decorator_list:
                call = dec if isinstance(dec, ast.Call) else None
                target = call.func if call else dec
                if isinstance(target, ast.Attribute) and target.attr in ("statistical", "negative_control"):
                    pair = next((k.value.value for k in (call.keywords if call else []) if k.arg == "pair"), None)
                    out.append((path.name, node.name, target.attr, pair))
        for node in tree.body:  # a module-wide pytestmark would mark controls as assertions too
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets):
                src = ast.unparse(node.value)
                assert "statistical" not in src and "negative_control" not in src, f"{path.name}: {src}"
    return out


def test_every_statistical_assertion_has_a_negative_control_and_vice_versa():
    marked = _marked_tests()
    assert len(marked) >= 30
    unnamed = [m for m in marked if not m[3]]
    assert unnamed == [], f"statistical markers need pair=...: {unnamed}"
    kinds = {}
    for _, _, kind, pair in marked:
        kinds.setdefault(pair, set()).add(kind)
    incomplete = {p: k for p, k in kinds.items() if k != {"statistical", "negative_control"}}
    assert incomplete == {}, incomplete
