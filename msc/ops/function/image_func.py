"""Padding, resizing, sampling and pixel shuffling: ``ops.pad``, ``ops.padding``,
``ops.interpolate`` (``ops.upsample``), ``ops.grid_sample``, ``ops.crop_and_resize``, the
region-of-interest pooling of ``ops.ROIAlign``, ``ops.pixel_shuffle`` and
``ops.pixel_unshuffle``.

Shapes are static, so each form is composed from existing primitives with constant
operands built here with numpy: a ``Gather`` with a constant index map per padded or
nearest-resized axis (reflect, symmetric, replicate and circular padding are index
maps), ``Concat`` with ``Fill`` blocks for constant padding, a ``Dense`` with a constant
interpolation matrix per axis for (bi/tri)linear resizing, and ``Reshape`` +
``Transpose`` for pixel shuffling; sampling at positions computed from tensors (grids,
boxes) reads element gathers. Gradients and vmap come from those primitives' rules.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.common.tensor import SymTensor, Tensor, apply
from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.conv_func import adaptive_avg_pool, along
from msc.ops.functional import concat, fill, gather, reshape, transpose

# --- index maps -------------------------------------------------------------------------


def _source_index(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """For each position of an axis of size ``n`` padded by ``before``/``after`` (negative
    crops), the input position it copies."""
    at = np.arange(-before, n + after)
    if mode == "reflect":  # mirrored about the edge element, which is not repeated
        period = max(2 * (n - 1), 1)
        at = at % period
        return np.where(at >= n, period - at, at)
    if mode == "symmetric":  # mirrored with the edge element repeated
        at = at % (2 * n)
        return np.where(at >= n, 2 * n - 1 - at, at)
    if mode == "circular":
        return at % n
    return np.clip(at, 0, n - 1)  # replicate (and the kept part of a constant pad)


def _take(x: Any, axis: int, index: np.ndarray) -> Any:
    """``x`` indexed along ``axis`` by a constant map (no node when it is the identity)."""
    if len(index) == x.shape[axis] and (index == np.arange(len(index))).all():
        return x
    return gather(x, Tensor(index.astype(np.int32)), axis)


def _constant_pad_axis(x: Any, axis: int, before: int, after: int, value: Any) -> Any:
    n = x.shape[axis]
    x = _take(x, axis, np.arange(max(-before, 0), n - max(-after, 0)))
    parts = []
    for count in (before, None, after):
        if count is None:
            parts.append(x)
        elif count > 0:
            shape = x.shape[:axis] + (count,) + x.shape[axis + 1:]
            parts.append(fill(x.dtype, shape, value))
    return parts[0] if len(parts) == 1 else concat(parts, axis)


def pad_axes(x: Any, pads: list[tuple[int, int]], mode: str, value: Any = 0) -> Any:
    """``x`` with its leading axes padded by ``pads`` (one (before, after) per axis,
    from axis 0) in ``mode``: constant, reflect, symmetric, replicate or circular."""
    if mode == "constant":
        value = np.array(value).astype(x.dtype.np).item()  # MindSpore casts the value
    for axis, (before, after) in enumerate(pads):
        if before == 0 and after == 0:
            continue
        if mode == "constant":
            x = _constant_pad_axis(x, axis, before, after, value)
        else:  # a negative amount crops first; the other side pads what is left (so a
            # circular pad wraps the cropped axis, as MindSpore and PyTorch do)
            lo, hi = max(-before, 0), x.shape[axis] - max(-after, 0)
            x = _take(x, axis, lo + _source_index(hi - lo, max(before, 0), max(after, 0),
                                                  mode))
    return x


# --- ops.pad and its forms --------------------------------------------------------------

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _int_pairs(padding: Any, op: str) -> tuple[int, ...]:
    if isinstance(padding, Tensor) and not isinstance(padding, SymTensor):
        padding = tuple(int(v) for v in padding.asnumpy().reshape(-1))
    if not isinstance(padding, (tuple, list)) or any(
            isinstance(p, bool) or not isinstance(p, (int, np.integer)) for p in padding):
        with _checking(op):
            raise GraphTypeError(f"the paddings value must be tuple of int or list of int, "
                                 f"but got {padding!r}")
    return tuple(int(p) for p in padding)


def pad(input_x: Any, padding: Any, mode: str = "constant", value: Any = None) -> Any:
    """Pad the last ``len(padding) // 2`` axes: ``padding`` is (left, right) of the last
    axis, then (top, bottom) of the one before, and so on; a negative amount crops.
    ``mode`` is 'constant' (with ``value``, default 0), 'reflect', 'replicate' or
    'circular'."""
    if not isinstance(input_x, Tensor):
        raise GraphTypeError(f"For 'pad', the type of 'input_x' must be Tensor, but got "
                             f"{type(input_x).__name__}.")
    padding = _int_pairs(padding, "pad")
    if not padding:
        return input_x
    with _checking("pad"):
        if len(padding) % 2:
            raise GraphValueError(f"the size of padding must be divisible by 2, but got "
                                  f"{len(padding)}")
        if mode not in _PAD_MODES:
            raise GraphValueError(f"the 'mode' must be in {list(_PAD_MODES)}, but got "
                                  f"{mode!r}")
        if mode != "constant" and value is not None:
            raise GraphValueError(f"the padding mode '{mode}' can not set value, but got "
                                  f"value {value}.")
        if value is not None and (isinstance(value, bool) or
                                  not isinstance(value, (int, float))):
            raise GraphTypeError(f"the 'value' must be int or float, but got "
                                 f"{type(value).__name__}")
        count = len(padding) // 2
        if count > input_x.ndim or (mode != "constant" and count > 3):
            raise GraphValueError(f"a padding of length {len(padding)} is too long for an "
                                  f"input of rank {input_x.ndim}")
        pads = [(0, 0)] * (input_x.ndim - count) + \
            [(padding[2 * i], padding[2 * i + 1]) for i in reversed(range(count))]
        _check_mirror(input_x.shape, pads, "reflect" if mode == "reflect" else None)
        if mode == "circular":
            _check_mirror(input_x.shape, pads, "circular")
    return pad_axes(input_x, pads, mode, 0 if value is None else value)


def _check_mirror(shape: tuple[int, ...], pads: list[tuple[int, int]],
                  mode: str | None) -> None:
    """Reflection repeats an axis at most once each side (smaller than the axis; equal to
    it for symmetric and circular padding)."""
    if mode is None:
        return
    for axis, (n, (before, after)) in enumerate(zip(shape, pads)):
        limit = n - 1 if mode == "reflect" else n
        if max(before, after) > limit:
            raise GraphValueError(f"{mode} mode, Padding size must be less than "
                                  f"{'' if mode == 'reflect' else 'or equal to '}the "
                                  f"corresponding input dimension, but got: padding "
                                  f"({before},{after}) at dimension {axis} of input:[{n}]")


def _paddings_pairs(paddings: Any, op: str) -> list[tuple[int, int]]:
    """MindSpore's ``paddings``: a tuple of (before, after) per axis, from axis 0."""
    with _checking(op):
        if not isinstance(paddings, tuple):
            raise GraphTypeError(f"the type of 'paddings' must be tuple, but got "
                                 f"{type(paddings).__name__}.")
        pairs = []
        for i, pair in enumerate(paddings):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2 or any(
                    isinstance(p, bool) or not isinstance(p, int) for p in pair):
                raise GraphTypeError(f"each element of 'paddings' must be a pair of ints, "
                                     f"but got paddings[{i}] = {pair!r}.")
            if min(pair) < 0:
                raise GraphValueError(f"all elements of 'paddings' must be >= 0, but got "
                                      f"paddings[{i}][0] = {pair[0]}, paddings[{i}][1] = "
                                      f"{pair[1]}")
            pairs.append((pair[0], pair[1]))
    return pairs


def _pad_pairs(x: Any, pairs: list[tuple[int, int]], mode: str, op: str) -> Any:
    """``nn.Pad``/``ops.Pad``/``ops.MirrorPad`` on ``x``: one pair per axis of ``x``."""
    x = _as_tensor(x, op)
    with _checking(op):
        if len(pairs) != x.ndim:
            raise GraphValueError(f"the length of 'paddings' must be equal to the rank of "
                                  f"'input_x', but got {len(pairs)} vs {x.ndim}")
        if mode != "constant":
            _check_mirror(x.shape, pairs, mode)
    return pad_axes(x, pairs, mode)


def padding(x: Any, pad_dim_size: int = 8) -> Any:
    """``ops.padding``: a last axis of size 1 widened to ``pad_dim_size`` with zeros."""
    x = _as_tensor(x, "padding")
    with _checking("padding"):
        if x.ndim < 1 or x.shape[-1] != 1:
            raise GraphValueError(f"the last dimension of 'x' must be 1, but got shape "
                                  f"{x.shape}")
        if isinstance(pad_dim_size, bool) or not isinstance(pad_dim_size, int):
            raise GraphTypeError(f"'pad_dim_size' must be int, but got "
                                 f"{type(pad_dim_size).__name__}")
        if pad_dim_size < 1:
            raise GraphValueError(f"'pad_dim_size' must be positive, but got {pad_dim_size}")
    return pad(x, (0, pad_dim_size - 1))


# --- interpolate ------------------------------------------------------------------------

#: mode -> the input ranks it takes (None: any of 3, 4, 5).
_MODES = {"nearest": (3, 4, 5), "nearest-exact": (3, 4, 5), "area": (3, 4, 5),
          "linear": (3,), "bilinear": (4,), "trilinear": (5,), "bicubic": (4,)}
#: the modes MindSpore refuses a ``scale_factor`` for (without recompute_scale_factor).
_SIZE_ONLY = {("nearest", 3), ("nearest", 4), ("linear", 3), ("bilinear", 4),
              ("bicubic", 4)}
#: the cubic convolution's coefficient with corners aligned; pixel centres take Keys'
#: -0.5 and drop the taps outside the input (MindSpore's ResizeBicubic, as TensorFlow's)
_CUBIC_A = -0.75


def _nearest_index(n: int, out: int, scale: float, exact: bool) -> np.ndarray:
    """Nearest source positions: floor(dst * scale), or floor((dst + 0.5) * scale) for
    'nearest-exact' (pixel centres), clipped to the axis."""
    at = (np.arange(out) + (0.5 if exact else 0.0)) * scale
    return np.minimum(np.floor(at).astype(np.int64), n - 1)


def linear_matrix(n: int, out: int, scale: float, align_corners: bool) -> np.ndarray:
    """The (out, n) matrix of linear interpolation along one axis: corners aligned
    (dst * (n-1)/(out-1)) or pixel centres (half-pixel, clipped at 0)."""
    dst = np.arange(out, dtype=np.float64)
    if align_corners:
        return _interpolation(n, dst * ((n - 1) / (out - 1)) if out > 1 else dst * 0)
    return _interpolation(n, np.maximum((dst + 0.5) * scale - 0.5, 0.0))


def cubic_matrix(n: int, out: int, scale: float, align_corners: bool) -> np.ndarray:
    """The (out, n) matrix of bicubic interpolation along one axis: the four input
    positions around each source position, weighted by the cubic convolution kernel; the
    source positions as in ``linear_matrix`` but not clipped. Corners aligned: a = -0.75,
    taps outside the axis clamped to its ends; pixel centres: a = -0.5, taps outside
    dropped and the rest renormalised. The fraction is rounded to 1/1024, as the kernel
    reads its weights from a table."""
    dst = np.arange(out, dtype=np.float64)
    if align_corners:
        src = dst * ((n - 1) / (out - 1)) if out > 1 else dst * 0
        return cubic_rows(n, src, _CUBIC_A, drop_outside=False)
    return cubic_rows(n, (dst + 0.5) * scale - 0.5, -0.5, drop_outside=True)


def cubic_rows(n: int, src: np.ndarray, a: float, drop_outside: bool) -> np.ndarray:
    """Rows of cubic convolution (coefficient ``a``) at the source positions ``src`` of an
    axis of ``n``: taps outside the axis are clamped to its ends, or dropped with the rest
    renormalised (``drop_outside``)."""
    out = len(src)
    low = np.floor(src).astype(np.int64)
    t = np.rint((src - low) * 1024) / 1024  # the kernel's table of 1024 steps

    def near(d: np.ndarray) -> np.ndarray:  # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d: np.ndarray) -> np.ndarray:  # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    taps = [low - 1 + k for k in range(4)]
    if drop_outside:
        inside = [(0 <= i) & (i < n) for i in taps]
        total = sum(w * m for w, m in zip(weights, inside))
        weights = [w * m / total for w, m in zip(weights, inside)]
    matrix, rows = np.zeros((out, n)), np.arange(out)
    for i, w in zip(taps, weights):
        np.add.at(matrix, (rows, np.clip(i, 0, n - 1)), w)
    return matrix


def _interpolation(n: int, src: np.ndarray) -> np.ndarray:
    """Rows mixing the two input positions around each source position ``src``."""
    low = np.minimum(np.floor(src).astype(np.int64), n - 1)
    frac, rows = src - low, np.arange(len(src))
    matrix = np.zeros((len(src), n))
    np.add.at(matrix, (rows, low), 1.0 - frac)
    np.add.at(matrix, (rows, np.minimum(low + 1, n - 1)), frac)
    return matrix


def _fail(kind: type, message: str) -> None:
    with _checking("interpolate"):
        raise kind(message)


def _resize_sizes(x: Any, size: Any, scale_factor: Any, mode: str,
                  recompute: Any) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """The output's spatial sizes and, per axis, input positions per output position."""
    nd = x.ndim - 2
    spatial = x.shape[2:]
    if (size is None) == (scale_factor is None):
        _fail(GraphValueError, "'size' and 'scale_factor' cannot be set simultaneously"
              if size is not None else "'size' and 'scale_factor' cannot be both empty")
    if size is not None:
        sizes = tuple(size) if isinstance(size, (tuple, list)) else (size,) * nd
        if len(sizes) != nd:
            _fail(GraphValueError, f"'input' and 'size' must have the same spatial "
                  f"dimensions, but got 'input' is {nd}D, 'size' is {len(sizes)}D")
        if any(isinstance(s, bool) or not isinstance(s, int) or s < 1 for s in sizes):
            _fail(GraphValueError, f"'size' must be positive ints, but got {size!r}")
        return sizes, tuple(n / s for n, s in zip(spatial, sizes))
    scales = tuple(scale_factor) if isinstance(scale_factor, (tuple, list)) else \
        (scale_factor,) * nd
    if any(not isinstance(s, float) for s in scales):
        bad = next(s for s in scales if not isinstance(s, float))
        _fail(GraphTypeError, f"the 'scale_factor' must be float, but got "
              f"'{type(bad).__name__}'")
    if len(scales) != nd:
        _fail(GraphValueError, f"'input' and 'scale_factor' must have the same spatial "
              f"dimensions, but got 'input' is {nd}D, 'scale_factor' is {len(scales)}D")
    if any(s <= 0 for s in scales):
        _fail(GraphValueError, f"the 'scale_factor' must be float and must > 0, but got "
              f"{scale_factor!r}")
    if recompute is not True and (mode, x.ndim) in _SIZE_ONLY:
        _fail(GraphValueError, f"'scale_factor' option cannot currently be set with the "
              f"mode = {mode} and dim = {x.ndim}D.")
    sizes = tuple(int(math.floor(n * s)) for n, s in zip(spatial, scales))
    if recompute is True:
        return sizes, tuple(n / s for n, s in zip(spatial, sizes))
    return sizes, tuple(1.0 / s for s in scales)


def interpolate(input: Any, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: Any = None, recompute_scale_factor: Any = None) -> Any:
    """Resize the spatial axes (all but the first two) to ``size`` or by
    ``scale_factor``: 'nearest', 'nearest-exact', 'area' (adaptive average), 'linear'
    (3-d input), 'bilinear' and 'bicubic' (4-d), 'trilinear' (5-d); the linear and cubic
    modes align corners or sample pixel centres (``align_corners``)."""
    x = _as_tensor(input, "interpolate")
    if mode not in _MODES:
        _fail(GraphValueError, f"'mode' must be in {list(_MODES)}, but got {mode!r}")
    if x.ndim not in _MODES[mode]:
        _fail(GraphValueError, f"{mode} only support {list(_MODES[mode])}D, but got "
              f"{x.ndim}D")
    if align_corners is not None and not isinstance(align_corners, bool):
        _fail(GraphTypeError, f"'align_corners' must be bool or None, but got "
              f"{type(align_corners).__name__}")
    linear = mode in ("linear", "bilinear", "trilinear", "bicubic")
    if align_corners and not linear:
        _fail(GraphValueError, f"'align_corners' option cannot currently be set with the "
              f"mode = {mode}, and dim = {x.ndim}D")
    if linear and not x.dtype.is_float:
        _fail(GraphTypeError, f"the input of mode {mode} must be a float tensor, but got "
              f"{x.dtype}")
    sizes, scales = _resize_sizes(x, size, scale_factor, mode, recompute_scale_factor)
    if mode == "area":
        return adaptive_avg_pool(x, sizes, x.ndim - 2)
    for axis, (n, out, scale) in enumerate(zip(x.shape[2:], sizes, scales), start=2):
        if mode == "bicubic":
            x = along(x, axis, cubic_matrix(n, out, scale, bool(align_corners)))
        elif linear:
            if n != out or align_corners:
                x = along(x, axis, linear_matrix(n, out, scale, bool(align_corners)))
        else:
            x = _take(x, axis, _nearest_index(n, out, scale, mode == "nearest-exact"))
    return x


upsample = interpolate


# --- grid sampling ----------------------------------------------------------------------


def _reflect(at: Any, twice_low: int, twice_high: int) -> Any:
    """``at`` folded into [twice_low / 2, twice_high / 2] by reflections at its ends."""
    if twice_low == twice_high:
        return at * 0.0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    at = apply(Op.Abs, at - low)
    extra = apply(Op.Mod, at, span)
    even = apply(Op.Equal, apply(Op.Mod, apply(Op.Floor, at / span), 2.0), 0.0)
    return apply(Op.Select, even, extra + low, (span - extra) + low)


def _source_position(g: Any, size: int, padding_mode: str, align_corners: bool) -> Any:
    """A normalised grid coordinate (-1 and 1 the first and last pixels' outer edges, or
    their centres with ``align_corners``) as a position along an axis of ``size``."""
    at = (g + 1.0) * ((size - 1) / 2) if align_corners else ((g + 1.0) * size - 1.0) / 2
    if padding_mode == "reflection":
        at = _reflect(at, 0, 2 * (size - 1)) if align_corners else \
            _reflect(at, -1, 2 * size - 1)
    if padding_mode != "zeros":
        at = apply(Op.ClipByValue, at, 0.0, float(size - 1))
    return at


def grid_sample(input: Any, grid: Any, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool = False) -> Any:
    """Sample ``input`` (N, C, H, W) or (N, C, D, H, W) at the positions of ``grid``
    ((N, Ho, Wo, 2) or (N, Do, Ho, Wo, 3), x (the last axis) first), normalised to
    [-1, 1]: bilinear (trilinear) or nearest (half to even); positions outside read zeros,
    the border or the input reflected (``padding_mode``). Built from element gathers, so
    the input's gradient scatters back and the grid's comes from the weights."""
    with _checking("grid_sample"):
        x, g = _as_tensor(input, "grid_sample"), _as_tensor(grid, "grid_sample")
        if mode not in ("bilinear", "nearest"):
            raise GraphValueError(f"the 'mode' must be 'bilinear' or 'nearest', but got "
                                  f"{mode!r}")
        if padding_mode not in ("zeros", "border", "reflection"):
            raise GraphValueError(f"the 'padding_mode' must be 'zeros', 'border' or "
                                  f"'reflection', but got {padding_mode!r}")
        if x.ndim not in (4, 5) or g.ndim != x.ndim or g.shape[-1] != x.ndim - 2 or \
                g.shape[0] != x.shape[0]:
            raise GraphValueError(f"'input' must be 4-d or 5-d and 'grid' (N, *out, "
                                  f"{x.ndim - 2}) of the same batch, but got {x.shape} and "
                                  f"{g.shape}")
        if not x.dtype.is_float or g.dtype != x.dtype:
            raise GraphTypeError(f"'input' and 'grid' must be float tensors of one dtype, "
                                 f"but got {x.dtype} and {g.dtype}")
    nd, (n, c), sizes = x.ndim - 2, x.shape[:2], x.shape[2:]
    out_shape = g.shape[1:-1]
    points = int(np.prod(out_shape))
    g = reshape(g, (n, points, nd))
    # the grid's component k indexes the k-th axis from the last
    at = [_source_position(g[:, :, nd - 1 - a], sizes[a], padding_mode, bool(align_corners))
          for a in range(nd)]
    if mode == "nearest":
        taps = [[(apply(Op.Round, p), None)] for p in at]
    else:
        taps = []
        for p in at:
            low = apply(Op.Floor, p)
            frac = p - low
            taps.append([(low, 1.0 - frac), (low + 1.0, frac)])
    flat = reshape(x, (n, c, int(np.prod(sizes))))
    strides = [int(np.prod(sizes[a + 1:])) for a in range(nd)]
    total = None
    for corner in _product(taps):
        index, weight, inside = None, None, None
        for a, (pos, w) in enumerate(corner):
            ok = apply(Op.LogicalAnd, apply(Op.GreaterEqual, pos, 0.0),
                       apply(Op.LessEqual, pos, float(sizes[a] - 1)))
            inside = ok if inside is None else apply(Op.LogicalAnd, inside, ok)
            term = apply(Op.ClipByValue, pos, 0.0, float(sizes[a] - 1)) * float(strides[a])
            index = term if index is None else index + term
            if w is not None:
                weight = w if weight is None else weight * w
        taken = _read_points(flat, index, 2)
        mask = apply(Op.Cast, inside, dtype=x.dtype)
        weight = mask if weight is None else weight * mask
        term = taken * F.expand_dims(weight, 1)
        total = term if total is None else total + term
    return reshape(total, (n, c, *out_shape))


def _read_points(flat: Any, index: Any, axis: int) -> Any:
    """``flat`` (R, C, P) or (R, P, C) read at the float-valued integer positions ``index``
    (R, Q) along its point ``axis`` (2 or 1): (R, C, Q) or (R, Q, C). An element gather,
    so the gradient scatters back into ``flat``."""
    index = apply(Op.Cast, index, dtype=dtypes.int32)
    wide = F.expand_dims(index, 3 - axis)
    shape = list(flat.shape)
    shape[axis] = index.shape[1]
    return F.gather_elements(flat, axis, F.broadcast_to(wide, tuple(shape)))


def _product(choices: list[list[Any]]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = [()]
    for options in choices:
        out = [done + (o,) for done in out for o in options]
    return out


# --- crops and regions of interest --------------------------------------------------------


def _linear_taps(at: Any, size: int) -> tuple[Any, Any, Any]:
    """Rows ``at`` (clipped into [0, size - 1]) as (lower row, upper row, weight of the
    upper): the two rows bilinear sampling reads."""
    at = apply(Op.ClipByValue, at, 0.0, float(size - 1))
    low = apply(Op.Floor, at)
    return low, apply(Op.Minimum, low + 1.0, float(size - 1)), at - low


def _sample_grid(flat: Any, width: int, ys: Any, xs: Any, axis: int) -> Any:
    """Bilinear samples of ``flat`` ((R, C, H * W) with ``axis`` 2, (R, H * W, C) with 1)
    at every pair of rows ``ys`` (R, Py) and columns ``xs`` (R, Px), already inside the
    image: (R, C, Py * Px) or (R, Py * Px, C)."""
    (y0, y1, wy), (x0, x1, wx) = ys, xs
    points = ys[0].shape[1] * xs[0].shape[1]
    total = None
    for row, row_w in ((y0, 1.0 - wy), (y1, wy)):
        for col, col_w in ((x0, 1.0 - wx), (x1, wx)):
            index = reshape(F.expand_dims(row * float(width), 2) + F.expand_dims(col, 1),
                            (row.shape[0], points))
            weight = reshape(F.expand_dims(row_w, 2) * F.expand_dims(col_w, 1),
                             (row.shape[0], points))
            term = _read_points(flat, index, axis) * F.expand_dims(weight, 3 - axis)
            total = term if total is None else total + term
    return total


_CROP_METHODS = ("bilinear", "nearest")


def crop_and_resize(image: Any, boxes: Any, box_indices: Any, crop_size: Any,
                    method: str = "bilinear", extrapolation_value: float = 0.0) -> Any:
    """Crops of the NHWC ``image`` at ``boxes`` ((R, 4) normalised [y1, x1, y2, x2],
    y1 > y2 flips), each resized to ``crop_size`` by bilinear or nearest sampling (a
    coordinate y maps to y * (H - 1)); samples outside the image take
    ``extrapolation_value``. float32 (R, crop_h, crop_w, depth)."""
    with _checking("CropAndResize"):
        x = _as_tensor(image, "CropAndResize")
        b, idx = _as_tensor(boxes, "CropAndResize"), _as_tensor(box_indices, "CropAndResize")
        if method not in _CROP_METHODS:  # MindSpore's 'bilinear_v2' samples otherwise
            raise GraphValueError(f"msc supports the 'method' {list(_CROP_METHODS)}, but got "
                                  f"{method!r}")
        if not isinstance(extrapolation_value, float):
            raise GraphTypeError(f"the 'extrapolation_value' must be a float, but got "
                                 f"{type(extrapolation_value).__name__}")
        if not (isinstance(crop_size, tuple) and len(crop_size) == 2 and all(
                isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in crop_size)):
            raise GraphTypeError(f"the 'crop_size' must be a tuple of two positive ints, but "
                                 f"got {crop_size!r}")
        if x.ndim != 4 or b.ndim != 2 or b.shape[1] != 4 or idx.ndim != 1 or \
                idx.shape[0] != b.shape[0]:
            raise GraphValueError(f"'x' must be 4-D, 'boxes' (num_boxes, 4) and 'box_index' "
                                  f"(num_boxes,), but got {x.shape}, {b.shape} and "
                                  f"{idx.shape}")
        if not b.dtype.is_float or not idx.dtype.is_int:
            raise GraphTypeError(f"'boxes' must be float and 'box_index' int, but got "
                                 f"{b.dtype} and {idx.dtype}")
    _, height, width, depth = x.shape
    flat = gather(reshape(F.cast(x, dtypes.float32), (x.shape[0], height * width, depth)),
                  idx, 0)
    b = F.cast(b, dtypes.float32)
    axes = []
    for size, n, lo, hi in ((height, crop_size[0], b[:, 0:1], b[:, 2:3]),
                            (width, crop_size[1], b[:, 1:2], b[:, 3:4])):
        if n > 1:
            steps = Tensor(np.arange(n, dtype=np.float32)[None] / (n - 1))
            at = (lo + (hi - lo) * steps) * float(size - 1)
        else:
            at = (lo + hi) * (0.5 * (size - 1))
        inside = apply(Op.LogicalAnd, apply(Op.GreaterEqual, at, 0.0),
                       apply(Op.LessEqual, at, float(size - 1)))
        axes.append((at, inside))
    (ys, y_in), (xs, x_in) = axes
    if method == "nearest":  # the nearest pixel, halves away from zero
        near = [apply(Op.Floor, apply(Op.ClipByValue, p, 0.0, float(s - 1)) + 0.5)
                for p, s in ((ys, height), (xs, width))]
        taps = [(p, p, p * 0.0) for p in near]
    else:
        taps = [_linear_taps(ys, height), _linear_taps(xs, width)]
    values = _sample_grid(flat, width, taps[0], taps[1], 1)
    rows = b.shape[0]
    inside = reshape(apply(Op.LogicalAnd, F.expand_dims(y_in, 2), F.expand_dims(x_in, 1)),
                     (rows, crop_size[0] * crop_size[1], 1))
    values = apply(Op.Select, inside, values, float(extrapolation_value))
    return reshape(values, (rows, crop_size[0], crop_size[1], depth))


def roi_align(features: Any, rois: Any, pooled_height: int, pooled_width: int,
              spatial_scale: float, sample_num: int = 2, roi_end_mode: int = 1) -> Any:
    """MindSpore's ``ROIAlign``: each region of interest (rows of ``rois``: image index,
    x1, y1, x2, y2 in input coordinates, scaled by ``spatial_scale``; with
    ``roi_end_mode`` 1 the end shifted by one pixel, with 0 the extent at least one pixel)
    split into pooled_height x pooled_width bins, each the mean of sample_num x sample_num
    bilinear samples (a sample more than a pixel outside reads 0)."""
    x, r = _as_tensor(features, "ROIAlign"), _as_tensor(rois, "ROIAlign")
    if x.ndim != 4 or r.ndim != 2 or r.shape[1] != 5:
        raise GraphValueError(f"For 'ROIAlign', 'features' must be (N, C, H, W) and 'rois' "
                              f"(rois_n, 5), but got {x.shape} and {r.shape}.")
    if sample_num <= 0:  # MindSpore's CPU kernel then samples in a way of its own
        raise GraphValueError(f"For 'ROIAlign', msc supports a 'sample_num' greater than 0, "
                              f"but got {sample_num}.")
    return _roi_align(x, r, pooled_height, pooled_width, spatial_scale,
                      (sample_num, sample_num), roi_end_mode)


def _roi_align(x: Any, rois: Any, pooled_height: int, pooled_width: int, scale: float,
               grid: tuple[int, int], end_mode: int) -> Any:
    """ROIAlign with ``grid`` (rows, columns) samples per bin for every region."""
    n, c, height, width = x.shape
    count = rois.shape[0]
    r = F.cast(rois, x.dtype)
    flat = gather(reshape(x, (n, c, height * width)),
                  apply(Op.Cast, r[:, 0], dtype=dtypes.int32), 0)
    taps, valid = [], None
    for lo, hi, bins, g, size in ((r[:, 2:3], r[:, 4:5], pooled_height, grid[0], height),
                                  (r[:, 1:2], r[:, 3:4], pooled_width, grid[1], width)):
        start = lo * scale
        extent = (hi + float(end_mode)) * scale - start
        if not end_mode:
            extent = apply(Op.Maximum, extent, 1.0)
        steps = (np.arange(bins)[:, None] + (np.arange(g)[None] + 0.5) / g).reshape(1, -1)
        at = start + extent * Tensor((steps / bins).astype(x.dtype.np))
        inside = apply(Op.LogicalAnd, apply(Op.GreaterEqual, at, -1.0),
                       apply(Op.LessEqual, at, float(size)))
        taps.append(_linear_taps(at, size))
        valid = inside if valid is None else apply(
            Op.LogicalAnd, F.expand_dims(valid, 2), F.expand_dims(inside, 1))
    values = _sample_grid(flat, width, taps[0], taps[1], 2)
    mask = apply(Op.Cast, reshape(valid, (count, 1, -1)), dtype=x.dtype)
    values = reshape(values * mask, (count, c, pooled_height, grid[0], pooled_width, grid[1]))
    return F.mean(F.mean(values, 5), 3)


def resize_area_matrix(size: int, out: int, align_corners: bool) -> np.ndarray:
    """(out, size) weights of area resizing: output pixel o covers [o s, (o + 1) s) of the
    input (s = size / out, or (size - 1) / (out - 1) aligning corners), each input pixel
    weighted by its overlap, over s (an overlap past the last pixel counts for it)."""
    scale = (size - 1) / (out - 1) if align_corners and out > 1 else size / out
    matrix = np.zeros((out, size))
    for o in range(out):
        lo, hi = o * scale, (o + 1) * scale
        for i in range(int(math.floor(lo)), int(math.ceil(hi))):
            matrix[o, min(i, size - 1)] += (min(i + 1.0, hi) - max(float(i), lo)) / scale
    return matrix


# --- pixel shuffle ----------------------------------------------------------------------


def _factor(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise GraphTypeError(f"The '{what}' must be int, but got '{type(value).__name__}'")
    if value < 1:
        raise GraphValueError(f"The '{what}' must be int and must > 0, but got '{value}' "
                              f"with type 'int'.")
    return value


def pixel_shuffle(input: Any, upscale_factor: int) -> Any:
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r): each group of r*r channels becomes an r x r
    block of pixels."""
    r = _factor(upscale_factor, "upscale_factor")
    x = _as_tensor(input, "pixel_shuffle")
    if x.ndim < 3:
        raise GraphValueError(f"For pixel_shuffle, the dimension of `input` should be "
                              f"larger than 2, but got {x.ndim}.")
    *lead, c, h, w = x.shape
    if c % (r * r):
        raise GraphValueError("For 'pixel_shuffle', the length of third to last dimension "
                              "is not divisible by `upscale_factor` squared.")
    k = len(lead)
    x = reshape(x, (*lead, c // (r * r), r, r, h, w))
    x = transpose(x, (*range(k), k, k + 3, k + 1, k + 4, k + 2))
    return reshape(x, (*lead, c // (r * r), h * r, w * r))


def pixel_unshuffle(input: Any, downscale_factor: int) -> Any:
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W): the inverse of ``pixel_shuffle``."""
    r = _factor(downscale_factor, "downscale_factor")
    x = _as_tensor(input, "pixel_unshuffle")
    if x.ndim < 3:
        raise GraphValueError(f"For pixel_unshuffle, the dimension of `input` should be "
                              f"larger than 2, but got {x.ndim}.")
    *lead, c, h, w = x.shape
    if h % r or w % r:
        raise GraphValueError("For 'pixel_unshuffle', the length of second to last 2 "
                              "dimension should be divisible by downscale_factor.")
    k = len(lead)
    x = reshape(x, (*lead, c, h // r, r, w // r, r))
    x = transpose(x, (*range(k), k, k + 2, k + 4, k + 1, k + 3))
    return reshape(x, (*lead, c * r * r, h // r, w // r))


__all__ = ["pad", "padding", "interpolate", "upsample", "grid_sample", "pixel_shuffle",
           "pixel_unshuffle", "crop_and_resize"]
