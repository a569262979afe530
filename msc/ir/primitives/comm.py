"""Collectives: ``AllReduce``, ``AllGather``, ``ReduceScatter`` and ``Broadcast`` across
the ranks of an MPI job.

Each takes a tensor and the state token, like ``Print``: a collective must run on every
rank in the same order, so it is never folded, merged, dropped or reordered past another
effect. A group is an attribute naming its world ranks (``ranks``), fixed when the graph
is built, so the result's shape is known (``AllGather`` stacks ``len(ranks)`` blocks) and
generated code makes the communicator itself. Every target calls the helpers of
``msc/runtime/comm_rt.py``; the numba target calls them from an object-mode block, into
an array the kernel made.

Gradients (the loss is the sum of the ranks' losses): ``AllReduce``'s sum is the sum of
the cotangents; max and min route it to the ranks holding the extreme, prod scales it by
``out / x``; ``AllGather``'s is ``ReduceScatter`` (sum), and the reverse; ``Broadcast``
gives the root the sum of the cotangents.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError, ShapeError
from msc.ir.kernel import Assign, Eval, Expr, Helper, Lit, Name, ObjMode, Stmt, empty, shape_of
from msc.ir.primitives.base import (
    Attr,
    Effect,
    Primitive,
    Statements,
    register,
    want_tensor,
)
from msc.ir.types import MonadType, TensorType, Type
from msc.runtime import comm_rt

REDUCTIONS = ("sum", "max", "min", "prod")
#: MindSpore's collectives run on these dtypes here (MPI has no float16 or bool sums).
DTYPES = ("float32", "float64", "int32", "int64")


def _operand(x: Type, u: Type, ranks: tuple[int, ...]) -> TensorType:
    if not isinstance(u, MonadType):
        raise GraphTypeError(f"the last input must be the state token U, but got {u}")
    t = want_tensor(x)
    if t.dtype.np_name not in DTYPES:
        raise GraphTypeError(f"the input's dtype must be one of {', '.join(DTYPES)}, but "
                             f"got {t.dtype}")
    if not ranks or any(not isinstance(r, int) for r in ranks):
        raise GraphTypeError(f"the group's ranks must be a non-empty tuple of ints, but "
                             f"got {ranks!r}")
    return t


def _reduction(op: str) -> None:
    if op not in REDUCTIONS:
        raise GraphTypeError(f"op must be one of {', '.join(REDUCTIONS)}, but got {op!r}")


def _all_reduce_infer(x: Type, u: Type, *, op: str, group: str,
                      ranks: tuple[int, ...]) -> Type:
    _reduction(op)
    return _operand(x, u, ranks)


def _all_gather_infer(x: Type, u: Type, *, group: str, ranks: tuple[int, ...]) -> Type:
    t = _operand(x, u, ranks)
    if t.ndim == 0:
        raise ShapeError("the input must have at least one dimension, but got a scalar")
    return TensorType(t.dtype, (t.shape[0] * len(ranks), *t.shape[1:]))


def _reduce_scatter_infer(x: Type, u: Type, *, op: str, group: str,
                          ranks: tuple[int, ...]) -> Type:
    _reduction(op)
    t = _operand(x, u, ranks)
    if t.ndim == 0 or t.shape[0] % len(ranks):
        raise ShapeError(f"the input's first dimension must be divisible by the group's "
                         f"size {len(ranks)}, but got shape {t.shape}")
    return TensorType(t.dtype, (t.shape[0] // len(ranks), *t.shape[1:]))


def _broadcast_infer(x: Type, u: Type, *, root: int, group: str,
                     ranks: tuple[int, ...]) -> Type:
    t = _operand(x, u, ranks)
    if root not in ranks:
        raise GraphTypeError(f"root_rank {root} is not a rank of group '{group}' "
                             f"({list(ranks)})")
    return t


# --- eager: the runtime helpers on a fresh result --------------------------------------------


def _fresh(x: Any, rows: int | None = None) -> np.ndarray:
    x = np.asarray(x)
    shape = x.shape if rows is None else (rows, *x.shape[1:])
    return np.empty(shape, x.dtype)


def _all_reduce_impl(x: Any, u: Any, *, op: str, group: str, ranks: tuple[int, ...]) -> Any:
    return comm_rt._rt_all_reduce(x, _fresh(x), op, group, ranks)


def _all_gather_impl(x: Any, u: Any, *, group: str, ranks: tuple[int, ...]) -> Any:
    rows = np.shape(x)[0] * len(ranks)
    return comm_rt._rt_all_gather(x, _fresh(x, rows), group, ranks)


def _reduce_scatter_impl(x: Any, u: Any, *, op: str, group: str,
                         ranks: tuple[int, ...]) -> Any:
    rows = np.shape(x)[0] // len(ranks)
    return comm_rt._rt_reduce_scatter(x, _fresh(x, rows), op, group, ranks)


def _broadcast_impl(x: Any, u: Any, *, root: int, group: str, ranks: tuple[int, ...]) -> Any:
    return comm_rt._rt_broadcast(x, _fresh(x), root, group, ranks)


# --- code generation -------------------------------------------------------------------------


def _call(helper: str, *attrs: str) -> dict[str, Statements]:
    """``out = np.empty(...)`` then ``helper(x, out, <attrs>, group, ranks)``; the numba
    target runs the call in object mode (the helper writes into ``out``)."""
    def call(args: list[Expr], node: Any, out: str) -> Stmt:
        values = [Lit(node.attr[a]) for a in (*attrs, "group")]
        return Eval(Helper(helper, (args[0], Name(out), *values,
                                    shape_of(node.attr["ranks"]))))

    def alloc(node: Any, out: str) -> Stmt:
        t = node.out.type
        return Assign(Name(out), empty(t.shape, t.dtype))

    def python(args: list[Expr], node: Any, out: str) -> list[Stmt]:
        return [alloc(node, out), call(args, node, out)]

    def numba(args: list[Expr], node: Any, out: str) -> list[Stmt]:
        return [alloc(node, out), ObjMode((call(args, node, out),))]

    return {"numba": Statements(numba),
            "python": Statements(python)}


# --- gradients -------------------------------------------------------------------------------


def _all_reduce_vjp(b: Any, g: Any, x: Any, u: Any, out: Any, *, op: str, group: str,
                    ranks: tuple[int, ...]) -> tuple[Any, None]:
    total = b.emit(all_reduce, g, u, op="sum", group=group, ranks=ranks)
    if op == "sum":
        return total, None
    if op == "prod":
        return b.mul(total, b.div(out, x)), None
    return b.mul(total, b.cast(b.equal(x, out), dtype=x.type.dtype)), None


def _all_gather_vjp(b: Any, g: Any, x: Any, u: Any, out: Any, *, group: str,
                    ranks: tuple[int, ...]) -> tuple[Any, None]:
    return b.emit(reduce_scatter, g, u, op="sum", group=group, ranks=ranks), None


def _reduce_scatter_vjp(b: Any, g: Any, x: Any, u: Any, out: Any, *, op: str, group: str,
                        ranks: tuple[int, ...]) -> tuple[Any, None]:
    if op != "sum":
        from msc.errors import UnsupportedSyntaxError
        raise UnsupportedSyntaxError(f"the gradient of ReduceScatter with op='{op}' is not "
                                     "supported (only 'sum')")
    return b.emit(all_gather, g, u, group=group, ranks=ranks), None


def _broadcast_vjp(b: Any, g: Any, x: Any, u: Any, out: Any, *, root: int, group: str,
                   ranks: tuple[int, ...]) -> tuple[Any, None]:
    """The root's input gets the sum of the cotangents, the others none. Every rank runs
    the all-reduce; whether this one is the root is read while the graph is built (the
    compile cache keys graphs by rank)."""
    total = b.emit(all_reduce, g, u, op="sum", group=group, ranks=ranks)
    here = ranks[comm_rt._rt_comm(group, ranks).Get_rank()]
    return (total if here == root else None), None


# --- the table -------------------------------------------------------------------------------

_GROUP = (Attr("group", "hccl_world_group", (str,)), Attr("ranks", types=(tuple,)))
_OP = Attr("op", "sum", (str,))
all_reduce = register(Primitive(
    "AllReduce", _all_reduce_infer, _all_reduce_impl, _call("_rt_all_reduce", "op"),
    attrs=(_OP, *_GROUP), effect=Effect.IO, vjp=_all_reduce_vjp))
all_gather = register(Primitive(
    "AllGather", _all_gather_infer, _all_gather_impl, _call("_rt_all_gather"),
    attrs=_GROUP, effect=Effect.IO, vjp=_all_gather_vjp))
reduce_scatter = register(Primitive(
    "ReduceScatter", _reduce_scatter_infer, _reduce_scatter_impl,
    _call("_rt_reduce_scatter", "op"), attrs=(_OP, *_GROUP), effect=Effect.IO,
    vjp=_reduce_scatter_vjp))
register(Primitive("Broadcast", _broadcast_infer, _broadcast_impl,
                   _call("_rt_broadcast", "root"),
                   attrs=(Attr("root", types=(int,)), *_GROUP), effect=Effect.IO,
                   vjp=_broadcast_vjp))
