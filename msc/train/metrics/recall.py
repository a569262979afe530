"""``mindspore.train.metrics.recall``: per class, the fraction of its samples predicted
as that class."""

from __future__ import annotations

import numpy as np

from msc.train.metrics.precision import ClassCounts

__all__ = ["Recall"]


class Recall(ClassCounts):
    _name = "Recall"

    def _ratio(self) -> np.ndarray:
        return self._true_positives / (self._actual_positives + self.eps)
