"""The numba and python lowerings of the shape ops (``shape.py``): views where numba
allows them, contiguous copies where it needs them, and explicit loop nests for joins,
gathers and tiles whose operands numba would otherwise copy.
"""

from __future__ import annotations

from typing import Any

from msc.ir import dtypes
from msc.ir.kernel import (
    Accumulate,
    Assign,
    BinaryOp,
    Branch,
    Call,
    Cast,
    Expr,
    Fn,
    Lit,
    Load,
    Name,
    Raise,
    Role,
    Slice,
    Stmt,
    Store,
    Tuple,
    astype,
    contiguous,
    either,
    empty,
    ge,
    lt,
    reshape,
    shape_of,
)
from msc.ir.primitives.base import ArrayExpr, LoopNest, Lowering, on_all_targets
from msc.ir.primitives.emitting import Loops, in_type, out_type

#: One entry of a ``StridedSlice`` index (``shape.py`` reads them, this module lowers them).
SliceEntry = Any  # int | None | tuple[int, int | None, int]

# --- code generation: views where numba allows them, contiguous copies where it needs --
# (every emitter takes its operands as kernel-IR expressions and returns one)


def _same_dtype(a: list[Expr], node: Any) -> list[Expr]:
    want = out_type(node).dtype
    return [x if in_type(node, i).dtype == want else astype(x, want) for i, x in enumerate(a)]


def _emit_reshape(a: list[Expr], node: Any) -> Expr:
    return reshape(contiguous(a[0]), out_type(node).shape)


def _emit_transpose(strided: bool) -> ArrayExpr:
    """A view. NOTE: numba takes seconds to compile ``np.transpose`` with axes (once per
    process), so its target (``strided``) builds the same view from permuted strides."""
    def emit(a: list[Expr], node: Any) -> Expr:
        perm = tuple(node.attr["perm"])
        if perm == tuple(range(len(perm))):
            return a[0]
        if perm == tuple(reversed(range(len(perm)))):
            return Call(Fn.ATTR_T, (a[0],))
        if strided:
            strides = Call(Fn.ATTR_STRIDES, (a[0],))
            return Call(Fn.AS_STRIDED, (a[0], shape_of(out_type(node).shape),
                                        Tuple(tuple(strides[p] for p in perm))))
        return Call(Fn.TRANSPOSE, (a[0], shape_of(perm)))
    return ArrayExpr(emit)


def _emit_concat(a: list[Expr], node: Any) -> Expr:
    return Call(Fn.CONCATENATE, (Tuple(tuple(_same_dtype(a, node))), Lit(node.attr["axis"])))


def _emit_stack(a: list[Expr], node: Any) -> Expr:
    out = out_type(node)
    axis = node.attr["axis"] % out.ndim
    item = out.shape[:axis] + (1,) + out.shape[axis + 1:]
    parts = tuple(reshape(contiguous(x), item) for x in _same_dtype(a, node))
    return Call(Fn.CONCATENATE, (Tuple(parts), Lit(axis)))


#: Above this many operands the numba target copies each into place with its own loop:
#: Numba's typing of ``np.concatenate`` over a long tuple grows much faster than linearly
#: (100 operands: minutes; 100 copy loops: seconds).
_MANY_OPERANDS = 8


def _loops_joined(stack: bool) -> Any:
    """Concat/Stack as one copy loop nest per operand into the preallocated result."""
    def emit(a: list[Expr], node: Any, out: str, fresh: Any) -> tuple[Stmt, ...] | None:
        o = out_type(node)
        if len(a) <= _MANY_OPERANDS or o.dtype == dtypes.float16:
            return None
        axis, offset, loops = node.attr["axis"] % o.ndim, 0, Loops(fresh)
        loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
        for i, x in enumerate(a):
            t = in_type(node, i)
            names = loops.open(t.shape, range(t.ndim), role=Role.PARALLEL)
            src = tuple(Name(names[d]) for d in range(t.ndim))
            at = Lit(i) if stack else Lit(offset) + src[axis]
            dst = src[:axis] + (at,) + src[axis + (not stack):]
            value: Expr = x[src]
            if t.dtype != o.dtype:
                value = Cast(o.dtype, value)
            loops.emit(Store(Name(out)[dst], value))
            loops.close(names)
            offset += 0 if stack else t.shape[axis]
        return loops.lines
    return emit


def _emit_split(a: list[Expr], node: Any) -> Expr:
    x = in_type(node)
    axis = node.attr["axis"] % x.ndim
    step = x.shape[axis] // node.attr["output_num"]
    return Tuple(tuple(a[0][(Slice(),) * axis + (Slice(Lit(k * step), Lit((k + 1) * step)),)]
                       for k in range(node.attr["output_num"])))


def _emit_gather(a: list[Expr], node: Any) -> Expr:
    body = Call(Fn.TAKE, (a[0], a[1], Lit(node.attr["axis"] % in_type(node).ndim)))
    return Call(Fn.ASARRAY, (body,)) if out_type(node).ndim == 0 else body


def _loops_gather(a: list[Expr], node: Any, out: str, fresh: Any) -> tuple[Stmt, ...]:
    """out[before, j, after] = x[before, idx[j], after]; negative indices count from
    the end, and an index out of range raises IndexError as eager mode does."""
    x, idx, o = in_type(node, 0), in_type(node, 1), out_type(node)
    axis = node.attr["axis"] % x.ndim
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    before = loops.open(o.shape, range(axis), role=Role.PARALLEL)
    inner = loops.open(o.shape, range(axis, axis + idx.ndim), "j", role=Role.PARALLEL)
    k, dim = Name(fresh("k")), x.shape[axis]
    loops.emit(Assign(k, a[1][tuple(Name(j) for j in inner.values())]))
    loops.emit(Branch(lt(k, 0), (Accumulate(k, BinaryOp.ADD, Lit(dim)),)))
    loops.emit(Branch(either(lt(k, 0), ge(k, dim)), (
        Raise("IndexError", f"Gather: an index is out of range for axis {axis} with size {dim}"),
    )))
    after = loops.open(o.shape, range(axis + idx.ndim, o.ndim), role=Role.PARALLEL)
    names = tuple(Name(v) for v in (*before.values(), *inner.values(), *after.values()))
    src = (*(Name(v) for v in before.values()), k, *(Name(v) for v in after.values()))
    loops.emit(Store(Name(out)[names], a[0][src]))
    loops.close(after)
    loops.close(inner)
    loops.close(before)
    return loops.lines


def _slice_of(entry: SliceEntry) -> Expr:
    if isinstance(entry, tuple):
        start, stop, step = entry
        return Slice(Lit(start), None if stop is None else Lit(stop), Lit(step))
    return Lit(entry)


def _emit_strided_slice(a: list[Expr], node: Any) -> Expr:
    """Basic indexing; new axes (None entries) are added by a reshape afterwards.

    Indexing with ints only gives a scalar, not a 0-d array, so such an index keeps
    each dim as a length-1 slice and the reshape drops them."""
    entries = [e for e in node.attr["index"] if e is not None]
    scalar = not any(isinstance(e, tuple) for e in entries)
    if scalar:
        entries = [(e, e + 1, 1) for e in entries]
    body = Load(a[0], tuple(_slice_of(e) for e in entries)) if entries else a[0]
    if scalar or len(entries) != len(node.attr["index"]):
        return reshape(contiguous(body), out_type(node).shape)
    return body


def _emit_broadcast_to(a: list[Expr], node: Any) -> Expr:
    return Call(Fn.BROADCAST_TO, (a[0], shape_of(out_type(node).shape)))


def _emit_tile(a: list[Expr], node: Any) -> Expr:
    return Call(Fn.TILE, (a[0], shape_of(tuple(node.attr["multiples"]))))


def _loops_tile(a: list[Expr], node: Any, out: str, fresh: Any) -> tuple[Stmt, ...]:
    """out[i] = x[i % shape]: the input is aligned with the output's trailing dims."""
    x, o = in_type(node), out_type(node)
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    names = loops.open(o.shape, range(o.ndim), role=Role.PARALLEL)
    lead = o.ndim - x.ndim
    src = tuple(Name(names[lead + e]) if o.shape[lead + e] == d else
                (Lit(0) if d == 1 else Name(names[lead + e]) % d) for e, d in enumerate(x.shape))
    loops.emit(Store(Name(out)[tuple(Name(v) for v in names.values())], a[0][src]))
    loops.close(names)
    return loops.lines


def _array(emit: Any) -> dict[str, Lowering]:
    return on_all_targets(ArrayExpr(emit))


def _loops(loops: Any, array: Any) -> dict[str, Lowering]:
    return {"numba": LoopNest(loops),
            "python": ArrayExpr(array)}


def _joined(loops: Any, array: Any) -> dict[str, Lowering]:
    """Concat and Stack: copy loops for many operands on the numba target, else ``array``."""
    return {"numba": LoopNest(loops, ArrayExpr(array)),
            "python": ArrayExpr(array)}
