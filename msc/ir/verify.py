"""The IR's invariants, checked between passes; a violation is a bug in msc.

The failure shows the printed IR around the offending node, marked ``>>``, and
carries that node's source location.
"""

from __future__ import annotations

from typing import Any

from msc.errors import InternalCompilerError, MscError
from msc.ir.nodes import Const, Graph, Module, Node, Value, Var
from msc.ir.primitives import PRIMITIVES, Op, infer_type
from msc.ir.printer import ModulePrinter
from msc.ir.rewrite import all_graphs, callee, regions
from msc.ir.types import Type

#: Printed lines shown on each side of the offending one.
WINDOW = 3


def verify(module: Module, typed: dict[int, Node] | None = None) -> None:
    """Raise ``InternalCompilerError`` unless every invariant holds:

    1. the entry graph exists, and graph names are unique;
    2. every Var is defined once in the whole module (as a parameter or a node result);
    3. every operand is a Const or a Var defined earlier in the same graph: a parameter,
       an earlier node's result, or, inside a region, a value of an enclosing graph
       defined before the region's node;
    4. every op is in the primitive table, or is ``Call`` with a ``graph`` attr naming a
       Graph (the same object the module lists under that name, if it lists one);
    5. a node's attrs are exactly its primitive's schema, and its type equals the type
       the primitive infers for its input types and attrs;
       a ``Call``'s arguments match the callee's parameter types, and its type is the
       callee's output type;
    6. each graph's output is a Const or a value defined in that graph (or enclosing ones);
    7. a ``Recurse`` names a graph of the module (the graph it sits in, or for a
       gradient the recursive graph its backward recomputes).

    ``typed`` (id -> node, kept alive by the caller so ids stay unique) remembers the
    nodes whose invariant 5 held: a node's type check depends on the node alone (its op,
    attrs, operand and result types), and the passes keep unchanged nodes as the same
    objects, so the pass manager re-infers only the nodes each pass made.
    """
    _Verifier(module, {} if typed is None else typed).run()


class _Verifier:
    def __init__(self, module: Module, typed: dict[int, Node]):
        self.module = module
        self.typed = typed
        self.defined: set[Var] = set()
        self.graphs = {g.name: g for g in all_graphs(module)}

    def run(self) -> None:
        names = [g.name for g in self.module.graphs]
        for name in names:
            if names.count(name) > 1:
                self.fail(None, None, f"the module lists two graphs named @{name}")
        if self.module.entry not in names:
            self.fail(None, None, f"the entry graph @{self.module.entry} is not in the module")
        for g in self.graphs.values():
            self.graph(g, set(), ())

    def graph(self, graph: Graph, scope: set[Var], around: tuple[Graph, ...]) -> None:
        """``scope``: the values visible here, the enclosing graphs' ones included; it is
        extended in place and restored on the way out (no copy per region: a graph with
        many regions would cost quadratic time). ``around``: the enclosing graphs."""
        mine: list[Var] = []
        for p in graph.params:
            self.define(p, None, graph)
            scope.add(p)
            mine.append(p)
        for node in graph.nodes:
            for v in node.inputs:
                self.use(v, scope, node, graph, around)
            for region in regions(node):
                self.graph(region, scope, (*around, graph))
            if node.op is Op.Recurse and node.attr["graph"] not in self.graphs:
                self.fail(node, graph, f"it recurses into @{node.attr['graph']}, which the "
                                       "module does not hold")
            self.check_type(node, graph)
            self.define(node.out, node, graph)
            scope.add(node.out)
            mine.append(node.out)
        self.use(graph.output, scope, None, graph, around, what="the output")
        scope.difference_update(mine)

    def define(self, var: Var, node: Node | None, graph: Graph) -> None:
        if not isinstance(var, Var):
            self.fail(node, graph, f"defines {var!r}, which is not a Var")
        if var in self.defined:
            self.fail(node, graph, f"{self.name(var)} is defined twice")
        self.defined.add(var)

    def use(self, v: Value, scope: set[Var], node: Node | None, graph: Graph,
            around: tuple[Graph, ...], what: str = "") -> None:
        if isinstance(v, Const) or (isinstance(v, Var) and v in scope):
            return
        what = what or "the node"
        if not isinstance(v, Var):
            self.fail(node, graph, f"{what} uses {v!r}, which is neither a Var nor a Const")
        if any(n.out is v for g in (*around, graph) for n in g.nodes):  # not in scope: later
            self.fail(node, graph, f"{what} uses {self.name(v)} before it is defined")
        self.fail(node, graph, f"{what} uses {self.name(v)}, which @{graph.name} does not "
                               "define")

    def check_type(self, node: Node, graph: Graph) -> None:
        if node.op is Op.Call:
            self.check_call(node, graph)  # NOTE: the callee can change: never remembered
            return
        if self.typed.get(id(node)) is node:
            return
        prim = node.op
        if PRIMITIVES.get(getattr(prim, "name", "")) is not prim:
            self.fail(node, graph, f"unknown op {prim!r} (not in the primitive table)")
        schema = [a.name for a in prim.attrs]
        if [k for k, _ in node.attrs] != sorted(schema):
            self.fail(node, graph, f"its attrs {[k for k, _ in node.attrs]} are not the "
                                   f"schema's {sorted(schema)}")
        types = tuple(_type(v) for v in node.inputs)
        try:
            expected = infer_type(prim, types, dict(node.attrs))
        except MscError as e:
            self.fail(node, graph, f"its inputs are invalid: {e.message}")
        if expected != node.out.type:
            self.fail(node, graph, f"its type {node.out.type} differs from the type "
                                   f"{expected} that {prim.name} infers")
        self.typed[id(node)] = node

    def check_call(self, node: Node, graph: Graph) -> None:
        body = callee(node)
        if body is None:
            self.fail(node, graph, "a Call without a 'graph' attr holding a Graph")
        known = self.graphs.get(body.name)
        if known is not body and known != body:
            self.fail(node, graph, f"calls a graph @{body.name} that is not the module's "
                                   f"@{body.name} (a stale reference?)")
        args = tuple(_type(v) for v in node.inputs)
        params = tuple(p.type for p in body.params)
        if args != params:
            shown = ", ".join(str(t) for t in params)
            self.fail(node, graph, f"its argument types do not match @{body.name}'s "
                                   f"parameters ({shown})")
        if _type(body.output) != node.out.type:
            self.fail(node, graph, f"its type {node.out.type} differs from @{body.name}'s "
                                   f"output type {_type(body.output)}")

    # --- reporting ---------------------------------------------------------------------

    def name(self, var: Var) -> str:
        # NOTE: the printed name, so the message matches the window below it
        shown = ModulePrinter(self.module).name_of(var)
        return shown + (f" (hint '{var.hint}')" if var.hint and var.hint not in shown else "")

    def fail(self, node: Node | None, graph: Graph | None, message: str) -> Any:
        where = f" in @{graph.name}" if graph is not None else ""
        text = f"IR verification failed{where}: {message}"
        window = self.window(node if node is not None else graph)
        if window:
            text += "\n" + window
        raise InternalCompilerError(text, node.loc if node is not None else None)

    def window(self, key: Node | Graph | None) -> str:
        if key is None:
            return ""
        printer = ModulePrinter(self.module)
        at = printer.line_of(key)
        if at is None:
            return ""
        lines = printer.lines
        lo, hi = max(0, at - WINDOW), min(len(lines), at + WINDOW + 1)
        shown = [(">> " if i == at else "   ") + lines[i] for i in range(lo, hi) if lines[i]]
        return "\n".join(shown)


def _type(v: Value) -> Type:
    return v.type
