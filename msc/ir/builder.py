"""Building IR nodes: the one place a node gets its attributes and its type.

``make_node`` completes the attributes from the op's schema and infers the result type
through the table, so every node in every graph is well-typed and carries all its
attributes. ``Builder`` appends such nodes to a list, with the location of the code
they stand for, so a rule or a pass reads like the math::

    b = Builder(loc=node.loc)
    dx = b.mul(g, b.cos(x))      # any op by its name, in any case; _ is ignored
    y = b.emit(Op.ReduceSum, dx, axis=(0,))
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from msc.errors import Loc
from msc.ir.nodes import Const, Node, Value, Var, make_attrs
from msc.ir.primitives import PRIMITIVES, Op, Primitive, infer_type


def make_node(prim: Primitive, inputs: tuple[Value, ...], attrs: dict[str, Any],
              loc: Loc | None = None, hint: str = "") -> Node:
    """``prim`` applied to ``inputs``: attrs completed by the schema, type inferred. A bad
    operand is the user's error at ``loc``; a failing rule is ``InternalCompilerError``."""
    attrs = prim.bind(attrs)
    t = infer_type(prim, tuple(v.type for v in inputs), attrs, loc)
    return Node(prim, inputs, make_attrs(attrs), Var(t, hint), loc)


def as_value(x: Any) -> Value:
    """An operand: IR values as they are; numbers, arrays and tuples of them as ``Const``."""
    if isinstance(x, (Var, Const)):
        return x
    if isinstance(x, (bool, int, float, np.ndarray, np.generic, tuple)):
        return Const(x)
    raise TypeError(f"cannot use {type(x).__name__} as an IR operand")


_BY_KEY: dict[str, Primitive] = {}


def _lookup(name: str) -> Primitive:
    """The op a builder method names: ``reduce_sum``, ``ReduceSum`` and ``reducesum``
    all name ``Op.ReduceSum``."""
    key = name.replace("_", "").lower()
    if len(_BY_KEY) != len(PRIMITIVES):
        _BY_KEY.clear()
        _BY_KEY.update((p.name.lower(), p) for p in PRIMITIVES.values())
    try:
        return _BY_KEY[key]
    except KeyError:
        raise AttributeError(f"no primitive named {name!r}") from None


class Builder:
    """Appends typed nodes to ``nodes``; ``loc`` is stamped on each of them."""

    def __init__(self, loc: Loc | None = None, nodes: list[Node] | None = None):
        self.loc = loc
        self.nodes: list[Node] = [] if nodes is None else nodes

    def emit(self, op: Primitive, /, *inputs: Any, **attrs: Any) -> Var:
        """``op(*inputs; attrs)``; its result value."""
        node = make_node(op, tuple(as_value(x) for x in inputs), attrs, self.loc)
        self.nodes.append(node)
        return node.out

    def append(self, node: Node) -> Var:
        """Append an already built node (a copy, a node with regions); ``b.add`` is the
        ``Add`` op, as every other op name."""
        self.nodes.append(node)
        return node.out

    def tuple(self, *items: Any) -> Var:
        return self.emit(Op.MakeTuple, *items)

    def getitem(self, x: Value, index: int) -> Var:
        return self.emit(Op.TupleGetItem, x, index=index)

    def __getattr__(self, name: str) -> Callable[..., Var]:
        if name.startswith("__"):
            raise AttributeError(name)
        prim = _lookup(name)
        return lambda *inputs, **attrs: self.emit(prim, *inputs, **attrs)
