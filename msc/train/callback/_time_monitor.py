"""``mindspore.train.callback._time_monitor``: print how long each epoch and step took."""

from __future__ import annotations

import time
from typing import Any

from msc.train.callback._callback import Callback, RunContext

__all__ = ["TimeMonitor"]


class TimeMonitor(Callback):
    """At each epoch's end: ``Train epoch time: T ms, per step time: S ms`` (with
    ``data_time``, the mean time spent waiting for data per step)."""

    def __init__(self, data_size: Any = None, data_time: bool = False):
        self.data_size = data_size
        self.data_time = data_time
        self.epoch_time = time.time()
        self.data_time_sum = 0.0
        self.data_time_start = 0.0

    def epoch_begin(self, run_context: RunContext) -> None:
        self.epoch_time = time.time()
        self.data_time_sum = 0.0
        self.data_time_start = time.time()

    def on_train_step_begin(self, run_context: RunContext) -> None:
        if self.data_time:
            self.data_time_sum += time.time() - self.data_time_start

    def on_train_step_end(self, run_context: RunContext) -> None:
        if self.data_time:
            self.data_time_start = time.time()

    def epoch_end(self, run_context: RunContext) -> None:
        ms = (time.time() - self.epoch_time) * 1000
        cb_params = run_context.original_args()
        steps = cb_params.get("batch_num") or self.data_size or 1
        line = (f"{cb_params.get('mode', '').title()} epoch time: {ms:5.3f} ms, per step "
                f"time: {ms / steps:5.3f} ms")
        if self.data_time:
            line += f" (data time: {self.data_time_sum * 1000 / steps:5.3f} ms)"
        print(line, flush=True)

    on_eval_epoch_begin = epoch_begin
    on_eval_epoch_end = epoch_end
