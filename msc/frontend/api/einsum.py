"""``ops.einsum``, ``ops.tensor_dot``, ``ops.kron``, ``ops.matrix_power`` and ``ops.median``.

All are compositions of existing primitives (Transpose, Reshape, Gather, ReduceSum,
BatchMatMul, Mul, Sort), so gradients, vmap and both code-generation targets come from
those primitives' rules. Einsum contracts its operands left to right, one batched matrix
product per pair, after taking the diagonals of repeated labels and summing the labels
no later operand or the output needs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.frontend.api import functional as F
from msc.frontend.api.functional_array import sort
from msc.frontend.api.functional import _as_tensor, _checking
from msc.frontend.api.prim_classes import Primitive
from msc.common.tensor import Tensor, apply
from msc.ir import dtypes
from msc.ir.primitives import Op

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


class Einsum(Primitive):
    """``ops.Einsum(equation)(inputs)``: ``einsum`` over a tuple of tensors."""

    def __init__(self, equation: str):
        super().__init__(equation=equation)
        self.equation = equation

    def __call__(self, x: Any) -> Any:
        return einsum(self.equation, *x)


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
    """(the lower median along ``axis``, its int64 index in ``input``)."""
    with _checking("median"):
        x = _as_tensor(input, "median")
        if x.ndim == 0:
            return x, F.zeros((), dtypes.int64)
        axis = F._axis_of(x, axis, "median")
    values, index = sort(x, axis)
    k = (x.shape[axis] - 1) // 2
    key = (slice(None),) * axis + (slice(k, k + 1),)
    values, index = values[key], F.cast(index[key], dtypes.int64)
    if keepdims:
        return values, index
    return F.squeeze(values, axis), F.squeeze(index, axis)


class Median(Primitive):
    """``ops.Median(global_median, axis, keep_dims)(x)``: (median, index) along ``axis``,
    or of all elements when ``global_median``."""

    def __init__(self, global_median: bool = False, axis: int = 0, keep_dims: bool = False,
                 ignore_nan: bool = False):
        super().__init__(global_median=global_median, axis=axis, keep_dims=keep_dims,
                         ignore_nan=ignore_nan)
        self.global_median, self.axis, self.keep_dims = global_median, axis, keep_dims

    def __call__(self, x: Any) -> tuple[Any, Any]:
        if self.global_median:
            return median(F.reshape(x, (-1,)), 0, False)
        return median(x, self.axis, self.keep_dims)


class MatrixPower(Primitive):
    def __init__(self, n: int):
        super().__init__(n=n)
        self.n = n

    def __call__(self, x: Any) -> Any:
        return matrix_power(x, self.n)


__all__ = ["einsum", "Einsum", "tensor_dot", "kron", "matrix_power", "MatrixPower",
           "median", "Median"]
