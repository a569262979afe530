"""Walking a graph in order with an environment (Var -> value), after torch.fx: the
``Interpreter`` the reference interpreter runs on, the ``Transformer`` every rewriting
pass is written with, inlining of calls (``inline_calls``) and closure conversion of
regions (``close_regions``).
"""

from __future__ import annotations

import operator
from dataclasses import replace
from typing import Any, Callable, Generic, Sequence, TypeVar

import numpy as np

from msc.errors import Loc, MscError
from msc.ir.builder import Builder, make_node
from msc.ir.nodes import Const, Graph, Module, Node, Value, Var
from msc.ir.primitives import Op
from msc.ir.rewrite import callee, captures, map_graphs, tuple_parts

T = TypeVar("T")


class Walker(Generic[T]):
    """Runs a graph's nodes in program order, putting each node's value (``eval``) in
    ``env`` and reading operands through it. A region runs in the same ``env``, so it sees
    the values of the graphs around it: a Var is defined once (SSA), one map serves all."""

    def __init__(self) -> None:
        self.env: dict[Var, T] = {}

    def run(self, graph: Graph, args: Sequence[T]) -> T:
        """``graph``'s nodes with its parameters bound to ``args``; its output's value."""
        self.env.update(zip(graph.params, args))
        for node in graph.nodes:
            self.env[node.out] = self.eval(node)
        return self.output(graph)

    def output(self, graph: Graph) -> T:
        """What ``run`` returns, read after ``graph``'s last node."""
        return self.read(graph.output)

    def read(self, value: Value) -> T:
        return self.const(value) if isinstance(value, Const) else self.env[value]

    def const(self, value: Const) -> T:
        raise NotImplementedError

    def eval(self, node: Node) -> T:
        raise NotImplementedError


class Interpreter(Walker[Any]):
    """Computes values. ``If`` runs one region (its parameters bound to the operands after
    the condition), ``While`` runs its regions until the condition fails, ``Call`` runs the
    callee (``call``), ``Recurse`` the graph of that name it runs inside; any other node is
    the hook ``primitive(node, args)``. An error gets the location of the node it happened
    in."""

    def __init__(self) -> None:
        super().__init__()
        self.graphs: dict[str, Graph] = {}  # the graphs run in this environment, by name

    def const(self, value: Const) -> Any:
        return value.value

    def run(self, graph: Graph, args: Sequence[Any]) -> Any:
        self.graphs.setdefault(graph.name, graph)  # what a ``Recurse`` inside it calls
        return super().run(graph, args)

    def eval(self, node: Node) -> Any:
        args = tuple(self.read(v) for v in node.inputs)
        try:
            return self.apply(node, args)
        except MscError as e:
            raise e.with_loc(node.loc) from None

    def apply(self, node: Node, args: tuple[Any, ...]) -> Any:
        if node.op is Op.If:
            region = node.attr["then"] if self.truth(args[0]) else node.attr["orelse"]
            return self.run(region, args[1:])
        if node.op is Op.While:
            cond, body = node.attr["cond"], node.attr["body"]
            while self.truth(self.run(cond, args)):
                args = self.run(body, args)
            return args
        if node.op is Op.Call:
            return self.call(node.attr["graph"], args)
        if node.op is Op.Recurse:
            return self.call(self.graphs[node.attr["graph"]], args)
        return self.primitive(node, args)

    def truth(self, value: Any) -> bool:
        return bool(np.asarray(value).item())

    def call(self, graph: Graph, args: Sequence[Any]) -> Any:
        """A callee runs in an environment of its own (knowing the graphs by name)."""
        inner = type(self)()
        inner.graphs.update(self.graphs)
        return inner.run(graph, args)

    def primitive(self, node: Node, args: tuple[Any, ...]) -> Any:
        raise NotImplementedError


class Transformer(Walker[Value]):
    """Rebuilds graphs. ``graph(g)`` passes each node of ``g``, its operands replaced
    through ``env`` and its regions already transformed, to the hook ``node``: it may
    append nodes (``self.b`` builds them at the node's location) and returns the value
    that replaces the node's result, or None to keep the node. ``module(m)`` transforms
    every graph, callees first. Unchanged nodes and graphs stay the same objects.

    A pass is a hook::

        class _Double(Transformer):            # x * 2 -> x + x
            def node(self, node):
                if node.op is Op.Mul and node.inputs[1] == Const(2.0):
                    return self.b.emit(Op.Add, node.inputs[0], node.inputs[0])
                return None
    """

    def __init__(self, nodes: list[Node] | None = None) -> None:
        super().__init__()
        self.nodes: list[Node] = [] if nodes is None else nodes  # the list being built
        self.loc: Loc | None = None

    @property
    def b(self) -> Builder:
        """Appends to the node list being built, at the current node's location."""
        return Builder(self.loc, self.nodes)

    def node(self, node: Node) -> Value | None:
        """The hook: the value replacing ``node``'s result, or None to keep ``node``."""
        return None

    def params(self, graph: Graph) -> tuple[Var, ...]:
        """A rebuilt graph's parameters: its own, unless a subclass makes new ones."""
        return graph.params

    def module(self, module: Module) -> Module:
        return map_graphs(module, self.graph)

    def graph(self, graph: Graph) -> Graph:
        """``graph`` rebuilt into a node list of its own (a region sees ``env`` too)."""
        params = self.params(graph)
        outer, self.nodes = self.nodes, []
        try:
            output = self.run(graph, params)
            nodes = tuple(self.nodes)
        finally:
            self.nodes = outer
        if params == graph.params and output is graph.output and _same(nodes, graph.nodes):
            return graph
        return replace(graph, params=params, nodes=nodes, output=output)

    def splice(self, graph: Graph, args: Sequence[Value]) -> Value:
        """``graph``'s nodes copied, with fresh results, into the list being built, its
        parameters bound to ``args``; the copy of its output."""
        return Copier(self.nodes).run(graph, args)

    def read(self, value: Value) -> Value:
        return self.env.get(value, value) if isinstance(value, Var) else value

    def const(self, value: Const) -> Value:
        return value

    def eval(self, node: Node) -> Value:
        node = self.rebuild(node)
        self.loc = node.loc
        value = self.node(node)
        if value is None:
            self.nodes.append(node)
            return node.out
        return value

    def rebuild(self, node: Node) -> Node:
        """``node`` with its operands read through ``env`` and its regions transformed."""
        # NOTE: runs for every node of every pass: the common case (no regions, operands
        # unchanged) allocates nothing but the operand tuple
        inputs = tuple(map(self.read, node.inputs))
        attrs = node.attrs
        if attrs and node.op is not Op.Call and any(isinstance(v, Graph) for _, v in attrs):
            attrs = tuple((k, self.graph(v) if isinstance(v, Graph) else v) for k, v in attrs)
            if not _same((v for _, v in attrs), (v for _, v in node.attrs)):
                return Node(node.op, inputs, attrs, node.out, node.loc)
        if _same(inputs, node.inputs):
            return node
        return Node(node.op, inputs, attrs, node.out, node.loc)


class Copier(Transformer):
    """Copies nodes with fresh results, and regions with fresh parameters; a value from
    outside what it copies stays as it is unless ``env`` maps it."""

    def params(self, graph: Graph) -> tuple[Var, ...]:
        return tuple(Var(p.type, p.hint) for p in graph.params)

    def node(self, node: Node) -> Value | None:
        out = Var(node.out.type, node.out.hint)
        return self.b.append(Node(node.op, node.inputs, node.attrs, out, node.loc))


def _same(a: Any, b: Any) -> bool:
    a, b = tuple(a), tuple(b)
    return len(a) == len(b) and all(map(operator.is_, a, b))


# --- inlining ------------------------------------------------------------------------------


def _never(graph: Graph) -> bool:
    return False


def inline_calls(graph: Graph, *, keep: Callable[[Graph], bool] = _never) -> Graph:
    """``graph`` with each ``Call`` replaced by a copy of its callee (itself inlined first)
    with fresh values, the callee's parameters bound to the call's arguments; the calls of
    a graph ``keep`` accepts stay calls. ``InlineCalls(keep).module(m)`` does it to every
    graph of a module."""
    return InlineCalls(keep).graph(graph)


class InlineCalls(Transformer):
    """The transformer ``inline_calls`` runs; each callee is inlined once per instance."""

    def __init__(self, keep: Callable[[Graph], bool] = _never,
                 inlined: dict[int, tuple[Graph, Graph]] | None = None) -> None:
        super().__init__()
        self.keep = keep
        self.inlined = {} if inlined is None else inlined  # id -> (callee, inlined callee)

    def node(self, node: Node) -> Value | None:
        g = callee(node)
        if g is None or self.keep(g):
            return None
        if id(g) not in self.inlined:  # (the callee is held: ids stay unique)
            self.inlined[id(g)] = (g, InlineCalls(self.keep, self.inlined).graph(g))
        return self.splice(self.inlined[id(g)][1], node.inputs)


# --- closure conversion ------------------------------------------------------------------


def close_regions(graph: Graph) -> Graph:
    """``graph`` with every value a region reads from the graphs around it made an
    explicit operand, innermost regions first.

    ``If(cond, x...; then, orelse)`` becomes ``If(cond, x..., c...; then', orelse')``: both
    regions take ``c...`` as parameters after their own. ``While(init...; cond, body)``
    carries ``c...`` after its own values (the body returns them unchanged), and its result
    is unpacked into the tuple of the original carried values, which the users see::

        %w = While(%i, %c, cond=@cond', body=@body')   # @body' returns (.., %para_c)
        %r = MakeTuple(TupleGetItem(%w, 0))            # what used %w before uses %r
    """
    return _Close().graph(graph)


def close_module(module: Module) -> Module:
    """``close_regions`` on every graph of ``module``."""
    return _Close().module(module)


class _Close(Transformer):
    def node(self, node: Node) -> Value | None:
        if node.op is Op.If:
            return self.close_if(node)
        if node.op is Op.While:
            return self.close_while(node)
        return None

    def close_if(self, node: Node) -> Value | None:
        then, orelse = node.attr["then"], node.attr["orelse"]
        caps = _captures(then, orelse)
        if not caps:
            return None
        regions = {"then": _bind(then, caps), "orelse": _bind(orelse, caps)}
        return self.b.append(make_node(Op.If, node.inputs + caps, regions, node.loc))

    def close_while(self, node: Node) -> Value | None:
        cond, body = node.attr["cond"], node.attr["body"]
        caps = _captures(cond, body)
        if not caps:
            return None
        n = len(node.inputs)
        body = _bind(body, caps)
        nodes = list(body.nodes)
        b = Builder(node.loc, nodes)
        carried = tuple_parts(body.nodes, body.output)
        if carried is None:
            carried = tuple(b.getitem(body.output, i) for i in range(n))
        output = b.tuple(*carried, *body.params[-len(caps):])
        body = replace(body, nodes=tuple(nodes), output=output)
        regions = {"cond": _bind(cond, caps), "body": body}
        loop = self.b.append(make_node(Op.While, node.inputs + caps, regions, node.loc))
        return self.b.tuple(*(self.b.getitem(loop, i) for i in range(n)))


def _captures(*graphs: Graph) -> tuple[Var, ...]:
    """The outer values ``graphs`` read, in order of first use."""
    return tuple(dict.fromkeys(v for g in graphs for v in captures(g)))


def _bind(region: Graph, caps: tuple[Var, ...]) -> Graph:
    """``region`` taking fresh parameters for ``caps`` after its own, and reading them."""
    fresh = tuple(Var(c.type, c.hint) for c in caps)
    substitute = Transformer()
    substitute.env.update(zip(caps, fresh))
    return replace(substitute.graph(region), params=region.params + fresh)
