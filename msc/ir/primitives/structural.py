"""Structural primitives: tuples and the identity used to keep a value alive.

``MakeTuple`` builds a tuple value (multiple graph outputs, ``Split`` results);
``TupleGetItem`` reads one element with a constant index.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphIndexError, GraphTypeError
from msc.ir.primitives.base import Primitive, register
from msc.ir.types import TupleType, Type


def _make_tuple_infer(*elems: Type) -> Type:
    return TupleType(tuple(elems))


def _make_tuple_impl(*values: Any) -> Any:
    return tuple(values)


def _getitem_infer(t: Type, index: int) -> Type:
    if not isinstance(t, TupleType):
        raise GraphTypeError(f"the input must be a tuple, but got {t}")
    if not -len(t.elems) <= index < len(t.elems):
        raise GraphIndexError(f"index {index} is out of range for a {len(t.elems)}-tuple")
    return t.elems[index]


def _getitem_impl(value: Any, index: int) -> Any:
    return value[index]


make_tuple = register(Primitive("MakeTuple", _make_tuple_infer, _make_tuple_impl, cost=0))
tuple_getitem = register(Primitive("TupleGetItem", _getitem_infer, _getitem_impl, cost=0))
