"""Determinants, inverses, linear solves and the Cholesky factorisation of small batched
square matrices, composed of the table's ops: Gauss-Jordan elimination with partial
pivoting (``det``, ``slogdet``, ``inverse``, ``matrix_solve``) and the column-by-column
Cholesky factorisation with triangular substitution (``cholesky``, ``cholesky_solve``,
``cholesky_inverse``). The size ``n`` is static, so each is ``n`` steps of gathers,
selects and products: it runs eagerly and in graphs on every target, with gradients
through those ops (a pivot choice is constant almost everywhere). A singular matrix has
determinant 0 and an inverse of infs and nans, as division gives them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Tensor, apply
from msc.errors import GraphTypeError
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor
from msc.ops.function.manipulation_func import _fail


def _square(x: Any, op: str) -> Tensor:
    t = _as_tensor(x, op)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        _fail(op, f"the input must be a batch of square matrices (..., n, n), but got "
                  f"{t.shape}.")
    if not t.dtype.is_float:
        _fail(op, f"the input must be a float Tensor, but got {t.dtype}.", GraphTypeError)
    return t


def _eliminate(m: Any, n: int) -> tuple[Any, Any]:
    """Gauss-Jordan on the rows of ``m`` (..., n, w), pivoting on the largest entry of
    each column: (the reduced matrix, whose first n columns are diagonal, holding the
    pivots; the sign of the row permutation)."""
    batch = m.shape[:-2]
    rows = Tensor(np.arange(n, dtype=np.int64).reshape((1,) * len(batch) + (n,)))
    sign = F.ones(batch, m.dtype)
    for k in range(n):
        p = F.argmax(apply(Op.Abs, m[..., k:, k]), -1, True) + k  # (..., 1)
        order = F.select(rows == k, F.broadcast_to(p, batch + (n,)),
                         F.select(rows == p, F.full(batch + (n,), k, dtype=p.dtype),
                                  F.broadcast_to(rows, batch + (n,))))
        m = A.gather_elements(m, m.ndim - 2, F.broadcast_to(F.expand_dims(order, -1), m.shape))
        sign = sign * F.select(F.squeeze(p, -1) == k, F.ones(batch, m.dtype),
                               F.full(batch, -1, dtype=m.dtype))
        pivot = m[..., k:k + 1, k:k + 1]
        safe = F.select(pivot == 0, F.ones(pivot.shape, m.dtype), pivot)
        other = Tensor((np.arange(n) != k).astype(m.dtype.np).reshape(n, 1))
        m = m - other * (m[..., :, k:k + 1] / safe) * m[..., k:k + 1, :]
    return m, sign


def det(input: Any) -> Any:  # noqa: A002
    """The determinant of each matrix of a batch (..., n, n)."""
    x = _square(input, "MatrixDeterminant")
    reduced, sign = _eliminate(x, x.shape[-1])
    return sign * F.prod(_diagonal(reduced), -1)


def _diagonal(m: Any) -> Any:
    n = m.shape[-2]
    return F.stack([m[..., i, i] for i in range(n)], -1)


def slogdet(input: Any) -> tuple[Any, Any]:  # noqa: A002
    """(the determinant's sign, the log of its absolute value) of each matrix."""
    x = _square(input, "LogMatrixDeterminant")
    reduced, sign = _eliminate(x, x.shape[-1])
    d = _diagonal(reduced)
    return sign * F.prod(apply(Op.Sign, d), -1), F.sum(apply(Op.Log, apply(Op.Abs, d)), -1)


def logdet(input: Any) -> Any:  # noqa: A002
    """log(det): nan for a negative determinant, -inf for 0."""
    return apply(Op.Log, det(input))


def matrix_solve(matrix: Any, rhs: Any, adjoint: bool = False) -> Any:
    """X with ``matrix @ X == rhs`` (``matrix`` transposed first with ``adjoint``)."""
    a = _square(matrix, "MatrixSolve")
    b = _as_tensor(rhs, "MatrixSolve")
    if adjoint:
        a = A.swapaxes(a, -1, -2)
    n = a.shape[-1]
    if b.shape[-2] != n:
        _fail("MatrixSolve", f"'rhs' must have {n} rows, but got shape {b.shape}.")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    joined = F.concat([F.broadcast_to(a, batch + a.shape[-2:]),
                       F.broadcast_to(F.cast(b, a.dtype), batch + b.shape[-2:])], -1)
    reduced, _ = _eliminate(joined, n)
    return reduced[..., n:] / F.expand_dims(_diagonal(reduced), -1)


def inverse(input: Any) -> Any:  # noqa: A002
    """The inverse of each matrix of a batch."""
    x = _square(input, "MatrixInverse")
    n = x.shape[-1]
    return matrix_solve(x, Tensor(np.eye(n, dtype=x.dtype.np)) if x.ndim == 2 else
                        F.broadcast_to(Tensor(np.eye(n, dtype=x.dtype.np)), x.shape))


def cholesky(input_x: Any, upper: bool = False) -> Any:
    """L with L @ L^T == input_x (lower; U = L^T with ``upper``), column by column."""
    a = _square(input_x, "Cholesky")
    n = a.shape[-1]
    rows = Tensor(np.arange(n, dtype=np.int64))
    cols: list[Any] = []
    for j in range(n):
        s = a[..., :, j]
        for c in cols:
            s = s - c * c[..., j:j + 1]
        d = F.sqrt(s[..., j:j + 1])
        cols.append(F.select(rows > j, s / d, F.select(rows == j, F.broadcast_to(d, s.shape),
                                                      F.zeros(s.shape, s.dtype))))
    low = F.stack(cols, -1)
    return A.swapaxes(low, -1, -2) if upper else low


def _substitute(tri: Any, b: Any, lower: bool) -> Any:
    """X with ``tri @ X == b`` for a triangular ``tri`` (..., n, n) and b (..., n, m)."""
    n = tri.shape[-1]
    found: dict[int, Any] = {}
    order = range(n) if lower else range(n - 1, -1, -1)
    for i in order:
        acc = b[..., i:i + 1, :]
        for j, xj in found.items():
            acc = acc - tri[..., i:i + 1, j:j + 1] * xj
        found[i] = acc / tri[..., i:i + 1, i:i + 1]
    return F.concat([found[i] for i in range(n)], -2)


def cholesky_solve(input: Any, input2: Any, upper: bool = False) -> Any:  # noqa: A002
    """X with (L L^T) X == input, ``input2`` the Cholesky factor L (U with ``upper``)."""
    b = _as_tensor(input, "CholeskySolve")
    factor = _square(input2, "CholeskySolve")
    low = A.swapaxes(factor, -1, -2) if upper else factor
    y = _substitute(low, F.cast(b, factor.dtype), True)
    return _substitute(A.swapaxes(low, -1, -2), y, False)


def cholesky_inverse(input_x: Any, upper: bool = False) -> Any:
    """The inverse of L L^T (U^T U with ``upper``) from its Cholesky factor."""
    factor = _square(input_x, "CholeskyInverse")
    eye = Tensor(np.eye(factor.shape[-1], dtype=factor.dtype.np))
    return cholesky_solve(F.broadcast_to(eye, factor.shape), factor, upper)


def matrix_determinant(input: Any) -> Any:  # noqa: A002
    return det(input)


def log_matrix_determinant(input: Any) -> tuple[Any, Any]:  # noqa: A002
    return slogdet(input)


METHODS = {
    "det": lambda self: det(self), "logdet": lambda self: logdet(self),
    "slogdet": lambda self: slogdet(self), "inverse": lambda self: inverse(self),
    "matrix_determinant": lambda self: det(self),
    "log_matrix_determinant": lambda self: slogdet(self),
    "cholesky": lambda self, upper=False: cholesky(self, upper),
    "cholesky_solve": lambda self, input2, upper=False: cholesky_solve(self, input2, upper),
    "cholesky_inverse": lambda self, upper=False: cholesky_inverse(self, upper),
}

__all__ = ["det", "slogdet", "logdet", "matrix_solve", "inverse", "cholesky", "cholesky_solve",
           "cholesky_inverse", "matrix_determinant", "log_matrix_determinant"]
