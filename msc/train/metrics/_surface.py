"""What the surface-distance metrics share (Hausdorff, mean and root-mean-square surface
distance): the edges of a label's mask, and each edge point's distance to the nearest
edge point of the other mask, in numpy (MindSpore uses scipy's morphology for both)."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphValueError
from msc.train.metrics.metric import (
    Metric,
    check_choice,
    check_inputs,
    not_updated,
    rearrange_inputs,
)

#: Points measured against all target points at once, at most (bounds the memory).
_CHUNK = 4096


def erode(mask: np.ndarray) -> np.ndarray:
    """Binary erosion by the cross of each axis' two neighbours, outside the array False
    (scipy's ``binary_erosion`` with its defaults)."""
    padded = np.pad(mask, 1, constant_values=False)
    inner = tuple(slice(1, -1) for _ in range(mask.ndim))
    kept = mask.copy()
    for axis in range(mask.ndim):
        for shift in (0, 2):
            window = list(inner)
            window[axis] = slice(shift, shift + mask.shape[axis])
            kept &= padded[tuple(window)]
    return kept


def edges(mask: np.ndarray) -> np.ndarray:
    """The points of ``mask`` with a neighbour outside it."""
    return erode(mask) ^ mask


def surface_distances(points: np.ndarray, targets: np.ndarray, metric: str) -> np.ndarray:
    """For each True point of ``points``, the distance to the nearest True point of
    ``targets`` (inf where it has none; empty if ``points`` has none). Euclidean
    distances are floats, chessboard (max) and taxicab (sum) ones integers."""
    if not points.any():
        return np.array([])
    if not targets.any():
        return np.full(int(points.sum()), np.inf)
    src, dst = np.argwhere(points), np.argwhere(targets)
    found = []
    for start in range(0, len(src), _CHUNK):
        diff = np.abs(src[start:start + _CHUNK, None, :] - dst[None, :, :])
        if metric == "euclidean":
            dist = np.sqrt((diff.astype(np.float64) ** 2).sum(axis=-1))
        elif metric == "chessboard":
            dist = diff.max(axis=-1)
        else:
            dist = diff.sum(axis=-1)
        found.append(dist.min(axis=1))
    return np.concatenate(found)


class SurfaceDistance(Metric):
    """``update(y_pred, y, label_idx)``: the masks where each equals the label (a bool
    array is its own mask), and their edges; subclasses reduce the distances."""

    _name = "SurfaceDistance"

    def __init__(self, distance_metric: str = "euclidean"):
        super().__init__()
        self.distance_metric = check_choice(self._name, "distance_metric", distance_metric,
                                            ("euclidean", "chessboard", "taxicab"))
        self.clear()

    def clear(self) -> None:
        self._y_pred_edges: Any = 0
        self._y_edges: Any = 0
        self._is_update = False

    def _masks(self, y_pred: np.ndarray, y: np.ndarray, label: Any) -> tuple[Any, Any]:
        return (y_pred if y_pred.dtype == bool else y_pred == label,
                y if y.dtype == bool else y == label)

    def _edges(self, y_pred: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return edges(y_pred), edges(y)

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        check_inputs(self._name, inputs, 3, "predicted value, true value, label index")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        label = inputs[2]
        if isinstance(label, bool) or not isinstance(label, (int, float)):
            raise GraphValueError(f"For '{self._name}.update', the label index (input[2]) must be "
                                  f"int or float, but got {type(label)}.")
        if not ((y_pred == label).any() or (y == label).any()):
            raise GraphValueError(f"For '{self._name}.update', the label index (input[2]) must be "
                                  "in predicted value (input[0]) or true value (input[1]), but "
                                  f"{label} is not.")
        if y_pred.size == 0 or y_pred.shape != y.shape:
            raise GraphValueError(f"For '{self._name}.update', the size of predicted value "
                                  "(input[0]) and true value (input[1]) must be greater than 0, in "
                                  "addition to that, predicted value and true value should have "
                                  f"the same shape, but got predicted value size: {y_pred.size}, "
                                  f"shape: {y_pred.shape}, true value size: {y.size}, shape: "
                                  f"{y.shape}.")
        self._y_pred_edges, self._y_edges = self._edges(*self._masks(y_pred, y, label))
        self._is_update = True

    def _distances(self, reverse: bool = False) -> np.ndarray:
        if not self._is_update:
            raise not_updated()
        ends = (self._y_edges, self._y_pred_edges) if reverse else (self._y_pred_edges,
                                                                    self._y_edges)
        return surface_distances(*ends, self.distance_metric)
