"""The collective primitives: ``ops.AllReduce``, ``ops.AllGather``, ``ops.ReduceScatter``,
``ops.Broadcast`` and ``ops.ReduceOp``, as MindSpore's ``comm_ops`` has them. Each call
goes through ``function/comm_func.collective``: an MPI call eagerly, a node in a graph.
Their group is looked up when they are called, so they may be made before ``init()``.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError
from msc.ir.primitives import Op
from msc.ops.function.comm_func import collective

__all__ = ["ReduceOp", "AllReduce", "AllGather", "ReduceScatter", "Broadcast"]

_WORLD = "hccl_world_group"


class ReduceOp:
    """The reductions of ``AllReduce`` and ``ReduceScatter``."""

    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


def _check(name: str, op: Any, group: Any) -> None:
    if op not in (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PROD):
        raise TypeError(f"For '{name}', the 'op' must be one of ReduceOp.SUM, MAX, MIN or "
                        f"PROD, but got {op!r}")
    if not isinstance(group, str):
        raise TypeError(f"For '{name}', the 'group' must be a str, but got "
                        f"{type(group).__name__}")


class _Collective:
    name = ""

    def __repr__(self) -> str:
        return f"Prim[{self.name}]"


class AllReduce(_Collective):
    """``AllReduce(op=ReduceOp.SUM, group)(x)``: the elementwise ``op`` of ``x`` over the
    group's ranks, on every rank."""

    name = Op.AllReduce.name

    def __init__(self, op: str = ReduceOp.SUM, group: str = _WORLD):
        _check(self.name, op, group)
        self.op, self.group = op, group

    def __call__(self, x: Any) -> Any:
        return collective(Op.AllReduce, x, self.group, op=self.op)


class AllGather(_Collective):
    """``AllGather(group)(x)``: the ranks' ``x`` concatenated along axis 0 in rank order."""

    name = Op.AllGather.name

    def __init__(self, group: str = _WORLD):
        _check(self.name, ReduceOp.SUM, group)
        self.group = group

    def __call__(self, x: Any) -> Any:
        return collective(Op.AllGather, x, self.group)


class ReduceScatter(_Collective):
    """``ReduceScatter(op, group)(x)``: the ``op`` of ``x`` over the ranks, split along
    axis 0 into one block per rank; each rank gets its own."""

    name = Op.ReduceScatter.name

    def __init__(self, op: str = ReduceOp.SUM, group: str = _WORLD):
        _check(self.name, op, group)
        self.op, self.group = op, group

    def __call__(self, x: Any) -> Any:
        return collective(Op.ReduceScatter, x, self.group, op=self.op)


class Broadcast(_Collective):
    """``Broadcast(root_rank, group)((x, ...))``: each tensor's value on the world rank
    ``root_rank``, on every rank (a tuple, as the input)."""

    name = Op.Broadcast.name

    def __init__(self, root_rank: int, group: str = _WORLD):
        if not isinstance(root_rank, int) or isinstance(root_rank, bool):
            raise TypeError(f"For 'Broadcast', the 'root_rank' must be an int, but got "
                            f"{type(root_rank).__name__}")
        _check(self.name, ReduceOp.SUM, group)
        self.root, self.group = root_rank, group

    def __call__(self, x: Any) -> Any:
        if not isinstance(x, (tuple, list)):
            raise GraphTypeError("For 'Broadcast', the input must be a tuple of Tensors")
        return tuple(collective(Op.Broadcast, t, self.group, root=self.root) for t in x)
