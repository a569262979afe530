"""``mindspore.train.metrics.accuracy``: the fraction of samples predicted right."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphValueError
from msc.train.metrics.metric import (
    Metric,
    check_inputs,
    class_indices,
    no_samples,
    rearrange_inputs,
)

__all__ = ["Accuracy"]


class Accuracy(Metric):
    """``'classification'``: the arg-max of the scores against class indices (or one-hot
    rows); ``'multilabel'``: 0/1 rows that must match exactly."""

    def __init__(self, eval_type: str = "classification"):
        super().__init__()
        if eval_type not in ("classification", "multilabel"):
            raise GraphValueError("For 'Accuracy', the argument 'eval_type' must be "
                                  f"'classification' or 'multilabel', but got {eval_type!r}.")
        self._type = eval_type
        self.clear()

    def clear(self) -> None:
        self._correct_num, self._total_num, self._class_num = 0, 0, 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        check_inputs("Accuracy", inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if self._type == "classification":
            y = class_indices("Accuracy", y_pred, y)
            result = (y_pred.argmax(axis=1) == y).reshape(-1)
        else:
            if y_pred.shape != y.shape or not (np.isin(y_pred, (0, 1)).all()
                                               and np.isin(y, (0, 1)).all()):
                raise GraphValueError("In multilabel case, y_pred and y must have the same shape "
                                      "and all elements should be 0 or 1.")
            result = (y_pred == y).reshape(y.shape[0], -1).all(axis=1)
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise GraphValueError(f"For 'Accuracy.update', class number not match, last input "
                                  f"predicted data contain {self._class_num} classes, but current "
                                  f"predicted data contain {y_pred.shape[1]} classes.")
        self._correct_num += int(result.sum())
        self._total_num += result.shape[0]

    def eval(self) -> float:
        if self._total_num == 0:
            raise no_samples("Accuracy")
        return self._correct_num / self._total_num
