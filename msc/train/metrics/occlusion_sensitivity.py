"""``mindspore.train.metrics.occlusion_sensitivity``: how much a classifier's score for the
label drops when a patch around each position of its input is covered, one model call per
``n_batch`` occluded copies."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphValueError
from msc.train.metrics.metric import (
    Metric,
    check_inputs,
    check_type,
    not_updated,
    rearrange_inputs,
)

__all__ = ["OcclusionSensitivity"]


def _bounding_box(b_box: list[int] | None,
                  shape: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``b_box`` as (low, high) pairs per axis of the image: a negative low is 0, a negative
    high the last index."""
    if b_box is None:
        return None, None
    if len(b_box) != 2 * len(shape):
        raise GraphValueError("For 'OcclusionSensitivity', the bounding box must contain upper and "
                              "lower for all dimensions (except batch number), and the length of "
                              "'b_box' must be twice as long as predicted value's (except batch "
                              f"number), but got 'b_box' length {len(b_box)}, predicted value "
                              f"length (except batch number) {len(shape)}.")
    low, high = np.array(b_box[::2]), np.array(b_box[1::2])
    low[low < 0] = 0
    high[high < 0] = shape[high < 0] - 1
    if np.any(high >= shape):
        raise GraphValueError("For 'OcclusionSensitivity', maximum bounding box must be smaller "
                              "than image size for all values.")
    if np.any(low > high):
        raise GraphValueError("For 'OcclusionSensitivity', minimum bounding box must be smaller "
                              "than maximum bounding box for all values.")
    return low, high


class OcclusionSensitivity(Metric):
    """``update(model, x, label)`` with one image ``x`` (batch of 1): for each position of
    ``x[0]`` (inside ``b_box`` if given, every axis including channels), the copy with
    ``[pos - margin, pos + margin)`` set to ``pad_val`` is scored; ``eval()`` gives the
    unoccluded score minus each occluded one, in the image's (or box's) shape."""

    def __init__(self, pad_val: float = 0.0, margin: int | list[int] = 2, n_batch: int = 128,
                 b_box: list[int] | None = None):
        super().__init__()
        name = "OcclusionSensitivity"
        self.pad_val = check_type(name, "pad_val", pad_val, float)
        self.margin = check_type(name, "margin", margin, int, list)
        self.n_batch = check_type(name, "n_batch", n_batch, int)
        self.b_box = None if b_box is None else check_type(name, "b_box", b_box, list)
        self.clear()

    def clear(self) -> None:
        self._baseline: Any = 0
        self._sensitivity_im: Any = 0
        self._is_update = False

    def _scores(self, model: Any, images: list[np.ndarray], label: int) -> np.ndarray:
        from msc.common.tensor import Tensor

        out = model(Tensor(np.concatenate(images))).asnumpy()
        return out[:, label]

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        from msc.nn.cell import Cell

        check_inputs("OcclusionSensitivity", inputs, 3, "classification model, predicted value, "
                                                        "label")
        model = check_type("OcclusionSensitivity", "model", inputs[0], Cell)
        image, label = self._convert_data(inputs[1]), self._convert_data(inputs[2])
        if image.shape[0] > 1:
            raise RuntimeError("For 'OcclusionSensitivity.update', the shape at index 0 of the "
                               "predicted value (input[1]) must be 1, but got "
                               f"{image.shape[0]}.")
        if np.prod(label.shape) != image.shape[0]:
            raise RuntimeError("For 'OcclusionSensitivity.update', the number of the label "
                               "(input[2]) must be same as the batches, but got the label number "
                               f"{np.prod(label.shape)}, and batches {image.shape[0]}.")
        label = int(label.reshape(-1)[0])
        shape = np.array(image.shape[1:])
        low, high = _bounding_box(self.b_box, shape)
        self._baseline = self._scores(model, [image], label)[0].item()
        out_shape = shape if low is None else high - low + 1
        margin = np.broadcast_to(np.asarray(self.margin), shape.shape)
        scores, batch = [], []
        count = int(np.prod(out_shape))
        for i in range(count):
            at = np.array(np.unravel_index(i, out_shape)) + (0 if low is None else low)
            patch = tuple(slice(max(0, p - m), min(n, p + m))
                          for p, m, n in zip(at, margin, shape))
            occluded = image.copy()
            occluded[(...,) + patch] = self.pad_val
            batch.append(occluded)
            if len(batch) == self.n_batch or i == count - 1:
                scores.append(self._scores(model, batch, label))
                batch = []
        self._sensitivity_im = np.concatenate(scores).reshape(out_shape)
        self._is_update = True

    def eval(self) -> np.ndarray:
        if not self._is_update:
            raise not_updated()
        return self._baseline - np.squeeze(self._sensitivity_im)
