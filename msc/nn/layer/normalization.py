"""Batch, group and layer normalisation layers with MindSpore 2.10's signatures:
``nn.BatchNorm1d/2d/3d``, ``nn.GroupNorm`` and ``nn.LayerNorm``, over ``ops.batch_norm``
and ``ops.group_norm`` (``ops/function/nn_func.py``).

Training mode writes the moving statistics with ``ops.assign``, so a compiled train step
updates them in place.
"""

from __future__ import annotations

from typing import Any

from msc.common.initializer import initializer
from msc.common.tensor import Parameter, Tensor, apply
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.nn.cell import Cell
from msc._checkparam import _bool, _check_init_shape, _float, _int
from msc.ops import functional as F
from msc.ops.operations.nn_ops import LayerNorm as PrimLayerNorm
from msc.ops.function.nn_func import (
    _HALF_OR_SINGLE,
    _as,
    _batch_norm,
    _channel_params,
    _float_tensor,
    _unit_float,
    group_norm,
)

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
        # NOTE: MindSpore's primitive under its attribute name: subclasses (a channels-first
        # LayerNorm, ...) call ``y, _, _ = self.layer_norm(x, self.gamma, self.beta)``.
        self.layer_norm = PrimLayerNorm(self.begin_norm_axis, self.begin_params_axis,
                                        self.epsilon)

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


class SyncBatchNorm(BatchNorm2d):
    """``BatchNorm2d`` with statistics synchronised over ``process_groups``: msc runs in one
    process, where the group is this process alone, so it is ``BatchNorm2d``."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9,
                 affine: bool = True, gamma_init: Any = "ones", beta_init: Any = "zeros",
                 moving_mean_init: Any = "zeros", moving_var_init: Any = "ones",
                 use_batch_statistics: bool | None = None, process_groups: Any = None,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init,
                         moving_mean_init, moving_var_init, use_batch_statistics, dtype=dtype)


class _InstanceNorm(Cell):
    """Each example's channels normalised over their own positions (biased variance), then
    scaled by ``gamma`` and shifted by ``beta`` (per channel; learnable when ``affine``)."""

    rank = 4

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = True, gamma_init: Any = "ones", beta_init: Any = "zeros",
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        cls = self.cls_name
        self.num_features = _int(num_features, "num_features", cls, positive=True)
        self.eps = _float(eps, "eps", cls)
        self.momentum = _unit_float(momentum, "momentum", cls, low_open=False)
        self.affine = _bool(affine, "affine", cls)
        shape = (self.num_features,)
        # MindSpore's running statistics (its kernel's state; the output never reads them)
        self.moving_mean = Parameter(initializer("zeros", shape, dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer("ones", shape, dtype), name="variance",
                                         requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, shape, dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, shape, dtype), name="beta",
                              requires_grad=affine)

    def construct(self, x: Any) -> Any:
        if x.ndim != self.rank or x.shape[1] != self.num_features:
            raise GraphValueError(f"For '{self.cls_name}', the input must be {self.rank}-D "
                                  f"with {self.num_features} channels, but got shape "
                                  f"{x.shape}.", user_loc())
        axes = tuple(range(2, x.ndim))
        mean = F.mean(x, axes, True)
        var = F.mean(F.square(x - mean), axes, True)
        per = (1, -1) + (1,) * len(axes)
        return (x - mean) / F.sqrt(var + self.eps) * F.reshape(_as(self.gamma, x.dtype), per) \
            + F.reshape(_as(self.beta, x.dtype), per)


class InstanceNorm1d(_InstanceNorm):
    rank = 3


class InstanceNorm2d(_InstanceNorm):
    rank = 4


class InstanceNorm3d(_InstanceNorm):
    rank = 5


class LayerNormExt(Cell):
    """Normalise over the trailing ``normalized_shape`` dims, then scale by ``weight`` and
    shift by ``bias`` (when ``elementwise_affine``; ``bias`` False drops the shift)."""

    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, dtype: Any = None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
            tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, _float(eps, "eps", self.cls_name)
        dt = dtype or dtypes.float32
        self.weight = Parameter(initializer("ones", shape, dt), name="weight") \
            if elementwise_affine else None
        self.bias = Parameter(initializer("zeros", shape, dt), name="bias") \
            if elementwise_affine and bias else None

    def construct(self, x: Any) -> Any:
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


class LRN(Cell):
    """Local response normalisation across channels (``ops.lrn``)."""

    def __init__(self, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0,
                 beta: float = 0.5, norm_region: str = "ACROSS_CHANNELS"):
        super().__init__()
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region

    def construct(self, x: Any) -> Any:
        from msc.ops.function.nn_func import lrn

        return lrn(x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)


__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "LayerNorm",
           "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
           "LayerNormExt", "LRN"]
