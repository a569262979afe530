"""The segment and scatter reductions (``ops/function/scatter_func.py``), the ops that move
elements around (``manipulation_func.py``), sorted search (``search_func.py``), norms and
their primitive classes: each eagerly and compiled (python target; numba on two) against
numpy written here, with dtypes; the random ops (``random_func.py``) by shape, dtype,
range, moments and reproducibility."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Tensor, ops
from tests.codegen import assert_same, check_all, run_python_graph, to_numpy

RNG = np.random.default_rng(11)
F32, I32, I64 = np.float32, np.int32, np.int64

X = RNG.uniform(-2, 2, (4, 3)).astype(F32)
IDS = np.array([0, 2, 0, -1], I32)
XI = RNG.integers(-9, 9, (4, 3)).astype(I32)
BASE = RNG.uniform(1, 2, (3, 2)).astype(F32)
SIDX = np.array([[0], [2], [0]], I32)
UPD = RNG.uniform(0.5, 3, (3, 2)).astype(F32)
IMG = RNG.uniform(-1, 1, (2, 8, 2, 4)).astype(F32)
SEQ = np.sort(RNG.uniform(-2, 2, (2, 5)).astype(F32), -1)
VALS = np.concatenate([SEQ[:, 1:3], RNG.uniform(-2, 2, (2, 2)).astype(F32)], 1)


def _segment(x, ids, n, reduce, empty):
    out = np.full((n,) + x.shape[ids.ndim:], empty, x.dtype)
    for s in range(n):
        rows = x[ids == s]
        if len(rows):
            out[s] = reduce(rows, axis=0)
    return out


def _scatter(x, idx, upd, combine):
    out = x.copy()
    for i, u in zip(idx[:, 0], upd):
        out[i] = combine(out[i], u)
    return out


def _rows(x, rows, v, combine):
    out = x.copy()
    for r, u in zip(rows, v):
        out[r] = combine(out[r], u)
    return out


def _revseq(x, lengths, seq, batch):
    out = np.moveaxis(x.copy(), (batch, seq), (0, 1))
    src = np.moveaxis(x, (batch, seq), (0, 1))
    for b, n in enumerate(lengths):
        out[b, :n] = src[b, :n][::-1]
    return np.moveaxis(out, (0, 1), (batch, seq))


def _lrn(x, r, bias, alpha, beta):
    sq = np.pad(x.astype(np.float64) ** 2, ((0, 0), (r, r), (0, 0), (0, 0)))
    window = sum(sq[:, k:k + x.shape[1]] for k in range(2 * r + 1))
    return x / (bias + alpha * window) ** beta


def _d2s(x, b):
    n, c, h, w = x.shape
    depth = c // b // b
    out = np.empty((n, depth, h * b, w * b), x.dtype)
    for i in range(b):
        for j in range(b):
            block = i * b + j
            out[:, :, i::b, j::b] = x[:, block * depth:(block + 1) * depth]
    return out


def _diag_embed(x, offset, dim1, dim2):
    m = x.shape[-1] + abs(offset)
    out = np.zeros(x.shape[:-1] + (m, m), x.dtype)
    k = np.arange(x.shape[-1])
    out[..., k + max(-offset, 0), k + max(offset, 0)] = x
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


def _norm(x, p, axis=None, keepdims=False):
    a = np.abs(x.astype(np.float64))
    if p == np.inf:
        return a.max(axis, keepdims=keepdims)
    if p == 0:
        return (a != 0).sum(axis, keepdims=keepdims).astype(np.float64)
    return (a ** p).sum(axis, keepdims=keepdims) ** (1 / p)


def _clse(x, axis, exclusive, reverse):
    y = np.flip(x, axis) if reverse else x
    out = np.logaddexp.accumulate(y.astype(np.float64), axis)
    if exclusive:
        out = np.concatenate([np.full_like(np.take(out, [0], axis), -np.inf),
                              np.take(out, range(x.shape[axis] - 1), axis)], axis)
    return np.flip(out, axis) if reverse else out


def _bucket(x, edges, right):
    return np.searchsorted(np.array(edges), x, "right" if right else "left").astype(I32)


def _search(seq, v, right):
    side = "right" if right else "left"
    return np.stack([np.searchsorted(s, r, side) for s, r in zip(seq, v)])


CASES = [
    ("unsorted_segment_sum", lambda x, i: ops.unsorted_segment_sum(x, i, 4), [X, IDS],
     _segment(X, IDS, 4, np.sum, 0)),
    ("unsorted_segment_max", lambda x, i: ops.unsorted_segment_max(x, i, 3), [X, IDS],
     _segment(X, IDS, 3, np.max, np.finfo(X.dtype).min)),  # MindSpore's empty segment
    ("unsorted_segment_min_int", lambda x, i: ops.unsorted_segment_min(x, i, 3), [XI, IDS],
     _segment(XI, IDS, 3, np.min, np.iinfo(I32).max)),
    ("unsorted_segment_prod", lambda x, i: ops.unsorted_segment_prod(x, i, 3), [X, IDS],
     _segment(X, IDS, 3, np.prod, 1)),
    ("UnsortedSegmentSum_2d_ids", lambda x, i: ops.UnsortedSegmentSum()(x, i, 3),
     [X, np.array([[0, 1, 2], [2, 2, 0], [1, 1, 1], [0, 0, 0]], I32)],
     _segment(X.reshape(-1), np.array([0, 1, 2, 2, 2, 0, 1, 1, 1, 0, 0, 0]), 3, np.sum, 0)),
    ("UnsortedSegmentMax_int", lambda x, i: ops.UnsortedSegmentMax()(x, i, 3), [XI, IDS],
     _segment(XI, IDS, 3, np.max, np.iinfo(I32).min)),
    ("UnsortedSegmentMin", lambda x, i: ops.UnsortedSegmentMin()(x, i, 3), [X, IDS],
     _segment(X, IDS, 3, np.min, np.finfo(X.dtype).max)),
    ("UnsortedSegmentProd", lambda x, i: ops.UnsortedSegmentProd()(x, i, 2), [XI, IDS],
     _segment(XI, IDS, 2, np.prod, 1)),
    ("tensor_scatter_mul", lambda x, i, u: ops.tensor_scatter_mul(x, i, u), [BASE, SIDX, UPD],
     _scatter(BASE, SIDX, UPD, np.multiply)),
    ("tensor_scatter_div", lambda x, i, u: ops.tensor_scatter_div(x, i, u), [BASE, SIDX, UPD],
     _scatter(BASE, SIDX, UPD, np.divide)),
    ("tensor_scatter_div_int", lambda x, i, u: ops.tensor_scatter_div(x, i, u),
     [np.array([-7, 8, 9], I32), np.array([[0], [0], [2]], I32), np.array([2, 3, -4], I32)],
     np.array([-1, 8, -2], I32)),
    ("tensor_scatter_max", lambda x, i, u: ops.tensor_scatter_max(x, i, u), [BASE, SIDX, UPD],
     _scatter(BASE, SIDX, UPD, np.maximum)),
    ("tensor_scatter_min", lambda x, i, u: ops.tensor_scatter_min(x, i, u), [BASE, SIDX, UPD],
     _scatter(BASE, SIDX, UPD, np.minimum)),
    ("TensorScatterMul_2d_index", lambda x, i, u: ops.TensorScatterMul()(x, i, u),
     [BASE, np.array([[0, 1], [0, 1], [2, 0]], I32), UPD[:, 0].copy()],
     _rows(BASE.reshape(-1), [1, 1, 4], UPD[:, 0], np.multiply).reshape(3, 2)),
    ("TensorScatterDiv", lambda x, i, u: ops.TensorScatterDiv()(x, i, u), [BASE, SIDX, UPD],
     _scatter(BASE, SIDX, UPD, np.divide)),
    ("TensorScatterMax", lambda x, i, u: ops.TensorScatterMax()(x, i, u), [BASE, SIDX, UPD],
     _scatter(BASE, SIDX, UPD, np.maximum)),
    ("TensorScatterMin_int", lambda x, i, u: ops.TensorScatterMin()(x, i, u),
     [XI[:3, :2].copy(), SIDX, XI[1:, 1:].copy()],
     _scatter(XI[:3, :2], SIDX, XI[1:, 1:], np.minimum)),
    ("inplace_add", lambda x, v: ops.inplace_add(x, v, (0, 3, 0)), [X, X[:3] * 2],
     _rows(X, [0, 3, 0], X[:3] * 2, np.add)),
    ("inplace_sub_int_index", lambda x, v: ops.inplace_sub(x, v, 2), [X, X[:1]],
     _rows(X, [2], X[:1], np.subtract)),
    ("inplace_update", lambda x, v: ops.inplace_update(x, v, (3, 1)), [X, X[:2] + 5],
     _rows(X, [3, 1], X[:2] + 5, lambda a, b: b)),
    ("InplaceAdd", lambda x, v: ops.InplaceAdd((1, 2))(x, v), [XI, XI[:2]],
     _rows(XI, [1, 2], XI[:2], np.add)),
    ("InplaceSub", lambda x, v: ops.InplaceSub((1,))(x, v), [X, X[:1]],
     _rows(X, [1], X[:1], np.subtract)),
    ("InplaceUpdate", lambda x, v: ops.InplaceUpdate((0, 2))(x, v), [X, X[2:]],
     _rows(X, [0, 2], X[2:], lambda a, b: b)),
    ("InplaceUpdateV2", lambda x, i, v: ops.InplaceUpdateV2()(x, i, v),
     [X, np.array([2, 0], I32), X[:2] - 1], _rows(X, [2, 0], X[:2] - 1, lambda a, b: b)),
    ("index_fill", lambda x, i: ops.index_fill(x, 1, i, 9.5), [X, np.array([0, 2], I32)],
     np.where(np.isin(np.arange(3), [0, 2]), 9.5, X).astype(F32)),
    ("IndexFill_int_negative", lambda x, i, v: ops.IndexFill()(x, 0, i, v),
     [XI, np.array([-1], I32), np.array(-3, I32)],
     np.where(np.arange(4)[:, None] == 3, -3, XI).astype(I32)),
    ("reverse_sequence", lambda x, n: ops.reverse_sequence(x, n, 1),
     [X, np.array([1, 2, 3, 0], I32)],
     _revseq(X, [1, 2, 3, 0], 1, 0)),
    ("ReverseSequence_batch_last", lambda x, n: ops.ReverseSequence(0, 1)(x, n),
     [X, np.array([4, 2, 3], I64)], _revseq(X, [4, 2, 3], 0, 1)),
    ("channel_shuffle", lambda x: ops.channel_shuffle(x, 4), [IMG],
     IMG.reshape(2, 4, 2, 2, 4).swapaxes(1, 2).reshape(IMG.shape)),
    ("ChannelShuffle", lambda x: ops.ChannelShuffle(2)(x), [IMG],
     IMG.reshape(2, 2, 4, 2, 4).swapaxes(1, 2).reshape(IMG.shape)),
    ("lrn", lambda x: ops.lrn(x, 2, 1.0, 0.5, 0.75), [IMG], _lrn(IMG, 2, 1.0, 0.5, 0.75)),
    ("LRN", lambda x: ops.LRN()(x), [IMG], _lrn(IMG, 5, 1.0, 1.0, 0.5)),
    ("DepthToSpace", lambda x: ops.DepthToSpace(2)(x), [IMG], _d2s(IMG, 2)),
    ("SpaceToDepth_roundtrip", lambda x: ops.SpaceToDepth(2)(ops.DepthToSpace(2)(x)), [IMG], IMG),
    ("SpaceToDepth", lambda x: ops.SpaceToDepth(2)(x), [_d2s(IMG, 2)], IMG),
    ("DiagPart", lambda x: ops.DiagPart()(x), [np.arange(36, dtype=F32).reshape(2, 3, 2, 3)],
     np.arange(36, dtype=F32).reshape(6, 6).diagonal().reshape(2, 3)),
    ("Diag", lambda x: ops.Diag()(x), [XI[:2, :2].copy()],
     np.diag(XI[:2, :2].reshape(-1)).reshape(2, 2, 2, 2)),
    ("diag_embed", lambda x: ops.diag_embed(x, 1), [X], _diag_embed(X, 1, -2, -1)),
    ("diag_embed_dims", lambda x: ops.diag_embed(x, -1, 0, 2), [XI], _diag_embed(XI, -1, 0, 2)),
    ("fftshift", lambda x: ops.fftshift(x), [XI], np.fft.fftshift(XI)),
    ("ifftshift_dim", lambda x: ops.ifftshift(x, 1), [X], np.fft.ifftshift(X, 1)),
    ("fftfreq", lambda: ops.fftfreq(5, 0.5), [], np.fft.fftfreq(5, 0.5).astype(F32)),
    ("rfftfreq", lambda: ops.rfftfreq(6), [], np.fft.rfftfreq(6).astype(F32)),
    ("logspace", lambda: ops.logspace(0.0, 2.0, 5), [], np.logspace(0, 2, 5).astype(F32)),
    ("LogSpace", lambda a, b: ops.LogSpace(4, 2)(a, b), [np.array(-1, F32), np.array(3, F32)],
     np.logspace(-1, 3, 4, base=2).astype(F32)),
    ("truncate_div", lambda a, b: ops.truncate_div(a, b), [XI, np.array([2, -3, 4], I32)],
     np.trunc(XI / np.array([2, -3, 4])).astype(I32)),
    ("truncate_mod", lambda a, b: ops.truncate_mod(a, b), [X, np.array([0.7, -1.1, 1.5], F32)],
     np.fmod(X, np.array([0.7, -1.1, 1.5], F32))),
    ("bucketize", lambda x: ops.bucketize(x, [-1.0, 0.0, 1.5]), [X],
     _bucket(X, [-1.0, 0.0, 1.5], False)),
    ("bucketize_int_right", lambda x: ops.bucketize(x, [-3, 0, 3], right=True), [XI],
     _bucket(XI, [-3, 0, 3], True)),
    ("Bucketize", lambda x: ops.Bucketize([-1.0, 0.0])(x), [np.round(X)],
     _bucket(np.round(X), [-1.0, 0.0], True)),
    ("searchsorted", lambda s, v: ops.searchsorted(s, v), [SEQ, VALS], _search(SEQ, VALS, False)),
    ("searchsorted_right_1d", lambda s, v: ops.searchsorted(s, v, side="right", out_int32=True),
     [SEQ[0].copy(), VALS], np.searchsorted(SEQ[0], VALS, "right").astype(I32)),
    ("SearchSorted", lambda s, v: ops.SearchSorted(ms.int32, True)(s, v), [SEQ, VALS],
     _search(SEQ, VALS, True).astype(I32)),
    ("LowerBound", lambda s, v: ops.LowerBound()(s, v), [SEQ, VALS],
     _search(SEQ, VALS, False).astype(I32)),
    ("UpperBound", lambda s, v: ops.UpperBound(ms.int64)(s, v), [SEQ, VALS],
     _search(SEQ, VALS, True)),
    ("vector_norm", lambda x: ops.vector_norm(x), [X], _norm(X, 2)),
    ("vector_norm_p1_keep", lambda x: ops.vector_norm(x, 1, 1, True), [X], _norm(X, 1, 1, True)),
    ("vector_norm_inf_int", lambda x: ops.vector_norm(x, float("inf"), 0), [XI],
     _norm(XI, np.inf, 0)),
    ("LpNorm_p3", lambda x: ops.LpNorm([0, 1], 3, True)(x), [X], _norm(X, 3, (0, 1), True)),
    ("LpNorm_p0", lambda x: ops.LpNorm(0, 0)(x), [np.round(X)], _norm(np.round(X), 0, 0)),
    ("Renorm", lambda x: ops.Renorm(2, 0, 1.5)(x), [X],
     X * np.where(_norm(X, 2, 1, True) > 1.5, 1.5 / (_norm(X, 2, 1, True) + 1e-7), 1)),
    ("CumulativeLogsumexp", lambda x: ops.CumulativeLogsumexp()(x, Tensor(1)), [X],
     _clse(X, 1, False, False)),
    ("CumulativeLogsumexp_exclusive_reverse", lambda x: ops.CumulativeLogsumexp(True, True)(
        x, Tensor(0)), [X], _clse(X, 0, True, True)),
    ("ConjugateTranspose", lambda x: ops.ConjugateTranspose()(x, (1, 0)), [X], X.T),
    ("Gelu", lambda x: ops.Gelu()(x), [X], ops.GeLU()(Tensor(X)).asnumpy()),
    ("TrilIndices", lambda: ops.TrilIndices(3, 4, 1)(), [],
     np.stack(np.tril_indices(3, 1, 4)).astype(I32)),
    ("TriuIndices", lambda: ops.TriuIndices(4, 3, -1, ms.int64)(), [],
     np.stack(np.triu_indices(4, -1, 3)).astype(I64)),
    ("scalar_to_tensor", lambda: ops.scalar_to_tensor(3, ms.int32), [], np.array(3, I32)),
    ("ScalarToTensor", lambda: ops.ScalarToTensor()(2.5), [], np.array(2.5, F32)),
    ("TupleToArray", lambda: ops.TupleToArray()((1.5, 2.0)), [], np.array([1.5, 2.0], F32)),
]


def _want(want):
    want = np.asarray(want)
    return want.astype(F32) if want.dtype == np.float64 else want


@pytest.mark.parametrize("name,fn,inputs,want", CASES, ids=[c[0] for c in CASES])
def test_eager_and_python_graph_match_numpy(name, fn, inputs, want, tmp_path):
    want = _want(want)
    eager = to_numpy(fn(*[Tensor(x) for x in inputs]))
    assert_same(eager, want, f"{name} eager", rtol=2e-5, atol=2e-5)
    assert_same(run_python_graph(fn, inputs, tmp_path), want, f"{name} graph", rtol=2e-5,
                atol=2e-5)


@pytest.mark.parametrize("name", ["unsorted_segment_max", "reverse_sequence"])
def test_numba_target_agrees(name, tmp_path):
    _, fn, inputs, want = {c[0]: c for c in CASES}[name]
    check_all(fn, inputs, tmp_path, expect=_want(want), rtol=2e-5, atol=2e-5)


def test_frequencies_take_their_dtype():
    got = ops.rfftfreq(6, dtype=ms.float64)
    assert got.dtype == ms.float64
    np.testing.assert_allclose(got.asnumpy(), np.fft.rfftfreq(6))
    assert ops.logspace(0, 1, 3, dtype=ms.float64).dtype == ms.float64


@pytest.mark.parametrize("call, error", [
    (lambda: ops.unsorted_segment_sum(Tensor(X), Tensor(IDS[:3]), 3), ValueError),
    (lambda: ops.unsorted_segment_sum(Tensor(X), Tensor(X[:, 0]), 3), TypeError),
    (lambda: ops.tensor_scatter_max(Tensor(BASE), Tensor(SIDX), Tensor(UPD[:2])), ValueError),
    (lambda: ops.inplace_add(Tensor(X), Tensor(X[:2]), (0,)), ValueError),
    (lambda: ops.inplace_update(Tensor(X), Tensor(X[:1]), 1.5), TypeError),
    (lambda: ops.channel_shuffle(Tensor(X[None]), 3), TypeError),
    (lambda: ops.channel_shuffle(Tensor(IMG), 3), ValueError),
    (lambda: ops.DepthToSpace(3)(Tensor(IMG)), ValueError),
    (lambda: ops.lrn(Tensor(X), 2), TypeError),
    (lambda: ops.logspace(0, 1, 3, dtype=ms.int32), TypeError),
    (lambda: ops.LogSpace(3, 2, ms.int32)(Tensor(0.0), Tensor(1.0)), TypeError),
    (lambda: ops.CumulativeLogsumexp()(Tensor(X), 1), TypeError),
    (lambda: ops.searchsorted(Tensor(SEQ), Tensor(VALS), side="middle"), ValueError),
    (lambda: ops.reverse_sequence(Tensor(X), Tensor(IDS[:3]), 1), ValueError),
    (lambda: ops.DiagPart()(Tensor(X)), ValueError),
    (lambda: ops.scalar_to_tensor(Tensor(X)), TypeError),
    (lambda: ops.randn(2, dtype=ms.int32), ValueError),
    (lambda: ops.randint(0, 5, [2]), ValueError),
    (lambda: ops.randint(5, 5, (2,)), ValueError),
    (lambda: ops.randint(0.5, 5, (2,)), TypeError),
    (lambda: ops.rand_like(Tensor(XI)), ValueError),
    (lambda: ops.randint_like(Tensor(X), 0, 3), ValueError),
    (lambda: ops.uniform((2,), Tensor(1, ms.int32), Tensor(5, ms.int32)), TypeError),
    (lambda: ops.uniform((2,), 1.0, 5.0), TypeError),
    (lambda: ops.bernoulli(Tensor(X), Tensor(X[0])), ValueError),
    (lambda: ops.UniformReal(seed=-1), ValueError),
])
def test_documented_errors(call, error):
    with pytest.raises(error):
        call()


# --- random ops -------------------------------------------------------------------------

N = 20000
RANDOM = [
    # (name, draw, dtype, check of the numbers)
    ("uniform", lambda: ops.uniform((N,), Tensor(1.0), Tensor(3.0)), np.float32,
     lambda v: v.min() >= 1 and v.max() < 3 and abs(v.mean() - 2) < 0.03
     and abs(v.var() - 4 / 12) < 0.02),
    ("uniform_int", lambda: ops.uniform((N,), Tensor(-2, ms.int32), Tensor(3, ms.int32),
                                        dtype=ms.int32), np.int32,
     lambda v: set(np.unique(v)) == {-2, -1, 0, 1, 2} and abs(v.mean()) < 0.05),
    ("standard_normal", lambda: ops.standard_normal((N,)), np.float32,
     lambda v: abs(v.mean()) < 0.04 and abs(v.std() - 1) < 0.03
     and abs((np.abs(v) < 1).mean() - 0.6827) < 0.015),
    ("randn", lambda: ops.randn(100, 200, dtype=ms.float64), np.float64,
     lambda v: v.shape == (100, 200) and abs(v.mean()) < 0.04 and abs(v.std() - 1) < 0.03),
    ("randn_like", lambda: ops.randn_like(Tensor(np.zeros((N,), I32))), np.float32,
     lambda v: abs(v.mean()) < 0.04 and abs(v.std() - 1) < 0.03),
    ("standard_laplace", lambda: ops.standard_laplace((N,)), np.float32,
     lambda v: abs(v.mean()) < 0.05 and abs(v.var() - 2) < 0.15
     and abs((np.abs(v) < 1).mean() - (1 - np.exp(-1))) < 0.015),
    ("randint", lambda: ops.randint(-3, 4, (N,)), np.int64,
     lambda v: set(np.unique(v)) == set(range(-3, 4)) and abs(v.mean()) < 0.06),
    ("randint_like", lambda: ops.randint_like(Tensor(np.zeros((N,), I32)), 0, 2), np.int32,
     lambda v: set(np.unique(v)) == {0, 1} and abs(v.mean() - 0.5) < 0.02),
    ("rand_like", lambda: ops.rand_like(Tensor(np.zeros((N,), np.float16))), np.float16,
     lambda v: v.min() >= 0 and v.max() <= 1 and abs(v.mean() - 0.5) < 0.02),
    ("bernoulli", lambda: ops.bernoulli(Tensor(np.zeros((N,), np.uint8)), 0.3), np.uint8,
     lambda v: set(np.unique(v)) == {0, 1} and abs(v.mean() - 0.3) < 0.02),
    ("bernoulli_tensor_p", lambda: ops.bernoulli(Tensor(np.zeros((2, N // 2), F32)), Tensor(
        np.array([[0.2], [0.9]], F32).repeat(N // 2, 1))), np.float32,
     lambda v: abs(v[0].mean() - 0.2) < 0.02 and abs(v[1].mean() - 0.9) < 0.02),
    ("UniformReal", lambda: ops.UniformReal()((N,)), np.float32,
     lambda v: v.min() >= 0 and v.max() < 1 and abs(v.mean() - 0.5) < 0.02),
    ("StandardNormal", lambda: ops.StandardNormal()(Tensor(np.array([N], I32))), np.float32,
     lambda v: abs(v.mean()) < 0.04 and abs(v.std() - 1) < 0.03),
    ("StandardLaplace", lambda: ops.StandardLaplace()((N,)), np.float32,
     lambda v: abs(v.mean()) < 0.05 and abs(np.abs(v).mean() - 1) < 0.04),
    ("UniformInt", lambda: ops.UniformInt()((N,), Tensor(1, ms.int32), Tensor(4, ms.int32)),
     np.int32, lambda v: set(np.unique(v)) == {1, 2, 3} and abs(v.mean() - 2) < 0.03),
]


@pytest.mark.parametrize("name,draw,dtype,check", RANDOM, ids=[c[0] for c in RANDOM])
def test_random_distribution_and_seed(name, draw, dtype, check):
    ms.set_seed(7)
    first = draw().asnumpy()
    ms.set_seed(7)
    again = draw().asnumpy()
    assert first.dtype == dtype, f"{name}: {first.dtype}"
    assert check(first), name
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, draw().asnumpy()), "the stream moves on"


def test_random_explicit_seed_and_classes_seed():
    a = ops.standard_normal((50,), seed=3).asnumpy()
    np.testing.assert_array_equal(a, ops.standard_normal((50,), seed=3).asnumpy())
    b = ops.StandardNormal(seed=3, seed2=1)((50,)).asnumpy()
    np.testing.assert_array_equal(b, ops.StandardNormal(seed=3, seed2=1)((50,)).asnumpy())
    assert not np.array_equal(a, b)


def _draws(x):
    return (x + ops.standard_normal((4, 3)), ops.randint(0, 9, (5,)), ops.bernoulli(x, 0.5),
            ops.StandardLaplace()((2,)))


def test_random_ops_in_graphs(tmp_path):
    """Compiled draws have MindSpore's dtypes and shapes, move on between calls, and repeat
    when the graph is built again after the same ``set_seed``."""
    x = np.zeros((4, 3), F32)
    jitted = ms.jit(_draws)
    first = [t.asnumpy() for t in jitted(Tensor(x))]
    for a, dtype, shape in zip(first, (F32, I64, F32, F32), ((4, 3), (5,), (4, 3), (2,))):
        assert a.dtype == dtype and a.shape == shape
    assert ((first[1] >= 0) & (first[1] < 9)).all()
    assert set(np.unique(first[2])) <= {0.0, 1.0}
    assert not np.array_equal(first[0], jitted(Tensor(x))[0].asnumpy())
    builds = []
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        ms.set_seed(5)
        builds.append(run_python_graph(_draws, [x], tmp_path / folder))
    for a, b in zip(*builds):
        np.testing.assert_array_equal(a, b)
