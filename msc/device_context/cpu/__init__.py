"""``mindspore.device_context.cpu``: the CPU's availability and its kernels' threads."""

from msc.device_context.cpu.device import device_count, is_available
from msc.device_context.cpu.op_tuning import threads_num

__all__ = ["device_count", "is_available", "threads_num"]
