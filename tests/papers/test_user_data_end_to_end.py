"""A user's LIBSVM files, given on the command line, reach the experiments that the papers ran on them.

The papers' a3a / a9a are not shipped; the committed a3a-format fixture stands in for them here.
"""
import pytest

from support import DATA_DIR
from sgmcmc_verify.cli import main
from sgmcmc_verify.store.io import read_csv

FIXTURE = str(DATA_DIR / "a3a_fixture.libsvm")


@pytest.fixture
def clean_data_env(monkeypatch):
    monkeypatch.setenv("SGMCMC_DATA", "{}")  # restored after the test, so --data does not leak


def test_ls_sgld_fig4_switches_to_a3a_when_its_files_are_given(clean_data_env, tmp_path):
    res = tmp_path / "r"
    argv = ["--data", f"a3a={FIXTURE}", "--data", f"a3a.t={FIXTURE}", "run", "ls_sgld.fig4", "--scale", "smoke",
            "--results", str(res), "--no-progress"]
    assert main(argv) == 0
    header = (res / "ls_sgld" / "fig4.csv").read_text().splitlines()[0]
    assert "on a3a (paper: a3a)" in header  # the header names the data set actually used
    rows = read_csv(res / "ls_sgld" / "fig4.csv")
    assert {r["sampler"] for r in rows} == {"SGLD", "pSGLD", "LS-SGLD", "LS-pSGLD"}


def test_ls_sgld_fig4_uses_the_builtin_set_without_user_files(clean_data_env, tmp_path):
    """Control for the test above: the same command without --data runs on Pima."""
    res = tmp_path / "r"
    assert main(["run", "ls_sgld.fig4", "--scale", "smoke", "--results", str(res), "--no-progress"]) == 0
    assert "on pima (paper: a3a)" in (res / "ls_sgld" / "fig4.csv").read_text().splitlines()[0]


def test_hsg_hmc_blr_adds_every_user_libsvm_set(clean_data_env, tmp_path):
    res = tmp_path / "r"
    argv = ["--data", f"a9a={FIXTURE}", "--data", f"a9a.t={FIXTURE}", "run", "hsg_hmc.blr", "--scale", "smoke",
            "--results", str(res), "--no-progress"]
    assert main(argv) == 0
    rows = read_csv(res / "hsg_hmc" / "blr.csv")
    methods = {r["method"] for r in rows if r["dataset"] == "a9a"}
    assert len(methods) == 6
    assert all(float(r["test_nll"]) > 0 for r in rows if r["dataset"] == "a9a")
