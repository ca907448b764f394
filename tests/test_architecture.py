"""The shape of the code: one-way layers, one chain loop, short experiment functions, paired statistical tests.

One import name, ``sgmcmc_verify`` (the folder ``verify/``); the folders ``analytic/``, ``paper_repro/`` and
``figures/`` are its subpackages. Layers, bottom to top (a module may import its own layer and the layers below,
never above)::

    sgmcmc_verify.analytic        exact mathematics; imports nothing else of the project
    sgmcmc_verify                 the package __init__ imports nothing
    .errors                       typed errors, validators
    .targets | .estimators | .measure     (side by side)
    .integrators                  (estimators below it)
    .samplers, .runner
    .store                        (its registry discovers paper_repro and figures at run time)
    .ledger
    .cli
    .paper_repro                  the papers: settings, experiments, claims
    .figures                      reads stored results only (store.io, ledger)
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
V = "sgmcmc_verify"
#: folder -> the import name it is installed under (setup.py's package-dir mapping)
FOLDERS = {"verify": V, "analytic": f"{V}.analytic", "paper_repro": f"{V}.paper_repro", "figures": f"{V}.figures"}
#: the toolkit proper: every module and subpackage of verify/ (not the three mapped subpackages)
TOOLKIT = tuple(sorted(f"{V}.{p.stem}" for p in (ROOT / "verify").iterdir()
                       if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()))

#: module prefix → the project prefixes it may import (its own prefix is always allowed; the bare root
#: ``sgmcmc_verify`` as a prefix stands for the root package only, never for everything under it)
ALLOWED = {
    f"{V}.analytic": (),
    f"{V}.errors": (f"{V}.analytic",),
    f"{V}.targets": (f"{V}.analytic", f"{V}.errors"),
    f"{V}.estimators": (f"{V}.analytic", f"{V}.errors"),
    f"{V}.measure": (f"{V}.analytic", f"{V}.errors"),
    f"{V}.integrators": (f"{V}.analytic", f"{V}.errors", f"{V}.estimators"),
    f"{V}.samplers": (f"{V}.analytic", f"{V}.errors", f"{V}.estimators", f"{V}.integrators"),
    f"{V}.runner": (f"{V}.errors",),
    f"{V}.peers": (f"{V}.analytic", f"{V}.errors", f"{V}.targets", f"{V}.estimators", f"{V}.integrators"),
    f"{V}.store": (f"{V}.errors",),
    f"{V}.audit": (f"{V}.analytic", f"{V}.errors", f"{V}.targets", f"{V}.estimators", f"{V}.measure",
                   f"{V}.integrators", f"{V}.samplers", f"{V}.runner", f"{V}.store"),
    f"{V}.ledger": (f"{V}.store", f"{V}.errors"),
    f"{V}.chains": (f"{V}.errors", f"{V}.runner", f"{V}.store"),   # chains out: the runner's records -> ArviZ
    f"{V}.cli": (V,) + TOOLKIT,
    V: (),  # the package __init__ imports nothing
    f"{V}.paper_repro": (V, f"{V}.analytic") + TOOLKIT,
    f"{V}.figures": (f"{V}.store", f"{V}.ledger"),
}
#: run-time discovery, the one documented exception: the registry imports the papers and the figures
DISCOVERY = {f"{V}.store.registry": (f"{V}.paper_repro", f"{V}.figures")}


def _modules():
    for folder, pkg in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join([pkg] + parts), path


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
            else:
                mod = node.module or ""
            yield mod
            if mod == V or not node.module or node.level:  # "from pkg import x": x may be a submodule
                yield from (f"{mod}.{a.name}" for a in node.names)


def _project(mod):
    return mod == V or mod.startswith(V + ".")


def _within(mod, prefixes):
    return any(mod == p or (p != V and mod.startswith(p + ".")) for p in prefixes)


def _rule(name):
    best = max((p for p in ALLOWED if name == p or name.startswith(p + ".")), key=len)
    own = TOOLKIT if best == V else (best,)
    return own, ALLOWED[best]


def _violations(name, path):
    own, allowed = _rule(name)
    for mod in _imports(name, path):
        if not _project(mod) or mod == V:  # the root package runs first on every import; it imports nothing
            continue
        if _within(mod, own + allowed) or _within(mod, DISCOVERY.get(name, ())):
            continue
        if mod.count(".") >= 2 and _within(mod.rpartition(".")[0], own + allowed):
            continue  # "from pkg.module import name": the name is not a module
        yield mod


def test_every_module_imports_only_its_own_and_lower_layers():
    bad = [f"{name} imports {mod}" for name, path in _modules() for mod in _violations(name, path)]
    assert bad == [], "\n".join(bad)


def test_the_distribution_has_one_top_level_import_name():
    """setup.py maps exactly the four folders of the design under one name."""
    src = (ROOT / "setup.py").read_text()
    mapping = ast.literal_eval(src.split("FOLDERS = ", 1)[1].split("\n\n", 1)[0])
    assert {v: k for k, v in mapping.items()} == FOLDERS
    assert {k.split(".")[0] for k in mapping} == {V}


@pytest.mark.parametrize("src,expected", [
    (f"from {V}.errors import DivergenceError\n", [f"{V}.errors"]),
    (f"from {V} import paper_repro\n", [f"{V}.paper_repro"]),
    ("from ..figures import ewsg\n", [f"{V}.figures", f"{V}.figures.ewsg"]),
])
def test_the_layer_check_catches_an_upward_import(tmp_path, src, expected):
    """Negative control of the check above: an analytic module importing the toolkit, the papers or the
    figures is reported (absolute and relative forms)."""
    f = tmp_path / "bad.py"
    f.write_text(src)
    assert list(_violations(f"{V}.analytic.bad", f)) == expected


_ANALYTIC = ("gaussian", "hsg_moments", "laplacian", "linear_samplers", "ls_constants", "ls_exact", "ou_integrator",
             "time_average", "validation")


@pytest.mark.parametrize("stmt,forbidden", [
    ("import " + ", ".join([f"{V}.analytic"] + [f"{V}.analytic.{m}" for m in _ANALYTIC]),
     TOOLKIT + (f"{V}.paper_repro", f"{V}.figures")),
    (f"import {V}.samplers, {V}.runner, {V}.measure, {V}.targets",
     (f"{V}.paper_repro", f"{V}.figures", f"{V}.store", f"{V}.ledger", f"{V}.cli")),
    (f"import {V}.ledger.claims, {V}.store.cache", (f"{V}.paper_repro", f"{V}.figures", f"{V}.cli")),
])
def test_importing_a_layer_loads_nothing_above_it(stmt, forbidden):
    code = (f"import sys; {stmt}; "
            f"print(sorted(m for m in sys.modules if any(m == f or m.startswith(f + '.') for f in {forbidden!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_no_module_steps_chains_outside_the_runner():
    """The one chain loop: only verify/runner.py calls an integrator's ``step`` in a loop."""
    found = []
    for name, path in _modules():
        if name == f"{V}.runner" or not name.startswith(V) or name.startswith(f"{V}.figures"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step":
                found.append(f"{name}:{node.lineno}")
    assert found == [], found


def test_experiment_functions_are_short():
    """No experiment function longer than about 60 lines (claims and settings are data, not experiments)."""
    long = []
    for name, path in _modules():
        if not name.startswith(f"{V}.paper_repro") or name.endswith((".claims", ".settings")):
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
