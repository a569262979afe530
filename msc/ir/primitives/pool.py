"""Max pooling over 1 to 3 spatial dims, NC* layout, with the window attributes of
``Conv`` (``conv.py``): ``kernel``, ``stride``, ``dilation`` and ``pad`` ((lo, hi) per
spatial dim, flattened).

``MaxPool`` pads with -inf; its gradient ``MaxPoolGrad`` routes each window's gradient to
the window's first maximum (taps in row-major order; a NaN beats any number), summed where
windows overlap. ``MaxPoolGradGrad`` is that routing's adjoint (second derivatives): for
each window, its argument shaped like the input read at the window's first maximum. It is
linear in that argument, and the arg-max is piecewise constant in the input, so each of
the two is the other's gradient and the input gets none.

Code generation: the python target calls numpy helpers that loop over the taps. The numba
target's forward copies the input into a -inf border once (where there is padding), then
scans each window without a bounds check; the window's size, stride and dilation are
written ``int(3)``, literals the outliner keeps (``codegen/outline.py``), so that LLVM
unrolls the taps and vectorizes along the output row: ResNet's stem pooling (3x3, stride
2, 4x64x112x112) takes 1.2 ms with a 1.2 ms border copy, against 13-20 ms with the window
as arguments and a bounds check per tap. Each window shape is a kernel of its own.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from msc.errors import ShapeError
from msc.ir.primitives.base import Attr, Primitive, register, want_float_tensor
from msc.ir.primitives.conv import (
    WINDOW,
    attr_args,
    close_taps,
    folded,
    int_tuple,
    lowering,
    open_taps,
    spatial_dims,
    unfolded,
    window_shape,
    with_border,
)
from msc.ir.primitives.emitting import Loops, dtype_ref, in_type, index, out_type
from msc.ir.primitives.rules import batch_size
from msc.ir.types import TensorType, Type, tensor_of
from msc.runtime.numpy_rt import _rt_max_pool, _rt_max_pool_grad, _rt_max_pool_grad_grad


def _pool_infer(x: Type, *, kernel: Any, stride: Any, dilation: Any, pad: Any) -> Type:
    xt = want_float_tensor(x)
    nd = spatial_dims(xt, "input")
    kernel = int_tuple(kernel, nd, "kernel", 1)
    return TensorType(xt.dtype, xt.shape[:2] + window_shape(xt.shape[2:], kernel, stride,
                                                            dilation, pad))


def _pool_impl(x: Any, *, kernel: Any, stride: Any, dilation: Any, pad: Any) -> Any:
    with np.errstate(invalid="ignore"):
        return _rt_max_pool(x, kernel, stride, dilation, pad)


def _pool_grad_infer(x: Type, g: Type, *, kernel: Any, stride: Any, dilation: Any,
                     pad: Any) -> Type:
    out = _pool_infer(x, kernel=kernel, stride=stride, dilation=dilation, pad=pad)
    if tensor_of(g) != out:
        raise ShapeError(f"the gradient must be {out}, but got {g}")
    return tensor_of(x)


def _pool_grad_impl(x: Any, g: Any, *, kernel: Any, stride: Any, dilation: Any,
                    pad: Any) -> Any:
    with np.errstate(invalid="ignore"):
        return _rt_max_pool_grad(x, g, kernel, stride, dilation, pad)


def _pool_grad_grad_infer(x: Type, c: Type, *, kernel: Any, stride: Any, dilation: Any,
                          pad: Any) -> Type:
    out = _pool_infer(x, kernel=kernel, stride=stride, dilation=dilation, pad=pad)
    if tensor_of(c) != tensor_of(x):
        raise ShapeError(f"the cotangent must be {tensor_of(x)}, but got {c}")
    return out


def _pool_grad_grad_impl(x: Any, c: Any, *, kernel: Any, stride: Any, dilation: Any,
                         pad: Any) -> Any:
    with np.errstate(invalid="ignore"):
        return _rt_max_pool_grad_grad(x, c, kernel, stride, dilation, pad)


# --- code generation: python (numpy helpers) ----------------------------------------------


def _emit_pool(a: list[str], node: Any) -> str:
    return f"_rt_max_pool({a[0]}, {attr_args(node, 'kernel', 'stride', 'dilation', 'pad')})"


def _emit_pool_grad(a: list[str], node: Any) -> str:
    attrs = attr_args(node, "kernel", "stride", "dilation", "pad")
    return f"_rt_max_pool_grad({a[0]}, {a[1]}, {attrs})"


def _emit_pool_grad_grad(a: list[str], node: Any) -> str:
    attrs = attr_args(node, "kernel", "stride", "dilation", "pad")
    return f"_rt_max_pool_grad_grad({a[0]}, {a[1]}, {attrs})"


# --- code generation: numba (loop nests) ---------------------------------------------------


def _kept(v: int) -> str:
    """A window literal the outliner keeps in the kernel (see the module docstring)."""
    return f"int({v})"


def _loops_pool(a: list[str], node: Any, out: str, fresh: Any) -> list[str]:
    """out[n, c, p...] = the maximum of the bordered input over the window of p (a NaN
    wins and stays): no bounds checks, the taps' loops over kept literals."""
    x, o = in_type(node), out_type(node)
    kernel, stride, dilation = node.attr["kernel"], node.attr["stride"], node.attr["dilation"]
    loops = Loops(fresh)
    src = with_border(loops, a[0], x, node.attr["pad"], "-np.inf")
    loops.add(f"{out} = np.empty({o.shape!r}, {dtype_ref(o.dtype)})")
    lead = loops.open(o.shape, range(o.ndim), "p")
    best, v = loops.fresh("best"), loops.fresh("v")
    loops.add(f"{best} = -np.inf")
    taps = loops.open([_kept(k) for k in kernel], range(len(kernel)), "k")
    at = [f"{lead[2 + d]} * {_kept(stride[d])} + {taps[d]} * {_kept(dilation[d])}"
          for d in range(len(kernel))]
    loops.add(f"{v} = {src}[{index([lead[0], lead[1], *at])}]")
    loops.add(f"if {v} > {best} or {v} != {v}:")
    loops.add(f"    {best} = {v}")
    loops.close(taps)
    loops.add(f"{out}[{index(list(lead.values()))}] = {dtype_ref(o.dtype)}({best})")
    loops.close(lead)
    return loops.lines


def _loops_routed(a: list[str], node: Any, out: str, fresh: Any, *, scatter: bool) -> list[str]:
    """MaxPoolGrad's loops (``scatter``: out[the first maximum of p's window] += g[p]) and
    MaxPoolGradGrad's (out[p] = the cotangent at that first maximum)."""
    x, o = in_type(node, 0), out_type(node)
    pooled = in_type(node, 1) if scatter else o
    loops = Loops(fresh)
    loops.add(f"{out} = np.{'zeros' if scatter else 'empty'}({o.shape!r}, {dtype_ref(o.dtype)})")
    lead = loops.open(pooled.shape, range(pooled.ndim), "p")
    at = index([lead[0], lead[1], *_first_maximum(loops, node, a[0], lead, x)])
    here = index(list(lead.values()))
    loops.add(f"{out}[{at}] += {a[1]}[{here}]" if scatter else f"{out}[{here}] = {a[1]}[{at}]")
    loops.close(lead)
    return loops.lines


def _first_maximum(loops: Loops, node: Any, src: str, lead: dict[int, str],
                   x: TensorType) -> list[str]:
    """Lines finding the input indices of the first maximum of output position ``lead``'s
    window (their names): the scan reads only inside the input (a bounds check per tap),
    so an input of -inf still has its maximum."""
    nd = x.ndim - 2
    best, v, found = loops.fresh("best"), loops.fresh("v"), loops.fresh("found")
    at = [loops.fresh(f"at{d}") for d in range(nd)]
    loops.add(f"{best} = -np.inf")
    loops.add(f"{found} = False")
    for name in at:
        loops.add(f"{name} = 0")
    taps, where = open_taps(loops, node, node.attr["kernel"],
                            {d: lead[d + 2] for d in range(nd)}, x.shape[2:], kept=_kept)
    loops.add(f"{v} = {src}[{index([lead[0], lead[1], *where])}]")
    loops.add(f"if not {found} or {v} > {best} or ({v} != {v} and {best} == {best}):")
    loops.add(f"    {found} = True")
    loops.add(f"    {best} = {v}")
    for name, i in zip(at, where):
        loops.add(f"    {name} = {i}")
    close_taps(loops, taps)
    return at


# --- gradients and batching ------------------------------------------------------------------


def _vjp_pool(b: Any, g: Any, x: Any, *, out: Any, **attrs: Any) -> tuple[Any]:
    return (b.max_pool_grad(x, g, **attrs),)


def _vjp_pool_grad(b: Any, c: Any, x: Any, g: Any, *, out: Any, **attrs: Any) -> tuple[Any, Any]:
    return b.zeros_like(x), b.max_pool_grad_grad(x, c, **attrs)


def _vjp_pool_grad_grad(b: Any, g: Any, x: Any, c: Any, *, out: Any,
                        **attrs: Any) -> tuple[Any, Any]:
    return b.zeros_like(x), b.max_pool_grad(x, g, **attrs)


def _batch_pool(b: Any, prim: Any, args: Any, dims: Any, **attrs: Any) -> tuple[Any, int]:
    """Pooling is per channel: the examples' batches as one batch."""
    size = batch_size(args, dims)
    batches = [folded(b, a, d, size) for a, d in zip(args, dims)]
    return unfolded(b, b.emit(prim, *batches, **attrs), size)


# --- the table -----------------------------------------------------------------------------

_POOL = (Attr("kernel", types=(tuple,)),) + WINDOW

register(Primitive("MaxPool", _pool_infer, _pool_impl, lowering(_emit_pool, _loops_pool),
                   attrs=_POOL, cost=8, vjp=_vjp_pool, batch=_batch_pool))
register(Primitive("MaxPoolGrad", _pool_grad_infer, _pool_grad_impl,
                   lowering(_emit_pool_grad, partial(_loops_routed, scatter=True)),
                   attrs=_POOL, cost=8, vjp=_vjp_pool_grad, batch=_batch_pool))
register(Primitive("MaxPoolGradGrad", _pool_grad_grad_infer, _pool_grad_grad_impl,
                   lowering(_emit_pool_grad_grad, partial(_loops_routed, scatter=False)),
                   attrs=_POOL, cost=8, vjp=_vjp_pool_grad_grad, batch=_batch_pool))
