"""The parkinsons loader (EWSG Appendix F, Figure 5) on a small committed fixture.

``tests/data/parkinsons_fixture.data`` has UCI's header and column order (``name``, 16 voice features,
``status``, 6 more) with eight made-up rows: the real file is not redistributed here; users pass it with
``--data parkinsons=PATH``.
"""
import numpy as np
import pytest

from support import DATA_DIR
from sgmcmc_verify.targets.datasets import (data_identity, load, load_parkinsons, set_data_path, standardize, train_test_split,
                                     user_data_path)

FIXTURE = DATA_DIR / "parkinsons_fixture.data"


def test_uci_csv_drops_the_name_and_takes_status_as_the_label():
    ds = load_parkinsons(FIXTURE)
    lines = FIXTURE.read_text().splitlines()
    header = lines[0].split(",")
    assert ds.X.shape == (8, 22) and ds.name == "parkinsons"
    assert list(ds.y) == [float(r.split(",")[header.index("status")]) for r in lines[1:]]
    first = lines[1].split(",")
    expected = [float(v) for j, v in enumerate(first) if header[j] not in ("name", "status")]
    np.testing.assert_array_equal(ds.X[0], expected)
    tr, te = standardize(*train_test_split(ds, 0.25, 0))
    assert tr.X.shape == (6, 23) and te.X.shape == (2, 23)


def test_libsvm_format_is_read_too(tmp_path):
    f = tmp_path / "parkinsons.libsvm"
    f.write_text("1 1:0.5 3:2.0\n0 2:1.5\n1 1:-0.25 2:0.75 3:1.0\n")
    ds = load_parkinsons(f)
    np.testing.assert_array_equal(ds.X, [[0.5, 0, 2.0], [0, 1.5, 0], [-0.25, 0.75, 1.0]])
    np.testing.assert_array_equal(ds.y, [1.0, 0.0, 1.0])


@pytest.mark.parametrize("text,match", [
    ("name,a,status\nx,1.0\n", "header's 3 fields"),
    ("name,a,status\nx,abc,1\n", "numeric"),
    ("name,a,status\n", "no data rows"),
    ("name,a,status\nx,1.0,1\ny,2.0,1\n", "binary labels"),
])
def test_malformed_csv_is_a_clear_value_error(tmp_path, text, match):
    f = tmp_path / "bad.data"
    f.write_text(text)
    with pytest.raises(ValueError, match=match):
        load_parkinsons(f)


def test_missing_path_is_a_clear_value_error(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_parkinsons(tmp_path / "parkinsons.data")


def test_data_flag_routes_parkinsons_to_its_loader(monkeypatch):
    monkeypatch.delenv("SGMCMC_DATA", raising=False)
    assert user_data_path("parkinsons") is None
    set_data_path("parkinsons", FIXTURE)
    try:
        assert load("parkinsons").X.shape == (8, 22)
        assert user_data_path("parkinsons") == str(FIXTURE.resolve())
        assert data_identity("parkinsons")["bytes"] == FIXTURE.stat().st_size
    finally:
        monkeypatch.delenv("SGMCMC_DATA", raising=False)
