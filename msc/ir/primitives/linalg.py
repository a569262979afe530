"""Contractions: MatMul (2-D), BatchMatMul (batch dims broadcast) and Dense (x @ w.T + b).

Operands compute in their promoted dtype. An inner-dimension mismatch raises
``MatmulShapeError``, which is both the RuntimeError MindSpore raises and a ValueError.
``cost`` is flops per output element, 2*K, which depends on shapes; the table holds a
nominal 64 so cost models never mistake a contraction for a cheap elementwise op.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import MatmulShapeError, ShapeError
from msc.ir.primitives.base import (
    Primitive,
    broadcast_shapes,
    operand_dtype,
    register,
    want_bool,
    want_tensor,
)
from msc.ir.types import TensorType, Type, type_of_value

_CONTRACTION_COST = 64.0


def _check_inner(k1: int, k2: int, left: str = "x1_col", right: str = "x2_row") -> None:
    if k1 != k2:
        raise MatmulShapeError(
            f"the input dimensions must be equal, but got '{left}': {k1} and '{right}': {k2}")


def _matrix_dims(shape: tuple[int, ...], transpose: bool) -> tuple[int, int]:
    rows, cols = shape[-2], shape[-1]
    return (cols, rows) if transpose else (rows, cols)


def _matmul_infer(x: Type, y: Type, transpose_a: bool = False,
                  transpose_b: bool = False) -> Type:
    a, b = want_tensor(x, "x"), want_tensor(y, "y")
    if a.ndim != 2 or b.ndim != 2:
        raise ShapeError(f"the inputs must be 2-D, but got shapes {a.shape} and {b.shape} "
                         "(use ops.matmul or BatchMatMul for other ranks)")
    m, k1 = _matrix_dims(a.shape, want_bool(transpose_a, "transpose_a"))
    k2, n = _matrix_dims(b.shape, want_bool(transpose_b, "transpose_b"))
    _check_inner(k1, k2)
    return TensorType(operand_dtype((x, y)), (m, n))


def _batch_matmul_infer(x: Type, y: Type, transpose_a: bool = False,
                        transpose_b: bool = False) -> Type:
    a, b = want_tensor(x, "x"), want_tensor(y, "y")
    if a.ndim < 2 or b.ndim < 2:
        raise ShapeError(f"the inputs must be at least 2-D, but got shapes {a.shape} "
                         f"and {b.shape}")
    m, k1 = _matrix_dims(a.shape, want_bool(transpose_a, "transpose_a"))
    k2, n = _matrix_dims(b.shape, want_bool(transpose_b, "transpose_b"))
    _check_inner(k1, k2)
    try:
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ShapeError:
        raise ShapeError(f"the batch dimensions {a.shape[:-2]} and {b.shape[:-2]} cannot "
                         "broadcast") from None
    return TensorType(operand_dtype((x, y)), batch + (m, n))


def _matmul_impl(x: Any, y: Any, transpose_a: bool = False, transpose_b: bool = False) -> Any:
    dt = operand_dtype((type_of_value(x), type_of_value(y))).np
    a, b = np.asarray(x, dtype=dt), np.asarray(y, dtype=dt)
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


matmul = register(Primitive("MatMul", _matmul_infer, _matmul_impl, cost=_CONTRACTION_COST))
batch_matmul = register(Primitive("BatchMatMul", _batch_matmul_infer, _matmul_impl,
                                  cost=_CONTRACTION_COST))


# --- Dense ----------------------------------------------------------------------------


def _dense_infer(x: Type, w: Type, b: Type | None = None) -> Type:
    """x: (*, in); w: (out, in) or (in,); b: (out,) or a 0-d tensor."""
    xt, wt = want_tensor(x, "x"), want_tensor(w, "w")
    if xt.ndim < 1 or wt.ndim not in (1, 2):
        raise ShapeError(f"x must be at least 1-D and w 1-D or 2-D, but got shapes "
                         f"{xt.shape} and {wt.shape}")
    _check_inner(xt.shape[-1], wt.shape[-1], "x_col", "w_col")
    out = xt.shape[:-1] + wt.shape[:-1]
    types: tuple[Type, ...] = (x, w)
    if b is not None:
        bt = want_tensor(b, "b")
        if bt.shape not in ((), wt.shape[:-1]):
            raise ShapeError(f"b must have shape {wt.shape[:-1]} (the output features), "
                             f"but got {bt.shape}")
        types = (x, w, b)
    return TensorType(operand_dtype(types), out)


def _dense_impl(x: Any, w: Any, b: Any = None) -> Any:
    values = (x, w) if b is None else (x, w, b)
    dt = operand_dtype(tuple(type_of_value(v) for v in values)).np
    out = np.matmul(np.asarray(x, dtype=dt), np.asarray(w, dtype=dt).T)
    return out if b is None else out + np.asarray(b, dtype=dt)


dense = register(Primitive("Dense", _dense_infer, _dense_impl, cost=_CONTRACTION_COST))
