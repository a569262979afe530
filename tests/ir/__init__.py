"""Graph-building helpers shared by the IR and pass tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msc.errors import Loc
from msc.ir import dtypes
from msc.ir.builder import make_node
from msc.ir.nodes import Const, Graph, Module, Node, Value, Var
from msc.ir.primitives import Op, get
from msc.ir.types import TensorType

F32 = dtypes.float32


def t(*shape: int, dtype: dtypes.DType = F32) -> TensorType:
    return TensorType(dtype, shape)


def emit(nodes: list[Node], op: str, *inputs: Any, loc: Loc | None = None, **attrs: Any) -> Var:
    """Append ``op(inputs; attrs)`` with its inferred type; plain values become Consts."""
    values: tuple[Value, ...] = tuple(v if isinstance(v, (Var, Const)) else Const(v)
                                      for v in inputs)
    nodes.append(make_node(get(op), values, attrs, loc))
    return nodes[-1].out


class B:
    """Builds one graph: ``b.Exp(x)`` appends a node with its inferred type."""

    def __init__(self, name: str, *params: tuple[str, Any], flags: frozenset[str] = frozenset()):
        self.name, self.flags = name, flags
        self.params = tuple(Var(ty, hint) for hint, ty in params)
        self.nodes: list[Node] = []

    def __getattr__(self, op: str) -> Callable[..., Var]:
        def apply(*inputs: Any, loc: Loc | None = None, **attrs: Any) -> Var:
            return emit(self.nodes, op, *inputs, loc=loc, **attrs)
        return apply

    def call(self, graph: Graph, *args: Var) -> Var:
        self.nodes.append(make_node(Op.Call, args, {"graph": graph}))
        return self.nodes[-1].out

    def graph(self, output: Value) -> Graph:
        return Graph(self.name, self.params, tuple(self.nodes), output, self.flags)


def mod(*graphs: Graph) -> Module:
    return Module(graphs, graphs[0].name)
