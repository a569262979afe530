"""The layers added for MindSpore 2.10's ``nn`` namespace: pooling (3-d, adaptive 1-d/3-d,
Lp, the torch-style ``*Ext``), normalisation (instance, ``LayerNormExt``, ``SyncBatchNorm``,
``LRN``), activations (``SeLU``, ``Softmax2d``, ``LogSoftmaxExt``, ``PReLUExt``,
``RReLU``), ``Linear``, ``BiDense``, dropout by channel, ``ChannelShuffle``,
``TimeDistributed``, ``Conv2dBnAct``/``DenseBnAct``, ``CentralCrop``, ``ImageGradients``,
``EmbeddingExt`` and the math layers. Compiled (python target) == eager == numpy written
independently; MindSpore 2.10's values where its CPU kernels exist (LPPool with
ceil_mode, CentralCrop, ImageGradients, Range's int32, parameter names); gradients
against finite differences."""

from __future__ import annotations

import math

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops
from tests.codegen import assert_same, numeric_grad, run_python_graph, to_numpy

RNG = np.random.default_rng(5)


def windows(x, k, s):
    """(..., n) -> (..., out, k) windows of the last axis, numpy only."""
    out = (x.shape[-1] - k) // s + 1
    return np.stack([x[..., i * s:i * s + k] for i in range(out)], -2)


class Pools(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lp1 = nn.LPPool1d(2, 2)
        self.lp2 = nn.LPPool2d(1, 2)
        self.max3 = nn.MaxPool3d(2, 1)
        self.amax1 = nn.AdaptiveMaxPool1d(2)
        self.aavg3 = nn.AdaptiveAvgPool3d((1, 2, 2))
        self.avg1 = nn.AvgPool1dExt(3, 2, 1)
        self.avg2 = nn.AvgPool2dExt(2, divisor_override=3)
        self.max2 = nn.MaxPool2dExt(2, 1, 1)

    def construct(self, x4, x5):
        x3 = x4[:, 0]
        return (self.lp1(x3), self.lp2(x4), self.max3(x5), self.amax1(x3), self.aavg3(x5),
                self.avg1(x3), self.avg2(x4), self.max2(x4))


def test_pooling(tmp_path):
    x4 = RNG.normal(size=(2, 1, 4, 4)).astype(np.float32)
    x5 = RNG.normal(size=(1, 2, 3, 4, 4)).astype(np.float32)
    x3 = x4[:, 0]
    lp1 = np.sqrt((windows(x3, 2, 2) ** 2).sum(-1))
    blocks = x4.reshape(2, 1, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5)
    lp2 = blocks.sum((-1, -2))
    max3 = np.stack([x5[:, :, a:a + 2, b:b + 2, c:c + 2].reshape(1, 2, -1).max(-1)
                     for a in range(2) for b in range(3) for c in range(3)], -1
                    ).reshape(1, 2, 2, 3, 3)
    amax1 = x3.reshape(2, 4, 2, 2).max(-1)
    aavg3 = x5.reshape(1, 2, 1, 3, 2, 2, 2, 2).mean((3, 5, 7))
    padded = np.pad(x3, ((0, 0), (0, 0), (1, 1)))
    avg1 = windows(padded, 3, 2).sum(-1) / 3
    avg2 = blocks.sum((-1, -2)) / 3
    pad4 = np.pad(x4, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    max2 = np.zeros((2, 1, 5, 5))
    for i in range(5):
        for j in range(5):
            max2[:, :, i, j] = pad4[:, :, i:i + 2, j:j + 2].max((-1, -2))
    expect = tuple(a.astype(np.float32) for a in (lp1, lp2, max3, amax1, aavg3, avg1, avg2,
                                                    max2))
    assert_same(to_numpy(Pools()(Tensor(x4), Tensor(x5))), expect, "eager")
    assert_same(run_python_graph(Pools(), [x4, x5], tmp_path), expect, "python")


def test_pooling_as_mindspore_gives():
    """LPPool1d with ceil_mode: the last window's mean of x**p over the positions it has,
    times the kernel size (MindSpore 2.10: [2.236068, 4.41588], [8.774964, 11.29159])."""
    out = nn.LPPool1d(2, 3, 2, True)(Tensor(np.arange(8, dtype=np.float32).reshape(1, 2, 4)))
    np.testing.assert_allclose(out.asnumpy(), [[[2.236068, 4.41588], [8.774964, 11.29159]]],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="divisible"):
        nn.AdaptiveMaxPool1d(2)(Tensor(np.ones((1, 1, 5), np.float32)))


class Layers(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inorm = nn.InstanceNorm2d(3, gamma_init=Tensor(np.array([1.0, 2.0, 0.5],
                                                                    np.float32)))
        self.lnorm = nn.LayerNormExt(4)
        self.lrn = nn.LRN(1, 1.0, 0.5, 0.75)
        self.selu = nn.SeLU()
        self.sm2d = nn.Softmax2d()
        self.lsm = nn.LogSoftmaxExt()
        self.prelu = nn.PReLUExt(3, 0.1)
        self.shuffle = nn.ChannelShuffle(3)
        self.crop = nn.CentralCrop(0.5)
        self.grads = nn.ImageGradients()
        self.diag = nn.MatrixDiag()
        self.part = nn.MatrixDiagPart()
        self.setdiag = nn.MatrixSetDiag()
        self.lbeta = nn.LBeta()
        self.lgamma = nn.LGamma()
        self.digamma = nn.DiGamma()
        self.range = nn.Range(1, 8, 2)

    def construct(self, x):
        v = x[0, 0]
        pos = ops.abs(v) + 0.5
        return (self.inorm(x), self.lnorm(x), self.lrn(x), self.selu(v), self.sm2d(x),
                self.lsm(x), self.prelu(x), self.shuffle(ops.tile(x, (1, 2, 1, 1))),
                self.crop(x), self.grads(x), self.diag(v), self.part(v),
                self.setdiag(v, v[0]), self.lbeta(pos, pos + 1), self.lgamma(pos),
                self.digamma(pos), self.range())


def test_layers(tmp_path):
    x = RNG.normal(size=(2, 3, 4, 4)).astype(np.float32)
    v = x[0, 0]
    pos = np.abs(v).astype(np.float64) + 0.5
    mean, var = x.mean((2, 3), keepdims=True), x.var((2, 3), keepdims=True)
    inorm = (x - mean) / np.sqrt(var + 1e-5) * np.array([1.0, 2.0, 0.5]).reshape(1, 3, 1, 1)
    lm, lv = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    sq = np.pad(x ** 2, ((0, 0), (1, 1), (0, 0), (0, 0)))
    lrn = x / (1.0 + 0.5 * (sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:])) ** 0.75
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    selu = scale * np.where(v > 0, v, alpha * (np.exp(v) - 1))
    e = np.exp(x - x.max(1, keepdims=True))
    lsm = x - x.max(1, keepdims=True) - np.log(e.sum(1, keepdims=True))
    tiled = np.tile(x, (1, 2, 1, 1))
    shuffled = tiled.reshape(2, 3, 2, 4, 4).transpose(0, 2, 1, 3, 4).reshape(2, 6, 4, 4)
    dy = np.concatenate([x[:, :, 1:] - x[:, :, :-1], np.zeros((2, 3, 1, 4))], 2)
    dx = np.concatenate([x[..., 1:] - x[..., :-1], np.zeros((2, 3, 4, 1))], 3)
    setdiag = v.copy()
    setdiag[np.arange(4), np.arange(4)] = v[0]
    lg = np.vectorize(math.lgamma)
    h = 1e-5
    f32 = np.float32
    expect = (inorm.astype(f32), ((x - lm) / np.sqrt(lv + 1e-5)).astype(f32), lrn.astype(f32),
              selu.astype(f32), (e / e.sum(1, keepdims=True)).astype(f32), lsm.astype(f32),
              np.where(x > 0, x, 0.1 * x).astype(f32), shuffled.astype(f32), x[:, :, 1:3, 1:3],
              (dy.astype(f32), dx.astype(f32)), np.stack([np.diag(r) for r in v]),
              np.diag(v), setdiag,
              (lg(pos) + lg(pos + 1) - lg(2 * pos + 1)).astype(f32), lg(pos).astype(f32),
              ((lg(pos + h) - lg(pos - h)) / (2 * h)).astype(f32),
              np.array([1, 3, 5, 7], np.int32))
    assert_same(to_numpy(Layers()(Tensor(x))), expect, "eager", 2e-5, 2e-5)
    assert_same(run_python_graph(Layers(), [x], tmp_path), expect, "python", 2e-5, 2e-5)


class Weighted(nn.Cell):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 3)
        self.bidense = nn.BiDense(4, 2, 3)
        self.td = nn.TimeDistributed(nn.Dense(4, 2), time_axis=1)
        self.cba = nn.Conv2dBnAct(3, 2, 3, activation="relu")
        self.dba = nn.DenseBnAct(4, 2, activation="leakyrelu", alpha=0.1)
        self.emb = nn.EmbeddingExt(5, 3, padding_idx=1)

    def construct(self, x, y, img, ids):
        return (self.linear(x), self.bidense(x, y), self.td(ops.stack([x, x * 2], 1)),
                self.cba(img), self.dba(x), self.emb(ids))


def test_weighted_layers(tmp_path):
    net = Weighted()
    x = RNG.normal(size=(2, 4)).astype(np.float32)
    y = RNG.normal(size=(2, 2)).astype(np.float32)
    img = RNG.normal(size=(1, 3, 4, 4)).astype(np.float32)
    ids = np.array([1, 4, 0], np.int64)
    p = {k: v.asnumpy() for k, v in net.parameters_dict().items()}
    w_td, b_td = p["td.layer.weight"], p["td.layer.bias"]
    conv = np.zeros((1, 2, 4, 4), np.float64)
    padded = np.pad(img, ((0, 0), (0, 0), (1, 1), (1, 1)))
    for i in range(4):
        for j in range(4):
            conv[0, :, i, j] = np.einsum("cij,ocij->o", padded[0, :, i:i + 3, j:j + 3],
                                         p["cba.conv.weight"])
    dense = x @ p["dba.dense.weight"].T + p["dba.dense.bias"]
    expect = ((x @ p["linear.weight"].T + p["linear.bias"]),
              np.einsum("bi,oij,bj->bo", x, p["bidense.weight"], y) + p["bidense.bias"],
              np.stack([x @ w_td.T + b_td, (2 * x) @ w_td.T + b_td], 1),
              np.maximum(conv, 0), np.where(dense > 0, dense, 0.1 * dense), p["emb.weight"][ids])
    expect = tuple(a.astype(np.float32) for a in expect)
    assert not p["emb.weight"][1].any()
    assert sorted(p) == sorted(["linear.weight", "linear.bias", "bidense.weight", "bidense.bias",
                                "td.layer.weight", "td.layer.bias", "cba.conv.weight",
                                "dba.dense.weight", "dba.dense.bias", "emb.weight"])
    assert_same(to_numpy(net(*[Tensor(v) for v in (x, y, img, ids)])), expect, "eager", 1e-5,
                1e-5)
    assert_same(run_python_graph(net, [x, y, img, ids], tmp_path), expect, "python", 1e-5, 1e-5)


def test_random_layers():
    ms.set_seed(0)
    x = Tensor(np.ones((64, 8, 2, 2), np.float32))
    drop = nn.Dropout2d(0.5)
    assert (drop(x).asnumpy() == 1).all()  # inference: the identity
    drop.set_train()
    out = drop(x).asnumpy()
    per_channel = out.reshape(64, 8, 4)
    assert set(np.unique(out)) <= {0.0, 2.0} and (per_channel.min(-1) == per_channel.max(-1)).all()
    assert 0.3 < (per_channel[..., 0] == 0).mean() < 0.7
    r = nn.RReLU(0.1, 0.3)(Tensor(-np.ones(1000, np.float32))).asnumpy()
    assert (r <= -0.1).all() and (r >= -0.3).all() and r.std() > 0.01
    with pytest.raises(ValueError, match="3-D or 4-D"):
        nn.Dropout2d()(Tensor(np.ones(3, np.float32)))
    assert nn.InstanceNorm2d(2).parameters_dict().keys() == {"mean", "variance", "gamma", "beta"}


def test_gradients_match_finite_differences():
    ms.set_context(jit_target="python")
    try:
        lp, inorm, lnorm = nn.LPPool2d(2, 2), nn.InstanceNorm2d(2), nn.LayerNormExt(4)
        grads = nn.ImageGradients()

        def total(v):
            dy, dx = grads(v)
            return ops.sum(lp(v * v + 1.0)) + ops.sum(inorm(v) * v) + ops.sum(lnorm(v) ** 3) \
                + ops.sum(dy * dx) + ops.sum(ops.lp_pool1d(v[:, 0] * v[:, 0] + 0.5, 3.0, 2))

        x = RNG.normal(size=(1, 2, 4, 4))
        got = ops.grad(total)(Tensor(x)).asnumpy()
        want = numeric_grad(total, x)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    finally:
        ms.set_context(jit_target="numba")
