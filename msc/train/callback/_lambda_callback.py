"""``mindspore.train.callback._lambda_callback``: a callback made of plain functions."""

from __future__ import annotations

from typing import Any

from msc.train.callback._callback import Callback

__all__ = ["LambdaCallback"]

_NAMES = ("on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin",
          "on_train_step_end", "on_train_begin", "on_train_end", "on_eval_epoch_begin",
          "on_eval_epoch_end", "on_eval_step_begin", "on_eval_step_end", "on_eval_begin",
          "on_eval_end")


class LambdaCallback(Callback):
    """Each keyword is a function of ``run_context`` run at that hook."""

    def __init__(self, on_train_epoch_begin: Any = None, on_train_epoch_end: Any = None,
                 on_train_step_begin: Any = None, on_train_step_end: Any = None,
                 on_train_begin: Any = None, on_train_end: Any = None,
                 on_eval_epoch_begin: Any = None, on_eval_epoch_end: Any = None,
                 on_eval_step_begin: Any = None, on_eval_step_end: Any = None,
                 on_eval_begin: Any = None, on_eval_end: Any = None):
        given = locals()
        for name in _NAMES:
            fn = given[name]
            setattr(self, name, fn if fn is not None else (lambda run_context: None))
