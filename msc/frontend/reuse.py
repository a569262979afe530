"""Subgraph reuse: a repeated Cell is built once and called from every instance.

A reusable Cell — one whose ``__init__`` is ``@lazy_inline``, or, under
``set_context(reuse="auto")``, any user Cell class with several instances in the model —
is not interpreted into its caller's graph. Its ``construct`` becomes a graph of its
own whose weights are extra inputs (``construct(x, *parameters)``), and each call site
becomes a ``Call`` that passes its own instance's Parameters.

Instances share a graph only when they would build the same one. The key is taken
from each instance at compile time, not from its ``__init__`` arguments: its class,
the input types, and every attribute its ``construct`` read below the instance
(``self.scale``, ``self.dense.in_channels``), by path relative to the instance. An
attribute changed after ``__init__`` gives that instance a graph of its own, never a
wrong shared one. Reads outside the instance (globals, closures) are the same for
every instance of one compile. Nested reusable Cells are shared inside shared graphs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from msc.common import amp_scope
from msc.errors import GraphValueError
from msc.frontend.builder import GraphBuilder, has_constants, to_output
from msc.frontend.deps import _MISSING, Deps
from msc.frontend.hooks import is_cell
from msc.frontend.paths import Locator, Path, format_path, resolve, stable_print
from msc.ir.nodes import REUSABLE, Graph
from msc.ir.primitives import Op
from msc.ir.types import TupleType, Type

POLICIES = ("lazy_inline", "auto", "off")
_SELF: Path = (("self", 0),)


@dataclass
class SharedGraph:
    """One shared graph and what an instance must match to call it."""

    graph: Graph
    cls: type
    types: tuple[Type, ...]
    reads: tuple[tuple[Path, str, str], ...]  # (owner below the instance, attribute, print)
    weights: tuple[Any, ...]  # a Path below the instance, or a Parameter from outside it
    weight_types: tuple[Type, ...]
    sites: int = 0

    def weights_of(self, cell: Any) -> list[Any] | None:
        """``cell``'s Parameters for the call, or None if ``cell`` would build another graph."""
        roots = {("self", 0): cell}
        if type(cell) is not self.cls:
            return None
        for path, name, want in self.reads:
            owner = resolve(path, roots)
            value = _MISSING if owner is _MISSING else getattr(owner, name, _MISSING)
            if value is _MISSING or stable_print(value) != want:
                return None
        weights = [resolve(w, roots) if isinstance(w, tuple) else w for w in self.weights]
        for w, t in zip(weights, self.weight_types):
            if w is _MISSING or getattr(w, "type", None) != getattr(t, "tensor", t):
                return None
        return weights


class Reuse:
    """The shared graphs of one compile, and which Cells may use them."""

    def __init__(self, policy: str, entry: Any, entry_graph: str):
        if policy not in POLICIES:
            raise GraphValueError(f"reuse must be one of {', '.join(POLICIES)}, got {policy!r}")
        self.policy = policy
        self.entry = entry
        self.shared: list[SharedGraph] = []
        self.functions: list[Graph] = []  # graphs HyperMap built (inlined again later),
        # and recursive functions' graphs (``recursion.py``), kept as calls
        self.recursions: dict[Any, tuple[Graph, list[Any]]] = {}  # by recursion.key
        self.names = {entry_graph}
        self.repeated = _repeated_user_cells(entry) if policy == "auto" else set()

    def wants(self, cell: Any) -> bool:
        if self.policy == "off" or cell is self.entry:
            return False
        return bool(getattr(cell, "no_inline", False)) or type(cell) in self.repeated

    def call(self, calls: Any, cell: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """The call's result through a shared graph, or None to interpret it inline
        (keyword arguments, non-tensor arguments or non-tensor results, writes or prints)."""
        from msc.common.tensor import SymTensor

        if kwargs or amp_scope.STACK and amp_scope.STACK[-1] is not None or not all(isinstance(a, SymTensor) and a.builder is calls.builder
                             for a in args):
            return None
        types = tuple(a.ssa.type for a in args)
        for shared in self.shared:
            if shared.types == types and (weights := shared.weights_of(cell)) is not None:
                for path, name, _ in shared.reads:  # what this instance's graph depends on
                    owner = resolve(path, {("self", 0): cell})
                    calls.deps.read_attr(owner, name, getattr(owner, name))
                return self.emit_call(calls.builder, shared, args, weights)
        shared = self.build(calls, cell, args)
        if shared is None:
            return None
        self.shared.append(shared)
        return self.emit_call(calls.builder, shared, args, shared.weights_of(cell) or [])

    def build(self, calls: Any, cell: Any, args: list[Any]) -> SharedGraph | None:
        """Interpret ``cell.construct`` into a graph of its own."""
        from msc.frontend.calls import Calls

        name = self.fresh(f"{type(cell).__name__}_construct")
        below = Locator([(_SELF, cell)])
        sub = GraphBuilder(name)
        sub.weight_hint = lambda p: _dotted(below.path_of(p)) or p.name
        deps = Deps()
        sub.calls = inner = Calls(sub, deps)
        inner.reuse, inner.depth = self, calls.depth
        with sub:
            sub.loc = calls.builder.loc
            inputs = [sub.add_input(a.ssa.type, a.ssa.hint or f"x{i}") for i, a in enumerate(args)]
            output = to_output(sub, inner.call_cell(cell, inputs, {}, None))
        calls.deps.files |= deps.files
        for key, read in deps.reads.items():
            calls.deps.reads.setdefault(key, read)
        if has_constants(sub, output) or sub.wrote:
            return None  # a write or print runs in the caller's order: inline the call
        reads = tuple((path, r.name, stable_print(r.current())) for r in deps.reads.values()
                      if r.kind == "attr" and (path := below.path_of(r.owner)) is not None)
        weights = tuple(below.path_of(p) or p for p, _ in sub.weights.values())
        graph = sub.finish(output, frozenset({REUSABLE}))
        return SharedGraph(graph, type(cell), tuple(a.ssa.type for a in args), reads, weights,
                           tuple(v.type for _, v in sub.weights.values()))

    def emit_call(self, builder: GraphBuilder, shared: SharedGraph, args: list[Any],
                  weights: list[Any]) -> Any:
        from msc.common.tensor import SymTensor

        inputs = tuple(a.ssa for a in args) + tuple(builder.weight(w).ssa for w in weights)
        out = builder.emit(Op.Call, inputs, {"graph": shared.graph})
        shared.sites += 1
        return builder.unpack(out) if isinstance(out.type, TupleType) else SymTensor(out, builder)

    def fresh(self, base: str) -> str:
        name, i = base, 1
        while name in self.names:
            name, i = f"{base}_{i}", i + 1
        self.names.add(name)
        return name


def _dotted(path: Path | None) -> str | None:
    """``(("self", 0), ("attr", "dense"), ("attr", "weight"))`` -> ``dense.weight``."""
    if path is None:
        return None
    return format_path(path).removeprefix("self.")


def _repeated_user_cells(entry: Any) -> set[type]:
    """User Cell classes with two or more instances below ``entry`` (``reuse="auto"``)."""
    from msc.frontend.calls import user_construct

    counts: dict[type, int] = {}
    seen: set[int] = set()
    stack = [entry] if is_cell(entry) else []
    while stack:
        cell = stack.pop()
        if id(cell) in seen:
            continue
        seen.add(id(cell))
        if cell is not entry and user_construct(cell):
            counts[type(cell)] = counts.get(type(cell), 0) + 1
        stack += [c for c in cell.__dict__.get("_cells", {}).values() if c is not None]
    return {cls for cls, n in counts.items() if n > 1}
