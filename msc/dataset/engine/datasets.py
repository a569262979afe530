"""``mindspore.dataset.engine.datasets``: the pipeline operations every dataset has.

A dataset is a node of a lazy pipeline. Iterating runs it for one epoch: each node pulls
rows (tuples of numpy arrays, one per column) from its children, in order. Epoch numbers
flow down, so a shuffle below a ``repeat`` reshuffles every pass, and a seeded shuffle
(``config.set_seed``) gives the same order on every run. Columns are numpy arrays inside
the pipeline; the iterators turn them into Tensors at the end, as MindSpore's do.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from msc.dataset.core import config
from msc.dataset.core.columns import DatasetError, Row, as_column, check_names
from msc.dataset.engine.iterators import DictIterator, TupleIterator
from msc.errors import GraphTypeError, GraphValueError

__all__ = ["Dataset", "MapDataset", "BatchDataset", "ShuffleDataset", "RepeatDataset",
           "TakeDataset", "SkipDataset", "ProjectDataset", "RenameDataset", "ConcatDataset",
           "ZipDataset", "DatasetError", "zip"]

_zip = zip  # the builtin, before this module's ``zip`` (MindSpore's name) hides it


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise GraphTypeError(f"Argument {what} with value {value!r} is not of type [<class "
                             f"'int'>], but got {type(value)}.")
    if value < -1:
        raise GraphValueError(f"Input {what} is not within the required interval of [-1, "
                              f"2147483647].")
    return value


class Dataset:
    """A pipeline node: ``_columns()`` names its columns, ``_rows(epoch)`` yields its rows
    for one epoch and ``_size()`` counts them (None: count by iterating; ``math.inf``: a
    repeat without end)."""

    def __init__(self, children: Sequence[Dataset] = (), num_parallel_workers: int | None = None):
        self.children = list(children)
        self.num_parallel_workers = num_parallel_workers
        self._counted: int | None = None
        # the node's height in the pipeline: its random streams differ from those of the
        # nodes below it, and stay the same from run to run
        self._depth = 1 + max((c._depth for c in self.children), default=0)

    # --- what a node defines ---------------------------------------------------------------

    def _columns(self) -> list[str]:
        return self.children[0]._columns()

    def _rows(self, epoch: int) -> Iterator[Row]:
        raise NotImplementedError

    def _size(self) -> float | None:
        return self.children[0]._size()

    # --- facts about the dataset -----------------------------------------------------------

    def get_dataset_size(self) -> int:
        """Rows (batches after ``batch``) in one epoch."""
        size = self._size()
        if size == math.inf:
            raise DatasetError("The size of a dataset repeated without end is infinite: "
                               "take() a number of rows first.")
        if size is not None:
            return int(size)
        if self._counted is None:
            self._counted = sum(1 for _ in self._rows(0))
        return self._counted

    def get_col_names(self) -> list[str]:
        return list(self._columns())

    def get_batch_size(self) -> int:
        return self.children[0].get_batch_size() if self.children else 1

    def get_repeat_count(self) -> int:
        return self.children[0].get_repeat_count() if self.children else 1

    def output_shapes(self) -> list[list[int]]:
        return [list(c.shape) for c in self._first_row()]

    def output_types(self) -> list[np.dtype]:
        return [c.dtype for c in self._first_row()]

    def _first_row(self) -> Row:
        for row in self._rows(0):
            return row
        raise DatasetError("The dataset is empty: it has no rows to take shapes or types from.")

    # --- pipeline operations ---------------------------------------------------------------

    def map(self, operations: Any, input_columns: Any = None, output_columns: Any = None,
            num_parallel_workers: int | None = None, **kwargs: Any) -> MapDataset:
        """Apply ``operations`` in turn to ``input_columns`` (default: the first column); the
        results become ``output_columns`` (default: the input columns), each in its input's
        place when there are as many, else first, the other columns after them."""
        return MapDataset(self, operations, input_columns, output_columns, num_parallel_workers)

    def batch(self, batch_size: int, drop_remainder: bool = False,
              num_parallel_workers: int | None = None, **kwargs: Any) -> BatchDataset:
        if kwargs.get("per_batch_map") is not None:
            from msc.api_names import UnsupportedApiError

            raise UnsupportedApiError("'Dataset.batch(per_batch_map=...)' is not supported by "
                                      "msc yet: map the batched columns instead.")
        return BatchDataset(self, batch_size, drop_remainder)

    def shuffle(self, buffer_size: int) -> ShuffleDataset:
        return ShuffleDataset(self, buffer_size)

    def repeat(self, count: int | None = None) -> RepeatDataset:
        return RepeatDataset(self, -1 if count is None else count)

    def take(self, count: int = -1) -> TakeDataset:
        return TakeDataset(self, count)

    def skip(self, count: int) -> SkipDataset:
        return SkipDataset(self, count)

    def project(self, columns: Any) -> ProjectDataset:
        return ProjectDataset(self, columns)

    def rename(self, input_columns: Any, output_columns: Any) -> RenameDataset:
        return RenameDataset(self, input_columns, output_columns)

    def concat(self, datasets: Any) -> ConcatDataset:
        others = [datasets] if isinstance(datasets, Dataset) else list(datasets)
        return ConcatDataset([self, *others])

    def __add__(self, other: Dataset) -> ConcatDataset:
        return self.concat(other)

    def zip(self, datasets: Any) -> ZipDataset:
        others = [datasets] if isinstance(datasets, Dataset) else list(datasets)
        return ZipDataset([self, *others])

    # --- iterators ---------------------------------------------------------------------------

    def create_tuple_iterator(self, columns: Any = None, num_epochs: int = -1,
                              output_numpy: bool = False, do_copy: bool = True) -> Any:
        """An iterator of lists, one entry per column (Tensors, or numpy arrays with
        ``output_numpy``), running ``num_epochs`` epochs (-1: as many as asked for)."""
        return TupleIterator(self, columns, num_epochs, output_numpy)

    def create_dict_iterator(self, num_epochs: int = -1, output_numpy: bool = False,
                             do_copy: bool = True) -> Any:
        return DictIterator(self, None, num_epochs, output_numpy)

    def __iter__(self) -> Any:
        return iter(self.create_tuple_iterator())


def zip(datasets: Any) -> ZipDataset:
    """``ds.zip((a, b))``: rows side by side, as long as the shortest."""
    if not isinstance(datasets, tuple) or len(datasets) < 1:
        raise GraphTypeError(f"Argument datasets with value {datasets!r} is not of type "
                             "[<class 'tuple'>].")
    return ZipDataset(list(datasets))


def _operation_name(op: Any) -> str:
    return getattr(op, "__name__", None) or type(op).__name__


class MapDataset(Dataset):
    """Each row's input columns through the operations, on ``num_parallel_workers``
    threads (numpy and Pillow release the GIL) in order. Random transforms draw from a
    generator seeded per row, so the result does not depend on the number of workers."""

    def __init__(self, child: Dataset, operations: Any, input_columns: Any,
                 output_columns: Any, num_parallel_workers: int | None):
        super().__init__([child], num_parallel_workers)
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops or not all(callable(op) for op in ops):
            raise GraphTypeError(f"For 'map', the operations must be callables, but got "
                                 f"{operations!r}.")
        self.operations = ops
        columns = child._columns()
        self.input_columns = (columns[:1] if input_columns is None
                              else check_names(input_columns, "input_columns"))
        missing = [c for c in self.input_columns if c not in columns]
        if missing:
            raise GraphValueError(f"For 'map', the input columns {missing} are not in the "
                                  f"dataset's columns {columns}.")
        self.output_columns = (list(self.input_columns) if output_columns is None
                               else check_names(output_columns, "output_columns"))
        if num_parallel_workers is not None:
            config.check_positive_int("num_parallel_workers", num_parallel_workers)
        self._inputs = [columns.index(c) for c in self.input_columns]
        self._kept = [i for i, c in enumerate(columns) if c not in self.input_columns]
        self._in_place = len(self.output_columns) == len(self.input_columns)

    def _columns(self) -> list[str]:
        columns = self.children[0]._columns()
        if self._in_place:
            names = dict(_zip(self._inputs, self.output_columns))
            return [names.get(i, c) for i, c in enumerate(columns)]
        return self.output_columns + [columns[i] for i in self._kept]

    def _apply(self, row: Row, epoch: int, index: int) -> Row:
        args: tuple[Any, ...] = tuple(row[i] for i in self._inputs)
        with config.row_generator(4, self._depth, epoch, index):
            for op in self.operations:
                try:
                    out = op(*args)
                except Exception as e:
                    raise DatasetError(
                        f"map operation '{_operation_name(op)}' on input column(s) "
                        f"{self.input_columns} failed at sample index {index} (epoch "
                        f"{epoch}): {type(e).__name__}: {e}") from e
                args = out if isinstance(out, tuple) else (out,)
        if len(args) != len(self.output_columns):
            raise DatasetError(f"map operation '{_operation_name(self.operations[-1])}' "
                               f"returned {len(args)} column(s) at sample index {index}, but "
                               f"output_columns names {len(self.output_columns)}: "
                               f"{self.output_columns}.")
        outputs = [as_column(a) for a in args]
        if self._in_place:
            out = list(row)
            for i, value in _zip(self._inputs, outputs):
                out[i] = value
            return tuple(out)
        return tuple(outputs) + tuple(row[i] for i in self._kept)

    def _rows(self, epoch: int) -> Iterator[Row]:
        rows = self.children[0]._rows(epoch)
        workers = self.num_parallel_workers or config.get_num_parallel_workers()
        if workers == 1:
            for index, row in enumerate(rows):
                yield self._apply(row, epoch, index)
            return
        with ThreadPoolExecutor(workers) as pool:
            window: deque[Any] = deque()
            for index, row in enumerate(rows):
                window.append(pool.submit(self._apply, row, epoch, index))
                if len(window) >= 2 * workers:
                    yield window.popleft().result()
            while window:
                yield window.popleft().result()


def stack(rows: list[Row], columns: list[str]) -> Row:
    """Rows stacked column by column into one batch row."""
    out = []
    for i, name in enumerate(columns):
        values = [r[i] for r in rows]
        shape = values[0].shape
        for v in values:
            if v.shape != shape:
                raise DatasetError(f"Inconsistent batch shapes in column '{name}': batch "
                                   f"expects the same shape for each row, but got {shape} "
                                   f"and {v.shape}.")
        out.append(np.stack(values))
    return tuple(out)


class BatchDataset(Dataset):
    def __init__(self, child: Dataset, batch_size: int, drop_remainder: bool):
        super().__init__([child])
        self.batch_size = config.check_positive_int("batch_size", batch_size)
        if not isinstance(drop_remainder, bool):
            raise GraphTypeError(f"Argument drop_remainder with value {drop_remainder!r} is "
                                 f"not of type [<class 'bool'>], but got "
                                 f"{type(drop_remainder)}.")
        self.drop_remainder = drop_remainder

    def get_batch_size(self) -> int:
        return self.batch_size

    def _rows(self, epoch: int) -> Iterator[Row]:
        columns = self._columns()
        buffer: list[Row] = []
        for row in self.children[0]._rows(epoch):
            buffer.append(row)
            if len(buffer) == self.batch_size:
                yield stack(buffer, columns)
                buffer = []
        if buffer and not self.drop_remainder:
            yield stack(buffer, columns)

    def _size(self) -> int | None:
        size = self.children[0]._size()
        if size is None or size == math.inf:
            return size
        return size // self.batch_size if self.drop_remainder else \
            math.ceil(size / self.batch_size)


class ShuffleDataset(Dataset):
    """MindSpore's buffer shuffle: a row leaves from a random place in a buffer of
    ``buffer_size`` rows and the next row takes its place; a buffer as large as the dataset
    gives a uniform permutation. Reshuffled every epoch."""

    def __init__(self, child: Dataset, buffer_size: int):
        super().__init__([child])
        if isinstance(buffer_size, bool) or not isinstance(buffer_size, int) or buffer_size < 2:
            raise GraphValueError(f"Input buffer_size is not within the required interval of "
                                  f"[2, 2147483647], but got {buffer_size!r}.")
        self.buffer_size = buffer_size

    def _rows(self, epoch: int) -> Iterator[Row]:
        rng = config.generator(2, self._depth, epoch)
        buffer: list[Row] = []
        for row in self.children[0]._rows(epoch):
            if len(buffer) < self.buffer_size:
                buffer.append(row)
                continue
            pick = int(rng.integers(len(buffer)))
            yield buffer[pick]
            buffer[pick] = row
        for pick in rng.permutation(len(buffer)):
            yield buffer[pick]


class RepeatDataset(Dataset):
    def __init__(self, child: Dataset, count: int):
        super().__init__([child])
        self.count = _count(count, "count")
        if self.count == 0:
            raise GraphValueError("Input count is not within the required interval of [-1, 0) "
                                  "and (0, 2147483647].")

    def get_repeat_count(self) -> int:
        return self.count

    def _rows(self, epoch: int) -> Iterator[Row]:
        passes = itertools.count() if self.count == -1 else range(self.count)
        for r in passes:
            yield from self.children[0]._rows(epoch * max(self.count, 1) + r)

    def _size(self) -> float | None:
        size = self.children[0]._size()
        if self.count == -1:
            return 0 if size == 0 else math.inf
        return None if size is None else size * self.count


class TakeDataset(Dataset):
    def __init__(self, child: Dataset, count: int):
        super().__init__([child])
        self.count = _count(count, "count")

    def _rows(self, epoch: int) -> Iterator[Row]:
        rows = self.children[0]._rows(epoch)
        return rows if self.count == -1 else itertools.islice(rows, self.count)

    def _size(self) -> int | None:
        size = self.children[0]._size()
        if self.count == -1 or size is None:
            return size
        return min(size, self.count)


class SkipDataset(Dataset):
    def __init__(self, child: Dataset, count: int):
        super().__init__([child])
        self.count = _count(count, "count")

    def _rows(self, epoch: int) -> Iterator[Row]:
        return itertools.islice(self.children[0]._rows(epoch), max(self.count, 0), None)

    def _size(self) -> int | None:
        size = self.children[0]._size()
        return None if size is None else max(size - self.count, 0)


class ProjectDataset(Dataset):
    def __init__(self, child: Dataset, columns: Any):
        super().__init__([child])
        self.columns = check_names(columns, "columns")
        have = child._columns()
        missing = [c for c in self.columns if c not in have]
        if missing:
            raise GraphValueError(f"For 'project', the columns {missing} are not in the "
                                  f"dataset's columns {have}.")
        self._pick = [have.index(c) for c in self.columns]

    def _columns(self) -> list[str]:
        return list(self.columns)

    def _rows(self, epoch: int) -> Iterator[Row]:
        for row in self.children[0]._rows(epoch):
            yield tuple(row[i] for i in self._pick)


class RenameDataset(Dataset):
    def __init__(self, child: Dataset, input_columns: Any, output_columns: Any):
        super().__init__([child])
        old, new = check_names(input_columns, "input_columns"), check_names(output_columns,
                                                                    "output_columns")
        have = child._columns()
        if len(old) != len(new) or any(c not in have for c in old):
            raise GraphValueError(f"For 'rename', input_columns {old} must be columns of the "
                                  f"dataset {have}, as many as output_columns {new}.")
        names = dict(_zip(old, new))
        self._names = [names.get(c, c) for c in have]

    def _columns(self) -> list[str]:
        return list(self._names)

    def _rows(self, epoch: int) -> Iterator[Row]:
        return self.children[0]._rows(epoch)


class ConcatDataset(Dataset):
    def __init__(self, datasets: list[Dataset]):
        super().__init__(datasets)
        if not all(isinstance(d, Dataset) for d in datasets):
            raise GraphTypeError("For 'concat', every element must be a Dataset.")
        first = datasets[0]._columns()
        for d in datasets[1:]:
            if d._columns() != first:
                raise GraphValueError(f"For 'concat', the datasets must have the same columns, "
                                      f"but got {first} and {d._columns()}.")

    def _rows(self, epoch: int) -> Iterator[Row]:
        for d in self.children:
            yield from d._rows(epoch)

    def _size(self) -> int | None:
        sizes = [d._size() for d in self.children]
        return None if None in sizes else sum(sizes)  # type: ignore[arg-type]


class ZipDataset(Dataset):
    def __init__(self, datasets: list[Dataset]):
        super().__init__(datasets)
        if not all(isinstance(d, Dataset) for d in datasets):
            raise GraphTypeError("For 'zip', every element must be a Dataset.")
        names = [c for d in datasets for c in d._columns()]
        if len(set(names)) != len(names):
            raise GraphValueError(f"For 'zip', the column names must be unique, but got "
                                  f"{names}: rename or project the datasets first.")

    def _columns(self) -> list[str]:
        return [c for d in self.children for c in d._columns()]

    def _rows(self, epoch: int) -> Iterator[Row]:
        for parts in _zip(*(d._rows(epoch) for d in self.children)):
            yield tuple(c for part in parts for c in part)

    def _size(self) -> int | None:
        sizes = [d._size() for d in self.children]
        return None if None in sizes else min(sizes)  # type: ignore[type-var]

