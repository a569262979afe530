"""The elementwise math long tail and the activation functions: public forms compiled
(both targets) == eager == numpy written here; MindSpore's dtype rules and errors;
gradients that stay finite where a naive composition's would not."""

from __future__ import annotations

import math

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops
from tests.codegen import check_all

RNG = np.random.default_rng(7)


def _f32(*shape: int, lo: float = -3.0, hi: float = 3.0) -> np.ndarray:
    return RNG.uniform(lo, hi, shape).astype(np.float32)


# --- composed math -----------------------------------------------------------------------


class MathForms(nn.Cell):
    def construct(self, x, y, i):
        return (ops.frac(x), x.frac(), ops.round(x), ops.round(x, decimals=1), ops.signbit(x),
                ops.copysign(i, y), ops.copysign(x, -2.0), ops.heaviside(x, y),
                ops.nan_to_num(x / 0), ops.nan_to_num(x / 0, 1.0, 2.0, -3.0),
                ops.fmax(x, y), ops.fmin(y, x), ops.xlogy(x, ops.abs(y)), ops.xdivy(x, y),
                ops.logaddexp(x, y), ops.logaddexp2(x, y), ops.sinc(x), ops.deg2rad(x),
                ops.rad2deg(x), ops.lerp(x, y, 0.25), ops.addcmul(x, x, y, 2),
                ops.addcdiv(x, x, y), ops.logical_xor(x, i), ops.float_power(i, 2),
                ops.true_divide(i, 2), ops.negative(x), ops.subtract(x, y, alpha=3),
                x.hypot(y), x.atan2(y), ops.Xlogy()(x, 2.0), ops.Fmax()(x, y))


def math_expect(x, y, i):
    f = np.float32
    with np.errstate(all="ignore"):
        big = np.finfo(f).max
        inf = x / f(0)
        ax, ay = x.astype(np.float64), y.astype(np.float64)
        px = np.pi * ax
        sinc = np.where(px == 0, 1.0, np.sin(px) / np.where(px == 0, 1.0, px))
        return (x - np.trunc(x), x - np.trunc(x), np.round(x), np.round(x * f(10)) / f(10),
                x < 0, np.where(y < 0, -np.abs(i), np.abs(i)).astype(f), -np.abs(x),
                np.where(x < 0, f(0), np.where(x > 0, f(1), y)),
                np.nan_to_num(inf, nan=0.0, posinf=big, neginf=-big),
                np.nan_to_num(inf, nan=1.0, posinf=2.0, neginf=-3.0),
                np.fmax(x, y), np.fmin(y, x), (ax * np.log(np.abs(ay))).astype(f),
                np.where(x == 0, f(0), x / y), np.logaddexp(ax, ay).astype(f),
                np.logaddexp2(ax, ay).astype(f), sinc.astype(f), np.deg2rad(x),
                np.rad2deg(x), x + f(0.25) * (y - x), x + f(2) * x * y, x + x / y,
                (x != 0) != (i != 0), i.astype(np.float64) ** 2, (i / 2).astype(f), -x,
                x - f(3) * y, np.hypot(x, y), np.arctan2(x, y),
                (ax * np.log(2.0)).astype(f), np.fmax(x, y))


def test_math_forms_compiled_eager_and_numpy_agree(tmp_path):
    x, y = _f32(3, 4), _f32(4, lo=0.5, hi=2) * np.array([1, -1, 1, -1], np.float32)
    x[0, 0] = 0.0
    i = RNG.integers(-3, 4, (3, 4)).astype(np.int32)
    check_all(MathForms(), [x, y, i], tmp_path, expect=math_expect(x, y, i), rtol=1e-5,
              atol=1e-5)


def test_nan_aware_extremes_prefer_numbers():
    a = Tensor(np.array([np.nan, 1.0, np.nan, 3.0], np.float32))
    b = Tensor(np.array([2.0, np.nan, np.nan, -1.0], np.float32))
    np.testing.assert_array_equal(ops.fmax(a, b).asnumpy(), [2, 1, np.nan, 3])
    np.testing.assert_array_equal(ops.fmin(a, b).asnumpy(), [2, 1, np.nan, -1])
    np.testing.assert_array_equal(ops.fmax(a, math.nan).asnumpy(), a.asnumpy())


# --- activations --------------------------------------------------------------------------


class ActivationForms(nn.Cell):
    def construct(self, x, w, i):
        return (ops.leaky_relu(x), ops.leaky_relu(x, 1.5), ops.leaky_relu(i), ops.elu(x),
                ops.selu(x), ops.celu(x, 0.5), ops.silu(x), ops.mish(x), ops.softplus(x),
                ops.softplus(x, 2, 4), ops.softsign(x), ops.hardsigmoid(x),
                ops.hardsigmoid(i), ops.hardtanh(x, -0.5, 2.0), ops.logsigmoid(x * 40),
                ops.relu6(x * 3), ops.hardshrink(x, 1.0), ops.softshrink(x, 1.0),
                ops.tanhshrink(x), ops.threshold(x, 0.5, -7.0), ops.threshold(i, 1.5, 20.5),
                ops.glu(x), ops.softmin(x, 0), ops.prelu(x, w), ops.SeLU()(x),
                ops.HShrink(0.25)(x), ops.GLU(0)(x[:2]))


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _softplus(v, beta=1.0, limit=20.0):
    return np.where(beta * v > limit, v, np.log1p(np.exp(beta * v)) / beta)


def activations_expect(x, w, i):
    d = x.astype(np.float64)
    f = np.float32

    def elu(v, a):
        return np.where(v > 0, v, a * np.expm1(v))

    selu = 1.0507009873554805 * elu(d, 1.6732632423543772)
    soft = np.exp(-d - (-d).max(0))
    out = (np.where(d > 0, d, 0.2 * d), np.where(d > 0, d, 1.5 * d),
           np.where(i > 0, i, (0.2 * i).astype(f)).astype(np.int32), elu(d, 1.0), selu,
           np.where(d > 0, d, 0.5 * np.expm1(d / 0.5)), d * _sigmoid(d),
           d * np.tanh(_softplus(d)), _softplus(d), _softplus(d, 2, 4), d / (1 + np.abs(d)),
           np.clip(d + 3, 0, 6) / 6, np.clip(i + 3, 0, 6) // 6, np.clip(d, -0.5, 2.0),
           -_softplus(-40 * d), np.clip(3 * d, 0, 6), np.where(np.abs(d) > 1, d, 0),
           np.where(d > 1, d - 1, np.where(d < -1, d + 1, 0)), d - np.tanh(d),
           np.where(d > 0.5, d, -7.0), np.where(i > 1.5, i, 20).astype(np.int32),
           d[:, :2] * _sigmoid(d[:, 2:]), soft / soft.sum(0),
           np.where(d > 0, d, d * w), selu, np.where(np.abs(d) > 0.25, d, 0),
           d[:1] * _sigmoid(d[1:2]))
    return tuple(o if o.dtype.kind in "ib" else o.astype(f) for o in out)


def test_activation_forms_compiled_eager_and_numpy_agree(tmp_path):
    x, w = _f32(3, 4), _f32(4, lo=0.05, hi=0.5)
    i = RNG.integers(-5, 6, (3, 4)).astype(np.int32)
    check_all(ActivationForms(), [x, w, i], tmp_path, expect=activations_expect(x, w, i),
              rtol=1e-5, atol=1e-6)


class Layers(nn.Cell):
    def __init__(self):
        super().__init__()
        self.prelu = nn.PReLU(3, [0.1, 0.2, 0.3])
        self.acts = nn.CellList([nn.LeakyReLU(0.1), nn.ELU(), nn.CELU(2.0), nn.SiLU(),
                                  nn.Mish(), nn.Softsign(), nn.HSigmoid(), nn.LogSigmoid(),
                                  nn.Hardtanh(-2.0, 0.5), nn.HShrink(), nn.SoftShrink(0.2),
                                  nn.Tanhshrink(), nn.Softmin(1), nn.Threshold(0.1, 5.0)])
        self.glu = nn.GLU(1)

    def construct(self, x):
        return (self.prelu(x), self.glu(x[:, :2]), *(cell(x) for cell in self.acts))


def test_layers_match_their_functions(tmp_path):
    x = _f32(2, 3, 4)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Layers()
    assert len(net.trainable_params()) == 1 and net.prelu.w.shape == (3,)
    t = Tensor(x)
    want = (ops.prelu(t, Tensor(np.array([0.1, 0.2, 0.3], np.float32))),
            ops.glu(t[:, :2], 1), ops.leaky_relu(t, 0.1), ops.elu(t), ops.celu(t, 2.0),
            ops.silu(t), ops.mish(t), ops.softsign(t), ops.hardsigmoid(t), ops.logsigmoid(t),
            ops.hardtanh(t, -2.0, 0.5), ops.hardshrink(t), ops.softshrink(t, 0.2),
            ops.tanhshrink(t), ops.softmin(t, 1), ops.threshold(t, 0.1, 5.0))
    check_all(net, [x], tmp_path, expect=tuple(v.asnumpy() for v in want))


def test_prelu_default_weight_and_get_activation_names():
    net = nn.PReLU()
    assert net.w.name == "a" and net.w.shape == (1,) and float(net.w.asnumpy()[0]) == 0.25
    out = net(Tensor(np.array([[-2.0, 4.0]], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [[-0.5, 4.0]])
    for name, cls in [("prelu", nn.PReLU), ("leakyrelu", nn.LeakyReLU), ("elu", nn.ELU),
                      ("silu", nn.SiLU), ("mish", nn.Mish), ("softsign", nn.Softsign),
                      ("hsigmoid", nn.HSigmoid), ("logsigmoid", nn.LogSigmoid),
                      ("hardtanh", nn.Hardtanh), ("hshrink", nn.HShrink),
                      ("softshrink", nn.SoftShrink), ("tanhshrink", nn.Tanhshrink),
                      ("softmin", nn.Softmin)]:
        assert type(nn.get_activation(name)) is cls
    dense = nn.Dense(2, 2, activation="elu")
    assert isinstance(dense.activation, nn.ELU)


# --- dtype rules and errors -----------------------------------------------------------------


@pytest.mark.parametrize("fn, dtype, want", [
    (ops.erfinv, np.int32, ms.float32), (ops.asin, np.float16, ms.float16),
    (ops.acosh, np.float64, ms.float64), (ops.trunc, np.int32, ms.int32),
    (ops.round, np.int64, ms.int64), (ops.frac, np.int32, ms.int32),
    (ops.isnan, np.int32, ms.bool_), (ops.isinf, np.float16, ms.bool_),
    (ops.signbit, np.int32, ms.bool_), (ops.sinc, np.int64, ms.float32),
    (ops.sinc, np.float16, ms.float16), (ops.exp2, np.int32, ms.float32),
    (ops.leaky_relu, np.int32, ms.int32), (ops.hardtanh, np.int64, ms.int64),
    (ops.hardsigmoid, np.int32, ms.int32), (ops.tanhshrink, np.int32, ms.float32),
    (ops.elu, np.float16, ms.float16), (ops.softplus, np.float64, ms.float64),
    (ops.positive, np.bool_, ms.bool_),
])
def test_result_dtypes(fn, dtype, want):
    x = Tensor(np.array([1, 0, 1], dtype))
    assert fn(x).dtype == want


def test_binary_result_dtypes():
    i, f = Tensor(np.array([1, 2], np.int32)), Tensor(np.array([0.5, 1.5], np.float32))
    d = Tensor(np.array([0.5, 1.5]))
    assert ops.atan2(i, f).dtype == ms.float32 and ops.atan2(f, d).dtype == ms.float64
    assert ops.float_power(f, 2).dtype == ms.float64
    assert ops.copysign(i, f).dtype == ms.float32 and ops.copysign(f, d).dtype == ms.float32
    assert ops.xlogy(i, f).dtype == ms.float32
    assert ops.bitwise_and(i, Tensor(np.array([3, 1], np.int64))).dtype == ms.int64
    assert ops.bitwise_or(i, 5).dtype == ms.int32
    assert ops.fmax(i, i).dtype == ms.int32


@pytest.mark.parametrize("call, error, match", [
    (lambda: ops.bitwise_and(Tensor(np.ones(2, np.float32)), 1), TypeError, "integer or bool"),
    (lambda: ops.elu(Tensor(np.ones(2, np.int32))), TypeError, "float"),
    (lambda: ops.softplus(Tensor(np.ones(2, np.int32))), TypeError, "float"),
    (lambda: ops.silu(Tensor(np.ones(2, np.int32))), TypeError, "float"),
    (lambda: ops.relu6(Tensor(np.ones(2, np.int64))), TypeError, "float"),
    (lambda: ops.deg2rad(Tensor(np.ones(2, np.int32))), TypeError, "float"),
    (lambda: ops.nan_to_num(Tensor(np.ones(2, np.int32))), TypeError, "float"),
    (lambda: ops.hardsigmoid(Tensor(np.ones(2, np.bool_))), TypeError, "bool"),
    (lambda: ops.heaviside(Tensor(np.ones(2, np.int32)), Tensor(np.float32(1))), TypeError,
     "dtype"),
    (lambda: ops.celu(Tensor(np.ones(2, np.float32)), 0.0), ValueError, "alpha"),
    (lambda: ops.softshrink(Tensor(np.ones(2, np.float32)), -1.0), ValueError, "lambd"),
    (lambda: ops.glu(Tensor(np.ones((2, 3), np.float32))), ValueError, "2 equal parts"),
    (lambda: ops.prelu(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones(2, np.float32))),
     ValueError, "channels"),
    (lambda: ops.prelu(Tensor(np.ones(2, np.float32)), Tensor(np.ones(1, np.int32))),
     TypeError, "float16 or float32"),
    (lambda: nn.PReLU(2, [0.1]), ValueError, "channel"),
    (lambda: nn.PReLU(2, "x"), TypeError, "float, a list or a Tensor"),
    (lambda: nn.PReLU(0), ValueError, "positive"),
    (lambda: nn.LeakyReLU("a"), TypeError, "alpha"),
    (lambda: nn.CELU(0.0), ValueError, "alpha"),
])
def test_bad_inputs_raise_mindspore_error_types(call, error, match):
    with pytest.raises(error, match=match):
        call()


# --- gradients ------------------------------------------------------------------------------


def _numeric_grad(fn, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(x)
    for k in range(x.size):
        hi, lo = x.copy(), x.copy()
        hi.flat[k] += eps
        lo.flat[k] -= eps
        out.flat[k] = (fn(Tensor(hi)).asnumpy().sum() - fn(Tensor(lo)).asnumpy().sum()) / (2 * eps)
    return out


def celu_07(v):
    return ops.celu(v, 0.7)


def logaddexp_shifted(v):
    return ops.logaddexp(v, v * 0.5 + 1)


def lerp_to_square(v):
    return ops.lerp(v, v * v, 0.3)


def erfinv_scaled(v):
    return ops.erfinv(v / 4)


def atan2_by(v):
    return ops.atan2(v, 1.5)


def hypot_with(v):
    return ops.hypot(v, 2.0)


@pytest.mark.parametrize("fn", [ops.selu, ops.mish, ops.logsigmoid, ops.softsign, ops.sinc,
                                ops.silu, ops.tanhshrink, celu_07, logaddexp_shifted,
                                lerp_to_square, erfinv_scaled, atan2_by, hypot_with],
                         ids=lambda f: f.__name__)
def test_composed_gradients_match_finite_differences(fn):
    x = RNG.uniform(0.2, 2.5, (2, 3)) * RNG.choice([-1.0, 1.0], (2, 3))
    def total(v):
        return ops.sum(fn(v))

    got = ops.grad(total)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, _numeric_grad(fn, x), rtol=1e-5, atol=1e-6)


def test_gradients_stay_finite_where_a_branch_overflows():
    """ELU and Softplus differentiate their own formula: no ``0 * inf`` from the branch
    that was not taken; sinc's gradient at 0 is 0."""
    x = Tensor(np.array([-100.0, 0.5, 100.0, 1000.0], np.float32))
    for fn in (ops.elu, ops.softplus, ops.mish, ops.selu, ops.sinc):
        def total(v):
            return ops.sum(fn(v))

        g = ops.grad(total)(x).asnumpy()
        assert np.isfinite(g).all(), (fn, g)

    def sinc_total(v):
        return ops.sum(ops.sinc(v))

    g = ops.grad(sinc_total)(Tensor(np.zeros(2, np.float32))).asnumpy()
    np.testing.assert_array_equal(g, [0, 0])
