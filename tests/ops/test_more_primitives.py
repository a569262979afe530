"""MindSpore 2.10's image, pooling, loss, special-function and random primitives that
compose msc's functions: values against numpy written here, eagerly and in a few compiled
graphs, gradients against finite differences, errors, and MindSpore itself where
``.peers/ms`` is installed (one subprocess for every case)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Tensor, ops
from msc.errors import MscError

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"
rng = np.random.default_rng(7)


def _close(actual, expected, rtol=1e-5, atol=1e-6):
    value = actual.asnumpy() if isinstance(actual, Tensor) else np.asarray(actual)
    assert value.shape == np.shape(expected), (value.shape, np.shape(expected))
    np.testing.assert_allclose(value, expected, rtol=rtol, atol=atol)


# --- SpaceToBatch, BatchToSpace, CheckNumerics, mirror_pad -----------------------------------


def _space_to_batch(x, b, pads):
    """out[(i * b + j) * N + n, c, h, w] = padded[n, c, h * b + i, w * b + j]."""
    x = np.pad(x, ((0, 0), (0, 0), tuple(pads[0]), tuple(pads[1])))
    n, c, hh, ww = x.shape
    out = np.zeros((n * b * b, c, hh // b, ww // b), x.dtype)
    for i in range(b):
        for j in range(b):
            for k in range(n):
                out[(i * b + j) * n + k] = x[k, :, i::b, j::b]
    return out


def test_space_to_batch_and_back():
    x = rng.standard_normal((2, 3, 4, 6)).astype(np.float32)
    pads = [[1, 1], [0, 2]]
    y = ops.SpaceToBatch(2, pads)(Tensor(x))
    _close(y, _space_to_batch(x, 2, pads))
    back = ops.BatchToSpace(2, pads)(y)
    _close(back, x)
    assert back.dtype == ms.float32


def test_space_to_batch_checks_its_arguments():
    with pytest.raises(ValueError, match="block_size"):
        ops.SpaceToBatch(1, [[0, 0], [0, 0]])
    with pytest.raises(TypeError, match="block_size"):
        ops.BatchToSpace(2.0, [[0, 0], [0, 0]])
    with pytest.raises(ValueError, match="crops"):
        ops.BatchToSpace(2, [[0, 0]])
    with pytest.raises(ValueError, match="rank of 'input_x' must be 4"):
        ops.SpaceToBatch(2, [[0, 0], [0, 0]])(Tensor(np.ones((2, 4, 4), np.float32)))


def test_check_numerics():
    x = Tensor(np.array([1.0, -2.5], np.float32))
    _close(ops.CheckNumerics()(x), [1.0, -2.5])
    with pytest.raises(RuntimeError, match="Tensor had NaN values"):
        ops.CheckNumerics()(Tensor(np.array([1.0, np.nan], np.float32)))
    with pytest.raises(RuntimeError, match="Tensor had Inf values"):
        ops.CheckNumerics()(Tensor(np.array([-np.inf, 0.0])))


def test_check_numerics_in_a_graph_is_a_clear_error():
    @ms.jit
    def f(x):
        return ops.CheckNumerics()(x) * 2

    with pytest.raises(MscError, match="CheckNumerics") as info:
        f(Tensor(np.ones(2, np.float32)))
    assert "test_more_primitives.py" in str(info.value)


def test_mirror_pad():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for mode, np_mode in (("REFLECT", "reflect"), ("SYMMETRIC", "symmetric")):
        out = ops.mirror_pad(Tensor(x), Tensor(np.array([[1, 2], [2, 1]])), mode)
        _close(out, np.pad(x, ((1, 2), (2, 1)), mode=np_mode))
    with pytest.raises(ValueError, match="mode"):
        ops.mirror_pad(Tensor(x), Tensor(np.array([[1, 1], [1, 1]])), "EDGE")


# --- special functions: BesselY0, BesselY1, Betainc, PopulationCount ---------------------------


def _trapezoid(f, lo, hi, n=400_001):
    t = np.linspace(lo, hi, n)
    return np.trapezoid(f(t), t)


def _bessel_y(order, x):
    """Y_n(x) from its integral representation (Watson): a finite part and a tail that
    decays like exp(-x sinh t)."""
    finite = _trapezoid(lambda t: np.sin(x * np.sin(t) - order * t), 0.0, np.pi)
    tail_end = np.arcsinh(60.0 / x) + 1.0
    tail = _trapezoid(lambda t: (np.exp(order * t) + (-1) ** order * np.exp(-order * t))
                      * np.exp(-x * np.sinh(t)), 0.0, tail_end)
    return (finite - tail) / np.pi


@pytest.fixture
def python_target():
    """Gradients compile a graph: the python target's, which needs no Numba compile."""
    ms.set_context(jit_target="python")
    yield
    ms.set_context(jit_target="numba")


def _central_difference(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def test_bessel_y0_y1_values_and_edges():
    xs = np.array([0.05, 0.7, 2.0, 6.5, 13.0, 24.0, 31.0, 80.0])
    for fn, cls, order in ((ops.bessel_y0, ops.BesselY0, 0), (ops.bessel_y1, ops.BesselY1, 1)):
        expected = [_bessel_y(order, v) for v in xs]
        _close(fn(Tensor(xs)), expected, rtol=1e-6, atol=1e-8)
        out = cls()(Tensor(xs.astype(np.float32)))
        assert out.dtype == ms.float32
        _close(out, np.float32(expected), rtol=1e-5, atol=1e-6)
        edges = fn(Tensor(np.array([0.0, -1.0, np.inf, np.nan]))).asnumpy()
        assert edges[0] == edges[1] == -np.inf and np.isnan(edges[2:]).all()
    with pytest.raises(TypeError):
        ops.bessel_y0(Tensor(np.array([1, 2], np.int32)))


def test_betainc_values_and_checks():
    a = np.array([1.0, 2.5, 4.0, 1.5])
    b = np.array([1.0, 1.5, 3.0, 6.0])
    x = np.array([0.3, 0.8, 0.45, 0.1])

    def reference(ai, bi, xi):
        density = lambda t: t ** (ai - 1) * (1 - t) ** (bi - 1)  # noqa: E731
        return _trapezoid(density, 0.0, xi) / _trapezoid(density, 0.0, 1.0)

    expected = [reference(*args) for args in zip(a, b, x)]
    _close(ops.Betainc()(Tensor(a), Tensor(b), Tensor(x)), expected, rtol=1e-7)
    out = ops.Betainc()(*(Tensor(v.astype(np.float32)) for v in (a, b, x)))
    assert out.dtype == ms.float32
    _close(out, np.float32(expected), rtol=1e-5)
    edge = ops.Betainc()(Tensor(np.ones(3)), Tensor(np.ones(3)), Tensor(np.array([0.0, 1.0, 1.5])))
    assert edge.asnumpy()[:2].tolist() == [0.0, 1.0] and np.isnan(edge.asnumpy()[2])
    with pytest.raises(TypeError, match="dtype of 'b'"):
        ops.Betainc()(Tensor(a), Tensor(b.astype(np.float32)), Tensor(x))
    with pytest.raises(ValueError, match="shape of 'x'"):
        ops.Betainc()(Tensor(a), Tensor(b), Tensor(x[:2]))


def test_special_gradients_match_finite_differences(python_target):
    x = np.array([0.4, 1.7, 9.0, 40.0])
    for fn in (ops.bessel_y0, ops.bessel_y1):
        got = ops.grad(lambda v: fn(v).sum())(Tensor(x)).asnumpy()
        want = _central_difference(lambda v: fn(Tensor(v)).asnumpy(), x)
        np.testing.assert_allclose(got, want, rtol=1e-6)
    a, b, x = np.array([0.7, 2.0, 3.5]), np.array([1.2, 2.0, 0.8]), np.array([0.2, 0.5, 0.9])
    grads = ops.grad(lambda p, q, v: ops.Betainc()(p, q, v).sum(), (0, 1, 2))(
        Tensor(a), Tensor(b), Tensor(x))
    want = _central_difference(lambda v: ops.Betainc()(Tensor(a), Tensor(b), Tensor(v)).asnumpy(),
                               x)
    np.testing.assert_allclose(grads[2].asnumpy(), want, rtol=1e-6)
    assert not grads[0].asnumpy().any() and not grads[1].asnumpy().any()  # as MindSpore 2.10


def test_population_count():
    for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        info = np.iinfo(dt)
        values = np.array([0, 1, 3, info.max, info.min, 77], dt)
        bits = 8 * np.dtype(dt).itemsize
        expected = [bin(int(v) & ((1 << bits) - 1)).count("1") for v in values]
        out = ops.population_count(Tensor(values))
        assert out.dtype == ms.uint8
        _close(out, np.array(expected, np.uint8))
    _close(ops.PopulationCount()(Tensor(np.array([[5, -2]], np.int16))), np.array([[2, 15]]))
    with pytest.raises(TypeError, match="integer"):
        ops.population_count(Tensor(np.array([1.0], np.float32)))


def test_special_functions_in_a_graph_match_eager():
    x = Tensor(np.array([0.5, 3.0, 27.0]))
    a, b = Tensor(np.array([0.5, 2.0, 3.0])), Tensor(np.array([1.0, 2.0, 0.5]))
    i = Tensor(np.array([-1, 5, 255], np.int16))

    def f(x, a, b, i):
        return (ops.bessel_y0(x) + ops.bessel_y1(x) * 2, ops.Betainc()(a, b, x / 30),
                ops.population_count(i) + 1)

    for got, want in zip(ms.jit(f)(x, a, b, i), f(x, a, b, i)):
        assert got.dtype == want.dtype
        _close(got, want.asnumpy(), rtol=1e-12, atol=0)


# --- pooling with argmax, losses, grid samplers -------------------------------------------------


def _pool_reference(x, kernel, stride, pads, dilation=(1, 1), ceil=False):
    """Max pooling with symmetric pads (padding never wins) and each maximum's first
    index in its (H * W) plane; loops over windows."""
    n, c, h, w = x.shape
    sizes = []
    for size, k, s, p, d in zip((h, w), kernel, stride, pads, dilation):
        span = size + 2 * p - d * (k - 1) - 1
        out = (-(-span // s) if ceil else span // s) + 1
        if ceil and (out - 1) * s >= size + p:
            out -= 1
        sizes.append(out)
    y = np.full((n, c, *sizes), -np.inf, x.dtype)
    arg = np.zeros((n, c, *sizes), np.int64)
    for i in range(sizes[0]):
        for j in range(sizes[1]):
            for a in range(kernel[0]):
                for b in range(kernel[1]):
                    r = i * stride[0] - pads[0] + a * dilation[0]
                    q = j * stride[1] - pads[1] + b * dilation[1]
                    if 0 <= r < h and 0 <= q < w:
                        better = x[:, :, r, q] > y[:, :, i, j]
                        y[:, :, i, j] = np.where(better, x[:, :, r, q], y[:, :, i, j])
                        arg[:, :, i, j] = np.where(better, r * w + q, arg[:, :, i, j])
    return y, arg


def test_max_pool_with_argmax_v2_and_3d():
    x = rng.standard_normal((2, 3, 7, 8)).astype(np.float32)
    for args, kernel, stride, pads, dil, ceil in (((3, 2, 1), (3, 3), (2, 2), (1, 1), (1, 1), False),
                                                  ((2, None, 0, (1, 1), True), (2, 2), (2, 2),
                                                   (0, 0), (1, 1), True),
                                                  ((3, 1, 1, (2, 2)), (3, 3), (1, 1), (1, 1),
                                                   (2, 2), False)):
        y, arg = ops.MaxPoolWithArgmaxV2(*args)(Tensor(x))
        want_y, want_arg = _pool_reference(x, kernel, stride, pads, dil, ceil)
        _close(y, want_y)
        _close(arg, want_arg)
        assert arg.dtype == ms.int64
    assert ops.MaxPoolWithArgmaxV2(2, argmax_type=ms.int32)(Tensor(x))[1].dtype == ms.int32
    with pytest.raises(TypeError, match="argmax_type"):
        ops.MaxPoolWithArgmaxV2(2, argmax_type=ms.float32)(Tensor(x))
    v = rng.standard_normal((1, 2, 4, 5, 5)).astype(np.float32)
    y, arg = ops.MaxPool3DWithArgmax(2, 2, 0)(Tensor(v))
    blocks = v[:, :, :4, :4, :4].reshape(1, 2, 2, 2, 2, 2, 2, 2).transpose(0, 1, 2, 4, 6, 3, 5, 7)
    _close(y, blocks.reshape(1, 2, 2, 2, 2, 8).max(-1))
    d, h, w = np.unravel_index(arg.asnumpy(), (4, 5, 5))
    np.testing.assert_array_equal(v[0, :, :, :, :][np.arange(2)[:, None, None, None], d[0], h[0],
                                                   w[0]], y.asnumpy()[0])
    with pytest.raises(ValueError, match="data_format"):
        ops.MaxPool3DWithArgmax(2, 2, 0, data_format="NDHWC")


def test_max_pool_with_argmax_indexes_its_sample():
    """MindSpore's deprecated form: the index counts the channels before the plane."""
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    y, arg = ops.MaxPoolWithArgmax(2, 2)(Tensor(x))
    want_y, want_arg = _pool_reference(x, (2, 2), (2, 2), (0, 0))
    _close(y, want_y)
    _close(arg, want_arg + np.arange(3).reshape(1, 3, 1, 1) * 36)
    assert arg.dtype == ms.int32


def test_adaptive_max_pool3d():
    v = rng.standard_normal((2, 2, 4, 6, 6)).astype(np.float32)
    y, arg = ops.AdaptiveMaxPool3D()(Tensor(v), Tensor(np.array([2, 3, 2], np.int32)))
    blocks = v.reshape(2, 2, 2, 2, 3, 2, 2, 3).transpose(0, 1, 2, 4, 6, 3, 5, 7)
    _close(y, blocks.reshape(2, 2, 2, 3, 2, 12).max(-1))
    assert arg.dtype == ms.int32 and arg.shape == (2, 2, 2, 3, 2)
    np.testing.assert_array_equal(np.take_along_axis(v.reshape(2, 2, -1),
                                                     arg.asnumpy().reshape(2, 2, -1), 2),
                                  y.asnumpy().reshape(2, 2, -1))


def test_losses():
    x, y = rng.standard_normal((4, 3)), rng.uniform(0, 1, (4, 3))
    w, pw = rng.uniform(0.5, 2, (4, 3)), rng.uniform(0.5, 2, (3,))
    sig = 1 / (1 + np.exp(-x))
    loss = -w * (pw * y * np.log(sig) + (1 - y) * np.log(1 - sig))
    for reduction, want in (("none", loss), ("sum", loss.sum()), ("mean", loss.mean())):
        got = ops.BCEWithLogitsLoss(reduction)(*(Tensor(v) for v in (x, y, w, pw)))
        _close(got, want, rtol=1e-10)
    a, p, n = (rng.standard_normal((5, 4)).astype(np.float32) for _ in range(3))
    d_pos = np.linalg.norm(a - p + 1e-6, axis=1)
    d_neg = np.minimum(np.linalg.norm(a - n + 1e-6, axis=1), np.linalg.norm(p - n + 1e-6, axis=1))
    got = ops.TripletMarginLoss(swap=True, reduction="none")(
        Tensor(a), Tensor(p), Tensor(n), Tensor(np.float32(0.5)))
    _close(got, np.maximum(d_pos - d_neg + 0.5, 0), rtol=1e-5)
    with pytest.raises(ValueError, match="rank of 'margin'"):
        ops.TripletMarginLoss()(Tensor(a), Tensor(p), Tensor(n), Tensor(np.ones(1, np.float32)))
    with pytest.raises(TypeError, match="'p'"):
        ops.TripletMarginLoss(p=2.0)
    scores = rng.standard_normal((2, 4)).astype(np.float32)
    target = np.array([[3, 0, -1, 1], [1, 2, 3, 0]], np.int32)
    loss, is_target = ops.MultilabelMarginLoss("none")(Tensor(scores), Tensor(target))
    want_loss, want_mask = [], np.zeros((2, 4), np.int32)
    for row, labels in zip(scores, target):
        listed = list(labels[:list(labels).index(-1)] if -1 in labels else labels)
        want_mask[len(want_loss), listed] = 1
        want_loss.append(sum(max(0.0, 1 - (row[j] - row[i])) for j in listed
                             for i in range(4) if i not in listed) / 4)
    _close(loss, np.float32(want_loss), rtol=1e-6)
    _close(is_target, want_mask)
    assert is_target.dtype == ms.int32


def test_grid_samplers_check_rank():
    x = Tensor(rng.standard_normal((1, 2, 3, 3)).astype(np.float32))
    grid = Tensor(np.zeros((1, 2, 2, 2), np.float32))
    _close(ops.GridSampler2D("nearest", "border", True)(x, grid),
           np.broadcast_to(x.asnumpy()[:, :, 1:2, 1:2], (1, 2, 2, 2)))
    with pytest.raises(ValueError, match="rank of 'input_x' must be 5"):
        ops.GridSampler3D()(x, grid)


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "the comparison with MindSpore itself needs it")
def test_values_match_mindspore_itself(tmp_path):
    """Every case of more_primitives_cases.py in MindSpore 2.10 (one subprocess) and in
    msc: the same shapes, dtypes and values."""
    cases_file = Path(__file__).with_name("more_primitives_cases.py")
    (tmp_path / "run.py").write_text(
        "import importlib.util, numpy as np, mindspore as ms\n"
        "from mindspore import ops, Tensor\n"
        f"spec = importlib.util.spec_from_file_location('cases', {str(cases_file)!r})\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "out = {}\n"
        "for name, thunk in module.cases(ms, ops, Tensor):\n"
        "    for i, t in enumerate(thunk()):\n"
        "        out[f'{name}#{i}'] = t.asnumpy()\n"
        "np.savez('out.npz', **out)\n")
    proc = subprocess.run([str(MINDSPORE), "run.py"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    expected = np.load(tmp_path / "out.npz")
    from tests.ops.more_primitives_cases import cases

    seen = 0
    for name, thunk in cases(ms, ops, Tensor):
        for i, got in enumerate(thunk()):
            want = expected[f"{name}#{i}"]
            value = got.asnumpy()
            assert value.dtype == want.dtype and value.shape == want.shape, name
            if want.dtype.kind == "f":
                np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5, err_msg=name)
            else:
                np.testing.assert_array_equal(value, want, err_msg=name)
            seen += 1
    assert seen == len(expected.files)


# --- image ops: CropAndResize, ROIAlign, Dilation2D, ResizeArea ----------------------------------


def _crop_reference(img, boxes, index, size, method, extrapolation):
    """TensorFlow's crop_and_resize, one sample at a time."""
    _, h, w, depth = img.shape
    out = np.zeros((len(boxes), *size, depth), np.float32)
    for r, (y1, x1, y2, x2) in enumerate(boxes):
        for i in range(size[0]):
            y = (y1 + (y2 - y1) * i / (size[0] - 1)) * (h - 1) if size[0] > 1 else \
                (y1 + y2) / 2 * (h - 1)
            for j in range(size[1]):
                x = (x1 + (x2 - x1) * j / (size[1] - 1)) * (w - 1) if size[1] > 1 else \
                    (x1 + x2) / 2 * (w - 1)
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    out[r, i, j] = extrapolation
                    continue
                pix = img[index[r]]
                if method == "nearest":
                    out[r, i, j] = pix[int(np.floor(y + 0.5)), int(np.floor(x + 0.5))]
                    continue
                top, left = int(np.floor(y)), int(np.floor(x))
                bottom, right = min(top + 1, h - 1), min(left + 1, w - 1)
                dy, dx = y - top, x - left
                upper = pix[top, left] * (1 - dx) + pix[top, right] * dx
                lower = pix[bottom, left] * (1 - dx) + pix[bottom, right] * dx
                out[r, i, j] = upper * (1 - dy) + lower * dy
    return out


def test_crop_and_resize():
    img = rng.standard_normal((2, 5, 6, 3)).astype(np.float32)
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.9, 0.7, 0.1, 0.0], [-0.2, 0.3, 0.6, 1.3]],
                     np.float32)
    index = np.array([1, 0, 1], np.int32)
    for method, size, ext in (("bilinear", (4, 5), 0.0), ("nearest", (3, 2), -1.0),
                              ("bilinear", (1, 3), 0.5)):
        got = ops.crop_and_resize(Tensor(img), Tensor(boxes), Tensor(index), size, method, ext)
        assert got.dtype == ms.float32
        _close(got, _crop_reference(img, boxes, index, size, method, ext), rtol=1e-5, atol=1e-5)
    out = ops.CropAndResize()(Tensor(img.astype(np.int32)), Tensor(boxes), Tensor(index), (2, 2))
    assert out.dtype == ms.float32
    with pytest.raises(ValueError, match="bilinear_v2"):
        ops.CropAndResize("bilinear_v2")(Tensor(img), Tensor(boxes), Tensor(index), (2, 2))
    with pytest.raises(TypeError, match="crop_size"):
        ops.crop_and_resize(Tensor(img), Tensor(boxes), Tensor(index), [2, 2])


def _bilinear_caffe(plane, y, x):
    """Caffe2's RoIAlign sample: 0 beyond a pixel outside, the edge row past the last."""
    h, w = plane.shape
    if y < -1 or y > h or x < -1 or x > w:
        return 0.0
    y, x = min(max(y, 0.0), h - 1), min(max(x, 0.0), w - 1)
    top, left = int(y), int(x)
    bottom, right = min(top + 1, h - 1), min(left + 1, w - 1)
    dy, dx = y - top, x - left
    return ((1 - dy) * ((1 - dx) * plane[top, left] + dx * plane[top, right])
            + dy * ((1 - dx) * plane[bottom, left] + dx * plane[bottom, right]))


def _roi_reference(feat, rois, ph, pw, scale, samples, end_mode):
    out = np.zeros((len(rois), feat.shape[1], ph, pw))
    for r, (b, x1, y1, x2, y2) in enumerate(rois):
        sx, sy = x1 * scale, y1 * scale
        ew, eh = (x2 + end_mode) * scale - sx, (y2 + end_mode) * scale - sy
        if not end_mode:
            ew, eh = max(ew, 1.0), max(eh, 1.0)
        for c in range(feat.shape[1]):
            for i in range(ph):
                for j in range(pw):
                    total = sum(_bilinear_caffe(feat[int(b), c],
                                                sy + (i + (a + 0.5) / samples) * eh / ph,
                                                sx + (j + (q + 0.5) / samples) * ew / pw)
                                for a in range(samples) for q in range(samples))
                    out[r, c, i, j] = total / samples ** 2
    return out


ROIS = np.array([[0, 1.0, 1.5, 9.0, 8.0], [1, -2.0, 0.0, 4.0, 13.0], [1, 3.0, 3.0, 3.5, 3.2]])


def test_roi_align():
    feat = rng.standard_normal((2, 2, 7, 6))
    for ph, pw, scale, samples, end in ((3, 2, 0.5, 2, 1), (2, 2, 1.0, 1, 0), (2, 3, 0.75, 3, 0)):
        got = ops.ROIAlign(ph, pw, scale, samples, end)(Tensor(feat), Tensor(ROIS))
        _close(got, _roi_reference(feat, ROIS, ph, pw, scale, samples, end), rtol=1e-10)
    with pytest.raises(ValueError, match="sample_num"):
        ops.ROIAlign(2, 2, 1.0, 0)(Tensor(feat), Tensor(ROIS))
    with pytest.raises(TypeError, match="spatial_scale"):
        ops.ROIAlign(2, 2, 1, 2)
    with pytest.raises(ValueError, match="roi_end_mode"):
        ops.ROIAlign(2, 2, 1.0, 2, 2)


def _dilation_reference(x, f, stride, dilation, same):
    n, c, h, w = x.shape
    kh, kw = f.shape[1:]
    if same:
        pads = []
        for size, k, s, d in zip((h, w), (kh, kw), stride, dilation):
            need = max(0, (-(-size // s) - 1) * s + d * (k - 1) + 1 - size)
            pads.append((need // 2, need - need // 2))
        x = np.pad(x, ((0, 0), (0, 0), *pads), constant_values=-np.inf)
    h, w = x.shape[2:]
    oh = (h - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (w - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.full((n, c, oh, ow), -np.inf)
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    v = x[:, :, i * stride[0] + a * dilation[0], j * stride[1] + b * dilation[1]]
                    out[:, :, i, j] = np.maximum(out[:, :, i, j], v + f[None, :, a, b])
    return out


def test_dilation2d():
    x, f = rng.standard_normal((2, 3, 7, 8)), rng.standard_normal((3, 2, 3))
    for stride, dilation, mode in ((1, 1, "same"), (2, 1, "valid"), ((1, 2), (2, 1), "SAME"),
                                   ((1, 1, 2, 2), (1, 1, 2, 1), "VALID")):
        got = ops.Dilation2D(stride, dilation, mode)(Tensor(x), Tensor(f))
        s = stride[-2:] if isinstance(stride, tuple) else (stride, stride)
        d = dilation[-2:] if isinstance(dilation, tuple) else (dilation, dilation)
        _close(got, _dilation_reference(x, f, s, d, mode.lower() == "same"), rtol=1e-12)
    ints = ops.Dilation2D(1, 1)(Tensor(np.arange(16, dtype=np.int32).reshape(1, 1, 4, 4)),
                                Tensor(np.zeros((1, 2, 2), np.int32)))
    assert ints.dtype == ms.int32 and ints.asnumpy()[0, 0, -1, -1] == 15
    with pytest.raises(ValueError, match="pad_mode"):
        ops.Dilation2D(1, 1, "pad")
    with pytest.raises(ValueError, match="stride"):
        ops.Dilation2D((1, 2, 1, 1), 1)


def _area_reference(img, size, align):
    """Each output pixel the overlap-weighted mean of the input pixels it covers."""
    def weights(n, out):
        scale = (n - 1) / (out - 1) if align and out > 1 else n / out
        m = np.zeros((out, n))
        for o in range(out):
            lo, hi = o * scale, (o + 1) * scale
            i = int(np.floor(lo))
            while i < hi:
                m[o, min(i, n - 1)] += (min(i + 1, hi) - max(i, lo)) / scale
                i += 1
        return m
    rows, cols = weights(img.shape[1], size[0]), weights(img.shape[2], size[1])
    return np.einsum("oh,nhwc,pw->nopc", rows, img, cols)


def test_resize_area():
    img = rng.standard_normal((2, 6, 7, 3)).astype(np.float32)
    for size, align in (((3, 4), False), ((10, 5), False), ((3, 4), True), ((11, 2), True)):
        got = ops.ResizeArea(align)(Tensor(img), Tensor(np.array(size, np.int32)))
        assert got.dtype == ms.float32
        _close(got, _area_reference(img.astype(np.float64), size, align), rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="int32"):
        ops.ResizeArea()(Tensor(img), Tensor(np.array([3, 4], np.int64)))
    with pytest.raises(ValueError, match="positive"):
        ops.ResizeArea()(Tensor(img), Tensor(np.array([3, 0], np.int32)))


def _numeric_gradient(f, x, h=1e-6):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        grad[i] = (f(up) - f(down)) / (2 * h)
    return grad


def test_image_gradients_match_finite_differences(python_target):
    feat = rng.standard_normal((2, 1, 4, 4))
    weights = rng.standard_normal((2, 1, 2, 2))
    roi = ops.ROIAlign(2, 2, 0.5, 2, 1)
    loss = lambda v: (roi(v, Tensor(ROIS[:2])) * Tensor(weights)).sum()  # noqa: E731
    got = ops.grad(loss)(Tensor(feat)).asnumpy()
    np.testing.assert_allclose(got, _numeric_gradient(lambda v: float(loss(Tensor(v))), feat),
                               rtol=1e-6, atol=1e-8)
    img = rng.standard_normal((1, 4, 4, 1))
    boxes = np.array([[0.1, 0.2, 0.7, 0.9], [0.5, 0.05, 0.3, 0.6]])  # inside: no jumps
    crop_w = rng.standard_normal((2, 3, 3, 1))

    def crop_loss(v, b):
        out = ops.crop_and_resize(v, b, Tensor(np.array([0, 0], np.int32)), (3, 3))
        return (out * Tensor(crop_w.astype(np.float32))).sum()

    grads = ops.grad(crop_loss, (0, 1))(Tensor(img.astype(np.float32)),
                                        Tensor(boxes.astype(np.float32)))
    for k, (value, grad) in enumerate(((img, grads[0]), (boxes, grads[1]))):
        def f(v, k=k):
            args = [Tensor(img.astype(np.float32)), Tensor(boxes.astype(np.float32))]
            args[k] = Tensor(v.astype(np.float32))
            return float(crop_loss(*args))
        np.testing.assert_allclose(grad.asnumpy(), _numeric_gradient(f, value, 1e-2),
                                   rtol=2e-2, atol=2e-3)
    x, f = rng.standard_normal((1, 2, 4, 4)), rng.standard_normal((2, 2, 2))
    dil = lambda v, w: (ops.Dilation2D(1, 1, "valid")(v, w) * 1.5).sum()  # noqa: E731
    gx, gf = ops.grad(dil, (0, 1))(Tensor(x), Tensor(f))
    np.testing.assert_allclose(gx.asnumpy(), _numeric_gradient(
        lambda v: float(dil(Tensor(v), Tensor(f))), x), rtol=1e-6)
    np.testing.assert_allclose(gf.asnumpy(), _numeric_gradient(
        lambda v: float(dil(Tensor(x), Tensor(v))), f), rtol=1e-6)


def test_image_ops_in_a_graph_match_eager():
    feat = Tensor(rng.standard_normal((2, 2, 7, 6)).astype(np.float32))
    img = Tensor(rng.standard_normal((2, 5, 6, 3)).astype(np.float32))
    boxes = Tensor(np.array([[0.1, 0.2, 0.8, 0.9], [0.9, 0.7, 0.1, 0.0]], np.float32))
    filt = Tensor(rng.standard_normal((2, 2, 3)).astype(np.float32))

    def f(feat, rois, img, boxes, filt):
        pooled, arg = ops.MaxPoolWithArgmaxV2(3, 2, 1)(feat)
        return (ops.ROIAlign(3, 2, 0.5, 2, 1)(feat, rois),
                ops.crop_and_resize(img, boxes, Tensor(np.array([1, 0], np.int32)), (3, 4)),
                ops.Dilation2D(1, 2)(feat, filt), pooled, arg,
                ops.MaxPoolWithArgmax(3, 2, "same")(feat)[1])

    args = (feat, Tensor(ROIS.astype(np.float32)), img, boxes, filt)
    for got, want in zip(ms.jit(f)(*args), f(*args)):
        assert got.dtype == want.dtype
        _close(got, want.asnumpy(), rtol=1e-6, atol=1e-6)


# --- random numbers: TruncatedNormal, Gamma, RandomGamma, Poisson, RandomPoisson --------------


def _check_moments(samples, mean, var, n):
    """Sample mean and variance within five standard errors (the variance's error from
    the fourth moment, bounded here by 3 var^2 + |excess|)."""
    assert abs(samples.mean() - mean) < 5 * np.sqrt(var / n), (samples.mean(), mean)
    assert abs(samples.var() - var) < 5 * var * np.sqrt(8.0 / n) + 1e-3, (samples.var(), var)


def test_gamma_numbers():
    n = 20000
    alphas = np.array([0.3, 1.0, 2.5, 30.0], np.float32)
    out = ops.RandomGamma(seed=3)(Tensor(np.array([n], np.int32)), Tensor(alphas))
    assert out.shape == (n, 4) and out.dtype == ms.float32
    values = out.asnumpy()
    assert (values > 0).all()
    for k, a in enumerate(alphas):
        _check_moments(values[:, k], a, a, n)
    # scale beta: mean alpha beta, variance alpha beta^2
    g = ops.gamma((n, 1, 2), Tensor(np.array([[3.0, 0.5]], np.float32)),
                  Tensor(np.array([2.0, 4.0], np.float32)), seed=1)
    assert g.shape == (n, 1, 2) and g.dtype == ms.float32
    _check_moments(g.asnumpy()[:, 0, 0], 6.0, 12.0, n)
    _check_moments(g.asnumpy()[:, 0, 1], 2.0, 8.0, n)
    assert ops.Gamma(seed=2)((3, 2), Tensor(np.ones(2, np.float32)),
                             Tensor(np.ones(1, np.float32))).shape == (3, 2)
    assert ops.random_gamma(Tensor(np.array([4, 3], np.int64)),
                            Tensor(np.ones(2, np.float64))).dtype == ms.float64
    with pytest.raises(TypeError, match="alpha"):
        ops.gamma((2,), Tensor(np.ones(2)), Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="shape"):
        ops.RandomGamma()((3,), Tensor(np.ones(1, np.float32)))
    with pytest.raises(ValueError, match="seed"):
        ops.RandomGamma(seed=-1)


def test_poisson_numbers():
    n = 20000
    rates = np.array([0.7, 4.0, 9.9, 10.0, 37.0, 1000.0], np.float32)
    out = ops.RandomPoisson(seed=5)(Tensor(np.array([n], np.int32)), Tensor(rates))
    assert out.shape == (n, 6) and out.dtype == ms.int64
    values = out.asnumpy()
    for k, lam in enumerate(rates.astype(np.float64)):
        _check_moments(values[:, k], lam, lam, n)
    for k, lam in ((1, 4.0), (4, 37.0)):  # each count as often as its probability says
        for count in (int(lam) - 3, int(lam), int(lam) + 2):
            p = np.exp(-lam + count * np.log(lam) - sum(np.log(np.arange(1, count + 1))))
            assert abs((values[:, k] == count).mean() - p) < 5 * np.sqrt(p * (1 - p) / n)
    p = ops.poisson((n, 1), Tensor(np.array([5.0, 10.0], np.float32)), seed=2)
    assert p.shape == (n, 2) and p.dtype == ms.int32
    _check_moments(p.asnumpy()[:, 1].astype(np.float64), 10.0, 10.0, n)
    r = ops.random_poisson(Tensor(np.array([2, 2], np.int64)), Tensor(np.float64(5.0)))
    assert r.shape == (2, 2) and r.dtype == ms.float32
    assert ops.Poisson()((2,), Tensor(np.ones(2, np.float32))).dtype == ms.int32
    with pytest.raises(TypeError, match="dtype"):
        ops.RandomPoisson(dtype=ms.int8)
    with pytest.raises(ValueError, match="positive"):
        ops.RandomPoisson()(Tensor(np.array([-1], np.int32)), Tensor(np.ones(1, np.float32)))


def test_truncated_normal_numbers():
    out = ops.TruncatedNormal(seed=4)(Tensor(np.array([200, 100], np.int32)))
    assert out.shape == (200, 100) and out.dtype == ms.float32
    values = out.asnumpy().astype(np.float64)
    assert values.min() >= -2 and values.max() <= 2
    grid = np.linspace(-2, 2, 400_001)  # the truncated density's variance, numerically
    density = np.exp(-grid ** 2 / 2)
    var = np.trapezoid(grid ** 2 * density, grid) / np.trapezoid(density, grid)
    _check_moments(values.ravel(), 0.0, var, values.size)
    assert ops.TruncatedNormal(ms.float16)(Tensor(np.array([2, 3], np.int64))).dtype == \
        ms.float16
    with pytest.raises(ValueError, match="shape must >= 2"):
        ops.TruncatedNormal()(Tensor(np.array([5], np.int32)))
    with pytest.raises(TypeError, match="dtype"):
        ops.TruncatedNormal(ms.int32)


def test_random_seeds_repeat_their_numbers():
    shape, alpha = Tensor(np.array([50], np.int32)), Tensor(np.array([2.0], np.float32))
    first = ops.RandomGamma(seed=7)(shape, alpha).asnumpy()
    assert (ops.RandomGamma(seed=7)(shape, alpha).asnumpy() == first).all()
    assert not (ops.RandomGamma(seed=8)(shape, alpha).asnumpy() == first).all()
    ms.set_seed(3)
    a = ops.random_poisson(shape, Tensor(np.array([4.0], np.float32))).asnumpy()
    ms.set_seed(3)
    assert (ops.random_poisson(shape, Tensor(np.array([4.0], np.float32))).asnumpy() == a).all()


def test_random_numbers_in_a_graph(python_target):
    """A compiled graph draws the same distributions, with the shapes and dtypes of eager
    mode (the python target: the draws' Numba form is UniformReal's)."""
    n = 6000

    @ms.jit
    def f(alpha, lam):
        return (ops.RandomGamma()(Tensor(np.array([n], np.int32)), alpha),
                ops.RandomPoisson(dtype=ms.int32)(Tensor(np.array([n], np.int32)), lam),
                ops.TruncatedNormal()(Tensor(np.array([60, 100], np.int32))))

    g, p, t = f(Tensor(np.array([0.5, 3.0], np.float32)), Tensor(np.array([2.0, 50.0],
                                                                         np.float32)))
    assert (g.shape, g.dtype, p.shape, p.dtype, t.shape, t.dtype) == (
        (n, 2), ms.float32, (n, 2), ms.int32, (60, 100), ms.float32)
    for k, a in enumerate((0.5, 3.0)):
        _check_moments(g.asnumpy()[:, k].astype(np.float64), a, a, n)
    for k, lam in enumerate((2.0, 50.0)):
        _check_moments(p.asnumpy()[:, k].astype(np.float64), lam, lam, n)
    assert np.abs(t.asnumpy()).max() <= 2
