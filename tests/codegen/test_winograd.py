"""Winograd F(4x4, 3x3) convolutions (``msc/ir/primitives/winograd.py``): the runtime's
transforms against matrices derived here in rationals, the whole convolution against
float64 numpy on ResNet's layer shapes and on awkward ones (sizes not a multiple of 4,
no padding, one-sided padding), and the generated code actually taking the path."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import msc as ms
from msc import nn, ops
from msc.ir.primitives.winograd import SIZE, TILE
from msc.runtime import numba_winograd_rt as rt

POINTS = (Fraction(0), Fraction(-1), Fraction(1), Fraction(1, 2), Fraction(-2))


def lagrange(points, m=TILE, r=3):
    """(AT, G, BT) of F(m, r) over ``points`` and infinity, exact: AT evaluates at the
    points, G divides by the Lagrange denominators, and BT is what makes A^T[(G g) * (B^T
    d)] the correlation of g and d for every g and d (solved by least squares, then
    checked exact)."""
    a = m + r - 1
    at = np.array([[float(p ** k) for p in points] + [float(k == m - 1)] for k in range(m)])
    g = []
    for p in points:
        scale = np.prod([float(p - q) for q in points if q != p])
        g.append([float(p ** k) / scale for k in range(r)])
    g = np.array(g + [[float(k == r - 1) for k in range(r)]])
    rows, rhs = [], []
    for y in range(m):
        for t in range(r):
            for b in range(a):
                row = np.zeros((a, a))
                row[:, b] = at[y] * g[:, t]
                rows.append(row.ravel())
                rhs.append(float(b == y + t))
    bt = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)[0].reshape(a, a)
    assert np.abs(np.array(rows) @ bt.ravel() - rhs).max() < 1e-12  # an exact solution
    return at, g, bt


AT, G, BT = lagrange(POINTS)


def test_matrices_compute_a_correlation():
    rng = np.random.default_rng(0)
    d, g = rng.standard_normal(SIZE), rng.standard_normal(3)
    want = np.array([d[y:y + 3] @ g for y in range(TILE)])
    np.testing.assert_allclose(AT @ ((G @ g) * (BT @ d)), want, rtol=1e-12, atol=1e-12)


def test_runtime_transforms_are_the_matrices():
    rng = np.random.default_rng(1)
    d = rng.standard_normal(SIZE).astype(np.float32)
    np.testing.assert_allclose(rt._rt_wino_bt(*d), BT @ d.astype(np.float64), rtol=1e-6,
                               atol=1e-6)
    g = rng.standard_normal(3)
    np.testing.assert_allclose(rt._rt_wino_g(*g), G @ g, rtol=1e-14, atol=1e-14)
    m = rng.standard_normal(SIZE).astype(np.float32)
    np.testing.assert_allclose(rt._rt_wino_at(*m), AT @ m.astype(np.float64), rtol=1e-6,
                               atol=1e-6)


def conv64(x, w, pad):
    """The float64 reference: a sum of shifted products, one per tap."""
    top, bottom, left, right = pad
    p = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)))
    h, wd = p.shape[2] - 2, p.shape[3] - 2
    return sum(np.einsum("kc,nchw->nkhw", w[:, :, i, j].astype(np.float64),
                         p[:, :, i:i + h, j:j + wd]) for i in range(3) for j in range(3))


class Conv(nn.Cell):
    def __init__(self, pad):
        super().__init__()
        self.pad = pad

    def construct(self, x, w):
        return ops.conv2d(x, w, pad_mode="pad", padding=self.pad)


_BUILT = {}  # (shapes, padding) -> the module compiled for them: a test's values are inputs


def winograd_conv(x, w, pad, tmp_path):
    """The convolution compiled for the numba target, checking it takes the Winograd
    path: the generated module calls the transforms."""
    from tests.codegen import build, compile_fn

    key = (x.shape, w.shape, pad)
    if key not in _BUILT:
        _BUILT[key] = build(compile_fn(Conv(pad), [x, w]).module, "numba", tmp_path)
    assert "_rt_wino_conv(" in _BUILT[key].source
    return _BUILT[key](x, w)


@pytest.mark.parametrize("n,c,k,h,w,pad", [
    (1, 32, 48, 14, 17, (1, 1, 1, 1)),  # widths and heights not multiples of 4
    (2, 40, 32, 18, 17, (0, 0, 0, 0)),  # no padding: 16x15 outputs
    (3, 33, 35, 16, 16, (1, 0, 0, 1)),  # one-sided padding, odd channel counts
])
def test_winograd_matches_float64(n, c, k, h, w, pad, tmp_path):
    rng = np.random.default_rng(n * 100 + c)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    wt = (rng.standard_normal((k, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
    got = winograd_conv(x, wt, pad, tmp_path)
    want = conv64(x, wt, pad)
    assert got.shape == want.shape and got.dtype == np.float32
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()
    eager = Conv(pad)(ms.Tensor(x), ms.Tensor(wt)).asnumpy()
    np.testing.assert_allclose(got, eager, rtol=0, atol=1e-5 * np.abs(want).max())


@pytest.mark.parametrize("n,c,size", [(1, 64, 56), (1, 128, 28), (1, 256, 14), (2, 512, 7)])
def test_error_on_resnet_layers(n, c, size, tmp_path):
    """ResNet-18's Winograd layers at batch 1 (the last stage's 7x7 takes it from batch
    2; the tile and the points were chosen by this error: 4e-6 of the largest output
    here; the bench checks 1e-4)."""
    rng = np.random.default_rng(c)
    x = np.maximum(rng.standard_normal((n, c, size, size)), 0).astype(np.float32)  # post-ReLU
    wt = (rng.standard_normal((c, c, 3, 3)) * np.sqrt(2 / (9 * c))).astype(np.float32)
    got = winograd_conv(x, wt, (1, 1, 1, 1), tmp_path)
    want = conv64(x, wt, (1, 1, 1, 1))
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()


@pytest.mark.parametrize("n,size,taken", [(1, 7, False), (2, 7, True), (1, 14, True),
                                          (4, 6, False)])
def test_small_maps_take_it_from_enough_tiles(n, size, taken, tmp_path):
    """Outputs of at least 7x7 go through Winograd where the batch has at least
    MIN_BATCH_TILES 4x4 tiles (its transformed filters are read once a call however few
    tiles there are); others keep the products' way, with the same results."""
    from tests.codegen import build, compile_fn

    rng = np.random.default_rng(size)
    x = rng.standard_normal((n, 32, size, size)).astype(np.float32)
    wt = (rng.standard_normal((32, 32, 3, 3)) / np.sqrt(9 * 32)).astype(np.float32)
    built = build(compile_fn(Conv((1, 1, 1, 1)), [x, wt]).module, "numba", tmp_path)
    assert ("_rt_wino_conv(" in built.source) == taken
    want = conv64(x, wt, (1, 1, 1, 1))
    assert np.abs(built(x, wt) - want).max() <= 1e-5 * np.abs(want).max()


@pytest.mark.parametrize("where,value", [("x", np.inf), ("x", -np.inf), ("x", np.nan),
                                         ("x", 3e30), ("w", 1e20), ("w", np.nan)])
def test_values_the_transforms_cannot_take_give_the_direct_sum(where, value, tmp_path):
    """An infinity or NaN would spread over a whole 4x4 tile of Winograd's output (NaN
    where the direct sum is finite or infinite), a huge value overflow a transform: the
    runtime declines and the products' way computes the convolution, so exactly the
    windows that hold the value are infinite or NaN, as in eager mode."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 32, 16, 16)).astype(np.float32)
    wt = (rng.standard_normal((32, 32, 3, 3)) / np.sqrt(9 * 32)).astype(np.float32)
    (x if where == "x" else wt)[(0, 3, 5, 6) if where == "x" else (4, 3, 1, 2)] = value
    pad = (1, 1, 1, 1)
    got = winograd_conv(x, wt, pad, tmp_path)
    with np.errstate(invalid="ignore", over="ignore"):
        want = conv64(x, wt, pad)
        eager = Conv(pad)(ms.Tensor(x), ms.Tensor(wt)).asnumpy()
    for ref in (want, eager):
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
        np.testing.assert_array_equal(np.isposinf(got), np.isposinf(ref))
        np.testing.assert_array_equal(np.isneginf(got), np.isneginf(ref))
    finite = np.isfinite(want)
    assert finite.any() and not finite.all() or np.isfinite(value)
    scale = np.abs(want[finite]).max()
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-5, atol=1e-5 * scale)




def test_kept_filter_transform_follows_the_weights(tmp_path):
    """The driver keeps each layer's transformed filters between calls, by the filters'
    address (a view of the weights' arena), while they hold the same bits: a second call
    gives the first's bytes; filters changed in place (as a training step changes them)
    are transformed again, and a value the transforms cannot take still gives the direct
    sum after a kept transform of finite filters."""
    from tests.codegen import build, compile_fn
    from tests.codegen.test_threads import Stack

    rng = np.random.default_rng(11)
    net = Stack()  # (six Winograd layers: an outlined driver, which keeps transforms)
    net.set_train(False)
    x = rng.standard_normal((1, 32, 16, 16)).astype(np.float32)
    compiled = compile_fn(net, [x], target="numba")
    built = build(compiled.module, "numba", tmp_path, [p.asnumpy() for p in compiled.weights])
    assert built.source.count("= _rt_wino_threaded(") == 6
    kept = built.module._rt_wino_threaded.__globals__["_RT_WINO_KEPT"]
    before = set(kept)  # (the runtime module, and what it keeps, is the process's)
    first = built(x)
    assert len(set(kept) - before) == 6 and built(x).tobytes() == first.tobytes()
    param = net.convs[1].weight
    arena = next(a for a in built.extra if a.dtype == np.float32 and a.size >= param.size)
    start = int(np.flatnonzero(arena == param.asnumpy().ravel()[0])[0])
    weight = arena[start:start + param.size].reshape(param.shape)  # (the driver's filters)
    assert weight.tobytes() == param.asnumpy().tobytes()
    for where, value in (((3, 5), weight[3, 5] * -0.5), ((3, 5, 1, 1), np.inf),
                         ((3, 5, 1, 1), 0.25)):
        weight[where] = value  # (in place: the same address)
        got = built(x)
        param.set_data(ms.Tensor(weight.copy()))
        with np.errstate(invalid="ignore", over="ignore"):
            want = net(ms.Tensor(x)).asnumpy()
        for same in (np.isnan, np.isposinf, np.isneginf):
            np.testing.assert_array_equal(same(got), same(want))
        finite = np.isfinite(want)
        if np.isfinite(value).all():
            scale = np.abs(want).max()
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * scale)
            assert np.abs(got - first).max() > 1e-3 * scale
        else:
            assert not finite.any()  # (the infinity spreads through the layers after it)
