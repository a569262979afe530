"""``mindspore.dataset.engine.datasets_vision``: the image datasets of the tutorials, read
from a local folder in their distributed binary formats (msc downloads nothing).

``MnistDataset``: the idx files (``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``,
``t10k-...``), columns ``image`` (28, 28, 1) uint8 and ``label`` uint32.
``Cifar10Dataset``: the binary batches (``data_batch_1.bin`` .. ``data_batch_5.bin``,
``test_batch.bin``: records of one label byte and 3072 image bytes, channel-major),
columns ``image`` (32, 32, 3) uint8 and ``label`` uint32. Both are shuffled by default.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from msc.dataset.core.columns import DatasetError, Row
from msc.dataset.engine.datasets_user_defined import MappableDataset
from msc.errors import GraphValueError

__all__ = ["MnistDataset", "Cifar10Dataset"]

_USAGES = ("train", "test", "all")


def _check_folder(dataset_dir: Any, usage: Any) -> str:
    if not isinstance(dataset_dir, (str, os.PathLike)) or not os.path.isdir(dataset_dir):
        raise GraphValueError(f"The folder {dataset_dir} does not exist or is not a directory "
                              "or permission denied!")
    if usage is not None and usage not in _USAGES:
        raise GraphValueError(f"Input usage is not within the valid set of {list(_USAGES)}, "
                              f"but got {usage!r}.")
    return os.fspath(dataset_dir)


def _read_idx(path: str, magic: int, item_shape: tuple[int, ...]) -> np.ndarray:
    """The uint8 array of one idx file, checked against its header: big-endian magic
    (0x0801 labels, 0x0803 images), then one big-endian uint32 per dimension."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise DatasetError(f"MnistDataset: cannot read {path}: {e.strerror}.") from None
    ndim = 1 + len(item_shape)
    header = 4 + 4 * ndim
    if len(data) < header or int.from_bytes(data[:4], "big") != magic:
        raise DatasetError(f"MnistDataset: {path} is not an MNIST idx file (its magic number "
                           f"should be {magic:#010x}).")
    dims = tuple(int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim))
    if dims[1:] != item_shape or len(data) - header != int(np.prod(dims)):
        raise DatasetError(f"MnistDataset: {path} declares shape {dims} but holds "
                           f"{len(data) - header} bytes of data; expected items of shape "
                           f"{item_shape}.")
    return np.frombuffer(data, np.uint8, offset=header).reshape(dims)


class MnistDataset(MappableDataset):
    def __init__(self, dataset_dir: Any, usage: str | None = None, num_samples: Any = None,
                 num_parallel_workers: Any = None, shuffle: Any = None, sampler: Any = None,
                 num_shards: Any = None, shard_id: Any = None, cache: Any = None):
        self.dataset_dir = _check_folder(dataset_dir, usage)
        if sampler is not None or cache is not None:
            raise GraphValueError("MnistDataset: 'sampler' and 'cache' are not supported by msc "
                                  "yet.")
        super().__init__(shuffle, num_samples, num_shards, shard_id, num_parallel_workers)
        self.usage = usage or "all"
        self._data: tuple[np.ndarray, np.ndarray] | None = None

    def _columns(self) -> list[str]:
        return ["image", "label"]

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        if self._data is None:
            prefixes = {"train": ["train"], "test": ["t10k"], "all": ["t10k", "train"]}
            images, labels = [], []
            for prefix in prefixes[self.usage]:
                base = os.path.join(self.dataset_dir, prefix)
                if self.usage == "all" and not os.path.exists(f"{base}-images-idx3-ubyte"):
                    continue
                img = _read_idx(f"{base}-images-idx3-ubyte", 0x803, (28, 28))
                lab = _read_idx(f"{base}-labels-idx1-ubyte", 0x801, ())
                if len(img) != len(lab):
                    raise DatasetError(f"MnistDataset: {base}-images-idx3-ubyte has {len(img)} "
                                       f"images but {base}-labels-idx1-ubyte {len(lab)} labels.")
                images.append(img)
                labels.append(lab)
            if not images:
                raise DatasetError(f"MnistDataset: no MNIST idx files in {self.dataset_dir}.")
            self._data = (np.concatenate(images), np.concatenate(labels))
        return self._data

    def _num_rows(self) -> int:
        return len(self._load()[1])

    def _row(self, index: int) -> Row:
        images, labels = self._load()
        return images[index][:, :, None].copy(), np.array(labels[index], np.uint32)


_RECORD = 1 + 3 * 32 * 32


class Cifar10Dataset(MappableDataset):
    def __init__(self, dataset_dir: Any, usage: str | None = None, num_samples: Any = None,
                 num_parallel_workers: Any = None, shuffle: Any = None, sampler: Any = None,
                 num_shards: Any = None, shard_id: Any = None, cache: Any = None):
        self.dataset_dir = _check_folder(dataset_dir, usage)
        if sampler is not None or cache is not None:
            raise GraphValueError("Cifar10Dataset: 'sampler' and 'cache' are not supported by "
                                  "msc yet.")
        super().__init__(shuffle, num_samples, num_shards, shard_id, num_parallel_workers)
        self.usage = usage or "all"
        self._records: np.ndarray | None = None

    def _columns(self) -> list[str]:
        return ["image", "label"]

    def _files(self) -> list[str]:
        names = sorted(os.listdir(self.dataset_dir))
        train = [n for n in names if n.startswith("data_batch_") and n.endswith(".bin")]
        test = [n for n in names if n == "test_batch.bin"]
        chosen = {"train": train, "test": test, "all": train + test}[self.usage]
        if not chosen:
            raise DatasetError(f"Cifar10Dataset: no CIFAR-10 binary batches "
                               f"(data_batch_N.bin, test_batch.bin) for usage "
                               f"'{self.usage}' in {self.dataset_dir}.")
        return [os.path.join(self.dataset_dir, n) for n in chosen]

    def _load(self) -> np.ndarray:
        if self._records is None:
            parts = []
            for path in self._files():
                try:
                    data = np.fromfile(path, np.uint8)
                except OSError as e:
                    raise DatasetError(f"Cifar10Dataset: cannot read {path}: {e}.") from None
                if data.size % _RECORD:
                    raise DatasetError(f"Cifar10Dataset: {path} holds {data.size} bytes, not a "
                                       f"whole number of {_RECORD}-byte CIFAR-10 records.")
                parts.append(data.reshape(-1, _RECORD))
            self._records = np.concatenate(parts)
        return self._records

    def _num_rows(self) -> int:
        return len(self._load())

    def _row(self, index: int) -> Row:
        record = self._load()[index]
        image = record[1:].reshape(3, 32, 32).transpose(1, 2, 0).copy()
        return image, np.array(record[0], np.uint32)
