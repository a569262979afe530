"""``mindspore.train.Model``: ``train``/``fit``/``eval``/``predict`` over a network, a loss
and an optimizer, with callbacks and metrics.

A dataset is an ``msc.dataset`` pipeline or any re-iterable of batches, each a tuple
``(data, label)`` (or more inputs) of numpy arrays or Tensors. The train step is
``TrainOneStepCell(WithLossCell(network, loss_fn), optimizer)`` as MindSpore builds it.
There is no device queue on a CPU, so ``dataset_sink_mode=True`` trains step by step, as
MindSpore does on CPU, and ``sink_size`` has no effect.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.nn.cell import Cell
from msc.nn.wrap.cell_wrapper import TrainOneStepCell, WithLossCell
from msc.train.callback import (
    MINDSPORE_NAMES,
    CallbackManager,
    ProgressBar,
    RunContext,
    TimeMonitor,
)
from msc.train.callback._callback import InternalCallbackParam
from msc.train.callback._progress import progress_enabled
from msc.train.metrics import Loss, get_metrics

__all__ = ["Model"]


def _tensors(batch: Any) -> tuple[Tensor, ...]:
    items = batch if isinstance(batch, (tuple, list)) else (batch,)
    return tuple(x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in items)


class _Batches:
    """One epoch's batches at a time, from a dataset pipeline (its iterator runs all the
    epochs, reshuffling each) or from a plain re-iterable."""

    def __init__(self, dataset: Any, name: str, epochs: int):
        from msc.dataset import Dataset

        if isinstance(dataset, Dataset):
            self._iterator: Any = dataset.create_tuple_iterator(num_epochs=epochs)
            self.size: int = dataset.get_dataset_size()
            self._batches: Any = None
            return
        if isinstance(dataset, (str, bytes)) or not hasattr(dataset, "__iter__"):
            raise GraphTypeError(f"For 'Model.{name}', the dataset must be an msc.dataset "
                                 "Dataset or an iterable of batches (tuples of numpy arrays or "
                                 f"Tensors), but got {type(dataset).__name__}.")
        self._iterator = None
        self._batches = dataset if hasattr(dataset, "__len__") else list(dataset)
        self.size = len(self._batches)

    def epoch(self) -> Any:
        return self._iterator if self._iterator is not None else iter(self._batches)


def _eval_callbacks(callbacks: Any) -> list[Any]:
    """The callbacks an evaluation inside ``fit`` runs: the user's own and TimeMonitor,
    not MindSpore's other built-in ones (as MindSpore chooses)."""
    out = []
    for cb in CallbackManager(callbacks)._callbacks:
        builtin = type(cb).__module__.startswith("msc.train.callback") and \
            (type(cb).__name__ in MINDSPORE_NAMES or isinstance(cb, ProgressBar))
        if not builtin or isinstance(cb, TimeMonitor):
            out.append(cb)
    return out


class Model:
    """``Model(network, loss_fn=None, optimizer=None, metrics=None)``: ``train(epoch,
    dataset, callbacks)`` runs one optimizer step per batch; ``eval(dataset)`` returns the
    metrics by name; ``predict(*inputs)`` runs the network for inference.

    Example:
        >>> model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1),
        ...               metrics={"loss"})
        >>> model.train(2, [(x, y)], callbacks=[LossMonitor()])
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
        self._metric_fns = get_metrics(metrics) or {}
        if eval_indexes is not None and (not isinstance(eval_indexes, list) or
                                         len(eval_indexes) != 3):
            raise GraphValueError("For 'Model', the 'eval_indexes' must be a list of 3 indexes "
                                  f"(loss, predicted value, label), but got {eval_indexes!r}.")
        if eval_network is not None and not isinstance(eval_network, Cell):
            raise GraphTypeError(f"For 'Model', the 'eval_network' must be a Cell, but got "
                                 f"{type(eval_network).__name__}.")
        self._eval_network = eval_network
        self._eval_indexes = eval_indexes
        self._train_network: Cell | None = None

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

    @property
    def eval_network(self) -> Cell | None:
        return self._eval_network

    # --- training -----------------------------------------------------------------------

    @staticmethod
    def _with_progress(callbacks: Any) -> CallbackManager:
        manager = CallbackManager(callbacks)
        if progress_enabled() and not any(isinstance(cb, ProgressBar)
                                          for cb in manager._callbacks):
            manager._callbacks.append(ProgressBar())
        return manager

    def _params(self, epoch: int, initial_epoch: int, batches: _Batches,
                dataset: Any, sink: bool) -> InternalCallbackParam:
        p = InternalCallbackParam()
        p.train_network, p.network, p.optimizer = self.train_network, self._network, \
            self._optimizer
        p.loss_fn, p.train_dataset, p.mode = self._loss_fn, dataset, "train"
        p.epoch_num, p.initial_epoch, p.batch_num = epoch - initial_epoch, initial_epoch, \
            batches.size
        p.cur_epoch_num, p.cur_step_num = initial_epoch, initial_epoch * batches.size
        p.dataset_sink_mode, p.parallel_mode, p.device_number = sink, "stand_alone", 1
        p.train_dataset_element, p.net_outputs = None, None
        p.last_save_ckpt_step, p.latest_ckpt_file = None, None
        return p

    def train(self, epoch: int, train_dataset: Any, callbacks: Any = None,
              dataset_sink_mode: bool = False, sink_size: int = -1,
              initial_epoch: int = 0) -> None:
        """Epochs ``initial_epoch + 1`` .. ``epoch``, one optimizer step per batch, the
        callbacks' hooks around each step and epoch."""
        self._run_train(epoch, train_dataset, callbacks, dataset_sink_mode, initial_epoch,
                        None)

    def fit(self, epoch: int, train_dataset: Any, valid_dataset: Any = None,
            valid_frequency: Any = 1, callbacks: Any = None, dataset_sink_mode: bool = False,
            valid_dataset_sink_mode: bool = False, sink_size: int = -1,
            initial_epoch: int = 0) -> None:
        """``train``, evaluating ``valid_dataset`` after every ``valid_frequency``-th epoch
        (or the epochs listed); the results reach the callbacks as ``metrics`` and
        ``eval_results`` (with ``eval_loss``)."""
        if isinstance(valid_frequency, bool) or not (
                isinstance(valid_frequency, int) and valid_frequency > 0 or
                isinstance(valid_frequency, list)):
            raise GraphValueError(f"For 'Model.fit', 'valid_frequency' must be a positive int or "
                                  f"a list of epochs, but got {valid_frequency!r}.")
        valid = None if valid_dataset is None else (valid_dataset, valid_frequency)
        self._run_train(epoch, train_dataset, callbacks, dataset_sink_mode, initial_epoch, valid)

    def _run_train(self, epoch: int, dataset: Any, callbacks: Any, sink: bool,
                   initial_epoch: int, valid: Any) -> None:
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch <= 0:
            raise GraphValueError(f"For 'Model.train', the 'epoch' must be int and must > 0, "
                                  f"but got '{epoch}'.")
        if isinstance(initial_epoch, bool) or not isinstance(initial_epoch, int) or \
                not 0 <= initial_epoch < epoch:
            raise GraphValueError(f"For 'Model.train', the 'initial_epoch' must be an int in "
                                  f"[0, epoch), but got {initial_epoch!r}.")
        manager = self._with_progress(callbacks)
        batches = _Batches(dataset, "train", epoch - initial_epoch)
        step = self.train_network
        cb_params = self._params(epoch, initial_epoch, batches, dataset, sink)
        run_context = RunContext(cb_params)
        manager.on_train_begin(run_context)
        for i in range(initial_epoch, epoch):
            cb_params.cur_epoch_num = i + 1
            manager.on_train_epoch_begin(run_context)
            for batch in batches.epoch():
                inputs = _tensors(batch)
                if self._loss_fn is not None and len(inputs) != 2:
                    raise GraphValueError("When 'loss_fn' is not None, 'train_dataset' should "
                                          "return two elements, but got "
                                          f"{len(inputs)}, please check the number of elements "
                                          "returned by 'train_dataset'")
                cb_params.cur_step_num += 1
                cb_params.train_dataset_element = inputs
                manager.on_train_step_begin(run_context)
                step.set_train(True)
                cb_params.net_outputs = step(*inputs)
                manager.on_train_step_end(run_context)
                if run_context.get_stop_requested():
                    break
            if valid is not None and self._should_eval(i + 1, valid[1]):
                self._eval_in_fit(valid[0], callbacks, cb_params)
            manager.on_train_epoch_end(run_context)
            cb_params.pop("metrics", None)
            cb_params.pop("eval_results", None)
            if run_context.get_stop_requested():
                break
        manager.on_train_end(run_context)

    @staticmethod
    def _should_eval(epoch: int, frequency: Any) -> bool:
        return epoch % frequency == 0 if isinstance(frequency, int) else epoch in frequency

    def _eval_in_fit(self, dataset: Any, callbacks: Any, cb_params: Any) -> None:
        saved = {k: cb_params.get(k) for k in ("mode", "cur_step_num", "batch_num",
                                                "net_outputs")}
        metrics, eval_loss = self._evaluate(dataset, _eval_callbacks(callbacks), cb_params)
        cb_params.update(saved)
        cb_params.metrics = metrics
        cb_params.eval_results = dict(metrics, eval_loss=eval_loss)

    # --- evaluation and inference -------------------------------------------------------

    def eval(self, valid_dataset: Any, callbacks: Any = None,
             dataset_sink_mode: bool = False) -> dict[str, Any]:
        """The metrics over ``valid_dataset`` (each batch: inputs..., label)."""
        if not self._metric_fns:
            raise GraphValueError("For 'Model.eval', the model argument 'metrics' can not be "
                                  "None or empty, you should set the argument 'metrics' for "
                                  "model.")
        if self._loss_fn is None and self._eval_network is None:
            raise GraphValueError("For 'Model.eval', the 'loss_fn' or 'eval_network' must be "
                                  "set.")
        cb_params = InternalCallbackParam(network=self._network, valid_dataset=valid_dataset)
        return self._evaluate(valid_dataset, self._with_progress(callbacks)._callbacks,
                              cb_params)[0]

    def _eval_outputs(self, inputs: tuple[Tensor, ...]) -> tuple[Any, ...]:
        """(loss, predicted value, label) with a loss function; the eval network's outputs
        picked by ``eval_indexes`` otherwise."""
        if self._eval_network is not None:
            outputs = self._eval_network(*inputs)
            outputs = outputs if isinstance(outputs, tuple) else (outputs,)
            if self._eval_indexes is None:
                return outputs
            return tuple(outputs[i] for i in self._eval_indexes)
        *data, label = inputs
        logits = self._network(*data)
        return self._loss_fn(logits, label), logits, label

    def _evaluate(self, dataset: Any, callbacks: list[Any],
                  cb_params: Any) -> tuple[dict[str, Any], float | None]:
        manager = CallbackManager(callbacks)
        batches = _Batches(dataset, "eval", 1)
        cb_params.mode, cb_params.cur_step_num, cb_params.batch_num = "eval", 0, batches.size
        cb_params.eval_network = self._eval_network or self._network
        run_context = RunContext(cb_params)
        for metric in self._metric_fns.values():
            metric.clear()
        eval_loss = Loss()
        structured = self._eval_network is None or self._eval_indexes is not None
        manager.on_eval_begin(run_context)
        manager.on_eval_epoch_begin(run_context)
        self._network.set_train(False)
        for batch in batches.epoch():
            inputs = _tensors(batch)
            cb_params.cur_step_num += 1
            cb_params.eval_dataset_element = inputs
            manager.on_eval_step_begin(run_context)
            outputs = self._eval_outputs(inputs)
            cb_params.net_outputs = outputs
            manager.on_eval_step_end(run_context)
            for metric in self._metric_fns.values():
                if not structured:
                    metric.update(*outputs)
                elif isinstance(metric, Loss):
                    metric.update(outputs[0])
                else:
                    metric.update(outputs[1], outputs[2])
            if structured:
                eval_loss.update(outputs[0])
        manager.on_eval_epoch_end(run_context)
        metrics = {name: metric.eval() for name, metric in self._metric_fns.items()}
        cb_params.metrics = metrics
        manager.on_eval_end(run_context)
        return metrics, (eval_loss.eval() if structured and eval_loss._total_num else None)

    def predict(self, *predict_data: Any, backend: Any = None, config: Any = None) -> Any:
        """``network(*predict_data)`` in inference mode."""
        self._network.set_train(False)
        return self._network(*_tensors(predict_data))
