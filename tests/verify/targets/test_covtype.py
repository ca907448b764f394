"""Tests of verify/targets/covtype.py on a 12-row fixture written in both of the loader's formats.

``tests/data/covtype_fixture.data`` has UCI covtype.data's layout (54 integer features, cover type 1..7 last;
synthetic values in the real columns' ranges); ``tests/data/covtype_fixture.libsvm`` holds the same rows as
LIBSVM's covtype.binary writes them (label 2 for cover type 2, else 1; one-based indices, zeros omitted).
"""
from __future__ import annotations

import gzip

import numpy as np
import pytest
from support import DATA_DIR

from sgmcmc_verify.targets.covtype import COVTYPE_FEATURES, load_covtype

CSV, LIBSVM = DATA_DIR / "covtype_fixture.data", DATA_DIR / "covtype_fixture.libsvm"


def test_both_formats_give_the_same_binary_data_set():
    a, b = load_covtype(CSV), load_covtype(LIBSVM)
    assert a.X.shape == b.X.shape == (12, COVTYPE_FEATURES)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    classes = np.loadtxt(CSV, delimiter=",")[:, -1]
    np.testing.assert_array_equal(a.y, (classes == 2).astype(float))
    assert a.y.sum() == 5  # the fixture's five rows of cover type 2


def test_gzipped_csv_is_read(tmp_path):
    gz = tmp_path / "covtype.data.gz"
    gz.write_bytes(gzip.compress(CSV.read_bytes()))
    np.testing.assert_array_equal(load_covtype(gz).X, load_covtype(CSV).X)


def test_bad_files_raise_naming_the_file(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_covtype(tmp_path / "missing")
    short = tmp_path / "short.data"
    short.write_text("1,2,3\n4,5,6\n")
    with pytest.raises(ValueError, match="55 fields"):
        load_covtype(short)
    bad = tmp_path / "badclass.data"
    bad.write_text(CSV.read_text().replace(",2\n", ",9\n", 1))
    with pytest.raises(ValueError, match="cover type"):
        load_covtype(bad)
    wide = tmp_path / "wide.libsvm"
    wide.write_text("1 1:3 60:1\n2 2:1\n")
    with pytest.raises(ValueError, match="n_features"):
        load_covtype(wide)
