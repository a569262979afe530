"""Codegen cases of the reductions (``reduce.py``): sums, means, products, extremes and
arg-extremes over every axis form, leading axes included, of floats, ints and bools,
each against numpy; ``cases.CASES`` includes ``REDUCE_CASES``. Import this module through
``tests.codegen.cases``, which it extends."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc import ops
from tests.codegen.cases import Case, f32, ints


def reduce_float(x: Any) -> Any:
    return (ops.sum(x), ops.sum(x, 1), ops.sum(x, (0, 2), keepdim=True), ops.mean(x, -1),
            ops.mean(x, (0, 1), True), ops.amax(x, 2), ops.amin(x, (0, 2)),
            ops.prod(x, 1, True), ops.argmax(x), ops.argmax(x, 1),
            ops.argmax(x, -1, keepdim=True), ops.argmin(x, 0), ops.argmin(x),
            ops.ReduceMax(keep_dims=True)(x), ops.mean(x), ops.prod(x, -1),
            ops.ReduceMin(keep_dims=True)(x, (1, 2)), ops.amax(x, 0),
            ops.amin(x, (0, 1), keepdims=True), ops.sum(x, (0, 1)))


def reduce_float_expect(x: np.ndarray) -> tuple[np.ndarray, ...]:
    i64 = np.int64
    return (x.sum(), x.sum(1), x.sum((0, 2), keepdims=True), x.mean(-1),
            x.mean((0, 1), keepdims=True), x.max(2), x.min((0, 2)), x.prod(1, keepdims=True),
            np.argmax(x).astype(i64), x.argmax(1).astype(i64),
            x.argmax(-1, keepdims=True).astype(i64), x.argmin(0).astype(i64),
            np.argmin(x).astype(i64), x.max(keepdims=True), x.mean(), x.prod(-1),
            x.min((1, 2), keepdims=True), x.max(0), x.min((0, 1), keepdims=True),
            x.sum((0, 1)))


REDUCE_OPS = frozenset({"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                        "Argmax", "Argmin"})


def reduce_int(n: Any, b: Any, z: Any, d: Any) -> Any:
    """int and bool sums/products widen to int64, means give float32; 0-d reduces nothing."""
    return (ops.sum(n), ops.sum(n, 0), ops.sum(b, 1), ops.mean(n, 1), ops.prod(n, 0),
            ops.amax(n, 1), ops.amin(b), ops.argmax(n, 1), ops.argmin(b), ops.sum(z),
            ops.amax(z), ops.mean(d, (0, 1)), ops.argmax(z), ops.mean(b, 0),
            ops.sum(d, 1, keepdim=True), ops.amax(n, 0))


def reduce_int_expect(n: np.ndarray, b: np.ndarray, z: np.ndarray,
                      d: np.ndarray) -> tuple[np.ndarray, ...]:
    i64, f = np.int64, np.float32
    return (n.sum(dtype=i64), n.sum(0, dtype=i64), b.sum(1, dtype=i64), n.mean(1).astype(f),
            n.prod(0, dtype=i64), n.max(1), b.min(), n.argmax(1).astype(i64),
            np.argmin(b).astype(i64), z.copy(), z.copy(), d.mean((0, 1)), np.int64(0),
            b.mean(0).astype(f), d.sum(1, keepdims=True), n.max(0))


REDUCE_CASES = (
    Case("reduce_float", reduce_float, lambda r: [f32(r, 2, 3, 4, lo=0.5, hi=1.5)],
         REDUCE_OPS, reduce_float_expect),
    Case("reduce_int", reduce_int,
         lambda r: [ints(r, -4, 5, 3, 4), r.random((3, 4)) < 0.5,
                    np.array(7, np.int64), r.uniform(-1, 1, (2, 3, 4))],
         REDUCE_OPS, reduce_int_expect),
)
