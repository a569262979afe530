"""Collective communication, MindSpore 2.x's functional forms (``ops.all_reduce``,
``ops.all_gather_into_tensor``, ``ops.reduce_scatter_tensor``, ``ops.broadcast``,
``ops.barrier``; their classes are in ``operations/comm_ops.py``).

Eagerly they run at once over MPI; in a graph they become nodes ordered by the state
token (``ir/primitives/comm.py``), which generated code runs as calls of mpi4py. As in
MindSpore's default (not in-place) mode, the reducing forms return ``(Tensor, None)``:
the result and the handle of an asynchronous call, which msc does not make.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Parameter, SymTensor, Tensor
from msc.communication.management import group_ranks
from msc.errors import GraphTypeError, GraphValueError, MscError, UnsupportedSyntaxError
from msc.frontend.builder import current_builder
from msc.frontend.source import user_loc
from msc.ir.primitives import Op, Primitive, evaluate
from msc.ir.types import U

__all__ = ["all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "broadcast",
           "barrier"]

_OPS = ("sum", "max", "min", "prod")


def collective(prim: Primitive, x: Any, group: str | None, **attrs: Any) -> Any:
    """``prim`` on ``x`` over ``group``: a node in a graph, an MPI call eagerly."""
    name = prim.name
    try:
        ranks = group_ranks(group)
    except (MscError, RuntimeError) as e:
        raise type(e)(f"For '{name}', {e}") from None
    attrs = {**attrs, "group": group or "hccl_world_group", "ranks": ranks}
    builder = current_builder()
    if builder is not None and isinstance(x, Tensor):  # a constant too: it runs at run time
        return SymTensor(builder.effect(prim, (builder.operand(x),), attrs), builder)
    if not isinstance(x, Tensor):
        raise GraphTypeError(f"For '{name}', the input must be a Tensor, but got "
                             f"{type(x).__name__}", user_loc())
    try:
        return Tensor(evaluate(prim, (x.asnumpy(), U), attrs))
    except MscError as e:
        raise e.with_loc(user_loc()) from None


def _sync(name: str, async_op: Any) -> None:
    if async_op is not False:
        raise UnsupportedSyntaxError(f"For '{name}', async_op=True is not supported: msc's "
                                     "collectives complete before they return")


def all_reduce(tensor: Any, op: str = "sum", group: str | None = None,
               async_op: bool = False) -> tuple[Any, None]:
    """``(the elementwise op of tensor over the group's ranks, None)``; ``op`` is sum,
    max, min, prod or avg (the sum divided by the group's size)."""
    _sync("all_reduce", async_op)
    if op not in (*_OPS, "avg"):
        raise TypeError("For all_reduce, the input op value must be one of sum, prod, min, "
                        f"max, avg, but got {op!r}")
    out = collective(Op.AllReduce, tensor, group, op="sum" if op == "avg" else op)
    if op == "avg":
        out = out / len(group_ranks(group))
    return out, None


def all_gather_into_tensor(output_tensor: Any, input_tensor: Any, group: str | None = None,
                           async_op: bool = False) -> tuple[Any, None]:
    """``(the ranks' input_tensor concatenated along axis 0 in rank order, None)``;
    ``output_tensor`` is unused, as in MindSpore's default mode."""
    _sync("all_gather_into_tensor", async_op)
    return collective(Op.AllGather, input_tensor, group), None


def reduce_scatter_tensor(output: Any, input: Any, op: str = "sum",
                          group: str | None = None, async_op: bool = False) -> tuple[Any, None]:
    """``(this rank's block along axis 0 of the op of input over the ranks, None)``;
    ``output`` is unused, as in MindSpore's default mode."""
    _sync("reduce_scatter_tensor", async_op)
    if op not in _OPS:
        raise TypeError(f"For reduce_scatter_tensor, op must be one of {', '.join(_OPS)}, "
                        f"but got {op!r}")
    return collective(Op.ReduceScatter, input, group, op=op), None


def broadcast(tensor: Any, src: int, group: str | None = None, async_op: bool = False) -> None:
    """Overwrite ``tensor`` on every rank with its value on the world rank ``src``, in
    place (so eagerly, or on a Parameter in a graph); returns None, the handle."""
    _sync("broadcast", async_op)
    if not isinstance(src, int):
        raise TypeError("For broadcast, the src must be int")
    builder = current_builder()
    if builder is not None and isinstance(tensor, Parameter):
        from msc.ops.function.side_effect_func import assign

        assign(tensor, collective(Op.Broadcast, tensor, group, root=src))
        return
    if builder is not None or not isinstance(tensor, Tensor):
        raise UnsupportedSyntaxError("For broadcast, the tensor is overwritten in place: in "
                                     "a graph it must be a Parameter (ops.Broadcast returns "
                                     "the value instead)")
    value = collective(Op.Broadcast, tensor, group, root=src)
    if isinstance(tensor, Parameter):
        tensor.set_data(value)
    else:
        np.copyto(tensor.asnumpy(), value.asnumpy())
    return


def barrier(group: str | None = None, async_op: bool = False, device_ids: Any = None) -> None:
    """Wait until every rank of the group arrives here (eagerly)."""
    _sync("barrier", async_op)
    if current_builder() is not None:
        raise UnsupportedSyntaxError("barrier() runs eagerly, not inside a graph")
    if device_ids is not None:
        raise GraphValueError("For barrier, device_ids is not supported")
    collective(Op.AllReduce, Tensor(np.zeros(1, np.int32)), group)
