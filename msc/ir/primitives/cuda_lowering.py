"""The cuda target's own lowerings (``Device`` records, under the key "cuda" of an op's
``lowering``): for the ops with a kernel of their own in ``cuda_rt.py``, the driver's call
of its helper, a kernel-IR expression, or None where the helper does not apply (the host
then runs the op, as it runs every op without such a record); for the elementwise ops
whose numba form calls a runtime helper, their form inside a generated kernel.

Each helper views its operands as small row-major shapes decided here: a reduction,
softmax or layer norm reads ``x`` as (outer, length, inner), so the axes it works along
must be one run of adjacent axes; a matmul reads (batch, rows, cols), so a batch either
matches the result's or is one matrix for all. Only float32 and float64 tensors are
computed on the device (integer sums and products keep numpy's wrap-around on the host).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from msc.ir.dtypes import DType, float32, float64
from msc.ir.kernel import X0, X1, Binary, BinaryOp, DTypeRef, Expr, Fn, Helper, Lit, call
from msc.ir.primitives.base import Device, norm_axes
from msc.ir.types import TensorType, tensor_of

if TYPE_CHECKING:
    from msc.ir.nodes import Node


def _call(helper: str, *args: Any) -> Helper:
    """``helper(*args)``, each argument an expression or a constant (a literal)."""
    return Helper(helper, tuple(a if isinstance(a, Expr) else Lit(a) for a in args))


def _float_tensors(node: Node) -> bool:
    """Every operand and the result float32 or float64 tensors of one dtype."""
    types = [tensor_of(v.type) for v in node.inputs] + [tensor_of(node.out.type)]
    if any(t is None for t in types):
        return False
    dts = {t.dtype for t in types}  # type: ignore[union-attr]
    return len(dts) == 1 and dts <= {float32, float64}


def _rows(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, int, int] | None:
    """``shape`` as (outer, length, inner) around ``axes``, when they are adjacent."""
    if not axes or list(axes) != list(range(axes[0], axes[-1] + 1)):
        return None
    return (math.prod(shape[:axes[0]]), math.prod(shape[axes[0]:axes[-1] + 1]),
            math.prod(shape[axes[-1] + 1:]))


def _reduce(kind: int, mean: bool = False) -> Device:
    """ReduceSum (kind 0), ReduceMean (0, ``mean``: scaled), ReduceMax (1), ReduceMin (2)."""
    def emit(a: list[Expr], node: Node) -> Helper | None:
        x, out = tensor_of(node.inputs[0].type), tensor_of(node.out.type)
        if not _float_tensors(node) or x is None or out is None or x.ndim == 0:
            return None
        axis = node.attr["axis"]
        axes = norm_axes(axis if axis is None or isinstance(axis, tuple) else (axis,), x.ndim)
        rows = _rows(x.shape, axes)
        if rows is None or rows[1] == 0:
            return None
        scale = 1.0 / rows[1] if mean else 1.0
        return _call("_rt_cuda_reduce", a[0], rows, kind, scale, out.shape,
                     DTypeRef(out.dtype))
    return Device(emit)


def _softmax(log: bool) -> Device:
    def emit(a: list[Expr], node: Node) -> Helper | None:
        x = tensor_of(node.inputs[0].type)
        if not _float_tensors(node) or x is None or x.ndim == 0:
            return None
        axis = node.attr["axis"]
        rows = _rows(x.shape, norm_axes(axis if isinstance(axis, tuple) else (axis,), x.ndim))
        if rows is None:
            return None
        return _call("_rt_cuda_softmax", a[0], rows, log)
    return Device(emit)


def _layer_norm(a: list[Expr], node: Node) -> Helper | None:
    x = tensor_of(node.inputs[0].type)
    if not _float_tensors(node) or x is None:
        return None
    begin = node.attr["begin_norm_axis"] % x.ndim
    rows = (math.prod(x.shape[:begin]), math.prod(x.shape[begin:]))
    return _call("_rt_cuda_layer_norm", a[0], a[1], a[2], rows, float(node.attr["epsilon"]))


def _batched(t: TensorType, batch: int) -> tuple[int, int, int] | None:
    """``t`` (batch dims, rows, cols) as (batch, rows, cols): its batch must be the
    result's (``batch`` matrices) or a single matrix."""
    own = math.prod(t.shape[:-2])
    if own not in (1, batch):
        return None
    return (own, t.shape[-2], t.shape[-1])


def _matmul(a: list[Expr], node: Node) -> Helper | None:
    """MatMul and BatchMatMul (whose batch dims must match the result's, or be absent or
    all 1: other broadcasts run on the host)."""
    if not _float_tensors(node):
        return None
    x, y, out = (tensor_of(v.type) for v in (*node.inputs, node.out))
    assert x is not None and y is not None and out is not None
    batch = math.prod(out.shape[:-2])
    x3, y3 = _batched(x, batch), _batched(y, batch)
    for t, t3 in ((x, x3), (y, y3)):
        if t3 is None or (t3[0] > 1 and t.shape[:-2] != out.shape[:-2]):
            return None
    out3 = (batch, out.shape[-2], out.shape[-1])
    return _call("_rt_cuda_matmul", a[0], a[1], None, x3, y3, out3,
                 node.attr["transpose_a"], node.attr["transpose_b"], out.shape)


def _dense(a: list[Expr], node: Node) -> Helper | None:
    """Dense: x (*, in) as one (rows, in) matrix times w (out, in) transposed, plus a
    bias of shape (out,)."""
    if not _float_tensors(node):
        return None
    x, w, out = tensor_of(node.inputs[0].type), tensor_of(node.inputs[1].type), \
        tensor_of(node.out.type)
    assert x is not None and w is not None and out is not None
    if w.ndim != 2 or (len(a) == 3 and tensor_of(node.inputs[2].type).shape != (w.shape[0],)):
        return None
    rows = math.prod(x.shape[:-1])
    bias = a[2] if len(a) == 3 else None
    return _call("_rt_cuda_matmul", a[0], a[1], bias, (1, rows, x.shape[-1]), (1,) + w.shape,
                 (1, rows, w.shape[0]), False, True, out.shape)



def _copy(a: list[Expr], node: Node) -> Helper:
    return _call("_rt_cuda_copy", a[0])


#: The reductions' lowerings by their numpy name (``reduce.py``'s kind).
REDUCE = {"sum": _reduce(0), "mean": _reduce(0, mean=True), "max": _reduce(1),
          "min": _reduce(2)}
SOFTMAX, LOG_SOFTMAX = _softmax(False), _softmax(True)
LAYER_NORM = Device(_layer_norm)
MATMUL = Device(_matmul)  # MatMul and BatchMatMul
DENSE = Device(_dense)
COPY = Device(_copy)  # TensorMove


# --- elementwise forms inside generated kernels (no libdevice: the simulator's is a stub) --


def _gelu(attr: dict[str, Any], dt: DType) -> Expr:
    """As the host targets compute it: float32's erf form by erfc (in float64), since
    1 + erf(x / sqrt 2) cancels to zero below x = -8.3, where x Phi(x) is not yet zero."""
    if attr["approximate"] == "tanh":
        return 0.5 * X0 * (1.0 + call(Fn.TANH, 0.7978845608028654 * (X0 + 0.044715 * X0 * X0 * X0)))
    if dt == float32:
        return 0.5 * X0 * call(Fn.MATH_ERFC, X0 * -0.7071067811865476)
    return 0.5 * X0 * (1.0 + call(Fn.MATH_ERF, X0 / 1.4142135623730951))


GELU = Device(scalar=_gelu)
#: as the numba target's ``_rt_pow``
POW = Device(scalar=lambda attr, dt: Binary(BinaryOp.POW, X0, X1))
#: C's remainder of floats (``ops.fmod``); integers on the host
FMOD = Device(scalar=lambda attr, dt: call(Fn.FMOD, X0, X1) if dt in (float32, float64)
              else None)
