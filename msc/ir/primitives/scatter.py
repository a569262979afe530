"""Element-wise gathers and scatters: GatherD, TensorScatterElements (along one axis,
one index per element), GatherNd, TensorScatterUpdate and TensorScatterAdd (by index
tuples into the leading dims).

Each is the other's adjoint: the gradient of a gather is a scatter-add, that of a
scatter a gather. GatherD and TensorScatterElements accept negative indices (they count
from the end), the Nd ops do not, as in MindSpore. An index out of range raises
IndexError in eager mode and in both generated modules. Where indices repeat, an
update-scatter keeps the last update (in index order), an add-scatter sums them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphIndexError, GraphTypeError, GraphValueError, ShapeError
from msc.ir import dtypes
from msc.ir.primitives.base import (
    ArrayExpr,
    Attr,
    LoopNest,
    Primitive,
    norm_axis,
    register,
    want_int,
    want_tensor,
)
from msc.ir.kernel import (
    Accumulate,
    Assign,
    BinaryOp,
    Branch,
    Call,
    Expr,
    Fn,
    Helper,
    Lit,
    Name,
    Raise,
    Role,
    Stmt,
    Store,
    either,
    empty,
    ge,
    lt,
)
from msc.ir.primitives.emitting import Loops, in_type, out_type
from msc.ir.primitives.rules import batch_size, batched_front, example_ndim, is_float_tensor
from msc.ir.types import TensorType, Type, tensor_of
from msc.runtime.numpy_rt import _rt_gather_d, _rt_gather_nd, _rt_scatter_d, _rt_scatter_nd


def _indices(t: Type, what: str = "indices") -> TensorType:
    it = want_tensor(t, what)
    if it.dtype not in (dtypes.int32, dtypes.int64):
        raise GraphTypeError(f"{what} must be an int32 or int64 tensor, but got {t}")
    return it


def _lowering(loops: Any, emit: Any) -> dict[str, Any]:
    return {"numba": LoopNest(loops),
            "python": ArrayExpr(emit)}


def _read_index(loops: Loops, k: str, source: Expr, dim: int, what: str) -> None:
    """``k = source``, a negative index counted from the end, out of range an IndexError."""
    loops.emit(Assign(Name(k), source))
    loops.emit(Branch(lt(Name(k), 0), (Accumulate(Name(k), BinaryOp.ADD, Lit(dim)),)))
    _raise_out_of_range(loops, k, dim, what)


def _raise_out_of_range(loops: Loops, k: str, dim: int, what: str) -> None:
    loops.emit(Branch(either(lt(Name(k), 0), ge(Name(k), dim)),
                      (Raise("IndexError", f"{what}: an index is out of range for a dim of "
                                           f"size {dim}"),)))


def _at(*groups: Any) -> tuple[Expr, ...]:
    """An element's index: loop variables (a dict's values, in axis order) and names."""
    return tuple(Name(v) for g in groups for v in (g.values() if isinstance(g, dict) else g))


def _copy(x: Expr) -> Call:
    return Call(Fn.METHOD_COPY, (x,))


# --- along one axis: GatherD and TensorScatterElements --------------------------------------


def _along_axis(x: TensorType, idx: TensorType, axis: Any) -> int:
    """Index and input have one rank and one shape but along ``axis``."""
    if x.ndim == 0:
        raise ShapeError("the input must have rank 1 or more")
    a = norm_axis(want_int(axis, "axis"), x.ndim)
    if idx.ndim != x.ndim or any(i != s for d, (i, s) in enumerate(zip(idx.shape, x.shape))
                                 if d != a):
        raise ShapeError(f"the index shape {idx.shape} must equal the input shape {x.shape} "
                         f"except along axis {a}")
    return a


def _check_range(idx: np.ndarray, dim: int) -> None:
    """Eager mode's error for an index out of [-dim, dim)."""
    bad = idx[(idx < -dim) | (idx >= dim)]
    if bad.size:
        raise GraphIndexError(f"index {int(bad.flat[0])} is out of range for a dim of size {dim}")


def _gather_d_infer(x: Type, idx: Type, *, dim: int) -> Type:
    xt, it = want_tensor(x), _indices(idx, "index")
    _along_axis(xt, it, dim)
    return TensorType(xt.dtype, it.shape)


def _gather_d_impl(x: Any, idx: Any, *, dim: int) -> Any:
    arr = np.asarray(x)
    a = dim % arr.ndim
    _check_range(np.asarray(idx), arr.shape[a])
    return _rt_gather_d(arr, a, np.asarray(idx))


def _emit_gather_d(a: list[Expr], node: Any) -> Expr:
    return Helper("_rt_gather_d", (a[0], Lit(node.attr["dim"] % in_type(node).ndim), a[1]))


def _loops_gather_d(a: list[Expr], node: Any, out: str, fresh: Any) -> list[Stmt]:
    x, o = in_type(node), out_type(node)
    axis = node.attr["dim"] % x.ndim
    loops, k = Loops(fresh), fresh("k")
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    names = loops.open(o.shape, range(o.ndim), role=Role.PARALLEL)
    at = _at(names)
    _read_index(loops, k, a[1][at], x.shape[axis], "GatherD")
    source = _at([k if d == axis else names[d] for d in names])
    loops.emit(Store(Name(out)[at], a[0][source]))
    loops.close(names)
    return loops.lines


def _scatter_d_infer(x: Type, idx: Type, updates: Type, *, axis: int, reduction: str) -> Type:
    xt, it, ut = want_tensor(x), _indices(idx), want_tensor(updates, "updates")
    _along_axis(xt, it, axis)
    if ut.shape != it.shape or ut.dtype != xt.dtype:
        raise GraphTypeError(f"updates must have the indices' shape {it.shape} and the input's "
                             f"dtype {xt.dtype}, but got {updates}")
    if reduction not in ("none", "add"):
        raise GraphValueError(f"reduction must be 'none' or 'add', but got {reduction!r}")
    return xt


def _scatter_d_impl(x: Any, idx: Any, updates: Any, *, axis: int, reduction: str) -> Any:
    arr = np.asarray(x)
    a = axis % arr.ndim
    _check_range(np.asarray(idx), arr.shape[a])
    return _rt_scatter_d(arr, a, np.asarray(idx), np.asarray(updates), reduction == "add")


def _emit_scatter_d(a: list[Expr], node: Any) -> Expr:
    axis = node.attr["axis"] % in_type(node).ndim
    return Helper("_rt_scatter_d", (a[0], Lit(axis), a[1], a[2],
                                    Lit(node.attr["reduction"] == "add")))


def _loops_scatter_d(a: list[Expr], node: Any, out: str, fresh: Any) -> list[Stmt]:
    x, it = in_type(node), in_type(node, 1)
    axis = node.attr["axis"] % x.ndim
    add = node.attr["reduction"] == "add"
    loops, k = Loops(fresh), fresh("k")
    loops.emit(Assign(Name(out), _copy(a[0])))
    # positions apart along another axis write apart; along ``axis`` they may meet (an
    # update-scatter keeps the last update, so that loop runs in order)
    along, names = Role.REDUCE if add else Role.SERIAL, {}
    for d in range(it.ndim):
        names |= loops.open(it.shape, (d,), role=along if d == axis else Role.PARALLEL)
    at = _at(names)
    _read_index(loops, k, a[1][at], x.shape[axis], "TensorScatterElements")
    target = Name(out)[_at([k if d == axis else names[d] for d in names])]
    update = a[2][at]
    loops.emit(Accumulate(target, BinaryOp.ADD, update) if add else Store(target, update))
    loops.close(names)
    return loops.lines


def _vjp_gather_d(b: Any, g: Any, x: Any, idx: Any, *, out: Any, dim: int) -> tuple[Any, ...]:
    if not is_float_tensor(x):
        return None, None
    return b.emit(scatter_d, b.zeros_like(x), idx, g, axis=dim, reduction="add"), None


def _vjp_scatter_d(b: Any, g: Any, x: Any, idx: Any, updates: Any, *, out: Any, axis: int,
                   reduction: str) -> tuple[Any, ...]:
    """Replaced elements pass no gradient to x; each update gets g where it landed.
    NOTE: with repeated indices and no reduction, every update at a position gets its g,
    not only the one kept."""
    if not is_float_tensor(x):
        return None, None, None
    dx = g if reduction == "add" else \
        b.emit(scatter_d, g, idx, b.zeros_like(updates), axis=axis, reduction="none")
    return dx, None, b.emit(gather_d, g, idx, dim=axis)


def _batch_all(b: Any, args: Any, dims: Any) -> list[Any]:
    size = batch_size(args, dims)
    return [batched_front(b, x, d, size) for x, d in zip(args, dims)]


def _batch_gather_d(b: Any, prim: Any, args: Any, dims: Any, *, dim: int) -> tuple[Any, int]:
    a = norm_axis(dim, example_ndim(args[0], dims[0]))
    return b.emit(prim, *_batch_all(b, args, dims), dim=a + 1), 0


def _batch_scatter_d(b: Any, prim: Any, args: Any, dims: Any, *, axis: int,
                     reduction: str) -> tuple[Any, int]:
    a = norm_axis(axis, example_ndim(args[0], dims[0]))
    return b.emit(prim, *_batch_all(b, args, dims), axis=a + 1, reduction=reduction), 0


# --- by index tuples: GatherNd, TensorScatterUpdate, TensorScatterAdd ----------------------


def _nd_depth(x: TensorType, it: TensorType) -> int:
    """How many leading dims of x each index tuple (the last axis of indices) names."""
    if it.ndim == 0 or not 1 <= it.shape[-1] <= x.ndim:
        raise ShapeError(f"the last dim of indices {it.shape} must be in [1, {x.ndim}] for an "
                         f"input of shape {x.shape}")
    return it.shape[-1]


def _check_tuples(x: np.ndarray, idx: np.ndarray) -> None:
    """Eager mode's error for an index tuple outside x (negative included)."""
    for d in range(idx.shape[-1]):
        column = idx[..., d]
        bad = column[(column < 0) | (column >= x.shape[d])]
        if bad.size:
            raise GraphIndexError(f"index {int(bad.flat[0])} is out of range for dim {d} "
                                  f"of shape {x.shape}")


def _gather_nd_infer(x: Type, idx: Type) -> Type:
    xt, it = want_tensor(x), _indices(idx)
    q = _nd_depth(xt, it)
    return TensorType(xt.dtype, it.shape[:-1] + xt.shape[q:])


def _gather_nd_impl(x: Any, idx: Any) -> Any:
    arr = np.asarray(x)
    _check_tuples(arr, np.asarray(idx))
    return _rt_gather_nd(arr, np.asarray(idx))


def _emit_gather_nd(a: list[Expr], node: Any) -> Expr:
    return Helper("_rt_gather_nd", (a[0], a[1]))


def _tuple_loops(loops: Loops, a: list[Expr], x: TensorType, it: TensorType, what: str,
                 role: Role) -> tuple[dict[int, str], list[str], dict[int, str]]:
    """Loops over the index tuples (of ``role``: tuples may repeat), the checked
    coordinates of each, and loops over the dims of x they leave (one tuple's elements
    are distinct)."""
    fresh = loops.fresh
    outer = loops.open(it.shape, range(it.ndim - 1), role=role)
    coords = []
    for d in range(it.shape[-1]):
        k = fresh(f"k{d}")
        loops.emit(Assign(Name(k), a[1][(*_at(outer), Lit(d))]))
        _raise_out_of_range(loops, k, x.shape[d], what)
        coords.append(k)
    inner = loops.open(x.shape, range(it.shape[-1], x.ndim), role=Role.PARALLEL)
    return outer, coords, inner


def _loops_gather_nd(a: list[Expr], node: Any, out: str, fresh: Any) -> list[Stmt]:
    x, it, o = in_type(node), in_type(node, 1), out_type(node)
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    outer, coords, inner = _tuple_loops(loops, a, x, it, "GatherNd", Role.PARALLEL)
    loops.emit(Store(Name(out)[_at(outer, inner)], a[0][_at(coords, inner)]))
    loops.close(inner)
    loops.close(outer)
    return loops.lines


def _scatter_nd_infer(x: Type, idx: Type, updates: Type) -> Type:
    xt, it, ut = want_tensor(x), _indices(idx), want_tensor(updates, "updates")
    q = _nd_depth(xt, it)
    want = it.shape[:-1] + xt.shape[q:]
    if ut.shape != want or ut.dtype != xt.dtype:
        raise GraphTypeError(f"updates must have shape {want} and the input's dtype "
                             f"{xt.dtype}, but got {updates}")
    return xt


def _scatter_nd(add: bool) -> Any:
    def impl(x: Any, idx: Any, updates: Any) -> Any:
        arr = np.asarray(x)
        _check_tuples(arr, np.asarray(idx))
        return _rt_scatter_nd(arr, np.asarray(idx), np.asarray(updates), add)

    def emit(a: list[Expr], node: Any) -> Expr:
        return Helper("_rt_scatter_nd", (a[0], a[1], a[2], Lit(add)))

    def loops_emit(a: list[Expr], node: Any, out: str, fresh: Any) -> list[Stmt]:
        x, it = in_type(node), in_type(node, 1)
        loops = Loops(fresh)
        loops.emit(Assign(Name(out), _copy(a[0])))
        outer, coords, inner = _tuple_loops(loops, a, x, it, node.op.name,
                                            Role.REDUCE if add else Role.SERIAL)
        target, update = Name(out)[_at(coords, inner)], a[2][_at(outer, inner)]
        loops.emit(Accumulate(target, BinaryOp.ADD, update) if add else Store(target, update))
        loops.close(inner)
        loops.close(outer)
        return loops.lines

    return impl, _lowering(loops_emit, emit)


def _vjp_gather_nd(b: Any, g: Any, x: Any, idx: Any, *, out: Any) -> tuple[Any, ...]:
    if not is_float_tensor(x):
        return None, None
    return b.emit(scatter_add, b.zeros_like(x), idx, g), None


def _vjp_scatter_nd(add: bool) -> Any:
    def vjp(b: Any, g: Any, x: Any, idx: Any, updates: Any, *, out: Any) -> tuple[Any, ...]:
        """As ``_vjp_scatter_d``, with index tuples."""
        if not is_float_tensor(x):
            return None, None, None
        dx = g if add else b.emit(scatter_update, g, idx, b.zeros_like(updates))
        return dx, None, b.emit(gather_nd, g, idx)
    return vjp


def _batch_tuples(b: Any, idx: Any, size: int) -> Any:
    """Index tuples batched along axis 0 with the example's number put first in each, so
    that they index the batched input."""
    it = tensor_of(idx.type)
    number = np.arange(size, dtype=it.dtype.np).reshape((size,) + (1,) * (it.ndim - 1))
    first = b.broadcast_to(number, shape=it.shape[:-1] + (1,))
    return b.concat(first, idx, axis=-1)


def _batch_gather_nd(b: Any, prim: Any, args: Any, dims: Any) -> tuple[Any, int]:
    (x, idx), (dx, di) = args, dims
    size = batch_size(args, dims)
    if dx is None:  # one input: the batched tuples index it as they are
        return b.emit(prim, x, batched_front(b, idx, di, size)), 0
    tuples = _batch_tuples(b, batched_front(b, idx, di, size), size)
    return b.emit(prim, batched_front(b, x, dx, size), tuples), 0


def _batch_scatter_nd(b: Any, prim: Any, args: Any, dims: Any) -> tuple[Any, int]:
    size = batch_size(args, dims)
    x, idx, updates = _batch_all(b, args, dims)
    return b.emit(prim, x, _batch_tuples(b, idx, size), updates), 0


# --- the table -------------------------------------------------------------------------------

gather_d = register(Primitive("GatherD", _gather_d_infer, _gather_d_impl,
                              _lowering(_loops_gather_d, _emit_gather_d), attrs=(Attr("dim"),),
                              vjp=_vjp_gather_d, batch=_batch_gather_d))
scatter_d = register(Primitive("TensorScatterElements", _scatter_d_infer, _scatter_d_impl,
                               _lowering(_loops_scatter_d, _emit_scatter_d),
                               attrs=(Attr("axis", 0), Attr("reduction", "none", (str,))),
                               vjp=_vjp_scatter_d, batch=_batch_scatter_d))
gather_nd = register(Primitive("GatherNd", _gather_nd_infer, _gather_nd_impl,
                               _lowering(_loops_gather_nd, _emit_gather_nd),
                               vjp=_vjp_gather_nd, batch=_batch_gather_nd))
_update_impl, _update_lowering = _scatter_nd(add=False)
_add_impl, _add_lowering = _scatter_nd(add=True)
scatter_update = register(Primitive("TensorScatterUpdate", _scatter_nd_infer, _update_impl,
                                    _update_lowering, vjp=_vjp_scatter_nd(add=False),
                                    batch=_batch_scatter_nd))
scatter_add = register(Primitive("TensorScatterAdd", _scatter_nd_infer, _add_impl,
                                 _add_lowering, vjp=_vjp_scatter_nd(add=True),
                                 batch=_batch_scatter_nd))
