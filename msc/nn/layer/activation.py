"""The activation layers of ``msc.nn`` (``nn.ReLU``, ``nn.GELU``, ``nn.LeakyReLU``,
``nn.PReLU``, ...) with MindSpore 2.10's constructor arguments and defaults, and
``nn.get_activation`` with their names. Each ``construct`` is one call of the functional
form (``ops/functional.py``, ``ops/function/nn_func.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Parameter, Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.nn.cell import Cell
from msc._checkparam import _bool, _float, _int
from msc.ops import functional as F
from msc.ops.function import nn_func
from msc.ops.function.math_func import hardshrink
from msc.ops.function.nn_func import fast_gelu


# --- activations -----------------------------------------------------------------------


class ReLU(Cell):
    """max(x, 0), element-wise."""

    def construct(self, x: Any) -> Any:
        return F.relu(x)


class ReLU6(Cell):
    """min(max(x, 0), 6), element-wise; the gradient is 1 on (0, 6] (MindSpore's)."""

    def construct(self, x: Any) -> Any:
        from msc.ops.function.nn_func import relu6

        return relu6(x)


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


class _Elementwise(Cell):
    """A parameter-free activation: ``construct`` applies ``fn``."""

    fn: Any

    def construct(self, x: Any) -> Any:
        return type(self).fn(x)


class SiLU(_Elementwise):
    fn = nn_func.silu


class Mish(_Elementwise):
    fn = nn_func.mish


class Softsign(_Elementwise):
    fn = nn_func.softsign


class HSigmoid(_Elementwise):
    fn = nn_func.hardsigmoid


class LogSigmoid(_Elementwise):
    fn = nn_func.logsigmoid


class Tanhshrink(_Elementwise):
    fn = nn_func.tanhshrink


class LeakyReLU(Cell):
    """x where x > 0, ``alpha * x`` elsewhere."""

    def __init__(self, alpha: float = 0.2):
        super().__init__()
        self.alpha = _float(alpha, "alpha", self.cls_name, ints=True)

    def construct(self, x: Any) -> Any:
        return nn_func.leaky_relu(x, self.alpha)


class ELU(Cell):
    def __init__(self, alpha: float = 1.0):
        super().__init__()
        self.alpha = _float(alpha, "alpha", self.cls_name, ints=True)

    def construct(self, x: Any) -> Any:
        return nn_func.elu(x, self.alpha)


class CELU(ELU):
    def __init__(self, alpha: float = 1.0):
        super().__init__(alpha)
        if self.alpha == 0:
            raise GraphValueError("For 'CELU', the 'alpha' must not be 0.", user_loc())

    def construct(self, x: Any) -> Any:
        return nn_func.celu(x, self.alpha)


class Hardtanh(Cell):
    """The input clipped to [min_val, max_val]."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0):
        super().__init__()
        self.min_val = _float(min_val, "min_val", self.cls_name, ints=True)
        self.max_val = _float(max_val, "max_val", self.cls_name, ints=True)

    def construct(self, x: Any) -> Any:
        return nn_func.hardtanh(x, self.min_val, self.max_val)


class HShrink(Cell):
    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = _float(lambd, "lambd", self.cls_name, ints=True)

    def construct(self, x: Any) -> Any:
        return hardshrink(x, self.lambd)


class SoftShrink(HShrink):
    def construct(self, x: Any) -> Any:
        return nn_func.softshrink(x, self.lambd)


class GLU(Cell):
    def __init__(self, axis: int = -1):
        super().__init__()
        self.axis = _int(axis, "axis", self.cls_name)

    def construct(self, x: Any) -> Any:
        return nn_func.glu(x, self.axis)


class Softmin(Cell):
    def __init__(self, axis: int | tuple[int, ...] = -1):
        super().__init__()
        self.axis = axis

    def construct(self, x: Any) -> Any:
        return nn_func.softmin(x, self.axis)


class Threshold(Cell):
    """x where x > threshold, ``value`` elsewhere (both arguments are required)."""

    def __init__(self, threshold: float, value: float):
        super().__init__()
        self.threshold = _float(threshold, "threshold", self.cls_name, ints=True)
        self.value = _float(value, "value", self.cls_name, ints=True)

    def construct(self, x: Any) -> Any:
        return nn_func.threshold(x, self.threshold, self.value)


class PReLU(Cell):
    """x where x > 0, ``w * x`` elsewhere, with a learnable ``w`` (Parameter ``a``) of
    ``channel`` entries, one per channel (axis 1) or one shared by all.

    Args:
        channel: 1, or the input's number of channels.
        w: the initial value: a float for every entry, a list of ``channel`` floats, or a
            float16/float32 Tensor of shape (channel,).
    """

    def __init__(self, channel: int = 1, w: Any = 0.25):
        super().__init__()
        channel = _int(channel, "channel", self.cls_name, positive=True)
        if isinstance(w, (float, np.float32)):
            init = np.full((channel,), w, np.float32)
        elif isinstance(w, list):
            if len(w) != channel or not all(isinstance(v, (float, np.float32)) for v in w):
                raise GraphValueError(f"For 'PReLU', 'w' must be a list of {channel} floats "
                                      f"(the 'channel'), but got {w}.", user_loc())
            init = np.array(w, np.float32)
        elif isinstance(w, Tensor):
            if w.dtype not in (dtypes.float16, dtypes.float32) or w.shape != (channel,):
                raise GraphValueError(f"For 'PReLU', a Tensor 'w' must be float16 or float32 "
                                      f"of shape ({channel},), but got {w.dtype} of shape "
                                      f"{w.shape}.", user_loc())
            init = w.asnumpy()
        else:
            raise GraphTypeError(f"For 'PReLU', the 'w' must be a float, a list or a Tensor, "
                                 f"but got {type(w).__name__}.", user_loc())
        self.w = Parameter(Tensor(init), name="a")

    def construct(self, x: Any) -> Any:
        return nn_func.prelu(x, F.cast(self.w, x.dtype))


class FastGeluCell(Cell):
    def construct(self, x: Any) -> Any:
        return fast_gelu(x)


FastGelu = FastGeluCell


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


_NEW = {"silu": SiLU, "mish": Mish, "softsign": Softsign, "hsigmoid": HSigmoid,
        "logsigmoid": LogSigmoid, "tanhshrink": Tanhshrink, "leakyrelu": LeakyReLU,
        "elu": ELU, "hardtanh": Hardtanh, "hshrink": HShrink, "softshrink": SoftShrink,
        "softmin": Softmin, "threshold": Threshold, "prelu": PReLU}
_ACTIVATIONS.update(_NEW)  # so ``get_activation`` and ``Dense(activation=...)`` know them


class SeLU(_Elementwise):
    fn = nn_func.selu


class Softmax2d(Cell):
    """Softmax over the channels (axis -3) of (C, H, W) or (N, C, H, W) input."""

    def construct(self, x: Any) -> Any:
        if x.ndim not in (3, 4):
            raise GraphValueError(f"For 'Softmax2d', the input must be 3-D or 4-D, but got "
                                  f"{x.ndim}-D.", user_loc())
        return F.softmax(x, -3)


class LogSoftmaxExt(Cell):
    """Log-softmax over ``dim``; None picks 0 for 0-, 1- and 3-d input, else 1."""

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def construct(self, x: Any) -> Any:
        dim = self.dim if self.dim is not None else (0 if x.ndim in (0, 1, 3) else 1)
        return F.log_softmax(x, dim)


class PReLUExt(Cell):
    """x where x > 0, ``weight * x`` elsewhere: ``num_parameters`` learnable slopes (1, or
    one per channel, axis 1), each ``init``."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, dtype: Any = None):
        super().__init__()
        n = _int(num_parameters, "num_parameters", self.cls_name, positive=True)
        self.weight = Parameter(Tensor(np.full((n,), _float(init, "init", self.cls_name,
                                                             ints=True)),
                                       dtype or dtypes.float32), name="weight")

    def construct(self, x: Any) -> Any:
        return nn_func.prelu(x, self.weight)


class RReLU(Cell):
    """x where x >= 0, ``a * x`` elsewhere with ``a`` drawn from U(lower, upper) for each
    element on every call (training or not, as MindSpore's)."""

    def __init__(self, lower: float = 1 / 8, upper: float = 1 / 3):
        super().__init__()
        self.lower = _float(lower, "lower", self.cls_name, ints=True)
        self.upper = _float(upper, "upper", self.cls_name, ints=True)
        if self.lower > self.upper:
            raise GraphValueError(f"For 'RReLU', 'upper' must be greater than or equal to "
                                  f"'lower', but got upper: {upper}, lower: {lower}.",
                                  user_loc())

    def construct(self, x: Any) -> Any:
        from msc.ops.function.random_func import uniform_draw

        slope = F.cast(uniform_draw(x.shape) * (self.upper - self.lower) + self.lower,
                       x.dtype)
        return F.select(x < 0, x * slope, x)


__all__ = ["SeLU", "Softmax2d", "LogSoftmaxExt", "PReLUExt", "RReLU", "SiLU", "Mish", "Softsign",
           "HSigmoid", "LogSigmoid", "Tanhshrink", "LeakyReLU", "ELU", "Hardtanh", "HShrink",
           "SoftShrink", "Softmin", "Threshold", "PReLU", "CELU", "GLU", "GELU", "HSwish",
           "LogSoftmax", "ReLU", "ReLU6", "Sigmoid", "Softmax", "Tanh", "get_activation",
           "FastGelu"]

