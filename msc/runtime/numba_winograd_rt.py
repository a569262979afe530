"""Winograd F(4x4, 3x3) convolutions for the numba target (``msc/ir/primitives/winograd.py``
says when; ``tests/codegen/test_winograd.py`` derives the matrices in rationals and checks
these transforms against them).

``_rt_wino_conv`` is one function whatever the layer's shape, so a model's Winograd layers
share one compiled copy: written out as kernel-IR loops per layer, ResNet-18's ten such
layers made ``msc compile`` seven times slower, and kernels per layer that each inlined
the product twice as slow. The 1-D transforms return tuples that LLVM inlines and keeps in
registers (marked ``inline="always"`` they took Numba 0.4 s longer, and ran no faster);
the 2-D ones apply them down a tile's columns, then along its rows. The input and output
transforms compute in float32 (their coefficients are exact in it), the filter transform
in float64 (thirds and fifteenths are not).
"""

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def _rt_wino_bt(d0, d1, d2, d3, d4, d5):
    """B^T times a column of 6 input values (points 0, -1, 1, 1/2, -2, infinity)."""
    h, one5, two, two5 = np.float32(0.5), np.float32(1.5), np.float32(2.0), np.float32(2.5)
    return (d0 - one5 * d1 - two * d2 + one5 * d3 + d4,
            d1 - two5 * d2 + h * d3 + d4,
            h * d2 - d1 + two5 * d3 + d4,
            two * d3 - two * d1 - d2 + d4,
            h * d1 - d2 - h * d3 + d4,
            d1 - one5 * d2 - two * d3 + one5 * d4 + d5)


@njit(cache=True, error_model="numpy")
def _rt_wino_g(g0, g1, g2):
    """G times a column of 3 filter taps (float64; multiplications by the reciprocals,
    which LLVM and C compilers fold to the same constants)."""
    return (g0,
            (g1 - g0 - g2) * (1.0 / 3.0),
            (g0 + g1 + g2) * (1.0 / 3.0),
            (16.0 * g0 + 8.0 * g1 + 4.0 * g2) * (-1.0 / 15.0),
            (g0 - 2.0 * g1 + 4.0 * g2) * (1.0 / 15.0),
            g2)


@njit(cache=True, error_model="numpy")
def _rt_wino_at(m0, m1, m2, m3, m4, m5):
    """A^T times a column of 6 products: 4 output values."""
    h, q, e = np.float32(0.5), np.float32(0.25), np.float32(0.125)
    two, four, eight = np.float32(2.0), np.float32(4.0), np.float32(8.0)
    return (m0 + m1 + m2 + m3 + m4,
            m2 - m1 + h * m3 - two * m4,
            m1 + m2 + q * m3 + four * m4,
            m2 - m1 + e * m3 - eight * m4 + m5)


#: The largest magnitude of a transformed filter or input ``_rt_wino_conv`` takes: with
#: both under 1e15 no product or output transform overflows (at most 123 C 1e30).
_RT_WINO_LIMIT = np.float32(1e15)


@njit(cache=True, error_model="numpy", nogil=True)
def _rt_wino_filters(w, u, lo, hi):
    """``u[k, xi, c] = (G w[k, c] G^T)[xi]`` for float32 filters w (K, C, 3, 3), out
    channels ``k`` from ``lo`` to ``hi``: each
    product's (K, C) matrix is ``u[:, xi]``, its rows 36 C apart, so that the 36 values a
    filter gives are stored close together. Returns whether every value is within
    ``_RT_WINO_LIMIT`` (False for infinities and NaN: ``_rt_wino_conv``'s guard, an and
    over the loop that vectorizes, where a float sum would not)."""
    fits = True
    for k in range(lo, hi):
        for c in range(w.shape[1]):
            a0 = _rt_wino_g(np.float64(w[k, c, 0, 0]), np.float64(w[k, c, 1, 0]),
                            np.float64(w[k, c, 2, 0]))
            a1 = _rt_wino_g(np.float64(w[k, c, 0, 1]), np.float64(w[k, c, 1, 1]),
                            np.float64(w[k, c, 2, 1]))
            a2 = _rt_wino_g(np.float64(w[k, c, 0, 2]), np.float64(w[k, c, 1, 2]),
                            np.float64(w[k, c, 2, 2]))
            for i in range(6):
                row = _rt_wino_g(a0[i], a1[i], a2[i])
                for j in range(6):
                    value = np.float32(row[j])
                    u[k, 6 * i + j, c] = value
                    fits &= abs(value) <= _RT_WINO_LIMIT
    return fits


@njit(cache=True, error_model="numpy", nogil=True)
def _rt_wino_inputs(src, v, first, per_image, cols, top, left, lo, hi):
    """``v[c, xi, t] = (B^T d B)[xi]`` of the 6x6 tiles d of ``src`` (N, C, H, W) in a
    zero border of ``top`` rows and ``left`` columns, out to whole tiles (each row of
    tiles copies its six rows into a bordered ``s``), in ``v.shape[2] // cols`` rows of
    tiles from row ``first`` on (``per_image`` an example), channels ``c`` from ``lo``
    to ``hi``: B^T down each column of a row of tiles first, along the whole row
    (vectorized; tiles overlapping by two columns share them), then along each tile's
    rows. Returns whether every value is within ``_RT_WINO_LIMIT``."""
    height, width, rows, fits = src.shape[2], src.shape[3], v.shape[2] // cols, True
    s = np.zeros((6, 4 * cols + 2), np.float32)
    a = np.empty((6, 4 * cols + 2), np.float32)
    for c in range(lo, hi):
        for r in range(rows):
            ex = (first + r) // per_image
            y = (first + r - ex * per_image) * 4 - top
            for k in range(6):  # (loops: a slice's view cost more than the copy)
                for x in range(width):
                    s[k, left + x] = src[ex, c, y + k, x] if 0 <= y + k < height else np.float32(0)
            for x in range(4 * cols + 2):
                col = _rt_wino_bt(s[0, x], s[1, x], s[2, x], s[3, x], s[4, x], s[5, x])
                for i in range(6):
                    a[i, x] = col[i]
            for i in range(6):
                for tw in range(cols):
                    x, t = 4 * tw, r * cols + tw
                    row = _rt_wino_bt(a[i, x], a[i, x + 1], a[i, x + 2], a[i, x + 3],
                                      a[i, x + 4], a[i, x + 5])
                    for j in range(6):
                        v[c, 6 * i + j, t] = row[j]
                        fits &= abs(row[j]) <= _RT_WINO_LIMIT
    return fits


@njit(cache=True, error_model="numpy", nogil=True)
def _rt_wino_products(u, v, m, lo, hi):
    """``m[:, xi] = u[:, xi] @ v[:, xi]`` for ``xi`` from ``lo`` to ``hi``."""
    for xi in range(lo, hi):
        _rt_matmul_into(u[:, xi], v[:, xi], m[:, xi], 0.0)


@njit(cache=True, error_model="numpy", nogil=True)
def _rt_wino_outputs(m, out, first, per_image, lo, hi):
    """``out[n, k, y + i, 4 tw + j] = (A^T M A)[i, j]`` of the products ``m`` (K, 36,
    tiles) of ``m.shape[2] // cols`` rows of tiles from row ``first`` on, out channels
    ``k`` from ``lo`` to ``hi``; a tile reaching past the image's last row or column
    writes the part inside."""
    height, width = out.shape[2], out.shape[3]
    cols = (width + 3) // 4
    rows = m.shape[2] // cols
    for k in range(lo, hi):
        p = m[k]
        for r in range(rows):
            ex = (first + r) // per_image
            y = (first + r - ex * per_image) * 4
            for tw in range(cols):
                x, t = 4 * tw, r * cols + tw
                a0 = _rt_wino_at(p[0, t], p[6, t], p[12, t], p[18, t], p[24, t], p[30, t])
                a1 = _rt_wino_at(p[1, t], p[7, t], p[13, t], p[19, t], p[25, t], p[31, t])
                a2 = _rt_wino_at(p[2, t], p[8, t], p[14, t], p[20, t], p[26, t], p[32, t])
                a3 = _rt_wino_at(p[3, t], p[9, t], p[15, t], p[21, t], p[27, t], p[33, t])
                a4 = _rt_wino_at(p[4, t], p[10, t], p[16, t], p[22, t], p[28, t], p[34, t])
                a5 = _rt_wino_at(p[5, t], p[11, t], p[17, t], p[23, t], p[29, t], p[35, t])
                for i in range(4):
                    if y + i < height:
                        row = _rt_wino_at(a0[i], a1[i], a2[i], a3[i], a4[i], a5[i])
                        for j in range(4):
                            if x + j < width:
                                out[ex, k, y + i, x + j] = row[j]


@njit(cache=True, error_model="numpy")
def _rt_wino_grid(out, v):
    """Rows of tiles of one image of the output ``out``, tiles in a row, and rows in a
    block (``v`` holds the transformed inputs of one)."""
    rows, cols = (out.shape[2] + 3) // 4, (out.shape[3] + 3) // 4
    return rows, cols, v.shape[2] // cols


@njit(cache=True, error_model="numpy")
def _rt_wino_block_count(out, v):
    """How many blocks of rows of tiles the output ``out`` makes."""
    rows, _, per = _rt_wino_grid(out, v)
    return out.shape[0] * rows // per


@njit(cache=True, error_model="numpy", nogil=True)
def _rt_wino_blocks(src, u, v, m, out, top, left, lo, hi):
    """Blocks ``lo`` to ``hi`` of ``_rt_wino_conv``: block by block of rows of tiles (as
    many as ``v`` holds), the inputs transformed into ``v`` (C, 36, tiles), 36 products
    into ``m`` (K, 36, tiles) and the outputs into ``out``. False where a transformed
    input is out of ``_RT_WINO_LIMIT`` (``out`` unfinished)."""
    rows, cols, per = _rt_wino_grid(out, v)
    for b in range(lo, hi):
        if not _rt_wino_inputs(src, v, b * per, rows, cols, top, left, 0, src.shape[1]):
            return False
        _rt_wino_products(u, v, m, 0, 36)
        _rt_wino_outputs(m, out, b * per, rows, 0, m.shape[0])
    return True


@njit(cache=True, error_model="numpy", nogil=True)
def _rt_wino_conv(src, w, u, v, m, out, top, left):
    """``out`` = the convolution of ``src`` (N, C, H, W) in a zero border of ``top`` rows
    and ``left`` columns (and out to whole tiles) with the filters ``w`` (K, C, 3, 3): the
    filters transformed into ``u`` (K, 36, C), then the blocks of tiles
    (``_rt_wino_blocks``). One kernel calls it for every layer.

    False (``out`` unfinished) where a transformed filter or input is not finite or
    larger than ``_RT_WINO_LIMIT``: an infinity or NaN would spread over a
    whole 4x4 tile (NaN where the direct sum is finite or infinite), a huge value
    overflow where it does not; the caller then computes the convolution directly."""
    if not _rt_wino_filters(w, u, 0, w.shape[0]):
        return False
    return _rt_wino_blocks(src, u, v, m, out, top, left, 0, _rt_wino_block_count(out, v))


@njit(cache=True, nogil=True)
def _rt_same_bits(a, b):
    """Whether two contiguous float32 arrays of one size hold the same bits (a NaN equal
    to itself, -0.0 not to 0.0), in runs of 4096 that vectorize (indexed unsigned: a
    signed index is checked for wrapping around, 9x slower), stopping at the first run
    that differs."""
    x, y = a.ravel().view(np.uint32), b.ravel().view(np.uint32)
    n, lo = np.uint64(x.size), np.uint64(0)
    while lo < n:
        hi = min(lo + np.uint64(4096), n)
        differ = np.uint32(0)
        for i in range(lo, hi):
            differ |= x[i] ^ y[i]
        if differ:
            return False
        lo = hi
    return True


#: Transformed filters kept between a driver's calls (``_rt_wino_prepared``): (the
#: filters' address, shape) -> (a weak reference to the array owning their memory, a copy
#: of them, their transform, whether it fits). An entry goes when that array does.
_RT_WINO_KEPT = {}


def _rt_wino_prepared(w, u, transform):
    """The transform of the filters ``w`` (``_rt_wino_filters``) and whether it fits:
    kept from an earlier call on filters at this address while they hold the same bits (a
    layer's weights between calls, a view of the weights' arena: made at every call, the
    transform, 4x their size, took 5-9% of ResNet's time), else made into ``u`` by
    ``transform(w, u)`` (whether it fits) and kept with a copy of ``w``. A kept transform is never written
    again (a call whose filters changed makes its own), so threads may share it."""
    import weakref

    owner = w
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    key = (w.ctypes.data, w.shape)
    kept = _RT_WINO_KEPT.get(key)
    if kept is not None and kept[0]() is owner and _rt_same_bits(kept[1], w):
        return kept[2], kept[3]
    fits = transform(w, u)

    def forget(ref):  # (the memory is gone; a later array there may have an entry of its own)
        if _RT_WINO_KEPT.get(key, (None,))[0] is ref:
            _RT_WINO_KEPT.pop(key, None)

    _RT_WINO_KEPT[key] = (weakref.ref(owner, forget), w.copy(), u, fits)
    return u, fits


def _rt_wino_threaded(src, w, u, v, m, out, top, left):
    """``_rt_wino_conv`` over this process's threads, as an outlined driver calls it: the
    filters' transform kept between calls (``_rt_wino_prepared``), then the blocks in one
    range per thread, each with transformed inputs and products of its own (shaped as
    ``v`` and ``m``: rows as long); the blocks left over where they do not share out
    evenly, block after block its inputs (by channels), products (by tile element) and
    outputs (by out channels). Every value is computed as on one thread, to the bit."""
    rows, cols, per = _rt_wino_grid.py_func(out, v)
    blocks = _rt_wino_block_count.py_func(out, v)
    parts = _rt_thread_count()

    def split(fn, count, *args):  # (fn over [0, count) in one range per part)
        if parts <= 1:
            return [fn(*args, 0, count)]
        return _rt_run_parts([(fn, (*args, count * p // parts, count * (p + 1) // parts))
                              for p in range(parts)])

    u, fits = _rt_wino_prepared(w, u, lambda w, u: all(split(_rt_wino_filters, w.shape[0],
                                                             w, u)))
    if not fits:
        return False
    if parts <= 1:
        return _rt_wino_blocks(src, u, v, m, out, top, left, 0, blocks)
    whole = blocks // parts * parts
    for b in range(whole, blocks):  # (what does not share out evenly)
        if not all(split(_rt_wino_inputs, src.shape[1], src, v, b * per, rows, cols, top, left)):
            return False
        split(_rt_wino_products, 36, u, v, m)
        split(_rt_wino_outputs, w.shape[0], m, out, b * per, rows)
    if whole == 0:
        return True

    def own(a):  # (an array shaped and strided as the view ``a``)
        lines = np.empty((a.shape[0], a.shape[1], a.strides[1] // a.itemsize), a.dtype)
        return lines[:, :, :a.shape[2]]

    scratch = [(v, m)] + [(own(v), own(m)) for _ in range(1, parts)]
    return all(_rt_run_parts([(_rt_wino_blocks, (src, u, sv, sm, out, top, left,
                                                 whole * p // parts, whole * (p + 1) // parts))
                              for p, (sv, sm) in enumerate(scratch)]))
