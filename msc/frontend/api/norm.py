"""Batch, group and layer normalisation with MindSpore 2.10's signatures:
``ops.batch_norm``, ``ops.BatchNorm`` (five outputs), ``ops.group_norm``,
``nn.BatchNorm1d/2d/3d``, ``nn.GroupNorm`` and ``nn.LayerNorm``.

Everything is composed from primitives that have gradient and batching rules (means,
``Rsqrt``, element-wise arithmetic; ``LayerNorm`` over the groups for group norm), so a
training step differentiates through batch statistics with no rule of its own, and the
element-wise tail fuses in generated code. Training mode writes the moving statistics
with ``ops.assign`` (effects in program order in a graph); the moving variance takes the
unbiased batch variance, the output is normalised with the biased one, as MindSpore does.
Float16 inputs are normalised in float32 and the result cast back.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.api import functional as F
from msc.frontend.api.cell import Cell
from msc.frontend.api.effects import assign
from msc.common.initializer import initializer
from msc.frontend.api.layers import _bool, _check_init_shape, _float, _int
from msc.frontend.api.prim_classes import Primitive
from msc.common.tensor import Parameter, Tensor, apply
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ir.primitives import Op

__all__ = ["batch_norm", "group_norm", "BatchNorm", "BatchNorm1d", "BatchNorm2d",
           "BatchNorm3d", "GroupNorm", "LayerNorm"]

_HALF_OR_SINGLE = (dtypes.float16, dtypes.float32)


# --- argument checks (MindSpore's exception types) ----------------------------------------


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


# --- the computation ------------------------------------------------------------------------


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
        mean, variance = _per_channel(mean, ndim, dt), _per_channel(variance, ndim, dt)
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


class BatchNorm(Primitive):
    """``ops.BatchNorm(is_training, epsilon, momentum, data_format)(x, scale, bias, mean,
    variance)`` -> (y, batch_mean, batch_variance, reserve_space_1, reserve_space_2).

    NOTE: the four statistics outputs are what MindSpore 2.10 returns on CPU: in training
    reserve_space_1/2 hold the batch mean and biased variance and batch_mean and
    batch_variance are zeros; in inference all four are zeros."""

    def __init__(self, is_training: bool = False, epsilon: float = 1e-5,
                 momentum: float = 0.1, data_format: str = "NCHW"):
        super().__init__(is_training=is_training, epsilon=epsilon, momentum=momentum,
                         data_format=data_format)
        self.is_training = _bool(is_training, "is_training", self.name)
        self.epsilon = _unit_float(epsilon, "epsilon", self.name, low_open=True)
        self.momentum = _unit_float(momentum, "momentum", self.name, low_open=False)
        if data_format not in ("NCHW", "NHWC"):
            raise GraphValueError(f"For '{self.name}', the 'data_format' must be 'NCHW' or "
                                  f"'NHWC', but got {data_format!r}.", user_loc())
        if data_format == "NHWC":
            raise GraphValueError(f"For '{self.name}', the 'NHWC' format is only supported "
                                  "on GPU.", user_loc())

    def __call__(self, input_x: Any, scale: Any, bias: Any, mean: Any,
                 variance: Any) -> tuple[Any, ...]:
        _check_batch_norm(self.name, input_x, {"scale": scale, "bias": bias, "mean": mean,
                                               "variance": variance})
        y, batch_mean, batch_var = _batch_norm(input_x, scale, bias, mean, variance,
                                               self.is_training, self.momentum,
                                               self.epsilon)
        zeros = F.zeros((input_x.shape[1],), scale.dtype)
        if not self.is_training:
            return y, zeros, zeros, zeros, zeros
        return (y, zeros, zeros, _as(F.reshape(batch_mean, zeros.shape), scale.dtype),
                _as(F.reshape(batch_var, zeros.shape), scale.dtype))


# --- nn.BatchNorm1d/2d/3d ---------------------------------------------------------------------


class _BatchNorm(Cell):
    """The BatchNorm layers' common part. ``momentum`` is MindSpore's: the weight of the old
    moving statistics (the attribute holds ``1 - momentum``, the batch's weight, as in
    MindSpore). ``use_batch_statistics`` None follows ``set_train``; True always uses
    (and tracks) batch statistics, False never."""

    ranks: tuple[int, ...] = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9,
                 affine: bool = True, gamma_init: Any = "ones", beta_init: Any = "zeros",
                 moving_mean_init: Any = "zeros", moving_var_init: Any = "ones",
                 use_batch_statistics: bool | None = None, data_format: str = "NCHW",
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        cls = self.cls_name
        self.num_features = _int(num_features, "num_features", cls)
        if num_features < 1:
            raise GraphValueError(f"For '{cls}', the 'num_features' must be at least 1, but "
                                  f"got {num_features}.", user_loc())
        momentum = _float(momentum, "momentum", cls, ints=True)
        if not 0 <= momentum <= 1:
            raise GraphValueError(f"For '{cls}', the 'momentum' must be a number in range "
                                  f"[0, 1], but got {momentum}.", user_loc())
        if data_format not in ("NCHW", "NHWC"):
            raise GraphValueError(f"For '{cls}', the 'format' must be 'NCHW' or 'NHWC', but "
                                  f"got {data_format!r}.", user_loc())
        if data_format == "NHWC":
            raise GraphValueError(f"For '{cls}', the 'NHWC' format is only supported on GPU.",
                                  user_loc())
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise GraphValueError(f"For '{cls}', the 'use_batch_statistics' must be a boolean "
                                  f"value or None, but got {use_batch_statistics}.", user_loc())
        self.eps = _unit_float(eps, "eps", cls, low_open=True)
        self.momentum = 1.0 - momentum
        self.use_batch_statistics = use_batch_statistics
        self.format = data_format
        affine = _bool(affine, "affine", cls)
        shape = (num_features,)

        def weight(init: Any, arg: str, name: str, trainable: bool) -> Parameter:
            _check_init_shape(init, shape, arg, cls)
            return Parameter(initializer(init, shape, dtype), name=name,
                             requires_grad=trainable)

        # NOTE: MindSpore names the moving statistics "mean" and "variance" and renames
        # them to the attribute path inside a parent cell ("bn.moving_mean"); msc keeps a
        # Parameter's own name, so they are named by their attributes from the start.
        self.moving_mean = weight(moving_mean_init, "moving_mean_init", "moving_mean", False)
        self.moving_variance = weight(moving_var_init, "moving_var_init", "moving_variance",
                                      False)
        self.gamma = weight(gamma_init, "gamma_init", "gamma", affine)
        self.beta = weight(beta_init, "beta_init", "beta", affine)

    def construct(self, x: Any) -> Any:
        _float_tensor(x, "x", self.cls_name, _HALF_OR_SINGLE)
        if x.ndim not in self.ranks:
            want = " or ".join(str(r) for r in self.ranks)
            raise GraphValueError(f"For '{self.cls_name}', the input must have {want} dims, "
                                  f"but got {x.ndim}.", user_loc())
        _channel_params(x, {"gamma": self.gamma}, "BatchNorm")
        training = self.training if self.use_batch_statistics is None \
            else self.use_batch_statistics
        return _batch_norm(x, self.gamma, self.beta, self.moving_mean, self.moving_variance,
                           training, self.momentum, self.eps)[0]

    def extend_repr(self) -> str:
        return (f"num_features={self.num_features}, eps={self.eps}, momentum="
                f"{1.0 - self.momentum}, gamma={self.gamma}, beta={self.beta}, moving_mean="
                f"{self.moving_mean}, moving_variance={self.moving_variance}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs over every axis but C.

    Example:
        >>> bn = nn.BatchNorm1d(2)
        >>> bn(ms.Tensor(np.ones((3, 2), np.float32))).shape
        (3, 2)
    """

    ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) inputs over N, H and W."""

    ranks = (4,)


class BatchNorm3d(Cell):
    """Batch normalisation of (N, C, D, H, W) inputs: a ``BatchNorm2d`` (the child ``bn2d``,
    so the Parameters are ``bn2d.gamma``, ... as in MindSpore) on (N, C, D*H, W)."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9,
                 affine: bool = True, gamma_init: Any = "ones", beta_init: Any = "zeros",
                 moving_mean_init: Any = "zeros", moving_var_init: Any = "ones",
                 use_batch_statistics: bool | None = None,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init,
                                moving_mean_init, moving_var_init, use_batch_statistics,
                                "NCHW", dtype)

    def construct(self, x: Any) -> Any:
        if not isinstance(x, Tensor) or x.ndim != 5:
            got = x.ndim if isinstance(x, Tensor) else type(x).__name__
            raise GraphValueError(f"For '{self.cls_name}', the input must have 5 dims, but got "
                                  f"{got}.", user_loc())
        n, c, d, h, w = x.shape
        return F.reshape(self.bn2d(F.reshape(x, (n, c, d * h, w))), x.shape)


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


class GroupNorm(Cell):
    """``nn.GroupNorm(num_groups, num_channels, eps, affine, gamma_init, beta_init, dtype)``:
    ``ops.group_norm`` with the Parameters ``gamma`` and ``beta`` (cast to the input's
    dtype)."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, gamma_init: Any = "ones", beta_init: Any = "zeros",
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        cls = self.cls_name
        self.num_groups = _int(num_groups, "num_groups", cls, positive=True)
        self.num_channels = _int(num_channels, "num_channels", cls, positive=True)
        if num_channels % num_groups:
            raise GraphValueError(f"For '{cls}', the 'num_channels' must be divided by "
                                  f"'num_groups', but got 'num_channels': {num_channels}, "
                                  f"'num_groups': {num_groups}.", user_loc())
        self.eps = _float(eps, "eps", cls)
        self.affine = _bool(affine, "affine", cls)
        shape = (num_channels,)
        for init, arg in ((gamma_init, "gamma_init"), (beta_init, "beta_init")):
            _check_init_shape(init, shape, arg, cls)
        self.gamma = Parameter(initializer(gamma_init, shape, dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, shape, dtype), name="beta",
                              requires_grad=affine)

    def construct(self, x: Any) -> Any:
        _float_tensor(x, "x", self.cls_name, _HALF_OR_SINGLE + (dtypes.float64,))
        if x.ndim < 2 or x.shape[1] != self.num_channels:
            raise GraphValueError(f"For '{self.cls_name}', the channel (the second dim of the "
                                  f"input 'x') must be equal to num_channels "
                                  f"{self.num_channels}, but got the shape {x.shape}.",
                                  user_loc())
        return group_norm(x, self.num_groups, _as(self.gamma, x.dtype),
                          _as(self.beta, x.dtype), self.eps)

    def extend_repr(self) -> str:
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


# --- layer normalisation ----------------------------------------------------------------------


class LayerNorm(Cell):
    """``nn.LayerNorm(normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
    gamma_init='ones', beta_init='zeros', epsilon=1e-7, dtype=float32)``: normalise over
    the axes from ``begin_norm_axis`` on, then scale by ``gamma`` and shift by ``beta``
    (both of shape ``normalized_shape``, which must be the input's shape from
    ``begin_params_axis`` on; the two axes are independent, as in MindSpore).

    Example:
        >>> ln = nn.LayerNorm((4,), begin_norm_axis=1)
        >>> ln(ms.Tensor(np.ones((2, 3, 4), np.float32))).shape
        (2, 3, 4)
    """

    def __init__(self, normalized_shape: Any, begin_norm_axis: int = -1,
                 begin_params_axis: int = -1, gamma_init: Any = "ones",
                 beta_init: Any = "zeros", epsilon: float = 1e-7,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        cls = self.cls_name
        if not isinstance(normalized_shape, (tuple, list)):
            raise GraphTypeError(f"For '{cls}', the type of 'normalized_shape' must be "
                                 f"tuple[int] or list[int], but got {normalized_shape!r} and "
                                 f"the type is {type(normalized_shape).__name__}.", user_loc())
        if not normalized_shape:
            raise GraphValueError("Expected normalized_shape to be at least 1-dimensional, "
                                  f"but got normalized_shape = {normalized_shape!r}", user_loc())
        self.normalized_shape = normalized_shape
        self.begin_norm_axis = _int(begin_norm_axis, "begin_norm_axis", cls)
        self.begin_params_axis = _int(begin_params_axis, "begin_params_axis", cls)
        self.epsilon = _float(epsilon, "epsilon", cls)
        shape = tuple(normalized_shape)
        for init, arg in ((gamma_init, "gamma_init"), (beta_init, "beta_init")):
            _check_init_shape(init, shape, arg, cls)
        self.gamma = Parameter(initializer(gamma_init, shape, dtype), name="gamma")
        self.beta = Parameter(initializer(beta_init, shape, dtype), name="beta")

    def construct(self, input_x: Any) -> Any:
        x = _float_tensor(input_x, "input_x", self.cls_name, _HALF_OR_SINGLE + (dtypes.float64,))
        for arg, axis in (("begin_norm_axis", self.begin_norm_axis),
                          ("begin_params_axis", self.begin_params_axis)):
            if not -x.ndim <= axis < x.ndim:
                raise GraphValueError(f"For 'LayerNorm', input_x's rank is {x.ndim}, while the "
                                      f"'{arg}' value should be in the range [{-x.ndim}, "
                                      f"{x.ndim}), but got {axis}.", user_loc())
        if tuple(x.shape[self.begin_params_axis:]) != self.gamma.shape:
            raise GraphValueError(f"For 'LayerNorm', gamma or beta shape must match input "
                                  f"shape, but got input shape: {x.shape}, gamma shape: "
                                  f"{self.gamma.shape}, beta shape: {self.beta.shape} "
                                  f"(normalized_shape from begin_params_axis "
                                  f"{self.begin_params_axis}).",
                                  user_loc())
        return apply(Op.LayerNorm, x, _as(self.gamma, x.dtype), _as(self.beta, x.dtype),
                     begin_norm_axis=self.begin_norm_axis % x.ndim,
                     begin_params_axis=self.begin_params_axis % x.ndim, epsilon=self.epsilon)

    def extend_repr(self) -> str:
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis="
                f"{self.begin_norm_axis}, begin_params_axis={self.begin_params_axis}, "
                f"gamma={self.gamma}, beta={self.beta}")
