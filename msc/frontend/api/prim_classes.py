"""MindSpore's primitive classes: ``ops.Add()(x, y)``, ``ops.ReduceSum(keep_dims=True)(x, axis)``.

Attributes go to ``__init__`` and inputs to ``__call__``, as in MindSpore; a call goes
through the functional layer, so it runs eagerly or emits graph nodes like any op. The
attribute-free elementwise classes are generated from one table.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError
from msc.frontend.api import functional as F
from msc.frontend.api.tensor import apply
from msc.ir import dtypes


class Primitive:
    """Base of the primitive classes; ``attrs`` holds the ``__init__`` arguments."""

    name = "Primitive"

    def __init__(self, **attrs: Any):
        self.attrs: dict[str, Any] = dict(attrs)

    def add_prim_attr(self, name: str, value: Any) -> Primitive:
        self.attrs[name] = value
        return self

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in self.attrs.items())
        return f"Prim[{self.name}]" + (f"<{shown}>" if shown else "")


# --- attribute-free elementwise ops: (class name, primitive name, number of inputs) -------

_SIMPLE = (
    ("Add", "Add", 2), ("Sub", "Sub", 2), ("Mul", "Mul", 2), ("Div", "Div", 2),
    ("RealDiv", "Div", 2), ("FloorDiv", "FloorDiv", 2), ("FloorMod", "FloorMod", 2),
    ("Pow", "Pow", 2), ("Maximum", "Maximum", 2), ("Minimum", "Minimum", 2),
    ("Equal", "Equal", 2), ("NotEqual", "NotEqual", 2), ("Less", "Less", 2),
    ("LessEqual", "LessEqual", 2), ("Greater", "Greater", 2),
    ("GreaterEqual", "GreaterEqual", 2), ("LogicalAnd", "LogicalAnd", 2),
    ("LogicalOr", "LogicalOr", 2), ("LogicalNot", "LogicalNot", 1), ("Neg", "Neg", 1),
    ("Abs", "Abs", 1), ("Exp", "Exp", 1), ("Log", "Log", 1), ("Sqrt", "Sqrt", 1),
    ("Rsqrt", "Rsqrt", 1), ("Square", "Square", 1), ("Reciprocal", "Reciprocal", 1),
    ("Sin", "Sin", 1), ("Cos", "Cos", 1), ("Tanh", "Tanh", 1), ("Sigmoid", "Sigmoid", 1),
    ("ReLU", "ReLU", 1), ("HSwish", "HSwish", 1), ("Floor", "Floor", 1),
    ("Ceil", "Ceil", 1), ("Sign", "Sign", 1), ("ZerosLike", "ZerosLike", 1),
    ("OnesLike", "OnesLike", 1), ("Select", "Select", 3),
)


def _simple_class(cls_name: str, prim: str, arity: int) -> type[Primitive]:
    def __call__(self: Primitive, *inputs: Any) -> Any:
        if len(inputs) != arity:
            raise GraphTypeError(f"For '{cls_name}', expected {arity} inputs, but got "
                                 f"{len(inputs)}")
        return apply(prim, *inputs)

    doc = f"``ops.{cls_name}()(*inputs)``: the {prim} primitive on {arity} input(s)."
    return type(cls_name, (Primitive,), {"name": cls_name, "__call__": __call__,
                                         "__doc__": doc, "__module__": __name__})


for _cls, _prim, _arity in _SIMPLE:
    globals()[_cls] = _simple_class(_cls, _prim, _arity)


class GeLU(Primitive):
    """GELU with the tanh approximation (MindSpore's ``ops.GeLU``)."""

    name = "GeLU"

    def __call__(self, x: Any) -> Any:
        return apply("GeLU", x, approximate="tanh")


class Cast(Primitive):
    name = "Cast"

    def __call__(self, input_x: Any, type_: dtypes.DType) -> Any:
        return F.cast(input_x, type_)


# --- reductions ---------------------------------------------------------------------------


class _Reduce(Primitive):
    prim = ""

    def __init__(self, keep_dims: bool = False):
        super().__init__(keep_dims=keep_dims)
        self.keep_dims = keep_dims

    def __call__(self, x: Any, axis: Any = ()) -> Any:
        return apply(self.prim, x, axis=F._reduce_axes(x, axis, self.prim),
                     keep_dims=self.keep_dims)


class ReduceSum(_Reduce):
    name = prim = "ReduceSum"


class ReduceMean(_Reduce):
    name = prim = "ReduceMean"


class ReduceMax(_Reduce):
    name = prim = "ReduceMax"


class ReduceMin(_Reduce):
    name = prim = "ReduceMin"


class ReduceProd(_Reduce):
    name = prim = "ReduceProd"


class Argmax(Primitive):
    """Index of the maximum along ``axis``; ``output_type`` is int32 by default."""

    name = prim = "Argmax"

    def __init__(self, axis: int = -1, output_type: dtypes.DType = dtypes.int32):
        super().__init__(axis=axis, output_type=output_type)
        self.axis, self.output_type = axis, output_type

    def __call__(self, input_x: Any) -> Any:
        out = apply(self.prim, input_x, axis=self.axis, keep_dims=False)
        return out if self.output_type == dtypes.int64 else F.cast(out, self.output_type)


class Argmin(Argmax):
    name = prim = "Argmin"


class ArgMaxWithValue(Primitive):
    """(index, value) of the maximum along ``axis``."""

    name = "ArgMaxWithValue"

    def __init__(self, axis: int = 0, keep_dims: bool = False):
        super().__init__(axis=axis, keep_dims=keep_dims)
        self.axis, self.keep_dims = axis, keep_dims

    def __call__(self, x: Any) -> tuple[Any, Any]:
        values, index = F.max(x, self.axis, self.keep_dims)
        return index, values


class ArgMinWithValue(ArgMaxWithValue):
    name = "ArgMinWithValue"

    def __call__(self, x: Any) -> tuple[Any, Any]:
        values, index = F.min(x, self.axis, self.keep_dims)
        return index, values


# --- contractions -------------------------------------------------------------------------


class MatMul(Primitive):
    name = prim = "MatMul"

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False):
        super().__init__(transpose_a=transpose_a, transpose_b=transpose_b)
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def __call__(self, x: Any, y: Any) -> Any:
        return apply(self.prim, x, y, transpose_a=self.transpose_a,
                     transpose_b=self.transpose_b)


class BatchMatMul(MatMul):
    name = prim = "BatchMatMul"


class Dense(Primitive):
    """``x @ w.T + b`` (b optional)."""

    name = "Dense"

    def __call__(self, x: Any, w: Any, b: Any = None) -> Any:
        return F.dense(x, w, b)


# --- shapes -------------------------------------------------------------------------------


class Reshape(Primitive):
    name = "Reshape"

    def __call__(self, input_x: Any, input_shape: Any) -> Any:
        return F.reshape(input_x, input_shape)


class Transpose(Primitive):
    name = "Transpose"

    def __call__(self, input_x: Any, input_perm: Any) -> Any:
        return F.transpose(input_x, input_perm)


class ExpandDims(Primitive):
    name = "ExpandDims"

    def __call__(self, input_x: Any, axis: int) -> Any:
        return F.expand_dims(input_x, axis)


class Squeeze(Primitive):
    name = "Squeeze"

    def __init__(self, axis: Any = ()):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, input_x: Any) -> Any:
        return apply("Squeeze", input_x, axis=F._axis_attr(self.axis))


class Flatten(Primitive):
    """(N, ...) -> (N, prod(...))."""

    name = "Flatten"

    def __call__(self, input_x: Any) -> Any:
        return apply("Flatten", input_x)


class Concat(Primitive):
    name = "Concat"

    def __init__(self, axis: int = 0):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, input_x: Any) -> Any:
        return F.concat(input_x, self.axis)


class Stack(Concat):
    name = "Stack"

    def __call__(self, input_x: Any) -> Any:
        return F.stack(input_x, self.axis)


class Split(Primitive):
    """``output_num`` equal parts along ``axis``."""

    name = "Split"

    def __init__(self, axis: int = 0, output_num: int = 1):
        super().__init__(axis=axis, output_num=output_num)
        self.axis, self.output_num = axis, output_num

    def __call__(self, input_x: Any) -> tuple[Any, ...]:
        return apply("Split", input_x, axis=self.axis, output_num=self.output_num)


class Gather(Primitive):
    name = "Gather"

    def __init__(self, batch_dims: int = 0):
        super().__init__(batch_dims=batch_dims)
        self.batch_dims = batch_dims

    def __call__(self, input_params: Any, input_indices: Any, axis: int) -> Any:
        return F.gather(input_params, input_indices, axis, self.batch_dims)


class StridedSlice(Primitive):
    name = "StridedSlice"

    def __init__(self, begin_mask: int = 0, end_mask: int = 0, ellipsis_mask: int = 0,
                 new_axis_mask: int = 0, shrink_axis_mask: int = 0):
        super().__init__(begin_mask=begin_mask, end_mask=end_mask,
                         ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                         shrink_axis_mask=shrink_axis_mask)

    def __call__(self, input_x: Any, begin: Any, end: Any, strides: Any) -> Any:
        return F.strided_slice(input_x, begin, end, strides, **self.attrs)


class Slice(Primitive):
    name = "Slice"

    def __call__(self, input_x: Any, begin: Any, size: Any) -> Any:
        return F.slice(input_x, begin, size)


class BroadcastTo(Primitive):
    name = "BroadcastTo"

    def __init__(self, shape: Any):
        super().__init__(shape=shape)
        self.shape = shape

    def __call__(self, input_x: Any) -> Any:
        return F.broadcast_to(input_x, self.shape)


class Tile(Primitive):
    name = "Tile"

    def __call__(self, input_x: Any, multiples: Any) -> Any:
        return F.tile(input_x, multiples)


# --- creation -----------------------------------------------------------------------------


class Zeros(Primitive):
    name = "Zeros"

    def __call__(self, size: Any, type: dtypes.DType | None = None) -> Any:  # noqa: A002
        return F.zeros(size, type)


class Ones(Primitive):
    name = "Ones"

    def __call__(self, size: Any, type: dtypes.DType | None = None) -> Any:  # noqa: A002
        return F.ones(size, type)


class Fill(Primitive):
    name = "Fill"

    def __call__(self, type: dtypes.DType, shape: Any, value: Any) -> Any:  # noqa: A002
        return F.fill(type, shape, value)


# --- nn -----------------------------------------------------------------------------------


class Softmax(Primitive):
    name = "Softmax"

    def __init__(self, axis: Any = -1):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, logits: Any) -> Any:
        return F.softmax(logits, self.axis)


class LogSoftmax(Softmax):
    name = "LogSoftmax"

    def __call__(self, logits: Any) -> Any:
        return F.log_softmax(logits, self.axis)


class LayerNorm(Primitive):
    """Returns (y, mean, variance); mean and variance keep the normalised dims as 1s."""

    name = "LayerNorm"

    def __init__(self, begin_norm_axis: int = 1, begin_params_axis: int = 1,
                 epsilon: float = 1e-7):
        super().__init__(begin_norm_axis=begin_norm_axis,
                         begin_params_axis=begin_params_axis, epsilon=epsilon)
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = epsilon

    def __call__(self, input_x: Any, gamma: Any, beta: Any) -> tuple[Any, Any, Any]:
        y = apply("LayerNorm", input_x, gamma, beta, begin_norm_axis=self.begin_norm_axis,
                  begin_params_axis=self.begin_params_axis, epsilon=float(self.epsilon))
        axes = tuple(range(self.begin_norm_axis % input_x.ndim, input_x.ndim))
        mean = F.mean(input_x, axes, True)
        variance = F.mean(F.square(input_x - mean), axes, True)
        return y, mean, variance


__all__ = [c for c, _, _ in _SIMPLE] + [
    "Primitive", "GeLU", "Cast", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
    "ReduceProd", "Argmax", "Argmin", "ArgMaxWithValue", "ArgMinWithValue", "MatMul",
    "BatchMatMul", "Dense", "Reshape", "Transpose", "ExpandDims", "Squeeze", "Flatten",
    "Concat", "Stack", "Split", "Gather", "StridedSlice", "Slice", "BroadcastTo", "Tile",
    "Zeros", "Ones", "Fill", "Softmax", "LogSoftmax", "LayerNorm",
]
