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
           "mse_loss", "l1_loss"]

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
