"""Padding, resizing, pixel shuffle, Unflatten, CellDict, norm clipping and compiled
dropout: eager == GRAPH_MODE (python target; numba on a few) == numpy written here."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops

RNG = np.random.default_rng(11)


def _x(*shape: int) -> np.ndarray:
    return RNG.uniform(-2, 2, shape).astype(np.float32)


class Apply(nn.Cell):
    """``op(x, *args, **kwargs)`` as a Cell, so one call runs eagerly or compiled."""

    def __init__(self, op: Any, *args: Any, **kwargs: Any):
        super().__init__()
        self.op, self.args, self.kwargs = op, args, kwargs

    def construct(self, x: Any) -> Any:
        return self.op(x, *self.args, **self.kwargs)


def _check(net: Any, x: np.ndarray, want: np.ndarray, targets: tuple[str, ...] = ("python",),
           rtol: float = 1e-5) -> None:
    """eager == each target's graph == ``want`` (values, shape and dtype)."""
    outs = [net(Tensor(x))]
    for target in targets:
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
        try:
            outs.append(net(Tensor(x)))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    for out in outs:
        assert out.shape == want.shape and out.asnumpy().dtype == want.dtype
        np.testing.assert_allclose(out.asnumpy(), want, rtol=rtol, atol=1e-5)


# --- padding --------------------------------------------------------------------------------


def _np_pad(x: np.ndarray, padding: tuple[int, ...], mode: str, value: float = 0) -> np.ndarray:
    """ops.pad's padding order on numpy: negative amounts crop first."""
    pairs = [(0, 0)] * (x.ndim - len(padding) // 2) + \
        [(padding[2 * i], padding[2 * i + 1]) for i in reversed(range(len(padding) // 2))]
    crop = tuple(slice(max(-lo, 0), n - max(-hi, 0)) for n, (lo, hi) in zip(x.shape, pairs))
    grow = [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
    kind = {"replicate": "edge", "circular": "wrap"}.get(mode, mode)
    extra = {"constant_values": value} if mode == "constant" else {}
    return np.pad(x[crop], grow, mode=kind, **extra)


@pytest.mark.parametrize("padding, mode, value, targets", [
    ((1, 2, 0, 1), "constant", 1.5, ("python", "numba")),
    ((-1, 2, 1, -1), "constant", None, ("python",)),
    ((2, 1, 1, 2), "reflect", None, ("python", "numba")),
    ((2, 1, 1, 0), "replicate", None, ("python",)),
    ((3, 1, 2, 2), "circular", None, ("python",)),
    ((1, 1, 1, 1, 1, 0), "replicate", None, ("python",)),
])
def test_pad_modes_match_numpy(padding, mode, value, targets):
    x = _x(2, 3, 3, 4)
    _check(Apply(ops.pad, padding, mode, value), x,
           _np_pad(x, padding, mode, 0 if value is None else value), targets)


def test_pad_int_tensor_casts_the_value_and_layers_follow_ops_pad():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    _check(Apply(ops.pad, (1, 1), value=2.7), x, np.pad(x, [(0, 0), (1, 1)], constant_values=2))
    y = _x(1, 2, 3, 4)
    for layer, want in [
        (nn.ZeroPad2d((1, 0, 2, 1)), np.pad(y, [(0, 0), (0, 0), (2, 1), (1, 0)])),
        (nn.ConstantPad1d(2, 0.5), np.pad(y, [(0, 0)] * 3 + [(2, 2)], constant_values=0.5)),
        (nn.ConstantPad3d(1, -1.0), np.pad(y, [(0, 0)] + [(1, 1)] * 3, constant_values=-1)),
        (nn.ReflectionPad2d((1, 2, 0, 1)), np.pad(y, [(0, 0), (0, 0), (0, 1), (1, 2)],
                                                 mode="reflect")),
        (nn.ReplicationPad1d((1, 2)), np.pad(y, [(0, 0)] * 3 + [(1, 2)], mode="edge")),
        (nn.Pad(((0, 0), (1, 0), (1, 1), (3, 0)), mode="SYMMETRIC"),
         np.pad(y, [(0, 0), (1, 0), (1, 1), (3, 0)], mode="symmetric")),
        (nn.Pad(((0, 0), (0, 0), (1, 1), (2, 0)), mode="REFLECT"),
         np.pad(y, [(0, 0), (0, 0), (1, 1), (2, 0)], mode="reflect")),
    ]:
        _check(layer, y, want)


def test_pad_primitive_classes():
    y = _x(1, 2, 3, 4)
    pairs = ((0, 0), (0, 0), (1, 1), (2, 0))
    np.testing.assert_array_equal(ops.Pad(pairs)(Tensor(y)).asnumpy(), np.pad(y, pairs))
    sizes = Tensor(np.array(pairs, np.int64))
    np.testing.assert_array_equal(ops.MirrorPad("SYMMETRIC")(Tensor(y), sizes).asnumpy(),
                                  np.pad(y, pairs, mode="symmetric"))
    np.testing.assert_array_equal(ops.MirrorPad()(Tensor(y), sizes).asnumpy(),
                                  np.pad(y, pairs, mode="reflect"))
    out = ops.padding(Tensor(np.array([[1.0], [2.0]], np.float32)), 3).asnumpy()
    np.testing.assert_array_equal(out, [[1, 0, 0], [2, 0, 0]])


def test_pad_gradient_sums_the_copies():
    x = Tensor(_x(1, 1, 4))
    grad = ms.grad(lambda v: ops.pad(v, (2, 1), mode="reflect").sum())(x).asnumpy()
    np.testing.assert_array_equal(grad, [[[1, 2, 3, 1]]])  # c b [a b c d] c


@pytest.mark.parametrize("call, kind, match", [
    (lambda x: ops.pad(x, (1, 2, 3)), ValueError, "divisible by 2"),
    (lambda x: ops.pad(x, (1.0, 1)), TypeError, "tuple of int"),
    (lambda x: ops.pad(x, (1, 2), mode="foo"), ValueError, "mode"),
    (lambda x: ops.pad(x, (1, 2), mode="reflect", value=1.0), ValueError, "can not set value"),
    (lambda x: ops.pad(x, (4, 1), mode="reflect"), ValueError, "less than"),
    (lambda x: ops.pad(x.asnumpy(), (1, 1)), TypeError, "Tensor"),
    (lambda x: nn.Pad([[0, 0]] * 4)(x), TypeError, "tuple"),
    (lambda x: nn.Pad(((0, 0),) * 4, mode="constant")(x), ValueError, "CONSTANT"),
    (lambda x: nn.Pad(((1, 0), (1, 1), (2, 0)))(x), ValueError, "rank"),
    (lambda x: nn.Pad(((0, 0), (0, 0), (0, 0), (-1, 0)))(x), ValueError, ">= 0"),
    (lambda x: nn.ZeroPad2d(1.0), TypeError, "padding"),
    (lambda x: nn.ReflectionPad2d((1, 2, 0)), ValueError, "length"),
])
def test_pad_errors(call, kind, match):
    with pytest.raises(kind, match=match):
        call(Tensor(_x(1, 2, 3, 4)))


# --- interpolate ----------------------------------------------------------------------------


def _np_resize(x: np.ndarray, sizes: tuple[int, ...], mode: str, align: bool = False,
               legacy: bool = False) -> np.ndarray:
    """Separable resizing, one spatial axis at a time, element by element."""
    for axis, out in enumerate(sizes, start=2):
        n = x.shape[axis]
        rows = []
        for i in range(out):
            if mode == "nearest":
                rows.append(np.take(x, min(int(np.floor(i * n / out)), n - 1), axis))
                continue
            if align:
                src = i * (n - 1) / (out - 1) if out > 1 else 0.0
            elif legacy:
                src = i * n / out
            else:
                src = max((i + 0.5) * n / out - 0.5, 0.0)
            lo = min(int(np.floor(src)), n - 1)
            hi, w = min(lo + 1, n - 1), src - lo
            rows.append(np.take(x, lo, axis) * (1 - w) + np.take(x, hi, axis) * w)
        x = np.stack(rows, axis)
    return x.astype(np.float32)


@pytest.mark.parametrize("shape, kwargs, targets", [
    ((1, 2, 3, 4), dict(size=(5, 3)), ("python", "numba")),
    ((1, 2, 5), dict(size=8), ("python",)),
    ((1, 2, 3, 4), dict(size=(5, 3), mode="bilinear"), ("python", "numba")),
    ((1, 2, 3, 4), dict(size=(5, 3), mode="bilinear", align_corners=True), ("python",)),
    ((1, 2, 5), dict(size=3, mode="linear"), ("python",)),
    ((1, 1, 2, 3, 4), dict(size=(3, 2, 5), mode="trilinear", align_corners=True), ("python",)),
])
def test_interpolate_matches_numpy(shape, kwargs, targets):
    x = _x(*shape)
    mode = kwargs.get("mode", "nearest")
    size = kwargs["size"]
    sizes = size if isinstance(size, tuple) else (size,) * (len(shape) - 2)
    want = _np_resize(x, sizes, "nearest" if mode == "nearest" else "linear",
                      kwargs.get("align_corners", False))
    _check(Apply(ops.interpolate, **kwargs), x, want, targets)


def test_interpolate_scale_factor_and_other_modes():
    x = _x(1, 2, 3, 4)
    out = ops.interpolate(Tensor(x), scale_factor=(1.5, 0.7), recompute_scale_factor=True)
    np.testing.assert_array_equal(out.asnumpy(), _np_resize(x, (4, 2), "nearest"))
    exact = ops.interpolate(Tensor(x), size=(5, 3), mode="nearest-exact").asnumpy()
    np.testing.assert_array_equal(exact, x[:, :, [0, 0, 1, 2, 2]][:, :, :, [0, 2, 3]])
    area = ops.interpolate(Tensor(x), size=(2, 3), mode="area").asnumpy()
    np.testing.assert_allclose(area[0, 0, 0, 0], x[0, 0, :2, :2].mean(), rtol=1e-6)
    up = nn.Upsample(size=(6, 8), mode="bilinear")(Tensor(x)).asnumpy()
    np.testing.assert_allclose(up, _np_resize(x, (6, 8), "linear"), rtol=1e-5, atol=1e-6)


def test_resize_primitive_classes():
    x = _x(1, 2, 3, 4)
    out = ops.ResizeNearestNeighbor((5, 3))(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(out, _np_resize(x, (5, 3), "nearest"))
    out = ops.ResizeNearestNeighbor((5, 3), align_corners=True)(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(out, x[:, :, [0, 1, 1, 2, 2]][:, :, :, [0, 2, 3]])
    for kwargs, align, legacy in [({}, False, True), ({"align_corners": True}, True, False),
                                  ({"half_pixel_centers": True}, False, False)]:
        out = ops.ResizeBilinearV2(**kwargs)(Tensor(x), (5, 3)).asnumpy()
        np.testing.assert_allclose(out, _np_resize(x, (5, 3), "linear", align, legacy),
                                   rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kwargs, kind, match", [
    (dict(size=(5, 3), scale_factor=2.0), ValueError, "simultaneously"),
    (dict(), ValueError, "both empty"),
    (dict(scale_factor=2.0), ValueError, "cannot currently be set"),
    (dict(scale_factor=2, mode="bilinear", recompute_scale_factor=True), TypeError, "float"),
    (dict(size=(4, 4), mode="linear"), ValueError, "3"),
    (dict(size=(4, 4), mode="foo"), ValueError, "mode"),
    (dict(size=(4,)), ValueError, "spatial"),
    (dict(size=(4, 4), align_corners=True), ValueError, "align_corners"),
])
def test_interpolate_errors(kwargs, kind, match):
    with pytest.raises(kind, match=match):
        ops.interpolate(Tensor(_x(1, 2, 3, 4)), **kwargs)


# --- pixel shuffle --------------------------------------------------------------------------


def test_pixel_shuffle_and_unshuffle_match_loops():
    r, x = 2, _x(2, 8, 2, 3)
    want = np.zeros((2, 2, 4, 6), np.float32)
    for c in range(8):
        for h in range(2):
            for w in range(3):
                want[:, c // 4, h * r + (c % 4) // r, w * r + c % r] = x[:, c, h, w]
    _check(nn.PixelShuffle(r), x, want, ("python", "numba"))
    _check(nn.PixelUnshuffle(r), want, x)
    np.testing.assert_array_equal(ops.pixel_shuffle(Tensor(x[0]), r).asnumpy(), want[0])
    with pytest.raises(ValueError, match="divisible"):
        ops.pixel_shuffle(Tensor(_x(6, 2, 3)), 2)
    with pytest.raises(ValueError, match="larger than 2"):
        ops.pixel_shuffle(Tensor(_x(8, 3)), 2)
    with pytest.raises(TypeError, match="int"):
        ops.pixel_shuffle(Tensor(x), 2.0)
    with pytest.raises(ValueError, match="divisible"):
        ops.pixel_unshuffle(Tensor(_x(2, 2, 4, 5)), 2)


# --- Unflatten, CellDict ----------------------------------------------------------------------


def test_unflatten():
    x = _x(4, 6, 5)
    _check(nn.Unflatten(1, (2, 3)), x, x.reshape(4, 2, 3, 5))
    _check(nn.Unflatten(-2, [2, -1]), x, x.reshape(4, 2, 3, 5))
    with pytest.raises(TypeError, match="axis"):
        nn.Unflatten(1.0, (2, 3))
    with pytest.raises(TypeError, match="list"):
        nn.Unflatten(1, 6)
    with pytest.raises(ValueError):
        nn.Unflatten(1, (4, 3))(Tensor(x))


class DictNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellDict({"dense": nn.Dense(3, 2), "act": nn.ReLU()})

    def construct(self, x):
        for key in self.layers:
            x = self.layers[key](x)
        for key, cell in self.layers.items():
            if key == "act":
                x = cell(x - 0.5)
        return x


def test_cell_dict_in_construct_and_its_api():
    net = DictNet()
    assert [p.name for p in net.trainable_params()] == ["layers.dense.weight",
                                                        "layers.dense.bias"]
    w, b = net.layers["dense"].weight.asnumpy(), net.layers["dense"].bias.asnumpy()
    x = _x(4, 3)
    _check(net, x, np.maximum(np.maximum(x @ w.T + b, 0) - 0.5, 0))
    d = nn.CellDict([("b", nn.ReLU()), ("a", nn.Tanh())])
    assert list(d.keys()) == ["b", "a"] and len(d) == 2 and "a" in d
    assert isinstance(d.pop("b"), nn.ReLU) and list(d) == ["a"]
    d.update({"c": nn.Sigmoid()})
    d["d"] = nn.ReLU()
    assert [type(c).__name__ for c in d.values()] == ["Tanh", "Sigmoid", "ReLU"]
    d.clear()
    assert len(d) == 0
    with pytest.raises(TypeError, match="Cell"):
        nn.CellDict({"a": 5})
    with pytest.raises(TypeError, match="string"):
        nn.CellDict({1: nn.ReLU()})
    with pytest.raises(KeyError):
        nn.CellDict({"a.b": nn.ReLU()})
    with pytest.raises(TypeError, match="iterable"):
        nn.CellDict(5)


# --- norm clipping --------------------------------------------------------------------------


def test_clip_by_norm_forms():
    x = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], np.float32)
    norm = np.sqrt((x * x).sum())
    _check(Apply(ops.clip_by_norm, 2.0), x, x * np.float32(2.0 / (norm + 1e-6)))
    _check(Apply(ops.clip_by_norm, 100.0), x, x)
    inf = ops.clip_by_norm(Tensor(x), 2.0, norm_type=float("inf")).asnumpy()
    np.testing.assert_allclose(inf, x * 2.0 / (6 + 1e-6), rtol=1e-6)
    pair = ops.clip_by_norm([Tensor(x), Tensor(2 * x)], 5.0)
    total = np.sqrt(norm ** 2 * 5)
    np.testing.assert_allclose(pair[1].asnumpy(), 2 * x * 5.0 / (total + 1e-6), rtol=1e-5)
    clipped = nn.ClipByNorm(axis=1)(Tensor(x), Tensor(np.array([5.0], np.float32))).asnumpy()
    rows = np.sqrt((x * x).sum(1, keepdims=True))
    np.testing.assert_allclose(clipped, x * 5.0 / np.maximum(rows, 5.0), rtol=1e-6)
    half = nn.ClipByNorm()(Tensor(x.astype(np.float16)), Tensor(np.float16(2.0)))
    assert half.dtype == ms.float32
    with pytest.raises(TypeError, match="tensor"):
        nn.ClipByNorm()(Tensor(x), 2.0)


def test_clip_by_global_norm():
    x = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], np.float32)
    out = ops.clip_by_global_norm((Tensor(x), Tensor(2 * x)), 5.0)
    total = np.sqrt((x * x).sum() * 5)
    np.testing.assert_allclose(out[1].asnumpy(), 2 * x * 5.0 / total, rtol=1e-6)
    half = ops.clip_by_global_norm((Tensor(x.astype(np.float16)),), 100.0)
    assert half[0].dtype == ms.float16
    np.testing.assert_array_equal(half[0].asnumpy(), x.astype(np.float16))
    with pytest.raises(ValueError, match="clip_norm"):
        ops.clip_by_global_norm((Tensor(x),), -1.0)


# --- dropout --------------------------------------------------------------------------------


class TwoDrops(nn.Cell):
    def __init__(self):
        super().__init__()
        self.first, self.second = nn.Dropout(p=0.5), nn.Dropout(p=0.5)

    def construct(self, x):
        return self.first(x), self.second(x)


@pytest.mark.parametrize("target", ["python", "numba"])
def test_compiled_dropout_draws_fresh_scaled_masks(target):
    ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
    x = Tensor(np.ones((40, 50), np.float32))
    net = TwoDrops().set_train()
    a, b = net(x)
    again, _ = net(x)
    for out in (a, b, again):
        values = out.asnumpy()
        assert set(np.unique(values).tolist()) == {0.0, 2.0}
        assert abs((values == 0).mean() - 0.5) < 0.05
    assert not np.array_equal(a.asnumpy(), b.asnumpy())  # one stream per node
    assert not np.array_equal(a.asnumpy(), again.asnumpy())  # and per call


def test_compiled_dropout_follows_the_seed_and_the_reference_stream():
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    x = Tensor(np.ones((4, 6), np.float32))
    ms.set_seed(5)
    first = TwoDrops().set_train()(x)
    ms.set_seed(5)
    second = TwoDrops().set_train()(x)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    for offset, out in enumerate(first):  # the node's stream: numpy's, seeded (seed, rank)
        keep = np.random.default_rng((5, offset)).random(24, dtype=np.float32) < 0.5
        np.testing.assert_array_equal(out.asnumpy(), 2.0 * keep.reshape(4, 6))


def test_gradient_through_compiled_dropout_uses_the_forward_mask():
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    drop = nn.Dropout(p=0.5).set_train()

    def loss(v):
        out = drop(v)
        return (out * out).sum(), out

    x = Tensor(_x(5, 6))
    (value, out), grad = ms.value_and_grad(loss, has_aux=True)(x)
    np.testing.assert_allclose(grad.asnumpy(), 2 * out.asnumpy() * (out.asnumpy() != 0) * 2,
                               rtol=1e-5)


def test_functional_dropout_and_rand():
    x = Tensor(np.ones((30, 40), np.float32))
    out = ops.dropout(x, p=0.25).asnumpy()
    assert set(np.unique(out).tolist()) == {0.0, np.float32(1 / 0.75)}
    np.testing.assert_array_equal(ops.dropout(x, p=0.25, training=False).asnumpy(), x.asnumpy())
    r = ops.rand(3, 4, seed=9)
    assert r.shape == (3, 4) and r.dtype == ms.float32
    np.testing.assert_array_equal(r.asnumpy(),
                                  np.random.default_rng((9, 0)).random((3, 4), np.float32))
    with pytest.raises(ValueError, match="p"):
        ops.dropout(x, p=1.5)
