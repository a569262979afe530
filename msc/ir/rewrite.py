"""The shared helpers passes use to read and build graphs (a pass rebuilds a graph with
``msc.ir.transform.Transformer``); no pass edits a graph in place.

Values are substituted through an ``env`` (Var -> Value) while a graph is rebuilt in
order. Region graphs (graph-valued attrs of nodes other than ``Call``) may use values
of the enclosing graph, so substitution and use counts reach into them; a ``Call``'s
``graph`` attr is a callee, not a region, and ``map_graphs`` keeps it pointing at the
callee's rewritten version.
"""

from __future__ import annotations

from typing import Callable, Iterator, Mapping, Sequence

from msc.errors import InternalCompilerError
from msc.ir.nodes import Graph, Module, Node, Value, Var
from msc.ir.primitives import Effect, Op
from msc.ir.types import MonadType

_CALL, _RECURSE = Op.Call, Op.Recurse


def tuple_parts(nodes: Sequence[Node], value: Value) -> tuple[Value, ...] | None:
    """The elements of ``value`` if one of ``nodes`` built it with ``MakeTuple``, else None."""
    made = next((n for n in nodes if n.out is value), None)
    return made.inputs if made is not None and made.op is Op.MakeTuple else None


def subst(value: Value, env: Mapping[Var, Value]) -> Value:
    """``value`` after the replacements in ``env`` (Consts stay as they are)."""
    return env.get(value, value) if isinstance(value, Var) else value


def callee(node: Node) -> Graph | None:
    """The graph a ``Call`` node calls, else None."""
    if node.op is not _CALL:
        return None
    g = next((v for k, v in node.attrs if k == "graph"), None)
    return g if isinstance(g, Graph) else None


def recursion_target(node: Node) -> str | None:
    """The name of the graph a ``Recurse`` node calls (the module holds it), else None."""
    return node.attr["graph"] if node.op is _RECURSE else None  # type: ignore[no-any-return]


def regions(node: Node) -> tuple[Graph, ...]:
    """Graph-valued attrs that are nested regions (If/While bodies), not callees."""
    # NOTE: called for every node by every walk: most nodes have no attrs at all
    if not node.attrs or node.op is _CALL:
        return ()
    return tuple(v for _, v in node.attrs if isinstance(v, Graph))


def map_regions(node: Node, fn: Callable[[Graph], Graph]) -> Node:
    """``node`` with each region replaced by ``fn(region)`` (``node`` if none changed)."""
    if not regions(node):
        return node
    attrs = tuple((k, fn(v) if isinstance(v, Graph) else v) for k, v in node.attrs)
    if all(new is old for (_, new), (_, old) in zip(attrs, node.attrs)):
        return node
    return Node(node.op, node.inputs, attrs, node.out, node.loc)


def subst_inputs(node: Node, env: Mapping[Var, Value]) -> Node:
    """``node`` with its inputs replaced (its regions as they are)."""
    inputs = tuple(subst(v, env) for v in node.inputs)
    return Node(node.op, inputs, node.attrs, node.out, node.loc)


def substitute(node: Node, env: Mapping[Var, Value]) -> Node:
    """``node`` with its inputs, and the outer values its regions use, replaced."""
    return map_regions(subst_inputs(node, env), lambda g: substitute_graph(g, env))


def substitute_graph(graph: Graph, env: Mapping[Var, Value]) -> Graph:
    nodes = tuple(substitute(n, env) for n in graph.nodes)
    return with_body(graph, nodes, subst(graph.output, env))


def with_body(graph: Graph, nodes: tuple[Node, ...], output: Value) -> Graph:
    return Graph(graph.name, graph.params, nodes, output, graph.flags)


def with_attr(node: Node, name: str, value: object) -> Node:
    attrs = tuple((k, value if k == name else v) for k, v in node.attrs)
    return Node(node.op, node.inputs, attrs, node.out, node.loc)


# --- uses ------------------------------------------------------------------------------


def uses(graph: Graph) -> Iterator[Value]:
    """Every operand use in ``graph``, its regions and its output, in order."""
    for node in graph.nodes:
        yield from node.inputs
        for region in regions(node):
            yield from uses(region)
    yield graph.output


def use_counts(graph: Graph) -> dict[Var, int]:
    """How often each Var is used in ``graph`` (regions and the output included)."""
    counts: dict[Var, int] = {}
    for v in uses(graph):
        if isinstance(v, Var):
            counts[v] = counts.get(v, 0) + 1
    return counts


def free_vars(graph: Graph) -> set[Var]:
    """Vars a region uses but does not define: values of the enclosing graphs."""
    return set(captures(graph))


def captures(graph: Graph) -> tuple[Var, ...]:
    """``free_vars`` in the order of their first use."""
    defined = set(graph.params)
    for node in walk(graph):
        defined.add(node.out)
        for region in regions(node):
            defined.update(region.params)
    return tuple(dict.fromkeys(v for v in uses(graph) if isinstance(v, Var) and v not in defined))


def walk(graph: Graph) -> Iterator[Node]:
    """The nodes of ``graph`` and of its regions, in program order."""
    for node in graph.nodes:
        yield node
        for region in regions(node):
            yield from walk(region)


# --- effects ---------------------------------------------------------------------------


class Effects:
    """Which nodes have side effects; a ``Call`` or region node has those of its body.

    Writes and IO count; a ``Load`` does not: it is a read whose state-token input makes
    two loads equal exactly when no write lies between them, so dropping an unused one
    or merging equal ones is safe.
    """

    def __init__(self) -> None:
        self._graphs: dict[int, tuple[Graph, bool]] = {}  # holds the graph: ids stay unique

    def node(self, node: Node) -> bool:
        body = callee(node)
        if body is not None:
            return self.graph(body)
        if node.op.effect not in (Effect.NONE, Effect.READ):
            return True
        return any(self.graph(r) for r in regions(node))

    def graph(self, graph: Graph) -> bool:
        key = id(graph)
        if key not in self._graphs:
            self._graphs[key] = (graph, False)  # NOTE: breaks recursion; none is expected
            self._graphs[key] = (graph, any(self.node(n) for n in graph.nodes))
        return self._graphs[key][1]


# --- module-level driving --------------------------------------------------------------


def all_graphs(module: Module) -> tuple[Graph, ...]:
    """The module's graphs, then callees reachable from them that it does not list."""
    seen = {g.name: g for g in module.graphs}
    order = list(module.graphs)
    stack = list(module.graphs)
    while stack:
        for node in walk(stack.pop()):
            g = callee(node)
            if g is not None and g.name not in seen:
                seen[g.name] = g
                order.append(g)
                stack.append(g)
    return tuple(order)


def callees_first(*graphs: Graph, named: Mapping[str, Graph] | None = None) -> list[Graph]:
    """``graphs`` and the graphs they call, directly or not (calls inside regions too), each
    after the graphs it calls. A callee of a name in ``named`` is the graph found there
    (a module's own graphs stand for their names), else the first one a call holds; a
    ``Recurse`` reaches the graph of its name in ``named``."""
    named = named or {}
    seen: set[str] = set()
    order: list[Graph] = []

    def visit(g: Graph) -> None:
        g = named.get(g.name, g)
        if g.name in seen:
            return
        seen.add(g.name)
        for node in walk(g):
            c = callee(node)
            if c is not None:
                visit(c)
            elif (target := recursion_target(node)) is not None and target in named:
                visit(named[target])
        order.append(g)

    for g in graphs:
        visit(g)
    return order


def rebind_calls(graph: Graph, done: Mapping[str, Graph]) -> Graph:
    """``graph`` with each ``Call`` pointing at the rewritten callee of the same name."""
    def fix(node: Node) -> Node:
        g = callee(node)
        if g is not None and g.name in done and done[g.name] is not g:
            return with_attr(node, "graph", done[g.name])
        return map_regions(node, lambda r: rebind_calls(r, done))

    nodes = tuple(fix(n) for n in graph.nodes)
    if all(a is b for a, b in zip(nodes, graph.nodes)):
        return graph
    return with_body(graph, nodes, graph.output)


def map_graphs(module: Module, fn: Callable[[Graph], Graph]) -> Module:
    """Apply ``fn`` to every graph, callees before callers, so each graph ``fn`` sees
    already calls the rewritten versions of its callees. Keeps the module's graph order."""
    done: dict[str, Graph] = {}
    graphs = all_graphs(module)
    for g in callees_first(*graphs, named={g.name: g for g in graphs}):
        done[g.name] = fn(rebind_calls(g, done))
    return Module(tuple(done[g.name] for g in module.graphs), module.entry)


def result_and_state(graph: Graph) -> tuple[Value, Value]:
    """(the graph's result, its final state): a graph that writes ends in
    ``Depend(result, state)``; one that does not ends with the state it was given."""
    made = next((n for n in graph.nodes if n.out is graph.output), None)
    if made is not None and made.op is Op.Depend and isinstance(made.inputs[1].type, MonadType):
        return made.inputs[0], made.inputs[1]
    state = next((p for p in graph.params if isinstance(p.type, MonadType)), None)
    if state is None:
        raise InternalCompilerError("a transformed graph takes the state")
    return graph.output, state
