"""``mindspore.train.metrics.hausdorff_distance``: the largest (or a percentile of the)
distance from an edge point of one mask to the nearest edge point of the other, both ways
unless ``directed``."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphValueError
from msc.train.metrics._surface import SurfaceDistance, edges
from msc.train.metrics.metric import check_type

__all__ = ["HausdorffDistance"]


class HausdorffDistance(SurfaceDistance):
    """``crop`` first cuts both masks to the box around their union (axes of length one
    then squeezed away, as MindSpore does); inf when the predicted edge is empty."""

    _name = "HausdorffDistance"

    def __init__(self, distance_metric: str = "euclidean", percentile: float | None = None,
                 directed: bool = False, crop: bool = True):
        super().__init__(distance_metric)
        self.percentile = (None if percentile is None
                           else check_type(self._name, "percentile", percentile, float))
        self.directed = check_type(self._name, "directed", directed, bool)
        self.crop = check_type(self._name, "crop", crop, bool)

    def _masks(self, y_pred: np.ndarray, y: np.ndarray, label: Any) -> tuple[Any, Any]:
        return y_pred == label, y == label  # bool inputs too, as MindSpore's

    def _edges(self, y_pred: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.crop:
            union = y_pred | y
            if not union.any():
                return np.zeros_like(y_pred), np.zeros_like(y)
            box = tuple(slice(idx.min(), idx.max() + 1) for idx in np.nonzero(union))
            y_pred, y = np.squeeze(y_pred[box]), np.squeeze(y[box])
        return edges(y_pred), edges(y)

    def _one_way(self, reverse: bool) -> Any:
        distances = self._distances(reverse)
        if distances.shape == (0,):
            return np.inf
        if not self.percentile:
            return distances.max()
        if 0 <= self.percentile <= 100:
            return np.percentile(distances, self.percentile)
        raise GraphValueError("For 'HausdorffDistance', the value of the argument 'percentile' "
                              f"must be [0, 100], but got {self.percentile}.")

    def eval(self) -> Any:
        forward = self._one_way(False)
        return forward if self.directed else max(forward, self._one_way(True))
