"""Parameters chosen by a tensor condition and then written: ``p = self.a if x > 0 else
self.b``, a tuple of Parameters rebound in one branch of a tensor ``if`` (in an inner
Cell too), a tuple indexed by a tensor. The write reaches the chosen Parameter and later
reads see it, as in MindSpore 2.10 (whose outputs these programs were checked against)
and in eager mode; expected values are written out by hand with numpy."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops
from msc.ops import operations as P

A, B = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)


@pytest.fixture(params=["graph", "pynative"])
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.GRAPH_MODE)


class Base(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Parameter(Tensor(A), name="a")
        self.b = Parameter(Tensor(B), name="b")
        self.ps = (self.a, self.b)

    def out(self, y):
        return y, self.a * 1, self.b * 1


class ReadAfterWrite(Base):
    def construct(self, x):
        p = self.a if x.sum() > 2 else self.b
        y = p * 2
        ops.assign(p, x)
        return self.out(y + p + 1)


class ApplyThroughRebound(Base):
    def __init__(self):
        super().__init__()
        self.acc_a = Parameter(Tensor(np.ones(2, np.float32)), name="acc_a")
        self.acc_b = Parameter(Tensor(np.zeros(2, np.float32)), name="acc_b")
        self.momentum = P.ApplyMomentum()

    def construct(self, x):
        var, acc = self.a, self.acc_a
        if x.sum() < 2:
            var, acc = self.b, self.acc_b
        return self.out(self.momentum(var, acc, 0.1, x, 0.9))


class Inner(nn.Cell):
    def construct(self, ps, x):
        if x.sum() > 0:
            q = ps[0]
        else:
            q = ps[1]
        if x[0] > 1:
            ops.assign_add(q, x)
        return q * 1


class InnerCell(Base):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def construct(self, x):
        return self.out(self.inner(self.ps, x))


class TensorIndex(Base):
    def construct(self, i, x):
        ops.assign(self.ps[i], x)
        return self.out(self.ps[i] * 1)


class ChosenTwice(Base):
    def construct(self, x):
        p = self.a
        if x.sum() > 2:
            p = self.b
        if x.sum() > 4:
            p = self.a
        ops.assign_sub(p, x)
        return self.out(p + 0)


class WrittenInWhile(Base):
    def construct(self, x):
        p = self.a if x.sum() > 2 else self.b
        while x.sum() < 20:
            ops.assign_add(p, x)
            x = x * 2
        return self.out(p * 1)


def numpy_read_after_write(x):
    a, b = A.copy(), B.copy()
    p = a if x.sum() > 2 else b
    y = p * 2
    p[:] = x
    return y + p + 1, a, b


def numpy_apply_through_rebound(x):
    a, b, acc_a, acc_b = A.copy(), B.copy(), np.ones(2, np.float32), np.zeros(2, np.float32)
    var, acc = (a, acc_a) if x.sum() >= 2 else (b, acc_b)
    acc[:] = acc * 0.9 + x
    var[:] = var - 0.1 * acc
    return var.copy(), a, b


def numpy_inner_cell(x):
    a, b = A.copy(), B.copy()
    q = a if x.sum() > 0 else b
    if x[0] > 1:
        q += x
    return q.copy(), a, b


def numpy_chosen_twice(x):
    a, b = A.copy(), B.copy()
    p = a if x.sum() > 4 or x.sum() <= 2 else b
    p -= x
    return p.copy(), a, b


def numpy_written_in_while(x):
    a, b = A.copy(), B.copy()
    p = a if x.sum() > 2 else b
    while x.sum() < 20:
        p += x
        x = x * 2
    return p.copy(), a, b


CASES = [
    (ReadAfterWrite, numpy_read_after_write, [[1.0, 2.0], [0.0, 1.0]]),
    (ApplyThroughRebound, numpy_apply_through_rebound, [[1.0, 2.0], [0.0, 1.0]]),
    (InnerCell, numpy_inner_cell, [[2.0, 2.0], [-1.0, 0.0], [0.5, 1.0]]),
    (ChosenTwice, numpy_chosen_twice, [[1.0, 1.0], [2.0, 1.0], [3.0, 3.0]]),
    (WrittenInWhile, numpy_written_in_while, [[1.0, 2.0], [0.0, 1.0]]),
]


@pytest.mark.parametrize("net, reference, inputs", CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_writes_reach_the_chosen_parameter(mode, net, reference, inputs):
    for x in inputs:
        x = np.array(x, np.float32)
        cell = net()
        got = cell(Tensor(x))
        want = reference(x)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6)
        np.testing.assert_allclose(cell.a.asnumpy(), want[1], rtol=1e-6)
        np.testing.assert_allclose(cell.b.asnumpy(), want[2], rtol=1e-6)


def test_mindspores_recorded_outputs():
    """Two of the cases as MindSpore 2.10 printed them (graph mode, CPU)."""
    got = ApplyThroughRebound()(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_allclose(got[0].asnumpy(), [0.81, 1.71], rtol=1e-6)
    got = WrittenInWhile()(Tensor(np.array([0.0, 1.0], np.float32)))
    np.testing.assert_allclose(got[2].asnumpy(), [3.0, 35.0])


@pytest.mark.parametrize("i, which", [(1, "b"), (0, "a"), (-1, "b")])
def test_a_tuple_of_parameters_indexed_by_a_tensor_is_written(mode, i, which):
    x = np.array([5.0, 6.0], np.float32)
    cell = TensorIndex()
    got, a, b = cell(Tensor(np.array(i, np.int32)), Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), x)
    np.testing.assert_allclose(a.asnumpy(), x if which == "a" else A)
    np.testing.assert_allclose(b.asnumpy(), x if which == "b" else B)


def test_gradients_flow_to_the_chosen_parameter():
    class Loss(Base):
        def construct(self, x):
            p = self.a if x.sum() > 2 else self.b
            return (p * x).sum()

    net = Loss()
    weights = ms.ParameterTuple(net.trainable_params())
    grads = ms.grad(net, grad_position=None, weights=weights)(Tensor(np.array([1.0, 2.0],
                                                                              np.float32)))
    np.testing.assert_allclose(grads[0].asnumpy(), [1.0, 2.0])
    np.testing.assert_allclose(grads[1].asnumpy(), [0.0, 0.0])
