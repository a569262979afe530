"""Codegen cases of the reductions (``reduce.py``): sums, means, products, extremes and
arg-extremes over every axis form, leading axes included, of floats, ints and bools,
each against numpy; ``cases.CASES`` includes ``REDUCE_CASES``. Import this module through
``tests.codegen.cases``, which it extends."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc import ops
from tests.codegen.cases import Case, f32, ints, nonzero


def reduce_float(x: Any) -> Any:
    return (ops.sum(x), ops.sum(x, 1), ops.sum(x, (0, 2), keepdim=True), ops.mean(x, -1),
            ops.mean(x, (0, 1), True), ops.amax(x, 2), ops.amin(x, (0, 2)),
            ops.prod(x, 1, True), ops.argmax(x), ops.argmax(x, 1),
            ops.argmax(x, -1, keepdim=True), ops.argmin(x, 0), ops.argmin(x),
            ops.ReduceMax(keep_dims=True)(x), ops.mean(x), ops.prod(x, -1),
            ops.ReduceMin(keep_dims=True)(x, (1, 2)), ops.amax(x, 0),
            ops.amin(x, (0, 1), keepdims=True), ops.sum(x, (0, 1)))


def reduce_float_expect(x: np.ndarray) -> tuple[np.ndarray, ...]:
    i64, i32 = np.int64, np.int32  # MindSpore 2.10: ops.argmax is int64, ops.argmin int32
    return (x.sum(), x.sum(1), x.sum((0, 2), keepdims=True), x.mean(-1),
            x.mean((0, 1), keepdims=True), x.max(2), x.min((0, 2)), x.prod(1, keepdims=True),
            np.argmax(x).astype(i64), x.argmax(1).astype(i64),
            x.argmax(-1, keepdims=True).astype(i64), x.argmin(0).astype(i32),
            np.argmin(x).astype(i32), x.max(keepdims=True), x.mean(), x.prod(-1),
            x.min((1, 2), keepdims=True), x.max(0), x.min((0, 1), keepdims=True),
            x.sum((0, 1)))


REDUCE_OPS = frozenset({"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                        "Argmax", "Argmin"})


def reduce_int(n: Any, b: Any, z: Any, d: Any, m: Any) -> Any:
    """MindSpore 2.10's result dtypes: int and bool sums widen to int64, and so does a
    product along one axis, but a product over a tuple of axes keeps int32; an integer
    mean keeps its dtype, truncated towards zero (a bool mean, which MindSpore refuses,
    gives float32); ops.argmax is int64, ops.argmin int32. 0-d reduces nothing."""
    return (ops.sum(n), ops.sum(n, 0), ops.sum(b, 1), ops.mean(n, 1), ops.prod(n, 0),
            ops.amax(n, 1), ops.amin(b), ops.argmax(n, 1), ops.argmin(b), ops.sum(z),
            ops.amax(z), ops.mean(d, (0, 1)), ops.argmax(z), ops.mean(b, 0),
            ops.sum(d, 1, keepdim=True), ops.amax(n, 0), ops.prod(m, (0, 2)), ops.mean(m, 2),
            ops.mean(n))


def reduce_int_expect(n: np.ndarray, b: np.ndarray, z: np.ndarray, d: np.ndarray,
                      m: np.ndarray) -> tuple[np.ndarray, ...]:
    i64, i32, f = np.int64, np.int32, np.float32

    def int_mean(a: np.ndarray, axis: Any = None) -> np.ndarray:
        total = a.astype(i64).sum(axis)
        count = a.size // np.size(total)
        # truncated towards zero: the magnitude's floor division, with the sign back on
        return (np.sign(total) * (np.abs(total) // count)).astype(a.dtype)

    return (n.sum(dtype=i64), n.sum(0, dtype=i64), b.sum(1, dtype=i64), int_mean(n, 1),
            n.prod(0, dtype=i64), n.max(1), b.min(), n.argmax(1).astype(i64),
            np.argmin(b).astype(i32), z.copy(), z.copy(), d.mean((0, 1)), np.int64(0),
            b.mean(0).astype(f), d.sum(1, keepdims=True), n.max(0),
            m.prod((0, 2), dtype=i64).astype(m.dtype), int_mean(m, 2), int_mean(n))


REDUCE_CASES = (
    Case("reduce_float", reduce_float, lambda r: [f32(r, 2, 3, 4, lo=0.5, hi=1.5)],
         REDUCE_OPS, reduce_float_expect),
    Case("reduce_int", reduce_int,
         lambda r: [ints(r, -4, 5, 3, 4), r.random((3, 4)) < 0.5,
                    np.array(7, np.int64), r.uniform(-1, 1, (2, 3, 4)),
                    nonzero(r, -3, 4, 2, 3, 2)],
         REDUCE_OPS, reduce_int_expect),
)
