"""``ops.partial`` binding graph tensors inside a graph (MindSpore compiles it; msc used
to refuse it as a class built from graph tensors), alone and under ``HyperMap``, and
``nn.Momentum``'s ``momentum`` kept as the float32 Parameter MindSpore's checkpoints
hold. Eagerly and compiled, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops

X = np.array([1.0, 2.0, 3.0], np.float32)
Y = np.array([0.5, -1.0, 4.0], np.float32)


def scaled_sum(a, b, c):
    return a * b + c


class BindsATensor(nn.Cell):
    def construct(self, a, b):
        add_a = ops.partial(scaled_sum, a)
        return add_a(b, 1.0), add_a(a, b)


class UnderHyperMap(nn.Cell):
    def __init__(self):
        super().__init__()
        self.map = ops.HyperMap()

    def construct(self, lr, xs, ys):
        return self.map(ops.partial(scaled_sum, lr), xs, ys)


@pytest.mark.parametrize("mode", ["eager", "numba", "python"])
def test_partial_binds_graph_tensors(mode):
    if mode != "eager":
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=mode)
    try:
        first, second = BindsATensor()(Tensor(X), Tensor(Y))
        mapped = UnderHyperMap()(Tensor(np.float32(0.5)), (Tensor(X), Tensor(Y)),
                                 (Tensor(Y), Tensor(X)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(first.asnumpy(), X * Y + 1.0)
    np.testing.assert_allclose(second.asnumpy(), X * X + Y)
    assert isinstance(mapped, tuple) and len(mapped) == 2
    np.testing.assert_allclose(mapped[0].asnumpy(), 0.5 * X + Y)
    np.testing.assert_allclose(mapped[1].asnumpy(), 0.5 * Y + X)


class Linear(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([0.3, -0.2, 0.1], np.float32)), name="w")

    def construct(self, x):
        return (self.w * x).sum() ** 2


@pytest.mark.parametrize("mode", ["eager", "numba"])
def test_momentum_is_a_parameter_that_checkpoints_carry(mode, tmp_path):
    net = Linear()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    assert isinstance(opt.momentum, Parameter) and opt.momentum.name == "momentum"
    assert opt.momentum.dtype == ms.float32
    step = nn.TrainOneStepCell(net, opt)
    if mode != "eager":
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=mode)
    try:
        for _ in range(2):
            step(Tensor(X))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    w, v = np.array([0.3, -0.2, 0.1]), np.zeros(3)
    for _ in range(2):  # v = 0.9 v + g; w -= 0.1 v, with g = 2 (w . x) x
        v = 0.9 * v + 2 * (w @ X) * X
        w = w - 0.1 * v
    np.testing.assert_allclose(net.w.asnumpy(), w, rtol=1e-5)
    ms.save_checkpoint(step, str(tmp_path / "step.ckpt"))
    saved = ms.load_checkpoint(str(tmp_path / "step.ckpt"))
    assert {"momentum", "moments.w", "w", "learning_rate", "global_step"} <= set(saved)
    np.testing.assert_allclose(saved["momentum"].asnumpy(), np.float32(0.9))
    other = nn.Momentum(Linear().trainable_params(), learning_rate=0.1, momentum=0.5)
    ms.load_param_into_net(other, {"momentum": saved["momentum"]})
    np.testing.assert_allclose(other.momentum.asnumpy(), np.float32(0.9))
