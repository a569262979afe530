"""``mindspore.train``: ``Model``, its callbacks and metrics, and the checkpoint functions."""

from msc.train import serialization
from msc.train.callback import (
                                Callback,
                                CheckpointConfig,
                                EarlyStopping,
                                History,
                                LambdaCallback,
                                LossMonitor,
                                ModelCheckpoint,
                                ReduceLROnPlateau,
                                RunContext,
                                TimeMonitor,
)
from msc.train.metrics import (
                                F1,
                                MAE,
                                MSE,
                                ROC,
                                Accuracy,
                                BleuScore,
                                ConfusionMatrix,
                                ConfusionMatrixMetric,
                                CosineSimilarity,
                                Dice,
                                Fbeta,
                                HausdorffDistance,
                                Loss,
                                MeanSurfaceDistance,
                                Metric,
                                OcclusionSensitivity,
                                Perplexity,
                                Precision,
                                Recall,
                                RootMeanSquareDistance,
                                Top1CategoricalAccuracy,
                                Top5CategoricalAccuracy,
                                TopKCategoricalAccuracy,
                                auc,
                                get_metric_fn,
                                get_metrics,
                                names,
                                rearrange_inputs,
)
from msc.train.amp import build_train_network
from msc.train.loss_scale_manager import (
    DynamicLossScaleManager,
    FixedLossScaleManager,
    LossScaleManager,
)
from msc.train.model import Model
from msc.train.serialization import (
                                export,
                                load_checkpoint,
                                load_param_into_net,
                                save_checkpoint,
)

__all__ = ["Model", "save_checkpoint", "load_checkpoint", "load_param_into_net", "export",
           "Callback", "CheckpointConfig", "EarlyStopping", "History", "LambdaCallback",
           "LossMonitor", "ModelCheckpoint", "ReduceLROnPlateau", "RunContext", "TimeMonitor",
           "Metric", "Accuracy", "Loss", "MAE", "MSE", "Precision", "Recall", "Fbeta", "F1",
           "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy",
           "get_metric_fn", "get_metrics", "names", "rearrange_inputs", "ConfusionMatrix",
           "ConfusionMatrixMetric", "CosineSimilarity", "Dice", "HausdorffDistance",
           "MeanSurfaceDistance", "RootMeanSquareDistance", "Perplexity", "ROC", "auc",
           "BleuScore", "OcclusionSensitivity", "build_train_network", "LossScaleManager",
           "FixedLossScaleManager", "DynamicLossScaleManager"]
