"""``mindspore.train.metrics.root_mean_square_surface_distance``: surface distances as
MindSpore measures them: one way, the mean squared distance; ``symmetric``, the square
root of the mean of both ways' mean squares."""

from __future__ import annotations

import numpy as np

from msc.train.metrics._surface import SurfaceDistance
from msc.train.metrics.metric import check_type

__all__ = ["RootMeanSquareDistance"]


class RootMeanSquareDistance(SurfaceDistance):
    """inf when an edge is empty. One way the result is not square-rooted (MindSpore
    2.10's definition, kept)."""

    _name = "RootMeanSquareDistance"

    def __init__(self, symmetric: bool = False, distance_metric: str = "euclidean"):
        super().__init__(distance_metric)
        self.symmetric = check_type(self._name, "symmetric", symmetric, bool)

    def eval(self) -> float:
        squares = []
        for reverse in ((False, True) if self.symmetric else (False,)):
            distances = self._distances(reverse)
            if distances.shape == (0,):
                return np.inf
            squares.append((distances ** 2).mean())
        return np.sqrt(np.mean(squares)) if self.symmetric else squares[0]
