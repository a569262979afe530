"""``mindspore.train.metrics.roc``: the receiver operating characteristic, the false and
true positive rates at each distinct score taken as the threshold (one curve per class for
class scores)."""

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

__all__ = ["ROC"]


def _curve_inputs(y_pred: np.ndarray, y: np.ndarray, class_num: int | None,
                  pos_label: int | None) -> tuple[np.ndarray, np.ndarray, int, int | None]:
    """Binary scores (same rank as the labels) flattened, with ``pos_label`` 1 by default;
    class scores (one more axis, axis 1) as rows of ``class_num`` scores. (MindSpore 2.10
    reshapes an (n, c) array to (c, n) instead, which is the same only for n == c.)"""
    if y_pred.ndim == y.ndim:
        if class_num is not None and class_num != 1:
            raise GraphValueError("For 'ROC', when predicted value (input[0]) and true value "
                                  "(input[1]) have the same shape, the 'class_num' must be 1, but "
                                  f"got {class_num}.")
        return y_pred.ravel(), y.ravel(), 1, 1 if pos_label is None else pos_label
    if y_pred.ndim != y.ndim + 1:
        raise GraphValueError("For 'ROC', predicted value (input[0]) and true value (input[1]) "
                              "must have same dimensions, or the dimension of predicted value "
                              "equal the dimension of true value add 1, but got predicted value "
                              f"ndim: {y_pred.ndim}, true value ndim: {y.ndim}.")
    if pos_label is not None:
        raise GraphValueError("For 'ROC', when the dimension of predicted value (input[0]) equals "
                              "the dimension of true value (input[1]) add 1, the 'pos_label' must "
                              f"be None, but got {pos_label}.")
    if class_num != y_pred.shape[1]:
        raise GraphValueError("For 'ROC', the 'class_num' must equal the number of classes from "
                              f"predicted value (input[0]), but got 'class_num' {class_num}, the "
                              f"number of classes from predicted value {y_pred.shape[1]}.")
    return np.moveaxis(y_pred, 1, -1).reshape(-1, class_num), y.ravel(), class_num, pos_label


def _binary_curve(scores: np.ndarray, y: np.ndarray,
                  pos_label: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """False and true positive counts at each distinct score, highest first (a stable
    sort of the negated scores, as MindSpore's)."""
    order = np.argsort(-scores, kind="stable")
    scores, positive = scores[order], (y[order] == pos_label).astype(np.int64)
    last = np.append(np.nonzero(np.diff(scores))[0], y.shape[0] - 1)
    tps = np.cumsum(positive)[last]
    return 1 + last - tps, tps, scores[last]


class ROC(Metric):
    """``eval()``: ``(fpr, tpr, thresholds)``, arrays for binary scores, lists of one array
    per class for class scores; the first threshold is the highest score plus one."""

    def __init__(self, class_num: int | None = None, pos_label: int | None = None):
        super().__init__()
        self.class_num = None if class_num is None else check_type("ROC", "class_num",
                                                                   class_num, int)
        self.pos_label = None if pos_label is None else check_type("ROC", "pos_label",
                                                                   pos_label, int)
        self.clear()

    def clear(self) -> None:
        self.y_pred: Any = 0
        self.y: Any = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        check_inputs("ROC", inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        self.y_pred, self.y, self.class_num, self.pos_label = _curve_inputs(
            y_pred, y, self.class_num, self.pos_label)
        self._is_update = True

    def _rates(self, scores: np.ndarray, y: np.ndarray, class_num: int,
               pos_label: int | None) -> Any:
        if class_num != 1:
            curves = [self._rates(*_curve_inputs(scores[:, c], y, 1, c)) for c in range(class_num)]
            return tuple(list(part) for part in zip(*curves))
        fps, tps, thresholds = _binary_curve(scores, y, pos_label)
        fps, tps = np.concatenate([[0], fps]), np.concatenate([[0], tps])
        thresholds = np.concatenate([thresholds[:1] + 1, thresholds])
        if fps[-1] <= 0:
            raise GraphValueError("For 'ROC.eval', there is no negative samples in true value, "
                                  "false positive value is meaningless.")
        if tps[-1] <= 0:
            raise GraphValueError("For 'ROC.eval', there is no positive samples in true value, "
                                  "true positive value is meaningless.")
        return fps / fps[-1], tps / tps[-1], thresholds

    def eval(self) -> Any:
        if not self._is_update:
            raise not_updated()
        return self._rates(np.squeeze(self.y_pred), np.squeeze(self.y), self.class_num,
                           self.pos_label)
