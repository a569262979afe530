"""``mindspore.train.metrics.mean_surface_distance``: the mean distance from the edge of the
predicted mask to the edge of the true one (``symmetric``: the mean of both ways)."""

from __future__ import annotations

import numpy as np

from msc.train.metrics._surface import SurfaceDistance
from msc.train.metrics.metric import check_type

__all__ = ["MeanSurfaceDistance"]


class MeanSurfaceDistance(SurfaceDistance):
    """inf when an edge is empty."""

    _name = "MeanSurfaceDistance"

    def __init__(self, symmetric: bool = False, distance_metric: str = "euclidean"):
        super().__init__(distance_metric)
        self.symmetric = check_type(self._name, "symmetric", symmetric, bool)

    def eval(self) -> float:
        means = []
        for reverse in ((False, True) if self.symmetric else (False,)):
            distances = self._distances(reverse)
            if distances.shape == (0,):
                return np.inf
            means.append(distances.mean())
        return np.mean(means) if self.symmetric else means[0]
