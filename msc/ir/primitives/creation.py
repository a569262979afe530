"""Tensors made from attributes alone (Zeros, Ones, Fill) or from another tensor's type
(ZerosLike, OnesLike).

The creation ops have no tensor input, so the dispatcher always runs them eagerly and a
graph sees their result as a constant; they are in the table so const folding and the
printer know them when a pass builds one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError
from msc.ir import dtypes
from msc.ir.dtypes import DType
from msc.ir.kernel import X0, Call, DTypeRef, Expr, Fn, Lit, call, shape_of
from msc.ir.primitives.base import (
    ArrayExpr,
    Attr,
    Compute,
    Elementwise,
    Primitive,
    Public,
    on_all_targets,
    register,
    want_shape,
    want_tensor,
)
from msc.ir.primitives.rules import batch_elementwise
from msc.ir.types import TensorType, Type


def _want_dtype(dtype: Any) -> DType:
    if not isinstance(dtype, DType):
        raise GraphTypeError(f"dtype must be an msc dtype (msc.float32, ...), but got {dtype!r}")
    return dtype


def _want_number(value: Any) -> Any:
    if not isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
        raise GraphTypeError(f"value must be a Python number, but got {value!r}")
    return value


def _const_infer(*, shape: tuple[int, ...], dtype: DType) -> Type:
    return TensorType(_want_dtype(dtype), want_shape(shape))


def _fill_infer(*, shape: tuple[int, ...], dtype: DType, value: Any) -> Type:
    _want_number(value)
    return _const_infer(shape=shape, dtype=dtype)


def _zeros_impl(*, shape: tuple[int, ...], dtype: DType) -> Any:
    return np.zeros(shape, dtype=dtype.np)


def _ones_impl(*, shape: tuple[int, ...], dtype: DType) -> Any:
    return np.ones(shape, dtype=dtype.np)


def _fill_impl(*, shape: tuple[int, ...], dtype: DType, value: Any) -> Any:
    with np.errstate(all="ignore"):
        return np.full(shape, value).astype(dtype.np)


def _like_infer(x: Type) -> Type:
    return want_tensor(x)


def _zeros_like_impl(x: Any) -> Any:
    return np.zeros_like(np.asarray(x))


def _ones_like_impl(x: Any) -> Any:
    return np.ones_like(np.asarray(x))


def _emit_full(value: Any) -> ArrayExpr:
    """``np.full`` of the result's type: large constants are left to run time (const_fold
    keeps small ones only), each a new array. ``value`` None: the node's ``value`` attr."""
    def emit(a: list[Expr], node: Any) -> Expr:
        t = node.out.type
        shown = node.attr["value"] if value is None else value
        return Call(Fn.FULL, (shape_of(t.shape), Lit(shown), DTypeRef(t.dtype)))
    return ArrayExpr(emit, fresh=True)


_SHAPE = (Attr("shape", types=(tuple,)), Attr("dtype", convert=dtypes.coerce))
register(Primitive("Zeros", _const_infer, _zeros_impl, on_all_targets(_emit_full(0)),
                   attrs=_SHAPE, cost=0))
register(Primitive("Ones", _const_infer, _ones_impl, on_all_targets(_emit_full(1)),
                   attrs=_SHAPE, cost=0))
register(Primitive("Fill", _fill_infer, _fill_impl, on_all_targets(_emit_full(None)),
                   attrs=_SHAPE + (Attr("value"),), cost=0))
register(Primitive("ZerosLike", _like_infer, _zeros_like_impl, on_all_targets(Elementwise(
    call(Fn.ZEROS_LIKE, X0), scalar=Lit(0), compute=Compute.NONE)), elementwise=True, cost=0,
    vjp=lambda b, g, x, out: (None,), batch=batch_elementwise,
    public=Public(classes=("ZerosLike",))))
register(Primitive("OnesLike", _like_infer, _ones_like_impl, on_all_targets(Elementwise(
    call(Fn.ONES_LIKE, X0), scalar=Lit(1), compute=Compute.NONE)), elementwise=True, cost=0,
    vjp=lambda b, g, x, out: (None,), batch=batch_elementwise,
    public=Public(classes=("OnesLike",))))
