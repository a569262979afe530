"""MindSpore's creation ops composed from msc's primitives and numpy constants:
``full_like``, ``tril_indices``/``triu_indices``, ``cartesian_prod``, ``logspace``,
``fftfreq``/``rfftfreq`` and ``scalar_to_tensor``. (``arange``, ``linspace``, ``eye`` and
``zeros``/``ones`` are in ``array_func.py`` and ``functional.py``.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Tensor
from msc.errors import GraphTypeError
from msc.ir import dtypes
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor
from msc.ops.function.array_func import _count
from msc.ops.function.manipulation_func import _fail


def full_like(input: Any, fill_value: Any, *, dtype: dtypes.DType | None = None) -> Any:
    x = _as_tensor(input, "full_like")
    return F.fill(dtype or x.dtype, x.shape, fill_value)


def _indices(row: int, col: int, offset: int, lower: bool, dtype: Any) -> Any:
    r, c = np.indices((row, col))
    keep = (c - r <= offset) if lower else (c - r >= offset)
    return Tensor(np.stack([r[keep], c[keep]]).astype((dtype or dtypes.int64).np))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None) -> Any:
    return _indices(row, col, offset, True, dtype)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None) -> Any:
    return _indices(row, col, offset, False, dtype)


def cartesian_prod(*inputs: Any) -> Any:
    grids = A.meshgrid(*inputs, indexing="ij")
    return F.stack(tuple(F.reshape(g, (-1,)) for g in grids), 1)


# --- ranges and frequencies ----------------------------------------------------------------

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


def logspace(start: Any, end: Any, steps: int, base: int = 10, *,
             dtype: Any = dtypes.float32) -> Any:
    """``base`` to the powers of ``steps`` evenly spaced exponents from start to end."""
    if dtype not in _FLOATS:
        _fail("LogSpace", f"the 'dtype' should be one of [mindspore.float16, mindspore.float32, "
                          f"mindspore.float64], but got 'mindspore.{dtype}'.", GraphTypeError)
    count = _count(steps, "steps", "LogSpace")
    if count < 0:
        _fail("LogSpace", f"the 'steps' must be non-negative, but got {count}.")
    first, last = (F.cast(v if isinstance(v, Tensor) else Tensor(v), dtype) for v in (start, end))
    fraction = np.arange(count) / max(count - 1, 1)
    exponents = first + (last - first) * Tensor(fraction.astype(dtype.np))
    return F.pow(Tensor(np.array(base, dtype.np)), exponents)


def _frequencies(table: Any, n: Any, d: Any, dtype: Any, op: str) -> Any:
    count = _count(n, "n", op)
    if count < 1:
        _fail(op, f"the 'n' must be positive, but got {count}.")
    return Tensor(table(count, d).astype((dtype or dtypes.float32).np))


def fftfreq(n: Any, d: float = 1.0, dtype: Any = None) -> Any:
    return _frequencies(np.fft.fftfreq, n, d, dtype, "fftfreq")


def rfftfreq(n: Any, d: float = 1.0, dtype: Any = None) -> Any:
    return _frequencies(np.fft.rfftfreq, n, d, dtype, "rfftfreq")


def scalar_to_tensor(input_x: Any, dtype: Any = dtypes.float32) -> Any:
    if not isinstance(input_x, (bool, int, float)):
        _fail("scalar_to_tensor", f"the 'input_x' must be a number, but got "
                                  f"{type(input_x).__name__}.", GraphTypeError)
    return Tensor(input_x, dtype)


__all__ = ["full_like", "tril_indices", "triu_indices", "cartesian_prod", "logspace", "fftfreq",
           "rfftfreq", "scalar_to_tensor"]
