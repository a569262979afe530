"""``mindspore.train.metrics.metric``: the ``Metric`` base class (``clear``, ``update``,
``eval``) and the input checks the classification metrics share."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError

__all__ = ["Metric", "rearrange_inputs"]


def rearrange_inputs(func: Any) -> Any:
    """Lets ``set_indexes`` pick and order the inputs of ``update``."""

    def wrapper(self: Metric, *inputs: Any) -> Any:
        if self._indexes is not None:
            inputs = tuple(inputs[i] for i in self._indexes)
        return func(self, *inputs)

    wrapper.__name__, wrapper.__doc__ = func.__name__, func.__doc__
    return wrapper


class Metric:
    """A running measure over batches: ``clear()`` resets it, ``update(*inputs)`` adds a
    batch, ``eval()`` gives the value."""

    def __init__(self) -> None:
        self._indexes: list[int] | None = None

    def _convert_data(self, data: Any) -> np.ndarray:
        if hasattr(data, "asnumpy"):
            return data.asnumpy()
        if isinstance(data, (list, np.ndarray)) or np.isscalar(data):
            return np.asarray(data)
        raise GraphTypeError(f"The input data type must be a Tensor, list or numpy.ndarray, but "
                             f"got {type(data)}.")

    @property
    def indexes(self) -> list[int] | None:
        return self._indexes

    def set_indexes(self, indexes: list[int]) -> Metric:
        if not isinstance(indexes, list) or not all(isinstance(i, int) for i in indexes):
            raise GraphValueError(f"For 'set_indexes', the argument 'indexes' should be a list "
                                  f"and all its elements should be int, please check whether it "
                                  f"is correct, but got indexes: {indexes}.")
        self._indexes = indexes
        return self

    def __call__(self, *inputs: Any) -> Any:
        self.clear()
        self.update(*inputs)
        return self.eval()

    def clear(self) -> None:
        raise NotImplementedError

    def update(self, *inputs: Any) -> None:
        raise NotImplementedError

    def eval(self) -> Any:
        raise NotImplementedError


def check_inputs(name: str, inputs: tuple[Any, ...], count: int, what: str) -> None:
    if len(inputs) != count:
        raise GraphValueError(f"For '{name}.update', it needs {count} input(s) ({what}), but got "
                              f"{len(inputs)}.")


def is_onehot(data: np.ndarray) -> bool:
    """Rows of zeros and a single one along axis 1."""
    if data.ndim > 1 and np.equal(data ** 2, data).all():
        return bool(np.equal(data.sum(axis=1), 1).all())
    return False


def class_indices(name: str, y_pred: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The labels as class indices (one-hot rows become their arg-max), checked against
    the scores' shape."""
    if y_pred.ndim == y.ndim and is_onehot(y):
        y = y.argmax(axis=1)
    if y_pred.ndim != y.ndim + 1 or y.shape != (y_pred.shape[0],) + y_pred.shape[2:]:
        raise GraphValueError(f"For '{name}.update', y_pred (predicted value) must have one more "
                              f"axis than y (true value): got shapes {y_pred.shape} and "
                              f"{y.shape}.")
    return y


def no_samples(name: str) -> RuntimeError:
    return RuntimeError(f"The '{name}' can not be calculated, because the number of samples is "
                        "0, please check whether your inputs(predicted value, true value) are "
                        "empty, or has called update method before calling eval method.")


def check_type(cls: str, arg: str, value: Any, *types: type) -> Any:
    """MindSpore's argument type check: a bool is no int, an int no float."""
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        names = ", ".join(t.__name__ for t in types)
        raise GraphTypeError(f"For '{cls}', the type of '{arg}' should be one of [{names}], but "
                             f"got {type(value).__name__}.")
    return value


def check_choice(cls: str, arg: str, value: Any, choices: tuple[str, ...]) -> str:
    check_type(cls, arg, value, str)
    if value not in choices:
        raise GraphValueError(f"For '{cls}', the argument '{arg}' should be one of {list(choices)}, "
                              f"but got {value!r}.")
    return value


def not_updated() -> RuntimeError:
    return RuntimeError("Please call the 'update' method before calling 'eval' method.")
