"""MindSpore's CTC primitive classes: ``ops.CTCLoss`` (logits, sparse labels, blank the
last class; the loss and its gradient), ``ops.CTCLossV2`` and ``ops.CTCLossV2Grad``
(``ops.ctc_loss``'s), and ``ops.CTCGreedyDecoder``.

``CTCGreedyDecoder``'s results have as many rows as it decodes labels, a number the
data decides, so it runs eagerly only: a graph's shapes are fixed when it is compiled.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc._checkparam import _bool
from msc.common.tensor import Parameter, SymTensor, Tensor, apply
from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.frontend.builder import current_builder
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.primitive import Primitive


class CTCLoss(Primitive):
    """``ops.CTCLoss(...)(inputs, labels_indices, labels_values, sequence_length)``: the
    loss (B,) and its gradient with respect to ``inputs`` (T, B, C), the logits."""

    def __init__(self, preprocess_collapse_repeated: bool = False,
                 ctc_merge_repeated: bool = True,
                 ignore_longer_outputs_than_inputs: bool = False):
        flags = {"preprocess_collapse_repeated": preprocess_collapse_repeated,
                 "ctc_merge_repeated": ctc_merge_repeated,
                 "ignore_longer_outputs_than_inputs": ignore_longer_outputs_than_inputs}
        super().__init__(**{k: _bool(v, k, Op.CTCLoss.name) for k, v in flags.items()})

    def __call__(self, inputs: Any, labels_indices: Any, labels_values: Any,
                 sequence_length: Any) -> Any:
        return apply(Op.CTCLoss, inputs, labels_indices, labels_values, sequence_length,
                     **self.attrs)


class CTCLossV2(Primitive):
    """``ops.CTCLossV2(blank, reduction="none", zero_infinity)(log_probs, targets,
    input_lengths, target_lengths)``: the negative log likelihood (N,) and log alpha."""

    def __init__(self, blank: int = 0, reduction: str = "none", zero_infinity: bool = False):
        with _checking(Op.CTCLossV2):
            if not isinstance(blank, int) or isinstance(blank, bool):
                raise GraphTypeError(f"the 'blank' must be an int, but got {blank!r}")
            if not isinstance(reduction, str) or reduction.lower() != "none":
                raise GraphValueError(f"the 'reduction' must be 'none', but got {reduction!r}")
        super().__init__(blank=blank, reduction="none",
                         zero_infinity=_bool(zero_infinity, "zero_infinity", Op.CTCLossV2.name))

    def __call__(self, log_probs: Any, targets: Any, input_lengths: Any,
                 target_lengths: Any) -> Any:
        return apply(Op.CTCLossV2, log_probs, targets, input_lengths, target_lengths,
                     blank=self.attrs["blank"], zero_infinity=self.attrs["zero_infinity"])


class CTCLossV2Grad(CTCLossV2):
    """``ops.CTCLossV2Grad(blank, ...)(grad_out, log_probs, targets, input_lengths,
    target_lengths, neg_log_likelihood, log_alpha)``: the gradient with respect to
    ``log_probs``."""

    def __call__(self, *inputs: Any) -> Any:  # type: ignore[override]
        return apply(Op.CTCLossV2Grad, *inputs, blank=self.attrs["blank"],
                     zero_infinity=self.attrs["zero_infinity"])


def _greedy(x: np.ndarray, lengths: np.ndarray, merge: bool) -> tuple[np.ndarray, ...]:
    """The most probable class at each step of each sequence, repeats merged (unless a
    blank, the last class, parts them) and blanks dropped; MindSpore's sparse layout."""
    blank = x.shape[2] - 1
    rows: list[list[int]] = []
    scores = np.zeros((x.shape[1], 1), x.dtype)
    for b in range(x.shape[1]):
        best = x[:lengths[b], b].argmax(axis=1)
        scores[b, 0] = -x[:lengths[b], b].max(axis=1).sum()
        keep = best != blank
        if merge:
            keep &= np.concatenate([[True], best[1:] != best[:-1]])
        rows.append([int(c) for c in best[keep]])
    indices = np.array([(b, i) for b, row in enumerate(rows) for i in range(len(row))],
                       np.int64).reshape(-1, 2)
    values = np.array([c for row in rows for c in row], np.int64)
    shape = np.array([x.shape[1], max((len(r) for r in rows), default=0)], np.int64)
    return indices, values, shape, scores


class CTCGreedyDecoder(Primitive):
    """``ops.CTCGreedyDecoder(merge_repeated=True)(inputs, sequence_length)``: the decoded
    labels as ``(decoded_indices, decoded_values, decoded_shape, log_probability)``."""

    def __init__(self, merge_repeated: bool = True):
        super().__init__(merge_repeated=_bool(merge_repeated, "merge_repeated",
                                              "CTCGreedyDecoder"))

    def __call__(self, inputs: Any, sequence_length: Any) -> Any:
        x = _as_tensor(inputs, "CTCGreedyDecoder")
        lengths = _as_tensor(sequence_length, "CTCGreedyDecoder")
        with _checking("CTCGreedyDecoder"):
            if any(isinstance(v, (SymTensor, Parameter)) for v in (x, lengths)) and \
                    current_builder() is not None:
                raise GraphTypeError(
                    "the number of decoded labels depends on the data, and a graph's shapes "
                    "are fixed when it is compiled: call it outside the graph (eagerly) on "
                    "the graph's output")
            if x.ndim != 3 or x.dtype not in (dtypes.float16, dtypes.float32):
                raise GraphTypeError(f"the 'inputs' must be a 3-D float16 or float32 Tensor, "
                                     f"but got {x.dtype} of rank {x.ndim}")
            if lengths.shape != (x.shape[1],) or lengths.dtype != dtypes.int32:
                raise ShapeError(f"the 'sequence_length' must be an int32 Tensor of shape "
                                 f"({x.shape[1]},), but got {lengths.dtype} {lengths.shape}")
        seq = lengths.asnumpy()
        if np.any(seq > x.shape[0]) or np.any(seq < 0):
            raise ValueError(f"For 'CTCGreedyDecoder', the 'sequence_length' must be in "
                             f"[0, {x.shape[0]}], but got {seq.tolist()}.")
        out = _greedy(x.asnumpy(), seq, self.attrs["merge_repeated"])
        return tuple(Tensor(v) for v in out)


__all__ = ["CTCLoss", "CTCLossV2", "CTCLossV2Grad", "CTCGreedyDecoder"]
