"""``mindspore.train.metrics.dice``: the Dice coefficient ``2 |A.B| / (|A|^2 + |B|^2 +
smooth)`` of each batch, averaged over the samples seen."""

from __future__ import annotations

from typing import Any

from msc.errors import GraphValueError
from msc.train.metrics.metric import Metric, check_inputs, check_type, rearrange_inputs

__all__ = ["Dice"]


class Dice(Metric):
    """One coefficient per ``update`` over the whole batch, summed; ``eval`` divides by the
    number of samples (MindSpore's definition, not a per-sample mean)."""

    def __init__(self, smooth: float = 1e-5):
        super().__init__()
        self.smooth = check_type("Dice", "smooth", smooth, float)
        if smooth <= 0:
            raise GraphValueError(f"For 'Dice', the argument 'smooth' must be a positive float, "
                                  f"but got {smooth}.")
        self.clear()

    def clear(self) -> None:
        self._dice_coeff_sum, self._samples_num = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        check_inputs("Dice", inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        self._samples_num += y.shape[0]
        if y_pred.shape != y.shape:
            raise GraphValueError(f"For 'Dice.update', predicted value (input[0]) and true value "
                                  f"(input[1]) should have same shape, but got predicted value "
                                  f"shape: {y_pred.shape}, true value shape: {y.shape}.")
        p, t = y_pred.ravel(), y.ravel()
        self._dice_coeff_sum += 2 * float(p @ t) / float(p @ p + t @ t + self.smooth)

    def eval(self) -> float:
        if self._samples_num == 0:
            raise RuntimeError("The 'Dice coefficient' can not be calculated, because the number "
                               "of samples is 0, please check whether your inputs(predicted "
                               "value, true value) are empty, or has called update method before "
                               "calling eval method.")
        return self._dice_coeff_sum / float(self._samples_num)
