"""Large results reuse buffers (numba target): a result the caller no longer references
lends its memory to a later call, one the caller still holds (as a Tensor, an array or a
view) never changes."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import ops
from msc.codegen.lower import POOL_BYTES
from msc.compiler import arg_spec, compile_entry

N = POOL_BYTES // 4  # float32 elements: the smallest pooled result


def chain(x):  # type: ignore[no-untyped-def]
    return ops.relu(x * 1.5 + 0.25) * 2.0 - x


def want(x: np.ndarray) -> np.ndarray:
    return np.maximum(x * np.float32(1.5) + np.float32(0.25), 0) * np.float32(2) - x


def address(t: ms.Tensor) -> int:
    return t.asnumpy().__array_interface__["data"][0]


def test_a_released_result_lends_its_buffer_and_a_held_one_never_changes() -> None:
    f = ms.jit(chain)
    xs = [np.random.default_rng(i).normal(size=N).astype(np.float32) for i in range(4)]
    a = f(ms.Tensor(xs[0]))
    b = f(ms.Tensor(xs[1]))
    view = b[:10]
    del b  # the view still holds b's memory
    c = f(ms.Tensor(xs[2]))
    array = c.asnumpy()
    del c  # and the array c's
    d = f(ms.Tensor(xs[3]))
    assert len({address(a), address(view), array.__array_interface__["data"][0],
                address(d)}) == 4
    np.testing.assert_array_equal(a.asnumpy(), want(xs[0]))
    np.testing.assert_array_equal(view.asnumpy(), want(xs[1])[:10])
    np.testing.assert_array_equal(array, want(xs[2]))
    np.testing.assert_array_equal(d.asnumpy(), want(xs[3]))
    kept = address(d)
    del d
    e = f(ms.Tensor(xs[0]))  # d's buffer is free again: reused, and filled anew
    assert address(e) == kept
    np.testing.assert_array_equal(e.asnumpy(), want(xs[0]))


def test_a_result_assigned_to_the_same_name_each_call_alternates_two_buffers() -> None:
    f = ms.jit(chain)
    x = ms.Tensor(np.random.default_rng(0).normal(size=N).astype(np.float32))
    seen = []
    y = f(x)
    for _ in range(4):
        seen.append(address(y))
        y = f(x)  # the previous y is still held while this call runs
    assert len(set(seen)) == 2 and seen[0] == seen[2] and seen[1] == seen[3]
    np.testing.assert_array_equal(y.asnumpy(), want(x.asnumpy()))


def test_only_large_results_of_fused_loops_are_pooled() -> None:
    x = np.ones(N, np.float32)
    big = compile_entry(ms.jit(lambda x: (chain(x), x * 2.0, x.sum())), [arg_spec(x)],
                        store=None, target="numba")
    assert "_buffer(0), _buffer(1))" in big.source and "_buffer(2)" not in big.source
    small = compile_entry(ms.jit(chain), [arg_spec(x[:N - 1])], store=None, target="numba")
    assert "_buffer(" not in small.source
    on_python = compile_entry(ms.jit(chain), [arg_spec(x)], store=None, target="python")
    assert "_buffer(" not in on_python.source


@pytest.mark.parametrize("dtype", [np.float16, np.int32])
def test_pooled_results_of_other_dtypes(dtype: type) -> None:
    f = ms.jit(lambda x: x * 3 - 1)
    x = (np.arange(POOL_BYTES // 2) % 7).astype(dtype)
    first = f(ms.Tensor(x))
    second = f(ms.Tensor(x + 1))
    assert first.dtype == second.dtype == ms.Tensor(x).dtype
    np.testing.assert_array_equal(first.asnumpy(), x * 3 - 1)
    np.testing.assert_array_equal(second.asnumpy(), (x + 1) * 3 - 1)
