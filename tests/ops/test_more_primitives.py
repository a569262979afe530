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


def test_special_gradients_match_finite_differences():
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
