"""The activation layers of ``msc.nn`` beyond ReLU/Sigmoid/Tanh/GELU (``layers.py``), with
MindSpore 2.10's constructor arguments and defaults, and their ``nn.get_activation``
names. Each ``construct`` is one call of the functional form in ``functional_math``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.api import functional as F
from msc.frontend.api import functional_math as M
from msc.frontend.api.cell import Cell
from msc.frontend.api.layers import _ACTIVATIONS, _float, _int
from msc.common.tensor import Parameter, Tensor
from msc.frontend.source import user_loc
from msc.ir import dtypes


class _Elementwise(Cell):
    """A parameter-free activation: ``construct`` applies ``fn``."""

    fn: Any

    def construct(self, x: Any) -> Any:
        return type(self).fn(x)


class SiLU(_Elementwise):
    fn = M.silu


class Mish(_Elementwise):
    fn = M.mish


class Softsign(_Elementwise):
    fn = M.softsign


class HSigmoid(_Elementwise):
    fn = M.hardsigmoid


class LogSigmoid(_Elementwise):
    fn = M.logsigmoid


class Tanhshrink(_Elementwise):
    fn = M.tanhshrink


class LeakyReLU(Cell):
    """x where x > 0, ``alpha * x`` elsewhere."""

    def __init__(self, alpha: float = 0.2):
        super().__init__()
        self.alpha = _float(alpha, "alpha", self.cls_name, ints=True)

    def construct(self, x: Any) -> Any:
        return M.leaky_relu(x, self.alpha)


class ELU(Cell):
    def __init__(self, alpha: float = 1.0):
        super().__init__()
        self.alpha = _float(alpha, "alpha", self.cls_name, ints=True)

    def construct(self, x: Any) -> Any:
        return M.elu(x, self.alpha)


class CELU(ELU):
    def __init__(self, alpha: float = 1.0):
        super().__init__(alpha)
        if self.alpha == 0:
            raise GraphValueError("For 'CELU', the 'alpha' must not be 0.", user_loc())

    def construct(self, x: Any) -> Any:
        return M.celu(x, self.alpha)


class Hardtanh(Cell):
    """The input clipped to [min_val, max_val]."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0):
        super().__init__()
        self.min_val = _float(min_val, "min_val", self.cls_name, ints=True)
        self.max_val = _float(max_val, "max_val", self.cls_name, ints=True)

    def construct(self, x: Any) -> Any:
        return M.hardtanh(x, self.min_val, self.max_val)


class HShrink(Cell):
    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = _float(lambd, "lambd", self.cls_name, ints=True)

    def construct(self, x: Any) -> Any:
        return M.hardshrink(x, self.lambd)


class SoftShrink(HShrink):
    def construct(self, x: Any) -> Any:
        return M.softshrink(x, self.lambd)


class GLU(Cell):
    def __init__(self, axis: int = -1):
        super().__init__()
        self.axis = _int(axis, "axis", self.cls_name)

    def construct(self, x: Any) -> Any:
        return M.glu(x, self.axis)


class Softmin(Cell):
    def __init__(self, axis: int | tuple[int, ...] = -1):
        super().__init__()
        self.axis = axis

    def construct(self, x: Any) -> Any:
        return M.softmin(x, self.axis)


class Threshold(Cell):
    """x where x > threshold, ``value`` elsewhere (both arguments are required)."""

    def __init__(self, threshold: float, value: float):
        super().__init__()
        self.threshold = _float(threshold, "threshold", self.cls_name, ints=True)
        self.value = _float(value, "value", self.cls_name, ints=True)

    def construct(self, x: Any) -> Any:
        return M.threshold(x, self.threshold, self.value)


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
        return M.prelu(x, F.cast(self.w, x.dtype))


_NEW = {"silu": SiLU, "mish": Mish, "softsign": Softsign, "hsigmoid": HSigmoid,
        "logsigmoid": LogSigmoid, "tanhshrink": Tanhshrink, "leakyrelu": LeakyReLU,
        "elu": ELU, "hardtanh": Hardtanh, "hshrink": HShrink, "softshrink": SoftShrink,
        "softmin": Softmin, "threshold": Threshold, "prelu": PReLU}
_ACTIVATIONS.update(_NEW)  # so ``get_activation`` and ``Dense(activation=...)`` know them

__all__ = [c.__name__ for c in _NEW.values()] + ["CELU", "GLU"]
