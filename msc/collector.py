"""Pauses of Python's cyclic garbage collector while msc compiles.

A compile makes many short-lived objects, and once Numba has filled the process with its
own, a full collection in the middle of one costs about 50 ms, more than the rest of a
small graph's first call. The numba tier's thread pauses it too, though the program runs
meanwhile (reference counting still frees all but cycles): there the collections doubled
code generation (ResNet-18's training step: 1.6 -> 0.8 s). The switch is process-wide, so
pauses that threads overlap count: the last one's end turns the collector back on.
"""

from __future__ import annotations

import functools
import gc
import threading
from typing import Any


class _GcPause:
    """The first pause turns the collector off (where it was on), the last one's end
    turns it back on."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.was_on = False

    def __enter__(self) -> None:
        with self.lock:
            if self.depth == 0:
                self.was_on = gc.isenabled()
                gc.disable()
            self.depth += 1

    def __exit__(self, *exc: Any) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth == 0 and self.was_on:
                gc.enable()


GC_PAUSE = _GcPause()


def gc_paused(fn: Any) -> Any:
    """``fn`` with the cyclic garbage collector paused while it runs."""
    @functools.wraps(fn)
    def paused(*args: Any, **kwargs: Any) -> Any:
        with GC_PAUSE:
            return fn(*args, **kwargs)
    return paused
