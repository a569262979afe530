"""Sampling ops composed of uniform draws (``random_func.uniform_draw``: the seeded
generator eagerly, a ``UniformReal`` node in a graph): ``ops.normal`` and ``ops.laplace``
(Box-Muller and the inverse CDF), ``ops.multinomial`` (the inverse CDF with replacement,
Gumbel top-k without), ``ops.random_categorical`` (Gumbel max), ``ops.randperm`` and
``ops.shuffle`` (the order of uniform keys). The numbers are not MindSpore's (its
generator differs); the distributions, shapes and dtypes are.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import SymTensor, Tensor, apply
from msc.errors import GraphValueError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor, _checking


def _uniform(shape: tuple[int, ...], seed: Any = None) -> Any:
    from msc.ops.function.random_func import uniform_draw

    return uniform_draw(tuple(shape), seed)


def _shape_of(shape: Any, *params: Any) -> tuple[int, ...]:
    dims = tuple(int(d) for d in shape)
    return tuple(np.broadcast_shapes(dims, *(p.shape for p in params if isinstance(p, Tensor))))


def normal(shape: Any, mean: Any, stddev: Any, seed: Any = None) -> Any:
    """N(mean, stddev ** 2) numbers of ``shape`` broadcast with the parameters (float32)."""
    out = _shape_of(shape, mean, stddev)
    radius = F.sqrt(-2.0 * apply(Op.Log, 1.0 - _uniform(out, seed)))
    z = radius * apply(Op.Cos, _uniform(out, seed) * (2 * np.pi))
    return F.cast(z * stddev + mean, dtypes.float32)


def laplace(shape: Any, mean: Any, lambda_param: Any, seed: Any = None) -> Any:
    """Laplace(mean, lambda_param) numbers of ``shape`` (float32), by the inverse CDF."""
    out = _shape_of(shape, mean, lambda_param)
    u = _uniform(out, seed) - 0.5
    z = -apply(Op.Sign, u) * apply(Op.Log, F.clamp(1.0 - 2.0 * apply(Op.Abs, u), 1e-30, None))
    return F.cast(z * lambda_param + mean, dtypes.float32)


def _gumbel(shape: tuple[int, ...], seed: Any = None) -> Any:
    u = _uniform(shape, seed) * (1.0 - 2e-7) + 1e-7
    return -apply(Op.Log, -apply(Op.Log, u))


def multinomial(input: Any, num_samples: int, replacement: bool = True,  # noqa: A002
                seed: Any = None) -> Any:
    """``num_samples`` class indices per row of the (unnormalised) probabilities
    ``input`` (1-D or 2-D), int32; without ``replacement`` each class at most once."""
    p = _as_tensor(input, "multinomial")
    rows = p if p.ndim == 2 else F.reshape(p, (1, -1))
    n, c = rows.shape
    probs = F.cast(rows, dtypes.float32)
    if replacement:
        cdf = F.cumsum(probs, 1) / F.sum(probs, 1, True)
        u = _uniform((n, num_samples), seed)
        below = F.cast(F.reshape(cdf[:, :-1], (n, 1, c - 1)) <= F.reshape(u, (n, -1, 1)),
                       dtypes.int32)
        out = F.sum(below, 2)
    else:
        if num_samples > c:
            with _checking("multinomial"):
                raise GraphValueError(f"without replacement, 'num_samples' ({num_samples}) "
                                      f"must not exceed the number of classes ({c})")
        keys = apply(Op.Log, probs) + _gumbel((n, c), seed)
        out = F.cast(A.topk(keys, num_samples)[1], dtypes.int32)
    out = F.cast(out, dtypes.int32)
    return out if p.ndim == 2 else F.reshape(out, (num_samples,))


def random_categorical(logits: Any, num_sample: int, seed: int = 0,
                       dtype: Any = dtypes.int64) -> Any:
    """``num_sample`` draws per row of softmax(``logits``), by the Gumbel-max trick."""
    x = F.cast(_as_tensor(logits, "RandomCategorical"), dtypes.float32)
    n, c = x.shape
    keys = F.reshape(x, (n, 1, c)) + _gumbel((n, num_sample, c), seed or None)
    return F.cast(F.argmax(keys, 2), dtype)


def _count(n: Any, op: str) -> int:
    with _checking(op):
        if isinstance(n, SymTensor):
            raise GraphValueError("'n' must be known when the graph is built")
        value = int(n.asnumpy().reshape(-1)[0]) if isinstance(n, Tensor) else int(n)
        if value < 0:
            raise GraphValueError(f"'n' must be non-negative, but got {value}")
    return value


def randperm(n: Any, seed: int = 0, offset: int = 0, dtype: Any = dtypes.int64) -> Any:
    """A random permutation of 0 .. n - 1."""
    count = _count(n, "Randperm")
    return F.cast(A.argsort(_uniform((count,), seed or None)), dtype)


def shuffle(x: Any, seed: Any = None) -> Any:
    """``x`` with its first axis in a random order."""
    t = _as_tensor(x, "Shuffle")
    order = A.argsort(_uniform((t.shape[0],), seed))
    return F.gather(t, order, 0)


METHODS = {
    "multinomial": lambda self, num_samples, replacement=True, seed=None:
        multinomial(self, num_samples, replacement, seed),
    "random_categorical": lambda self, num_sample, seed=0, dtype=dtypes.int64:
        random_categorical(self, num_sample, seed, dtype),
}

__all__ = ["normal", "laplace", "multinomial", "random_categorical", "randperm", "shuffle"]
