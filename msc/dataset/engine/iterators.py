"""``mindspore.dataset.engine.iterators``: what ``create_tuple_iterator`` and
``create_dict_iterator`` return.

One iterator runs ``num_epochs`` epochs: a ``for`` loop over it reads one epoch, the next
loop the next one (reshuffled), and a loop past the last epoch is an error, as in
MindSpore. Columns come out as Tensors, or as numpy arrays with ``output_numpy=True``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

import numpy as np

from msc.dataset.core.columns import DatasetError, Row, check_names

__all__ = ["TupleIterator", "DictIterator"]


class _Source(Protocol):
    """What an iterator reads of its dataset (``datasets.Dataset``, which imports this
    module to make iterators)."""

    def get_col_names(self) -> list[str]: ...

    def _rows(self, epoch: int) -> Iterator[Row]: ...


def _tensor(value: np.ndarray, column: str) -> Any:
    from msc.common.tensor import Tensor

    try:
        return Tensor(value)
    except TypeError:
        raise DatasetError(f"Column '{column}' holds {value.dtype} values, which msc Tensors "
                           "do not support: cast the column with transforms.TypeCast (for "
                           "example to int32) or iterate with output_numpy=True.") from None


class TupleIterator:
    def __init__(self, dataset: _Source, columns: Any, num_epochs: int, output_numpy: bool):
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, int) or \
                (num_epochs < 1 and num_epochs != -1):
            raise DatasetError(f"num_epochs must be -1 or a positive int, but got "
                               f"{num_epochs!r}.")
        self.dataset = dataset
        names = dataset.get_col_names()
        self.columns = names if columns is None else check_names(columns, "columns")
        missing = [c for c in self.columns if c not in names]
        if missing:
            raise DatasetError(f"The columns {missing} are not in the dataset's columns "
                               f"{names}.")
        self._pick = [names.index(c) for c in self.columns]
        self.num_epochs = num_epochs
        self.output_numpy = output_numpy
        self._epoch = 0
        self._rows: Iterator[Row] | None = None

    def __iter__(self) -> TupleIterator:
        return self

    def _next_row(self) -> Row:
        if self._rows is None:
            if self.num_epochs != -1 and self._epoch >= self.num_epochs:
                raise DatasetError(f"The iterator has run all its num_epochs={self.num_epochs} "
                                   "epochs: create it with a larger num_epochs to read more.")
            self._rows = self.dataset._rows(self._epoch)
        try:
            row = next(self._rows)
        except StopIteration:
            self._rows, self._epoch = None, self._epoch + 1
            raise
        return tuple(row[i] for i in self._pick)

    def _convert(self, row: Row) -> list[Any]:
        if self.output_numpy:
            return list(row)
        return [_tensor(v, c) for v, c in zip(row, self.columns)]

    def __next__(self) -> Any:
        return self._convert(self._next_row())

    def get_col_names(self) -> list[str]:
        return list(self.columns)


class DictIterator(TupleIterator):
    def __next__(self) -> dict[str, Any]:
        return dict(zip(self.columns, self._convert(self._next_row())))
