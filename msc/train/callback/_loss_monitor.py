"""``mindspore.train.callback._loss_monitor``: print the loss every few steps."""

from __future__ import annotations

import numpy as np

from msc.errors import GraphTypeError, GraphValueError
from msc.train.callback._callback import Callback, RunContext, handle_loss

__all__ = ["LossMonitor"]


class LossMonitor(Callback):
    """Prints ``epoch: E step: S, loss is L`` every ``per_print_times`` steps (0: never), S
    counted within the epoch; a NaN or infinite loss stops training with ValueError."""

    def __init__(self, per_print_times: int = 1):
        if isinstance(per_print_times, bool) or not isinstance(per_print_times, int):
            raise GraphTypeError(f"The argument 'per_print_times' must be int, but got "
                                 f"{type(per_print_times).__name__}.")
        if per_print_times < 0:
            raise GraphValueError(f"The argument 'per_print_times' must be non-negative, but got "
                                  f"{per_print_times}.")
        self._per_print_times = per_print_times
        self._last_print_time = 0

    def step_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        epoch = cb_params.get("cur_epoch_num", 1)
        loss = handle_loss(cb_params.net_outputs)
        step = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
        if isinstance(loss, float) and (np.isnan(loss) or np.isinf(loss)):
            raise GraphValueError(f"In epoch: {epoch} step: {step}, loss is NAN or INF, training "
                                  "process cannot continue, terminating training.")
        every = self._per_print_times
        if every and cb_params.cur_step_num <= self._last_print_time:
            self._last_print_time = 0  # a new run with the same monitor
        if every and cb_params.cur_step_num - self._last_print_time >= every:
            self._last_print_time = cb_params.cur_step_num
            print(f"epoch: {epoch} step: {step}, loss is {loss}", flush=True)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        metrics = run_context.original_args().get("metrics")
        if metrics:
            print(f"Eval result: epoch {run_context.original_args().cur_epoch_num}, metrics: "
                  f"{metrics}")
