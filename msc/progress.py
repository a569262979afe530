"""One line of progress, rewritten in place on a terminal, for work someone waits for:
Numba compiling a model's kernels under ``msc compile`` or ``msc.wait_for_compiles()``.

Only a terminal sees it (a pipe or a log file gets the final line alone), and
``MSC_PROGRESS=0`` turns it off everywhere (``msc compile --quiet`` prints nothing at all).
"""

from __future__ import annotations

import os
import threading
import time
from typing import Callable, TextIO


def wanted(stream: TextIO) -> bool:
    """Whether a live line goes to ``stream``: a terminal, and not turned off."""
    isatty = getattr(stream, "isatty", None)
    return os.environ.get("MSC_PROGRESS", "1") != "0" and bool(isatty and isatty())


class Ticker:
    """Rewrites ``prefix + text() + elapsed`` on ``stream`` every ``every`` seconds from a
    thread, until ``stop``, which leaves the cursor at the line's start, the line blank."""

    def __init__(self, stream: TextIO, prefix: str, text: Callable[[], str],
                 every: float = 0.5):
        self.stream, self.prefix, self.text, self.every = stream, prefix, text, every
        self.start = time.perf_counter()
        self._done = threading.Event()
        self._width = 0
        self._thread = threading.Thread(target=self._run, daemon=True, name="msc-progress")
        self._thread.start()

    def _run(self) -> None:
        while not self._done.wait(self.every):
            try:
                line = f"{self.prefix}{self.text()}, {time.perf_counter() - self.start:.1f} s"
            except OSError:  # a folder the count reads went away: skip this tick
                continue
            self._write("\r" + line.ljust(self._width))
            self._width = len(line)

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def stop(self) -> None:
        self._done.set()
        self._thread.join()
        if self._width:
            self._write("\r" + " " * self._width + "\r")
