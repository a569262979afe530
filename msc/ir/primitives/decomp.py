"""Matrix decompositions over the trailing two axes of a batch: ``Qr``, ``Geqrf`` (its
Householder form), ``Svd``, ``MatrixExp`` and ``MatrixTriangularSolve``, in float32 and
float64 as MindSpore's CPU kernels.

Each is an iterative or pivoting algorithm whose steps depend on the values, so every
target calls one runtime helper per op (``msc/runtime/numpy_decomp_rt.py``, numpy and
LAPACK; ``numba_decomp_rt.py``, loops and Numba's LAPACK binding), which the native
target refuses by name. QR follows LAPACK's Householder signs, as MindSpore does; the SVD
returns ``v`` (not ``v^T``) and, without ``compute_uv``, MindSpore's one-zero placeholders
for ``u`` and ``v``. The gradients are the closed forms of the decompositions' perturbation
theory, written with the op family's own triangular solve and exponential.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.ir import dtypes
from msc.ir.kernel import Expr, Helper, Lit
from msc.ir.primitives.base import (
    ArrayExpr,
    Attr,
    Primitive,
    Public,
    on_all_targets,
    register,
    want_bool,
    want_tensor,
)
from msc.ir.primitives.rules import batch_size, batched_front, move_to_front
from msc.ir.types import TensorType, TupleType, Type, tensor_of
from msc.runtime.numpy_decomp_rt import (
    _rt_geqrf,
    _rt_matrix_exp,
    _rt_qr,
    _rt_svd,
    _rt_svd_values,
    _rt_triangular_solve,
)

_FLOATS = (dtypes.float32, dtypes.float64)


def _matrices(x: Type, what: str = "input", square: bool = False) -> TensorType:
    """A float32 or float64 tensor of rank 2 or more (of square matrices with ``square``)."""
    t = want_tensor(x, what)
    if t.dtype not in _FLOATS:
        raise GraphTypeError(f"the dtype of '{what}' must be float32 or float64, but got "
                             f"{t.dtype}")
    if t.ndim < 2:
        raise ShapeError(f"the '{what}' must have at least 2 dimensions, but got shape "
                         f"{t.shape}")
    if square and t.shape[-1] != t.shape[-2]:
        raise ShapeError(f"the '{what}' must be square matrices (..., M, M), but got shape "
                         f"{t.shape}")
    return t


def _helper(name: str, *flags: str) -> ArrayExpr:
    """The lowering: one call of runtime helper ``name`` with the node's ``flags``."""
    def emit(a: list[Expr], node: Any) -> Expr:
        return Helper(name, (*a, *(Lit(bool(node.attr[f])) for f in flags)))
    return ArrayExpr(emit)


# --- IR helpers of the rules ---------------------------------------------------------------


def _mt(b: Any, x: Any) -> Any:
    """The matrices of ``x`` transposed."""
    n = tensor_of(x.type).ndim
    return b.transpose(x, perm=tuple(range(n - 2)) + (n - 1, n - 2))


def _mm(b: Any, x: Any, y: Any, ta: bool = False, tb: bool = False) -> Any:
    return b.batch_matmul(x, y, transpose_a=ta, transpose_b=tb)


def _const(x: Any, array: np.ndarray) -> np.ndarray:
    return array.astype(tensor_of(x.type).dtype.np)


def _columns(b: Any, x: Any, start: int, stop: int) -> Any:
    """Columns ``start:stop`` of ``x``'s matrices."""
    t = tensor_of(x.type)
    return b.strided_slice(x, index=tuple((0, d, 1) for d in t.shape[:-1]) + ((start, stop, 1),))


def _batch_front(b: Any, prim: Any, args: Any, dims: Any, **attrs: Any) -> tuple[Any, Any]:
    """Every operand's batch axis in front (an unbatched one repeated): the ops take any
    leading batch dims. ``Svd``'s placeholders for U and V are not batched."""
    size = batch_size(args, dims)
    out = b.emit(prim, *(batched_front(b, x, d, size) for x, d in zip(args, dims)), **attrs)
    if not isinstance(out.type, TupleType):
        return out, 0
    placeholders = prim.name == "Svd" and not attrs["compute_uv"]
    return out, (0, None, None) if placeholders else (0,) * len(out.type.elems)


def _batch_one(b: Any, prim: Any, args: Any, dims: Any, **attrs: Any) -> tuple[Any, Any]:
    return _batch_front(b, prim, [move_to_front(b, args[0], dims[0])], [0], **attrs)


# --- MatrixTriangularSolve -----------------------------------------------------------------


def _solve_infer(matrix: Type, rhs: Type, *, lower: bool, adjoint: bool) -> Type:
    a, r = _matrices(matrix, "matrix", square=True), _matrices(rhs, "rhs")
    want_bool(lower, "lower")
    want_bool(adjoint, "adjoint")
    if a.dtype != r.dtype:
        raise GraphTypeError(f"'matrix' and 'rhs' must have the same dtype, but got {a.dtype} "
                             f"and {r.dtype}")
    if a.shape[:-2] != r.shape[:-2]:
        raise ShapeError(f"the batch dimensions of 'matrix' {a.shape[:-2]} and 'rhs' "
                         f"{r.shape[:-2]} must be the same")
    if r.shape[-2] != a.shape[-1]:
        raise ShapeError(f"'rhs' must have {a.shape[-1]} rows, as 'matrix' has, but got "
                         f"shape {r.shape}")
    return r


def _solve_impl(matrix: Any, rhs: Any, *, lower: bool, adjoint: bool) -> Any:
    return _rt_triangular_solve(np.asarray(matrix), np.asarray(rhs), lower, adjoint)


def _vjp_solve(b: Any, g: Any, matrix: Any, rhs: Any, *, out: Any, lower: bool,
               adjoint: bool) -> tuple[Any, Any]:
    """X = op(A)^-1 B: dB = op(A)^-T g, and dA = -dB X^T (its transpose with ``adjoint``)
    on A's triangle, the only part read."""
    d_rhs = b.emit(matrix_triangular_solve, matrix, g, lower=lower, adjoint=not adjoint)
    d_op = b.neg(_mm(b, out, d_rhs, tb=True) if adjoint else _mm(b, d_rhs, out, tb=True))
    n = tensor_of(matrix.type).shape[-1]
    mask = np.tril(np.ones((n, n))) if lower else np.triu(np.ones((n, n)))
    return b.mul(d_op, _const(matrix, mask)), d_rhs


matrix_triangular_solve = register(Primitive(
    "MatrixTriangularSolve", _solve_infer, _solve_impl,
    on_all_targets(_helper("_rt_triangular_solve", "lower", "adjoint")),
    attrs=(Attr("lower", True, (bool,)), Attr("adjoint", False, (bool,))), cost=16,
    vjp=_vjp_solve, batch=_batch_front))


def _solve_upper_right(b: Any, x: Any, r: Any) -> Any:
    """``x @ R^-T`` for upper triangular ``R``: the transpose of ``R^-1 x^T``."""
    return _mt(b, b.emit(matrix_triangular_solve, r, _mt(b, x), lower=False, adjoint=False))


# --- Qr and Geqrf ---------------------------------------------------------------------------


def _qr_infer(x: Type, *, full_matrices: bool) -> Type:
    t = _matrices(x)
    m, n = t.shape[-2:]
    k = m if want_bool(full_matrices, "full_matrices") else min(m, n)
    return TupleType((TensorType(t.dtype, t.shape[:-2] + (m, k)),
                      TensorType(t.dtype, t.shape[:-2] + (k, n))))


def _qr_impl(x: Any, *, full_matrices: bool) -> Any:
    return _rt_qr(np.asarray(x), full_matrices)


def _qr_square_grad(b: Any, q: Any, r: Any, gq: Any, gr: Any) -> Any:
    """The cotangent of A = Q R with R square: (gQ + Q copyltu(M)) R^-T, M = R gR^T -
    gQ^T Q, copyltu(M) M's lower triangle mirrored onto its upper one."""
    k = tensor_of(r.type).shape[-1]
    m = b.sub(_mm(b, r, gr, tb=True), _mm(b, gq, q, ta=True))
    strict = b.mul(m, _const(m, np.tril(np.ones((k, k)), -1)))
    sym = b.add(b.add(strict, _mt(b, strict)), b.mul(m, _const(m, np.eye(k))))
    return _solve_upper_right(b, b.add(gq, _mm(b, q, sym)), r)


def _vjp_qr(b: Any, g: Any, x: Any, *, out: Any, full_matrices: bool) -> tuple[Any]:
    """Tall or square (k = n): ``_qr_square_grad``. Wide (A = [X | Y], R = [U | V] with
    V = Q^T Y): Y's cotangent is Q gV, and X's the square rule's with gQ + Y gV^T. A
    complete QR of a tall matrix has columns of Q that A does not determine: no gradient."""
    m, n = tensor_of(x.type).shape[-2:]
    if full_matrices and m > n:
        raise GraphValueError("the gradient of a complete QR decomposition (mode='complete') "
                              f"of {m} x {n} matrices is not defined: Q's last {m - n} columns "
                              "are not determined by the input. Use mode='reduced'")
    q, r, gq, gr = b.getitem(out, 0), b.getitem(out, 1), b.getitem(g, 0), b.getitem(g, 1)
    if m >= n:
        return (_qr_square_grad(b, q, r, gq, gr),)
    y, gv = _columns(b, x, m, n), _columns(b, gr, m, n)
    gx = _qr_square_grad(b, q, _columns(b, r, 0, m), b.add(gq, _mm(b, y, gv, tb=True)),
                         _columns(b, gr, 0, m))
    return (b.concat(gx, _mm(b, q, gv), axis=-1),)


qr = register(Primitive(
    "Qr", _qr_infer, _qr_impl, on_all_targets(_helper("_rt_qr", "full_matrices")),
    attrs=(Attr("full_matrices", False, (bool,)),), cost=16, vjp=_vjp_qr, batch=_batch_one))


def _geqrf_infer(x: Type) -> Type:
    t = _matrices(x)
    k = min(t.shape[-2:])
    return TupleType((t, TensorType(t.dtype, t.shape[:-2] + (k,))))


def _geqrf_impl(x: Any) -> Any:
    return _rt_geqrf(np.asarray(x))


geqrf = register(Primitive(
    "Geqrf", _geqrf_infer, _geqrf_impl, on_all_targets(_helper("_rt_geqrf")), cost=16,
    public=Public(("geqrf",), ("Geqrf",), ("geqrf",)), batch=_batch_one))


# --- Svd ------------------------------------------------------------------------------------


def _svd_infer(x: Type, *, full_matrices: bool, compute_uv: bool) -> Type:
    t = _matrices(x)
    m, n = t.shape[-2:]
    k = min(m, n)
    s = TensorType(t.dtype, t.shape[:-2] + (k,))
    if not want_bool(compute_uv, "compute_uv"):
        return TupleType((s, TensorType(t.dtype, (1,)), TensorType(t.dtype, (1,))))
    u, v = (m, n) if want_bool(full_matrices, "full_matrices") else (k, k)
    return TupleType((s, TensorType(t.dtype, t.shape[:-2] + (m, u)),
                      TensorType(t.dtype, t.shape[:-2] + (n, v))))


def _svd_impl(x: Any, *, full_matrices: bool, compute_uv: bool) -> Any:
    arr = np.asarray(x)
    return _rt_svd(arr, full_matrices) if compute_uv else _rt_svd_values(arr)


def _emit_svd(a: list[Expr], node: Any) -> Expr:
    if not node.attr["compute_uv"]:
        return Helper("_rt_svd_values", (a[0],))
    return Helper("_rt_svd", (a[0], Lit(bool(node.attr["full_matrices"]))))


def _vjp_svd(b: Any, g: Any, x: Any, *, out: Any, full_matrices: bool,
             compute_uv: bool) -> tuple[Any]:
    """A = U S V^T (Townsend's real form): U [F o (U^T gU - gU^T U) S + diag(gS) +
    S F o (V^T gV - gV^T V)] V^T, F_ij = 1 / (s_j^2 - s_i^2), plus the parts of gU and gV
    outside the singular subspaces, (I - U U^T) gU S^-1 V^T and U S^-1 gV^T (I - V V^T).
    Full matrices' extra columns span null spaces fixed only up to rotation: no gradient
    flows through them. Singular values alone: U diag(gS) V^T, U and V computed for it."""
    k = min(tensor_of(x.type).shape[-2:])
    gs = b.getitem(g, 0)
    if not compute_uv:
        both = b.emit(svd, x, full_matrices=False, compute_uv=True)
        u, v = b.getitem(both, 1), b.getitem(both, 2)
        return (_mm(b, b.mul(u, b.expand_dims(gs, axis=-2)), v, tb=True),)
    s, u, v = (b.getitem(out, i) for i in range(3))
    gu, gv = b.getitem(g, 1), b.getitem(g, 2)
    m, n = tensor_of(u.type).shape[-2], tensor_of(v.type).shape[-2]
    if full_matrices and (m != n):
        u, v, gu, gv = (_columns(b, t, 0, k) for t in (u, v, gu, gv))
    row, col = b.expand_dims(s, axis=-2), b.expand_dims(s, axis=-1)  # s_j, s_i
    eye = _const(s, np.eye(k))
    gap = b.add(b.sub(b.mul(row, row), b.mul(col, col)), eye)  # s_j^2 - s_i^2, 1 on the diagonal
    ut_gu, vt_gv = _mm(b, u, gu, ta=True), _mm(b, v, gv, ta=True)
    j = b.div(b.sub(ut_gu, _mt(b, ut_gu)), gap)
    kk = b.div(b.sub(vt_gv, _mt(b, vt_gv)), gap)
    inner = b.add(b.add(b.mul(j, row), b.mul(col, kk)), b.mul(b.expand_dims(gs, axis=-1), eye))
    grad = _mm(b, _mm(b, u, inner), v, tb=True)
    if m > k:
        rest = b.div(b.sub(gu, _mm(b, u, ut_gu)), row)
        grad = b.add(grad, _mm(b, rest, v, tb=True))
    if n > k:
        rest = b.div(b.sub(gv, _mm(b, v, vt_gv)), row)
        grad = b.add(grad, _mm(b, u, rest, tb=True))
    return (grad,)


svd = register(Primitive(
    "Svd", _svd_infer, _svd_impl, on_all_targets(ArrayExpr(_emit_svd)),
    attrs=(Attr("full_matrices", False, (bool,)), Attr("compute_uv", True, (bool,))),
    cost=32, vjp=_vjp_svd, batch=_batch_one))


# --- MatrixExp --------------------------------------------------------------------------------


def _exp_infer(x: Type) -> Type:
    return _matrices(x, "input", square=True)


def _exp_impl(x: Any) -> Any:
    return _rt_matrix_exp(np.asarray(x))


def _vjp_exp(b: Any, g: Any, x: Any, *, out: Any) -> tuple[Any]:
    """The Frechet derivative's adjoint: the upper right block of exp([[A^T, g], [0, A^T]])."""
    n = tensor_of(x.type).shape[-1]
    xt = _mt(b, x)
    top = b.concat(xt, g, axis=-1)
    bottom = b.concat(b.zeros_like(x), xt, axis=-1)
    block = b.emit(matrix_exp, b.concat(top, bottom, axis=-2))
    rows = tensor_of(block.type).shape[:-2] + (n,)
    return (b.strided_slice(block, index=tuple((0, d, 1) for d in rows) + ((n, 2 * n, 1),)),)


matrix_exp = register(Primitive(
    "MatrixExp", _exp_infer, _exp_impl, on_all_targets(_helper("_rt_matrix_exp")), cost=32,
    public=Public(("matrix_exp",), ("MatrixExp",)), vjp=_vjp_exp, batch=_batch_one))
