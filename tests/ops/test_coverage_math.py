"""The gamma family, the modified Bessel functions, shifts, gcd/lcm and nextafter:
compiled (python and numba targets) == eager == numpy written independently (sums,
quadratures and ``math.lgamma``, not msc's algorithms); gradients against central
finite differences in float64. MindSpore 2.10 gave the edge values these tests pin
(``lgamma`` inf at the poles, ``digamma`` -inf at +0, nan at -1, ``zeta`` inf at x == 1,
nan for x < 1; its gradient has no part for the exponent)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops
from tests.codegen import assert_same, check_all, numeric_grad, run_python_graph, to_numpy

EULER = 0.5772156649015329


def lgamma_ref(x):
    return np.array([math.lgamma(v) if v > 0 or v != math.floor(v) else np.inf for v in x.flat],
                    np.float64).reshape(x.shape)


def digamma_ref(x):
    """The derivative of math.lgamma by central differences (accurate to ~1e-9)."""
    h = 1e-5
    return (lgamma_ref(x + h) - lgamma_ref(x - h)) / (2 * h)


def zeta_ref(s, q, terms=20000):
    k = np.arange(terms, dtype=np.float64)
    out = []
    for a, b in zip(np.broadcast_to(s, np.broadcast(s, q).shape).flat,
                    np.broadcast_to(q, np.broadcast(s, q).shape).flat):
        tail = (b + terms) ** (1 - a) / (a - 1) + 0.5 * (b + terms) ** -a
        out.append(np.sum((b + k) ** -a) + tail)
    return np.array(out).reshape(np.broadcast(s, q).shape)


def bessel_ref(nu, x):
    """I_nu(x) = (1/pi) * integral_0^pi exp(x cos t) cos(nu t) dt, by the trapezoid rule
    (exact to rounding for this periodic integrand)."""
    t = np.linspace(0.0, np.pi, 2001)
    f = np.exp(np.multiply.outer(x, np.cos(t))) * np.cos(nu * t)
    return (f[..., 1:] + f[..., :-1]).sum(-1) * (t[1] - t[0]) / 2 / np.pi


def assert_graph_python(cell, inputs, folder, expect, rtol=1e-5, atol=1e-6):
    """Eager and the python target's compiled graph against ``expect`` (the numba target
    is checked on one Cell per family: its compile is the slow part)."""
    assert_same(to_numpy(cell(*[Tensor(x) for x in inputs])), expect, "eager", rtol, atol)
    assert_same(run_python_graph(cell, inputs, folder), expect, "python", rtol, atol)


@pytest.fixture
def python_target():
    """Gradients compile on the python target: their point is the rules, not Numba."""
    ms.set_context(jit_target="python")
    yield
    ms.set_context(jit_target="numba")


def igamma_ref(a, x):
    """P(a, x) = integral_0^x t^(a-1) e^-t dt / Gamma(a), by Simpson's rule on t = u^2
    (which removes the t^(a-1) singularity for a >= 1/2)."""
    out = []
    for av, xv in zip(np.broadcast_to(a, np.broadcast(a, x).shape).astype(np.float64),
                      np.broadcast_to(x, np.broadcast(a, x).shape).astype(np.float64)):
        u = np.linspace(0.0, np.sqrt(xv), 20001)
        f = 2 * u ** (2 * av - 1) * np.exp(-u * u)
        h = u[1] - u[0]
        simpson = h / 3 * (f[0] + f[-1] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum())
        out.append(simpson / math.gamma(av))
    return np.array(out)


class Gammas(nn.Cell):
    def construct(self, x, n, s, q):
        return (ops.lgamma(x), ops.digamma(x), ops.polygamma(n, x), x.lgamma(), x.digamma(),
                ops.zeta(s, q), ops.Lgamma()(x), ops.Digamma()(x), ops.Polygamma()(n, x),
                ops.Zeta()(s, q), ops.mvlgamma(x + 3.0, 3), ops.abs(x).mvlgamma(1),
                ops.bessel_i0(x * 9), ops.bessel_i1e(x * 9), ops.igamma(s, q * 2),
                ops.igammac(s, q * 2), ops.Igamma()(s, q), nn.IGamma()(s, q))


def test_gamma_family(tmp_path):
    x = np.array([[0.5, 1.0, 2.5], [3.0, -1.5, 7.25]], np.float32)
    n = np.array([1, 2, 3], np.int64)
    s = np.array([2.0, 3.0, 4.5], np.float32)
    q = np.array([1.0, 0.5, 2.0], np.float32)
    x64 = x.astype(np.float64)
    lg, dg = lgamma_ref(x64), digamma_ref(x64)
    k = np.arange(200000, dtype=np.float64)
    poly = np.array([[(-1.0) ** (m + 1) * math.factorial(m) *
                      (np.sum((v + k) ** -(m + 1.0)) + (v + k[-1] + 1) ** -m / m)
                      for v, m in zip(row, n)] for row in x64])
    mvl = sum(lgamma_ref(x64 + 3.0 - j / 2) for j in range(3)) + 3 * 2 / 4 * math.log(math.pi)
    f32 = np.float32
    expect = (lg.astype(f32), dg.astype(f32), poly.astype(f32), lg.astype(f32), dg.astype(f32),
              zeta_ref(s, q).astype(f32), lg.astype(f32), dg.astype(f32), poly.astype(f32),
              zeta_ref(s, q).astype(f32), mvl.astype(f32),
              lgamma_ref(np.abs(x64)).astype(f32), np.i0(x64 * 9).astype(f32),
              (bessel_ref(1, x64 * 9) * np.exp(-np.abs(x64 * 9))).astype(f32),
              igamma_ref(s, q * 2).astype(f32), (1 - igamma_ref(s, q * 2)).astype(f32),
              igamma_ref(s, q).astype(f32), igamma_ref(s, q).astype(f32))
    check_all(Gammas(), [x, n, s, q], tmp_path, expect=expect, rtol=2e-5, atol=2e-5)


def test_gamma_family_edges():
    """The values MindSpore 2.10 gives at the poles and outside the domain."""
    x = Tensor(np.array([0.0, -0.0, -1.0, -2.0], np.float32))
    np.testing.assert_array_equal(ops.lgamma(x).asnumpy(), [np.inf] * 4)
    np.testing.assert_array_equal(ops.digamma(x).asnumpy(), [-np.inf, np.inf, np.nan, np.nan])
    z = ops.zeta(Tensor(np.array([1.0, 0.5, 2.0], np.float32)),
                 Tensor(np.array([1.0, 1.0, -1.0], np.float32))).asnumpy()
    np.testing.assert_array_equal(z, [np.inf, np.nan, np.inf])
    np.testing.assert_allclose(ops.polygamma(Tensor(0), Tensor(np.float32(1.0))).asnumpy(),
                               -EULER, rtol=1e-6)
    with pytest.raises(TypeError, match="float"):
        ops.digamma(Tensor(np.array([1, 2], np.int32)))
    with pytest.raises(TypeError, match="same dtype"):
        ops.zeta(Tensor(np.float32(2.0)), Tensor(np.float64(1.0)))


class Bessels(nn.Cell):
    def construct(self, x):
        return (ops.bessel_i0(x), ops.bessel_i0e(x), ops.bessel_i1(x), ops.bessel_i1e(x),
                ops.i0(x), x.i0(), ops.BesselI0()(x), ops.BesselI1e()(x))


def test_bessel_functions(tmp_path):
    x = np.array([0.0, 0.25, -1.0, 2.5, -7.0, 29.0, -31.0, 60.0], np.float64)
    i0, i1 = np.i0(x), bessel_ref(1, x)
    e = np.exp(-np.abs(x))
    expect = (i0, i0 * e, i1, i1 * e, i0, i0, i0, i1 * e)
    assert_graph_python(Bessels(), [x], tmp_path, expect, rtol=1e-11, atol=1e-14)


def test_bessel_large_arguments_and_float32():
    big = Tensor(np.array([200.0, -1000.0], np.float32))
    np.testing.assert_allclose(ops.bessel_i0e(big).asnumpy(),
                               1 / np.sqrt(2 * np.pi * np.array([200.0, 1000.0])) *
                               (1 + 1 / (8 * np.array([200.0, 1000.0]))), rtol=1e-5)
    assert ops.bessel_i0(big).dtype == ms.float32
    assert np.isinf(ops.bessel_i0(big).asnumpy()).all()
    with pytest.raises(TypeError, match="float"):
        ops.bessel_i0(Tensor(np.array([1, 2], np.int32)))


class Integers(nn.Cell):
    def construct(self, a, b):
        return (ops.gcd(a, b), ops.lcm(a, b), a.gcd(b), a.lcm(b), ops.Gcd()(a, b),
                ops.bitwise_left_shift(a, 2), ops.bitwise_right_shift(a, b % 4),
                a.bitwise_left_shift(b % 3), ops.LeftShift()(a, 1), ops.RightShift()(a, 1))


def test_integer_ops(tmp_path):
    a = np.array([12, -8, 0, 7, -35], np.int32)
    b = np.array([8, 12, 5, 0, 21], np.int32)

    def gcd(u, v):
        return np.array([math.gcd(int(p), int(r)) for p, r in zip(u, v)], np.int32)

    g = gcd(a, b)
    lcm = np.array([abs(int(p) * int(r)) // max(int(d), 1) if p and r else 0
                    for p, r, d in zip(a, b, g)], np.int32)
    expect = (g, lcm, g, lcm, g, a * 4, a // 2 ** (b % 4), a * 2 ** (b % 3), a * 2, a // 2)
    assert_graph_python(Integers(), [a, b], tmp_path, expect)
    with pytest.raises(TypeError, match="integer"):
        ops.gcd(Tensor(np.array([1.0])), Tensor(np.array([2.0])))
    with pytest.raises(TypeError, match="integer"):
        ops.bitwise_left_shift(Tensor(np.array([True])), Tensor(np.array([True])))


class Floats(nn.Cell):
    def construct(self, x, y):
        return ops.nextafter(x, y), x.nextafter(y), ops.ldexp(x, y.astype(ms.int32)), \
            ops.NextAfter()(x, y)


def test_nextafter_and_ldexp(tmp_path):
    x = np.array([1.0, 0.0, -2.5, 3.0], np.float32)
    y = np.array([2.0, -1.0, 0.0, 3.0], np.float32)
    step = np.array([1.0 + 2.0 ** -23, -(2.0 ** -149), -2.5 + 2.0 ** -22, 3.0], np.float32)
    ld = (x * 2.0 ** y.astype(np.int32)).astype(np.float32)
    check_all(Floats(), [x, y], tmp_path, expect=(step, step, ld, step))  # numba: nextafter
    assert ops.ldexp(Tensor(np.array([1, 2], np.int32)), Tensor(np.array([2, 3], np.int32))
                     ).dtype == ms.float32


# --- gradients against finite differences -------------------------------------------------


def polygamma_2(v):
    return ops.polygamma(Tensor(np.int64(2)), v)


def zeta_of_q(v):
    return ops.zeta(Tensor(np.float64(3.0)) + v * 0, v)


def mvlgamma_3(v):
    return ops.mvlgamma(v + 3.0, 3)


def ldexp_3(v):
    return ops.ldexp(v, Tensor(np.int32(3)))


def igamma_both(v):
    return ops.igamma(v + 0.5, v * 2) + ops.igammac(v * 1.5, v + 1.0)


GRADIENT_CASES = (ops.lgamma, ops.digamma, polygamma_2, zeta_of_q, mvlgamma_3, ops.bessel_i0,
                  ops.bessel_i0e, ops.bessel_i1, ops.bessel_i1e, ldexp_3, igamma_both,
                  ops.bessel_j0, ops.bessel_j1, ops.bessel_k0, ops.bessel_k1, ops.bessel_k0e,
                  ops.bessel_k1e)
WEIGHTS = [1.0 + k / 10 for k in range(len(GRADIENT_CASES))]


def all_cases(v):
    """Every case, weighted apart, in one sum: one compile differentiates them all."""
    return sum(w * ops.sum(fn(v)) for w, fn in zip(WEIGHTS, GRADIENT_CASES))


def test_gradients_match_finite_differences(python_target):
    x = np.array([0.7, 1.3, 2.9, 4.2], np.float64)
    got = ops.grad(all_cases)(Tensor(x)).asnumpy()
    want = sum(w * numeric_grad(fn, x) for w, fn in zip(WEIGHTS, GRADIENT_CASES))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_bessel_i1_gradient_at_zero_is_one_half(python_target):
    def total(v):
        return ops.sum(ops.bessel_i1(v) + ops.bessel_i1e(v))

    got = ops.grad(total)(Tensor(np.zeros(2, np.float64))).asnumpy()
    np.testing.assert_allclose(got, [1.0, 1.0])
