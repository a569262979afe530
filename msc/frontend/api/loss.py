"""Losses of ``msc.nn`` and ``msc.ops`` with MindSpore 2.10's arguments and defaults.

``LossBase`` applies the reduction (``get_loss``); user losses subclass it, as in
MindSpore. Every ``construct`` only calls ops, so the same code runs eagerly and in
graphs (and differentiates through the table's vjp rules).
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.api import functional as F
from msc.frontend.api.cell import Cell

__all__ = ["LossBase", "MSELoss", "L1Loss", "SmoothL1Loss", "SoftmaxCrossEntropyWithLogits",
           "CrossEntropyLoss", "NLLLoss", "BCEWithLogitsLoss", "mse_loss", "l1_loss",
           "cross_entropy", "nll_loss", "binary_cross_entropy_with_logits"]

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


class LossBase(Cell):
    """The base of losses: ``get_loss(x, weights=1.0)`` is ``x * weights`` reduced by
    ``reduction`` ('mean', 'sum' or 'none')."""

    def __init__(self, reduction: str = "mean"):
        super().__init__()
        self.reduction = _reduction(reduction, type(self).__name__)

    def get_loss(self, x: Any, weights: Any = 1.0) -> Any:
        return _reduce(x * weights if weights is not None else x, self.reduction)

    def construct(self, logits: Any, labels: Any) -> Any:
        raise NotImplementedError


class MSELoss(LossBase):
    """Squared differences, reduced."""

    def construct(self, logits: Any, labels: Any) -> Any:
        return self.get_loss(F.square(logits - labels))


class L1Loss(LossBase):
    """Absolute differences, reduced."""

    def construct(self, logits: Any, labels: Any) -> Any:
        return self.get_loss(F.abs(logits - labels))


class SmoothL1Loss(LossBase):
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (Huber-like)."""

    def __init__(self, beta: float = 1.0, reduction: str = "none"):
        super().__init__(reduction)
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0:
            raise GraphValueError(f"For 'SmoothL1Loss', the 'beta' must be a float greater "
                                  f"than 0, but got {beta!r}.")
        self.beta = float(beta)

    def construct(self, logits: Any, labels: Any) -> Any:
        d = F.abs(logits - labels)
        small = d * d * (0.5 / self.beta)
        return self.get_loss(F.select(d < self.beta, small, d - 0.5 * self.beta))


class SoftmaxCrossEntropyWithLogits(LossBase):
    """Cross-entropy of ``softmax(logits)`` along the last axis against ``labels``:
    probabilities of the logits' shape, or (``sparse``) class indices of one less
    dimension; one loss per sample, reduced."""

    def __init__(self, sparse: bool = False, reduction: str = "none"):
        super().__init__(reduction)
        if not isinstance(sparse, bool):
            raise GraphTypeError(f"For 'SoftmaxCrossEntropyWithLogits', the 'sparse' must be "
                                 f"bool, but got {type(sparse).__name__}.")
        self.sparse = sparse

    def construct(self, logits: Any, labels: Any) -> Any:
        if self.sparse:
            classes = logits.shape[-1]
            labels = F.one_hot(labels, classes, F.ones((), logits.dtype),
                               F.zeros((), logits.dtype))
        return self.get_loss(-(labels * F.log_softmax(logits, -1)).sum(-1))


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


def cross_entropy(input: Any, target: Any, weight: Any = None,  # noqa: A002
                  ignore_index: int = -100, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Any:
    """``ops.cross_entropy``: softmax cross-entropy of logits (N, C) against class
    indices (N,) or probabilities (N, C)."""
    reduction = _check_class_args("cross_entropy", reduction, label_smoothing)
    return _class_loss(F.log_softmax(input, -1), target, weight, ignore_index, reduction,
                       label_smoothing)


def nll_loss(inputs: Any, target: Any, weight: Any = None, ignore_index: int = -100,
             reduction: str = "mean", label_smoothing: float = 0.0) -> Any:
    """``ops.nll_loss``: the negative log-likelihood of log-probabilities (N, C)."""
    reduction = _check_class_args("nll_loss", reduction, label_smoothing)
    return _class_loss(inputs, target, weight, ignore_index, reduction, label_smoothing)


class CrossEntropyLoss(LossBase):
    """``cross_entropy`` as a Cell."""

    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0):
        super().__init__(reduction)
        _check_class_args("CrossEntropyLoss", reduction, label_smoothing)
        self.weight, self.ignore_index = weight, ignore_index
        self.label_smoothing = float(label_smoothing)

    def construct(self, logits: Any, labels: Any) -> Any:
        return _class_loss(F.log_softmax(logits, -1), labels, self.weight, self.ignore_index,
                           self.reduction, self.label_smoothing)


class NLLLoss(LossBase):
    """``nll_loss`` as a Cell."""

    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def construct(self, logits: Any, labels: Any) -> Any:
        return _class_loss(logits, labels, self.weight, self.ignore_index, self.reduction,
                           0.0)


def _softplus(x: Any) -> Any:
    """log(1 + exp(x)) without overflow."""
    return F.maximum(x, 0) + F.log1p(F.exp(-F.abs(x)))


def binary_cross_entropy_with_logits(input: Any, target: Any, weight: Any = None,  # noqa: A002
                                     pos_weight: Any = None, reduction: str = "mean") -> Any:
    """``ops.binary_cross_entropy_with_logits``: -w [p y log s(x) + (1 - y) log(1 - s(x))]
    with s the sigmoid, computed from softplus, reduced."""
    reduction = _reduction(reduction, "binary_cross_entropy_with_logits")
    positive = _softplus(-input) * target
    if pos_weight is not None:
        positive = positive * pos_weight
    loss = positive + _softplus(input) * (1 - target)
    return _reduce(loss if weight is None else loss * weight, reduction)


class BCEWithLogitsLoss(LossBase):
    """``binary_cross_entropy_with_logits`` as a Cell."""

    def __init__(self, reduction: str = "mean", weight: Any = None, pos_weight: Any = None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, logits: Any, labels: Any) -> Any:
        return binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight,
                                                self.reduction)

