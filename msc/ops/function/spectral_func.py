"""The window functions (``ops.hann_window``, ``ops.hamming_window``, ``ops.kaiser_window``,
...), as MindSpore's ``spectral_func`` has them. A window depends only on its length, which
must be known when a graph is built, so each is a constant tensor computed with numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import SymTensor, Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.ops.function.arguments import _checking


def _length(window_length: Any, op: str) -> int:
    with _checking(op):
        if isinstance(window_length, SymTensor):
            raise GraphValueError("'window_length' must be known when the graph is built, but "
                                  "it is computed by the graph")
        if isinstance(window_length, Tensor):
            if not window_length.dtype.is_int or window_length.size != 1:
                raise GraphTypeError(f"'window_length' must be an integer Tensor of one "
                                     f"element, but got {window_length.dtype} of shape "
                                     f"{window_length.shape}")
            window_length = int(window_length.asnumpy().reshape(-1)[0])
        if isinstance(window_length, bool) or not isinstance(window_length, (int, np.integer)) \
                or window_length < 0:
            raise GraphValueError(f"'window_length' must be a non-negative int, but got "
                                  f"{window_length!r}")
    return int(window_length)


def _window(window_length: Any, periodic: bool, dtype: Any, default: Any, op: str,
            shape: Any) -> Tensor:
    """``shape(n, N)`` over n = 0 .. length - 1, N = length (+ 1 when ``periodic``, the
    last point dropped): a constant of ``dtype``."""
    length = _length(window_length, op)
    dt = dtypes.coerce(dtype) if dtype is not None else default
    with _checking(op):
        if not isinstance(dt, dtypes.DType) or not dt.is_float:
            raise GraphTypeError(f"'dtype' must be a float dtype, but got {dtype!r}")
    if length <= 1:
        return Tensor(np.ones(length), dt)
    total = length + 1 if periodic else length
    n = np.arange(total, dtype=np.float64)
    return Tensor(shape(n, total)[:length], dt)


def bartlett_window(window_length: Any, periodic: bool = True, *, dtype: Any = None) -> Any:
    return _window(window_length, periodic, dtype, dtypes.float32, "BartlettWindow",
                   lambda n, m: 1 - np.abs(2 * n / (m - 1) - 1))


def blackman_window(window_length: Any, periodic: bool = True, *, dtype: Any = None) -> Any:
    return _window(window_length, periodic, dtype, dtypes.float32, "BlackmanWindow",
                   lambda n, m: 0.42 - 0.5 * np.cos(2 * np.pi * n / (m - 1)) +
                   0.08 * np.cos(4 * np.pi * n / (m - 1)))


def hamming_window(window_length: Any, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype: Any = None) -> Any:
    return _window(window_length, periodic, dtype, dtypes.float32, "HammingWindow",
                   lambda n, m: alpha - beta * np.cos(2 * np.pi * n / (m - 1)))


def hann_window(window_length: Any, periodic: bool = True, *, dtype: Any = None) -> Any:
    """float64 unless ``dtype`` says otherwise, as MindSpore's."""
    return _window(window_length, periodic, dtype, dtypes.float64, "hann_window",
                   lambda n, m: 0.5 - 0.5 * np.cos(2 * np.pi * n / (m - 1)))


def kaiser_window(window_length: Any, periodic: bool = True, beta: float = 12.0, *,
                  dtype: Any = None) -> Any:
    """I0(beta * sqrt(1 - (2n / (N - 1) - 1) ** 2)) / I0(beta); float64 by default."""
    return _window(window_length, periodic, dtype, dtypes.float64, "kaiser_window",
                   lambda n, m: np.i0(beta * np.sqrt(np.clip(1 - (2 * n / (m - 1) - 1) ** 2,
                                                             0, None))) / np.i0(beta))


__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window",
           "kaiser_window"]
