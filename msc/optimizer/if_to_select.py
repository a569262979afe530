"""Turn a cheap tensor ``if`` into ``Select``: compute both branches, then pick.

A branch costs a jump the code generator cannot fuse across; when both regions are
free of side effects and cheap (their primitives' costs add up to at most
``MAX_COST`` per element), running both and selecting each result is faster, and the
surrounding elementwise code fuses into one loop. MindSpore leaves this rewrite to the
user (the reference tutorial's "Using select Operator"); msc does it for them.

Before::

    %2 = If(%1, then=@then, orelse=@else) : (<Tensor[Int64], (1)>)
        region @then() { %0 = Sub(%para1_x, %para2_y)  Return(MakeTuple(%0)) }
        region @else() { %0 = Add(%para1_x, %para2_y)  Return(MakeTuple(%0)) }
    %3 = TupleGetItem(%2, 0)

After::

    %a = Sub(%para1_x, %para2_y)
    %b = Add(%para1_x, %para2_y)
    %3 = Select(%1, %a, %b)
"""

from __future__ import annotations

from typing import Any

from msc.errors import InternalCompilerError
from msc.ir.nodes import Const, Graph, Module, Node, Value, Var, make_attrs
from msc.ir.primitives import get, infer_type
from msc.ir.rewrite import (copy_nodes, map_graphs, map_regions, subst, subst_inputs,
                            tuple_parts, walk)
from msc.ir.types import tensor_of

#: Most a region may cost per element (the sum of its primitives' costs) to be selected.
MAX_COST = 16.0


def if_to_select(module: Module) -> tuple[Module, list[str]]:
    """The module with every cheap, effect-free ``If`` replaced; and the report's notes."""
    rewrite = _Rewrite()
    out = map_graphs(module, lambda g: rewrite.graph(g, {}))
    if not rewrite.converted and not rewrite.kept:
        return out, []
    notes = [f"{rewrite.converted} tensor if(s) became Select, {len(rewrite.kept)} kept"]
    return out, notes + [f"kept the if at {k}" for k in rewrite.kept]


class _Rewrite:
    def __init__(self) -> None:
        self.converted = 0
        self.kept: list[str] = []
        self.selected: dict[Var, list[Value]] = {}  # an If's result -> its Selects

    def graph(self, graph: Graph, env: dict[Var, Value]) -> Graph:
        nodes: list[Node] = []
        for node in graph.nodes:
            node = subst_inputs(node, env)
            source = node.inputs[0] if node.inputs else None
            if node.op == "TupleGetItem" and source in self.selected:
                env[node.out] = self.selected[source][node.attr["index"]]  # type: ignore
                continue
            node = map_regions(node, lambda r: self.graph(r, env))
            why = _why_kept(node) if node.op == "If" else "not an if"
            if why == "not an if":
                nodes.append(node)
            elif why:
                where = f"{node.loc.file}:{node.loc.line}" if node.loc else "an unknown line"
                self.kept.append(f"{where} ({why})")
                nodes.append(node)
            else:
                self.converted += 1
                nodes.extend(self.select(node))
        return Graph(graph.name, graph.params, tuple(nodes), subst(graph.output, env),
                     graph.flags)

    def select(self, node: Node) -> list[Node]:
        """Both regions' nodes (fresh copies), then one Select per result (and the tuple
        of them, for any use of the If's result other than unpacking)."""
        out: list[Node] = []
        results = []
        for region in (node.attr["then"], node.attr["orelse"]):
            inner: dict[Var, Value] = {}
            out.extend(copy_nodes(region.nodes, inner))
            results.append([subst(v, inner) for v in _results(region)])
        cond = node.inputs[0]
        cond_ndim = tensor_of(cond.type).ndim  # type: ignore[union-attr]
        selects: list[Value] = []
        for a, b in zip(*results):
            t = tensor_of(a.type)
            c = cond
            if t is not None and t.ndim < cond_ndim:  # a (1,) condition for 0-d results
                c = _emit(out, "Reshape", (cond,), {"shape": t.shape}, node)
            selects.append(_emit(out, "Select", (c, a, b), {}, node))
        self.selected[node.out] = selects
        out.append(Node("MakeTuple", tuple(selects), make_attrs({}), node.out, node.loc))
        return out


def _results(region: Graph) -> list[Value]:
    """What a region returns: the elements of its result tuple."""
    parts = tuple_parts(region.nodes, region.output)
    if parts is not None:
        return list(parts)
    if isinstance(region.output, Const) and isinstance(region.output.value, tuple):
        return [Const(v) for v in region.output.value]
    raise InternalCompilerError(f"region @{region.name} does not return a tuple")


def _why_kept(node: Node) -> str:
    cost = 0.0
    for region in (node.attr["then"], node.attr["orelse"]):
        for n in walk(region):
            if n.op in ("Call", "If", "While"):  # a loop might only end under the condition
                return f"a branch holds a {'call' if n.op == 'Call' else n.op.lower()}"
            prim = get(n.op)
            if prim.effect not in ("none", "read"):  # reads may run unconditionally
                return f"a branch has a side effect ({n.op})"
            cost += prim.cost
    if cost > MAX_COST:
        return f"its branches cost {cost:g} per element, more than {MAX_COST:g}"
    return ""


def _emit(out: list[Node], op: str, inputs: tuple[Value, ...], attrs: dict[str, Any],
          node: Node) -> Var:
    var = Var(infer_type(get(op), tuple(v.type for v in inputs), attrs))
    out.append(Node(op, inputs, make_attrs(attrs), var, node.loc))
    return var
