"""Determinants, inverses, linear solves and the Cholesky factorisation of small batched
square matrices, composed of the table's ops: Gauss-Jordan elimination with partial
pivoting (``det``, ``slogdet``, ``inverse``, ``matrix_solve``) and the column-by-column
Cholesky factorisation with triangular substitution (``cholesky``, ``cholesky_solve``,
``cholesky_inverse``). The size ``n`` is static, so each is ``n`` steps of gathers,
selects and products: it runs eagerly and in graphs on every target, with gradients
through those ops (a pivot choice is constant almost everywhere). A singular matrix has
determinant 0 and an inverse of infs and nans, as division gives them.

The decompositions (``qr``, ``svd``, ``geqrf``, ``matrix_exp``, the triangular solve) are
primitives of ``ir/primitives/decomp.py``; what MindSpore builds of them is composed
here: least squares through QR (``lstsq``), the pseudo-inverse and the spectral and
nuclear norms through the SVD, LU solves and unpacking from LAPACK's pivots (``n`` static
swaps), and Householder products (``orgqr``, ``ormqr``) from the reflectors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import SymTensor, Tensor, apply
from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor
from msc.ops.function.manipulation_func import _fail


def _square(x: Any, op: str) -> Tensor:
    t = _as_tensor(x, op)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        _fail(op, f"the input must be a batch of square matrices (..., n, n), but got "
                  f"{t.shape}.")
    if not t.dtype.is_float:
        _fail(op, f"the input must be a float Tensor, but got {t.dtype}.", GraphTypeError)
    return t


def _eliminate(m: Any, n: int) -> tuple[Any, Any]:
    """Gauss-Jordan on the rows of ``m`` (..., n, w), pivoting on the largest entry of
    each column: (the reduced matrix, whose first n columns are diagonal, holding the
    pivots; the sign of the row permutation)."""
    batch = m.shape[:-2]
    rows = Tensor(np.arange(n, dtype=np.int64).reshape((1,) * len(batch) + (n,)))
    sign = F.ones(batch, m.dtype)
    for k in range(n):
        p = F.argmax(apply(Op.Abs, m[..., k:, k]), -1, True) + k  # (..., 1)
        order = F.select(rows == k, F.broadcast_to(p, batch + (n,)),
                         F.select(rows == p, F.full(batch + (n,), k, dtype=p.dtype),
                                  F.broadcast_to(rows, batch + (n,))))
        m = A.gather_elements(m, m.ndim - 2, F.broadcast_to(F.expand_dims(order, -1), m.shape))
        sign = sign * F.select(F.squeeze(p, -1) == k, F.ones(batch, m.dtype),
                               F.full(batch, -1, dtype=m.dtype))
        pivot = m[..., k:k + 1, k:k + 1]
        safe = F.select(pivot == 0, F.ones(pivot.shape, m.dtype), pivot)
        other = Tensor((np.arange(n) != k).astype(m.dtype.np).reshape(n, 1))
        m = m - other * (m[..., :, k:k + 1] / safe) * m[..., k:k + 1, :]
    return m, sign


def det(input: Any) -> Any:  # noqa: A002
    """The determinant of each matrix of a batch (..., n, n)."""
    x = _square(input, "MatrixDeterminant")
    reduced, sign = _eliminate(x, x.shape[-1])
    return sign * F.prod(_diagonal(reduced), -1)


def _diagonal(m: Any) -> Any:
    n = m.shape[-2]
    return F.stack([m[..., i, i] for i in range(n)], -1)


def slogdet(input: Any) -> tuple[Any, Any]:  # noqa: A002
    """(the determinant's sign, the log of its absolute value) of each matrix."""
    x = _square(input, "LogMatrixDeterminant")
    reduced, sign = _eliminate(x, x.shape[-1])
    d = _diagonal(reduced)
    return sign * F.prod(apply(Op.Sign, d), -1), F.sum(apply(Op.Log, apply(Op.Abs, d)), -1)


def logdet(input: Any) -> Any:  # noqa: A002
    """log(det): nan for a negative determinant, -inf for 0."""
    return apply(Op.Log, det(input))


def matrix_solve(matrix: Any, rhs: Any, adjoint: bool = False) -> Any:
    """X with ``matrix @ X == rhs`` (``matrix`` transposed first with ``adjoint``)."""
    a = _square(matrix, "MatrixSolve")
    b = _as_tensor(rhs, "MatrixSolve")
    if adjoint:
        a = A.swapaxes(a, -1, -2)
    n = a.shape[-1]
    if b.shape[-2] != n:
        _fail("MatrixSolve", f"'rhs' must have {n} rows, but got shape {b.shape}.")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    joined = F.concat([F.broadcast_to(a, batch + a.shape[-2:]),
                       F.broadcast_to(F.cast(b, a.dtype), batch + b.shape[-2:])], -1)
    reduced, _ = _eliminate(joined, n)
    return reduced[..., n:] / F.expand_dims(_diagonal(reduced), -1)


def inverse(input: Any) -> Any:  # noqa: A002
    """The inverse of each matrix of a batch."""
    x = _square(input, "MatrixInverse")
    n = x.shape[-1]
    return matrix_solve(x, Tensor(np.eye(n, dtype=x.dtype.np)) if x.ndim == 2 else
                        F.broadcast_to(Tensor(np.eye(n, dtype=x.dtype.np)), x.shape))


def cholesky(input_x: Any, upper: bool = False) -> Any:
    """L with L @ L^T == input_x (lower; U = L^T with ``upper``), column by column."""
    a = _square(input_x, "Cholesky")
    n = a.shape[-1]
    rows = Tensor(np.arange(n, dtype=np.int64))
    cols: list[Any] = []
    for j in range(n):
        s = a[..., :, j]
        for c in cols:
            s = s - c * c[..., j:j + 1]
        d = F.sqrt(s[..., j:j + 1])
        cols.append(F.select(rows > j, s / d, F.select(rows == j, F.broadcast_to(d, s.shape),
                                                      F.zeros(s.shape, s.dtype))))
    low = F.stack(cols, -1)
    return A.swapaxes(low, -1, -2) if upper else low


def _substitute(tri: Any, b: Any, lower: bool) -> Any:
    """X with ``tri @ X == b`` for a triangular ``tri`` (..., n, n) and b (..., n, m)."""
    n = tri.shape[-1]
    found: dict[int, Any] = {}
    order = range(n) if lower else range(n - 1, -1, -1)
    for i in order:
        acc = b[..., i:i + 1, :]
        for j, xj in found.items():
            acc = acc - tri[..., i:i + 1, j:j + 1] * xj
        found[i] = acc / tri[..., i:i + 1, i:i + 1]
    return F.concat([found[i] for i in range(n)], -2)


def cholesky_solve(input: Any, input2: Any, upper: bool = False) -> Any:  # noqa: A002
    """X with (L L^T) X == input, ``input2`` the Cholesky factor L (U with ``upper``)."""
    b = _as_tensor(input, "CholeskySolve")
    factor = _square(input2, "CholeskySolve")
    low = A.swapaxes(factor, -1, -2) if upper else factor
    y = _substitute(low, F.cast(b, factor.dtype), True)
    return _substitute(A.swapaxes(low, -1, -2), y, False)


def cholesky_inverse(input_x: Any, upper: bool = False) -> Any:
    """The inverse of L L^T (U^T U with ``upper``) from its Cholesky factor."""
    factor = _square(input_x, "CholeskyInverse")
    eye = Tensor(np.eye(factor.shape[-1], dtype=factor.dtype.np))
    return cholesky_solve(F.broadcast_to(eye, factor.shape), factor, upper)


# --- decompositions ----------------------------------------------------------------------


def _float_matrices(x: Any, op: str, dtypes_: tuple[Any, ...] = (dtypes.float32,
                                                                  dtypes.float64)) -> Tensor:
    t = _as_tensor(x, op)
    if t.dtype not in dtypes_:
        _fail(op, f"the dtype of the input must be in {[str(d) for d in dtypes_]}, but got "
                  f"{t.dtype}.", GraphTypeError)
    if t.ndim < 2:
        _fail(op, f"the input must have at least 2 dimensions, but got shape {t.shape}.")
    return t


def _mt(x: Any) -> Any:
    return A.swapaxes(x, -1, -2)


def qr(input: Any, mode: str = "reduced") -> tuple[Any, Any]:  # noqa: A002
    """(Q, R) of each matrix: Q (..., m, min(m, n)) with orthonormal columns and R upper
    triangular; ``mode='complete'`` gives a square Q."""
    if mode not in ("reduced", "complete"):
        raise GraphTypeError(f"For qr, the arg mode must be 'reduced' or 'complete', but got "
                             f"{mode}.")
    return apply(Op.Qr, _as_tensor(input, Op.Qr.name), full_matrices=mode == "complete")


def svd(input: Any, full_matrices: bool = False, compute_uv: bool = True) -> Any:  # noqa: A002
    """(s, u, v) with ``input = u @ diag(s) @ v^T``, or s alone without ``compute_uv``."""
    out = apply(Op.Svd, _as_tensor(input, Op.Svd.name), full_matrices=full_matrices,
                compute_uv=compute_uv)
    return out if compute_uv else out[0]


def pinv(x: Any, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Any:
    """The Moore-Penrose pseudo-inverse through the SVD: singular values at or below
    max(atol, rtol * the largest) count as zero; rtol defaults to max(x.shape) * eps
    unless atol is given. ``hermitian`` reads only the lower triangle, as a symmetric
    matrix (whose singular values are its eigenvalues' magnitudes)."""
    if not isinstance(x, Tensor):
        raise GraphTypeError("The input x must be tensor")
    if x.ndim == 0:
        raise GraphTypeError("For pinv, the 0-D input is not supported")
    if x.ndim < 2:
        raise GraphValueError(f"input x should have 2 or more dimensions, but got {x.ndim}.")
    x = _float_matrices(x, "pinv")
    if not isinstance(hermitian, bool):
        _fail("pinv", f"'hermitian' must be a bool, but got {type(hermitian).__name__}.",
              GraphTypeError)
    if atol is None:
        atol = 0.0
        rtol = max(x.shape) * float(np.finfo(x.dtype.np).eps) if rtol is None else rtol
    elif rtol is None:
        rtol = 0.0
    if hermitian:
        x = A.tril(x) + _mt(A.tril(x, -1))
    s, u, v = svd(x)
    atol, rtol = (F.cast(t, s.dtype) if isinstance(t, Tensor) else t for t in (atol, rtol))
    if isinstance(atol, Tensor):
        atol = F.expand_dims(atol, -1)
    if isinstance(rtol, Tensor):
        rtol = F.expand_dims(rtol, -1)
    threshold = apply(Op.Maximum, atol, rtol * s[..., :1])
    keep = s > threshold
    inverse_s = F.select(keep, F.broadcast_to(1 / s, keep.shape), F.zeros(keep.shape, s.dtype))
    return F.matmul(v * F.expand_dims(inverse_s, -2), _mt(u))


def matrix_exp(input: Any) -> Any:  # noqa: A002
    """exp of each square matrix."""
    return apply(Op.MatrixExp, _as_tensor(input, Op.MatrixExp.name))


def triangular_solve(b: Any, A_: Any, upper: bool = True, transpose: bool = False,  # noqa: N803
                     unitriangular: bool = False) -> tuple[Any, Any]:
    """(X, A) with ``op(A) @ X == b`` for triangular A (op the transpose with
    ``transpose``; a unit diagonal assumed with ``unitriangular``)."""
    a, rhs = _as_tensor(A_, "TriangularSolve"), _as_tensor(b, "TriangularSolve")
    t = a
    if unitriangular:
        n = a.shape[-1]
        eye = Tensor(np.eye(n, dtype=a.dtype.np))
        t = a * Tensor(1 - np.eye(n, dtype=a.dtype.np)) + eye
    batch = tuple(np.broadcast_shapes(t.shape[:-2], rhs.shape[:-2]))
    x = apply(Op.MatrixTriangularSolve, F.broadcast_to(t, batch + t.shape[-2:]),
              F.broadcast_to(rhs, batch + rhs.shape[-2:]), lower=not upper, adjoint=transpose)
    return x, a


def _solve_tri(tri: Any, rhs: Any, lower: bool, adjoint: bool = False) -> Any:
    """MatrixTriangularSolve with ``tri`` and ``rhs`` broadcast to one batch shape."""
    batch = tuple(np.broadcast_shapes(tri.shape[:-2], rhs.shape[:-2]))
    return apply(Op.MatrixTriangularSolve, F.broadcast_to(tri, batch + tri.shape[-2:]),
                 F.broadcast_to(rhs, batch + rhs.shape[-2:]), lower=lower, adjoint=adjoint)


def _least_squares(x: Any, rhs: Any, l2: Any = 0.0) -> Any:
    """argmin ||x y - rhs||^2 + l2 ||y||^2 per matrix (the minimum-norm solution of an
    underdetermined system when l2 is 0), through QR: a regularised problem is the plain
    one of x stacked on sqrt(l2) I."""
    m, n = x.shape[-2:]
    if not (isinstance(l2, (int, float)) and l2 == 0):
        eye = F.broadcast_to(Tensor(np.eye(n, dtype=x.dtype.np)), x.shape[:-2] + (n, n))
        x = F.concat([x, eye * F.sqrt(F.cast(l2, x.dtype))], -2)
        rhs = F.concat([rhs, F.zeros(rhs.shape[:-2] + (n, rhs.shape[-1]), rhs.dtype)], -2)
        m += n
    if m >= n:
        q, r = qr(x)
        return _solve_tri(r, F.matmul(_mt(q), rhs), lower=False)
    q, r = qr(_mt(x))  # x^T = QR: y = Q R^-T rhs
    return F.matmul(q, _solve_tri(r, rhs, lower=False, adjoint=True))


def lstsq(input: Any, A: Any) -> Any:  # noqa: A002,N803
    """The least-squares solution (n, k) of ``input @ y = A`` (minimum norm when m < n);
    a 1-D A is one column."""
    x, rhs = _as_tensor(input, "Lstsq"), _as_tensor(A, "Lstsq")
    allowed = (dtypes.float16, dtypes.float32, dtypes.float64)
    if x.dtype not in allowed or rhs.dtype not in allowed:
        _fail("Lstsq", f"the dtypes must be float16, float32 or float64, but got {x.dtype} "
                       f"and {rhs.dtype}.", GraphTypeError)
    if x.dtype != rhs.dtype:
        raise GraphTypeError("For primitive[Lstsq], the input type must be same.")
    if x.ndim != 2:
        _fail("Lstsq", f"the dimension of x must be equal to 2, but got x_dim: {x.ndim}.")
    if rhs.ndim not in (1, 2):
        _fail("Lstsq", f"the dimension of a must be equal to 2 or 1, but got a_dim: {rhs.ndim}.")
    if rhs.shape[0] != x.shape[0]:
        _fail("Lstsq", f"the length of x_dim[0]: {x.shape[0]} must be equal to the length of "
                       f"a_dims[0]: {rhs.shape[0]}.")
    rhs = F.reshape(rhs, (rhs.shape[0], -1)) if rhs.ndim == 1 else rhs
    wide = dtypes.float32 if x.dtype == dtypes.float16 else x.dtype
    y = _least_squares(F.cast(x, wide), F.cast(rhs, wide))
    return F.cast(y, x.dtype)


def matrix_solve_ls(matrix: Any, rhs: Any, l2_regularizer: Any, fast: bool = True) -> Any:
    """MatrixSolveLs: batched regularised least squares (the fast and the robust paths
    give the same solution of a full-rank problem)."""
    x = _float_matrices(matrix, "MatrixSolveLs")
    b = _float_matrices(rhs, "MatrixSolveLs")
    if x.dtype != b.dtype:
        _fail("MatrixSolveLs", f"'matrix' and 'rhs' must have the same dtype, but got "
                               f"{x.dtype} and {b.dtype}.", GraphTypeError)
    if x.shape[:-1] != b.shape[:-1]:
        _fail("MatrixSolveLs", f"'matrix' {x.shape} and 'rhs' {b.shape} must have the same "
                               f"dimensions except the last one.")
    l2 = l2_regularizer
    if isinstance(l2, Tensor) and not isinstance(l2, SymTensor):
        l2 = float(l2.asnumpy())
    if not fast:
        l2 = 0.0
    return _least_squares(x, b, l2)


def _permutation(pivots: Any, m: int) -> Any:
    """The row order (..., m) LAPACK's 1-based pivots give: row i swapped with row
    pivots[i] - 1, in turn."""
    batch = pivots.shape[:-1]
    rows = Tensor(np.arange(m, dtype=np.int64))
    order = F.broadcast_to(rows, batch + (m,))
    for i in range(pivots.shape[-1]):
        j = F.broadcast_to(F.cast(pivots[..., i:i + 1], dtypes.int64) - 1, batch + (m,))
        at_i = F.broadcast_to(order[..., i:i + 1], batch + (m,))
        at_j = A.gather_elements(order, order.ndim - 1, j)
        order = F.select(rows == i, at_j, F.select(rows == j, at_i, order))
    return order


def _unit_lower(lu: Any, m: int, k: int) -> Any:
    return A.tril(lu, -1)[..., :, :k] + Tensor(np.eye(m, k, dtype=lu.dtype.np))


def lu_unpack(LU_data: Any, LU_pivots: Any, unpack_data: bool = True,  # noqa: N803
              unpack_pivots: bool = True) -> tuple[Any, Any, Any]:
    """(P, L, U) with ``P @ L @ U`` the factored matrix: L unit lower (m, k), U upper
    (k, n), P the permutation of the pivots (None for the parts not asked for)."""
    lu, piv = _as_tensor(LU_data, "LuUnpack"), _as_tensor(LU_pivots, "LuUnpack")
    if lu.ndim < 2:
        _fail("LuUnpack", f"the dimension of LU_data must be at least 2, but got {lu.ndim}.")
    m, n = lu.shape[-2:]
    k = min(m, n)
    if piv.dtype.is_float or piv.dtype == dtypes.bool_:
        _fail("LuUnpack", f"LU_pivots must be an integer Tensor, but got {piv.dtype}.",
              GraphTypeError)
    if piv.shape != lu.shape[:-2] + (k,):
        _fail("LuUnpack", f"LU_pivots must have shape {lu.shape[:-2] + (k,)}, but got "
                          f"{piv.shape}.")
    p = low = up = None
    if unpack_pivots:
        order = _permutation(piv, m)
        rows = Tensor(np.arange(m, dtype=np.int64).reshape(m, 1))
        p = F.cast(F.expand_dims(order, -2) == rows, lu.dtype)
    if unpack_data:
        low, up = _unit_lower(lu, m, k), A.triu(lu)[..., :k, :]
    return p, low, up


def lu_solve(b: Any, LU_data: Any, LU_pivots: Any) -> Any:  # noqa: N803
    """X with ``A @ X == b``, A given by its LU factors and pivots."""
    rhs, lu = _as_tensor(b, "LuSolve"), _square(LU_data, "LuSolve")
    piv = _as_tensor(LU_pivots, "LuSolve")
    if rhs.dtype != lu.dtype:
        _fail("LuSolve", f"'x' and 'lu_data' must have the same dtype, but got {rhs.dtype} "
                         f"and {lu.dtype}.", GraphTypeError)
    m = lu.shape[-1]
    if piv.shape != lu.shape[:-1] or rhs.ndim < 2 or rhs.shape[-2] != m:
        _fail("LuSolve", f"shapes (*, {m}, k), {lu.shape} and {lu.shape[:-1]} are needed for "
                         f"b, LU_data and LU_pivots, but got {rhs.shape}, {lu.shape} and "
                         f"{piv.shape}.")
    batch = tuple(np.broadcast_shapes(rhs.shape[:-2], lu.shape[:-2]))
    order = F.broadcast_to(_permutation(piv, m), batch + (m,))
    rhs = F.broadcast_to(rhs, batch + rhs.shape[-2:])
    permuted = A.gather_elements(rhs, rhs.ndim - 2, F.broadcast_to(F.expand_dims(order, -1),
                                                                   rhs.shape))
    y = _solve_tri(_unit_lower(lu, m, m), permuted, lower=True)
    return _solve_tri(A.triu(lu), y, lower=False)


def _reflector(h: Any, i: int) -> Any:
    """The i-th Householder vector (..., m, 1): 0 above row i, 1 at it, h's column below."""
    m = h.shape[-2]
    below = Tensor((np.arange(m) > i).astype(h.dtype.np))
    unit = Tensor((np.arange(m) == i).astype(h.dtype.np))
    return F.expand_dims(h[..., :, i] * below + unit, -1)


def _householder_checks(h: Any, tau: Any, op: str) -> tuple[Tensor, Tensor]:
    x, t = _float_matrices(h, op), _as_tensor(tau, op)
    if t.dtype != x.dtype:
        _fail(op, f"'tau' must have the dtype of the input, {x.dtype}, but got {t.dtype}.",
              GraphTypeError)
    if t.shape[:-1] != x.shape[:-2] or t.shape[-1] > min(x.shape[-2:]):
        _fail(op, f"'tau' must have shape {x.shape[:-2]} + (k,) with k <= "
                  f"{min(x.shape[-2:])}, but got {t.shape}.")
    return x, t


def _apply_reflectors(h: Any, tau: Any, c: Any, left: bool, transpose: bool) -> Any:
    """Q c (left) or c Q, Q = H_0 H_1 ... H_{k-1}, H_i = I - tau_i v_i v_i^T (Q^T with
    ``transpose``): one rank-one update per reflector, in the order the product needs."""
    k = tau.shape[-1]
    order = range(k) if left == transpose else range(k - 1, -1, -1)
    for i in order:
        v, scale = _reflector(h, i), F.expand_dims(tau[..., i:i + 1], -1)
        if left:
            c = c - v * (scale * F.matmul(_mt(v), c))
        else:
            c = c - F.matmul(c, v) * scale * _mt(v)
    return c


def orgqr(input: Any, input2: Any) -> Any:  # noqa: A002
    """The first n columns of Q from geqrf's reflectors (..., m, n) and scales (..., k)."""
    h, tau = _householder_checks(input, input2, "Orgqr")
    m, n = h.shape[-2:]
    if m < n:
        _fail("Orgqr", f"the input must have at least as many rows as columns, but got "
                       f"shape {h.shape}.")
    eye = F.broadcast_to(Tensor(np.eye(m, n, dtype=h.dtype.np)), h.shape)
    return _apply_reflectors(h, tau, eye, True, False)


def ormqr(input: Any, tau: Any, other: Any, left: bool = True,  # noqa: A002
          transpose: bool = False) -> Any:
    """op(Q) @ other (``left``) or other @ op(Q), Q from geqrf's reflectors, op the
    transpose with ``transpose``."""
    h, t = _householder_checks(input, tau, "Ormqr")
    c = _float_matrices(other, "Ormqr")
    side = c.shape[-2] if left else c.shape[-1]
    if h.shape[-2] != side or c.shape[:-2] != h.shape[:-2] or c.dtype != h.dtype:
        _fail("Ormqr", f"'other' must be {h.dtype} of shape {h.shape[:-2]} + (m, n) with "
                       f"{'m' if left else 'n'} = {h.shape[-2]}, but got {c.dtype} of shape "
                       f"{c.shape}.")
    return _apply_reflectors(h, t, c, bool(left), bool(transpose))


_NORM_ORDERS = (2, -2, 1, -1, float("inf"), float("-inf"), "fro", "nuc")


def matrix_norm(A: Any, ord: Any = "fro", axis: Any = (-2, -1),  # noqa: A002,N803
                keepdims: bool = False, *, dtype: Any = None) -> Any:
    """The Frobenius, nuclear, spectral (2, -2: largest and smallest singular value) or
    max/min column (1, -1) or row (inf, -inf) sum norm over the matrices on ``axis``."""
    x = _as_tensor(A, "matrix_norm")
    if not isinstance(axis, tuple) or not all(isinstance(a, int) for a in axis):
        raise GraphTypeError(f"For matrix_norm, the axis should be tuple of int, but got "
                             f"{axis}.")
    if len(axis) != 2:
        raise GraphValueError(f"For matrix_norm, the length of axis should be 2, but got "
                              f"{len(axis)}.")
    if not all(-x.ndim <= a < x.ndim for a in axis):
        raise GraphValueError(f"For matrix_norm, the axis {axis} is out of range for a "
                              f"{x.ndim}-D input.")
    row, col = (a % x.ndim for a in axis)
    if row == col:
        raise GraphValueError("For matrix_norm, the elements of axis can not be the same.")
    if isinstance(ord, bool) or ord not in _NORM_ORDERS:
        raise GraphValueError("For matrix_norm, the ord mode must be in [2, -2, 1, -1, "
                              "float('inf'), float('-inf'), 'fro', 'nuc'] but got "
                              f"{ord}.")
    if dtype is not None:
        x = F.cast(x, dtype)
    if ord == "fro":
        out = F.sqrt(F.sum(x * x, (row, col)))
    elif ord in ("nuc", 2, -2):
        rest = [d for d in range(x.ndim) if d not in (row, col)]
        s = svd(F.transpose(x, tuple(rest) + (row, col)), compute_uv=False)
        out = F.sum(s, -1) if ord == "nuc" else \
            (F.amax(s, -1) if ord == 2 else F.amin(s, -1))
    else:
        summed, over = (col, row) if ord in (float("inf"), float("-inf")) else (row, col)
        sums = F.sum(apply(Op.Abs, x), summed)
        over -= over > summed
        out = F.amax(sums, over) if ord in (1, float("inf")) else F.amin(sums, over)
    if keepdims:
        shape = list(x.shape)
        shape[row] = shape[col] = 1
        out = F.reshape(out, tuple(shape))
    return out


def nuclear_norm(x: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """NuclearNorm: the sum of singular values over ``dim`` (a 2-D input's own when None)."""
    t = _float_matrices(x, "NuclearNorm")
    if dim is None:
        if t.ndim != 2:
            _fail("NuclearNorm", f"when 'dim' is None, the input must be 2-D, but got "
                                 f"{t.ndim}-D.")
        dim = (0, 1)
    if len(dim) != 2:
        _fail("NuclearNorm", f"the length of 'dim' must be 2, but got {len(dim)}.")
    return matrix_norm(t, "nuc", tuple(int(d) for d in dim), keepdim)


def matrix_determinant(input: Any) -> Any:  # noqa: A002
    return det(input)


def log_matrix_determinant(input: Any) -> tuple[Any, Any]:  # noqa: A002
    return slogdet(input)


METHODS = {
    "det": lambda self: det(self), "logdet": lambda self: logdet(self),
    "slogdet": lambda self: slogdet(self), "inverse": lambda self: inverse(self),
    "matrix_determinant": lambda self: det(self),
    "log_matrix_determinant": lambda self: slogdet(self),
    "cholesky": lambda self, upper=False: cholesky(self, upper),
    "cholesky_solve": lambda self, input2, upper=False: cholesky_solve(self, input2, upper),
    "cholesky_inverse": lambda self, upper=False: cholesky_inverse(self, upper),
    "qr": lambda self, mode="reduced": qr(self, mode),
    "svd": lambda self, full_matrices=False, compute_uv=True: svd(self, full_matrices,
                                                                  compute_uv),
    "lstsq": lambda self, A: lstsq(self, A),  # noqa: N803
    "lu_solve": lambda self, LU_data, LU_pivots: lu_solve(self, LU_data, LU_pivots),  # noqa: N803
    "orgqr": lambda self, input2: orgqr(self, input2),
    "ormqr": lambda self, input2, input3, left=True, transpose=False: ormqr(
        self, input2, input3, left, transpose),
    "triangular_solve": lambda self, A, upper=True, transpose=False, unitriangular=False:  # noqa: N803
        triangular_solve(self, A, upper, transpose, unitriangular),
}

__all__ = ["det", "slogdet", "logdet", "matrix_solve", "inverse", "cholesky", "cholesky_solve",
           "cholesky_inverse", "matrix_determinant", "log_matrix_determinant", "qr", "svd",
           "pinv", "matrix_exp", "lstsq", "lu_unpack", "lu_solve", "orgqr", "ormqr",
           "matrix_norm"]
