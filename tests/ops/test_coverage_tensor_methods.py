"""Tensor's in-place methods (``add_``, ``zero_``, ``masked_fill_``, ``index_copy_``,
``scatter_``, ...) and its random-draw methods: eagerly each writes into the tensor's own
buffer (every reference sees it) and returns the tensor; in a graph a Parameter is written
with ``assign``, and a tensor the graph computes is refused with msc's error."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops
from msc.compiler import arg_spec, compile_entry

X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)


def fresh():
    return Tensor(X.copy())


@pytest.mark.parametrize("call, want", [
    (lambda t: t.add_(1.0, alpha=2), X + 2), (lambda t: t.sub_(t), X * 0),
    (lambda t: t.mul_(3), X * 3), (lambda t: t.div_(2), X / 2),
    (lambda t: t.div_(2, rounding_mode="floor"), np.floor(X / 2)),
    (lambda t: t.remainder_(2), np.mod(X, 2)), (lambda t: t.floor_divide_(2), X // 2),
    (lambda t: t.clamp_(-1, 1), np.clip(X, -1, 1)), (lambda t: t.fill_(7), X * 0 + 7),
    (lambda t: t.zero_(), X * 0), (lambda t: t.exp_(), np.exp(X)),
    (lambda t: t.floor_(), np.floor(X)), (lambda t: t.sign_(), np.sign(X)),
    (lambda t: t.tanh_(), np.tanh(X)), (lambda t: t.sigmoid_(), 1 / (1 + np.exp(-X))),
    (lambda t: t.copy_(Tensor(np.array([1, 2, 3]))), np.tile([1.0, 2, 3], (2, 1))),
    (lambda t: t.assign_value(Tensor(np.ones(3))), np.ones((2, 3))),
    (lambda t: t.masked_fill_(Tensor(X > 0), 0.0), np.where(X > 0, 0, X)),
    (lambda t: t.masked_scatter_(Tensor(X > 0), Tensor(np.arange(6.0))),
     np.array([[0, -2, 1], [2, 3, -1]])),
    (lambda t: t.index_fill_(1, Tensor(np.array([0, 2])), 9.0),
     np.array([[9, -2, 9], [9, 4, 9]])),
    (lambda t: t.index_add_(0, Tensor(np.array([1])), Tensor(np.ones((1, 3), np.float32)),
                            alpha=2), X + np.array([[0], [2]])),
    (lambda t: t.index_copy_(1, Tensor(np.array([2, 0])), Tensor(np.zeros((2, 2), np.float32))),
     np.array([[0, -2, 0], [0, 4, 0]])),
    (lambda t: t.scatter_(1, Tensor(np.array([[0], [1]])), Tensor(np.full((2, 1), 5.0,
                                                                          np.float32))),
     np.array([[5, -2, 3], [0.5, 5, -1]])),
    (lambda t: t.scatter_add_(1, Tensor(np.array([[0, 0, 0], [1, 1, 1]])),
                              Tensor(np.ones((2, 3), np.float32))),
     np.array([[4, -2, 3], [0.5, 7, -1]])),
    (lambda t: t.index_put_((Tensor(np.array([0])), Tensor(np.array([1]))),
                            Tensor(np.float32(8.0))), np.array([[1, 8, 3], [0.5, 4, -1]])),
    (lambda t: t.fill_diagonal_(0.0), np.array([[0, -2, 3], [0.5, 0, -1]])),
    (lambda t: t.addmm_(Tensor(np.eye(2, dtype=np.float32)), Tensor(X), beta=0.5),
     1.5 * X),
])
def test_inplace_methods_write_the_tensor(call, want):
    t = fresh()
    alias = t
    out = call(t)
    assert out is t
    np.testing.assert_allclose(alias.asnumpy(), np.asarray(want, np.float32), rtol=1e-6)
    assert alias.dtype == ms.float32


def test_inplace_keeps_the_dtype_and_log_erfinv():
    i = Tensor(np.array([5, 7], np.int32))
    i.div_(2)
    assert i.dtype == ms.int32 and i.asnumpy().tolist() == [2, 3]
    f = Tensor(np.array([0.5, 2.0], np.float32))
    f.log_()
    np.testing.assert_allclose(f.asnumpy(), np.log([0.5, 2.0]), rtol=1e-6)
    e = Tensor(np.array([0.0, 0.5], np.float32)).erfinv_()
    np.testing.assert_allclose(e.asnumpy(), [0.0, 0.4769363], rtol=1e-6)


class Train(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(3, np.float32)), name="w")
        self.steps = Parameter(Tensor(np.zeros(3, np.int32)), name="steps")

    def construct(self, x):
        self.w.mul_(x)
        self.steps.add_(1)
        return self.w + 0


class Refused(nn.Cell):
    def construct(self, x):
        y = x * 2
        y.add_(1)
        return y


@pytest.mark.parametrize("target", ["python"])
def test_parameters_in_a_graph(target):
    x = np.array([2.0, 3.0, 4.0], np.float32)
    net = Train()
    compiled = compile_entry(net, [arg_spec(x)], store=None, target=target)
    for _ in range(2):
        out = compiled.run([Tensor(x)])
    np.testing.assert_array_equal(out.asnumpy(), x * x)
    np.testing.assert_array_equal(net.w.asnumpy(), x * x)
    np.testing.assert_array_equal(net.steps.asnumpy(), [2, 2, 2])
    eager = Train()
    eager(Tensor(x))
    np.testing.assert_array_equal(eager.w.asnumpy(), x)
    with pytest.raises(TypeError, match="add_"):
        compile_entry(Refused(), [arg_spec(x)], store=None, target=target)


def test_draws():
    ms.set_seed(3)
    z = Tensor(np.zeros((4000,), np.float32))
    u = z.uniform(2.0, 4.0).asnumpy()
    assert u.dtype == np.float32 and 2 <= u.min() and u.max() < 4 and abs(u.mean() - 3) < 0.05
    n = Tensor(np.zeros(4000, np.float64)).normal_(1.0, 2.0).asnumpy()
    assert abs(n.mean() - 1) < 0.15 and abs(n.std() - 2) < 0.15
    b = Tensor(np.full(4000, 0.25, np.float32)).bernoulli().asnumpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.25) < 0.04
    e = Tensor(np.zeros(4000, np.float32)).exponential_(2.0).asnumpy()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.05
    r = Tensor(np.zeros(4000, np.int32)).random_(3, 7).asnumpy()
    assert set(np.unique(r)) == {3, 4, 5, 6}
    c = Tensor(np.zeros(4000, np.float32)).cauchy(1.0, 0.5).asnumpy()
    assert abs(np.median(c) - 1.0) < 0.1
    ln = Tensor(np.zeros(4000, np.float32)).log_normal(0.0, 0.5).asnumpy()
    assert ln.min() > 0 and abs(np.median(np.log(ln))) < 0.05


def test_metadata_methods():
    t = Tensor(np.zeros(2, np.float32))
    assert t.set_dtype(ms.float64).dtype == ms.float64
    assert t.requires_grad_(False).requires_grad is False
    assert t.const_arg is False and t.set_const_arg().const_arg is True
    assert t.pin_memory() is t and t.move_to("CPU") is t
