"""Inline called graphs, except reusable ones (those are compiled once and called).

Callees are inlined before their callers, so one sweep removes nested calls too;
graphs that are no longer called from the entry are dropped from the module.
"""

from __future__ import annotations

from msc.ir.nodes import Graph, Module
from msc.ir.rewrite import all_graphs, callee, recursion_target, walk
from msc.ir.transform import InlineCalls


def inline(module: Module) -> Module:
    """Replace each ``Call`` of a graph without the ``reusable`` flag by a copy of the
    callee's nodes with fresh values, its parameters bound to the call's arguments.

    Before::

        subgraph @main(%para1_x) {
          %0 = @Block(%para1_x) : <Tensor[Float32], (2)>
          Return(%0)
        }

        subgraph @Block(%para2_y : <Tensor[Float32], (2)>) {
          %0 = Neg(%para2_y) : <Tensor[Float32], (2)>
          Return(%0)
        }

    After::

        subgraph @main(%para1_x) {
          %0 = Neg(%para1_x) : <Tensor[Float32], (2)>
          Return(%0)
        }
    """
    if not any(callee(n) or recursion_target(n) for g in module.graphs for n in walk(g)):
        return Module(tuple(g for g in module.graphs if g.name == module.entry), module.entry)
    inlined = InlineCalls(keep=_reusable).module(module)
    return Module(_reachable(inlined), inlined.entry)


def _reusable(graph: Graph) -> bool:
    return graph.reusable


def _reachable(module: Module) -> tuple[Graph, ...]:
    """The module's graphs still reachable from the entry through calls (a ``Recurse``
    reaches the graph of its name)."""
    graphs = {g.name: g for g in all_graphs(module)}
    keep = {module.entry}
    stack = [module.entry]
    while stack:
        for node in walk(graphs[stack.pop()]):
            body = callee(node)
            name = body.name if body is not None else recursion_target(node)
            if name is not None and name not in keep:
                keep.add(name)
                stack.append(name)
    return tuple(g for g in module.graphs if g.name in keep)
