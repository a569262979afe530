"""``mindspore.parallel._utils``: the parallel settings as the model zoo's train cells read
them when they choose a gradient reducer."""

from __future__ import annotations

from msc import context


def _get_parallel_mode() -> str:
    return context.get_auto_parallel_context("parallel_mode")


def _get_gradients_mean() -> bool:
    return context.get_auto_parallel_context("gradients_mean")


def _get_device_num() -> int:
    return context.get_auto_parallel_context("device_num")


def _get_global_rank() -> int:
    return context.get_auto_parallel_context("global_rank")
