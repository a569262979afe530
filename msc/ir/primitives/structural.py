"""Structural primitives: tuples and control flow.

``MakeTuple`` builds a tuple value (multiple graph outputs, ``Split`` results);
``TupleGetItem`` reads one element with a constant index; ``If`` runs one of two
regions on a tensor condition, ``While`` runs its body region while its condition
region holds, and ``Call`` calls another graph. Code generators and the interpreter
handle these themselves (``Builtin``); their ``impl`` is never called. ``StopGradient``
is its input (no code): only differentiation sees it, as the end of a gradient path.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphIndexError, GraphTypeError
from msc.ir.dtypes import bool_
from msc.ir.primitives.base import (
    Alias,
    Attr,
    Builtin,
    Primitive,
    Public,
    on_all_targets,
    register,
)
from msc.ir.primitives.rules import batch_elementwise
from msc.ir.types import TupleType, Type, tensor_of


def _make_tuple_infer(*elems: Type) -> Type:
    return TupleType(tuple(elems))


def _make_tuple_impl(*values: Any) -> Any:
    return tuple(values)


def _getitem_infer(t: Type, *, index: int) -> Type:
    if not isinstance(t, TupleType):
        raise GraphTypeError(f"the input must be a tuple, but got {t}")
    if not -len(t.elems) <= index < len(t.elems):
        raise GraphIndexError(f"index {index} is out of range for a {len(t.elems)}-tuple")
    return t.elems[index]


def _getitem_impl(value: Any, *, index: int) -> Any:
    return value[index]


_BUILTIN = on_all_targets(Builtin())
make_tuple = register(Primitive("MakeTuple", _make_tuple_infer, _make_tuple_impl, _BUILTIN,
                                cost=0))
tuple_getitem = register(Primitive("TupleGetItem", _getitem_infer, _getitem_impl, _BUILTIN,
                                   attrs=(Attr("index", types=(int,)),), cost=0, view=True))


def _if_infer(cond: Type, *captured: Type, then: Any, orelse: Any) -> Type:
    """``If(cond, x...; then=@region, orelse=@region)``: runs one region and returns its
    result. Each region takes the operands ``x...`` as its parameters and may read the
    enclosing graph's values too (closure conversion makes those explicit operands).
    ``cond`` is a one-element bool tensor; both regions must return the same type."""
    for region in (then, orelse):
        if tuple(p.type for p in region.params) != captured:
            raise GraphTypeError(f"region @{region.name} takes {len(region.params)} "
                                 f"parameters for {len(captured)} operands")
    t = tensor_of(cond)
    if t is None or t.dtype != bool_ or t.size != 1:
        raise GraphTypeError(f"the condition must be a one-element bool tensor, but got {cond}")
    if then.output.type != orelse.output.type:
        raise GraphTypeError(f"the branches return different types: {then.output.type} and "
                             f"{orelse.output.type}")
    return then.output.type  # type: ignore[no-any-return]


def _region_only(*values: Any, **attrs: Any) -> Any:
    raise NotImplementedError("If runs its regions: the interpreter and codegen handle it")


_REGIONS = (Attr("then"), Attr("orelse"))
if_ = register(Primitive("If", _if_infer, _region_only, _BUILTIN, attrs=_REGIONS, cost=0))


def _while_infer(*carried: Type, cond: Any, body: Any) -> Type:
    """``While(init...; cond=@region, body=@region)``: both regions take the carried
    values as parameters; ``cond`` returns a one-element bool tensor, ``body`` the next
    carried values, of the same types (shapes are loop-invariant)."""
    t = tensor_of(cond.output.type)
    if t is None or t.dtype != bool_ or t.size != 1:
        raise GraphTypeError(f"the loop condition must be a one-element bool tensor, but got "
                             f"{cond.output.type}")
    want = TupleType(tuple(carried))
    if body.output.type != want:
        raise GraphTypeError(f"the loop body returns {body.output.type}, but carries {want}")
    return want


while_ = register(Primitive("While", _while_infer, _region_only, _BUILTIN,
                            attrs=(Attr("cond"), Attr("body")), cost=0))


def _call_infer(*args: Type, graph: Any) -> Type:
    """``Call(x...; graph=@g)``: the result of graph ``g`` on ``x...`` (a shared graph,
    kept apart from its callers so that it is compiled once)."""
    if len(args) != len(graph.params):
        raise GraphTypeError(f"@{graph.name} takes {len(graph.params)} arguments, but got "
                             f"{len(args)}")
    return graph.output.type  # type: ignore[no-any-return]


call = register(Primitive("Call", _call_infer, _region_only, _BUILTIN, attrs=(Attr("graph"),),
                          cost=0))


def _recurse_infer(*args: Type, graph: str, result: Type) -> Type:
    """``Recurse(x...; graph="f", result=T)``: graph ``f`` called from inside its own body
    (recursion whose depth a tensor condition decides). The callee is named, not held: a
    graph cannot hold itself. ``result`` is the type its base case returns."""
    return result


recurse = register(Primitive("Recurse", _recurse_infer, _region_only, _BUILTIN,
                             attrs=(Attr("graph", types=(str,)), Attr("result")), cost=0))


def _stop_gradient_infer(value: Type) -> Type:
    if tensor_of(value) is None:
        raise GraphTypeError(f"stop_gradient takes a Tensor, but got {value}")
    return value


stop_gradient = register(Primitive(
    "StopGradient", _stop_gradient_infer, lambda value: value, on_all_targets(Alias(0)),
    cost=0, view=True, batch=batch_elementwise,
    public=Public(functions=("stop_gradient",), classes=("StopGradient",))))
