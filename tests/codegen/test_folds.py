"""Folds of long rows (``Loops.fold``): the maxima and float64 sums of Softmax,
LogSoftmax, LayerNorm and float ReduceSum/ReduceMean call the ``_rt_row_*`` helpers
(numba_rows_rt.py) once per row, whose partial results LLVM vectorizes.

Rows of 67 and 72 elements (a rest and none) and of 9 (short: one chain in the kernel),
over the last axis and over the last two; NaN and infinities at a partial's position, in
the rest and first. Each result is checked against eager mode and every target
(``check_all``) and against numpy in float64 written here; float32 sums against the
exactly rounded sum; the helpers alone against numpy.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest

from msc import nn, ops
from msc.codegen import outline as outlining
from msc.ir.primitives.emitting import FOLD_ROWS
from msc.runtime import numba_rows_rt
from tests.codegen import build, check_all, compile_fn

F32 = np.float32


def kernel_of(built: dict[str, Any]) -> str:
    return "\n".join(built["numba"].spec.kernel.lines)


def rows(rng: Any, shape: tuple[int, ...], specials: bool = True) -> np.ndarray:
    """Normal values; with ``specials``, NaN in a partial's column, last and first, and
    +-inf, in rows of their own."""
    x = (rng.normal(size=shape) * 3).astype(F32)
    if specials:
        flat = x.reshape(-1, shape[-1])
        flat[1, 3] = np.nan
        flat[2, -1] = np.nan
        flat[3, min(11, shape[-1] - 2)] = np.inf
        flat[4, 5] = -np.inf
        flat[5, 0] = np.nan
    return x


def np_softmax(x: np.ndarray, axes: tuple[int, ...], log: bool) -> np.ndarray:
    x = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        s = x - x.max(axis=axes, keepdims=True)
        total = np.exp(s).sum(axis=axes, keepdims=True)
        return (s - np.log(total) if log else np.exp(s) / total).astype(F32)


@pytest.mark.parametrize("width", [67, 72, 9])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_rows(width: int, log: bool, tmp_path: Any, rng: Any) -> None:
    x = rows(rng, (7, width))
    fn = nn.LogSoftmax() if log else nn.Softmax()
    _, built = check_all(fn, [x], tmp_path, expect=np_softmax(x, (1,), log))
    assert ("_rt_row_max(" in kernel_of(built)) == (width >= FOLD_ROWS)


@pytest.mark.parametrize("begin", [-1, 1])
def test_layer_norm_rows_and_two_axes(begin: int, tmp_path: Any, rng: Any) -> None:
    x = rows(rng, (5, 4, 72), specials=False) + F32(7)  # a mean far from 0
    gamma = rng.uniform(0.5, 1.5, x.shape[begin:]).astype(F32)
    beta = rng.normal(size=x.shape[begin:]).astype(F32)
    norm = ops.LayerNorm(begin_norm_axis=begin, begin_params_axis=begin, epsilon=1e-5)

    def fn(v: Any, g: Any, b: Any) -> Any:
        return norm(v, g, b)[0]

    axes = tuple(range(begin % 3, 3))
    d = x.astype(np.float64)
    mean = d.mean(axis=axes, keepdims=True)
    var = ((d - mean) ** 2).mean(axis=axes, keepdims=True)
    expect = ((d - mean) / np.sqrt(var + 1e-5) * gamma + beta).astype(F32)
    _, built = check_all(fn, [x, gamma, beta], tmp_path, expect=expect)
    assert "_rt_row_sum(" in kernel_of(built) and "_rt_row_squares(" in kernel_of(built)


@pytest.mark.parametrize("shift", [0.0, 1000.0, -3e5])
def test_float32_layer_norm_is_within_three_roundings_of_float64(shift: float, tmp_path: Any,
                                                                   rng: Any) -> None:
    """float32 data is scaled and shifted in float32 arithmetic, the mean in two floats:
    every result within 3 float32 roundings of the terms it sums (normalized times
    gamma, and beta), however far the mean is from 0 (a mean rounded to one float would
    be off by its own rounding, thousands of these units at a mean of -3e5)."""
    x = (rng.normal(size=(64, 192)) * 3 + shift).astype(F32)
    gamma = rng.uniform(0.5, 1.5, 192).astype(F32)
    beta = rng.normal(size=192).astype(F32)
    norm = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-5)
    compiled = compile_fn(lambda v, g, b: norm(v, g, b)[0], [x, gamma, beta])
    got = build(compiled.module, "numba", tmp_path)(x.copy(), gamma, beta)
    d = x.astype(np.float64)
    mean = d.mean(axis=1, keepdims=True)
    scaled = (d - mean) / np.sqrt(((d - mean) ** 2).mean(axis=1, keepdims=True) + 1e-5) * gamma
    bound = 3 * np.finfo(F32).eps * (np.abs(scaled) + np.abs(beta))
    assert np.all(np.abs(got - (scaled + beta)) <= bound)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_and_means_of_rows(dtype: Any, tmp_path: Any, rng: Any) -> None:
    x = (rng.normal(size=(7, 3, 67)) * 5).astype(dtype)
    x[2, 1, 65] = np.nan
    x[3, 0, 8] = np.inf

    def fn(v: Any) -> Any:
        return (ops.reduce_sum(v, 2), ops.ReduceMean(keep_dims=True)(v, (1, 2)),
                ops.reduce_sum(v, (0, 2)))

    d = x.astype(np.float64)
    expect = tuple(r.astype(dtype) for r in (
        d.sum(axis=2), d.mean(axis=(1, 2), keepdims=True), d.sum(axis=(0, 2))))
    _, built = check_all(fn, [x], tmp_path, expect=expect)
    assert "_rt_row_sum(" in kernel_of(built)
    if dtype is np.float32:  # a float64 sum of float32 rounds to the exact sum's float32
        got = built["numba"](x.copy())[0]
        exact = np.array([[F32(math.fsum(r)) for r in plane] for plane in d], F32)
        finite = np.isfinite(exact)
        assert np.array_equal(got[finite], exact[finite])


def test_rows_of_other_lengths_share_one_kernel(tmp_path: Any, rng: Any,
                                              monkeypatch: Any) -> None:
    """A kernel's form does not depend on the row's length (from FOLD_ROWS on): one
    library kernel takes the softmax of rows of 64 and of 67."""
    monkeypatch.setattr(outlining, "OUTLINE_LINES", 0)  # outline however small
    a, b = rows(rng, (6, 64)), rows(rng, (7, 67))

    def fn(u: Any, v: Any) -> Any:
        return ops.softmax(u, -1), ops.softmax(v, -1)

    expect = (np_softmax(a, (1,), False), np_softmax(b, (1,), False))
    _, built = check_all(fn, [a, b], tmp_path, expect=expect)
    calls = re.findall(r"\b(_k_\w+)\(", kernel_of(built))
    assert len(calls) == 2 and len(set(calls)) == 1, calls


@pytest.mark.parametrize("n", [1, 3, 4, 5, 8, 16, 17, 35, 70])
def test_row_helpers_against_numpy(n: int, rng: Any) -> None:
    """Every position of a NaN, +inf and -inf, for each lane and the rest."""
    base = rng.normal(size=n).astype(F32)
    cases = [base, np.full(n, -np.inf, F32)]
    for special in (np.nan, np.inf, -np.inf):
        for k in range(min(n, 40)):
            row = base.copy()
            row[k] = special
            cases.append(row)
    for row in cases:
        d = row.astype(np.float64)
        top = numba_rows_rt._rt_row_max(row)
        assert np.array_equal(top, row.max(), equal_nan=True), (row, top)
        with np.errstate(invalid="ignore"):
            assert np.allclose(numba_rows_rt._rt_row_sum(row), d.sum(), rtol=1e-15,
                               equal_nan=True)
            want = ((d - 0.25) ** 2).sum()
            assert np.allclose(numba_rows_rt._rt_row_squares(row, 0.25), want, rtol=1e-14,
                               equal_nan=True)


def _lanes_reference(row: np.ndarray, kind: str, around: float = 0.0) -> Any:
    """numba_rows_rt.py's order written out in Python: 16 lanes over the first n // 16 * 16
    elements, halves onto halves, then the rest."""
    def pick(kept: Any, v: Any) -> Any:
        return v if v > kept or v != v else kept

    def step(acc: Any, v: Any) -> Any:
        if kind == "max":
            return pick(acc, v)
        d = float(v) - around if kind == "squares" else float(v)
        return acc + d * d if kind == "squares" else acc + d

    whole = len(row) // 16 * 16
    acc = [row[0] if kind == "max" else 0.0] * 16
    for j in range(whole):
        acc[j % 16] = step(acc[j % 16], row[j])
    while len(acc) > 1:
        half = len(acc) // 2
        acc = [pick(acc[k], acc[k + half]) if kind == "max" else acc[k] + acc[k + half]
               for k in range(half)]
    total = acc[0]
    for j in range(whole, len(row)):
        total = step(total, row[j])
    return total


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 15, 16, 33, 197, 768])
def test_row_helpers_fold_in_their_documented_order(dtype: Any, n: int, rng: Any) -> None:
    """The same bits as the order written out, for contiguous rows (16 elements a vector
    load) and strided ones (element by element), with a NaN inside a lane: the native
    runtime's ``msc_row_*`` fold in this order too (tests/native checks their bits)."""
    base = (rng.normal(size=2 * n) * 1e3).astype(dtype)
    for row in (base[:n], base[::2]):
        helpers = (numba_rows_rt._rt_row_max(row), numba_rows_rt._rt_row_sum(row),
                   numba_rows_rt._rt_row_squares(row, 0.25))
        wants = [_lanes_reference(row, kind, 0.25) for kind in ("max", "sum", "squares")]
        for got, want in zip(helpers, wants):
            assert np.asarray(got).tobytes() == np.asarray(want, np.asarray(got).dtype).tobytes()
    if n > 20:
        row = base[:n].copy()
        row[18] = np.nan
        assert np.isnan(numba_rows_rt._rt_row_max(row)) and np.isnan(
            numba_rows_rt._rt_row_sum(row))
