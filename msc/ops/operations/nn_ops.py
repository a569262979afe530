"""MindSpore's neural-network primitive classes (``ops.Conv2D``, ``ops.MaxPool``,
``ops.BatchNorm`` (five outputs), ``ops.Softmax``, ``ops.LayerNorm``, ``ops.Pad``,
``ops.ResizeBilinearV2``, the loss classes, ...): attributes go to ``__init__``, inputs to
``__call__``; each call is the functional form.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc._checkparam import _bool, _int
from msc.common.tensor import SymTensor, Tensor, apply
from msc.errors import GraphTypeError, GraphValueError, UnsupportedSyntaxError
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.conv_func import (
    _spatial_input,
    adaptive_avg_pool,
    adaptive_max_pool,
    along,
    avg_pool,
    conv,
    conv_transpose,
    explicit_pad,
    max_pool,
    tuple_arg,
)
from msc.ops.function.image_func import (
    _interpolation,
    _nearest_index,
    _pad_pairs,
    _paddings_pairs,
    _take,
    cubic_matrix,
    cubic_rows,
    grid_sample,
    linear_matrix,
    roi_align,
)
from msc.ops.function.linalg_func import _float_tensor, _number
from msc.ops.function.loss_func import (
    _reduction,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    kl_div,
    multilabel_margin,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
)
from msc.ops.function.math_func import hardshrink
from msc.ops.function.pooling_func import dilation2d
from msc.ops.function.nn_func import (
    _MIRROR_MODES,
    _as,
    _batch_norm,
    _check_batch_norm,
    _unit_float,
    celu,
    channel_shuffle,
    elu,
    fast_gelu,
    glu,
    lrn,
    mirror_pad,
    softshrink,
)
from msc.ops.primitive import Primitive


# --- dense layers and activations ---------------------------------------------------------


class Dense(Primitive):
    """``x @ w.T + b`` (b optional)."""

    def __call__(self, x: Any, w: Any, b: Any = None) -> Any:
        return F.dense(x, w, b)


class BiasAdd(Primitive):
    def __init__(self, data_format: str = "NCHW"):
        super().__init__(data_format=data_format)
        self.data_format = data_format

    def __call__(self, input_x: Any, bias: Any) -> Any:
        return F.bias_add(input_x, bias, self.data_format)


# --- softmax and layer norm ---------------------------------------------------------------


class Softmax(Primitive):
    def __init__(self, axis: Any = -1):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, logits: Any) -> Any:
        return F.softmax(logits, self.axis)


class LogSoftmax(Softmax):
    def __call__(self, logits: Any) -> Any:
        return F.log_softmax(logits, self.axis)


class LayerNorm(Primitive):
    """Returns (y, mean, variance); mean and variance keep the normalised dims as 1s."""

    def __init__(self, begin_norm_axis: int = 1, begin_params_axis: int = 1,
                 epsilon: float = 1e-7):
        super().__init__(begin_norm_axis=begin_norm_axis,
                         begin_params_axis=begin_params_axis, epsilon=epsilon)
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = epsilon

    def __call__(self, input_x: Any, gamma: Any, beta: Any) -> tuple[Any, Any, Any]:
        y = apply(Op.LayerNorm, input_x, gamma, beta, begin_norm_axis=self.begin_norm_axis,
                  begin_params_axis=self.begin_params_axis, epsilon=float(self.epsilon))
        axes = tuple(range(self.begin_norm_axis % input_x.ndim, input_x.ndim))
        # NOTE: no gradient flows back through mean and variance: MindSpore 2.10's
        # LayerNormGrad reads only y's (training follows MindSpore).
        x = F.stop_gradient(input_x)
        mean = F.mean(x, axes, True)
        variance = F.mean(F.square(x - mean), axes, True)
        return y, mean, variance


class GeLU(Primitive):
    """GELU with the tanh approximation (MindSpore's ``ops.GeLU``)."""

    def __call__(self, x: Any) -> Any:
        return apply(Op.GeLU, x, approximate="tanh")


Gelu = GeLU


class FastGeLU(Primitive):
    def __call__(self, x: Any) -> Any:
        return fast_gelu(x)


FastGelu = type("FastGelu", (FastGeLU,), {"__doc__": "``FastGeLU`` under its other name."})


class Elu(Primitive):
    def __init__(self, alpha: float = 1.0):
        super().__init__(alpha=alpha)
        self.alpha = alpha

    def __call__(self, input_x: Any) -> Any:
        return elu(input_x, self.alpha)


class CeLU(Elu):
    def __call__(self, input_x: Any) -> Any:
        return celu(input_x, self.alpha)


class HShrink(Primitive):
    def __init__(self, lambd: float = 0.5):
        super().__init__(lambd=lambd)
        self.lambd = lambd

    def __call__(self, input_x: Any) -> Any:
        return hardshrink(input_x, self.lambd)


class SoftShrink(HShrink):
    def __call__(self, input_x: Any) -> Any:
        return softshrink(input_x, self.lambd)


class GLU(Primitive):
    def __init__(self, axis: int = -1):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, x: Any) -> Any:
        return glu(x, self.axis)


# --- convolution, pooling, normalisation --------------------------------------------------


class Conv2D(Primitive):
    """``ops.Conv2D(out_channel, kernel_size, ...)(x, weight)``; ``pad`` is an int or
    (top, bottom, left, right)."""

    nd = 2

    def __init__(self, out_channel: int, kernel_size: Any, mode: int = 1,
                 pad_mode: str = "valid", pad: Any = 0, stride: Any = 1, dilation: Any = 1,
                 group: int = 1, data_format: str = "NCHW"):
        super().__init__(out_channel=out_channel, kernel_size=kernel_size, mode=mode,
                         pad_mode=pad_mode, pad=pad, stride=stride, dilation=dilation,
                         group=group, data_format=data_format)
        if data_format not in ("NCHW", "NCDHW"):
            raise GraphValueError(f"For '{self.name}', only the NCHW / NCDHW data format is "
                                  f"supported, but got {data_format!r}.")
        self.out_channel, self.pad_mode, self.pad = out_channel, pad_mode, pad
        self.stride, self.dilation, self.group = stride, dilation, group

    def __call__(self, x: Any, w: Any) -> Any:
        w = _as_tensor(w, Op.Conv)
        if w.shape[0] != self.out_channel:
            raise GraphValueError(f"For '{self.name}', the weight has {w.shape[0]} output "
                                  f"channels, but out_channel is {self.out_channel}.")
        stride, dilation = self.stride, self.dilation
        if isinstance(stride, tuple) and len(stride) == self.nd + 2:  # (1, 1, sh, sw)
            stride = stride[2:]
        if isinstance(dilation, tuple) and len(dilation) == self.nd + 2:
            dilation = dilation[2:]
        return conv(x, w, None, stride, self.pad_mode, self.pad, dilation, self.group, self.nd)


class Conv3D(Conv2D):
    nd = 3

    def __init__(self, out_channel: int, kernel_size: Any, mode: int = 1,
                 pad_mode: str = "valid", pad: Any = 0, stride: Any = 1, dilation: Any = 1,
                 group: int = 1, data_format: str = "NCDHW"):
        super().__init__(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation,
                         group, data_format)


class Conv2DBackpropInput(Conv2D):
    """``(dout, weight, input_size)``: the gradient of Conv2D in its input, of shape
    ``input_size`` (N, C, H, W)."""

    def __init__(self, out_channel: int, kernel_size: Any, pad_mode: str = "valid",
                 pad: Any = 0, pad_list: Any = None, mode: int = 1, stride: Any = 1,
                 dilation: Any = 1, group: int = 1, data_format: str = "NCHW"):
        super().__init__(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation,
                         group, data_format)
        self.pad_list = pad_list

    def __call__(self, dout: Any, weight: Any, input_size: Any) -> Any:
        x = _spatial_input(dout, 2, Op.ConvTranspose)
        w = _as_tensor(weight, Op.ConvTranspose)
        size = tuple(input_size)[2:]
        with _checking(Op.ConvTranspose):
            stride = tuple_arg(self.stride[2:] if isinstance(self.stride, tuple) and
                               len(self.stride) == 4 else self.stride, 2, "stride")
            dilation = tuple_arg(self.dilation[2:] if isinstance(self.dilation, tuple) and
                                 len(self.dilation) == 4 else self.dilation, 2, "dilation")
            pad = tuple(self.pad_list) if self.pad_list else \
                explicit_pad(self.pad_mode, self.pad, size, w.shape[2:], stride, dilation)
        return conv_transpose(x, w, size, stride, pad, dilation, self.group)


class Conv2DTranspose(Conv2DBackpropInput):
    """MindSpore's other name of Conv2DBackpropInput."""


class MaxPool(Primitive):
    """``ops.MaxPool(kernel_size, strides, pad_mode)(x)``, pad mode 'valid' or 'same'."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "valid",
                 data_format: str = "NCHW"):
        super().__init__(kernel_size=kernel_size, strides=strides, pad_mode=pad_mode,
                         data_format=data_format)
        self.kernel_size, self.strides, self.pad_mode = kernel_size, strides, pad_mode

    @staticmethod
    def _window(value: Any) -> Any:
        return value[2:] if isinstance(value, tuple) and len(value) == 4 else value

    def __call__(self, x: Any) -> Any:
        return max_pool(x, 2, self._window(self.kernel_size), self._window(self.strides),
                        self.pad_mode)


class AvgPool(MaxPool):
    """Pad mode 'same' averages over the window's positions inside the input."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "VALID",
                 data_format: str = "NCHW"):
        super().__init__(kernel_size, strides, pad_mode, data_format)

    def __call__(self, x: Any) -> Any:
        return avg_pool(x, 2, self._window(self.kernel_size), self._window(self.strides),
                        self.pad_mode)


class AdaptiveAvgPool2D(Primitive):
    def __init__(self, output_size: Any):
        super().__init__(output_size=output_size)
        self.output_size = output_size

    def __call__(self, x: Any) -> Any:
        return adaptive_avg_pool(x, self.output_size, 2)


class AdaptiveMaxPool2D(AdaptiveAvgPool2D):
    """-> (output, argmax): the maxima and their positions in the flattened spatial dims."""

    def __call__(self, x: Any) -> Any:
        return adaptive_max_pool(x, self.output_size, 2, True)


class AdaptiveMaxPool3D(Primitive):
    """``(x, output_size)`` -> (y, argmax int32): ``output_size`` a constant int tensor
    (or tuple) of three sizes."""

    def __call__(self, x: Any, output_size: Any) -> tuple[Any, Any]:
        if isinstance(output_size, SymTensor):
            raise UnsupportedSyntaxError("For 'AdaptiveMaxPool3D', 'output_size' must be a "
                                         "constant: pooled shapes are static in msc",
                                         user_loc())
        if isinstance(output_size, Tensor):
            output_size = tuple(int(v) for v in output_size.asnumpy().reshape(-1))
        y, argmax = adaptive_max_pool(x, output_size, 3, True)
        return y, F.cast(argmax, dtypes.int32)


def _argmax_type(argmax_type: Any, op: str) -> Any:
    if argmax_type not in (dtypes.int32, dtypes.int64):
        raise GraphTypeError(f"For '{op}', the 'argmax_type' must be int32 or int64, but got "
                             f"{argmax_type}.")
    return argmax_type


class MaxPoolWithArgmax(MaxPool):
    """``MaxPool`` that also returns each maximum's index in its sample's (C * H * W)
    block, int32. Its 'same' padding is MindSpore's CPU kernel's: (k - s) // 2 before
    (not half of what the size needs), the rest after."""

    def __call__(self, x: Any) -> tuple[Any, Any]:
        x = _spatial_input(x, 2, "MaxPoolWithArgmax")
        kernel = tuple_arg(self._window(self.kernel_size), 2, "kernel_size")
        stride = tuple_arg(self._window(self.strides), 2, "strides")
        height, width = x.shape[2:]
        padded = x
        if str(self.pad_mode).lower() == "same":
            pads = []
            for n, k, s in zip(x.shape[2:], kernel, stride):
                before = max(k - s, 0) // 2
                pads.append((before, max((-(-n // s) - 1) * s + k - n - before, 0)))
            lowest = -np.inf if x.dtype.is_float else int(np.iinfo(x.dtype.np).min)
            padded = F.pad(x, (*pads[1], *pads[0]), "constant", lowest)
        y, argmax = max_pool(padded, 2, kernel, stride, "valid", return_indices=True)
        if padded is not x:  # the padded plane's index as the input's
            row, col = argmax // padded.shape[3] - pads[0][0], argmax % padded.shape[3] - \
                pads[1][0]
            argmax = row * width + col
        offsets = Tensor(np.arange(x.shape[1], dtype=np.int64).reshape(1, -1, 1, 1) *
                         (height * width))
        return y, F.cast(argmax + offsets, dtypes.int32)


def _pool_with_argmax(prim: Any, x: Any, nd: int, kernel: Any,
                      floor: str | None = None) -> tuple[Any, Any]:
    """Max pooling with symmetric ``pads`` per dim, ``dilation`` and ``ceil_mode``, and
    each maximum's index in its spatial block (the classes' attributes); ``floor`` as
    ``max_pool``'s."""
    a, name = prim.attrs, type(prim).__name__
    if not isinstance(a["ceil_mode"], bool):
        raise GraphTypeError(f"For '{name}', the 'ceil_mode' must be bool, but got "
                             f"{type(a['ceil_mode']).__name__}.")
    _argmax_type(a["argmax_type"], name)
    strides = kernel if a["strides"] is None else a["strides"]
    y, argmax = max_pool(_spatial_input(x, nd, name), nd, kernel, strides, "pad", a["pads"],
                         a["dilation"], a["ceil_mode"], return_indices=True, floor=floor)
    return y, F.cast(argmax, a["argmax_type"])


class MaxPoolWithArgmaxV2(Primitive):
    """Max pooling of (N, C, H, W); ``strides`` None means the kernel size."""

    def __init__(self, kernel_size: Any, strides: Any = None, pads: Any = 0,
                 dilation: Any = (1, 1), ceil_mode: bool = False,
                 argmax_type: Any = dtypes.int64):
        super().__init__(kernel_size=kernel_size, strides=strides, pads=pads,
                         dilation=dilation, ceil_mode=ceil_mode, argmax_type=argmax_type)

    def __call__(self, x: Any) -> tuple[Any, Any]:
        return _pool_with_argmax(self, x, 2, self.attrs["kernel_size"], "dtype")


class MaxPool3DWithArgmax(Primitive):
    """Max pooling of (N, C, D, H, W), only layout 'NCDHW'."""

    def __init__(self, ksize: Any, strides: Any, pads: Any, dilation: Any = (1, 1, 1),
                 ceil_mode: bool = False, data_format: str = "NCDHW",
                 argmax_type: Any = dtypes.int64):
        if data_format != "NCDHW":
            raise GraphValueError(f"For 'MaxPool3DWithArgmax', the 'data_format' must be "
                                  f"'NCDHW', but got {data_format!r}.")
        super().__init__(ksize=ksize, strides=strides, pads=pads, dilation=dilation,
                         ceil_mode=ceil_mode, data_format=data_format, argmax_type=argmax_type)

    def __call__(self, x: Any) -> tuple[Any, Any]:
        return _pool_with_argmax(self, x, 3, self.attrs["ksize"])


class BatchNorm(Primitive):
    """``ops.BatchNorm(is_training, epsilon, momentum, data_format)(x, scale, bias, mean,
    variance)`` -> (y, batch_mean, batch_variance, reserve_space_1, reserve_space_2).

    NOTE: the four statistics outputs are what MindSpore 2.10 returns on CPU: in training
    reserve_space_1/2 hold the batch mean and biased variance and batch_mean and
    batch_variance are zeros; in inference all four are zeros."""

    def __init__(self, is_training: bool = False, epsilon: float = 1e-5,
                 momentum: float = 0.1, data_format: str = "NCHW"):
        super().__init__(is_training=is_training, epsilon=epsilon, momentum=momentum,
                         data_format=data_format)
        self.is_training = _bool(is_training, "is_training", self.name)
        self.epsilon = _unit_float(epsilon, "epsilon", self.name, low_open=True)
        self.momentum = _unit_float(momentum, "momentum", self.name, low_open=False)
        if data_format not in ("NCHW", "NHWC"):
            raise GraphValueError(f"For '{self.name}', the 'data_format' must be 'NCHW' or "
                                  f"'NHWC', but got {data_format!r}.", user_loc())
        if data_format == "NHWC":
            raise GraphValueError(f"For '{self.name}', the 'NHWC' format is only supported "
                                  "on GPU.", user_loc())

    def __call__(self, input_x: Any, scale: Any, bias: Any, mean: Any,
                 variance: Any) -> tuple[Any, ...]:
        _check_batch_norm(self.name, input_x, {"scale": scale, "bias": bias, "mean": mean,
                                               "variance": variance})
        y, batch_mean, batch_var = _batch_norm(input_x, scale, bias, mean, variance,
                                               self.is_training, self.momentum,
                                               self.epsilon)
        zeros = F.zeros((input_x.shape[1],), scale.dtype)
        if not self.is_training:
            return y, zeros, zeros, zeros, zeros
        return (y, zeros, zeros, _as(F.reshape(batch_mean, zeros.shape), scale.dtype),
                _as(F.reshape(batch_var, zeros.shape), scale.dtype))


class LRN(Primitive):
    def __init__(self, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0,
                 beta: float = 0.5, norm_region: str = "ACROSS_CHANNELS"):
        super().__init__(depth_radius=depth_radius, bias=bias, alpha=alpha, beta=beta,
                         norm_region=norm_region)

    def __call__(self, x: Any) -> Any:
        return lrn(x, **self.attrs)


class ChannelShuffle(Primitive):
    def __init__(self, group: int):
        super().__init__(group=group)

    def __call__(self, x: Any) -> Any:
        return channel_shuffle(x, self.attrs["group"])


class L2Normalize(Primitive):
    """x / sqrt(max(sum(x^2, axis), epsilon))."""

    def __init__(self, axis: Any = 0, epsilon: float = 1e-4):
        super().__init__(axis=axis, epsilon=_number(epsilon, "epsilon", "L2Normalize"))

    def __call__(self, x: Any) -> Any:
        squares = F.sum(F.square(_float_tensor(x, "L2Normalize")), self.attrs["axis"], True)
        return x / F.sqrt(F.clamp(squares, self.attrs["epsilon"]))


# --- padding and resizing -----------------------------------------------------------------


class Pad(Primitive):
    """``ops.Pad(paddings)(x)``: zero padding, one (before, after) pair per axis."""

    def __init__(self, paddings: Any):
        super().__init__(paddings=paddings)
        self.paddings = _paddings_pairs(paddings, "Pad")

    def __call__(self, x: Any) -> Any:
        return _pad_pairs(x, self.paddings, "constant", "Pad")


class MirrorPad(Primitive):
    """``ops.MirrorPad(mode)(x, paddings)``: ``ops.mirror_pad`` with the mode fixed."""

    def __init__(self, mode: str = "REFLECT"):
        super().__init__(mode=mode)
        if mode not in _MIRROR_MODES:
            raise GraphValueError(f"For 'MirrorPad', the 'mode' must be in "
                                  f"{list(_MIRROR_MODES)}, but got {mode!r}.")
        self.mode = mode

    def __call__(self, input_x: Any, paddings: Any) -> Any:
        return mirror_pad(input_x, paddings, self.mode)


class GridSampler2D(Primitive):
    """``ops.grid_sample`` of a 4-D input (``GridSampler3D``: 5-D)."""

    _rank = 4

    def __init__(self, interpolation_mode: str = "bilinear", padding_mode: str = "zeros",
                 align_corners: bool = False):
        super().__init__(interpolation_mode=interpolation_mode, padding_mode=padding_mode,
                         align_corners=align_corners)

    def __call__(self, input_x: Any, grid: Any) -> Any:
        name = type(self).__name__
        x = _as_tensor(input_x, name)
        if x.ndim != self._rank:
            raise GraphValueError(f"For '{name}', the rank of 'input_x' must be {self._rank}, "
                                  f"but got {x.ndim}.")
        a = self.attrs
        return grid_sample(x, grid, a["interpolation_mode"], a["padding_mode"],
                           a["align_corners"])


class GridSampler3D(GridSampler2D):
    _rank = 5


class ROIAlign(Primitive):
    """``(features, rois)`` -> (rois_n, C, pooled_height, pooled_width)."""

    def __init__(self, pooled_height: int, pooled_width: int, spatial_scale: float,
                 sample_num: int = 2, roi_end_mode: int = 1):
        for name, value, kind in (("pooled_height", pooled_height, int),
                                  ("pooled_width", pooled_width, int),
                                  ("spatial_scale", spatial_scale, float),
                                  ("sample_num", sample_num, int),
                                  ("roi_end_mode", roi_end_mode, int)):
            if not isinstance(value, kind) or isinstance(value, bool):
                raise GraphTypeError(f"For 'ROIAlign', the '{name}' must be {kind.__name__}, "
                                     f"but got {type(value).__name__}.")
        if roi_end_mode not in (0, 1):
            raise GraphValueError(f"For 'ROIAlign', the 'roi_end_mode' must be in [0, 1], but "
                                  f"got {roi_end_mode}.")
        super().__init__(pooled_height=pooled_height, pooled_width=pooled_width,
                         spatial_scale=spatial_scale, sample_num=sample_num,
                         roi_end_mode=roi_end_mode)

    def __call__(self, features: Any, rois: Any) -> Any:
        a = self.attrs
        return roi_align(features, rois, a["pooled_height"], a["pooled_width"],
                         a["spatial_scale"], a["sample_num"], a["roi_end_mode"])


def _pair_or_four(value: Any, what: str) -> tuple[int, int]:
    """Dilation2D's stride or dilation: an int, (h, w) or (1, 1, h, w)."""
    items = (value, value) if isinstance(value, int) and not isinstance(value, bool) else value
    if isinstance(items, tuple) and len(items) == 4 and items[:2] == (1, 1):
        items = items[2:]
    if not (isinstance(items, tuple) and len(items) == 2 and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in items)):
        raise GraphValueError(f"For 'Dilation2D', the '{what}' must be a positive int, (h, w) "
                              f"or (1, 1, h, w), but got {value!r}.")
    return items


class Dilation2D(Primitive):
    """Grayscale dilation: the maximum of input plus filter over each window."""

    def __init__(self, stride: Any, dilation: Any, pad_mode: str = "SAME",
                 data_format: str = "NCHW"):
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid"):
            raise GraphValueError(f"For 'Dilation2D', the 'pad_mode' must be 'same' or "
                                  f"'valid', but got {pad_mode!r}.")
        if data_format != "NCHW":
            raise GraphValueError(f"For 'Dilation2D', the 'data_format' must be 'NCHW', but "
                                  f"got {data_format!r}.")
        super().__init__(stride=_pair_or_four(stride, "stride"),
                         dilation=_pair_or_four(dilation, "dilation"),
                         pad_mode=pad_mode.lower(), data_format=data_format)
        if max(self.attrs["stride"]) > 255:
            raise GraphValueError(f"For 'Dilation2D', the 'stride' must be in [1, 255], but "
                                  f"got {stride!r}.")

    def __call__(self, x: Any, filter: Any) -> Any:  # noqa: A002
        a = self.attrs
        return dilation2d(x, filter, a["stride"], a["dilation"], a["pad_mode"])


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
        def matrix(n: int, out: int) -> Any:
            if self.align_corners or self.half_pixel_centers:
                return linear_matrix(n, out, n / out, self.align_corners)
            return _interpolation(n, np.arange(out) * (n / out))  # MindSpore's dst * in/out

        return _resized(self.name, "image", image, size, matrix)


class ResizeNearestNeighborV2(Primitive):
    """Nearest resizing of an NCHW image to ``size`` (a constant): source floor(dst * in/out),
    floor((dst + 0.5) * in/out) with ``half_pixel_centers``, round(dst * (in-1)/(out-1))
    with ``align_corners``; clipped to the axis."""

    def __init__(self, align_corners: bool = False, half_pixel_centers: bool = False):
        super().__init__(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        self.align_corners, self.half_pixel_centers = bool(align_corners), \
            bool(half_pixel_centers)

    def __call__(self, x: Any, size: Any) -> Any:
        x = _image(x, self.name)
        for axis, out in zip((2, 3), _image_size(size, self.name)):
            n = x.shape[axis]
            scale = (n - 1) / (out - 1) if self.align_corners and out > 1 else n / out
            at = (np.arange(out) + (0.5 if self.half_pixel_centers else 0.0)) * scale
            at = np.floor(at + 0.5) if self.align_corners else np.floor(at)
            x = _take(x, axis, np.clip(at, 0, n - 1).astype(np.int64))
        return x


class ResizeBicubic(Primitive):
    """Bicubic resizing of an NCHW float image to ``size`` (a constant), as TensorFlow's
    ResizeBicubic: corners aligned (a = -0.75), pixel centres (``half_pixel_centers``:
    Keys' a = -0.5, taps outside dropped), or the source dst * in/out (a = -0.75); taps
    outside the image clamp to its edge except with pixel centres."""

    def __init__(self, align_corners: bool = False, half_pixel_centers: bool = False):
        super().__init__(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        if align_corners and half_pixel_centers:
            raise GraphValueError("For ResizeBicubic, the half_pixel_centers must be false "
                                  "when align_corners is true.")
        self.align_corners, self.half_pixel_centers = bool(align_corners), \
            bool(half_pixel_centers)

    def __call__(self, images: Any, size: Any) -> Any:
        def matrix(n: int, out: int) -> Any:
            if self.align_corners or self.half_pixel_centers:
                return cubic_matrix(n, out, n / out, self.align_corners)
            return cubic_rows(n, np.arange(out) * (n / out), -0.75, drop_outside=False)

        return _resized(self.name, "images", images, size, matrix)


def _resized(name: str, what: str, images: Any, size: Any, matrix: Any) -> Any:
    """A float NCHW image resized to ``size`` one spatial axis at a time, each by the
    (out, n) interpolation ``matrix(n, out)`` gives."""
    x = _image(images, name)
    if not x.dtype.is_float:
        raise GraphTypeError(f"For '{name}', the {what} must be a float tensor, but got "
                             f"{x.dtype}.")
    for axis, out in zip((2, 3), _image_size(size, name)):
        x = along(x, axis, matrix(x.shape[axis], out))
    return x


# --- losses -------------------------------------------------------------------------------


class L2Loss(Primitive):
    """Half the sum of squares."""

    def __call__(self, x: Any) -> Any:
        return F.sum(F.square(x)) / 2


class _ReducedLoss(Primitive):
    """A loss class whose ``reduction`` is checked when it is made."""

    def __init__(self, reduction: str = "mean", **attrs: Any):
        super().__init__(reduction=_reduction(reduction, type(self).__name__), **attrs)


class SmoothL1Loss(_ReducedLoss):
    def __init__(self, beta: float = 1.0, reduction: str = "none"):
        super().__init__(reduction, beta=beta)

    def __call__(self, prediction: Any, target: Any) -> Any:
        return smooth_l1_loss(prediction, target, self.attrs["beta"], self.attrs["reduction"])


class SoftMarginLoss(_ReducedLoss):
    def __call__(self, input: Any, target: Any) -> Any:  # noqa: A002
        return soft_margin_loss(input, target, self.attrs["reduction"])


class BinaryCrossEntropy(_ReducedLoss):
    def __call__(self, logits: Any, labels: Any, weight: Any = None) -> Any:
        return binary_cross_entropy(logits, labels, weight, self.attrs["reduction"])


class BCEWithLogitsLoss(_ReducedLoss):
    def __call__(self, input: Any, target: Any, weight: Any = None,  # noqa: A002
                 posWeight: Any = None) -> Any:  # noqa: N803
        return binary_cross_entropy_with_logits(input, target, weight, posWeight,
                                                self.attrs["reduction"])


class TripletMarginLoss(_ReducedLoss):
    """``ops.triplet_margin_loss`` with the margin a 0-d float32 tensor input."""

    def __init__(self, p: int = 2, swap: bool = False, eps: float = 1e-6,
                 reduction: str = "mean"):
        for name, value, kind in (("p", p, int), ("swap", swap, bool), ("eps", eps, float)):
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise GraphTypeError(f"For 'TripletMarginLoss', the '{name}' must be "
                                     f"{kind.__name__}, but got {type(value).__name__}.")
        super().__init__(reduction, p=p, swap=swap, eps=eps)

    def __call__(self, x: Any, positive: Any, negative: Any, margin: Any) -> Any:
        margin = _as_tensor(margin, "TripletMarginLoss")
        if margin.dtype != dtypes.float32:
            raise GraphTypeError(f"For 'TripletMarginLoss', the 'margin' must be a float32 "
                                 f"Tensor, but got {margin.dtype}.")
        if margin.ndim:
            raise GraphValueError(f"For 'TripletMarginLoss', the rank of 'margin' must be 0, "
                                  f"but got {margin.ndim}.")
        a = self.attrs
        return triplet_margin_loss(x, positive, negative, margin, a["p"], a["eps"], a["swap"],
                                   a["reduction"])


class MultilabelMarginLoss(_ReducedLoss):
    """-> (loss, is_target): ``is_target`` marks each sample's target classes (int32)."""

    def __call__(self, x: Any, target: Any) -> tuple[Any, Any]:
        return multilabel_margin(x, target, self.attrs["reduction"])


class KLDivLoss(Primitive):
    def __init__(self, reduction: str = "mean"):
        if reduction not in ("none", "mean", "sum", "batchmean"):
            raise GraphValueError(f"For 'KLDivLoss', the 'reduction' must be in ['none', "
                                  f"'mean', 'sum', 'batchmean'], but got {reduction}.")
        super().__init__(reduction=reduction)

    def __call__(self, logits: Any, labels: Any) -> Any:
        return kl_div(logits, labels, self.attrs["reduction"])


class SigmoidCrossEntropyWithLogits(Primitive):
    """No gradient reaches ``label`` (MindSpore 2.10 defines it as zero; the functional
    binary_cross_entropy_with_logits has one)."""

    def __call__(self, logits: Any, label: Any) -> Any:
        return binary_cross_entropy_with_logits(logits, F.stop_gradient(label),
                                                reduction="none")




# --- embedding lookup ---------------------------------------------------------------------

_INDEX_DTYPES = (dtypes.int32, dtypes.int64)


def _indices(x: Any, arg: str, op: str) -> Any:
    if not isinstance(x, Tensor):
        raise GraphTypeError(f"For '{op}', the '{arg}' must be a Tensor, but got "
                             f"{type(x).__name__}.", user_loc())
    if x.dtype not in _INDEX_DTYPES:
        raise GraphTypeError(f"For '{op}', the dtype of '{arg}' must be Int32 or Int64, but "
                             f"got {x.dtype}.", user_loc())
    return x


def _rows(table: Any, ids: Any) -> Any:
    """``table[ids]`` along axis 0 for any shape of ``ids`` (a 0-d id gives one row)."""
    flat = F.reshape(ids, (ids.size,))
    return F.reshape(F.gather(table, flat, 0), ids.shape + table.shape[1:])


def _lookup_or_zeros(table: Any, indices: Any, offset: Any) -> Any:
    """Rows ``indices - offset`` of ``table``, zeros where that is outside the table."""
    shifted = indices - offset
    inside = F.logical_and(shifted >= 0, shifted < table.shape[0])
    rows = _rows(table, F.select(inside, shifted, F.zeros_like(shifted)))
    if table.ndim == 2:
        inside = F.expand_dims(inside, -1)
    return F.select(inside, rows, F.zeros_like(rows))


class EmbeddingLookupPrim(Primitive):
    """``ops.EmbeddingLookup()(input_params, input_indices, offset)``: rows
    ``input_indices - offset`` of a 1-d or 2-d table; zeros for rows outside it."""

    def __call__(self, input_params: Any, input_indices: Any, offset: Any) -> Any:
        op = "EmbeddingLookup"
        if not isinstance(input_params, Tensor):
            raise GraphTypeError(f"For '{op}', the 'input_params' must be a Tensor, but got "
                                 f"{type(input_params).__name__}.", user_loc())
        if input_params.ndim not in (1, 2):
            raise GraphValueError(f"For '{op}', the dimension of params must be in [1, 2], "
                                  f"but got {input_params.ndim}.", user_loc())
        _indices(input_indices, "input_indices", op)
        if input_indices.ndim == 0:
            raise GraphValueError(f"For '{op}', the dimension of indices must be greater "
                                  "than 0, but got 0.", user_loc())
        if isinstance(offset, Tensor):
            offset = F.cast(offset, input_indices.dtype)
        else:
            offset = _int(offset, "offset", op)
        return _lookup_or_zeros(input_params, input_indices, offset)


EmbeddingLookupPrim.name = "EmbeddingLookup"


EmbeddingLookup = EmbeddingLookupPrim

__all__ = ["GeLU", "BiasAdd", "Dense", "Softmax", "LogSoftmax", "LayerNorm", "Elu", "CeLU",
           "HShrink", "SoftShrink", "GLU", "Conv2D", "Conv3D", "Conv2DBackpropInput",
           "Conv2DTranspose", "MaxPool", "AvgPool", "AdaptiveAvgPool2D", "AdaptiveMaxPool2D",
           "BatchNorm", "Pad", "MirrorPad", "ResizeNearestNeighbor", "ResizeBilinearV2",
           "ResizeNearestNeighborV2", "ResizeBicubic", "L2Loss",
           "FastGeLU", "FastGelu", "SmoothL1Loss", "SoftMarginLoss", "KLDivLoss",
           "BinaryCrossEntropy", "L2Normalize", "SigmoidCrossEntropyWithLogits", "Gelu",
           "ChannelShuffle", "LRN", "EmbeddingLookup", "BCEWithLogitsLoss", "TripletMarginLoss",
           "MultilabelMarginLoss", "AdaptiveMaxPool3D", "MaxPoolWithArgmax",
           "MaxPool3DWithArgmax", "MaxPoolWithArgmaxV2", "GridSampler2D", "GridSampler3D",
           "ROIAlign", "Dilation2D"]
