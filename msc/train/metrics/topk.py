"""``mindspore.train.metrics.topk``: the fraction of samples whose class is among the k
highest scores."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError
from msc.train.metrics.metric import (
    Metric,
    check_inputs,
    is_onehot,
    no_samples,
    rearrange_inputs,
)

__all__ = ["TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy"]


class TopKCategoricalAccuracy(Metric):
    def __init__(self, k: int):
        super().__init__()
        if isinstance(k, bool) or not isinstance(k, int):
            raise GraphTypeError(f"For 'TopKCategoricalAccuracy', the type of the argument 'k' "
                                 f"should be int, but got 'k' type: {type(k)}.")
        if k < 1:
            raise GraphValueError(f"For 'TopKCategoricalAccuracy', the argument 'k' must be at "
                                  f"least 1, but got 'k' value: {k}.")
        self.k = k
        self.clear()

    def clear(self) -> None:
        self._correct_num, self._samples_num = 0, 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        check_inputs(type(self).__name__, inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and is_onehot(y):
            y = y.argmax(axis=1)
        top = np.argsort(-y_pred, axis=1)[:, :self.k]
        self._correct_num += int((top == y.reshape(-1, 1)).any(axis=1).sum())
        self._samples_num += top.shape[0]

    def eval(self) -> float:
        if self._samples_num == 0:
            raise no_samples(type(self).__name__)
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self) -> None:
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self) -> None:
        super().__init__(5)
