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
from msc.ir.builder import Builder, make_node
from msc.ir.nodes import Const, Graph, Module, Node, Value, Var
from msc.ir.primitives import Effect, Op
from msc.ir.rewrite import all_graphs, tuple_parts, walk
from msc.ir.transform import Copier, Transformer
from msc.ir.types import MonadType, TupleType, tensor_of

#: Most a region may cost per element (the sum of its primitives' costs) to be selected.
MAX_COST = 16.0


def if_to_select(module: Module) -> tuple[Module, list[str]]:
    """The module with every cheap ``If`` that does not print replaced; and the report's
    notes."""
    if not any(n.op is Op.If for g in all_graphs(module) for n in walk(g)):
        return module, []  # nothing to convert
    rewrite = _Rewrite()
    out = rewrite.module(module)
    if not rewrite.converted and not rewrite.kept:
        return out, []
    notes = [f"{rewrite.converted} tensor if(s) became Select, {len(rewrite.kept)} kept"]
    return out, notes + [f"kept the if at {k}" for k in rewrite.kept]


class _Rewrite(Transformer):
    def __init__(self) -> None:
        super().__init__()
        self.converted = 0
        self.kept: list[str] = []
        self.selected: dict[Var, list[Value]] = {}  # a converted If's result -> its Selects

    def node(self, node: Node) -> Value | None:
        source = node.inputs[0] if node.inputs else None
        if node.op is Op.TupleGetItem and source in self.selected:
            return self.selected[source][node.attr["index"]]  # type: ignore[index]
        if node.op is not Op.If:
            return None
        why = _why_kept(node)
        if why:
            where = f"{node.loc.file}:{node.loc.line}" if node.loc else "an unknown line"
            self.kept.append(f"{where} ({why})")
            return None
        self.converted += 1
        return self.select(node)

    def select(self, node: Node) -> Value:
        """Both regions' nodes (fresh copies, their writes turned into values), then one
        Select per result, and for each weight a branch wrote, one write of the Select of
        both branches' values; the tuple of the results, for any use of the If's result
        other than unpacking."""
        writes = _Writes(self.b, _entry_state(node))
        results, finals = [], []
        for region in (node.attr["then"], node.attr["orelse"]):
            branch = _Branch(self.nodes, writes)
            branch.run(region, node.inputs[1:])
            results.append([branch.read(v) for v in _results(region)])
            finals.append(branch.final)
        cond = node.inputs[0]
        selects = [_select(self.b, cond, a, b) for a, b in zip(*results)]
        # a branch writes: the If's first state result is the state after it (the If of a
        # differentiated graph returns its residuals after it)
        state = next((i for i, s in enumerate(selects) if isinstance(s.type, MonadType)), None)
        if state is not None:
            refs = list(dict.fromkeys([*finals[0], *finals[1]]))
            pairs = [[f.get(r) or writes.load(r) for f in finals] for r in refs]
            selects[state] = writes.store(refs, [_select(self.b, cond, *p) for p in pairs])
        out = self.b.append(make_node(Op.MakeTuple, tuple(selects), {}, node.loc, node.out.hint))
        self.selected[out] = selects
        return out


def _results(region: Graph) -> list[Value]:
    """What a region returns: the elements of its result tuple."""
    parts = tuple_parts(region.nodes, region.output)
    if parts is not None:
        return list(parts)
    if isinstance(region.output, Const) and isinstance(region.output.value, tuple):
        return [Const(v) for v in region.output.value]
    raise InternalCompilerError(f"region @{region.name} does not return a tuple")


def _select(b: Builder, cond: Value, x: Value, y: Value) -> Value:
    """``Select(cond, x, y)``; the state token passes through (both are the same); a
    tuple is selected element by element."""
    if isinstance(x.type, MonadType) or x is y:
        return x
    if isinstance(x.type, TupleType):
        return b.tuple(*(_select(b, cond, b.getitem(x, i), b.getitem(y, i))
                         for i in range(len(x.type.elems))))
    t = tensor_of(x.type)
    if t is not None and t.ndim < tensor_of(cond.type).ndim:  # type: ignore[union-attr]
        cond = b.emit(Op.Reshape, cond, shape=())  # one element, broadcast by Select
    return b.emit(Op.Select, cond, x, y)


class _Writes:
    """A branch's writes as values: each weight's value in the If's entry state (a
    ``Load``, made once for both branches), and ``store``, which then writes the selected
    values once, unconditionally, from the state the If started in."""

    def __init__(self, b: Builder, state: Value | None):
        self.b = b
        self.state = state
        self.loads: dict[Var, Var] = {}  # weight -> its Load in the If's entry state

    def load(self, ref: Var) -> Var:
        if ref not in self.loads:
            self.loads[ref] = self.b.emit(Op.Load, ref, self.state)
        return self.loads[ref]

    def store(self, refs: list[Var], values: list[Value]) -> Value:
        """Write ``values`` to ``refs`` after the loads; the state after the writes."""
        u: Value = self.state  # type: ignore[assignment]
        if self.loads:
            u = self.b.emit(Op.UpdateState, u, *self.loads.values())
        for ref, value in zip(refs, values):
            written = self.b.emit(Op.Assign, ref, value, u)
            u = self.b.emit(Op.UpdateState, u, written)
        return u


class _Branch(Copier):
    """Copies one region in the If's place: a write becomes the weight's new value (in
    ``final``), which later reads in the branch use, and the state stays the If's."""

    def __init__(self, nodes: list[Node], writes: _Writes):
        super().__init__(nodes)
        self.writes = writes
        self.final: dict[Var, Value] = {}  # weight -> its value after the branch

    def node(self, node: Node) -> Value | None:
        ref = node.inputs[0] if node.inputs else None
        if node.op.writes:
            old = self.final.get(ref) or self.writes.load(ref)  # type: ignore[arg-type]
            value = node.inputs[1] if node.op.update is None else \
                self.b.emit(node.op.update, old, node.inputs[1])
            self.final[ref] = _as_type(self.b, value, node.out.type)  # type: ignore[index]
            return self.final[ref]  # type: ignore[index]
        if node.op is Op.Load:
            return self.final.get(ref) or self.writes.load(ref)  # type: ignore[arg-type]
        if node.op is Op.UpdateState:
            return self.writes.state
        return super().node(node)


def _as_type(b: Builder, value: Value, t: Any) -> Value:
    """``value`` as a tensor of type ``t`` (a write converts and broadcasts its value)."""
    if isinstance(value, Const) and not isinstance(value.value, np.ndarray):
        value = Const(np.asarray(value.value, t.dtype.np))
    if tensor_of(value.type).dtype != t.dtype:  # type: ignore[union-attr]
        value = b.cast(value, dtype=t.dtype)
    if tensor_of(value.type).shape != t.shape:  # type: ignore[union-attr]
        value = b.broadcast_to(value, shape=t.shape)
    return value


def _entry_state(node: Node) -> Value | None:
    """The state an If's regions start in: the token they take from outside (None when
    they neither write nor print)."""
    for region in (node.attr["then"], node.attr["orelse"]):
        defined = {n.out for n in region.nodes}
        bound = dict(zip(region.params, node.inputs[1:]))  # (closure-converted regions)
        for v in [v for n in region.nodes for v in n.inputs] + [region.output]:
            if isinstance(v.type, MonadType) and v not in defined:
                return bound.get(v, v)  # type: ignore[call-overload]
    return None


def _why_kept(node: Node) -> str:
    cost = 0.0
    for region in (node.attr["then"], node.attr["orelse"]):
        for n in walk(region):
            # a loop or a recursion might only end under the condition
            if n.op in (Op.Call, Op.Recurse, Op.If, Op.While):
                return f"a branch holds a {n.op.name.lower()}"
            if n.op.effect is Effect.IO:  # reads run anyway, writes become selected values
                return f"a branch has a side effect ({n.op.name})"
            cost += n.op.cost
    if cost > MAX_COST:
        return f"its branches cost {cost:g} per element, more than {MAX_COST:g}"
    return ""
