"""``while`` on tensor values: one While node with the loop-carried variables, run as a
real loop by the interpreter and both targets; compiled == eager."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import nn
from msc.compiler import arg_spec, compile_entry
from msc.errors import GraphTypeError
from tests.codegen import check_module, to_numpy


class Count(nn.Cell):
    def construct(self, x, n):
        i = 0
        s = x * 0
        while i < n:
            s = s + x * i
            i = i + 1
        return s


class Fib(nn.Cell):
    """A loop-carried tuple."""

    def construct(self, n):
        pair = (ms.Tensor(0), ms.Tensor(1))
        k = 0
        while k < n:
            a, b = pair
            pair = (b, a + b)
            k += 1
        return pair


class Jumps(nn.Cell):
    def construct(self, x, n):
        i = 0
        s = x * 0
        while i < n:
            i = i + 1
            if i == 2:
                continue
            s = s + x * i
            if s.sum() > 20:
                break
        return s, i


class Halve(nn.Cell):
    """A data-dependent trip count with an if inside the body."""

    def construct(self, x):
        steps = 0
        while x.max() > 1:
            if x.sum() > 10:
                x = x / 4
            else:
                x = x / 2
            steps = steps + 1
        return x, steps


F = np.float32
CASES = {
    "Count": (Count, [[np.array([1, 2], F), np.array(5)], [np.array([1, 2], F), np.array(0)]]),
    "Fib": (Fib, [[np.array(10)], [np.array(1)]]),
    "Jumps": (Jumps, [[np.array([1, 2], F), np.array(3)], [np.array([1, 2], F), np.array(10)]]),
    "Halve": (Halve, [[np.array([30, 4], F)], [np.array([0.5, 0.25], F)]]),
}


@pytest.mark.parametrize("name", CASES)
def test_compiled_equals_eager(name, tmp_path):
    factory, runs = CASES[name]
    net = factory()
    for inputs in runs:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        eager = as_arrays(to_numpy(net(*[ms.Tensor(a) for a in inputs])))
        c = compile_entry(net, [arg_spec(a) for a in inputs], store=None, target="python")
        assert [n.op.name for n in c.module.entry_graph.nodes].count("While") == 1
        check_module(c.module, inputs, tmp_path, eager, [p.asnumpy() for p in c.weights])


def as_arrays(value):
    """Eager counters stay Python ints; in a graph they are loop-carried int64 tensors."""
    if isinstance(value, tuple):
        return tuple(as_arrays(v) for v in value)
    return np.asarray(value, np.int64) if isinstance(value, int) else value


class Grows(nn.Cell):
    def construct(self, x, n):
        i = 0
        while i < n:
            x = ms.ops.concat((x, x))
            i = i + 1
        return x


def test_a_shape_change_in_the_loop_is_an_error_at_the_while():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(GraphTypeError, match=r"loop variable 'x' is Float32\[2\] before the "
                                             r"loop but Float32\[4\] after an iteration") as err:
        Grows()(ms.Tensor(np.ones(2, F)), ms.Tensor(3))
    assert err.value.loc.line == Grows.construct.__code__.co_firstlineno + 2


def test_a_python_constant_loop_still_unrolls():
    @ms.jit
    def unrolled(x):
        i = 0
        while i < 3:
            x = x * 2
            i += 1
        return x

    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    assert unrolled(ms.Tensor(np.ones(2, F))).asnumpy().tolist() == [8.0, 8.0]
    ops = [n.op.name for n in next(iter(unrolled.cache.entries.values())).module.entry_graph.nodes]
    assert "While" not in ops and ops.count("Mul") == 3


class RangeLoop(nn.Cell):
    def construct(self, x, n):
        s = x * 0
        for i in range(1, n, 2):
            if i == 3:
                continue
            s = s + x * i
        return s


@pytest.mark.parametrize("n", [0, 4, 9])
def test_for_over_a_tensor_range_is_one_while_loop(n, tmp_path):
    x = np.array([1.0, 2.0], F)
    want = x * sum(i for i in range(1, n, 2) if i != 3)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(RangeLoop()(ms.Tensor(x), n).asnumpy(), want)
    c = compile_entry(RangeLoop(), [arg_spec(x), arg_spec(np.array(n))], store=None,
                      target="python")
    assert [node.op.name for node in c.module.entry_graph.nodes].count("While") == 1
    check_module(c.module, [x, np.array(n)], tmp_path, want)
