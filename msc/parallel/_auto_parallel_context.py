"""``mindspore.parallel._auto_parallel_context``: ``auto_parallel_context()``, the object
behind ``get_auto_parallel_context``, for the train cells that ask it whether
``device_num`` was set."""

from __future__ import annotations

from typing import Any

from msc import context


class _AutoParallelContext:
    """A view of msc's auto-parallel settings (``msc.context``)."""

    def get_parallel_mode(self) -> str:
        return context.get_auto_parallel_context("parallel_mode")

    def get_gradients_mean(self) -> bool:
        return context.get_auto_parallel_context("gradients_mean")

    def get_device_num(self) -> int:
        return context.get_auto_parallel_context("device_num")

    def get_device_num_is_set(self) -> bool:
        return context._parallel["device_num"] is not None

    def get_global_rank(self) -> int:
        return context.get_auto_parallel_context("global_rank")

    def reset(self) -> None:
        context.reset_auto_parallel_context()

    def set_parallel_mode(self, mode: Any) -> None:
        context.set_auto_parallel_context(parallel_mode=mode)


_CONTEXT = _AutoParallelContext()


def auto_parallel_context() -> _AutoParallelContext:
    return _CONTEXT
