"""ONNX forms of msc's elementwise, reduction, linear-algebra and normalisation ops.

An elementwise op computes in the dtype its lowering names (the result's, the operands'
common one, or bool): operands are cast to it first, weak Python scalars written in it,
and the result cast to the node's dtype, so ONNX computes what msc's generated code does.
Ops ONNX lacks at opset 17 are composed from ones it has (``Expm1`` is ``Exp(x) - 1``).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from msc.ir import dtypes
from msc.ir.dtypes import DType
from msc.ir.nodes import Node
from msc.ir.primitives import Op
from msc.ir.primitives.base import Compute, Elementwise, operand_dtype
from msc.ir.types import ScalarType, tensor_of
from msc.onnx.graph import SCALAR_DTYPES, Converter, Lit, dtype_of, shape_of

Conv = Callable[[Converter, Node], Any]


def compute_dtype(node: Node) -> DType:
    """The dtype the op's generated code computes in (see ``codegen/fusion.py``)."""
    lowering = node.op.lowering["python"]
    compute = lowering.compute if isinstance(lowering, Elementwise) else Compute.OUT
    if compute is Compute.BOOL:
        return dtypes.bool_
    if compute is Compute.OPERANDS:
        types = tuple(v.type for v in node.inputs)
        if all(isinstance(t, ScalarType) for t in types):
            return SCALAR_DTYPES[max(t.category for t in types)]  # type: ignore[union-attr]
        return operand_dtype(types)
    return dtype_of(node.out.type)


def operands(cx: Converter, node: Node) -> list[str]:
    lowering = node.op.lowering["python"]
    keep = lowering.keep if isinstance(lowering, Elementwise) else ()
    dt = compute_dtype(node)
    return [cx.tensor(v, None if i in keep else dt) for i, v in enumerate(node.inputs)]


def result(cx: Converter, node: Node, name: str) -> str:
    return cx.cast(name, dtype_of(node.out.type))


def simple(op_type: str, logical: bool = False, **attrs: Any) -> Conv:
    """An op ONNX has as such; ``logical``: its result is bool."""
    def convert(cx: Converter, node: Node) -> str:
        dt = dtypes.bool_ if logical else compute_dtype(node)
        return result(cx, node, cx.emit(op_type, operands(cx, node), dt, **attrs))
    return convert


def composed(build: Callable[..., str]) -> Conv:
    """An op made of others: ``build(cx, dt, *operands)`` in the compute dtype ``dt``."""
    def convert(cx: Converter, node: Node) -> str:
        return result(cx, node, build(cx, compute_dtype(node), *operands(cx, node)))
    return convert


def float_only(op_type: str) -> Conv:
    """Floor, Ceil, Round: the identity on integers (ONNX takes floats only)."""
    def convert(cx: Converter, node: Node) -> str:
        dt = compute_dtype(node)
        (x,) = operands(cx, node)
        return result(cx, node, cx.emit(op_type, [x], dt) if dt.category == 2 else x)
    return convert


def k(cx: Converter, value: float, dt: DType) -> str:
    """A scalar constant in ``dt``."""
    return cx.tensor(Lit(value), dt)


def e(cx: Converter, op_type: str, dt: DType, *inputs: str, **attrs: Any) -> str:
    return cx.emit(op_type, list(inputs), dt, **attrs)


def _trunc(cx: Converter, dt: DType, x: str) -> str:
    if dt.category != 2:
        return x
    negative = cx.emit("Less", [x, k(cx, 0, dt)], dtypes.bool_)
    return e(cx, "Where", dt, negative, e(cx, "Ceil", dt, x), e(cx, "Floor", dt, x))


def _floor_mod(cx: Converter, dt: DType, a: str, b: str) -> str:
    if dt.category != 2:  # ONNX's integer Mod takes the divisor's sign, as Python's %
        return e(cx, "Mod", dt, a, b)
    quotient = e(cx, "Floor", dt, e(cx, "Div", dt, a, b))
    return e(cx, "Sub", dt, a, e(cx, "Mul", dt, quotient, b))


def _floor_div(cx: Converter, dt: DType, a: str, b: str) -> str:
    if dt.category == 2:
        return e(cx, "Floor", dt, e(cx, "Div", dt, a, b))
    return e(cx, "Div", dt, e(cx, "Sub", dt, a, _floor_mod(cx, dt, a, b)), b)


def _mod(cx: Converter, dt: DType, a: str, b: str) -> str:
    """C's fmod: the dividend's sign."""
    return e(cx, "Mod", dt, a, b, fmod=1)


def _gelu(cx: Converter, node: Node) -> str:
    dt = compute_dtype(node)
    (x,) = operands(cx, node)
    half_x = e(cx, "Mul", dt, x, k(cx, 0.5, dt))
    if node.attr["approximate"] == "tanh":
        cube = e(cx, "Mul", dt, e(cx, "Mul", dt, x, x), x)
        inner = e(cx, "Add", dt, x, e(cx, "Mul", dt, cube, k(cx, 0.044715, dt)))
        t = e(cx, "Tanh", dt, e(cx, "Mul", dt, inner, k(cx, math.sqrt(2 / math.pi), dt)))
    else:
        t = e(cx, "Erf", dt, e(cx, "Div", dt, x, k(cx, math.sqrt(2.0), dt)))
    return result(cx, node, e(cx, "Mul", dt, half_x, e(cx, "Add", dt, t, k(cx, 1.0, dt))))


def _softplus(cx: Converter, node: Node) -> str:
    dt = compute_dtype(node)
    (x,) = operands(cx, node)
    beta, threshold = node.attr["beta"], node.attr["threshold"]
    bx = e(cx, "Mul", dt, x, k(cx, beta, dt))
    soft = e(cx, "Div", dt, e(cx, "Softplus", dt, bx), k(cx, beta, dt))
    linear = cx.emit("Greater", [bx, k(cx, threshold, dt)], dtypes.bool_)
    return result(cx, node, e(cx, "Where", dt, linear, x, soft))


def _is_finite(cx: Converter, node: Node) -> str:
    dt = compute_dtype(node)
    (x,) = operands(cx, node)
    if dt.category != 2:
        return cx.initializer(np.ones(shape_of(node.out.type), np.bool_))
    bad = e(cx, "Or", dtypes.bool_, e(cx, "IsNaN", dtypes.bool_, x),
            e(cx, "IsInf", dtypes.bool_, x))
    return e(cx, "Not", dtypes.bool_, bad)


def _never(cx: Converter, node: Node) -> str:
    """IsNan and IsInf of an integer tensor: all False (ONNX takes floats only)."""
    if compute_dtype(node).category == 2:
        op_type = "IsNaN" if node.op is Op.IsNan else "IsInf"
        return cx.emit(op_type, operands(cx, node), dtypes.bool_)
    return cx.initializer(np.zeros(shape_of(node.out.type), np.bool_))


def _bool_only(op_type: str) -> Conv:
    """Bitwise ops: ONNX 17 has them for bool only (And, Or, Xor)."""
    def convert(cx: Converter, node: Node) -> str:
        if compute_dtype(node) != dtypes.bool_:
            raise cx.unsupported("bitwise ops on integers (ONNX opset 17 has none)")
        return simple(op_type, logical=True)(cx, node)
    return convert


def _select(cx: Converter, node: Node) -> str:
    dt = compute_dtype(node)
    cond = cx.tensor(node.inputs[0], dtypes.bool_)
    a, b = (cx.tensor(v, dt) for v in node.inputs[1:])
    return result(cx, node, e(cx, "Where", dt, cond, a, b))


def _cast(cx: Converter, node: Node) -> str:
    return cx.tensor(node.inputs[0], dtype_of(node.out.type))


def _filled(value: float) -> Conv:
    def convert(cx: Converter, node: Node) -> str:
        t = node.out.type
        return cx.initializer(np.full(shape_of(t), value, dtype_of(t).np_name))
    return convert


ELEMENTWISE: dict[Any, Conv] = {
    **{getattr(Op, name): simple(onnx) for name, onnx in (
        ("Add", "Add"), ("Sub", "Sub"), ("Mul", "Mul"), ("Div", "Div"), ("Pow", "Pow"),
        ("Maximum", "Max"), ("Minimum", "Min"), ("Abs", "Abs"), ("Neg", "Neg"),
        ("Exp", "Exp"), ("Log", "Log"), ("Sqrt", "Sqrt"), ("Reciprocal", "Reciprocal"),
        ("Sin", "Sin"), ("Cos", "Cos"), ("Tan", "Tan"), ("Asin", "Asin"), ("ACos", "Acos"),
        ("Atan", "Atan"), ("Sinh", "Sinh"), ("Cosh", "Cosh"), ("Asinh", "Asinh"),
        ("Acosh", "Acosh"), ("Atanh", "Atanh"), ("Tanh", "Tanh"), ("Sigmoid", "Sigmoid"),
        ("Erf", "Erf"), ("Sign", "Sign"), ("HSwish", "HardSwish"))},
    Op.ReLU: lambda cx, n: (simple("Relu") if compute_dtype(n).category == 2 else composed(
        lambda cx, dt, x: e(cx, "Max", dt, x, k(cx, 0, dt))))(cx, n),
    **{getattr(Op, name): simple(onnx, logical=True) for name, onnx in (
        ("Equal", "Equal"), ("Less", "Less"), ("LessEqual", "LessOrEqual"),
        ("Greater", "Greater"), ("GreaterEqual", "GreaterOrEqual"), ("LogicalAnd", "And"),
        ("LogicalOr", "Or"), ("LogicalNot", "Not"))},
    Op.NotEqual: composed(lambda cx, dt, a, b: e(cx, "Not", dtypes.bool_,
                                                e(cx, "Equal", dtypes.bool_, a, b))),
    Op.Floor: float_only("Floor"), Op.Ceil: float_only("Ceil"),
    Op.Round: float_only("Round"), Op.Trunc: composed(_trunc),
    Op.Elu: lambda cx, n: simple("Elu", alpha=float(n.attr["alpha"]))(cx, n),
    Op.Rsqrt: composed(lambda cx, dt, x: e(cx, "Reciprocal", dt, e(cx, "Sqrt", dt, x))),
    Op.Square: composed(lambda cx, dt, x: e(cx, "Mul", dt, x, x)),
    Op.Exp2: composed(lambda cx, dt, x: e(cx, "Pow", dt, k(cx, 2.0, dt), x)),
    Op.Expm1: composed(lambda cx, dt, x: e(cx, "Sub", dt, e(cx, "Exp", dt, x), k(cx, 1, dt))),
    Op.Log1p: composed(lambda cx, dt, x: e(cx, "Log", dt, e(cx, "Add", dt, x, k(cx, 1, dt)))),
    Op.Log2: composed(lambda cx, dt, x: e(cx, "Div", dt, e(cx, "Log", dt, x),
                                          k(cx, math.log(2), dt))),
    Op.Log10: composed(lambda cx, dt, x: e(cx, "Div", dt, e(cx, "Log", dt, x),
                                           k(cx, math.log(10), dt))),
    Op.Erfc: composed(lambda cx, dt, x: e(cx, "Sub", dt, k(cx, 1, dt), e(cx, "Erf", dt, x))),
    Op.Hypot: composed(lambda cx, dt, a, b: e(cx, "Sqrt", dt, e(
        cx, "Add", dt, e(cx, "Mul", dt, a, a), e(cx, "Mul", dt, b, b)))),
    Op.FloorMod: composed(_floor_mod), Op.FloorDiv: composed(_floor_div),
    Op.Mod: composed(_mod),
    Op.ClipByValue: composed(lambda cx, dt, x, lo, hi: e(cx, "Min", dt,
                                                        e(cx, "Max", dt, x, lo), hi)),
    Op.GeLU: _gelu, Op.Softplus: _softplus, Op.IsFinite: _is_finite,
    Op.IsNan: _never, Op.IsInf: _never,
    Op.BitwiseAnd: _bool_only("And"), Op.BitwiseOr: _bool_only("Or"),
    Op.BitwiseXor: _bool_only("Xor"),
    Op.Select: _select, Op.Cast: _cast,
    Op.OnesLike: _filled(1), Op.ZerosLike: _filled(0),
}


# --- reductions and normalisation -----------------------------------------------------------


def axes_of(axis: Any, ndim: int) -> list[int]:
    """An op's axis attribute as non-negative axes; () and None mean every axis."""
    if axis is None or axis == ():
        return list(range(ndim))
    return sorted({a % ndim for a in (axis if isinstance(axis, tuple) else (axis,))})


def _reduce(op_type: str) -> Conv:
    def convert(cx: Converter, node: Node) -> str:
        x_t = tensor_of(node.inputs[0].type)
        dt = dtype_of(node.out.type)
        x = cx.tensor(node.inputs[0], dt)
        if not x_t.ndim:  # type: ignore[union-attr]
            return x
        axes = axes_of(node.attr["axis"], x_t.ndim)  # type: ignore[union-attr]
        keep = int(bool(node.attr["keep_dims"]))
        if op_type == "ReduceSum":  # (opset 13 made its axes an input; the others follow at 18)
            return cx.emit(op_type, [x, cx.ints(axes)], dt, keepdims=keep)
        return cx.emit(op_type, [x], dt, axes=axes, keepdims=keep)
    return convert


def _arg(op_type: str) -> Conv:
    def convert(cx: Converter, node: Node) -> str:
        x = cx.tensor(node.inputs[0])
        shape = shape_of(node.inputs[0].type)
        axis, keep = node.attr["axis"], node.attr["keep_dims"]
        if axis is None:  # the flattened tensor's index
            x, axis = cx.reshape(x, (-1,)), 0
        out = cx.emit(op_type, [x], dtypes.int64, axis=axis % max(len(shape), 1),
                      keepdims=int(bool(keep)))
        return cx.reshape(cx.cast(out, dtype_of(node.out.type)), shape_of(node.out.type))
    return convert


def _softmax(cx: Converter, node: Node) -> str:
    x, dt = cx.tensor(node.inputs[0]), dtype_of(node.out.type)
    axes = axes_of(node.attr["axis"], len(shape_of(node.out.type)))
    if len(axes) == 1:
        return cx.emit("Softmax", [x], dt, axis=axes[0])
    top = cx.emit("ReduceMax", [x], dt, axes=axes, keepdims=1)
    ex = e(cx, "Exp", dt, e(cx, "Sub", dt, x, top))
    return e(cx, "Div", dt, ex, cx.emit("ReduceSum", [ex, cx.ints(axes)], dt, keepdims=1))


def _log_softmax(cx: Converter, node: Node) -> str:
    ndim = len(shape_of(node.out.type))
    return cx.emit("LogSoftmax", [cx.tensor(node.inputs[0])], dtype_of(node.out.type),
                   axis=node.attr["axis"] % ndim)


def _log_sum_exp(cx: Converter, node: Node) -> str:
    x, dt = cx.tensor(node.inputs[0]), dtype_of(node.out.type)
    axes = axes_of(node.attr["axis"], len(shape_of(node.inputs[0].type)))
    return cx.emit("ReduceLogSumExp", [x], dt, axes=axes, keepdims=int(node.attr["keep_dims"]))


def _layer_norm(cx: Converter, node: Node) -> str:
    """LayerNormalization over the axes from ``begin_norm_axis``; gamma and beta cover
    those from ``begin_params_axis`` and apply after it when the two differ."""
    x, gamma, beta = (cx.tensor(v) for v in node.inputs)
    shape, dt = shape_of(node.out.type), dtype_of(node.out.type)
    norm = node.attr["begin_norm_axis"] % len(shape)
    params = node.attr["begin_params_axis"] % len(shape)
    eps = float(node.attr["epsilon"])
    if norm == params:
        return cx.emit("LayerNormalization", [x, gamma, beta], dt, axis=norm, epsilon=eps)
    ones = cx.initializer(np.ones(shape[norm:], dt.np_name))
    y = cx.emit("LayerNormalization", [x, ones], dt, axis=norm, epsilon=eps)
    return e(cx, "Add", dt, e(cx, "Mul", dt, y, gamma), beta)


def _cumsum(cx: Converter, node: Node) -> str:
    ndim = len(shape_of(node.out.type))
    return cx.emit("CumSum", [cx.tensor(node.inputs[0]), cx.ints([node.attr["axis"] % ndim])],
                   dtype_of(node.out.type), exclusive=int(node.attr["exclusive"]),
                   reverse=int(node.attr["reverse"]))


REDUCTIONS: dict[Any, Conv] = {
    Op.ReduceSum: _reduce("ReduceSum"), Op.ReduceMean: _reduce("ReduceMean"),
    Op.ReduceMax: _reduce("ReduceMax"), Op.ReduceMin: _reduce("ReduceMin"),
    Op.ReduceProd: _reduce("ReduceProd"), Op.Argmax: _arg("ArgMax"),
    Op.Argmin: _arg("ArgMin"), Op.Softmax: _softmax, Op.LogSoftmax: _log_softmax,
    Op.LogSumExp: _log_sum_exp, Op.LayerNorm: _layer_norm, Op.CumSum: _cumsum,
}


# --- linear algebra -------------------------------------------------------------------------


def swap_last(cx: Converter, x: str, ndim: int) -> str:
    perm = list(range(ndim))
    perm[-2:] = perm[-1], perm[-2]
    return cx.emit("Transpose", [x], cx.dtypes[x], perm=perm)


def _matmul(cx: Converter, node: Node) -> str:
    dt = dtype_of(node.out.type)
    a, b = (cx.tensor(v, dt) for v in node.inputs)
    for name, v, flag in (("a", node.inputs[0], "transpose_a"), ("b", node.inputs[1],
                                                                  "transpose_b")):
        if node.attr[flag]:
            swapped = swap_last(cx, a if name == "a" else b, len(shape_of(v.type)))
            a, b = (swapped, b) if name == "a" else (a, swapped)
    return cx.emit("MatMul", [a, b], dt)


def _dense(cx: Converter, node: Node) -> str:
    """x @ w.T + b (w is (out, in), or (in,) for one output feature)."""
    dt = dtype_of(node.out.type)
    x, w = cx.tensor(node.inputs[0], dt), cx.tensor(node.inputs[1], dt)
    if len(shape_of(node.inputs[1].type)) == 2:
        w = cx.emit("Transpose", [w], dt, perm=[1, 0])
    y = cx.emit("MatMul", [x, w], dt)
    if len(node.inputs) > 2:
        y = e(cx, "Add", dt, y, cx.tensor(node.inputs[2], dt))
    return y


LINALG: dict[Any, Conv] = {Op.MatMul: _matmul, Op.BatchMatMul: _matmul, Op.Dense: _dense}

CONVERTERS: dict[Any, Conv] = {**ELEMENTWISE, **REDUCTIONS, **LINALG}
