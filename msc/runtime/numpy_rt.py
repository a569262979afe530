"""numpy runtime helpers: the ops numpy has no single function for.

The python target's generated modules call these (copied in, see ``msc.codegen.render``);
eager mode and the reference interpreter call them too, so all three agree by
construction. They take arrays of any rank, 0-d included, and keep the input's float
dtype (float32 stays float32). Floating-point warnings are the caller's business: the
generated kernels and the primitive table run them under ``np.errstate(all="ignore")``.
"""

import math

import numpy as np

_rt_erf_exact = np.frompyfunc(math.erf, 1, 1)  # math.erf per element (numpy has no erf)
_rt_erfc_exact = np.frompyfunc(math.erfc, 1, 1)  # 1 - erf, no cancellation for large x

#: erf(z) / z as a series in z*z (10 Taylor terms: below 1e-12 for |z| < 0.5), and
#: erfc(z) * exp(z*z) ~ P(z) / Q(z) fitted on [0, 10.5] (8.8e-11), highest power first:
#: the numba runtime's ``_rt_erf64`` with the same series (its ``_rt_erfc_tail`` has a
#: shorter rational, 6.2e-9, in fused multiply-adds: faster, and enough for float32).
_rt_erf_series = (-1.6365844691234924e-07, 1.6462114365889246e-06, -1.492565035840625e-05,
                  0.00012055332981789664, -0.0008548327023450852, 0.005223977625442188,
                  -0.026866170645131252, 0.11283791670955126, -0.37612638903183754,
                  1.1283791670955126)
_rt_erfcx_p = (0.01011545102150123, 0.09349533712313061, 0.40447582994693454,
               1.0041100182253484, 1.4369768720230862, 0.9999999999133165)
_rt_erfcx_q = (0.017929191378245266, 0.1657151504108549, 0.72590108531829,
               1.8623211005659412, 2.8988045707519765, 2.5653560273905898, 1.0)


def _rt_horner(c, z):
    """The polynomial with coefficients ``c`` (highest power first) at ``z``, in place."""
    acc = z * c[0]
    for k in c[1:-1]:
        acc += k
        acc *= z
    acc += c[-1]
    return acc


def _rt_erf_fast(x, upper):
    """erf (``upper`` false) or erfc of a float64 array to a relative error below 1e-9,
    enough for float32 results, where ``_rt_erf_exact`` costs a Python call an element:
    the series below 0.5, above it erfc(|x|) as exp(-x*x) P(|x|) / Q(|x|), so neither
    cancels. In blocks that stay in cache (3x faster on a transformer's activations)."""
    out = np.empty_like(x)
    flat, into = x.reshape(-1), out.reshape(-1)
    for i in range(0, flat.size, 32768):
        w = flat[i:i + 32768]
        a, z = np.abs(w), w * w
        small = _rt_horner(_rt_erf_series, z)
        small *= w  # erf(w), |w| < 0.5
        tail = np.exp(-z)
        tail *= _rt_horner(_rt_erfcx_p, a)
        tail /= _rt_horner(_rt_erfcx_q, a)
        tail[a > 10.5] = 0.0  # erfc(|w|)
        near = a < 0.5
        if upper:
            part = np.where(w > 0, tail, 2.0 - tail)
            part[near] = 1.0 - small[near]
        else:
            part = np.where(w > 0, 1.0 - tail, tail - 1.0)
            part[near] = small[near]
        into[i:i + 32768] = part
    return out


def _rt_erf(x):
    """erf in float64: by ``_rt_erf_fast`` for float32 input, else exact."""
    x = np.asarray(x)
    if x.dtype == np.float32:
        return _rt_erf_fast(x.astype(np.float64), False)
    return np.asarray(_rt_erf_exact(x), dtype=np.float64)


def _rt_erfc(x):
    """erfc in float64: by ``_rt_erf_fast`` for float32 input, else exact."""
    x = np.asarray(x)
    if x.dtype == np.float32:
        return _rt_erf_fast(x.astype(np.float64), True)
    return np.asarray(_rt_erfc_exact(x), dtype=np.float64)


#: erfinv's first guess (M. Giles' polynomials in w = -log(1 - y*y), shifted), which two
#: Newton steps on erf then refine to double precision.
_rt_erfinv_central = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                      0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_rt_erfinv_tail = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                   0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _rt_erfinv(y):
    """The inverse of erf, in float64: inf at 1, -inf at -1, nan outside [-1, 1]."""
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - y) * (1.0 + y))
        central, tail = w < 5.0, np.sqrt(w) - 3.0
        w = np.where(central, w - 2.5, tail)
        p = np.zeros_like(y)
        for c, t in zip(_rt_erfinv_central, _rt_erfinv_tail):
            p = p * w + np.where(central, c, t)
        x = np.where(np.abs(y) < 1.0, p * y, 0.0)
        for _ in range(2):
            erf = np.asarray(_rt_erf(x), dtype=np.float64)
            x = x - (erf - y) / (1.1283791670955126 * np.exp(-x * x))
        edge = np.where(y == 1.0, np.inf, np.where(y == -1.0, -np.inf, np.nan))
        return np.where(np.abs(y) < 1.0, x, edge)


def _rt_pow(x, y):
    """``x ** y``; numpy refuses integer negative powers, a device truncates them
    (``2 ** -1 == 0``, ``1 ** -n == 1``, ``(-1) ** -n == (-1) ** n``)."""
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype.kind not in "iu" or not (y < 0).any():
        return np.power(x, y)
    out = np.power(x, np.abs(y))
    return np.where(y < 0, np.where(np.abs(x) == 1, out, 0).astype(x.dtype), out)


def _rt_gelu(x, approximate):
    """GeLU, by tanh or by erf (``approximate`` "tanh" or "none"). The erf form computes
    in float64 and casts back to the input's dtype, as the numba target does: for float32
    as x erfc(-x / sqrt 2) / 2 (``_rt_erf_fast``, which does not cancel for x < 0)."""
    x = np.asarray(x)
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
    if x.dtype == np.float32:
        wide = x.astype(np.float64)
        return (0.5 * wide * _rt_erf_fast(-0.7071067811865476 * wide, True)).astype(x.dtype)
    erf = _rt_erf(x / 1.4142135623730951)
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


def _rt_window(tap, dilation, stride, size):
    """The slices of a padded input that one kernel tap reads for every output position
    (``size`` of them per spatial dim), batch and channel dims whole."""
    return (slice(None), slice(None)) + tuple(
        slice(t * d, t * d + s * (n - 1) + 1, s) for t, d, s, n in zip(tap, dilation, stride, size))


def _rt_window_counts(xp, kernel, stride, dilation):
    """How many windows of ``kernel`` fit each spatial dim of the padded input ``xp``."""
    return tuple((xp.shape[2 + i] - dilation[i] * (k - 1) - 1) // stride[i] + 1
                 for i, k in enumerate(kernel))


def _rt_padded(size, pad):
    """The spatial ``size`` with ``pad`` (lo, hi per spatial dim) added."""
    return tuple(s + pad[2 * i] + pad[2 * i + 1] for i, s in enumerate(size))


def _rt_pad_spatial(x, pad, value):
    """x with ``pad`` (lo, hi per spatial dim) of ``value`` around its spatial dims."""
    pairs = [(0, 0), (0, 0)] + [(pad[2 * i], pad[2 * i + 1]) for i in range(x.ndim - 2)]
    return np.pad(x, pairs, constant_values=value)


def _rt_shifted(channels, size, padded, stride):
    """Whether a convolution is a sum of shifted products (``_rt_conv_shifted``, and the
    numba target's): stride 1, at least 32 channels, each product at least 512 columns
    wide and at most 1/8 more of them than ``size``, the output's positions, since a
    product covers every padded column of each output row."""
    wide = size[0] * math.prod(padded[1:])
    return all(s == 1 for s in stride) and channels >= 32 and wide >= 512 and \
        8 * wide <= 9 * math.prod(size)


def _rt_conv_shifted(x, w, dilation, pad, padded, size):
    """The sum over taps of the tap's (out, in) weight matrix times the zero-bordered
    input (spatial shape ``padded``), flattened and shifted by the tap's offset (a product
    reads the input where it lies: no im2col copy); the output is a view of the first
    columns of each padded row."""
    n, c, o = x.shape[0], x.shape[1], w.shape[0]
    row = math.prod(padded[1:])
    flat = np.zeros((n, c, (padded[0] + 1) * row), x.dtype)  # + a slab the last taps read
    inner = tuple(slice(pad[2 * i], pad[2 * i] + s) for i, s in enumerate(x.shape[2:]))
    flat[:, :, :padded[0] * row].reshape((n, c) + padded)[(Ellipsis,) + inner] = x
    taps = np.ascontiguousarray(np.moveaxis(w, (0, 1), (-2, -1)))  # (*kernel, out, in)
    acc = part = None
    for tap in np.ndindex(*w.shape[2:]):
        at = sum(t * d * math.prod(padded[i + 1:]) for i, (t, d) in enumerate(zip(tap, dilation)))
        product = np.matmul(taps[tap], flat[:, :, at:at + size[0] * row], out=part)
        if acc is None:
            acc, part = product, np.empty_like(product)
        else:
            acc += product
    wide = acc.reshape((n, o, size[0]) + padded[1:])
    return wide[(Ellipsis,) + tuple(slice(0, s) for s in size[1:])]  # a view: no copy


def _rt_conv(x, w, stride, dilation, pad, groups):
    """Grouped N-d cross-correlation, NC* layout. Ungrouped: a sum of shifted products
    where ``_rt_shifted`` says so (ResNet's 56x56 and 28x28 3x3 layers); 2-d otherwise:
    im2col (every window as a column, one copy through a strided view) and one matmul
    per image, BLAS's best case (a 7x7 stem: 7x faster than a matmul per tap); up to 4096
    output positions in the whole batch, one matmul for all of them instead (the weights
    read once: ResNet's 28x28 to 7x7 layers at batch 4, 25-30% faster). Otherwise one
    batched matmul per kernel tap of the (groups, out/groups, in/groups) weight slice
    with the positions it reads."""
    x, w = np.asarray(x), np.asarray(w)
    n, c, o, kernel = x.shape[0], x.shape[1], w.shape[0], w.shape[2:]
    if groups == 1 and x.dtype.kind == "f" and x.dtype == w.dtype:
        padded = _rt_padded(x.shape[2:], pad)
        size = tuple(p - d * (k - 1) for p, d, k in zip(padded, dilation, kernel))
        if _rt_shifted(c, size, padded, stride):
            return _rt_conv_shifted(x, w, dilation, pad, padded, size)
    xp = _rt_pad_spatial(x, pad, 0)
    if groups == 1 and len(kernel) == 2:
        (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
        oh = (xp.shape[2] - dh * (kh - 1) - 1) // sh + 1
        ow = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
        sn, sc, sy, sx = xp.strides
        if n * oh * ow <= 4096:  # (channels x taps, images x positions): one matmul
            cols = np.lib.stride_tricks.as_strided(
                xp, (c, kh, kw, n, oh, ow), (sc, sy * dh, sx * dw, sn, sy * sh, sx * sw))
            out = w.reshape(o, -1) @ cols.reshape(c * kh * kw, n * oh * ow)
            return np.ascontiguousarray(out.reshape(o, n, oh, ow).transpose(1, 0, 2, 3))
        cols = np.lib.stride_tricks.as_strided(
            xp, (n, c, kh, kw, oh, ow), (sn, sc, sy * dh, sx * dw, sy * sh, sx * sw))
        return np.matmul(w.reshape(o, -1), cols.reshape(n, c * kh * kw, oh * ow)) \
            .reshape(n, o, oh, ow)
    size = _rt_window_counts(xp, kernel, stride, dilation)
    wg = w.reshape((groups, o // groups, c // groups) + kernel)
    acc = np.zeros((n, groups, o // groups, math.prod(size)), x.dtype)
    for tap in np.ndindex(*kernel):
        seen = xp[_rt_window(tap, dilation, stride, size)].reshape(n, groups, c // groups, -1)
        acc += np.matmul(wg[(slice(None),) * 3 + tap], seen)
    return acc.reshape((n, o) + size)


def _rt_conv_transpose(dy, w, stride, dilation, pad, groups, size):
    """The adjoint of ``_rt_conv`` in its input: each kernel tap scatters its weight slice
    times ``dy`` back to the positions it read; the result has spatial shape ``size``."""
    dy, w = np.asarray(dy), np.asarray(w)
    n, o, kernel, cg = dy.shape[0], dy.shape[1], w.shape[2:], w.shape[1]
    out = dy.shape[2:]
    padded = tuple(s + pad[2 * i] + pad[2 * i + 1] for i, s in enumerate(size))
    xp = np.zeros((n, groups * cg) + padded, dy.dtype)
    wg = np.swapaxes(w.reshape((groups, o // groups, cg) + kernel), 1, 2)
    dyg = dy.reshape(n, groups, o // groups, -1)
    for tap in np.ndindex(*kernel):
        back = np.matmul(wg[(slice(None),) * 3 + tap], dyg)
        xp[_rt_window(tap, dilation, stride, out)] += back.reshape((n, groups * cg) + out)
    crop = tuple(slice(pad[2 * i], pad[2 * i] + s) for i, s in enumerate(size))
    return np.ascontiguousarray(xp[(slice(None), slice(None)) + crop])


def _rt_max_pool(x, kernel, stride, dilation, pad):
    """The maximum of each window (padding is -inf; a NaN in a window wins, as in numpy)."""
    x = np.asarray(x)
    xp = _rt_pad_spatial(x, pad, -np.inf)
    size = _rt_window_counts(xp, kernel, stride, dilation)
    best = None
    for tap in np.ndindex(*kernel):
        seen = xp[_rt_window(tap, dilation, stride, size)]
        best = seen.copy() if best is None else np.maximum(best, seen)
    return best


def _rt_pool_argmax(xp, kernel, stride, dilation):
    """The windows of the padded input ``xp`` (slices, one per tap) and, for each output
    position, the tap of its window's first maximum (row-major order; a NaN beats any
    number)."""
    size = _rt_window_counts(xp, kernel, stride, dilation)
    windows = [_rt_window(tap, dilation, stride, size) for tap in np.ndindex(*kernel)]
    best, arg = xp[windows[0]], np.zeros(xp.shape[:2] + size, np.int64)
    for i, window in enumerate(windows[1:], 1):
        seen = xp[window]
        take = (seen > best) | (np.isnan(seen) & ~np.isnan(best))
        best, arg = np.where(take, seen, best), np.where(take, i, arg)
    return windows, arg


def _rt_max_pool_grad(x, g, kernel, stride, dilation, pad):
    """``g`` routed to the first maximum of each window, summed where windows overlap."""
    x, g = np.asarray(x), np.asarray(g)
    xp = _rt_pad_spatial(x, pad, -np.inf)
    windows, arg = _rt_pool_argmax(xp, kernel, stride, dilation)
    dxp = np.zeros(xp.shape, g.dtype)
    for i, window in enumerate(windows):
        dxp[window] += np.where(arg == i, g, 0).astype(g.dtype)
    crop = tuple(slice(pad[2 * i], pad[2 * i] + s) for i, s in enumerate(x.shape[2:]))
    return np.ascontiguousarray(dxp[(slice(None), slice(None)) + crop])


def _rt_max_pool_grad_grad(x, c, kernel, stride, dilation, pad):
    """For each window of ``x``, ``c`` (shaped like x) at the window's first maximum: the
    adjoint of ``_rt_max_pool_grad`` in its cotangent."""
    x, c = np.asarray(x), np.asarray(c)
    windows, arg = _rt_pool_argmax(_rt_pad_spatial(x, pad, -np.inf), kernel, stride, dilation)
    cp = _rt_pad_spatial(c, pad, 0)
    out = np.zeros(arg.shape, c.dtype)
    for i, window in enumerate(windows):
        out += np.where(arg == i, cp[window], 0).astype(c.dtype)
    return out


def _rt_sort(x, axis, descending):
    """(values, int32 indices) sorted along ``axis``, stably in both directions: equal
    elements keep their order (descending: a stable ascending sort of the reversed row,
    read backwards)."""
    x = np.asarray(x)
    if descending:
        flipped = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
        order = x.shape[axis] - 1 - np.flip(flipped, axis)
    else:
        order = np.argsort(x, axis=axis, kind="stable")
    return np.take_along_axis(x, order, axis), order.astype(np.int32)


def _rt_cumprod(x, axis, exclusive, reverse):
    """Running products along ``axis`` in x's dtype (``exclusive``: each leaves its own
    element out; ``reverse``: from the end)."""
    x = np.asarray(x)
    a = np.flip(x, axis) if reverse else x
    out = np.cumprod(a, axis=axis, dtype=x.dtype)
    if exclusive and x.shape[axis]:
        head = np.ones_like(np.take(out, [0], axis))
        out = np.concatenate((head, np.take(out, range(x.shape[axis] - 1), axis)), axis)
    return np.ascontiguousarray(np.flip(out, axis) if reverse else out)


def _rt_cumextreme(x, axis, largest, index_dtype):
    """(running maximum or minimum along ``axis``, the index where it was last reached).
    An element equal to the running extreme is where it was reached, the latest such."""
    x = np.asarray(x)
    values = (np.maximum if largest else np.minimum).accumulate(x, axis=axis)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    at = np.where(x == values, np.arange(x.shape[axis]).reshape(shape), 0)
    return values, np.maximum.accumulate(at, axis=axis).astype(index_dtype)


def _rt_wrap_index(idx, dim):
    """Indices counted from the end made non-negative; IndexError out of range."""
    idx = np.asarray(idx)
    if ((idx < -dim) | (idx >= dim)).any():
        raise IndexError(f"an index is out of range for a dim of size {dim}")
    return np.where(idx < 0, idx + dim, idx)


def _rt_gather_d(x, axis, idx):
    """``out[..., j, ...] = x[..., idx[..., j, ...], ...]`` along ``axis``."""
    return np.take_along_axis(x, _rt_wrap_index(idx, x.shape[axis]), axis)


def _rt_scatter_d(x, axis, idx, updates, add):
    """x with each update written (or added) at its index along ``axis``; repeated
    indices: the last write wins, adds sum."""
    out = np.array(x, copy=True)
    at = list(np.indices(np.shape(idx), sparse=True))
    at[axis] = _rt_wrap_index(idx, x.shape[axis])
    if add:
        np.add.at(out, tuple(at), updates)
    else:
        out[tuple(at)] = updates
    return out


def _rt_index_tuples(x, idx):
    """Index tuples (the last axis of ``idx``) as one index array per leading dim of x;
    IndexError where one is out of range (negative included)."""
    idx = np.asarray(idx)
    for d in range(idx.shape[-1]):
        if ((idx[..., d] < 0) | (idx[..., d] >= x.shape[d])).any():
            raise IndexError(f"an index is out of range for dim {d} of size {x.shape[d]}")
    return tuple(np.moveaxis(idx, -1, 0))


def _rt_gather_nd(x, idx):
    return np.array(x[_rt_index_tuples(x, idx)])


def _rt_scatter_nd(x, idx, updates, add):
    """x with each update written (or added) at its index tuple."""
    out = np.array(x, copy=True)
    at = _rt_index_tuples(x, idx)
    if add:
        np.add.at(out, at, updates)
    else:
        out[at] = updates
    return out


def print_text(format, values):  # noqa: A002 - MindSpore's name
    """What ``Print`` writes: the format with each value's numpy text in its field."""
    return format.format(*(str(np.asarray(v)) for v in values))


def _rt_print(format, *values):  # noqa: A002
    """``Print`` at run time."""
    print(print_text(format, values))


def _rt_uniform_real(size, seed, offset, _streams={}):  # noqa: B006 - the module's streams
    """``UniformReal``: ``size`` float32 draws in [0, 1) from the stream of ``(seed,
    offset)``, created at its first draw and continued by later ones."""
    stream = _streams.get((seed, offset))
    if stream is None:
        stream = _streams[(seed, offset)] = np.random.default_rng((seed, offset))
    return stream.random(size, dtype=np.float32)
