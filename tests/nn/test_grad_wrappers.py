"""``nn.WithEvalCell``, ``nn.WithGradCell``, ``nn.ParameterUpdate``, ``nn.Jvp`` and
``nn.Vjp`` against closed-form gradients written out here in numpy, eagerly and
compiled."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops

rng = np.random.default_rng(1)
X = rng.standard_normal((5, 3)).astype(np.float32)
W = rng.standard_normal((3, 2)).astype(np.float32)
Y = rng.standard_normal((5, 2)).astype(np.float32)


class Linear(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(W), name="w")

    def construct(self, x):
        return ops.matmul(x, self.w)


def _mse_grad(sens=1.0):
    err = X.astype(np.float64) @ W - Y
    return sens * X.T @ (2 * err / err.size)


def test_with_grad_cell():
    """Compiled on the numba target; with a sensitivity on the python target (the gradient
    of a Cell is a graph either way)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    (g,) = nn.WithGradCell(Linear(), nn.MSELoss())(Tensor(X), Tensor(Y))
    np.testing.assert_allclose(g.asnumpy(), _mse_grad(), rtol=1e-5, atol=1e-6)
    ms.set_context(mode=ms.PYNATIVE_MODE, jit_target="python")
    scaled = nn.WithGradCell(Linear(), nn.MSELoss(), sens=Tensor(np.float32(3.0)))
    (g3,) = scaled(Tensor(X), Tensor(Y))
    np.testing.assert_allclose(g3.asnumpy(), _mse_grad(3.0), rtol=1e-5, atol=1e-6)


def test_with_grad_cell_without_loss_and_with_eval_cell():
    ms.set_context(jit_target="python")
    net = Linear()
    (g,) = nn.WithGradCell(net)(Tensor(X))  # the network's output summed (ones sensitivity)
    np.testing.assert_allclose(g.asnumpy(), X.T @ np.ones((5, 2)), rtol=1e-5)
    half = nn.WithEvalCell(net, nn.MSELoss(), add_cast_fp32=True)
    loss, out, label = half(Tensor(X), Tensor(Y.astype(np.float16)))
    assert out.dtype == ms.float32 and label.dtype == ms.float32
    np.testing.assert_allclose(loss.asnumpy(), np.mean((X @ W - Y.astype(np.float16)) ** 2),
                               rtol=1e-3)
    loss, out, label = nn.WithEvalCell(net, nn.MSELoss())(Tensor(X), Tensor(Y))
    np.testing.assert_allclose(out.asnumpy(), X @ W, rtol=1e-5)
    assert label.dtype == ms.float32
    with pytest.raises(TypeError, match="add_cast_fp32"):
        nn.WithEvalCell(net, nn.MSELoss(), add_cast_fp32=1)


def test_parameter_update():
    p = Parameter(Tensor(np.zeros(3, np.float32)), name="p")
    update = nn.ParameterUpdate(p)
    out = update(Tensor(np.arange(3, dtype=np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), [0, 1, 2])
    np.testing.assert_array_equal(out.asnumpy(), [0, 1, 2])
    with pytest.raises(TypeError, match="must be 'Parameter'"):
        nn.ParameterUpdate(Tensor(np.zeros(3)))


def cubic(x, y):
    return x ** 3 * y


def cube(x):
    return ops.sin(x) * x


def test_jvp_and_vjp_closed_forms():
    ms.set_context(jit_target="python")
    x = rng.standard_normal(4).astype(np.float32)
    y = rng.standard_normal(4).astype(np.float32)
    vx, vy = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    out, tangent = nn.Jvp(cubic)(Tensor(x), Tensor(y), (Tensor(vx), Tensor(vy)))
    np.testing.assert_allclose(out.asnumpy(), x ** 3 * y, rtol=1e-5)
    np.testing.assert_allclose(tangent.asnumpy(), 3 * x ** 2 * y * vx + x ** 3 * vy, rtol=1e-4)
    out, tangent = nn.Jvp(cube)(Tensor(x), Tensor(vx))
    np.testing.assert_allclose(tangent.asnumpy(), (np.cos(x) * x + np.sin(x)) * vx, rtol=1e-5)
    out, grads = nn.Vjp(cubic)(Tensor(x), Tensor(y), Tensor(vx))
    assert isinstance(grads, tuple) and len(grads) == 2
    np.testing.assert_allclose(grads[0].asnumpy(), 3 * x ** 2 * y * vx, rtol=1e-4)
    np.testing.assert_allclose(grads[1].asnumpy(), x ** 3 * vx, rtol=1e-4)
    out, grad = nn.Vjp(cube)(Tensor(x), Tensor(vx))  # one input: the gradient alone
    np.testing.assert_allclose(grad.asnumpy(), (np.cos(x) * x + np.sin(x)) * vx, rtol=1e-5)
