"""The generator's static types: a tensor of one dtype and shape, a tuple of tensors, a
Python int; and the shape arithmetic every generated form relies on (broadcasting,
sub-shapes). A generated expression always has exactly the type it was asked for."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Union

import numpy as np

#: The dtypes, by the feature that enables each (float32 is always on).
FLOATS = ("float32", "float64", "float16")
INTS = ("int32", "int64")
MS_DTYPE = {"float32": "ms.float32", "float64": "ms.float64", "float16": "ms.float16",
            "int32": "ms.int32", "int64": "ms.int64", "bool": "ms.bool_"}
NP_DTYPE = {"float32": "np.float32", "float64": "np.float64", "float16": "np.float16",
            "int32": "np.int32", "int64": "np.int64", "bool": "np.bool_"}
#: Shapes the generator draws from: 0-d, size-1 dimensions, broadcasting partners.
#: (2, 3, 2, 2) and (1, 3, 1, 1): feature maps and per-channel operands, whose loops the
#: numba target merges axis by axis (fusion.merged_axes). (2, 67) and (2, 1, 64): rows
#: long enough for a fold's runtime helper (``Loops.fold``), with a rest and without.
SHAPES: tuple[tuple[int, ...], ...] = ((), (1,), (3,), (2,), (2, 3), (1, 3), (2, 1),
                                       (1, 1), (3, 1, 2), (2, 2), (2, 3, 2, 2), (1, 3, 1, 1),
                                       (2, 67), (2, 1, 64))


@dataclass(frozen=True)
class TT:
    """A tensor type."""

    dtype: str
    shape: tuple[int, ...]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def floating(self) -> bool:
        return self.dtype in FLOATS

    @property
    def integral(self) -> bool:
        return self.dtype in INTS

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def with_shape(self, shape: tuple[int, ...]) -> TT:
        return TT(self.dtype, tuple(shape))

    def with_dtype(self, dtype: str) -> TT:
        return TT(dtype, self.shape)


@dataclass(frozen=True)
class Tup:
    """A tuple of tensors."""

    items: tuple[TT, ...]


PYINT = "int"  # a Python int (a loop index, a counter)
PYFLOAT = "float"  # a Python float (a constant attribute)
Type = Union[TT, Tup, str]


@dataclass(frozen=True)
class Var:
    """A name in scope and its type. ``mutable``: may be updated in place (``+=``,
    item assignment); only variables always bound to fresh values are."""

    name: str
    type: Type
    mutable: bool = False


def broadcasts(src: tuple[int, ...], dst: tuple[int, ...]) -> bool:
    """Whether a ``src`` operand broadcasts to ``dst`` without changing it."""
    if len(src) > len(dst):
        return False
    return all(s in (1, d) for s, d in zip(reversed(src), reversed(dst)))


def sub_shape(rng: random.Random, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts to ``shape``: itself, fewer leading dims, some dims 1."""
    r = rng.random()
    if r < 0.55:
        return shape
    if r < 0.7:
        return ()
    keep = rng.randint(0, len(shape))
    return tuple(1 if rng.random() < 0.4 else d for d in shape[len(shape) - keep:])


def array_literal(rng: random.Random, t: TT) -> np.ndarray:
    """Small values: half-integers for floats (most arithmetic on them is exact), small
    ints, random bools."""
    n = t.size
    if t.dtype == "bool":
        return np.array([rng.random() < 0.5 for _ in range(n)], bool).reshape(t.shape)
    if t.integral:
        return np.array([rng.randint(-5, 5) for _ in range(n)]).reshape(t.shape).astype(t.dtype)
    return np.array([rng.randint(-6, 6) / 2 for _ in range(n)]).reshape(t.shape).astype(t.dtype)


def literal_source(value: np.ndarray) -> str:
    """Source text of ``value`` as a numpy array."""
    return f"np.array({value.tolist()!r}, {NP_DTYPE[value.dtype.name]})"
