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


# --- cross-entropy, NLL and BCE with logits ------------------------------------------------

Z = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 2.0], [0.3, 0.2, 0.1]], np.float32)
T = np.array([2, 0, 1], np.int32)
W = np.array([0.5, 1.0, 2.0], np.float32)
P = np.exp(log_softmax(np.array([[0.5, 1.0, 0.0], [1.0, 0.0, 0.0], [0.2, 0.2, 0.6]])))
B = np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]], np.float32)


def class_loss(logp, weight=None, ignore=-100, reduction="mean", eps=0.0):
    """PyTorch's and MindSpore's formula, sample by sample."""
    w = np.ones(3) if weight is None else weight.astype(np.float64)
    losses, taken = [], []
    for i, t in enumerate(T):
        if t == ignore:
            losses.append(0.0)
            taken.append(0.0)
            continue
        nll = -logp[i, t] * w[t]
        smooth = -(logp[i] * w).sum() / 3
        losses.append((1 - eps) * nll + eps * smooth)
        taken.append(w[t])
    losses = np.array(losses)
    return losses.sum() / sum(taken) if reduction == "mean" else reduce(losses, reduction)


CLASS_CASES = {
    "plain": ({}, {}),
    "weight": ({"weight": W}, {"weight": W}),
    "ignore": ({"ignore_index": 0}, {"ignore": 0}),
    "smoothing": ({"label_smoothing": 0.1}, {"eps": 0.1}),
    "sum": ({"reduction": "sum", "weight": W}, {"reduction": "sum", "weight": W}),
    "none": ({"reduction": "none", "weight": W}, {"reduction": "none", "weight": W}),
}


class CrossEntropies(nn.Cell):
    def __init__(self, kwargs):
        super().__init__()
        self.kwargs = kwargs
        ce_kwargs = {k: Tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        nll_kwargs = {k: v for k, v in ce_kwargs.items() if k != "label_smoothing"}
        self.ce = nn.CrossEntropyLoss(**ce_kwargs)
        self.nll = nn.NLLLoss(**nll_kwargs)
        self.fn_kwargs = ce_kwargs

    def construct(self, z, t, p):
        return (self.ce(z, t), ops.cross_entropy(z, t, **self.fn_kwargs), self.nll(
            ops.log_softmax(z, -1), t), self.ce(z, p))


@pytest.mark.parametrize("mode, target", MODES)
@pytest.mark.parametrize("case", CLASS_CASES)
def test_cross_entropy_and_nll(case, mode, target):
    ms.set_context(mode=mode, jit_target=target)
    kwargs, ref = CLASS_CASES[case]
    ce, fn, nll, prob = CrossEntropies(kwargs)(Tensor(Z), Tensor(T), Tensor(P.astype(np.float32)))
    lp = log_softmax(Z.astype(np.float64))
    want = class_loss(lp, **ref)
    np.testing.assert_allclose(ce.asnumpy(), want, rtol=1e-5)
    np.testing.assert_allclose(fn.asnumpy(), want, rtol=1e-5)
    if "eps" not in ref:
        np.testing.assert_allclose(nll.asnumpy(), want, rtol=1e-5)
    w = np.ones(3) if "weight" not in ref else ref["weight"]
    eps = ref.get("eps", 0.0)
    probs = -((P * (1 - eps) + eps / 3) * lp * w).sum(-1)
    np.testing.assert_allclose(prob.asnumpy(), reduce(probs, ref.get("reduction", "mean")),
                               rtol=1e-5)


@pytest.mark.parametrize("mode, target", MODES)
def test_bce_with_logits(mode, target):
    ms.set_context(mode=mode, jit_target=target)
    pw = np.array([1.0, 2.0, 0.5], np.float32)
    plain = nn.BCEWithLogitsLoss()
    weighted = nn.BCEWithLogitsLoss("none", Tensor(W), Tensor(pw))

    @ms.jit
    def both(z, b):
        return plain(z, b), weighted(z, b), ops.binary_cross_entropy_with_logits(
            z, b, reduction="sum")

    got = both(Tensor(Z), Tensor(B)) if mode == ms.GRAPH_MODE else (
        plain(Tensor(Z), Tensor(B)), weighted(Tensor(Z), Tensor(B)),
        ops.binary_cross_entropy_with_logits(Tensor(Z), Tensor(B), reduction="sum"))
    z = Z.astype(np.float64)
    log_s, log_1s = -np.log1p(np.exp(-z)), -np.log1p(np.exp(z))
    np.testing.assert_allclose(got[0].asnumpy(), (-(B * log_s + (1 - B) * log_1s)).mean(),
                               rtol=1e-5)
    np.testing.assert_allclose(got[1].asnumpy(), -W * (pw * B * log_s + (1 - B) * log_1s),
                               rtol=1e-5)
    np.testing.assert_allclose(got[2].asnumpy(), (-(B * log_s + (1 - B) * log_1s)).sum(),
                               rtol=1e-5)
