"""Convolution and pooling: ``ops.conv1d/2d/3d``, ``ops.conv_transpose2d`` and the pooling
functions (their classes, ``ops.Conv2D``, ``ops.MaxPool``, ..., are in
``operations/nn_ops.py``).

Every form turns MindSpore's arguments (pad modes, ints or tuples, ceil mode) into the
explicit attributes of ``Op.Conv``, ``Op.ConvTranspose`` or ``Op.MaxPool``. Average
pooling is a depthwise ``Conv`` with a kernel of ones divided by a constant count per
output position (shapes are static, so the count is computed here with numpy); adaptive
average pooling multiplies by constant averaging matrices; adaptive max pooling is
separable, one spatial dim at a time.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.common.tensor import Tensor, apply
from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.ir.primitives import Op
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.functional import reshape, transpose
from msc.ops.function.window_index import pool_taps, window_argmax, window_table

# --- arguments ----------------------------------------------------------------------------


def tuple_arg(value: Any, nd: int, what: str, least: int = 1) -> tuple[int, ...]:
    """An int (the same for every spatial dim) or a tuple/list of ``nd`` ints."""
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,) * nd
    if len(items) != nd or any(isinstance(v, bool) or not isinstance(v, int) for v in items):
        raise GraphTypeError(f"'{what}' must be an int or a tuple of {nd} ints, but got "
                             f"{value!r}.")
    if any(v < least for v in items):
        raise GraphValueError(f"every item of '{what}' must be at least {least}, but got "
                              f"{value!r}.")
    return items


def same_pad(size: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    """MindSpore's 'same' padding: ceil(size / stride) outputs, the odd unit of padding
    after the input (bottom, right)."""
    need = max(0, (-(-size // stride) - 1) * stride + dilation * (kernel - 1) + 1 - size)
    return need // 2, need - need // 2


def explicit_pad(pad_mode: str, padding: Any, spatial: tuple[int, ...],
                 kernel: tuple[int, ...], stride: tuple[int, ...],
                 dilation: tuple[int, ...]) -> tuple[int, ...]:
    """(lo, hi) per spatial dim for a pad mode; ``padding`` (mode 'pad' only) is an int,
    one int per dim (both sides), or (lo, hi) per dim."""
    nd = len(spatial)
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode not in ("same", "valid", "pad"):
        raise GraphValueError(f"'pad_mode' must be one of 'same', 'valid', 'pad', but got "
                              f"{pad_mode!r}.")
    given = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,)
    if any(isinstance(p, bool) or not isinstance(p, int) or p < 0 for p in given):
        raise GraphValueError(f"'padding' must be non-negative ints, but got {padding!r}.")
    if mode != "pad":
        if any(given):
            raise GraphValueError(f"'padding' must be 0 when 'pad_mode' is '{mode}', but "
                                  f"got {padding!r}.")
        if mode == "valid":
            return (0,) * (2 * nd)
        return sum((same_pad(*a) for a in zip(spatial, kernel, stride, dilation)), ())
    if len(given) == 1:
        return given * (2 * nd)
    if len(given) == nd:
        return sum(((p, p) for p in given), ())
    if len(given) == 2 * nd:
        return given
    raise GraphValueError(f"'padding' must be an int or a tuple of {nd} or {2 * nd} ints, "
                          f"but got {padding!r}.")


def _spatial_input(x: Any, nd: int, op: Any) -> Tensor:
    x = _as_tensor(x, op)
    if x.ndim != nd + 2:
        with _checking(op):
            raise ShapeError(f"the input must be {nd + 2}-D (N, C and {nd} spatial dims), "
                             f"but got shape {x.shape}")
    return x


def add_bias(out: Any, bias: Any, op: Any) -> Any:
    """``out + bias`` with the 1-D bias along the channel axis."""
    if bias is None:
        return out
    if not isinstance(bias, Tensor) or bias.shape != (out.shape[1],):
        with _checking(op):
            raise ShapeError(f"the bias must be a 1-D Tensor of {out.shape[1]} elements, "
                             f"but got {getattr(bias, 'shape', type(bias).__name__)}")
    return out + reshape(bias, (out.shape[1],) + (1,) * (out.ndim - 2))


# --- convolution --------------------------------------------------------------------------


def conv(input: Any, weight: Any, bias: Any, stride: Any, pad_mode: str, padding: Any,
         dilation: Any, groups: int, nd: int) -> Any:
    """An ``nd``-d convolution of NC* ``input`` with (out, in/groups, *kernel) ``weight``."""
    x = _spatial_input(input, nd, Op.Conv)
    w = _as_tensor(weight, Op.Conv)
    with _checking(Op.Conv):
        stride, dilation = tuple_arg(stride, nd, "stride"), tuple_arg(dilation, nd, "dilation")
        if w.ndim != nd + 2:
            raise ShapeError(f"the weight must be {nd + 2}-D, but got shape {w.shape}")
        pad = explicit_pad(pad_mode, padding, x.shape[2:], w.shape[2:], stride, dilation)
    out = apply(Op.Conv, x, w, stride=stride, dilation=dilation, pad=pad, groups=groups)
    return add_bias(out, bias, Op.Conv)


def conv1d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, pad_mode: str = "valid",
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Any:
    return conv(input, weight, bias, stride, pad_mode, padding, dilation, groups, 1)


def conv2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, pad_mode: str = "valid",
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Any:
    return conv(input, weight, bias, stride, pad_mode, padding, dilation, groups, 2)


def conv3d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, pad_mode: str = "valid",
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Any:
    return conv(input, weight, bias, stride, pad_mode, padding, dilation, groups, 3)


def conv_transpose(input: Any, weight: Any, size: tuple[int, ...], stride: tuple[int, ...],
                   pad: tuple[int, ...], dilation: tuple[int, ...], groups: int) -> Any:
    """The transposed convolution of NC* ``input`` with (in, out/groups, *kernel)
    ``weight`` giving spatial shape ``size``."""
    return apply(Op.ConvTranspose, input, weight, stride=stride, dilation=dilation, pad=pad,
                 groups=groups, input_size=size)


def conv_transpose2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Any:
    """Output size (in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding
    + 1 per spatial dim; the output padding is computed, not zero-filled."""
    x = _spatial_input(input, 2, Op.ConvTranspose)
    w = _as_tensor(weight, Op.ConvTranspose)
    with _checking(Op.ConvTranspose):
        stride, dilation = tuple_arg(stride, 2, "stride"), tuple_arg(dilation, 2, "dilation")
        pads = tuple_arg(padding, 2, "padding", 0)
        extra = tuple_arg(output_padding, 2, "output_padding", 0)
        if any(e >= max(s, d) for e, s, d in zip(extra, stride, dilation)):
            raise GraphValueError(f"'output_padding' must be smaller than the stride or the "
                                  f"dilation, but got {output_padding!r}.")
        if w.ndim != 4:
            raise ShapeError(f"the weight must be 4-D, but got shape {w.shape}")
    size = tuple((n - 1) * s - 2 * p + d * (k - 1) + e + 1 for n, s, p, d, k, e in
                 zip(x.shape[2:], stride, pads, dilation, w.shape[2:], extra))
    out = conv_transpose(x, w, size, stride, sum(((p, p) for p in pads), ()), dilation, groups)
    return add_bias(out, bias, Op.ConvTranspose)


# --- pooling ------------------------------------------------------------------------------


def pool_pad(spatial: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
             dilation: tuple[int, ...], padding: tuple[int, ...],
             ceil_mode: bool) -> tuple[int, ...]:
    """(lo, hi) per dim for ``padding``, one int per dim (both sides) or (lo, hi) per dim;
    ceil mode adds at the end what the last partial window needs, unless that window
    would start past the input and its lo padding (PyTorch's and MindSpore's rule)."""
    nd = len(spatial)
    pairs = padding if len(padding) == 2 * nd else sum(((p, p) for p in padding), ())
    out = []
    for d, (n, k, s, dil) in enumerate(zip(spatial, kernel, stride, dilation)):
        lo, hi = pairs[2 * d], pairs[2 * d + 1]
        if lo + hi > k:  # MindSpore's rule: the kernel's own size, whatever the dilation
            raise GraphValueError(f"the padding {lo} must be at most half the kernel size {k}."
                                  if lo == hi else f"the padding {(lo, hi)} must sum to at "
                                  f"most the kernel size {k}.")
        span = n + lo + hi - dil * (k - 1) - 1
        if span < 0:
            raise ShapeError(f"the kernel {k} does not fit the input size {n} with padding "
                             f"{(lo, hi) if lo != hi else lo}")
        count = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (count - 1) * s >= n + lo:
            count -= 1
        out += [lo, hi + max(0, (count - 1) * s - span)]
    return tuple(out)


def _pool_args(x: Tensor, nd: int, kernel_size: Any, stride: Any, pad_mode: str,
               padding: Any, dilation: Any, ceil_mode: bool) -> tuple[Any, ...]:
    kernel = tuple_arg(kernel_size, nd, "kernel_size")
    stride = kernel if stride is None else tuple_arg(stride, nd, "stride")
    dilation = tuple_arg(dilation, nd, "dilation")
    if str(pad_mode).lower() == "pad":
        pads = tuple(padding) if isinstance(padding, (tuple, list)) and \
            len(padding) == 2 * nd else tuple_arg(padding, nd, "padding", 0)
        pad = pool_pad(x.shape[2:], kernel, stride, dilation, pads, bool(ceil_mode))
    else:
        if ceil_mode:
            raise GraphValueError("'ceil_mode' needs 'pad_mode' 'pad'.")
        pad = explicit_pad(pad_mode, padding, x.shape[2:], kernel, stride, dilation)
    return kernel, stride, dilation, pad


def _batched(input: Any, nd: int, op: Any) -> tuple[Tensor, bool]:
    """The input with a batch dim (pooling also takes one unbatched example)."""
    x = _as_tensor(input, op)
    if x.ndim == nd + 1:
        return x.reshape((1,) + x.shape), True
    return _spatial_input(x, nd, op), False


def _unbatched(out: Any, was: bool) -> Any:
    return out.reshape(out.shape[1:]) if was else out


def max_pool(input: Any, nd: int, kernel_size: Any, stride: Any = None, pad_mode: str = "pad",
             padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
             return_indices: bool = False, floor: str | None = None) -> Any:
    """``floor``: where the scan of MindSpore's kernel starts, so that no maximum is below
    it, a window with no tap inside the input included: None, -inf (``MaxPool3DWithArgmax``,
    behind ``nn.MaxPool1d/2d/3d`` with padding); ``"dtype"``, the dtype's lowest finite
    value, a NaN never winning (``MaxPoolWithArgmaxV2``, behind ``ops.max_pool2d``);
    ``"float32"``, float32's lowest finite value (``MaxPool3D``; -inf in float16)."""
    x, was = _batched(input, nd, Op.MaxPool)
    with _checking(Op.MaxPool):
        kernel, stride, dilation, pad = _pool_args(x, nd, kernel_size, stride, pad_mode,
                                                   padding, dilation, ceil_mode)
    lowest = None  # None: -inf (float32's lowest value is -inf in float16)
    if floor is not None and x.dtype.is_float:
        value = np.finfo(np.float32 if floor == "float32" else x.dtype.np).min
        lowest = np.array(value, x.dtype.np) if value >= np.finfo(x.dtype.np).min else None
    if floor == "dtype" and lowest is not None:  # NaN and -inf read as the lowest value
        x = apply(Op.Select, apply(Op.Greater, x, Tensor(lowest)), x, Tensor(lowest))
    out = apply(Op.MaxPool, x, kernel=kernel, stride=stride, dilation=dilation, pad=pad)
    sizes = tuple(out.shape[2:])
    taps, starts = pool_taps(tuple(x.shape[2:]), kernel, stride, dilation, pad, sizes)
    if lowest is not None and (floor == "float32" or not all(all(t) for t in taps)):
        out = apply(Op.Maximum, out, Tensor(lowest))
    if not return_indices:
        return _unbatched(out, was)
    _, index = window_argmax(x, nd, window_table(tuple(x.shape[2:]), taps, starts), sizes)
    if floor == "dtype" and lowest is not None:  # MindSpore's kernel starts its index at
        # the channel's offset in (C, H, W), kept where no value beats the lowest
        plane = np.arange(x.shape[1], dtype=np.int64) * math.prod(x.shape[2:])
        index = apply(Op.Select, apply(Op.Equal, out, Tensor(lowest)),
                      apply(Op.Add, index, Tensor(plane.reshape((-1,) + (1,) * nd))), index)
    return _unbatched(out, was), _unbatched(index, was)


def max_pool2d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, return_indices: bool = False, ceil_mode: bool = False) -> Any:
    return max_pool(x, 2, kernel_size, stride, "pad", padding, dilation, ceil_mode,
                    return_indices, floor="dtype")


def _window_counts(n: int, k: int, s: int, lo: int, hi: int, first: int,
                   last: int) -> np.ndarray:
    """How many positions of each window along one dim lie in [first, last)."""
    starts = np.arange((n + lo + hi - k) // s + 1) * s - lo
    return np.clip(np.minimum(starts + k, last) - np.maximum(starts, first), 0, None)


def avg_pool(input: Any, nd: int, kernel_size: Any, stride: Any = None, pad_mode: str = "pad",
             padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True,
             divisor_override: Any = None) -> Any:
    """Window sums (a depthwise Conv with a kernel of ones) over a constant count per
    output position, as MindSpore's CPU kernels (oneDNN's average pooling) compute it:

    - the count is the window's positions inside the input, grown by the declared padding
      when ``count_include_pad`` (never by the positions ceil mode adds). 'same' and
      'valid' padding is never counted (MindSpore's 2-d ``AvgPool``), except with a
      ``divisor_override`` (its layers then take the 3-d kernel, which counts it;
      ``P.AvgPool3D`` passes its 'same' padding as mode 'pad');
    - ``divisor_override`` replaces the count: the sum over the divisor, whether the
      padding counts or not (MindSpore 2.10's ``nn.AvgPool2d``, ``ops.avg_pool2d`` and
      ``P.AvgPool3D`` alike, tests/oracle)."""
    name = "AvgPool3D" if nd == 3 else "AvgPool"  # (MindSpore's names, not Conv's)
    x, was = _batched(input, nd, name)
    with _checking(name):
        if not x.dtype.is_float:
            raise GraphTypeError(f"the x must be a float Tensor, but got {x.type}")
        kernel, stride, dilation, pad = _pool_args(x, nd, kernel_size, stride, pad_mode,
                                                   padding, 1, ceil_mode)
    channels, spatial = x.shape[1], x.shape[2:]
    ones = Tensor(np.ones((channels, 1) + kernel, x.dtype.np))
    total = apply(Op.Conv, x, ones, stride=stride, dilation=dilation, pad=pad, groups=channels)
    padded = str(pad_mode).lower() == "pad" or bool(divisor_override)
    include = bool(count_include_pad) and padded
    grown = _declared_pad(pad_mode, padding, nd, pad)
    count = np.ones(())
    for d, (n, k, s) in enumerate(zip(spatial, kernel, stride)):
        lo, hi = pad[2 * d], pad[2 * d + 1]
        first, last = (-grown[2 * d], n + grown[2 * d + 1]) if include else (0, n)
        count = np.multiply.outer(count, _window_counts(n, k, s, lo, hi, first, last))
    if divisor_override:
        count = np.broadcast_to(float(divisor_override), total.shape[2:])
    return _unbatched(total / Tensor(np.asarray(count).astype(x.dtype.np)), was)


def _declared_pad(pad_mode: str, padding: Any, nd: int, pad: tuple[int, ...]) -> tuple[int, ...]:
    """The (lo, hi) padding per dim that the user asked for (``pad`` without what ceil
    mode adds)."""
    if str(pad_mode).lower() != "pad":
        return pad
    given = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * nd
    return given if len(given) == 2 * nd else sum(((p, p) for p in given), ())


def avg_pool1d(input_x: Any, kernel_size: Any = 1, stride: Any = 1, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Any:
    return avg_pool(input_x, 1, kernel_size, stride, "pad", padding, ceil_mode,
                    count_include_pad)


def avg_pool2d(input_x: Any, kernel_size: Any = 1, stride: Any = 1, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Any = 0) -> Any:
    return avg_pool(input_x, 2, kernel_size, stride, "pad", padding, ceil_mode,
                    count_include_pad, divisor_override)


# --- adaptive pooling ---------------------------------------------------------------------


def adaptive_sizes(x: Tensor, output_size: Any, nd: int, op: Any) -> tuple[int, ...]:
    """The output's spatial sizes: an int for every dim, or one per dim (None keeps it)."""
    items = tuple(output_size) if isinstance(output_size, (tuple, list)) else \
        (output_size,) * nd
    with _checking(op):
        if len(items) != nd or any(v is not None and (isinstance(v, bool) or
                                   not isinstance(v, int) or v < 1) for v in items):
            raise GraphValueError(f"'output_size' must be a positive int or a tuple of {nd} "
                                  f"positive ints (or None), but got {output_size!r}.")
    return tuple(n if v is None else v for n, v in zip(x.shape[-nd:], items))


def adaptive_bounds(n: int, out: int) -> list[tuple[int, int]]:
    """Window i of ``out`` over a dim of ``n``: [floor(i*n/out), ceil((i+1)*n/out))."""
    return [(i * n // out, -(-(i + 1) * n // out)) for i in range(out)]


def along(x: Any, axis: int, matrix: np.ndarray) -> Any:
    """``x`` with dim ``axis`` replaced by ``matrix @`` that dim (a constant matrix)."""
    m = Tensor(matrix.astype(x.dtype.np))
    last = x.ndim - 1
    if axis == last:
        return apply(Op.Dense, x, m)
    perm = tuple(range(axis)) + (last,) + tuple(range(axis + 1, last)) + (axis,)
    return transpose(apply(Op.Dense, transpose(x, perm), m), perm)


def adaptive_avg_pool(input: Any, output_size: Any, nd: int) -> Any:
    x = _as_tensor(input, Op.Dense)
    sizes = adaptive_sizes(x, output_size, nd, "AdaptiveAvgPool")
    for d, out in enumerate(sizes):
        axis, n = x.ndim - nd + d, x.shape[x.ndim - nd + d]
        if out == n:
            continue
        matrix = np.zeros((out, n))
        for i, (lo, hi) in enumerate(adaptive_bounds(n, out)):
            matrix[i, lo:hi] = 1.0 / (hi - lo)
        x = along(x, axis, matrix)
    return x


def adaptive_avg_pool1d(input: Any, output_size: int) -> Any:
    return adaptive_avg_pool(input, output_size, 1)


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Any:
    return adaptive_avg_pool(input, output_size, 2)


def adaptive_max_pool(input: Any, output_size: Any, nd: int,
                      return_indices: bool = False) -> Any:
    """Max over the windows [floor(i*n/out), ceil((i+1)*n/out)) of each spatial dim, the
    first maximum in row-major order taking the gradient (and giving the index)."""
    x = _as_tensor(input, Op.MaxPool)
    sizes = adaptive_sizes(x, output_size, nd, "AdaptiveMaxPool")
    spatial = tuple(x.shape[-nd:])
    per_dim = [[list(range(lo, hi)) for lo, hi in adaptive_bounds(n, out)]
               for n, out in zip(spatial, sizes)]
    values, index = window_argmax(x, nd, window_table(spatial, per_dim), sizes)
    return (values, index) if return_indices else values


def adaptive_max_pool2d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    return adaptive_max_pool(input, output_size, 2, return_indices)


__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose2d", "max_pool2d", "avg_pool1d",
           "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d"]
