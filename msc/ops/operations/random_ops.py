"""MindSpore's random primitive classes (``ops.UniformReal``, ``ops.StandardNormal``, ...):
a class's ``(seed, seed2)`` of ``(0, 0)`` leaves the draw to ``set_seed``.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphValueError
from msc.ir import dtypes
from msc.ops.function.random_func import (
    _shape,
    standard_laplace,
    standard_normal,
    uniform,
    uniform_draw,
)
from msc.ops.primitive import Primitive


def _seed(seed: int, seed2: int) -> int | None:
    """The draw's seed from a class's (seed, seed2): (0, 0) leaves it to ``set_seed``."""
    return None if seed == 0 and seed2 == 0 else seed * 1_000_003 + seed2


class _Seeded(Primitive):
    def __init__(self, seed: int = 0, seed2: int = 0):
        for name, value in (("seed", seed), ("seed2", seed2)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise GraphValueError(f"For '{type(self).__name__}', the '{name}' must be a "
                                      f"non-negative int, but got {value!r}.")
        super().__init__(seed=seed, seed2=seed2)

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


__all__ = ["UniformReal", "StandardNormal", "StandardLaplace", "UniformInt"]
