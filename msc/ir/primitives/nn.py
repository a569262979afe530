"""Neural-network primitives: Softmax, LogSoftmax and LayerNorm (normalised output only).

They take float tensors only, as MindSpore does. Softmax and LogSoftmax subtract the
maximum before exponentiating, so large logits do not overflow. ``ops.LayerNorm``'s mean
and variance outputs are composed from reductions by the frontend, which keeps this
primitive single-output and easy to fuse and differentiate.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.errors import GraphTypeError, ShapeError
from msc.ir import dtypes
from msc.ir.primitives.base import (
    ArrayExpr,
    Attr,
    Device,
    LoopNest,
    Lowering,
    Primitive,
    norm_axes,
    norm_axis,
    register,
    want_bool,
    want_float_tensor,
    want_int,
    want_tensor,
)
from msc.ir.kernel import (
    Accumulate,
    Assign,
    BinaryOp,
    Branch,
    Cast,
    Chain,
    CompareOp,
    Expr,
    Fn,
    Helper,
    Lit,
    Name,
    Not,
    Role,
    Stmt,
    Store,
    call,
    empty,
    helper,
    shape_of,
)
from msc.ir.primitives import cuda_lowering
from msc.ir.primitives.emitting import Loops, element_at, in_type, out_type, reduced_at
from msc.ir.primitives.reduce import reduced_shape
from msc.ir.primitives.rules import (
    aligned,
    batch_size,
    batched_front,
    cotangent,
    example_ndim,
    move_to_front,
    on_rows,
    unreduce,
)
from msc.ir.types import TensorType, Type, tensor_of
from msc.runtime.numpy_rt import _rt_layer_norm, _rt_logsumexp, _rt_softmax


def _softmax_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not axes:
        raise GraphTypeError("axis must name at least one axis")
    return norm_axes(tuple(want_int(a, "axis") for a in axes), ndim)


def _softmax_infer(x: Type, *, axis: Any) -> Type:
    t = want_float_tensor(x)
    _softmax_axes(axis, t.ndim)
    return t


def _softmax_impl(x: Any, *, axis: Any) -> Any:
    arr = np.asarray(x)
    with np.errstate(all="ignore"):
        return _rt_softmax(arr, _softmax_axes(axis, arr.ndim) if arr.ndim else (), False)


def _log_softmax_infer(x: Type, *, axis: int) -> Type:
    t = want_float_tensor(x)
    norm_axis(want_int(axis, "axis"), t.ndim)
    return t


def _log_softmax_impl(x: Any, *, axis: int) -> Any:
    arr = np.asarray(x)
    with np.errstate(all="ignore"):
        return _rt_softmax(arr, (axis % arr.ndim,) if arr.ndim else (), True)


# --- LayerNorm ------------------------------------------------------------------------


def _layer_norm_infer(x: Type, gamma: Type, beta: Type, *, begin_norm_axis: int,
                      begin_params_axis: int, epsilon: float) -> Type:
    t = want_float_tensor(x)
    if t.ndim == 0:
        raise ShapeError("the input must be at least 1-D")
    norm_axis(want_int(begin_norm_axis, "begin_norm_axis"), t.ndim)
    params = t.shape[norm_axis(want_int(begin_params_axis, "begin_params_axis"), t.ndim):]
    for name, p in (("gamma", gamma), ("beta", beta)):
        pt = want_tensor(p, name)
        if pt.shape != params:
            raise ShapeError(f"{name} must have shape {params} (input shape {t.shape} from "
                             f"begin_params_axis {begin_params_axis}), but got {pt.shape}")
    if not isinstance(epsilon, float) or epsilon < 0:
        raise GraphTypeError(f"epsilon must be a non-negative float, but got {epsilon!r}")
    return t


def _layer_norm_impl(x: Any, gamma: Any, beta: Any, *, begin_norm_axis: int,
                     begin_params_axis: int, epsilon: float) -> Any:
    with np.errstate(all="ignore"):
        return _rt_layer_norm(x, gamma, beta, begin_norm_axis, epsilon)


# --- code generation --------------------------------------------------------------------
# python: numpy runtime helpers over the normalised axes. numba: a loop nest with the
# normalised axes inside, one pass over them per statistic.


def _norm_axes(node: Any) -> tuple[int, ...]:
    """The axes Softmax/LogSoftmax normalise over; none for a 0-d input."""
    x = in_type(node)
    if x.ndim == 0:
        return ()
    return _softmax_axes(node.attr["axis"], x.ndim)


def _emit_softmax(log: bool) -> Any:
    def emit(a: list[Expr], node: Any) -> Expr:
        return Helper("_rt_softmax", (a[0], shape_of(_norm_axes(node)), Lit(log)))
    return emit


def _row(loops: Loops, x: TensorType, kept: dict[int, str], axes: tuple[int, ...],
         role: Role) -> tuple[tuple[Expr, ...], dict[int, str]]:
    """Open loops over ``axes``; the index of the current element and the loops."""
    inner = loops.open(x.shape, axes, "j", role)
    return element_at({**kept, **inner}, x.ndim), inner


def _row_max(loops: Loops, src: Name, x: TensorType, kept: dict[int, str],
             axes: tuple[int, ...]) -> Name:
    """Statements computing the maximum over ``axes`` of the current row (a NaN wins, as
    in numpy); the name holding it. It starts from the row's first element."""
    top = Name(loops.fresh("top"))
    loops.emit(Assign(top, src[element_at(kept, x.ndim)]))
    loops.fold("max", top.name, src.name, x.shape, kept, axes)
    return top


def _loops_softmax(log: bool) -> Any:
    """Max, then the sum of exponentials (softmax stores them), then the result. float32
    rows store their exponentials first, by ``_rt_exp32`` in a loop of its own, which
    LLVM vectorizes (the float64 sum keeps a loop scalar), sum them after and multiply
    them by the sum's reciprocal rounded to float32 (a division per element costs 4
    products, float64 arithmetic half the vector lanes; within an ulp of the quotient)."""
    def emit(a: list[Name], node: Any, out: str, fresh: Any) -> list[Stmt]:
        x, axes = in_type(node), _norm_axes(node)
        src, dst = a[0], Name(out)
        total, e = Name(fresh("total")), Name(fresh("e"))
        loops = Loops(fresh)
        loops.emit(Assign(dst, empty(x.shape, x.dtype)))
        kept = loops.open(x.shape, [d for d in range(x.ndim) if d not in axes],
                          role=Role.PARALLEL)
        top = _row_max(loops, src, x, kept, axes)
        stored = x.dtype == dtypes.float32  # the exponentials, before the sum
        if stored:
            at, inner = _row(loops, x, kept, axes, Role.PARALLEL)
            loops.emit(Store(dst[at], Cast(x.dtype, helper("_rt_exp32", src[at] - top))))
            loops.close(inner)
        loops.emit(Assign(total, Lit(0.0)))
        if stored:
            loops.fold("sum", total.name, out, x.shape, kept, axes)
        else:
            at, inner = _row(loops, x, kept, axes, Role.REDUCE)
            loops.emit(Assign(e, call(Fn.MATH_EXP, src[at] - top)))
            if not log:
                loops.emit(Store(dst[at], Cast(x.dtype, e)))
            loops.emit(Accumulate(total, BinaryOp.ADD, e))
            loops.close(inner)
        if log or stored:  # (the sum's log, or its reciprocal)
            loops.emit(Assign(total, call(Fn.MATH_LOG, total) if log else Lit(1.0) / total))
        at, inner = _row(loops, x, kept, axes, Role.PARALLEL)
        share = dst[at] * Cast(x.dtype, total) if stored else dst[at] / total
        loops.emit(Store(dst[at], Cast(x.dtype, src[at] - top - total if log else share)))
        loops.close(inner)
        loops.close(kept)
        return loops.lines
    return emit


def _layer_norm_axes(node: Any) -> tuple[int, int]:
    x = in_type(node)
    return node.attr["begin_norm_axis"] % x.ndim, node.attr["begin_params_axis"] % x.ndim


def _emit_layer_norm(a: list[Expr], node: Any) -> Expr:
    begin, _ = _layer_norm_axes(node)
    return Helper("_rt_layer_norm", (*a[:3], Lit(begin), Lit(float(node.attr["epsilon"]))))


def _loops_layer_norm(a: list[Name], node: Any, out: str, fresh: Any) -> list[Stmt]:
    """Mean, then variance (of the centred values), both in float64, then scale and shift,
    in float32 arithmetic for float32 data (twice float64's vector lanes; as numpy's and
    the peers' float32 layer norms); gamma and beta are indexed by the input's dims from
    ``begin_params_axis`` on."""
    x = in_type(node)
    begin, params_at = _layer_norm_axes(node)
    axes = tuple(range(begin, x.ndim))
    n = math.prod(x.shape[begin:])
    eps = float(node.attr["epsilon"])
    src, gamma, beta = a
    mean, var, scale = Name(fresh("mean")), Name(fresh("var")), Name(fresh("scale"))
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(x.shape, x.dtype)))
    kept = loops.open(x.shape, range(begin), role=Role.PARALLEL)
    loops.emit(Assign(mean, Lit(0.0)))
    loops.fold("sum", mean.name, src.name, x.shape, kept, axes)
    loops.emit(Accumulate(mean, BinaryOp.DIV, Lit(n)))
    loops.emit(Assign(var, Lit(0.0)))
    loops.fold("squares", var.name, src.name, x.shape, kept, axes, around=mean.name)
    loops.emit(Assign(scale, 1.0 / call(Fn.MATH_SQRT, var / n + eps)))
    single = x.dtype == dtypes.float32
    if single:  # the mean in two floats: x - hi - lo is x - mean rounded once, about
        hi, lo, scale32 = Name(fresh("hi")), Name(fresh("lo")), Name(fresh("scale32"))
        loops.emit(Assign(hi, Cast(x.dtype, mean)))
        loops.emit(Assign(lo, Cast(x.dtype, mean - hi)))
        loops.emit(Assign(scale32, Cast(x.dtype, scale)))
    at, inner = _row(loops, x, kept, axes, Role.PARALLEL)
    p = at[params_at:]  # gamma's and beta's element
    centred = (src[at] - hi - lo) * scale32 if single else (src[at] - mean) * scale
    loops.emit(Store(Name(out)[at], Cast(x.dtype, centred * gamma[p] + beta[p])))
    loops.close(inner)
    loops.close(kept)
    return loops.lines


# --- LogSumExp: log(sum(exp(x))) over axes, shifted by the maximum -------------------------


def _logsumexp_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """The reduced axes; ``()`` reduces all of them (MindSpore), none of a 0-d input."""
    return norm_axes(tuple(want_int(a, "axis") for a in axis), ndim) if ndim else ()


def _logsumexp_infer(x: Type, *, axis: tuple[int, ...], keep_dims: bool) -> Type:
    t = want_float_tensor(x)
    axes = _logsumexp_axes(axis, t.ndim)
    if any(t.shape[a] == 0 for a in axes):
        raise ShapeError(f"cannot reduce a zero-size axis of shape {t.shape}")
    return TensorType(t.dtype, reduced_shape(t.shape, axes, want_bool(keep_dims, "keep_dims")))


def _logsumexp_impl(x: Any, *, axis: tuple[int, ...], keep_dims: bool) -> Any:
    arr = np.asarray(x)
    with np.errstate(all="ignore"):
        return _rt_logsumexp(arr, _logsumexp_axes(axis, arr.ndim), keep_dims)


def _emit_logsumexp(a: list[Expr], node: Any) -> Expr:
    axes = _logsumexp_axes(node.attr["axis"], in_type(node).ndim)
    return Helper("_rt_logsumexp", (a[0], shape_of(axes), Lit(node.attr["keep_dims"])))


_INF = Lit(math.inf)  # infinity (each renderer spells it)


def _loops_logsumexp(a: list[Name], node: Any, out: str, fresh: Any) -> list[Stmt]:
    """The maximum (0 where it is not finite, as ``_rt_logsumexp``), then the sum of the
    shifted exponentials, accumulated in float64."""
    x, o = in_type(node), out_type(node)
    axes = _logsumexp_axes(node.attr["axis"], x.ndim)
    src, total = a[0], Name(fresh("total"))
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    kept = loops.open(x.shape, [d for d in range(x.ndim) if d not in axes],
                      role=Role.PARALLEL)
    top = _row_max(loops, src, x, kept, axes)
    finite = Chain((CompareOp.LT, CompareOp.LT), (-_INF, top, _INF))
    loops.emit(Branch(Not(finite), (Assign(top, Lit(0.0)),)))
    loops.emit(Assign(total, Lit(0.0)))
    at, inner = _row(loops, x, kept, axes, Role.REDUCE)
    loops.emit(Accumulate(total, BinaryOp.ADD, call(Fn.MATH_EXP, src[at] - top)))
    loops.close(inner)
    where = reduced_at(kept, x.ndim, axes, node.attr["keep_dims"])
    loops.emit(Store(Name(out)[where], Cast(o.dtype, call(Fn.MATH_LOG, total) + top)))
    loops.close(kept)
    return loops.lines


# --- gradients -------------------------------------------------------------------------


def _vjp_softmax(b: Any, g: Any, x: Any, *, out: Any, axis: Any) -> tuple[Any]:
    """s * (g - sum(g * s)) over the normalised axes."""
    ndim = tensor_of(x.type).ndim
    axes = _softmax_axes(axis, ndim) if ndim else ()
    dot = b.reduce_sum(b.mul(g, out), axis=axes, keep_dims=True)
    return (b.mul(out, b.sub(g, dot)),)


def _vjp_log_softmax(b: Any, g: Any, x: Any, *, out: Any, axis: int) -> tuple[Any]:
    """g - softmax * sum(g) along the axis (softmax is exp(out))."""
    ndim = tensor_of(x.type).ndim
    axes = (axis % ndim,) if ndim else ()
    total = b.reduce_sum(g, axis=axes, keep_dims=True)
    return (b.sub(g, b.mul(b.exp(out), total)),)


def _vjp_logsumexp(b: Any, g: Any, x: Any, *, out: Any, axis: tuple[int, ...],
                   keep_dims: bool) -> tuple[Any]:
    """g times the softmax of x over the reduced axes, exp(x - out)."""
    axes = _logsumexp_axes(axis, tensor_of(x.type).ndim)
    soft = b.exp(b.sub(x, unreduce(b, out, x, axes)))
    return (b.mul(unreduce(b, g, x, axes), soft),)


def _vjp_layer_norm(b: Any, g: Any, x: Any, gamma: Any, beta: Any, *, out: Any,
                    begin_norm_axis: int, begin_params_axis: int,
                    epsilon: float) -> tuple[Any, ...]:
    """With xhat = (x - mean) * r, r = 1/sqrt(var + eps) over the normalised axes and
    dxhat = g * gamma: dx = r * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat));
    gamma and beta sum g * xhat and g over the dims before ``begin_params_axis``."""
    xt = tensor_of(x.type)
    axes = tuple(range(begin_norm_axis % xt.ndim, xt.ndim))
    # impl computes with gamma in x's dtype
    gamma_x = gamma if tensor_of(gamma.type).dtype == xt.dtype else \
        b.cast(gamma, dtype=xt.dtype)
    centred = b.sub(x, b.reduce_mean(x, axis=axes, keep_dims=True))
    var = b.reduce_mean(b.square(centred), axis=axes, keep_dims=True)
    r = b.rsqrt(b.add(var, epsilon))
    xhat = b.mul(centred, r)
    dxhat = b.mul(g, gamma_x)
    dx = b.mul(r, b.sub(b.sub(dxhat, b.reduce_mean(dxhat, axis=axes, keep_dims=True)),
                        b.mul(xhat, b.reduce_mean(b.mul(dxhat, xhat), axis=axes,
                                                  keep_dims=True))))
    return (dx, cotangent(b, b.mul(g, xhat), gamma), cotangent(b, g, beta))


# --- batching ------------------------------------------------------------------------------


def _batch_softmax(b: Any, prim: Any, args: Any, dims: Any, *, axis: Any) -> tuple[Any, int]:
    """The example's axes, one further right past the batch axis."""
    x, d = args[0], dims[0]
    ndim = example_ndim(x, d)
    if ndim == 0:
        return on_rows(b, prim, x, d, axis=(1,) if isinstance(axis, tuple) else 1)
    if isinstance(axis, tuple):
        shifted: Any = tuple(a + 1 for a in _softmax_axes(axis, ndim))
    else:
        shifted = norm_axis(axis, ndim) + 1
    return b.emit(prim, move_to_front(b, x, d), axis=shifted), 0


def _batch_logsumexp(b: Any, prim: Any, args: Any, dims: Any, *, axis: tuple[int, ...],
                     keep_dims: bool) -> tuple[Any, int]:
    x, d = args[0], dims[0]
    ndim = example_ndim(x, d)
    if ndim == 0:
        return on_rows(b, prim, x, d, axis=(1,), keep_dims=False)
    axes = tuple(a + 1 for a in _logsumexp_axes(axis, ndim))
    return b.emit(prim, move_to_front(b, x, d), axis=axes, keep_dims=keep_dims), 0


def _batch_layer_norm(b: Any, prim: Any, args: Any, dims: Any, *, begin_norm_axis: int,
                      begin_params_axis: int, epsilon: float) -> tuple[Any, int]:
    """Axes shifted past the batch axis; per-example gamma or beta scale and shift the
    output normalised with ones and zeros."""
    (x, gamma, beta), (dx, dg, db) = args, dims
    ndim = example_ndim(x, dx)
    x = batched_front(b, x, dx, batch_size(args, dims))
    axes = {"begin_norm_axis": norm_axis(begin_norm_axis, ndim) + 1,
            "begin_params_axis": norm_axis(begin_params_axis, ndim) + 1, "epsilon": epsilon}
    if dg is None and db is None:
        return b.emit(prim, x, gamma, beta, **axes), 0
    xt = tensor_of(x.type)
    params = xt.shape[axes["begin_params_axis"]:]
    y = b.emit(prim, x, b.ones(shape=params, dtype=xt.dtype),
               b.zeros(shape=params, dtype=xt.dtype), **axes)

    def per_example(p: Any, d: Any) -> Any:
        p = p if d is None else aligned(b, p, d, ndim)
        return p if tensor_of(p.type).dtype == xt.dtype else b.cast(p, dtype=xt.dtype)

    return b.add(b.mul(y, per_example(gamma, dg)), per_example(beta, db)), 0


# --- the table -----------------------------------------------------------------------------


def _lowering(array: Any, loops: Any, device: Device | None = None) -> dict[str, Lowering]:
    """The numba and python lowerings, and the cuda target's ``device`` kernel if any."""
    lowering: dict[str, Lowering] = {"numba": LoopNest(loops), "python": ArrayExpr(array)}
    return lowering if device is None else {**lowering, "cuda": device}


register(Primitive("Softmax", _softmax_infer, _softmax_impl,
                   _lowering(_emit_softmax(False), _loops_softmax(False),
                             cuda_lowering.SOFTMAX),
                   attrs=(Attr("axis", (-1,)),), cost=6, vjp=_vjp_softmax,
                   batch=_batch_softmax))
register(Primitive("LogSoftmax", _log_softmax_infer, _log_softmax_impl,
                   _lowering(_emit_softmax(True), _loops_softmax(True),
                             cuda_lowering.LOG_SOFTMAX),
                   attrs=(Attr("axis", -1),), cost=6, vjp=_vjp_log_softmax,
                   batch=_batch_softmax))
register(Primitive("LayerNorm", _layer_norm_infer, _layer_norm_impl,
                   _lowering(_emit_layer_norm, _loops_layer_norm, cuda_lowering.LAYER_NORM),
                   attrs=(Attr("begin_norm_axis", 1), Attr("begin_params_axis", 1),
                          Attr("epsilon", 1e-7)), cost=8, vjp=_vjp_layer_norm,
                   batch=_batch_layer_norm))
register(Primitive("LogSumExp", _logsumexp_infer, _logsumexp_impl,
                   _lowering(_emit_logsumexp, _loops_logsumexp),
                   attrs=(Attr("axis", ()), Attr("keep_dims", False)), cost=6,
                   vjp=_vjp_logsumexp, batch=_batch_logsumexp))
