"""Weight initialisers (``mindspore.common.initializer``): ``initializer(init, shape,
dtype)`` and the ``Initializer`` classes it takes (``Normal``, ``HeUniform``, ...), each
drawing from the seeded generator of ``seed.py``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from msc.common.seed import generator
from msc.common.tensor import Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.source import user_loc
from msc.ir import dtypes

# --- initialiser classes ---------------------------------------------------------------


def _assignment(arr: np.ndarray, num: Any) -> np.ndarray:
    """``arr`` filled with ``num`` (a number, or an array of ``arr``'s shape) in place, and
    returned: MindSpore's helper for an ``Initializer._initialize``, which model code
    imports from ``mindspore.common.initializer``."""
    arr[...] = num
    return arr


def _fans(shape: tuple[int, ...]) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight: dims 1 and 0 times the receptive field."""
    if len(shape) < 2:
        raise GraphValueError("'fan_in' and 'fan_out' can not be computed for a tensor with "
                              f"fewer than 2 dimensions, but got shape {shape}.")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _gain(nonlinearity: str, param: float | None = None) -> float:
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3.0
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope**2))
    raise GraphValueError(f"Unsupported nonlinearity '{nonlinearity}'.")


class Initializer:
    """Fills a new array of a given shape. Subclasses override ``sample(shape)`` (return
    the values) or, as MindSpore's protocol has it, ``_initialize(arr)`` (fill ``arr``, a
    zeroed array of the target dtype, in place)."""

    def __init__(self, **kwargs: Any):
        self._kwargs = kwargs

    def sample(self, shape: tuple[int, ...]) -> np.ndarray:
        raise NotImplementedError

    def _initialize(self, arr: np.ndarray) -> None:
        arr[...] = self.sample(arr.shape)

    def __call__(self, shape: tuple[int, ...], dtype: dtypes.DType) -> np.ndarray:
        if type(self)._initialize is Initializer._initialize:
            return np.asarray(self.sample(tuple(shape))).astype(dtype.np)
        arr = np.zeros(tuple(shape), dtype.np)
        self._initialize(arr)
        return arr

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


class Constant(Initializer):
    def __init__(self, value: float):
        self.value = value

    def sample(self, shape: tuple[int, ...]) -> np.ndarray:
        return np.full(shape, self.value, dtype=np.float64)


class Zero(Constant):
    def __init__(self) -> None:
        super().__init__(0.0)


class One(Constant):
    def __init__(self) -> None:
        super().__init__(1.0)


class Normal(Initializer):
    """N(mean, sigma**2); MindSpore's ``'normal'`` is ``Normal(0.01)``."""

    def __init__(self, sigma: float = 0.01, mean: float = 0.0):
        self.sigma = sigma
        self.mean = mean

    def sample(self, shape: tuple[int, ...]) -> np.ndarray:
        return generator().normal(self.mean, self.sigma, shape)


class TruncatedNormal(Initializer):
    """N(0, sigma**2) redrawn outside two sigmas."""

    def __init__(self, sigma: float = 0.01):
        self.sigma = sigma

    def sample(self, shape: tuple[int, ...]) -> np.ndarray:
        out = generator().normal(0.0, self.sigma, shape)
        bad = np.abs(out) > 2 * self.sigma
        while bad.any():
            out[bad] = generator().normal(0.0, self.sigma, int(bad.sum()))
            bad = np.abs(out) > 2 * self.sigma
        return out


class Uniform(Initializer):
    """U(-scale, scale); MindSpore's ``'uniform'`` is ``Uniform(0.07)``."""

    def __init__(self, scale: float = 0.07):
        self.scale = scale

    def sample(self, shape: tuple[int, ...]) -> np.ndarray:
        return generator().uniform(-self.scale, self.scale, shape)


class HeUniform(Initializer):
    """U(-b, b) with b = gain * sqrt(3 / fan) (Kaiming uniform)."""

    def __init__(self, negative_slope: float = 0, mode: str = "fan_in",
                 nonlinearity: str = "leaky_relu"):
        self.negative_slope = negative_slope
        self.mode = mode
        self.nonlinearity = nonlinearity

    def bound(self, shape: tuple[int, ...]) -> float:
        fan_in, fan_out = _fans(shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        return _gain(self.nonlinearity, self.negative_slope) * math.sqrt(3.0 / fan)

    def sample(self, shape: tuple[int, ...]) -> np.ndarray:
        b = self.bound(shape)
        return generator().uniform(-b, b, shape)


class HeNormal(HeUniform):
    """N(0, std**2) with std = gain / sqrt(fan) (Kaiming normal)."""

    def sample(self, shape: tuple[int, ...]) -> np.ndarray:
        return generator().normal(0.0, self.bound(shape) / math.sqrt(3.0), shape)


class XavierUniform(Initializer):
    """U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out)) (Glorot uniform)."""

    def __init__(self, gain: float = 1):
        self.gain = gain

    def sample(self, shape: tuple[int, ...]) -> np.ndarray:
        fan_in, fan_out = _fans(shape)
        b = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return generator().uniform(-b, b, shape)


class XavierNormal(XavierUniform):
    """N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out))."""

    def sample(self, shape: tuple[int, ...]) -> np.ndarray:
        fan_in, fan_out = _fans(shape)
        return generator().normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


_BY_NAME: dict[str, type[Initializer]] = {
    "zeros": Zero, "zero": Zero, "ones": One, "one": One,
    "normal": Normal, "truncatednormal": TruncatedNormal, "uniform": Uniform,
    "he_uniform": HeUniform, "heuniform": HeUniform, "he_normal": HeNormal,
    "henormal": HeNormal, "xavier_uniform": XavierUniform, "xavieruniform": XavierUniform,
    "xavier_normal": XavierNormal, "xaviernormal": XavierNormal,
}


def _shape_of(shape: Any) -> tuple[int, ...] | None:
    if shape is None:
        return None
    return (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)


def initializer(init: Any, shape: Any = None, dtype: dtypes.DType = dtypes.float32) -> Tensor:
    """A new Tensor of ``shape`` and ``dtype`` filled by ``init``: a name ('zeros', 'ones',
    'normal', 'uniform', 'he_uniform', 'xavier_uniform', ...), an ``Initializer``, a number,
    or a Tensor / numpy array (whose shape must match ``shape``; its dtype is kept).

    Example:
        >>> initializer("ones", (2, 3), msc.float16).asnumpy().dtype
        dtype('float16')
    """
    want = _shape_of(shape)
    if isinstance(init, (Tensor, np.ndarray)):
        data = Tensor(np.array(init, copy=True))
        if want is not None and tuple(data.shape) != want:
            raise GraphValueError(f"The shape of the initial value {tuple(data.shape)} is not "
                                  f"equal to the given shape {want}.", user_loc())
        return data
    if want is None:
        raise GraphValueError("initializer() needs a shape unless init is a Tensor.", user_loc())
    if isinstance(init, str):
        cls = _BY_NAME.get(init.lower())
        if cls is None:
            known = ", ".join(sorted(_BY_NAME))
            raise GraphValueError(f"Unknown initializer '{init}' (known: {known}).", user_loc())
        init = cls()
    elif isinstance(init, numbers.Number) and not isinstance(init, bool):
        init = Constant(init)  # type: ignore[arg-type]
    if not isinstance(init, Initializer):
        raise GraphTypeError("init must be a str, Initializer, number, Tensor or ndarray, but "
                             f"got {type(init).__name__}.", user_loc())
    out = Tensor(init(want, dtype))
    out.init = init  # MindSpore's lazy tensor keeps its Initializer until ``init_data()``
    return out


__all__ = ["Initializer", "Constant", "Zero", "One", "Normal", "TruncatedNormal", "Uniform",
           "HeUniform", "HeNormal", "XavierUniform", "XavierNormal", "initializer"]
