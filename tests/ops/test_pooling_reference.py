"""Average and max pooling of every rank and option against numpy written here from
MindSpore's documentation and CPU kernels, forward and gradient, eagerly and compiled on
both targets.

What MindSpore 2.10 computes on CPU (oneDNN's pooling under ``P.AvgPool3D``, which
``nn.AvgPool1d/2d`` with any non-default option and ``ops.avg_pool1d/2d`` call):
- the count of a window is its positions inside the input, grown by the declared padding
  when ``count_include_pad`` (in every pad mode, 'same' too), never by the positions that
  ``ceil_mode`` adds;
- ``divisor_override`` replaces the count: the sum over the divisor, whether the padding
  counts or not (checked against MindSpore 2.10 in tests/oracle);
- the 2-d ``P.AvgPool`` (``nn.AvgPool2d``'s default path) never counts its padding;
- max pooling takes the maximum over the positions inside the input; its gradient goes to
  the window's first maximum.
The reference's gradient is the pooling's adjoint, written from the same windows.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops
from msc.ops import operations as P

TARGETS = ["numba", "python"]


def windows(shape: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
            lo: tuple[int, ...], hi: tuple[int, ...], ceil: bool,
            dilation: tuple[int, ...]) -> tuple[tuple[int, ...], list[Any]]:
    """The output shape and, per output position, its taps inside the input and its
    number of taps inside the input grown by the declared padding."""
    nd = len(shape)
    sizes = []
    for n, k, s, dl, a, b in zip(shape, kernel, stride, dilation, lo, hi):
        span = n + a + b - dl * (k - 1) - 1
        assert span >= 0, "the window does not fit"
        count = (-(-span // s) if ceil else span // s) + 1
        if ceil and (count - 1) * s >= n + a:
            count -= 1
        sizes.append(count)
    found = []
    for p in itertools.product(*[range(c) for c in sizes]):
        taps, declared = [], 0
        for t in itertools.product(*[range(k) for k in kernel]):
            at = tuple(p[d] * stride[d] - lo[d] + t[d] * dilation[d] for d in range(nd))
            if all(0 <= at[d] < shape[d] for d in range(nd)):
                taps.append(at)
            if all(-lo[d] <= at[d] < shape[d] + hi[d] for d in range(nd)):
                declared += 1
        found.append((p, taps, declared))
    return tuple(sizes), found


def _weight(kernel: tuple[int, ...], taps: list[Any], declared: int, include: bool,
            divisor: int) -> float:
    if divisor:
        return 1 / divisor
    return 1 / (declared if include else len(taps))


def ref_pool(x: np.ndarray, kind: str, kernel: tuple[int, ...], stride: tuple[int, ...],
             lo: tuple[int, ...], hi: tuple[int, ...], ceil: bool = False,
             dilation: tuple[int, ...] | None = None, include: bool = True,
             divisor: int = 0) -> np.ndarray:
    nd = x.ndim - 2
    sizes, found = windows(x.shape[2:], kernel, stride, lo, hi, ceil, dilation or (1,) * nd)
    out = np.zeros(x.shape[:2] + sizes)
    for p, taps, declared in found:
        vals = np.stack([x[(slice(None), slice(None)) + t] for t in taps])
        here = (slice(None), slice(None)) + p
        out[here] = vals.max(axis=0) if kind == "max" else \
            vals.sum(axis=0) * _weight(kernel, taps, declared, include, divisor)
    return out


def ref_adjoint(x: np.ndarray, g: np.ndarray, kind: str, kernel: tuple[int, ...],
                stride: tuple[int, ...], lo: tuple[int, ...], hi: tuple[int, ...],
                ceil: bool = False, dilation: tuple[int, ...] | None = None,
                include: bool = True, divisor: int = 0) -> np.ndarray:
    """d(sum(pool(x) * g)) / dx: each window's g spread over its taps (average) or given
    to its first maximum (max)."""
    nd = x.ndim - 2
    _, found = windows(x.shape[2:], kernel, stride, lo, hi, ceil, dilation or (1,) * nd)
    gx = np.zeros(x.shape)
    for p, taps, declared in found:
        for lead in np.ndindex(*x.shape[:2]):
            if kind == "max":
                first = taps[int(np.argmax([x[lead + t] for t in taps]))]
                gx[lead + first] += g[lead + p]
            else:
                w = _weight(kernel, taps, declared, include, divisor)
                for t in taps:
                    gx[lead + t] += g[lead + p] * w
    return gx


def same_pad(shape: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
             dilation: tuple[int, ...] | None = None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """ceil(n / s) outputs, the odd unit of padding at the end."""
    lo, hi = [], []
    for n, k, s, d in zip(shape, kernel, stride, dilation or (1,) * len(shape)):
        need = max(0, (-(-n // s) - 1) * s + d * (k - 1) + 1 - n)
        lo.append(need // 2)
        hi.append(need - need // 2)
    return tuple(lo), tuple(hi)


SHAPES = {1: (2, 3, 7), 2: (1, 2, 5, 6), 3: (1, 2, 4, 3, 5)}


def _avg_pad(nd: int, k: int, s: int, p: int, ceil: bool, include: bool, div: int) -> Any:
    """(the msc form, the reference's arguments) for 'pad' mode average pooling."""
    if nd == 3:
        form = P.AvgPool3D(k, s, "pad", p, ceil, include, div)
    elif nd == 2:
        form = nn.AvgPool2d(k, s, "pad", p, ceil, include, div or None)
    else:
        form = nn.AvgPool1d(k, s, "pad", p, ceil, include)
    return form, dict(kind="avg", kernel=(k,) * nd, stride=(s,) * nd, lo=(p,) * nd,
                      hi=(p,) * nd, ceil=ceil, include=include, divisor=div)


def _cases() -> list[Any]:
    """(name, rank, form, reference arguments): every pad mode and option per rank."""
    cases = []
    for nd, (k, s, p) in itertools.product((1, 2, 3), [(3, 2, 1), (2, 3, 0)]):
        shape = SHAPES[nd][2:]
        kt, st = (k,) * nd, (s,) * nd
        for ceil, include, div in itertools.product((False, True), (True, False), (0, 5)):
            if nd == 1 and div:
                continue
            form, ref = _avg_pad(nd, k, s, p, ceil, include, div)
            cases.append((f"avg{nd}d-pad-k{k}s{s}p{p}-ceil{ceil}-inc{include}-div{div}", nd,
                          form, ref))
        for mode in ("same", "valid"):
            lo, hi = same_pad(shape, kt, st) if mode == "same" else ((0,) * nd, (0,) * nd)
            if nd == 3:
                for include, div in itertools.product((True, False), (0, 5)):
                    cases.append((f"AvgPool3D-{mode}-k{k}s{s}-inc{include}-div{div}", nd,
                                  P.AvgPool3D(k, s, mode, 0, False, include, div),
                                  dict(kind="avg", kernel=kt, stride=st, lo=lo, hi=hi,
                                       include=include, divisor=div)))
                cases.append((f"MaxPool3D-{mode}-k{k}s{s}", nd, P.MaxPool3D(k, s, mode),
                              dict(kind="max", kernel=kt, stride=st, lo=lo, hi=hi)))
            if nd == 2:
                ref = dict(kind="avg", kernel=kt, stride=st, lo=lo, hi=hi, include=False)
                cases.append((f"AvgPool-{mode}-k{k}s{s}", nd, P.AvgPool(k, s, mode), ref))
                cases.append((f"nn.AvgPool2d-{mode}-k{k}s{s}", nd, nn.AvgPool2d(k, s, mode), ref))
                cases.append((f"nn.AvgPool2d-{mode}-k{k}s{s}-div3", nd,
                              nn.AvgPool2d(k, s, mode, divisor_override=3),
                              dict(ref, include=True, divisor=3)))
                cases.append((f"MaxPool-{mode}-k{k}s{s}", nd, P.MaxPool(k, s, mode),
                              dict(kind="max", kernel=kt, stride=st, lo=lo, hi=hi)))
            layer = (nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d)[nd - 1]
            cases.append((f"nn.MaxPool{nd}d-{mode}-k{k}s{s}", nd, layer(k, s, mode),
                          dict(kind="max", kernel=kt, stride=st, lo=lo, hi=hi)))
        layer = (nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d)[nd - 1]
        for ceil, dil in itertools.product((False, True), (1, 2)):
            if dil * (k - 1) + 1 > min(shape) + 2 * p:
                continue
            cases.append((f"nn.MaxPool{nd}d-pad-k{k}s{s}p{p}-ceil{ceil}-dil{dil}", nd,
                          layer(k, s, "pad", p, dil, ceil_mode=ceil),
                          dict(kind="max", kernel=kt, stride=st, lo=(p,) * nd, hi=(p,) * nd,
                               ceil=ceil, dilation=(dil,) * nd)))
    return cases


CASES = _cases()
RNG = np.random.default_rng(48)


def _input(nd: int) -> np.ndarray:
    """Distinct values, so that every window has one maximum."""
    shape = SHAPES[nd]
    return (RNG.permutation(math.prod(shape)).reshape(shape) / 7.0 - 3).astype(np.float32)


@pytest.mark.parametrize("name,nd,form,ref", CASES, ids=[c[0] for c in CASES])
def test_eager_forward_and_gradient_match_numpy(name: str, nd: int, form: Any,
                                                ref: dict) -> None:
    x = _input(nd)
    want = ref_pool(x.astype(np.float64), **ref)
    got = form(Tensor(x)).asnumpy()
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    g = RNG.standard_normal(want.shape).astype(np.float32)
    dx = ms.grad(lambda t: (form(t) * Tensor(g)).sum())(Tensor(x)).asnumpy()
    np.testing.assert_allclose(dx, ref_adjoint(x.astype(np.float64), g, **ref), rtol=1e-4,
                               atol=1e-5)


def test_reported_avg_pool3d_same_excluding_padding() -> None:
    """Issue 48's case: each border window over its positions inside the input."""
    x = RNG.uniform(0, 100, (1, 3, 2, 3, 4)).astype(np.float32)
    k, s = (2, 2, 3), (1, 1, 1)
    lo, hi = same_pad(x.shape[2:], k, s)
    got = P.AvgPool3D(kernel_size=k, strides=1, pad_mode="SAME",
                      count_include_pad=False)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, ref_pool(x.astype(np.float64), "avg", k, s, lo, hi,
                                             include=False), rtol=1e-5)
    # the last window of each dim reaches into the padding: the mean of what it covers
    np.testing.assert_allclose(got[0, :, -1, -1, -1], x[0, :, 1, 2, 2:].mean(axis=-1),
                               rtol=1e-5)


GRAPH_CASES = [c for c in CASES if c[0] in {
    "avg1d-pad-k3s2p1-ceilTrue-incFalse-div0", "avg2d-pad-k3s2p1-ceilTrue-incFalse-div5",
    "avg3d-pad-k3s2p1-ceilTrue-incTrue-div5", "AvgPool3D-same-k3s2-incFalse-div0",
    "nn.MaxPool1d-pad-k3s2p1-ceilTrue-dil2", "nn.MaxPool3d-pad-k3s2p1-ceilFalse-dil1"}]


class Pools(nn.Cell):
    """Every graph case at once."""

    def __init__(self, forms: list[Any]) -> None:
        super().__init__()
        self.forms = forms

    def construct(self, xs: Any) -> Any:
        outs = ()
        for form, x in zip(self.forms, xs):
            outs = outs + (form(x),)
        return outs


class Loss(nn.Cell):
    """sum(pool_i(x_i) * g_i) over the cases, the inputs x_i held as Parameters."""

    def __init__(self, pools: Pools, xs: list[np.ndarray]) -> None:
        super().__init__()
        self.pools = pools
        self.xs = ms.ParameterTuple([ms.Parameter(Tensor(x), name=f"x{i}")
                                     for i, x in enumerate(xs)])

    def construct(self, gs: Any) -> Any:
        total = 0.0
        for y, g in zip(self.pools(self.xs), gs):
            total = total + (y * g).sum()
        return total


@pytest.mark.parametrize("target", TARGETS)
def test_compiled_forward_and_gradient_match_numpy(target: str) -> None:
    assert len(GRAPH_CASES) == 6
    xs = [_input(nd) for _, nd, _, _ in GRAPH_CASES]
    wants = [ref_pool(x.astype(np.float64), **ref) for x, (_, _, _, ref) in zip(xs, GRAPH_CASES)]
    gs = [RNG.standard_normal(w.shape).astype(np.float32) for w in wants]
    net = Pools([form for _, _, form, _ in GRAPH_CASES])
    loss = Loss(net, xs)
    grad = ops.GradOperation(get_by_list=True)(loss, loss.xs)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
    try:
        outs = net(tuple(Tensor(x) for x in xs))
        dxs = grad(tuple(Tensor(g) for g in gs))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for (name, _, _, ref), x, g, want, out, dx in zip(GRAPH_CASES, xs, gs, wants, outs, dxs):
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-5, err_msg=name)
        np.testing.assert_allclose(dx.asnumpy(), ref_adjoint(x.astype(np.float64), g, **ref),
                                   rtol=1e-4, atol=1e-5, err_msg=name)


# --- windows with no tap inside the input ----------------------------------------------------


def ref_argmax_v2(x: np.ndarray, kernel: tuple[int, int], stride: tuple[int, int],
                  pad: tuple[int, int], dilation: tuple[int, int]) -> tuple[Any, Any]:
    """``ops.max_pool2d`` (MindSpore's MaxPoolWithArgmaxV2) as its CPU kernel scans, from
    what MindSpore 2.10 returns: a window starts at the dtype's lowest finite value, with
    index c * H * W + its first tap at or after 0 in each dim; a tap inside the input
    that is greater (never a NaN) replaces both, with its index in (H, W)."""
    n, c, h, w = x.shape
    size = [(m + 2 * p - d * (k - 1) - 1) // s + 1
            for m, k, s, p, d in zip((h, w), kernel, stride, pad, dilation)]
    val, idx = np.empty((n, c, *size), x.dtype), np.empty((n, c, *size), np.int64)
    for b, ch, i, j in np.ndindex(*val.shape):
        top, left = i * stride[0] - pad[0], j * stride[1] - pad[1]
        rows = [top + a * dilation[0] for a in range(kernel[0])]
        cols = [left + a * dilation[1] for a in range(kernel[1])]
        first = min(r for r in rows if r >= 0) * w + min(q for q in cols if q >= 0)
        best, at = np.finfo(x.dtype).min, ch * h * w + first
        for r, q in itertools.product(rows, cols):
            if 0 <= r < h and 0 <= q < w and x[b, ch, r, q] > best:
                best, at = x[b, ch, r, q], r * w + q
        val[b, ch, i, j], idx[b, ch, i, j] = best, at
    return val, idx


#: (input, kernel, stride, padding, dilation): the reported case (width 1, padding 1,
#: dilation 2: taps -1 and 1, every window over the padding only), one in float64 with
#: channels, and windows partly in the padding holding NaN and -inf
OVER_PADDING = [
    (np.arange(4, dtype=np.float32).reshape(1, 1, 4, 1), (2, 2), (3, 3), (1, 1), (2, 2)),
    (np.arange(24, dtype=np.float64).reshape(2, 2, 3, 2), (1, 2), (1, 1), (0, 1), (1, 3)),
    (np.array([1, np.nan, np.nan, 2, -np.inf, np.nan] * 2, np.float16).reshape(1, 2, 2, 3),
     (2, 2), (1, 1), (1, 1), (1, 1))]


class V2Pools(nn.Cell):
    def construct(self, a: Any, b: Any, c: Any) -> Any:
        return (ops.max_pool2d(a, 2, 3, 1, 2, True), ops.max_pool2d(b, (1, 2), 1, (0, 1),
                                                                     (1, 3), True),
                ops.max_pool2d(c, 2, 1, 1, 1, True))


@pytest.mark.parametrize("target", ["eager"] + TARGETS)
def test_windows_over_the_padding_only_match_numpy(target: str) -> None:
    """MindSpore 2.10 gives such a window of ``ops.max_pool2d`` the dtype's lowest value
    and the index of its first tap at or after 0 (msc raised IndexError building it);
    ``nn.MaxPool2d``'s kernel starts at -inf, without the channel's offset."""
    if target != "eager":
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
    try:
        got = V2Pools()(*(Tensor(case[0]) for case in OVER_PADDING))
        layer = nn.MaxPool2d(2, 3, "pad", 1, 2, return_indices=True)(Tensor(OVER_PADDING[0][0]))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for (x, *window), (val, idx) in zip(OVER_PADDING, got):
        want_val, want_idx = ref_argmax_v2(x, *window)
        assert val.asnumpy().dtype == x.dtype
        np.testing.assert_array_equal(val.asnumpy(), want_val)
        np.testing.assert_array_equal(idx.asnumpy(), want_idx)
    np.testing.assert_array_equal(got[0][0].asnumpy().ravel(),  # float32's, not -inf
                                  np.float32([-3.4028235e38] * 2))
    np.testing.assert_array_equal(layer[0].asnumpy().ravel(), [-np.inf, -np.inf])
    np.testing.assert_array_equal(layer[1].asnumpy().ravel(), [2, 3])


def test_max_pool3d_pad_list_as_wide_as_the_kernel() -> None:
    """MaxPool3D's pad_list may sum to the kernel size (a window in the padding only:
    float32's lowest value, in float64 too); beyond it, or any padding over half the
    kernel in the other forms whatever the dilation, raises ValueError at the user's line."""
    x = np.arange(4, dtype=np.float64).reshape(1, 1, 1, 1, 4)
    got = P.MaxPool3D((1, 1, 2), 1, "pad", (0, 0, 0, 0, 2, 0))(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got.ravel(), [np.finfo(np.float32).min, 0, 1, 2, 3])
    y = Tensor(np.zeros((1, 1, 3, 2), np.float32))
    for make in (lambda: P.MaxPool3D((1, 1, 2), 1, "pad", (0, 0, 0, 0, 2, 1))(Tensor(x)),
                 lambda: ops.max_pool2d(y, 2, 1, 2, 4, True),
                 lambda: nn.MaxPool2d(2, 1, "pad", 2, 4)(y)):
        with pytest.raises(ValueError, match="padding") as err:
            make()
        assert "test_pooling_reference.py" in str(err.value)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_average_pooling_of_integers_is_a_type_error_naming_avg_pool(mode: int) -> None:
    """msc's average pooling is a depthwise convolution; its error names MindSpore's
    primitive, AvgPool, not Conv, at the user's line."""
    ms.set_context(mode=mode)
    with pytest.raises(TypeError, match=r"test_pooling_reference\.py:\d+:\d+: For 'AvgPool', "
                                        r"the x must be a float Tensor"):
        ops.avg_pool2d(Tensor(np.ones((1, 1, 4, 4), np.int32)), 2, 2)
    with pytest.raises(TypeError, match=r"test_pooling_reference\.py:\d+:\d+: For 'AvgPool', "
                                        r"the input must be a Tensor, but got list"):
        ops.avg_pool2d([[[1.0]]], 2, 2)
    with pytest.raises(ValueError, match=r"For 'AvgPool3D', the input must be 5-D"):
        ops.avg_pool3d(Tensor(np.ones((4, 4), np.float32)), 2, 2)
