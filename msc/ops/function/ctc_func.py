"""``ops.ctc_loss``: MindSpore's CTC loss over log probabilities (T, N, C) and padded
targets (N, S), with its reductions; the ``CTCLossV2`` primitive computes it
(``msc/ir/primitives/ctc.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Tensor, apply
from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function.arguments import _as_tensor, _checking


def _lengths(x: Any, what: str) -> Any:
    """A tuple or list of lengths as an int64 tensor (MindSpore takes either)."""
    if isinstance(x, (tuple, list)) and all(isinstance(v, int) for v in x):
        return Tensor(np.asarray(x, np.int64))
    if not isinstance(x, Tensor):
        with _checking("ctc_loss"):
            raise GraphTypeError(f"the '{what}' must be a tuple or a Tensor, but got "
                                 f"{type(x).__name__}")
    return x


def _check_args(blank: Any, reduction: Any, zero_infinity: Any) -> None:
    with _checking("ctc_loss"):
        if not isinstance(zero_infinity, bool):
            raise GraphTypeError(f"the 'zero_infinity' must be a bool, but got "
                                 f"{type(zero_infinity).__name__}")
        if not isinstance(reduction, str):
            raise GraphTypeError(f"the 'reduction' must be a str, but got "
                                 f"{type(reduction).__name__}")
        if reduction not in ("none", "mean", "sum"):
            raise GraphValueError(f"the 'reduction' must be in ['none', 'mean', 'sum'], but "
                                  f"got {reduction}.")
        if not isinstance(blank, int) or isinstance(blank, bool):
            raise GraphTypeError(f"the 'blank' must be an int, but got {type(blank).__name__}")


def ctc_loss(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Any:
    """The CTC loss of each sequence and log alpha (N, T, 2 S + 1).

    ``reduction="mean"`` divides each loss by its target length (at least 1) and averages
    them in float32; ``"sum"`` adds them. ``zero_infinity`` zeroes the gradient of a loss
    no alignment fits (the loss stays inf, as on MindSpore's CPU).

    Example:
        >>> loss, log_alpha = ops.ctc_loss(log_probs, targets, input_lengths,
        ...                                target_lengths, blank=0, reduction="none")
    """
    _check_args(blank, reduction, zero_infinity)
    lp, tg = _as_tensor(log_probs, "ctc_loss"), _as_tensor(targets, "ctc_loss")
    il = _lengths(input_lengths, "input_lengths")
    tl = _lengths(target_lengths, "target_lengths")
    loss, log_alpha = apply(Op.CTCLossV2, lp, tg, il, tl, blank=blank,
                            zero_infinity=zero_infinity)
    if reduction == "sum":
        loss = F.sum(loss)
    elif reduction == "mean":
        lengths = F.clamp(F.cast(tl, dtypes.float32), 1.0, None)
        loss = F.cast(F.mean(F.cast(loss, dtypes.float32) / lengths), lp.dtype)
    return loss, log_alpha


__all__ = ["ctc_loss"]
