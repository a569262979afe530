"""MindSpore's ``*_ext`` functions and other second names of ops msc has
(``ops.einsum_ext`` is ``ops.einsum``, ``ops.accumulate_n`` is ``ops.addn``), plus the
small checks ``ops.is_nonzero``, ``ops.intopk`` and ``ops.inplace_index_add``."""

from __future__ import annotations

import copy
from typing import Any

from msc.common.tensor import SymTensor, apply
from msc.errors import GraphTypeError, GraphValueError
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.scatter_func import _store


def isnan_ext(tensor: Any) -> Any:
    return apply(Op.IsNan, tensor)


def float_power_ext(input: Any, exponent: Any) -> Any:  # noqa: A002
    from msc.ops.function.math_func import float_power

    return float_power(input, exponent)


def diff_ext(input: Any, n: int = 1, dim: int = -1, prepend: Any = None,  # noqa: A002
             append: Any = None) -> Any:
    from msc.ops.function.math_func import diff

    return diff(input, n, dim, prepend, append)


def einsum_ext(equation: str, *operands: Any) -> Any:
    from msc.ops.function.linalg_func import einsum

    return einsum(equation, *operands)


def baddbmm_ext(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1,  # noqa: A002
                alpha: Any = 1) -> Any:
    from msc.ops.function.linalg_func import baddbmm

    return baddbmm(input, batch1, batch2, beta, alpha)


def adaptive_avg_pool2d_ext(input: Any, output_size: Any) -> Any:  # noqa: A002
    from msc.ops.function.conv_func import adaptive_avg_pool2d

    return adaptive_avg_pool2d(input, output_size)


def bernoulli_ext(input: Any, *, generator: Any = None) -> Any:  # noqa: A002
    """1 with probability ``input`` (elementwise), else 0, in ``input``'s dtype."""
    return _as_tensor(input, "bernoulli_ext").bernoulli()


def accumulate_n(x: Any) -> Any:
    return F.addn(x)


def deepcopy(input_x: Any) -> Any:
    """A copy of ``input_x`` (a graph tensor is a value already: itself)."""
    return input_x if isinstance(input_x, SymTensor) else copy.deepcopy(input_x)


def is_nonzero(input: Any) -> bool:  # noqa: A002
    """Whether a one-element tensor is not zero (a Python bool: eager only)."""
    x = _as_tensor(input, "is_nonzero")
    with _checking("is_nonzero"):
        if isinstance(x, SymTensor):
            raise GraphTypeError("is_nonzero gives a Python bool, which a graph tensor does "
                                 "not have; compare it with 0 instead")
        if x.size != 1:
            raise GraphValueError(f"the input must have one element, but got {x.size}")
    return bool(x.asnumpy().reshape(-1)[0] != 0)


def intopk(x1: Any, x2: Any, k: int) -> Any:
    """Whether each row's target class ``x2[i]`` is among the ``k`` largest predictions
    ``x1[i]`` (fewer than ``k`` entries are larger than its own)."""
    scores, target = _as_tensor(x1, "InTopK"), _as_tensor(x2, "InTopK")
    own = A.gather_elements(scores, 1, F.reshape(target, (-1, 1)))
    above = F.sum(F.cast(scores > own, target.dtype), 1)
    return above < k


def inplace_index_add(var: Any, indices: Any, updates: Any, axis: int) -> Any:
    """``updates`` added to ``var`` at ``indices`` along ``axis``, in place when ``var`` is a
    Parameter; returns the new value."""
    return _store(var, A.index_add(var, indices, updates, axis))


# --- the in-place functions: the Tensor methods of ``ops/inplace_methods.py`` --------------


def clamp_(input: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A001, A002
    return input.clamp_(min, max)


def erfinv_(input: Any) -> Any:  # noqa: A002
    return input.erfinv_()


def tanh_(input: Any) -> Any:  # noqa: A002
    return input.tanh_()


def inplace_sigmoid(input: Any) -> Any:  # noqa: A002
    return input.sigmoid_()


def zero_(input: Any) -> Any:  # noqa: A002
    return input.zero_()


def uniform_(input: Any, from_: Any = 0, to: Any = 1, *,  # noqa: A002
             generator: Any = None) -> Any:
    return input.uniform_(from_, to)


def normal_(input: Any, mean: Any = 0, std: Any = 1, *, generator: Any = None) -> Any:  # noqa: A002
    return input.normal_(mean, std)


def random_(input: Any, from_: Any = 0, to: Any = None, *,  # noqa: A002
            generator: Any = None) -> Any:
    return input.random_(from_, to)


def exponential_(input: Any, lambd: Any = 1, *, generator: Any = None) -> Any:  # noqa: A002
    return input.exponential_(lambd)


def bernoulli_(input: Any, p: Any = 0.5, *, generator: Any = None) -> Any:  # noqa: A002
    return input.bernoulli_(p)


def put_(input: Any, index: Any, source: Any, accumulate: bool = False) -> Any:  # noqa: A002
    return input.put_(index, source, accumulate)


__all__ = ["clamp_", "erfinv_", "tanh_", "inplace_sigmoid", "zero_", "uniform_", "normal_",
           "random_", "exponential_", "bernoulli_", "put_", "isnan_ext", "float_power_ext",
           "diff_ext", "einsum_ext", "baddbmm_ext",
           "adaptive_avg_pool2d_ext", "bernoulli_ext", "accumulate_n", "deepcopy", "is_nonzero",
           "intopk", "inplace_index_add"]
