"""Dead-code elimination: drop nodes whose results nothing uses.

A node with a side effect (an op whose ``Primitive.effect`` is not "none", a call of
a graph containing one, an op the table does not know) always stays: the token
chain, not the data flow, keeps ``Assign`` and ``Print`` alive.
"""

from __future__ import annotations

from msc.ir.nodes import Graph, Module, Node, Var
from msc.ir.rewrite import Effects, free_vars, map_graphs, map_regions, regions, with_body


def dce(module: Module) -> Module:
    """Remove unused, effect-free nodes, in regions too; parameters stay.

    Before::

        subgraph @f(%para1_x) {
          %0 = Exp(%para1_x) : <Tensor[Float32], (2)>
          %1 = Neg(%para1_x) : <Tensor[Float32], (2)>
          %2 = Abs(%1) : <Tensor[Float32], (2)>
          Return(%0)
        }

    After::

        subgraph @f(%para1_x) {
          %0 = Exp(%para1_x) : <Tensor[Float32], (2)>
          Return(%0)
        }
    """
    effects = Effects()
    return map_graphs(module, lambda g: _dce_graph(g, effects))


def _dce_graph(graph: Graph, effects: Effects) -> Graph:
    live: set[Var] = {graph.output} if isinstance(graph.output, Var) else set()
    kept: list[Node] = []
    for node in reversed(graph.nodes):
        if node.out not in live and not effects.node(node):
            continue
        node = map_regions(node, lambda g: _dce_graph(g, effects))
        live.update(v for v in node.inputs if isinstance(v, Var))
        for region in regions(node):
            live.update(free_vars(region))
        kept.append(node)
    return with_body(graph, tuple(reversed(kept)), graph.output)
