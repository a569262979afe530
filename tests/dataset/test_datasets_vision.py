"""``MnistDataset`` and ``Cifar10Dataset`` on small files written here in the formats'
published layouts (idx: big-endian magic and dimensions; CIFAR-10: a label byte then 3072
channel-major image bytes), read back against the arrays that were written."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import msc.dataset as ds


def write_idx(path, array):
    magic = 0x800 | array.ndim
    path.write_bytes(struct.pack(">I", magic) + struct.pack(f">{array.ndim}I", *array.shape)
                     + array.astype(np.uint8).tobytes())


@pytest.fixture
def mnist(tmp_path):
    rng = np.random.default_rng(1)
    data = {}
    for prefix, n in (("train", 10), ("t10k", 4)):
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 10, n).astype(np.uint8)
        write_idx(tmp_path / f"{prefix}-images-idx3-ubyte", images)
        write_idx(tmp_path / f"{prefix}-labels-idx1-ubyte", labels)
        data[prefix] = (images, labels)
    return tmp_path, data


def test_mnist_columns_shapes_dtypes_and_values(mnist):
    folder, data = mnist
    d = ds.MnistDataset(str(folder), usage="train", shuffle=False)
    assert d.get_col_names() == ["image", "label"] and d.get_dataset_size() == 10
    got = list(d.create_tuple_iterator(output_numpy=True))
    images, labels = data["train"]
    assert got[0][0].shape == (28, 28, 1) and got[0][0].dtype == np.uint8
    assert got[0][1].shape == () and got[0][1].dtype == np.uint32
    np.testing.assert_array_equal(np.stack([g[0][:, :, 0] for g in got]), images)
    assert [int(g[1]) for g in got] == labels.tolist()
    test = ds.MnistDataset(folder, usage="test", shuffle=False)
    assert [int(g[1]) for g in test.create_tuple_iterator(output_numpy=True)] == \
        data["t10k"][1].tolist()
    both = ds.MnistDataset(folder, shuffle=False)  # "all": t10k then train, as MindSpore
    assert both.get_dataset_size() == 14
    assert [int(g[1]) for g in both.create_tuple_iterator(output_numpy=True)] == \
        data["t10k"][1].tolist() + labels.tolist()
    assert ds.MnistDataset(folder, "train", num_samples=3).get_dataset_size() == 3


def test_mnist_shuffles_by_default_with_the_seed(mnist):
    folder, data = mnist
    ds.config.set_seed(4)
    first = [int(g[1]) for g in ds.MnistDataset(folder, "train").create_tuple_iterator(
        output_numpy=True)]
    ds.config.set_seed(4)
    again = [int(g[1]) for g in ds.MnistDataset(folder, "train").create_tuple_iterator(
        output_numpy=True)]
    assert first == again and sorted(first) == sorted(data["train"][1].tolist())


def test_mnist_damaged_files_are_named(mnist, tmp_path):
    folder, _ = mnist
    path = folder / "train-images-idx3-ubyte"
    path.write_bytes(path.read_bytes()[:-7])
    with pytest.raises(RuntimeError, match="train-images-idx3-ubyte declares shape"):
        ds.MnistDataset(folder, "train").get_dataset_size()
    (folder / "t10k-labels-idx1-ubyte").write_bytes(b"\x00\x00\x08\x03rest")
    with pytest.raises(RuntimeError, match="t10k-labels-idx1-ubyte is not an MNIST idx"):
        ds.MnistDataset(folder, "test").get_dataset_size()
    with pytest.raises(ValueError, match="does not exist"):
        ds.MnistDataset(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="usage"):
        ds.MnistDataset(folder, usage="valid")


def test_cifar10_batches(tmp_path):
    rng = np.random.default_rng(2)
    images = rng.integers(0, 256, (7, 3, 32, 32), dtype=np.uint8)
    labels = rng.integers(0, 10, 7).astype(np.uint8)
    records = [bytes([labels[i]]) + images[i].tobytes() for i in range(7)]
    (tmp_path / "data_batch_1.bin").write_bytes(b"".join(records[:3]))
    (tmp_path / "data_batch_2.bin").write_bytes(b"".join(records[3:5]))
    (tmp_path / "test_batch.bin").write_bytes(b"".join(records[5:]))
    train = ds.Cifar10Dataset(tmp_path, usage="train", shuffle=False)
    assert train.get_col_names() == ["image", "label"] and train.get_dataset_size() == 5
    got = list(train.create_tuple_iterator(output_numpy=True))
    assert got[0][0].shape == (32, 32, 3) and got[0][0].dtype == np.uint8
    assert got[0][1].dtype == np.uint32
    np.testing.assert_array_equal(np.stack([g[0] for g in got]),
                                  images[:5].transpose(0, 2, 3, 1))
    assert [int(g[1]) for g in got] == labels[:5].tolist()
    assert ds.Cifar10Dataset(tmp_path, usage="test").get_dataset_size() == 2
    assert ds.Cifar10Dataset(tmp_path).get_dataset_size() == 7
    (tmp_path / "test_batch.bin").write_bytes(records[5][:-1])
    with pytest.raises(RuntimeError, match="test_batch.bin holds 3072 bytes"):
        ds.Cifar10Dataset(tmp_path, usage="test").get_dataset_size()


def test_mnist_pipeline_to_training_batches(mnist):
    folder, data = mnist
    import msc as ms
    from msc.dataset import transforms, vision

    d = ds.MnistDataset(folder, "train", shuffle=False)
    d = d.map([vision.Rescale(1 / 255, 0), vision.HWC2CHW()], "image", num_parallel_workers=2)
    d = d.map(transforms.TypeCast(ms.int32), "label").batch(4, drop_remainder=True)
    x, y = next(iter(d))
    assert x.shape == (4, 1, 28, 28) and x.dtype == ms.float32 and y.dtype == ms.int32
    images, labels = data["train"]
    np.testing.assert_allclose(x.asnumpy()[:, 0], images[:4].astype(np.float32) / 255,
                               rtol=1e-6)
    assert y.asnumpy().tolist() == labels[:4].tolist()
