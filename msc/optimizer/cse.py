"""Common-subexpression elimination: one node per distinct (op, inputs, attrs).

Equality is structural (``Node`` equality ignores ``loc``; constants compare by
content, and here also by the sign of float zeros, since ``x * -0.0`` and ``x * 0.0``
differ). Nodes with side effects are never merged: two prints print twice.
A region sees the enclosing graph's nodes; its own never leak out of it.
"""

from __future__ import annotations

import math
from typing import Any, Hashable

from msc.ir.nodes import Const, Graph, Module, Node, Value, Var
from msc.ir.rewrite import Effects
from msc.ir.transform import Transformer


def cse(module: Module) -> Module:
    """Replace each node equal to an earlier one by that node's result.

    Before::

        subgraph @f(%para1_x) {
          %0 = Exp(%para1_x) : <Tensor[Float32], (2)>
          %1 = Exp(%para1_x) : <Tensor[Float32], (2)>
          %2 = Add(%0, %1) : <Tensor[Float32], (2)>
          Return(%2)
        }

    After::

        subgraph @f(%para1_x) {
          %0 = Exp(%para1_x) : <Tensor[Float32], (2)>
          %1 = Add(%0, %0) : <Tensor[Float32], (2)>
          Return(%1)
        }
    """
    return _CSE().module(module)


def cse_graph(graph: Graph) -> Graph:
    """``cse`` of one graph and its regions."""
    return _CSE().graph(graph)


class _CSE(Transformer):
    def __init__(self) -> None:
        super().__init__()
        self.effects = Effects()
        self.seen: dict[Hashable, Var] = {}  # available nodes: a region's stay inside it
        self.added: list[Hashable] = []  # the keys the graph being rebuilt added to seen

    def graph(self, graph: Graph) -> Graph:
        # NOTE: a graph's keys are removed when it is done (not a copy of ``seen`` per
        # region, which is quadratic in a graph with many ifs)
        outer, self.added = self.added, []
        try:
            return super().graph(graph)
        finally:
            for key in self.added:
                del self.seen[key]
            self.added = outer

    def node(self, node: Node) -> Value | None:
        key = None if self.effects.node(node) else node_key(node)
        if key is None:
            return None
        found = self.seen.setdefault(key, node.out)
        if found is node.out:
            self.added.append(key)
            return None
        return found


def node_key(node: Node) -> Hashable | None:
    """What two nodes must share to compute the same value; None if not hashable."""
    key = (node.op, tuple(_value_key(v) for v in node.inputs),
           tuple((k, _attr_key(v)) for k, v in node.attrs))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _value_key(v: Value) -> Hashable:
    if isinstance(v, Const):
        return (v, _zero_signs(v.value))
    return v


def _attr_key(v: Any) -> Any:
    if isinstance(v, Graph):  # callees and regions: by identity (map_graphs shares them)
        return ("graph", v.name, id(v))
    return (v, _zero_signs(v))


def _zero_signs(v: Any) -> Any:
    """Float scalars compare 0.0 == -0.0; arrays already compare by their bytes."""
    if isinstance(v, float):
        return math.copysign(1.0, v)
    if isinstance(v, tuple):
        return tuple(_zero_signs(x) for x in v)
    return None
