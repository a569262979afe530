"""The metrics beyond classification counts (confusion matrices, cosine similarity, Dice,
surface distances, perplexity, ROC and AUC, BLEU, occlusion sensitivity) against their
definitions written out here in numpy or plain Python, scipy's distance transforms where
installed, and MindSpore itself where ``.peers/ms`` is installed (one subprocess runs the
same script as msc)."""

from __future__ import annotations

import json
import math
import subprocess
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import msc
from msc import Tensor, nn
from msc.train import (ROC, BleuScore, ConfusionMatrix, ConfusionMatrixMetric, CosineSimilarity,
                       Dice, HausdorffDistance, MeanSurfaceDistance, OcclusionSensitivity,
                       Perplexity, RootMeanSquareDistance, auc, get_metric_fn)

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"


def test_metrics_resolve_where_mindspore_has_them():
    from msc.nn import metrics as nn_metrics

    for name in ("ConfusionMatrix", "ConfusionMatrixMetric", "CosineSimilarity", "Dice",
                 "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance",
                 "Perplexity", "ROC", "auc", "BleuScore", "OcclusionSensitivity",
                 "rearrange_inputs", "Accuracy", "get_metric_fn", "names"):
        obj = getattr(msc.train, name)
        assert getattr(nn, name) is obj and getattr(nn_metrics, name) is obj
        assert getattr(msc, name) is obj
    assert nn.get_metrics is msc.train.get_metrics
    assert isinstance(get_metric_fn("confusion_matrix", 3), ConfusionMatrix)
    assert {"dice", "roc", "auc", "perplexity", "hausdorff_distance"} <= set(msc.train.names())


def test_confusion_matrix_counts_and_normalizations(rng):
    y_pred, y = rng.random((30, 4)), rng.integers(0, 4, 30)
    counts = np.zeros((4, 4))
    for t, p in zip(y, y_pred.argmax(1)):
        counts[t, p] += 1
    m = ConfusionMatrix(4)
    m.update(Tensor(y_pred[:12].astype(np.float32)), Tensor(y[:12]))
    m.update(y_pred[12:], y[12:])
    np.testing.assert_array_equal(m.eval(), counts)
    assert m.eval().dtype == np.float64
    for how, expect in (("target", counts / counts.sum(1, keepdims=True)),
                        ("prediction", counts / counts.sum(0, keepdims=True)),
                        ("all", counts / counts.sum())):
        norm = ConfusionMatrix(4, normalize=how)
        norm.update(y_pred, y)
        np.testing.assert_allclose(norm.eval(), np.nan_to_num(expect))
    binary = ConfusionMatrix(2, threshold=0.3)  # float scores of the labels' rank
    binary.update(np.array([0.2, 0.4, 0.9, 0.1]), np.array([0, 0, 1, 1]))
    np.testing.assert_array_equal(binary.eval(), [[1, 1], [1, 1]])
    with pytest.raises(ValueError, match="'normalize' must be in"):
        ConfusionMatrix(2, normalize="rows")
    with pytest.raises(TypeError, match="threshold"):
        ConfusionMatrix(2, threshold=1)
    with pytest.raises(RuntimeError, match="call the 'update' method"):
        ConfusionMatrix(2).eval()
    with pytest.raises(ValueError, match="it needs 2 input"):
        ConfusionMatrix(2).update(y)


def _binary_counts(pred, true):
    """(tp, fp, tn, fn) per sample and channel of 0/1 arrays (batch, channel, ...)."""
    p = pred.reshape(*pred.shape[:2], -1).astype(bool)
    t = true.reshape(*true.shape[:2], -1).astype(bool)
    return [(p & t).sum(2), (p & ~t).sum(2), (~p & ~t).sum(2), (~p & t).sum(2)]


def test_confusion_matrix_metric_rates(rng):
    pred, true = rng.integers(0, 2, (3, 2, 4, 4)), rng.integers(0, 2, (3, 2, 4, 4))
    tp, fp, tn, fn = (c.sum() for c in _binary_counts(pred, true))
    rates = {"sensitivity": tp / (tp + fn), "precision": tp / (tp + fp),
             "f1 score": 2 * tp / (2 * tp + fp + fn), "accuracy": (tp + tn) / pred.size,
             "specificity": tn / (tn + fp),
             "mcc": (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)),
             "balanced_accuracy": (tp / (tp + fn) + tn / (tn + fp)) / 2}
    for name, want in rates.items():
        m = ConfusionMatrixMetric(metric_name=name)
        m.update(pred[:2], true[:2])
        m.update(Tensor(pred[2:]), Tensor(true[2:]))
        got = m.eval()
        assert got.shape == (1,) and got[0] == pytest.approx(want), name
    # per sample and channel, then the mean over the samples' channel means
    per = ConfusionMatrixMetric(metric_name="tpr", calculation_method=True)
    per.update(pred, true)
    tp_c, _, _, fn_c = _binary_counts(pred, true)
    assert per.eval() == pytest.approx(np.mean((tp_c / (tp_c + fn_c)).mean(1)))
    without_background = ConfusionMatrixMetric(skip_channel=False, metric_name="ppv")
    without_background.update(pred, true)
    tp1, fp1 = (c[:, 1].sum() for c in _binary_counts(pred, true)[:2])
    assert without_background.eval()[0] == pytest.approx(tp1 / (tp1 + fp1))
    with pytest.raises(NotImplementedError):
        m = ConfusionMatrixMetric(metric_name="youden")
        m.update(pred, true)
        m.eval()
    with pytest.raises(ValueError, match="binarized"):
        ConfusionMatrixMetric().update(pred, true * 0.5)
    with pytest.raises(ValueError, match="decrease"):
        ConfusionMatrixMetric(decrease="max")


def test_cosine_similarity_dice_perplexity(rng):
    x = rng.standard_normal((5, 3))
    unit = x / np.sqrt((x ** 2).sum(1, keepdims=True))
    sim = unit @ unit.T
    np.fill_diagonal(sim, 0)
    for reduction, want in (("none", sim), ("sum", sim.sum(1)), ("mean", sim.mean(1))):
        m = CosineSimilarity(reduction=reduction)
        m.update(Tensor(x))
        np.testing.assert_allclose(m.eval(), want, atol=1e-12)
    dot = CosineSimilarity(similarity="dot", zero_diagonal=False)
    dot.update(x)
    np.testing.assert_allclose(dot.eval(), x @ x.T)
    with pytest.raises(ValueError, match="similarity"):
        CosineSimilarity(similarity="l2")

    a, b = rng.integers(0, 2, (4, 6)), rng.integers(0, 2, (4, 6))
    dice = Dice(smooth=1e-3)
    dice.update(a, b)
    dice.update(b, b)
    want = (2 * (a * b).sum() / ((a * a).sum() + (b * b).sum() + 1e-3)
            + 2 * (b * b).sum() / (2 * (b * b).sum() + 1e-3)) / 8
    assert dice.eval() == pytest.approx(want)
    with pytest.raises(ValueError, match="same shape"):
        Dice().update(a, b[:2])
    with pytest.raises(TypeError):
        Dice(smooth=1)

    probs = rng.dirichlet(np.ones(4), 6)
    labels = rng.integers(0, 4, 6)
    ppl = Perplexity(ignore_label=int(labels[0]))
    ppl.update(Tensor(probs.astype(np.float32)), Tensor(labels))
    kept = labels != labels[0]
    nll = -np.log(probs[np.arange(6), labels])[kept]
    assert ppl.eval() == pytest.approx(math.exp(nll.mean()), rel=1e-6)
    with pytest.raises(RuntimeError, match="number of samples is 0"):
        Perplexity().eval()


def _roc_by_thresholds(scores, positive):
    """Rates at each distinct score, highest first, with a first point above them all."""
    thresholds = np.sort(np.unique(scores))[::-1]
    fpr = [0.0] + [np.sum((scores >= t) & ~positive) / np.sum(~positive) for t in thresholds]
    tpr = [0.0] + [np.sum((scores >= t) & positive) / np.sum(positive) for t in thresholds]
    return np.array(fpr), np.array(tpr), np.concatenate([[thresholds[0] + 1], thresholds])


def test_roc_and_auc(rng):
    scores, y = rng.integers(0, 6, 20) / 5, rng.integers(0, 2, 20)
    m = ROC(pos_label=1)
    m.update(Tensor(scores), Tensor(y))
    for got, want in zip(m.eval(), _roc_by_thresholds(scores, y == 1)):
        np.testing.assert_allclose(got, want)
    fpr, tpr, _ = m.eval()
    trapezoids = sum((fpr[i + 1] - fpr[i]) * (tpr[i + 1] + tpr[i]) / 2 for i in range(len(fpr) - 1))
    assert auc(fpr, tpr) == pytest.approx(trapezoids)
    assert auc(fpr[::-1], tpr[::-1]) == pytest.approx(trapezoids)  # decreasing x
    assert auc(np.array([1.0, 0.0, 2.0]), np.array([1.0, 1.0, 1.0]), reorder=True) == 2.0
    with pytest.raises(ValueError, match="increasing or decreasing"):
        auc(np.array([1.0, 0.0, 2.0]), np.array([1.0, 1.0, 1.0]))
    with pytest.raises(TypeError):
        auc([0, 1], [0, 1])
    # class scores: one curve per class, that class's column one against the rest
    # (MindSpore 2.10 gets these only for square inputs: it reshapes (n, c) to (c, n))
    square, labels = rng.random((4, 4)), np.array([0, 1, 2, 3])
    multi = ROC(class_num=4)
    multi.update(square, labels)
    fprs, tprs, ths = multi.eval()
    for c in range(4):
        want = _roc_by_thresholds(square[:, c], labels == c)
        for got, ref in zip((fprs[c], tprs[c], ths[c]), want):
            np.testing.assert_allclose(got, ref)
    with pytest.raises(ValueError, match="no negative samples"):
        one_class = ROC()
        one_class.update(np.array([0.1, 0.9]), np.array([1, 1]))
        one_class.eval()


def _bleu(candidates, references, n, smooth=False):
    """BLEU as Papineni et al. define it, counts pooled over the corpus."""
    hits, totals, c, r = [0] * n, [0] * n, 0, 0
    for cand, refs in zip(candidates, references):
        c += len(cand)
        r += sorted((abs(len(ref) - len(cand)), i, len(ref)) for i, ref in enumerate(refs))[0][2]
        for k in range(1, n + 1):
            grams = Counter(tuple(cand[i:i + k]) for i in range(len(cand) - k + 1))
            best = Counter()
            for ref in refs:
                ref_grams = Counter(tuple(ref[i:i + k]) for i in range(len(ref) - k + 1))
                best = Counter({g: max(best[g], ref_grams[g]) for g in set(best) | set(ref_grams)})
            hits[k - 1] += sum(min(cnt, best[g]) for g, cnt in grams.items())
            totals[k - 1] += sum(grams.values())
    if min(hits) == 0:
        return 0.0
    prec = [(h + smooth) / (t + smooth) for h, t in zip(hits, totals)]
    penalty = 1.0 if c > r else math.exp(1 - r / c)
    return penalty * math.exp(sum(math.log(p) for p in prec) / n)


def test_bleu_score():
    cands = [["the", "cat", "sat", "on", "the", "mat"], ["a", "dog", "ran", "in", "a", "park"]]
    refs = [[["the", "cat", "is", "on", "the", "mat"], ["there", "is", "a", "cat", "on", "mat"]],
            [["a", "dog", "runs", "in", "the", "park"]]]
    for n, smooth in ((1, False), (2, False), (2, True), (4, True), (4, False)):
        m = BleuScore(n_gram=n, smooth=smooth)
        m.update(cands, refs)
        assert float(m.eval()) == pytest.approx(_bleu(cands, refs, n, smooth)), (n, smooth)
    with pytest.raises(ValueError, match="range from 1 to 4"):
        BleuScore(n_gram=5)
    with pytest.raises(ValueError, match="equal in length"):
        BleuScore().update(cands, refs[:1])


def _edges(mask):
    """Points of the mask with a face neighbour outside it (or on the array's border)."""
    out = np.zeros_like(mask)
    for idx in zip(*np.nonzero(mask)):
        for axis in range(mask.ndim):
            for step in (-1, 1):
                j = list(idx)
                j[axis] += step
                if not 0 <= j[axis] < mask.shape[axis] or not mask[tuple(j)]:
                    out[idx] = True
    return out


def _nearest(a, b, metric):
    pa, pb = np.argwhere(a), np.argwhere(b)
    d = np.abs(pa[:, None] - pb[None]).astype(float)
    dist = {"euclidean": np.sqrt((d ** 2).sum(-1)), "chessboard": d.max(-1),
            "taxicab": d.sum(-1)}[metric]
    return dist.min(1)


@pytest.mark.parametrize("metric", ["euclidean", "chessboard", "taxicab"])
def test_surface_distances(rng, metric):
    y_pred, y = np.zeros((9, 10), int), np.zeros((9, 10), int)
    y_pred[1:6, 2:8], y[3:8, 1:6] = 2, 2
    y_pred[0, 0] = 1
    ep, et = _edges(y_pred == 2), _edges(y == 2)
    forward, backward = _nearest(ep, et, metric), _nearest(et, ep, metric)
    hd = HausdorffDistance(distance_metric=metric, crop=False)
    hd.update(Tensor(y_pred), Tensor(y), 2)
    assert hd.eval() == pytest.approx(max(forward.max(), backward.max()))
    directed = HausdorffDistance(distance_metric=metric, percentile=60.0, directed=True)
    directed.update(y_pred, y, 2)
    assert directed.eval() == pytest.approx(np.percentile(forward, 60.0))
    msd = MeanSurfaceDistance(distance_metric=metric, symmetric=True)
    msd.update(y_pred, y, 2)
    assert msd.eval() == pytest.approx((forward.mean() + backward.mean()) / 2)
    rms = RootMeanSquareDistance(distance_metric=metric)
    rms.update(y_pred, y, 2)
    assert rms.eval() == pytest.approx((forward ** 2).mean())  # one way: no root
    rms_sym = RootMeanSquareDistance(distance_metric=metric, symmetric=True)
    rms_sym.update(y_pred, y, 2)
    assert rms_sym.eval() == pytest.approx(np.sqrt(((forward ** 2).mean()
                                                    + (backward ** 2).mean()) / 2))
    empty = MeanSurfaceDistance()
    empty.update(y_pred, y, 1)  # no true edge: every distance infinite
    assert empty.eval() == np.inf
    with pytest.raises(ValueError, match="must be in predicted value"):
        hd.update(y_pred, y, 7)
    with pytest.raises(ValueError, match="int or float"):
        hd.update(y_pred, y, "2")
    with pytest.raises(ValueError, match="distance_metric"):
        MeanSurfaceDistance(distance_metric="cosine")


def test_surface_distances_match_scipy_transforms(rng):
    ndimage = pytest.importorskip("scipy.ndimage", reason="scipy checks the distance transforms")
    masks = rng.random((2, 6, 7, 5)) > 0.5
    for metric in ("euclidean", "chessboard", "taxicab"):
        a, b = (m ^ ndimage.binary_erosion(m) for m in masks)
        if metric == "euclidean":
            dist = ndimage.distance_transform_edt(~b)
        else:
            dist = ndimage.distance_transform_cdt(~b, metric=metric)
        m = MeanSurfaceDistance(distance_metric=metric)
        m.update(masks[0], masks[1], 1)
        assert m.eval() == pytest.approx(dist[a].mean())


class _Linear(nn.Cell):
    def __init__(self, w):
        super().__init__()
        self.w = msc.Parameter(Tensor(w), name="w")

    def construct(self, x):
        return msc.ops.matmul(x.reshape(x.shape[0], -1), self.w)


def test_occlusion_sensitivity(rng):
    image = rng.random((1, 2, 4, 3)).astype(np.float32)
    w = rng.standard_normal((24, 3)).astype(np.float32)
    model = _Linear(w)
    m = OcclusionSensitivity(pad_val=-1.0, margin=1, n_batch=5)
    m.update(model, Tensor(image), np.array(2))
    base = (image.reshape(1, -1) @ w)[0, 2]
    want = np.empty(image.shape[1:], np.float32)
    for idx in np.ndindex(*image.shape[1:]):
        occluded = image.copy()
        occluded[(0,) + tuple(slice(max(0, i - 1), min(n, i + 1))
                              for i, n in zip(idx, image.shape[1:]))] = -1.0
        want[idx] = base - (occluded.reshape(1, -1) @ w)[0, 2]
    got = m.eval()
    assert got.shape == image.shape[1:] and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    boxed = OcclusionSensitivity(pad_val=-1.0, margin=1, b_box=[0, 0, 1, 2, -1, -1])
    boxed.update(model, image, np.array(2))
    # the box: channel 0, rows 1..2, every column (-1: the last index); length-1 axes squeezed
    np.testing.assert_allclose(boxed.eval(), want[0, 1:3, :], rtol=1e-4, atol=1e-5)
    with pytest.raises(RuntimeError, match="must be 1"):
        m.update(model, np.concatenate([image, image]), np.array([1, 2]))
    with pytest.raises(TypeError):
        m.update(lambda x: x, image, np.array(2))
    with pytest.raises(ValueError, match="twice"):
        OcclusionSensitivity(b_box=[0, 1]).update(model, image, np.array(2))


#: Run by MindSpore in a subprocess and by msc here: each metric's result on the same data.
SCRIPT = r'''
import json
import numpy as np
def run(ms, data):
    t = lambda a: np.asarray(a).tolist()
    from_ = lambda k: np.array(data[k])
    out = {}
    cm = ms.train.ConfusionMatrix(4, normalize="target")
    cm.update(ms.Tensor(from_("scores")), ms.Tensor(from_("labels")))
    out["cm"] = t(cm.eval())
    for name in ("f1", "mk", "pt", "fm"):
        cmm = ms.train.ConfusionMatrixMetric(metric_name=name)
        cmm.update(from_("bin_pred"), from_("bin_true"))
        out["cmm_" + name] = t(cmm.eval())
    per = ms.train.ConfusionMatrixMetric(metric_name="ppv", calculation_method=True)
    per.update(from_("bin_pred"), from_("bin_true"))
    out["cmm_per"] = float(per.eval())
    cos = ms.train.CosineSimilarity(reduction="mean")
    cos.update(from_("scores"))
    out["cos"] = t(cos.eval())
    dice = ms.train.Dice()
    dice.update(from_("bin_pred"), from_("bin_true"))
    out["dice"] = dice.eval()
    ppl = ms.train.Perplexity(ignore_label=1)
    ppl.update(ms.Tensor(from_("probs")), ms.Tensor(from_("labels")))
    out["ppl"] = ppl.eval()
    roc = ms.train.ROC(class_num=4)
    roc.update(from_("square"), np.array([0, 1, 2, 3]))
    out["roc"] = [[t(a) for a in part] for part in roc.eval()]
    roc = ms.train.ROC(pos_label=2)
    roc.update(from_("labels"), from_("labels2"))
    fpr, tpr, th = roc.eval()
    out["roc2"] = [t(fpr), t(tpr), t(th), float(ms.train.auc(fpr, tpr))]
    bleu = ms.train.BleuScore(n_gram=3, smooth=True)
    bleu.update(data["cands"], data["refs"])
    out["bleu"] = float(bleu.eval())
    for cls, kw in ((ms.train.HausdorffDistance, {}), (ms.train.HausdorffDistance,
                    {"distance_metric": "chessboard", "percentile": 50.0}),
                    (ms.train.MeanSurfaceDistance, {"symmetric": True}),
                    (ms.train.RootMeanSquareDistance, {"distance_metric": "taxicab"}),
                    (ms.train.RootMeanSquareDistance, {"symmetric": True})):
        m = cls(**kw)
        m.update(from_("seg_pred"), from_("seg_true"), 1)
        out[cls.__name__ + json.dumps(kw)] = float(m.eval())
    occ = ms.train.OcclusionSensitivity(margin=1, n_batch=3)
    net = ms.nn.Dense(6, 3, weight_init=ms.Tensor(from_("w").astype(np.float32)),
                      bias_init="zeros")
    occ.update(net, from_("image").astype(np.float32), np.array(1))
    out["occ"] = t(occ.eval())
    return out
'''


def _shared_data():
    rng = np.random.default_rng(7)
    seg_pred, seg_true = np.zeros((7, 8)), np.zeros((7, 8))
    seg_pred[1:5, 1:6], seg_true[2:6, 3:7] = 1, 1
    return {"scores": rng.random((12, 4)).tolist(), "labels": rng.integers(0, 4, 12).tolist(),
            "labels2": rng.integers(1, 4, 12).tolist(),
            "bin_pred": rng.integers(0, 2, (2, 3, 5)).tolist(),
            "bin_true": rng.integers(0, 2, (2, 3, 5)).tolist(),
            "probs": rng.dirichlet(np.ones(4), 12).tolist(), "square": rng.random((4, 4)).tolist(),
            "cands": [["a", "b", "c", "d"], ["x", "y", "z"]],
            "refs": [[["a", "b", "d", "c", "e"], ["a", "b"]], [["x", "y", "w", "z"]]],
            "seg_pred": seg_pred.tolist(), "seg_true": seg_true.tolist(),
            "w": rng.standard_normal((3, 6)).tolist(), "image": rng.random((1, 6)).tolist()}


def _assert_close(got, want, path="result"):
    if isinstance(want, dict):
        assert set(got) == set(want), path
        for k in want:
            _assert_close(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_close(g, w, f"{path}[{i}]")
    else:
        assert got == pytest.approx(want, rel=1e-5, abs=1e-6, nan_ok=True), path


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "the metrics are checked against numpy above")
def test_metrics_match_mindspore_itself(tmp_path):
    data = _shared_data()
    (tmp_path / "data.json").write_text(json.dumps(data))
    (tmp_path / "run.py").write_text(SCRIPT + "import mindspore\nprint(json.dumps(run(mindspore, "
                                     "json.load(open('data.json')))))\n")
    proc = subprocess.run([str(MINDSPORE), "run.py"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    scope: dict = {}
    exec(SCRIPT, scope)
    ours = json.loads(json.dumps(scope["run"](msc, data)))
    _assert_close(ours, theirs)
