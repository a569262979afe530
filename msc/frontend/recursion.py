"""Recursion whose depth a tensor condition decides: one graph that calls itself.

The front end unrolls a call of a function it is already interpreting: recursion on a
Python number ends while the graph is built. When a function calls itself (directly or
through others) under a tensor condition with the same abstract arguments as an
unfinished call of it (tensors by dtype and shape, anything else by value or identity),
unrolling would never end. Then the function is built once into a graph of its own: the
outer call becomes a ``Call`` of it, and the call inside it a ``Recurse`` naming it (a
graph cannot hold itself).

The type ``Recurse`` returns is found first: a build in which the recursive call ends its
branch (as a ``raise`` would) gives the type of the base case. The real build then types
the recursive call with it, and its result must have that type again (MindSpore requires
the same). Weights the graph reads become extra inputs, as for shared graphs, but taking
their values (the caller loads them; the graph writes nothing): a weight's gradient then
flows through the caller's ``Load``, and no level passes a reference on.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from msc.common.tensor import Parameter, SymTensor, Tensor, WeakNumber
from msc.errors import GraphTypeError, UnsupportedSyntaxError
from msc.frontend.builder import ChosenParameter, GraphBuilder, has_constants, to_output
from msc.frontend.control import Raised, _show
from msc.frontend.scope import Scope
from msc.ir.nodes import REUSABLE, Graph, Node, Value, Var
from msc.ir.primitives import Op
from msc.ir.transform import Transformer
from msc.ir.types import MonadType, RefType, TensorType, TupleType, Type

#: Builds of one recursive graph before its weights must have settled (each build can
#: only find weights read after a recursive call that the previous one had not seen).
_ROUNDS = 4


@dataclass
class Recursion:
    """A recursive function's graph being built: its name, the type its base case returns
    (None during the first build), and the Parameters it reads."""

    name: str
    result: Type | None = None
    weights: list[Any] = field(default_factory=list)


def key(node: Any, scope: Scope) -> Any:
    """The abstract value of a call (the function and its arguments): equal keys build
    equal graphs. None where the arguments hold something only its identity cannot
    describe (a list, a dict, a weakly typed number)."""
    args = _abstract(tuple(scope.names.values()))
    if args is None:
        return None
    return (id(node), id(scope.function), id(scope.parent), tuple(scope.names), args)


def _abstract(value: Any) -> Any:
    if isinstance(value, WeakNumber):
        return None  # (a Python number in the graph: its dtype follows the other operand)
    if _is_tensor(value):
        t = _tensor_type(value)
        return None if t is None else ("tensor", t)
    if isinstance(value, tuple):
        items = tuple(_abstract(v) for v in value)
        return None if any(i is None for i in items) else ("tuple", items)
    if isinstance(value, (list, dict, set)):
        return None
    if isinstance(value, (bool, int, float, str, type(None), np.generic)):
        return ("const", type(value).__name__, value)
    return ("object", id(value))


def _is_tensor(value: Any) -> bool:
    """A graph tensor, or a constant one (computed while the graph is built: a recursive
    graph takes it as an input like any other); a Parameter is read as a weight."""
    return isinstance(value, Tensor) and not isinstance(value, Parameter)


def _tensor_type(value: Any) -> TensorType | None:
    """``value``'s type, if a tensor's (not a weight's reference, read without emitting)."""
    if isinstance(value, ChosenParameter):
        return value.type
    t = value.ssa.type if isinstance(value, SymTensor) else value.type
    return t if isinstance(t, TensorType) else None


def _leaves(value: Any) -> list[Any]:
    """The tensors in ``value`` (through tuples), in order."""
    if _is_tensor(value):
        return [value]
    if isinstance(value, tuple):
        return [t for v in value for t in _leaves(v)]
    return []


def _replace(value: Any, new: Any) -> Any:
    """``value`` with its tensors replaced by the next items of ``new``."""
    if _is_tensor(value):
        return next(new)
    if isinstance(value, tuple):
        return tuple(_replace(v, new) for v in value)
    return value


def find(calls: Any, k: Any) -> int | None:
    """The frame of an unfinished call with key ``k`` that a tensor condition separates
    from the call being made, or None (then the call is interpreted as usual)."""
    if k is None:
        return None
    for i, (frame_key, builder) in enumerate(calls.frames):
        if frame_key == k and builder is not calls.builder:
            return i
    return None


def call(calls: Any, index: int, node: Any, scope: Scope, file: str, k: Any) -> Any:
    """The recursive call: ``Recurse`` inside the function's own graph, else a ``Call``
    of that graph (built on first use)."""
    builder = calls.builder
    args = _leaves(tuple(scope.names.values()))
    if calls.recursion is not None and index == 0:
        rec = calls.recursion
        if rec.result is None:  # the first build: this branch gives no type
            raise Raised()
        inputs = tuple(builder.value(a) for a in args) + (builder.state,) + \
            tuple(builder.weight(w).ssa for w in rec.weights)
        out = builder.emit(Op.Recurse, inputs, {"graph": rec.name, "result": rec.result})
    else:
        table = calls.reuse.recursions if calls.reuse is not None else calls.recursions
        if k not in table:
            table[k] = build(calls, node, scope, file, args)
            if calls.reuse is not None:
                calls.reuse.functions.append(table[k][0])
        graph, weights = table[k]
        inputs = tuple(builder.value(a) for a in args) + (builder.state,) + \
            tuple(builder.operand(w) for w in weights)
        out = builder.emit(Op.Call, inputs, {"graph": graph})
    return builder.unpack(out) if isinstance(out.type, TupleType) else SymTensor(out, builder)


def build(calls: Any, node: Any, scope: Scope, file: str,
          args: list[Any]) -> tuple[Graph, list[Any]]:
    """The function's graph: parameters for its tensor arguments, the caller's state,
    then the weights it reads."""
    fname = getattr(node, "name", "lambda")
    _check_closure(fname, node, scope)
    name = calls.reuse.fresh(f"{fname}_rec") if calls.reuse is not None else f"{fname}_rec"
    rec = Recursion(name)
    for _ in range(_ROUNDS):
        sub = GraphBuilder(name)
        sub.calls = inner = type(calls)(sub, calls.deps)  # (a Calls: no import cycle)
        inner.reuse, inner.depth, inner.recursion = calls.reuse, calls.depth, rec
        with sub:
            sub.loc = calls.builder.loc
            inputs = iter([sub.add_input(_tensor_type(a), f"x{i}")
                           for i, a in enumerate(args)])
            sub.state = sub.add_input(MonadType(), "u").ssa
            for w in rec.weights:
                sub.weight(w)
            names = {n: _replace(v, inputs) for n, v in scope.names.items()}
            result = inner.run(node, Scope(names, scope.parent, scope.globals, scope.closure,
                                           scope.function), file)
            _check_result(fname, result, rec.result is None)
            output = to_output(sub, result)
        if sub.wrote:
            raise UnsupportedSyntaxError(
                f"'{fname}' recurses under a tensor condition and writes a Parameter, prints "
                "or raises: msc builds such recursion as one graph, which cannot order effects "
                "between its levels; move the effect out of the recursive function")
        if has_constants(sub, output):
            raise GraphTypeError(f"'{fname}' recurses under a tensor condition but returns "
                                 "Python constants: return tensors on every path")
        weights = [p for p, _ in sub.weights.values()]
        if rec.result is not None and output.type != rec.result:
            raise GraphTypeError(
                f"'{fname}' returns {_show(rec.result)} where its recursion ends but "
                f"{_show(output.type)} where it recurses: both must give the same dtype and "
                "shape (MindSpore requires it too)")
        if rec.result is not None and [id(w) for w in weights] == [id(w) for w in rec.weights]:
            graph = sub.finish(output, frozenset({REUSABLE}))
            return _Values(graph).graph(graph), weights
        rec.result, rec.weights = output.type, weights
    raise GraphTypeError(f"the weights '{fname}' reads did not settle after {_ROUNDS} builds")


class _Values(Transformer):
    """A graph's weight parameters replaced by parameters of their tensor type: a ``Load``
    of one is its value (the graph writes nothing, so every read sees the same)."""

    def __init__(self, graph: Graph):
        super().__init__()
        self.top = graph
        self.new = tuple(Var(p.type.tensor, p.hint) if isinstance(p.type, RefType) else p
                         for p in graph.params)

    def params(self, graph: Graph) -> tuple[Var, ...]:
        return self.new if graph is self.top else graph.params

    def node(self, node: Node) -> Value | None:
        if node.op is Op.Load and node.inputs[0] in self.new:
            return node.inputs[0]
        return None


def _check_closure(fname: str, node: Any, scope: Scope) -> None:
    """A graph of its own cannot read the graph tensors of the function around it."""
    read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - set(scope.names)
    outer = scope.parent
    while outer is not None:
        for n, v in outer.names.items():
            if n in read and any(isinstance(t, SymTensor) for t in _leaves(v)):
                raise UnsupportedSyntaxError(
                    f"'{fname}' recurses under a tensor condition and reads the tensor '{n}' "
                    "of the function around it: msc builds such recursion as one graph of "
                    f"its own, which cannot read another graph's values; pass '{n}' to "
                    f"'{fname}' as an argument")
        outer = outer.parent


def _check_result(fname: str, value: Any, base: bool) -> None:
    """Every path's result must be tensors: a Python number (or None) on the base case
    would make every level's result depend on the depth."""
    if isinstance(value, tuple):
        for v in value:
            _check_result(fname, v, base)
        return
    if isinstance(value, WeakNumber) or not isinstance(value, (SymTensor, Tensor, Parameter)):
        what = "None" if value is None else f"a Python {type(value).__name__}" \
            if not isinstance(value, WeakNumber) else "a Python number"
        where = "where its recursion ends" if base else "on some path"
        raise GraphTypeError(
            f"'{fname}' recurses under a tensor condition, so msc builds it as one graph "
            f"whose every level returns the same type, but it returns {what} {where} and "
            "a tensor where it recurses: return a tensor there (ms.Tensor(1, ms.int32), or "
            "n * 0 + 1), as MindSpore's graph mode requires")
