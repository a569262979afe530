"""Losses against their formulas in numpy, eagerly and compiled on both targets, with
MindSpore's defaults, reductions, a user loss built on ``LossBase``, and argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops

X = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 2.0]], np.float32)
Y = np.array([[0.5, 2.5, 0.0], [1.0, -1.0, 0.5]], np.float32)
LABELS = np.array([2, 0], np.int32)
MODES = [(ms.PYNATIVE_MODE, "numba"), (ms.GRAPH_MODE, "numba"), (ms.GRAPH_MODE, "python")]


def reduce(v, reduction):
    return {"mean": v.mean(), "sum": v.sum(), "none": v}[reduction]


def log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def smooth_l1(d, beta):
    d = np.abs(d)
    return np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)


class Weighted(nn.LossBase):
    """A user loss: twice the absolute error, reduced by LossBase."""

    def construct(self, logits, labels):
        return self.get_loss(ops.abs(logits - labels), 2.0)


class Apply(nn.Cell):
    def __init__(self, loss):
        super().__init__()
        self.loss = loss

    def construct(self, a, b):
        return self.loss(a, b)


CASES = {
    "mse": (lambda r: nn.MSELoss(r), lambda r: reduce((X - Y) ** 2, r), Y),
    "l1": (lambda r: nn.L1Loss(r), lambda r: reduce(np.abs(X - Y), r), Y),
    "smooth_l1": (lambda r: nn.SmoothL1Loss(0.5, r), lambda r: reduce(smooth_l1(X - Y, 0.5), r),
                  Y),
    "softmax_ce_sparse": (lambda r: nn.SoftmaxCrossEntropyWithLogits(True, r),
                          lambda r: reduce(-log_softmax(X)[[0, 1], LABELS], r), LABELS),
    "softmax_ce_dense": (lambda r: nn.SoftmaxCrossEntropyWithLogits(False, r),
                         lambda r: reduce(-(np.exp(log_softmax(Y)) * log_softmax(X)).sum(-1), r),
                         np.exp(log_softmax(Y)).astype(np.float32)),
    "user": (lambda r: Weighted(r), lambda r: reduce(2 * np.abs(X - Y), r), Y),
}


@pytest.mark.parametrize("mode, target", MODES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", CASES)
def test_each_loss_and_reduction(name, reduction, mode, target):
    ms.set_context(mode=mode, jit_target=target)
    make, want, labels = CASES[name]
    got = Apply(make(reduction))(Tensor(X), Tensor(labels))
    assert got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), want(reduction), rtol=1e-5, atol=1e-6)


def test_mindspores_defaults():
    assert nn.MSELoss().reduction == "mean" and nn.L1Loss().reduction == "mean"
    assert nn.SmoothL1Loss().reduction == "none" and nn.SmoothL1Loss().beta == 1.0
    ce = nn.SoftmaxCrossEntropyWithLogits()
    assert ce.reduction == "none" and ce.sparse is False


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_functional_losses(mode):
    ms.set_context(mode=mode)

    @ms.jit
    def both(a, b):
        return ops.mse_loss(a, b), ops.l1_loss(a, b, reduction="sum")

    mse, l1 = both(Tensor(X), Tensor(Y)) if mode == ms.GRAPH_MODE else \
        (ops.mse_loss(Tensor(X), Tensor(Y)), ops.l1_loss(Tensor(X), Tensor(Y), reduction="sum"))
    np.testing.assert_allclose(mse.asnumpy(), ((X - Y) ** 2).mean(), rtol=1e-6)
    np.testing.assert_allclose(l1.asnumpy(), np.abs(X - Y).sum(), rtol=1e-6)


def test_bad_arguments():
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss(reduction="bad")
    with pytest.raises(ValueError, match="beta"):
        nn.SmoothL1Loss(beta=0.0)
    with pytest.raises(TypeError):
        nn.SoftmaxCrossEntropyWithLogits(sparse=1)
    with pytest.raises(ValueError):
        ops.mse_loss(Tensor(X), Tensor(Y), reduction="avg")


def test_a_loss_trains_through_train_one_step_cell():
    """The sparse cross-entropy differentiates: one Momentum step lowers it."""
    ms.set_context(mode=ms.GRAPH_MODE)
    net = nn.Dense(3, 3)
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
        nn.Momentum(net.trainable_params(), 0.5, 0.9))
    losses = [float(step(Tensor(X), Tensor(LABELS)).asnumpy()) for _ in range(5)]
    assert losses[-1] < losses[0]
