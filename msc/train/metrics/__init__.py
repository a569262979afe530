"""``mindspore.train.metrics``: measures ``Model.eval`` accumulates over batches, by class
or by the names MindSpore's ``get_metrics`` knows (``{"accuracy", "loss"}``)."""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.train.metrics.accuracy import Accuracy
from msc.train.metrics.auc import auc
from msc.train.metrics.bleu_score import BleuScore
from msc.train.metrics.confusion_matrix import ConfusionMatrix, ConfusionMatrixMetric
from msc.train.metrics.cosine_similarity import CosineSimilarity
from msc.train.metrics.dice import Dice
from msc.train.metrics.error import MAE, MSE
from msc.train.metrics.fbeta import F1, Fbeta
from msc.train.metrics.hausdorff_distance import HausdorffDistance
from msc.train.metrics.loss import Loss
from msc.train.metrics.mean_surface_distance import MeanSurfaceDistance
from msc.train.metrics.metric import Metric, rearrange_inputs
from msc.train.metrics.occlusion_sensitivity import OcclusionSensitivity
from msc.train.metrics.perplexity import Perplexity
from msc.train.metrics.precision import Precision
from msc.train.metrics.recall import Recall
from msc.train.metrics.roc import ROC
from msc.train.metrics.root_mean_square_surface_distance import RootMeanSquareDistance
from msc.train.metrics.topk import (
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
)

__all__ = ["Metric", "rearrange_inputs", "Accuracy", "Loss", "MAE", "MSE", "Precision",
           "Recall", "Fbeta", "F1", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy",
           "Top5CategoricalAccuracy", "get_metric_fn", "get_metrics", "names", "HausdorffDistance",
           "BleuScore", "CosineSimilarity", "OcclusionSensitivity", "Dice", "ROC", "auc",
           "MeanSurfaceDistance", "RootMeanSquareDistance", "Perplexity", "ConfusionMatrix",
           "ConfusionMatrixMetric"]

_FACTORY = {"accuracy": Accuracy, "acc": Accuracy, "precision": Precision, "recall": Recall,
            "F1": F1, "top_1_accuracy": Top1CategoricalAccuracy,
            "top_5_accuracy": Top5CategoricalAccuracy, "topk": TopKCategoricalAccuracy,
            "mae": MAE, "mse": MSE, "loss": Loss, "dice": Dice, "roc": ROC, "auc": auc,
            "bleu_score": BleuScore, "cosine_similarity": CosineSimilarity,
            "occlusion_sensitivity": OcclusionSensitivity, "hausdorff_distance": HausdorffDistance,
            "mean_surface_distance": MeanSurfaceDistance,
            "root_mean_square_distance": RootMeanSquareDistance, "perplexity": Perplexity,
            "confusion_matrix": ConfusionMatrix, "confusion_matrix_metric": ConfusionMatrixMetric}


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
