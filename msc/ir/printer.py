"""The IR's one text form, in MindSpore's ``save_graphs`` spelling.

Output is deterministic: value names are assigned while printing (``%0, %1, ...``
per graph in definition order; parameters ``%para1_x, ...`` numbered across the
module), never from ``id()``. The entry graph comes first with its parameters
listed in the header; other graphs follow, their parameter types in the signature.

``Call`` nodes print as ``%3 = @Block_construct(%1, %2)``. Other graph-valued attrs
are regions (If/While bodies): the attr prints as a reference ``then=@name`` and the
region's body follows the node, indented, as ``region @name(params) { ... }``; regions
share the enclosing graph's value names, since they may use its values.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from msc.errors import Loc
from msc.ir.dtypes import DType
from msc.ir.nodes import Const, Graph, Module, Node, Value, Var
from msc.ir.rewrite import all_graphs, callee, regions, walk
from msc.ir.types import RefType, Type, UMonad

#: Tensors with more elements than this print ``value=...``.
MAX_SHOWN_ELEMENTS = 8


def print_module(module: Module, *, locs: bool = True) -> str:
    """The whole module: header, then the entry graph, then every other graph."""
    return ModulePrinter(module, locs=locs).text()


def print_graph(graph: Graph, *, locs: bool = True) -> str:
    """One graph as a ``subgraph`` block (parameter types in the signature)."""
    printer = _Printer(locs=locs)
    printer.graph_block(graph, entry=False)
    return "\n".join(printer.lines) + "\n"


class ModulePrinter:
    """Prints a module and remembers which line shows which node (for the verifier)."""

    def __init__(self, module: Module, *, locs: bool = True):
        self._printer = _Printer(locs=locs)
        graphs = all_graphs(module)
        entry = next((g for g in graphs if g.name == module.entry), None)
        others = [g for g in graphs if g is not entry]
        p = self._printer
        p.lines.append(f"# IR entry: @{module.entry}")
        p.lines.append(f"# Total subgraphs: {len(graphs)}")
        if entry is not None:
            p.lines.append(f"# Total params: {len(entry.params)}")
            p.lines.append("# Params:")
            for param in entry.params:
                p.lines.append(f"{p.param_name(param)} : {param.type}{_default(param)}")
            p.lines.append("")
            p.graph_block(entry, entry=True)
        for g in others:
            p.lines.append("")
            p.graph_block(g, entry=False)

    @property
    def lines(self) -> list[str]:
        return self._printer.lines

    def line_of(self, key: Node | Graph) -> int | None:
        """Index in ``lines`` of a node's line, or of a graph's ``Return`` line."""
        return self._printer.where.get(id(key))

    def name_of(self, var: Var) -> str:
        """The name ``var`` printed as (a fresh one if it was not printed)."""
        return self._printer.name(var)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


class _Printer:
    def __init__(self, *, locs: bool):
        self.locs = locs
        self.lines: list[str] = []
        self.where: dict[int, int] = {}
        self._params = 0
        self._names: dict[Var, str] = {}
        self._counter = 0

    # --- names -------------------------------------------------------------------------

    def param_name(self, var: Var) -> str:
        if var not in self._names:
            self._params += 1
            self._names[var] = f"%para{self._params}" + (f"_{var.hint}" if var.hint else "")
        return self._names[var]

    def name(self, var: Var) -> str:
        if var not in self._names:
            self._names[var] = f"%{self._counter}"
            self._counter += 1
        return self._names[var]

    def operand(self, value: Value) -> str:
        if isinstance(value, Var):
            return self.name(value)
        if isinstance(value, Const):
            return format_value(value.value)
        return f"<not a value: {type(value).__name__}>"

    # --- blocks ------------------------------------------------------------------------

    def graph_block(self, graph: Graph, *, entry: bool) -> None:
        self._counter = 0  # NOTE: each top-level graph numbers its values from 0
        for node in walk(graph):  # in printed order, so even a use before its definition
            self.name(node.out)   # shows the number the definition gets
        if graph.flags:
            self.lines.append(f"subgraph attr: {', '.join(sorted(graph.flags))}")
        self._block(graph, f"subgraph @{graph.name}", "", typed_params=not entry)

    def _block(self, graph: Graph, head: str, indent: str, *, typed_params: bool) -> None:
        params = ", ".join(
            self.param_name(p) + (f" : {p.type}" if typed_params else "")
            for p in graph.params
        )
        self.lines.append(f"{indent}{head}({params}) {{")
        for node in graph.nodes:
            self.where[id(node)] = len(self.lines)
            self.lines.append(indent + "  " + self.node_text(node))
            for region in regions(node):
                self._block(region, f"region @{region.name}", indent + "    ", typed_params=True)
        self.where[id(graph)] = len(self.lines)
        self.lines.append(f"{indent}  Return({self.operand(graph.output)})")
        self.lines.append(f"{indent}}}")

    def node_text(self, node: Node) -> str:
        args = ", ".join(self.operand(v) for v in node.inputs)
        body = callee(node)
        shown = [(k, v) for k, v in node.attrs
                 if not (body is not None and k == "graph") and not _is_default(node, k, v)]
        head = f"@{body.name}" if body is not None else node.op.name
        attrs = ", ".join(f"{k}={format_value(v)}" for k, v in shown)
        text = f"{self.name(node.out)} = {head}({args})"
        if attrs:
            text += f" {{{attrs}}}"
        text += f" : {node.out.type}"
        if self.locs and node.loc is not None:
            text += f"  # {format_loc(node.loc)}"
        return text


def _is_default(node: Node, name: str, value: Any) -> bool:
    """Attributes equal to their schema default are not printed (the text stays short,
    and a node built with or without the default prints alike)."""
    default = node.op.default(name)
    return type(value) is type(default) and value == default


def _default(param: Var) -> str:
    return "  :  has_default" if isinstance(param.type, RefType) else ""


def format_loc(loc: Loc) -> str:
    """``file-basename:line:col`` with the column 1-based, as in error messages."""
    return f"{os.path.basename(loc.file)}:{loc.line}:{loc.col + 1}"


def format_value(value: Any) -> str:
    """A constant or attribute value, inline."""
    if isinstance(value, (np.ndarray, np.generic)):  # first: np.float64 is a float
        return _tensor(np.asarray(value))
    if isinstance(value, (bool, int)):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (tuple, list)):
        inner = ", ".join(format_value(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, DType):
        return value.name
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, Graph):
        return f"@{value.name}"
    if value is None:
        return "None"
    if isinstance(value, UMonad):
        return "U"
    if isinstance(value, Type):  # (``Recurse``'s result)
        return str(value)
    return f"<{type(value).__name__}>"


def _tensor(arr: np.ndarray) -> str:
    from msc.ir.dtypes import from_numpy

    try:
        dtype = from_numpy(arr.dtype).name
    except TypeError:
        dtype = arr.dtype.name
    shape = "[" + ", ".join(str(d) for d in arr.shape) + "]"
    shown = _elements(arr) if arr.size <= MAX_SHOWN_ELEMENTS else "..."
    return f"Tensor(shape={shape}, dtype={dtype}, value={shown})"


def _elements(arr: np.ndarray) -> str:
    if arr.ndim == 0:
        item = arr[()]
        if arr.dtype.kind == "f":
            return str(item)  # numpy's shortest round-trip spelling for the dtype
        return str(item.item())
    return "[" + ", ".join(_elements(sub) for sub in arr) + "]"
