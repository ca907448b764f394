"""The built wheel installs one top-level import name and works from a folder with its own ``figures/`` and ``verify/``.

Builds the wheel from a copy of the source tree (the test extra carries setuptools and wheel, so no network is
needed), installs it with ``--no-deps`` into a fresh virtual environment that sees this environment's
dependencies through a ``.pth`` line (a plain path entry: the editable install of the checkout is not activated
there), and runs a smoke experiment, ``figures``, ``report`` and ``audit`` from an empty folder holding a user's
``figures`` and ``verify`` packages. The user's packages must stay importable under their own names.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_IGNORE = shutil.ignore_patterns(".git", ".venv", "results", "out", "build", "dist", "__pycache__", "*.egg-info",
                                 ".pytest_cache", ".ruff_cache")


def _run(args, cwd, env=None, timeout=600):
    p = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, f"{' '.join(map(str, args))} -> {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    src = tmp_path_factory.mktemp("src") / "tree"
    shutil.copytree(ROOT, src, ignore=_IGNORE)
    out = tmp_path_factory.mktemp("wheel")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w",
          str(out), str(src)], cwd=src)
    (whl,) = out.glob("sgmcmc_verify-*.whl")
    return whl


def test_the_wheel_has_exactly_one_top_level_import_name(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"sgmcmc_verify"}, tops
    for need in ("sgmcmc_verify/__init__.py", "sgmcmc_verify/analytic/__init__.py",
                 "sgmcmc_verify/paper_repro/ewsg/claims.py", "sgmcmc_verify/figures/ewsg.py",
                 "sgmcmc_verify/paper_repro/baselines/ewsg.json", "sgmcmc_verify/ledger/templates/report.css"):
        assert need in names, need
    # every package folder of the checkout is in the wheel
    for folder, pkg in {"verify": "sgmcmc_verify", "analytic": "sgmcmc_verify/analytic",
                        "paper_repro": "sgmcmc_verify/paper_repro", "figures": "sgmcmc_verify/figures"}.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.relative_to(ROOT / folder).as_posix()
            assert f"{pkg}/{rel}" in names, rel


def test_the_installed_toolkit_runs_beside_a_users_figures_and_verify_folders(wheel, tmp_path):
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path)
    py = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index", "-q", str(wheel)],
         cwd=tmp_path)
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     cwd=tmp_path).stdout.strip())
    (site / "zz_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    work = tmp_path / "user"
    for pkg in ("figures", "verify"):
        (work / pkg).mkdir(parents=True)
        (work / pkg / "__init__.py").write_text(f"WHO = 'the user {pkg}'\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SGMCMC_DATA")}
    env["MPLBACKEND"] = "Agg"
    cli = [str(venv / "bin" / "sgmcmc-verify")]

    where = _run([str(py), "-c", "import sgmcmc_verify, figures, verify; print(sgmcmc_verify.__file__); "
                                 "print(figures.WHO, '|', verify.WHO)"], cwd=work, env=env).stdout.splitlines()
    assert Path(where[0]).is_relative_to(venv), where       # the toolkit is the installed wheel ...
    assert where[1] == "the user figures | the user verify"  # ... and shadows none of the user's packages

    res, out = work / "results", work / "figures" / "out"
    _run(cli + ["run", "ewsg.appD", "--scale", "smoke", "--results", str(res), "--no-progress"], cwd=work, env=env)
    _run(cli + ["figures", "ewsg", "--results", str(res), "--out", str(out)], cwd=work, env=env)
    assert (out / "ewsg" / "appD.png").exists()
    rep = _run(cli + ["report", "ewsg", "--no-run", "--available", "--results", str(res), "--out", str(out)],
               cwd=work, env=env)
    assert "appD.minibatch_ewsg_beats_sghmc" in rep.stdout
    assert (out / "REPORT.html").exists() and (res / "claims.json").exists()
    for attempt in (1, 2):  # the first audit writes figures/out/audit/ into the user's figures/ folder
        p = subprocess.run(cli + ["audit", "SGLD", "--scale", "smoke", "--checks", "cost", "--results", str(res),
                                  "--out", str(out)], cwd=work, env=env, capture_output=True, text=True, timeout=600)
        assert p.returncode in (0, 1), f"audit #{attempt}: {p.returncode}\n{p.stdout}\n{p.stderr}"
        assert "== audit SGLD" in p.stdout
