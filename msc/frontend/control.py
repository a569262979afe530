"""Control flow on tensor values: ``if``/``elif``/``else`` and ``a if c else b``.

A Python-constant condition folds while the graph is built (see ``evaluator.py``); a
tensor condition builds each branch into a *region* (a graph without parameters that
reads the enclosing graph's values) and emits one ``If`` node. Variables assigned in
either branch are merged: both branches return them, and the ``If``'s results are
bound to their names afterwards. Their types must agree; an error names the variable,
both types and the line.
"""

from __future__ import annotations

import ast
from typing import Any, Callable

import numpy as np

from msc.errors import GraphTypeError, UnsupportedSyntaxError
from msc.frontend.api.tensor import Parameter, SymTensor, Tensor
from msc.frontend.builder import GraphBuilder
from msc.ir import dtypes
from msc.ir.nodes import Const, Value
from msc.ir.types import TensorType, TupleType, tensor_of

_NO_RETURN = object()


class RegionBuilder(GraphBuilder):
    """Builds one branch: it may use the tensors of the graphs around it, and weights
    stay inputs of the outermost graph."""

    def __init__(self, name: str, parent: GraphBuilder):
        super().__init__(name)
        self.parent = parent
        self.calls = parent.calls
        self.loc = parent.loc

    def encloses(self, builder: Any) -> bool:
        b: Any = self
        while b is not None:
            if b is builder:
                return True
            b = getattr(b, "parent", None)
        return False

    def operand(self, x: Any) -> Value:
        if isinstance(x, SymTensor) and x.builder is not self and self.encloses(x.builder):
            return x.var
        return super().operand(x)

    def weight(self, param: Any) -> Any:
        return self.parent.weight(param)


def truth(cond: SymTensor) -> SymTensor:
    """The one-element bool tensor an ``if`` on ``cond`` tests (``x != 0`` for numbers)."""
    from msc.frontend.api import functional as F

    if cond.type.size != 1:
        raise GraphTypeError(f"the truth value of a tensor with {cond.type.size} elements is "
                             "ambiguous: reduce it (e.g. with .all() or .any()) first")
    return cond if cond.type.dtype == dtypes.bool_ else F.cast(cond, dtypes.bool_)


def branch(ev: Any, name: str, run: Callable[[], Any]) -> tuple[RegionBuilder, Any]:
    """Run one branch into a region of its own: (its builder, what ``run`` returned, or
    the value of a ``return`` inside it)."""
    from msc.frontend.evaluator import _Return

    outer = ev.builder
    region = RegionBuilder(name, outer)
    ev.builder = ev.calls.builder = region
    try:
        with region:
            try:
                result = run()
            except _Return as r:
                result = ("return", r.value)
    finally:
        ev.builder = ev.calls.builder = outer
    return region, result


def tensor_if(ev: Any, node: ast.If, cond: SymTensor) -> None:
    """``if`` on a tensor: both branches become regions of one ``If`` node."""
    test = truth(cond)
    before = dict(ev.scope.names)
    scopes = []
    regions = []
    for body, name in ((node.body, "then"), (node.orelse, "else")):
        ev.scope.names = dict(before)
        region, result = branch(ev, name, lambda body=body: ev.run_body(body))
        regions.append((region, result))
        scopes.append(dict(ev.scope.names))
    returned = [isinstance(r, tuple) and r[:1] == ("return",) for _, r in regions]
    if any(returned) and not all(returned):
        raise UnsupportedSyntaxError("a 'return' in only one branch of a tensor if is not "
                                     "supported yet: assign a variable in both branches and "
                                     "return it after the if")
    if all(returned):
        values = emit_if(ev, test, [(reg, [r[1]]) for reg, r in regions], ["the returned value"],
                         node)
        from msc.frontend.evaluator import _Return

        raise _Return(values[0])
    then_names, else_names = scopes
    merged = [n for n in then_names if n in else_names and
              (then_names[n] is not before.get(n) or else_names[n] is not before.get(n))]
    keep = {n: v for n, v in before.items() if n in then_names and n in else_names}
    to_merge = []
    for n in merged:
        a, b = then_names[n], else_names[n]
        if not _is_tensor(a) and not _is_tensor(b) and type(a) is type(b) and _same(a, b):
            keep[n] = a
        else:
            to_merge.append(n)
    values = emit_if(ev, test, [(regions[0][0], [then_names[n] for n in to_merge]),
                                (regions[1][0], [else_names[n] for n in to_merge])],
                     [f"variable '{n}'" for n in to_merge], node)
    ev.scope.names = {**keep, **dict(zip(to_merge, values))}


def tensor_ifexp(ev: Any, node: ast.IfExp, cond: SymTensor) -> Any:
    """``a if c else b`` with a tensor ``c``."""
    test = truth(cond)
    then = branch(ev, "then", lambda: ev.visit(node.body))
    orelse = branch(ev, "else", lambda: ev.visit(node.orelse))
    return emit_if(ev, test, [(then[0], [then[1]]), (orelse[0], [orelse[1]])],
                   ["the conditional expression"], node)[0]


def emit_if(ev: Any, test: SymTensor, branches: list[tuple[RegionBuilder, list[Any]]],
            what: list[str], node: ast.AST) -> list[Any]:
    """The ``If`` node whose regions return each branch's values; its results as tensors.
    Tuples merge element by element (both branches must give them the same length)."""
    (then, a), (orelse, b) = branches
    flat_a: list[Any] = []
    flat_b: list[Any] = []
    flat_what: list[str] = []
    shapes = [_flatten(x, y, w, flat_a, flat_b, flat_what) for x, y, w in zip(a, b, what)]
    results = iter(_emit_flat(ev, test, [(then, flat_a), (orelse, flat_b)], flat_what))
    return [_rebuild(shape, results) for shape in shapes]


def _flatten(a: Any, b: Any, what: str, out_a: list[Any], out_b: list[Any],
             out_what: list[str]) -> Any:
    """Leaves of two same-shaped values; returns the shape (an int count or a leaf marker)."""
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if len(a) != len(b):
            raise GraphTypeError(f"{what} is a tuple of {len(a)} in the if branch but of "
                                 f"{len(b)} in the else branch")
        return tuple(_flatten(x, y, f"{what}[{i}]", out_a, out_b, out_what)
                     for i, (x, y) in enumerate(zip(a, b)))
    out_a.append(a)
    out_b.append(b)
    out_what.append(what)
    return None


def _rebuild(shape: Any, results: Any) -> Any:
    if shape is None:
        return next(results)
    return tuple(_rebuild(s, results) for s in shape)


def _emit_flat(ev: Any, test: SymTensor, branches: list[tuple[RegionBuilder, list[Any]]],
               what: list[str]) -> list[Any]:
    outputs = []
    for region, values in branches:
        with region:
            outputs.append([_value(region, v, w) for v, w in zip(values, what)])
    for w, a, b in zip(what, *outputs):
        if a.type != b.type:
            raise GraphTypeError(f"{w} has type {_show(a.type)} in the if branch but "
                                 f"{_show(b.type)} in the else branch; both branches must "
                                 "give it the same dtype and shape")
    graphs = []
    for (region, _), outs in zip(branches, outputs):
        result = region.emit("MakeTuple", tuple(outs), {}, TupleType(tuple(v.type for v in outs)))
        graphs.append(region.finish(result))
    t = TupleType(tuple(v.type for v in outputs[0]))
    out = ev.builder.emit("If", (test.var,), {"then": graphs[0], "orelse": graphs[1]}, t)
    return list(ev.builder.unpack(out))


def _value(region: RegionBuilder, v: Any, what: str) -> Value:
    """An IR value for a merged variable: tensors as they are, numbers as 0-d tensors."""
    if isinstance(v, (SymTensor, Parameter, Tensor)):
        operand = region.operand(v)
        if isinstance(operand, Const) or tensor_of(operand.type) is not None:
            return operand
    if isinstance(v, (bool, int, float, np.generic)) and not isinstance(v, str):
        return Const(np.asarray(Tensor(v).asnumpy()))
    raise UnsupportedSyntaxError(f"{what} is a {type(v).__name__} that a tensor if cannot "
                                 "merge: only tensors and numbers can differ between its "
                                 "branches")


def _is_tensor(v: Any) -> bool:
    return isinstance(v, (SymTensor, Tensor))


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - not comparable: treat as different
        return False


def _show(t: Any) -> str:
    tt = tensor_of(t)
    return f"{tt.dtype}{list(tt.shape)}" if isinstance(tt, TensorType) else str(t)
