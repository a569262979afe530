"""The codegen cases: one kernel per op family, its inputs, and the same computation
written independently in numpy. ``CASES`` lists them with the primitives each covers."""


from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import msc as ms
from msc import nn, ops
from tests.codegen.cases_conv import CONV_OPS, conv_pool, conv_pool_expect, conv_pool_inputs

STRUCTURAL = {"MakeTuple", "TupleGetItem", "If", "While", "Call",  # test_control_*, test_calls
              "Recurse"}  # tests/frontend/test_tensor_recursion
EFFECTS = {"Load", "Assign", "AssignAdd", "AssignSub", "UpdateState", "Depend", "TensorMove",
           "Print"}  # test_effects.py
RAISES = {"Raise"}  # tests/frontend/test_control_jumps.py
COLLECTIVES = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast"}  # tests/communication


@dataclass(frozen=True)
class Case:
    name: str
    fn: Callable[..., Any]
    inputs: Callable[[np.random.Generator], list[np.ndarray]]
    ops: frozenset[str]
    expect: Callable[..., Any] | None = None  # an independent numpy result

    def __str__(self) -> str:
        return self.name


def f32(rng: np.random.Generator, *shape: int, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    return rng.uniform(lo, hi, shape).astype(np.float32)


def ints(rng: np.random.Generator, lo: int, hi: int, *shape: int,
         dtype: Any = np.int32) -> np.ndarray:
    return rng.integers(lo, hi, shape).astype(dtype)


def nonzero(rng: np.random.Generator, lo: int, hi: int, *shape: int,
            dtype: Any = np.int32) -> np.ndarray:
    out = ints(rng, lo, hi, *shape, dtype=dtype)
    out[out == 0] = 1
    return out


# --- elementwise ----------------------------------------------------------------------------


def unary_float(x: Any, p: Any) -> Any:
    return (-x, ops.abs(x), ops.square(x), ops.sign(x), ops.floor(x), ops.ceil(x),
            ops.relu(x), ops.exp(x), ops.log(p), ops.sqrt(p), ops.rsqrt(p),
            ops.reciprocal(p), ops.sin(x), ops.cos(x), ops.tanh(x), ops.sigmoid(x),
            ops.hardswish(x), ops.gelu(x, approximate="tanh"), ops.gelu(x, approximate="none"),
            ops.log1p(p), p.log1p(), ops.erf(x), x.erf())


def unary_float_expect(x: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, ...]:
    one = x.dtype.type(1)
    erf = np.vectorize(math.erf)(x.astype(np.float64) / math.sqrt(2))
    tanh_in = math.sqrt(2 / math.pi) * (x + x.dtype.type(0.044715) * x ** 3)
    return (-x, np.abs(x), x * x, np.sign(x), np.floor(x), np.ceil(x), np.maximum(x, 0),
            np.exp(x), np.log(p), np.sqrt(p), one / np.sqrt(p), one / p, np.sin(x),
            np.cos(x), np.tanh(x), one / (one + np.exp(-x)),
            x * np.clip(x + 3, 0, 6) / 6, x / 2 * (1 + np.tanh(tanh_in)),
            (x / 2 * (1 + erf)).astype(x.dtype), np.log(one + p), np.log(one + p),
            np.vectorize(math.erf)(x.astype(np.float64)).astype(x.dtype),
            np.vectorize(math.erf)(x.astype(np.float64)).astype(x.dtype))


UNARY_FLOAT_OPS = frozenset({"Neg", "Abs", "Square", "Sign", "Floor", "Ceil", "ReLU", "Exp",
                             "Log", "Sqrt", "Rsqrt", "Reciprocal", "Sin", "Cos", "Tanh",
                             "Sigmoid", "HSwish", "GeLU", "Log1p", "Erf"})


def unary_int(x: Any, y: Any) -> Any:
    """Integer inputs: sign-like ops keep the dtype, transcendental ones give float32."""
    return (-x, ops.abs(x), ops.square(y), ops.sign(x), ops.relu(y), ops.floor(x),
            ops.ceil(y), ops.exp(x), ops.sqrt(ops.abs(y)), ops.sigmoid(x),
            ops.reciprocal(y), ops.hardswish(x), ops.gelu(x), ops.tanh(y), ops.log(ops.abs(y)))


def unary_int_expect(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, ...]:
    f = np.float32
    xf, yf = x.astype(f), y.astype(f)
    erf = np.vectorize(math.erf)(xf / math.sqrt(2)).astype(f)
    return (-x, np.abs(x), y * y, np.sign(x), np.maximum(y, 0), x.copy(), y.copy(),
            np.exp(xf), np.sqrt(np.abs(yf)), f(1) / (f(1) + np.exp(-xf)), f(1) / yf,
            xf * np.clip(xf + 3, 0, 6) / 6, xf / 2 * (1 + erf), np.tanh(yf), np.log(np.abs(yf)))


def binary_float(x: Any, y: Any, z: Any, w: Any) -> Any:
    """(2,3,4) with (3,1), 0-d and (1,4) operands, and Python scalars."""
    return (x + y, x - z, y * x, x / y, ops.floor_div(x, y), ops.floor_mod(x, y),
            ops.pow(ops.abs(x), y), ops.maximum(x, z), ops.minimum(y, w), 2.5 * x, 1 - x,
            x / 3, x // 0.5, x % 0.75, ops.abs(x) ** 0.5, 2 ** y, z * z,
            x > y, x >= z, x < 0.5, x <= w, ops.equal(ops.floor(x), ops.floor(y)),
            ops.not_equal(ops.ceil(y), 1.0))


def binary_float_expect(x: np.ndarray, y: np.ndarray, z: np.ndarray,
                        w: np.ndarray) -> tuple[np.ndarray, ...]:
    s = np.float32
    return (x + y, x - z, y * x, x / y, np.floor_divide(x, y), np.mod(x, y),
            np.abs(x) ** y, np.maximum(x, z), np.minimum(y, w), s(2.5) * x, s(1) - x,
            x / s(3), x // s(0.5), x % s(0.75), np.abs(x) ** s(0.5), s(2) ** y, z * z,
            x > y, x >= z, x < 0.5, x <= w, np.floor(x) == np.floor(y), np.ceil(y) != 1)


BINARY_OPS = frozenset({"Add", "Sub", "Mul", "Div", "FloorDiv", "FloorMod", "Pow", "Maximum",
                        "Minimum", "Greater", "GreaterEqual", "Less", "LessEqual", "Equal",
                        "NotEqual"})


def binary_mixed(a: Any, b: Any, c: Any, d: Any) -> Any:
    """MindSpore promotion: f32 with f64 is f64, ints with floats take the float."""
    return (a + b, a * c, d - a, c / d, ops.maximum(b, d), a > d, b == c, c + 1.5, d * 2)


def binary_mixed_expect(a: np.ndarray, b: np.ndarray, c: np.ndarray,
                        d: np.ndarray) -> tuple[np.ndarray, ...]:
    f = np.float32
    return (a + b, a * c.astype(f), d.astype(f) - a, (c / d).astype(f),
            np.maximum(b, d.astype(np.float64)), a > d.astype(f), b == c.astype(np.float64),
            c.astype(f) + f(1.5), d * 2)


def binary_int(a: Any, b: Any, c: Any) -> Any:
    """int32 (3,4) with nonzero int32 (4,) and int64 (3,1); weak scalars keep int32
    for ints and give float32 for floats (int32 * 2.5 -> float32); P.RealDiv of integers
    divides as integers, truncated towards zero (MindSpore 2.10)."""
    return (a + b, a - c, a * b, a / b, ops.floor_div(a, b), ops.floor_mod(a, b),
            ops.pow(a, ops.abs(b)), ops.pow(b, a), a * 2.5, a + 2, a // 2, a % 3, a ** 2,
            ops.maximum(a, c), ops.minimum(a, b), a == b, a < c, a >= 3, c / 4, 7 - c,
            ops.floor_div(c, -3), ops.floor_mod(-7, b), a > b, a <= c, a != 2, ops.fmod(a, b),
            ops.Mod()(c, -4), ops.RealDiv()(a, b), ops.RealDiv()(c, b))


def binary_int_expect(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, ...]:
    def power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        x, y = np.broadcast_arrays(x, y)
        out = np.array([int(v) ** int(e) if e >= 0 else (int(v) ** int(e) if abs(v) == 1 else 0)
                        for v, e in zip(x.ravel(), y.ravel())])
        return out.reshape(x.shape).astype(x.dtype)

    def truncated(x: np.ndarray, y: np.ndarray, dtype: Any) -> np.ndarray:
        x, y = np.broadcast_arrays(x.astype(np.int64), y.astype(np.int64))
        return (np.sign(x) * np.sign(y) * (np.abs(x) // np.abs(y))).astype(dtype)
    i32, f = np.int32, np.float32
    return (a + b, a - c, a * b, (a / b).astype(f), a // b, a % b, power(a, np.abs(b)),
            power(b, a), a.astype(f) * f(2.5), a + i32(2), a // i32(2), a % i32(3),
            a * a, np.maximum(a, c), np.minimum(a, b), a == b, a < c, a >= 3,
            (c / 4).astype(f), 7 - c, c // -3, np.int32(-7) % b, a > b, a <= c, a != 2,
            np.fmod(a, b), np.fmod(c, -4), truncated(a, b, i32), truncated(c, b, np.int64))


def small_ints(a: Any, b: Any, c: Any, z: Any) -> Any:
    """uint8/int8/int16 wrap around like numpy (numba computes in int64 and narrows);
    integer division by zero gives 0. A product along one axis widens to int64 and
    ops.argmin is int32 (MindSpore 2.10)."""
    return (a + a, a - a[::-1], a * 3, b * b, -b, c * c, a + b, ops.abs(b), ops.maximum(a, 7),
            a // 3, b % 5, ops.floor_div(b, -3), a // z, b % z, ops.sum(a), ops.prod(b, 1),
            ops.amax(c), ops.argmin(b, 1))


def small_ints_expect(a: np.ndarray, b: np.ndarray, c: np.ndarray,
                      z: np.ndarray) -> tuple[np.ndarray, ...]:
    u8, i8 = np.uint8, np.int8
    with np.errstate(all="ignore"):
        return (a + a, a - a[::-1], a * u8(3), b * b, -b, c * c, a.astype(np.int16) + b,
                np.abs(b), np.maximum(a, u8(7)), a // u8(3), b % i8(5), b // i8(-3), a // z,
                b % z.astype(np.int16), a.sum(dtype=np.int64), b.prod(1, dtype=np.int64),
                c.max(), b.argmin(1).astype(np.int32))


def logic(p: Any, q: Any, x: Any) -> Any:
    return (ops.logical_and(p, q), ops.logical_or(p, q), ops.logical_not(p), p == q, p != q,
            p + q, p * q, ops.maximum(p, q), ops.select(p, x, -x), ops.logical_and(x > 0, p),
            p & True, ~q, ops.select(q, p, False))


def logic_expect(p: np.ndarray, q: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, ...]:
    return (p & q, p | q, ~p, p == q, p != q, p | q, p & q, p | q, np.where(p, x, -x),
            (x > 0) & p, p.copy(), ~q, np.where(q, p, False))


def select_clip(cond: Any, x: Any, y: Any, n: Any, lo: Any) -> Any:
    return (ops.select(cond, x, y), ops.select(cond, x, 0.5), ops.select(cond, 2, n),
            ops.select(cond, lo, y), ops.clip_by_value(y, -0.5, 0.5),
            ops.clip_by_value(y, lo, x), ops.clip_by_value(n, -2, 3),
            ops.clip_by_value(n, 0.5, 2.5), ops.clamp(y, min=0.25), ops.clamp(n, max=1))


def select_clip_expect(cond: np.ndarray, x: np.ndarray, y: np.ndarray, n: np.ndarray,
                       lo: np.ndarray) -> tuple[np.ndarray, ...]:
    return (np.where(cond, x, y), np.where(cond, x, np.float32(0.5)),
            np.where(cond, np.int32(2), n), np.where(cond, lo, y), np.clip(y, -0.5, 0.5),
            np.minimum(np.maximum(y, lo), x), np.clip(n, -2, 3), np.clip(n, 0, 2),
            np.maximum(y, np.float32(0.25)), np.minimum(n, 1))


def creation_like(x: Any, n: Any, b: Any) -> Any:
    return (ops.zeros_like(x), ops.ones_like(n), ops.ones_like(b), ops.zeros_like(b) + x,
            ops.ones_like(x) * 3, ops.stop_gradient(n), ops.stop_gradient(x * 2))


def creation_like_expect(x: np.ndarray, n: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    return (np.zeros_like(x), np.ones_like(n), np.ones_like(b), x.copy(),
            np.full_like(x, 3), n.copy(), x * 2)


CAST_DTYPES = (ms.bool_, ms.uint8, ms.int8, ms.int16, ms.int32, ms.int64, ms.float32,
               ms.float64)


def cast_inputs(rng: np.random.Generator) -> list[np.ndarray]:
    """Per source dtype, values every target dtype can hold after C-style conversion
    (integers wrap; floats are non-negative and in range, so float->int is defined)."""
    return [np.array([False, True, True, False, True, False]),
            np.array([0, 1, 2, 200, 255, 127], np.uint8),
            np.array([0, 1, -2, -128, 127, 5], np.int8),
            np.array([0, 1, -2, 300, -300, 32767], np.int16),
            np.array([0, 1, -2, 70000, -70000, 2**31 - 1], np.int32),
            np.array([0, 1, -2, 2**40 + 5, -(2**33), 2**62], np.int64),
            np.array([0, 1.7, 2.2, 3.9, 100.5, 126.9], np.float32),
            np.array([0, 0.25, 1e-30, 3.999, 100.5, 126.9], np.float64)]


def cast_all(*xs: Any) -> Any:
    return tuple(ops.cast(x, dt) for x in xs for dt in CAST_DTYPES)


def cast_all_expect(*xs: np.ndarray) -> tuple[np.ndarray, ...]:
    return tuple(x.astype(dt.np) for x in xs for dt in CAST_DTYPES)


def cast_signed(x: Any) -> Any:
    """Negative floats truncate toward zero in every signed integer dtype."""
    return (ops.cast(x, ms.int8), ops.cast(x, ms.int32), ops.cast(x, ms.int64),
            ops.cast(x, ms.bool_), ops.cast(ops.cast(x, ms.int32), ms.float64))


def cast_signed_expect(x: np.ndarray) -> tuple[np.ndarray, ...]:
    return (x.astype(np.int8), x.astype(np.int32), x.astype(np.int64), x != 0,
            np.trunc(x).astype(np.float64))


# --- contractions -----------------------------------------------------------------------


def matmul_2d(x: Any, y: Any, t: Any, u: Any, v: Any, xi: Any, yi: Any, xd: Any) -> Any:
    return (ops.matmul(x, y), ops.MatMul(transpose_b=True)(x, t),
            ops.MatMul(transpose_a=True)(u, y), ops.MatMul(True, True)(u, t),
            ops.matmul(x, v), ops.matmul(v, y), ops.matmul(xi, yi), ops.matmul(xd, y),
            ops.MatMul(transpose_a=True, transpose_b=True)(yi, ops.cast(xi, ms.int64)),
            ops.matmul(xi > 2, yi > 2))


def matmul_2d_expect(x: np.ndarray, y: np.ndarray, t: np.ndarray, u: np.ndarray, v: np.ndarray,
                     xi: np.ndarray, yi: np.ndarray, xd: np.ndarray) -> tuple[np.ndarray, ...]:
    return (x @ y, x @ t.T, u.T @ y, u.T @ t.T, x @ v, v @ y, xi @ yi, xd @ y,
            yi.T.astype(np.int64) @ xi.T.astype(np.int64), (xi > 2) @ (yi > 2))


def batch_matmul(a: Any, b: Any, at: Any, bt: Any, ai: Any, bi: Any) -> Any:
    """Batch dims broadcast: (2,1,3,4) @ (3,4,5) is (2,3,3,5)."""
    return (ops.matmul(a, b), ops.BatchMatMul(transpose_a=True)(at, b),
            ops.BatchMatMul(transpose_b=True)(a, bt), ops.BatchMatMul(True, True)(at, bt),
            ops.matmul(ai, bi), ops.BatchMatMul(transpose_a=True)(ops.transpose(ai, (0, 2, 1)), bi),
            ops.matmul(ai > 3, bi > 3))


def batch_matmul_expect(a: np.ndarray, b: np.ndarray, at: np.ndarray, bt: np.ndarray,
                        ai: np.ndarray, bi: np.ndarray) -> tuple[np.ndarray, ...]:
    def t(m: np.ndarray) -> np.ndarray:
        return np.swapaxes(m, -1, -2)
    return (a @ b, t(at) @ b, a @ t(bt), t(at) @ t(bt), ai @ bi, ai @ bi,
            (ai > 3) @ (bi > 3))


def dense(x: Any, w: Any, b: Any, w1: Any, x2: Any, b0: Any, xi: Any, wi: Any) -> Any:
    return (ops.dense(x, w, b), ops.dense(x2, w), ops.dense(x2, w1), ops.dense(x2, w, b0),
            ops.dense(xi, wi), ops.dense(x, w1, b0), ops.dense(xi, wi, ops.sum(wi, 1)))


def dense_expect(x: np.ndarray, w: np.ndarray, b: np.ndarray, w1: np.ndarray, x2: np.ndarray,
                 b0: np.ndarray, xi: np.ndarray, wi: np.ndarray) -> tuple[np.ndarray, ...]:
    i64 = np.int64
    return (x @ w.T + b, x2 @ w.T, x2 @ w1, x2 @ w.T + b0, xi @ wi.T, x @ w1 + b0,
            xi.astype(i64) @ wi.T.astype(i64) + wi.sum(1, dtype=i64))


class DenseNet(nn.Cell):
    """Weights reach the kernel as arguments after the inputs."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Dense(4, 6, activation="relu")
        self.fc2 = nn.Dense(6, 3, has_bias=False)

    def construct(self, x: Any) -> Any:
        return ops.softmax(self.fc2(self.fc1(x)))


# --- shapes -----------------------------------------------------------------------------


def reshape_family(x: Any, s: Any, one: Any, i: Any) -> Any:
    return (ops.reshape(x, (4, 6)), ops.reshape(x, (-1,)), ops.reshape(s, (1, 1)),
            ops.reshape(one[:, 1:2], ()), ops.transpose(x, (2, 0, 1)), ops.expand_dims(x, 1),
            ops.expand_dims(s, 0), ops.squeeze(one), ops.squeeze(one, 0), ops.flatten(x),
            ops.reshape(ops.transpose(x, (1, 0, 2)), (3, 8)), ops.transpose(x, (0, 2, 1)) + 1,
            ops.flatten(ops.transpose(i, (1, 0, 2))), ops.squeeze(ops.reshape(s, (1,))),
            ops.transpose(i, (2, 1, 0)))


def reshape_family_expect(x: np.ndarray, s: np.ndarray, one: np.ndarray,
                          i: np.ndarray) -> tuple[np.ndarray, ...]:
    return (x.reshape(4, 6), x.reshape(-1), s.reshape(1, 1), one[:, 1:2].reshape(()),
            x.transpose(2, 0, 1), x[:, None], s[None], one.reshape(3), one[0],
            x.reshape(2, 12), x.transpose(1, 0, 2).reshape(3, 8), x.transpose(0, 2, 1) + 1,
            i.transpose(1, 0, 2).reshape(3, 8), s.copy(), i.transpose(2, 1, 0))


SHAPE_OPS = frozenset({"Reshape", "Transpose", "ExpandDims", "Squeeze", "Flatten"})


def join_split(x: Any, y: Any, z: Any, w: Any) -> Any:
    parts = ops.Split(axis=1, output_num=3)(w)
    rows = ops.Split(axis=0, output_num=2)(w)
    return (ops.concat((x, y), 1), ops.concat((x, z, x), 0), ops.stack((x, z)),
            ops.stack((x, z, x), -1), parts, rows[1], parts[0][:2] + rows[0][:, :2],
            ops.concat((ops.cast(y, ms.float64), x), -1))


def join_split_expect(x: np.ndarray, y: np.ndarray, z: np.ndarray,
                      w: np.ndarray) -> tuple[Any, ...]:
    return (np.concatenate((x, y.astype(np.float32)), 1), np.concatenate((x, z, x)),
            np.stack((x, z)), np.stack((x, z, x), -1), tuple(np.split(w, 3, 1)), w[2:],
            w[:2, :2] + w[:2, :2], np.concatenate((y.astype(np.float64), x), -1))


def gather_slice(x: Any, idx: Any, idx64: Any, last: Any, i0: Any) -> Any:
    return (ops.gather(x, idx, 1), ops.gather(x, idx64, 0), ops.gather(x, last, -1),
            ops.gather(x[0, 0], i0, 0), ops.gather(x, i0, 1),
            x[::-1], x[1:, ::2, None], x[0, 1:4:2], x[-1, ::-2, 3], x[..., 1], x[1, 2, 3],
            x[None, 2], x[0:0], x[:, -2:], x[2, 4], x[:, 1, :][::-1, ::-3], x[idx64])


def gather_slice_expect(x: np.ndarray, idx: np.ndarray, idx64: np.ndarray, last: np.ndarray,
                        i0: np.ndarray) -> tuple[np.ndarray, ...]:
    return (np.take(x, idx, 1), np.take(x, idx64, 0), np.take(x, last, -1),
            np.asarray(x[0, 0, i0]), x[:, i0], x[::-1],
            x[1:, ::2, None], x[0, 1:4:2], x[-1, ::-2, 3], x[..., 1], x[1, 2, 3], x[None, 2],
            x[0:0], x[:, -2:], x[2, 4], x[:, 1, :][::-1, ::-3], x[idx64])


def broadcast_tile(x: Any, s: Any, i: Any, b: Any) -> Any:
    return (ops.broadcast_to(x, (2, 3, 4)), ops.broadcast_to(s, (2, 2)),
            ops.broadcast_to(x, (-1, 5)), ops.tile(i, (2, 1)), ops.tile(x, (2, 2, 3)),
            ops.tile(i, (3,)), ops.broadcast_to(b, (3, 2)), ops.tile(s, (2,)) * 2,
            ops.broadcast_to(x * 2, (2, 3, 4)))


def broadcast_tile_expect(x: np.ndarray, s: np.ndarray, i: np.ndarray,
                          b: np.ndarray) -> tuple[np.ndarray, ...]:
    return (np.broadcast_to(x, (2, 3, 4)), np.broadcast_to(s, (2, 2)), np.broadcast_to(x, (3, 5)),
            np.tile(i, (2, 1)), np.tile(x, (2, 2, 3)), np.tile(i, 3), np.broadcast_to(b, (3, 2)),
            np.tile(s, 2) * 2, np.broadcast_to(x * 2, (2, 3, 4)))


# --- nn ---------------------------------------------------------------------------------


def _np_softmax(x: np.ndarray, axis: Any) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def softmaxes(x: Any, d: Any, s: Any) -> Any:
    return (ops.softmax(x), ops.softmax(x, (0, 2)), ops.softmax(x, 0), ops.softmax(x, None),
            ops.log_softmax(x, 1), ops.log_softmax(d), ops.softmax(d, -2),
            ops.log_softmax(x, 0), ops.softmax(s), ops.log_softmax(s))


def softmaxes_expect(x: np.ndarray, d: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, ...]:
    return (_np_softmax(x, -1), _np_softmax(x, (0, 2)), _np_softmax(x, 0),
            _np_softmax(x, None), np.log(_np_softmax(x, 1)), np.log(_np_softmax(d, -1)),
            _np_softmax(d, -2), np.log(_np_softmax(x, 0)), np.ones((), np.float32),
            np.zeros((), np.float32))


def cumsums(x: Any, i: Any) -> Any:
    return (ops.cumsum(x, 1), ops.CumSum(exclusive=True)(x, -1), ops.CumSum(False, True)(i, 0),
            ops.CumSum(True, True)(x, 0), i.cumsum(), ops.cumsum(i, 1, ms.float64))


def cumsums_expect(x: np.ndarray, i: np.ndarray) -> tuple[np.ndarray, ...]:
    """Independent of the runtime: explicit running sums in each direction."""
    def running(a: np.ndarray, axis: int, exclusive: bool, reverse: bool) -> np.ndarray:
        a = np.moveaxis(a, axis, -1)
        out = np.empty_like(a)
        total = np.zeros(a.shape[:-1], a.dtype)
        order = range(a.shape[-1] - 1, -1, -1) if reverse else range(a.shape[-1])
        for j in order:
            if exclusive:
                out[..., j] = total
                total = total + a[..., j]
            else:
                total = total + a[..., j]
                out[..., j] = total
        return np.moveaxis(out, -1, axis)
    return (running(x, 1, False, False), running(x, 2, True, False), running(i, 0, False, True),
            running(x, 0, True, True), running(i.reshape(-1), 0, False, False),
            running(i.astype(np.float64), 1, False, False))


def logsumexps(x: Any, d: Any, s: Any) -> Any:
    big = x * 100.0  # exp overflows float32: the shift by the maximum must hold
    return (ops.logsumexp(x, 1), ops.logsumexp(x, (0, 2), keep_dims=True), ops.logsumexp(big, -1),
            ops.logsumexp(d, 0), ops.logsumexp(s, 0), ops.logsumexp(ops.log(x * 0.0), 1))


def logsumexps_expect(x: np.ndarray, d: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, ...]:
    def lse(a: np.ndarray, axis: Any, keep: bool = False) -> np.ndarray:
        wide = a.astype(np.float64)
        top = wide.max(axis=axis, keepdims=True)
        out = np.log(np.exp(wide - top).sum(axis=axis, keepdims=True)) + top
        return (out if keep else np.squeeze(out, axis)).astype(a.dtype)

    minus_inf = np.full((2, 4), -np.inf, np.float32)  # log(0) everywhere: all -inf rows
    return (lse(x, 1), lse(x, (0, 2), True), lse(x * np.float32(100), -1), lse(d, 0), s.copy(),
            minus_inf)


def _np_layer_norm(x: np.ndarray, begin: int, g: np.ndarray, b: np.ndarray,
                   eps: float) -> np.ndarray:
    axes = tuple(range(begin, x.ndim))
    mean = x.mean(axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def layer_norms(x: Any, g: Any, b: Any, g2: Any, b2: Any, d: Any) -> Any:
    y, mean, var = ops.LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-5)(x, g, b)
    y2, _, _ = ops.LayerNorm(begin_norm_axis=1, begin_params_axis=-1)(x, g2, b2)
    y3, _, _ = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=1)(x, g, b)
    return (y, mean, var, y2, ops.layer_norm(d, (5,), eps=1e-6), ops.layer_norm(x, (4,), g2, b2),
            y3)


def layer_norms_expect(x: np.ndarray, g: np.ndarray, b: np.ndarray, g2: np.ndarray,
                       b2: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, ...]:
    mean = x.mean((1, 2), keepdims=True)
    return (_np_layer_norm(x, 1, g, b, 1e-5), mean, ((x - mean) ** 2).mean((1, 2), keepdims=True),
            _np_layer_norm(x, 1, g2, b2, 1e-7), _np_layer_norm(d, 1, np.float64(1), 0.0, 1e-6),
            _np_layer_norm(x, 2, g2, b2, 1e-5), _np_layer_norm(x, 2, g, b, 1e-7))


# --- the table --------------------------------------------------------------------------


def _unary_f64_inputs(rng: np.random.Generator) -> list[np.ndarray]:
    return [rng.uniform(-3, 3, (2, 3)), rng.uniform(0.2, 4, (2, 3))]


CASES = (
    Case("unary_f32", unary_float, lambda r: [f32(r, 3, 4), f32(r, 3, 4, lo=0.5, hi=3)],
         UNARY_FLOAT_OPS, unary_float_expect),
    Case("unary_f64", unary_float, _unary_f64_inputs, UNARY_FLOAT_OPS, unary_float_expect),
    Case("unary_int", unary_int,
         lambda r: [ints(r, -5, 6, 3, 4), nonzero(r, -9, 10, 3, 4, dtype=np.int64)],
         frozenset({"Neg", "Abs", "Square", "Sign", "ReLU", "Floor", "Ceil", "Exp", "Sqrt",
                    "Sigmoid", "Reciprocal", "HSwish", "GeLU", "Tanh", "Log"}),
         unary_int_expect),
    Case("binary_f32", binary_float,
         lambda r: [f32(r, 2, 3, 4), f32(r, 3, 1, lo=0.5), f32(r), f32(r, 1, 4)],
         BINARY_OPS, binary_float_expect),
    Case("binary_mixed", binary_mixed,
         lambda r: [f32(r, 3, 4), r.uniform(-1, 1, (4,)), ints(r, -5, 5, 3, 1),
                    nonzero(r, -5, 5, 3, 4, dtype=np.int64)],
         frozenset({"Add", "Mul", "Sub", "Div", "Maximum", "Greater", "Equal"}),
         binary_mixed_expect),
    Case("binary_int", binary_int,
         lambda r: [ints(r, -7, 8, 3, 4), nonzero(r, -3, 4, 4),
                    ints(r, -9, 10, 3, 1, dtype=np.int64)],
         BINARY_OPS | {"Mod"}, binary_int_expect),
    Case("small_ints", small_ints,
         lambda r: [ints(r, 0, 256, 3, 4, dtype=np.uint8), ints(r, -128, 128, 3, 4, dtype=np.int8),
                    ints(r, -300, 300, 4, dtype=np.int16), ints(r, 0, 3, 3, 4, dtype=np.uint8)],
         frozenset({"Add", "Sub", "Mul", "Neg", "Abs", "Maximum", "FloorDiv", "FloorMod",
                    "ReduceSum", "ReduceProd", "ReduceMax", "Argmin"}), small_ints_expect),
    Case("logic", logic,
         lambda r: [r.random((3, 4)) < 0.5, r.random((4,)) < 0.5, f32(r, 3, 4)],
         frozenset({"LogicalAnd", "LogicalOr", "LogicalNot", "Equal", "NotEqual", "Add",
                    "Mul", "Maximum", "Select", "Greater"}), logic_expect),
    Case("select_clip", select_clip,
         lambda r: [r.random((3, 1)) < 0.5, f32(r, 1, 4), f32(r, 3, 4), ints(r, -5, 6, 3, 4),
                    f32(r, lo=-1, hi=0)],
         frozenset({"Select", "ClipByValue", "Maximum", "Minimum"}), select_clip_expect),
    Case("creation_like", creation_like,
         lambda r: [f32(r, 3, 4), ints(r, -5, 5, 3, 4), r.random((3, 4)) < 0.5],
         frozenset({"ZerosLike", "OnesLike", "StopGradient"}), creation_like_expect),
    Case("cast_all", cast_all, cast_inputs, frozenset({"Cast"}), cast_all_expect),
    Case("cast_signed", cast_signed, lambda r: [f32(r, 2, 5, lo=-100, hi=100)],
         frozenset({"Cast"}), cast_signed_expect),
    Case("matmul_2d", matmul_2d,
         lambda r: [f32(r, 3, 4), f32(r, 4, 5), f32(r, 5, 4), f32(r, 4, 3), f32(r, 4),
                    ints(r, -9, 9, 3, 4), ints(r, -9, 9, 4, 5), r.uniform(-1, 1, (3, 4))],
         frozenset({"MatMul", "Squeeze", "ExpandDims", "Cast"}), matmul_2d_expect),
    Case("batch_matmul", batch_matmul,
         lambda r: [f32(r, 2, 1, 3, 4), f32(r, 3, 4, 5), f32(r, 1, 4, 3), f32(r, 2, 3, 5, 4),
                    ints(r, -9, 9, 2, 3, 4), ints(r, -9, 9, 4, 5)],
         frozenset({"BatchMatMul", "Transpose"}), batch_matmul_expect),
    Case("dense", dense,
         lambda r: [f32(r, 2, 3, 4), f32(r, 5, 4), f32(r, 5), f32(r, 4), f32(r, 3, 4), f32(r),
                    ints(r, -9, 9, 3, 4), ints(r, -9, 9, 5, 4, dtype=np.int64)],
         frozenset({"Dense", "ReduceSum"}), dense_expect),
    Case("reshape_family", reshape_family,
         lambda r: [f32(r, 2, 3, 4), f32(r), f32(r, 1, 3, 1), ints(r, -9, 9, 2, 3, 4)],
         SHAPE_OPS, reshape_family_expect),
    Case("join_split", join_split,
         lambda r: [f32(r, 2, 3), ints(r, -9, 9, 2, 1), f32(r, 2, 3), f32(r, 4, 6)],
         frozenset({"Concat", "Stack", "Split", "StridedSlice"}), join_split_expect),
    Case("gather_slice", gather_slice,
         lambda r: [f32(r, 3, 5, 4), ints(r, -5, 5, 2, 3), ints(r, -3, 3, 4, dtype=np.int64),
                    ints(r, -4, 4, 3), np.array(-2, np.int64)],
         frozenset({"Gather", "StridedSlice"}), gather_slice_expect),
    Case("broadcast_tile", broadcast_tile,
         lambda r: [f32(r, 3, 1), f32(r), ints(r, -9, 9, 2, 3), r.random((2,)) < 0.5],
         frozenset({"BroadcastTo", "Tile"}), broadcast_tile_expect),
    Case("softmax", softmaxes,
         lambda r: [f32(r, 2, 3, 4, lo=-5, hi=5), r.normal(0, 3, (3, 5)), f32(r)],
         frozenset({"Softmax", "LogSoftmax"}), softmaxes_expect),
    Case("cumsum", cumsums, lambda r: [f32(r, 2, 3, 4), ints(r, -9, 9, 3, 4)],
         frozenset({"CumSum"}), cumsums_expect),
    Case("logsumexp", logsumexps,
         lambda r: [f32(r, 2, 3, 4, lo=-5, hi=5), r.normal(0, 3, (3, 5)), f32(r)],
         frozenset({"LogSumExp"}), logsumexps_expect),
    Case("layer_norm", layer_norms,
         lambda r: [f32(r, 2, 3, 4), f32(r, 3, 4), f32(r, 3, 4), f32(r, 4), f32(r, 4),
                    r.normal(0, 2, (3, 5))],
         frozenset({"LayerNorm", "ReduceMean"}), layer_norms_expect),
    Case("conv_pool", conv_pool, conv_pool_inputs, CONV_OPS, conv_pool_expect),
)


# families kept in files of their own (they import ``Case`` from here)
from tests.codegen.array_cases import ARRAY_CASES  # noqa: E402
from tests.codegen.cases_ctc import CTC_CASES  # noqa: E402
from tests.codegen.cases_decomp import DECOMP_CASES  # noqa: E402
from tests.codegen.cases_math import MATH_CASES  # noqa: E402
from tests.codegen.cases_reduce import REDUCE_CASES  # noqa: E402

CASES += REDUCE_CASES + MATH_CASES + ARRAY_CASES + CTC_CASES + DECOMP_CASES
