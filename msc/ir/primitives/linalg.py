"""Contractions: MatMul (2-D), BatchMatMul (batch dims broadcast) and Dense (x @ w.T + b).

Operands compute in their promoted dtype. An inner-dimension mismatch raises
``MatmulShapeError``, which is both the RuntimeError MindSpore raises and a ValueError.
``cost`` is flops per output element, 2*K, which depends on shapes; the table holds a
nominal 64 so cost models never mistake a contraction for a cheap elementwise op.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.errors import MatmulShapeError, ShapeError
from msc.ir.primitives.base import (
    PRIMITIVES,
    Primitive,
    broadcast_shapes,
    operand_dtype,
    register,
    want_bool,
    want_tensor,
)
from msc.ir.primitives.emitting import cast_to, in_type, out_type, reshape
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


# --- code generation ---------------------------------------------------------------------


def _operands(a: list[str], node: Any) -> list[str]:
    want = out_type(node).dtype
    return [cast_to(x, in_type(node, i).dtype, want) for i, x in enumerate(a)]


def _matmul_helper(node: Any) -> str:
    return "_rt_matmul" if out_type(node).dtype.is_float else "_rt_matmul_int"


def _emit_matmul(a: list[str], node: Any, target: str) -> str:
    x, y = _operands(a, node)
    if node.attr.get("transpose_a"):
        x = f"np.transpose({x})"
    if node.attr.get("transpose_b"):
        y = f"np.transpose({y})"
    return f"{_matmul_helper(node)}({x}, {y})"


def _emit_batch_matmul(a: list[str], node: Any, target: str) -> str:
    """Batch dims are broadcast and flattened, so the kernel sees (B, m, k) @ (B, k, n)."""
    x, y = _operands(a, node)
    xt, yt, out = in_type(node, 0), in_type(node, 1), out_type(node)
    swap = {0: node.attr.get("transpose_a"), 1: node.attr.get("transpose_b")}
    batch, (m, n) = out.shape[:-2], out.shape[-2:]
    count = math.prod(batch)
    parts = []
    for i, (src, t) in enumerate(((x, xt), (y, yt))):
        if swap[i]:
            perm = tuple(range(t.ndim - 2)) + (t.ndim - 1, t.ndim - 2)
            src = f"np.transpose({src}, {perm!r})"
        rows = t.shape[-1] if swap[i] else t.shape[-2]
        cols = t.shape[-2] if swap[i] else t.shape[-1]
        full = f"np.broadcast_to({src}, {batch + (rows, cols)!r})"
        parts.append(reshape(full, (count, rows, cols)))
    helper = "_rt_bmm" if out.dtype.is_float else "_rt_matmul_int"
    if not out.dtype.is_float:
        return f"np.matmul({parts[0]}, {parts[1]}).reshape({out.shape!r})"
    return f"{helper}({parts[0]}, {parts[1]}).reshape({(*batch, m, n)!r})"


def _emit_dense(a: list[str], node: Any, target: str) -> str:
    ops = _operands(a, node)
    x, w, out = in_type(node, 0), in_type(node, 1), out_type(node)
    rows = reshape(ops[0], (math.prod(x.shape[:-1]), x.shape[-1]))
    weight = f"np.transpose({ops[1]})" if w.ndim == 2 else reshape(ops[1], (w.shape[0], 1))
    body = f"{_matmul_helper(node)}({rows}, {weight})"
    if len(ops) == 3:
        body = f"({body} + {ops[2]})"
    return f"{body}.reshape({out.shape!r})"


PRIMITIVES["MatMul"].emit["array"] = _emit_matmul
PRIMITIVES["BatchMatMul"].emit["array"] = _emit_batch_matmul
PRIMITIVES["Dense"].emit["array"] = _emit_dense
