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

from msc.ir.nodes import Graph, Node, Value, Var, make_attrs
from msc.ir.rewrite import callee, subst, subst_inputs
from msc.ir.types import TupleType

REUSABLE = frozenset({"reusable"})


def needs_split(graph: Graph) -> bool:
    return any(callee(n) is not None for n in graph.nodes)


def split_entry(graph: Graph) -> Graph:
    """The orchestrator of ``graph``: its calls, and one call per part in between."""
    keep = _orchestrated(graph)
    nodes: list[Node] = []
    env: dict[Var, Value] = {}
    run: list[Node] = []
    for i, node in enumerate(graph.nodes):
        if node.out in keep:
            nodes += _part(graph, run, i, env, len(nodes))
            run = []
            nodes.append(subst_inputs(node, env))
        else:
            run.append(node)
    nodes += _part(graph, run, len(graph.nodes), env, len(nodes))
    return Graph(graph.name, graph.params, tuple(nodes), subst(graph.output, env), graph.flags)


def _orchestrated(graph: Graph) -> set[Var]:
    """Calls stay in the orchestrator; so do tuple operations on what it already holds
    (unpacking a call's results), and the MakeTuples that only build the output (``run``
    rebuilds that structure itself). A kernel for those alone would be a waste."""
    keep = set(graph.params)
    for n in graph.nodes:
        plain = n.op in ("TupleGetItem", "MakeTuple") and \
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
        if n.op == "MakeTuple" and (n.out in output_only or n.out in users) and \
                all(u in output_only for u in users.get(n.out, [])):
            output_only.add(n.out)
            keep.add(n.out)
    return keep - set(graph.params)


def _part(graph: Graph, run: list[Node], end: int, env: dict[Var, Value],
          index: int) -> list[Node]:
    """The orchestrator's nodes calling one part: the call, then one TupleGetItem per
    value the rest of the graph uses (``env`` maps those values to their new names)."""
    if not run:
        return []
    members = {n.out for n in run}
    later = {v for n in graph.nodes[end:] for v in n.inputs} | {graph.output}
    live_out = [n.out for n in run if n.out in later]
    if not live_out:
        return []
    live_in: list[Var] = []
    for n in run:
        for v in n.inputs:
            if isinstance(v, Var) and v not in members and v not in live_in:
                live_in.append(v)
    body = list(run)
    output: Value = live_out[0]
    if len(live_out) > 1:
        output = Var(TupleType(tuple(v.type for v in live_out)))
        body.append(Node("MakeTuple", tuple(live_out), make_attrs({}), output))
    part = Graph(f"{graph.name}_part{index}", tuple(live_in), tuple(body), output, REUSABLE)
    call = Node("Call", tuple(subst(v, env) for v in live_in), make_attrs({"graph": part}),
                Var(output.type))
    if len(live_out) == 1:
        env[live_out[0]] = call.out
        return [call]
    nodes = [call]
    for k, v in enumerate(live_out):
        item = Node("TupleGetItem", (call.out,), make_attrs({"index": k}), Var(v.type, v.hint))
        env[v] = item.out
        nodes.append(item)
    return nodes
