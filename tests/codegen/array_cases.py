"""Codegen cases of the sorting, running-extreme, gather and scatter primitives, each
against numpy written independently (loops where numpy has no one-liner)."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc import ops
from tests.codegen.cases import Case, f32, ints


def _stable_order(row: np.ndarray, descending: bool) -> list[int]:
    """Positions sorted by value, equal values in position order."""
    return sorted(range(len(row)), key=lambda i: (-row[i] if descending else row[i], i))


def _along(fn: Any, x: np.ndarray, axis: int) -> np.ndarray:
    return np.apply_along_axis(fn, axis, x)


def sorting(x: Any, n: Any) -> Any:
    return (*ops.sort(x), *ops.sort(x, 0, True), *ops.topk(x, 2), ops.argsort(n, 0),
            *ops.sort(n, -1, True), ops.cumprod(x, 1), ops.CumProd(True, True)(n, 0),
            *ops.cummax(x, 1), *ops.cummin(n, 0), *ops.cummax(n, 1))


def sorting_expect(x: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, ...]:
    def order(a: np.ndarray, axis: int, desc: bool) -> np.ndarray:
        return _along(lambda r: np.array(_stable_order(r, desc)), a, axis)

    def cumext(a: np.ndarray, axis: int, largest: bool) -> tuple[np.ndarray, np.ndarray]:
        values, where = np.empty_like(a), np.empty(a.shape, np.int64)
        for line in np.ndindex(*(s for d, s in enumerate(a.shape) if d != axis)):
            best, at = None, 0
            for j in range(a.shape[axis]):
                pos = line[:axis] + (j,) + line[axis:]
                if best is None or (a[pos] >= best if largest else a[pos] <= best):
                    best, at = a[pos], j
                values[pos], where[pos] = best, at
        return values, where

    i1, i0 = order(x, 1, False), order(x, 0, True)
    i_top = order(x, 1, True)[:, :2]
    i_nd = order(n, 1, True)
    rev = np.ones_like(n)
    for k in range(n.shape[0] - 2, -1, -1):
        rev[k] = rev[k + 1] * n[k + 1]
    mx, mxi = cumext(x, 1, True)
    mn, mni = cumext(n, 0, False)
    nmx, nmxi = cumext(n, 1, True)
    return (np.take_along_axis(x, i1, 1), i1.astype(np.int32),
            np.take_along_axis(x, i0, 0), i0.astype(np.int32),
            np.take_along_axis(x, i_top, 1), i_top.astype(np.int32),
            order(n, 0, False).astype(np.int32),
            np.take_along_axis(n, i_nd, 1), i_nd.astype(np.int32),
            np.cumprod(x, 1), rev, mx, mxi, mn, mni.astype(np.int32), nmx, nmxi)


def scatters(x: Any, i2: Any, t: Any, u: Any, e: Any, rows: Any) -> Any:
    return (ops.gather_d(x, 1, i2), ops.gather_elements(x, 0, e), ops.gather_nd(x, t),
            ops.gather_nd(x, rows), ops.tensor_scatter_add(x, rows, x[:2] * 10),
            ops.tensor_scatter_update(x, t, u), ops.tensor_scatter_elements(x, i2, x[:, :2], 1,
                                                                             "add"),
            ops.scatter(x, 0, e, x[:2] - 7), ops.scatter_nd(rows, x[:2], (3, 4)))


def scatters_expect(x: np.ndarray, i2: np.ndarray, t: np.ndarray, u: np.ndarray,
                    e: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, ...]:
    rows_of = [int(r[0]) for r in rows]
    gd = np.array([[x[r, c % 4] for c in i2[r]] for r in range(3)])
    ge = np.array([[x[e[r, c], c] for c in range(4)] for r in range(2)])
    gn = np.array([x[a, b] for a, b in t])
    add, upd, sel, sc, snd = x.copy(), x.copy(), x.copy(), x.copy(), np.zeros_like(x)
    for k, r in enumerate(rows_of):
        add[r] += x[k] * 10
        snd[r] += x[k]
    for (a, b), v in zip(t, u):
        upd[a, b] = v
    for r in range(3):
        for c in range(2):
            sel[r, i2[r, c] % 4] += x[r, c]
    for r in range(2):
        for c in range(4):
            sc[e[r, c], c] = x[r, c] - 7
    return gd, ge, gn, x[rows_of], add, upd, sel, sc, snd


def scatter_inputs(r: np.random.Generator) -> list[np.ndarray]:
    return [f32(r, 3, 4), ints(r, -4, 4, 3, 2), np.array([[2, 1], [0, 3]], np.int64),
            f32(r, 2), np.array([[2, 0, 1, 1], [0, 2, 2, 0]], np.int32),
            np.array([[1], [1]], np.int32)]


ARRAY_CASES = (
    Case("sorting", sorting, lambda r: [f32(r, 3, 5), ints(r, -3, 3, 4, 3)],
         frozenset({"Sort", "CumProd", "Cummax", "Cummin"}), sorting_expect),
    Case("scatters", scatters, scatter_inputs,
         frozenset({"GatherD", "GatherNd", "TensorScatterAdd", "TensorScatterUpdate",
                    "TensorScatterElements"}), scatters_expect),
)
