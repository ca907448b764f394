"""The §5.1 KL panels run as one task list (#26): the rows of one ``kl_vs_passes`` call per panel, bit for bit."""
from dataclasses import replace

import pytest

from sgmcmc_verify.paper_repro.ewsg import experiments as X
from sgmcmc_verify.paper_repro.ewsg_iclr.settings import Fig1giSettings


def _panels():
    """Two panels that differ in n, data draw, h and M (the shape of ``ewsg_iclr.fig1ghi``), at a few realizations."""
    base = replace(Fig1giSettings.at("smoke"), realizations=40, block_size=15, passes=2.0, checkpoint_every=1.0)
    runs = lambda h, ms: [{"label": f"M = {m}", "method": "EWSG", "h": h, "M": m, "x_choice": "recommended"}  # noqa: E731
                          for m in ms]
    return [(replace(base, n_data=20, seed=20210501), runs(5e-2, (0, 1, 4)), "fig1g"),
            (replace(base, n_data=50, seed=20210502), runs(2e-2, (1, 9)), "fig1g")]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_panels_in_one_task_list_give_each_panel_s_own_rows(n_jobs):
    panels = _panels()
    alone = [X.kl_vs_passes(cfg, runs, panel, n_jobs=1) for cfg, runs, panel in panels]
    together = X.kl_vs_passes_many(panels, n_jobs=n_jobs)
    assert together == alone   # every field of every row, floats compared exactly
    assert all(len(rows) == len(runs) * 3 for rows, (_, runs, _) in zip(together, panels))   # 3 checkpoints a run


def test_a_merged_list_that_hands_a_panel_another_panel_s_runs_is_caught(monkeypatch):
    """Control: if the merged list's results went to the wrong panel (here: the second panel's first two runs in the
    first panel's place), the comparison above fails."""
    panels = _panels()
    alone = [X.kl_vs_passes(cfg, runs, panel) for cfg, runs, panel in panels]
    real = X.run_realizations_many

    def shifted(studies, **kw):
        res = real(studies, **kw)
        return res[3:5] + res[2:]
    monkeypatch.setattr(X, "run_realizations_many", shifted)
    assert X.kl_vs_passes_many(panels)[0] != alone[0]
