"""Helpers of the cuda target's host drivers: moving values between host and device, and
the block-level kernels the drivers launch (reductions, softmax, layer norm, a tiled
matmul). Generated modules copy what they use, so this file imports only numpy, math and
numba's ``cuda`` (the built-in ``numba.cuda``, or NVIDIA's ``numba-cuda`` under that name).

Kernels here call no device functions: a call to a ``@cuda.jit(device=True)`` function is
compiled for the GPU present, so it would keep ``compile_ptx`` from checking them without
one. Row statistics accumulate in float64, as the numba target's loops do.
"""

import math

import numpy as np
from numba import config, cuda

# NOTE: Numba's CUDA simulator runs each thread of a block as a Python thread; blocks
# shrink under it so that tests stay quick (the kernels' code is the same).
#: Threads per block of the row kernels (a power of two: they halve it in their trees).
_rt_cuda_ROW_THREADS = 4 if config.ENABLE_CUDASIM else 128
#: Threads per block of the generated elementwise kernels.
_rt_cuda_THREADS = 8 if config.ENABLE_CUDASIM else 128
#: The matmul kernel's square tile (threads per block: its square).
_rt_cuda_TILE = 4 if config.ENABLE_CUDASIM else 16


# --- moving values --------------------------------------------------------------------------


def _rt_cuda_dev(x):
    """A value computed on the host as the driver holds it: arrays (numpy scalars too) on
    the device, tuples element by element, numbers and None as they are."""
    if isinstance(x, tuple):
        return tuple(_rt_cuda_dev(e) for e in x)
    if isinstance(x, (np.ndarray, np.generic)):
        return cuda.to_device(np.asarray(x, order="C"))
    return x


def _rt_cuda_host(x):
    """The host copy of a device value (tuples element by element; others as they are)."""
    if isinstance(x, tuple):
        return tuple(_rt_cuda_host(e) for e in x)
    if hasattr(x, "copy_to_host"):
        return x.copy_to_host()
    return x


def _rt_cuda_empty(shape, dtype):
    return cuda.device_array(shape, dtype)


def _rt_cuda_copy(x):
    """A device array's own copy (loop-carried values, ``TensorMove``)."""
    out = cuda.device_array(x.shape, x.dtype)
    if x.size:
        out.copy_to_device(x)
    return out


def _rt_cuda_item(x):
    """A tensor condition's truth, read on the host."""
    return bool(x.copy_to_host())


def _rt_cuda_store(ref, host):
    """Write a weight's host copy, updated by host code, back into the device weight."""
    if ref.size:
        ref.copy_to_device(np.asarray(host, ref.dtype, order="C"))
    return ref


def _rt_cuda_blocks(n):
    """The blocks of a generated kernel over ``n`` elements."""
    return (n + _rt_cuda_THREADS - 1) // _rt_cuda_THREADS


# --- rows: reductions, softmax, layer norm --------------------------------------------------
# A row is what one output element reads: x viewed as (outer, length, inner), the row of
# (o, j) is x[o, :, j]. One block per row; its threads stride along the row, then combine
# their partial results in shared memory, halving the active threads each step.


@cuda.jit
def _rt_cuda_reduce_kernel(x, out, kind, scale):
    """kind 0: sum (times ``scale``: 1, or 1/length for a mean); 1: max; 2: min. Max and
    min propagate nan, as numpy's do."""
    part = cuda.shared.array(_rt_cuda_ROW_THREADS, np.float64)
    inner = x.shape[2]
    o = cuda.blockIdx.x // inner
    j = cuda.blockIdx.x % inner
    t = cuda.threadIdx.x
    acc = 0.0 if kind == 0 else -math.inf if kind == 1 else math.inf
    for k in range(t, x.shape[1], _rt_cuda_ROW_THREADS):
        e = np.float64(x[o, k, j])
        if kind == 0:
            acc += e
        elif acc == acc and (e != e or (e > acc if kind == 1 else e < acc)):
            acc = e
    part[t] = acc
    cuda.syncthreads()
    step = _rt_cuda_ROW_THREADS // 2
    while step > 0:
        if t < step:
            e = part[t + step]
            if kind == 0:
                part[t] += e
            elif part[t] == part[t] and (e != e or (e > part[t] if kind == 1 else e < part[t])):
                part[t] = e
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[o, j] = part[0] * scale if kind == 0 else part[0]


def _rt_cuda_reduce(x, rows, kind, scale, shape, dtype):
    """Reduce ``x`` viewed as ``rows`` (outer, length, inner) along the length; the result
    has ``shape`` and ``dtype``."""
    out = cuda.device_array((rows[0], rows[2]), dtype)
    if out.size:
        _rt_cuda_reduce_kernel[out.size, _rt_cuda_ROW_THREADS](x.reshape(rows), out, kind,
                                                               scale)
    return out.reshape(shape)


@cuda.jit
def _rt_cuda_softmax_kernel(x, out, log):
    """Softmax (log-softmax when ``log``) of each row: max, sum of exp(x - max), result."""
    part = cuda.shared.array(_rt_cuda_ROW_THREADS, np.float64)
    inner = x.shape[2]
    o = cuda.blockIdx.x // inner
    j = cuda.blockIdx.x % inner
    t = cuda.threadIdx.x
    top = -math.inf
    for k in range(t, x.shape[1], _rt_cuda_ROW_THREADS):
        e = np.float64(x[o, k, j])
        if top == top and (e != e or e > top):
            top = e
    part[t] = top
    cuda.syncthreads()
    step = _rt_cuda_ROW_THREADS // 2
    while step > 0:
        if t < step:
            e = part[t + step]
            if part[t] == part[t] and (e != e or e > part[t]):
                part[t] = e
        cuda.syncthreads()
        step //= 2
    top = part[0]
    cuda.syncthreads()
    total = 0.0
    for k in range(t, x.shape[1], _rt_cuda_ROW_THREADS):
        total += math.exp(np.float64(x[o, k, j]) - top)
    part[t] = total
    cuda.syncthreads()
    step = _rt_cuda_ROW_THREADS // 2
    while step > 0:
        if t < step:
            part[t] += part[t + step]
        cuda.syncthreads()
        step //= 2
    total = part[0]
    for k in range(t, x.shape[1], _rt_cuda_ROW_THREADS):
        shifted = np.float64(x[o, k, j]) - top
        out[o, k, j] = shifted - math.log(total) if log else math.exp(shifted) / total


def _rt_cuda_softmax(x, rows, log):
    out = cuda.device_array(x.shape, x.dtype)
    if out.size:
        _rt_cuda_softmax_kernel[rows[0] * rows[2], _rt_cuda_ROW_THREADS](
            x.reshape(rows), out.reshape(rows), log)
    return out


@cuda.jit
def _rt_cuda_layer_norm_kernel(x, gamma, beta, out, eps):
    """Each row of ``x`` (rows, length) normalised, then scaled and shifted by ``gamma``
    and ``beta``, flat arrays broadcast over the flat input (their shape is its tail)."""
    part = cuda.shared.array(_rt_cuda_ROW_THREADS, np.float64)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    n = x.shape[1]
    total = 0.0
    for k in range(t, n, _rt_cuda_ROW_THREADS):
        total += np.float64(x[r, k])
    part[t] = total
    cuda.syncthreads()
    step = _rt_cuda_ROW_THREADS // 2
    while step > 0:
        if t < step:
            part[t] += part[t + step]
        cuda.syncthreads()
        step //= 2
    mean = part[0] / n
    cuda.syncthreads()
    total = 0.0
    for k in range(t, n, _rt_cuda_ROW_THREADS):
        d = np.float64(x[r, k]) - mean
        total += d * d
    part[t] = total
    cuda.syncthreads()
    step = _rt_cuda_ROW_THREADS // 2
    while step > 0:
        if t < step:
            part[t] += part[t + step]
        cuda.syncthreads()
        step //= 2
    scale = 1.0 / math.sqrt(part[0] / n + eps)
    for k in range(t, n, _rt_cuda_ROW_THREADS):
        f = (r * n + k) % gamma.size
        out[r, k] = (np.float64(x[r, k]) - mean) * scale * gamma[f] + beta[f]


def _rt_cuda_layer_norm(x, gamma, beta, rows, eps):
    out = cuda.device_array(x.shape, x.dtype)
    if out.size:
        _rt_cuda_layer_norm_kernel[rows[0], _rt_cuda_ROW_THREADS](
            x.reshape(rows), gamma.reshape(gamma.size), beta.reshape(beta.size),
            out.reshape(rows), eps)
    return out


# --- matmul ---------------------------------------------------------------------------------


def _rt_cuda_matmul_for(dtype):
    """The tiled matmul kernel for one float dtype (its tiles' dtype is fixed when it
    compiles): each block computes a square tile of one batch's (M, N) result from tiles
    of the operands staged in shared memory."""

    @cuda.jit
    def kernel(a, b, bias, out, ta, tb, has_bias):
        """out[z] = op(a[z]) @ op(b[z]) (+ bias along N): a is (Ba, M, K), or (Ba, K, M)
        when ``ta``; b is (Bb, K, N), or (Bb, N, K) when ``tb``; a batch of 1 broadcasts."""
        sa = cuda.shared.array((_rt_cuda_TILE, _rt_cuda_TILE), dtype)
        sb = cuda.shared.array((_rt_cuda_TILE, _rt_cuda_TILE), dtype)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        z = cuda.blockIdx.z
        row = cuda.blockIdx.y * _rt_cuda_TILE + ty
        col = cuda.blockIdx.x * _rt_cuda_TILE + tx
        m, n = out.shape[1], out.shape[2]
        k_total = a.shape[1] if ta else a.shape[2]
        za = z if a.shape[0] > 1 else 0
        zb = z if b.shape[0] > 1 else 0
        acc = dtype(0)
        for k0 in range(0, k_total, _rt_cuda_TILE):
            ka = k0 + tx  # the element of a's row this thread stages
            kb = k0 + ty  # and of b's column
            if row < m and ka < k_total:
                sa[ty, tx] = a[za, ka, row] if ta else a[za, row, ka]
            else:
                sa[ty, tx] = 0
            if col < n and kb < k_total:
                sb[ty, tx] = b[zb, col, kb] if tb else b[zb, kb, col]
            else:
                sb[ty, tx] = 0
            cuda.syncthreads()
            for k in range(_rt_cuda_TILE):
                acc += sa[ty, k] * sb[k, tx]
            cuda.syncthreads()
        if row < m and col < n:
            out[z, row, col] = acc + bias[col] if has_bias else acc

    return kernel


_rt_cuda_matmul_kernels = {np.dtype(np.float32): _rt_cuda_matmul_for(np.float32),
                           np.dtype(np.float64): _rt_cuda_matmul_for(np.float64)}


def _rt_cuda_matmul(a, b, bias, a3, b3, out3, ta, tb, shape):
    """``a`` viewed as ``a3`` times ``b`` viewed as ``b3`` (transposed as ``ta``/``tb``
    say), plus ``bias`` unless it is None, as an array of ``shape``."""
    out = cuda.device_array(out3, a.dtype)
    if out.size:
        t = _rt_cuda_TILE
        grid = ((out3[2] + t - 1) // t, (out3[1] + t - 1) // t, out3[0])
        extra = bias if bias is not None else out.reshape(out.size)  # (not read)
        _rt_cuda_matmul_kernels[a.dtype][grid, (t, t)](
            a.reshape(a3), b.reshape(b3), extra, out, ta, tb, bias is not None)
    return out.reshape(shape)
