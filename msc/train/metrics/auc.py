"""``mindspore.train.metrics.auc``: the area under a curve given by its points, by the
trapezoidal rule (``ROC``'s false and true positive rates give the ROC AUC)."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError

__all__ = ["auc"]


def _points(a: np.ndarray) -> np.ndarray:
    if a.ndim == 1 or (a.ndim == 2 and a.shape[1] == 1):
        return a.ravel()
    raise GraphValueError("For 'auc', the input must be a 1-dimensional array, or a 2-dimensional "
                          f"array with the second dimension of 1, but got shape {a.shape}.")


def auc(x: np.ndarray, y: np.ndarray, reorder: bool = False) -> Any:
    """``x`` must be monotonic unless ``reorder`` sorts the points by it; a decreasing ``x``
    gives the same (positive) area."""
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise GraphTypeError("For 'auc', the argument 'x' and 'y' must all be np.ndarray, but got "
                             f"{type(x)}, {type(y)}")
    for a in (x, y):
        if a.ndim == 0:
            raise GraphTypeError(f"Singleton array {a} cannot be considered as a valid collection.")
    if x.shape[0] != y.shape[0]:
        raise GraphValueError("Found input variables with inconsistent numbers of samples: "
                              f"{[x.shape[0], y.shape[0]]}.")
    x, y = _points(x), _points(y)
    if x.shape[0] < 2:
        raise GraphValueError("For 'auc', the shape of the argument 'x' in axis 0 must be greater "
                              f"than 2, but got {x.shape[0]}.")
    direction = 1
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        steps = np.diff(x)
        if np.any(steps < 0):
            if not np.all(steps <= 0):
                raise GraphValueError("For 'auc', if the argument is False, the argument 'x' array "
                                      f"must be increasing or decreasing, but got 'x': {x}")
            direction = -1
    return direction * np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2)
