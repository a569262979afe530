"""``mindspore.train.metrics.perplexity``: ``exp`` of the mean negative log-probability the
predictions give the labels, optionally skipping one label."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.train.metrics.metric import Metric, check_inputs, check_type, rearrange_inputs

__all__ = ["Perplexity"]


class Perplexity(Metric):
    """``update(probabilities, labels)``: probabilities along the last axis; a probability
    is taken as at least 1e-10 before its log."""

    def __init__(self, ignore_label: int | None = None):
        super().__init__()
        self.ignore_label = (None if ignore_label is None
                             else check_type("Perplexity", "ignore_label", ignore_label, int))
        self.clear()

    def clear(self) -> None:
        self._sum_metric, self._num_inst = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        check_inputs("Perplexity", inputs, 2, "predicted value, label")
        pred, label = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if label.size != pred.size / pred.shape[-1]:
            raise RuntimeError(f"For 'Perplexity.update', predicted value (input[0]) and label "
                               f"(input[1]) should have the same shape, but got predicted value "
                               f"shape {pred.shape}, label shape {label.shape}.")
        label = label.reshape(-1)
        picked = pred.reshape(label.size, -1)[np.arange(label.size), label.astype(int)]
        count = picked.size
        if self.ignore_label is not None:
            ignored = label == self.ignore_label
            count -= int(ignored.sum())
            picked = np.where(ignored, 1, picked)
        self._sum_metric -= float(np.sum(np.log(np.maximum(1e-10, picked))))
        self._num_inst += count

    def eval(self) -> float:
        if self._num_inst == 0:
            raise RuntimeError("The 'Perplexity' can not be calculated, because the number of "
                               "samples is 0, please check whether the update method has been "
                               "called before calling eval method.")
        return math.exp(self._sum_metric / self._num_inst)
