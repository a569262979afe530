"""ONNX forms of msc's shape, indexing, creation, convolution and effect ops.

Shapes are static in msc's IR, so every op that only rearranges a tensor's dims
(``Reshape``, ``Flatten``, ``ExpandDims``, ``Squeeze``) is an ONNX ``Reshape`` to the
node's own result shape, and creation ops are constants. Reading a weight is its
initializer; ordering tokens vanish. Ops with no ONNX form at opset 17 are listed in
``NOT_EXPORTED`` with the reason, which the export error repeats.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.ir import dtypes
from msc.ir.nodes import Node
from msc.ir.primitives import Op
from msc.onnx.graph import MONAD, Converter, dtype_of, shape_of
from msc.onnx.math_ops import Conv

#: INT64_MIN: a Slice end that runs past index 0 with a negative step.
PAST_START = -(2 ** 63)


def _reshaped(cx: Converter, node: Node) -> str:
    return cx.reshape(cx.tensor(node.inputs[0]), shape_of(node.out.type))


def _transpose(cx: Converter, node: Node) -> str:
    return cx.emit("Transpose", [cx.tensor(node.inputs[0])], dtype_of(node.out.type),
                   perm=list(node.attr["perm"]))


def _broadcast_to(cx: Converter, node: Node) -> str:
    return cx.emit("Expand", [cx.tensor(node.inputs[0]), cx.ints(shape_of(node.out.type))],
                   dtype_of(node.out.type))


def _tile(cx: Converter, node: Node) -> str:
    """numpy's rule: shape and multiples padded with leading 1s to one length."""
    reps = tuple(node.attr["multiples"])
    out = shape_of(node.out.type)
    src = shape_of(node.inputs[0].type)
    x = cx.tensor(node.inputs[0])
    if len(src) < len(out):
        x = cx.reshape(x, (1,) * (len(out) - len(src)) + src)
    reps = (1,) * (len(out) - len(reps)) + reps
    return cx.emit("Tile", [x, cx.ints(reps)], dtype_of(node.out.type))


def _concat(cx: Converter, node: Node) -> str:
    dt, ndim = dtype_of(node.out.type), len(shape_of(node.out.type))
    return cx.emit("Concat", [cx.tensor(v, dt) for v in node.inputs], dt,
                   axis=node.attr["axis"] % ndim)


def _stack(cx: Converter, node: Node) -> str:
    dt, shape = dtype_of(node.out.type), shape_of(node.out.type)
    axis = node.attr["axis"] % len(shape)
    one = shape[:axis] + (1,) + shape[axis + 1:]
    parts = [cx.reshape(cx.tensor(v, dt), one) for v in node.inputs]
    return cx.emit("Concat", parts, dt, axis=axis)


def _split(cx: Converter, node: Node) -> tuple[str, ...]:
    shape = shape_of(node.inputs[0].type)
    axis, n = node.attr["axis"] % len(shape), node.attr["output_num"]
    x = cx.tensor(node.inputs[0])
    if n == 1:
        return (cx.emit("Identity", [x], cx.dtypes[x]),)
    names = cx.emit("Split", [x, cx.ints([shape[axis] // n] * n)], cx.dtypes[x], outputs=n,
                    axis=axis)
    return tuple(names)


def _strided_slice(cx: Converter, node: Node) -> str:
    """A canonical index: ints pick (a one-long slice, then dropped), (start, stop, step)
    slice, None adds a dim; one Slice, then a Reshape to the result's shape."""
    starts, ends, axes, steps = [], [], [], []
    entries = [entry for entry in node.attr["index"] if entry is not None]
    for axis, entry in enumerate(entries):
        if isinstance(entry, int):
            entry = (entry, entry + 1, 1)
        start, stop, step = entry
        if (start, stop, step) == (0, shape_of(node.inputs[0].type)[axis], 1):
            continue
        starts.append(start)
        ends.append(PAST_START if stop is None else stop)
        axes.append(axis)
        steps.append(step)
    x = cx.tensor(node.inputs[0])
    if axes:
        x = cx.emit("Slice", [x, cx.ints(starts), cx.ints(ends), cx.ints(axes), cx.ints(steps)],
                    cx.dtypes[x])
    return cx.reshape(x, shape_of(node.out.type))


def _indices(cx: Converter, node: Node, i: int) -> str:
    return cx.tensor(node.inputs[i], dtypes.int64)


def _gather(cx: Converter, node: Node) -> str:
    ndim = len(shape_of(node.inputs[0].type))
    return cx.emit("Gather", [cx.tensor(node.inputs[0]), _indices(cx, node, 1)],
                   dtype_of(node.out.type), axis=node.attr["axis"] % ndim)


def _gather_d(cx: Converter, node: Node) -> str:
    ndim = len(shape_of(node.inputs[0].type))
    return cx.emit("GatherElements", [cx.tensor(node.inputs[0]), _indices(cx, node, 1)],
                   dtype_of(node.out.type), axis=node.attr["dim"] % ndim)


def _gather_nd(cx: Converter, node: Node) -> str:
    return cx.emit("GatherND", [cx.tensor(node.inputs[0]), _indices(cx, node, 1)],
                   dtype_of(node.out.type))


def _scatter_nd(reduction: str) -> Conv:
    def convert(cx: Converter, node: Node) -> str:
        dt = dtype_of(node.out.type)
        args = [cx.tensor(node.inputs[0], dt), _indices(cx, node, 1),
                cx.tensor(node.inputs[2], dt)]
        return cx.emit("ScatterND", args, dt, reduction=reduction)
    return convert


def _scatter_elements(cx: Converter, node: Node) -> str:
    dt, ndim = dtype_of(node.out.type), len(shape_of(node.out.type))
    args = [cx.tensor(node.inputs[0], dt), _indices(cx, node, 1), cx.tensor(node.inputs[2], dt)]
    return cx.emit("ScatterElements", args, dt, axis=node.attr["axis"] % ndim,
                   reduction=node.attr["reduction"])


def _constant(cx: Converter, node: Node) -> str:
    """Zeros, Ones and Fill: the tensor itself (their attributes are constants)."""
    out = node.out.type
    value = {Op.Zeros: 0, Op.Ones: 1}.get(node.op, node.attr.get("value"))
    with np.errstate(all="ignore"):
        return cx.initializer(np.full(shape_of(out), value).astype(dtype_of(out).np_name))


def _pads(pad: tuple[int, ...]) -> list[int]:
    """msc's (lo0, hi0, lo1, hi1, ...) as ONNX's (lo0, lo1, ..., hi0, hi1, ...)."""
    return list(pad[0::2]) + list(pad[1::2])


def _conv(cx: Converter, node: Node) -> str:
    a = node.attr
    return cx.emit("Conv", [cx.tensor(v) for v in node.inputs], dtype_of(node.out.type),
                   strides=list(a["stride"]), dilations=list(a["dilation"]),
                   pads=_pads(a["pad"]), group=a["groups"])


def _conv_transpose(cx: Converter, node: Node) -> str:
    """The input gradient of a convolution: ONNX's ConvTranspose with the forward
    convolution's weight (same layout); ``output_padding`` makes up the rows a strided
    forward convolution did not reach, so the result has ``input_size``."""
    a = node.attr
    dy_shape, w_shape = shape_of(node.inputs[0].type), shape_of(node.inputs[1].type)
    pad = a["pad"]
    extra = [size - (s * (n - 1) + d * (k - 1) + 1 - pad[2 * i] - pad[2 * i + 1])
             for i, (size, s, d, k, n) in enumerate(zip(a["input_size"], a["stride"],
                                                      a["dilation"], w_shape[2:],
                                                      dy_shape[2:]))]
    return cx.emit("ConvTranspose", [cx.tensor(v) for v in node.inputs],
                   dtype_of(node.out.type), strides=list(a["stride"]),
                   dilations=list(a["dilation"]), pads=_pads(pad), group=a["groups"],
                   output_padding=extra)


def _max_pool(cx: Converter, node: Node) -> str:
    a = node.attr
    return cx.emit("MaxPool", [cx.tensor(node.inputs[0])], dtype_of(node.out.type),
                   kernel_shape=list(a["kernel"]), strides=list(a["stride"]),
                   dilations=list(a["dilation"]), pads=_pads(a["pad"]))


def _same(cx: Converter, node: Node) -> Any:
    """Load (the weight's initializer), Depend, StopGradient, TensorMove: the operand."""
    return cx.value(node.inputs[0])


ARRAY: dict[Any, Conv] = {
    Op.Reshape: _reshaped, Op.Flatten: _reshaped, Op.ExpandDims: _reshaped,
    Op.Squeeze: _reshaped, Op.Transpose: _transpose, Op.BroadcastTo: _broadcast_to,
    Op.Tile: _tile, Op.Concat: _concat, Op.Stack: _stack, Op.Split: _split,
    Op.StridedSlice: _strided_slice, Op.Gather: _gather, Op.GatherD: _gather_d,
    Op.GatherNd: _gather_nd, Op.TensorScatterUpdate: _scatter_nd("none"),
    Op.TensorScatterAdd: _scatter_nd("add"), Op.TensorScatterElements: _scatter_elements,
    Op.Zeros: _constant, Op.Ones: _constant, Op.Fill: _constant,
    Op.Conv: _conv, Op.ConvTranspose: _conv_transpose, Op.MaxPool: _max_pool,
    Op.Load: _same, Op.Depend: _same, Op.StopGradient: _same, Op.TensorMove: _same,
    Op.UpdateState: lambda cx, node: MONAD,
}

#: Ops without an ONNX form here, and why (the export error says it).
NOT_EXPORTED: dict[Any, str] = {
    Op.Assign: "an ONNX graph cannot write its weights (export the inference network)",
    Op.AssignAdd: "an ONNX graph cannot write its weights (export the inference network)",
    Op.AssignSub: "an ONNX graph cannot write its weights (export the inference network)",
    Op.Print: "ONNX has no printing op",
    Op.Raise: "ONNX cannot raise an exception",
    Op.Recurse: "an ONNX graph cannot call itself (recursion whose depth a tensor decides)",
    Op.UniformReal: "ONNX's random ops would not draw msc's numbers",
    Op.MaxPoolGrad: "a training graph's op",
    Op.MaxPoolGradGrad: "a training graph's op",
    Op.Sort: "ONNX's TopK does not promise a stable order of equal values",
    Op.CumProd: "ONNX has no cumulative product",
    Op.Cummax: "ONNX has no cumulative maximum",
    Op.Cummin: "ONNX has no cumulative minimum",
    Op.Erfinv: "ONNX has no inverse error function",
    Op.Atan2: "not yet",
    **{op: "an ONNX model runs on one process: it has no collectives"
       for op in (Op.AllReduce, Op.AllGather, Op.ReduceScatter, Op.Broadcast)},
    **{op: "ONNX has no such special function"
       for op in (Op.Lgamma, Op.Digamma, Op.Polygamma, Op.Zeta, Op.Igamma, Op.Igammac,
                  Op.IgammaGradA, Op.IgammacGradA, Op.BesselI0, Op.BesselI0e, Op.BesselI1,
                  Op.BesselI1e, Op.BesselJ0, Op.BesselJ1, Op.BesselK0, Op.BesselK0e,
                  Op.BesselK1, Op.BesselK1e, Op.BesselY0, Op.BesselY1, Op.Betainc, Op.Gcd,
                  Op.Lcm, Op.NextAfter)},
    **{op: "ONNX has no matrix decompositions, exponential or triangular solve"
       for op in (Op.Qr, Op.Geqrf, Op.Svd, Op.MatrixExp, Op.MatrixTriangularSolve)},
    Op.PopulationCount: "ONNX has no bit count",
    **{op: "ONNX's BitShift takes unsigned integers only"
       for op in (Op.LeftShift, Op.RightShift)},
    Op.CTCLoss: "ONNX has no CTC loss operator",
    Op.CTCLossV2: "ONNX has no CTC loss operator",
    Op.CTCLossV2Grad: "a training graph's op (and ONNX has no CTC loss operator)",
}
