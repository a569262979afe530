"""Contractions, products and distances: ``ops.einsum``, ``ops.tensor_dot``, ``ops.kron``,
``ops.matrix_power``, ``ops.median``, the matrix products with scaling (``addmm``,
``baddbmm``, ``mv``, ``ger``), norms and distances (``vector_norm``, ``dist``, ``cdist``,
``pdist``, ``cosine_similarity``, ``renorm``), ``cross``, and band and conjugate-transpose
matrix forms.

All are compositions of existing primitives (Transpose, Reshape, Gather, ReduceSum,
BatchMatMul, Mul, Sort), so gradients, vmap and both code-generation targets come from
those primitives' rules. Einsum contracts its operands left to right, one batched matrix
product per pair, after taking the diagonals of repeated labels and summing the labels
no later operand or the output needs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Tensor, apply
from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.array_func import sort
from msc.ops.function.manipulation_func import _fail
from msc.ops.function.math_func import _float_only
from msc.ops.function.arguments import _axis_of

_ELLIPSIS_BASE = 0x100  # labels for ellipsis dims: characters no equation can spell


# --- einsum -------------------------------------------------------------------------------


def _parse(equation: Any, operands: tuple[Tensor, ...]) -> tuple[list[list[str]], list[str]]:
    """Each operand's labels (one per dim; ellipsis dims get private labels, aligned to
    the right as broadcasting aligns them) and the output's labels."""
    if not isinstance(equation, str):
        raise GraphTypeError(f"the equation must be a str, but got {type(equation).__name__}")
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise GraphValueError(f"the equation has {len(terms)} operand terms, but "
                              f"{len(operands)} operands were given")
    labels, widest = [], 0
    for term, x in zip(terms, operands):
        head, dots, tail = term.partition("...")
        named = head + tail
        if "." in named or not all(c.isalpha() for c in named):
            raise GraphValueError(f"the equation term {term!r} may hold letters and one "
                                  f"'...' only")
        extra = x.ndim - len(named)
        if extra < 0 or (extra and not dots):
            raise GraphValueError(f"the term {term!r} does not match an operand of rank "
                                  f"{x.ndim}")
        widest = max(widest, extra)
        labels.append((list(head), extra, list(tail)))
    out_ell = [chr(_ELLIPSIS_BASE + i) for i in range(widest)]
    # Ellipsis labels count from the right, so a shorter ellipsis takes the last ones.
    labels = [head + out_ell[widest - extra:] + tail for head, extra, tail in labels]
    if arrow:
        if rhs.count("...") > 1 or "." in rhs.replace("...", ""):
            raise GraphValueError(f"the output term {rhs!r} may hold letters and one '...'")
        head, _, tail = rhs.partition("...")
        out = list(head) + (out_ell if "..." in rhs else []) + list(tail)
        seen = {c for term in labels for c in term}
        for c in out:
            if c not in seen:
                raise GraphValueError(f"the output label {c!r} is not in any operand")
        if len(set(out)) != len(out):
            raise GraphValueError(f"the output term {rhs!r} repeats a label")
    else:
        counts: dict[str, int] = {}
        for term in labels:
            for c in term:
                counts[c] = counts.get(c, 0) + 1
        out = out_ell + sorted(c for c, n in counts.items()
                               if n == 1 and ord(c) < _ELLIPSIS_BASE)
    return labels, out


def _diagonal(x: Any, a: int, b: int) -> Any:
    """The diagonal of dims ``a`` and ``b`` (equal sizes), as the last dim."""
    keep = [d for d in range(x.ndim) if d not in (a, b)]
    n = x.shape[a]
    moved = F.transpose(x, tuple(keep + [a, b]))
    flat = F.reshape(moved, tuple(x.shape[d] for d in keep) + (n * n,))
    return F.gather(flat, Tensor(np.arange(n, dtype=np.int32) * (n + 1)), len(keep))


def _take_diagonals(x: Any, labels: list[str]) -> tuple[Any, list[str]]:
    labels = list(labels)
    while len(set(labels)) != len(labels):
        c = next(c for c in labels if labels.count(c) > 1)
        a = labels.index(c)
        b = labels.index(c, a + 1)
        if x.shape[a] != x.shape[b]:
            raise ShapeError(f"the label {c!r} is repeated over dims of sizes "
                             f"{x.shape[a]} and {x.shape[b]}")
        x = _diagonal(x, a, b)
        labels = [lab for i, lab in enumerate(labels) if i not in (a, b)] + [c]
    return x, labels


def _sum_out(x: Any, labels: list[str], needed: set[str]) -> tuple[Any, list[str]]:
    drop = tuple(i for i, c in enumerate(labels) if c not in needed)
    if not drop:
        return x, labels
    return F.sum(x, drop), [c for c in labels if c in needed]


def _contract(a: Any, la: list[str], b: Any, lb: list[str],
              needed: set[str]) -> tuple[Any, list[str]]:
    """One batched matrix product: shared needed labels are the batch, shared unneeded
    ones the contracted dim, the rest the rows of ``a`` and the columns of ``b``."""
    batch = [c for c in la if c in lb and c in needed]
    summed = [c for c in la if c in lb and c not in needed]
    rows = [c for c in la if c not in lb]
    cols = [c for c in lb if c not in la]
    size = dict(zip(la, a.shape)) | dict(zip(lb, b.shape))
    count = lambda group: int(np.prod([size[c] for c in group], dtype=np.int64))  # noqa: E731
    a3 = F.reshape(F.transpose(a, tuple(la.index(c) for c in batch + rows + summed)),
                   (count(batch), count(rows), count(summed)))
    b3 = F.reshape(F.transpose(b, tuple(lb.index(c) for c in batch + summed + cols)),
                   (count(batch), count(summed), count(cols)))
    out = apply(Op.BatchMatMul, a3, b3)
    labels = batch + rows + cols
    return F.reshape(out, tuple(size[c] for c in labels)), labels


def _broadcast_labels(xs: list[Any], labels: list[list[str]]) -> list[Any]:
    """Operands whose dims of size 1 meet a larger size of the same label, broadcast."""
    size: dict[str, int] = {}
    for x, term in zip(xs, labels):
        for c, n in zip(term, x.shape):
            if size.get(c, 1) != 1 and n not in (1, size[c]):
                raise ShapeError(f"the label {c!r} has sizes {size[c]} and {n}")
            size[c] = max(size.get(c, 1), n)
    return [x if tuple(size[c] for c in term) == x.shape else
            F.broadcast_to(x, tuple(size[c] for c in term)) for x, term in zip(xs, labels)]


def einsum(equation: str, *operands: Any) -> Any:
    """Sums of products over the labelled dims of ``operands`` (numpy's einsum rules):
    explicit or implicit output, ``...`` for broadcast batch dims, repeated labels in a
    term for diagonals and traces. Float operands only, as MindSpore requires."""
    with _checking("einsum"):
        if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
            operands = tuple(operands[0])
        if not operands:
            raise GraphValueError("einsum needs at least one operand")
        xs = [_as_tensor(x, "einsum") for x in operands]
        for x in xs:
            if not x.dtype.is_float:
                raise GraphTypeError(f"the operands must be float16, float32 or float64, "
                                     f"but got {x.dtype}")
        labels, out = _parse(equation, tuple(xs))
        pairs = [_take_diagonals(x, term) for x, term in zip(xs, labels)]
        xs, labels = [p[0] for p in pairs], [p[1] for p in pairs]
        xs = _broadcast_labels(xs, labels)
        acc, acc_labels = xs[0], labels[0]
        for i in range(1, len(xs) + 1):
            later = set(out).union(*labels[i:]) if i < len(xs) else set(out)
            acc, acc_labels = _sum_out(acc, acc_labels, later | set(labels[i] if i < len(xs)
                                                                    else ()))
            if i == len(xs):
                break
            nxt, nxt_labels = _sum_out(xs[i], labels[i], later | set(acc_labels))
            acc, acc_labels = _contract(acc, acc_labels, nxt, nxt_labels,
                                        set(out).union(*labels[i + 1:]))
        perm = tuple(acc_labels.index(c) for c in out)
        return acc if perm == tuple(range(len(perm))) else F.transpose(acc, perm)


# --- tensor_dot, kron ------------------------------------------------------------------


def _dot_axes(axes: Any, r1: int, r2: int) -> tuple[list[int], list[int]]:
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        if not 0 <= axes <= min(r1, r2):
            raise GraphValueError(f"axes must be in [0, {min(r1, r2)}], but got {axes}")
        return list(range(r1 - axes, r1)), list(range(axes))
    if not isinstance(axes, (tuple, list)) or len(axes) != 2:
        raise GraphTypeError(f"axes must be an int or a pair of axis lists, but got {axes!r}")
    pick = [[a] if isinstance(a, int) else list(a) for a in axes]
    if len(pick[0]) != len(pick[1]):
        raise GraphValueError(f"axes must name as many dims of each input, but got {axes!r}")
    return ([a % r1 for a in pick[0]], [a % r2 for a in pick[1]])


def tensor_dot(x1: Any, x2: Any, axes: Any) -> Any:
    """Sum of products over ``axes`` (an int: the last of ``x1`` with the first of
    ``x2``; a pair: those dims); the free dims of ``x1`` then of ``x2``."""
    with _checking("tensor_dot"):
        a, b = _as_tensor(x1, "tensor_dot"), _as_tensor(x2, "tensor_dot")
        sa, sb = _dot_axes(axes, a.ndim, b.ndim)
        for i, j in zip(sa, sb):
            if a.shape[i] != b.shape[j]:
                raise GraphValueError(f"dim {i} of x1 ({a.shape[i]}) and dim {j} of x2 "
                                      f"({b.shape[j]}) must have the same size")
        free_a = [d for d in range(a.ndim) if d not in sa]
        free_b = [d for d in range(b.ndim) if d not in sb]
        k = int(np.prod([a.shape[d] for d in sa], dtype=np.int64))
        am = F.reshape(F.transpose(a, tuple(free_a + sa)), (-1, k))
        bm = F.reshape(F.transpose(b, tuple(sb + free_b)), (k, -1))
        out = apply(Op.MatMul, am, bm)
        return F.reshape(out, tuple(a.shape[d] for d in free_a) +
                         tuple(b.shape[d] for d in free_b))


def kron(input: Any, other: Any) -> Any:
    """The Kronecker product: every element of ``input`` times the whole of ``other``."""
    a, b = _as_tensor(input, "kron"), _as_tensor(other, "kron")
    rank = max(a.ndim, b.ndim)
    sa = (1,) * (rank - a.ndim) + a.shape
    sb = (1,) * (rank - b.ndim) + b.shape
    a2 = F.reshape(a, tuple(d for n in sa for d in (n, 1)))
    b2 = F.reshape(b, tuple(d for n in sb for d in (1, n)))
    return F.reshape(a2 * b2, tuple(m * n for m, n in zip(sa, sb)))


# --- matrix_power, median -----------------------------------------------------------------


def matrix_power(input: Any, n: int) -> Any:
    """``input`` (square in its last two dims) multiplied by itself ``n`` times by
    repeated squaring; ``n == 0`` gives identities. Negative ``n`` needs a matrix
    inverse, which msc does not have yet."""
    with _checking("matrix_power"):
        x = _as_tensor(input, "matrix_power")
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise GraphTypeError(f"n must be an int, but got {type(n).__name__}")
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise GraphValueError(f"the input must be square matrices, but got shape "
                                  f"{x.shape}")
        if n < 0:
            raise GraphValueError("a negative n needs a matrix inverse, which msc does not "
                                  "support yet")
    if n == 0:
        eye = Tensor(np.eye(x.shape[-1], dtype=x.dtype.np))
        return F.broadcast_to(eye, x.shape) + F.zeros_like(x)
    result, square = None, x
    while True:
        if n & 1:
            result = square if result is None else F.matmul(result, square)
        n >>= 1
        if not n:
            return result
        square = F.matmul(square, square)


def median(input: Any, axis: int = -1, keepdims: bool = False) -> tuple[Any, Any]:
    """(the lower median along ``axis``, its int64 index in ``input``); a row holding NaN
    gives NaN and the first NaN's index, as MindSpore 2.10 (and PyTorch) do."""
    with _checking("median"):
        x = _as_tensor(input, "median")
        if x.ndim == 0:
            return x, F.zeros((), dtypes.int64)
        axis = F._axis_of(x, axis, "median")
    values, index = sort(x, axis)
    k = (x.shape[axis] - 1) // 2
    key = (slice(None),) * axis + (slice(k, k + 1),)
    values, index = values[key], F.cast(index[key], dtypes.int64)
    if x.dtype.is_float:
        nan = F.isnan(x)
        seen = F.any(nan, axis, True)
        first = F.cast(F.argmax(F.cast(nan, dtypes.int32), axis, True), dtypes.int64)
        values = F.select(seen, apply(Op.GatherD, x, first, dim=axis), values)
        index = F.select(seen, first, index)
    if keepdims:
        return values, index
    return F.squeeze(values, axis), F.squeeze(index, axis)


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


def vector_norm(x: Any, ord: Any = 2, axis: Any = None, keepdims: bool = False, *,  # noqa: A002
                dtype: Any = None) -> Any:
    """The ``ord``-norm over ``axis`` (all dims by default): inf and -inf take the largest
    and smallest magnitude, 0 counts the non-zeros."""
    t = _as_tensor(x, "vector_norm")
    if dtype is not None:
        t = F.cast(t, dtype)
    elif not t.dtype.is_float:
        t = F.cast(t, dtypes.float32)
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        _fail("vector_norm", f"the 'ord' must be a number, but got {ord!r}.", GraphTypeError)
    axis = tuple(axis) if isinstance(axis, list) else axis
    size = apply(Op.Abs, t)
    if ord == np.inf:
        return F.amax(size, axis, keepdims)
    if ord == -np.inf:
        return F.amin(size, axis, keepdims)
    if ord == 0:
        return F.sum(F.cast(apply(Op.NotEqual, t, 0), t.dtype), axis, keepdims)
    if ord == 1:
        return F.sum(size, axis, keepdims)
    if ord == 2:
        return F.sqrt(F.sum(F.square(t), axis, keepdims))
    return F.sum(size ** ord, axis, keepdims) ** (1.0 / ord)


def _float_tensor(x: Any, op: str) -> Tensor:
    x = _as_tensor(x, op)
    if not x.dtype.is_float:
        with _checking(op):
            raise GraphTypeError(f"the input must be a float tensor, but got {x.dtype}")
    return x


def _number(value: Any, name: str, op: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise GraphTypeError(f"For '{op}', the '{name}' must be a number, but got "
                             f"{type(value).__name__}.")
    return float(value)


# --- distances ------------------------------------------------------------------------------


def cosine_similarity(x1: Any, x2: Any, dim: int = 1, eps: float = 1e-08) -> Any:
    """x1 . x2 / max(|x1| |x2|, eps) along ``dim``."""
    dot = F.sum(x1 * x2, dim)
    norms = A.norm(x1, 2, dim) * A.norm(x2, 2, dim)
    return dot / F.clamp(norms, eps)


def _p_norm(diff: Any, p: float, axis: int) -> Any:
    """The p-norm along ``axis``: 0 counts non-zeros, inf takes the largest."""
    if p == 0:
        return F.sum(F.cast(apply(Op.NotEqual, diff, 0), diff.dtype), axis)
    size = F.abs(diff)
    if p == float("inf"):
        return F.amax(size, axis)
    if p == 1:
        return F.sum(size, axis)
    if p == 2:
        return F.sqrt(F.sum(F.square(diff), axis))
    return F.sum(size ** p, axis) ** (1.0 / p)


def _check_p(p: Any, op: str) -> float:
    p = _number(p, "p", op)
    if p < 0:
        raise GraphValueError(f"For '{op}', the 'p' must be a non-negative value, but got "
                              f"{p}.")
    return p


def cdist(x1: Any, x2: Any, p: float = 2.0) -> Any:
    """The p-norm distance of each row of ``x1`` (..., P, M) to each row of ``x2``
    (..., R, M): (..., P, R)."""
    a, b = _float_tensor(x1, "cdist"), _float_tensor(x2, "cdist")
    p = _check_p(p, "cdist")
    if a.ndim not in (2, 3) or a.ndim != b.ndim or a.shape[-1] != b.shape[-1]:
        raise GraphValueError(f"For 'cdist', x1 and x2 must be 2-D or 3-D of the same rank "
                              f"and last dimension, but got {a.shape} and {b.shape}.")
    return _p_norm(F.expand_dims(a, -2) - F.expand_dims(b, -3), p, -1)


def pdist(input: Any, p: float = 2.0) -> Any:  # noqa: A002
    """The p-norm distances between the rows i < j of ``input`` (..., N, M), in row-major
    order of the pairs: (..., N (N - 1) / 2)."""
    x = _float_tensor(input, "pdist")
    p = _check_p(p, "pdist")
    if x.ndim < 2:
        raise GraphValueError(f"For 'pdist', the input must be at least 2-D, but got {x.ndim}.")
    first, second = np.triu_indices(x.shape[-2], 1)
    rows = (F.gather(x, Tensor(idx.astype(np.int32)), x.ndim - 2) for idx in (first, second))
    return _p_norm(next(rows) - next(rows), p, -1)


# --- matrices ---------------------------------------------------------------------------------


def adjoint(x: Any) -> Any:
    """The conjugate transpose of the last two dims (msc's tensors are real)."""
    return A.swapaxes(_as_tensor(x, "adjoint"), -1, -2)


def matrix_band_part(x: Any, lower: Any, upper: Any) -> Any:
    """Zeros outside the band of ``lower`` diagonals below and ``upper`` above the main one
    (a negative count keeps that whole triangle)."""
    x = _as_tensor(x, "matrix_band_part")
    if x.ndim < 2:
        raise GraphValueError(f"For 'MatrixBandPart', the input must be at least 2-D, but got "
                              f"{x.ndim}.")
    for name, value in (("lower", lower), ("upper", upper)):
        if isinstance(value, bool) or not isinstance(value, (int, Tensor)):
            raise GraphTypeError(f"For 'MatrixBandPart', the '{name}' must be an int or a "
                                 f"Tensor, but got {type(value).__name__}.")
    rows, cols = x.shape[-2:]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]  # j - i
    keep = apply(Op.LogicalAnd, _within(-offset, lower), _within(offset, upper))
    return F.select(F.broadcast_to(keep, x.shape), x, F.zeros_like(x))


def _within(offset: np.ndarray, count: Any) -> Any:
    """offset <= count, everywhere when count < 0; a constant for an int count."""
    if isinstance(count, int):
        return Tensor((offset <= count) | (count < 0))
    return apply(Op.LogicalOr, apply(Op.Less, count, 0),
                 apply(Op.LessEqual, Tensor(offset.astype(np.int64)), count))


def vander(x: Any, N: int | None = None) -> Any:  # noqa: N803
    """Columns x^(N-1), ..., x^1, x^0 of a 1-D ``x``."""
    if not isinstance(x, Tensor):
        raise GraphTypeError(f"For vander, x must be Tensor, but got {type(x)}")
    if x.ndim != 1:
        raise GraphValueError(f"For vander, x must be 1-D, but got dimension = {x.ndim}")
    n = x.shape[0] if N is None else N
    if isinstance(n, bool) or not isinstance(n, int):
        raise GraphTypeError(f"For vander, N must be an integer but got {type(n)}.")
    if n <= 0:
        raise GraphValueError(f"For vander, N must be greater than 0, but got {n}.")
    powers = Tensor(np.arange(n - 1, -1, -1, dtype=np.int64))  # int inputs give int64
    return F.pow(F.expand_dims(x, 1), F.expand_dims(powers, 0))


def _batch_dot_axes(x1: Tensor, x2: Tensor, axes: Any) -> tuple[int, int]:
    """MindSpore's rule: by default the last axis of x1 against the last (x2 2-d) or the
    one before (else) of x2; an int names the same axis of both (negative: from the end
    of each); axis 0 is the batch and cannot be contracted."""
    if axes is None:
        return x1.ndim - 1, x2.ndim - 1 if x2.ndim == 2 else x2.ndim - 2
    if isinstance(axes, (tuple, list)) and len(axes) == 2 and \
            all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        a, b = axes[0] % x1.ndim if axes[0] < 0 else axes[0], \
            axes[1] % x2.ndim if axes[1] < 0 else axes[1]
    elif isinstance(axes, int) and not isinstance(axes, bool):
        a, b = (axes + x1.ndim, axes + x2.ndim) if axes < 0 else (axes, axes)
    else:
        raise GraphValueError(f"the 'axes' must be an int or a pair of ints, but got {axes!r}")
    if 0 in (a, b) or not (0 < a < x1.ndim and 0 < b < x2.ndim):
        raise GraphValueError(f"the 'axes' must name a non-batch axis of each input, but got "
                              f"{axes!r} for ranks {x1.ndim} and {x2.ndim}")
    return a, b


def batch_dot(x1: Any, x2: Any, axes: Any = None) -> Any:
    """Per example of the first axis, the dot product of x1 and x2 over one axis of each:
    the result is (batch, x1's other axes, x2's other axes); a 2-d input's missing free
    axis is dropped again."""
    a1, a2 = _as_tensor(x1, "batch_dot"), _as_tensor(x2, "batch_dot")
    with _checking("batch_dot"):
        if a1.ndim < 2 or a2.ndim < 2 or a1.shape[0] != a2.shape[0]:
            raise ShapeError(f"the inputs must be at least 2-d with one batch size, but got "
                             f"shapes {a1.shape} and {a2.shape}")
        p, q = _batch_dot_axes(a1, a2, axes)
        if a1.shape[p] != a2.shape[q]:
            raise ShapeError(f"the contracted axes differ: {a1.shape[p]} and {a2.shape[q]}")
    squeeze = 1 if a1.ndim == 2 else (-1 if a2.ndim == 2 else None)
    if a1.ndim == 2:
        a1, p = F.expand_dims(a1, 1), p + 1
    if a2.ndim == 2:
        a2 = F.expand_dims(a2, 2)
    free1 = [i for i in range(1, a1.ndim) if i != p]
    free2 = [i for i in range(1, a2.ndim) if i != q]
    batch = a1.shape[0]
    left = F.reshape(F.transpose(a1, tuple([0] + free1 + [p])),
                     (batch, int(np.prod([a1.shape[i] for i in free1])), a1.shape[p]))
    right = F.reshape(F.transpose(a2, tuple([0, q] + free2)),
                      (batch, a2.shape[q], int(np.prod([a2.shape[i] for i in free2]))))
    out = F.reshape(apply(Op.BatchMatMul, left, right),
                    (batch,) + tuple(a1.shape[i] for i in free1) +
                    tuple(a2.shape[i] for i in free2))
    return out if squeeze is None else F.squeeze(out, squeeze)


__all__ = ["batch_dot", "mm", "mv", "ger", "addmm", "addmv", "addr", "baddbmm", "addbmm", "vecdot", "dist",
           "renorm", "cross", "einsum", "tensor_dot", "kron", "matrix_power", "median",
           "cosine_similarity", "cdist", "pdist", "adjoint", "matrix_band_part", "vander",
           "vector_norm"]
