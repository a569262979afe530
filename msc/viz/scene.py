"""What a picture of an IR module shows, independent of how it is drawn.

Every graph of the module is a box (``Cluster``), and so is every region of an ``If`` or
``While`` inside it. Its parameters (inputs and weights), nodes and ``Return`` are
``Item``s labelled as ``msc ir`` prints them (``%3 = ReLU``, the result's dtype and shape,
the user's line); ``Edge``s run from the item that defines a value to each item that
uses it, those carrying the state token marked ``state`` (drawn dashed). A region's
parameters are fed by the operands of its ``If`` or ``While``, and its ``Return`` feeds
the node back. ``dot.py`` hands this to Graphviz, ``svg.py`` lays it out itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterator

from msc.ir.nodes import Const, Graph, Module, Node, Var
from msc.ir.printer import ModulePrinter, format_value
from msc.ir.rewrite import all_graphs, callee, regions, walk
from msc.ir.types import MonadType, RefType, TupleType, Type, tensor_of


@dataclass
class Item:
    id: str
    title: str            # "%3 = ReLU", "%para1_x", "Return"
    kind: str             # "input", "weight", "node", "return", "more" (nodes left out)
    detail: str = ""      # "float32[4,128]"
    extra: str = ""       # constant operands and attributes
    loc: str = ""         # "mlp.py:24:13"


@dataclass
class Cluster:
    """A graph or region: its items with each region's cluster right after its node."""

    id: str
    title: str
    members: list[Item | Cluster] = field(default_factory=list)

    @property
    def items(self) -> list[Item]:
        return [m for m in self.members if isinstance(m, Item)]


@dataclass(frozen=True)
class Edge:
    src: str
    dst: str
    state: bool = False   # the value is the state token (ordering, not data)
    label: str = ""
    elided: bool = False  # to or from the item standing for nodes left out


@dataclass
class Scene:
    title: str
    clusters: list[Cluster]
    edges: list[Edge]
    total: int = 0        # the module's nodes
    shown: int = 0        # those with an item (``max_nodes`` may leave some out)

    def items(self) -> list[Item]:
        """Every item, in program order (clusters depth first)."""
        out: list[Item] = []

        def visit(c: Cluster) -> None:
            for m in c.members:
                visit(m) if isinstance(m, Cluster) else out.append(m)
        for c in self.clusters:
            visit(c)
        return out


def type_text(t: Type) -> str:
    """``float32[4,128]``; tuples in parentheses; the state token ``U``."""
    tensor = tensor_of(t)
    if tensor is not None:
        return f"{tensor.dtype.np_name}[{','.join(map(str, tensor.shape))}]"
    if isinstance(t, TupleType):
        return "(" + ", ".join(type_text(e) for e in t.elems) + ")"
    if isinstance(t, MonadType):
        return "U"
    return str(t).strip("<>")


def scene_of(module: Module, max_nodes: int | None = None) -> Scene:
    """The scene of ``module``; with ``max_nodes``, each graph shows its first nodes in
    program order (regions included) up to that many, then one item saying how many
    more there are (a picture of thousands of boxes helps nobody, and Graphviz takes
    minutes over hundreds of clusters)."""
    return _Builder(module, max_nodes).scene


class _Builder:
    def __init__(self, module: Module, max_nodes: int | None) -> None:
        self.printer = ModulePrinter(module, locs=False)
        self.budget, self.shown, self.total = 0, 0, 0
        self.defs: dict[Var, str] = {}
        self.edges: list[Edge] = []
        self.count = 0
        graphs = all_graphs(module)
        entry = [g for g in graphs if g.name == module.entry]
        clusters = []
        for g in entry + [g for g in graphs if g.name != module.entry]:
            self.budget = max_nodes or -1  # (-1: no limit)
            clusters.append(self.graph(g, f"graph @{g.name}"))
        self.scene = Scene(f"@{module.entry}", clusters, self.edges, self.total, self.shown)

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"{stem}{self.count}"

    def graph(self, graph: Graph, title: str, feeds: tuple = ()) -> Cluster:
        cluster = Cluster(self.fresh("cluster_"), title)
        for i, p in enumerate(graph.params):
            kind = "weight" if isinstance(p.type, RefType) else "input"
            item = Item(self.fresh("n"), self.printer.name_of(p), kind, type_text(p.type))
            cluster.members.append(item)
            self.defs[p] = item.id
            if i < len(feeds):
                self.use(feeds[i], item.id)
        left = 0
        for node in graph.nodes:
            if self.budget == 0:
                left += sum(1 for _ in walk_one(node))
            else:
                self.node(node, cluster)
        self.total += left
        more = Item(self.fresh("n"), f"... {left} more nodes", "more")
        if left:
            last = cluster.items[-1]
            cluster.members.append(more)
            self.edges.append(Edge(last.id, more.id, elided=True))
        ret = Item(self.fresh("n"), "Return", "return", type_text(graph.output.type),
                   _consts([graph.output]))
        cluster.members.append(ret)
        if left:
            self.edges.append(Edge(more.id, ret.id, elided=True))
        self.use(graph.output, ret.id)
        return cluster

    def node(self, node: Node, cluster: Cluster) -> None:
        self.budget -= 1
        self.total += 1
        self.shown += 1
        name = self.printer.name_of(node.out)
        body = callee(node)
        op = f"@{body.name}" if body is not None else node.op.name
        shown = [f"{k}={format_value(v)}" for k, v in node.attrs
                 if not isinstance(v, Graph) and not _is_default(node, k, v)]
        loc = f"{os.path.basename(node.loc.file)}:{node.loc.line}:{node.loc.col + 1}" \
            if node.loc else ""
        extra = ", ".join(filter(None, [_consts(node.inputs), ", ".join(shown)]))
        item = Item(self.fresh("n"), f"{name} = {op}", "node", type_text(node.out.type),
                    extra, loc)
        cluster.members.append(item)
        for v in node.inputs:
            self.use(v, item.id)
        for region_name, region in ((k, v) for k, v in node.attrs
                                    if isinstance(v, Graph) and body is None):
            feeds = node.inputs[1:] if len(region.params) == len(node.inputs) - 1 \
                else node.inputs
            child = self.graph(region, f"{region_name} @{region.name} of {name}", feeds)
            cluster.members.append(child)
            self.edges.append(Edge(child.items[-1].id, item.id, label=region_name))
        self.defs[node.out] = item.id

    def use(self, value: object, dst: str) -> None:
        if isinstance(value, Var) and value in self.defs:
            self.edges.append(Edge(self.defs[value], dst,
                                   state=isinstance(value.type, MonadType)))


def _consts(values: tuple) -> str:
    """Constant operands as text (``0.5``, ``U``); tensors by type only when large."""
    return ", ".join(format_value(v.value) for v in values
                     if isinstance(v, Const) and not isinstance(v.type, MonadType))


def walk_one(node: Node) -> Iterator[Node]:
    """``node`` and the nodes of its regions."""
    yield node
    for region in regions(node):
        yield from walk(region)


def _is_default(node: Node, name: str, value: object) -> bool:
    default = node.op.default(name)
    return type(value) is type(default) and value == default
