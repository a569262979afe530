"""``nn.CTCLoss``: ``ops.ctc_loss`` as a loss Cell, over (T, N, C) log probabilities or
one unbatched (T, C) sequence."""

from __future__ import annotations

from typing import Any

from msc.errors import GraphValueError
from msc.nn.loss.loss import LossBase
from msc.ops import functional as F
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.ctc_func import ctc_loss


class CTCLoss(LossBase):
    """The CTC loss of ``log_probs`` against ``targets`` (see ``ops.ctc_loss``), reduced by
    ``reduction``; a 2-D ``log_probs`` (T, C) is one sequence, its targets (S,) or (1, S).

    Example:
        >>> loss = nn.CTCLoss(blank=0, reduction="mean")(log_probs, targets,
        ...                                              input_lengths, target_lengths)
    """

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__(reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def construct(self, log_probs: Any, targets: Any, input_lengths: Any,
                  target_lengths: Any) -> Any:
        log_probs = _as_tensor(log_probs, type(self).__name__)
        targets = _as_tensor(targets, type(self).__name__)
        if log_probs.ndim == 2:
            with _checking(type(self).__name__):
                if targets.ndim > 2 or targets.ndim == 2 and targets.shape[0] != 1:
                    raise GraphValueError(f"when the shape of log_probs is (T, C), targets "
                                          f"must have shape (S,) or (1, S), but got "
                                          f"{targets.shape}.")
            if targets.ndim == 1:
                targets = F.expand_dims(targets, 0)
            loss, _ = ctc_loss(F.expand_dims(log_probs, -2), targets, input_lengths,
                               target_lengths, self.blank, self.reduction, self.zero_infinity)
            return F.squeeze(loss, 0) if loss.ndim else loss
        loss, _ = ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                           self.reduction, self.zero_infinity)
        return loss


__all__ = ["CTCLoss"]
