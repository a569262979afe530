"""Float folds along a contiguous row in partial results (``Loops.fold``): the maxima and
float64 sums of Softmax, LogSoftmax, LogSumExp, LayerNorm and ReduceSum/ReduceMean keep
``PARTIALS`` chains that LLVM vectorizes, then the row's rest.

Rows of 37 and 40 elements (a rest and none), of 9 (too short: one chain), over the last
axis and over the last two; NaN and infinities at a partial's position and in the rest.
Each result is checked against eager mode and every target (``check_all``) and against
numpy in float64 written here; float32 sums against the exactly rounded sum.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from msc import nn, ops
from msc.ir.primitives.emitting import PARTIALS
from tests.codegen import check_all

F32 = np.float32


def kernel_of(built: dict[str, Any]) -> str:
    return "\n".join(built["numba"].spec.kernel.lines)


def rows(rng: Any, shape: tuple[int, ...], specials: bool = True) -> np.ndarray:
    """Normal values; with ``specials``, a NaN in a partial's column and in the rest, and
    +-inf, in rows of their own."""
    x = (rng.normal(size=shape) * 3).astype(F32)
    if specials:
        flat = x.reshape(-1, shape[-1])
        flat[1, 3] = np.nan
        flat[2, -1] = np.nan
        flat[3, min(11, shape[-1] - 2)] = np.inf
        flat[4, 5] = -np.inf
    return x


def np_softmax(x: np.ndarray, axes: tuple[int, ...], log: bool) -> np.ndarray:
    x = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        s = x - x.max(axis=axes, keepdims=True)
        total = np.exp(s).sum(axis=axes, keepdims=True)
        return (s - np.log(total) if log else np.exp(s) / total).astype(F32)


@pytest.mark.parametrize("width", [37, 40, 9])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_rows(width: int, log: bool, tmp_path: Any, rng: Any) -> None:
    x = rows(rng, (6, width))
    fn = nn.LogSoftmax() if log else nn.Softmax()
    _, built = check_all(fn, [x], tmp_path, expect=np_softmax(x, (1,), log))
    assert (f"int({PARTIALS})" in kernel_of(built)) == (width >= 2 * PARTIALS)


def test_logsumexp_rows_and_two_axes(tmp_path: Any, rng: Any) -> None:
    x = rows(rng, (6, 3, 21))

    def fn(v: Any) -> Any:
        return ops.logsumexp(v, 2, False), ops.logsumexp(v, (1, 2), True)

    with np.errstate(invalid="ignore", over="ignore"):
        def lse(axes: tuple[int, ...], keep: bool) -> np.ndarray:
            top = x.max(axis=axes, keepdims=True).astype(np.float64)
            top = np.where(np.isfinite(top), top, 0)
            out = np.log(np.exp(x - top).sum(axis=axes, keepdims=True)) + top
            return (out if keep else out.squeeze(axis=axes)).astype(F32)
        expect = (lse((2,), False), lse((1, 2), True))
    check_all(fn, [x], tmp_path, expect=expect)


@pytest.mark.parametrize("begin", [-1, 1])
def test_layer_norm_rows_and_two_axes(begin: int, tmp_path: Any, rng: Any) -> None:
    x = rows(rng, (5, 4, 40), specials=False) + F32(7)  # a mean far from 0
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
    assert f"int({PARTIALS})" in kernel_of(built)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_and_means_of_rows(dtype: Any, tmp_path: Any, rng: Any) -> None:
    x = (rng.normal(size=(7, 3, 37)) * 5).astype(dtype)
    x[2, 1, 30] = np.nan
    x[3, 0, 8] = np.inf

    def fn(v: Any) -> Any:
        return (ops.reduce_sum(v, 2), ops.ReduceMean(keep_dims=True)(v, (1, 2)),
                ops.reduce_sum(v, (0, 2)))

    d = x.astype(np.float64)
    expect = tuple(r.astype(dtype) for r in (
        d.sum(axis=2), d.mean(axis=(1, 2), keepdims=True), d.sum(axis=(0, 2))))
    _, built = check_all(fn, [x], tmp_path, expect=expect)
    assert f"int({PARTIALS})" in kernel_of(built)
    if dtype is np.float32:  # a float64 sum of float32 rounds to the exact sum's float32
        got = built["numba"](x.copy())[0]
        exact = np.array([[F32(math.fsum(r)) for r in plane] for plane in d], F32)
        finite = np.isfinite(exact)
        assert np.array_equal(got[finite], exact[finite])
