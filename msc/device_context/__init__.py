"""``mindspore.device_context``: per-device settings. msc runs on the CPU (``cpu``); the
CUDA target is chosen with ``set_context(device_target="GPU")``."""

from msc.device_context import cpu

__all__ = ["cpu"]
