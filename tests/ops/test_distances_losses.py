"""The distances and matrix forms (``ops/function/linalg_func.py``), the elementwise losses
(``loss_func.py``) and their primitive classes: each one eagerly and compiled (python
target; numba on a few) against numpy written here, with dtypes, and the documented
errors."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Tensor, ops
from tests.codegen import assert_same, check_all, run_python_graph, to_numpy

RNG = np.random.default_rng(5)
F32 = np.float32


def _f(*shape: int, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    return RNG.uniform(lo, hi, shape).astype(F32)


A, B = _f(3, 4), _f(5, 4)
A3, B3 = _f(2, 3, 4), _f(2, 5, 4)
S, Y = _f(4, 5), _f(4, 5)
T = np.where(RNG.uniform(-1, 1, (4, 5)) > 0, 1, -1).astype(F32)
P, Q = _f(4, 5, lo=0.05, hi=0.95), _f(4, 5, lo=0.05, hi=0.95)
Q[0, 0] = 0.0  # kl_div: a zero label contributes 0
T3 = np.array([1, -1, 1], F32)
IDX = np.array([[0], [2], [0]], np.int32)


def _pairs(x, y, p):
    d = x[..., :, None, :].astype(np.float64) - y[..., None, :, :]
    if p == 0:
        return (d != 0).sum(-1).astype(F32)
    if p == np.inf:
        return np.abs(d).max(-1).astype(F32)
    return (np.abs(d) ** p).sum(-1) ** (1 / p)


def _pdist(x, p):
    i, j = np.triu_indices(x.shape[-2], 1)
    return (np.abs(x[..., i, :].astype(np.float64) - x[..., j, :]) ** p).sum(-1) ** (1 / p)


def _band(x, lower, upper):
    i, j = np.indices(x.shape[-2:])
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return np.where(keep, x, 0).astype(x.dtype)


def _smooth(d, beta):
    d = np.abs(d)
    return np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)


def _cos(a, b, axis):
    return (a * b).sum(axis) / np.maximum(np.linalg.norm(a, axis=axis) *
                                          np.linalg.norm(b, axis=axis), 1e-8)


def _kl(x, y):
    return np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x), 0)


def _bce(x, y):
    return -(y * np.log(x) + (1 - y) * np.log(1 - x))


def _scatter_sub(x, idx, u):
    out = x.copy()
    np.subtract.at(out, idx[:, 0], u)
    return out


def _softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


# (name, function of tensors, inputs, numpy result)
CASES = [
    ("cosine_similarity", lambda a, b: ops.cosine_similarity(a, b), [A, A[::-1].copy()],
     _cos(A, A[::-1], 1)),
    ("cosine_similarity_dim0", lambda a, b: ops.cosine_similarity(a, b, 0), [A, B[:3]],
     _cos(A, B[:3], 0)),
    ("cdist", lambda a, b: ops.cdist(a, b), [A, B], _pairs(A, B, 2)),
    ("cdist_p1_batched", lambda a, b: ops.cdist(a, b, 1.0), [A3, B3], _pairs(A3, B3, 1)),
    ("cdist_p3", lambda a, b: ops.cdist(a, b, 3.0), [A, B], _pairs(A, B, 3)),
    ("cdist_p0", lambda a, b: ops.cdist(a, b, 0.0), [A, np.round(B)], _pairs(A, np.round(B), 0)),
    ("cdist_inf", lambda a, b: ops.cdist(a, b, float("inf")), [A, B], _pairs(A, B, np.inf)),
    ("pdist", lambda a: ops.pdist(a), [B], _pdist(B, 2)),
    ("pdist_p1_batched", lambda a: ops.pdist(a, 1.0), [B3], _pdist(B3, 1)),
    ("adjoint", lambda a: ops.adjoint(a), [A3], A3.swapaxes(-1, -2)),
    ("matrix_band_part", lambda a: ops.matrix_band_part(a, 1, 2), [S], _band(S, 1, 2)),
    ("matrix_band_part_lower_all", lambda a: ops.matrix_band_part(a, -1, 0), [A3],
     _band(A3, -1, 0)),
    ("matrix_band_part_int", lambda a: ops.matrix_band_part(a, 0, -1),
     [np.arange(12, dtype=np.int32).reshape(3, 4)],
     _band(np.arange(12, dtype=np.int32).reshape(3, 4), 0, -1)),
    ("smooth_l1_loss", lambda a, b: ops.smooth_l1_loss(a, b, 0.5), [S, Y], _smooth(S - Y, 0.5)),
    ("smooth_l1_loss_mean", lambda a, b: ops.smooth_l1_loss(a, b, reduction="mean"), [S, Y],
     _smooth(S - Y, 1.0).mean()),
    ("huber_loss", lambda a, b: ops.huber_loss(a, b, "none", 0.7), [S, Y],
     0.7 * _smooth(S - Y, 0.7)),
    ("huber_loss_mean", lambda a, b: ops.huber_loss(a, b), [S, Y], _smooth(S - Y, 1.0).mean()),
    ("soft_margin_loss", lambda a, b: ops.soft_margin_loss(a, b, "none"), [S, T],
     np.log1p(np.exp(-T * S))),
    ("soft_margin_loss_mean", lambda a, b: ops.soft_margin_loss(a, b), [S, T],
     np.log1p(np.exp(-T * S)).mean()),
    ("margin_ranking_loss", lambda a, b, c: ops.margin_ranking_loss(a, b, c, 0.3, "none"),
     [S, Y, T], np.maximum(-T * (S - Y) + 0.3, 0)),
    ("margin_ranking_loss_sum", lambda a, b, c: ops.margin_ranking_loss(a, b, c, 0.0, "sum"),
     [S, Y, T], np.maximum(-T * (S - Y), 0).sum()),
    ("hinge_embedding_loss", lambda a, b: ops.hinge_embedding_loss(a, b, 0.5, "none"), [S, T],
     np.where(T > 0, S, np.maximum(0.5 - S, 0))),
    ("cosine_embedding_loss", lambda a, b, c: ops.cosine_embedding_loss(a, b, c, 0.2, "none"),
     [A, A[::-1].copy(), T3], np.where(T3 == 1, 1 - _cos(A, A[::-1], 1),
                                       np.maximum(_cos(A, A[::-1], 1) - 0.2, 0))),
    ("kl_div", lambda a, b: ops.kl_div(a, b, "none"), [S, Q], _kl(S, Q)),
    ("kl_div_mean", lambda a, b: ops.kl_div(a, b), [S, Q], _kl(S, Q).sum() / S.size),
    ("kl_div_batchmean", lambda a, b: ops.kl_div(a, b, "batchmean"), [S, Q],
     _kl(S, Q).sum() / S.shape[0]),
    ("binary_cross_entropy", lambda a, b: ops.binary_cross_entropy(a, b, None, "none"), [P, Q],
     _bce(P, Q)),
    ("binary_cross_entropy_weighted", lambda a, b, w: ops.binary_cross_entropy(a, b, w, "sum"),
     [P, Q, Y], (_bce(P, Q) * Y).sum()),
    ("tensor_scatter_sub", lambda a, i, u: ops.tensor_scatter_sub(a, i, u), [S, IDX, Y[:3]],
     _scatter_sub(S, IDX, Y[:3])),
    ("soft_shrink", lambda a: ops.soft_shrink(a, 0.7), [S],
     np.where(S > 0.7, S - 0.7, np.where(S < -0.7, S + 0.7, 0))),
    ("vander", lambda a: ops.vander(a, 4), [np.array([1, 2, 3], np.int32)],
     np.vander(np.array([1, 2, 3]), 4).astype(np.int64)),
    ("vander_float", lambda a: ops.vander(a), [A[0]], np.vander(A[0].astype(np.float64))),
    ("Cdist", lambda a, b: ops.Cdist(1.5)(a, b), [A3, B3], _pairs(A3, B3, 1.5)),
    ("Pdist", lambda a: ops.Pdist()(a), [B], _pdist(B, 2)),
    ("MatrixBandPart", lambda a: ops.MatrixBandPart()(a, 0, 1), [S], _band(S, 0, 1)),
    ("SmoothL1Loss", lambda a, b: ops.SmoothL1Loss(0.5, "sum")(a, b), [S, Y],
     _smooth(S - Y, 0.5).sum()),
    ("SoftMarginLoss", lambda a, b: ops.SoftMarginLoss()(a, b), [S, T],
     np.log1p(np.exp(-T * S)).mean()),
    ("BinaryCrossEntropy", lambda a, b: ops.BinaryCrossEntropy("none")(a, b), [P, Q],
     _bce(P, Q)),
    ("KLDivLoss", lambda a, b: ops.KLDivLoss()(a, b), [S, Q], _kl(S, Q).mean()),
    ("KLDivLoss_sum", lambda a, b: ops.KLDivLoss("sum")(a, b), [S, Q], _kl(S, Q).sum()),
    ("TensorScatterSub", lambda a, i, u: ops.TensorScatterSub()(a, i, u),
     [S, np.array([[1], [1]], np.int32), Y[:2]],
     _scatter_sub(S, np.array([[1], [1]]), Y[:2])),
    ("L2Normalize", lambda a: ops.L2Normalize(1)(a), [S],
     S / np.sqrt(np.maximum((S * S).sum(1, keepdims=True), 1e-4))),
    ("L2Normalize_epsilon", lambda a: ops.L2Normalize()(a), [S * 1e-3],
     S * 1e-3 / np.sqrt(np.maximum((S * S * 1e-6).sum(0, keepdims=True), 1e-4))),
    ("SigmoidCrossEntropyWithLogits", lambda a, b: ops.SigmoidCrossEntropyWithLogits()(a, b),
     [S, P], _softplus(S) - S * P),
    ("EuclideanNorm", lambda a: ops.EuclideanNorm()(a, (1,)), [S],
     np.sqrt((S.astype(np.float64) ** 2).sum(1))),
    ("EuclideanNorm_keep_dims", lambda a: ops.EuclideanNorm(True)(a, (0, 2)), [A3],
     np.sqrt((A3.astype(np.float64) ** 2).sum((0, 2), keepdims=True))),
]


def _want(want):
    """The numpy result in the dtype msc gives: float32 for float inputs."""
    want = np.asarray(want)
    return want.astype(F32) if want.dtype == np.float64 else want


@pytest.mark.parametrize("name,fn,inputs,want", CASES, ids=[c[0] for c in CASES])
def test_eager_and_python_graph_match_numpy(name, fn, inputs, want, tmp_path):
    want = _want(want)
    eager = to_numpy(fn(*[Tensor(x) for x in inputs]))
    assert_same(eager, want, f"{name} eager", rtol=2e-5, atol=2e-5)
    assert_same(run_python_graph(fn, inputs, tmp_path), want, f"{name} graph", rtol=2e-5,
                atol=2e-5)


@pytest.mark.parametrize("name", ["pdist_p1_batched", "kl_div_batchmean", "MatrixBandPart"])
def test_numba_target_agrees(name, tmp_path):
    _, fn, inputs, want = {c[0]: c for c in CASES}[name]
    check_all(fn, inputs, tmp_path, expect=_want(want), rtol=2e-5, atol=2e-5)


def test_jit_and_tensor_band_limits():
    @ms.jit
    def f(a, b, lower):
        return ops.cdist(a, b) + ops.matrix_band_part(ops.cdist(a, b), lower, 1)

    d = _pairs(A, B, 2)
    got = f(Tensor(A), Tensor(B), Tensor(np.int64(0))).asnumpy()
    np.testing.assert_allclose(got, d + _band(d, 0, 1), rtol=1e-5, atol=1e-5)


def test_float16_keeps_its_dtype():
    got = ops.cdist(Tensor(A.astype(np.float16)), Tensor(B.astype(np.float16)))
    assert got.dtype == ms.float16
    np.testing.assert_allclose(got.asnumpy(), _pairs(A, B, 2), rtol=2e-3, atol=2e-3)
    assert ops.huber_loss(Tensor(S.astype(np.float16)), Tensor(Y.astype(np.float16))).dtype \
        == ms.float16


@pytest.mark.parametrize("call, error", [
    (lambda: ops.cdist(Tensor(A), Tensor(B), -1.0), ValueError),
    (lambda: ops.cdist(Tensor(A), Tensor(B[:, :3])), ValueError),
    (lambda: ops.cdist(Tensor(A.astype(np.int32)), Tensor(B)), TypeError),
    (lambda: ops.pdist(Tensor(A[0])), ValueError),
    (lambda: ops.Pdist(-2.0), ValueError),
    (lambda: ops.matrix_band_part(Tensor(A[0]), 1, 1), ValueError),
    (lambda: ops.matrix_band_part(Tensor(A), 1.5, 1), TypeError),
    (lambda: ops.smooth_l1_loss(Tensor(S), Tensor(Y), 0.0), ValueError),
    (lambda: ops.huber_loss(Tensor(S), Tensor(Y), "avg"), ValueError),
    (lambda: ops.huber_loss(Tensor(S), Tensor(Y), delta=-1), ValueError),
    (lambda: ops.margin_ranking_loss(Tensor(S), Tensor(Y), Tensor(T), 1), TypeError),
    (lambda: ops.cosine_embedding_loss(Tensor(A), Tensor(A), Tensor(T3), 1.5), ValueError),
    (lambda: ops.kl_div(Tensor(S), Tensor(Q), "avg"), ValueError),
    (lambda: ops.KLDivLoss("avg"), ValueError),
    (lambda: ops.SoftMarginLoss("avg"), ValueError),
    (lambda: ops.vander(A[0]), TypeError),
    (lambda: ops.vander(Tensor(A)), ValueError),
    (lambda: ops.vander(Tensor(A[0]), 0), ValueError),
    (lambda: ops.vander(Tensor(A[0]), 2.0), TypeError),
])
def test_documented_errors(call, error):
    with pytest.raises(error):
        call()
