"""The loss layers of ``msc.nn`` with MindSpore 2.10's arguments and defaults
(``nn.MSELoss``, ``nn.CrossEntropyLoss``, ``nn.BCEWithLogitsLoss``, ...).

``LossBase`` applies the reduction (``get_loss``); user losses subclass it, as in
MindSpore. Every ``construct`` only calls ops (``ops/function/loss_func.py``), so the same
code runs eagerly and in graphs (and differentiates through the table's vjp rules).
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.nn.cell import Cell
from msc.ops import functional as F
from msc.ops.function.loss_func import (
    _check_class_args,
    _class_loss,
    _reduce,
    _reduction,
    binary_cross_entropy_with_logits,
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


class BCEWithLogitsLoss(LossBase):
    """``binary_cross_entropy_with_logits`` as a Cell."""

    def __init__(self, reduction: str = "mean", weight: Any = None, pos_weight: Any = None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, logits: Any, labels: Any) -> Any:
        return binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight,
                                                self.reduction)


__all__ = ["BCEWithLogitsLoss", "CrossEntropyLoss", "L1Loss", "LossBase", "MSELoss", "NLLLoss",
           "SmoothL1Loss", "SoftmaxCrossEntropyWithLogits"]
