"""Entry point of the frontend: (Cell or function, input types) -> typed IR graph.

Tensor arguments become graph inputs; every other argument is a compile-time
constant the graph is specialised on (as in MindSpore, where Python scalars passed
to a graph are constants).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from msc.common import amp_scope
from msc.common.tensor import Parameter, Tensor
from msc.errors import GraphTypeError, UnsupportedSyntaxError
from msc.frontend.builder import GraphBuilder, to_output
from msc.frontend.deps import Deps
from msc.frontend.hooks import is_cell
from msc.frontend.jit import JitFunction, list_shape
from msc.ir.nodes import Module
from msc.ir.types import TensorType


@dataclass(frozen=True)
class Specialized:
    """The parsed graph, the Parameters behind its weight inputs (in order), and what
    the compile read."""

    module: Module
    weights: tuple[Parameter, ...]
    deps: Deps
    lists: Any = None  # where the result holds lists (``jit.list_shape``)


def entry_function(entry: Any) -> tuple[Any, str, bool]:
    """(the function to parse, the graph's name, whether it takes ``self``)."""
    if is_cell(entry):
        construct = inspect.getattr_static(type(entry), "construct", None)
        if construct is None:
            raise UnsupportedSyntaxError(f"{type(entry).__name__} has no construct method")
        fn = construct.fn if isinstance(construct, JitFunction) else construct
        return fn, f"{type(entry).__name__}_construct", True
    fn = entry.fn if isinstance(entry, JitFunction) else entry
    if not callable(fn):
        raise GraphTypeError(f"cannot compile a {type(entry).__name__}")
    return fn, getattr(fn, "__name__", "graph"), False


def input_names(fn: Any, skip_self: bool, count: int) -> list[str]:
    """Names of the positional inputs, for readable IR (``*inputs`` → inputs0, ...)."""
    params = list(inspect.signature(fn).parameters.values())[1 if skip_self else 0:]
    names: list[str] = []
    for p in params:
        if p.kind == p.VAR_POSITIONAL:
            names += [f"{p.name}{i}" for i in range(count - len(names))]
        elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
    return (names + [f"arg{i}" for i in range(len(names), count)])[:count]


def specialize(entry: Any, args: Sequence[Any], reuse: str = "lazy_inline") -> Specialized:
    """Build the IR of ``entry`` for ``args``: TensorTypes (or Tensors/arrays, by their
    type) become graph inputs, tuples of them nest, anything else is a constant.

    ``reuse`` says which Cells become shared graphs (see ``reuse.py``): "lazy_inline"
    (those whose ``__init__`` is ``@lazy_inline``), "auto" (also any user Cell class
    with several instances) or "off"."""
    # NOTE: the evaluator loads with the first build: a compile-cache hit needs only
    # ``entry_function`` and ``ListSpec`` from this module
    from msc.frontend.calls import Calls
    from msc.frontend.reuse import Reuse

    fn, name, has_self = entry_function(entry)
    builder = GraphBuilder(name)
    deps = Deps()
    calls = Calls(builder, deps)
    calls.reuse = Reuse(reuse, entry, name)
    builder.calls = calls
    with builder, amp_scope.opened(None):  # a graph's casts are its own Cells'
        names = input_names(fn, has_self, len(args))
        sym_args = [_make_input(builder, a, n) for a, n in zip(args, names)]
        result = calls.call(entry, sym_args, {}, None)
        output = to_output(builder, result)
    graph = builder.finish(output)
    weights = tuple(param for param, _ in builder.weights.values())
    shared = tuple(s.graph for s in calls.reuse.shared) + tuple(calls.reuse.functions)
    return Specialized(Module((graph, *shared), graph.name), weights, deps,
                       list_shape(result))


class ListSpec(tuple):  # type: ignore[type-arg]
    """The signature of a list argument: the graph sees a list (``append``, ``pop``),
    and it never shares a compile with an equal tuple."""

    def __eq__(self, other: object) -> bool:
        return type(other) is ListSpec and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(("list", tuple(self)))


class StructSpec(tuple):  # type: ignore[type-arg]
    """The signature of a structure argument (a sparse tensor): its parts' signatures, and
    its class (``kind``), which rebuilds it from the graph's inputs."""

    def __new__(cls, kind: type, parts: Any) -> StructSpec:
        spec = tuple.__new__(cls, parts)
        spec.kind = kind
        return spec

    def __eq__(self, other: object) -> bool:
        return type(other) is StructSpec and other.kind is self.kind and \
            tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((self.kind, tuple(self)))


def _make_input(builder: GraphBuilder, spec: Any, hint: str) -> Any:
    if isinstance(spec, TensorType):
        return builder.add_input(spec, hint)
    if isinstance(spec, (Tensor, np.ndarray)) and not isinstance(spec, Parameter):
        arr = np.asarray(spec)
        return builder.add_input(Tensor(arr).type, hint)
    if isinstance(spec, tuple):
        items = [_make_input(builder, s, f"{hint}_{i}") for i, s in enumerate(spec)]
        if isinstance(spec, StructSpec):
            return spec.kind.__msc_rebuild__(tuple(items))
        return items if isinstance(spec, ListSpec) else tuple(items)
    return spec
