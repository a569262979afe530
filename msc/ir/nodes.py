"""The IR: a flat, typed let-list per graph, in SSA form.

``Var`` is a value defined once (a graph parameter or a node's result) and compared
by identity. ``Const`` is a literal operand compared by content. ``Node`` applies an
op to operands; it is frozen, and ``loc`` does not take part in equality, so CSE can
compare nodes structurally. A pass never edits a graph: it builds a new one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator, Union

import numpy as np

from msc.errors import Loc
from msc.ir.types import RefType, Type, type_of_value

if TYPE_CHECKING:
    from msc.ir.primitives.base import Primitive


class Var:
    """An SSA value; ``hint`` is only a readability aid for printing."""

    __slots__ = ("type", "hint")

    def __init__(self, type: Type, hint: str = ""):  # noqa: A002 - mirrors Node.type
        self.type = type
        self.hint = hint

    def __repr__(self) -> str:
        return f"Var({self.hint or hex(id(self))}: {self.type})"


def _freeze(value: Any) -> Any:
    """A hashable, content-based stand-in for a constant value."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_freeze(v) for v in value))
    if isinstance(value, float):  # keep nan equal to itself and -0.0 apart from 0.0
        return ("float", "nan" if value != value else value, math.copysign(1.0, value))
    return (type(value).__name__, value)


class Const:
    """A literal operand: a numpy array, a Python scalar, or a tuple of constants."""

    __slots__ = ("value", "type", "_key")

    def __init__(self, value: Any, type: Type | None = None):  # noqa: A002
        if isinstance(value, np.generic):  # a numpy scalar is a 0-d tensor constant
            value = np.asarray(value)
        if isinstance(value, np.ndarray):
            value = value.copy()
            value.flags.writeable = False
        self.value = value
        self.type = type if type is not None else type_of_value(value)
        self._key = (self.type, _freeze(value))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Const) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"Const({self.value!r})"


Value = Union[Var, Const]


@dataclass(frozen=True, slots=True)
class Node:
    """``out = op(*inputs; attrs)``. ``op`` is the primitive's record (``Op.Add``);
    ``attrs`` is a sorted tuple of (name, value) pairs holding every attribute of the
    op's schema (``ir.builder.make_node`` fills in the defaults)."""

    op: Primitive
    inputs: tuple[Value, ...]
    attrs: tuple[tuple[str, Any], ...]
    out: Var = field(compare=False)
    loc: Loc | None = field(default=None, compare=False)

    @property
    def attr(self) -> dict[str, Any]:
        return dict(self.attrs)

    @property
    def type(self) -> Type:
        return self.out.type


def make_attrs(attrs: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Canonical attrs: sorted by name, lists turned into tuples so they hash."""
    if not attrs:
        return ()  # most ops have none

    def canon(v: Any) -> Any:
        return tuple(canon(x) for x in v) if isinstance(v, (list, tuple)) else v
    return tuple(sorted((k, canon(v)) for k, v in attrs.items()))


#: The flag of a graph that is compiled once and called, never inlined: a ``lazy_inline``
#: block, a Cell shared under ``reuse="auto"``, a part of a split entry.
REUSABLE = "reusable"


@dataclass(frozen=True, slots=True)
class Graph:
    """A function: parameters (inputs first, then weights of ``RefType``), nodes, output.

    ``flags`` marks properties passes respect (``REUSABLE``: do not inline).
    """

    name: str
    params: tuple[Var, ...]
    nodes: tuple[Node, ...]
    output: Value
    flags: frozenset[str] = frozenset()

    @property
    def inputs(self) -> tuple[Var, ...]:
        return tuple(p for p in self.params if not isinstance(p.type, RefType))

    @property
    def weights(self) -> tuple[Var, ...]:
        return tuple(p for p in self.params if isinstance(p.type, RefType))

    @property
    def reusable(self) -> bool:
        return REUSABLE in self.flags


@dataclass(frozen=True, slots=True)
class Module:
    """The graphs of one compile; ``entry`` names the graph that is called."""

    graphs: tuple[Graph, ...]
    entry: str

    def graph(self, name: str) -> Graph:
        for g in self.graphs:
            if g.name == name:
                return g
        raise KeyError(name)

    @property
    def entry_graph(self) -> Graph:
        return self.graph(self.entry)

    def node_count(self) -> int:
        return sum(1 for _ in iter_nodes(self))

    def replace_graph(self, new: Graph) -> Module:
        return Module(tuple(new if g.name == new.name else g for g in self.graphs), self.entry)


def iter_nodes(module: Module) -> Iterator[Node]:
    """Every node of every graph, regions included (graph-valued attrs)."""
    for g in module.graphs:
        yield from _walk(g)


def _walk(graph: Graph) -> Iterator[Node]:
    for n in graph.nodes:
        yield n
        for _, v in n.attrs:
            if isinstance(v, Graph):
                yield from _walk(v)
