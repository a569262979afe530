"""msc's progress display for ``Model.train`` and ``Model.eval`` (not a MindSpore name).

On a terminal, a bar on stderr redrawn in place: epoch, step/total, loss, throughput. When
stderr is not a terminal (a log file, CI), one plain line per epoch instead. ``Model`` adds
one unless the callbacks hold a ``ProgressBar`` already or ``MSC_PROGRESS=0`` is set;
``ProgressBar(enabled=False)`` in the callbacks turns it off for one call.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, TextIO

from msc.train.callback._callback import Callback, RunContext, handle_loss

__all__ = ["ProgressBar", "progress_enabled"]

_WIDTH = 24


def progress_enabled() -> bool:
    """False when the environment says ``MSC_PROGRESS=0`` (or off/false/no)."""
    return os.environ.get("MSC_PROGRESS", "1").strip().lower() not in ("0", "off", "false", "no")


def _batch_size(element: Any) -> int:
    first = element[0] if isinstance(element, (tuple, list)) and element else element
    shape = getattr(first, "shape", ())
    return int(shape[0]) if len(shape) else 1


class ProgressBar(Callback):
    def __init__(self, enabled: bool = True, stream: TextIO | None = None,
                 interval: float = 0.1):
        self.enabled = enabled
        self.stream = stream
        self.interval = interval
        self._start = self._drawn = 0.0
        self._steps = self._samples = 0
        self._loss: Any = None

    @property
    def _out(self) -> TextIO:
        return self.stream if self.stream is not None else sys.stderr

    def _tty(self) -> bool:
        isatty = getattr(self._out, "isatty", None)
        return bool(isatty and isatty())

    def _begin(self) -> None:
        self._start, self._drawn = time.perf_counter(), 0.0
        self._steps = self._samples = 0
        self._loss = None

    def _rate(self) -> str:
        seconds = max(time.perf_counter() - self._start, 1e-9)
        return f"{self._samples / seconds:.1f} samples/s"

    def _draw(self, label: str, total: Any, final: bool) -> None:
        now = time.perf_counter()
        if not final and now - self._drawn < self.interval:
            return
        self._drawn = now
        loss = "" if self._loss is None else f"  loss {self._loss:.4f}"
        if isinstance(total, int) and total > 0:
            done = int(_WIDTH * min(self._steps, total) / total)
            bar = "=" * done + (">" if done < _WIDTH else "") + " " * (_WIDTH - done - 1)
            where = f"{self._steps}/{total} [{bar[:_WIDTH]}]"
        else:
            where = f"{self._steps} steps"
        self._out.write(f"\r{label}  {where}{loss}  {self._rate()}\x1b[K")
        if final:
            self._out.write("\n")
        self._out.flush()

    def _step(self, cb_params: Any, element_key: str) -> None:
        self._steps += 1
        self._samples += _batch_size(cb_params.get(element_key))
        loss = handle_loss(cb_params.get("net_outputs"))
        if isinstance(loss, float):
            self._loss = loss

    # --- training -------------------------------------------------------------------------

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        self._begin()

    def on_train_step_end(self, run_context: RunContext) -> None:
        if not self.enabled:
            return
        cb_params = run_context.original_args()
        self._step(cb_params, "train_dataset_element")
        if self._tty():
            self._draw(self._epoch_label(cb_params), cb_params.get("batch_num"), False)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        if not self.enabled:
            return
        cb_params = run_context.original_args()
        label = self._epoch_label(cb_params)
        if self._tty():
            self._draw(label, cb_params.get("batch_num"), True)
            return
        loss = "" if self._loss is None else f", loss {self._loss:.4f}"
        seconds = time.perf_counter() - self._start
        self._out.write(f"{label}: {self._steps} steps{loss}, {self._rate()}, "
                        f"{seconds:.2f} s\n")
        self._out.flush()

    @staticmethod
    def _epoch_label(cb_params: Any) -> str:
        last = cb_params.get("epoch_num", 0) + cb_params.get("initial_epoch", 0)
        return f"epoch {cb_params.get('cur_epoch_num', 1)}/{last}"

    # --- evaluation -----------------------------------------------------------------------

    def on_eval_begin(self, run_context: RunContext) -> None:
        self._begin()

    def on_eval_step_end(self, run_context: RunContext) -> None:
        if not self.enabled:
            return
        self._step(run_context.original_args(), "eval_dataset_element")
        if self._tty():
            self._draw("eval", run_context.original_args().get("batch_num"), False)

    def on_eval_end(self, run_context: RunContext) -> None:
        if not self.enabled:
            return
        if self._tty():
            self._draw("eval", run_context.original_args().get("batch_num"), True)
            return
        self._out.write(f"eval: {self._steps} steps, {self._rate()}\n")
        self._out.flush()
