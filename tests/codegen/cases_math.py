"""Codegen cases of the special-function and activation primitives (``special.py``,
``activation.py``) and the seeded ``UniformReal``, each against numpy written independently;
``cases.CASES`` includes
``MATH_CASES``. Import this module through ``tests.codegen.cases``, which it extends."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc import ops
from msc.common.tensor import apply
from msc.ir.primitives import Op
from tests.codegen.cases import Case, f32, ints


def erfinv_by_bisection(y: np.ndarray) -> np.ndarray:
    """erf's inverse found by bisection on math.erf, in float64 (nan outside [-1, 1])."""
    erf = np.vectorize(math.erf)
    y = y.astype(np.float64)
    lo, hi = np.full(y.shape, -6.0), np.full(y.shape, 6.0)
    for _ in range(80):
        mid = (lo + hi) / 2
        below = erf(mid) < y
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    out = (lo + hi) / 2
    out = np.where(y == 1, np.inf, np.where(y == -1, -np.inf, out))
    return np.where(np.abs(y) > 1, np.nan, out)


def special_float(x: Any, u: Any, p: Any) -> Any:
    """x in (-2, 2), u in (-1, 1), p in (1, 3)."""
    return (ops.erfc(x), ops.erfinv(u), ops.expm1(x), ops.log2(p), ops.log10(p), ops.exp2(x),
            ops.tan(u), ops.asin(u), ops.acos(u), ops.atan(x), ops.sinh(x), ops.cosh(x),
            ops.asinh(x), ops.acosh(p), ops.atanh(u), ops.atan2(x, u), ops.hypot(x, p),
            ops.trunc(x * 3), ops.Round()(x * 3), x.erfc(), ops.arctan2(u, 0.5))


def special_float_expect(x: np.ndarray, u: np.ndarray, p: np.ndarray) -> tuple[Any, ...]:
    dt = x.dtype.type
    erfc = np.vectorize(math.erfc)(x.astype(np.float64)).astype(x.dtype)
    x3 = x * dt(3)
    return (erfc, erfinv_by_bisection(u).astype(u.dtype), np.expm1(x), np.log2(p),
            np.log10(p), np.exp2(x), np.tan(u), np.arcsin(u), np.arccos(u), np.arctan(x),
            np.sinh(x), np.cosh(x), np.arcsinh(x), np.arccosh(p), np.arctanh(u),
            np.arctan2(x, u), np.hypot(x, p), np.trunc(x3), np.round(x3), erfc,
            np.arctan2(u, dt(0.5)))


def special_int(i: Any, j: Any, b: Any) -> Any:
    """Integers: the float functions give float32, rounding keeps the dtype; bitwise
    operators on int32/int64 operands, bools and Python ints."""
    return (ops.expm1(i), ops.atan(i), ops.trunc(i), ops.Round()(j), ops.isnan(i),
            ops.isfinite(j), ops.bitwise_and(i, j), ops.bitwise_or(i, 6), ops.bitwise_xor(j, i),
            ops.bitwise_and(b, ~b), ops.bitwise_or(b, True), ops.bitwise_xor(b, b), i.bitwise_or(j))


def special_int_expect(i: np.ndarray, j: np.ndarray, b: np.ndarray) -> tuple[Any, ...]:
    f = np.float32
    return (np.expm1(i.astype(f)), np.arctan(i.astype(f)), i.copy(), j.copy(),
            np.zeros(i.shape, bool), np.ones(j.shape, bool), i.astype(np.int64) & j,
            i | np.int32(6), j ^ i.astype(np.int64), b & ~b, b | True, b ^ b,
            i.astype(np.int64) | j)


def float_classes(x: Any) -> Any:
    return ops.isnan(x), ops.isinf(x), ops.isfinite(x), x.isnan(), ops.IsInf()(x * 2)


def float_classes_expect(x: np.ndarray) -> tuple[Any, ...]:
    return np.isnan(x), np.isinf(x), np.isfinite(x), np.isnan(x), np.isinf(x * 2)


def with_special_values(rng: np.random.Generator) -> list[np.ndarray]:
    x = f32(rng, 3, 4)
    x[0, :3] = (np.nan, np.inf, -np.inf)
    return [x]


def parametric_activations(x: Any, y: Any) -> Any:
    return (ops.elu(x), ops.elu(x, 0.5), ops.softplus(x), ops.softplus(x, 2, 3.5),
            ops.Softplus()(y), ops.Elu(2.0)(y))


def parametric_activations_expect(x: np.ndarray, y: np.ndarray) -> tuple[Any, ...]:
    def elu(v: np.ndarray, a: float) -> np.ndarray:
        return np.where(v > 0, v, a * (np.exp(v.astype(np.float64)) - 1)).astype(v.dtype)

    def softplus(v: np.ndarray, beta: float, limit: float) -> np.ndarray:
        w = v.astype(np.float64)
        return np.where(beta * w > limit, w, np.log(1 + np.exp(beta * w)) / beta).astype(v.dtype)

    return (elu(x, 1.0), elu(x, 0.5), softplus(x, 1, 20), softplus(x, 2, 3.5),
            softplus(y, 1, 20), elu(y, 2.0))


MATH_CASES = (
    Case("special_f32", special_float,
         lambda r: [f32(r, 3, 4), f32(r, 3, 4, lo=-0.95, hi=0.95), f32(r, 4, lo=1.1, hi=3)],
         frozenset({"Erfc", "Erfinv", "Expm1", "Log2", "Log10", "Exp2", "Tan", "Asin", "ACos",
                    "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Atan2", "Hypot",
                    "Trunc", "Round"}), special_float_expect),
    Case("special_f64", special_float,
         lambda r: [r.uniform(-2, 2, (2, 3)), r.uniform(-0.99, 0.99, (2, 3)),
                    r.uniform(1.1, 3, (3,))],
         frozenset({"Erfc", "Erfinv", "Hypot", "Round"}), special_float_expect),
    Case("special_int", special_int,
         lambda r: [ints(r, -9, 9, 3, 4), ints(r, -9, 9, 4, dtype=np.int64),
                    r.random((3, 4)) < 0.5],
         frozenset({"Expm1", "Atan", "Trunc", "Round", "IsNan", "IsFinite", "BitwiseAnd",
                    "BitwiseOr", "BitwiseXor"}), special_int_expect),
    Case("float_classes", float_classes, with_special_values,
         frozenset({"IsNan", "IsInf", "IsFinite"}), float_classes_expect),
    Case("parametric_activations", parametric_activations,
         lambda r: [f32(r, 3, 4, lo=-4, hi=4), r.uniform(-30, 30, (5,))],
         frozenset({"Elu", "Softplus"}), parametric_activations_expect),
    Case("uniform_real", lambda x: x * ops.rand(3, 4, seed=4), lambda r: [f32(r, 3, 4)],
         frozenset({"UniformReal"}),  # a seeded node's first draw
         lambda x: x * np.random.default_rng((4, 0)).random((3, 4), np.float32)),
)


def gamma_bessel_int(x: Any, a: Any, i: Any, j: Any) -> Any:
    """The special functions of the gamma family, the Bessel functions, the incomplete
    gamma functions (with their internal derivatives in a), shifts, gcd/lcm, nextafter."""
    return (ops.lgamma(x), ops.digamma(x), ops.polygamma(i % 3 + 1, x), ops.zeta(x + 1.5, a),
            ops.bessel_i0(x), ops.bessel_i0e(x), ops.bessel_i1(x), ops.bessel_i1e(-x),
            ops.igamma(a, x), ops.igammac(a, x), apply(Op.IgammaGradA, a, x),
            apply(Op.IgammacGradA, a, x), ops.gcd(i, j), ops.lcm(i, j), ops.bessel_j0(x * 9),
            ops.bessel_j1(-x * 12), ops.bessel_k0(x), ops.bessel_k1(x), ops.bessel_k0e(x * 5),
            ops.bessel_k1e(x),
            ops.bitwise_left_shift(i, 2), ops.bitwise_right_shift(i, 1), ops.nextafter(x, a))


def gamma_bessel_int_expect(x: np.ndarray, a: np.ndarray, i: np.ndarray,
                            j: np.ndarray) -> tuple[Any, ...]:
    from tests.ops.test_coverage_math import (
        bessel_ref,
        digamma_ref,
        igamma_ref,
        lgamma_ref,
        zeta_ref,
    )

    n = i % 3 + 1
    poly = np.array([[(-1.0) ** (m + 1) * math.factorial(m) * zeta_ref(m + 1.0, v)
                      for v, m in zip(row, n)] for row in x])
    p = igamma_ref(a.ravel(), x.ravel()).reshape(x.shape)
    h = 1e-4
    da = ((igamma_ref((a + h).ravel(), x.ravel()) - igamma_ref((a - h).ravel(), x.ravel()))
          / (2 * h)).reshape(x.shape)
    gcd = np.gcd(i, j)
    return (lgamma_ref(x), digamma_ref(x), poly, zeta_ref(x + 1.5, a), np.i0(x),
            np.i0(x) * np.exp(-x), bessel_ref(1, x), -bessel_ref(1, x) * np.exp(-x), p, 1 - p,
            da, -da, gcd, np.lcm(i, j), bessel_j(0, x * 9), -bessel_j(1, x * 12),
            bessel_k(0, x), bessel_k(1, x), bessel_k(0, x * 5) * np.exp(x * 5),
            bessel_k(1, x) * np.exp(x), i * 4, i >> 1, np.nextafter(x, a))


def bessel_j(nu: int, x: np.ndarray) -> np.ndarray:
    """J_nu(x) = (1/pi) * integral_0^pi cos(nu t - x sin t) dt, Simpson's rule."""
    t = np.linspace(0.0, np.pi, 4001)
    f = np.cos(nu * t - np.multiply.outer(x, np.sin(t)))
    h = t[1] - t[0]
    return h / 3 * (f[..., 0] + f[..., -1] + 4 * f[..., 1:-1:2].sum(-1)
                    + 2 * f[..., 2:-1:2].sum(-1)) / np.pi


def bessel_k(nu: int, x: np.ndarray) -> np.ndarray:
    """K_nu(x) = integral_0^inf exp(-x cosh t) cosh(nu t) dt, Simpson's rule to t = 12."""
    t = np.linspace(0.0, 12.0, 24001)
    f = np.exp(-np.multiply.outer(x, np.cosh(t))) * np.cosh(nu * t)
    h = t[1] - t[0]
    return h / 3 * (f[..., 0] + f[..., -1] + 4 * f[..., 1:-1:2].sum(-1)
                    + 2 * f[..., 2:-1:2].sum(-1))


MATH_CASES += (
    Case("gamma_bessel_int", gamma_bessel_int,
         lambda r: [r.uniform(0.5, 3.0, (2, 3)), r.uniform(0.7, 2.5, (2, 3)),
                    ints(r, -20, 20, 3), ints(r, 1, 30, 2, 3)],
         frozenset({"Lgamma", "Digamma", "Polygamma", "Zeta", "BesselI0", "BesselI0e",
                    "BesselI1", "BesselI1e", "Igamma", "Igammac", "IgammaGradA",
                    "IgammacGradA", "Gcd", "Lcm", "LeftShift", "RightShift", "NextAfter",
                    "BesselJ0", "BesselJ1", "BesselK0", "BesselK1", "BesselK0e",
                    "BesselK1e"}),
         gamma_bessel_int_expect),
)
