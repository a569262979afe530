"""numba runtime helpers: what the numba target's kernels call. Reductions, row-wise
kernels (softmax, layer norm) and integer contractions are loop nests in the kernels
themselves; these are the scalar functions and the matrix products.

``msc.codegen.render`` copies the top-level statements a module needs into it, in this
file's order, so each statement must stand alone on ``math``, ``np`` and ``njit`` (the
generated module's imports) and the statements before it. Numba's ``np.dot`` calls BLAS
through SciPy; where SciPy is missing, loops stand in (chosen once, at import). The two
flavours of the matmul helpers are separate definitions, so Numba caches them apart.
"""

import math

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def _rt_pow(x, y):
    return x ** y


@njit(cache=True, error_model="numpy")
def _rt_gelu(x, approximate):
    if approximate == "tanh":
        return 0.5 * x * (1.0 + math.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    return 0.5 * x * (1.0 + math.erf(x / 1.4142135623730951))


try:  # Numba's np.dot calls BLAS through SciPy; where SciPy is missing, loops stand in
    import scipy.linalg.cython_blas  # noqa: F401
    _HAVE_BLAS = True
except ImportError:
    _HAVE_BLAS = False


@njit(cache=True, error_model="numpy", fastmath=True)
def _rt_dot_loops(a, b, out):
    """``out[...] = a @ b`` by loops, in the order that walks ``b`` contiguously."""
    out[:, :] = 0
    if b.flags.f_contiguous:
        bt = b.T
        for i in range(a.shape[0]):
            for j in range(b.shape[1]):
                acc = out[i, j]
                for p in range(a.shape[1]):
                    acc += a[i, p] * bt[j, p]
                out[i, j] = acc
    else:
        for i in range(a.shape[0]):
            for p in range(a.shape[1]):
                aip = a[i, p]
                for j in range(b.shape[1]):
                    out[i, j] += aip * b[p, j]


if _HAVE_BLAS:
    @njit(cache=True, error_model="numpy")
    def _rt_matmul_into(a, b, out):
        """``out[...] = a @ b`` without an array assignment (costly for numba to compile)."""
        if b.flags.f_contiguous:
            np.dot(np.ascontiguousarray(a), np.asfortranarray(b), out)
        else:
            np.dot(np.ascontiguousarray(a), np.ascontiguousarray(b), out)

    @njit(cache=True, error_model="numpy")
    def _rt_matmul(a, b):
        out = np.empty((a.shape[0], b.shape[1]), a.dtype)
        _rt_matmul_into(a, b, out)
        return out
else:
    @njit(cache=True, error_model="numpy")
    def _rt_matmul_into(a, b, out):
        _rt_dot_loops(np.ascontiguousarray(a), b, out)

    @njit(cache=True, error_model="numpy")
    def _rt_matmul(a, b):
        out = np.empty((a.shape[0], b.shape[1]), a.dtype)
        _rt_matmul_into(a, b, out)
        return out


def print_text(format, values):  # noqa: A002 - MindSpore's name
    """What ``Print`` writes: the format with each value's numpy text in its field."""
    return format.format(*(str(np.asarray(v)) for v in values))


def _rt_print(format, *values):  # noqa: A002
    """``Print``: kernels call it inside ``with objmode():``, so it runs as Python."""
    print(print_text(format, values))


@njit(cache=True, error_model="numpy")
def _rt_cumsum(x, axis, exclusive, reverse):
    """Running sums along ``axis`` in x's dtype, as numpy's ``cumsum`` (see numpy_rt)."""
    shape = x.shape
    before, after = 1, 1
    for d in range(axis):
        before *= shape[d]
    for d in range(axis + 1, len(shape)):
        after *= shape[d]
    n = shape[axis]
    a = np.ascontiguousarray(x).reshape((before, n, after))
    out = np.empty_like(a)
    for i in range(before):
        for k in range(after):
            total = a.dtype.type(0)
            for step in range(n):
                j = n - 1 - step if reverse else step
                if exclusive:
                    out[i, j, k] = total
                    total += a[i, j, k]
                else:
                    total += a[i, j, k]
                    out[i, j, k] = total
    return out.reshape(shape)
