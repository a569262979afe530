"""Functional forms of fused and less common layers: ``rms_norm``, ``add_rms_norm``,
``add_layer_norm``, ``swiglu``, ``gumbel_softmax``, ``rrelu``, ``embedding``, ``bidense``
and ``max_unpool1d/2d/3d``, composed of the table's ops so they run eagerly and in graphs
on every target with their gradients.
"""

from __future__ import annotations

import math
from typing import Any


import numpy as np

from msc.common.tensor import Tensor, apply
from msc.errors import GraphValueError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.conv_func import tuple_arg
from msc.ops.function.manipulation_func import _fail


def _rms(x: Tensor, gamma: Any, epsilon: float, op: str) -> tuple[Any, Any]:
    g = _as_tensor(gamma, op)
    if g.ndim > x.ndim or x.shape[x.ndim - g.ndim:] != g.shape:
        _fail(op, f"the shape of 'gamma' {g.shape} must be the trailing dims of the input's "
                  f"{x.shape}.")
    axes = tuple(range(x.ndim - g.ndim, x.ndim))
    rstd = apply(Op.Rsqrt, F.mean(F.square(x), axes, True) + epsilon)
    return x * rstd * g, rstd


def rms_norm(x: Any, gamma: Any, epsilon: float = 1e-6) -> tuple[Any, Any]:
    """(x / sqrt(mean(x ** 2) + epsilon) * gamma, the reciprocal root), the mean over the
    trailing dims ``gamma`` covers."""
    return _rms(_as_tensor(x, "RmsNorm"), gamma, epsilon, "RmsNorm")


def add_rms_norm(x1: Any, x2: Any, gamma: Any, epsilon: float = 1e-6) -> tuple[Any, Any, Any]:
    """``rms_norm(x1 + x2)`` and the sum itself."""
    total = _as_tensor(x1, "AddRmsNorm") + x2
    y, rstd = _rms(total, gamma, epsilon, "AddRmsNorm")
    return y, rstd, total


def add_layer_norm(x1: Any, x2: Any, gamma: Any, beta: Any, epsilon: float = 1e-5,
                   additional_output: bool = False) -> tuple[Any, Any, Any, Any]:
    """(layer norm of x1 + x2 over the trailing dims of ``gamma``, its mean, its reciprocal
    standard deviation, x1 + x2)."""
    total = _as_tensor(x1, "AddLayerNorm") + x2
    g = _as_tensor(gamma, "AddLayerNorm")
    axes = tuple(range(total.ndim - g.ndim, total.ndim))
    mean = F.mean(total, axes, True)
    rstd = apply(Op.Rsqrt, F.mean(F.square(total - mean), axes, True) + epsilon)
    return (total - mean) * rstd * g + beta, mean, rstd, total


def swiglu(input: Any, dim: int = -1) -> Any:  # noqa: A002
    """silu(a) * b of the halves a, b of ``input`` along ``dim``."""
    x = _as_tensor(input, "Swiglu")
    a, b = F.split(x, x.shape[dim] // 2, dim)
    return a * apply(Op.Sigmoid, a) * b


def gumbel_softmax(logits: Any, tau: float = 1.0, hard: bool = False, dim: int = -1) -> Any:
    """softmax((logits + g) / tau) with Gumbel noise g; ``hard``: the one-hot of its
    largest entry, with the soft sample's gradient."""
    from msc.ops.function.random_func import uniform_draw

    x = _as_tensor(logits, "gumbel_softmax")
    if not x.dtype.is_float:
        _fail("gumbel_softmax", f"the logits must be float, but got {x.dtype}.")
    u = F.cast(uniform_draw(x.shape), x.dtype)
    noise = -apply(Op.Log, -apply(Op.Log, u * (1.0 - 2e-7) + 1e-7))
    soft = F.softmax((x + noise) / tau, dim)
    if not hard:
        return soft
    axis = dim % x.ndim
    index = F.argmax(soft, axis, True)
    onehot = A.tensor_scatter_elements(F.zeros(x.shape, x.dtype), index,
                                       F.ones(index.shape, x.dtype), axis)
    return onehot - apply(Op.StopGradient, soft) + soft


def rrelu(input: Any, lower: float = 1 / 8, upper: float = 1 / 3) -> Any:  # noqa: A002
    """x where x >= 0, a * x elsewhere with a drawn from U(lower, upper) per element."""
    from msc.ops.function.random_func import uniform_draw

    x = _as_tensor(input, "rrelu")
    if lower > upper:
        _fail("rrelu", f"'upper' must be greater than or equal to 'lower', but got upper: "
                       f"{upper}, lower: {lower}.")
    slope = F.cast(uniform_draw(x.shape) * (upper - lower) + lower, x.dtype)
    return F.select(x < 0, x * slope, x)


def embedding(input: Any, weight: Any, padding_idx: Any = None, max_norm: Any = None,  # noqa: A002
              norm_type: float = 2.0, scale_grad_by_freq: bool = False) -> Any:
    """Row ``i`` of ``weight`` for each index ``i`` of ``input``. Row ``padding_idx`` gets
    no gradient (it is not trained); with ``max_norm`` each row looked up whose
    ``norm_type``-norm exceeds it is scaled to it, max_norm / (norm + 1e-7). MindSpore
    renormalises the weight in place first, so its gradient is that of the rows looked up
    (EmbeddingDenseBackward's, unscaled): msc gives that one; its graphs never write their
    inputs, so the weight keeps its rows."""
    w = _as_tensor(weight, "embedding")
    if padding_idx is not None:
        n = w.shape[0]
        row = Tensor((np.arange(n) == padding_idx % n).reshape((n,) + (1,) * (w.ndim - 1)))
        w = F.select(F.broadcast_to(row, w.shape), apply(Op.StopGradient, w), w)
    out = F.gather(w, input, 0)
    if max_norm is not None:
        norm = F.norm(apply(Op.StopGradient, out), norm_type, -1, True)
        scaled = out * F.select(norm > max_norm, max_norm / (norm + 1e-7), F.ones_like(norm))
        out = out + apply(Op.StopGradient, scaled - out)
    return out


def bidense(input1: Any, input2: Any, weight: Any, bias: Any = None) -> Any:
    """``input1[..., i] * weight[o, i, j] * input2[..., j] (+ bias[o])``."""
    from msc.ops.function.linalg_func import einsum

    out = einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


def _max_unpool(x: Any, indices: Any, nd: int, kernel_size: Any, stride: Any, padding: Any,
                output_size: Any, op: str) -> Any:
    """Each value of ``x`` placed at its flat position ``indices`` (as max pooling with
    indices gives them) in an otherwise zero tensor of the pooled input's size."""
    v, idx = _as_tensor(x, op), _as_tensor(indices, op)
    with _checking(op):
        kernel = tuple_arg(kernel_size, nd, "kernel_size")
        step = kernel if stride is None or stride == 0 else tuple_arg(stride, nd, "stride")
        pad = tuple_arg(padding, nd, "padding", least=0)
    if v.shape != idx.shape or v.ndim not in (nd + 1, nd + 2):
        _fail(op, f"'x' {v.shape} and 'indices' {idx.shape} must have one shape, "
                  f"{nd + 1}-D or {nd + 2}-D.")
    spatial = v.shape[-nd:]
    sizes = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip(spatial, step, pad, kernel))
    if output_size:
        sizes = tuple(output_size)[-nd:]
    lead = v.shape[:-nd]
    flat = (math.prod(lead), math.prod(sizes))
    base = F.zeros(flat, v.dtype)
    out = A.tensor_scatter_elements(base, F.cast(F.reshape(idx, (flat[0], -1)), dtypes.int64),
                                    F.reshape(v, (flat[0], -1)), 1)
    return F.reshape(out, lead + sizes)


def max_unpool1d(x: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Any:
    return _max_unpool(x, indices, 1, kernel_size, stride, padding, output_size, "MaxUnpool1D")


def max_unpool2d(x: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Any:
    return _max_unpool(x, indices, 2, kernel_size, stride, padding, output_size, "MaxUnpool2D")


def max_unpool3d(x: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Any:
    return _max_unpool(x, indices, 3, kernel_size, stride, padding, output_size, "MaxUnpool3D")


def affine_grid(theta: Any, size: Any, align_corners: bool = False) -> Any:
    """The sampling grid (N, H, W, 2) (or (N, D, H, W, 3)) of the affine maps ``theta``
    (N, 2, 3) (or (N, 3, 4)) over an output of ``size`` (N, C, H, W) (or 5 dims), in
    [-1, 1] coordinates (pixel corners with ``align_corners``, else pixel centres)."""
    t = _as_tensor(theta, "AffineGrid")
    dims = tuple(int(v) for v in (size.asnumpy() if isinstance(size, Tensor) else size))
    nd = len(dims) - 2
    if nd not in (2, 3) or t.shape[1:] != (nd, nd + 1) or t.shape[0] != dims[0]:
        _fail("AffineGrid", f"'theta' {t.shape} does not fit 'size' {dims}.")

    def axis(n: int) -> np.ndarray:
        if align_corners:
            return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
        return (np.arange(n) * 2.0 + 1.0) / n - 1.0

    spatial = dims[2:]
    mesh = np.meshgrid(*[axis(n) for n in spatial], indexing="ij")[::-1]  # x first
    base = np.stack([*mesh, np.ones(spatial)], -1).reshape(-1, nd + 1)
    grid = F.matmul(Tensor(base.astype(t.dtype.np)), A.swapaxes(t, 1, 2))
    return F.reshape(grid, (dims[0],) + spatial + (nd,))


__all__ = ["affine_grid", "rms_norm", "add_rms_norm", "add_layer_norm", "swiglu", "gumbel_softmax", "rrelu",
           "embedding", "bidense", "max_unpool1d", "max_unpool2d", "max_unpool3d"]
