"""``mindspore.train.metrics.error``: mean absolute and mean squared error, summed over
each sample's elements and averaged over samples (MindSpore's definition)."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.train.metrics.metric import Metric, check_inputs, no_samples, rearrange_inputs

__all__ = ["MAE", "MSE"]


class _Error(Metric):
    _power = 1

    def __init__(self) -> None:
        super().__init__()
        self.clear()

    def clear(self) -> None:
        self._error_sum, self._samples_num = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        check_inputs(type(self).__name__, inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        diff = np.abs(y.reshape(y_pred.shape) - y_pred) ** self._power
        self._error_sum += float(diff.sum())
        self._samples_num += y.shape[0]

    def eval(self) -> float:
        if self._samples_num == 0:
            raise no_samples(type(self).__name__)
        return self._error_sum / self._samples_num


class MAE(_Error):
    _power = 1


class MSE(_Error):
    _power = 2
