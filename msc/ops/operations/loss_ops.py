"""The loss primitives of ``mindspore.ops.operations`` that return more than a loss or
reduce on their own: ``SoftmaxCrossEntropyWithLogits``, ``SparseSoftmaxCrossEntropyWithLogits``,
``NLLLoss`` and ``MultiMarginLoss``, composed from the functional losses."""

from __future__ import annotations

from typing import Any

from msc.ir import dtypes
from msc.ops import functional as F
from msc.ops.function.loss_func import _class_loss, multi_margin_loss
from msc.ops.primitive import Primitive


class SoftmaxCrossEntropyWithLogits(Primitive):
    """``(logits, labels)`` (N, C) -> (loss (N,), backprop (N, C)): -sum(labels *
    log_softmax(logits)) per row and softmax(logits) - labels. No gradient reaches the
    labels (MindSpore 2.10 defines it as zero); the logits' is the derivative of both
    results (MindSpore's is backprop times the loss's, see docs/differences.md)."""

    def __call__(self, logits: Any, labels: Any) -> tuple[Any, Any]:
        labels = F.stop_gradient(labels)
        loss = -(labels * F.log_softmax(logits, -1)).sum(-1)
        return loss, F.softmax(logits, -1) - labels


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """``(logits (N, C), labels (N,))`` -> the mean cross-entropy; with ``is_grad`` its
    gradient with respect to the logits instead."""

    def __init__(self, is_grad: bool = False):
        super().__init__(is_grad=is_grad)
        self.is_grad = bool(is_grad)

    def __call__(self, logits: Any, labels: Any) -> Any:
        if self.is_grad:
            onehot = F.one_hot(F.cast(labels, dtypes.int32), logits.shape[-1],
                               F.ones((), logits.dtype), F.zeros((), logits.dtype))
            return F.stop_gradient((F.softmax(logits, -1) - onehot) / logits.shape[0])
        return _class_loss(F.log_softmax(logits, -1), labels, None, -100, "mean", 0.0)


class NLLLoss(Primitive):
    """``(logits (N, C), labels (N,), weight (C,))`` -> (loss, total_weight): the weighted
    negative log-likelihood and the sum of the weights of the samples taken."""

    def __init__(self, reduction: str = "mean", ignore_index: int = -100):
        super().__init__(reduction=reduction, ignore_index=ignore_index)
        self.reduction, self.ignore_index = reduction, ignore_index

    def __call__(self, logits: Any, labels: Any, weight: Any) -> tuple[Any, Any]:
        weight = F.stop_gradient(weight)
        loss = _class_loss(logits, labels, weight, self.ignore_index, self.reduction, 0.0)
        onehot = F.one_hot(F.cast(labels, dtypes.int32), logits.shape[-1],
                           F.ones((), logits.dtype), F.zeros((), logits.dtype))
        keep = F.cast(labels != self.ignore_index, logits.dtype)
        return loss, ((onehot * weight).sum(-1) * keep).sum()


class MultiMarginLoss(Primitive):
    """``(x (N, C), target (N,), weight (C,))`` -> ``ops.multi_margin_loss``."""

    def __init__(self, p: int = 1, margin: float = 1.0, reduction: str = "mean"):
        super().__init__(p=p, margin=margin, reduction=reduction)
        self.p, self.margin, self.reduction = p, margin, reduction

    def __call__(self, x: Any, target: Any, weight: Any = None) -> Any:
        if weight is not None:
            weight = F.stop_gradient(weight)
        return multi_margin_loss(x, target, self.p, self.margin, weight, self.reduction)


__all__ = ["SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", "NLLLoss",
           "MultiMarginLoss"]
