"""``mindspore.train.metrics``: measures ``Model.eval`` accumulates over batches, by class
or by the names MindSpore's ``get_metrics`` knows (``{"accuracy", "loss"}``)."""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.train.metrics.accuracy import Accuracy
from msc.train.metrics.error import MAE, MSE
from msc.train.metrics.fbeta import F1, Fbeta
from msc.train.metrics.loss import Loss
from msc.train.metrics.metric import Metric, rearrange_inputs
from msc.train.metrics.precision import Precision
from msc.train.metrics.recall import Recall
from msc.train.metrics.topk import (
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
)

__all__ = ["Metric", "rearrange_inputs", "Accuracy", "Loss", "MAE", "MSE", "Precision",
           "Recall", "Fbeta", "F1", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy",
           "Top5CategoricalAccuracy", "get_metric_fn", "get_metrics", "names"]

_FACTORY = {"accuracy": Accuracy, "acc": Accuracy, "precision": Precision, "recall": Recall,
            "F1": F1, "top_1_accuracy": Top1CategoricalAccuracy,
            "top_5_accuracy": Top5CategoricalAccuracy, "topk": TopKCategoricalAccuracy,
            "mae": MAE, "mse": MSE, "loss": Loss}


def names() -> list[str]:
    return sorted(_FACTORY)


def get_metric_fn(name: str, *args: Any, **kwargs: Any) -> Metric:
    if name not in _FACTORY:
        raise KeyError(f"For 'get_metric_fn', unsupported metric {name}; msc knows {names()}.")
    return _FACTORY[name](*args, **kwargs)


def get_metrics(metrics: Any) -> dict[str, Metric] | None:
    """A dict of name -> Metric from a dict of them or a set of names."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for name, metric in metrics.items():
            if not isinstance(name, str) or not isinstance(metric, Metric):
                raise GraphTypeError("For 'get_metrics', if 'metrics' is dict, the key in "
                                     "'metrics' must be string and value in 'metrics' must be "
                                     f"Metric, but got key:{type(name)}, value:{type(metric)}.")
        return dict(metrics)
    if isinstance(metrics, (set, list, tuple)):
        unknown = [m for m in metrics if m not in _FACTORY]
        if unknown:
            raise GraphValueError(f"For 'Model', the metrics {unknown} are not supported; "
                                  f"known: {names()}.")
        return {name: get_metric_fn(name) for name in sorted(metrics)}
    raise GraphTypeError(f"For 'get_metrics', the argument 'metrics' must be None, dict or set, "
                         f"but got {metrics}.")
