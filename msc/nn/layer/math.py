"""The math layers of ``msc.nn``: ``nn.MatMul``, ``nn.Moments``, ``nn.ReduceLogSumExp``,
``nn.DiGamma``, ``nn.LGamma``, ``nn.LBeta``, ``nn.MatrixDiag``, ``nn.MatrixDiagPart``,
``nn.MatrixSetDiag`` and ``nn.Range``, each a call of the functional form.
"""

from __future__ import annotations

from typing import Any

from msc.nn.cell import Cell
from msc.ops import functional as F
import numpy as np

from msc.common.tensor import Tensor, apply
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops.function import array_func as A
from msc.ops.function.manipulation_func import diagonal
from msc.ops.function.scatter_func import diagonal_scatter


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




class DiGamma(Cell):
    """psi(x), the derivative of log Gamma."""

    def construct(self, x: Any) -> Any:
        return apply(Op.Digamma, x)


class LGamma(Cell):
    """log |Gamma(x)|."""

    def construct(self, x: Any) -> Any:
        return apply(Op.Lgamma, x)


class IGamma(Cell):
    """The regularised lower incomplete gamma function P(a, x)."""

    def construct(self, a: Any, x: Any) -> Any:
        return apply(Op.Igamma, a, x)


class LBeta(Cell):
    """log |Beta(x, y)| = lgamma(x) + lgamma(y) - lgamma(x + y)."""

    def construct(self, x: Any, y: Any) -> Any:
        return apply(Op.Lgamma, x) + apply(Op.Lgamma, y) - apply(Op.Lgamma, x + y)


class MatrixDiag(Cell):
    """Square matrices with ``x``'s last axis on their diagonals: (..., n) -> (..., n, n)."""

    def construct(self, x: Any) -> Any:
        n = x.shape[-1]
        return diagonal_scatter(F.zeros(x.shape + (n,), x.dtype), x, 0, -2, -1)


class MatrixDiagPart(Cell):
    """The main diagonals of the last two axes: (..., m, n) -> (..., min(m, n))."""

    def construct(self, x: Any) -> Any:
        return diagonal(x, 0, -2, -1)


class MatrixSetDiag(Cell):
    """``x`` with the main diagonals of its last two axes replaced by ``diagonal``."""

    def construct(self, x: Any, diagonal: Any) -> Any:
        return diagonal_scatter(x, diagonal, 0, -2, -1)


class Range(Cell):
    """``start, start + delta, ...`` below ``limit`` (``Range(n)``: 0 .. n - 1): int32 for
    ints, float32 otherwise, as MindSpore's."""

    def __init__(self, start: Any, limit: Any = None, delta: Any = 1):
        super().__init__()
        if limit is None:
            start, limit = 0, start
        ints = all(isinstance(v, int) for v in (start, limit, delta))
        self.start, self.limit, self.delta = start, limit, delta
        self.values = np.arange(start, limit, delta).astype(np.int32 if ints else np.float32)

    def construct(self) -> Any:
        return Tensor(self.values, dtypes.int32 if self.values.dtype == np.int32
                      else dtypes.float32)


class MatDet(Cell):
    """The determinant of each (symmetric positive definite) matrix of a batch."""

    def construct(self, a: Any) -> Any:
        from msc.ops.function.solve_func import det

        return det(a)


class MatInverse(Cell):
    """The inverse of each (symmetric positive definite) matrix of a batch."""

    def construct(self, a: Any) -> Any:
        from msc.ops.function.solve_func import inverse

        return inverse(a)


__all__ = ["IGamma", "MatDet", "MatInverse", "MatMul", "Moments", "ReduceLogSumExp", "DiGamma",
           "LGamma", "LBeta", "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "Range"]
