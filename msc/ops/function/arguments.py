"""How the functional ops read their arguments: errors that name the op and the user's
line (``_checking``), tensor coercion, and MindSpore's axis and shape arguments as the
canonical tuples a node's attributes hold.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from msc.common.tensor import Tensor
from msc.errors import GraphTypeError, MscError, ShapeError
from msc.frontend.builder import current_builder
from msc.frontend.source import user_loc
from msc.ir.primitives import Primitive
from msc.ir.primitives.base import norm_axes, norm_axis, want_int
from msc.ir.types import Type, type_of_value

# --- argument checking -----------------------------------------------------------------


class _checking:  # noqa: N801 - used like a function: ``with _checking(Op.Reshape):``
    """Errors found while normalising arguments read like the dispatcher's: they name the
    op (a primitive, or a query's name such as "Shape") and the user's line. A class, not
    ``contextlib``: the location search skips msc's frames only, and a stdlib frame would
    pass for the user's."""

    def __init__(self, op: Primitive | str):
        self.op = op if isinstance(op, str) else op.name

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, err: BaseException | None, tb: object) -> bool:
        if isinstance(err, MscError) and err.loc is None:
            err.message = f"For '{self.op}', {err.message}"
            builder = current_builder()
            err.with_loc(builder.loc if builder is not None else user_loc())
        return False


def _as_tensor(x: Any, op: Primitive | str) -> Tensor:
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        return Tensor(x)
    with _checking(op):
        raise GraphTypeError(f"the input must be a Tensor, but got {type(x).__name__}")


def _type_of(x: Any) -> Type:
    return x.type if isinstance(x, Tensor) else type_of_value(x)


def _axis_attr(axis: Any) -> tuple[Any, ...]:
    """MindSpore's axis argument (None, int, list, tuple) as a tuple."""
    if axis is None:
        return ()
    return tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)


def _reduce_axes(x: Any, axis: Any, op: Primitive | str) -> tuple[int, ...]:
    """Canonical reduction axes: sorted and non-negative, () for all, so equal reductions
    build equal nodes."""
    x = _as_tensor(x, op)
    with _checking(op):
        axes = norm_axes(tuple(want_int(a, "axis") for a in _axis_attr(axis)), x.ndim)
    return () if len(axes) == x.ndim else axes


def _dims(shape: Any, op: Primitive | str) -> tuple[int, ...]:
    """A shape argument (int, list, tuple; eager 0-d tensors allowed) as a tuple of ints."""
    with _checking(op):
        items = (shape,) if not isinstance(shape, (list, tuple)) else shape
        try:
            return tuple(operator.index(d) for d in items)
        except TypeError:
            raise GraphTypeError(f"the shape must be ints, but got {shape!r}") from None


# --- shapes ---------------------------------------------------------------------------


def _axis_of(x: Tensor, axis: Any, op: Primitive | str) -> int:
    """One axis of ``x`` made non-negative, for ops that index the dim it names (a 0-d
    tensor has none: reductions, which accept axis 0 of one, use ``norm_axes``)."""
    with _checking(op):
        axis = want_int(axis, "axis")
        if x.ndim == 0:
            raise ShapeError(f"axis {axis} is out of range for a 0-d tensor")
        return norm_axis(axis, x.ndim)
