"""The loss layers of ``msc.nn`` with MindSpore 2.10's arguments and defaults
(``nn.MSELoss``, ``nn.CrossEntropyLoss``, ``nn.BCEWithLogitsLoss``, ...).

``LossBase`` applies the reduction (``get_loss``); user losses subclass it, as in
MindSpore. Every ``construct`` only calls ops (``ops/function/loss_func.py``), so the same
code runs eagerly and in graphs (and differentiates through the table's vjp rules).
"""

from __future__ import annotations

import math
from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.nn.cell import Cell
from msc.ops import functional as F
from msc.ops.function.loss_func import (
    _check_class_args,
    _class_loss,
    _classes_last,
    _reduce,
    _reduction,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    soft_margin_loss,
    triplet_margin_loss,
)


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


class CrossEntropyLoss(LossBase):
    """``cross_entropy`` as a Cell."""

    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0):
        super().__init__(reduction)
        _check_class_args("CrossEntropyLoss", reduction, label_smoothing)
        self.weight, self.ignore_index = weight, ignore_index
        self.label_smoothing = float(label_smoothing)

    def construct(self, logits: Any, labels: Any) -> Any:
        logits, labels = _classes_last(logits, labels)
        return _class_loss(F.log_softmax(logits, -1), labels, self.weight, self.ignore_index,
                           self.reduction, self.label_smoothing)


class NLLLoss(LossBase):
    """``nll_loss`` as a Cell."""

    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def construct(self, logits: Any, labels: Any) -> Any:
        logits, labels = _classes_last(logits, labels)
        return _class_loss(logits, labels, self.weight, self.ignore_index, self.reduction,
                           0.0)


class BCEWithLogitsLoss(LossBase):
    """``binary_cross_entropy_with_logits`` as a Cell."""

    def __init__(self, reduction: str = "mean", weight: Any = None, pos_weight: Any = None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, logits: Any, labels: Any) -> Any:
        return binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight,
                                                self.reduction)


class BCELoss(LossBase):
    """``binary_cross_entropy`` of probabilities as a Cell."""

    def __init__(self, weight: Any = None, reduction: str = "mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits: Any, labels: Any) -> Any:
        return binary_cross_entropy(logits, labels, self.weight, self.reduction)


class MAELoss(LossBase):
    """Absolute differences, reduced."""

    def construct(self, logits: Any, label: Any) -> Any:
        return self.get_loss(F.abs(logits - label))


class L1LossExt(MAELoss):
    """``L1Loss`` of the ``mint`` API: absolute differences, reduced."""


class RMSELoss(LossBase):
    """The square root of the mean squared difference."""

    def __init__(self) -> None:
        super().__init__()

    def construct(self, logits: Any, label: Any) -> Any:
        return F.sqrt(F.mean(F.square(logits - label)))


class HuberLoss(LossBase):
    """``huber_loss`` as a Cell."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction)
        self.delta = delta

    def construct(self, logits: Any, labels: Any) -> Any:
        return huber_loss(logits, labels, self.reduction, self.delta)


class SoftMarginLoss(LossBase):
    """``soft_margin_loss`` as a Cell."""

    def construct(self, logits: Any, labels: Any) -> Any:
        return soft_margin_loss(logits, labels, self.reduction)


class KLDivLoss(LossBase):
    """``kl_div`` as a Cell ('batchmean' allowed)."""

    def __init__(self, reduction: str = "mean"):
        super().__init__()
        self.reduction = reduction

    def construct(self, logits: Any, labels: Any) -> Any:
        return kl_div(logits, labels, self.reduction)


class MarginRankingLoss(LossBase):
    """``margin_ranking_loss`` as a Cell."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean"):
        super().__init__(reduction)
        self.margin = margin

    def construct(self, input1: Any, input2: Any, target: Any) -> Any:
        return margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class HingeEmbeddingLoss(LossBase):
    """``hinge_embedding_loss`` as a Cell."""

    def __init__(self, margin: float = 1.0, reduction: str = "mean"):
        super().__init__(reduction)
        if isinstance(margin, bool) or not isinstance(margin, (int, float)):
            raise GraphTypeError(f"For 'HingeEmbeddingLoss', the type of 'margin' should be "
                                 f"float or int, but got {type(margin).__name__}.")
        self.margin = margin

    def construct(self, logits: Any, labels: Any) -> Any:
        return hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class CosineEmbeddingLoss(LossBase):
    """``cosine_embedding_loss`` as a Cell (``margin`` a float in [-1, 1])."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean"):
        super().__init__(reduction)
        if not isinstance(margin, float):
            raise GraphTypeError(f"For 'CosineEmbeddingLoss', the type of 'margin' should be "
                                 f"float, but got {type(margin).__name__}.")
        if not -1.0 <= margin <= 1.0:
            raise GraphValueError(f"For 'CosineEmbeddingLoss', the 'margin' should be in range "
                                  f"[-1.0, 1.0], but got {margin}.")
        self.margin = margin

    def construct(self, logits_x1: Any, logits_x2: Any, labels: Any) -> Any:
        return cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin, self.reduction)


class MultiMarginLoss(LossBase):
    """``multi_margin_loss`` as a Cell; a ``weight`` given here wins over the call's."""

    def __init__(self, p: int = 1, margin: float = 1.0, reduction: str = "mean",
                 weight: Any = None):
        super().__init__(reduction)
        self.p, self.margin, self.weight = p, margin, weight

    def construct(self, x: Any, target: Any, weight: Any = None) -> Any:
        return multi_margin_loss(x, target, self.p, self.margin,
                                 self.weight if self.weight is not None else weight,
                                 self.reduction)


class MultilabelMarginLoss(LossBase):
    """``multilabel_margin_loss`` as a Cell."""

    def construct(self, x: Any, target: Any) -> Any:
        return multilabel_margin_loss(x, target, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    """``multilabel_soft_margin_loss`` as a Cell."""

    def __init__(self, weight: Any = None, reduction: str = "mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, x: Any, target: Any) -> Any:
        return multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class TripletMarginLoss(LossBase):
    """``triplet_margin_loss`` as a Cell; a ``margin`` other than 1 given here wins over
    the call's."""

    def __init__(self, p: int = 2, swap: bool = False, eps: float = 1e-06,
                 reduction: str = "mean", margin: float = 1.0):
        super().__init__(reduction)
        self.p, self.swap, self.eps, self.margin = p, swap, eps, margin

    def construct(self, x: Any, positive: Any, negative: Any, margin: Any = 1.0) -> Any:
        if self.margin != 1.0:
            margin = self.margin
        return triplet_margin_loss(x, positive, negative, margin, self.p, self.eps, self.swap,
                                   self.reduction)


class TripletMarginWithDistanceLoss(LossBase):
    """max(d(x, p) - d(x, n) + margin, 0) for a ``distance_function`` (by default the
    2-norm of the difference along axis 1)."""

    def __init__(self, distance_function: Any = None, swap: bool = False,
                 reduction: str = "mean", margin: float = 1.0):
        super().__init__(reduction)
        if not isinstance(margin, float):
            raise GraphTypeError(f"For 'TripletMarginWithDistanceLoss', the type of 'margin' "
                                 f"should be float, but got {type(margin).__name__}.")
        self.distance_function = distance_function
        self.swap, self.margin = bool(swap), margin

    def distance(self, x: Any, y: Any) -> Any:
        if self.distance_function is not None:
            return self.distance_function(x, y)
        return F.sqrt(F.sum(F.square(x - y), 1))

    def construct(self, x: Any, positive: Any, negative: Any) -> Any:
        d_pos = self.distance(x, positive)
        d_neg = self.distance(x, negative)
        if self.swap:
            d_neg = F.minimum(d_neg, self.distance(positive, negative))
        return self.get_loss(F.clamp(d_pos - d_neg + self.margin, 0))


class PoissonNLLLoss(LossBase):
    """exp(x) - y x (``log_input``) or x - y log(x + eps); with ``full`` the Stirling term
    of y where y > 1."""

    def __init__(self, log_input: bool = True, full: bool = False, eps: float = 1e-08,
                 reduction: str = "mean"):
        super().__init__(reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def construct(self, input: Any, target: Any) -> Any:  # noqa: A002
        target = F.cast(target, input.dtype)
        if self.log_input:
            loss = F.exp(input) - target * input
        else:
            loss = input - target * F.log(input + self.eps)
        if self.full:
            t = F.maximum(target, self.eps)
            stirling = (t + 0.5) * F.log(t) - t + 0.5 * math.log(2 * math.pi)
            loss = loss + F.select(t > 1, stirling, F.zeros_like(stirling))
        return self.get_loss(loss)


class GaussianNLLLoss(LossBase):
    """``gaussian_nll_loss`` as a Cell."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
        super().__init__(reduction)
        if not isinstance(eps, float) or eps <= 0:
            raise GraphValueError(f"For 'GaussianNLLLoss', the 'eps' must be in range (0, inf), "
                                  f"but got {eps}.")
        if not isinstance(full, bool):
            raise GraphTypeError(f"For 'GaussianNLLLoss', the type of 'full' should be bool, "
                                 f"but got {type(full).__name__}.")
        self.full, self.eps = full, eps

    def construct(self, logits: Any, labels: Any, var: Any) -> Any:
        return gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class DiceLoss(LossBase):
    """1 - 2 sum(x y) / (sum(x^2) + sum(y^2) + smooth) over all elements."""

    def __init__(self, smooth: float = 1e-5):
        super().__init__()
        if isinstance(smooth, bool) or not isinstance(smooth, (int, float)) or smooth <= 0:
            raise GraphValueError(f"The 'smooth' must be a positive float, but got {smooth}.")
        self.smooth = float(smooth)

    def construct(self, logits: Any, label: Any) -> Any:
        if logits.shape != label.shape:
            raise GraphValueError(f"For 'DiceLoss', the 'logits' and 'labels' must have the "
                                  f"same shape, but got {logits.shape} and {label.shape}.")
        x, y = logits.reshape(-1), label.reshape(-1)
        union = F.sum(x * x) + F.sum(y * y)
        return 1 - 2 * F.sum(x * y) / (union + self.smooth)


class MultiClassDiceLoss(LossBase):
    """The mean over the classes (axis 1, but ``ignore_indiex``) of the ``DiceLoss`` of
    ``activation(logits)``, each weighted by ``weights[i]``."""

    _ACTIVATIONS = ("softmax", "logsoftmax", "relu", "relu6", "tanh", "sigmoid")

    def __init__(self, weights: Any = None, ignore_indiex: Any = None,
                 activation: Any = "softmax"):
        super().__init__()
        from msc.nn.layer.activation import get_activation

        if weights is not None and weights.ndim != 2:
            raise GraphValueError(f"For 'MultiClassDiceLoss', the dimension of 'weights' must "
                                  f"be 2, but got {weights.ndim}.")
        if isinstance(activation, str) and activation not in self._ACTIVATIONS:
            raise GraphValueError(f"For 'MultiClassDiceLoss', the 'activation' must be in "
                                  f"{list(self._ACTIVATIONS)}, but got {activation}.")
        self.binarydiceloss = DiceLoss(smooth=1e-5)
        self.weights, self.ignore_indiex = weights, ignore_indiex
        self.activation = get_activation(activation) if isinstance(activation, str) \
            else activation

    def construct(self, logits: Any, label: Any) -> Any:
        if self.activation is not None:
            logits = self.activation(logits)
        total = 0
        for i in range(label.shape[1]):
            if i != self.ignore_indiex:
                loss = self.binarydiceloss(logits[:, i], label[:, i])
                if self.weights is not None:
                    loss = loss * self.weights[i]
                total = total + loss
        return total / label.shape[1]


class FocalLoss(LossBase):
    """-(1 - p)^gamma log p of the softmax along axis 1, against one-hot ``labels`` of the
    logits' shape or class indices of one channel; class ``weight`` scales log p."""

    def __init__(self, weight: Any = None, gamma: float = 2.0, reduction: str = "mean"):
        super().__init__(reduction)
        if not isinstance(gamma, float):
            raise GraphTypeError(f"For 'FocalLoss', the type of 'gamma' should be float, but "
                                 f"got {type(gamma).__name__}.")
        if weight is not None and weight.ndim != 1:
            raise GraphValueError(f"For 'FocalLoss', the dimension of 'weight' must be 1, but "
                                  f"got {weight.ndim}.")
        self.weight, self.gamma = weight, gamma

    def construct(self, logits: Any, labels: Any) -> Any:
        n, c = logits.shape[0], logits.shape[1]
        logits = logits.reshape(n, c, -1)
        labs = labels.reshape(n, labels.shape[1], -1)
        logp = F.log_softmax(logits, 1)
        weight = None if self.weight is None else F.expand_dims(
            F.expand_dims(self.weight, 0), -1)
        indices = labels.shape[1] == 1
        if indices:
            onehot = F.transpose(F.one_hot(F.cast(labs[:, 0], dtypes.int32), c,
                                           F.ones((), logp.dtype), F.zeros((), logp.dtype)),
                                 (0, 2, 1))
            logp = F.sum(logp * onehot, 1)
            if weight is not None:
                weight = F.sum(weight * onehot, 1)
        scale = F.pow(1.0 - F.exp(logp), self.gamma)  # of the unweighted probability
        if weight is not None:
            logp = logp * weight
        if indices:
            return self.get_loss(F.mean(-scale * logp, 1))
        return self.get_loss(F.mean(-scale * labs * logp, -1))


__all__ = ["BCEWithLogitsLoss", "CrossEntropyLoss", "L1Loss", "LossBase", "MSELoss", "NLLLoss",
           "SmoothL1Loss", "SoftmaxCrossEntropyWithLogits", "BCELoss", "MAELoss", "L1LossExt",
           "RMSELoss", "HuberLoss", "SoftMarginLoss", "KLDivLoss", "MarginRankingLoss",
           "HingeEmbeddingLoss", "CosineEmbeddingLoss", "MultiMarginLoss",
           "MultilabelMarginLoss", "MultiLabelSoftMarginLoss", "TripletMarginLoss",
           "TripletMarginWithDistanceLoss", "PoissonNLLLoss", "GaussianNLLLoss", "DiceLoss",
           "MultiClassDiceLoss", "FocalLoss"]
