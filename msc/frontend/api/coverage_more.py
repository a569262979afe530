"""More of MindSpore's ops that are a short composition of ops msc has: distances
(``cdist``, ``pdist``, ``cosine_similarity``), band and conjugate-transpose matrix forms,
the elementwise losses of ``ops`` (``huber_loss``, ``soft_margin_loss``, ...), and the
primitive classes over them (``ops.Cdist(p)(x1, x2)``, ``ops.KLDivLoss(reduction)``).

Being compositions, they run eagerly and in graphs on both targets, with gradients and
vmap from the primitives they are built of.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.api import functional as F
from msc.frontend.api import functional_array as A
from msc.frontend.api.functional import _as_tensor, _checking
from msc.frontend.api.functional_math import softshrink
from msc.frontend.api.loss import _reduce, _reduction, binary_cross_entropy_with_logits
from msc.frontend.api.prim_classes import Primitive
from msc.common.tensor import Tensor, apply
from msc.ir import dtypes
from msc.ir.primitives import Op

__all__ = ["cosine_similarity", "cdist", "pdist", "adjoint", "matrix_band_part",
           "smooth_l1_loss", "huber_loss", "soft_margin_loss", "margin_ranking_loss",
           "hinge_embedding_loss", "cosine_embedding_loss", "kl_div", "binary_cross_entropy",
           "tensor_scatter_sub", "soft_shrink", "vander",
           "Cdist", "Pdist", "MatrixBandPart", "SmoothL1Loss", "SoftMarginLoss", "KLDivLoss",
           "BinaryCrossEntropy", "TensorScatterSub", "L2Normalize",
           "SigmoidCrossEntropyWithLogits", "EuclideanNorm"]


def _float_tensor(x: Any, op: str) -> Tensor:
    x = _as_tensor(x, op)
    if not x.dtype.is_float:
        with _checking(op):
            raise GraphTypeError(f"the input must be a float tensor, but got {x.dtype}")
    return x


def _number(value: Any, name: str, op: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise GraphTypeError(f"For '{op}', the '{name}' must be a number, but got "
                             f"{type(value).__name__}.")
    return float(value)


# --- distances ------------------------------------------------------------------------------


def cosine_similarity(x1: Any, x2: Any, dim: int = 1, eps: float = 1e-08) -> Any:
    """x1 . x2 / max(|x1| |x2|, eps) along ``dim``."""
    dot = F.sum(x1 * x2, dim)
    norms = A.norm(x1, 2, dim) * A.norm(x2, 2, dim)
    return dot / F.clamp(norms, eps)


def _p_norm(diff: Any, p: float, axis: int) -> Any:
    """The p-norm along ``axis``: 0 counts non-zeros, inf takes the largest."""
    if p == 0:
        return F.sum(F.cast(apply(Op.NotEqual, diff, 0), diff.dtype), axis)
    size = F.abs(diff)
    if p == float("inf"):
        return F.amax(size, axis)
    if p == 1:
        return F.sum(size, axis)
    if p == 2:
        return F.sqrt(F.sum(F.square(diff), axis))
    return F.sum(size ** p, axis) ** (1.0 / p)


def _check_p(p: Any, op: str) -> float:
    p = _number(p, "p", op)
    if p < 0:
        raise GraphValueError(f"For '{op}', the 'p' must be a non-negative value, but got "
                              f"{p}.")
    return p


def cdist(x1: Any, x2: Any, p: float = 2.0) -> Any:
    """The p-norm distance of each row of ``x1`` (..., P, M) to each row of ``x2``
    (..., R, M): (..., P, R)."""
    a, b = _float_tensor(x1, "cdist"), _float_tensor(x2, "cdist")
    p = _check_p(p, "cdist")
    if a.ndim not in (2, 3) or a.ndim != b.ndim or a.shape[-1] != b.shape[-1]:
        raise GraphValueError(f"For 'cdist', x1 and x2 must be 2-D or 3-D of the same rank "
                              f"and last dimension, but got {a.shape} and {b.shape}.")
    return _p_norm(F.expand_dims(a, -2) - F.expand_dims(b, -3), p, -1)


def pdist(input: Any, p: float = 2.0) -> Any:  # noqa: A002
    """The p-norm distances between the rows i < j of ``input`` (..., N, M), in row-major
    order of the pairs: (..., N (N - 1) / 2)."""
    x = _float_tensor(input, "pdist")
    p = _check_p(p, "pdist")
    if x.ndim < 2:
        raise GraphValueError(f"For 'pdist', the input must be at least 2-D, but got {x.ndim}.")
    first, second = np.triu_indices(x.shape[-2], 1)
    rows = (F.gather(x, Tensor(idx.astype(np.int32)), x.ndim - 2) for idx in (first, second))
    return _p_norm(next(rows) - next(rows), p, -1)


# --- matrices ---------------------------------------------------------------------------------


def adjoint(x: Any) -> Any:
    """The conjugate transpose of the last two dims (msc's tensors are real)."""
    return A.swapaxes(_as_tensor(x, "adjoint"), -1, -2)


def matrix_band_part(x: Any, lower: Any, upper: Any) -> Any:
    """Zeros outside the band of ``lower`` diagonals below and ``upper`` above the main one
    (a negative count keeps that whole triangle)."""
    x = _as_tensor(x, "matrix_band_part")
    if x.ndim < 2:
        raise GraphValueError(f"For 'MatrixBandPart', the input must be at least 2-D, but got "
                              f"{x.ndim}.")
    for name, value in (("lower", lower), ("upper", upper)):
        if isinstance(value, bool) or not isinstance(value, (int, Tensor)):
            raise GraphTypeError(f"For 'MatrixBandPart', the '{name}' must be an int or a "
                                 f"Tensor, but got {type(value).__name__}.")
    rows, cols = x.shape[-2:]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]  # j - i
    keep = apply(Op.LogicalAnd, _within(-offset, lower), _within(offset, upper))
    return F.select(F.broadcast_to(keep, x.shape), x, F.zeros_like(x))


def _within(offset: np.ndarray, count: Any) -> Any:
    """offset <= count, everywhere when count < 0; a constant for an int count."""
    if isinstance(count, int):
        return Tensor((offset <= count) | (count < 0))
    return apply(Op.LogicalOr, apply(Op.Less, count, 0),
                 apply(Op.LessEqual, Tensor(offset.astype(np.int64)), count))


def vander(x: Any, N: int | None = None) -> Any:  # noqa: N803
    """Columns x^(N-1), ..., x^1, x^0 of a 1-D ``x``."""
    if not isinstance(x, Tensor):
        raise GraphTypeError(f"For vander, x must be Tensor, but got {type(x)}")
    if x.ndim != 1:
        raise GraphValueError(f"For vander, x must be 1-D, but got dimension = {x.ndim}")
    n = x.shape[0] if N is None else N
    if isinstance(n, bool) or not isinstance(n, int):
        raise GraphTypeError(f"For vander, N must be an integer but got {type(n)}.")
    if n <= 0:
        raise GraphValueError(f"For vander, N must be greater than 0, but got {n}.")
    powers = Tensor(np.arange(n - 1, -1, -1, dtype=np.int64))  # int inputs give int64
    return F.pow(F.expand_dims(x, 1), F.expand_dims(powers, 0))


def tensor_scatter_sub(input_x: Any, indices: Any, updates: Any) -> Any:
    """``input_x`` less ``updates`` at the index tuples (repeats subtract again)."""
    return A.tensor_scatter_add(input_x, indices, -_as_tensor(updates, "TensorScatterSub"))


soft_shrink = softshrink


# --- losses -----------------------------------------------------------------------------------


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
    element count, 'batchmean' by the first dim."""
    if reduction not in ("none", "mean", "batchmean", "sum"):
        raise GraphValueError("For 'kl_div', the 'reduction' must be str and must be in "
                              f"'['none', 'mean', 'batchmean', 'sum']', but got '{reduction}'.")
    x = _float_tensor(logits, "kl_div")
    y = _as_tensor(labels, "kl_div")
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
    """-w (y log x + (1 - y) log(1 - x)), each log clamped at -100."""
    x = _float_tensor(logits, "BinaryCrossEntropy")
    reduction = _reduction(reduction, "BinaryCrossEntropy")
    loss = -(labels * F.clamp(F.log(x), -100.0) + (1 - labels) * F.clamp(F.log(1 - x), -100.0))
    return _reduce(loss if weight is None else loss * weight, reduction)


# --- primitive classes -----------------------------------------------------------------------


class Cdist(Primitive):
    def __init__(self, p: float = 2.0):
        super().__init__(p=_check_p(p, "Cdist"))

    def __call__(self, x1: Any, x2: Any) -> Any:
        return cdist(x1, x2, self.attrs["p"])


class Pdist(Primitive):
    def __init__(self, p: float = 2.0):
        super().__init__(p=_check_p(p, "Pdist"))

    def __call__(self, x: Any) -> Any:
        return pdist(x, self.attrs["p"])


class MatrixBandPart(Primitive):
    def __call__(self, x: Any, lower: Any, upper: Any) -> Any:
        return matrix_band_part(x, lower, upper)


class TensorScatterSub(Primitive):
    def __call__(self, input_x: Any, indices: Any, updates: Any) -> Any:
        return tensor_scatter_sub(input_x, indices, updates)


class _ReducedLoss(Primitive):
    """A loss class whose ``reduction`` is checked when it is made."""

    def __init__(self, reduction: str = "mean", **attrs: Any):
        super().__init__(reduction=_reduction(reduction, type(self).__name__), **attrs)


class SmoothL1Loss(_ReducedLoss):
    def __init__(self, beta: float = 1.0, reduction: str = "none"):
        super().__init__(reduction, beta=beta)

    def __call__(self, prediction: Any, target: Any) -> Any:
        return smooth_l1_loss(prediction, target, self.attrs["beta"], self.attrs["reduction"])


class SoftMarginLoss(_ReducedLoss):
    def __call__(self, input: Any, target: Any) -> Any:  # noqa: A002
        return soft_margin_loss(input, target, self.attrs["reduction"])


class BinaryCrossEntropy(_ReducedLoss):
    def __call__(self, logits: Any, labels: Any, weight: Any = None) -> Any:
        return binary_cross_entropy(logits, labels, weight, self.attrs["reduction"])


class KLDivLoss(Primitive):
    def __init__(self, reduction: str = "mean"):
        if reduction not in ("none", "mean", "sum", "batchmean"):
            raise GraphValueError(f"For 'KLDivLoss', the 'reduction' must be in ['none', "
                                  f"'mean', 'sum', 'batchmean'], but got {reduction}.")
        super().__init__(reduction=reduction)

    def __call__(self, logits: Any, labels: Any) -> Any:
        return kl_div(logits, labels, self.attrs["reduction"])


class SigmoidCrossEntropyWithLogits(Primitive):
    def __call__(self, logits: Any, label: Any) -> Any:
        return binary_cross_entropy_with_logits(logits, label, reduction="none")


class L2Normalize(Primitive):
    """x / sqrt(max(sum(x^2, axis), epsilon))."""

    def __init__(self, axis: Any = 0, epsilon: float = 1e-4):
        super().__init__(axis=axis, epsilon=_number(epsilon, "epsilon", "L2Normalize"))

    def __call__(self, x: Any) -> Any:
        squares = F.sum(F.square(_float_tensor(x, "L2Normalize")), self.attrs["axis"], True)
        return x / F.sqrt(F.clamp(squares, self.attrs["epsilon"]))


class EuclideanNorm(Primitive):
    """sqrt(sum(x^2)) over ``axes``."""

    def __init__(self, keep_dims: bool = False):
        super().__init__(keep_dims=bool(keep_dims))

    def __call__(self, x: Any, axes: Any) -> Any:
        axes = tuple(axes.asnumpy().tolist()) if isinstance(axes, Tensor) else axes
        x = _float_tensor(x, "EuclideanNorm")
        return F.sqrt(F.sum(F.square(x), axes, self.attrs["keep_dims"]))
