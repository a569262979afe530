"""Tensor element types and MindSpore 2.10's type-promotion rules.

Promotion follows MindSpore (and PyTorch): categories bool < int < float; two
tensors of one category take the wider type, of different categories the higher
category's type. A Python scalar is *weak*: it never widens a tensor of its own or
a higher category (``int32 * 2`` is int32), and lifts a lower one to the default
type of its category (``int32 * 2.5`` is float32, ``bool + 1`` is int64).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True, slots=True)
class DType:
    """A tensor element type; ``name`` is MindSpore's printed name (``Float32``)."""

    name: str
    np_name: str
    category: int  # 0 bool, 1 int, 2 float
    bits: int

    @property
    def np(self) -> np.dtype:
        return np.dtype(self.np_name)

    @property
    def is_float(self) -> bool:
        return self.category == 2

    @property
    def is_int(self) -> bool:
        return self.category == 1

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__


bool_ = DType("Bool", "bool", 0, 8)
uint8 = DType("UInt8", "uint8", 1, 8)
uint16 = DType("UInt16", "uint16", 1, 16)
uint32 = DType("UInt32", "uint32", 1, 32)
uint64 = DType("UInt64", "uint64", 1, 64)
int8 = DType("Int8", "int8", 1, 8)
int16 = DType("Int16", "int16", 1, 16)
int32 = DType("Int32", "int32", 1, 32)
int64 = DType("Int64", "int64", 1, 64)
float16 = DType("Float16", "float16", 2, 16)
float32 = DType("Float32", "float32", 2, 32)
float64 = DType("Float64", "float64", 2, 64)

ALL_DTYPES = (bool_, uint8, uint16, uint32, uint64, int8, int16, int32, int64, float16, float32,
              float64)
#: MindSpore converts these implicitly only to themselves (and takes bool into them).
_UNPROMOTED = (uint16, uint32, uint64)
_BY_NP = {d.np_name: d for d in ALL_DTYPES}
_BY_SHORT = {"bool": bool_, "u8": uint8, "u16": uint16, "u32": uint32, "u64": uint64, "i8": int8, "i16": int16, "i32": int32,
             "i64": int64, "f16": float16, "f32": float32, "f64": float64}

#: The default dtype of each category, used for weak Python scalars.
DEFAULT_OF_CATEGORY = {0: bool_, 1: int64, 2: float32}


_FROM_NUMPY: dict[object, DType] = {}


def from_numpy(dt: np.dtype | type) -> DType:
    """The msc dtype of a numpy dtype; raises TypeError for unsupported ones.
    Memoised: every eager op asks this several times."""
    found = _FROM_NUMPY.get(dt)
    if found is not None:
        return found
    name = np.dtype(dt).name
    if name not in _BY_NP:
        raise TypeError(f"unsupported tensor dtype {name}")
    _FROM_NUMPY[dt] = _BY_NP[name]
    return _BY_NP[name]


_PYTHON_TYPES = {bool: bool_, int: int64, float: float64}


def coerce(dt: Any) -> Any:
    """The msc dtype of any spelling MindSpore accepts for one: an msc dtype, a numpy
    dtype or scalar type (``np.float32``), its name (``"float32"``; ``"float"`` and
    ``float`` are float64, as in MindSpore's ``astype``), or Python's ``bool``/``int``. Anything else comes back as
    it is, for the caller's type rule to reject with its own message."""
    if isinstance(dt, DType):
        return dt
    if isinstance(dt, type) and dt in _PYTHON_TYPES:
        return _PYTHON_TYPES[dt]
    if isinstance(dt, str):
        name = {"float": "float64", "int": "int64", "bool_": "bool", "half": "float16",
                "single": "float32", "double": "float64"}.get(dt.lower(), dt.lower())
        return _BY_NP.get(name, dt)
    try:
        return from_numpy(dt)
    except TypeError:
        return dt


def from_short(name: str) -> DType:
    """Parse the CLI spelling (``f32``, ``i64``, ``bool``)."""
    if name not in _BY_SHORT:
        raise ValueError(f"unknown dtype '{name}' (use one of {', '.join(_BY_SHORT)})")
    return _BY_SHORT[name]


def short_name(dt: DType) -> str:
    return next(k for k, v in _BY_SHORT.items() if v == dt)


def _no_conversion(a: str, b: str) -> None:
    from msc.errors import GraphTypeError

    raise GraphTypeError(f"Type implicit conversion between {a} and {b} is not supported.")


def promote(a: DType, b: DType) -> DType:
    """Promotion of two tensor dtypes (uint16/32/64 meet only themselves and bool)."""
    if a == b:
        return a
    if bool_ in (a, b):
        return b if a == bool_ else a
    if a in _UNPROMOTED or b in _UNPROMOTED:
        _no_conversion(f"Tensor[{a}]", f"Tensor[{b}]")
    if a.category != b.category:
        return a if a.category > b.category else b
    if a.bits != b.bits:
        return a if a.bits > b.bits else b
    # Same width, same category: only uint8 vs int8 remains; MindSpore gives int16.
    return int16


def promote_weak(tensor: DType, scalar_category: int) -> DType:
    """Promotion of a tensor dtype with a Python scalar of ``scalar_category`` (a number
    meets uint16/32/64 as an int64 or float32 tensor would: not at all)."""
    if tensor in _UNPROMOTED and scalar_category > 0:
        _no_conversion(f"Tensor[{DEFAULT_OF_CATEGORY[scalar_category]}]", str(tensor))
    if scalar_category <= tensor.category:
        return tensor
    return DEFAULT_OF_CATEGORY[scalar_category]


def scalar_category(value: object) -> int:
    """Category of a Python scalar (bool before int: bool is an int subclass)."""
    if isinstance(value, (bool, np.bool_)):
        return 0
    if isinstance(value, (int, np.integer)):
        return 1
    if isinstance(value, (float, np.floating)):
        return 2
    raise TypeError(f"not a scalar: {type(value).__name__}")
