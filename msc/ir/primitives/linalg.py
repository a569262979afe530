"""Contractions: MatMul (2-D), BatchMatMul (batch dims broadcast) and Dense (x @ w.T + b).

Operands compute in their promoted dtype. An inner-dimension mismatch raises
``MatmulShapeError``, which is both the RuntimeError MindSpore raises and a ValueError.
``cost`` is flops per output element, 2*K, which depends on shapes; the table holds a
nominal 64 so cost models never mistake a contraction for a cheap elementwise op.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from msc.errors import MatmulShapeError, ShapeError
from msc.ir import dtypes
from msc.ir.primitives.base import (
    ArrayExpr,
    Attr,
    LoopNest,
    Primitive,
    broadcast_shapes,
    operand_dtype,
    register,
    want_bool,
    want_tensor,
)
from msc.ir.kernel import (
    Accumulate,
    Assign,
    BinaryOp,
    Call,
    Cast,
    Eval,
    Expr,
    Fn,
    Helper,
    Lit,
    Loop,
    Name,
    Role,
    Stmt,
    Store,
    astype,
    contiguous,
    empty,
    ne,
    reshape,
)
from msc.ir.primitives import cuda_lowering
from msc.ir.primitives.emitting import Loops, in_type, out_type
from msc.ir.primitives.rules import (
    aligned,
    batch_elementwise,
    batch_size,
    batched_front,
    cotangent,
    example_ndim,
    is_float_tensor,
    move_to_front,
)
from msc.ir.types import TensorType, Type, tensor_of, type_of_value

_CONTRACTION_COST = 64.0


def _check_inner(k1: int, k2: int, left: str = "x1_col", right: str = "x2_row") -> None:
    if k1 != k2:
        raise MatmulShapeError(
            f"the input dimensions must be equal, but got '{left}': {k1} and '{right}': {k2}")


def _matrix_dims(shape: tuple[int, ...], transpose: bool) -> tuple[int, int]:
    rows, cols = shape[-2], shape[-1]
    return (cols, rows) if transpose else (rows, cols)


def _matmul_infer(x: Type, y: Type, *, transpose_a: bool, transpose_b: bool) -> Type:
    a, b = want_tensor(x, "x"), want_tensor(y, "y")
    if a.ndim != 2 or b.ndim != 2:
        raise ShapeError(f"the inputs must be 2-D, but got shapes {a.shape} and {b.shape} "
                         "(use ops.matmul or BatchMatMul for other ranks)")
    m, k1 = _matrix_dims(a.shape, want_bool(transpose_a, "transpose_a"))
    k2, n = _matrix_dims(b.shape, want_bool(transpose_b, "transpose_b"))
    _check_inner(k1, k2)
    return TensorType(operand_dtype((x, y)), (m, n))


def _batch_matmul_infer(x: Type, y: Type, *, transpose_a: bool, transpose_b: bool) -> Type:
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


def _matmul_impl(x: Any, y: Any, *, transpose_a: bool, transpose_b: bool) -> Any:
    dt = operand_dtype((type_of_value(x), type_of_value(y))).np
    a, b = np.asarray(x, dtype=dt), np.asarray(y, dtype=dt)
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


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


# --- code generation ---------------------------------------------------------------------
# Float contractions are BLAS gemm calls: the numba target's ``_rt_matmul*`` helpers call
# the OpenBLAS numpy bundles (msc/runtime/numba_rt.py), reading transposed operands in
# place. Integer and bool ones have no BLAS: the numba target writes them as loop nests
# that read transposed and broadcast operands by index; the python target uses np.matmul.


def _operands(a: list[Expr], node: Any) -> list[Expr]:
    """Operands in the output dtype; bool contractions count in int64 (see ``_to_bool``)."""
    want = out_type(node).dtype
    compute = dtypes.int64 if want == dtypes.bool_ else want
    return [x if in_type(node, i).dtype == compute else astype(x, compute)
            for i, x in enumerate(a)]


def _to_bool(body: Expr, node: Any) -> Expr:
    """A bool product (or sum with a bias) is true where any term is, as numpy's is."""
    return ne(body, 0) if out_type(node).dtype == dtypes.bool_ else body


def _t(x: Expr) -> Expr:
    """``x.T``: a matrix transposed (a view)."""
    return Call(Fn.ATTR_T, (x,))


def _emit_matmul(a: list[Expr], node: Any) -> Expr:
    x, y = _operands(a, node)
    if node.attr["transpose_a"]:
        x = _t(x)
    if node.attr["transpose_b"]:
        y = _t(y)
    return _to_bool(Helper("_rt_matmul", (x, y)), node)


def _emit_batch_matmul(a: list[Expr], node: Any) -> Expr:
    x, y = _operands(a, node)
    if node.attr["transpose_a"]:
        x = Call(Fn.SWAPAXES, (x, Lit(-1), Lit(-2)))
    if node.attr["transpose_b"]:
        y = Call(Fn.SWAPAXES, (y, Lit(-1), Lit(-2)))
    return _to_bool(Call(Fn.MATMUL, (x, y)), node)


def _emit_dense(a: list[Expr], node: Any, in_place_bias: bool = False) -> Expr:
    """``in_place_bias``: a bias per output feature is added into the product's array
    (``_rt_matmul_bias``) instead of into a new one; the sums are the same."""
    ops = _operands(a, node)
    x, w, out = in_type(node, 0), in_type(node, 1), out_type(node)
    rows = ops[0] if x.ndim == 2 else \
        reshape(contiguous(ops[0]), (math.prod(x.shape[:-1]), x.shape[-1]))
    weight = _t(ops[1]) if w.ndim == 2 else reshape(contiguous(ops[1]), (w.shape[0], 1))
    body: Expr = Helper("_rt_matmul", (rows, weight))
    if len(ops) == 3 and in_place_bias and w.ndim == 2 and in_type(node, 2).ndim == 1:
        body = Helper("_rt_matmul_bias", (rows, weight, ops[2]))
    elif len(ops) == 3:
        body = body + ops[2]
    body = _to_bool(body, node)
    return body if (x.ndim, w.ndim) == (2, 2) else reshape(body, out.shape)


def _emit_dense_numba(a: list[Expr], node: Any) -> Expr:
    return _emit_dense(a, node, in_place_bias=True)


def _batch_index(t: TensorType, batch: tuple[int, ...],
                 names: dict[int, str]) -> tuple[Expr, ...]:
    """The index of ``t``'s batch dims for the output batch position ``names`` (0 on a
    dim ``t`` broadcasts)."""
    lead = len(batch) - (t.ndim - 2)
    return tuple(Lit(0) if d == 1 and batch[lead + e] != 1 else Name(names[lead + e])
                 for e, d in enumerate(t.shape[:-2]))


def _matrix(x: Expr, at: tuple[Expr, ...], have: Any, want: Any, swap: bool) -> Expr:
    """Operand ``x``'s matrix at batch index ``at``, in dtype ``want``, transposed if
    ``swap`` (a view: BLAS reads it in place)."""
    m = x[at] if at else x
    m = m if have == want else astype(m, want)
    return _t(m) if swap else m


def _loops_batch_matmul(a: list[Expr], node: Any, out: str, fresh: Any) -> list[Stmt]:
    """A loop over the batch; each step one gemm (floats) or an integer loop nest."""
    xt, yt, o = in_type(node, 0), in_type(node, 1), out_type(node)
    batch = o.shape[:-2]
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    names = loops.open(o.shape, range(len(batch)), "b", role=Role.PARALLEL)
    at = tuple(Name(v) for v in names.values())
    xb, yb = _batch_index(xt, batch, names), _batch_index(yt, batch, names)
    swap_a, swap_b = bool(node.attr["transpose_a"]), bool(node.attr["transpose_b"])
    if o.dtype.is_float:
        left = _matrix(a[0], xb, xt.dtype, o.dtype, swap_a)
        right = _matrix(a[1], yb, yt.dtype, o.dtype, swap_b)
        loops.emit(Eval(Helper("_rt_matmul_into", (left, right, Name(out)[at], Lit(0.0)))))
    else:
        rows = loops.open(o.shape, (o.ndim - 2, o.ndim - 1), role=Role.PARALLEL)
        i, j = Name(rows[o.ndim - 2]), Name(rows[o.ndim - 1])
        k_dim = _matrix_dims(xt.shape, swap_a)[1]
        _int_dot(loops, fresh, node, Name(out)[(*at, i, j)], k_dim,
                 lambda k: a[0][(*xb, k, i) if swap_a else (*xb, i, k)],
                 lambda k: a[1][(*yb, j, k) if swap_b else (*yb, k, j)])
        loops.close(rows)
    loops.close(names)
    return loops.lines


def _int_dot(loops: Loops, fresh: Any, node: Any, dest: Expr, size: int,
             left: Callable[[Expr], Expr], right: Callable[[Expr], Expr],
             bias: Expr | None = None) -> None:
    """``dest = sum_k left(k) * right(k) (+ bias)`` accumulated in int64."""
    acc, k = Name(fresh("acc")), Name(fresh("k"))
    loops.emit(Assign(acc, Lit(0, dtypes.int64)))
    loops.emit(Loop(k.name, Lit(size), (Accumulate(acc, BinaryOp.ADD, left(k) * right(k)),),
                    role=Role.REDUCE))
    total = acc if bias is None else acc + bias
    value = ne(total, 0) if out_type(node).dtype == dtypes.bool_ else total
    loops.emit(Store(dest, Cast(out_type(node).dtype, value)))


def _loops_matmul(a: list[Expr], node: Any, out: str, fresh: Any) -> list[Stmt] | None:
    if out_type(node).dtype.is_float:
        return None  # one gemm call: the array emitter
    return _loops_batch_matmul(a, node, out, fresh)


def _loops_dense(a: list[Expr], node: Any, out: str, fresh: Any) -> list[Stmt] | None:
    """Integer Dense: ``out[..., o] = sum_k x[..., k] * w[o, k] + b[o]``."""
    x, w, o = in_type(node, 0), in_type(node, 1), out_type(node)
    if o.dtype.is_float:
        return None
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    names = loops.open(o.shape, range(o.ndim), role=Role.PARALLEL)
    lead = tuple(Name(names[d]) for d in range(x.ndim - 1))
    row = (Name(names[o.ndim - 1]),) if w.ndim == 2 else ()
    bias = None
    if len(a) == 3:
        bias = a[2][row if in_type(node, 2).ndim else ()]
    _int_dot(loops, fresh, node, Name(out)[tuple(Name(v) for v in names.values())],
             x.shape[-1], lambda k: a[0][(*lead, k)], lambda k: a[1][(*row, k)],
             bias)
    loops.close(names)
    return loops.lines


# --- gradients -------------------------------------------------------------------------


def _vjp_contraction(product: Callable[[Any], Callable[..., Any]]) -> Callable[..., Any]:
    """MatMul and BatchMatMul. With a = x or x^T and c = y or y^T (the transposes), out =
    a @ c gives da = g @ c^T and dc = a^T @ g; each is written as one product of the
    operands as they are, so no transpose is materialised. BatchMatMul's products have
    the broadcast batch dims, which ``cotangent`` sums back to each operand's own."""
    def vjp(b: Any, g: Any, x: Any, y: Any, *, out: Any, transpose_a: bool,
            transpose_b: bool) -> tuple[Any, ...]:
        def mm(p: Any, q: Any, tp: bool, tq: bool) -> Any:
            return product(b)(p, q, transpose_a=tp, transpose_b=tq)
        dx = dy = None
        if is_float_tensor(x):
            dx = mm(y, g, transpose_b, True) if transpose_a else mm(g, y, False, not transpose_b)
            dx = cotangent(b, dx, x)
        if is_float_tensor(y):
            dy = mm(g, x, True, transpose_a) if transpose_b else mm(x, g, not transpose_a, False)
            dy = cotangent(b, dy, y)
        return dx, dy
    return vjp


def _vjp_dense(b: Any, g: Any, x: Any, w: Any, *bias: Any, out: Any) -> tuple[Any, ...]:
    """out = x @ w.T + bias over rows: flattened to (rows, in) and (outs, in) matrices
    (a 1-D w is one output feature), dx = g @ w, dw = g.T @ x, and the bias sums g over
    the rows (over everything, for a 0-d bias)."""
    xt, wt = tensor_of(x.type), tensor_of(w.type)
    rows, outs = math.prod(xt.shape[:-1]), math.prod(wt.shape[:-1])
    g2 = b.reshape(g, shape=(rows, outs))
    dx = dw = None
    if is_float_tensor(x):
        dx = b.matmul(g2, b.reshape(w, shape=(outs, xt.shape[-1])))
        dx = cotangent(b, b.reshape(dx, shape=xt.shape), x)
    if is_float_tensor(w):
        dw = b.matmul(g2, b.reshape(x, shape=(rows, xt.shape[-1])), transpose_a=True)
        dw = cotangent(b, b.reshape(dw, shape=wt.shape), w)
    if not bias:
        return dx, dw
    db = None
    if is_float_tensor(bias[0]):
        db = cotangent(b, b.reduce_sum(g2, axis=() if tensor_of(bias[0].type).ndim == 0
                                        else (0,), keep_dims=False), bias[0])
    return dx, dw, db


# --- batching ------------------------------------------------------------------------------


def _batch_matmul_2d(b: Any, prim: Any, args: Any, dims: Any, *, transpose_a: bool,
                     transpose_b: bool) -> tuple[Any, int]:
    """A batched left operand against a shared right one is one (N*m, k) @ (k, n)
    product; otherwise a BatchMatMul, which broadcasts an unbatched operand."""
    (x, y), (dx, dy) = args, dims
    if dy is None and not transpose_a:
        x = move_to_front(b, x, dx)
        n, m, k = tensor_of(x.type).shape
        out = b.emit(prim, b.reshape(x, shape=(n * m, k)), y, transpose_b=transpose_b)
        return b.reshape(out, shape=(n, m, tensor_of(out.type).shape[1])), 0
    x = x if dx is None else move_to_front(b, x, dx)
    y = y if dy is None else move_to_front(b, y, dy)
    return b.batch_matmul(x, y, transpose_a=transpose_a, transpose_b=transpose_b), 0


def _batch_dense(b: Any, prim: Any, args: Any, dims: Any) -> tuple[Any, int]:
    """Shared weights: Dense on the batched rows as they are. Per-example weights: a
    BatchMatMul of each example's rows with its own (out, in) matrix (a product and a
    sum for a 1-D w). A per-example bias is added after."""
    (x, w), (dx, dw) = args[:2], dims[:2]
    size = batch_size(args, dims)
    x = batched_front(b, x, dx, size)
    if dw is None:
        out = b.emit(prim, x, w, *args[2:]) if tuple(dims[2:]) in ((), (None,)) else \
            b.emit(prim, x, w)
    else:
        xt, w = tensor_of(x.type), move_to_front(b, w, dw)
        lead, k = xt.shape[1:-1], xt.shape[-1]
        x3 = b.reshape(x, shape=(size, math.prod(lead), k))
        if tensor_of(w.type).ndim == 3:
            out = b.batch_matmul(x3, w, transpose_b=True)
            out = b.reshape(out, shape=(size,) + lead + tensor_of(w.type).shape[1:2])
        else:
            out = b.reduce_sum(b.mul(x3, b.reshape(w, shape=(size, 1, k))), axis=(2,),
                               keep_dims=False)
            out = b.reshape(out, shape=(size,) + lead)
    if args[2:] and (dw is not None or dims[2] is not None):
        bias, db = args[2], dims[2]
        bias = bias if db is None else aligned(b, bias, db, example_ndim(out, 0))
        out = b.add(out, bias)
    return out, 0


# --- the table -----------------------------------------------------------------------------

_TRANSPOSES = (Attr("transpose_a", False), Attr("transpose_b", False))
matmul = register(Primitive(
    "MatMul", _matmul_infer, _matmul_impl,
    {"numba": LoopNest(_loops_matmul, otherwise=ArrayExpr(_emit_matmul),
                       fresh=True),
     "python": ArrayExpr(_emit_matmul), "cuda": cuda_lowering.MATMUL},
    attrs=_TRANSPOSES, cost=_CONTRACTION_COST,
    vjp=_vjp_contraction(lambda b: b.matmul), batch=_batch_matmul_2d))
batch_matmul = register(Primitive(
    "BatchMatMul", _batch_matmul_infer, _matmul_impl,
    {"numba": LoopNest(_loops_batch_matmul, fresh=True),
     "python": ArrayExpr(_emit_batch_matmul), "cuda": cuda_lowering.MATMUL},
    attrs=_TRANSPOSES, cost=_CONTRACTION_COST, vjp=_vjp_contraction(lambda b: b.batch_matmul),
    batch=batch_elementwise))
dense = register(Primitive(
    "Dense", _dense_infer, _dense_impl,
    {"numba": LoopNest(_loops_dense, otherwise=ArrayExpr(_emit_dense_numba),
                       fresh=True),
     "python": ArrayExpr(_emit_dense), "cuda": cuda_lowering.DENSE},
    cost=_CONTRACTION_COST, vjp=_vjp_dense, batch=_batch_dense))
