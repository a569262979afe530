"""``mindspore.dataset.engine.datasets_user_defined``: datasets over the user's own data,
``GeneratorDataset`` (a Python source) and ``NumpySlicesDataset`` (arrays cut along their
first axis)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from msc.dataset.core.columns import DatasetError, Row, as_column, check_names
from msc.dataset.engine.datasets import Dataset
from msc.dataset.engine.samplers import Sampling
from msc.errors import GraphTypeError, GraphValueError

__all__ = ["GeneratorDataset", "NumpySlicesDataset", "MappableDataset"]


class MappableDataset(Dataset):
    """A source read by index: ``_num_rows()`` and ``_row(i)``; the sampling decides
    the order."""

    def __init__(self, shuffle: Any, num_samples: Any, num_shards: Any, shard_id: Any,
                 num_parallel_workers: Any = None):
        super().__init__((), num_parallel_workers)
        if shuffle is not None and not isinstance(shuffle, bool):
            raise GraphTypeError(f"Argument shuffle with value {shuffle!r} is not of type "
                                 f"[<class 'bool'>], but got {type(shuffle)}.")
        self.sampling = Sampling(shuffle is not False, num_samples, num_shards, shard_id)

    def _num_rows(self) -> int:
        raise NotImplementedError

    def _row(self, index: int) -> Row:
        raise NotImplementedError

    def _rows(self, epoch: int) -> Iterator[Row]:
        for index in self.sampling.indices(self._num_rows(), epoch):
            yield self._row(int(index))

    def _size(self) -> int | None:
        return self.sampling.count(self._num_rows())


def _row_of(item: Any, columns: list[str], index: int) -> Row:
    several = isinstance(item, tuple) or (isinstance(item, list) and len(columns) > 1)
    values = item if several else (item,)
    if len(values) != len(columns):
        raise DatasetError(f"GeneratorDataset: the source gave {len(values)} value(s) at sample "
                           f"index {index}, but column_names names {len(columns)}: {columns}.")
    return tuple(as_column(v) for v in values)


class GeneratorDataset(MappableDataset):
    """Rows from a Python ``source``: random-access (``__getitem__`` and ``__len__``:
    shuffled by default, shardable), an iterable, or a callable returning an iterator
    (read in order, once per epoch)."""

    def __init__(self, source: Any, column_names: Any = None, column_types: Any = None,
                 schema: Any = None, num_samples: Any = None, num_parallel_workers: int = 1,
                 shuffle: Any = None, sampler: Any = None, num_shards: Any = None,
                 shard_id: Any = None, python_multiprocessing: bool = True,
                 max_rowsize: Any = None):
        if column_names is None:
            raise GraphValueError("GeneratorDataset: column_names or schema must be given.")
        if sampler is not None:
            raise GraphValueError("GeneratorDataset: 'sampler' is not supported by msc yet; "
                                  "use shuffle, num_samples, num_shards and shard_id.")
        self.source = source
        self.random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if not self.random_access:
            if not callable(source) and not hasattr(source, "__iter__"):
                raise GraphTypeError("GeneratorDataset: the source must be random-accessible "
                                     "(__getitem__ and __len__), iterable or callable, but got "
                                     f"{type(source).__name__}.")
            if shuffle:
                raise GraphValueError("shuffle is not supported if source does not have "
                                      "attribute '__getitem__'.")
            if num_shards is not None:
                raise GraphValueError("num_shards is not supported if source does not have "
                                      "attribute '__getitem__'.")
            shuffle = False
        super().__init__(shuffle, num_samples, num_shards, shard_id, num_parallel_workers)
        self.column_names = check_names(column_names, "column_names")

    def _columns(self) -> list[str]:
        return list(self.column_names)

    def _num_rows(self) -> int:
        return len(self.source)

    def _row(self, index: int) -> Row:
        try:
            item = self.source[index]
        except Exception as e:
            raise DatasetError(f"GeneratorDataset: the source's __getitem__ raised at sample "
                               f"index {index}: {type(e).__name__}: {e}") from e
        return _row_of(item, self.column_names, index)

    def _rows(self, epoch: int) -> Iterator[Row]:
        if self.random_access:
            yield from super()._rows(epoch)
            return
        items = self.source() if callable(self.source) else iter(self.source)
        limit = self.sampling.num_samples
        index = 0
        while not limit or index < limit:
            try:
                item = next(items)
            except StopIteration:
                return
            except Exception as e:
                raise DatasetError(f"GeneratorDataset: the source raised at sample index "
                                   f"{index}: {type(e).__name__}: {e}") from e
            yield _row_of(item, self.column_names, index)
            index += 1

    def _size(self) -> int | None:
        return super()._size() if self.random_access else None


class NumpySlicesDataset(MappableDataset):
    """Rows cut from arrays along their first axis: a dict (its keys name the columns), a
    tuple (one column per element), or one list or array (one column). Shuffled by
    default."""

    def __init__(self, data: Any, column_names: Any = None, num_samples: Any = None,
                 num_parallel_workers: int = 1, shuffle: Any = None, sampler: Any = None,
                 num_shards: Any = None, shard_id: Any = None):
        if sampler is not None:
            raise GraphValueError("NumpySlicesDataset: 'sampler' is not supported by msc yet; "
                                  "use shuffle, num_samples, num_shards and shard_id.")
        super().__init__(shuffle, num_samples, num_shards, shard_id, num_parallel_workers)
        if isinstance(data, dict):
            names, arrays = list(data), [as_column(v) for v in data.values()]
        elif isinstance(data, tuple):
            names = [f"column_{i}" for i in range(len(data))]
            arrays = [as_column(v) for v in data]
        else:
            names, arrays = ["column_0"], [as_column(data)]
        if column_names is not None:
            names = check_names(column_names, "column_names")
            if len(names) != len(arrays):
                raise GraphValueError(f"NumpySlicesDataset: {len(names)} column names for "
                                      f"{len(arrays)} columns of data.")
        if any(a.ndim == 0 for a in arrays) or len({len(a) for a in arrays}) > 1:
            raise GraphValueError("NumpySlicesDataset: every column must have the same length "
                                  f"along its first axis, but got shapes "
                                  f"{[a.shape for a in arrays]}.")
        self.column_names, self.arrays = names, arrays

    def _columns(self) -> list[str]:
        return list(self.column_names)

    def _num_rows(self) -> int:
        return len(self.arrays[0])

    def _row(self, index: int) -> Row:
        return tuple(np.array(a[index]) for a in self.arrays)
