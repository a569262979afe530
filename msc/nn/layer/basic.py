"""The basic layers of ``msc.nn``, with MindSpore 2.10's signatures, defaults and names:
``Dense``, ``Dropout``, ``Flatten``, ``Unflatten``, ``Identity``, ``Pad``, ``Upsample``,
``ClipByNorm``, ``Norm``, ``OneHot``, ``Tril``/``Triu``, ``Roll`` and ``L1Regularizer``.

Every ``construct`` here only calls ops (``functional``) and branches only on Python
constants (attributes, static shapes), so the same code runs eagerly on Tensors and,
during graph building, on graph tensors (``SymTensor``) to emit IR.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc._checkparam import _bool, _check_init_shape, _float, _int
from msc.common.initializer import HeUniform, Uniform, initializer
from msc.common.seed import generator
from msc.common.tensor import Parameter, SymTensor, Tensor
from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.nn.cell import Cell
from msc.nn.layer.activation import get_activation
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.image_func import _pad_pairs, _paddings_pairs, interpolate
from msc.ops.operations.nn_ops import _MIRROR_MODES


# --- layers with weights ---------------------------------------------------------------


class Dense(Cell):
    """y = activation(x @ weight.T + bias) on the last axis of ``x``.

    Args:
        in_channels, out_channels: sizes of the last axis in and out.
        weight_init: initialiser of ``weight`` (shape (out_channels, in_channels));
            default HeUniform(sqrt(5)), i.e. U(-1/sqrt(in), 1/sqrt(in)).
        bias_init: initialiser of ``bias`` (shape (out_channels,)); default
            U(-1/sqrt(in), 1/sqrt(in)).
        has_bias: whether to add ``bias``.
        activation: None, a name ('relu', 'gelu', ...) or a Cell applied to the output.
        dtype: dtype of the parameters (a Tensor ``weight_init`` keeps its own).

    Example:
        >>> net = nn.Dense(3, 4)
        >>> net(ms.Tensor(np.ones((2, 3), np.float32))).shape
        (2, 4)
    """

    def __init__(self, in_channels: int, out_channels: int, weight_init: Any = None,
                 bias_init: Any = None, has_bias: bool = True, activation: Any = None,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        self.in_channels = _int(in_channels, "in_channels", self.cls_name, positive=True)
        self.out_channels = _int(out_channels, "out_channels", self.cls_name, positive=True)
        self.has_bias = _bool(has_bias, "has_bias", self.cls_name)
        shape = (out_channels, in_channels)
        _check_init_shape(weight_init, shape, "weight_init", self.cls_name)
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
        self.bias = None
        if self.has_bias:
            _check_init_shape(bias_init, (out_channels,), "bias_init", self.cls_name)
            if bias_init is None:
                bias_init = Uniform(1 / math.sqrt(in_channels))
            self.bias = Parameter(initializer(bias_init, (out_channels,), dtype), name="bias")
        self.activation = get_activation(activation, self.cls_name) \
            if isinstance(activation, str) else activation
        if self.activation is not None and not isinstance(self.activation, Cell):
            raise GraphTypeError("For 'Dense', the 'activation' must be str, Cell or None, "
                                 f"but got {type(activation).__name__}.", user_loc())
        self.activation_flag = self.activation is not None

    def construct(self, x: Any) -> Any:
        x = F.dense(x, self.weight, self.bias)
        if self.activation_flag:
            x = self.activation(x)
        return x

    def extend_repr(self) -> str:
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        if self.activation_flag:
            s += f", activation={self.activation}"
        return s


# --- shape and regularisation ----------------------------------------------------------


class Dropout(Cell):
    """Identity in inference; in training (``set_train()``) zeroes each element with
    probability ``p = 1 - keep_prob`` and scales the rest by ``1 / keep_prob``.

    ``p`` wins over ``keep_prob`` when given. Masks come from the generator that
    ``msc.set_seed`` seeds. Training-mode dropout runs eagerly only: a compiled graph
    has no random-number op yet.

    Example:
        >>> drop = nn.Dropout(p=0.5)
        >>> bool((drop(ms.Tensor(np.ones(4, np.float32))).asnumpy() == 1).all())  # eval
        True
    """

    def __init__(self, keep_prob: float = 0.5, p: float | None = None,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        if p is None:
            keep_prob = _float(keep_prob, "keep_prob", self.cls_name)
            if not 0 < keep_prob <= 1:
                raise GraphValueError("For 'Dropout', the 'keep_prob' must be a number in "
                                      f"range (0, 1], but got {keep_prob}.", user_loc())
            self.keep_prob = keep_prob
        else:
            p = _float(p, "p", self.cls_name, ints=True)
            if not 0 <= p < 1:
                raise GraphValueError("For 'Dropout', the 'p' must be a number in range "
                                      f"[0, 1), but got {p}.", user_loc())
            self.keep_prob = 1.0 - p
        self.p = 1.0 - self.keep_prob

    def construct(self, x: Any) -> Any:
        if not self.training or self.keep_prob == 1.0:
            return x
        return x * _dropout_scale(x, self.keep_prob)

    def extend_repr(self) -> str:
        return f"p={self.p}"


def _dropout_scale(x: Any, keep_prob: float) -> Tensor:
    """0 or 1/keep_prob per element, drawn from the seeded generator (in a graph, from a
    ``UniformReal`` node: see ``ops/function/random_func.uniform_draw``)."""
    if not x.dtype.is_float:
        raise GraphTypeError(f"For 'Dropout', the dtype of 'x' must be float16 or float32, "
                             f"but got {x.dtype}.", user_loc())
    if isinstance(x, SymTensor):
        from msc.ops.function.random_func import uniform_draw

        return F.cast(uniform_draw(x.shape) < keep_prob, x.dtype) / keep_prob
    keep = generator().random(x.shape) < keep_prob
    return Tensor((keep / keep_prob).astype(x.dtype.np))


class Flatten(Cell):
    """Merges axes ``start_dim`` .. ``end_dim`` into one (default: all but the first)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim = _int(start_dim, "start_dim", self.cls_name)
        self.end_dim = _int(end_dim, "end_dim", self.cls_name)

    def construct(self, x: Any) -> Any:
        return F.reshape(x, _flat_shape(tuple(x.shape), self.start_dim, self.end_dim))

    def extend_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


def _flat_shape(shape: tuple[int, ...], start: int, end: int) -> tuple[int, ...]:
    ndim = max(len(shape), 1)
    lo, hi = start % ndim if -ndim <= start < ndim else None, \
        end % ndim if -ndim <= end < ndim else None
    if lo is None or hi is None or lo > hi:
        raise ShapeError(f"For 'Flatten', start_dim {start} and end_dim {end} are not a valid "
                         f"range for an input of shape {shape}.")
    if not shape:
        return (1,)
    return shape[:lo] + (math.prod(shape[lo:hi + 1]),) + shape[hi + 1:]


class Identity(Cell):
    """Returns its input unchanged."""

    def construct(self, x: Any) -> Any:
        return x


# --- reshaping, padding, resizing --------------------------------------------------------


class Unflatten(Cell):
    """Splits axis ``axis`` into ``unflattened_size`` (one entry may be -1)."""

    def __init__(self, axis: int, unflattened_size: Any):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise GraphTypeError(f"For 'Unflatten', the type of 'axis' must be 'int', but "
                                 f"got '{type(axis).__name__}'.", user_loc())
        if not isinstance(unflattened_size, (list, tuple)):
            raise GraphTypeError("For 'Unflatten', the type of 'unflattended_size' should be "
                                 "one of '['list', 'tuple']', but got type "
                                 f"'{type(unflattened_size).__name__}'.", user_loc())
        self.axis = axis
        self.unflattened_size = tuple(unflattened_size)

    def construct(self, input_x: Any) -> Any:
        x = _as_tensor(input_x, "Unflatten")
        with _checking("Unflatten"):
            if not -x.ndim <= self.axis < x.ndim:
                raise GraphValueError(f"'axis' must be in range [{-x.ndim}, {x.ndim}), but "
                                      f"got {self.axis}")
        axis = self.axis % x.ndim
        return F.reshape(x, x.shape[:axis] + self.unflattened_size + x.shape[axis + 1:])

    def extend_repr(self) -> str:
        return f"axis={self.axis}, unflattened_size={self.unflattened_size}"


class Pad(Cell):
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


# --- norm clipping ------------------------------------------------------------------------


class ClipByNorm(Cell):
    """``x * clip_norm / max(||x||_2, clip_norm)``, the L2 norm over ``axis`` (None: all
    axes); the result is float32, as in MindSpore."""

    def __init__(self, axis: Any = None):
        super().__init__()
        axes = () if axis is None else axis
        items = axes if isinstance(axes, (tuple, list)) else (axes,)
        if any(isinstance(a, bool) or not isinstance(a, int) for a in items):
            raise GraphTypeError(f"For 'ClipByNorm', the 'axis' must be None, int or a "
                                 f"tuple of ints, but got {axis!r}.", user_loc())
        self.axis = tuple(items) if isinstance(axes, (tuple, list)) else axes

    def construct(self, x: Any, clip_norm: Any) -> Any:
        with _checking("ClipByNorm"):
            if not isinstance(x, Tensor) or not isinstance(clip_norm, Tensor):
                raise GraphTypeError("the input args must be tensor.")
            for what, t in (("x", x), ("clip_norm", clip_norm)):
                if t.dtype not in (dtypes.float16, dtypes.float32):
                    raise GraphTypeError(f"the input argument[{what}] must be a type of "
                                         f"{{Float16, Float32}}, but got {t.dtype}.")
        x = F.cast(x, dtypes.float32)
        clip = F.cast(clip_norm, dtypes.float32)
        norm = F.sqrt(F.sum(F.square(x), self.axis if self.axis != () else None, True))
        return x * clip / F.maximum(norm, clip)


# --- small layers over one op ------------------------------------------------------------


class Tril(Cell):
    def construct(self, x: Any, k: int = 0) -> Any:
        return A.tril(x, k)


class Triu(Cell):
    def construct(self, x: Any, k: int = 0) -> Any:
        return A.triu(x, k)


class Norm(Cell):
    """The 2-norm over ``axis`` (() for all)."""

    def __init__(self, axis: Any = (), keep_dims: bool = False):
        super().__init__()
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x: Any) -> Any:
        axis = None if self.axis in ((), []) else self.axis
        return F.sqrt(F.sum(F.square(x), axis, self.keep_dims))


class OneHot(Cell):
    def __init__(self, axis: int = -1, depth: int = 1, on_value: float = 1.0,
                 off_value: float = 0.0, dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        self.axis, self.depth, self.dtype = axis, depth, dtype
        self.on_value, self.off_value = on_value, off_value

    def construct(self, indices: Any) -> Any:
        on = Tensor(np.array(self.on_value, self.dtype.np))
        off = Tensor(np.array(self.off_value, self.dtype.np))
        return F.one_hot(indices, self.depth, on, off, self.axis)


class L1Regularizer(Cell):
    """``scale * sum(|weights|)``."""

    def __init__(self, scale: float):
        super().__init__()
        if not isinstance(scale, (int, float)) or isinstance(scale, bool) or scale <= 0:
            raise ValueError(f"For 'L1Regularizer', scale must be a positive number, but "
                             f"got {scale!r}")
        self.scale = float(scale)

    def construct(self, weights: Any) -> Any:
        return self.scale * F.sum(F.abs(weights))


class Roll(Cell):
    def __init__(self, shift: Any, axis: Any):
        super().__init__()
        self.shift, self.axis = shift, axis

    def construct(self, input_x: Any) -> Any:
        return A.roll(input_x, self.shift, self.axis)


class Linear(Dense):
    """``y = x @ weight.T + bias`` (``bias`` False: no bias), with Dense's initialisers."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 weight_init: Any = None, bias_init: Any = None, dtype: Any = None):
        super().__init__(in_features, out_features, weight_init, bias_init, bias, None,
                         dtype or dtypes.float32)


class BiDense(Cell):
    """``y[..., o] = x1[..., i] * weight[o, i, j] * x2[..., j] + bias[o]``; both
    initialisers default to U(-1/sqrt(in1_channels), 1/sqrt(in1_channels))."""

    def __init__(self, in1_channels: int, in2_channels: int, out_channels: int,
                 weight_init: Any = None, bias_init: Any = None, has_bias: bool = True,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        cls = self.cls_name
        self.in1_channels = _int(in1_channels, "in1_channels", cls, positive=True)
        self.in2_channels = _int(in2_channels, "in2_channels", cls, positive=True)
        self.out_channels = _int(out_channels, "out_channels", cls, positive=True)
        self.has_bias = _bool(has_bias, "has_bias", cls)
        bound = Uniform(1 / math.sqrt(in1_channels))
        shape = (out_channels, in1_channels, in2_channels)
        self.weight = Parameter(initializer(weight_init or bound, shape, dtype), name="weight")
        self.bias = Parameter(initializer(bias_init or bound, (out_channels,), dtype),
                              name="bias") if self.has_bias else None

    def construct(self, input1: Any, input2: Any) -> Any:
        from msc.ops.function.linalg_func import einsum

        out = einsum("...i,oij,...j->...o", input1, self.weight, input2)
        return out + self.bias if self.has_bias else out


class DropoutExt(Cell):
    """Zeroes each element with probability ``p`` in training, scaling the rest by
    1 / (1 - p); the identity in inference."""

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        self.p, self.inplace = _float(p, "p", self.cls_name, ints=True), inplace

    def construct(self, x: Any) -> Any:
        from msc.ops.function.nn_func import dropout

        return dropout(x, self.p, self.training)


class Dropout2d(Cell):
    """Zeroes whole channels with probability ``p`` in training (scaling the rest by
    1 / (1 - p)); the identity in inference."""

    rank = 4

    def __init__(self, p: float = 0.5):
        super().__init__()
        self.p = _float(p, "p", self.cls_name, ints=True)
        if not 0 <= self.p <= 1:
            raise GraphValueError(f"For '{self.cls_name}', the 'p' must be a number in range "
                                  f"[0, 1], but got {p}.", user_loc())

    def construct(self, x: Any) -> Any:
        from msc.ops.function.nn_func import _channel_dropout

        return _channel_dropout(x, self.p, self.training, self.rank, self.cls_name)


class Dropout1d(Dropout2d):
    rank = 3


class Dropout3d(Dropout2d):
    rank = 5


class Dropout2dExt(Dropout2d):
    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__(p)
        self.inplace = inplace


__all__ = ["Linear", "BiDense", "DropoutExt", "Dropout1d", "Dropout2d", "Dropout3d",
           "Dropout2dExt", "Dense", "Dropout", "Flatten", "Identity", "Unflatten", "ClipByNorm",
           "Pad", "Upsample", "Tril", "Triu", "Norm", "OneHot", "L1Regularizer", "Roll"]
