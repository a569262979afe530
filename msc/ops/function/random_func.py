"""MindSpore's random ops over msc's uniform draws (``uniform_draw``): ``ops.rand``,
normal numbers by Box-Muller, Laplace numbers as the difference of two exponential ones,
integers by scaling and flooring (their classes are in ``operations/random_ops.py``).

They follow MindSpore's distributions, shapes, dtypes and argument checks, not its
numbers (its generator differs). Each op makes one draw, so its numbers repeat after
``set_seed`` and an explicit ``seed`` gives the same numbers each call.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from msc.common.seed import generator, get_seed
from msc.common.tensor import SymTensor, Tensor, apply
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.active import ACTIVE, current_builder
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function.arguments import _as_tensor


# --- random numbers -----------------------------------------------------------------------

#: the root builder of a graph being built -> the draws it holds so far.
_DRAWS: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def uniform_draw(shape: tuple[int, ...], seed: int | None = None) -> Any:
    """float32 numbers in [0, 1) of ``shape``. Eagerly they come from the generator
    ``set_seed`` seeds (or a fresh one for an explicit ``seed``); in a graph from a
    ``UniformReal`` node whose stream is seeded by the global seed (or ``seed``) and the
    node's rank among the build's draws, so a network built after ``set_seed(s)`` draws
    the same numbers each time (not MindSpore's numbers: its generator differs)."""
    builder = current_builder()
    if builder is None:
        rng = generator() if seed is None else np.random.default_rng((seed, 0))
        return Tensor(rng.random(shape, dtype=np.float32))
    root = ACTIVE[0]
    offset = _DRAWS.get(root, 0)
    _DRAWS[root] = offset + 1
    var = builder.effect(Op.UniformReal, (), {"shape": tuple(shape), "offset": offset,
                                              "seed": get_seed() if seed is None else seed})
    return SymTensor(var, builder)


def rand(*size: Any, dtype: Any = None, seed: int | None = None) -> Any:
    """Uniform numbers in [0, 1) of shape ``size`` (float32 unless ``dtype``)."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    if any(isinstance(d, bool) or not isinstance(d, int) or d < 0 for d in shape):
        raise GraphTypeError(f"For 'rand', the 'size' must be non-negative ints, but got "
                             f"{size!r}.", user_loc())
    out = uniform_draw(tuple(shape), seed)
    return out if dtype in (None, dtypes.float32) else F.cast(out, dtype)


def _shape(shape: Any, op: str) -> tuple[int, ...]:
    """A shape given as a tuple of ints or a 1-D int Tensor."""
    if isinstance(shape, Tensor) and shape.dtype.is_int and shape.ndim == 1:
        shape = tuple(int(d) for d in shape.asnumpy())
    if not isinstance(shape, (tuple, list)) or any(
            isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0 for d in shape):
        raise GraphTypeError(f"For '{op}', the 'shape' must be a tuple of non-negative ints, "
                             f"but got {shape!r}.")
    return tuple(int(d) for d in shape)


def _size(size: tuple[Any, ...], op: str) -> tuple[int, ...]:
    """``*size`` as ``randn`` takes it: ints, or one tuple or list."""
    return _shape(tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list))
                  else size, op)


def _draws(count: int, shape: tuple[int, ...], seed: int | None) -> list[Any]:
    """``count`` independent float64 uniform tensors in [0, 1) of ``shape``, from one draw
    (two draws with one explicit seed would repeat each other)."""
    both = F.cast(uniform_draw((count, *shape), seed), dtypes.float64)
    return [F.reshape(F.gather(both, Tensor(np.array([i], np.int32)), 0), shape)
            for i in range(count)]


def _exponential(u: Any) -> Any:
    """-log(1 - u): exponential numbers from uniform ones in [0, 1) (never infinite)."""
    return -apply(Op.Log, 1.0 - u)


def _normal(shape: tuple[int, ...], seed: int | None) -> Any:
    u, v = _draws(2, shape, seed)
    radius = F.sqrt(2.0 * _exponential(u))
    return F.cast(radius * apply(Op.Cos, (2.0 * np.pi) * v), dtypes.float32)


def _integers(low: Any, high: Any, shape: tuple[int, ...], seed: int | None,
              dtype: Any) -> Any:
    """Integers uniform in [low, high)."""
    (u,) = _draws(1, shape, seed)
    return F.cast(apply(Op.Floor, u * (high - low)) + low, dtype)


def _float_type(dtype: Any, op: str) -> None:
    if dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
        raise GraphValueError(f"For '{op}', the 'dtype' must be a float type, but got {dtype}.")


def _int_type(dtype: Any, op: str) -> None:
    if not (isinstance(dtype, dtypes.DType) and dtype.is_int):
        raise GraphValueError(f"For '{op}', the 'dtype' must be an int type, but got {dtype}.")


def _int_bounds(low: Any, high: Any, op: str) -> None:
    for name, value in (("low", low), ("high", high)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise GraphTypeError(f"For '{op}', the '{name}' must be an int, but got "
                                 f"{type(value).__name__}.")
    if low >= high:
        raise GraphValueError(f"For '{op}', the 'low' must be less than 'high', but got "
                              f"{low} and {high}.")


def uniform(shape: Any, minval: Any, maxval: Any, seed: int | None = None,
            dtype: Any = dtypes.float32) -> Any:
    """Numbers uniform in [minval, maxval): float32, or int32 (flooring)."""
    if not isinstance(minval, Tensor) or not isinstance(maxval, Tensor):
        raise GraphTypeError("For 'uniform', the 'minval' and 'maxval' must be Tensors, but "
                             f"got {type(minval).__name__} and {type(maxval).__name__}.")
    if dtype not in (dtypes.int32, dtypes.float32):
        raise GraphTypeError(f"For 'uniform', the 'dtype' must be int32 or float32, but got "
                             f"{dtype}.")
    for bound in (minval, maxval):
        if bound.dtype != dtype:
            raise GraphTypeError(f"For 'uniform', the value data type '{bound.dtype}' is not "
                                 f"consistent with assigned tensor data type {dtype}.")
    shape = _shape(shape, "uniform")
    low, high = F.cast(minval, dtypes.float64), F.cast(maxval, dtypes.float64)
    if dtype == dtypes.int32:
        return _integers(low, high, shape, seed, dtype)
    (u,) = _draws(1, shape, seed)
    return F.cast(u * (high - low) + low, dtype)


def standard_normal(shape: Any, seed: int | None = None) -> Any:
    """float32 numbers from N(0, 1)."""
    return _normal(_shape(shape, "standard_normal"), seed)


def standard_laplace(shape: Any, seed: int | None = None) -> Any:
    """float32 numbers from the Laplace distribution of mean 0 and scale 1."""
    first, second = _draws(2, _shape(shape, "standard_laplace"), seed)
    return F.cast(_exponential(first) - _exponential(second), dtypes.float32)


def randn(*size: Any, dtype: Any = None, seed: int | None = None) -> Any:
    dtype = dtype or dtypes.float32
    _float_type(dtype, "randn")
    return F.cast(_normal(_size(size, "randn"), seed), dtype)


def randint(low: int, high: int, size: Any, seed: int | None = None, *,
            dtype: Any = None) -> Any:
    """Integers uniform in [low, high) (int64 unless ``dtype``)."""
    dtype = dtype or dtypes.int64
    _int_type(dtype, "randint")
    if not isinstance(size, tuple):
        raise GraphValueError(f"For 'randint', the 'size' must be a tuple, but got {size!r}.")
    _int_bounds(low, high, "randint")
    return _integers(low, high, _shape(size, "randint"), seed, dtype)


def rand_like(input: Any, seed: int | None = None, *, dtype: Any = None) -> Any:  # noqa: A002
    x = _as_tensor(input, "rand_like")
    dtype = dtype or x.dtype
    _float_type(dtype, "rand_like")
    return F.cast(uniform_draw(x.shape, seed), dtype)


def randn_like(input: Any, seed: int | None = None, *, dtype: Any = None) -> Any:  # noqa: A002
    """N(0, 1) numbers shaped like ``input``: float32 unless ``dtype``."""
    x = _as_tensor(input, "randn_like")
    dtype = dtype or dtypes.float32
    _float_type(dtype, "randn_like")
    return F.cast(_normal(x.shape, seed), dtype)


def randint_like(input: Any, low: int, high: int, seed: int | None = None, *,  # noqa: A002
                 dtype: Any = None) -> Any:
    x = _as_tensor(input, "randint_like")
    dtype = dtype or x.dtype
    _int_type(dtype, "randint_like")
    _int_bounds(low, high, "randint_like")
    return _integers(low, high, x.shape, seed, dtype)


def bernoulli(input: Any, p: Any = 0.5, seed: int | None = None) -> Any:  # noqa: A002
    """1 with probability ``p`` (a number, or a Tensor of ``input``'s shape or of one
    element), else 0, in ``input``'s shape and dtype."""
    x = _as_tensor(input, "bernoulli")
    if isinstance(p, Tensor):
        if p.shape != x.shape and p.size != 1:
            raise GraphValueError("For 'Bernoulli', 'x' and 'p' should have same shape or 'p' "
                                  "have a size of 1.")
        p = F.reshape(p, x.shape if p.shape == x.shape else ())
    elif isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise GraphValueError(f"For 'bernoulli', the 'p' must be a number in [0, 1] or a "
                              f"Tensor, but got {p!r}.")
    return F.cast(apply(Op.Less, uniform_draw(x.shape, seed), p), x.dtype)


__all__ = ["rand", "uniform", "standard_normal", "standard_laplace", "randn", "randint",
           "rand_like", "randn_like", "randint_like", "bernoulli"]
