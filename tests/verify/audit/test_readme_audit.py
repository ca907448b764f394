"""The README's quick start of the audit runs as written: "audit your own sampler" (a sampler written
outside the toolkit, audited from its file and from its folder as a module) and "in your pytest" (the
one-line assertion, which passes on that correct sampler: the positive half of the helper's pair, whose
negative control is ``test_catalogue.py::test_assert_sampler_fails_a_planted_bug``)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[3] / "README.md"


def _block(header: str) -> str:
    """The fenced Python block of the README whose first line is ``header``."""
    for code in re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S):
        if code.startswith(header):
            return code
    raise AssertionError(f"README has no python block starting {header!r}")


@pytest.mark.statistical(pair="audit.helper")
def test_readme_quick_start_audit_your_own_sampler_and_in_your_pytest(tmp_path, monkeypatch):
    from sgmcmc_verify.cli import main

    (tmp_path / "mysampler.py").write_text(_block("# mysampler.py"))
    (tmp_path / "test_mysampler.py").write_text(_block("# test_mysampler.py"))
    text = README.read_text()
    assert "sgmcmc-verify audit mysampler.py:my_sgld --scale smoke" in text
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    # the command line of the quick start (cheap checks: the plumbing, not the statistics)
    assert main(["audit", "mysampler.py:my_sgld", "--scale", "smoke", "--checks", "sg_sensitivity,stability"]) == 0
    assert (tmp_path / "figures/out/audit/my_sgld/index.html").is_file()
    # the pytest example, run as the user's pytest would run it (its folder importable)
    monkeypatch.syspath_prepend(str(tmp_path))
    ns: dict = {}
    exec(compile((tmp_path / "test_mysampler.py").read_text(), "test_mysampler.py", "exec"), ns)
    ns["test_my_sgld_is_a_correct_first_order_sampler"]()
