"""Neural-network primitives: Softmax, LogSoftmax and LayerNorm (normalised output only).

They take float tensors only, as MindSpore does. Softmax and LogSoftmax subtract the
maximum before exponentiating, so large logits do not overflow. ``ops.LayerNorm``'s mean
and variance outputs are composed from reductions by the frontend, which keeps this
primitive single-output and easy to fuse and differentiate.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.errors import GraphTypeError, ShapeError
from msc.ir.primitives.base import (
    PRIMITIVES,
    Primitive,
    norm_axes,
    norm_axis,
    register,
    want_float_tensor,
    want_int,
    want_tensor,
)
from msc.ir.primitives.emitting import as_rows, from_rows, in_type, reshape
from msc.ir.types import Type


def _softmax_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not axes:
        raise GraphTypeError("axis must name at least one axis")
    return norm_axes(tuple(want_int(a, "axis") for a in axes), ndim)


def _softmax_infer(x: Type, axis: Any = (-1,)) -> Type:
    t = want_float_tensor(x)
    _softmax_axes(axis, t.ndim)
    return t


def _softmax_impl(x: Any, axis: Any = (-1,)) -> Any:
    arr = np.asarray(x)
    axes = _softmax_axes(axis, arr.ndim) if arr.ndim else None
    with np.errstate(all="ignore"):
        e = np.exp(arr - np.max(arr, axis=axes, keepdims=True))
        return e / np.sum(e, axis=axes, keepdims=True)


def _log_softmax_infer(x: Type, axis: int = -1) -> Type:
    t = want_float_tensor(x)
    norm_axis(want_int(axis, "axis"), t.ndim)
    return t


def _log_softmax_impl(x: Any, axis: int = -1) -> Any:
    arr = np.asarray(x)
    ax = axis if arr.ndim else None
    with np.errstate(all="ignore"):
        shifted = arr - np.max(arr, axis=ax, keepdims=True)
        return shifted - np.log(np.sum(np.exp(shifted), axis=ax, keepdims=True))


register(Primitive("Softmax", _softmax_infer, _softmax_impl, cost=6))
register(Primitive("LogSoftmax", _log_softmax_infer, _log_softmax_impl, cost=6))


# --- LayerNorm ------------------------------------------------------------------------


def _layer_norm_infer(x: Type, gamma: Type, beta: Type, begin_norm_axis: int = 1,
                      begin_params_axis: int = 1, epsilon: float = 1e-7) -> Type:
    t = want_float_tensor(x)
    if t.ndim == 0:
        raise ShapeError("the input must be at least 1-D")
    norm_axis(want_int(begin_norm_axis, "begin_norm_axis"), t.ndim)
    params = t.shape[norm_axis(want_int(begin_params_axis, "begin_params_axis"), t.ndim):]
    for name, p in (("gamma", gamma), ("beta", beta)):
        pt = want_tensor(p, name)
        if pt.shape != params:
            raise ShapeError(f"{name} must have shape {params} (input shape {t.shape} from "
                             f"begin_params_axis {begin_params_axis}), but got {pt.shape}")
    if not isinstance(epsilon, float) or epsilon < 0:
        raise GraphTypeError(f"epsilon must be a non-negative float, but got {epsilon!r}")
    return t


def _layer_norm_impl(x: Any, gamma: Any, beta: Any, begin_norm_axis: int = 1,
                     begin_params_axis: int = 1, epsilon: float = 1e-7) -> Any:
    arr = np.asarray(x)
    axes = tuple(range(begin_norm_axis % arr.ndim, arr.ndim))
    mean = np.mean(arr, axis=axes, keepdims=True)
    var = np.mean(np.square(arr - mean), axis=axes, keepdims=True)
    y = (arr - mean) / np.sqrt(var + np.asarray(epsilon, dtype=arr.dtype))
    return y * np.asarray(gamma, dtype=arr.dtype) + np.asarray(beta, dtype=arr.dtype)


register(Primitive("LayerNorm", _layer_norm_infer, _layer_norm_impl, cost=8))


# --- code generation: row-wise kernels over a contiguous (outer, inner) view -------------


def _emit_softmax(log: bool) -> Any:
    def emit(a: list[str], node: Any, target: str) -> str:
        x = in_type(node)
        axis = node.attr.get("axis", -1)
        axes = _softmax_axes(axis, x.ndim) if not log else (axis % x.ndim,)
        rows, perm = as_rows(a[0], x.shape, axes)
        return from_rows(f"_rt_softmax({rows}, {log})", x.shape, perm)
    return emit


def _emit_layer_norm(a: list[str], node: Any, target: str) -> str:
    x = in_type(node)
    begin = node.attr.get("begin_norm_axis", 1) % x.ndim
    if node.attr.get("begin_params_axis", 1) % x.ndim < begin:
        raise GraphTypeError("LayerNorm with begin_params_axis before begin_norm_axis has no "
                             "code generator yet")
    axes = tuple(range(begin, x.ndim))
    rows, perm = as_rows(a[0], x.shape, axes)
    inner = math.prod(x.shape[begin:])
    params = [reshape(f"np.broadcast_to({p}, {x.shape[begin:]!r})", (inner,)) for p in a[1:]]
    eps = float(node.attr.get("epsilon", 1e-7))
    return from_rows(f"_rt_layer_norm({rows}, {params[0]}, {params[1]}, {eps!r})",
                     x.shape, perm)


PRIMITIVES["Softmax"].emit["array"] = _emit_softmax(False)
PRIMITIVES["LogSoftmax"].emit["array"] = _emit_softmax(True)
PRIMITIVES["LayerNorm"].emit["array"] = _emit_layer_norm
