"""Convolution over 1 to 3 spatial dims, NC* layout (NCW, NCHW, NCDHW); max pooling, which
shares its window attributes, is ``pool.py``.

``Conv`` is a grouped cross-correlation with a stride, a dilation and explicit padding
(``pad`` is (lo, hi) per spatial dim, flattened: MindSpore's (top, bottom, left, right)).
``ConvTranspose`` is its adjoint in the input (MindSpore's Conv2DBackpropInput): it takes
the input's spatial shape as an attribute, since strides make it ambiguous. The weight
gradient is a ``Conv`` of the input with the output gradient (stride and dilation swap
roles), so it needs no primitive of its own. Average pooling is a depthwise ``Conv`` in
the frontend; adaptive pooling and resizing are products with constant matrices there.

Code generation: the python target calls numpy helpers (``_rt_conv``); the numba target
writes one loop nest per op with the taps and channels innermost, each output element
accumulated in a float64 register. A large ungrouped float convolution is BLAS work on
both: a stride-1 one of 32 channels or more a sum of shifted products, one per tap
(``_loops_conv_shifted``, where ``_rt_shifted`` says so), any other im2col plus one
product per example (``_loops_conv_gemm``).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.ir import dtypes
from msc.ir.primitives.base import (
    ArrayExpr,
    Attr,
    LoopNest,
    Lowering,
    Primitive,
    register,
    want_float_tensor,
    want_int,
)
from msc.ir.kernel import (
    ELLIPSIS,
    Accumulate,
    Assign,
    BinaryOp,
    Call,
    Cast,
    Chain,
    CompareOp,
    Eval,
    Expr,
    Fn,
    Helper,
    Lit,
    Name,
    Role,
    Slice,
    Stmt,
    Store,
    both,
    call,
    contiguous,
    empty,
    eq,
    ge,
    helper,
    lift,
    lt,
    reshape,
    shape_of,
    transpose,
    zeros,
)
from msc.ir.primitives.emitting import Loops, in_type, out_type
from msc.ir.primitives.rules import batch_size, batched_front, move_to_front
from msc.ir.primitives.winograd import conv_loops as winograd_loops
from msc.ir.primitives.winograd import fits as winograd_fits
from msc.ir.types import TensorType, Type, tensor_of
from msc.runtime.numpy_rt import _rt_conv, _rt_conv_transpose, _rt_padded, _rt_shifted

_CONV_COST = 64.0


# --- attributes and shapes ------------------------------------------------------------


def spatial_dims(t: TensorType, what: str) -> int:
    """The number of spatial dims of an NC* tensor (1 to 3)."""
    if not 3 <= t.ndim <= 5:
        raise ShapeError(f"the {what} must be 3-D, 4-D or 5-D (N, C and 1 to 3 spatial "
                         f"dims), but got shape {t.shape}")
    return t.ndim - 2


def int_tuple(value: Any, count: int, what: str, least: int) -> tuple[int, ...]:
    if not isinstance(value, tuple) or len(value) != count:
        raise GraphValueError(f"{what} must be a tuple of {count} ints, but got {value!r}")
    out = tuple(want_int(v, what) for v in value)
    if any(v < least for v in out):
        raise GraphValueError(f"every item of {what} must be at least {least}, but got {out}")
    return out


def window_count(size: int, lo: int, hi: int, kernel: int, stride: int,
                 dilation: int) -> int:
    """How many windows of a dilated ``kernel`` fit a dim of ``size`` padded by lo, hi."""
    return (size + lo + hi - dilation * (kernel - 1) - 1) // stride + 1


def window_shape(shape: tuple[int, ...], kernel: tuple[int, ...], stride: Any, dilation: Any,
             pad: Any) -> tuple[int, ...]:
    """The output's spatial shape for input spatial ``shape``, after checking the attrs."""
    nd = len(shape)
    stride = int_tuple(stride, nd, "stride", 1)
    dilation = int_tuple(dilation, nd, "dilation", 1)
    pad = int_tuple(pad, 2 * nd, "pad", 0)
    out = tuple(window_count(s, pad[2 * i], pad[2 * i + 1], kernel[i], stride[i], dilation[i])
                for i, s in enumerate(shape))
    if any(o < 1 for o in out):
        raise ShapeError(f"the kernel {kernel} (dilation {dilation}) does not fit the padded "
                         f"input of spatial shape {shape} (padding {pad})")
    return out


def _check_conv(x: Type, w: Type, groups: int) -> tuple[TensorType, TensorType]:
    xt, wt = want_float_tensor(x, "x"), want_float_tensor(w, "weight")
    spatial_dims(xt, "x")
    if wt.ndim != xt.ndim:
        raise ShapeError(f"the weight must have the rank of x, {xt.ndim}, but got shape "
                         f"{wt.shape}")
    if xt.dtype != wt.dtype:
        raise GraphTypeError(f"x and weight must have the same dtype, but got {xt.dtype} "
                             f"and {wt.dtype}")
    if want_int(groups, "groups") < 1 or wt.shape[0] % groups:
        raise GraphValueError(f"groups must be positive and divide the weight's out "
                              f"channels {wt.shape[0]}, but got {groups}")
    return xt, wt


def _conv_infer(x: Type, w: Type, *, stride: Any, dilation: Any, pad: Any,
                groups: int) -> Type:
    xt, wt = _check_conv(x, w, groups)
    if wt.shape[1] * groups != xt.shape[1]:
        raise ShapeError(f"x has {xt.shape[1]} channels, but the weight {wt.shape} with "
                         f"groups={groups} takes {wt.shape[1] * groups}")
    out = window_shape(xt.shape[2:], wt.shape[2:], stride, dilation, pad)
    return TensorType(xt.dtype, (xt.shape[0], wt.shape[0]) + out)


def _conv_impl(x: Any, w: Any, *, stride: Any, dilation: Any, pad: Any, groups: int) -> Any:
    return _rt_conv(x, w, stride, dilation, pad, groups)


def _conv_transpose_infer(dy: Type, w: Type, *, stride: Any, dilation: Any, pad: Any,
                          groups: int, input_size: Any) -> Type:
    dyt, wt = _check_conv(dy, w, groups)
    if wt.shape[0] != dyt.shape[1]:
        raise ShapeError(f"the input has {dyt.shape[1]} channels, but the weight {wt.shape} "
                         f"gives {wt.shape[0]}")
    size = int_tuple(input_size, dyt.ndim - 2, "input_size", 1)
    produced = window_shape(size, wt.shape[2:], stride, dilation, pad)
    if produced != dyt.shape[2:]:
        raise ShapeError(f"a convolution of spatial shape {size} gives {produced}, not the "
                         f"input's spatial shape {dyt.shape[2:]}")
    return TensorType(dyt.dtype, (dyt.shape[0], wt.shape[1] * groups) + size)


def _conv_transpose_impl(dy: Any, w: Any, *, stride: Any, dilation: Any, pad: Any,
                         groups: int, input_size: Any) -> Any:
    return _rt_conv_transpose(dy, w, stride, dilation, pad, groups, input_size)


# --- code generation: python (numpy helpers) ----------------------------------------------


def attr_values(node: Any, *names: str) -> tuple[Expr, ...]:
    """The attributes ``names`` of ``node`` as values: a tuple as a tuple of literals."""
    return tuple(shape_of(node.attr[n]) if isinstance(node.attr[n], tuple) else
                 Lit(node.attr[n]) for n in names)


def _emit_conv(a: list[Expr], node: Any) -> Expr:
    attrs = attr_values(node, "stride", "dilation", "pad", "groups")
    return Helper("_rt_conv", (a[0], a[1], *attrs))


def _emit_conv_transpose(a: list[Expr], node: Any) -> Expr:
    attrs = attr_values(node, "stride", "dilation", "pad", "groups", "input_size")
    return Helper("_rt_conv_transpose", (a[0], a[1], *attrs))


# --- code generation: numba (loop nests) ---------------------------------------------------


def _inside(i: str, size: int) -> Chain:
    """The guard ``0 <= i < size``: index ``i`` is inside a dim of ``size``."""
    return Chain((CompareOp.LE, CompareOp.LT), (Lit(0), Name(i), Lit(size)))


def _span(lo: int, hi: int, step: int | None = None) -> Slice:
    """``lo:hi`` (``lo:hi:step``) inside an index."""
    return Slice(Lit(lo), Lit(hi), None if step is None else Lit(step))


def _named(loops: Loops, name: str, value: Expr) -> str:
    """``name``, bound to ``value`` by a statement of ``loops``."""
    loops.emit(Assign(Name(name), value))
    return name


def _flat_index(names: list[str], shape: tuple[int, ...]) -> Expr:
    """The row-major flat index of position ``names`` in ``shape``."""
    flat: Expr = Name(names[0])
    for name, size in zip(names[1:], shape[1:]):
        flat = flat * size + Name(name)
    return flat


def open_taps(loops: Loops, node: Any, kernel: tuple[int, ...], at: dict[int, str],
              size: tuple[int, ...], kept: Callable[[int], Any] = Lit
              ) -> tuple[dict[int, str], list[str]]:
    """Loops over the kernel taps (folding the window: ``Role.REDUCE``), each guarded to
    read inside the unpadded input: for output position ``at[d]`` along spatial dim d the
    input index is ``at * stride - lo + tap * dilation``. Returns the taps and the input
    indices; ``close_taps`` ends them. ``kept`` writes the window's literals as
    expressions (pooling's ``int(3)``, ``Call(Fn.PY_INT, ...)``, keeps them from the
    outliner)."""
    stride, dilation, pad = node.attr["stride"], node.attr["dilation"], node.attr["pad"]

    def lit(v: int) -> Expr:
        return lift(kept(v))

    taps, where = {}, []
    for d, k in enumerate(kernel):
        taps.update(loops.open([kept(k) for k in kernel], (d,), "k", Role.REDUCE))
        i = loops.fresh(f"i{d}")
        loops.emit(Assign(Name(i), Name(at[d]) * lit(stride[d]) - lit(pad[2 * d]) +
                          Name(taps[d]) * lit(dilation[d])))
        loops.open_if(_inside(i, size[d]))
        where.append(i)
    return taps, where


def close_taps(loops: Loops, taps: dict[int, str]) -> None:
    """End loops opened each with its guard (``open_taps``' taps): guard and loop, the
    innermost first."""
    for d in reversed(taps):
        loops.close_if()
        loops.close({d: taps[d]})


def with_border(loops: Loops, src: Expr, x: TensorType, pad: tuple[int, ...],
                fill: Expr) -> Expr:
    """``src`` inside a border of ``fill`` of ``pad`` ((lo, hi) per spatial dim): a new
    array filled strip by strip, then the copy; ``src`` itself without padding."""
    if not any(pad):
        return src
    lo, hi = pad[0::2], pad[1::2]
    shape = x.shape[:2] + _rt_padded(x.shape[2:], pad)
    name = loops.fresh("bordered")
    loops.emit(Assign(Name(name), empty(shape, x.dtype)))
    whole = [Slice()] * x.ndim
    for d in range(x.ndim - 2):
        for strip in ((0, lo[d]), (shape[2 + d] - hi[d], shape[2 + d])):
            if strip[0] < strip[1]:
                at = whole[:2 + d] + [_span(*strip)] + whole[3 + d:]
                loops.emit(Store(Name(name)[tuple(at)], fill))
    inner = whole[:2] + [_span(lo[d], lo[d] + s) for d, s in enumerate(x.shape[2:])]
    loops.emit(Store(Name(name)[tuple(inner)], src))
    return Name(name)


def _loops_conv(a: list[Expr], node: Any, out: str, fresh: Any) -> tuple[Stmt, ...]:
    """out[n, o, p...] += x[n, group * cg + c, p * stride - lo + k * dilation] * w[o, c, k]
    for each of the group's channels c and taps k, with the output's last axis innermost:
    that loop walks both arrays contiguously over the range of positions whose input is
    inside the unpadded image (computed, not tested per tap), so Numba vectorises it.
    (Summing over channels innermost read strided memory: about 10x slower.)"""
    x, w, o = in_type(node, 0), in_type(node, 1), out_type(node)
    stride, dilation, pad = node.attr["stride"], node.attr["dilation"], node.attr["pad"]
    nd, cg, og = x.ndim - 2, w.shape[1], o.shape[1] // node.attr["groups"]
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), zeros(o.shape, o.dtype)))
    lead = loops.open(o.shape, (0, 1), "p", Role.PARALLEL)  # n, o
    c = loops.open_range("c", None, cg, Role.REDUCE)  # the group's channels
    ch, wv = fresh("ch"), fresh("wv")
    loops.emit(Assign(Name(ch), Name(lead[1]) // og * cg + Name(c)))
    taps = loops.open(w.shape, range(2, w.ndim), "k", Role.REDUCE)
    loops.emit(Assign(Name(wv), a[1][(lead[1], c, *taps.values())]))
    where, opened = [], {}
    for d in range(nd - 1):  # outer spatial axes: guard each input index
        opened.update(loops.open(o.shape, (d + 2,), "p", Role.PARALLEL))
        i = fresh(f"i{d}")
        loops.emit(Assign(Name(i), Name(opened[d + 2]) * stride[d] - pad[2 * d] +
                          Name(taps[d + 2]) * dilation[d]))
        loops.open_if(_inside(i, x.shape[d + 2]))
        where.append(i)
    # the last axis: the positions q whose input q * s + t is inside the image
    last, t, first, stop = nd - 1, fresh("t"), fresh("first"), fresh("stop")
    s, size = stride[last], x.shape[-1]
    loops.emit(Assign(Name(t), Name(taps[w.ndim - 1]) * dilation[last] - pad[2 * last]))
    loops.emit(Assign(Name(first), call(Fn.PY_MAX, 0, -(Name(t) // s))))
    loops.emit(Assign(Name(stop), call(Fn.PY_MIN, o.shape[-1], (size - 1 - Name(t)) // s + 1)))
    q = loops.open_range("q", Name(first), Name(stop), Role.PARALLEL)
    loops.emit(Accumulate(Name(out)[(lead[0], lead[1], *opened.values(), q)], BinaryOp.ADD,
                          a[0][(lead[0], ch, *where, Name(q) * s + Name(t))] * Name(wv)))
    loops.close_range(q)
    close_taps(loops, opened)
    loops.close(taps)
    loops.close_range(c)
    loops.close(lead)
    return loops.lines


#: Ungrouped float convolutions with at least this many multiply-adds per output element
#: (input channels x taps) are one BLAS product per example (``_loops_conv_gemm``).
GEMM_MIN_DEPTH = 32


def _loops_conv_or_gemm(a: list[Expr], node: Any, out: str, fresh: Any) -> tuple[Stmt, ...]:
    x, w, o = in_type(node, 0), in_type(node, 1), out_type(node)
    depth = math.prod(w.shape[1:])
    if node.attr["groups"] == 1 and o.dtype in (dtypes.float32, dtypes.float64) \
            and x.dtype == w.dtype == o.dtype and depth >= GEMM_MIN_DEPTH:
        if _rt_shifted(w.shape[1], o.shape[2:], _rt_padded(x.shape[2:], node.attr["pad"]),
                       node.attr["stride"]) and math.prod(w.shape[2:]) > 1:
            direct = _loops_conv_shifted(a, node, out, fresh)  # (a 1x1's one product: below)
        else:
            direct = _loops_conv_gemm(a, node, out, fresh)
        if not winograd_fits(node):
            return direct
        return winograd_loops(a, node, out, fresh, direct)
    return _loops_conv(a, node, out, fresh)


def _loops_conv_shifted(a: list[Expr], node: Any, out: str, fresh: Any) -> tuple[Stmt, ...]:
    """A stride-1 convolution without im2col: each example is copied into a zero border
    once, its spatial dims flattened, and for each tap the (out channels, channels)
    weight matrix times the input shifted by the tap's offset is accumulated into a
    "wide" output, one BLAS call per tap (beta 1 after the first) reading the input where
    it lies. The wide output has every padded column of each output row (a shift wraps a
    row's last taps into the next row's border there); the output is its first columns.
    ResNet's 56x56 and 28x28 3x3 layers: about twice as fast as im2col plus one product,
    whose copy is nine times the input's size."""
    x, w, o = in_type(node, 0), in_type(node, 1), out_type(node)
    dilation, pad = node.attr["dilation"], list(node.attr["pad"])
    padded = _rt_padded(x.shape[2:], pad)
    strides = [math.prod(padded[d + 1:]) for d in range(len(padded))]
    wide = o.shape[2] * strides[0]  # every padded column of each output row
    # the last row's last taps read past the padded image: a slab of zeros more
    pad[1] += any((k - 1) * dilation[d] * strides[d] for d, k in enumerate(w.shape[3:], 1))
    padded = _rt_padded(x.shape[2:], pad)
    n, taps = o.shape[0], math.prod(w.shape[2:])
    flat, weights, acc = fresh("xflat"), fresh("wtaps"), fresh("wide")
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    border = with_border(loops, a[0], x, tuple(pad), Lit(0))
    loops.emit(Assign(Name(flat), reshape(contiguous(border),
                                          (n, x.shape[1], math.prod(padded)))))
    order = (*range(2, w.ndim), 0, 1)
    loops.emit(Assign(Name(weights), reshape(contiguous(transpose(a[1], order)),
                                             (taps, w.shape[0], w.shape[1]))))
    if padded[1:] == o.shape[3:]:  # no column to drop (1x1): the products fill the output
        loops.emit(Assign(Name(acc), reshape(out, (n, o.shape[1], wide))))
    else:
        loops.emit(Assign(Name(acc), empty((n, o.shape[1], wide), o.dtype)))
    batch = loops.open(o.shape, (0,), "n", Role.PARALLEL)
    # each tap's product adds into the example's wide output (the first one overwrites)
    tap = loops.open(w.shape, range(2, w.ndim), "k", Role.REDUCE)
    offset, k = fresh("off"), fresh("tap")
    shifts = [Name(t) * (dilation[d - 2] * strides[d - 2]) for d, t in tap.items()]
    loops.emit(Assign(Name(offset), sum(shifts[1:], shifts[0])))
    loops.emit(Assign(Name(k), _flat_index(list(tap.values()), w.shape[2:])))
    shifted = Name(flat)[batch[0], Slice(), Slice(Name(offset), Name(offset) + wide)]
    loops.emit(Eval(helper("_rt_matmul_into", Name(weights)[k], shifted, Name(acc)[batch[0]],
                           call(Fn.PY_FLOAT, call(Fn.PY_MIN, k, 1)))))
    loops.close(tap)
    loops.close(batch)
    if padded[1:] != o.shape[3:]:
        at = loops.open(o.shape, range(o.ndim), "c", Role.PARALLEL)
        spot = _flat_index([at[d] for d in range(2, o.ndim)], (o.shape[2], *padded[1:]))
        loops.emit(Store(Name(out)[tuple(at.values())], Name(acc)[at[0], at[1], spot]))
        loops.close(at)
    return loops.lines


def _loops_conv_gemm(a: list[Expr], node: Any, out: str, fresh: Any) -> tuple[Stmt, ...]:
    """im2col: the input's windows are copied into a (channels x taps, output positions)
    matrix per example, zeros where a window leaves the image (one numpy copy of a
    strided view of the whole batch: ``windows``), and ``out[n]`` is the (out channels,
    channels x taps) weight matrix times it: one gemm call, several times faster than the
    loop nest on large convolutions. A 1x1 convolution of stride 1 without padding needs
    no copy: its columns are the example.

    Up to 4096 output positions in the whole batch, and where reading the weights once
    saves more than it costs, the columns of every example sit side by side and one gemm
    covers the batch, its (out channels, examples x positions) result copied into the
    output's order: ResNet's deep 3x3 layers (4608 x 49 columns at batch 4: 9.2 -> 6.7
    ms), not its 1x1 expansions, where the copy costs more than the weights' second
    reads (1024 x 256 weights over 196 positions: 3.2 -> 2.8 ms example by example)."""
    x, w, o = in_type(node, 0), in_type(node, 1), out_type(node)
    depth, width, n = math.prod(w.shape[1:]), math.prod(o.shape[2:]), o.shape[0]
    weights, cols, flat = fresh("wmat"), fresh("cols"), fresh("oflat")
    direct = all(k == 1 for k in w.shape[2:]) and all(s == 1 for s in node.attr["stride"]) \
        and not any(node.attr["pad"])
    # memory traffic: the weights read n - 1 more times, against the product's copy (and
    # a 1x1's columns, which example by example are the input itself)
    reads, copies = (n - 1) * depth * w.shape[0], 2 * n * width * (w.shape[0] + direct * depth)
    whole = n > 1 and width * n <= 4096 and reads > copies  # one gemm over the batch
    rows = chunk_rows(depth, o)
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    loops.emit(Assign(Name(weights), reshape(contiguous(a[1]), (w.shape[0], depth))))
    loops.emit(Assign(Name(flat), reshape(out, (n, o.shape[1], width))))
    if direct and not whole:
        loops.emit(Assign(Name(cols), reshape(contiguous(a[0]), (n, depth, width))))
    else:
        view = windows(loops, node, a[0], x, w.shape[2:], o.shape[2:])
        spatial = tuple(range(2, x.ndim))
        if whole:  # (channels, taps..., examples, positions...)
            loops.emit(Assign(Name(cols), empty((depth, width * n), o.dtype)))
            order = (1, *spatial, 0, *(d + x.ndim - 2 for d in spatial))
            shape = (x.shape[1], *w.shape[2:], n, *o.shape[2:])
            view = _named(loops, fresh("win"), transpose(view, order))
        elif rows < o.shape[2]:
            return _columns_in_chunks(loops, node, view, weights, flat, rows)
        else:
            loops.emit(Assign(Name(cols), empty((n, depth, width), o.dtype)))
            shape = (n, x.shape[1], *w.shape[2:], *o.shape[2:])
        columns = _named(loops, fresh("colv"), reshape(cols, shape))
        loops.emit(Store(Name(columns)[ELLIPSIS], Name(view)))
    if not whole:
        batch = loops.open(o.shape, (0,), "n", Role.PARALLEL)
        loops.emit(Eval(helper("_rt_matmul_into", weights, Name(cols)[batch[0]],
                               Name(flat)[batch[0]], 0.0)))
        loops.close(batch)
        return loops.lines
    product = fresh("prod")
    loops.emit(Assign(Name(product), empty((o.shape[1], width * n), o.dtype)))
    loops.emit(Eval(helper("_rt_matmul_into", weights, cols, product, 0.0)))
    at = loops.open((n, o.shape[1], width), (0, 1, 2), "c", Role.PARALLEL)
    loops.emit(Store(Name(flat)[at[0], at[1], at[2]],
                     Name(product)[at[1], Name(at[0]) * width + Name(at[2])]))
    loops.close(at)
    by_example = transpose(reshape(product, (o.shape[1], n, width)), (1, 0, 2))
    loops.instead(at, Eval(Call(Fn.COPYTO, (Name(flat), by_example))))  # numpy's: 3-4x faster
    return loops.lines


#: An example's columns (channels x taps, output positions) larger than this are copied
#: and multiplied a chunk of output rows at a time: copied whole they went out to memory
#: and the product read them back. ResNet's stem (147 x 12544 columns an example, 7.4 MB)
#: in chunks of 14 rows: ResNet-18's native call 0.95x the time on one CPU, 0.94x on two.
COLUMN_BYTES = 1 << 20


def chunk_rows(depth: int, o: TensorType) -> int:
    """Output rows (along the first spatial axis) per chunk of columns: the largest
    divisor of the rows whose chunk of ``depth`` columns fits ``COLUMN_BYTES`` (all of
    them where the whole example's does; at least 1)."""
    rest = math.prod(o.shape[3:]) * depth * o.dtype.np.itemsize
    return max([r for r in range(1, o.shape[2] + 1) if o.shape[2] % r == 0
                and r * rest <= COLUMN_BYTES] or [1])


def _columns_in_chunks(loops: Loops, node: Any, view: str, weights: str, flat: str,
                       rows: int) -> tuple[Stmt, ...]:
    """Example by example, chunk by chunk of ``rows`` output rows: the chunk's windows
    (of the strided ``view``, examples first) copied into one chunk of columns, and the
    weight matrix times them into the chunk's part of the output (``flat``)."""
    x, w, o = in_type(node, 0), in_type(node, 1), out_type(node)
    rest, cols = math.prod(o.shape[3:]), loops.fresh("chunk")
    loops.emit(Assign(Name(cols), empty((math.prod(w.shape[1:]), rows * rest), o.dtype)))
    columns = _named(loops, loops.fresh("chunkv"),
                     reshape(Name(cols), (x.shape[1], *w.shape[2:], rows, *o.shape[3:])))
    example = loops.open(o.shape, (0,), "n")  # (serial: every chunk fills one array)
    part = loops.open_range("r", None, o.shape[2] // rows)
    first, at = Name(part) * rows, Name(part) * (rows * rest)
    kept = (Slice(),) * (x.ndim - 1)
    loops.emit(Store(Name(columns)[ELLIPSIS], Name(view)[(Name(example[0]), *kept,
                                                           Slice(first, first + rows))]))
    loops.emit(Eval(helper("_rt_matmul_into", weights, Name(cols),
                           Name(flat)[Name(example[0]), Slice(), Slice(at, at + rows * rest)],
                           0.0)))
    loops.close_range(part)
    loops.close(example)
    return loops.lines


def windows(loops: Loops, node: Any, src: Expr, x: TensorType, kernel: tuple[int, ...],
            size: tuple[int, ...]) -> str:
    """The name of the windows of convolution ``node`` over ``src`` (of type ``x``): a
    strided view (examples, channels, taps..., output positions...) of ``src`` in its zero
    border. numpy copies it into the columns faster than a loop nest did (ResNet's 14x14
    3x3 layer: 0.14 against 0.39 ms an example) and it costs Numba no compile; inside a
    kernel Numba makes the same view."""
    stride, dilation, pad = node.attr["stride"], node.attr["dilation"], node.attr["pad"]
    border = with_border(loops, src, x, tuple(pad), Lit(0))
    if border is src:
        border = Name(_named(loops, loops.fresh("xc"), contiguous(src)))
    shape = x.shape[:2] + _rt_padded(x.shape[2:], pad)
    step = [np.dtype(x.dtype.np_name).itemsize * math.prod(shape[d + 1:])
            for d in range(len(shape))]
    spatial = range(2, x.ndim)
    strides = (*step[:2], *(step[d] * dilation[d - 2] for d in spatial),
               *(step[d] * stride[d - 2] for d in spatial))
    return _named(loops, loops.fresh("win"), Call(Fn.AS_STRIDED, (
        border, shape_of((*shape[:2], *kernel, *size)), shape_of(strides))))


def _loops_conv_transpose(a: list[Expr], node: Any, out: str, fresh: Any) -> tuple[Stmt, ...]:
    """The adjoint, gathered: out[n, c, i...] sums dy[n, o, p] * w[o, c % cg, k] over the
    group's out channels o and the taps k with p * stride - lo + k * dilation == i."""
    dy, w, o = in_type(node, 0), in_type(node, 1), out_type(node)
    stride, dilation, pad = node.attr["stride"], node.attr["dilation"], node.attr["pad"]
    cg, og = w.shape[1], dy.shape[1] // node.attr["groups"]
    acc = fresh("acc")
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    lead = loops.open(o.shape, range(o.ndim), "p", Role.PARALLEL)
    loops.emit(Assign(Name(acc), Lit(0.0)))
    taps, where = {}, []
    for d, k in enumerate(w.shape[2:]):  # the taps that reach i, each with its p
        taps.update(loops.open(w.shape[2:], (d,), "k", Role.REDUCE))
        t, p = fresh(f"t{d}"), fresh(f"q{d}")
        loops.emit(Assign(Name(t), Name(lead[d + 2]) + pad[2 * d] - Name(taps[d]) * dilation[d]))
        loops.emit(Assign(Name(p), Name(t) // stride[d]))
        loops.open_if(both(ge(t, 0), eq(Name(t) % stride[d], 0), lt(p, dy.shape[2 + d])))
        where.append(p)
    oc = loops.open_range("o", None, og, Role.REDUCE)  # the group's out channels
    ch = Name(lead[1]) // cg * og + Name(oc)
    loops.emit(Accumulate(Name(acc), BinaryOp.ADD, a[0][(lead[0], ch, *where)] *
                          a[1][(ch, Name(lead[1]) % cg, *taps.values())]))
    loops.close_range(oc)
    close_taps(loops, taps)
    loops.emit(Store(Name(out)[tuple(lead.values())], Cast(o.dtype, Name(acc))))
    loops.close(lead)
    return loops.lines


def _loops_conv_transpose_or_gemm(a: list[Expr], node: Any, out: str,
                                  fresh: Any) -> tuple[Stmt, ...]:
    dy, w, o = in_type(node, 0), in_type(node, 1), out_type(node)
    if node.attr["groups"] == 1 and o.dtype in (dtypes.float32, dtypes.float64) \
            and dy.dtype == w.dtype == o.dtype and dy.shape[1] >= GEMM_MIN_DEPTH:
        return _loops_conv_transpose_gemm(a, node, out, fresh)
    return _loops_conv_transpose(a, node, out, fresh)


def _loops_conv_transpose_gemm(a: list[Expr], node: Any, out: str,
                               fresh: Any) -> tuple[Stmt, ...]:
    """col2im, the adjoint of ``_loops_conv_gemm``: each example's (channels x taps,
    positions) matrix is the transposed weight matrix times its dy, one gemm call; then,
    for each example and channel, tap by tap, the tap's columns are added where that tap
    read, in an accumulator with the convolution's zero border whose inside is the result
    (each position sums its taps in tap order). A training step's input gradients, several
    times faster than the gathering loop nest. A kernel's is one loop nest (Numba took
    seconds to compile a strided slice addition); a driver adds a tap's slice by numpy."""
    dy, w, o = in_type(node, 0), in_type(node, 1), out_type(node)
    stride, dilation, pad = node.attr["stride"], node.attr["dilation"], node.attr["pad"]
    depth, width, n = math.prod(w.shape[1:]), math.prod(dy.shape[2:]), o.shape[0]
    weights, cols, flat = fresh("wmat"), fresh("cols"), fresh("dyflat")
    padded = o.shape[:2] + _rt_padded(o.shape[2:], pad)
    loops = Loops(fresh)
    acc = out if padded == o.shape else fresh("acc")
    loops.emit(Assign(Name(acc), zeros(padded, o.dtype)))
    loops.emit(Assign(Name(cols), empty((n, depth, width), o.dtype)))
    loops.emit(Assign(Name(flat), reshape(contiguous(a[0]), (n, dy.shape[1], width))))
    loops.emit(Assign(Name(weights), reshape(contiguous(a[1]), (w.shape[0], depth))))
    batch = loops.open(o.shape, (0,), "n", Role.PARALLEL)
    loops.emit(Eval(helper("_rt_matmul_into", Call(Fn.ATTR_T, (Name(weights),)),
                           Name(flat)[batch[0]], Name(cols)[batch[0]], 0.0)))
    loops.close(batch)
    shape = (*o.shape[:2], *w.shape[2:], *dy.shape[2:])
    taps = _named(loops, fresh("colv"), reshape(cols, shape))
    lead = loops.open(shape, (0, 1), "n", Role.PARALLEL)
    inner = loops.open(shape, range(2, len(shape)), "k")  # the taps, then the positions
    k = [Name(v) for v in inner.values()]
    reach = [k[d] * dilation[d] + k[d + o.ndim - 2] * stride[d] for d in range(o.ndim - 2)]
    loops.emit(Accumulate(Name(acc)[(Name(lead[0]), Name(lead[1]), *reach)], BinaryOp.ADD,
                          Name(taps)[(Name(lead[0]), Name(lead[1]), *k)]))
    loops.close({**lead, **inner})
    by_tap = []  # a driver's: a strided slice addition per tap, numpy's (no kernel)
    for t in np.ndindex(*w.shape[2:]):
        column = Name(fresh("tap"))
        by_tap += [Assign(column, Name(taps)[(Slice(), Slice(), *t)]), Accumulate(Name(acc)[(
            Slice(), Slice(), *(_span(i * d, i * d + s * (m - 1) + 1, s) for i, d, s, m in
                                zip(t, dilation, stride, dy.shape[2:])))], BinaryOp.ADD, column)]
    loops.instead(lead, *by_tap)
    if acc != out:
        inside = [_span(lo, lo + m) for lo, m in zip(pad[0::2], o.shape[2:])]
        loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
        inner = _named(loops, fresh("inner"), Name(acc)[(Slice(), Slice(), *inside)])
        loops.emit(Store(Name(out)[ELLIPSIS], Name(inner)))
    return loops.lines


def lowering(array: Any, loops: Any) -> dict[str, Lowering]:
    return {"numba": LoopNest(loops),
            "python": ArrayExpr(array)}


# --- gradients ----------------------------------------------------------------------------


def _conv_attrs(attrs: dict[str, Any]) -> dict[str, Any]:
    return {k: attrs[k] for k in ("stride", "dilation", "pad", "groups")}


def filter_grad(b: Any, x: Any, dy: Any, kernel: tuple[int, ...], *, stride: Any,
                dilation: Any, pad: Any, groups: int) -> Any:
    """The weight's cotangent of ``Conv(x, w)`` given the output's ``dy``: a Conv whose
    batch is the input channels of a group, whose channels are (group, example) and
    whose kernel is ``dy`` (stride and dilation swap roles), cut to ``kernel``."""
    xt, gt = tensor_of(x.type), tensor_of(dy.type)
    n, c, nd = xt.shape[0], xt.shape[1], xt.ndim - 2
    cg, og = c // groups, gt.shape[1] // groups
    spatial = tuple(range(3, 3 + nd))
    xs = b.reshape(x, shape=(n, groups, cg) + xt.shape[2:])
    xs = b.reshape(b.transpose(xs, perm=(2, 1, 0) + spatial),
                   shape=(cg, groups * n) + xt.shape[2:])
    ks = b.reshape(dy, shape=(n, groups, og) + gt.shape[2:])
    ks = b.reshape(b.transpose(ks, perm=(1, 2, 0) + spatial),
                   shape=(groups * og, n) + gt.shape[2:])
    full = b.conv(xs, ks, stride=dilation, dilation=stride, pad=pad, groups=groups)
    got = tensor_of(full.type).shape[2:]
    if got != kernel:
        full = b.strided_slice(full, index=((0, cg, 1), (0, groups * og, 1)) +
                               tuple((0, k, 1) for k in kernel))
    return b.transpose(full, perm=(1, 0) + tuple(range(2, 2 + nd)))


def _vjp_conv(b: Any, g: Any, x: Any, w: Any, *, out: Any, **attrs: Any) -> tuple[Any, Any]:
    attrs = _conv_attrs(attrs)
    size = tensor_of(x.type).shape[2:]
    dx = b.conv_transpose(g, w, input_size=size, **attrs)
    return dx, filter_grad(b, x, g, tensor_of(w.type).shape[2:], **attrs)


def _vjp_conv_transpose(b: Any, g: Any, dy: Any, w: Any, *, out: Any,
                        **attrs: Any) -> tuple[Any, Any]:
    """ConvTranspose is linear in dy with Conv as its adjoint; its weight cotangent is
    Conv's with the roles of input (here ``g``) and output gradient (``dy``)."""
    attrs = _conv_attrs(attrs)
    return b.conv(g, w, **attrs), filter_grad(b, g, dy, tensor_of(w.type).shape[2:], **attrs)


# --- batching ------------------------------------------------------------------------------


def folded(b: Any, x: Any, dim: int | None, size: int) -> Any:
    """Batched ``x`` (N, C, ...) per example as one (B*N, C, ...) batch."""
    x = batched_front(b, x, dim, size)
    shape = tensor_of(x.type).shape
    return b.reshape(x, shape=(shape[0] * shape[1],) + shape[2:])


def unfolded(b: Any, y: Any, size: int) -> tuple[Any, int]:
    shape = tensor_of(y.type).shape
    return b.reshape(y, shape=(size, shape[0] // size) + shape[1:]), 0


def _batch_conv(b: Any, prim: Any, args: Any, dims: Any, **attrs: Any) -> tuple[Any, int]:
    """A shared weight: the examples' batches as one batch. Per-example weights: the
    examples side by side as groups (B*C channels against B*O filters, groups*B groups),
    so each example's channels meet only its own filters."""
    (x, w), (dx, dw) = args, dims
    size = batch_size(args, dims)
    if dw is None:
        return unfolded(b, b.emit(prim, folded(b, x, dx, size), w, **attrs), size)
    x = batched_front(b, x, dx, size)
    xt = tensor_of(x.type)
    x = b.transpose(x, perm=(1, 0) + tuple(range(2, xt.ndim)))
    x = b.reshape(x, shape=(xt.shape[1], size * xt.shape[2]) + xt.shape[3:])
    w = move_to_front(b, w, dw)
    wt = tensor_of(w.type)
    w = b.reshape(w, shape=(size * wt.shape[1],) + wt.shape[2:])
    y = b.emit(prim, x, w, **{**attrs, "groups": attrs["groups"] * size})
    yt = tensor_of(y.type)
    return b.reshape(y, shape=(yt.shape[0], size, yt.shape[1] // size) + yt.shape[2:]), 1


# --- the table -----------------------------------------------------------------------------

WINDOW = (Attr("stride", types=(tuple,)), Attr("dilation", types=(tuple,)),
           Attr("pad", types=(tuple,)))

register(Primitive("Conv", _conv_infer, _conv_impl, lowering(_emit_conv, _loops_conv_or_gemm),
                   attrs=WINDOW + (Attr("groups", 1, (int,)),), cost=_CONV_COST,
                   vjp=_vjp_conv, batch=_batch_conv))
register(Primitive("ConvTranspose", _conv_transpose_infer, _conv_transpose_impl,
                   lowering(_emit_conv_transpose, _loops_conv_transpose_or_gemm),
                   attrs=WINDOW + (Attr("groups", 1, (int,)),
                                    Attr("input_size", types=(tuple,))),
                   cost=_CONV_COST, vjp=_vjp_conv_transpose, batch=_batch_conv))
