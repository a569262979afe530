"""Window functions, bounding boxes, patches (unfold/fold/col2im), diagonal and block
structure, the fused layer functions (rms_norm, add_layer_norm, swiglu, max_unpool, ...)
and the ``*_ext`` names: compiled (python target) == eager == numpy written independently;
MindSpore 2.10's values where its CPU kernels run them (windows, iou with its +1 pixel
convention, check_valid's bounds, bounding_box_encode/decode and its clipping, unfold,
fold, max_unpool2d, intopk, block_diag, combinations); gradients against finite
differences."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops
from tests.codegen import assert_same, numeric_grad, run_python_graph, to_numpy

RNG = np.random.default_rng(11)


def test_windows_as_mindspore_gives():
    """MindSpore 2.10's values (float32 but hann and kaiser, float64)."""
    cases = [
        (ops.bartlett_window(Tensor(np.int32(5))), [0, 0.4, 0.8, 0.8, 0.4], np.float32),
        (ops.bartlett_window(5, False), [0, 0.5, 1, 0.5, 0], np.float32),
        (ops.blackman_window(5), [0, 0.20077014, 0.8492299, 0.8492299, 0.20077014],
         np.float32),
        (ops.hamming_window(5), [0.08, 0.3978522, 0.9121478, 0.9121478, 0.3978522],
         np.float32),
        (ops.hann_window(5), [0, 0.3454915, 0.9045085, 0.9045085, 0.3454915], np.float64),
        (ops.kaiser_window(5, False, 8.0), [0.00233883, 0.36897272, 1, 0.36897272,
                                            0.00233883], np.float64),
        (ops.HammingWindow()(Tensor(np.array([4]))), [0.08, 0.54, 1, 0.54], np.float32),
        (ops.BartlettWindow(periodic=False)(Tensor(np.array([3]))), [0, 1, 0], np.float32),
    ]
    for got, want, dt in cases:
        assert got.asnumpy().dtype == dt
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, atol=1e-7)
    assert ops.hann_window(1).asnumpy().tolist() == [1.0]


def test_boxes_as_mindspore_gives():
    anchors = Tensor(np.array([[0, 0, 2, 2], [1, 1, 3, 3]], np.float32))
    gts = Tensor(np.array([[0, 0, 2, 2], [0, 0, 1, 1], [1, 0, 3, 2]], np.float32))
    np.testing.assert_allclose(ops.iou(anchors, gts).asnumpy(),
                               [[1, 0.2857143], [0.44444445, 0.08333334], [0.5, 0.5]], rtol=1e-6)
    np.testing.assert_allclose(ops.IOU("iof")(anchors[:1], gts[2:]).asnumpy(), [[0.6666667]])
    valid = ops.check_valid(Tensor(np.array([[0, 0, 7, 5], [0, 0, 8, 5], [0, 0, 7, 6],
                                             [-1, 0, 3, 3]], np.float32)),
                            Tensor(np.array([6, 8, 1], np.float32)))
    assert valid.asnumpy().tolist() == [True, False, False, False]
    enc = ops.bounding_box_encode(anchors[:1], Tensor(np.array([[0, 0, 3, 3]], np.float32)),
                                  (0.1, 0.2, 0.0, 0.0), (2.0, 1.0, 1.0, 0.5))
    np.testing.assert_allclose(enc.asnumpy(), [[0.03333334, -0.03333333, 0.28768212, 0.57536423]],
                               rtol=1e-6)
    dec = ops.BoundingBoxDecode((6, 7))(Tensor(np.array([[0, 0, 2, 2], [1, 1, 4, 3]], np.float32)),
                                        Tensor(np.array([[0.1, 0.2, 0.1, -0.1],
                                                         [0.5, 0.5, 9.5, 9.3]], np.float32)))
    np.testing.assert_allclose(dec.asnumpy(), [[0.1422435, 0.74274385, 2.4577565, 2.4572563],
                                               [0, 0, 7, 6]], rtol=1e-6)
    top = ops.intopk(Tensor(np.array([[1, 8, 5, 2, 7], [4, 9, 1, 3, 5]], np.float32)),
                     Tensor(np.array([1, 3], np.int32)), 3)
    assert top.asnumpy().tolist() == [True, False]


class Structure(nn.Cell):
    def construct(self, x, cols, v, a, b):
        return (ops.unfold(x, 2, padding=1, stride=2), ops.fold(cols, (3, 3), 2),
                x.unfold((2, 1)), ops.Im2Col(2)(x),
                ops.col2im(ops.reshape(cols, (1, 2, 4, 4)), Tensor(np.array([3, 3])), 2, 1, 0, 1),
                ops.matrix_diag(v, 1, padding_value=-1.0), ops.matrix_diag_part(a, -1, 0),
                ops.matrix_set_diag(a, v[:2]), ops.block_diag(a, v, b),
                ops.combinations(v, 2), ops.combinations(v, 2, True),
                ops.max_unpool2d(x[:, :, :2, :2], ops.cast(x[:, :, :2, :2] * 0 + 5, ms.int64), 2),
                nn.Unfold((1, 2, 2, 1), (1, 1, 1, 1), (1, 1, 1, 1))(x))


def unfold_ref(x, k, pad=0, stride=1):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - k[0]) // stride + 1, (w + 2 * pad - k[1]) // stride + 1
    out = np.zeros((n, c, k[0] * k[1], oh * ow), x.dtype)
    for ci in range(c):
        for ki, (di, dj) in enumerate(itertools.product(range(k[0]), range(k[1]))):
            for bi, (i, j) in enumerate(itertools.product(range(oh), range(ow))):
                out[:, ci, ki, bi] = xp[:, ci, i * stride + di, j * stride + dj]
    return out


def unpooled(v):
    """max_unpool2d of a 2 x 2 input with kernel 2 (a 4 x 4 output) where every index is
    5: the values land on one position, the last write winning."""
    up = np.zeros((1, 2, 16), np.float32)
    up[:, :, 5] = v.reshape(1, 2, 4)[:, :, -1]
    return up.reshape(1, 2, 4, 4)


def test_structure(tmp_path):
    x = RNG.normal(size=(1, 2, 3, 3)).astype(np.float32)
    cols = RNG.normal(size=(1, 8, 4)).astype(np.float32)
    v = RNG.normal(size=3).astype(np.float32)
    a = RNG.normal(size=(2, 2)).astype(np.float32)
    b = np.array(2.5, np.float32)
    folded = np.zeros((1, 2, 3, 3), np.float32)
    c4 = cols.reshape(1, 2, 4, 4)
    for ki, (di, dj) in enumerate(itertools.product(range(2), range(2))):
        for bi, (i, j) in enumerate(itertools.product(range(2), range(2))):
            folded[:, :, i + di, j + dj] += c4[:, :, ki, bi]
    md = np.full((3, 4), -1.0, np.float32)
    md[np.arange(3), np.arange(3) + 1] = v
    sd = a.copy()
    sd[[0, 1], [0, 1]] = v[:2]
    bd = np.zeros((4, 6), np.float32)
    bd[:2, :2], bd[2, 2:5], bd[3, 5] = a, v, b
    comb = np.array([[v[i], v[j]] for i, j in itertools.combinations(range(3), 2)])
    combr = np.array([[v[i], v[j]]
                      for i, j in itertools.combinations_with_replacement(range(3), 2)])
    patches = unfold_ref(x, (2, 2)).reshape(1, 2, 4, 2, 2).transpose(0, 2, 1, 3, 4)
    patches = patches.reshape(1, 8, 2, 2)
    expect = (unfold_ref(x, (2, 2), 1, 2).reshape(1, 8, -1), folded,
              unfold_ref(x, (2, 1)).reshape(1, 4, -1), unfold_ref(x, (2, 2)), folded, md,
              np.diag(a, -1), sd, bd, comb, combr, unpooled(x[:, :, :2, :2]), patches)
    eager = to_numpy(Structure()(*[Tensor(t) for t in (x, cols, v, a, b)]))
    graph = run_python_graph(Structure(), [x, cols, v, a, b], tmp_path)
    assert_same(eager, expect, "eager")
    assert_same(graph, expect, "python")


def test_unpool_and_fold_as_mindspore_gives():
    out = ops.MaxUnpool2D(ksize=2)(Tensor(np.array([[[[5.0, 6], [7, 8]]]], np.float32)),
                                   Tensor(np.array([[[[0, 3], [9, 15]]]], np.int64)))
    np.testing.assert_array_equal(out.asnumpy(), [[[[5, 0, 0, 6], [0, 0, 0, 0], [0, 7, 0, 0],
                                                    [0, 0, 0, 8]]]])
    f = ops.fold(Tensor(np.ones((1, 8, 4), np.float32)), Tensor(np.array([3, 3])), 2)
    np.testing.assert_array_equal(f.asnumpy()[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])
    with pytest.raises(ValueError, match="range of diagonals"):
        ops.matrix_diag_part(Tensor(np.ones((2, 2))), Tensor(np.array([-1, 1])), 0)


class Fused(nn.Cell):
    def construct(self, x, y, g):
        return (ops.rms_norm(x, g), ops.add_rms_norm(x, y, g)[0], ops.add_layer_norm(x, y, g, g)[0],
                ops.swiglu(x), ops.einsum_ext("ij,kj->ik", x, y), ops.isnan_ext(x),
                ops.diff_ext(x), ops.float_power_ext(ops.abs(x), 2),
                ops.accumulate_n([x, y]), ops.bidense(x, y, ops.stack([ops.eye(4, 4, ms.float32)]
                                                                      * 2), None),
                ops.embedding(ms.Tensor(np.array([1, 0])), x))


def test_fused_layer_functions(tmp_path):
    x = RNG.normal(size=(2, 4)).astype(np.float32)
    y = RNG.normal(size=(2, 4)).astype(np.float32)
    g = RNG.uniform(0.5, 1.5, 4).astype(np.float32)
    rstd = 1 / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6)
    s = x + y
    s_rstd = 1 / np.sqrt((s ** 2).mean(-1, keepdims=True) + 1e-6)
    mu, var = s.mean(-1, keepdims=True), s.var(-1, keepdims=True)
    a, b = x[:, :2], x[:, 2:]
    expect = ((x * rstd * g, rstd), s * s_rstd * g, (s - mu) / np.sqrt(var + 1e-5) * g + g,
              a / (1 + np.exp(-a)) * b, x @ y.T, np.isnan(x), np.diff(x),
              (np.abs(x).astype(np.float64) ** 2), x + y,
              np.stack([(x * y).sum(1)] * 2, 1), x[[1, 0]])
    expect = tuple(e if isinstance(e, tuple) or e.dtype != np.float32 else e for e in expect)
    assert_same(to_numpy(Fused()(Tensor(x), Tensor(y), Tensor(g))), expect, "eager", 1e-5, 1e-5)
    assert_same(run_python_graph(Fused(), [x, y, g], tmp_path), expect, "python", 1e-5, 1e-5)


def test_gradients_match_finite_differences():
    ms.set_context(jit_target="python")
    try:
        g = Tensor(np.array([1.0, 0.5, 2.0, 1.5]))

        def total(v):
            boxes = ops.concat([ops.abs(v[:, :2]), ops.abs(v[:, :2]) + ops.abs(v[:, 2:]) + 1], 1)
            img = ops.reshape(v, (1, 2, 2, 2))
            return (ops.sum(ops.iou(boxes, boxes + 0.5)) + ops.sum(ops.rms_norm(v, g)[0] ** 2)
                    + ops.sum(ops.unfold(img, 2, padding=1) ** 2)
                    + ops.sum(ops.fold(ops.reshape(v, (1, 4, 2)), (2, 3), (2, 2)) ** 3)
                    + ops.sum(ops.swiglu(v)) + ops.sum(ops.block_diag(v, v[0]) ** 2)
                    + ops.sum(ops.bounding_box_encode(boxes, boxes * 1.5 + 1)))

        x = RNG.normal(size=(2, 4))
        got = ops.grad(total)(Tensor(x)).asnumpy()
        want = numeric_grad(total, x)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    finally:
        ms.set_context(jit_target="numba")


def test_primitive_classes_as_mindspore_gives():
    """MindSpore 2.10's values for the classes over these functions."""
    i32 = np.int32
    assert ops.DataFormatDimMap()(Tensor(np.array([0, 1, 2, 3, -1], i32))).asnumpy().tolist() \
        == [0, 3, 1, 2, 2]
    assert ops.DataFormatVecPermute()(Tensor(np.array([1, 2, 3, 4], i32))).asnumpy().tolist() \
        == [1, 4, 2, 3]
    assert ops.InvertPermutation()((3, 4, 0, 2, 1)) == (2, 4, 3, 0, 1)
    assert ops.Padding(4)(Tensor(np.array([[8.0], [10.0]], np.float32))).asnumpy().tolist() == \
        [[8, 0, 0, 0], [10, 0, 0, 0]]
    assert ops.SelectView()(Tensor(np.arange(6).reshape(2, 3)), 1, 0).asnumpy().tolist() == \
        [3, 4, 5]
    assert ops.UnravelIndex()(Tensor(np.array([5, 7])), Tensor(np.array([3, 4]))
                              ).asnumpy().tolist() == [[1, 1], [1, 3]]
    assert ops.NthElement()(Tensor(np.array([[3, 1, 2], [9, 7, 8]], np.float32)), 1
                            ).asnumpy().tolist() == [2, 8]
    assert ops.NthElement(True)(Tensor(np.array([[3, 1, 2]], np.float32)), 0).asnumpy().tolist() \
        == [3]
    fill = ops.FillV2()(Tensor(np.array([2, 3])), Tensor(np.float32(1.5)))
    assert fill.dtype == ms.float32 and fill.shape == (2, 3)
    out = ops.Im2Col(ksizes=2)(Tensor(np.arange(18, dtype=np.float32).reshape(1, 2, 3, 3)))
    assert out.shape == (1, 2, 4, 4) and out.asnumpy()[0, 1, 3].tolist() == [13, 14, 16, 17]
    assert ops.IdentityN()((Tensor(np.array([1.0])),))[0].asnumpy().tolist() == [1.0]
    counts = ops.HistogramFixedWidth(3)(Tensor(np.array([-1.0, 0, 1.5, 2, 5, 15], np.float32)),
                                        Tensor(np.array([0.0, 5.0], np.float32)))
    assert counts.dtype == ms.int32 and counts.asnumpy().tolist() == [3, 1, 2]
    np.testing.assert_allclose(ops.Mvlgamma(p=2)(Tensor(np.array([2.5], np.float32))).asnumpy(),
                               [0.8570478], rtol=1e-6)
    dw = ops.DepthwiseConv2dNative(1, 2)(Tensor(np.ones((1, 2, 3, 3), np.float32)),
                                         Tensor(np.ones((1, 2, 2, 2), np.float32)))
    assert dw.shape == (1, 2, 2, 2) and (dw.asnumpy() == 4).all()
    assert ops.Range()(Tensor(0), Tensor(5), Tensor(2)).asnumpy().tolist() == [0, 2, 4]


def test_color_and_volume_patches_as_mindspore_gives():
    rgb = np.array([[[[0.2, 0.5, 0.1], [0.9, 0.1, 0.4]]]], np.float32)
    hsv = ops.RGBToHSV()(Tensor(rgb))
    np.testing.assert_allclose(hsv.asnumpy(), [[[[0.2916667, 0.8, 0.5],
                                                 [0.9375, 0.88888884, 0.9]]]], rtol=1e-6)
    np.testing.assert_allclose(ops.HSVToRGB()(hsv).asnumpy(), rgb, rtol=1e-6, atol=1e-7)
    vol = ops.ExtractVolumePatches((1, 1, 2, 2, 2), (1, 1, 1, 1, 1), "VALID")(
        Tensor(np.arange(54, dtype=np.float32).reshape(1, 2, 3, 3, 3)))
    assert vol.shape == (1, 16, 2, 2, 2)
    assert vol.asnumpy()[0, :, 0, 0, 0].tolist() == [0, 27, 1, 28, 3, 30, 4, 31, 9, 36, 10, 37,
                                                     12, 39, 13, 40]
