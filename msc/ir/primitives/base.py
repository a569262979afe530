"""The ``Primitive`` record and the one table every stage reads.

A primitive is defined once, with everything each stage needs: its type/shape rule
(``infer``), its numpy implementation (``impl``, the eager engine and the reference
interpreter's), whether it is elementwise, its side-effect class and cost, whether
its generated code may share its input's memory (``view``), and
slots the later stages fill (per-target emitters, vmap and gradient rules).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from msc.errors import GraphTypeError, MscError, ShapeError
from msc.ir.dtypes import DType, promote, promote_weak
from msc.ir.types import ScalarType, TensorType, TupleType, Type, tensor_of, type_of_value


@dataclass(frozen=True)
class Primitive:
    """One op. ``infer(*input_types, **attrs) -> Type`` raises ``MscError`` on bad input;
    ``impl(*values, **attrs)`` computes with numpy (values are arrays or Python scalars)."""

    name: str
    infer: Callable[..., Type]
    impl: Callable[..., Any]
    elementwise: bool = False
    effect: str = "none"  # "none" | "read" (of a weight) | "memory" (a write) | "io"
    view: bool = False  # its generated code may return (a view of) its first input
    cost: float = 1.0
    emit: dict[str, Callable[..., Any]] = field(default_factory=dict)
    vjp: Callable[..., Any] | None = None
    batch: Callable[..., Any] | None = None


PRIMITIVES: dict[str, Primitive] = {}


def register(prim: Primitive) -> Primitive:
    if prim.name in PRIMITIVES:
        raise ValueError(f"primitive {prim.name} defined twice")
    PRIMITIVES[prim.name] = prim
    return prim


def get(name: str) -> Primitive:
    return PRIMITIVES[name]


def infer_type(prim: Primitive, types: tuple[Type, ...], attrs: dict[str, Any]) -> Type:
    """``prim.infer`` with MindSpore-style context added to any error it raises."""
    try:
        return prim.infer(*types, **attrs)
    except MscError as e:
        shown = ", ".join(str(t) for t in types)
        e.message = f"For '{prim.name}', {e.message} (inputs: {shown})"
        raise
    except TypeError as e:  # wrong attrs or input count for this op
        raise GraphTypeError(f"For '{prim.name}', invalid arguments: {e}") from None


def evaluate(prim: Primitive, values: tuple[Any, ...], attrs: dict[str, Any]) -> Any:
    """Run ``prim`` eagerly: infer (so eager mode has graph mode's errors and dtypes),
    compute with numpy, and conform the result to the inferred type."""
    out_type = infer_type(prim, tuple(type_of_value(v) for v in values), attrs)
    return conform(prim.impl(*values, **attrs), out_type)


def conform(value: Any, t: Type) -> Any:
    """Cast ``value`` to type ``t``: numpy's own promotion sometimes differs from
    MindSpore's (``int32 * 2.5`` is float64 in numpy, float32 in MindSpore)."""
    if isinstance(t, TupleType):
        return tuple(conform(v, e) for v, e in zip(value, t.elems))
    if isinstance(t, TensorType):
        arr = np.asarray(value)
        if arr.dtype != t.dtype.np:
            arr = arr.astype(t.dtype.np)
        return arr
    return value


# --- helpers shared by the op families -------------------------------------------------


def want_tensor(t: Type, what: str = "input") -> TensorType:
    tt = tensor_of(t)
    if tt is None:
        raise GraphTypeError(f"the {what} must be a Tensor, but got {t}")
    return tt


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(-ndim, 0):
        dims = {s[i] for s in shapes if len(s) >= -i} - {1}
        if len(dims) > 1:
            shown = " and ".join(str(s) for s in shapes)
            raise ShapeError(f"shapes {shown} cannot broadcast")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def operand_dtype(types: tuple[Type, ...]) -> DType:
    """The common dtype of tensor and weak-scalar operands (see ``dtypes``)."""
    tensors = [tensor_of(t) for t in types if tensor_of(t) is not None]
    if not tensors:
        raise GraphTypeError("at least one input must be a Tensor")
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = promote(dt, t.dtype)
    for t in types:
        if isinstance(t, ScalarType):
            dt = promote_weak(dt, t.category)
        elif tensor_of(t) is None:
            raise GraphTypeError(f"unsupported operand {t}")
    return dt


def operand_shape(types: tuple[Type, ...]) -> tuple[int, ...]:
    return broadcast_shapes(*(tensor_of(t).shape for t in types if tensor_of(t) is not None))


def norm_axis(axis: int, ndim: int) -> int:
    """``axis`` in [-ndim, ndim) made non-negative."""
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise ShapeError(f"axis {axis} is out of range for a {ndim}-d tensor")
    return axis % max(ndim, 1)


def norm_axes(axis: int | tuple[int, ...] | None, ndim: int) -> tuple[int, ...]:
    """Reduction axes, sorted and non-negative; None or () means all axes (MindSpore)."""
    if axis is None or axis == ():
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = tuple(sorted({norm_axis(a, ndim) for a in axes}))
    if len(out) != len(axes):
        raise ShapeError(f"duplicate axes in {axis}")
    return out


def want_int(value: Any, what: str) -> int:
    """An integer attribute (bools are rejected: ``True`` is not an axis)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise GraphTypeError(f"{what} must be an int, but got {value!r}")
    return int(value)


def want_bool(value: Any, what: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise GraphTypeError(f"{what} must be a bool, but got {value!r}")
    return bool(value)


def want_shape(shape: Any, what: str = "shape") -> tuple[int, ...]:
    """A concrete shape attribute: a tuple of non-negative ints."""
    if not isinstance(shape, tuple):
        raise GraphTypeError(f"{what} must be a tuple of ints, but got {shape!r}")
    dims = tuple(want_int(d, f"every dimension of {what}") for d in shape)
    if any(d < 0 for d in dims):
        raise ShapeError(f"{what} {dims} has a negative dimension")
    return dims


def want_float_tensor(t: Type, what: str = "input") -> TensorType:
    tt = want_tensor(t, what)
    if not tt.dtype.is_float:
        raise GraphTypeError(f"the {what} must be a float Tensor, but got {tt}")
    return tt
