"""Rows and columns inside a pipeline: a row is a tuple of numpy arrays, one per column;
how values become columns, how column-name arguments are checked, and the error a
running pipeline raises."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError, MscError

__all__ = ["Row", "DatasetError", "as_column", "check_names"]

Row = tuple[np.ndarray, ...]


class DatasetError(MscError, RuntimeError):
    """A failure while the pipeline runs: a map function that raised, rows that cannot be
    batched, a damaged file (MindSpore raises RuntimeError from its pipeline)."""


def as_column(value: Any) -> np.ndarray:
    """A column value as a numpy array (Python ints become int64, floats float64)."""
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "asnumpy"):
        return value.asnumpy()
    return np.asarray(value)


def check_names(value: Any, what: str) -> list[str]:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise GraphTypeError(f"Argument {what} with value {value!r} is not of type [<class "
                             f"'list'>, <class 'str'>], but got {type(value)}.")
    if len(set(names)) != len(names):
        raise GraphValueError(f"{what} has duplicate column names: {list(names)}.")
    return list(names)
