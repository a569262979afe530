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

import math
from functools import partial
from typing import Any

import numpy as np

from msc.errors import ShapeError
from msc.ir import dtypes
from msc.ir.kernel import (
    Accumulate,
    Assign,
    BinaryOp,
    Branch,
    Cast,
    Expr,
    Fn,
    Helper,
    Lit,
    Name,
    Not,
    Role,
    Stmt,
    Store,
    both,
    call,
    either,
    empty,
    eq,
    gt,
    ne,
    zeros,
)
from msc.ir.primitives.base import Attr, Primitive, register, want_float_tensor
from msc.ir.primitives.conv import (
    WINDOW,
    attr_values,
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
from msc.ir.primitives.emitting import Loops, in_type, out_type
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


_POOL_ATTRS = ("kernel", "stride", "dilation", "pad")


def _emit_pool(a: list[Expr], node: Any) -> Expr:
    return Helper("_rt_max_pool", (a[0], *attr_values(node, *_POOL_ATTRS)))


def _emit_pool_grad(a: list[Expr], node: Any) -> Expr:
    return Helper("_rt_max_pool_grad", (a[0], a[1], *attr_values(node, *_POOL_ATTRS)))


def _emit_pool_grad_grad(a: list[Expr], node: Any) -> Expr:
    return Helper("_rt_max_pool_grad_grad", (a[0], a[1], *attr_values(node, *_POOL_ATTRS)))


# --- code generation: numba (loop nests) ---------------------------------------------------

_NEG_INF = -Lit(math.inf)  # -infinity (each renderer spells it)


def _kept(v: int) -> Expr:
    """A window literal the outliner keeps in the kernel (see the module docstring)."""
    return call(Fn.PY_INT, v)


def _loops_pool(a: list[Expr], node: Any, out: str, fresh: Any) -> tuple[Stmt, ...]:
    """out[n, c, p...] = the maximum of the bordered input over the window of p (a NaN
    wins and stays): no bounds checks, the taps' loops over kept literals."""
    x, o = in_type(node), out_type(node)
    kernel, stride, dilation = node.attr["kernel"], node.attr["stride"], node.attr["dilation"]
    loops = Loops(fresh)
    src = with_border(loops, a[0], x, node.attr["pad"], _NEG_INF)
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    lead = loops.open(o.shape, range(o.ndim), "p", Role.PARALLEL)
    best, v = Name(loops.fresh("best")), Name(loops.fresh("v"))
    # (a float32 maximum kept in float32: the same value, and C compilers vectorize it)
    loops.emit(Assign(best, Cast(x.dtype, _NEG_INF) if x.dtype == dtypes.float32 else _NEG_INF))
    taps = loops.open([_kept(k) for k in kernel], range(len(kernel)), "k", Role.REDUCE)
    at = [Name(lead[2 + d]) * _kept(stride[d]) + Name(taps[d]) * _kept(dilation[d])
          for d in range(len(kernel))]
    loops.emit(Assign(v, src[(Name(lead[0]), Name(lead[1]), *at)]))
    loops.emit(Branch(either(gt(v, best), ne(v, v)), (Assign(best, v),)))
    loops.close(taps)
    loops.emit(Store(Name(out)[tuple(Name(i) for i in lead.values())], Cast(o.dtype, best)))
    loops.close(lead)
    return loops.lines


def _loops_routed(a: list[Expr], node: Any, out: str, fresh: Any, *,
                  scatter: bool) -> tuple[Stmt, ...]:
    """MaxPoolGrad's loops (``scatter``: out[the first maximum of p's window] += g[p]) and
    MaxPoolGradGrad's (out[p] = the cotangent at that first maximum)."""
    x, o = in_type(node, 0), out_type(node)
    pooled = in_type(node, 1) if scatter else o
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), (zeros if scatter else empty)(o.shape, o.dtype)))
    # windows overlap: a scatter's positions may add into one element
    lead = loops.open(pooled.shape, range(pooled.ndim), "p",
                      Role.REDUCE if scatter else Role.PARALLEL)
    at = (Name(lead[0]), Name(lead[1]),
          *(Name(i) for i in _first_maximum(loops, node, a[0], lead, x)))
    here = tuple(Name(i) for i in lead.values())
    loops.emit(Accumulate(Name(out)[at], BinaryOp.ADD, a[1][here]) if scatter else
               Store(Name(out)[here], a[1][at]))
    loops.close(lead)
    return loops.lines


def _first_maximum(loops: Loops, node: Any, src: Expr, lead: dict[int, str],
                   x: TensorType) -> list[str]:
    """Statements finding the input indices of the first maximum of output position
    ``lead``'s window (their names): the scan reads only inside the input (a bounds check
    per tap), so an input of -inf still has its maximum."""
    nd = x.ndim - 2
    best, v, found = (Name(loops.fresh(h)) for h in ("best", "v", "found"))
    at = [loops.fresh(f"at{d}") for d in range(nd)]
    loops.emit(Assign(best, _NEG_INF))
    loops.emit(Assign(found, Lit(False)))
    for name in at:
        loops.emit(Assign(Name(name), Lit(0)))
    taps, where = open_taps(loops, node, node.attr["kernel"],
                            {d: lead[d + 2] for d in range(nd)}, x.shape[2:], kept=_kept)
    loops.emit(Assign(v, src[(Name(lead[0]), Name(lead[1]), *(Name(i) for i in where))]))
    first = either(Not(found), gt(v, best), both(ne(v, v), eq(best, best)))
    loops.emit(Branch(first, (Assign(found, Lit(True)), Assign(best, v),
                              *(Assign(Name(name), Name(i)) for name, i in zip(at, where)))))
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
