"""The math layers of ``msc.nn``: ``nn.MatMul``, ``nn.Moments`` and
``nn.ReduceLogSumExp``, each a call of the functional form.
"""

from __future__ import annotations

from typing import Any

from msc.nn.cell import Cell
from msc.ops import functional as F
from msc.ops.function import array_func as A


class MatMul(Cell):
    """``x1 @ x2`` with either operand's last two dims swapped first."""

    def __init__(self, transpose_x1: bool = False, transpose_x2: bool = False):
        super().__init__()
        self.transpose_x1, self.transpose_x2 = transpose_x1, transpose_x2

    def construct(self, x1: Any, x2: Any) -> Any:
        if self.transpose_x1:
            x1 = A.swapaxes(x1, -1, -2)
        if self.transpose_x2:
            x2 = A.swapaxes(x2, -1, -2)
        return F.matmul(x1, x2)


class Moments(Cell):
    """(mean, population variance) over ``axis``."""

    def __init__(self, axis: Any = None, keep_dims: bool | None = None):
        super().__init__()
        self.axis, self.keep_dims = axis, bool(keep_dims)

    def construct(self, x: Any) -> tuple[Any, Any]:
        mean = F.mean(x, self.axis, True)
        variance = F.mean(F.square(x - mean), self.axis, self.keep_dims)
        return (mean if self.keep_dims else F.mean(x, self.axis, False)), variance


class ReduceLogSumExp(Cell):
    def __init__(self, axis: Any, keep_dims: bool = False):
        super().__init__()
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x: Any) -> Any:
        return F.logsumexp(x, self.axis, self.keep_dims)


__all__ = ["MatMul", "Moments", "ReduceLogSumExp"]
