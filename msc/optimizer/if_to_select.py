"""Turn a cheap tensor ``if`` into ``Select``: compute both branches, then pick.

A branch costs a jump the code generator cannot fuse across; when both regions are
cheap (their primitives' costs add up to at most ``MAX_COST`` per element) and do not
print, running both and selecting each result is faster, and the surrounding
elementwise code fuses into one loop. A write in a branch becomes a value (the
weight's new value, which later reads in that branch use), and after the selects each
weight a branch wrote is written once, with the selected value: a predicated write.
MindSpore leaves this rewrite to the user (the reference tutorial's "Using select
Operator"); msc does it for them.

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

import numpy as np

from msc.errors import InternalCompilerError
from msc.ir.nodes import Const, Graph, Module, Node, Value, Var, make_attrs
from msc.ir.primitives import get, infer_type
from msc.ir.primitives.effects import WRITES
from msc.ir.rewrite import (
    copy_nodes,
    map_graphs,
    map_regions,
    subst,
    subst_inputs,
    tuple_parts,
    walk,
)
from msc.ir.types import MonadType, tensor_of

#: Most a region may cost per element (the sum of its primitives' costs) to be selected.
MAX_COST = 16.0


def if_to_select(module: Module) -> tuple[Module, list[str]]:
    """The module with every cheap ``If`` that does not print replaced; and the report's
    notes."""
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
        """Both regions' nodes (fresh copies, their writes turned into values), then one
        Select per result, and for each weight a branch wrote, one write of the Select of
        both branches' values (and the tuple of the results, for any use of the If's
        result other than unpacking)."""
        out: list[Node] = []
        writes = _Writes(out, _entry_state(node), node)
        results, finals = [], []
        for region in (node.attr["then"], node.attr["orelse"]):
            values, final = writes.copy(region)
            results.append(values)
            finals.append(final)
        cond = node.inputs[0]
        selects = [_select(out, cond, a, b, node) for a, b in zip(*results)]
        if writes.state is not None:  # the If's last result is the state after it
            refs = list(dict.fromkeys([*finals[0], *finals[1]]))
            pairs = [[f.get(r) or writes.load(r) for f in finals] for r in refs]
            selects[-1] = writes.store(refs, [_select(out, cond, *p, node) for p in pairs])
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


def _select(out: list[Node], cond: Value, a: Value, b: Value, node: Node) -> Value:
    """``Select(cond, a, b)``; the state token passes through (both are the same)."""
    if isinstance(a.type, MonadType):
        return a
    t = tensor_of(a.type)
    if t is not None and t.ndim < tensor_of(cond.type).ndim:  # type: ignore[union-attr]
        cond = _emit(out, "Reshape", (cond,), {"shape": t.shape}, node)  # a (1,) condition
    return _emit(out, "Select", (cond, a, b), {}, node)


class _Writes:
    """A branch's writes as values: copying a region, each write becomes the weight's new
    value, and reads after it read that value; ``store`` then writes the selected values
    once, unconditionally, from the state the If started in."""

    def __init__(self, out: list[Node], state: Value | None, node: Node):
        self.out = out
        self.state = state
        self.node = node
        self.loads: dict[Var, Var] = {}  # weight -> its Load in the If's entry state

    def load(self, ref: Var) -> Var:
        if ref not in self.loads:
            self.loads[ref] = _emit(self.out, "Load", (ref, self.state), {}, self.node)
        return self.loads[ref]

    def copy(self, region: Graph) -> tuple[list[Value], dict[Var, Value]]:
        """The region's nodes copied into ``out``: (its results, each weight's final value)."""
        env: dict[Var, Value] = {}
        final: dict[Var, Value] = {}
        for n in region.nodes:
            n = subst_inputs(n, env)
            ref = n.inputs[0] if n.inputs else None
            if n.op in WRITES:
                old = final.get(ref) or self.load(ref)  # type: ignore[arg-type]
                value = n.inputs[1] if n.op == "Assign" else \
                    _emit(self.out, "Add" if n.op == "AssignAdd" else "Sub",
                          (old, n.inputs[1]), {}, n)
                final[ref] = env[n.out] = _as_type(self.out, value, n.out.type, n)  # type: ignore
            elif n.op == "Load":
                env[n.out] = final.get(ref) or self.load(ref)  # type: ignore[arg-type]
            elif n.op == "UpdateState":
                env[n.out] = self.state  # type: ignore[assignment]
            else:
                self.out.extend(copy_nodes((n,), env))
        return [subst(v, env) for v in _results(region)], final

    def store(self, refs: list[Var], values: list[Value]) -> Value:
        """Write ``values`` to ``refs`` after the loads; the state after the writes."""
        u: Value = self.state  # type: ignore[assignment]
        if self.loads:
            u = _emit(self.out, "UpdateState", (u, *self.loads.values()), {}, self.node)
        for ref, value in zip(refs, values):
            written = _emit(self.out, "Assign", (ref, value, u), {}, self.node)
            u = _emit(self.out, "UpdateState", (u, written), {}, self.node)
        return u


def _as_type(out: list[Node], value: Value, t: Any, node: Node) -> Value:
    """``value`` as a tensor of type ``t`` (a write converts and broadcasts its value)."""
    if isinstance(value, Const) and not isinstance(value.value, np.ndarray):
        value = Const(np.asarray(value.value, t.dtype.np))
    if tensor_of(value.type).dtype != t.dtype:  # type: ignore[union-attr]
        value = _emit(out, "Cast", (value,), {"dtype": t.dtype}, node)
    if tensor_of(value.type).shape != t.shape:  # type: ignore[union-attr]
        value = _emit(out, "BroadcastTo", (value,), {"shape": t.shape}, node)
    return value


def _entry_state(node: Node) -> Value | None:
    """The state an If's regions start in: the token they take from outside (None when
    they neither write nor print)."""
    for region in (node.attr["then"], node.attr["orelse"]):
        defined = {n.out for n in region.nodes}
        for v in [v for n in region.nodes for v in n.inputs] + [region.output]:
            if isinstance(v.type, MonadType) and v not in defined:
                return v
    return None


def _why_kept(node: Node) -> str:
    cost = 0.0
    for region in (node.attr["then"], node.attr["orelse"]):
        for n in walk(region):
            if n.op in ("Call", "If", "While"):  # a loop might only end under the condition
                return f"a branch holds a {'call' if n.op == 'Call' else n.op.lower()}"
            prim = get(n.op)
            if prim.effect == "io":  # reads run anyway, writes become selected values
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
