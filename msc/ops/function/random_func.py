"""MindSpore's random ops over msc's uniform draws (``uniform_draw``): ``ops.rand``,
normal numbers by Box-Muller, Laplace numbers as the difference of two exponential ones,
integers by scaling and flooring, truncated normal numbers by the inverse of the normal
CDF, gamma numbers by Marsaglia and Tsang's squeeze and Poisson numbers by the inverse
CDF for small means and Hormann's transformed rejection (PTRS) for large ones, each
rejection method over a fixed number of tries drawn at once, so shapes stay static (their
classes are in ``operations/random_ops.py``).

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
from msc.errors import GraphTypeError, GraphValueError, UnsupportedSyntaxError
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


def _box_muller(u: Any, v: Any) -> Any:
    """float64 N(0, 1) numbers from two uniform tensors."""
    return F.sqrt(2.0 * _exponential(u)) * apply(Op.Cos, (2.0 * np.pi) * v)


def _normal(shape: tuple[int, ...], seed: int | None) -> Any:
    return F.cast(_box_muller(*_draws(2, shape, seed)), dtypes.float32)


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


# --- truncated normal, gamma and Poisson numbers ------------------------------------------

#: Phi(-2) and Phi(2) - Phi(-2): the normal CDF's range a TruncatedNormal draw maps from.
_PHI_LOW, _PHI_SPAN = 0.022750131948179195, 0.9544997361036416
#: tries drawn for each rejection sampler: all fail with probability below 1e-10
_GAMMA_TRIES, _POISSON_TRIES = 8, 10
#: Poisson means below this take the inverse CDF over its first _POISSON_TERMS terms
_POISSON_SMALL, _POISSON_TERMS = 10.0, 48


def _shape_tensor(shape: Any, op: str) -> tuple[int, ...]:
    """A shape given as a constant 1-D int32 or int64 Tensor (the deprecated classes')."""
    if isinstance(shape, SymTensor):
        raise UnsupportedSyntaxError(f"For '{op}', the 'shape' must be a constant: random "
                                     f"shapes are static in msc", user_loc())
    if not isinstance(shape, Tensor):
        raise GraphTypeError(f"For '{op}', the 'shape' must be a Tensor, but got "
                             f"{type(shape).__name__}.")
    if shape.dtype not in (dtypes.int32, dtypes.int64) or shape.ndim != 1:
        raise GraphTypeError(f"For '{op}', the 'shape' must be a 1-D int32 or int64 Tensor, "
                             f"but got {shape.dtype} of rank {shape.ndim}.")
    values = tuple(int(v) for v in shape.asnumpy())
    if any(v <= 0 for v in values):
        raise GraphValueError(f"For '{op}', the 'shape' must be positive, but got {values}.")
    return values


def truncated_normal(shape: tuple[int, ...], dtype: Any, seed: int | None) -> Any:
    """N(0, 1) numbers cut to [-2, 2]: the inverse normal CDF of uniform numbers in
    [Phi(-2), Phi(2))."""
    (u,) = _draws(1, shape, seed)
    at = (u * _PHI_SPAN + _PHI_LOW) * 2.0 - 1.0
    return F.cast(apply(Op.Erfinv, at) * np.sqrt(2.0), dtype)


def _gamma(alpha: Any, shape: tuple[int, ...], seed: int | None) -> Any:
    """float64 Gamma(alpha, 1) numbers of ``shape`` (``alpha`` broadcast to it): Marsaglia
    and Tsang's method for alpha + 1 where alpha < 1, scaled by u^(1/alpha) then."""
    draws = _draws(3 * _GAMMA_TRIES + 1, shape, seed)
    alpha = F.broadcast_to(F.cast(alpha, dtypes.float64), shape)
    small = apply(Op.Less, alpha, 1.0)
    d = apply(Op.Select, small, alpha + 1.0, alpha) - 1.0 / 3.0
    c = 1.0 / F.sqrt(9.0 * d)
    value = d  # taken only where every try fails
    for k in reversed(range(_GAMMA_TRIES)):
        z = _box_muller(draws[3 * k], draws[3 * k + 1])
        t = 1.0 + c * z
        cube = t * t * t
        safe = apply(Op.Select, apply(Op.Greater, t, 0.0), cube, 1.0)
        bound = 0.5 * z * z + d - d * safe + d * apply(Op.Log, safe)
        accept = apply(Op.LogicalAnd, apply(Op.Greater, t, 0.0),
                       apply(Op.Less, apply(Op.Log, 1.0 - draws[3 * k + 2]), bound))
        value = apply(Op.Select, accept, d * cube, value)
    boost = F.pow(1.0 - draws[-1], 1.0 / alpha)
    return apply(Op.Select, small, value * boost, value)


def _poisson(rate: Any, shape: tuple[int, ...], seed: int | None) -> Any:
    """float64 Poisson numbers of mean ``rate`` (broadcast to ``shape``): below a mean of
    10 the count of CDF terms under a uniform number, above it PTRS (W. Hormann, "The
    transformed rejection method for generating Poisson random variables", 1993)."""
    draws = _draws(2 * _POISSON_TRIES + 1, shape, seed)
    lam = F.broadcast_to(F.cast(rate, dtypes.float64), shape)
    small = apply(Op.Less, lam, _POISSON_SMALL)
    # inverse CDF: N = the number of k whose P(X <= k) stays below u
    mean = apply(Op.Select, small, lam, 1.0)
    term = F.exp(-mean)
    cdf, count = term, apply(Op.Cast, apply(Op.Less, term, draws[-1]), dtype=dtypes.float64)
    for k in range(1, _POISSON_TERMS):
        term = term * mean / float(k)
        cdf = cdf + term
        count = count + apply(Op.Cast, apply(Op.Less, cdf, draws[-1]), dtype=dtypes.float64)
    # PTRS, its constants at the mean (small means take a harmless stand-in)
    lam_big = apply(Op.Select, small, _POISSON_SMALL, lam)
    b = 0.931 + 2.53 * F.sqrt(lam_big)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2.0)
    value = F.floor(lam_big)
    for k in reversed(range(_POISSON_TRIES)):
        u, v = draws[2 * k] - 0.5, draws[2 * k + 1]
        us = 0.5 - F.abs(u)
        n = F.floor((2.0 * a / us + b) * u + lam_big + 0.43)
        quick = apply(Op.LogicalAnd, apply(Op.GreaterEqual, us, 0.07), apply(Op.LessEqual, v, v_r))
        lhs = apply(Op.Log, v * inv_alpha / (a / (us * us) + b))
        rhs = -lam_big + n * apply(Op.Log, lam_big) - apply(Op.Lgamma, F.abs(n) + 1.0)
        fair = apply(Op.LogicalAnd, apply(Op.GreaterEqual, n, 0.0),
                     apply(Op.LogicalNot, apply(Op.LogicalAnd, apply(Op.Less, us, 0.013),
                                                apply(Op.Greater, v, us))))
        accept = apply(Op.LogicalOr, quick, apply(Op.LogicalAnd, fair,
                                                    apply(Op.LessEqual, lhs, rhs)))
        value = apply(Op.Select, accept, n, value)
    return apply(Op.Select, small, count, value)


def _float32_tensor(value: Any, name: str, op: str) -> Any:
    if not isinstance(value, Tensor) or value.dtype != dtypes.float32:
        raise GraphTypeError(f"For '{op}', the '{name}' must be a float32 Tensor, but got "
                             f"{getattr(value, 'dtype', type(value).__name__)}.")
    return value


def _broadcast_shape(shape: Any, op: str, *params: Any) -> tuple[int, ...]:
    """``shape`` (a tuple of positive ints) broadcast with the parameters' shapes."""
    if not isinstance(shape, tuple) or any(isinstance(d, bool) or not isinstance(d, int)
                                           or d <= 0 for d in shape):
        raise GraphValueError(f"For '{op}', the 'shape' must be a tuple of positive ints, "
                              f"but got {shape!r}.")
    try:
        return tuple(np.broadcast_shapes(shape, *(p.shape for p in params)))
    except ValueError:
        raise GraphValueError(f"For '{op}', the 'shape' {shape} and the parameters' shapes "
                              f"{[p.shape for p in params]} cannot broadcast.") from None


def gamma(shape: Any, alpha: Any, beta: Any, seed: int | None = None) -> Any:
    """float32 Gamma numbers of shape parameter ``alpha`` and scale ``beta`` (mean alpha
    beta), in ``shape`` broadcast with theirs."""
    _float32_tensor(alpha, "alpha", "Gamma")
    _float32_tensor(beta, "beta", "Gamma")
    out = _broadcast_shape(shape, "Gamma", alpha, beta)
    return F.cast(_gamma(alpha, out, seed) * F.cast(beta, dtypes.float64), dtypes.float32)


def random_gamma(shape: Any, alpha: Any, seed: int | None = None) -> Any:
    """Gamma(alpha, 1) numbers of shape ``shape + alpha.shape`` in ``alpha``'s dtype."""
    sizes = _shape_tensor(shape, "RandomGamma")
    a = _as_tensor(alpha, "RandomGamma")
    if a.dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
        raise GraphTypeError(f"For 'RandomGamma', the 'alpha' must be a float Tensor, but got "
                             f"{a.dtype}.")
    return F.cast(_gamma(a, sizes + a.shape, seed), a.dtype)


def poisson(shape: Any, mean: Any, seed: int | None = None) -> Any:
    """int32 Poisson numbers of mean ``mean``, in ``shape`` broadcast with its shape."""
    _float32_tensor(mean, "mean", "Poisson")
    out = _broadcast_shape(shape, "Poisson", mean)
    return F.cast(_poisson(mean, out, seed), dtypes.int32)


_POISSON_DTYPES = (dtypes.int64, dtypes.int32, dtypes.float16, dtypes.float32, dtypes.float64)


def random_poisson(shape: Any, rate: Any, seed: int | None = None,
                   dtype: Any = dtypes.float32) -> Any:
    """Poisson numbers of mean ``rate`` of shape ``shape + rate.shape``, as ``dtype``."""
    if dtype not in _POISSON_DTYPES:
        raise GraphTypeError(f"For 'RandomPoisson', the 'dtype' must be one of "
                             f"{[str(d) for d in _POISSON_DTYPES]}, but got {dtype}.")
    sizes = _shape_tensor(shape, "RandomPoisson")
    r = _as_tensor(rate, "RandomPoisson")
    if r.dtype not in _POISSON_DTYPES:
        raise GraphTypeError(f"For 'RandomPoisson', the 'rate' must be an int32, int64 or "
                             f"float Tensor, but got {r.dtype}.")
    return F.cast(_poisson(r, sizes + r.shape, seed), dtype)


__all__ = ["rand", "uniform", "standard_normal", "standard_laplace", "randn", "randint",
           "rand_like", "randn_like", "randint_like", "bernoulli", "gamma", "random_gamma",
           "poisson", "random_poisson"]
