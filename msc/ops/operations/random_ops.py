"""MindSpore's random primitive classes (``ops.UniformReal``, ``ops.StandardNormal``,
``ops.TruncatedNormal``, ``ops.Gamma``, ``ops.RandomPoisson``, ...):
a class's ``(seed, seed2)`` of ``(0, 0)`` leaves the draw to ``set_seed``.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.ops.function.random_func import (
    _POISSON_DTYPES,
    _shape,
    _shape_tensor,
    gamma,
    poisson,
    random_gamma,
    random_poisson,
    standard_laplace,
    standard_normal,
    truncated_normal,
    uniform,
    uniform_draw,
)
from msc.ops.primitive import Primitive


def _seed(seed: int, seed2: int) -> int | None:
    """The draw's seed from a class's (seed, seed2): (0, 0) leaves it to ``set_seed``."""
    return None if seed == 0 and seed2 == 0 else seed * 1_000_003 + seed2


class _Seeded(Primitive):
    def __init__(self, seed: int = 0, seed2: int = 0, **attrs: Any):
        for name, value in (("seed", seed), ("seed2", seed2)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise GraphValueError(f"For '{type(self).__name__}', the '{name}' must be a "
                                      f"non-negative int, but got {value!r}.")
        super().__init__(seed=seed, seed2=seed2, **attrs)

    @property
    def _draw_seed(self) -> int | None:
        return _seed(self.attrs["seed"], self.attrs["seed2"])


class UniformReal(_Seeded):
    def __call__(self, shape: Any) -> Any:
        return uniform_draw(_shape(shape, type(self).__name__), self._draw_seed)


class StandardNormal(_Seeded):
    def __call__(self, shape: Any) -> Any:
        return standard_normal(shape, self._draw_seed)


class StandardLaplace(_Seeded):
    def __call__(self, shape: Any) -> Any:
        return standard_laplace(shape, self._draw_seed)


class UniformInt(_Seeded):
    """int32 numbers uniform in [minval, maxval) (int32 Tensors)."""

    def __call__(self, shape: Any, minval: Any, maxval: Any) -> Any:
        return uniform(shape, minval, maxval, self._draw_seed, dtypes.int32)


class TruncatedNormal(_Seeded):
    """N(0, 1) numbers within [-2, 2] of the shape a constant int Tensor of at least two
    sizes gives, in ``dtype``."""

    def __init__(self, dtype: Any = dtypes.float32, seed: int = 0, seed2: int = 0):
        if dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
            raise GraphTypeError(f"For 'TruncatedNormal', the 'dtype' must be float16, "
                                 f"float32 or float64, but got {dtype}.")
        super().__init__(seed, seed2, dtype=dtype)

    def __call__(self, shape: Any) -> Any:
        sizes = _shape_tensor(shape, "TruncatedNormal")
        if len(sizes) < 2:
            raise GraphValueError(f"For 'TruncatedNormal', the input tensor shape must >= 2, "
                                  f"but got {len(sizes)}.")
        return truncated_normal(sizes, self.attrs["dtype"], self._draw_seed)


class Gamma(_Seeded):
    """``ops.gamma(shape, alpha, beta)``: float32, ``shape`` broadcast with theirs."""

    def __call__(self, shape: Any, alpha: Any, beta: Any) -> Any:
        return gamma(shape, alpha, beta, self._draw_seed)


class RandomGamma(_Seeded):
    """``ops.random_gamma(shape, alpha)``: shape ``shape + alpha.shape``."""

    def __call__(self, shape: Any, alpha: Any) -> Any:
        return random_gamma(shape, alpha, self._draw_seed)


class Poisson(_Seeded):
    """``ops.poisson(shape, mean)``: int32, ``shape`` broadcast with ``mean``'s."""

    def __call__(self, shape: Any, mean: Any) -> Any:
        return poisson(shape, mean, self._draw_seed)


class RandomPoisson(_Seeded):
    """``ops.random_poisson(shape, rate)`` in ``dtype`` (int64 by default)."""

    def __init__(self, seed: int = 0, seed2: int = 0, dtype: Any = dtypes.int64):
        if dtype not in _POISSON_DTYPES:
            raise GraphTypeError(f"For 'RandomPoisson', the 'dtype' must be one of "
                                 f"{[str(d) for d in _POISSON_DTYPES]}, but got {dtype}.")
        super().__init__(seed, seed2, dtype=dtype)

    def __call__(self, shape: Any, rate: Any) -> Any:
        return random_poisson(shape, rate, self._draw_seed, self.attrs["dtype"])


__all__ = ["UniformReal", "StandardNormal", "StandardLaplace", "UniformInt", "TruncatedNormal",
           "Gamma", "RandomGamma", "Poisson", "RandomPoisson"]
