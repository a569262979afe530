"""``mindspore.train.callback._callback``: ``Callback`` (hooks ``Model`` calls around
training and evaluation), ``RunContext`` (what a hook sees: ``original_args()`` and
``request_stop()``) and the list that calls every callback's hook in turn."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError

__all__ = ["Callback", "RunContext", "CallbackManager", "InternalCallbackParam", "handle_loss"]


class Callback:
    """Override the hooks you need. The ``on_train_*`` hooks call MindSpore's older names
    (``begin``, ``epoch_begin``, ``epoch_end``, ``step_begin``, ``step_end``, ``end``) by
    default, so a callback may define either; ``on_eval_*`` do nothing by default."""

    def __enter__(self) -> Callback:
        return self

    def __exit__(self, *err: Any) -> None:
        return None

    def begin(self, run_context: RunContext) -> None:
        """Before training."""

    def epoch_begin(self, run_context: RunContext) -> None:
        """Before each epoch."""

    def epoch_end(self, run_context: RunContext) -> None:
        """After each epoch."""

    def step_begin(self, run_context: RunContext) -> None:
        """Before each step."""

    def step_end(self, run_context: RunContext) -> None:
        """After each step."""

    def end(self, run_context: RunContext) -> None:
        """After training."""

    def on_train_begin(self, run_context: RunContext) -> None:
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context: RunContext) -> None:
        self.step_begin(run_context)

    def on_train_step_end(self, run_context: RunContext) -> None:
        self.step_end(run_context)

    def on_train_end(self, run_context: RunContext) -> None:
        self.end(run_context)

    def on_eval_begin(self, run_context: RunContext) -> None:
        """Before evaluation."""

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        """Before the evaluation's pass over the dataset."""

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        """After the evaluation's pass over the dataset."""

    def on_eval_step_begin(self, run_context: RunContext) -> None:
        """Before each evaluation step."""

    def on_eval_step_end(self, run_context: RunContext) -> None:
        """After each evaluation step."""

    def on_eval_end(self, run_context: RunContext) -> None:
        """After evaluation."""


_HOOKS = ("begin", "epoch_begin", "epoch_end", "step_begin", "step_end", "end",
          "on_train_begin", "on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin",
          "on_train_step_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin",
          "on_eval_epoch_end", "on_eval_step_begin", "on_eval_step_end", "on_eval_end")


class CallbackManager(Callback):
    """Calls each hook on every callback, in the order given."""

    def __init__(self, callbacks: Any):
        if callbacks is None:
            callbacks = []
        elif isinstance(callbacks, Callback):
            callbacks = [callbacks]
        elif not isinstance(callbacks, (list, tuple)):
            raise GraphTypeError(f"The 'callbacks' must be a Callback or a list of them, but got "
                                 f"{type(callbacks).__name__}.")
        for cb in callbacks:
            if not isinstance(cb, Callback):
                raise GraphTypeError(f"The 'callbacks' must be Callback objects, but got "
                                     f"{type(cb).__name__}.")
        self._callbacks = list(callbacks)


def _broadcast(name: str) -> Any:
    def hook(self: CallbackManager, run_context: RunContext) -> None:
        for cb in self._callbacks:
            getattr(cb, name)(run_context)

    hook.__name__ = name
    return hook


for _name in _HOOKS:
    setattr(CallbackManager, _name, _broadcast(_name))


class InternalCallbackParam(dict):
    """The fields of a run, readable as attributes (``cb_params.cur_epoch_num``)."""

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = value


class RunContext:
    """What a hook is handed: ``original_args()`` holds the run's fields (``epoch_num``,
    ``batch_num``, ``cur_epoch_num``, ``cur_step_num``, ``net_outputs``, ``train_network``,
    ``optimizer``, ``mode``...); ``request_stop()`` ends training after the current step."""

    def __init__(self, original_args: Any):
        if not isinstance(original_args, dict):
            raise GraphTypeError(f"The argument 'original_args' of RunContext should be dict "
                                 f"type, but got {type(original_args)}.")
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self) -> Any:
        return self._original_args

    def request_stop(self) -> None:
        self._stop_requested = True

    def get_stop_requested(self) -> bool:
        return self._stop_requested


def handle_loss(loss: Any) -> Any:
    """The loss a callback reports: the first output of a tuple, a Tensor's mean as a
    float."""
    if isinstance(loss, (tuple, list)) and loss and hasattr(loss[0], "asnumpy"):
        loss = loss[0]
    if hasattr(loss, "asnumpy"):
        loss = float(np.mean(loss.asnumpy()))
    return loss
