"""``mindspore.train.Model``: ``train``/``eval``/``predict`` over a network, a loss and
an optimizer.

MindSpore's ``Model`` reads ``mindspore.dataset`` pipelines; msc has no dataset module,
so a dataset here is any re-iterable of batches, each a tuple ``(data, label)`` (or more
inputs) of numpy arrays or Tensors. The train step is ``TrainOneStepCell(WithLossCell
(network, loss_fn), optimizer)`` as MindSpore builds it, compiled under GRAPH_MODE.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from msc.common.tensor import Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.nn.cell import Cell
from msc.nn.wrap.cell_wrapper import TrainOneStepCell, WithLossCell

__all__ = ["Model"]


def _tensors(batch: Any) -> tuple[Tensor, ...]:
    items = batch if isinstance(batch, (tuple, list)) else (batch,)
    return tuple(x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in items)


def _batches(dataset: Any, name: str) -> Iterable[Any]:
    if isinstance(dataset, (str, bytes)) or not isinstance(dataset, Iterable):
        raise GraphTypeError(f"For 'Model.{name}', the dataset must be an iterable of batches "
                             f"(tuples of numpy arrays or Tensors), but got "
                             f"{type(dataset).__name__}.")
    return dataset


def _no_callbacks(callbacks: Any, name: str) -> None:
    if callbacks:
        from msc.api_names import UnsupportedApiError

        raise UnsupportedApiError(f"For 'Model.{name}', callbacks are not supported by msc "
                                  "yet.")


class _Accuracy:
    """The fraction of samples whose arg-max prediction is the label (a class index, or
    a one-hot row)."""

    def __init__(self) -> None:
        self.correct, self.total = 0, 0

    def update(self, logits: np.ndarray, label: np.ndarray, loss: float) -> None:
        if label.ndim == logits.ndim:
            label = label.argmax(axis=-1)
        self.correct += int((logits.argmax(axis=-1) == label).sum())
        self.total += label.size

    def eval(self) -> float:
        if self.total == 0:
            raise RuntimeError("The 'Accuracy' can not be calculated, because the number of "
                               "samples is 0.")
        return self.correct / self.total


class _Loss:
    """The mean of the batch losses."""

    def __init__(self) -> None:
        self.losses: list[float] = []

    def update(self, logits: np.ndarray, label: np.ndarray, loss: float) -> None:
        self.losses.append(loss)

    def eval(self) -> float:
        if not self.losses:
            raise RuntimeError("The 'Loss' can not be calculated, because the number of "
                               "samples is 0.")
        return float(np.mean(self.losses))


_METRICS = {"accuracy": _Accuracy, "acc": _Accuracy, "loss": _Loss}


class Model:
    """``Model(network, loss_fn=None, optimizer=None, metrics=None)``: ``train(epoch,
    dataset)`` runs one optimizer step per batch; ``eval(dataset)`` returns the metrics
    ("accuracy", "loss") by name; ``predict(*inputs)`` runs the network for inference.

    Example:
        >>> model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
        >>> model.train(2, [(x, y)])
    """

    def __init__(self, network: Cell, loss_fn: Any = None, optimizer: Cell | None = None,
                 metrics: Any = None, eval_network: Cell | None = None,
                 eval_indexes: Any = None, amp_level: str = "O0", boost_level: str = "O0",
                 **kwargs: Any):
        if not isinstance(network, Cell):
            raise GraphTypeError(f"For 'Model', the 'network' must be a Cell, but got "
                                 f"{type(network).__name__}.")
        from msc.train.amp import auto_mixed_precision

        self._network = auto_mixed_precision(network, amp_level)
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._metric_names = self._check_metrics(metrics)
        if eval_network is not None or eval_indexes is not None:
            raise GraphValueError("For 'Model', 'eval_network' and 'eval_indexes' are not "
                                  "supported yet.")
        self._train_network: Cell | None = None

    @staticmethod
    def _check_metrics(metrics: Any) -> list[str]:
        if metrics is None:
            return []
        if not isinstance(metrics, (set, list, tuple)):
            raise GraphTypeError("For 'Model', the 'metrics' must be a set of metric names, but "
                                 f"got {type(metrics).__name__}.")
        unknown = [m for m in metrics if m not in _METRICS]
        if unknown:
            raise GraphValueError(f"For 'Model', the metrics {unknown} are not supported; "
                                  f"known: {sorted(_METRICS)}.")
        return sorted(metrics)

    @property
    def train_network(self) -> Cell:
        """The one-step train cell, built on first use."""
        if self._train_network is None:
            if self._optimizer is None:
                raise GraphValueError("For 'Model.train', the 'optimizer' must be set.")
            net = self._network if self._loss_fn is None else \
                WithLossCell(self._network, self._loss_fn)
            self._train_network = TrainOneStepCell(net, self._optimizer)
        return self._train_network

    @property
    def predict_network(self) -> Cell:
        return self._network

    def train(self, epoch: int, train_dataset: Any, callbacks: Any = None,
              dataset_sink_mode: bool = False, sink_size: int = -1,
              initial_epoch: int = 0) -> None:
        """Epochs ``initial_epoch`` .. ``epoch - 1``, one optimizer step per batch."""
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch <= 0:
            raise GraphValueError(f"For 'Model.train', the 'epoch' must be int and must > 0, "
                                  f"but got '{epoch}'.")
        _no_callbacks(callbacks, "train")
        batches = _batches(train_dataset, "train")
        step = self.train_network
        step.set_train(True)
        for _ in range(initial_epoch, epoch):
            for batch in batches:
                step(*_tensors(batch))

    def eval(self, valid_dataset: Any, callbacks: Any = None,
             dataset_sink_mode: bool = False) -> dict[str, float]:
        """The metrics over ``valid_dataset`` (each batch: inputs..., label)."""
        if not self._metric_names:
            raise GraphValueError("For 'Model.eval', the model argument 'metrics' can not be "
                                  "None or empty, you should set the argument 'metrics' for "
                                  "model.")
        if self._loss_fn is None:
            raise GraphValueError("For 'Model.eval', the 'loss_fn' must be set.")
        _no_callbacks(callbacks, "eval")
        meters = {name: _METRICS[name]() for name in self._metric_names}
        self._network.set_train(False)
        for batch in _batches(valid_dataset, "eval"):
            *inputs, label = _tensors(batch)
            logits = self._network(*inputs)
            loss = float(np.mean(self._loss_fn(logits, label).asnumpy()))
            for meter in meters.values():
                meter.update(logits.asnumpy(), label.asnumpy(), loss)
        return {name: meter.eval() for name, meter in meters.items()}

    def predict(self, *predict_data: Any) -> Any:
        """``network(*predict_data)`` in inference mode."""
        self._network.set_train(False)
        return self._network(*_tensors(predict_data))
