"""MindSpore's neural-network functions: the activations that need argument handling or
are compositions (``ops.leaky_relu``, ``ops.prelu``, ``ops.glu``, ...), ``ops.dropout``,
``ops.lrn`` and ``ops.channel_shuffle``, and batch and group normalisation
(``ops.batch_norm``, ``ops.group_norm``), and ``ops.mirror_pad``.

Everything is composed from primitives that have gradient and batching rules, so a
training step differentiates through batch statistics with no rule of its own, and the
element-wise tail fuses in generated code. Training-mode batch norm writes the moving
statistics with ``ops.assign`` (effects in program order in a graph); the moving
variance takes the unbiased batch variance, the output is normalised with the biased
one, as MindSpore does. Float16 inputs are normalised in float32 and the result cast back.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Parameter, SymTensor, Tensor, apply
from msc.errors import GraphTypeError, GraphValueError, ShapeError, UnsupportedSyntaxError
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc._checkparam import _bool, _float, _int
from msc.ops import functional as F
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.image_func import _pad_pairs, _paddings_pairs
from msc.ops.function.manipulation_func import _fail
from msc.ops.function.math_func import _float_input, _float_only, _like, _numeric_input, _where
from msc.ops.function.random_func import uniform_draw
from msc.ops.function.side_effect_func import assign

_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805


# --- activations ----------------------------------------------------------------------------


def _with_slope(y: Any, x: Any, slope: Any) -> Any:
    """``y`` whose gradient with respect to ``x`` is ``slope`` (computed from ``x``, no
    gradient of its own): MindSpore's conventions at the kinks of piecewise-linear
    activations (``slope`` is nonzero only where ``x`` is finite, so the correction term
    is exactly zero)."""
    slope = F.stop_gradient(slope)
    t = apply(Op.Mul, _where(apply(Op.NotEqual, slope, 0), x, F.zeros_like(x)), slope)
    return apply(Op.Add, F.stop_gradient(y), apply(Op.Sub, t, F.stop_gradient(t)))


def _kinked(x: Any, y: Any, lo: Any, hi: Any, at_lo: float, at_hi: float, inside: Any,
            below: Any = 0.0) -> Any:
    """``y`` (a function of ``x`` linear with slope ``inside`` on (lo, hi), ``below``
    under lo and 0 over hi) with the gradient ``at_lo``/``at_hi`` at the kinks."""
    one = F.ones_like(x)
    slope = _where(apply(Op.Greater, x, lo), _where(apply(Op.Less, x, hi), one * inside,
                                                    one * 0.0), one * below)
    slope = _where(apply(Op.Equal, x, lo), one * at_lo, slope)
    if hi is not None:
        slope = _where(apply(Op.Equal, x, hi), one * at_hi, slope)
    return _with_slope(y, x, slope)


def leaky_relu(input: Any, alpha: float = 0.2) -> Any:
    """x where x > 0, ``alpha * x`` elsewhere; in the input's dtype. The gradient at 0 is
    (1 + alpha) / 2, MindSpore's."""
    x = _as_tensor(input, "leaky_relu")
    y = _like(_where(apply(Op.Greater, x, 0), x, apply(Op.Mul, x, alpha)), x)
    if not x.dtype.is_float:
        return y
    return _kinked(x, y, 0.0, float("inf"), (1 + alpha) / 2, 1.0, 1.0, alpha)


def elu(input_x: Any, alpha: float = 1.0) -> Any:
    return apply(Op.Elu, input_x, alpha=_attr(alpha))


def selu(input_x: Any) -> Any:
    return apply(Op.Mul, apply(Op.Elu, input_x, alpha=_SELU_ALPHA), _SELU_SCALE)


def celu(x: Any, alpha: float = 1.0) -> Any:
    """``alpha * elu(x / alpha)``: x where x > 0, alpha * (exp(x / alpha) - 1) elsewhere."""
    if alpha == 0:
        with _checking("CeLU"):
            raise GraphValueError("alpha must not be 0")
    x = _float_input(x, "CeLU")
    return apply(Op.Mul, apply(Op.Elu, apply(Op.Div, x, alpha), alpha=1.0), alpha)


def _attr(value: Any) -> Any:
    """A number attribute as a float, so equal calls build equal nodes (infer checks
    anything else)."""
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def softplus(input: Any, beta: float = 1, threshold: float = 20) -> Any:
    return apply(Op.Softplus, input, beta=_attr(beta), threshold=_attr(threshold))


def logsigmoid(x: Any) -> Any:
    """log(sigmoid(x)) = -softplus(-x), finite for very negative x."""
    return apply(Op.Neg, apply(Op.Softplus, apply(Op.Neg, x), beta=1.0, threshold=20.0))


def mish(x: Any) -> Any:
    """x * tanh(softplus(x))."""
    return apply(Op.Mul, x, apply(Op.Tanh, apply(Op.Softplus, x, beta=1.0, threshold=20.0)))


def silu(input: Any) -> Any:
    """x * sigmoid(x)."""
    x = _float_input(input, "silu")
    return apply(Op.Mul, x, apply(Op.Sigmoid, x))


def softsign(x: Any) -> Any:
    """x / (1 + |x|)."""
    x = _float_input(x, "Softsign")
    return apply(Op.Div, x, apply(Op.Add, apply(Op.Abs, x), 1))


def hardsigmoid(input: Any) -> Any:
    """relu6(x + 3) / 6; integer inputs divide as integers (MindSpore's HSigmoid)."""
    x = _numeric_input(input, "HSigmoid")
    six = apply(Op.ClipByValue, apply(Op.Add, x, 3), 0, 6)
    return apply(Op.Div if x.dtype.is_float else Op.FloorDiv, six, 6)


def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0) -> Any:
    """The input clipped to [min_val, max_val], in its dtype; the gradient at either
    bound is 1/2 (MindSpore's HardtanhGrad)."""
    x = _as_tensor(input, "hardtanh")
    y = apply(Op.ClipByValue, x, min_val, max_val)
    if not x.dtype.is_float:
        return y
    return _kinked(x, y, float(min_val), float(max_val), 0.5, 0.5, 1.0)


def relu6(x: Any) -> Any:
    """min(max(x, 0), 6); the gradient is 1 on (0, 6], MindSpore's ReLU6Grad."""
    x = _float_input(x, "ReLU6")
    return _kinked(x, apply(Op.ClipByValue, x, 0, 6), 0.0, 6.0, 0.0, 1.0, 1.0)


def softshrink(input: Any, lambd: float = 0.5) -> Any:
    """x moved ``lambd`` towards 0, and 0 within ``lambd`` of it."""
    x = _float_input(input, "SoftShrink")
    if lambd < 0:
        with _checking("SoftShrink"):
            raise GraphValueError(f"lambd must be at least 0, but got {lambd}")
    low = _where(apply(Op.Less, x, -lambd), apply(Op.Add, x, lambd), 0)
    return _where(apply(Op.Greater, x, lambd), apply(Op.Sub, x, lambd), low)


def tanhshrink(input: Any) -> Any:
    """x - tanh(x); integers give float32."""
    x = _numeric_input(input, "Tanhshrink")
    return apply(Op.Sub, x, apply(Op.Tanh, x))


def threshold(input: Any, thr: float, value: float) -> Any:
    """x where x > thr, ``value`` elsewhere; in the input's dtype."""
    x = _numeric_input(input, "threshold")
    return _like(_where(apply(Op.Greater, x, thr), x, value), x)


def glu(x: Any, axis: int = -1) -> Any:
    """The first half of ``x`` along ``axis`` gated by the sigmoid of the second."""
    first, second = apply(Op.Split, _float_input(x, "GLU"), axis=axis, output_num=2)
    return apply(Op.Mul, first, apply(Op.Sigmoid, second))


def softmin(x: Any, axis: Any = -1, *, dtype: dtypes.DType | None = None) -> Any:
    """softmax(-x)."""
    x = _as_tensor(x, Op.Softmax)
    return F.softmax(apply(Op.Neg, x if dtype is None else F.cast(x, dtype)), axis)


def prelu(input: Any, weight: Any) -> Any:
    """x where x > 0, ``weight * x`` elsewhere; ``weight`` has one entry, or one per
    channel (axis 1)."""
    x, w = _float_input(input, "PReLU"), _as_tensor(weight, "PReLU")
    channels = x.shape[1] if x.ndim >= 2 else 1
    with _checking("PReLU"):
        if w.dtype not in (dtypes.float16, dtypes.float32):
            raise GraphTypeError(f"weight must be a float16 or float32 Tensor, but got "
                                 f"{w.dtype}")
        if w.ndim != 1 or w.shape[0] not in (1, channels):
            raise ShapeError(f"weight must be 1-D with 1 or {channels} elements (the "
                             f"input's channels), but got shape {w.shape}")
    if w.shape[0] > 1:
        w = F.reshape(w, (channels,) + (1,) * (x.ndim - 2))
    return _where(apply(Op.Greater, x, 0), x, apply(Op.Mul, x, _like(w, x)))


def fast_gelu(x: Any) -> Any:
    """GELU's sigmoid approximation, written so that no exp overflows:
    ``x * exp(0.851 (x - |x|)) / (1 + exp(-1.702 |x|))``."""
    t = _float_only(x, "fast_gelu")
    ax = apply(Op.Abs, t)
    return t * apply(Op.Exp, 0.851 * (t - ax)) / (1.0 + apply(Op.Exp, -1.702 * ax))


soft_shrink = softshrink


def channel_shuffle(x: Any, groups: int) -> Any:
    """Channels (dim 1) regrouped: channel g * (C / groups) + i goes to i * groups + g."""
    x = _as_tensor(x, "ChannelShuffle")
    if x.ndim <= 3:
        _fail("ChannelShuffle", f"expect input with > 3 dims, but got {x.ndim}.", GraphTypeError)
    if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0 or \
            x.shape[1] % groups:
        _fail("ChannelShuffle", f"the 'groups' must be a positive int dividing the channel "
                                f"count {x.shape[1]}, but got {groups!r}.")
    n, c, rest = x.shape[0], x.shape[1], x.shape[2:]
    split = F.reshape(x, (n, groups, c // groups, *rest))
    order = (0, 2, 1, *range(3, split.ndim))
    return F.reshape(F.transpose(split, order), x.shape)


def lrn(x: Any, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0,
        beta: float = 0.5, norm_region: str = "ACROSS_CHANNELS") -> Any:
    """x / (bias + alpha * sum of x^2 over the channels within depth_radius) ** beta."""
    x = _as_tensor(x, "LRN")
    if norm_region != "ACROSS_CHANNELS":
        _fail("LRN", f"the 'norm_region' must be 'ACROSS_CHANNELS', but got {norm_region!r}.")
    if x.ndim != 4 or not x.dtype.is_float:
        _fail("LRN", f"the input must be a 4-D float tensor, but got {x.dtype} of shape "
                     f"{x.shape}.", GraphTypeError)
    channels = np.arange(x.shape[1])
    band = np.abs(channels[:, None] - channels[None, :]) <= depth_radius
    last = F.transpose(F.square(x), (0, 2, 3, 1))
    window = F.transpose(F.matmul(last, Tensor(band.astype(x.dtype.np))), (0, 3, 1, 2))
    return x / (bias + alpha * window) ** beta


def dropout(input: Any, p: float = 0.5, training: bool = True, seed: int | None = None) -> Any:
    """Zero each element with probability ``p`` and scale the rest by 1 / (1 - p)."""
    x = _as_tensor(input, "dropout")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise GraphValueError(f"For 'dropout', the 'p' must be a number in range [0, 1], "
                              f"but got {p}.", user_loc())
    if not training or p == 0:
        return x
    if not x.dtype.is_float:
        raise GraphTypeError(f"For 'dropout', the dtype of 'input' must be float, but got "
                             f"{x.dtype}.", user_loc())
    if p == 1:
        return x * 0
    keep = F.cast(uniform_draw(x.shape, seed) < 1.0 - p, x.dtype)
    return x * keep / (1.0 - p)


def _channel_dropout(input: Any, p: float, training: bool, rank: int, op: str) -> Any:
    """Zero whole channels (axis 1 of a batched input, axis 0 of an unbatched one) with
    probability ``p`` and scale the rest by 1 / (1 - p)."""
    x = _as_tensor(input, op)
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise GraphValueError(f"For '{op}', the 'p' must be a number in range [0, 1], but "
                              f"got {p}.", user_loc())
    if x.ndim not in (rank - 1, rank):
        raise GraphValueError(f"For '{op}', the input must be {rank - 1}-D or {rank}-D, but "
                              f"got {x.ndim}-D.", user_loc())
    if not training or p == 0:
        return x
    if p == 1:
        return x * 0
    lead = 2 if x.ndim == rank else 1
    keep = F.cast(uniform_draw(x.shape[:lead] + (1,) * (x.ndim - lead)) < 1.0 - p, x.dtype)
    return x * keep / (1.0 - p)


def dropout1d(input: Any, p: float = 0.5, training: bool = True) -> Any:  # noqa: A002
    return _channel_dropout(input, p, training, 3, "dropout1d")


def dropout2d(input: Any, p: float = 0.5, training: bool = True) -> Any:  # noqa: A002
    return _channel_dropout(input, p, training, 4, "dropout2d")


def dropout3d(input: Any, p: float = 0.5, training: bool = True) -> Any:  # noqa: A002
    return _channel_dropout(input, p, training, 5, "dropout3d")


_HALF_OR_SINGLE = (dtypes.float16, dtypes.float32)


# --- batch and group normalisation: argument checks (MindSpore's exception types) ---------


def _unit_float(value: Any, arg: str, op: str, low_open: bool) -> float:
    """A float in (0, 1] (``low_open``) or [0, 1]: TypeError for other types, ValueError
    outside the range, as MindSpore's BatchNorm checks epsilon and momentum."""
    if isinstance(value, bool) or not isinstance(value, float):
        raise GraphTypeError(f"For '{op}', the '{arg}' must be a float, but got "
                             f"{type(value).__name__}.", user_loc())
    if not (0 < value <= 1 if low_open else 0 <= value <= 1):
        span = "(0, 1]" if low_open else "[0, 1]"
        raise GraphValueError(f"For '{op}', the '{arg}' must be in {span}, but got {value}.",
                              user_loc())
    return value


def _float_tensor(x: Any, arg: str, op: str, allowed: tuple[dtypes.DType, ...]) -> Any:
    if not isinstance(x, Tensor):
        raise GraphTypeError(f"For '{op}', the '{arg}' must be a Tensor, but got "
                             f"{type(x).__name__}.", user_loc())
    if x.dtype not in allowed:
        names = ", ".join(str(d) for d in allowed)
        raise GraphTypeError(f"For '{op}', the dtype of '{arg}' must be one of {names}, but "
                             f"got {x.dtype}.", user_loc())
    return x


def _channel_params(x: Any, params: dict[str, Any], op: str) -> None:
    """Each of ``params`` must be a 1-d Tensor with one value per channel (``x.shape[1]``)."""
    for arg, p in params.items():
        if not isinstance(p, Tensor):
            raise GraphTypeError(f"For '{op}', the '{arg}' must be a Tensor, but got "
                                 f"{type(p).__name__}.", user_loc())
        if tuple(p.shape) != (x.shape[1],):
            raise GraphValueError(f"For '{op}', the shape of '{arg}' must be "
                                  f"({x.shape[1]},), the input's channel dimension, but got "
                                  f"{tuple(p.shape)}.", user_loc())


# --- batch normalisation ------------------------------------------------------------------


def _as(x: Any, dtype: dtypes.DType) -> Any:
    return x if x.dtype == dtype else F.cast(x, dtype)


def _per_channel(v: Any, ndim: int, dtype: dtypes.DType) -> Any:
    """A (C,) tensor as (1, C, 1, ...) in ``dtype``, to broadcast along axis 1."""
    return F.reshape(_as(v, dtype), (1, v.shape[0]) + (1,) * (ndim - 2))


def _compute_dtype(x: Any) -> dtypes.DType:
    return dtypes.float32 if x.dtype == dtypes.float16 else x.dtype


def _normalise(x: Any, scale: Any, bias: Any, mean: Any, variance: Any,
               training: bool, eps: float) -> tuple[Any, Any, Any]:
    """(y, mean, variance): with batch statistics over every axis but 1 (biased variance)
    in training, with ``mean`` and ``variance`` otherwise; y in x's dtype."""
    dt, ndim = _compute_dtype(x), x.ndim
    xc = _as(x, dt)
    if training:
        axes = (0,) + tuple(range(2, ndim))
        mean = F.mean(xc, axes, True)
        centred = xc - mean
        variance = F.mean(apply(Op.Square, centred), axes, True)
    else:
        # NOTE: MindSpore 2.10 defines the gradient with respect to the given statistics
        # as zero (its BatchNormGrad returns zeros for them); training follows MindSpore.
        mean = _per_channel(F.stop_gradient(mean), ndim, dt)
        variance = _per_channel(F.stop_gradient(variance), ndim, dt)
        centred = xc - mean
    y = centred * apply(Op.Rsqrt, variance + eps) * _per_channel(scale, ndim, dt) \
        + _per_channel(bias, ndim, dt)
    return _as(y, x.dtype), mean, variance


def _update_moving(moving: Any, batch: Any, weight: float) -> Any:
    """``moving = (1 - weight) * moving + weight * batch``, written in place when
    ``moving`` is a Parameter (a plain Tensor is left as it is)."""
    if not isinstance(moving, Parameter):
        return None
    batch = F.reshape(batch, moving.shape)
    new = moving * (1.0 - weight) + _as(batch, moving.dtype) * weight
    return assign(moving, _as(new, moving.dtype))


def _batch_norm(x: Any, scale: Any, bias: Any, mean: Any, variance: Any, training: bool,
                momentum: float, eps: float) -> tuple[Any, Any, Any]:
    """Normalise; in training also move ``mean``/``variance`` towards the batch's
    statistics by ``momentum``. Returns (y, batch mean, biased batch variance)."""
    y, batch_mean, batch_var = _normalise(x, scale, bias, mean, variance, training, eps)
    if training:
        count = x.size // x.shape[1]
        unbiased = batch_var * (count / (count - 1) if count > 1 else float("inf"))
        _update_moving(mean, batch_mean, momentum)
        _update_moving(variance, unbiased, momentum)
    return y, batch_mean, batch_var


def _check_batch_norm(op: str, x: Any, params: dict[str, Any]) -> None:
    _float_tensor(x, "input_x", op, _HALF_OR_SINGLE)
    if not 2 <= x.ndim <= 4:
        raise GraphValueError(f"For '{op}', the rank of 'input_x' must be in [2, 4], but got "
                              f"{x.ndim}.", user_loc())
    _channel_params(x, params, op)


def batch_norm(input_x: Any, running_mean: Any, running_var: Any, weight: Any, bias: Any,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Any:
    """``(x - mean) / sqrt(var + eps) * weight + bias`` per channel (axis 1); ``training``
    uses the batch's statistics and moves the running ones (Parameters) towards them:
    ``running = (1 - momentum) * running + momentum * batch``."""
    _bool(training, "training", "batch_norm")
    momentum = _unit_float(momentum, "momentum", "BatchNorm", low_open=False)
    eps = _unit_float(eps, "eps", "BatchNorm", low_open=True)
    _check_batch_norm("BatchNorm", input_x, {"running_mean": running_mean,
                                             "running_var": running_var, "weight": weight,
                                             "bias": bias})
    return _batch_norm(input_x, weight, bias, running_mean, running_var, training,
                       momentum, eps)[0]


# --- group normalisation ----------------------------------------------------------------------


def group_norm(input: Any, num_groups: int, weight: Any = None, bias: Any = None,
               eps: float = 1e-5) -> Any:
    """Normalise each of ``num_groups`` groups of channels (axis 1) of each example over
    its channels and spatial axes, then scale and shift per channel."""
    op = "GroupNorm"
    x = _float_tensor(input, "input", op, _HALF_OR_SINGLE + (dtypes.float64,))
    num_groups = _int(num_groups, "num_groups", op)
    eps = _float(eps, "eps", op)
    if x.ndim < 2:
        raise GraphValueError(f"For '{op}', the input must have at least 2 dims, but got "
                              f"{x.ndim}.", user_loc())
    channels = x.shape[1]
    if num_groups < 1:
        raise GraphValueError(f"For '{op}', the 'num_groups' must be greater than 0, but got "
                              f"{num_groups}.", user_loc())
    if channels % num_groups:
        raise GraphValueError(f"For '{op}', the 'num_channels' must be divided by "
                              f"'num_groups', but got 'num_channels': {channels}, "
                              f"'num_groups': {num_groups}.", user_loc())
    dt = _compute_dtype(x)
    weight = F.ones((channels,), dt) if weight is None else weight
    bias = F.zeros((channels,), dt) if bias is None else bias
    _channel_params(x, {"weight": weight, "bias": bias}, op)
    rows = F.reshape(_as(x, dt), (x.shape[0], num_groups, x.size // (x.shape[0] * num_groups)))
    unit = rows.shape[2:]
    normed = apply(Op.LayerNorm, rows, F.ones(unit, dt), F.zeros(unit, dt), begin_norm_axis=2,
                   begin_params_axis=2, epsilon=eps)
    y = F.reshape(normed, x.shape) * _per_channel(weight, x.ndim, dt) + \
        _per_channel(bias, x.ndim, dt)
    return _as(y, x.dtype)


_MIRROR_MODES = {"REFLECT": "reflect", "SYMMETRIC": "symmetric"}


def mirror_pad(input_x: Any, paddings: Any, mode: str) -> Any:
    """Pad every axis by mirroring: ``paddings`` is a constant (rank, 2) int tensor (or
    nested pairs); 'REFLECT' leaves the edge out of the mirror image, 'SYMMETRIC' repeats
    it. The padded shape is static in msc, so a tensor computed in a graph is refused."""
    if mode not in _MIRROR_MODES:
        raise GraphValueError(f"For 'MirrorPad', the 'mode' must be in {list(_MIRROR_MODES)}, "
                              f"but got {mode!r}.")
    if isinstance(paddings, SymTensor):
        raise UnsupportedSyntaxError("For 'MirrorPad', 'paddings' must be a constant tensor: "
                                     "padded shapes are static in msc", user_loc())
    values = np.asarray(paddings.asnumpy() if isinstance(paddings, Tensor) else paddings)
    pairs = tuple(tuple(int(v) for v in row) for row in values.reshape(-1, 2))
    return _pad_pairs(input_x, _paddings_pairs(pairs, "MirrorPad"), _MIRROR_MODES[mode],
                      "MirrorPad")


__all__ = ["leaky_relu", "elu", "selu", "celu", "softplus", "logsigmoid", "mish", "silu",
           "softsign", "hardsigmoid", "hardtanh", "relu6", "softshrink", "tanhshrink", "threshold",
           "glu", "softmin", "prelu", "batch_norm", "group_norm", "dropout", "fast_gelu",
           "soft_shrink", "channel_shuffle", "lrn", "dropout1d", "dropout2d", "dropout3d",
           "mirror_pad"]
