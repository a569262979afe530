"""The old names, short compositions, Tensor methods, primitive classes and cells over them
(``ops/function/math_func.py``, ``manipulation_func.py``, ``creation_func.py``,
``linalg_func.py``, ``ops/tensor_methods.py``, ``ops/operations/``, ``nn/layer/``): each one
eagerly and compiled (python target; numba on a few) against numpy written here, plus
dtypes and the documented errors."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops
from tests.codegen import assert_same, check_all, run_python_graph, to_numpy

RNG = np.random.default_rng(11)
F32 = np.float32


def _f(*shape: int, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    return RNG.uniform(lo, hi, shape).astype(F32)


X, Y = _f(3, 4), _f(3, 4, lo=0.5, hi=2.0)
I = RNG.integers(-5, 6, (3, 4)).astype(np.int32)
J = RNG.integers(1, 4, (3, 4)).astype(np.int32)
SQ = _f(3, 3)
V3, W3 = _f(2, 3), _f(2, 3)
B1, B2 = _f(2, 3, 4), _f(2, 4, 2)
P = RNG.uniform(0.05, 0.95, (3, 4)).astype(F32)
NAN = X.copy()
NAN[0, 1] = NAN[2, 3] = np.nan


def _lower_median(x, axis):
    s = np.sort(x, axis=axis, kind="stable")
    k = (x.shape[axis] - 1) // 2
    return np.take(s, k, axis=axis)


def _fmod(a, b):
    return a - np.trunc(a / b).astype(a.dtype) * b


def _rot90(x):
    return np.rot90(x, 1, (0, 1)).copy()


# (name, function of tensors, inputs, numpy result)
CASES = [
    ("tensor_add", lambda a, b: ops.tensor_add(a, b), [X, Y], X + Y),
    ("tensor_sub", lambda a, b: ops.tensor_sub(a, b), [X, Y], X - Y),
    ("tensor_mul", lambda a, b: ops.tensor_mul(a, b), [X, Y], X * Y),
    ("tensor_div", lambda a, b: ops.tensor_div(a, b), [I, J], (I / J).astype(F32)),
    ("floordiv", lambda a, b: ops.floordiv(a, b), [I, J], I // J),
    ("tensor_floordiv", lambda a, b: ops.tensor_floordiv(a, b), [X, Y], np.floor(X / Y)),
    ("floormod", lambda a, b: ops.floormod(a, b), [I, J], np.mod(I, J)),
    ("tensor_mod", lambda a, b: ops.tensor_mod(a, b), [I, J], np.mod(I, J)),
    ("tensor_ge", lambda a, b: ops.tensor_ge(a, b), [X, Y], X >= Y),
    ("tensor_gt", lambda a, b: ops.tensor_gt(a, b), [X, Y], X > Y),
    ("tensor_le", lambda a, b: ops.tensor_le(a, b), [X, Y], X <= Y),
    ("tensor_lt", lambda a, b: ops.tensor_lt(a, b), [X, Y], X < Y),
    ("tensor_exp", lambda a: ops.tensor_exp(a), [X], np.exp(X)),
    ("tensor_expm1", lambda a: ops.tensor_expm1(a), [X], np.expm1(X)),
    ("reduce_sum", lambda a: ops.reduce_sum(a, 1), [X], X.sum(1)),
    ("reduce_mean", lambda a: ops.reduce_mean(a), [X], np.float32(X.mean())),
    ("reduce_max", lambda a: ops.reduce_max(a, (0,)), [X], X.max(0)),
    ("reduce_min", lambda a: ops.reduce_min(a, 1), [I], I.min(1)),
    ("invert", lambda a: ops.invert(a), [I], np.invert(I)),
    ("inv", lambda a: ops.inv(a), [Y], 1 / Y),
    ("inv_int", lambda a: ops.inv(a), [J], np.trunc(1 / J).astype(np.int32)),
    ("sgn", lambda a: ops.sgn(a), [I], np.sign(I)),
    ("logit", lambda a: ops.logit(a), [P], np.log(P / (1 - P))),
    ("logit_eps", lambda a: ops.logit(a, 0.2), [P],
     np.log(np.clip(P, 0.2, 0.8) / (1 - np.clip(P, 0.2, 0.8)))),
    ("fast_gelu", lambda a: ops.fast_gelu(a), [X], X / (1 + np.exp(-1.702 * X))),
    ("approximate_equal", lambda a, b: ops.approximate_equal(a, b, 0.5), [X, Y],
     np.abs(X - Y) < 0.5),
    ("isposinf", lambda a: ops.isposinf(a / 0), [X], np.isposinf(X / F32(0))),
    ("isneginf", lambda a: ops.isneginf(a / 0), [X], np.isneginf(X / F32(0))),
    ("isreal", lambda a: ops.isreal(a), [X], np.ones(X.shape, bool)),
    ("real", lambda a: ops.real(a), [X], X),
    ("conj", lambda a: ops.conj(a), [I], I),
    ("full_like", lambda a: ops.full_like(a, 2.5), [I], np.full(I.shape, 2, np.int32)),
    ("view_as", lambda a, b: ops.view_as(a, b), [X, B1[0].T], X.reshape(4, 3)),
    ("type_as", lambda a, b: ops.type_as(a, b), [X, I], X.astype(np.int32)),
    ("mm", lambda a, b: ops.mm(a, b), [X, X.T.copy()], X @ X.T),
    ("mv", lambda a, b: ops.mv(a, b), [X, Y[0]], X @ Y[0]),
    ("ger", lambda a, b: ops.ger(a, b), [X[0], Y[1]], np.outer(X[0], Y[1])),
    ("addmm", lambda a, b, c: ops.addmm(a, b, c, beta=2, alpha=0.5), [SQ, X, Y.T.copy()],
     2 * SQ + 0.5 * (X @ Y.T)),
    ("addmv", lambda a, b, c: ops.addmv(a, b, c, beta=0.5), [X[:, 0].copy(), X, Y[0]],
     0.5 * X[:, 0] + X @ Y[0]),
    ("addr", lambda a, b, c: ops.addr(a, b, c, alpha=3), [X, X[:, 0].copy(), Y[0]],
     X + 3 * np.outer(X[:, 0], Y[0])),
    ("baddbmm", lambda a, b, c: ops.baddbmm(a, b, c, 2, 1), [B1[:, :, :2].copy(), B1, B2],
     2 * B1[:, :, :2] + B1 @ B2),
    ("addbmm", lambda a, b, c: ops.addbmm(a, b, c, alpha=2), [SQ[:, :2].copy(), B1, B2],
     SQ[:, :2] + 2 * (B1 @ B2).sum(0)),
    ("vecdot", lambda a, b: ops.vecdot(a, b), [X, Y], (X * Y).sum(-1)),
    ("atleast_2d", lambda a: ops.atleast_2d(a), [X[0]], X[0][None]),
    ("atleast_3d", lambda a, b: ops.atleast_3d([a, b]), [X[0], X],
     (X[0][None, :, None], X[:, :, None])),
    ("atleast_1d", lambda a: ops.atleast_1d(a[0, 0]), [X], X[0, 0:1]),
    ("hstack", lambda a, b: ops.hstack([a, b]), [X, Y], np.hstack([X, Y])),
    ("vstack", lambda a, b: ops.vstack([a, b]), [X[0], Y], np.vstack([X[0], Y])),
    ("row_stack", lambda a, b: ops.row_stack((a, b)), [X, Y], np.vstack([X, Y])),
    ("dstack", lambda a, b: ops.dstack([a, b]), [X, Y], np.dstack([X, Y])),
    ("column_stack", lambda a, b: ops.column_stack([a, b]), [X[0], Y.T.copy()],
     np.column_stack([X[0], Y.T])),
    ("swapdims", lambda a: ops.swapdims(a, 0, 2), [B1], B1.swapaxes(0, 2)),
    ("tensor_split", lambda a: ops.tensor_split(a, 3, 1), [X],
     tuple(np.array_split(X, 3, 1))),
    ("tensor_split_idx", lambda a: ops.tensor_split(a, [1, -1], 1), [X],
     tuple(np.split(X, [1, 3], 1))),
    ("hsplit", lambda a: ops.hsplit(a, 2), [X], tuple(np.hsplit(X, 2))),
    ("vsplit", lambda a: ops.vsplit(a, [1]), [X], tuple(np.vsplit(X, [1]))),
    ("dsplit", lambda a: ops.dsplit(a, 2), [B1], tuple(np.dsplit(B1, 2))),
    ("reverse", lambda a: ops.reverse(a, [1]), [X], X[:, ::-1].copy()),
    ("rot90", lambda a: ops.rot90(a, 1, (0, 1)), [X], _rot90(X)),
    ("rot90_3", lambda a: ops.rot90(a, -1, (0, 1)), [X], np.rot90(X, -1).copy()),
    ("diagonal", lambda a: ops.diagonal(a, 1, 1, 2), [B1],
     np.diagonal(B1, 1, 1, 2).copy()),
    ("diagonal_neg", lambda a: ops.diagonal(a, -1), [X], np.diagonal(X, -1).copy()),
    ("diagflat", lambda a: ops.diagflat(a, -1), [V3], np.diagflat(V3, -1)),
    ("take", lambda a, i: ops.take(a, i), [X, np.array([[0, 5], [11, 3]], np.int32)],
     X.ravel()[[[0, 5], [11, 3]]]),
    ("cartesian_prod", lambda a, b: ops.cartesian_prod(a, b), [V3[0], W3[1, :2].copy()],
     np.array([[p, q] for p in V3[0] for q in W3[1, :2]], F32)),
    ("count_nonzero", lambda a: ops.count_nonzero(a, 1), [I],
     np.count_nonzero(I, 1).astype(np.int32)),
    ("nansum", lambda a: ops.nansum(a, 1), [NAN], np.nansum(NAN, 1)),
    ("nanmean", lambda a: ops.nanmean(a, 0, True), [NAN], np.nanmean(NAN, 0, keepdims=True)),
    ("aminmax", lambda a: ops.aminmax(a, axis=1), [X], (X.min(1), X.max(1))),
    ("diff", lambda a: ops.diff(a), [I], np.diff(I)),
    ("diff2", lambda a, b: ops.diff(a, 2, 0, prepend=b), [X, Y[:1].copy()],
     np.diff(X, 2, 0, prepend=Y[:1])),
    ("diff_bool", lambda a: ops.diff(a > 0), [X], np.diff(X > 0)),
    ("trapz", lambda a: ops.trapz(a, dx=0.5), [X], np.trapezoid(X, dx=0.5).astype(F32)),
    ("logcumsumexp", lambda a: ops.logcumsumexp(a, 1), [X],
     np.logaddexp.accumulate(X.astype(np.float64), 1).astype(F32)),
    ("dist", lambda a, b: ops.dist(a, b), [X, Y], np.float32(np.linalg.norm(X - Y))),
    ("renorm", lambda a: ops.renorm(a, 2, 0, 1.0), [X],
     X * np.where(np.linalg.norm(X, axis=1, keepdims=True) > 1,
                  1 / (np.linalg.norm(X, axis=1, keepdims=True) + 1e-7), 1).astype(F32)),
    ("cross", lambda a, b: ops.cross(a, b), [V3, W3], np.cross(V3, W3)),
    ("top_k", lambda a: ops.top_k(a, 2), [X],
     (-np.sort(-X, 1)[:, :2], np.argsort(-X, 1, kind="stable")[:, :2].astype(np.int32))),
    ("einsum_matmul", lambda a, b: ops.einsum("ij,jk->ik", a, b), [X, Y.T.copy()], X @ Y.T),
    ("einsum_trace", lambda a: ops.einsum("ii", a), [SQ], np.float32(np.trace(SQ))),
    ("einsum_diag", lambda a: ops.einsum("ii->i", a), [SQ], np.diag(SQ).copy()),
    ("einsum_batch", lambda a, b: ops.einsum("bij,bjk->bik", a, b), [B1, B2], B1 @ B2),
    ("einsum_ellipsis", lambda a, b: ops.einsum("...j,j->...", a, b), [B1, B2[0, :, 0].copy()],
     B1 @ B2[0, :, 0]),
    ("einsum_implicit", lambda a, b: ops.einsum("ij,kj", a, b), [X, Y], X @ Y.T),
    ("einsum_three", lambda a, b, c: ops.einsum("ij,kj,ij->ik", a, b, c), [X, Y, X],
     np.einsum("ij,kj,ij->ik", X, Y, X)),
    ("einsum_sum", lambda a: ops.einsum("ijk->j", a), [B1], B1.sum((0, 2))),
    ("Einsum", lambda a, b: ops.Einsum("i,j->ij")((a, b)), [V3[0], W3[0]],
     np.outer(V3[0], W3[0])),
    ("tensor_dot", lambda a, b: ops.tensor_dot(a, b, ((1, 2), (0, 1))), [B1, B1[0]],
     np.tensordot(B1, B1[0], ((1, 2), (0, 1)))),
    ("tensor_dot_int", lambda a, b: ops.tensor_dot(a, b, 1), [I, J.T.copy()], I @ J.T),
    ("kron", lambda a, b: ops.kron(a, b), [V3, X], np.kron(V3, X)),
    ("kron_int", lambda a, b: ops.kron(a, b), [I[:2, :2].copy(), J], np.kron(I[:2, :2], J)),
    ("matrix_power", lambda a: ops.matrix_power(a, 5), [SQ], np.linalg.matrix_power(SQ, 5)),
    ("matrix_power_0", lambda a: ops.matrix_power(a, 0), [SQ], np.eye(3, dtype=F32)),
    ("MatrixPower", lambda a: ops.MatrixPower(2)(a), [I[:3, :3].copy()],
     I[:3, :3] @ I[:3, :3]),
    ("median", lambda a: ops.median(a), [X],
     (_lower_median(X, -1), np.argsort(X, -1, kind="stable")[:, 1].astype(np.int64))),
    ("Median", lambda a: ops.Median(axis=0, keep_dims=True)(a), [X],
     (_lower_median(X, 0)[None], np.argsort(X, 0, kind="stable")[1:2].astype(np.int64))),
    # primitive classes
    ("SquaredDifference", lambda a, b: ops.SquaredDifference()(a, b), [X, Y], (X - Y) ** 2),
    ("DivNoNan", lambda a, b: ops.DivNoNan()(a, b * (b > 1)), [X, Y],
     np.where(Y * (Y > 1) == 0, 0, X / np.where(Y > 1, Y, 1)).astype(F32)),
    ("MulNoNan", lambda a, b: ops.MulNoNan()(a / 0, b * (b > 1)), [X, Y],
     np.where(Y > 1, (X / F32(0)) * Y, 0).astype(F32)),
    ("Inv", lambda a: ops.Inv()(a), [Y], 1 / Y),
    ("Invert", lambda a: ops.Invert()(a), [I], ~I),
    ("Rint", lambda a: ops.Rint()(a * 2), [X], np.rint(X * 2)),
    ("TruncateDiv", lambda a, b: ops.TruncateDiv()(a, b), [I, -J], np.trunc(I / -J).astype(np.int32)),
    ("TruncateMod", lambda a, b: ops.TruncateMod()(a, b), [I, -J], np.fmod(I, -J)),
    ("Identity", lambda a: ops.Identity()(a), [X], X),
    ("Trace", lambda a: ops.Trace()(a), [SQ], np.float32(np.trace(SQ))),
    ("Ger", lambda a, b: ops.Ger()(a, b), [X[0], Y[0]], np.outer(X[0], Y[0])),
    ("L2Loss", lambda a: ops.L2Loss()(a), [X], np.float32((X ** 2).sum() / 2)),
    ("SquareSumAll", lambda a, b: ops.SquareSumAll()(a, b), [X, Y],
     (np.float32((X ** 2).sum()), np.float32((Y ** 2).sum()))),
    ("EqualCount", lambda a, b: ops.EqualCount()(a, b), [I, J],
     np.array([(I == J).sum()], np.int32)),
    ("Eps", lambda a: ops.Eps()(a), [X], np.full(X.shape, np.finfo(F32).eps, F32)),
    ("Fills", lambda a: ops.Fills()(a, 1.5), [X], np.full(X.shape, 1.5, F32)),
    ("Expand", lambda a: ops.Expand()(a, (2, 3, 4)), [X[:1]], np.broadcast_to(X[:1], (2, 3, 4))),
    ("GatherV2", lambda a, i: ops.GatherV2()(a, i, 1), [X, np.array([3, 0], np.int32)],
     X[:, [3, 0]]),
    ("FastGeLU", lambda a: ops.FastGeLU()(a), [X], X / (1 + np.exp(-1.702 * X))),
    ("FastGelu", lambda a: ops.FastGelu()(a), [X], X / (1 + np.exp(-1.702 * X))),
    ("Real", lambda a: ops.Real()(a), [X], X),
    ("Conj", lambda a: ops.Conj()(a), [X], X),
    ("ApproximateEqual", lambda a, b: ops.ApproximateEqual(0.3)(a, b), [X, Y],
     np.abs(X - Y) < 0.3),
    ("IsClose", lambda a, b: ops.IsClose(atol=0.5)(a, b), [X, Y], np.isclose(X, Y, atol=0.5)),
    ("Logit", lambda a: ops.Logit(0.1)(a), [P],
     np.log(np.clip(P, 0.1, 0.9) / (1 - np.clip(P, 0.1, 0.9)))),
    ("Cross", lambda a, b: ops.Cross(1)(a, b), [V3, W3], np.cross(V3, W3)),
    ("Pack", lambda a, b: ops.Pack(1)((a, b)), [X, Y], np.stack([X, Y], 1)),
    ("Unpack", lambda a: ops.Unpack(1)(a), [V3], tuple(V3[:, k] for k in range(3))),
    ("SplitV", lambda a: ops.SplitV([1, -1], 1, 2)(a), [X], (X[:, :1], X[:, 1:])),
    ("ReduceStd", lambda a: ops.ReduceStd(1)(a), [X], (X.std(1, ddof=1), X.mean(1))),
    # nn cells
    ("nn.Tril", lambda a: nn.Tril()(a, 1), [X], np.tril(X, 1)),
    ("nn.Triu", lambda a: nn.Triu()(a), [X], np.triu(X)),
    ("nn.MatMul", lambda a, b: nn.MatMul(transpose_x2=True)(a, b), [X, Y], X @ Y.T),
    ("nn.Norm", lambda a: nn.Norm(1)(a), [X], np.linalg.norm(X, axis=1)),
    ("nn.OneHot", lambda i: nn.OneHot(depth=4, on_value=2.0)(i), [np.array([0, 3, 1], np.int32)],
     2 * np.eye(4, dtype=F32)[[0, 3, 1]]),
    ("nn.Moments", lambda a: nn.Moments(1, True)(a), [X],
     (X.mean(1, keepdims=True), X.var(1, keepdims=True))),
    ("nn.ReduceLogSumExp", lambda a: nn.ReduceLogSumExp(1)(a), [X],
     np.log(np.exp(X.astype(np.float64)).sum(1)).astype(F32)),
    ("nn.L1Regularizer", lambda a: nn.L1Regularizer(0.5)(a), [X], np.float32(0.5 * np.abs(X).sum())),
    ("nn.FastGelu", lambda a: nn.FastGelu()(a), [X], X / (1 + np.exp(-1.702 * X))),
    ("nn.Roll", lambda a: nn.Roll(1, 0)(a), [X], np.roll(X, 1, 0)),
]

METHOD_CASES = [
    ("add", lambda a, b: a.add(b, alpha=2), [X, Y], X + 2 * Y),
    ("add_int", lambda a, b: a.add(b, alpha=2), [I, J], I + 2 * J),
    ("sub", lambda a, b: a.sub(b, alpha=2), [X, Y], X - 2 * Y),
    ("mul", lambda a, b: a.mul(b), [X, Y], X * Y),
    ("div", lambda a, b: a.div(b), [I, J], (I / J).astype(F32)),
    ("div_floor", lambda a, b: a.div(b, rounding_mode="floor"), [I, J], I // J),
    ("pow", lambda a: a.pow(2), [I], I ** 2),
    ("remainder", lambda a, b: a.remainder(-b), [I, J], np.mod(I, -J)),
    ("fmod", lambda a, b: a.fmod(-b), [I, J], np.fmod(I, -J)),
    ("floor_divide", lambda a, b: a.floor_divide(b), [I, J], I // J),
    ("maximum", lambda a, b: a.maximum(b), [X, Y], np.maximum(X, Y)),
    ("minimum", lambda a, b: a.minimum(b), [X, Y], np.minimum(X, Y)),
    ("eq", lambda a, b: a.eq(b), [I, J], I == J),
    ("equal", lambda a, b: a.equal(b), [I, J], I == J),
    ("ne", lambda a, b: a.ne(b), [I, J], I != J),
    ("not_equal", lambda a, b: a.not_equal(b), [I, J], I != J),
    ("ge", lambda a, b: a.ge(b), [X, Y], X >= Y),
    ("greater_equal", lambda a, b: a.greater_equal(b), [X, Y], X >= Y),
    ("gt", lambda a, b: a.gt(b), [X, Y], X > Y),
    ("greater", lambda a, b: a.greater(b), [X, Y], X > Y),
    ("le", lambda a, b: a.le(b), [X, Y], X <= Y),
    ("less_equal", lambda a, b: a.less_equal(b), [X, Y], X <= Y),
    ("lt", lambda a, b: a.lt(b), [X, Y], X < Y),
    ("less", lambda a, b: a.less(b), [X, Y], X < Y),
    ("logical_and", lambda a, b: a.logical_and(b), [I, J], (I != 0) & (J != 0)),
    ("logical_or", lambda a, b: a.logical_or(b), [I, X], (I != 0) | (X != 0)),
    ("logical_not", lambda a: a.logical_not(), [I], I == 0),
    ("neg", lambda a: a.neg(), [I], -I),
    ("cos", lambda a: a.cos(), [X], np.cos(X)),
    ("sin", lambda a: a.sin(), [X], np.sin(X)),
    ("ceil", lambda a: a.ceil(), [X], np.ceil(X)),
    ("floor", lambda a: a.floor(), [X], np.floor(X)),
    ("reciprocal", lambda a: a.reciprocal(), [Y], 1 / Y),
    ("rsqrt", lambda a: a.rsqrt(), [Y], 1 / np.sqrt(Y)),
    ("sign", lambda a: a.sign(), [I], np.sign(I)),
    ("sgn", lambda a: a.sgn(), [X], np.sign(X)),
    ("square", lambda a: a.square(), [I], I * I),
    ("matmul", lambda a, b: a.matmul(b), [X, Y[0]], X @ Y[0]),
    ("mm", lambda a, b: a.mm(b), [X, Y.T.copy()], X @ Y.T),
    ("permute", lambda a: a.permute(2, 0, 1), [B1], B1.transpose(2, 0, 1)),
    ("permute_tuple", lambda a: a.permute((1, 0, 2)), [B1], B1.transpose(1, 0, 2)),
    ("tile", lambda a: a.tile((2, 1)), [X], np.tile(X, (2, 1))),
    ("unsqueeze", lambda a: a.unsqueeze(1), [X], X[:, None]),
    ("swapdims", lambda a: a.swapdims(0, 1), [X], X.T),
    ("gather", lambda a, i: a.gather(1, i), [X, np.array([[0, 0], [1, 2], [3, 3]], np.int32)],
     np.take_along_axis(X, np.array([[0, 0], [1, 2], [3, 3]]), 1)),
    ("gather_old", lambda a, i: a.gather(i, 0), [X, np.array([2, 0], np.int32)], X[[2, 0]]),
    ("select", lambda a: a.select(1, 2), [X], X[:, 2]),
    ("select_old", lambda a, b: a.select(a > 0, b), [X, Y], np.where(X > 0, X, Y)),
    ("where", lambda a, b: a.where(a > 0, b), [X, Y], np.where(X > 0, X, Y)),
    ("softmax", lambda a: a.softmax(0), [X],
     (np.exp(X) / np.exp(X).sum(0, keepdims=True)).astype(F32)),
    ("amax", lambda a: a.amax(1, True), [X], X.max(1, keepdims=True)),
    ("amin", lambda a: a.amin(), [X], np.float32(X.min())),
    ("split", lambda a: a.split(3, 1), [X], (X[:, :3], X[:, 3:])),
    ("expand", lambda a: a.expand(2, 3, 4), [X], np.broadcast_to(X, (2, 3, 4))),
    ("reshape_as", lambda a, b: a.reshape_as(b), [X, B1[0].T.copy()], X.reshape(4, 3)),
    ("view_as", lambda a, b: a.view_as(b), [X, X.ravel()], X.ravel()),
    ("type_as", lambda a, b: a.type_as(b), [I, X], I.astype(F32)),
    ("new_zeros", lambda a: a.new_zeros((2,)), [I], np.zeros(2, np.int32)),
    ("new_ones", lambda a: a.new_ones((2, 1), ms.float64), [I], np.ones((2, 1))),
    ("new_full", lambda a: a.new_full((2,), 3), [X], np.full(2, 3, F32)),
    ("fill", lambda a: a.fill(3), [X], np.full(X.shape, 3, F32)),
    ("float", lambda a: a.float(), [I], I.astype(F32)),
    ("half", lambda a: a.half(), [X], X.astype(np.float16)),
    ("double", lambda a: a.double(), [X], X.astype(np.float64)),
    ("int", lambda a: a.int(), [X], X.astype(np.int32)),
    ("long", lambda a: a.long(), [I], I.astype(np.int64)),
    ("short", lambda a: a.short(), [I], I.astype(np.int16)),
    ("byte", lambda a: a.byte(), [J], J.astype(np.uint8)),
    ("bool", lambda a: a.bool(), [I], I != 0),
    ("to", lambda a: a.to(ms.int64), [I], I.astype(np.int64)),
    ("ptp", lambda a: a.ptp(1), [X], np.ptp(X, 1)),
    ("nansum", lambda a: a.nansum(0), [NAN], np.nansum(NAN, 0)),
    ("nanmean", lambda a: a.nanmean(), [NAN], np.float32(np.nanmean(NAN))),
    ("count_nonzero", lambda a: a.count_nonzero(), [I], np.int32(np.count_nonzero(I))),
    ("diagonal", lambda a: a.diagonal(), [X], np.diagonal(X).copy()),
    ("diff", lambda a: a.diff(axis=0), [X], np.diff(X, axis=0)),
    ("take", lambda a, i: a.take(i), [X, np.array([1, 7], np.int32)], X.ravel()[[1, 7]]),
    ("top_k", lambda a: a.top_k(1)[0], [X], X.max(1, keepdims=True)),
    ("ger", lambda a, b: a.ger(b), [X[0], Y[0]], np.outer(X[0], Y[0])),
    ("median", lambda a: a.median(0)[0], [X], _lower_median(X, 0)),
    ("matrix_power", lambda a: a.matrix_power(3), [SQ], SQ @ SQ @ SQ),
    ("logit", lambda a: a.logit(), [P], np.log(P / (1 - P))),
    ("clamp", lambda a: a.clamp(-1, 1), [X], np.clip(X, -1, 1)),
    ("inv", lambda a: a.inv(), [Y], 1 / Y),
    ("invert", lambda a: a.invert(), [I], ~I),
    ("argmax_with_value", lambda a: a.argmax_with_value(1), [X],
     (X.max(1), X.argmax(1).astype(np.int64))),
    ("argmin_with_value", lambda a: a.argmin_with_value(), [X],
     (X.min(0), X.argmin(0).astype(np.int64))),
    ("reverse", lambda a: a.reverse([0]), [X], X[::-1].copy()),
    ("rot90", lambda a: a.rot90(2, (0, 1)), [X], X[::-1, ::-1].copy()),
    ("hsplit", lambda a: a.hsplit(2), [X], tuple(np.hsplit(X, 2))),
    ("vsplit", lambda a: a.vsplit(3), [X], tuple(np.vsplit(X, 3))),
    ("dsplit", lambda a: a.dsplit([1]), [B1], tuple(np.dsplit(B1, [1]))),
    ("tensor_split", lambda a: a.tensor_split(2), [X], tuple(np.array_split(X, 2))),
    ("isposinf", lambda a: (a / 0).isposinf(), [X], np.isposinf(X / F32(0))),
    ("isneginf", lambda a: (a / 0).isneginf(), [X], np.isneginf(X / F32(0))),
    ("isreal", lambda a: a.isreal(), [I], np.ones(I.shape, bool)),
    ("real", lambda a: a.real(), [X], X),
    ("conj", lambda a: a.conj(), [X], X),
    ("cross", lambda a, b: a.cross(b, 1), [V3, W3], np.cross(V3, W3)),
    ("diagflat", lambda a: a.diagflat(1), [V3[0]], np.diagflat(V3[0], 1)),
    ("aminmax", lambda a: a.aminmax(axis=0), [X], (X.min(0), X.max(0))),
    ("addmm", lambda a, b, c: a.addmm(b, c, beta=0.5), [SQ, X, Y.T.copy()],
     0.5 * SQ + X @ Y.T),
    ("addmv", lambda a, b, c: a.addmv(b, c, alpha=2), [X[:, 0].copy(), X, Y[0]],
     X[:, 0] + 2 * (X @ Y[0])),
    ("addr", lambda a, b, c: a.addr(b, c), [X, X[:, 1].copy(), Y[1]],
     X + np.outer(X[:, 1], Y[1])),
    ("addbmm", lambda a, b, c: a.addbmm(b, c), [SQ[:, :2].copy(), B1, B2],
     SQ[:, :2] + (B1 @ B2).sum(0)),
    ("baddbmm", lambda a, b, c: a.baddbmm(b, c, beta=2), [B1[:, :, :2].copy(), B1, B2],
     2 * B1[:, :, :2] + B1 @ B2),
    ("logcumsumexp", lambda a: a.logcumsumexp(0), [X],
     np.logaddexp.accumulate(X.astype(np.float64), 0).astype(F32)),
    ("sum_to_size", lambda a: a.sum_to_size(1, 4), [B1[0].T.reshape(1, 3, 4).copy()[0]],
     B1[0].T.reshape(3, 4).sum(0, keepdims=True)),
    ("mT", lambda a: a.mT, [B1], B1.swapaxes(-1, -2)),
    ("mH", lambda a: a.mH, [X], X.T),
    ("H", lambda a: a.H, [X], X.T),
    ("contiguous", lambda a: a.contiguous() + 0, [X], X),
]


def _tol(want):
    leaves = want if isinstance(want, tuple) else (want,)
    low = any(np.asarray(w).dtype == np.float16 for w in leaves)
    return dict(rtol=1e-3, atol=1e-3) if low else dict(rtol=2e-5, atol=2e-5)


def _as_arrays(want):
    if isinstance(want, tuple):
        return tuple(_as_arrays(w) for w in want)
    return np.asarray(want)


@pytest.mark.parametrize("name,fn,inputs,want", CASES + METHOD_CASES,
                         ids=[c[0] for c in CASES] + ["Tensor." + c[0] for c in METHOD_CASES])
def test_eager_and_python_graph_match_numpy(name, fn, inputs, want, tmp_path):
    want = _as_arrays(want)
    eager = to_numpy(fn(*[Tensor(x) for x in inputs]))
    assert_same(eager, want, f"{name} eager", **_tol(want))
    assert_same(run_python_graph(fn, inputs, tmp_path), want, f"{name} graph", **_tol(want))


@pytest.mark.parametrize("name", ["einsum_three", "einsum_diag", "kron", "median", "DivNoNan",
                                  "Tensor.addbmm"])
def test_numba_target_agrees(name, tmp_path):
    case = {c[0]: c for c in CASES} | {"Tensor." + c[0]: c for c in METHOD_CASES}
    _, fn, inputs, want = case[name]
    check_all(fn, inputs, tmp_path, expect=_as_arrays(want), rtol=2e-5, atol=2e-5)


def test_jit_decorated_function_uses_the_new_forms():
    @ms.jit
    def f(a, b):
        return ops.einsum("ij,kj->ik", a, b) + a.mm(b.T).add(1, alpha=2)

    got = f(Tensor(X), Tensor(Y)).asnumpy()
    np.testing.assert_allclose(got, 2 * X @ Y.T + 2, rtol=1e-5, atol=1e-5)


def test_einsum_gradient_matches_numpy():
    def loss(a, b):
        return ops.einsum("bij,bjk->", a, b)

    ga, gb = ms.grad(loss, grad_position=(0, 1))(Tensor(B1), Tensor(B2))
    np.testing.assert_allclose(ga.asnumpy(), np.broadcast_to(B2.sum(2)[:, None, :], B1.shape),
                               rtol=1e-5)
    np.testing.assert_allclose(gb.asnumpy(), np.broadcast_to(B1.sum(1)[:, :, None], B2.shape),
                               rtol=1e-5)


def test_queries_and_dtypes():
    x, i = Tensor(X), Tensor(I)
    assert x.dim() == x.ndimension() == 2 and x.nelement() == 12
    assert x.itemsize == 4 and x.nbytes == 48 and Tensor(J.astype(np.uint8)).itemsize == 1
    assert x.is_floating_point() and not i.is_floating_point() and not x.is_complex()
    assert i.is_signed() and not Tensor(J.astype(np.uint8)).is_signed() and x.is_contiguous()
    assert ops.is_tensor(x) and not ops.is_tensor(X) and ops.is_floating_point(x)
    assert not ops.is_complex(x)
    np.testing.assert_array_equal(x.numpy(), X)
    np.testing.assert_array_equal(ops.TensorShape()(x).asnumpy(), np.array([3, 4], np.int64))
    assert ops.count_nonzero(x, dtype=ms.int64).dtype == ms.int64
    assert ops.tril_indices(3, 4, 1).dtype == ms.int64
    np.testing.assert_array_equal(ops.tril_indices(3, 4, 1).asnumpy(), np.array(np.tril_indices(3, 1, 4)))
    np.testing.assert_array_equal(ops.triu_indices(3, 3, dtype=ms.int32).asnumpy(),
                                  np.array(np.triu_indices(3, 0, 3), np.int32))
    mask = ops.sequence_mask(Tensor(np.array([1, 3], np.int64)), 4)
    np.testing.assert_array_equal(mask.asnumpy(), np.arange(4) < np.array([[1], [3]]))
    assert ops.kron(Tensor(I), Tensor(X)).dtype == ms.float32


@pytest.mark.parametrize("call,error", [
    (lambda: ops.einsum("ij,jk", Tensor(X)), ValueError),
    (lambda: ops.einsum("ij", Tensor(I)), TypeError),
    (lambda: ops.einsum("ij->k", Tensor(X)), ValueError),
    (lambda: ops.einsum("ij,jk", Tensor(X), Tensor(X)), ValueError),
    (lambda: ops.einsum("ii", Tensor(X)), ValueError),
    (lambda: ops.tensor_dot(Tensor(X), Tensor(X), 1), ValueError),
    (lambda: ops.matrix_power(Tensor(X), 2), ValueError),
    (lambda: ops.matrix_power(Tensor(SQ), -1), ValueError),
    (lambda: ops.matrix_power(Tensor(SQ), 1.5), TypeError),
    (lambda: ops.logit(Tensor(I)), TypeError),
    (lambda: ops.invert(Tensor(X)), TypeError),
    (lambda: ops.ger(Tensor(I[0]), Tensor(I[1])), TypeError),
    (lambda: ops.mm(Tensor(X[0]), Tensor(X)), ValueError),
    (lambda: ops.cross(Tensor(X[:2]), Tensor(X[:2])), ValueError),
    (lambda: ops.hsplit(Tensor(X), 3), ValueError),
    (lambda: ops.rot90(Tensor(X), 1, (0, 0)), ValueError),
    (lambda: nn.L1Regularizer(-1.0), ValueError),
])
def test_documented_errors(call, error):
    with pytest.raises(error):
        call()
