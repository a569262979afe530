"""MindSpore's primitive classes: ``ops.Add()(x, y)``, ``ops.ReduceSum(keep_dims=True)(x, axis)``.

Attributes go to ``__init__`` and inputs to ``__call__``, as in MindSpore; a call goes
through the functional layer, so it runs eagerly or emits graph nodes like any op. The
attribute-free classes (``Add``, ``Exp``, ``Select``, ...) are generated at the end of this
module from the primitive table's ``public.classes``.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError, InternalCompilerError
from msc.frontend.api import functional as F
from msc.common.tensor import apply
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ir.primitives import Primitive as Prim  # the record; ``Primitive`` is the class


class Primitive:
    """Base of the primitive classes; ``attrs`` holds the ``__init__`` arguments. A class's
    ``name`` is its own name (``Prim[ReduceSum]``)."""

    name = "Primitive"

    def __init_subclass__(cls, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        cls.name = cls.__name__

    def __init__(self, **attrs: Any):
        self.attrs: dict[str, Any] = dict(attrs)

    def add_prim_attr(self, name: str, value: Any) -> Primitive:
        self.attrs[name] = value
        return self

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in self.attrs.items())
        return f"Prim[{self.name}]" + (f"<{shown}>" if shown else "")


class GeLU(Primitive):
    """GELU with the tanh approximation (MindSpore's ``ops.GeLU``)."""

    def __call__(self, x: Any) -> Any:
        return apply(Op.GeLU, x, approximate="tanh")


class Cast(Primitive):
    def __call__(self, input_x: Any, type_: dtypes.DType) -> Any:
        return F.cast(input_x, type_)


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
    prim = Op.ReduceSum


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


class BiasAdd(Primitive):
    def __init__(self, data_format: str = "NCHW"):
        super().__init__(data_format=data_format)
        self.data_format = data_format

    def __call__(self, input_x: Any, bias: Any) -> Any:
        return F.bias_add(input_x, bias, self.data_format)


class TensorAdd(Primitive):
    """MindSpore's old name of ``Add``."""

    def __call__(self, x: Any, y: Any) -> Any:
        return apply(Op.Add, x, y)


class OneHot(Primitive):
    def __init__(self, axis: int = -1):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, indices: Any, depth: int, on_value: Any, off_value: Any) -> Any:
        return F.one_hot(indices, depth, on_value, off_value, self.axis)


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


class Dense(Primitive):
    """``x @ w.T + b`` (b optional)."""

    def __call__(self, x: Any, w: Any, b: Any = None) -> Any:
        return F.dense(x, w, b)


# --- shapes -------------------------------------------------------------------------------


class Reshape(Primitive):
    def __call__(self, input_x: Any, input_shape: Any) -> Any:
        return F.reshape(input_x, input_shape)


class Transpose(Primitive):
    def __call__(self, input_x: Any, input_perm: Any) -> Any:
        return F.transpose(input_x, input_perm)


class ExpandDims(Primitive):
    def __call__(self, input_x: Any, axis: int) -> Any:
        return F.expand_dims(input_x, axis)


class Squeeze(Primitive):
    def __init__(self, axis: Any = ()):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, input_x: Any) -> Any:
        return apply(Op.Squeeze, input_x, axis=F._axis_attr(self.axis))


class Flatten(Primitive):
    """(N, ...) -> (N, prod(...))."""

    def __call__(self, input_x: Any) -> Any:
        return apply(Op.Flatten, input_x)


class Concat(Primitive):
    def __init__(self, axis: int = 0):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, input_x: Any) -> Any:
        return F.concat(input_x, self.axis)


class Stack(Concat):
    def __call__(self, input_x: Any) -> Any:
        return F.stack(input_x, self.axis)


class Split(Primitive):
    """``output_num`` equal parts along ``axis``."""

    def __init__(self, axis: int = 0, output_num: int = 1):
        super().__init__(axis=axis, output_num=output_num)
        self.axis, self.output_num = axis, output_num

    def __call__(self, input_x: Any) -> tuple[Any, ...]:
        return apply(Op.Split, input_x, axis=self.axis, output_num=self.output_num)


class Gather(Primitive):
    def __init__(self, batch_dims: int = 0):
        super().__init__(batch_dims=batch_dims)
        self.batch_dims = batch_dims

    def __call__(self, input_params: Any, input_indices: Any, axis: int) -> Any:
        return F.gather(input_params, input_indices, axis, self.batch_dims)


class StridedSlice(Primitive):
    def __init__(self, begin_mask: int = 0, end_mask: int = 0, ellipsis_mask: int = 0,
                 new_axis_mask: int = 0, shrink_axis_mask: int = 0):
        super().__init__(begin_mask=begin_mask, end_mask=end_mask,
                         ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                         shrink_axis_mask=shrink_axis_mask)

    def __call__(self, input_x: Any, begin: Any, end: Any, strides: Any) -> Any:
        return F.strided_slice(input_x, begin, end, strides, **self.attrs)


class Slice(Primitive):
    def __call__(self, input_x: Any, begin: Any, size: Any) -> Any:
        return F.slice(input_x, begin, size)


class BroadcastTo(Primitive):
    def __init__(self, shape: Any):
        super().__init__(shape=shape)
        self.shape = shape

    def __call__(self, input_x: Any) -> Any:
        return F.broadcast_to(input_x, self.shape)


class Tile(Primitive):
    def __call__(self, input_x: Any, multiples: Any) -> Any:
        return F.tile(input_x, multiples)


# --- creation -----------------------------------------------------------------------------


class Zeros(Primitive):
    def __call__(self, size: Any, type: dtypes.DType | None = None) -> Any:  # noqa: A002
        return F.zeros(size, type)


class Ones(Primitive):
    def __call__(self, size: Any, type: dtypes.DType | None = None) -> Any:  # noqa: A002
        return F.ones(size, type)


class Fill(Primitive):
    def __call__(self, type: dtypes.DType, shape: Any, value: Any) -> Any:  # noqa: A002
        return F.fill(type, shape, value)


# --- nn -----------------------------------------------------------------------------------


class Softmax(Primitive):
    def __init__(self, axis: Any = -1):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, logits: Any) -> Any:
        return F.softmax(logits, self.axis)


class LogSoftmax(Softmax):
    def __call__(self, logits: Any) -> Any:
        return F.log_softmax(logits, self.axis)


class LayerNorm(Primitive):
    """Returns (y, mean, variance); mean and variance keep the normalised dims as 1s."""

    def __init__(self, begin_norm_axis: int = 1, begin_params_axis: int = 1,
                 epsilon: float = 1e-7):
        super().__init__(begin_norm_axis=begin_norm_axis,
                         begin_params_axis=begin_params_axis, epsilon=epsilon)
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = epsilon

    def __call__(self, input_x: Any, gamma: Any, beta: Any) -> tuple[Any, Any, Any]:
        y = apply(Op.LayerNorm, input_x, gamma, beta, begin_norm_axis=self.begin_norm_axis,
                  begin_params_axis=self.begin_params_axis, epsilon=float(self.epsilon))
        axes = tuple(range(self.begin_norm_axis % input_x.ndim, input_x.ndim))
        mean = F.mean(input_x, axes, True)
        variance = F.mean(F.square(input_x - mean), axes, True)
        return y, mean, variance


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
    "Primitive", "GeLU", "Cast", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
    "ReduceProd", "CumSum", "OneHot", "ReduceAll", "ReduceAny", "AddN", "BiasAdd",
    "TensorAdd", "Argmax", "Argmin", "ArgMaxWithValue", "ArgMinWithValue", "MatMul",
    "BatchMatMul", "Dense", "Reshape", "Transpose", "ExpandDims", "Squeeze", "Flatten",
    "Concat", "Stack", "Split", "Gather", "StridedSlice", "Slice", "BroadcastTo", "Tile",
    "Zeros", "Ones", "Fill", "Softmax", "LogSoftmax", "LayerNorm",
]
