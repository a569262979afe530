"""The loss functions of ``msc.ops`` with MindSpore 2.10's arguments and defaults
(``ops.mse_loss``, ``ops.cross_entropy``, ``ops.nll_loss``, ``ops.huber_loss``,
``ops.kl_div``, ...), and the reduction they share with ``nn.LossBase``.

Every one only calls ops, so the same code runs eagerly and in graphs (and
differentiates through the table's vjp rules).
"""

from __future__ import annotations

import math
from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.ops import functional as F
from msc.ops.function.arguments import _as_tensor
from msc.ops.function.linalg_func import _float_tensor, _number


REDUCTIONS = ("mean", "sum", "none")


def _reduction(value: Any, cls: str) -> str:
    if value not in REDUCTIONS:
        raise GraphValueError(f"For '{cls}', the 'reduction' must be in ['mean', 'sum', "
                              f"'none'], but got {value}.")
    return value  # type: ignore[no-any-return]


def _reduce(x: Any, reduction: str) -> Any:
    if reduction == "mean":
        return F.mean(x)
    if reduction == "sum":
        return F.sum(x)
    return x


def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Any:  # noqa: A002
    """``ops.mse_loss``: squared differences, reduced."""
    return _reduce(F.square(input - target), _reduction(reduction, "mse_loss"))


def l1_loss(input: Any, target: Any, reduction: str = "mean") -> Any:  # noqa: A002
    """``ops.l1_loss``: absolute differences, reduced."""
    return _reduce(F.abs(input - target), _reduction(reduction, "l1_loss"))


def _class_loss(logp: Any, target: Any, weight: Any, ignore_index: int, reduction: str,
                label_smoothing: float) -> Any:
    """Cross-entropy of log-probabilities ``logp`` (N, C): against class indices (each
    sample's loss weighted by its class's weight, ``ignore_index`` samples left out, a
    'mean' divided by the weights' sum), or against probabilities (a 'mean' over N)."""
    classes = logp.shape[-1]
    w = F.ones((classes,), logp.dtype) if weight is None else weight
    if target.dtype.is_float:
        if label_smoothing:
            target = target * (1 - label_smoothing) + label_smoothing / classes
        return _reduce(-(target * logp * w).sum(-1), reduction)
    onehot = F.one_hot(target, classes, F.ones((), logp.dtype), F.zeros((), logp.dtype))
    keep = F.cast(target != ignore_index, logp.dtype)
    taken = (onehot * w).sum(-1) * keep  # each sample's class weight
    loss = -(onehot * logp * w).sum(-1) * keep
    if label_smoothing:
        smooth = -(logp * w).sum(-1) * (keep / classes)
        loss = loss * (1 - label_smoothing) + smooth * label_smoothing
    if reduction == "mean":
        return loss.sum() / taken.sum()
    return _reduce(loss, reduction)


def _check_class_args(cls: str, reduction: str, label_smoothing: float) -> str:
    if not isinstance(label_smoothing, (int, float)) or not 0 <= label_smoothing <= 1:
        raise GraphValueError(f"For '{cls}', the 'label_smoothing' must be in [0, 1], but "
                              f"got {label_smoothing!r}.")
    return _reduction(reduction, cls)


def _classes_last(input: Any, target: Any) -> tuple[Any, Any]:
    """(N, C, d1, ...) scores with classes last, (N, d1, ..., C) (and a probability
    target alike): the losses then treat every (n, d1, ...) position as a sample."""
    if input.ndim <= 2:
        return input, target
    order = (0,) + tuple(range(2, input.ndim)) + (1,)
    if target.dtype.is_float:
        target = F.transpose(target, order)
    return F.transpose(input, order), target


def cross_entropy(input: Any, target: Any, weight: Any = None,  # noqa: A002
                  ignore_index: int = -100, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Any:
    """``ops.cross_entropy``: softmax cross-entropy of logits (N, C) or (N, C, d1, ...)
    against class indices (N, d1, ...) or probabilities of the logits' shape."""
    reduction = _check_class_args("cross_entropy", reduction, label_smoothing)
    input, target = _classes_last(_as_tensor(input, "cross_entropy"),
                                  _as_tensor(target, "cross_entropy"))
    return _class_loss(F.log_softmax(input, -1), target, weight, ignore_index, reduction,
                       label_smoothing)


def nll_loss(inputs: Any, target: Any, weight: Any = None, ignore_index: int = -100,
             reduction: str = "mean", label_smoothing: float = 0.0) -> Any:
    """``ops.nll_loss``: the negative log-likelihood of log-probabilities (N, C) or
    (N, C, d1, ...)."""
    reduction = _check_class_args("nll_loss", reduction, label_smoothing)
    inputs, target = _classes_last(_as_tensor(inputs, "nll_loss"),
                                   _as_tensor(target, "nll_loss"))
    return _class_loss(inputs, target, weight, ignore_index, reduction, label_smoothing)


def _softplus(x: Any) -> Any:
    """log(1 + exp(x)) without overflow."""
    return F.maximum(x, 0) + F.log1p(F.exp(-F.abs(x)))


def binary_cross_entropy_with_logits(input: Any, target: Any, weight: Any = None,  # noqa: A002
                                     pos_weight: Any = None, reduction: str = "mean") -> Any:
    """``ops.binary_cross_entropy_with_logits``: -w [p y log s(x) + (1 - y) log(1 - s(x))]
    with s the sigmoid, computed from softplus, reduced. No gradient reaches ``weight`` or
    ``pos_weight`` (MindSpore 2.10 defines theirs as zero)."""
    reduction = _reduction(reduction, "binary_cross_entropy_with_logits")
    positive = _softplus(-input) * target
    if pos_weight is not None:
        positive = positive * F.stop_gradient(pos_weight)
    loss = positive + _softplus(input) * (1 - target)
    return _reduce(loss if weight is None else loss * F.stop_gradient(weight), reduction)


# --- the elementwise losses ---------------------------------------------------------------


def _smooth_l1(d: Any, beta: float) -> Any:
    size = F.abs(d)
    return F.select(size < beta, F.square(size) * (0.5 / beta), size - 0.5 * beta)


def smooth_l1_loss(input: Any, target: Any, beta: float = 1.0,  # noqa: A002
                   reduction: str = "none") -> Any:
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta."""
    if _number(beta, "beta", "smooth_l1_loss") <= 0:
        raise GraphValueError(f"For 'smooth_l1_loss', the 'beta' must be greater than 0, but "
                              f"got {beta}.")
    reduction = _reduction(reduction, "smooth_l1_loss")
    return _reduce(_smooth_l1(_float_tensor(input, "smooth_l1_loss") - target, beta),
                   reduction)


def huber_loss(input: Any, target: Any, reduction: str = "mean",  # noqa: A002
               delta: float = 1.0) -> Any:
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta)."""
    if _number(delta, "delta", "huber_loss") <= 0:
        raise GraphValueError(f"For 'huber_loss', the 'delta' must be greater than 0, but got "
                              f"{delta}.")
    reduction = _reduction(reduction, "huber_loss")
    return _reduce(_smooth_l1(_float_tensor(input, "huber_loss") - target, delta) * delta,
                   reduction)


def soft_margin_loss(input: Any, target: Any, reduction: str = "mean") -> Any:  # noqa: A002
    """log(1 + exp(-y x))."""
    reduction = _reduction(reduction, "soft_margin_loss")
    return _reduce(F.log(1 + F.exp(-target * _float_tensor(input, "soft_margin_loss"))),
                   reduction)


def margin_ranking_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0,
                        reduction: str = "mean") -> Any:
    """max(0, -y (x1 - x2) + margin)."""
    if not isinstance(margin, float):
        raise GraphTypeError(f"For 'margin_ranking_loss', the type of 'margin' should be "
                             f"'float', but got type '{type(margin).__name__}'.")
    reduction = _reduction(reduction, "margin_ranking_loss")
    return _reduce(F.clamp(-target * (input1 - input2) + margin, 0), reduction)


def hinge_embedding_loss(inputs: Any, targets: Any, margin: float = 1.0,
                         reduction: str = "mean") -> Any:
    """x where y > 0, plus max(0, margin - x) where y < 0."""
    x = _float_tensor(inputs, "hinge_embedding_loss")
    margin = _number(margin, "margin", "hinge_embedding_loss")
    reduction = _reduction(reduction, "hinge_embedding_loss")
    positive = F.cast(targets > 0, x.dtype)
    negative = F.cast(targets < 0, x.dtype)
    return _reduce(positive * x + F.clamp((margin - x) * negative, 0), reduction)


def cosine_embedding_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0,
                          reduction: str = "mean") -> Any:
    """1 - cos(x1, x2) where y is 1, max(0, cos - margin) where y is -1, along axis 1."""
    margin = _number(margin, "margin", "ops.cosine_embedding_loss")
    if not -1.0 <= margin <= 1.0:
        raise GraphValueError(f"For ops.cosine_embedding_loss, the value of 'margin' should be "
                              f"in [-1, 1],but got {margin}.")
    reduction = _reduction(reduction, "cosine_embedding_loss")
    a, b = (F.cast(t, dtypes.float32) if not t.dtype.is_float else t
            for t in (_as_tensor(input1, "cosine_embedding_loss"),
                      _as_tensor(input2, "cosine_embedding_loss")))
    cosine = F.sum(a * b, 1) / (F.sqrt(F.sum(F.square(a), 1)) * F.sqrt(F.sum(F.square(b), 1)))
    zeros = F.zeros_like(cosine)
    loss = F.select(target == 1, 1.0 - cosine, zeros) + \
        F.select(target == -1, F.clamp(cosine - margin, 0), zeros)
    return _reduce(loss, reduction)


def kl_div(logits: Any, labels: Any, reduction: str = "mean") -> Any:
    """labels (log labels - logits), 0 where labels is 0; 'mean' divides the sum by the
    element count, 'batchmean' by the first dim. No gradient reaches ``labels`` (MindSpore
    2.10 defines it as zero)."""
    if reduction not in ("none", "mean", "batchmean", "sum"):
        raise GraphValueError("For 'kl_div', the 'reduction' must be str and must be in "
                              f"'['none', 'mean', 'batchmean', 'sum']', but got '{reduction}'.")
    x = _float_tensor(logits, "kl_div")
    y = F.stop_gradient(_as_tensor(labels, "kl_div"))
    positive = y > 0
    logy = F.log(F.select(positive, y, F.ones_like(y)))
    loss = F.select(positive, y * (logy - x), F.zeros_like(x))
    if reduction == "none":
        return loss
    total = F.sum(loss)
    if reduction == "sum":
        return total
    return total / (x.shape[0] if reduction == "batchmean" else x.size)


def binary_cross_entropy(logits: Any, labels: Any, weight: Any = None,
                         reduction: str = "mean") -> Any:
    """-w (y log x + (1 - y) log(1 - x)), each log clamped at -100; no gradient reaches
    ``weight`` (MindSpore 2.10 defines it as zero)."""
    x = _float_tensor(logits, "BinaryCrossEntropy")
    reduction = _reduction(reduction, "BinaryCrossEntropy")
    loss = -(labels * F.clamp(F.log(x), -100.0) + (1 - labels) * F.clamp(F.log(1 - x), -100.0))
    return _reduce(loss if weight is None else loss * F.stop_gradient(weight), reduction)


# --- margin and likelihood losses over classes ----------------------------------------------


def _onehot(target: Any, classes: int, like: Any) -> Any:
    return F.one_hot(F.cast(target, dtypes.int32), classes, F.ones((), like.dtype),
                     F.zeros((), like.dtype))


def multi_margin_loss(input: Any, target: Any, p: int = 1, margin: Any = 1,  # noqa: A002
                      weight: Any = None, reduction: str = "mean") -> Any:
    """Per sample, the sum over the other classes j of w[y] max(0, margin - x[y] + x[j])^p,
    divided by the class count; reduced over the samples."""
    if p not in (1, 2):
        raise GraphValueError(f"For 'MultiMarginLoss', the 'p' must be 1 or 2, but got {p}.")
    reduction = _reduction(reduction, "MultiMarginLoss")
    x = _float_tensor(input, "MultiMarginLoss")
    classes = x.shape[-1]
    onehot = _onehot(target, classes, x)
    picked = F.sum(x * onehot, -1, keepdim=True)
    hinge = F.clamp(float(margin) - picked + x, 0) * (1 - onehot)
    if p == 2:
        hinge = F.square(hinge)
    if weight is not None:
        hinge = hinge * F.sum(weight * onehot, -1, keepdim=True)
    return _reduce(F.sum(hinge, -1) / classes, reduction)


def multilabel_margin_loss(input: Any, target: Any, reduction: str = "mean") -> Any:  # noqa: A002
    """Per sample, with the target classes those of ``target`` before its first -1: the
    sum over target classes j and other classes i of max(0, 1 - (x[j] - x[i])), divided
    by the class count; reduced over the samples."""
    return multilabel_margin(input, target, reduction)[0]


def multilabel_margin(input: Any, target: Any, reduction: str) -> tuple[Any, Any]:  # noqa: A002
    """``multilabel_margin_loss`` and the mask of each sample's target classes (the int32
    ``is_target`` output of ``ops.MultilabelMarginLoss``)."""
    reduction = _reduction(reduction, "MultilabelMarginLoss")
    x = _float_tensor(input, "MultilabelMarginLoss")
    classes = x.shape[-1]
    valid = F.cast(F.cumsum(F.cast(target == -1, dtypes.int32), -1) == 0, x.dtype)
    onehot = _onehot(F.clamp(target, 0), classes, x) * F.expand_dims(valid, -1)  # (.., K, C)
    is_target = F.amax(onehot, -2)
    picked = F.sum(onehot * F.expand_dims(x, -2), -1)  # x at each listed target
    hinge = F.clamp(1 - F.expand_dims(picked, -1) + F.expand_dims(x, -2), 0)
    hinge = hinge * F.expand_dims(valid, -1) * F.expand_dims(1 - is_target, -2)
    loss = _reduce(F.sum(F.sum(hinge, -1), -1) / classes, reduction)
    return loss, F.stop_gradient(F.cast(is_target, dtypes.int32))


def multilabel_soft_margin_loss(input: Any, target: Any, weight: Any = None,  # noqa: A002
                                reduction: str = "mean") -> Any:
    """y log(1 + e^-x) + (1 - y) log(1 + e^x), weighted, averaged over the classes."""
    x = _float_tensor(input, "multilabel_soft_margin_loss")
    reduction = _reduction(reduction, "multilabel_soft_margin_loss")
    loss = target * _softplus(-x) + (1 - target) * _softplus(x)
    if weight is not None:
        loss = loss * weight
    return _reduce(F.sum(loss, -1) / x.shape[-1], reduction)


def _pairwise_distance(a: Any, b: Any, p: float, eps: float) -> Any:
    """||a - b + eps||_p along axis 1."""
    d = F.abs(a - b + eps)
    if p == 1:
        return F.sum(d, 1)
    return F.pow(F.sum(F.pow(d, float(p)), 1), 1.0 / p)


def triplet_margin_loss(anchor: Any, positive: Any, negative: Any, margin: Any = 1.0,
                        p: int = 2, eps: float = 1e-06, swap: bool = False,
                        reduction: str = "mean") -> Any:
    """max(d(a, p) - d(a, n) + margin, 0) with d the p-norm distance along axis 1 (with
    ``swap``, d(a, n) is the smaller of it and d(p, n))."""
    reduction = _reduction(reduction, "TripletMarginLoss")
    a = _float_tensor(anchor, "TripletMarginLoss")
    d_pos = _pairwise_distance(a, positive, p, eps)
    d_neg = _pairwise_distance(a, negative, p, eps)
    if swap:
        d_neg = F.minimum(d_neg, _pairwise_distance(positive, negative, p, eps))
    return _reduce(F.clamp(d_pos - d_neg + margin, 0), reduction)


def gaussian_nll_loss(x: Any, target: Any, var: Any, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Any:
    """0.5 (log max(var, eps) + (x - target)^2 / max(var, eps)), plus 0.5 log(2 pi) with
    ``full``; a ``var`` of one dimension less is broadcast along the last."""
    if not isinstance(full, bool):
        raise GraphTypeError(f"For 'gaussian_nll_loss', 'full' must be a bool, but got "
                             f"{type(full)}.")
    if not isinstance(eps, float) or eps <= 0:
        raise GraphValueError(f"For 'gaussian_nll_loss', 'eps' must be a positive float, but "
                              f"got {eps}.")
    if reduction not in REDUCTIONS:
        raise GraphValueError("For 'gaussian_nll_loss', 'reduction' must be one of 'none', "
                              f"'mean', or 'sum', but got {reduction}.")
    if x.shape != var.shape and x.shape[:-1] == var.shape:
        var = F.expand_dims(var, -1)
    clamped = F.maximum(var, eps)
    loss = 0.5 * (F.log(clamped) + F.square(x - target) / clamped)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


__all__ = ["binary_cross_entropy_with_logits", "cross_entropy", "l1_loss", "mse_loss", "nll_loss",
           "smooth_l1_loss", "huber_loss", "soft_margin_loss", "margin_ranking_loss",
           "hinge_embedding_loss", "cosine_embedding_loss", "kl_div", "binary_cross_entropy",
           "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss",
           "triplet_margin_loss", "gaussian_nll_loss"]
