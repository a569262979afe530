"""MindSpore primitive classes (``ops.SquaredDifference()(x, y)``) and small ``nn`` cells
(``nn.Norm``, ``nn.Moments``) over msc's functional forms: attributes go to ``__init__``,
inputs to the call, and each call runs the composition eagerly or in a graph."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.frontend.api import coverage_forms as C
from msc.frontend.api import functional as F
from msc.frontend.api import functional_array as A
from msc.frontend.api.cell import Cell
from msc.frontend.api.prim_classes import Primitive
from msc.common.tensor import Tensor, apply
from msc.ir import dtypes
from msc.ir.primitives import Op

# --- primitive classes without attributes ---------------------------------------------


class SquaredDifference(Primitive):
    def __call__(self, x: Any, y: Any) -> Any:
        return F.square(apply(Op.Sub, x, y))


class DivNoNan(Primitive):
    """``x / y``, 0 where ``y`` is 0."""

    def __call__(self, x: Any, y: Any) -> Any:
        zero = apply(Op.Equal, y, 0)
        quotient = apply(Op.Div, x, F.select(zero, F.ones_like(y), y)) if isinstance(
            y, Tensor) else apply(Op.Div, x, y)
        return F.select(zero, F.zeros_like(quotient), quotient)


class MulNoNan(Primitive):
    """``x * y``, 0 where ``y`` is 0 even if ``x`` is inf or NaN."""

    def __call__(self, x: Any, y: Any) -> Any:
        product = apply(Op.Mul, x, y)
        return F.select(apply(Op.Equal, y, 0), F.zeros_like(product), product)


class Inv(Primitive):
    def __call__(self, x: Any) -> Any:
        return C.inv(x)


class Invert(Primitive):
    def __call__(self, x: Any) -> Any:
        return C.invert(x)


class Rint(Primitive):
    """Rounds half to even."""

    def __call__(self, x: Any) -> Any:
        return apply(Op.Round, x)


class TruncateDiv(Primitive):
    def __call__(self, x: Any, y: Any) -> Any:
        return F.div(x, y, rounding_mode="trunc")


class TruncateMod(Primitive):
    def __call__(self, x: Any, y: Any) -> Any:
        return F.fmod(x, y)


class Identity(Primitive):
    def __call__(self, x: Any) -> Any:
        return A.identity(x)


class Trace(Primitive):
    def __call__(self, x: Any) -> Any:
        return A.trace(x)


class Ger(Primitive):
    def __call__(self, x1: Any, x2: Any) -> Any:
        return C.ger(x1, x2)


class L2Loss(Primitive):
    """Half the sum of squares."""

    def __call__(self, x: Any) -> Any:
        return F.sum(F.square(x)) / 2


class SquareSumAll(Primitive):
    def __call__(self, x: Any, y: Any) -> tuple[Any, Any]:
        return F.sum(F.square(x)), F.sum(F.square(y))


class EqualCount(Primitive):
    """How many elements are equal, as a (1,) tensor of the inputs' dtype."""

    def __call__(self, x: Any, y: Any) -> Any:
        same = F.cast(apply(Op.Equal, x, y), x.dtype)
        return F.reshape(F.cast(F.sum(same), x.dtype), (1,))


class Eps(Primitive):
    """A tensor like ``x`` filled with its dtype's machine epsilon."""

    def __call__(self, x: Any) -> Any:
        return F.fill(x.dtype, x.shape, float(np.finfo(x.dtype.np).eps))


class Fills(Primitive):
    def __call__(self, x: Any, value: Any) -> Any:
        return F.fill(x.dtype, x.shape, value)


class Expand(Primitive):
    def __call__(self, x: Any, shape: Any) -> Any:
        return F.broadcast_to(x, shape)


class TensorShape(Primitive):
    """The shape as an int64 tensor (a constant: shapes are static in msc)."""

    def __call__(self, input_x: Any) -> Any:
        return Tensor(np.array(input_x.shape, np.int64))


class GatherV2(Primitive):
    def __call__(self, input_params: Any, input_indices: Any, axis: int) -> Any:
        return F.gather(input_params, input_indices, axis)


class FastGeLU(Primitive):
    def __call__(self, x: Any) -> Any:
        return C.fast_gelu(x)


FastGelu = type("FastGelu", (FastGeLU,), {"__doc__": "``FastGeLU`` under its other name."})


class Real(Primitive):
    def __call__(self, input: Any) -> Any:
        return C.real(input)


class Conj(Real):
    pass


# --- primitive classes with attributes --------------------------------------------------


class ApproximateEqual(Primitive):
    def __init__(self, tolerance: float = 1e-5):
        super().__init__(tolerance=tolerance)
        self.tolerance = tolerance

    def __call__(self, x: Any, y: Any) -> Any:
        return C.approximate_equal(x, y, self.tolerance)


class IsClose(Primitive):
    def __init__(self, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False):
        super().__init__(rtol=rtol, atol=atol, equal_nan=equal_nan)

    def __call__(self, input: Any, other: Any) -> Any:
        return A.isclose(input, other, **self.attrs)


class Logit(Primitive):
    """``eps < 0`` (the default) clamps nothing."""

    def __init__(self, eps: float = -1.0):
        super().__init__(eps=eps)
        self.eps = eps

    def __call__(self, input: Any) -> Any:
        return C.logit(input, None if self.eps < 0 else self.eps)


class Cross(Primitive):
    def __init__(self, dim: int = -65530):
        super().__init__(dim=dim)
        self.dim = dim

    def __call__(self, input: Any, other: Any) -> Any:
        return C.cross(input, other, None if self.dim == -65530 else self.dim)


class Pack(Primitive):
    def __init__(self, axis: int = 0):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, x: Any) -> Any:
        return F.stack(x, self.axis)


class Unpack(Pack):
    def __call__(self, x: Any) -> Any:
        return A.unstack(x, self.axis)


class SplitV(Primitive):
    """Pieces of the given sizes along ``split_dim`` (one size may be -1: the rest)."""

    def __init__(self, size_splits: Any, split_dim: int, num_split: int):
        super().__init__(size_splits=size_splits, split_dim=split_dim, num_split=num_split)
        self.size_splits, self.split_dim = list(size_splits), split_dim

    def __call__(self, input_x: Any) -> tuple[Any, ...]:
        sizes = list(self.size_splits)
        if -1 in sizes:
            sizes[sizes.index(-1)] = input_x.shape[self.split_dim] - (sum(sizes) + 1)
        return F.split(input_x, sizes, self.split_dim)


class ReduceStd(Primitive):
    """(standard deviation, mean) over ``axis``."""

    def __init__(self, axis: Any = (), unbiased: bool = True, keep_dims: bool = False):
        super().__init__(axis=axis, unbiased=unbiased, keep_dims=keep_dims)
        self.axis, self.unbiased, self.keep_dims = axis, unbiased, keep_dims

    def __call__(self, x: Any) -> tuple[Any, Any]:
        axis = None if self.axis in ((), []) else self.axis
        return A.std_mean(x, axis, int(self.unbiased), self.keep_dims)


# --- nn cells -----------------------------------------------------------------------------


class Tril(Cell):
    def construct(self, x: Any, k: int = 0) -> Any:
        return A.tril(x, k)


class Triu(Cell):
    def construct(self, x: Any, k: int = 0) -> Any:
        return A.triu(x, k)


class MatMul(Cell):
    """``x1 @ x2`` with either operand's last two dims swapped first."""

    def __init__(self, transpose_x1: bool = False, transpose_x2: bool = False):
        super().__init__()
        self.transpose_x1, self.transpose_x2 = transpose_x1, transpose_x2

    def construct(self, x1: Any, x2: Any) -> Any:
        if self.transpose_x1:
            x1 = A.swapaxes(x1, -1, -2)
        if self.transpose_x2:
            x2 = A.swapaxes(x2, -1, -2)
        return F.matmul(x1, x2)


class Norm(Cell):
    """The 2-norm over ``axis`` (() for all)."""

    def __init__(self, axis: Any = (), keep_dims: bool = False):
        super().__init__()
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x: Any) -> Any:
        axis = None if self.axis in ((), []) else self.axis
        return F.sqrt(F.sum(F.square(x), axis, self.keep_dims))


class OneHot(Cell):
    def __init__(self, axis: int = -1, depth: int = 1, on_value: float = 1.0,
                 off_value: float = 0.0, dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        self.axis, self.depth, self.dtype = axis, depth, dtype
        self.on_value, self.off_value = on_value, off_value

    def construct(self, indices: Any) -> Any:
        on = Tensor(np.array(self.on_value, self.dtype.np))
        off = Tensor(np.array(self.off_value, self.dtype.np))
        return F.one_hot(indices, self.depth, on, off, self.axis)


class Moments(Cell):
    """(mean, population variance) over ``axis``."""

    def __init__(self, axis: Any = None, keep_dims: bool | None = None):
        super().__init__()
        self.axis, self.keep_dims = axis, bool(keep_dims)

    def construct(self, x: Any) -> tuple[Any, Any]:
        mean = F.mean(x, self.axis, True)
        variance = F.mean(F.square(x - mean), self.axis, self.keep_dims)
        return (mean if self.keep_dims else F.mean(x, self.axis, False)), variance


class ReduceLogSumExp(Cell):
    def __init__(self, axis: Any, keep_dims: bool = False):
        super().__init__()
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x: Any) -> Any:
        return F.logsumexp(x, self.axis, self.keep_dims)


class L1Regularizer(Cell):
    """``scale * sum(|weights|)``."""

    def __init__(self, scale: float):
        super().__init__()
        if not isinstance(scale, (int, float)) or isinstance(scale, bool) or scale <= 0:
            raise ValueError(f"For 'L1Regularizer', scale must be a positive number, but "
                             f"got {scale!r}")
        self.scale = float(scale)

    def construct(self, weights: Any) -> Any:
        return self.scale * F.sum(F.abs(weights))


class FastGeluCell(Cell):
    def construct(self, x: Any) -> Any:
        return C.fast_gelu(x)


class Roll(Cell):
    def __init__(self, shift: Any, axis: Any):
        super().__init__()
        self.shift, self.axis = shift, axis

    def construct(self, input_x: Any) -> Any:
        return A.roll(input_x, self.shift, self.axis)


OPS_CLASSES = ["SquaredDifference", "DivNoNan", "MulNoNan", "Inv", "Invert", "Rint",
               "TruncateDiv", "TruncateMod", "Identity", "Trace", "Ger", "L2Loss",
               "SquareSumAll", "EqualCount", "Eps", "Fills", "Expand", "TensorShape",
               "GatherV2", "FastGeLU", "FastGelu", "Real", "Conj", "ApproximateEqual",
               "IsClose", "Logit", "Cross", "Pack", "Unpack", "SplitV", "ReduceStd"]
NN_CELLS = {cls.__name__: cls for cls in (Tril, Triu, MatMul, Norm, OneHot, Moments,
                                           ReduceLogSumExp, L1Regularizer, Roll)}
NN_CELLS["FastGelu"] = FastGeluCell
__all__ = list(OPS_CLASSES)
