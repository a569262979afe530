"""``mindspore.train.metrics.fbeta``: the weighted harmonic mean of precision and recall
per class, ``(1 + b^2) tp / (b^2 actual + predicted)``; ``F1`` is b = 1."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphValueError
from msc.train.metrics.precision import ClassCounts

__all__ = ["Fbeta", "F1"]


class Fbeta(ClassCounts):
    _name = "Fbeta"

    def __init__(self, beta: Any):
        if not beta > 0:
            raise GraphValueError(f"For 'Fbeta', the argument 'beta' must be greater than 0, but "
                                  f"got {beta}.")
        self.beta = beta
        super().__init__()

    def _ratio(self) -> np.ndarray:
        b2 = self.beta ** 2
        return (1.0 + b2) * self._true_positives / (b2 * self._actual_positives +
                                                    self._positives + self.eps)


class F1(Fbeta):
    _name = "F1"

    def __init__(self) -> None:
        super().__init__(1.0)
