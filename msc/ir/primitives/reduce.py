"""Reductions: ReduceSum/Mean/Max/Min/Prod over a tuple of axes, and Argmax/Argmin.

Result dtypes follow MindSpore 2.10: the sum and product of bool or integer tensors are
int64 (so they do not overflow), their mean is float32, max/min keep the input dtype,
and Argmax/Argmin give int64 indices. ``axis=()`` reduces every axis.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from msc.errors import GraphTypeError, ShapeError
from msc.ir import dtypes
from msc.ir.dtypes import DType
from msc.ir.primitives.base import (
    ArrayExpr,
    Attr,
    LoopNest,
    Lowering,
    Primitive,
    norm_axes,
    norm_axis,
    on_all_targets,
    register,
    want_bool,
    want_int,
    want_tensor,
)
from msc.ir.kernel import (
    Assign,
    Branch,
    Call,
    Cast,
    DTypeRef,
    Eval,
    Expr,
    Fn,
    Helper,
    Lit,
    Name,
    Role,
    Stmt,
    Store,
    Tuple,
    astype,
    both,
    call,
    either,
    empty,
    eq,
    gt,
    lt,
    ne,
    ones,
    reshape,
    shape_of,
    zeros,
)
from msc.ir.primitives import cuda_lowering
from msc.ir.primitives.emitting import Loops, element_at, in_type, out_type, reduced_at
from msc.ir.primitives.rules import (
    example_ndim,
    is_float_tensor,
    move_to_front,
    on_rows,
    unreduce,
    vjp_reduce_sum,
)
from msc.ir.types import TensorType, Type, tensor_of
from msc.runtime.numpy_rt import _rt_cumsum


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """Normalised reduction axes; a 0-d tensor accepts axis 0/-1 and reduces nothing."""
    if axis is not None and not isinstance(axis, tuple):
        axis = (want_int(axis, "axis"),)
    elif isinstance(axis, tuple):
        axis = tuple(want_int(a, "every axis") for a in axis)
    axes = norm_axes(axis, ndim)
    return () if ndim == 0 else axes


def reduced_shape(shape: tuple[int, ...], axes: tuple[int, ...], keep: bool) -> tuple[int, ...]:
    if keep:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _check_nonempty(t: TensorType, axes: tuple[int, ...]) -> None:
    """max/min/arg* of nothing has no value."""
    empty = [a for a in axes if t.shape[a] == 0]
    if empty:
        raise ShapeError(f"cannot reduce the zero-size axis {empty[0]} of shape {t.shape}")


# --- code generation ------------------------------------------------------------------
# python: numpy's reductions. numba: a loop nest, kept axes outside and reduced axes
# inside, so each result is a scalar accumulator.


#: numpy's function of each kind of reduction
_NUMPY = {"sum": Fn.SUM, "mean": Fn.MEAN, "max": Fn.MAX, "min": Fn.MIN, "prod": Fn.PROD,
          "argmax": Fn.ARGMAX, "argmin": Fn.ARGMIN}


def _emit_reduction(kind: str) -> Callable[..., Expr]:
    """numpy's own reduction with the output dtype (integer means accumulate in float64,
    as the eager implementation does)."""
    def emit(a: list[Expr], node: Any) -> Expr:
        x, out = in_type(node), out_type(node)
        axes = _axes(node.attr["axis"], x.ndim)
        kwargs: tuple[tuple[str, Expr], ...] = (
            ("axis", shape_of(axes)), ("keepdims", Lit(bool(node.attr["keep_dims"]))))
        if kind in ("sum", "prod") and (x.dtype != out.dtype or x.dtype in _KEPT_UNSIGNED):
            kwargs += (("dtype", DTypeRef(out.dtype)),)
        elif kind == "mean" and not x.dtype.is_float:
            kwargs += (("dtype", DTypeRef(dtypes.float64)),)
        body: Expr = Call(_NUMPY[kind], (a[0],), kwargs)
        if kind == "mean" and not x.dtype.is_float:
            body = astype(body, out.dtype)
        return Call(Fn.ASARRAY, (body,)) if out.ndim == 0 else body
    return emit


def _emit_arg(kind: str) -> Callable[..., Expr]:
    def emit(a: list[Expr], node: Any) -> Expr:
        x, out = in_type(node), out_type(node)
        axis = _arg_axis(node.attr["axis"], x.ndim)
        keep = bool(node.attr["keep_dims"])
        body = astype(Call(_NUMPY[kind], (a[0],), (("axis", Lit(axis)), ("keepdims", Lit(keep)))),
                      dtypes.int64)
        return Call(Fn.ASARRAY, (body,)) if out.ndim == 0 else body
    return emit


def _loops_reduction(kind: str) -> Callable[..., list[Stmt]]:
    """sum/mean/prod accumulate in float64 (floats) or int64; max/min start from the
    first element and let a NaN win, as numpy does."""
    def emit(a: list[Name], node: Any, out: str, fresh: Callable[[str], str]) -> list[Stmt]:
        x, o = in_type(node), out_type(node)
        axes = _axes(node.attr["axis"], x.ndim)
        keep = bool(node.attr["keep_dims"])
        others = [d for d in range(x.ndim) if d not in axes]
        if axes and others and max(axes) < min(others):
            return _loops_leading(kind, a, node, out, fresh)
        src, acc = a[0], Name(fresh("acc"))
        loops = Loops(fresh)
        loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
        kept = loops.open(x.shape, others, role=Role.PARALLEL)
        if kind in ("max", "min"):  # from the row's first element
            loops.emit(Assign(acc, src[element_at(kept, x.ndim)]))
        else:
            loops.emit(Assign(acc, Lit(int(kind == "prod"), _wide(kind, x.dtype))))
        if kind in ("sum", "mean") and x.dtype.is_float:
            loops.fold("sum", acc.name, src.name, x.shape, kept, axes)
        else:
            red = loops.open(x.shape, axes, role=Role.REDUCE)
            loops.take(kind, acc, src[element_at({**kept, **red}, x.ndim)])
            loops.close(red)
        result = acc if kind != "mean" else acc / math.prod(x.shape[d] for d in axes)
        loops.emit(Store(Name(out)[reduced_at(kept, x.ndim, axes, keep)], Cast(o.dtype, result)))
        loops.close(kept)
        return loops.lines
    return emit


def _wide(kind: str, dt: DType) -> DType:
    """The accumulator's dtype of sum, mean and prod: float64 for floats and means, else
    the widest int of the signedness."""
    return dtypes.float64 if dt.is_float or kind == "mean" else \
        dtypes.uint64 if dt in _KEPT_UNSIGNED else dtypes.int64


def _loops_leading(kind: str, a: list[Name], node: Any, out: str,
                   fresh: Callable[[str], str]) -> list[Stmt]:
    """A reduction of leading axes (a bias's gradient sums the rows): each row is added
    into a row of accumulators, reading memory in order, where a column at a time strides
    through it waiting on one accumulator. Each column sums its elements in the same order
    (the same float64 result)."""
    x, o = in_type(node), out_type(node)
    axes = _axes(node.attr["axis"], x.ndim)
    kept = [d for d in range(x.ndim) if d not in axes]
    src, acc = a[0], Name(fresh("acc"))
    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    if kind in ("max", "min"):  # from the first row, as a column at a time starts
        loops.emit(Assign(acc, call(Fn.METHOD_COPY, src[(Lit(0),) * len(axes)])))
    else:
        wide = _wide(kind, x.dtype)
        shape = [x.shape[d] for d in kept]
        loops.emit(Assign(acc, (ones if kind == "prod" else zeros)(shape, wide)))

    def cell(at: dict[int, str]) -> Expr:  # the accumulator of the current column
        return acc[tuple(Name(at[d]) for d in kept)]

    rows = loops.open(x.shape, axes, role=Role.REDUCE)
    at = loops.open(x.shape, kept, role=Role.PARALLEL)
    loops.take(kind, cell(at), src[element_at({**rows, **at}, x.ndim)])
    loops.close(at)
    loops.close(rows)
    at = loops.open(x.shape, kept, role=Role.PARALLEL)
    count = math.prod(x.shape[d] for d in axes)
    result = cell(at) if kind != "mean" else cell(at) / count
    where = reduced_at(at, x.ndim, axes, bool(node.attr["keep_dims"]))
    loops.emit(Store(Name(out)[where], Cast(o.dtype, result)))
    loops.close(at)
    if o.dtype.np_name in ("float32", "float64"):  # the accumulators rounded into it
        cells, unsafe = reshape(acc, o.shape), ("casting", Lit("unsafe"))
        loops.instead(at, Eval(Call(Fn.DIVIDE, (cells, Lit(count)), (("out", Name(out)), unsafe))
                               if kind == "mean" else
                               Call(Fn.COPYTO, (Name(out), cells), (unsafe,))))
    return loops.lines


def _loops_arg(kind: str) -> Callable[..., list[Stmt]]:
    """The first extreme wins; the first NaN beats every number (numpy's rule)."""
    def emit(a: list[Expr], node: Any, out: str, fresh: Callable[[str], str]) -> list[Stmt]:
        x, o = in_type(node), out_type(node)
        axis = _arg_axis(node.attr["axis"], x.ndim)
        axes = tuple(range(x.ndim)) if axis is None else (axis,)
        keep = bool(node.attr["keep_dims"])
        src = a[0]
        best, at, v = Name(fresh("best")), Name(fresh("at")), Name(fresh("a"))
        loops = Loops(fresh)
        loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
        kept = loops.open(x.shape, [d for d in range(x.ndim) if d not in axes],
                          role=Role.PARALLEL)
        loops.emit(Assign(best, src[element_at(kept, x.ndim)]))
        loops.emit(Assign(at, Lit(0)))
        red = loops.open(x.shape, axes, role=Role.REDUCE)
        loops.emit(Assign(v, src[element_at({**kept, **red}, x.ndim)]))
        wins = gt(v, best) if kind == "argmax" else lt(v, best)
        loops.emit(Branch(either(wins, both(ne(v, v), eq(best, best))),
                          (Assign(Tuple((best, at)), Tuple((v, _flat(red, x.shape, axes)))),)))
        loops.close(red)
        loops.emit(Store(Name(out)[reduced_at(kept, x.ndim, axes, keep)], at))
        loops.close(kept)
        return loops.lines
    return emit


def _flat(red: dict[int, str], shape: tuple[int, ...], axes: tuple[int, ...]) -> Expr:
    """The position in C order, among the elements of ``axes``, of the one the loops
    ``red`` are at: ``j0 * n1 + j1``."""
    terms: list[Expr] = []
    for d in axes:
        stride = math.prod(shape[e] for e in axes if e > d)
        terms.append(Name(red[d]) if stride == 1 else Name(red[d]) * stride)
    flat = terms[0] if terms else Lit(0)
    for t in terms[1:]:
        flat = flat + t
    return flat




def _lowering(kind: str) -> dict[str, Lowering]:
    if kind.startswith("arg"):
        return {"numba": LoopNest(_loops_arg(kind)),
                "python": ArrayExpr(_emit_arg(kind))}
    lowering: dict[str, Lowering] = {"numba": LoopNest(_loops_reduction(kind)),
                                     "python": ArrayExpr(_emit_reduction(kind))}
    if kind in cuda_lowering.REDUCE:
        lowering["cuda"] = cuda_lowering.REDUCE[kind]
    return lowering


def _widen_int(dt: DType) -> DType:
    """MindSpore's sum of uint16/32/64 keeps the type; other ints and bool give int64."""
    return dt if dt.is_float or dt in _KEPT_UNSIGNED else dtypes.int64


_KEPT_UNSIGNED = (dtypes.uint16, dtypes.uint32, dtypes.uint64)


def _mean_dtype(dt: DType) -> DType:
    return dt if dt.is_float else dtypes.float32


def _same(dt: DType) -> DType:
    return dt


_REDUCE_ATTRS = (Attr("axis", ()), Attr("keep_dims", False))


def _reduction(name: str, kind: str, fn: Callable[..., Any],
               out_dtype: Callable[[DType], DType], *, nonempty: bool = False,
               vjp: Callable[..., Any] | None = None) -> Primitive:
    """``fn(array, axes, keepdims, out_dtype)`` computes the numpy reduction; ``kind`` is
    its numpy name, which the lowerings use."""
    def infer(x: Type, *, axis: Any, keep_dims: bool) -> Type:
        t = want_tensor(x)
        axes = _axes(axis, t.ndim)
        keep = want_bool(keep_dims, "keep_dims")
        if nonempty:
            _check_nonempty(t, axes)
        return TensorType(out_dtype(t.dtype), reduced_shape(t.shape, axes, keep))

    def impl(x: Any, *, axis: Any, keep_dims: bool) -> Any:
        arr = np.asarray(x)
        out = out_dtype(dtypes.from_numpy(arr.dtype))
        return fn(arr, _axes(axis, arr.ndim), bool(keep_dims), out)

    return register(Primitive(name, infer, impl, _lowering(kind), attrs=_REDUCE_ATTRS, vjp=vjp,
                              batch=batch_reduction))


def batch_reduction(b: Any, prim: Any, args: Any, dims: Any, *, axis: Any,
                    keep_dims: bool) -> tuple[Any, int]:
    """The example's axes, one further right past the batch axis (a 0-d example reduces
    nothing: ``on_rows``)."""
    x, d = args[0], dims[0]
    ndim = example_ndim(x, d)
    if ndim == 0:
        return on_rows(b, prim, x, d, axis=(1,), keep_dims=False)
    axes = tuple(a + 1 for a in _axes(axis, ndim))
    return b.emit(prim, move_to_front(b, x, d), axis=axes, keep_dims=keep_dims), 0


def _sum(a: np.ndarray, axes: tuple[int, ...], keep: bool, out: DType) -> np.ndarray:
    return np.sum(a, axis=axes, keepdims=keep, dtype=out.np)


def _mean(a: np.ndarray, axes: tuple[int, ...], keep: bool, out: DType) -> np.ndarray:
    # NOTE: integer means accumulate in float64 and are then narrowed to float32.
    acc = None if a.dtype.kind == "f" else np.float64
    with np.errstate(all="ignore"):
        return np.mean(a, axis=axes, keepdims=keep, dtype=acc)


def _max(a: np.ndarray, axes: tuple[int, ...], keep: bool, out: DType) -> np.ndarray:
    return np.max(a, axis=axes, keepdims=keep)


def _min(a: np.ndarray, axes: tuple[int, ...], keep: bool, out: DType) -> np.ndarray:
    return np.min(a, axis=axes, keepdims=keep)


def _prod(a: np.ndarray, axes: tuple[int, ...], keep: bool, out: DType) -> np.ndarray:
    return np.prod(a, axis=axes, keepdims=keep, dtype=out.np)


def _vjp_mean(b: Any, g: Any, x: Any, *, out: Any, axis: Any, keep_dims: bool) -> tuple[Any]:
    """The sum's rule on ``g`` divided by the number of elements each mean averages."""
    if not is_float_tensor(x):
        return (None,)
    shape = tensor_of(x.type).shape
    count = math.prod(shape[a] for a in _axes(axis, len(shape)))
    return vjp_reduce_sum(b, b.div(g, float(count)), x, out, axis=axis, keep_dims=keep_dims)


def _vjp_extremum(b: Any, g: Any, x: Any, *, out: Any, axis: Any,
                  keep_dims: bool) -> tuple[Any]:
    """ReduceMax/ReduceMin: the gradient is split equally among the elements equal to the
    extreme (as MindSpore's and JAX's rules do), so ties share it and it sums to ``g``."""
    if not is_float_tensor(x):
        return (None,)
    xt = tensor_of(x.type)
    axes = _axes(axis, xt.ndim)
    hit = b.cast(b.equal(x, unreduce(b, out, x, axes)), dtype=xt.dtype)
    count = b.reduce_sum(hit, axis=axes, keep_dims=True)
    return (b.mul(hit, b.div(unreduce(b, g, x, axes), count)),)


def _vjp_prod(b: Any, g: Any, x: Any, *, out: Any, axis: Any, keep_dims: bool) -> tuple[Any]:
    """d prod / dx_i is the product of the other elements. Not ``out / x``, which is nan
    where x_i is 0: with no zero it is that; with one zero the zero's own entry is the
    product of the nonzero elements and the others are 0; with two or more, all are 0."""
    if not is_float_tensor(x):
        return (None,)
    axes = _axes(axis, tensor_of(x.type).ndim)
    zero = b.equal(x, 0)
    safe = b.select(zero, 1.0, x)
    rest = b.reduce_prod(safe, axis=axes, keep_dims=True)  # the product of the nonzeros
    zeros = b.reduce_sum(b.cast(zero, dtype=dtypes.int32), axis=axes, keep_dims=True)
    others = b.select(b.equal(zeros, 0), b.div(rest, safe),
                      b.select(b.logical_and(zero, b.equal(zeros, 1)), rest, 0.0))
    return (b.mul(unreduce(b, g, x, axes), others),)


reduce_sum = _reduction("ReduceSum", "sum", _sum, _widen_int, vjp=vjp_reduce_sum)
reduce_mean = _reduction("ReduceMean", "mean", _mean, _mean_dtype, vjp=_vjp_mean)
reduce_max = _reduction("ReduceMax", "max", _max, _same, nonempty=True, vjp=_vjp_extremum)
reduce_min = _reduction("ReduceMin", "min", _min, _same, nonempty=True, vjp=_vjp_extremum)
reduce_prod = _reduction("ReduceProd", "prod", _prod, _widen_int, vjp=_vjp_prod)


# --- CumSum: running sums along one axis ---------------------------------------------------


def _cumsum_infer(x: Type, *, axis: int, exclusive: bool, reverse: bool) -> Type:
    t = want_tensor(x)
    if t.ndim == 0 or t.dtype == dtypes.bool_:
        raise GraphTypeError(f"the input must be a numeric tensor of rank 1 or more, but got {x}")
    norm_axes((want_int(axis, "axis"),), t.ndim)
    want_bool(exclusive, "exclusive")
    want_bool(reverse, "reverse")
    return t


def _cumsum_impl(x: Any, *, axis: int, exclusive: bool, reverse: bool) -> Any:
    arr = np.asarray(x)
    return _rt_cumsum(arr, axis % arr.ndim, bool(exclusive), bool(reverse))


def _emit_cumsum(a: list[Expr], node: Any) -> Expr:
    axis = node.attr["axis"] % node.inputs[0].type.ndim
    return Helper("_rt_cumsum", (a[0], Lit(axis), Lit(bool(node.attr["exclusive"])),
                                 Lit(bool(node.attr["reverse"]))))


def _vjp_cumsum(b: Any, g: Any, x: Any, *, out: Any, axis: int, exclusive: bool,
                reverse: bool) -> tuple[Any]:
    """Each input element reaches the sums after it (before it, reversed): the cotangent
    summed the other way."""
    return (b.emit(cumsum, g, axis=axis, exclusive=exclusive, reverse=not reverse),)


def _batch_cumsum(b: Any, prim: Any, args: Any, dims: Any, *, axis: int, exclusive: bool,
                  reverse: bool) -> tuple[Any, int]:
    x, d = args[0], dims[0]
    ndim = example_ndim(x, d)
    if ndim == 0:
        return on_rows(b, prim, x, d, axis=1, exclusive=exclusive, reverse=reverse)
    return b.emit(prim, move_to_front(b, x, d), axis=norm_axis(axis, ndim) + 1,
                  exclusive=exclusive, reverse=reverse), 0


cumsum = register(Primitive("CumSum", _cumsum_infer, _cumsum_impl,
                            on_all_targets(ArrayExpr(_emit_cumsum)),
                            attrs=(Attr("axis"), Attr("exclusive", False), Attr("reverse", False)),
                            cost=2, vjp=_vjp_cumsum, batch=_batch_cumsum))


# --- Argmax / Argmin ------------------------------------------------------------------


def _arg_axis(axis: Any, ndim: int) -> int | None:
    """None means the flattened tensor; a 0-d tensor accepts axis 0/-1 as None."""
    if axis is None:
        return None
    a = norm_axis(want_int(axis, "axis"), ndim)
    return None if ndim == 0 else a


def _arg_infer(x: Type, *, axis: Any, keep_dims: bool) -> Type:
    t = want_tensor(x)
    a = _arg_axis(axis, t.ndim)
    keep = want_bool(keep_dims, "keep_dims")
    if t.size == 0:
        raise ShapeError(f"cannot take the index of an extreme of the empty shape {t.shape}")
    axes = tuple(range(t.ndim)) if a is None else (a,)
    return TensorType(dtypes.int64, reduced_shape(t.shape, axes, keep))


def _batch_arg(b: Any, prim: Any, args: Any, dims: Any, *, axis: Any,
               keep_dims: bool) -> tuple[Any, int]:
    """The example's axis past the batch axis; with no axis, over each flattened example."""
    x, d = args[0], dims[0]
    ndim = example_ndim(x, d)
    x = move_to_front(b, x, d)
    a = _arg_axis(axis, ndim)
    if a is not None:
        return b.emit(prim, x, axis=a + 1, keep_dims=keep_dims), 0
    shape = tensor_of(x.type).shape
    flat = b.reshape(x, shape=(shape[0], math.prod(shape[1:])))
    out = b.emit(prim, flat, axis=1, keep_dims=False)
    return (b.reshape(out, shape=shape[:1] + (1,) * ndim) if keep_dims else out), 0


def _arg(name: str, kind: str, fn: Callable[..., np.ndarray]) -> Primitive:
    def impl(x: Any, *, axis: Any, keep_dims: bool) -> Any:
        arr = np.asarray(x)
        return fn(arr, axis=_arg_axis(axis, arr.ndim), keepdims=bool(keep_dims))

    return register(Primitive(name, _arg_infer, impl, _lowering(kind),
                              attrs=(Attr("axis", None), Attr("keep_dims", False)),
                              batch=_batch_arg))


argmax = _arg("Argmax", "argmax", np.argmax)
argmin = _arg("Argmin", "argmin", np.argmin)


