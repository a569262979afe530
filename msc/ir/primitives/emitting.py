"""Helpers the primitives' code emitters share.

Emitters return one expression in numpy syntax that both targets accept (the numba
target restricts itself to what Numba compiles: contiguous reshapes, ``np.transpose``
with a tuple, ``_rt_*`` runtime helpers for reductions and row-wise kernels).
"""

from __future__ import annotations

import math

from msc.ir.nodes import Node
from msc.ir.types import TensorType, tensor_of


def in_type(node: Node, i: int = 0) -> TensorType:
    t = tensor_of(node.inputs[i].type)
    assert t is not None
    return t


def out_type(node: Node) -> TensorType:
    t = tensor_of(node.out.type)
    assert t is not None
    return t


def contiguous(x: str) -> str:
    return f"np.ascontiguousarray({x})"


def reshape(x: str, shape: tuple[int, ...]) -> str:
    return f"{contiguous(x)}.reshape({shape!r})"


def as_rows(x: str, shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[str, tuple[int, ...]]:
    """``x`` with ``axes`` moved last and flattened: a contiguous (outer, inner) matrix.
    Returns the expression and the permutation applied (for moving back)."""
    keep = tuple(a for a in range(len(shape)) if a not in axes)
    perm = keep + tuple(axes)
    moved = x if perm == tuple(range(len(shape))) else f"np.transpose({x}, {perm!r})"
    outer = math.prod(shape[a] for a in keep)
    inner = math.prod(shape[a] for a in axes)
    return reshape(moved, (outer, inner)), perm


def from_rows(x: str, shape: tuple[int, ...], perm: tuple[int, ...]) -> str:
    """Undo ``as_rows`` for a result of the same size as its input."""
    moved_shape = tuple(shape[p] for p in perm)
    out = f"{x}.reshape({moved_shape!r})"
    if perm == tuple(range(len(shape))):
        return out
    inverse = tuple(perm.index(a) for a in range(len(shape)))
    return f"np.transpose({out}, {inverse!r})"


def dtype_ref(dt: object) -> str:
    """``np.float32``-style source for an msc dtype."""
    name = dt.np_name  # type: ignore[attr-defined]
    return "np.bool_" if name == "bool" else f"np.{name}"


def cast_to(x: str, have: object, want: object) -> str:
    return x if have == want else f"{x}.astype({dtype_ref(want)})"
