"""``msc.train.metrics`` against MindSpore's definitions written out in numpy."""

from __future__ import annotations

import numpy as np
import pytest

from msc import Tensor
from msc.train import (F1, MAE, MSE, Accuracy, Fbeta, Loss, Precision, Recall,
                       Top1CategoricalAccuracy, Top5CategoricalAccuracy,
                       TopKCategoricalAccuracy, get_metrics)


@pytest.fixture
def scores(rng):
    return rng.standard_normal((40, 6)), rng.integers(0, 6, 40)


def batches(a, b, size=16):
    return [(a[i:i + size], b[i:i + size]) for i in range(0, len(a), size)]


def test_accuracy_classification_onehot_and_multilabel(scores):
    y_pred, y = scores
    m = Accuracy()
    for p, t in batches(y_pred, y):
        m.update(Tensor(p.astype(np.float32)), t)
    assert m.eval() == pytest.approx(np.mean(y_pred.argmax(1) == y))
    m.clear()
    m.update(y_pred, np.eye(6)[y])
    assert m.eval() == pytest.approx(np.mean(y_pred.argmax(1) == y))
    multi = Accuracy("multilabel")
    a = np.array([[1, 0, 1], [0, 1, 1]])
    multi.update(a, np.array([[1, 0, 1], [0, 1, 0]]))
    assert multi.eval() == 0.5
    with pytest.raises(RuntimeError, match="number of samples is 0"):
        Accuracy().eval()


def test_topk(scores):
    y_pred, y = scores
    rank = (y_pred > y_pred[np.arange(40), y][:, None]).sum(1)  # classes scored higher
    for metric, k in ((TopKCategoricalAccuracy(3), 3), (Top1CategoricalAccuracy(), 1),
                      (Top5CategoricalAccuracy(), 5)):
        for p, t in batches(y_pred, y):
            metric.update(p, t)
        assert metric.eval() == pytest.approx(np.mean(rank < k))
    with pytest.raises(ValueError, match="at least 1"):
        TopKCategoricalAccuracy(0)


def test_loss_mae_mse(rng):
    losses = rng.random(5)
    m = Loss()
    for v in losses:
        m.update(Tensor(np.float32(v)))
    assert m.eval() == pytest.approx(losses.mean(), rel=1e-6)
    pred, true = rng.standard_normal((10, 3)), rng.standard_normal((10, 3))
    mae, mse = MAE(), MSE()
    for p, t in batches(pred, true, 4):
        mae.update(p, t)
        mse.update(p, t)
    # MindSpore divides the summed error by the number of samples, not of elements
    assert mae.eval() == pytest.approx(np.abs(pred - true).sum() / 10)
    assert mse.eval() == pytest.approx(((pred - true) ** 2).sum() / 10)


def test_precision_recall_fbeta(scores):
    y_pred, y = scores
    hat = y_pred.argmax(1)
    tp = np.array([np.sum((hat == c) & (y == c)) for c in range(6)], float)
    predicted = np.array([np.sum(hat == c) for c in range(6)], float)
    actual = np.array([np.sum(y == c) for c in range(6)], float)
    metrics = {"p": Precision(), "r": Recall(), "f1": F1(), "f2": Fbeta(2)}
    for p, t in batches(y_pred, y):
        for m in metrics.values():
            m.update(p, t)
    with np.errstate(invalid="ignore", divide="ignore"):
        expect = {"p": np.nan_to_num(tp / predicted), "r": np.nan_to_num(tp / actual),
                  "f1": np.nan_to_num(2 * tp / (actual + predicted)),
                  "f2": np.nan_to_num(5 * tp / (4 * actual + predicted))}
    for name, m in metrics.items():
        np.testing.assert_allclose(m.eval(), expect[name], err_msg=name)
        assert m.eval(average=True) == pytest.approx(expect[name].mean())
    with pytest.raises(ValueError, match="class"):
        Precision().update(y_pred[:, :3], y)


def test_get_metrics_and_indexes():
    found = get_metrics({"acc", "loss", "top_5_accuracy"})
    assert isinstance(found["acc"], Accuracy) and isinstance(found["loss"], Loss)
    with pytest.raises(ValueError, match="not supported"):
        get_metrics({"nope"})
    picked = Accuracy().set_indexes([2, 0])
    picked.update(np.array([1, 0]), "unused", np.array([[0.1, 0.9], [0.8, 0.2]]))
    assert picked.eval() == 1.0
