"""``mindspore.train.metrics.confusion_matrix``: the class-by-class count of (true,
predicted) pairs, and ``ConfusionMatrixMetric``, the rates made of a binary confusion
matrix per sample and channel (sensitivity, precision, F1, MCC, ...)."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphValueError
from msc.train.metrics.metric import (
    Metric,
    check_choice,
    check_inputs,
    check_type,
    not_updated,
    rearrange_inputs,
)

__all__ = ["ConfusionMatrix", "ConfusionMatrixMetric"]


class ConfusionMatrix(Metric):
    """Rows are true classes, columns predicted ones. Class scores (one more axis) are
    arg-maxed; float predictions of the labels' rank are 1 where ``>= threshold``.
    ``normalize``: ``'target'`` (rows), ``'prediction'`` (columns), ``'all'`` or
    ``'no_norm'``, an empty row or column giving zeros."""

    def __init__(self, num_classes: int, normalize: str = "no_norm", threshold: float = 0.5):
        super().__init__()
        self.num_classes = check_type("ConfusionMatrix", "num_classes", num_classes, int)
        if normalize not in ("target", "prediction", "all", "no_norm"):
            raise GraphValueError("For 'ConfusionMatrix', the argument 'normalize' must be in "
                                  "['all', 'prediction', 'label', 'no_norm'(None)], but got "
                                  f"{normalize}.")
        self.normalize = normalize
        self.threshold = check_type("ConfusionMatrix", "threshold", threshold, float)
        self.clear()

    def clear(self) -> None:
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        check_inputs("ConfusionMatrix", inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim + 1:
            y_pred = y_pred.argmax(axis=1)
        elif y_pred.ndim != y.ndim:
            raise GraphValueError("For 'ConfusionMatrix.update', predicted value (input[0]) and "
                                  "true value (input[1]) should have same dimensions, or the "
                                  "dimension of predicted value equals the dimension of true value "
                                  f"add 1, but got predicted value ndim: {y_pred.ndim}, true value "
                                  f"ndim: {y.ndim}.")
        elif y_pred.dtype.kind == "f":
            y_pred = (y_pred >= self.threshold).astype(int)
        pairs = (y.reshape(-1) * self.num_classes + y_pred.reshape(-1)).astype(int)
        counts = np.bincount(pairs, minlength=self.num_classes ** 2)
        self.confusion_matrix += counts.reshape(self.num_classes, self.num_classes)
        self._is_update = True

    def eval(self) -> np.ndarray:
        if not self._is_update:
            raise not_updated()
        matrix = self.confusion_matrix.astype(float)
        if self.normalize == "no_norm":
            return matrix
        axis = {"target": 1, "prediction": 0, "all": None}[self.normalize]
        with np.errstate(invalid="ignore", divide="ignore"):
            matrix = matrix / matrix.sum(axis=axis, keepdims=True)
        return np.nan_to_num(matrix, nan=0.0, posinf=np.inf, neginf=-np.inf)


#: Each rate's names (MindSpore's spellings, lower case with underscores) -> its key.
_RATE_NAMES = {
    **dict.fromkeys(("sensitivity", "recall", "hit_rate", "true_positive_rate", "tpr"), "tpr"),
    **dict.fromkeys(("specificity", "selectivity", "true_negative_rate", "tnr"), "tnr"),
    **dict.fromkeys(("precision", "positive_predictive_value", "ppv"), "ppv"),
    **dict.fromkeys(("negative_predictive_value", "npv"), "npv"),
    **dict.fromkeys(("miss_rate", "false_negative_rate", "fnr"), "fnr"),
    **dict.fromkeys(("fall_out", "false_positive_rate", "fpr"), "fpr"),
    **dict.fromkeys(("false_discovery_rate", "fdr"), "fdr"),
    **dict.fromkeys(("false_omission_rate", "for"), "for"),
    **dict.fromkeys(("prevalence_threshold", "pt"), "pt"),
    **dict.fromkeys(("threat_score", "critical_success_index", "ts", "csi"), "ts"),
    **dict.fromkeys(("accuracy", "acc"), "acc"),
    **dict.fromkeys(("balanced_accuracy", "ba"), "ba"),
    **dict.fromkeys(("f1_score", "f1"), "f1"),
    **dict.fromkeys(("matthews_correlation_coefficient", "mcc"), "mcc"),
    **dict.fromkeys(("fowlkes_mallows_index", "fm"), "fm"),
    **dict.fromkeys(("informedness", "bookmaker_informedness", "bm"), "bm"),
    **dict.fromkeys(("markedness", "deltap", "mk"), "mk"),
}


def _safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den``, NaN where ``den`` is 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _rate(name: str, counts: np.ndarray) -> np.ndarray:
    """The named rate of ``[..., (tp, fp, tn, fn)]`` counts, NaN where undefined."""
    key = _RATE_NAMES.get(name.replace(" ", "_").lower())
    if key is None:
        raise NotImplementedError("The metric is not implemented.")
    counts = counts[None] if counts.ndim == 1 else counts
    if counts.shape[-1] != 4:
        raise GraphValueError("For 'ConfusionMatrix', the size of the last dimension of "
                              f"confusion_matrix must be 4, but got {counts.shape[-1]}.")
    tp, fp, tn, fn = (counts[..., i] for i in range(4))
    p, n = tp + fn, fp + tn
    tpr, tnr = _safe_ratio(tp, p), _safe_ratio(tn, n)
    ppv, npv = _safe_ratio(tp, tp + fp), _safe_ratio(tn, tn + fn)
    with np.errstate(invalid="ignore", divide="ignore"):
        fractions = {
            "tpr": (tp, p), "tnr": (tn, n), "ppv": (tp, tp + fp), "npv": (tn, tn + fn),
            "fnr": (fn, p), "fpr": (fp, n), "fdr": (fp, fp + tp), "for": (fn, fn + tn),
            "pt": (np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0),
            "ts": (tp, tp + fn + fp), "acc": (tp + tn, p + n), "f1": (2.0 * tp, 2.0 * tp + fn + fp),
            "mcc": (tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
        }
        single = {"ba": (tpr + tnr) / 2.0, "fm": np.sqrt(ppv * tpr), "bm": tpr + tnr - 1.0,
                  "mk": ppv + npv - 1.0}
        if key in single:
            return single[key]
        num, den = fractions[key]
        return np.where(den != 0, num / np.where(den != 0, den, 1), np.nan)


def _reduce(chart: np.ndarray, how: str) -> tuple[np.ndarray, np.ndarray]:
    """A (batch, channel) chart of rates reduced as ``decrease`` says, NaNs left out of
    means; also the count of values that were not NaN."""
    valid = (~np.isnan(chart)).astype(float)
    chart = np.where(np.isnan(chart), 0.0, chart)
    if how == "none":
        return chart, valid
    if how == "sum":
        return chart.sum(axis=(0, 1)), valid.sum(axis=(0, 1))
    if how in ("sum_batch", "sum_channel"):
        axis = 0 if how == "sum_batch" else 1
        return chart.sum(axis=axis), valid.sum(axis=axis)
    if how in ("mean_batch", "mean_channel"):
        axis = 0 if how == "mean_batch" else 1
        count = valid.sum(axis=axis)
        return np.nan_to_num(_safe_ratio(chart.sum(axis=axis), count)), count
    count = valid.sum(axis=1)
    per_sample = np.nan_to_num(_safe_ratio(chart.sum(axis=1), count))
    samples = (count > 0).astype(float).sum(axis=0)
    return (per_sample.sum(axis=0) / samples if samples > 0 else np.zeros(1)), samples


class ConfusionMatrixMetric(Metric):
    """Binarized predictions and labels of shape (batch, channel, ...): per sample and
    channel the counts tp, fp, tn, fn (``skip_channel=False`` drops channel 0, the
    background). ``calculation_method=False`` sums the counts over all batches and
    computes ``metric_name`` once; ``True`` computes it per sample and channel, reduces
    it by ``decrease`` and averages over batches."""

    def __init__(self, skip_channel: bool = True, metric_name: str = "sensitivity",
                 calculation_method: bool = False, decrease: str = "mean"):
        super().__init__()
        name = "ConfusionMatrixMetric"
        self.skip_channel = check_type(name, "skip_channel", skip_channel, bool)
        self.calculation_method = check_type(name, "calculation_method", calculation_method,
                                             bool)
        self.metric_name = check_type(name, "metric_name", metric_name, str)
        self.decrease = check_choice(name, "decrease", decrease,
                                     ("none", "mean", "sum", "mean_batch", "sum_batch",
                                      "mean_channel", "sum_channel"))
        self.clear()

    def clear(self) -> None:
        self._total_num, self._class_num = 0.0, 0
        self._totals = np.zeros(4)

    def _counts(self, y_pred: np.ndarray, y: np.ndarray) -> np.ndarray:
        if not np.all(y.astype(np.uint8) == y):
            raise GraphValueError("For 'ConfusionMatrix.update', the true value (input[1]) must "
                                  "be a binarized ndarray.")
        if y_pred.ndim < 2:
            raise GraphValueError("For 'ConfusionMatrix.update', the predicted value (input[0]) "
                                  f"must have at least 2 dimensions, but got {y_pred.ndim}.")
        if not self.skip_channel:
            y = y[:, 1:] if y.shape[1] > 1 else y
            y_pred = y_pred[:, 1:] if y_pred.shape[1] > 1 else y_pred
        if y.shape != y_pred.shape:
            raise GraphValueError(f"y_shape {y.shape} should be equal to y_pred_shape "
                                  f"{y_pred.shape}.")
        y_pred = y_pred.astype(float).reshape(*y_pred.shape[:2], -1)
        y = y.astype(float).reshape(*y.shape[:2], -1)
        tp, tn = (y_pred + y == 2).sum(axis=2), (y_pred + y == 0).sum(axis=2)
        p = y.sum(axis=2)
        return np.stack([tp, y.shape[-1] - p - tn, tn, p - tp], axis=-1).astype(float)

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        check_inputs("ConfusionMatrixMetric", inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        counts = self._counts(y_pred, y)
        per_sample = self.calculation_method and not (
            y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1))
        if per_sample:
            score, valid = _reduce(_rate(self.metric_name, counts), self.decrease)
            valid = int(np.asarray(valid).item())
            self._total_num += np.asarray(score).item() * valid
            self._class_num += valid
        else:
            self._totals += counts.reshape(-1, 4).sum(axis=0)

    def eval(self) -> Any:
        if self.calculation_method:
            if self._class_num == 0:
                raise RuntimeError("The 'ConfusionMatrixMetric' can not be calculated, because the "
                                   "number of samples is 0, please check whether your "
                                   "inputs(predicted value, true value) are empty, or has called "
                                   "update method before calling eval method.")
            return self._total_num / self._class_num
        return _rate(self.metric_name, self._totals)
