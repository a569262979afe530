"""Sorting and running products and extremes along one axis: Sort, CumProd, Cummax,
Cummin.

Sort is stable in both directions (equal elements keep their order; MindSpore's CPU
kernel makes no promise), and its indices are int32 as MindSpore's are. TopK, argsort
and msort are Sort in the frontend. Cummax's indices are int64 and Cummin's int32, as
MindSpore 2.10 gives them; a tie takes the later index. The numba target runs explicit
loops over the other axes (Numba's stable ``argsort`` sorts each row); the python
target calls the numpy helpers of ``msc/runtime/numpy_rt.py``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from msc.errors import GraphTypeError, ShapeError
from msc.ir import dtypes
from msc.ir.primitives.base import (
    ArrayExpr,
    Attr,
    LoopNest,
    Op,
    Primitive,
    norm_axis,
    register,
    want_bool,
    want_int,
    want_tensor,
)
from msc.ir.kernel import (
    Assign,
    Branch,
    Call,
    Cast,
    DTypeRef,
    Expr,
    Fn,
    Helper,
    Lit,
    Loop,
    Name,
    Role,
    Stmt,
    Store,
    Tuple,
    empty,
    ge,
    le,
    lift,
)
from msc.ir.primitives.emitting import Loops, in_type
from msc.ir.primitives.rules import example_ndim, is_float_tensor, move_to_front
from msc.ir.types import TensorType, TupleType, Type, tensor_of
from msc.runtime.numpy_rt import _rt_cumextreme, _rt_cumprod, _rt_sort


def _along(x: Type, axis: Any) -> TensorType:
    """A numeric tensor of rank 1 or more and a valid ``axis`` of it."""
    t = want_tensor(x)
    if t.ndim == 0:
        raise ShapeError(f"the input must have rank 1 or more, but got {x}")
    if t.dtype == dtypes.bool_:
        raise GraphTypeError(f"the input must be a numeric tensor, but got {x}")
    norm_axis(want_int(axis, "axis"), t.ndim)
    return t


def _row_loops(loops: Loops, x: TensorType,
               axis: int) -> tuple[dict[int, str], Callable[[Any], tuple[Expr, ...]]]:
    """Loops over every axis but ``axis`` (parallel: each row is computed on its own);
    and the index of position ``j`` (a name, a number, an expression) along it."""
    kept = loops.open(x.shape, [d for d in range(x.ndim) if d != axis], role=Role.PARALLEL)
    return kept, lambda j: tuple(Name(kept[d]) if d in kept else lift(j) for d in range(x.ndim))


def _batch_along(b: Any, prim: Any, args: Any, dims: Any, *, axis: int,
                 **attrs: Any) -> tuple[Any, Any]:
    """The example's axis one further right, past the batch axis at the front."""
    x, d = args[0], dims[0]
    out = b.emit(prim, move_to_front(b, x, d), axis=norm_axis(axis, example_ndim(x, d)) + 1,
                 **attrs)
    return out, ((0, 0) if isinstance(out.type, TupleType) else 0)


# --- Sort ------------------------------------------------------------------------------------


def _sort_infer(x: Type, *, axis: int, descending: bool) -> Type:
    t = _along(x, axis)
    want_bool(descending, "descending")
    return TupleType((t, TensorType(dtypes.int32, t.shape)))


def _sort_impl(x: Any, *, axis: int, descending: bool) -> Any:
    arr = np.asarray(x)
    return _rt_sort(arr, axis % arr.ndim, bool(descending))


def _emit_sort(a: list[Expr], node: Any) -> Expr:
    axis = node.attr["axis"] % in_type(node).ndim
    return Helper("_rt_sort", (a[0], Lit(axis), Lit(bool(node.attr["descending"]))))


def _loops_sort(a: list[Expr], node: Any, out: str, fresh: Any) -> list[Stmt]:
    """Each row copied out (reversed when descending, so that a stable ascending sort
    read backwards keeps equal elements in order) and sorted by ``argsort``."""
    x = in_type(node)
    axis, desc = node.attr["axis"] % x.ndim, bool(node.attr["descending"])
    n, last = x.shape[axis], x.shape[axis] - 1
    values, idx, row, order, j = (Name(fresh(h)) for h in
                                  ("values", "idx", "row", "order", "j"))
    back = Lit(last) - j  # j-th from the end: where a descending row's j-th comes from
    loops = Loops(fresh)
    loops.emit(Assign(values, empty(x.shape, x.dtype)))
    loops.emit(Assign(idx, empty(x.shape, dtypes.int32)))
    kept, at = _row_loops(loops, x, axis)
    loops.emit(Assign(row, Call(Fn.EMPTY, (Lit(n), DTypeRef(x.dtype)))))
    loops.emit(Loop(j.name, Lit(n), (Store(row[j], a[0][at(back if desc else j)]),),
                    role=Role.PARALLEL))
    loops.emit(Assign(order, Call(Fn.ARGSORT, (row,), (("kind", Lit("mergesort")),))))
    pick = order[back if desc else j]
    loops.emit(Loop(j.name, Lit(n), (Store(values[at(j)], row[pick]),
                                     Store(idx[at(j)], Lit(last) - pick if desc else pick)),
                    role=Role.PARALLEL))
    loops.close(kept)
    loops.emit(Assign(Name(out), Tuple((values, idx))))
    return loops.lines


def _vjp_sort(b: Any, g: Any, x: Any, *, out: Any, axis: int,
              descending: bool) -> tuple[Any]:
    """Each sorted value's cotangent goes back to where it came from: gathered through
    the inverse permutation (the indices sorted give it)."""
    if not is_float_tensor(x):
        return (None,)
    a = axis % tensor_of(x.type).ndim
    inverse = b.getitem(b.emit(sort, b.getitem(out, 1), axis=a, descending=False), 1)
    return (b.emit(Op.GatherD, b.getitem(g, 0), inverse, dim=a),)


# --- CumProd ------------------------------------------------------------------------------


def _cumprod_infer(x: Type, *, axis: int, exclusive: bool, reverse: bool) -> Type:
    t = _along(x, axis)
    want_bool(exclusive, "exclusive")
    want_bool(reverse, "reverse")
    return t


def _cumprod_impl(x: Any, *, axis: int, exclusive: bool, reverse: bool) -> Any:
    arr = np.asarray(x)
    return _rt_cumprod(arr, axis % arr.ndim, bool(exclusive), bool(reverse))


def _emit_cumprod(a: list[Expr], node: Any) -> Expr:
    axis = node.attr["axis"] % in_type(node).ndim
    return Helper("_rt_cumprod", (a[0], Lit(axis), Lit(bool(node.attr["exclusive"])),
                                  Lit(bool(node.attr["reverse"]))))


def _loops_cumprod(a: list[Expr], node: Any, out: str, fresh: Any) -> list[Stmt]:
    x = in_type(node)
    axis = node.attr["axis"] % x.ndim
    n = x.shape[axis]
    acc, j = Name(fresh("acc")), Name(fresh("j"))
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(x.shape, x.dtype)))
    kept, at = _row_loops(loops, x, axis)
    loops.emit(Assign(acc, Lit(1, x.dtype)))
    pos = at(Lit(n - 1) - j if node.attr["reverse"] else j)
    take = Assign(acc, Cast(x.dtype, acc * a[0][pos]))
    put = Store(Name(out)[pos], acc)
    loops.emit(Loop(j.name, Lit(n), (put, take) if node.attr["exclusive"] else (take, put),
                    role=Role.SERIAL))  # a running product: each step needs the last
    loops.close(kept)
    return loops.lines


def _vjp_cumprod(b: Any, g: Any, x: Any, *, out: Any, axis: int, exclusive: bool,
                 reverse: bool) -> tuple[Any]:
    """d out_j / d x_i is the product over out_j's window without x_i, which holds where
    x has zeros (``out / x`` does not). Pairs (i, j) get two adjacent axes: row i is x
    with x_i replaced by 1, whose running product (the op itself) gives those products;
    the window mask keeps the pairs where x_i is a factor of out_j. Costs n^2 per row."""
    if not is_float_tensor(x):
        return (None,)
    xt = tensor_of(x.type)
    a = axis % xt.ndim
    n = xt.shape[a]
    trailing = (1,) * (xt.ndim - a - 1)
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    inside = (j > i if exclusive else j >= i) if not reverse else (j < i if exclusive else j <= i)
    pairs = b.broadcast_to(b.expand_dims(x, axis=a), shape=xt.shape[:a] + (n,) + xt.shape[a:])
    rows = b.select((i == j).reshape((n, n) + trailing), 1.0, pairs)
    partial = b.emit(cumprod, rows, axis=a + 1, exclusive=exclusive, reverse=reverse)
    terms = b.select(inside.reshape((n, n) + trailing),
                     b.mul(b.expand_dims(g, axis=a), partial), 0.0)
    return (b.reduce_sum(terms, axis=(a + 1,), keep_dims=False),)


# --- Cummax / Cummin ------------------------------------------------------------------------


def _extreme(name: str, largest: bool, index_dtype: dtypes.DType) -> Primitive:
    def infer(x: Type, *, axis: int) -> Type:
        t = _along(x, axis)
        return TupleType((t, TensorType(index_dtype, t.shape)))

    def impl(x: Any, *, axis: int) -> Any:
        arr = np.asarray(x)
        return _rt_cumextreme(arr, axis % arr.ndim, largest, index_dtype.np)

    def emit(a: list[Expr], node: Any) -> Expr:
        axis = node.attr["axis"] % in_type(node).ndim
        return Helper("_rt_cumextreme", (a[0], Lit(axis), Lit(largest), DTypeRef(index_dtype)))

    def loops_emit(a: list[Expr], node: Any, out: str, fresh: Any) -> list[Stmt]:
        """The running extreme and where it was last reached (``>=``: ties move on)."""
        x = in_type(node)
        axis = node.attr["axis"] % x.ndim
        values, idx, best, at_best, v, j = (Name(fresh(h)) for h in
                                            ("values", "idx", "best", "at", "v", "j"))
        loops = Loops(fresh)
        loops.emit(Assign(values, empty(x.shape, x.dtype)))
        loops.emit(Assign(idx, empty(x.shape, index_dtype)))
        if x.size:
            kept, at = _row_loops(loops, x, axis)
            loops.emit(Assign(Tuple((best, at_best)), Tuple((a[0][at(0)], Lit(0)))))
            reached = ge(v, best) if largest else le(v, best)
            loops.emit(Loop(j.name, Lit(x.shape[axis]), (  # running: each step needs the last
                Assign(v, a[0][at(j)]),
                Branch(reached, (Assign(Tuple((best, at_best)), Tuple((v, j))),)),
                Store(values[at(j)], best),
                Store(idx[at(j)], at_best),
            ), role=Role.SERIAL))
            loops.close(kept)
        loops.emit(Assign(Name(out), Tuple((values, idx))))
        return loops.lines

    return register(Primitive(name, infer, impl,
                              _lowering(loops_emit, emit),
                              attrs=(Attr("axis"),), cost=2, vjp=_vjp_cumextreme,
                              batch=_batch_along))


def _vjp_cumextreme(b: Any, g: Any, x: Any, *, out: Any, axis: int) -> tuple[Any]:
    """Each running extreme's cotangent goes to the element it was taken from, summed."""
    if not is_float_tensor(x):
        return (None,)
    a = axis % tensor_of(x.type).ndim
    return (b.emit(Op.TensorScatterElements, b.zeros_like(x), b.getitem(out, 1),
                   b.getitem(g, 0), axis=a, reduction="add"),)


def _lowering(loops: Any, emit: Any) -> dict[str, Any]:
    return {"numba": LoopNest(loops),
            "python": ArrayExpr(emit)}


sort = register(Primitive("Sort", _sort_infer, _sort_impl, _lowering(_loops_sort, _emit_sort),
                          attrs=(Attr("axis", -1), Attr("descending", False)), cost=4,
                          vjp=_vjp_sort, batch=_batch_along))
cumprod = register(Primitive("CumProd", _cumprod_infer, _cumprod_impl,
                             _lowering(_loops_cumprod, _emit_cumprod),
                             attrs=(Attr("axis"), Attr("exclusive", False),
                                    Attr("reverse", False)),
                             cost=2, vjp=_vjp_cumprod, batch=_batch_along))
cummax = _extreme("Cummax", True, dtypes.int64)
cummin = _extreme("Cummin", False, dtypes.int32)
