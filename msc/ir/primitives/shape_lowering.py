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
    Cast,
    Expr,
    Lit,
    Name,
    Raise,
    Role,
    Store,
    either,
    empty,
    ge,
    lt,
)
from msc.ir.primitives.base import ArrayExpr, LoopNest, Lowering, on_all_targets
from msc.ir.primitives.emitting import Loops, cast_to, in_type, out_type, reshape

#: One entry of a ``StridedSlice`` index (``shape.py`` reads them, this module lowers them).
SliceEntry = Any  # int | None | tuple[int, int | None, int]

# --- code generation: views where numba allows them, contiguous copies where it needs --


def _same_dtype(a: list[str], node: Any) -> list[str]:
    want = out_type(node).dtype
    return [cast_to(x, in_type(node, i).dtype, want) for i, x in enumerate(a)]


def _emit_reshape(a: list[str], node: Any) -> str:
    return reshape(a[0], out_type(node).shape)


def _emit_transpose(strided: bool) -> ArrayExpr:
    """A view. NOTE: numba takes seconds to compile ``np.transpose`` with axes (once per
    process), so its target (``strided``) builds the same view from permuted strides."""
    def emit(a: list[str], node: Any) -> str:
        perm = tuple(node.attr["perm"])
        if perm == tuple(range(len(perm))):
            return a[0]
        if perm == tuple(reversed(range(len(perm)))):
            return f"{a[0]}.T"
        if strided:
            strides = "".join(f"{a[0]}.strides[{p}], " for p in perm)
            return (f"np.lib.stride_tricks.as_strided({a[0]}, {out_type(node).shape!r}, "
                    f"({strides}))")
        return f"np.transpose({a[0]}, {perm!r})"
    return ArrayExpr(emit)


def _emit_concat(a: list[str], node: Any) -> str:
    parts = "".join(f"{x}, " for x in _same_dtype(a, node))
    return f"np.concatenate(({parts}), {node.attr['axis']})"


def _emit_stack(a: list[str], node: Any) -> str:
    out = out_type(node)
    axis = node.attr["axis"] % out.ndim
    item = out.shape[:axis] + (1,) + out.shape[axis + 1:]
    parts = "".join(f"{reshape(x, item)}, " for x in _same_dtype(a, node))
    return f"np.concatenate(({parts}), {axis})"


#: Above this many operands the numba target copies each into place with its own loop:
#: Numba's typing of ``np.concatenate`` over a long tuple grows much faster than linearly
#: (100 operands: minutes; 100 copy loops: seconds).
_MANY_OPERANDS = 8


def _loops_joined(stack: bool) -> Any:
    """Concat/Stack as one copy loop nest per operand into the preallocated result."""
    def emit(a: list[str], node: Any, out: str, fresh: Any) -> list[str] | None:
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
            value: Expr = Name(x)[src]
            if t.dtype != o.dtype:
                value = Cast(o.dtype, value)
            loops.emit(Store(Name(out)[dst], value))
            loops.close(names)
            offset += 0 if stack else t.shape[axis]
        return loops.lines
    return emit


def _emit_split(a: list[str], node: Any) -> str:
    x = in_type(node)
    axis = node.attr["axis"] % x.ndim
    step = x.shape[axis] // node.attr["output_num"]
    pieces = []
    for k in range(node.attr["output_num"]):
        key = [":"] * axis + [f"{k * step}:{(k + 1) * step}"]
        pieces.append(f"{a[0]}[{', '.join(key)}], ")
    return "(" + "".join(pieces) + ")"


def _emit_gather(a: list[str], node: Any) -> str:
    body = f"np.take({a[0]}, {a[1]}, {node.attr['axis'] % in_type(node).ndim})"
    return f"np.asarray({body})" if out_type(node).ndim == 0 else body


def _loops_gather(a: list[str], node: Any, out: str, fresh: Any) -> list[str]:
    """out[before, j, after] = x[before, idx[j], after]; negative indices count from
    the end, and an index out of range raises IndexError as eager mode does."""
    x, idx, o = in_type(node, 0), in_type(node, 1), out_type(node)
    axis = node.attr["axis"] % x.ndim
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    before = loops.open(o.shape, range(axis), role=Role.PARALLEL)
    inner = loops.open(o.shape, range(axis, axis + idx.ndim), "j", role=Role.PARALLEL)
    k, dim = Name(fresh("k")), x.shape[axis]
    loops.emit(Assign(k, Name(a[1])[tuple(Name(j) for j in inner.values())]))
    loops.emit(Branch(lt(k, 0), (Accumulate(k, BinaryOp.ADD, Lit(dim)),)))
    loops.emit(Branch(either(lt(k, 0), ge(k, dim)), (
        Raise("IndexError", f"Gather: an index is out of range for axis {axis} with size {dim}"),
    )))
    after = loops.open(o.shape, range(axis + idx.ndim, o.ndim), role=Role.PARALLEL)
    names = tuple(Name(v) for v in (*before.values(), *inner.values(), *after.values()))
    src = (*(Name(v) for v in before.values()), k, *(Name(v) for v in after.values()))
    loops.emit(Store(Name(out)[names], Name(a[0])[src]))
    loops.close(after)
    loops.close(inner)
    loops.close(before)
    return loops.lines


def _slice_text(entry: SliceEntry) -> str:
    if isinstance(entry, tuple):
        start, stop, step = entry
        return f"{start}:{'' if stop is None else stop}:{step}"
    return str(entry)


def _emit_strided_slice(a: list[str], node: Any) -> str:
    """Basic indexing; new axes (None entries) are added by a reshape afterwards.

    Indexing with ints only gives a scalar, not a 0-d array, so such an index keeps
    each dim as a length-1 slice and the reshape drops them."""
    entries = [e for e in node.attr["index"] if e is not None]
    scalar = not any(isinstance(e, tuple) for e in entries)
    if scalar:
        entries = [(e, e + 1, 1) for e in entries]
    body = f"{a[0]}[{', '.join(_slice_text(e) for e in entries)},]" if entries else a[0]
    if scalar or len(entries) != len(node.attr["index"]):
        return reshape(body, out_type(node).shape)
    return body


def _emit_broadcast_to(a: list[str], node: Any) -> str:
    return f"np.broadcast_to({a[0]}, {out_type(node).shape!r})"


def _emit_tile(a: list[str], node: Any) -> str:
    return f"np.tile({a[0]}, {tuple(node.attr['multiples'])!r})"


def _loops_tile(a: list[str], node: Any, out: str, fresh: Any) -> list[str]:
    """out[i] = x[i % shape]: the input is aligned with the output's trailing dims."""
    x, o = in_type(node), out_type(node)
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    names = loops.open(o.shape, range(o.ndim), role=Role.PARALLEL)
    lead = o.ndim - x.ndim
    src = tuple(Name(names[lead + e]) if o.shape[lead + e] == d else
                (Lit(0) if d == 1 else Name(names[lead + e]) % d) for e, d in enumerate(x.shape))
    loops.emit(Store(Name(out)[tuple(Name(v) for v in names.values())], Name(a[0])[src]))
    loops.close(names)
    return loops.lines


def _array(emit: Any) -> dict[str, Lowering]:
    return on_all_targets(ArrayExpr(emit))


def _loops(loops: Any, array: Any) -> dict[str, Lowering]:
    return {"numba": LoopNest(loops), "python": ArrayExpr(array)}
