"""``mindspore.train.metrics.loss``: the mean of the batch losses."""

from __future__ import annotations

from typing import Any

from msc.errors import GraphValueError
from msc.train.metrics.metric import Metric, check_inputs, rearrange_inputs

__all__ = ["Loss"]


class Loss(Metric):
    def __init__(self) -> None:
        super().__init__()
        self.clear()

    def clear(self) -> None:
        self._sum_loss, self._total_num = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        check_inputs("Loss", inputs, 1, "loss")
        loss = self._convert_data(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise GraphValueError(f"For 'Loss.update', the dimension of your input (loss) must "
                                  f"be 1, but got {loss.ndim}.")
        self._sum_loss += float(loss.mean(-1))
        self._total_num += 1

    def eval(self) -> float:
        if self._total_num == 0:
            raise RuntimeError("The 'Loss' can not be calculated, because the number of samples "
                               "is 0, please check whether has called update method before "
                               "calling eval method.")
        return self._sum_loss / self._total_num
