"""The reference interpreter: runs IR with each primitive's numpy implementation.

It is the oracle every pass and every code generator is tested against, and the
engine that runs compiled graphs until a faster target takes over.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from msc.errors import GraphTypeError
from msc.ir.nodes import Graph, Module, Node, Var
from msc.ir.primitives.base import conform
from msc.ir.rewrite import all_graphs
from msc.ir.transform import Interpreter
from msc.ir.types import TensorType, tensor_of


def interpret(module: Module, inputs: Sequence[Any], weights: Sequence[Any] = ()) -> Any:
    """Run ``module``'s entry graph. ``weights`` follow the graph's weight params in
    order; the result keeps the output's structure (tuples stay tuples)."""
    graph = module.entry_graph
    graphs = {g.name: g for g in all_graphs(module)}  # what a ``Recurse`` may name
    return run_graph(graph, tuple(inputs) + tuple(weights), graphs)


def run_graph(graph: Graph, args: Sequence[Any], graphs: dict[str, Graph] | None = None) -> Any:
    if len(args) != len(graph.params):
        raise GraphTypeError(f"graph @{graph.name} takes {len(graph.params)} arguments "
                             f"({len(graph.inputs)} inputs and {len(graph.weights)} weights), "
                             f"but {len(args)} were given")
    interpreter = _Numpy()
    interpreter.graphs.update(graphs or {})
    return interpreter.run(graph, [_check_arg(p, a) for p, a in zip(graph.params, args)])


class _Numpy(Interpreter):
    """Each primitive by its numpy implementation; a callee's arguments are checked."""

    def primitive(self, node: Node, args: tuple[Any, ...]) -> Any:
        return conform(node.op.impl(*args, **node.attr), node.out.type)

    def call(self, graph: Graph, args: Sequence[Any]) -> Any:
        return run_graph(graph, args, self.graphs)


def _check_arg(param: Var, arg: Any) -> Any:
    t = tensor_of(param.type)
    if t is None:
        return arg
    arr = np.asarray(arg)
    got = TensorType(t.dtype, tuple(arr.shape)) if arr.dtype == t.dtype.np else None
    if got != t:
        raise GraphTypeError(f"argument '{param.hint}' must be {t}, but got an array of "
                             f"dtype {arr.dtype} and shape {arr.shape}")
    return arr
