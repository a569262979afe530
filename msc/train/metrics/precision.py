"""``mindspore.train.metrics.precision``: per class, the fraction of predictions of that
class that are right (``eval(average=True)``: their mean)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError
from msc.train.metrics.metric import (
    Metric,
    check_inputs,
    class_indices,
    rearrange_inputs,
)

__all__ = ["Precision", "ClassCounts"]


class ClassCounts(Metric):
    """Per-class counts of true positives, predicted positives and actual positives over
    the arg-max predictions: what precision, recall and F-beta are made of."""

    _name = "Precision"

    def __init__(self, eval_type: str = "classification"):
        super().__init__()
        if eval_type != "classification":
            raise GraphValueError(f"For '{self._name}', eval_type {eval_type!r} is not "
                                  "supported by msc yet (only 'classification').")
        self._type = eval_type
        self.eps = sys.float_info.min
        self.clear()

    def clear(self) -> None:
        self._class_num = 0
        self._true_positives: Any = 0
        self._positives: Any = 0
        self._actual_positives: Any = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        check_inputs(self._name, inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        y = class_indices(self._name, y_pred, y)
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise GraphValueError(f"For '{self._name}.update', class number not match, last "
                                  f"input predicted data contain {self._class_num} classes, but "
                                  f"current predicted data contain {y_pred.shape[1]} classes.")
        if y.size and y.max() + 1 > self._class_num:
            raise GraphValueError(f"For '{self._name}.update', y (true value) contains class "
                                  f"{int(y.max())}, but y_pred has {self._class_num} classes.")
        eye = np.eye(self._class_num)
        actual = eye[y.reshape(-1).astype(np.int64)]
        predicted = eye[y_pred.argmax(axis=1).reshape(-1)]
        self._true_positives = self._true_positives + (actual * predicted).sum(axis=0)
        self._positives = self._positives + predicted.sum(axis=0)
        self._actual_positives = self._actual_positives + actual.sum(axis=0)

    def _ratio(self) -> np.ndarray:
        return self._true_positives / (self._positives + self.eps)

    def eval(self, average: bool = False) -> Any:
        if not isinstance(average, bool):
            raise GraphTypeError(f"For '{self._name}', the argument 'average' must be bool, but "
                                 f"got {type(average).__name__}.")
        if self._class_num == 0:
            raise RuntimeError(f"The '{self._name}' can not be calculated, because the number of "
                               "samples is 0, please check whether your inputs (predicted value, "
                               "true value) are empty, or has called update method before "
                               "calling eval method.")
        result = self._ratio()
        return result.mean() if average else result


class Precision(ClassCounts):
    _name = "Precision"
