"""Recursion whose depth Python constants decide unrolls while the graph is built (as
MindSpore's graph mode compiles recursion on Python ints); recursion that never ends, or
whose depth a tensor decides while its constant arguments keep changing, is a clear error
at the recursive call."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops

F = np.float32


def doubled(x, n):
    if n == 0:
        return x
    return doubled(x * 2, n - 1)


def fib(x, n):
    if n < 2:
        return x
    return fib(x, n - 1) + fib(x, n - 2)


def is_even(x, n):
    return x if n == 0 else is_odd(x + 1, n - 1)


def is_odd(x, n):
    return -x if n == 0 else is_even(x * 2, n - 1)


def clipped(x, n):
    """A tensor ``if`` inside each level; the depth is still the constant ``n``."""
    if n == 0:
        return x
    if x.sum() > 10:
        return clipped(x - 1, n - 1)
    return clipped(x * 3, n - 1)


class Tower(nn.Cell):
    """A recursive method of a Cell walking its CellList by a constant index."""

    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(2, 2, weight_init="ones", bias_init="zeros"),
                                   nn.ReLU(), nn.Dense(2, 2, weight_init="ones",
                                                       bias_init="ones")])

    def apply(self, x, i):
        if i == len(self.layers):
            return x
        return self.apply(self.layers[i](x), i + 1)

    def construct(self, x):
        return self.apply(x, 0), doubled(x, 4), fib(x, 6), is_even(x, 5), clipped(x, 4)


def _numpy_reference(x):
    h = np.maximum(x @ np.ones((2, 2), F).T, 0) @ np.ones((2, 2), F).T + 1
    even = x
    for k in range(5):  # is_even/is_odd alternate: +1, *2, +1, *2, +1, then odd: negate
        even = even + 1 if k % 2 == 0 else even * 2
    clip = x
    for _ in range(4):
        clip = clip - 1 if clip.sum() > 10 else clip * 3
    return h, x * 16, x * 13, -even, clip  # fib(x, 6) adds 13 leaves


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_constant_recursion_unrolls_like_eager_and_numpy(mode):
    ms.set_context(mode=mode, jit_target="python")
    x = np.array([[0.5, -1.0]], F)
    got = Tower()(Tensor(x))
    for g, w in zip(got, _numpy_reference(x), strict=True):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6)


def test_deep_constant_recursion_compiles():
    """Up to MindSpore's default call depth limit of 1000."""
    class Deep(nn.Cell):
        def construct(self, x):
            return doubled(x, 600)

    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    x = np.array([1.0], np.float64)
    np.testing.assert_array_equal(Deep()(Tensor(x)).asnumpy(), x * 2.0 ** 600)


def _line_of(text):
    lines = open(__file__).read().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def endless(x, n):
    return endless(x + 1, n - 1)  # endless: the recursive call


def tensor_depth(x, n):
    if x > 0:
        return tensor_depth(x - 1, n + 1)  # tensor_depth: the recursive call
    return x * n


def test_endless_recursion_is_an_error_at_the_call():
    # MindSpore 2.10: RuntimeError "Exceed function call depth limit 1000"
    class Net(nn.Cell):
        def construct(self, x):
            return endless(x, 3)

    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    with pytest.raises(RuntimeError, match="'endless' calls itself more than 1000 levels "
                                           "deep.*reach no base case") as info:
        Net()(Tensor(np.ones(1, F)))
    assert (info.value.loc.file, info.value.loc.line) == (__file__, _line_of("# endless:"))


def test_recursion_decided_by_a_tensor_with_changing_constants_is_an_error_at_the_call():
    # a tensor decides the depth, but the Python int ``n`` differs at every level: no one
    # graph can stand for every level (tests/frontend/test_tensor_recursion.py has the
    # recursion that does compile, into a recursive graph)
    class Net(nn.Cell):
        def construct(self, x):
            return tensor_depth(x, 0)

    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    with pytest.raises(RuntimeError, match="under a tensor condition.*change dtype, shape "
                                           "or constant value") as info:
        Net()(Tensor(np.array([3], np.int32)))
    assert (info.value.loc.file, info.value.loc.line) == \
        (__file__, _line_of("# tensor_depth:"))
    # eager mode runs it as Python
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert int(Net()(Tensor(np.array([3], np.int32))).asnumpy()[0]) == 0


def test_grad_through_constant_recursion():
    def loss(x):
        return doubled(x, 3).sum() + fib(x, 4).sum()

    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    x = np.array([1.0, 2.0], F)
    np.testing.assert_allclose(ms.jit(ops.grad(loss))(Tensor(x)).asnumpy(),
                               np.full(2, 8.0 + 5.0, F))
