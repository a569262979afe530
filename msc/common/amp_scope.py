"""The casts of mixed precision, made at each op as MindSpore's PyNative mode makes them.

A Cell run with ``to_float(float16)`` (or by ``auto_mixed_precision``) opens a ``Scope``
for its ``construct``: while it is open, every op the dispatcher ``apply`` runs takes its
floating-point tensor inputs (arguments, Parameters, constants, intermediate values)
cast to the scope's type; ``Cast`` itself and the ops that write a weight in place are
left alone, so a float32 Parameter stays float32. A nested Cell with a type of its own
(BatchNorm kept in float32) opens its own scope; one without inherits its owner's.

Level O1 opens scopes with ``back`` set: only the listed primitives (or, inside a
white-listed Cell, every op) run in the low type, and their floating outputs are cast
back to float32, as the cast pairs MindSpore's rewrite inserts around them.

The same dispatcher builds graphs, so a compiled Cell gets the same casts as eager mode,
and their gradients are the casts' own (the gradient comes back in the input's type). An
eager gradient or ``vmap``, compiled into a graph of its own, traces under the scope of
its call (``current``), as it would inside the Cell's graph.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from msc.ir import dtypes
from msc.ir.primitives import Op


class Scope(NamedTuple):
    """``dtype``: the compute type; ``ops``: the primitive names cast (None: all);
    ``back``: cast floating outputs back to float32. A tuple, so a compile that saw one
    compares it by value."""

    dtype: dtypes.DType
    ops: tuple[str, ...] | None = None
    back: bool = False


#: The open scopes, innermost last; None closes them (inside a cast, and for a compile).
STACK: list[Scope | None] = []

#: The attribute of a Cell holding its scope (``to_float``, ``auto_mixed_precision``).
ATTR = "_amp_scope"


@contextmanager
def opened(scope: Scope | None) -> Iterator[None]:
    STACK.append(scope)
    try:
        yield
    finally:
        STACK.pop()


def current() -> Scope | None:
    """The scope an op run now would be cast by (None outside every marked Cell)."""
    return STACK[-1] if STACK else None


@contextmanager
def cell_scope(cell: Any) -> Iterator[None]:
    """The scope a Cell's call opens: its own, else its owner's (nothing to open)."""
    scope = getattr(cell, ATTR, None)
    if scope is None:
        yield
    else:
        with opened(scope):
            yield


def _is_float(x: Any) -> bool:
    dtype = getattr(x, "dtype", None)
    return isinstance(dtype, dtypes.DType) and dtype.is_float


def wanted(prim: Any) -> Scope | None:
    """The open scope if it casts ``prim``'s inputs."""
    scope = STACK[-1]
    if scope is None or prim is Op.Cast or prim.writes:
        return None
    if scope.ops is not None and prim.name not in scope.ops:
        return None
    return scope


def cast_inputs(scope: Scope, inputs: tuple[Any, ...], apply: Any, cast: Any) -> tuple[Any, ...]:
    """``inputs`` with each floating tensor of another type cast to the scope's."""
    return tuple(apply(cast, x, dtype=scope.dtype)
                 if _is_float(x) and x.dtype != scope.dtype else x for x in inputs)


def cast_back(out: Any, apply: Any, cast: Any) -> Any:
    """Floating outputs of another type than float32 cast to float32 (O1's cast pairs)."""
    if isinstance(out, tuple):
        return tuple(cast_back(o, apply, cast) for o in out)
    if _is_float(out) and out.dtype != dtypes.float32:
        return apply(cast, out, dtype=dtypes.float32)
    return out
