"""MindSpore's math primitive classes: ``ops.Add()(x, y)``,
``ops.ReduceSum(keep_dims=True)(x, axis)``, ``ops.MatMul()``, ``ops.Einsum(equation)``, ...

Attributes go to ``__init__`` and inputs to ``__call__``, as in MindSpore; a call goes
through the functional layer, so it runs eagerly or emits graph nodes like any op. The
attribute-free classes of the primitive table (``Add``, ``Exp``, ``Select``, ...) are
generated at the end of this module from each op's ``public.classes``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Tensor, apply
from msc.errors import GraphTypeError, InternalCompilerError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ir.primitives import Primitive as Prim  # the record; ``Primitive`` is the class
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor
from msc.ops.function.creation_func import logspace
from msc.ops.function.linalg_func import (
    _check_p,
    _float_tensor,
    cdist,
    cross,
    einsum,
    ger,
    matrix_band_part,
    matrix_power,
    median,
    pdist,
    renorm,
    vector_norm,
)
from msc.ops.function.manipulation_func import _axis, _fail
from msc.ops.function.math_func import (
    addcdiv,
    addcmul,
    approximate_equal,
    fmax,
    fmin,
    heaviside,
    inv,
    invert,
    lerp,
    logcumsumexp,
    logical_xor,
    logit,
    nan_to_num,
    real,
    sinc,
    xdivy,
    xlogy,
)
from msc.ops.function.nn_func import hardsigmoid, mish, prelu, relu6, selu, softsign
from msc.ops.function.search_func import _count_below, bucketize, searchsorted
from msc.ops.primitive import Primitive


# --- reductions ---------------------------------------------------------------------------


class _Reduce(Primitive):
    prim: Prim

    def __init__(self, keep_dims: bool = False):
        super().__init__(keep_dims=keep_dims)
        self.keep_dims = keep_dims

    def __call__(self, x: Any, axis: Any = ()) -> Any:
        return apply(self.prim, x, axis=F._reduce_axes(x, axis, self.prim),
                     keep_dims=self.keep_dims)


class ReduceSum(_Reduce):
    """``skip_mode=True``: an empty ``axis`` returns the input unreduced."""

    prim = Op.ReduceSum

    def __init__(self, keep_dims: bool = False, skip_mode: bool = False):
        Primitive.__init__(self, keep_dims=keep_dims, skip_mode=skip_mode)
        self.keep_dims, self.skip_mode = keep_dims, skip_mode

    def __call__(self, x: Any, axis: Any = ()) -> Any:
        if self.skip_mode and axis in ((), []):
            return x
        return super().__call__(x, axis)


class ReduceMean(_Reduce):
    prim = Op.ReduceMean


class ReduceMax(_Reduce):
    prim = Op.ReduceMax


class ReduceMin(_Reduce):
    prim = Op.ReduceMin


class ReduceProd(_Reduce):
    prim = Op.ReduceProd


class ReduceAll(Primitive):
    def __init__(self, keep_dims: bool = False):
        super().__init__(keep_dims=keep_dims)
        self.keep_dims = keep_dims

    def __call__(self, x: Any, axis: Any = ()) -> Any:
        return F.all(x, axis, self.keep_dims)


class ReduceAny(ReduceAll):
    def __call__(self, x: Any, axis: Any = ()) -> Any:
        return F.any(x, axis, self.keep_dims)


class AddN(Primitive):
    def __call__(self, inputs: Any) -> Any:
        return F.addn(inputs)


class TensorAdd(Primitive):
    """MindSpore's old name of ``Add``."""

    def __call__(self, x: Any, y: Any) -> Any:
        return apply(Op.Add, x, y)


class CumSum(Primitive):
    def __init__(self, exclusive: bool = False, reverse: bool = False):
        super().__init__(exclusive=exclusive, reverse=reverse)
        self.exclusive, self.reverse = exclusive, reverse

    def __call__(self, x: Any, axis: int) -> Any:
        return apply(Op.CumSum, x, axis=axis, exclusive=self.exclusive, reverse=self.reverse)


class Argmax(Primitive):
    """Index of the maximum along ``axis``; ``output_type`` is int32 by default."""

    prim = Op.Argmax

    def __init__(self, axis: int = -1, output_type: dtypes.DType = dtypes.int32):
        super().__init__(axis=axis, output_type=output_type)
        self.axis, self.output_type = axis, output_type

    def __call__(self, input_x: Any) -> Any:
        out = apply(self.prim, input_x, axis=self.axis, keep_dims=False)
        return out if self.output_type == dtypes.int64 else F.cast(out, self.output_type)


class Argmin(Argmax):
    prim = Op.Argmin


class ArgMaxWithValue(Primitive):
    """(index, value) of the maximum along ``axis``."""

    def __init__(self, axis: int = 0, keep_dims: bool = False):
        super().__init__(axis=axis, keep_dims=keep_dims)
        self.axis, self.keep_dims = axis, keep_dims

    def __call__(self, x: Any) -> tuple[Any, Any]:
        values, index = F.max(x, self.axis, self.keep_dims)
        return index, values


class ArgMinWithValue(ArgMaxWithValue):
    def __call__(self, x: Any) -> tuple[Any, Any]:
        values, index = F.min(x, self.axis, self.keep_dims)
        return index, values


# --- contractions -------------------------------------------------------------------------


class MatMul(Primitive):
    prim = Op.MatMul

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False):
        super().__init__(transpose_a=transpose_a, transpose_b=transpose_b)
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def __call__(self, x: Any, y: Any) -> Any:
        return apply(self.prim, x, y, transpose_a=self.transpose_a,
                     transpose_b=self.transpose_b)


class BatchMatMul(MatMul):
    prim = Op.BatchMatMul


class Einsum(Primitive):
    """``ops.Einsum(equation)(inputs)``: ``einsum`` over a tuple of tensors."""

    def __init__(self, equation: str):
        super().__init__(equation=equation)
        self.equation = equation

    def __call__(self, x: Any) -> Any:
        return einsum(self.equation, *x)


class Median(Primitive):
    """``ops.Median(global_median, axis, keep_dims)(x)``: (median, index) along ``axis``,
    or of all elements when ``global_median``."""

    def __init__(self, global_median: bool = False, axis: int = 0, keep_dims: bool = False,
                 ignore_nan: bool = False):
        super().__init__(global_median=global_median, axis=axis, keep_dims=keep_dims,
                         ignore_nan=ignore_nan)
        self.global_median, self.axis, self.keep_dims = global_median, axis, keep_dims

    def __call__(self, x: Any) -> tuple[Any, Any]:
        if self.global_median:
            return median(F.reshape(x, (-1,)), 0, False)
        return median(x, self.axis, self.keep_dims)


class MatrixPower(Primitive):
    def __init__(self, n: int):
        super().__init__(n=n)
        self.n = n

    def __call__(self, x: Any) -> Any:
        return matrix_power(x, self.n)


# --- distances, norms, running sums and search -------------------------------------------


class Cdist(Primitive):
    def __init__(self, p: float = 2.0):
        super().__init__(p=_check_p(p, "Cdist"))

    def __call__(self, x1: Any, x2: Any) -> Any:
        return cdist(x1, x2, self.attrs["p"])


class Pdist(Primitive):
    def __init__(self, p: float = 2.0):
        super().__init__(p=_check_p(p, "Pdist"))

    def __call__(self, x: Any) -> Any:
        return pdist(x, self.attrs["p"])


class MatrixBandPart(Primitive):
    def __call__(self, x: Any, lower: Any, upper: Any) -> Any:
        return matrix_band_part(x, lower, upper)


class EuclideanNorm(Primitive):
    """sqrt(sum(x^2)) over ``axes``."""

    def __init__(self, keep_dims: bool = False):
        super().__init__(keep_dims=bool(keep_dims))

    def __call__(self, x: Any, axes: Any) -> Any:
        axes = tuple(axes.asnumpy().tolist()) if isinstance(axes, Tensor) else axes
        x = _float_tensor(x, "EuclideanNorm")
        return F.sqrt(F.sum(F.square(x), axes, self.attrs["keep_dims"]))


class Renorm(Primitive):
    def __init__(self, p: int, dim: int, maxnorm: float):
        super().__init__(p=p, dim=dim, maxnorm=maxnorm)

    def __call__(self, input_x: Any) -> Any:
        return renorm(input_x, self.attrs["p"], self.attrs["dim"], self.attrs["maxnorm"])


class LpNorm(Primitive):
    def __init__(self, axis: Any, p: int = 2, keep_dims: bool = False, epsilon: float = 1e-12):
        axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
        super().__init__(axis=axis, p=p, keep_dims=keep_dims, epsilon=epsilon)

    def __call__(self, input: Any) -> Any:  # noqa: A002
        return vector_norm(input, self.attrs["p"], self.attrs["axis"], self.attrs["keep_dims"])


class CumulativeLogsumexp(Primitive):
    """log(cumsum(exp(x))) along a Tensor ``axis``; ``exclusive`` leaves each element out
    of its own sum, ``reverse`` runs from the end."""

    def __init__(self, exclusive: bool = False, reverse: bool = False):
        super().__init__(exclusive=bool(exclusive), reverse=bool(reverse))

    def __call__(self, x: Any, axis: Any) -> Any:
        if not isinstance(axis, Tensor):
            _fail("CumulativeLogsumexp", f"the type of input argument[axis] must be Tensor but "
                                         f"got {type(axis).__name__}.", GraphTypeError)
        x = _as_tensor(x, "CumulativeLogsumexp")
        ax = _axis(x, axis, "CumulativeLogsumexp")
        flip = (lambda t: A.flip(t, (ax,))) if self.attrs["reverse"] else (lambda t: t)
        out = logcumsumexp(flip(x), ax)
        if self.attrs["exclusive"]:
            start = F.fill(x.dtype, tuple(1 if d == ax else n for d, n in enumerate(x.shape)),
                           -np.inf)
            out = F.concat((start, A._narrow(out, ax, 0, x.shape[ax] - 1)), ax)
        return flip(out)


class LogSpace(Primitive):
    def __init__(self, steps: int = 10, base: int = 10, dtype: Any = dtypes.float32):
        super().__init__(steps=steps, base=base, dtype=dtype)

    def __call__(self, start: Any, end: Any) -> Any:
        return logspace(start, end, self.attrs["steps"], self.attrs["base"],
                        dtype=self.attrs["dtype"])


class Bucketize(Primitive):
    """Bucket ``i`` holds boundaries[i - 1] <= x < boundaries[i]."""

    def __init__(self, boundaries: Any):
        super().__init__(boundaries=boundaries)

    def __call__(self, input: Any) -> Any:  # noqa: A002
        return bucketize(input, self.attrs["boundaries"], right=True)


class SearchSorted(Primitive):
    def __init__(self, dtype: Any = dtypes.int64, right: bool = False):
        super().__init__(dtype=dtype, right=right)

    def __call__(self, sorted_sequence: Any, values: Any, sorter: Any = None) -> Any:
        found = searchsorted(sorted_sequence, values, right=self.attrs["right"], sorter=sorter)
        return F.cast(found, self.attrs["dtype"])


class LowerBound(Primitive):
    """For each value, the first position of its sorted row not below it."""

    def __init__(self, out_type: Any = dtypes.int32):
        super().__init__(out_type=out_type)

    def __call__(self, sorted_x: Any, values: Any) -> Any:
        return _count_below(sorted_x, values, False, self.attrs["out_type"], "LowerBound")


class UpperBound(LowerBound):
    """For each value, the first position of its sorted row above it."""

    def __call__(self, sorted_x: Any, values: Any) -> Any:
        return _count_below(sorted_x, values, True, self.attrs["out_type"], "UpperBound")


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
        return inv(x)


class Invert(Primitive):
    def __call__(self, x: Any) -> Any:
        return invert(x)


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


class Trace(Primitive):
    def __call__(self, x: Any) -> Any:
        return A.trace(x)


class Ger(Primitive):
    def __call__(self, x1: Any, x2: Any) -> Any:
        return ger(x1, x2)


class SquareSumAll(Primitive):
    def __call__(self, x: Any, y: Any) -> tuple[Any, Any]:
        return F.sum(F.square(x)), F.sum(F.square(y))


class EqualCount(Primitive):
    """How many elements are equal, as a (1,) tensor of the inputs' dtype."""

    def __call__(self, x: Any, y: Any) -> Any:
        same = F.cast(apply(Op.Equal, x, y), x.dtype)
        return F.reshape(F.cast(F.sum(same), x.dtype), (1,))


class Real(Primitive):
    def __call__(self, input: Any) -> Any:
        return real(input)


class Conj(Real):
    pass


# --- primitive classes with attributes --------------------------------------------------


class ApproximateEqual(Primitive):
    def __init__(self, tolerance: float = 1e-5):
        super().__init__(tolerance=tolerance)
        self.tolerance = tolerance

    def __call__(self, x: Any, y: Any) -> Any:
        return approximate_equal(x, y, self.tolerance)


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
        return logit(input, None if self.eps < 0 else self.eps)


class Cross(Primitive):
    def __init__(self, dim: int = -65530):
        super().__init__(dim=dim)
        self.dim = dim

    def __call__(self, input: Any, other: Any) -> Any:
        return cross(input, other, None if self.dim == -65530 else self.dim)


class ReduceStd(Primitive):
    """(standard deviation, mean) over ``axis``."""

    def __init__(self, axis: Any = (), unbiased: bool = True, keep_dims: bool = False):
        super().__init__(axis=axis, unbiased=unbiased, keep_dims=keep_dims)
        self.axis, self.unbiased, self.keep_dims = axis, unbiased, keep_dims

    def __call__(self, x: Any) -> tuple[Any, Any]:
        axis = None if self.axis in ((), []) else self.axis
        return A.std_mean(x, axis, int(self.unbiased), self.keep_dims)


class NanToNum(Primitive):
    def __init__(self, nan: float | None = None, posinf: float | None = None,
                 neginf: float | None = None):
        super().__init__(nan=nan, posinf=posinf, neginf=neginf)
        self.nan, self.posinf, self.neginf = nan, posinf, neginf

    def __call__(self, x: Any) -> Any:
        return nan_to_num(x, self.nan, self.posinf, self.neginf)


# --- classes over one function (``ops.Xlogy()(x, y)``) -----------------------------------


def _plain(name: str, fn: Any) -> type[Primitive]:
    """``ops.<name>()(*inputs)``: ``fn`` on the inputs, no attributes."""
    def __call__(self: Primitive, *inputs: Any) -> Any:
        return fn(*inputs)
    return type(name, (Primitive,), {"__call__": __call__, "__module__": __name__,
                                     "__doc__": f"``ops.{name}()``: ``ops.{fn.__name__}``."})


_PLAIN = {"Xlogy": xlogy, "Xdivy": xdivy, "Lerp": lerp, "Addcmul": addcmul,
          "Addcdiv": addcdiv, "Sinc": sinc, "Heaviside": heaviside, "Fmax": fmax,
          "Fmin": fmin, "LogicalXor": logical_xor, "Softsign": softsign, "SeLU": selu,
          "HSigmoid": hardsigmoid, "Mish": mish, "PReLU": prelu, "ReLU6": relu6}
globals().update((name, _plain(name, fn)) for name, fn in _PLAIN.items())


class RealDiv(Primitive):
    """``x / y``; two integer tensors divide as integers, truncated towards zero, in their
    promoted dtype (MindSpore 2.10 on CPU: int32 / int32 is int32)."""

    def __call__(self, *inputs: Any) -> Any:
        if len(inputs) != 2:
            raise GraphTypeError(f"For 'RealDiv', expected 2 inputs, but got {len(inputs)}")
        x, y = inputs
        out = apply(Op.Div, x, y)
        if isinstance(x, Tensor) and isinstance(y, Tensor) and x.dtype.is_int and \
                y.dtype.is_int:
            out = F.cast(apply(Op.Trunc, out), dtypes.promote(x.dtype, y.dtype))
        return out


# --- generated: each op's ``public.classes`` (``Add``, ``RealDiv``, ``Select``, ...) ------


def _simple_class(cls_name: str, prim: Prim) -> type[Primitive]:
    """``ops.<cls_name>()(*inputs)``: ``prim`` on its inputs, no attributes."""
    least, most = prim.arity
    arity = str(least) if least == most else f"{least} to {most}"

    def __call__(self: Primitive, *inputs: Any) -> Any:
        if len(inputs) < least or (most is not None and len(inputs) > most):
            raise GraphTypeError(f"For '{cls_name}', expected {arity} inputs, but got "
                                 f"{len(inputs)}")
        return apply(prim, *inputs)

    doc = f"``ops.{cls_name}()(*inputs)``: the {prim.name} primitive on {arity} input(s)."
    return type(cls_name, (Primitive,), {"prim": prim, "__call__": __call__, "__doc__": doc,
                                         "__module__": __name__})


def _generate() -> list[str]:
    names = []
    for prim in Op:
        for cls_name in prim.public.classes:
            if cls_name in globals():
                raise InternalCompilerError(f"ops.{cls_name} is both written and generated")
            globals()[cls_name] = _simple_class(cls_name, prim)
            names.append(cls_name)
    return names


__all__ = _generate() + [
    "RealDiv", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceAll", "ReduceAny",
    "AddN", "TensorAdd", "CumSum", "Argmax", "Argmin", "ArgMaxWithValue", "ArgMinWithValue",
    "MatMul", "BatchMatMul", "Einsum", "Median", "MatrixPower", "Cdist", "Pdist",
    "MatrixBandPart", "EuclideanNorm", "Renorm", "LpNorm", "CumulativeLogsumexp", "LogSpace",
    "Bucketize", "SearchSorted", "LowerBound", "UpperBound", "SquaredDifference", "DivNoNan",
    "MulNoNan", "Inv", "Invert", "Rint", "TruncateDiv", "TruncateMod", "Trace", "Ger",
    "SquareSumAll", "EqualCount", "Real", "Conj", "ApproximateEqual", "IsClose", "Logit",
    "Cross", "ReduceStd", "NanToNum",
    *_PLAIN,
]

