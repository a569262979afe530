"""Loss scaling for mixed-precision training (``mindspore.amp``): ``StaticLossScaler``,
``DynamicLossScaler`` and ``all_finite``.

The scalers are ``jit_class`` objects, so ``scale``/``unscale``/``adjust`` compile into a
``@jit`` train step; the scale and the dynamic scaler's counter are Parameters that
``adjust`` updates with ``assign``, as MindSpore's do.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np

from msc import dtype as mstype
from msc.common.api import jit_class
from msc.common.tensor import Parameter, Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.nn.learning_rate_schedule import check_positive_int
from msc.ops import functional as F
from msc.ops.composite.base import HyperMap, partial
from msc.ops.function.side_effect_func import assign

__all__ = ["LossScaler", "StaticLossScaler", "DynamicLossScaler", "all_finite",
           "auto_mixed_precision"]

_hyper_map = HyperMap()


def _finite(x: Any) -> Any:
    """Whether every element is finite: x * 0 is 0 exactly for finite x (NaN otherwise)."""
    return F.all(x * 0 == 0)


def all_finite(inputs: Any) -> Any:
    """A 0-d bool Tensor: whether every element of a Tensor or of a tuple/list of them is
    finite (no inf, no NaN)."""
    if isinstance(inputs, (tuple, list)):
        return reduce(F.logical_and, [_finite(x) for x in inputs])
    return _finite(inputs)


def _scaled(scale: Any, x: Any) -> Any:
    return x * F.cast(scale, x.dtype)


def _unscaled(scale: Any, x: Any) -> Any:
    return x * F.cast(1.0 / scale, x.dtype)


def _map(fn: Any, scale: Any, inputs: Any) -> Any:
    """``fn(scale, x)`` over a Tensor or a tuple of Tensors."""
    if isinstance(inputs, (tuple, list)):
        return _hyper_map(partial(fn, scale), tuple(inputs))
    return fn(scale, inputs)


def _scale_parameter(scale_value: Any) -> Parameter:
    if isinstance(scale_value, bool) or not isinstance(scale_value, (int, float)):
        raise GraphTypeError("The type of 'scale_value' should be one of '['float', 'int']', "
                             f"but got type '{type(scale_value).__name__}'.")
    if scale_value < 1.0:
        raise GraphValueError(f"The argument 'scale_value' must be > 1, but got {scale_value}")
    return Parameter(Tensor(np.float32(scale_value)), name="scale_value")


@jit_class
class LossScaler:
    """Base of the loss scalers: ``scale`` the loss before differentiating, ``unscale``
    the gradients after, ``adjust`` the scale to whether they were finite."""

    def scale(self, inputs: Any) -> Any:
        raise NotImplementedError

    def unscale(self, inputs: Any) -> Any:
        raise NotImplementedError

    def adjust(self, grads_finite: Any) -> Any:
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    """A constant scale."""

    def __init__(self, scale_value: float):
        self.scale_value = _scale_parameter(scale_value)

    def scale(self, inputs: Any) -> Any:
        return _map(_scaled, self.scale_value, inputs)

    def unscale(self, inputs: Any) -> Any:
        return _map(_unscaled, self.scale_value, inputs)

    def adjust(self, grads_finite: Any) -> Any:
        return False


class DynamicLossScaler(StaticLossScaler):
    """A scale divided by ``scale_factor`` (not below 1) after a step whose gradients
    overflowed, and multiplied by it after ``scale_window`` finite steps in a row."""

    def __init__(self, scale_value: float, scale_factor: int, scale_window: int):
        super().__init__(scale_value)
        self.scale_window = check_positive_int(scale_window, "scale_window", None)
        self.scale_factor = check_positive_int(scale_factor, "scale_factor", None)
        self.counter = Parameter(Tensor(np.int32(0)), name="counter")

    def adjust(self, grads_finite: Any) -> Any:
        scale = self.scale_value * 1
        grown = scale * self.scale_factor
        grown = F.select(_finite(grown), grown, scale)
        finite_scale = F.select(self.counter == self.scale_window - 1, grown, scale)
        shrunk = F.maximum(scale / self.scale_factor, F.ones_like(scale))
        assign(self.scale_value, F.select(grads_finite, finite_scale, shrunk))
        counter = (self.counter + 1) % self.scale_window
        assign(self.counter, F.select(grads_finite, counter, F.zeros_like(counter)))
        return True


def auto_mixed_precision(network: Any, amp_level: str = "O0", dtype: Any = mstype.float16
                         ) -> Any:
    """Level "O0" (full precision) returns ``network`` as it is; the casting levels are not
    supported yet."""
    if amp_level not in ("O0", "O1", "O2", "O3", "auto"):
        raise GraphValueError(f"The amp level {amp_level} is not supported.")
    if amp_level != "O0":
        from msc.api_names import UnsupportedApiError

        raise UnsupportedApiError(f"auto_mixed_precision level '{amp_level}' is not supported "
                                  "by msc yet; only 'O0'.")
    return network
