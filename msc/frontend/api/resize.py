"""Padding, resizing and pixel shuffling: ``ops.pad``, ``ops.interpolate``,
``ops.pixel_shuffle`` and their primitive classes and ``nn`` layers.

Shapes are static, so each form is composed from existing primitives with constant
operands built here with numpy: a ``Gather`` with a constant index map per padded or
nearest-resized axis (reflect, symmetric, replicate and circular padding are index
maps), ``Concat`` with ``Fill`` blocks for constant padding, a ``Dense`` with a constant
interpolation matrix per axis for (bi/tri)linear resizing, and ``Reshape`` +
``Transpose`` for pixel shuffling. Gradients and vmap come from those primitives' rules.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError, UnsupportedSyntaxError
from msc.frontend.api.cell import Cell
from msc.frontend.api.conv import adaptive_avg_pool, along
from msc.frontend.api.functional import _as_tensor, _checking, concat, fill, gather, reshape, \
    transpose
from msc.frontend.api.prim_classes import Primitive
from msc.common.tensor import SymTensor, Tensor

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
        else:
            x = _take(x, axis, _source_index(x.shape[axis], before, after, mode))
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


class Pad(Primitive):
    """``ops.Pad(paddings)(x)``: zero padding, one (before, after) pair per axis."""

    def __init__(self, paddings: Any):
        super().__init__(paddings=paddings)
        self.paddings = _paddings_pairs(paddings, "Pad")

    def __call__(self, x: Any) -> Any:
        return _pad_pairs(x, self.paddings, "constant", "Pad")


_MIRROR_MODES = {"REFLECT": "reflect", "SYMMETRIC": "symmetric"}


class MirrorPad(Primitive):
    """``ops.MirrorPad(mode)(x, paddings)``: ``paddings`` is a constant (rank, 2) int
    tensor; 'REFLECT' leaves the edge out of the mirror image, 'SYMMETRIC' repeats it."""

    def __init__(self, mode: str = "REFLECT"):
        super().__init__(mode=mode)
        if mode not in _MIRROR_MODES:
            raise GraphValueError(f"For 'MirrorPad', the 'mode' must be in "
                                  f"{list(_MIRROR_MODES)}, but got {mode!r}.")
        self.mode = _MIRROR_MODES[mode]

    def __call__(self, input_x: Any, paddings: Any) -> Any:
        if isinstance(paddings, SymTensor):
            raise UnsupportedSyntaxError("For 'MirrorPad', 'paddings' must be a constant "
                                         "tensor: padded shapes are static in msc")
        values = np.asarray(paddings.asnumpy() if isinstance(paddings, Tensor) else paddings)
        pairs = tuple(tuple(int(v) for v in row) for row in values.reshape(-1, 2))
        return _pad_pairs(input_x, _paddings_pairs(pairs, "MirrorPad"), self.mode,
                          "MirrorPad")


class PadCell(Cell):
    """``nn.Pad(paddings, mode)``: 'CONSTANT' (zeros), 'REFLECT' or 'SYMMETRIC'."""

    _modes = {"CONSTANT": "constant", **_MIRROR_MODES}

    def __init__(self, paddings: Any, mode: str = "CONSTANT"):
        super().__init__()
        if mode not in self._modes:
            raise GraphValueError(f"For 'Pad', the 'mode' must be str and must be in "
                                  f"{list(self._modes)}, but got {mode!r}.")
        self.mode = mode
        self.paddings = _paddings_pairs(paddings, "Pad")

    def construct(self, x: Any) -> Any:
        return _pad_pairs(x, self.paddings, self._modes[self.mode], "Pad")


PadCell.__name__ = PadCell.__qualname__ = "Pad"


class _PadNd(Cell):
    """The ``nn.XxxPadNd`` layers: ``padding`` an int (every side) or a tuple of 2*nd
    ints in ``ops.pad``'s order."""

    nd = 1
    mode = "constant"

    def __init__(self, padding: Any, value: Any = None):
        super().__init__()
        sides = 2 * self.nd
        if isinstance(padding, bool) or not isinstance(padding, (int, tuple)):
            raise GraphTypeError(f"For '{self.cls_name}', the type of parameter 'padding' "
                                 f"must be in [int, tuple], but got {type(padding)}")
        if isinstance(padding, tuple) and len(padding) != sides:
            raise GraphValueError(f"For '{self.cls_name}', the length of input 'padding' "
                                  f"must be {sides}, but got padding of length "
                                  f"{len(padding)}.")
        self.padding = (padding,) * sides if isinstance(padding, int) else padding
        _int_pairs(self.padding, self.cls_name)
        if value is not None and (isinstance(value, bool) or
                                  not isinstance(value, (int, float))):
            raise GraphTypeError(f"For '{self.cls_name}', the type of parameter 'value' "
                                 f"must be in [int, float], but got {type(value)}")
        self.value = value

    def construct(self, x: Any) -> Any:
        return pad(x, self.padding, self.mode, self.value)

    def extend_repr(self) -> str:
        return f"padding={self.padding}" + ("" if self.value is None else
                                            f", value={self.value}")


def _pad_layer(name: str, nd: int, mode: str) -> type:
    if mode == "constant":
        def __init__(self: Any, padding: Any, value: Any) -> None:
            _PadNd.__init__(self, padding, value)
    else:
        def __init__(self: Any, padding: Any) -> None:
            _PadNd.__init__(self, padding)
    doc = f"``{mode}`` padding of the last {nd} axes (see ``ops.pad``)."
    return type(name, (_PadNd,), {"nd": nd, "mode": mode, "__init__": __init__,
                                  "__doc__": doc, "__module__": __name__})


ConstantPad1d = _pad_layer("ConstantPad1d", 1, "constant")
ConstantPad2d = _pad_layer("ConstantPad2d", 2, "constant")
ConstantPad3d = _pad_layer("ConstantPad3d", 3, "constant")
ReflectionPad1d = _pad_layer("ReflectionPad1d", 1, "reflect")
ReflectionPad2d = _pad_layer("ReflectionPad2d", 2, "reflect")
ReflectionPad3d = _pad_layer("ReflectionPad3d", 3, "reflect")
ReplicationPad1d = _pad_layer("ReplicationPad1d", 1, "replicate")
ReplicationPad2d = _pad_layer("ReplicationPad2d", 2, "replicate")
ReplicationPad3d = _pad_layer("ReplicationPad3d", 3, "replicate")


class ZeroPad2d(_PadNd):
    """Zero padding of the last 2 axes (see ``ops.pad``)."""

    nd = 2

    def __init__(self, padding: Any):
        super().__init__(padding, 0)


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
          "linear": (3,), "bilinear": (4,), "trilinear": (5,)}
#: the modes MindSpore refuses a ``scale_factor`` for (without recompute_scale_factor).
_SIZE_ONLY = {("nearest", 3), ("nearest", 4), ("linear", 3), ("bilinear", 4)}


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
    (3-d input), 'bilinear' (4-d), 'trilinear' (5-d); the linear modes align corners or
    sample pixel centres (``align_corners``)."""
    x = _as_tensor(input, "interpolate")
    if mode not in _MODES:
        _fail(GraphValueError, f"'mode' must be in {list(_MODES)} (msc does not support "
              f"'bicubic' yet), but got {mode!r}")
    if x.ndim not in _MODES[mode]:
        _fail(GraphValueError, f"{mode} only support {list(_MODES[mode])}D, but got "
              f"{x.ndim}D")
    if align_corners is not None and not isinstance(align_corners, bool):
        _fail(GraphTypeError, f"'align_corners' must be bool or None, but got "
              f"{type(align_corners).__name__}")
    linear = mode in ("linear", "bilinear", "trilinear")
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
        if linear:
            if n != out or align_corners:
                x = along(x, axis, linear_matrix(n, out, scale, bool(align_corners)))
        else:
            x = _take(x, axis, _nearest_index(n, out, scale, mode == "nearest-exact"))
    return x


upsample = interpolate


class Upsample(Cell):
    """``nn.Upsample``: ``ops.interpolate`` with the layer's arguments."""

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: Any = None, recompute_scale_factor: Any = None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def construct(self, x: Any) -> Any:
        return interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                           self.recompute_scale_factor)


def _image_size(size: Any, op: str) -> tuple[int, int]:
    if isinstance(size, SymTensor):
        raise UnsupportedSyntaxError(f"For '{op}', 'size' must be a constant: resized "
                                     f"shapes are static in msc")
    if isinstance(size, Tensor):
        size = tuple(int(v) for v in size.asnumpy().reshape(-1))
    if not isinstance(size, (tuple, list)) or len(size) != 2 or any(
            isinstance(s, bool) or not isinstance(s, int) or s < 1 for s in size):
        raise GraphValueError(f"For '{op}', 'size' must be two positive ints, but got "
                              f"{size!r}.")
    return int(size[0]), int(size[1])


def _image(x: Any, op: str) -> Any:
    x = _as_tensor(x, op)
    if x.ndim != 4:
        raise GraphValueError(f"For '{op}', the image rank must be equal to 4, but got "
                              f"{x.ndim}.")
    return x


class ResizeNearestNeighbor(Primitive):
    """Nearest resizing of an NCHW image to ``size``: source floor(dst * in/out), or
    round(dst * (in-1)/(out-1)) with ``align_corners``. MindSpore's CPU kernel ignores
    ``half_pixel_centers``; so does msc."""

    def __init__(self, size: Any, align_corners: bool = False,
                 half_pixel_centers: bool = False):
        super().__init__(size=size, align_corners=align_corners,
                         half_pixel_centers=half_pixel_centers)
        self.size = _image_size(size, self.name)
        self.align_corners = bool(align_corners)

    def __call__(self, input_x: Any) -> Any:
        x = _image(input_x, self.name)
        for axis, out in ((2, self.size[0]), (3, self.size[1])):
            n = x.shape[axis]
            if self.align_corners and out > 1:  # rounds halves up, as MindSpore does
                index = np.minimum(np.floor(np.arange(out) * ((n - 1) / (out - 1)) + 0.5),
                                   n - 1).astype(np.int64)
            else:
                index = _nearest_index(n, out, n / out, False)
            x = _take(x, axis, index)
        return x


class ResizeBilinearV2(Primitive):
    """Bilinear resizing of an NCHW float image to ``size``: corners aligned, pixel
    centres (``half_pixel_centers``), or MindSpore's default source dst * in/out."""

    def __init__(self, align_corners: bool = False, half_pixel_centers: bool = False):
        super().__init__(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        if align_corners and half_pixel_centers:
            raise GraphValueError("For ResizeBilinearV2, the half_pixel_centers must be "
                                  "false when align_corners is true, but half_pixel_centers "
                                  "got True.")
        self.align_corners, self.half_pixel_centers = align_corners, half_pixel_centers

    def __call__(self, image: Any, size: Any) -> Any:
        x = _image(image, self.name)
        if not x.dtype.is_float:
            raise GraphTypeError(f"For '{self.name}', the image must be a float tensor, but "
                                 f"got {x.dtype}.")
        for axis, out in zip((2, 3), _image_size(size, self.name)):
            n = x.shape[axis]
            if self.align_corners or self.half_pixel_centers:
                matrix = linear_matrix(n, out, n / out, self.align_corners)
            else:  # MindSpore's default samples at dst * in/out
                matrix = _interpolation(n, np.arange(out) * (n / out))
            x = along(x, axis, matrix)
        return x


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


class PixelShuffle(Cell):
    def __init__(self, upscale_factor: int):
        super().__init__()
        self.upscale_factor = _factor(upscale_factor, "upscale_factor")

    def construct(self, input: Any) -> Any:
        return pixel_shuffle(input, self.upscale_factor)


class PixelUnshuffle(Cell):
    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = _factor(downscale_factor, "downscale_factor")

    def construct(self, input: Any) -> Any:
        return pixel_unshuffle(input, self.downscale_factor)


#: ``msc.ops`` names.
OPS = ["pad", "padding", "interpolate", "upsample", "pixel_shuffle", "pixel_unshuffle",
       "Pad", "MirrorPad", "ResizeNearestNeighbor", "ResizeBilinearV2"]
#: ``msc.nn`` names (``nn.Pad`` is ``PadCell``).
NN = ["ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d",
      "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
      "ReplicationPad3d", "Upsample", "PixelShuffle", "PixelUnshuffle"]
