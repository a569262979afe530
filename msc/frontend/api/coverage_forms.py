"""MindSpore's functional ops that are another name for, or a short composition of, ops
msc has: old aliases (``tensor_add``, ``reduce_sum``), matrix products with scaling
(``addmm``, ``baddbmm``), stacking and splitting helpers (``hstack``, ``tensor_split``),
NaN-aware reductions, and small elementwise forms (``invert``, ``logit``, ``fast_gelu``).

Being compositions, they run eagerly and in graphs on both targets, with gradients and
vmap from the primitives they are built of. Their Tensor methods are in
``coverage_methods``.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.frontend.api import functional as F
from msc.frontend.api import functional_array as A
from msc.frontend.api.functional import _as_tensor, _axis_of, _checking, _type_of
from msc.common.tensor import Tensor, apply
from msc.ir import dtypes
from msc.ir.primitives import Op

# --- old names of elementwise ops ------------------------------------------------------


def _binary(prim: Any, doc: str) -> Any:
    def form(input: Any, other: Any) -> Any:
        return apply(prim, input, other)

    form.__doc__ = doc
    return form


tensor_add = _binary(Op.Add, "``ops.add`` under its old name.")
tensor_sub = _binary(Op.Sub, "``ops.sub`` under its old name.")
tensor_mul = _binary(Op.Mul, "``ops.mul`` under its old name.")
tensor_div = _binary(Op.Div, "``ops.div`` under its old name.")
tensor_floordiv = floordiv = _binary(Op.FloorDiv, "``ops.floor_divide`` under old names.")
tensor_mod = floormod = _binary(Op.FloorMod, "``ops.floor_mod`` under old names.")
tensor_ge = _binary(Op.GreaterEqual, "``ops.ge`` under its old name.")
tensor_gt = _binary(Op.Greater, "``ops.gt`` under its old name.")
tensor_le = _binary(Op.LessEqual, "``ops.le`` under its old name.")
tensor_lt = _binary(Op.Less, "``ops.lt`` under its old name.")


def tensor_exp(input: Any) -> Any:
    return apply(Op.Exp, input)


def tensor_expm1(input: Any) -> Any:
    return apply(Op.Expm1, input)


def _reduce(prim: Any) -> Any:
    def form(x: Any, axis: Any = ()) -> Any:
        return apply(prim, x, axis=F._reduce_axes(x, axis, prim), keep_dims=False)

    form.__doc__ = f"The {prim.name} primitive over ``axis`` (() for all), dims dropped."
    return form


reduce_sum = _reduce(Op.ReduceSum)
reduce_mean = _reduce(Op.ReduceMean)
reduce_max = _reduce(Op.ReduceMax)
reduce_min = _reduce(Op.ReduceMin)


# --- small elementwise compositions -------------------------------------------------------


def _float_only(x: Any, op: str) -> Tensor:
    x = _as_tensor(x, op)
    if not x.dtype.is_float:
        with _checking(op):
            raise GraphTypeError(f"the input must be a float tensor, but got {x.dtype}")
    return x


def invert(x: Any) -> Any:
    """Bitwise NOT of an integer tensor: XOR with all bits set."""
    t = _as_tensor(x, "invert")
    if not t.dtype.is_int:
        with _checking("invert"):
            raise GraphTypeError(f"the input must be an integer tensor, but got {t.dtype}")
    return apply(Op.BitwiseXor, t, Tensor(np.invert(np.zeros((), t.dtype.np))))


def inv(x: Any) -> Any:
    """``1 / x``; integer inputs keep their dtype, the quotient truncated toward zero."""
    t = _as_tensor(x, "inv")
    if t.dtype.is_float:
        return apply(Op.Reciprocal, t)
    return F.div(F.ones_like(t), t, rounding_mode="trunc")


def sgn(input: Any) -> Any:
    """The sign of a real tensor (``ops.sign``)."""
    return apply(Op.Sign, input)


def logit(input: Any, eps: float | None = None) -> Any:
    """``log(x / (1 - x))``, ``x`` first clamped to [eps, 1 - eps] when ``eps`` is given."""
    x = _float_only(input, "logit")
    if eps is not None:
        x = F.clamp(x, eps, 1.0 - eps)
    return apply(Op.Log, x / (1.0 - x))


def fast_gelu(x: Any) -> Any:
    """GELU's sigmoid approximation, written so that no exp overflows:
    ``x * exp(0.851 (x - |x|)) / (1 + exp(-1.702 |x|))``."""
    t = _float_only(x, "fast_gelu")
    ax = apply(Op.Abs, t)
    return t * apply(Op.Exp, 0.851 * (t - ax)) / (1.0 + apply(Op.Exp, -1.702 * ax))


def approximate_equal(x: Any, y: Any, tolerance: float = 1e-5) -> Any:
    return apply(Op.Abs, apply(Op.Sub, x, y)) < tolerance


def isposinf(input: Any) -> Any:
    return apply(Op.LogicalAnd, apply(Op.IsInf, input), input > 0)


def isneginf(input: Any) -> Any:
    return apply(Op.LogicalAnd, apply(Op.IsInf, input), input < 0)


def isreal(input: Any) -> Any:
    """msc tensors are real: all True."""
    return F.ones_like(_as_tensor(input, "isreal"), dtype=dtypes.bool_)


def real(input: Any) -> Any:
    return _as_tensor(input, "real")


conj = real


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Any) -> bool:
    return _as_tensor(input, "is_floating_point").dtype.is_float


def is_complex(input: Any) -> bool:
    _as_tensor(input, "is_complex")
    return False


def full_like(input: Any, fill_value: Any, *, dtype: dtypes.DType | None = None) -> Any:
    x = _as_tensor(input, "full_like")
    return F.fill(dtype or x.dtype, x.shape, fill_value)


def view_as(input: Any, other: Any) -> Any:
    return F.reshape(input, _as_tensor(other, "view_as").shape)


def type_as(input: Any, other: Any) -> Any:
    return F.cast(input, _as_tensor(other, "type_as").dtype)


# --- matrix products ------------------------------------------------------------------


def _want_rank(x: Any, rank: int, what: str, op: str) -> Tensor:
    t = _as_tensor(x, op)
    if t.ndim != rank:
        with _checking(op):
            raise ShapeError(f"{what} must be {rank}-D, but got shape {t.shape}")
    return t


def mm(input: Any, mat2: Any) -> Any:
    return apply(Op.MatMul, _want_rank(input, 2, "input", "mm"), _want_rank(mat2, 2, "mat2", "mm"))


def mv(mat: Any, vec: Any) -> Any:
    return F.matmul(_want_rank(mat, 2, "mat", "mv"), _want_rank(vec, 1, "vec", "mv"))


def ger(input: Any, vec2: Any) -> Any:
    """The outer product of two float vectors."""
    a, b = _float_only(input, "ger"), _float_only(vec2, "ger")
    return F.reshape(_want_rank(a, 1, "input", "ger"), (-1, 1)) * _want_rank(b, 1, "vec2", "ger")


def _scaled_sum(input: Any, product: Any, beta: Any, alpha: Any) -> Any:
    """``beta * input + alpha * product``, skipping the factors that are 1."""
    scaled = product if isinstance(alpha, (int, float)) and alpha == 1 else product * alpha
    base = input if isinstance(beta, (int, float)) and beta == 1 else input * beta
    return base + scaled


def addmm(input: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    return _scaled_sum(input, mm(mat1, mat2), beta, alpha)


def addmv(input: Any, mat: Any, vec: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    return _scaled_sum(input, mv(mat, vec), beta, alpha)


def addr(x: Any, vec1: Any, vec2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    a = _want_rank(vec1, 1, "vec1", "addr")
    b = _want_rank(vec2, 1, "vec2", "addr")
    return _scaled_sum(x, F.reshape(a, (-1, 1)) * b, beta, alpha)


def baddbmm(input: Any, batch1: Any, batch2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    b1 = _want_rank(batch1, 3, "batch1", "baddbmm")
    return _scaled_sum(input, apply(Op.BatchMatMul, b1, _want_rank(batch2, 3, "batch2", "baddbmm")),
                       beta, alpha)


def addbmm(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]``."""
    b1 = _want_rank(batch1, 3, "batch1", "addbmm")
    prod = apply(Op.BatchMatMul, b1, _want_rank(batch2, 3, "batch2", "addbmm"))
    return _scaled_sum(input, F.sum(prod, 0), beta, alpha)


def vecdot(x: Any, y: Any, *, axis: int = -1) -> Any:
    return F.sum(apply(Op.Mul, x, y), axis)


# --- stacking, splitting, shape helpers -----------------------------------------------------


def _at_least(inputs: Any, rank: int, op: str) -> Any:
    def one(x: Any) -> Any:
        t = _as_tensor(x, op)
        if t.ndim >= rank:
            return t
        shape = {0: (1,) * rank, 1: (1, -1) + (1,) * (rank - 2), 2: t.shape + (1,)}[t.ndim]
        return F.reshape(t, shape)

    if isinstance(inputs, (tuple, list)):
        return tuple(one(x) for x in inputs)
    return one(inputs)


def atleast_1d(inputs: Any) -> Any:
    return _at_least(inputs, 1, "atleast_1d")


def atleast_2d(inputs: Any) -> Any:
    return _at_least(inputs, 2, "atleast_2d")


def atleast_3d(inputs: Any) -> Any:
    """Vectors become (1, n, 1), matrices (m, n, 1), as numpy does."""
    return _at_least(inputs, 3, "atleast_3d")


def hstack(tensors: Any) -> Any:
    ts = atleast_1d(tuple(tensors))
    return F.concat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(inputs: Any) -> Any:
    return F.concat(atleast_2d(tuple(inputs)), 0)


row_stack = vstack


def dstack(tensors: Any) -> Any:
    return F.concat(atleast_3d(tuple(tensors)), 2)


def column_stack(tensors: Any) -> Any:
    ts = tuple(F.reshape(t, (-1, 1)) if _as_tensor(t, "column_stack").ndim < 2 else t
               for t in tensors)
    return F.concat(ts, 1)


def swapdims(input: Any, dim0: int, dim1: int) -> Any:
    return A.swapaxes(input, dim0, dim1)


def tensor_split(input: Any, indices_or_sections: Any, axis: int = 0) -> tuple[Any, ...]:
    """Sections of nearly equal size (the first ones one longer), or the pieces between
    the given indices."""
    x = _as_tensor(input, "tensor_split")
    axis = _axis_of(x, axis, "tensor_split")
    n = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)) and not isinstance(
            indices_or_sections, bool):
        parts = int(indices_or_sections)
        if parts <= 0:
            with _checking("tensor_split"):
                raise GraphValueError(f"the number of sections must be positive, but got "
                                      f"{parts}")
        size, extra = divmod(n, parts)
        bounds = np.cumsum([0] + [size + (i < extra) for i in range(parts)]).tolist()
    elif isinstance(indices_or_sections, (tuple, list)):
        cuts = [builtins.min(builtins.max(int(i) + (n if int(i) < 0 else 0), 0), n)
                for i in indices_or_sections]
        bounds = [0] + cuts + [n]
    else:
        with _checking("tensor_split"):
            raise GraphTypeError(f"indices_or_sections must be an int or a list of ints, "
                                 f"but got {type(indices_or_sections).__name__}")
    return tuple(A._narrow(x, axis, lo, builtins.max(lo, hi))
                 for lo, hi in zip(bounds[:-1], bounds[1:]))


def _split_along(input: Any, indices_or_sections: Any, axis: int, rank: int, op: str) -> Any:
    x = _as_tensor(input, op)
    if x.ndim < rank:
        with _checking(op):
            raise ShapeError(f"the input must have at least {rank} dims, but got {x.ndim}")
    if isinstance(indices_or_sections, int) and x.shape[axis] % indices_or_sections:
        with _checking(op):
            raise GraphValueError(f"dim {axis} (size {x.shape[axis]}) does not split into "
                                  f"{indices_or_sections} equal sections")
    return tensor_split(x, indices_or_sections, axis)


def hsplit(input: Any, indices_or_sections: Any) -> tuple[Any, ...]:
    x = _as_tensor(input, "hsplit")
    return _split_along(x, indices_or_sections, 0 if x.ndim == 1 else 1, 1, "hsplit")


def vsplit(input: Any, indices_or_sections: Any) -> tuple[Any, ...]:
    return _split_along(input, indices_or_sections, 0, 2, "vsplit")


def dsplit(input: Any, indices_or_sections: Any) -> tuple[Any, ...]:
    return _split_along(input, indices_or_sections, 2, 3, "dsplit")


def reverse(x: Any, axis: Any) -> Any:
    return A.flip(x, axis)


def rot90(input: Any, k: int, dims: Any) -> Any:
    """Rotated by ``k`` quarter turns from ``dims[0]`` toward ``dims[1]``."""
    x = _as_tensor(input, "rot90")
    a, b = (_axis_of(x, d, "rot90") for d in dims)
    if a == b:
        with _checking("rot90"):
            raise GraphValueError(f"the dims must differ, but got {tuple(dims)}")
    k %= 4
    if k == 0:
        return x
    if k == 2:
        return A.flip(x, (a, b))
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    if k == 1:
        return F.transpose(A.flip(x, (b,)), tuple(perm))
    return A.flip(F.transpose(x, tuple(perm)), (b,))


def diagonal(input: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    """The ``offset`` diagonal of dims ``dim1`` and ``dim2``, as the last dim."""
    x = _as_tensor(input, "diagonal")
    a, b = _axis_of(x, dim1, "diagonal"), _axis_of(x, dim2, "diagonal")
    if a == b:
        with _checking("diagonal"):
            raise GraphValueError(f"dim1 and dim2 must differ, but got {dim1} and {dim2}")
    keep = [d for d in range(x.ndim) if d not in (a, b)]
    rows, cols = x.shape[a], x.shape[b]
    start_r, start_c = builtins.max(-offset, 0), builtins.max(offset, 0)
    length = builtins.max(builtins.min(rows - start_r, cols - start_c), 0)
    flat = F.reshape(F.transpose(x, tuple(keep + [a, b])),
                     tuple(x.shape[d] for d in keep) + (rows * cols,))
    index = (np.arange(length) + start_r) * cols + np.arange(length) + start_c
    return F.gather(flat, Tensor(index.astype(np.int32)), len(keep))


def diagflat(input: Any, offset: int = 0) -> Any:
    """A square matrix with the flattened input on its ``offset`` diagonal."""
    v = F.reshape(_as_tensor(input, "diagflat"), (-1,))
    k = v.shape[0]
    n = k + abs(offset)
    rows, cols = np.indices((n, n))
    where = cols - rows == offset
    if not k:
        return F.zeros((n, n), v.dtype)
    picks = np.where(where, np.minimum(rows, cols), 0).astype(np.int32)
    return F.select(Tensor(where), F.gather(v, Tensor(picks), 0), F.zeros((n, n), v.dtype))


def take(input: Any, index: Any) -> Any:
    """Elements of the flattened input at ``index`` (the result has index's shape)."""
    return F.gather(F.reshape(input, (-1,)), index, 0)


def _indices(row: int, col: int, offset: int, lower: bool, dtype: Any) -> Any:
    r, c = np.indices((row, col))
    keep = (c - r <= offset) if lower else (c - r >= offset)
    return Tensor(np.stack([r[keep], c[keep]]).astype((dtype or dtypes.int64).np))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None) -> Any:
    return _indices(row, col, offset, True, dtype)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None) -> Any:
    return _indices(row, col, offset, False, dtype)


def cartesian_prod(*inputs: Any) -> Any:
    grids = A.meshgrid(*inputs, indexing="ij")
    return F.stack(tuple(F.reshape(g, (-1,)) for g in grids), 1)


# --- reductions -----------------------------------------------------------------------


def count_nonzero(x: Any, axis: Any = (), keep_dims: bool = False,
                  dtype: Any = dtypes.int32) -> Any:
    nonzero = F.cast(apply(Op.NotEqual, x, 0), dtypes.int32)
    return F.cast(F.sum(nonzero, axis if axis != () else None, keep_dims), dtype)


def _zero_nans(input: Any, op: str) -> Tensor:
    x = _as_tensor(input, op)
    return A.masked_fill(x, apply(Op.IsNan, x), 0) if x.dtype.is_float else x


def nansum(input: Any, axis: Any = None, keepdims: bool = False, *, dtype: Any = None) -> Any:
    return F.sum(_zero_nans(input, "nansum"), axis, keepdims, dtype=dtype)


def nanmean(input: Any, axis: Any = None, keepdims: bool = False, *, dtype: Any = None) -> Any:
    x = _as_tensor(input, "nanmean")
    total = nansum(x, axis, keepdims, dtype=dtype)
    count = F.sum(F.cast(apply(Op.LogicalNot, apply(Op.IsNan, x)), total.dtype), axis, keepdims)
    return total / count


def aminmax(input: Any, *, axis: int = 0, keepdims: bool = False) -> tuple[Any, Any]:
    return F.amin(input, axis, keepdims), F.amax(input, axis, keepdims)


def diff(x: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """``n``-th forward differences along ``axis`` (bools: where neighbours differ)."""
    t = _as_tensor(x, "diff")
    ax = _axis_of(t, axis, "diff")
    parts = [p for p in (prepend, t, append) if p is not None]
    t = F.concat(tuple(parts), ax) if len(parts) > 1 else t
    for _ in range(n):
        m = t.shape[ax]
        hi, lo = A._narrow(t, ax, 1, m), A._narrow(t, ax, 0, m - 1)
        t = apply(Op.NotEqual, hi, lo) if t.dtype == dtypes.bool_ else hi - lo
    return t


def trapz(y: Any, x: Any = None, *, dx: float = 1.0, dim: int = -1) -> Any:
    """The trapezoid rule along ``dim``, over sample points ``x`` or spacing ``dx``."""
    t = _as_tensor(y, "trapz")
    ax = _axis_of(t, dim, "trapz")
    m = t.shape[ax]
    pair_sum = A._narrow(t, ax, 1, m) + A._narrow(t, ax, 0, m - 1)
    if x is None:
        return F.sum(pair_sum, ax) * (dx / 2)
    steps = diff(x, 1, -1 if _as_tensor(x, "trapz").ndim == 1 else dim)
    return F.sum(pair_sum * steps, ax) / 2


def logcumsumexp(input: Any, axis: int) -> Any:
    """``log(cumsum(exp(x)))`` with the maximum along ``axis`` factored out."""
    x = _float_only(input, "logcumsumexp")
    top = F.stop_gradient(F.amax(x, axis, True))
    return apply(Op.Log, F.cumsum(apply(Op.Exp, x - top), axis)) + top


def dist(input: Any, other: Any, p: Any = 2) -> Any:
    """The ``p``-norm of ``input - other``, flattened."""
    return A.norm(F.reshape(apply(Op.Sub, input, other), (-1,)), p)


def renorm(input: Any, p: Any, axis: int, maxnorm: float) -> Any:
    """Each slice along ``axis`` whose ``p``-norm exceeds ``maxnorm`` scaled down to it."""
    x = _float_only(input, "renorm")
    ax = _axis_of(x, axis, "renorm")
    others = tuple(d for d in range(x.ndim) if d != ax)
    norms = F.sum(apply(Op.Abs, x) ** p, others, True) ** (1.0 / p)
    scale = F.select(norms > maxnorm, maxnorm / (norms + 1e-7), F.ones_like(norms))
    return x * scale


def cross(input: Any, other: Any, dim: Any = None) -> Any:
    """The 3-vector cross product along ``dim`` (default: the first dim of size 3)."""
    a, b = _as_tensor(input, "cross"), _as_tensor(other, "cross")
    if dim is None:
        dim = next((d for d, n in enumerate(a.shape) if n == 3), None)
    if dim is None or a.shape[dim] != 3 or b.shape[_axis_of(b, dim, "cross")] != 3:
        with _checking("cross"):
            raise GraphValueError(f"the inputs need a dim of size 3, but got shapes {a.shape} "
                                  f"and {b.shape}")
    ax = _axis_of(a, dim, "cross")
    pa = [A._narrow(a, ax, i, i + 1) for i in range(3)]
    pb = [A._narrow(b, ax, i, i + 1) for i in range(3)]
    comps = [pa[(i + 1) % 3] * pb[(i + 2) % 3] - pa[(i + 2) % 3] * pb[(i + 1) % 3]
             for i in range(3)]
    return F.concat(tuple(comps), ax)


def top_k(input_x: Any, k: int, sorted: bool = True) -> tuple[Any, Any]:
    return A.topk(input_x, k)


def sequence_mask(lengths: Any, maxlen: Any = None) -> Any:
    """``mask[..., j] = j < lengths[...]``; ``maxlen`` defaults to the largest length
    (eagerly only: a graph needs the shape at compile time)."""
    t = _as_tensor(lengths, "sequence_mask")
    if maxlen is None:
        maxlen = int(np.max(t.asnumpy())) if t.size else 0
    steps = Tensor(np.arange(maxlen, dtype=t.dtype.np))
    return apply(Op.Less, steps, F.expand_dims(t, -1))


__all__ = [
    "tensor_add", "tensor_sub", "tensor_mul", "tensor_div", "tensor_floordiv", "floordiv",
    "tensor_mod", "floormod", "tensor_ge", "tensor_gt", "tensor_le", "tensor_lt",
    "tensor_exp", "tensor_expm1", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
    "invert", "inv", "sgn", "logit", "fast_gelu", "approximate_equal", "isposinf",
    "isneginf", "isreal", "real", "conj", "is_tensor", "is_floating_point", "is_complex",
    "full_like", "view_as", "type_as", "mm", "mv", "ger", "addmm", "addmv", "addr",
    "baddbmm", "addbmm", "vecdot", "atleast_1d", "atleast_2d", "atleast_3d", "hstack",
    "vstack", "row_stack", "dstack", "column_stack", "swapdims", "tensor_split", "hsplit",
    "vsplit", "dsplit", "reverse", "rot90", "diagonal", "diagflat", "take", "tril_indices",
    "triu_indices", "cartesian_prod", "count_nonzero", "nansum", "nanmean", "aminmax",
    "diff", "trapz", "logcumsumexp", "dist", "renorm", "cross", "top_k", "sequence_mask",
]
