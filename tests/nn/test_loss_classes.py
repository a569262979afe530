"""The loss Cells of ``nn/loss/loss.py`` beyond the cross-entropies (``test_loss.py``):
each against numpy written from MindSpore 2.10's documented formula, in eager and graph
mode, and against MindSpore itself where ``.peers/ms`` is installed.

MindSpore 2.10's CPU build has no kernel for SoftMarginLoss, MultilabelMarginLoss,
TripletMarginLoss and L1LossExt (it raised RuntimeError "unregistered"/"kernel select
failed" while these tests were written): those are checked against numpy only. Its
BCELoss with a weight of one row broadcast over a batch returned garbage (5.7e20), so
the oracle case passes a weight of the logits' shape.
"""

from __future__ import annotations

import json
import math
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn

rng = np.random.default_rng(0)
X, X2, X3 = (rng.standard_normal((4, 5)).astype(np.float32) for _ in range(3))
P = (rng.random((4, 5)) * 0.9 + 0.05).astype(np.float32)
Y01 = (rng.random((4, 5)) > 0.5).astype(np.float32)
CLS = np.array([1, 0, 4, 2], np.int32)
PM = np.array([1., -1., 1., -1.], np.float32)
SIGNS = np.sign(X2).astype(np.float32)
MLT = np.array([[3, 0, -1, 1, 2], [1, 2, 4, -1, 0], [-1, 1, 2, 3, 4], [0, 1, 2, 3, 4]], np.int32)
VAR = (rng.random((4, 5)) + 0.1).astype(np.float32)
CNT = rng.poisson(2.0, (4, 5)).astype(np.float32)
ONEHOT = np.eye(5, dtype=np.float32)[CLS]
IMG = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
IMGLAB = (rng.random((2, 3, 4, 4)) > 0.5).astype(np.float32)
W5 = np.array([1., 2., .5, 1.5, 1.], np.float32)
W45 = np.tile(W5, (4, 1))

# --- numpy, from the documented formulas ------------------------------------------------------


def red(x, reduction="mean"):
    return {"mean": np.mean, "sum": np.sum, "none": lambda v: v}[reduction](x)


def log_softmax(x, axis):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def bce(x, y, w=1.0, reduction="mean"):
    return red(-w * (y * np.log(x) + (1 - y) * np.log(1 - x)), reduction)


def huber(x, y, delta):
    d = np.abs(x - y)
    return np.mean(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)))


def kl_batchmean(x, y):
    return np.sum(y * (np.log(y) - x)) / x.shape[0]


def hinge_embedding(x, y, margin):
    return np.mean(np.where(y > 0, x, np.maximum(0, margin - x)))


def cosine_embedding(a, b, y, margin):
    cos = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    return np.mean(np.where(y == 1, 1 - cos, np.maximum(0, cos - margin)))


def multi_margin(x, y, p=1, margin=1.0, w=None, reduction="mean"):
    out = []
    for row, t in zip(x, y):
        terms = [max(0.0, margin - row[t] + row[j]) ** p for j in range(len(row)) if j != t]
        out.append(sum(terms) * (1.0 if w is None else w[t]) / len(row))
    return red(np.array(out), reduction)


def multilabel_margin(x, y):
    out = []
    for row, t in zip(x, y):
        targets = list(t[:list(t).index(-1)]) if -1 in t else list(t)
        others = [i for i in range(len(row)) if i not in targets]
        out.append(sum(max(0.0, 1 - (row[j] - row[i])) for j in targets for i in others)
                   / len(row))
    return np.mean(out)


def multilabel_soft_margin(x, y, w):
    loss = y * np.log1p(np.exp(-x)) + (1 - y) * np.log1p(np.exp(x))
    return np.mean((loss * w).sum(-1) / x.shape[-1])


def triplet(a, p, n, margin=1.0, norm=2, eps=1e-6, swap=False, reduction="mean"):
    def dist(u, v):
        return (np.abs(u - v + eps) ** norm).sum(1) ** (1.0 / norm)
    d_neg = dist(a, n)
    if swap:
        d_neg = np.minimum(d_neg, dist(p, n))
    return red(np.maximum(dist(a, p) - d_neg + margin, 0), reduction)


def triplet_distance(a, p, n):
    def dist(u, v):
        return np.sqrt(((u - v) ** 2).sum(1))
    return np.mean(np.maximum(dist(a, p) - np.minimum(dist(a, n), dist(p, n)) + 1.0, 0))


def poisson(x, y, log_input=True, full=False, eps=1e-8):
    loss = np.exp(x) - y * x if log_input else x - y * np.log(x + eps)
    if full:
        t = np.maximum(y, eps)
        loss = loss + np.where(t > 1, t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t), 0)
    return np.mean(loss)


def gaussian(x, y, var, full=False, reduction="mean"):
    if var.ndim < x.ndim:
        var = var[..., None]
    v = np.maximum(var, 1e-6)
    return red(0.5 * (np.log(v) + (x - y) ** 2 / v) + (0.5 * math.log(2 * math.pi) if full
                                                        else 0), reduction)


def dice(x, y, smooth=1e-5):
    return 1 - 2 * (x * y).sum() / ((x * x).sum() + (y * y).sum() + smooth)


def multiclass_dice(x, y, ignore):
    s = 1 / (1 + np.exp(-x))
    return sum(dice(s[:, i], y[:, i]) for i in range(y.shape[1]) if i != ignore) / y.shape[1]


def focal(x, y, gamma=2.0, w=None, reduction="mean"):
    """Class axis 1; y one-hot of x's shape, or (N, 1, ...) class indices."""
    n, c = x.shape[:2]
    logp = log_softmax(x.reshape(n, c, -1), 1)
    wt = np.ones(c, np.float32) if w is None else w
    if y.shape[1] == 1:
        idx = y.reshape(n, -1).astype(int)
        lp = np.take_along_axis(logp, idx[:, None], 1)[:, 0]
        return red(np.mean(-(1 - np.exp(lp)) ** gamma * lp * wt[idx], 1), reduction)
    lab = y.reshape(n, c, -1)
    return red(np.mean(-(1 - np.exp(logp)) ** gamma * lab * logp * wt[None, :, None], -1),
               reduction)


# name -> (constructor, input names, numpy reference, MindSpore's CPU kernel runs it)
CASES = {
    "BCELoss": ("nn.BCELoss()", "P Y01", lambda: bce(P, Y01), True),
    "BCELoss_weight_sum": ("nn.BCELoss(weight=T(W45), reduction='sum')", "P Y01",
                           lambda: bce(P, Y01, W45, "sum"), True),
    "MAELoss": ("nn.MAELoss()", "X X2", lambda: np.mean(np.abs(X - X2)), True),
    "L1LossExt": ("nn.L1LossExt(reduction='sum')", "X X2", lambda: np.sum(np.abs(X - X2)),
                  False),
    "RMSELoss": ("nn.RMSELoss()", "X X2", lambda: np.sqrt(np.mean((X - X2) ** 2)), True),
    "HuberLoss": ("nn.HuberLoss(delta=0.5)", "X X2", lambda: huber(X, X2, 0.5), True),
    "SoftMarginLoss": ("nn.SoftMarginLoss()", "X SIGNS",
                       lambda: np.mean(np.log1p(np.exp(-SIGNS * X))), False),
    "KLDivLoss": ("nn.KLDivLoss('batchmean')", "X P", lambda: kl_batchmean(X, P), True),
    "MarginRankingLoss": ("nn.MarginRankingLoss(0.3)", "X X2 SIGNS",
                          lambda: np.mean(np.maximum(0, -SIGNS * (X - X2) + 0.3)), True),
    "HingeEmbeddingLoss": ("nn.HingeEmbeddingLoss(0.5)", "X SIGNS",
                           lambda: hinge_embedding(X, SIGNS, 0.5), True),
    "CosineEmbeddingLoss": ("nn.CosineEmbeddingLoss(0.2)", "X X2 PM",
                            lambda: cosine_embedding(X, X2, PM, 0.2), True),
    "MultiMarginLoss": ("nn.MultiMarginLoss()", "X CLS64", lambda: multi_margin(X, CLS), True),
    "MultiMarginLoss_p2_weight": (
        "nn.MultiMarginLoss(p=2, margin=0.5, weight=T(W5), reduction='none')", "X CLS64",
        lambda: multi_margin(X, CLS, 2, 0.5, W5, "none"), True),
    "MultilabelMarginLoss": ("nn.MultilabelMarginLoss()", "X MLT",
                             lambda: multilabel_margin(X, MLT), False),
    "MultiLabelSoftMarginLoss": ("nn.MultiLabelSoftMarginLoss(weight=T(W5))", "X Y01",
                                 lambda: multilabel_soft_margin(X, Y01, W5), True),
    "TripletMarginLoss": ("nn.TripletMarginLoss()", "X X2 X3", lambda: triplet(X, X2, X3),
                          False),
    "TripletMarginLoss_p1_swap": (
        "nn.TripletMarginLoss(p=1, swap=True, reduction='none', margin=0.5)", "X X2 X3",
        lambda: triplet(X, X2, X3, 0.5, 1, swap=True, reduction="none"), False),
    "TripletMarginWithDistanceLoss": ("nn.TripletMarginWithDistanceLoss(swap=True)",
                                      "X X2 X3", lambda: triplet_distance(X, X2, X3), True),
    "PoissonNLLLoss": ("nn.PoissonNLLLoss()", "X CNT", lambda: poisson(X, CNT), True),
    "PoissonNLLLoss_full": ("nn.PoissonNLLLoss(log_input=False, full=True)", "VAR CNT",
                            lambda: poisson(VAR, CNT, False, True), True),
    "GaussianNLLLoss": ("nn.GaussianNLLLoss()", "X X2 VAR", lambda: gaussian(X, X2, VAR), True),
    "GaussianNLLLoss_full": ("nn.GaussianNLLLoss(full=True, reduction='sum')", "X X2 VAR4",
                             lambda: gaussian(X, X2, VAR[:, 0], True, "sum"), True),
    "DiceLoss": ("nn.DiceLoss()", "P Y01", lambda: dice(P, Y01), True),
    "MultiClassDiceLoss": (
        "nn.MultiClassDiceLoss(weights=T(np.ones((5, 1), np.float32)), ignore_indiex=2, "
        "activation='sigmoid')", "X ONEHOT", lambda: multiclass_dice(X, ONEHOT, 2), True),
    "FocalLoss": ("nn.FocalLoss(gamma=2.0)", "X ONEHOT", lambda: focal(X, ONEHOT), True),
    "FocalLoss_indices_weight": ("nn.FocalLoss(weight=T(W5), gamma=1.0)", "X CLS1",
                                 lambda: focal(X, CLS[:, None], 1.0, W5), True),
    "FocalLoss_image": ("nn.FocalLoss(reduction='none')", "IMG IMGLAB",
                        lambda: focal(IMG, IMGLAB, reduction="none"), True),
}
ARRAYS = dict(P=P, Y01=Y01, X=X, X2=X2, X3=X3, PM=PM, SIGNS=SIGNS, CLS64=CLS.astype(np.int64),
              MLT=MLT, CNT=CNT, VAR=VAR, VAR4=VAR[:, 0].copy(), ONEHOT=ONEHOT,
              CLS1=CLS[:, None].copy(), IMG=IMG, IMGLAB=IMGLAB, W5=W5, W45=W45)


def build(source):
    return eval(source, dict(nn=nn, T=Tensor, np=np, **ARRAYS))  # noqa: S307 - the table above


@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_matches_numpy(name):
    source, inputs, reference, _ = CASES[name]
    out = build(source)(*[Tensor(ARRAYS[a]) for a in inputs.split()])
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), reference(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["BCELoss", "MultiMarginLoss", "MultilabelMarginLoss",
                                  "TripletMarginLoss_p1_swap", "FocalLoss_indices_weight",
                                  "PoissonNLLLoss_full", "MultiClassDiceLoss"])
def test_loss_compiles_and_differentiates(name):
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    source, inputs, reference, _ = CASES[name]
    loss = build(source)
    args = [Tensor(ARRAYS[a]) for a in inputs.split()]
    np.testing.assert_allclose(loss(*args).asnumpy(), reference(), rtol=1e-5, atol=1e-6)
    grad = ms.grad(lambda x: loss(x, *args[1:]).sum())(args[0]).asnumpy()
    # central differences of the numpy reference (float64) along one random direction
    key = inputs.split()[0]
    direction = rng.standard_normal(args[0].shape)
    up = _reference_at(reference, key, ARRAYS[key] + 1e-4 * direction)
    down = _reference_at(reference, key, ARRAYS[key] - 1e-4 * direction)
    np.testing.assert_allclose(np.sum(grad * direction), (up - down) / 2e-4, rtol=2e-3,
                               atol=2e-4)


def _reference_at(reference, key, value):
    """The numpy reference's sum with the module's array ``key`` (which it reads) replaced."""
    saved = globals()[key]
    globals()[key] = value.astype(np.float64)
    try:
        return float(np.sum(reference()))
    finally:
        globals()[key] = saved


def test_loss_argument_errors():
    with pytest.raises(ValueError, match="reduction"):
        nn.BCELoss(reduction="avg")
    with pytest.raises(TypeError, match="margin"):
        nn.CosineEmbeddingLoss(1)
    with pytest.raises(ValueError, match="margin"):
        nn.CosineEmbeddingLoss(2.0)
    with pytest.raises(ValueError, match="eps"):
        nn.GaussianNLLLoss(eps=0.0)
    with pytest.raises(TypeError, match="gamma"):
        nn.FocalLoss(gamma=2)
    with pytest.raises(ValueError, match="activation"):
        nn.MultiClassDiceLoss(activation="gelu")
    with pytest.raises(ValueError, match="same shape"):
        nn.DiceLoss()(Tensor(P), Tensor(P[:2]))


MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "the losses are checked against numpy above")
def test_losses_match_mindspore_itself(tmp_path):
    np.savez(tmp_path / "arrays.npz", **ARRAYS)
    cases = {k: (v[0], v[1]) for k, v in CASES.items() if v[3]}
    script = textwrap.dedent(f"""
        import json, numpy as np
        from mindspore import nn, Tensor as T
        arrays = dict(np.load("arrays.npz"))
        out = {{}}
        for name, (source, inputs) in {json.dumps(cases)}.items():
            cell = eval(source, dict(nn=nn, T=T, np=np, **arrays))
            out[name] = cell(*[T(arrays[a]) for a in inputs.split()]).asnumpy().tolist()
        print(json.dumps(out))
    """)
    proc = subprocess.run([str(MINDSPORE), "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, (source, inputs) in cases.items():
        ours = build(source)(*[Tensor(ARRAYS[a]) for a in inputs.split()]).asnumpy()
        np.testing.assert_allclose(ours, theirs[name], rtol=1e-5, atol=1e-6, err_msg=name)
