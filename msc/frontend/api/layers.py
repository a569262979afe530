"""The layers of ``msc.nn``, with MindSpore 2.10's signatures, defaults and names.

Every ``construct`` here only calls ops (``functional``) and branches only on Python
constants (attributes, static shapes), so the same code runs eagerly on Tensors and,
during graph building, on graph tensors (``SymTensor``) to emit IR.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.frontend.api import functional as F
from msc.frontend.api.cell import Cell
from msc.common.initializer import HeUniform, Uniform, initializer
from msc.common.seed import generator
from msc.common.tensor import Parameter, SymTensor, Tensor
from msc.frontend.source import user_loc
from msc.ir import dtypes


def _int(value: Any, arg: str, cls: str, positive: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise GraphTypeError(f"For '{cls}', the '{arg}' must be int, but got "
                             f"{type(value).__name__}.", user_loc())
    if positive and value <= 0:
        raise GraphValueError(f"For '{cls}', the '{arg}' must be a positive int, but got "
                              f"{value}.", user_loc())
    return value


def _bool(value: Any, arg: str, cls: str) -> bool:
    if not isinstance(value, bool):
        raise GraphTypeError(f"For '{cls}', the '{arg}' must be bool, but got "
                             f"{type(value).__name__}.", user_loc())
    return value


def _float(value: Any, arg: str, cls: str, ints: bool = False) -> float:
    kinds = (int, float) if ints else (float,)
    if isinstance(value, bool) or not isinstance(value, kinds):
        want = "float or int" if ints else "float"
        raise GraphTypeError(f"For '{cls}', the '{arg}' must be {want}, but got "
                             f"{type(value).__name__}.", user_loc())
    return float(value)


def _check_init_shape(init: Any, shape: tuple[int, ...], arg: str, cls: str) -> None:
    if isinstance(init, (Tensor, np.ndarray)) and tuple(np.shape(init)) != shape:
        raise GraphValueError(f"For '{cls}', the shape of '{arg}' must be {shape}, but got "
                              f"{tuple(np.shape(init))}.", user_loc())


# --- activations -----------------------------------------------------------------------


class ReLU(Cell):
    """max(x, 0), element-wise."""

    def construct(self, x: Any) -> Any:
        return F.relu(x)


class ReLU6(Cell):
    """min(max(x, 0), 6), element-wise."""

    def construct(self, x: Any) -> Any:
        return F.clip_by_value(x, 0, 6)


class Sigmoid(Cell):
    """1 / (1 + exp(-x)), element-wise."""

    def construct(self, x: Any) -> Any:
        return F.sigmoid(x)


class Tanh(Cell):
    def construct(self, x: Any) -> Any:
        return F.tanh(x)


class GELU(Cell):
    """GeLU; ``approximate=True`` uses the tanh formula, False the exact erf one."""

    def __init__(self, approximate: bool = True):
        super().__init__()
        self.approximate = _bool(approximate, "approximate", self.cls_name)

    def construct(self, x: Any) -> Any:
        return F.gelu(x, "tanh" if self.approximate else "none")


class HSwish(Cell):
    """x * relu6(x + 3) / 6, element-wise."""

    def construct(self, x: Any) -> Any:
        return F.hardswish(x)


class Softmax(Cell):
    def __init__(self, axis: int | tuple[int, ...] = -1):
        super().__init__()
        self.axis = axis

    def construct(self, x: Any) -> Any:
        return F.softmax(x, self.axis)

    def extend_repr(self) -> str:
        return f"axis={self.axis}"


class LogSoftmax(Cell):
    def __init__(self, axis: int = -1):
        super().__init__()
        self.axis = _int(axis, "axis", self.cls_name)

    def construct(self, x: Any) -> Any:
        return F.log_softmax(x, self.axis)

    def extend_repr(self) -> str:
        return f"axis={self.axis}"


_ACTIVATIONS: dict[str, type[Cell]] = {
    "relu": ReLU, "relu6": ReLU6, "sigmoid": Sigmoid, "tanh": Tanh, "gelu": GELU,
    "hswish": HSwish, "softmax": Softmax, "logsoftmax": LogSoftmax,
}


def get_activation(name: str | None, prim_name: str | None = None) -> Cell | None:
    """A new activation Cell by name ('relu', 'sigmoid', 'tanh', 'gelu', 'softmax', ...).

    Example:
        >>> type(get_activation("relu")).__name__
        'ReLU'
    """
    if name is None:
        return None
    if not isinstance(name, str) or name.lower() not in _ACTIVATIONS:
        raise KeyError(f"For '{prim_name or 'get_activation'}', unknown activation type "
                       f"'{name}' (known: {', '.join(sorted(_ACTIVATIONS))}).")
    return _ACTIVATIONS[name.lower()]()


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
    ``UniformReal`` node: see ``misc_layers.uniform_draw``)."""
    if not x.dtype.is_float:
        raise GraphTypeError(f"For 'Dropout', the dtype of 'x' must be float16 or float32, "
                             f"but got {x.dtype}.", user_loc())
    if isinstance(x, SymTensor):
        from msc.frontend.api.misc_layers import uniform_draw

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
