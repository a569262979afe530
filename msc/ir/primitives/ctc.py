"""Connectionist temporal classification: ``CTCLoss`` (MindSpore's TensorFlow-style
primitive: logits (T, B, C), sparse labels, blank the last class; outputs the loss and
its gradient with respect to the logits), ``CTCLossV2`` (PyTorch's layout: log
probabilities, padded targets, any blank; outputs the negative log likelihood and log
alpha) and ``CTCLossV2Grad``.

The alignment is data-dependent, so every form is a runtime helper on every target
(``msc/runtime/numpy_ctc_rt.py``, vectorized; ``numba_ctc_rt.py``, loops), which checks
lengths and labels at run time and raises ``RuntimeError`` as MindSpore's kernels do.
``CTCLoss``'s rule scales the gradient output it computed by the loss's cotangent (its
second output gets none), as MindSpore's bprop does; ``CTCLossV2``'s calls
``CTCLossV2Grad``. An empty label sequence costs the probability of all blanks (MindSpore's
``CTCLoss`` kernel adds a spurious term there: see docs/differences.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.ir import dtypes
from msc.ir.kernel import Expr, Helper, Lit
from msc.ir.primitives.base import (
    ArrayExpr,
    Attr,
    Primitive,
    on_all_targets,
    register,
    want_bool,
    want_int,
    want_tensor,
)
from msc.ir.primitives.rules import batch_size, move_to_front
from msc.ir.types import TensorType, TupleType, Type, tensor_of
from msc.runtime.numpy_ctc_rt import _rt_ctc_loss, _rt_ctc_loss_v2, _rt_ctc_loss_v2_grad

_INDEX = (dtypes.int32, dtypes.int64)


def _want(t: Type, what: str, ndim: int, allowed: tuple[dtypes.DType, ...]) -> TensorType:
    tt = want_tensor(t, what)
    if tt.ndim != ndim:
        raise ShapeError(f"the '{what}' must be {ndim}-D, but got {tt.ndim}-D")
    if tt.dtype not in allowed:
        names = ", ".join(str(d) for d in allowed)
        raise GraphTypeError(f"the dtype of '{what}' must be in [{names}], but got {tt.dtype}")
    return tt


def _lengths(t: Type, what: str, batch: int) -> None:
    tt = _want(t, what, 1, _INDEX)
    if tt.shape != (batch,):
        raise ShapeError(f"the shape of '{what}' must be ({batch},), but got {tt.shape}")


# --- CTCLoss ------------------------------------------------------------------------------


def _ctc_infer(inputs: Type, labels_indices: Type, labels_values: Type, sequence_length: Type,
               *, preprocess_collapse_repeated: bool, ctc_merge_repeated: bool,
               ignore_longer_outputs_than_inputs: bool) -> Type:
    x = _want(inputs, "inputs", 3, (dtypes.float16, dtypes.float32))
    idx = _want(labels_indices, "labels_indices", 2, (dtypes.int64,))
    values = _want(labels_values, "labels_values", 1, (dtypes.int32,))
    seq = _want(sequence_length, "sequence_length", 1, (dtypes.int32,))
    for flag, name in ((preprocess_collapse_repeated, "preprocess_collapse_repeated"),
                       (ctc_merge_repeated, "ctc_merge_repeated"),
                       (ignore_longer_outputs_than_inputs, "ignore_longer_outputs_than_inputs")):
        want_bool(flag, name)
    if idx.shape[1] != 2 or idx.shape[0] != values.shape[0]:
        raise ShapeError(f"the 'labels_indices' must have shape ({values.shape[0]}, 2), as "
                         f"'labels_values' has {values.shape[0]} labels, but got {idx.shape}")
    if seq.shape != (x.shape[1],):
        raise ShapeError(f"the 'sequence_length' must have shape ({x.shape[1]},), but got "
                         f"{seq.shape}")
    return TupleType((TensorType(x.dtype, (x.shape[1],)), x))


def _ctc_impl(inputs: Any, labels_indices: Any, labels_values: Any, sequence_length: Any, *,
              preprocess_collapse_repeated: bool, ctc_merge_repeated: bool,
              ignore_longer_outputs_than_inputs: bool) -> Any:
    return _rt_ctc_loss(np.asarray(inputs), np.asarray(labels_indices),
                        np.asarray(labels_values), np.asarray(sequence_length),
                        bool(preprocess_collapse_repeated), bool(ctc_merge_repeated),
                        bool(ignore_longer_outputs_than_inputs))


def _emit_ctc(a: list[Expr], node: Any) -> Expr:
    flags = ("preprocess_collapse_repeated", "ctc_merge_repeated",
             "ignore_longer_outputs_than_inputs")
    return Helper("_rt_ctc_loss", (*a[:4], *(Lit(bool(node.attr[f])) for f in flags)))


def _vjp_ctc(b: Any, g: Any, inputs: Any, labels_indices: Any, labels_values: Any,
             sequence_length: Any, *, out: Any, **attrs: Any) -> tuple[Any, ...]:
    """The gradient the op computed, times the loss's cotangent (MindSpore's bprop)."""
    scaled = b.mul(b.getitem(out, 1), b.expand_dims(b.getitem(g, 0), axis=-1))
    return (scaled, None, None, None)


ctc_loss = register(Primitive(
    "CTCLoss", _ctc_infer, _ctc_impl, on_all_targets(ArrayExpr(_emit_ctc)),
    attrs=(Attr("preprocess_collapse_repeated", False, (bool,)),
           Attr("ctc_merge_repeated", True, (bool,)),
           Attr("ignore_longer_outputs_than_inputs", False, (bool,))),
    cost=16, vjp=_vjp_ctc))


# --- CTCLossV2 and its gradient -----------------------------------------------------------


def _v2_inputs(log_probs: Type, targets: Type, input_lengths: Type, target_lengths: Type,
               blank: int) -> tuple[TensorType, TensorType]:
    lp = _want(log_probs, "log_probs", 3, (dtypes.float32, dtypes.float64))
    tg = _want(targets, "targets", 2, _INDEX)
    if tg.shape[0] != lp.shape[1]:
        raise ShapeError(f"the first dimension of 'targets' must be the batch size "
                         f"{lp.shape[1]}, but got {tg.shape[0]}")
    _lengths(input_lengths, "input_lengths", lp.shape[1])
    _lengths(target_lengths, "target_lengths", lp.shape[1])
    if not 0 <= want_int(blank, "blank") < lp.shape[2]:
        raise GraphValueError(f"the blank must be in [0,{lp.shape[2]}), but got {blank}.")
    return lp, tg


def _v2_infer(log_probs: Type, targets: Type, input_lengths: Type, target_lengths: Type, *,
              blank: int, zero_infinity: bool) -> Type:
    lp, tg = _v2_inputs(log_probs, targets, input_lengths, target_lengths, blank)
    want_bool(zero_infinity, "zero_infinity")
    steps, batch = lp.shape[:2]
    return TupleType((TensorType(lp.dtype, (batch,)),
                      TensorType(lp.dtype, (batch, steps, 2 * tg.shape[1] + 1))))


def _v2_impl(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any, *,
             blank: int, zero_infinity: bool) -> Any:
    return _rt_ctc_loss_v2(np.asarray(log_probs), np.asarray(targets),
                           np.asarray(input_lengths), np.asarray(target_lengths), int(blank))


def _emit_v2(a: list[Expr], node: Any) -> Expr:
    return Helper("_rt_ctc_loss_v2", (*a[:4], Lit(int(node.attr["blank"]))))


def _v2_grad_infer(grad_out: Type, log_probs: Type, targets: Type, input_lengths: Type,
                   target_lengths: Type, neg_log_likelihood: Type, log_alpha: Type, *,
                   blank: int, zero_infinity: bool) -> Type:
    lp, _ = _v2_inputs(log_probs, targets, input_lengths, target_lengths, blank)
    want_bool(zero_infinity, "zero_infinity")
    if want_tensor(grad_out, "grad_out").shape != (lp.shape[1],):
        raise ShapeError(f"the 'grad_out' must have shape ({lp.shape[1]},), but got {grad_out}")
    return lp


def _v2_grad_impl(grad_out: Any, log_probs: Any, targets: Any, input_lengths: Any,
                  target_lengths: Any, neg_log_likelihood: Any, log_alpha: Any, *,
                  blank: int, zero_infinity: bool) -> Any:
    return _rt_ctc_loss_v2_grad(np.asarray(grad_out), np.asarray(log_probs),
                                np.asarray(targets), np.asarray(input_lengths),
                                np.asarray(target_lengths), int(blank), bool(zero_infinity))


def _emit_v2_grad(a: list[Expr], node: Any) -> Expr:
    return Helper("_rt_ctc_loss_v2_grad", (*a[:5], Lit(int(node.attr["blank"])),
                                           Lit(bool(node.attr["zero_infinity"]))))


def _stacked(b: Any, x: Any, dim: int | None, size: int) -> Any:
    """``x`` with its examples along axis 0 (an unbatched ``x`` repeated ``size`` times)."""
    if dim is not None:
        return move_to_front(b, x, dim)
    shape = tensor_of(x.type).shape
    return b.broadcast_to(b.reshape(x, shape=(1,) + shape), shape=(size,) + shape)


def _folded(b: Any, args: Any, dims: Any, log_probs_at: int) -> tuple[list[Any], int]:
    """Every operand with the vmapped examples folded into the CTC batch: (T, V N, C)
    log probabilities, (V N, ...) for the rest; and the number V of examples."""
    size = batch_size(args, dims)
    out = []
    for i, (x, d) in enumerate(zip(args, dims)):
        x = _stacked(b, x, d, size)
        shape = tensor_of(x.type).shape
        if i == log_probs_at:  # (V, T, N, C) -> (T, V N, C)
            x = b.reshape(b.transpose(x, perm=(1, 0, 2, 3)),
                          shape=(shape[1], size * shape[2], shape[3]))
        else:
            x = b.reshape(x, shape=(size * shape[1],) + shape[2:])
        out.append(x)
    return out, size


def _batch_v2(b: Any, prim: Any, args: Any, dims: Any, **attrs: Any) -> tuple[Any, Any]:
    """vmap folds the examples into the sequences' batch: one CTC call for all."""
    folded, size = _folded(b, args, dims, 0)
    batch = tensor_of(folded[1].type).shape[0] // size
    out = b.emit(prim, *folded, **attrs)
    nll, alpha = b.getitem(out, 0), b.getitem(out, 1)
    rest = tensor_of(alpha.type).shape[1:]
    return b.tuple(b.reshape(nll, shape=(size, batch)),
                   b.reshape(alpha, shape=(size, batch) + rest)), (0, 0)


def _batch_v2_grad(b: Any, prim: Any, args: Any, dims: Any, **attrs: Any) -> tuple[Any, int]:
    folded, size = _folded(b, args, dims, 1)
    steps, total, classes = tensor_of(folded[1].type).shape
    grad = b.emit(prim, *folded, **attrs)  # (T, V N, C) -> (T, V, N, C)
    return b.reshape(grad, shape=(steps, size, total // size, classes)), 1


ctc_loss_v2_grad = register(Primitive(
    "CTCLossV2Grad", _v2_grad_infer, _v2_grad_impl, on_all_targets(ArrayExpr(_emit_v2_grad)),
    attrs=(Attr("blank", 0, (int,)), Attr("zero_infinity", False, (bool,))), cost=16,
    batch=_batch_v2_grad))


def _vjp_v2(b: Any, g: Any, log_probs: Any, targets: Any, input_lengths: Any,
            target_lengths: Any, *, out: Any, blank: int,
            zero_infinity: bool) -> tuple[Any, ...]:
    grad = b.emit(ctc_loss_v2_grad, b.getitem(g, 0), log_probs, targets, input_lengths,
                  target_lengths, b.getitem(out, 0), b.getitem(out, 1), blank=blank,
                  zero_infinity=zero_infinity)
    return (grad, None, None, None)


ctc_loss_v2 = register(Primitive(
    "CTCLossV2", _v2_infer, _v2_impl, on_all_targets(ArrayExpr(_emit_v2)),
    attrs=(Attr("blank", 0, (int,)), Attr("zero_infinity", False, (bool,))), cost=16,
    vjp=_vjp_v2, batch=_batch_v2))
