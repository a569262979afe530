"""``from msc import dtype as mstype``: MindSpore's dtype module names."""

from msc.ir.dtypes import (  # noqa: F401
    DType,
    bool_,
    coerce,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)

Type = DType
float_ = float32
int_ = int64
half = float16
single = float32
double = float64


def dtype_to_nptype(type_: DType) -> type:
    """The numpy scalar type of an msc dtype (``mstype.dtype_to_nptype(mstype.float32)``
    is ``np.float32``)."""
    return coerce(type_).np.type


def dtype_to_pytype(type_: DType) -> type:
    """The Python type of an msc dtype's values: ``bool``, ``int`` or ``float``."""
    return (bool, int, float)[coerce(type_).category]


def pytype_to_dtype(obj: object) -> DType:
    """The msc dtype of a Python or numpy type (``bool``, ``int``, ``float``, ``np.int32``)."""
    found = coerce(obj)
    if not isinstance(found, DType):
        raise NotImplementedError(f"unsupported dtype conversion from {obj!r}")
    return found


__all__ = ["DType", "Type", "bool_", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16",
           "float32", "float64", "float_", "int_", "half", "single", "double",
           "dtype_to_nptype", "pytype_to_dtype", "dtype_to_pytype"]
