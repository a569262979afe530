"""numpy runtime helpers: the ops numpy has no single function for.

The python target's generated modules call these (copied in, see ``msc.codegen.render``);
eager mode and the reference interpreter call them too, so all three agree by
construction. They take arrays of any rank, 0-d included, and keep the input's float
dtype (float32 stays float32). Floating-point warnings are the caller's business: the
generated kernels and the primitive table run them under ``np.errstate(all="ignore")``.
"""

import math

import numpy as np

_rt_erf = np.frompyfunc(math.erf, 1, 1)  # math.erf per element (numpy has no erf)


def _rt_pow(x, y):
    """``x ** y``; numpy refuses integer negative powers, a device truncates them
    (``2 ** -1 == 0``, ``1 ** -n == 1``, ``(-1) ** -n == (-1) ** n``)."""
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype.kind not in "iu" or not (y < 0).any():
        return np.power(x, y)
    out = np.power(x, np.abs(y))
    return np.where(y < 0, np.where(np.abs(x) == 1, out, 0).astype(x.dtype), out)


def _rt_gelu(x, approximate):
    """GeLU, by tanh or by erf (``approximate`` "tanh" or "none"). erf is computed in
    float64 (``_rt_erf`` gives Python floats, a bare float for 0-d input) and the product
    cast back to the input's dtype, as the numba target computes in float64 scalars."""
    x = np.asarray(x)
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
    erf = np.asarray(_rt_erf(x / 1.4142135623730951), dtype=np.float64)
    return (0.5 * x * (1.0 + erf)).astype(x.dtype)


def _rt_matmul(a, b):
    return np.matmul(a, b)


def _rt_softmax(x, axes, log):
    """Softmax (or log-softmax when ``log``) over ``axes``, a tuple (``()`` for 0-d)."""
    x = np.asarray(x)
    shifted = x - x.max(axis=axes, keepdims=True)
    total = np.exp(shifted).sum(axis=axes, keepdims=True)
    return np.asarray(shifted - np.log(total) if log else np.exp(shifted) / total)


def _rt_logsumexp(x, axes, keep_dims):
    """``log(sum(exp(x)))`` over ``axes`` (``()`` for 0-d), shifted by the maximum, or by
    0 where that is not finite (a row of -inf gives -inf, one with inf gives inf). The
    sum is taken in float64, as the numba target's loops do; the result has x's dtype."""
    x = np.asarray(x)
    top = x.max(axis=axes, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    total = np.exp(x.astype(np.float64) - top).sum(axis=axes, keepdims=True)
    out = np.log(total) + top
    return np.asarray(out if keep_dims else out.squeeze(axis=axes), dtype=x.dtype)


def _rt_cumsum(x, axis, exclusive, reverse):
    """Running sums along ``axis`` in x's dtype, accumulated in order (``exclusive``: each
    leaves its own element out; ``reverse``: from the end)."""
    x = np.asarray(x)
    a = np.flip(x, axis) if reverse else x
    out = np.cumsum(a, axis=axis, dtype=x.dtype)
    if exclusive and x.shape[axis]:
        head = np.zeros_like(np.take(out, [0], axis))
        out = np.concatenate((head, np.take(out, range(x.shape[axis] - 1), axis)), axis)
    return np.ascontiguousarray(np.flip(out, axis) if reverse else out)


def _rt_layer_norm(x, gamma, beta, begin, eps):
    """Normalise over the axes from ``begin`` on (negative counts from the end), then
    scale and shift. eps, gamma and beta take x's dtype: float32 stays float32."""
    x = np.asarray(x)
    axes = tuple(range(begin % x.ndim, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + np.asarray(eps, dtype=x.dtype))
    return y * np.asarray(gamma, dtype=x.dtype) + np.asarray(beta, dtype=x.dtype)


def print_text(format, values):  # noqa: A002 - MindSpore's name
    """What ``Print`` writes: the format with each value's numpy text in its field."""
    return format.format(*(str(np.asarray(v)) for v in values))


def _rt_print(format, *values):  # noqa: A002
    """``Print`` at run time."""
    print(print_text(format, values))
