"""The types of IR values: tensors, Python scalars, tuples, weight references, monads.

Types are frozen and hashable: they key CSE, the in-memory compile cache and, later,
the on-disk cache. Each prints in MindSpore's ``save_graphs`` spelling.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Union

import numpy as np

from msc.ir.dtypes import DType, from_numpy, scalar_category

_SCALAR_NAMES = {0: "Bool", 1: "Int64", 2: "Float32"}


@dataclass(frozen=True, slots=True)
class TensorType:
    dtype: DType
    shape: tuple[int, ...]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)  # NOTE: not np.prod, 20x slower on a small tuple

    def __str__(self) -> str:
        dims = ", ".join(map(str, self.shape))
        return f"<Tensor[{self.dtype}], ({dims})>"


@dataclass(frozen=True, slots=True)
class ScalarType:
    """A Python number used as an operand: weakly typed (see ``dtypes``)."""

    category: int  # 0 bool, 1 int, 2 float

    def __str__(self) -> str:
        return f"<{_SCALAR_NAMES[self.category]}>"


@dataclass(frozen=True, slots=True)
class TupleType:
    elems: tuple[Type, ...]

    def __str__(self) -> str:
        return f"<Tuple[{', '.join(str(e)[1:-1] for e in self.elems)}]>"


@dataclass(frozen=True, slots=True)
class RefType:
    """A weight: a named, mutable buffer; reading it yields ``tensor``."""

    tensor: TensorType

    def __str__(self) -> str:
        dims = ", ".join(map(str, self.tensor.shape))
        return f"<Ref[Tensor[{self.tensor.dtype}]], ({dims})>"


@dataclass(frozen=True, slots=True)
class MonadType:
    """The state token that orders side effects (``U``)."""

    def __str__(self) -> str:
        return "<UMonad>"


class UMonad:
    """The value of the initial state token, ``U``: it carries no data. A graph's effects
    thread the token from ``U`` through ``Load``, ``Assign``, ``Print`` and ``UpdateState``."""

    _instance: UMonad | None = None

    def __new__(cls) -> UMonad:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "U"

    def __reduce__(self) -> str:
        return "U"


#: The initial state token.
U = UMonad()


@dataclass(frozen=True, slots=True)
class PyType:
    """Any other compile-time Python constant (None, str, ...): never a kernel operand."""

    name: str

    def __str__(self) -> str:
        return f"<{self.name}>"


Type = Union[TensorType, ScalarType, TupleType, RefType, MonadType, PyType]


def tensor_of(t: Type) -> TensorType | None:
    """The tensor a value of type ``t`` holds (weights read as their tensor), else None."""
    if isinstance(t, RefType):
        return t.tensor
    return t if isinstance(t, TensorType) else None


def type_of_value(value: object) -> Type:
    """The IR type of a concrete value (numpy array, Python scalar, tuple, other)."""
    if isinstance(value, np.ndarray):
        return TensorType(from_numpy(value.dtype), tuple(int(d) for d in value.shape))
    if isinstance(value, np.generic):
        return TensorType(from_numpy(value.dtype), ())
    if isinstance(value, (bool, int, float)):
        return ScalarType(scalar_category(value))
    if isinstance(value, tuple):
        return TupleType(tuple(type_of_value(v) for v in value))
    if isinstance(value, UMonad):
        return MonadType()
    return PyType(type(value).__name__)
