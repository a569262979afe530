"""Split an entry graph that calls shared graphs into Numba-sized pieces.

Numba's compile time grows with the size of a function: with every argument it
unboxes and every call site it lowers. An entry that calls a shared block N times
would take N times the block's weights as arguments and hold N call sites, so its
compile would grow with N even though the block compiles once. Instead, the entry
becomes plain Python (the *orchestrator*) that calls one Numba kernel per run of
ordinary nodes between calls (a *part*) and the shared graphs' kernels for its calls.
What Numba compiles then does not depend on N; each call costs one dispatch from
Python (a few microseconds).

Before::

    @main(x, w0, w1, w2) { a = Neg(x); b = @Block(a, w0); c = @Block(b, w1); d = Exp(c) ... }

After::

    @main(x, w0, w1, w2) { a = @main_part0(x); b = @Block(a, w0); c = @Block(b, w1); ... }
    @main_part0(x) { a = Neg(x) }          # reusable: lowered as a Numba kernel
"""

from __future__ import annotations

from typing import Callable

from msc.ir.builder import Builder, make_node
from msc.ir.nodes import REUSABLE, Graph, Node, Value, Var
from msc.ir.primitives import Op
from msc.ir.rewrite import callee, captures, regions, substitute_graph
from msc.ir.transform import Transformer


def needs_split(graph: Graph) -> bool:
    return any(callee(n) is not None for n in graph.nodes)


def split_entry(graph: Graph) -> Graph:
    """The orchestrator of ``graph``: its calls, and one call per part in between."""
    return _Split(graph).graph(graph)


class _Split(Transformer):
    """Holds back each run of nodes between orchestrated ones; when the run ends, calls a
    part made of it (``flush``) and maps the values used later to the call's results."""

    def __init__(self, graph: Graph):
        super().__init__()
        self.source = graph
        self.keep = _orchestrated(graph)
        self.pending: list[Node] = []
        self.seen = 0  # how many of the graph's nodes the walk has passed

    def graph(self, graph: Graph) -> Graph:
        """Regions stay as they are: their nodes go into a part with their If or While."""
        return super().graph(graph) if graph is self.source else graph

    def node(self, node: Node) -> Value | None:
        self.seen += 1
        if node.out not in self.keep:
            self.pending.append(node)
            return node.out  # until its part is called
        self.flush(self.seen - 1)
        return self.b.append(self.rebuild(node))  # (reads the part's results)

    def output(self, graph: Graph) -> Value:
        self.flush(len(graph.nodes))
        return super().output(graph)

    def flush(self, end: int) -> None:
        run, self.pending = self.pending, []
        if run:
            self.env.update(_part(self.source, run, end, Builder(None, self.nodes), self.read))


def _orchestrated(graph: Graph) -> set[Var]:
    """Calls stay in the orchestrator; so do tuple operations on what it already holds
    (unpacking a call's results), and the MakeTuples that only build the output (``run``
    rebuilds that structure itself). A kernel for those alone would be a waste."""
    keep = set(graph.params)
    for n in graph.nodes:
        plain = n.op in (Op.TupleGetItem, Op.MakeTuple) and \
            all(v in keep for v in n.inputs if isinstance(v, Var))
        if callee(n) is not None or plain:
            keep.add(n.out)
    users: dict[Var, list[Var]] = {}
    for n in graph.nodes:
        for v in n.inputs:
            if isinstance(v, Var):
                users.setdefault(v, []).append(n.out)
    output_only = {graph.output}
    for n in reversed(graph.nodes):
        if n.op is Op.MakeTuple and (n.out in output_only or n.out in users) and \
                all(u in output_only for u in users.get(n.out, [])):
            output_only.add(n.out)
            keep.add(n.out)
    return keep - set(graph.params)


def _part(graph: Graph, run: list[Node], end: int, b: Builder,
          read: Callable[[Value], Value]) -> dict[Var, Value]:
    """Calls one part (with ``b``) on its inputs' current values (``read``: an earlier
    part may have made them): the call, then one TupleGetItem per value the rest of the
    graph uses; those values mapped to their new names."""
    members = {n.out for n in run}
    later = {v for n in graph.nodes[end:] for v in _reads(n)} | {graph.output}
    live_out = [n.out for n in run if n.out in later]
    if not live_out:
        return {}
    live_in = list(dict.fromkeys(v for n in run for v in _reads(n)
                                 if isinstance(v, Var) and v not in members))
    body = list(run)
    output: Value = live_out[0] if len(live_out) == 1 else Builder(None, body).tuple(*live_out)
    params = tuple(Var(v.type, v.hint) for v in live_in)
    part = Graph(f"{graph.name}_part{len(b.nodes)}", params, tuple(body), output,
                 frozenset({REUSABLE}))
    part = substitute_graph(part, dict(zip(live_in, params)))
    call = b.emit(Op.Call, *map(read, live_in), graph=part)
    if len(live_out) == 1:
        return {live_out[0]: call}
    return {v: b.append(make_node(Op.TupleGetItem, (call,), {"index": k}, None, v.hint))
            for k, v in enumerate(live_out)}


def _reads(node: Node) -> list[Value]:
    """What ``node`` reads: its operands and the outer values its regions use."""
    return [*node.inputs, *(v for r in regions(node) for v in captures(r))]
